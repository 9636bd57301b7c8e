"""The shape issue 27 item 6 gave the Buoyz engine (docs/buoyz.md "Modules"): one module per phase
of the turn, CAM reached through one policy object, and no two tactical modules whose names differ
only by an underscore. Reads the source; no database."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import tactical
from tactical.rules.buoyz import engine
from tactical.rules.buoyz.engine import sequence

ENGINE = Path(engine.__file__).parent
TACTICAL = Path(tactical.__file__).parent


def test_the_engine_reaches_cam_only_through_its_policy_object():
    """``cam_policy.CAM`` is the engine's one way to CAM: no phase module imports ``cam.py`` or
    reads the CAM link (``state.cam``) itself."""
    offenders = []
    for path in sorted(ENGINE.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 2 and (
                    node.module == "cam" or (node.module is None and any(a.name == "cam" for a in node.names))):
                offenders.append(f"{path.name}:{node.lineno} imports cam")
            if isinstance(node, ast.Attribute) and node.attr == "cam":
                offenders.append(f"{path.name}:{node.lineno} reads .cam")
    assert not offenders, offenders


def test_every_action_type_has_one_handler_in_its_phase_module():
    """The sequence dispatches each action to its phase module's handler, which checks it and
    returns the closure that resolves it (as the Event Horizon engine does)."""
    from tactical.rules.buoyz import actions as A

    kinds = {A.Begin, A.Special, A.Move, A.Fire, A.Detect, A.FlyAC, A.Reveal, A.Lurk}
    assert set(sequence._HANDLERS) == kinds
    homes = {kind: handler.__module__.rsplit(".", 1)[1] for kind, handler in sequence._HANDLERS.items()}
    assert homes == {A.Begin: "sequence", A.Special: "specials", A.Move: "movement", A.Fire: "fire",
                     A.Detect: "fire", A.FlyAC: "aircraft", A.Reveal: "movement", A.Lurk: "movement"}


def test_no_two_tactical_modules_differ_only_by_an_underscore():
    """``tactical/rules/buoyz/camplay.py`` against ``tactical/hosts/cam/kind.py`` read as one
    name; the Buoyz one is now ``cam_play_rules.py`` (and the other ``tactical/hosts/cam/kind.py``)."""
    names = defaultdict(set)
    for path in TACTICAL.rglob("*.py"):
        if "migrations" in path.parts:
            continue
        name = path.parent.name if path.stem == "__init__" else path.stem
        names[name.replace("_", "")].add(name)
    assert not {k: v for k, v in names.items() if len(v) > 1}
