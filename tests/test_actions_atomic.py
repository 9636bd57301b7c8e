"""Every state change is an action, and ``@transaction.atomic`` sits on the action itself
(docs/architecture.md; issue 24 item 1), read from the source with ``ast``:

- a private helper (``_name``) of an actions module is never decorated atomic: a decorator that
  lands on the helper instead of the action (a helper inserted between the two) leaves the action
  outside any transaction — ``select_for_update`` then fails on PostgreSQL ("cannot be used
  outside of a transaction") and a failed creation leaves half its rows;
- a public function of an actions module that writes or locks rows (``save``, ``create``,
  ``update``, ``delete``, ``select_for_update``… outside a ``with transaction.atomic()`` block of
  its own) is decorated atomic, unless it is listed below as a hook its caller runs inside the
  caller's transaction (each with its reason; the list only shrinks).

Public readers (querysets, previews, labels) and sweeps that call one atomic action per row need
no decorator: they write nothing themselves.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WRITES = {"select_for_update", "save", "create", "update", "delete", "bulk_create", "bulk_update",
          "get_or_create", "update_or_create"}

# Public functions that write but run inside their caller's transaction (a layer hook or a step
# of a bigger action): the caller is atomic and holds the locks. "module.function": why.
IN_CALLERS_TRANSACTION = {
    "campaign.cam.actions.common.set_step_deadline": "a step's deadline, set by the action that opens the step",
    "campaign.cam.actions.lobby.start_from_lobby": "the layer record's start, called by start_campaign under its lock",
    "campaign.cam.actions.moderation.set_deadline": "the layer record's hook, called by extend_deadline",
    "campaign.cam.actions.moderation.after_resume": "the layer record's hook, called by resume_campaign",
    "campaign.eventhorizon.actions.lobby.start_eventhorizon": "the layer record's start, called by start_campaign "
                                                              "under its lock",
    "campaign.mail.actions.process": "its own transaction; the failure mark is written after it rolled back",
    "tactical.hosts.pickup.actions.record_result": "the battle's end, inside tactical/play's action under its lock",
    "tactical.play.actions.begin": "called by tactical/hosts/eventhorizon/lifecycle.py inside its transaction",
    "tactical.play.actions.finish_with_doctrine": "called by settle_due_battle under the campaign row lock",
}


def actions_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every actions module of the Django apps (the pure engines under rules/ have no database)."""
    found = {}
    for app in ("campaign", "tactical"):
        for path in sorted((root / app).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if "rules" in parts or not ("actions" in parts[:-1] or parts[-1] == "actions"):
                continue
            found[".".join(p for p in parts if p != "__init__")] = path
    return found


def _is_atomic(expr: ast.AST) -> bool:
    text = ast.unparse(expr)
    return text in ("transaction.atomic", "atomic") or text.startswith(("transaction.atomic(", "atomic("))


def _writes(node: ast.AST) -> list[tuple[int, str]]:
    """Calls of a writing or locking ORM method in ``node``, outside nested functions and outside
    ``with transaction.atomic()`` blocks."""
    out = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(child, ast.With) and any(_is_atomic(item.context_expr) for item in child.items):
            continue
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr in WRITES:
            out.append((child.lineno, child.func.attr))
        out += _writes(child)
    return out


def misplaced_atomic(modules: dict[str, Path]) -> tuple[list[str], set[str]]:
    """(what is wrong, the listed hooks that still write)."""
    wrong, hooks = [], set()
    for name, path in modules.items():
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        for node in ast.parse(path.read_text(), str(path)).body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            atomic = any(_is_atomic(d) for d in node.decorator_list)
            where = f"{shown}:{node.lineno} {node.name}"
            if node.name.startswith("_"):
                if atomic:
                    wrong.append(f"{where}: a private helper is atomic (put the decorator on the action that calls it)")
                continue
            writes = _writes(node)
            if not writes or atomic:
                continue
            if f"{name}.{node.name}" in IN_CALLERS_TRANSACTION:
                hooks.add(f"{name}.{node.name}")
                continue
            shown_writes = ", ".join(f"{attr} (line {line})" for line, attr in writes[:3])
            wrong.append(f"{where}: a public action that is not atomic writes: {shown_writes}")
    return wrong, hooks


def test_every_action_is_atomic_and_no_helper_is():
    modules = actions_modules()
    assert {"campaign.cam.actions.setup", "campaign.actions.lobby", "campaign.press.actions",
            "campaign.mail.actions", "tactical.hosts.pickup.actions", "tactical.play.actions",
            "tactical.battles.actions"} <= set(modules)
    wrong, hooks = misplaced_atomic(modules)
    assert not wrong, "@transaction.atomic belongs on the action itself:\n" + "\n".join(wrong)
    stale = sorted(set(IN_CALLERS_TRANSACTION) - hooks)
    assert not stale, f"these no longer write outside a transaction: drop them from IN_CALLERS_TRANSACTION: {stale}"


def test_the_check_finds_a_decorator_on_the_helper(tmp_path):
    # The shape of the bug it guards against (add_custom_sd, create_cam_campaign before issue 24).
    module = tmp_path / "campaign" / "cam" / "actions" / "setup.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "from django.db import transaction\n\n"
        "@transaction.atomic\ndef _check(fields):\n    pass\n\n"
        "def add_sd(*, campaign_id, fields):\n"
        "    Campaign.objects.select_for_update().get(pk=campaign_id)\n    _check(fields)\n    row.save()\n\n"
        "@transaction.atomic\ndef fine(*, campaign_id):\n    "
        "Campaign.objects.select_for_update().get(pk=campaign_id)\n\n"
        "def reader(campaign):\n    return campaign.sds.filter(key='x')\n\n"
        "def own(pk):\n    with transaction.atomic():\n        Row.objects.select_for_update().get(pk=pk)\n"
    )
    wrong, _ = misplaced_atomic(actions_modules(tmp_path))
    assert len(wrong) == 2, wrong
    assert "_check: a private helper is atomic" in wrong[0]
    assert "add_sd: a public action that is not atomic writes: select_for_update (line 8), save (line 10)" in wrong[1]
