"""The import rules of the layout (docs/architecture.md, issue 15), read from the source with
``ast``: no module is imported, so a broken rule fails here even where no other test runs it.

(a) the pure engines (campaign/rules/, tactical/rules/) import no Django, Celery, DRF or any
    module of the Django layers — only the standard library and each other;
(b) campaign/ (the platform and Event Horizon's layer; not the CAM layer in campaign/cam/) never
    imports ``tactical``: it reaches battles through campaign/battles.py, which tactical/apps.py
    fills in;
(c) no import cycle at module level runs through both apps;
(d) the platform (campaign/ outside its layer packages campaign/eventhorizon/ and campaign/cam/ and
    the pure engines in campaign/rules/; campaign/press/ is platform) imports no campaign layer.
    Each layer's AppConfig registers its own record (Event Horizon's app ``eventhorizon`` since
    issue 26), and the platform reaches a layer's actions through it: no exception, not even
    inside a function;
(e) the platform names no campaign layer either: no string "cam" (a ``Campaign.layer`` value), no
    "cam-…" URL name, "cam__…" lookup or "cam/…" path, no ``.cam`` attribute (the layer's
    relation). It reaches a layer through its record in ``campaign/layers.py`` (CAMPAIGN_LAYERS).
(f) online play (tactical/play/) imports no engine package (``tactical.rules.<book>``): it
    reaches a rule book through the registry's ``PlayRules`` only.
(g) the CAM layer (campaign/cam/) never imports ``tactical`` either: its scenarios fought online
    go through campaign/cam/battles.py, which tactical/apps.py fills in (issue 17);
(h) a campaign layer (campaign/eventhorizon/, campaign/cam/) imports no other layer: they are peers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("campaign", "tactical")
FRAMEWORKS = {"django", "celery", "rest_framework", "drf_spectacular", "config"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> dict[str, Path]:
    return {module_name(p): p for app in APPS for p in sorted((ROOT / app).rglob("*.py"))}


def imports(path: Path, *, top_level_only: bool = False, name: str | None = None) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the file; ``from x import y`` counts as
    ``x.y`` (y may be a module). ``top_level_only``: those run when the module is imported
    (not inside a function or class body). ``name``: the module's name, if not its path's."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    nodes = list(run_at_import(tree)) if top_level_only else list(ast.walk(tree))
    found = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            found += [(node.lineno, f"{base}.{alias.name}" if alias.name != "*" else base) for alias in node.names]
    return found


def run_at_import(node: ast.AST):
    """The nodes executed when the module is imported: everything but function bodies."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        yield child
        yield from run_at_import(child)


def under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_pure_engines_import_no_django_and_no_app_module():
    wrong = []
    for name, path in sources().items():
        if not (under(name, "campaign.rules") or under(name, "tactical.rules")):
            continue
        for line, target in imports(path):
            top = target.split(".")[0]
            app_module = top in APPS and not (under(target, "campaign.rules") or under(target, "tactical.rules"))
            if top in FRAMEWORKS or app_module:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not wrong, "the pure engines must stay free of Django and the apps:\n" + "\n".join(wrong)


def test_the_platform_never_imports_tactical():
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {target}"
             for name, path in sources().items()
             if under(name, "campaign") and not under(name, "campaign.cam")
             for line, target in imports(path) if under(target, "tactical")]
    assert not wrong, "campaign/ reaches battles through campaign/battles.py only:\n" + "\n".join(wrong)


LAYER_PACKAGES = ("campaign.cam", "campaign.eventhorizon")  # one package per campaign layer

def layer_imports(mods: dict[str, Path]) -> dict[str, list[str]]:
    """For every platform module: the layer packages it imports, as "file:line imports target"."""
    found: dict[str, list[str]] = {}
    platform = platform_modules()
    for name, path in mods.items():
        if name not in platform:
            continue
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        for line, target in imports(path, name=name):
            if any(under(target, layer) for layer in LAYER_PACKAGES):
                found.setdefault(name, []).append(f"{shown}:{line} imports {target}")
    return found


def test_the_platform_imports_no_campaign_layer():
    wrong = [hit for hits in layer_imports(sources()).values() for hit in hits]
    assert not wrong, ("the platform reaches a campaign layer through campaign/layers.py only (the record "
                       "registered by the layer's AppConfig):\n" + "\n".join(wrong))


def test_the_layer_import_check_can_fail(tmp_path):
    # Rule (d) must be able to fail: a platform page importing Event Horizon's adapters is caught.
    page = ROOT / "campaign" / "views" / "lobby.py"
    fake = tmp_path / "lobby.py"
    fake.write_text(page.read_text() + "\nfrom campaign.eventhorizon import adapters  # noqa\n")
    found = layer_imports({**sources(), "campaign.views.lobby": fake})
    assert any("imports campaign.eventhorizon.adapters" in hit for hit in found["campaign.views.lobby"])


