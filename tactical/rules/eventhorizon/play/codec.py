"""Tactical actions as JSON and back (the API, the pages and the stored ``BattleStep`` rows).

Pure Python. One JSON object per action, ``type`` naming it::

    {"type": "activate", "ship": 3, "evasive": true}          evasive: true / false / null
    {"type": "restore_power", "ship": 3}
    {"type": "regenerate", "ship": 3}
    {"type": "scan", "ship": 3, "target": 7}
    {"type": "move", "ship": 3, "path": ["F", "FL", "R"], "into_black_hole": false}
    {"type": "warp_out", "ship": 3}    {"type": "land", "ship": 3}    {"type": "launch", "ship": 3}
    {"type": "fire", "ship": 3, "shots": [["laser_bank", 7], ["guided_missile_bay", 8]]}
    {"type": "teleport", "ship": 3, "target": 7}
    {"type": "engage_stealth", "ship": 3}    {"type": "disengage_stealth", "ship": 3}
    {"type": "end_activation", "ship": 3}
    {"type": "pass", "side": 1}

A shot may also be written ``{"weapon": "laser_bank", "target": 7}``; a target is a ship id or
a planet id (a string, for the planetary bombardment array). Bad JSON raises
``ActionFormatError`` (an ``IllegalActionError``) naming the problem.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tactical.rules import kit

from .. import actions as A
from ..geometry import MOVE_TOKENS
from ..state import WEAPON_DAMAGE

FORMAT_RULE = "action format (tactical/rules/eventhorizon/play/codec.py)"
MAX_PATH = 40
MAX_SHOTS = 40


class ActionFormatError(kit.FormatError):
    """The JSON is not an action (unknown type, a missing or mistyped field)."""

    RULE = FORMAT_RULE


_READ = kit.Fields(ActionFormatError)  # the kit's field readers, refusing with this book's error


# type name -> (class, fields beyond "type")
_SHIP_ONLY = {
    "restore_power": A.RestorePower,
    "regenerate": A.Regenerate,
    "warp_out": A.WarpOut,
    "land": A.Land,
    "launch": A.Launch,
    "engage_stealth": A.EngageStealth,
    "disengage_stealth": A.DisengageStealth,
    "end_activation": A.EndActivation,
}
_TYPE_OF = {cls: name for name, cls in _SHIP_ONLY.items()}
_TYPE_OF.update({A.Activate: "activate", A.Scan: "scan", A.Move: "move", A.Fire: "fire", A.Teleport: "teleport",
                 A.Pass: "pass"})
ACTION_TYPES = tuple(sorted(_TYPE_OF.values()))
_FIELDS = {
    "activate": {"ship", "evasive"}, "scan": {"ship", "target"}, "move": {"ship", "path", "into_black_hole"},
    "fire": {"ship", "shots"}, "teleport": {"ship", "target"}, "pass": {"side"},
    **{name: {"ship"} for name in _SHIP_ONLY},
}


def type_of(action: A.Action) -> str:
    try:
        return _TYPE_OF[type(action)]
    except KeyError:
        raise ActionFormatError(f"{action!r} is not a tactical action") from None


def to_json(action: A.Action) -> dict[str, Any]:
    """The action as a JSON-ready dict (``from_json`` reads it back to an equal action)."""
    kind = type_of(action)
    if isinstance(action, A.Pass):
        return {"type": kind, "side": action.side}
    out: dict[str, Any] = {"type": kind, "ship": action.ship}
    if isinstance(action, A.Activate):
        out["evasive"] = action.evasive
    elif isinstance(action, (A.Scan, A.Teleport)):
        out["target"] = action.target
    elif isinstance(action, A.Move):
        out["path"] = list(action.path)
        if action.into_black_hole:
            out["into_black_hole"] = True
    elif isinstance(action, A.Fire):
        out["shots"] = [[weapon, target] for weapon, target in action.shots]
    return out


def _int(data: Mapping, name: str, kind: str) -> int:
    return _READ.whole(data, name, kind, required=True)


def _target(value: Any, kind: str) -> int | str:
    """A ship id (a whole number) or a planet id (a string that is not a number)."""
    if isinstance(value, bool):
        raise ActionFormatError(f"a {kind} target must be a ship id or a planet id, not {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip():
        text = value.strip()
        return int(text) if text.isdigit() else text
    raise ActionFormatError(f"a {kind} target must be a ship id or a planet id, not {value!r}")


def from_json(data: Any) -> A.Action:
    """Read one action; raises ActionFormatError naming what is wrong."""
    kind = _READ.kind(data, _FIELDS)
    if kind == "pass":
        return A.Pass(_int(data, "side", kind))
    ship = _int(data, "ship", kind)
    if kind in _SHIP_ONLY:
        return _SHIP_ONLY[kind](ship)
    if kind == "activate":
        return A.Activate(ship, evasive=_READ.flag(data, "evasive", default=None, nullable=True))
    if kind in ("scan", "teleport"):
        target = _int(data, "target", kind)
        return (A.Scan if kind == "scan" else A.Teleport)(ship, target)
    if kind == "move":
        path = data.get("path")
        if isinstance(path, str):
            path = path.replace(",", " ").split()
        if not isinstance(path, (list, tuple)) or not path:
            raise ActionFormatError("a move needs a 'path': a list of F, FL, FR (steps) and L, R (turns)")
        if len(path) > MAX_PATH:
            raise ActionFormatError(f"a move path has at most {MAX_PATH} steps")
        tokens = []
        for token in path:
            if not isinstance(token, str) or token.upper() not in MOVE_TOKENS:
                raise ActionFormatError(f"unknown move {token!r}: use F, FL, FR (steps) or L, R (turns)")
            tokens.append(token.upper())
        return A.Move(ship, tuple(tokens), into_black_hole=_READ.flag(data, "into_black_hole"))
    # fire
    shots = data.get("shots")
    if not isinstance(shots, (list, tuple)) or not shots:
        raise ActionFormatError("a fire action needs 'shots': a list of [weapon, target] (one per weapon system)")
    if len(shots) > MAX_SHOTS:
        raise ActionFormatError(f"a fire action has at most {MAX_SHOTS} shots")
    out = []
    for shot in shots:
        if isinstance(shot, Mapping):
            weapon, target = shot.get("weapon"), shot.get("target")
        elif isinstance(shot, (list, tuple)) and len(shot) == 2:
            weapon, target = shot
        else:
            raise ActionFormatError(f"a shot is [weapon, target] or {{'weapon': …, 'target': …}}, not {shot!r}")
        if not isinstance(weapon, str) or weapon not in WEAPON_DAMAGE:
            raise ActionFormatError(f"unknown weapon {weapon!r}; one of: {', '.join(sorted(WEAPON_DAMAGE))}")
        out.append((weapon, _target(target, "fire")))
    return A.Fire(ship, tuple(out))


def describe(action: A.Action) -> str:
    """A short English label for buttons and the log."""
    kind = type_of(action)
    if isinstance(action, A.Pass):
        return "Pass: activate no more ships for this card"
    if isinstance(action, A.Activate):
        extra = {True: " and begin evasive manoeuvres", False: " and stop evasive manoeuvres", None: ""}[action.evasive]
        return f"Activate ship {action.ship}{extra}"
    if isinstance(action, A.Scan):
        return f"Scan ship {action.target}"
    if isinstance(action, A.Teleport):
        return f"Teleport a boarding party onto ship {action.target}"
    if isinstance(action, A.Move):
        return f"Move {' '.join(action.path)}" + (" into the black hole" if action.into_black_hole else "")
    if isinstance(action, A.Fire):
        return "Fire " + ", ".join(f"{w.replace('_', ' ')} at {t}" for w, t in action.shots)
    return kind.replace("_", " ").capitalize()


__all__ = ["ActionFormatError", "ACTION_TYPES", "describe", "from_json", "to_json", "type_of"]
