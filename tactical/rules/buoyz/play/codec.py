"""The action JSON of Buoyz 'N Da 'Hood online play (``to_json`` / ``from_json``; the format is in
the package's docstring) and its English labels (``describe``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tactical.rules import kit

from .. import actions as A

FORMAT_RULE = "action format (tactical/rules/buoyz/play/codec.py)"
MAX_SHOTS = 20
MAX_INCHES = 200.0


class ActionFormatError(kit.FormatError):
    RULE = FORMAT_RULE


_READ = kit.Fields(ActionFormatError)  # the kit's field readers, refusing with this book's error


_FIELDS = {
    "begin": set(), "special": {"ship", "action", "target"}, "detect": {"ship"},
    "move": {"ship", "before", "turn", "after", "turn_end", "lower_shields", "lay_mine", "sweep", "orbit", "web"},
    "fire": {"ship", "shots", "board"}, "fly": {"flight", "to", "attack", "cap", "loiter", "home"},
    "reveal": {"ship", "at", "heading"}, "lurk": {"ship"},
}
ACTION_TYPES = tuple(sorted(_FIELDS))


def to_json(action: A.Action) -> dict[str, Any]:
    if isinstance(action, A.Begin):
        return {"type": "begin"}
    if isinstance(action, A.Special):
        return {"type": "special", "ship": action.ship, "action": action.action, "target": action.target}
    if isinstance(action, A.Move):
        return {"type": "move", "ship": action.ship, "before": action.before, "turn": action.turn,
                "after": action.after, "turn_end": action.turn_end, "lower_shields": action.lower_shields,
                "lay_mine": action.lay_mine, "sweep": action.sweep, "orbit": action.orbit, "web": action.web}
    if isinstance(action, A.Fire):
        return {"type": "fire", "ship": action.ship, "shots": [list(s) for s in action.shots], "board": action.board}
    if isinstance(action, A.Detect):
        return {"type": "detect", "ship": action.ship}
    if isinstance(action, A.FlyAC):
        return {"type": "fly", "flight": action.flight, "to": list(action.to), "attack": action.attack,
                "cap": action.cap, "loiter": action.loiter, "home": action.home}
    if isinstance(action, A.Reveal):
        return {"type": "reveal", "ship": action.ship, "at": list(action.at), "heading": action.heading}
    if isinstance(action, A.Lurk):
        return {"type": "lurk", "ship": action.ship}
    raise ActionFormatError(f"{action!r} is not a Buoyz action")


def _int(data: Mapping, name: str, kind: str, *, optional: bool = False) -> int | None:
    return _READ.whole(data, name, kind, optional=optional)


def _inches(data: Mapping, name: str, kind: str) -> float:
    value = data.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or abs(value) > MAX_INCHES:
        raise ActionFormatError(f"{name!r} of a {kind} action must be inches (a number), not {value!r}")
    return float(value)


def _flag(data: Mapping, name: str) -> bool:
    return _READ.flag(data, name)


def _point(data: Mapping, name: str, kind: str) -> tuple[float, float]:
    value = data.get(name)
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ActionFormatError(f"{name!r} of a {kind} action is [x, y] in inches")
    return (_inches({"x": value[0]}, "x", kind), _inches({"y": value[1]}, "y", kind))


def from_json(data: Any) -> A.Action:
    """Read one action; ``ActionFormatError`` (an ``IllegalActionError``) says what is wrong."""
    kind = _READ.kind(data, _FIELDS)
    if kind == "begin":
        return A.Begin()
    if kind == "fly":
        return A.FlyAC(_int(data, "flight", kind), _point(data, "to", kind), _int(data, "attack", kind, optional=True),
                       _flag(data, "cap"), _flag(data, "loiter"), _flag(data, "home"))
    ship = _int(data, "ship", kind)
    if kind == "detect":
        return A.Detect(ship)
    if kind == "lurk":
        return A.Lurk(ship)
    if kind == "reveal":
        return A.Reveal(ship, _point(data, "at", kind), _inches(data, "heading", kind) % 360.0)
    if kind == "special":
        action = data.get("action")
        if action not in A.SPECIAL_ACTIONS:
            raise ActionFormatError(f"unknown Special Action {action!r}; one of: {', '.join(A.SPECIAL_ACTIONS)}")
        return A.Special(ship, action, _int(data, "target", kind, optional=True))
    if kind == "move":
        return A.Move(ship, _inches(data, "before", kind), _int({"t": data.get("turn", 0)}, "t", kind),
                      _inches(data, "after", kind), _int({"t": data.get("turn_end", 0)}, "t", kind),
                      _flag(data, "lower_shields"), _flag(data, "lay_mine"), _flag(data, "sweep"),
                      _int(data, "orbit", kind, optional=True), _flag(data, "web"))
    shots = data.get("shots", [])
    if not isinstance(shots, (list, tuple)) or len(shots) > MAX_SHOTS:
        raise ActionFormatError(f"'shots' is a list of at most {MAX_SHOTS} [weapon, target, dice]")
    out = []
    for shot in shots:
        if not isinstance(shot, (list, tuple)) or len(shot) != 3 or not isinstance(shot[0], str):
            raise ActionFormatError(f"a shot is [weapon, target, dice], not {shot!r}")
        out.append((shot[0], _int({"t": shot[1]}, "t", kind), _int({"d": shot[2]}, "d", kind)))
    return A.Fire(ship, tuple(out), _int(data, "board", kind, optional=True))


def _turn_words(points: int) -> str:
    return f"turn {abs(points)} to {'starboard' if points > 0 else 'port'}"


def describe(data: Mapping) -> str:
    """A short English label of an action's JSON."""
    action = from_json(data)
    if isinstance(action, A.Begin):
        return "The battle begins: initiative is rolled"
    if isinstance(action, A.Special):
        return f"Ship {action.ship} attempts {action.action.replace('_', ' ')}" + (
            f" on ship {action.target}" if action.target is not None else "")
    if isinstance(action, A.Move):
        parts = []
        if action.before:
            parts.append(f'{action.before:g}" ahead')
        if action.turn:
            parts.append(_turn_words(action.turn))
        if action.after:
            parts.append(f'{action.after:g}" ahead')
        if action.turn_end:
            parts.append(_turn_words(action.turn_end))
        if action.orbit is not None:
            parts.append(f"orbit object {action.orbit}")
        extra = [w for w, on in (("shields lowered", action.lower_shields), ("laying a mine", action.lay_mine),
                                 ("sweeping", action.sweep), ("spinning a web", action.web)) if on]
        return (
            f"Ship {action.ship}: "
            + (", then ".join(parts) or "stay put")
            + (f" ({', '.join(extra)})" if extra else "")
        )
    if isinstance(action, A.Fire):
        if not action.shots and action.board is None:
            return f"Ship {action.ship} holds its fire"
        text = f"Ship {action.ship} fires " + ", ".join(f"{w} ({d} dice) at {t}" for w, t, d in action.shots)
        return text + (f"; boards ship {action.board}" if action.board is not None else "")
    if isinstance(action, A.Detect):
        return f"Ship {action.ship} searches for cloaked ships"
    if isinstance(action, A.Lurk):
        return f"Ship {action.ship} stays lurking"
    if isinstance(action, A.Reveal):
        return f"Ship {action.ship} is revealed at ({action.at[0]:g}, {action.at[1]:g}) heading {action.heading:g}"
    return (f"AC {action.flight} flies to ({action.to[0]:g}, {action.to[1]:g})"
            + (f", attacking {action.attack}" if action.attack is not None else "") + (" on CAP" if action.cap else "")
            + (" to loiter" if action.loiter else "") + (" home" if action.home else ""))
