"""What must hold after every step of a Print&Play battle (pure Python): the benches and the
property tests check it. ``broken(before, after, action)`` lists what is wrong (empty: all holds)."""

from __future__ import annotations

from tactical.rules.geometry import inches as geo

from . import engine
from .actions import Move
from .state import State

STAGES = ("start", "choose", "action", "move", "attack")


def broken(before: State | None, after: State, action=None) -> list[str]:
    out = []
    for s in after.ships:
        d = s.dash
        if s.hull > d.hull:
            out.append(f"ship {s.id}: hull {s.hull} above its dashboard's {d.hull}")
        if any(not 0 <= v <= d.shield_max for v in s.shields):
            out.append(f"ship {s.id}: shields {s.shields} outside 0..{d.shield_max}")
        if not 0 <= s.ablative <= d.ablative:
            out.append(f"ship {s.id}: ablative {s.ablative} outside 0..{d.ablative}")
        if not 0 <= s.emergency <= d.emergency:
            out.append(f"ship {s.id}: emergency power {s.emergency} outside 0..{d.emergency}")
        if any(not -3 <= v <= 3 for v in (s.wps, s.sensors, s.ecm)):
            out.append(f"ship {s.id}: a system outside -3..+3")
        if any(t not in ("", "red", "green") for t in s.torpedoes):
            out.append(f"ship {s.id}: torpedo tokens {s.torpedoes}")
        if s.alive and not geo.on_table(s.pos, *after.mat):
            out.append(f"ship {s.id}: in the battle off the mat at {s.pos}")
        if s.cloaked and not d.has("cloak"):
            out.append(f"ship {s.id}: cloaked without a cloaking device")
    if after.stage not in STAGES:
        out.append(f"stage {after.stage!r}")
    if after.active is not None and (after.stage not in ("action", "move", "attack")
                                     or not after.ship(after.active).activated):
        out.append(f"ship {after.active} is active at stage {after.stage} without having activated")
    if engine.over(after) and engine.legal_actions(after):
        out.append("an ended battle lists actions")
    if before is not None and isinstance(action, Move):
        b, a = before.ship(action.ship), after.ship(action.ship)
        top = engine.max_speed(before, b, action.order) + 2.0  # + the cloaked slide
        if a.alive and geo.distance(b.pos, a.pos) > top + geo.EPSILON:
            out.append(f"ship {b.id} moved {geo.distance(b.pos, a.pos):.2f}\", more than {top}")
    if before is not None and after.round < before.round:
        out.append("the round went back")
    return out


__all__ = ["broken"]
