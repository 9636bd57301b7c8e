"""Boarding actions (11.4) by transporter (7.3): the check when a ship declares one, and their
resolution in the End Phase.
"""

from __future__ import annotations

from ..geometry import distance
from ..sds import has
from ..state import CAPTURED, BattleState, IllegalActionError, Ship, with_ship
from ..state import evolve as replace
from .core import _Ctx, command, shields_facing

BOARD_RULE = "000 11.4 Boarding Actions"
TRANSPORTER_RANGE = 0.5  # 7.3 Transporters "if within 1/2\""
SIZE_BONUS = {5: -1, 4: 0, 3: 1, 2: 3, 1: 5, 0: 6}  # 11.4 'size dice bonus'


def _check_board(state: BattleState, ship: Ship, target_id: object) -> None:
    if not (has(ship.abilities, "Trans") or has(ship.abilities, "Transporters")):
        raise IllegalActionError("000 7.3 Transporters", f"{ship.name} ({ship.id}) has no transporters")
    target = next((s for s in state.ships if s.id == target_id), None) if isinstance(target_id, int) else None
    if target is None or target.side == ship.side or not target.active:
        raise IllegalActionError(BOARD_RULE, f"ship {target_id!r} is not an enemy ship in the battle")
    if distance(ship.pos, target.pos) > TRANSPORTER_RANGE + 1e-6:
        raise IllegalActionError("000 7.3 Transporters", f"{target.name} ({target.id}) is "
                                 f"{distance(ship.pos, target.pos):.2f}\" away; transporters reach ½\"")
    if not target.crippled and shields_facing(target, ship.pos) > 0:
        raise IllegalActionError("000 7.3 Transporters", f"{target.name} ({target.id}) is neither Crippled nor has "
                                 "its shields down")
    if target.cloaked and not target.detected:
        raise IllegalActionError(DETECT_RULE, f"{target.name} ({target.id}) is cloaked and has not been detected")
    _no_attack_under_ecm(target, "boarded")
    if ship.cloaked:
        raise IllegalActionError(CLOAK_RULE, f"{ship.name} ({ship.id}) is cloaked")


def boarding_score(ship: Ship, state: BattleState | None = None) -> int:
    """11.4: Command + the size dice bonus, +1 Marines (Jem'Hadar Marines +2, 7.3), −1 Inferior
    crew, +1 Superior (ruling BZ38: on top of the Command score, as the text lists them)."""
    cmd = ship.sd.command if state is None else command(state, ship)
    score = cmd + SIZE_BONUS[ship.sd.target_size]
    if has(ship.abilities, "Jem'Hadar Marines"):
        score += 2
    elif has(ship.abilities, "Marines"):
        score += 1
    if cmd <= 1:
        score -= 1
    elif cmd >= 3:
        score += 1
    return score


def _resolve_boardings(state: BattleState, ctx: _Ctx) -> BattleState:
    """2.2 End Phase 2), 11.4: each side a D6 + its score; the winner captures the loser; a draw
    changes nothing (boarding may be tried again next turn)."""
    for boarder_id, target_id in state.boardings:
        a, b = state.ship(boarder_id), state.ship(target_id)
        if not (a.active and b.active):
            continue
        fa = ctx.roll(1, f"{BOARD_RULE}: {a.id} boards {b.id}")[0]
        fb = ctx.roll(1, f"{BOARD_RULE}: {b.id} repels {a.id}")[0]
        ta, tb = fa + boarding_score(a, state), fb + boarding_score(b, state)
        if ta == tb:
            ctx.log("boarding", f"{a.name} ({a.id}) boards {b.name} ({b.id}): {ta} all, no change", boarder=a.id,
                    target=b.id, totals=[ta, tb], captured=None)
            continue
        loser = b if ta > tb else a
        ctx.log("boarding", f"{a.name} ({a.id}) boards {b.name} ({b.id}): {ta} to {tb}; {loser.name} ({loser.id}) "
                "is captured", boarder=a.id, target=b.id, totals=[ta, tb], captured=loser.id)
        state = with_ship(state, replace(loser, status=CAPTURED))
        state = replace(state, torpedoes=tuple(t for t in state.torpedoes if t.target != loser.id),
                        boardings=tuple(x for x in state.boardings if loser.id not in x))
    return replace(state, boardings=())


# The other phases of the turn, imported last: the phases call one another (the sequence
# calls each phase; a phase hands the turn back to the sequence), and by now every name
# of this module is defined for them.
from .fire import CLOAK_RULE, DETECT_RULE  # noqa: E402
from .specials import _no_attack_under_ecm  # noqa: E402
