"""Fog of war in Buoyz 'N Da 'Hood online play (10.2, 10.3; rulings BZP1, BZP2): the play state and
its log of events (the kit's ``Event``, each tagged by the engine where it is made with the sides
that may read it: ``engine.core._Ctx``); the ships a side cannot see; the legal actions a side is
offered (none that would name or steer toward a ship it cannot see).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tactical.rules.kit import Event

from .. import actions as A
from .. import board
from ..engine import legal_actions
from ..state import BattleState


@dataclass(frozen=True)
class PlayState:
    battle: BattleState
    log: tuple[Event, ...] = ()


def hidden_ships(state: BattleState, viewer_side: int | None) -> set[int]:
    """The ships ``viewer_side`` may not see (None: none)."""
    return {s.id for s in state.ships if board.hidden_from(s, viewer_side)}


def _points_at(action, hidden: set[int], state: BattleState) -> bool:
    """Whether a listed action would give a hidden ship away (its id, or a course toward it)."""
    for name in ("target", "attack", "board"):
        if getattr(action, name, None) in hidden:
            return True
    if isinstance(action, A.Fire) and any(t in hidden for _, t, _ in action.shots):
        return True
    if isinstance(action, A.FlyAC):
        f = state.flight(action.flight)
        if f.pos is None or action.to == f.pos:
            return False
        dx, dy = action.to[0] - f.pos[0], action.to[1] - f.pos[1]
        for s in state.ships:
            if s.id in hidden:
                ex, ey = s.pos[0] - f.pos[0], s.pos[1] - f.pos[1]
                if abs(dx * ey - dy * ex) < 1e-3 * max(1.0, math.hypot(ex, ey)) and dx * ex + dy * ey > 0:
                    return True
    return False


def side_actions(state: BattleState, side: int) -> list[A.Action]:
    """``side``'s legal actions now, less any that would point at a ship it cannot see."""
    if state.acting != side:
        return []
    hidden = hidden_ships(state, side)
    return [a for a in legal_actions(state) if not (hidden and _points_at(a, hidden, state))]