def test_a_layer_imports_no_other_layer():
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {target}"
             for name, path in sources().items()
             for layer in LAYER_PACKAGES if under(name, layer)
             for line, target in imports(path)
             if any(under(target, other) for other in LAYER_PACKAGES if other != layer)]
    assert not wrong, "campaign layers are peers: none imports another:\n" + "\n".join(wrong)


LAYER_KEYS = ("cam", "eventhorizon")  # every campaign layer


def platform_modules() -> dict[str, Path]:
    """campaign/ without its layer packages (campaign/eventhorizon/, campaign/cam/) and its pure
    engines (campaign/rules/). campaign/press/ is a platform app."""
    return {name: path for name, path in sources().items()
            if under(name, "campaign") and not any(under(name, layer) for layer in LAYER_PACKAGES)
            and not under(name, "campaign.rules")}


def names_a_layer(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """(line, what) for every place ``source`` names a layer of LAYER_KEYS by a string or an
    attribute (rule (e))."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            for key in LAYER_KEYS:
                if node.value == key or node.value.startswith((f"{key}-", f"{key}__", f"{key}/")):
                    found.append((node.lineno, f"the string {node.value!r}"))
        elif isinstance(node, ast.Attribute) and node.attr in LAYER_KEYS:
            found.append((node.lineno, f"the attribute .{node.attr}"))
    return found


def test_the_platform_names_no_campaign_layer():
    # Migrations are history (campaign/migrations/0001 created Campaign.layer with the default of
    # its day): they are left as they were written; the code is checked.
    wrong = [f"{path.relative_to(ROOT)}:{line} names {what}"
             for name, path in platform_modules().items() if ".migrations." not in name
             for line, what in names_a_layer(path.read_text(), str(path))]
    assert not wrong, ("the platform reaches a campaign layer through campaign/layers.py only, never by its "
                       "name:\n" + "\n".join(wrong))


def test_the_layer_name_check_can_fail():
    # Rule (e) must be able to fail: each way the platform used to name CAM is caught.
    source = (
        'qs = Campaign.objects.exclude(layer="cam")\n'
        'if campaign.layer == "cam": pass\n'
        'url = reverse("cam-detail", args=[1])\n'
        'qs = qs.select_related("cam").annotate(n=Count("cam__players"))\n'
        'started = campaign.cam.started\n'
        'ok = "camera"  # not a layer name\n'
    )
    assert sorted(line for line, _ in names_a_layer(source)) == [1, 2, 3, 4, 4, 5]


def test_every_platform_module_is_checked():
    names = platform_modules()
    assert "campaign.views.lobby" in names and "campaign.actions.moderation" in names
    assert not any(under(n, "campaign.cam") or under(n, "campaign.rules") for n in names)


def engine_packages() -> list[str]:
    """Every rule book's package: a directory with an ``__init__.py`` under tactical/rules/."""
    rules = ROOT / "tactical" / "rules"
    return sorted(f"tactical.rules.{d.name}" for d in rules.iterdir() if (d / "__init__.py").is_file())


def play_imports_of_engines(mods: dict[str, Path]) -> list[str]:
    engines = engine_packages()
    return [f"{path.relative_to(ROOT)}:{line} imports {target}"
            for name, path in mods.items() if under(name, "tactical.play")
            for line, target in imports(path) if any(under(target, e) for e in engines)]


def test_online_play_imports_no_engine():
    assert {"tactical.rules.eventhorizon", "tactical.rules.buoyz"} <= set(engine_packages())
    wrong = play_imports_of_engines(sources())
    assert not wrong, ("tactical/play/ reaches a rule book through tactical.rules.registry's PlayRules only:\n"
                       + "\n".join(wrong))


def test_the_cam_layer_reaches_tactical_only_through_its_door():
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {target}"
             for name, path in sources().items() if under(name, "campaign.cam")
             for line, target in imports(path) if under(target, "tactical")]
    assert not wrong, "campaign/cam/ reaches battles through campaign/cam/battles.py only:\n" + "\n".join(wrong)


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
def test_no_import_cycle_at_module_level_runs_through_both_apps():
    mods = sources()
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        edges = set()
        for _line, target in imports(path, top_level_only=True):
            # ``from pkg import mod`` names a module; ``from mod import function`` its module.
            while target and target not in mods:
                target = target.rpartition(".")[0]
            if target and target != name:
                edges.add(target)
        graph[name] = edges
    mixed = [sorted(c) for c in strongly_connected(graph)
             if len(c) > 1 and {m.split(".")[0] for m in c} >= set(APPS)]
    assert not mixed, f"module-level import cycles across campaign and tactical: {mixed}"


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative (the graph has a few hundred modules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                out.append(component)
    return out


def test_the_cycle_finder_finds_a_cycle_across_the_apps():
    # The check above must be able to fail: a two-module loop across the apps is one component.
    graph = {"campaign.a": {"tactical.b"}, "tactical.b": {"campaign.a"}, "campaign.c": set()}
    assert {"campaign.a", "tactical.b"} in strongly_connected(graph)
