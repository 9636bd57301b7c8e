"""The action JSON of Star Sectors online play and its English labels.

``{"type": "move", "ship": 3, "kind": "forward"}``; the types and their fields are ``FIELDS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tactical.rules.play import action_type, whole_number

from . import actions as A
from .state import Refusal

FORMAT_RULE = "action format (tactical/rules/starsectors/codec.py)"

FIELDS = {"crew": {"ship", "option"}, "move": {"ship", "kind"}, "warp": {"ship", "hexes", "reverse"},
          "transfer": {"ship", "boost"}, "boost": {"ship", "use"}, "decloak": {"ship"},
          "attack": {"ship", "target", "roll", "banks"}, "attack_mine": {"ship", "mine"}, "lay_mine": {"ship"},
          "self_destruct": {"ship"}, "ram": {"ship", "target"}, "engineer": {"ship", "task"}, "end_turn": {"ship"},
          "withdraw": {"ship"}}
_CLASS = {"crew": A.Crew, "move": A.Move, "warp": A.Warp, "transfer": A.Transfer, "boost": A.Boost,
          "decloak": A.Decloak, "attack": A.Attack, "attack_mine": A.AttackMine, "lay_mine": A.LayMine,
          "self_destruct": A.SelfDestruct, "ram": A.Ram, "engineer": A.Engineer, "end_turn": A.EndTurn,
          "withdraw": A.Withdraw}
_TYPE = {cls: name for name, cls in _CLASS.items()}
_CHOICES = {"option": A.CREW_OPTIONS, "kind": A.MOVES, "boost": A.TRANSFERS, "use": A.BOOSTS, "task": A.TASKS}


class ActionFormatError(Refusal):
    def __init__(self, message: str):
        super().__init__(FORMAT_RULE, message)


def to_json(action: A.Action) -> dict[str, Any]:
    kind = _TYPE.get(type(action))
    if kind is None:
        raise ActionFormatError(f"{action!r} is not a Star Sectors action")
    out: dict[str, Any] = {"type": kind}
    for k, v in action.__dict__.items():
        out[k] = list(v) if isinstance(v, tuple) else v
    return out


def _number(data: Mapping, name: str, kind: str) -> int:
    n = whole_number(data.get(name))
    if n is None:
        raise ActionFormatError(f"{name!r} of a {kind} action must be a whole number, not {data.get(name)!r}"[:200])
    return n


def from_json(data: Any) -> A.Action:
    kind = action_type(data, FIELDS, ActionFormatError)
    values: dict[str, Any] = {}
    for name in FIELDS[kind]:
        if name in ("roll", "reverse"):
            v = data.get(name, name == "roll")
            if not isinstance(v, bool):
                raise ActionFormatError(f"{name!r} must be true or false")
            values[name] = v
        elif name == "banks":
            v = data.get("banks", [])
            if not isinstance(v, list) or len(v) > 6:
                raise ActionFormatError("'banks' is a list of bank numbers")
            values[name] = tuple(_number({"b": b}, "b", kind) for b in v)
        elif name in _CHOICES:
            v = data.get(name)
            if v not in _CHOICES[name]:
                raise ActionFormatError(f"{name!r} of a {kind} action is one of {', '.join(_CHOICES[name])}")
            values[name] = v
        else:
            values[name] = _number(data, name, kind)
    return _CLASS[kind](**values)


def describe(data: Mapping, state=None) -> str:
    a = from_json(dict(data))
    s = f"Ship {a.ship}"
    if isinstance(a, A.Move):
        return f"{s} moves {a.kind}"
    if isinstance(a, A.Warp):
        return f"{s} jumps {a.hexes} hex(es) at warp{' in reverse' if a.reverse else ''}"
    if isinstance(a, A.Attack):
        parts = (["rolls"] if a.roll else []) + ([f"fires bank(s) {', '.join(map(str, a.banks))}"] if a.banks else [])
        return f"{s} attacks ship {a.target} ({' and '.join(parts)})"
    if isinstance(a, A.Engineer):
        return f"{s}, engineering: {a.task.replace('_', ' ')}"
    if isinstance(a, A.EndTurn):
        return f"{s} ends its turn"
    if isinstance(a, A.Withdraw):
        return f"{s}'s side withdraws its fleet from the battle"
    if isinstance(a, A.Crew):
        return f"{s}'s command crew: {a.option}"
    rest = {k: v for k, v in a.__dict__.items() if k != "ship"}
    return f"{s}: {type(a).__name__.lower()} {' '.join(str(v) for v in rest.values())}".strip()


__all__ = ["ActionFormatError", "FIELDS", "describe", "from_json", "to_json"]
