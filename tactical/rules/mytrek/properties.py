"""My Trek V's invariants, checked after every step by the benches and the property tests (pure).

``broken(before, action, after)`` lists every property a step broke: hull between 0 and the size
class's hull points and never rising; system factors 0–3 and never above the power in them after
a Phase Zero; every ship on the board and having moved at most one space; removed ships stay
removed and only wrecks are removed; Phase Zero's power within the damage level's power points
and each system within its factor; speed within what the engines allow; an ended battle asks
nobody and its winner is the only side left (or none); a live battle always has a side to act.
"""

from __future__ import annotations

from . import engine as E
from . import tables as T
from .state import Battle


def _ships(before: Battle, after: Battle) -> list[str]:
    out = []
    old = {s.id: s for s in before.ships}
    for s in after.ships:
        p = old.get(s.id)
        if not 0 <= s.hull <= s.design.hull:
            out.append(f"{s.label}: hull {s.hull} outside 0-{s.design.hull}")
        if p is not None and s.hull > p.hull:
            out.append(f"{s.label}: hull rose from {p.hull} to {s.hull}")
        if not all(0 <= s.factor(k) <= 3 for k in T.SYSTEMS_NAMES):
            out.append(f"{s.label}: a system factor outside 0-3")
        if not (0 <= s.x < after.width and 0 <= s.y < after.height):
            out.append(f"{s.label}: off the board at {s.pos}")
        if p is not None and max(abs(s.x - p.x), abs(s.y - p.y)) > 1:
            out.append(f"{s.label}: moved more than one space in a step")
        if p is not None and p.removed and not s.removed:
            out.append(f"{s.label}: came back after its removal")
        if s.removed and s.hull > 0:
            out.append(f"{s.label}: removed with {s.hull} hull points")
        if p is not None and p.hull > 0 and s.power != p.power and not s.removed:
            pp = T.power_points(s.design.size, p.hull)
            if s.power.total > pp:
                out.append(f"{s.label}: {s.power.total} power points with {pp} to give")
            if any(getattr(s.power, k) > min(3, p.factor(k)) for k in T.SYSTEMS_NAMES):
                out.append(f"{s.label}: a system given more power than its factor")
            if s.speed > E.max_speed(s, s.power.engines):
                out.append(f"{s.label}: speed {s.speed} above what its engines allow")
    return out


def broken(before: Battle, action, after: Battle) -> list[str]:
    out = _ships(before, after)
    if after.over:
        if E.acting_side(after) is not None or E.legal_actions(after):
            out.append("an ended battle still asks for orders")
        left = E.alive_sides(after)
        if after.winner is not None and left != [after.winner]:
            out.append(f"winner {after.winner} but sides left {left}")
    elif E.acting_side(after) is None or not E.legal_actions(after):
        out.append("a live battle has nobody to act")
    if after.turn > after.turn_cap:
        out.append("the battle ran past its last turn")
    return out
