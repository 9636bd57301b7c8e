"""Print&Play actions ↔ JSON (pure Python): ``{"type": "move", "ship": 3, "go1": 4, …}``."""

from __future__ import annotations

from typing import Any

from tactical.rules.kit import IllegalActionError
from tactical.rules.play import action_type, whole_number

from .actions import Activate, Attack, Boost, Cloak, Hold, Move, Regenerate, Special

FORMAT = "001 action format"
FIELDS = {
    "activate": {"ship"},
    "boost": {"ship", "source", "target"},
    "cloak": {"ship", "on"},
    "regenerate": {"ship"},
    "special": {"ship", "order"},
    "hold": {"ship", "stage"},
    "move": {"ship", "go1", "turn1", "turn2", "go2", "turn3", "slide_x", "slide_y", "order"},
    "attack": {"ship", "shots", "order"},
}
CLASSES = {"activate": Activate, "boost": Boost, "cloak": Cloak, "regenerate": Regenerate, "special": Special,
           "hold": Hold, "move": Move, "attack": Attack}
NAMES = {cls: name for name, cls in CLASSES.items()}
TEXT = {"source", "target", "order", "stage"}


def _error(message: str) -> IllegalActionError:
    return IllegalActionError(FORMAT, message)


def to_json(action) -> dict:
    out: dict[str, Any] = {"type": NAMES[type(action)]}
    for k, v in action.__dict__.items():
        out[k] = [list(s) for s in v] if k == "shots" else v
    return out


def _shots(raw) -> tuple:
    if not isinstance(raw, list) or len(raw) > 40:
        raise _error("shots are a list of [mount, target ship, side]")
    out = []
    for s in raw:
        if not isinstance(s, list) or len(s) != 3 or not isinstance(s[2], str) or len(s[2]) > 20:
            raise _error("a shot is [mount, target ship, side]")
        mount, target = whole_number(s[0], negative=False), whole_number(s[1], negative=False)
        if mount is None or target is None:
            raise _error("a shot's mount and target are whole numbers")
        out.append((mount, target, s[2]))
    return tuple(out)


def from_json(data: Any):
    kind = action_type(data, FIELDS, _error)
    values: dict[str, Any] = {}
    for key, raw in data.items():
        if key == "type":
            continue
        if key == "shots":
            values[key] = _shots(raw)
        elif key == "on":
            if not isinstance(raw, bool):
                raise _error("'on' is true or false")
            values[key] = raw
        elif key in TEXT:
            if not isinstance(raw, str) or len(raw) > 30:
                raise _error(f"'{key}' is a short text")
            values[key] = raw
        else:
            number = whole_number(raw)
            if number is None or abs(number) > 1000:
                raise _error(f"'{key}' is a whole number")
            values[key] = number
    if "ship" not in values:
        raise _error(f"a {kind} action names its ship")
    try:
        return CLASSES[kind](**values)
    except TypeError as exc:
        raise _error(f"a {kind} action needs {sorted(FIELDS[kind])}: {exc}") from None


__all__ = ["from_json", "to_json"]
