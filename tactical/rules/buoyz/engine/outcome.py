"""How a battle ended and what it cost each side (rulings BZ17, BZ61; CAM 3.0, 3.1).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cam_policy import CAM
from ..state import CAPTURED, DESTROYED, BattleState


@dataclass(frozen=True)
class ShipFate:
    ship: int
    side: int
    fate: str  # active, destroyed, left
    points: int
    hull: int
    crippled: bool


@dataclass(frozen=True)
class Outcome:
    over: bool
    winner: int | None
    turns: int
    ships: tuple[ShipFate, ...]
    points_destroyed: dict[int, int]  # by the side that lost them (CAM 3.1 condition 1)
    cam_score: object = None  # the CAM ScenarioScore (CAM 3.0 step 2) when a CAM scenario was fought
    cam_battle: object = None  # the CAM record (``breakcontact.BattleState``) for ``record_scenario``
    ending: str | None = None  # how it ended (``ending``): None while it goes on


FIELD_HELD, CONTACT_BROKEN, MUTUAL_DESTRUCTION, TURN_CAP = (
    "field held",
    "contact broken",
    "mutual destruction",
    "turn cap",
)


def ending(state: BattleState) -> str | None:
    """How an ended battle ended (rulings BZ17, BZ61): all table contact broken (a CAM scenario,
    CAM 3.0), one side holding the field, mutual destruction (no ship of either side left on the
    table), or undecided at the turn cap."""
    if not state.over:
        return None
    if CAM.contact_broken(state):
        return CONTACT_BROKEN
    alive = {s.side for s in state.ships if s.active}
    if not alive:
        return MUTUAL_DESTRUCTION
    return FIELD_HELD if len(alive) == 1 else TURN_CAP


def outcome(state: BattleState) -> Outcome:
    fates = tuple(ShipFate(s.id, s.side, s.status, s.sd.points, s.hull, s.crippled) for s in state.ships)
    lost = {side: sum(f.points for f in fates if f.side == side and f.fate in (DESTROYED, CAPTURED))
            for side in state.sides}
    return Outcome(state.over, state.winner, state.turn, fates, lost, CAM.score(state), CAM.record(state),
                   ending(state))
