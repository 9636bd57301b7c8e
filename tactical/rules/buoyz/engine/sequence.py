"""The Buoyz 'N Da 'Hood turn sequence (rule book ``seeds/000_…`` 2.2), one action at a time.

``apply(state, action, dice)`` checks the action first (an ``IllegalActionError`` names the
section; nothing is rolled and the state is unchanged), then resolves it and every automatic
step that follows it (the End Phase, the next turn's initiative) with the ``dice`` given.
``check`` and ``apply`` dispatch to each phase's module, where every check sits beside its
resolution. ``legal_actions(state)`` lists what the nominating side may do now. Rulings BZ… are
in ``docs/rulings.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from campaign.rules.dice import Dice

from .. import actions as A
from ..cam_policy import CAM
from ..geometry import EPSILON
from ..sds import has
from ..state import (
    AC_MOVEMENT,
    ATTACK,
    INITIATIVE,
    LEFT,
    LURKING,
    MOVEMENT,
    OVER,
    TRANSIT,
    BattleState,
    IllegalActionError,
    Ship,
    with_ship,
)
from ..state import evolve as replace
from .core import SQUADRON_RULE, Resolution, _Ctx, can_fire, command, squadron

TURN_RULE = "000 2.2 Detailed Turn Sequence"
INITIATIVE_RULE = "000 3.0 Initiative Phase"


def _own_ship(state: BattleState, ship_id: int, rule: str) -> Ship:
    ship = state.ship(ship_id)
    if ship.status == LURKING:
        raise IllegalActionError(LURK_RULE, f"{ship.name} ({ship.id}) is lurking: no action may be taken with it "
                                 "until it is revealed")
    if not ship.active:
        raise IllegalActionError(rule, f"{ship.name} ({ship.id}) is no longer in the battle")
    if ship.side != state.acting:
        raise IllegalActionError(TURN_RULE, f"it is side {state.acting}'s turn to nominate, not side {ship.side}'s")
    if state.squadron_next and ship.id not in state.squadron_next:
        raise IllegalActionError(
            SQUADRON_RULE,
            f"the rest of the squadron ({', '.join(map(str, state.squadron_next))}) moves and fires first",
        )
    return ship


def check(state: BattleState, action: A.Action) -> None:
    """Raise ``IllegalActionError`` if ``action`` is not allowed now (rolls nothing)."""
    _handler(state, action)


def apply(state: BattleState, action: A.Action, dice: Dice) -> Resolution:
    resolve = _handler(state, action)  # every check first: a refusal rolls nothing
    ctx = _Ctx(dice)
    return ctx.resolution(resolve(ctx))


def _begin(state: BattleState, action: A.Begin, ctx: _Ctx) -> BattleState:
    ctx.log("begin", "The battle begins")
    return _roll_initiative(state, ctx)


def handle_begin(state: BattleState, action: A.Begin) -> Callable[[_Ctx], BattleState]:
    """3.0: the battle begins with the first Initiative Phase."""
    if state.phase != INITIATIVE or state.turn != 0:
        raise IllegalActionError(INITIATIVE_RULE, "the battle has begun; initiative is rolled after each End Phase")
    return partial(_begin, state, action)


def _handler(state: BattleState, action: A.Action) -> Callable[[_Ctx], BattleState]:
    """The action's phase module checks it (its check beside its resolution) and hands back the
    closure that resolves it (as the Event Horizon engine's handlers do)."""
    if state.phase == OVER:
        raise IllegalActionError(TURN_RULE, "the battle is over")
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise IllegalActionError(TURN_RULE, f"unknown action {action!r}")
    if state.phase == INITIATIVE and handler is not handle_begin:
        raise IllegalActionError(INITIATIVE_RULE, "roll for initiative first (Begin)")
    return handler(state, action)


def legal_actions(state: BattleState) -> list[A.Action]:
    if state.phase == OVER:
        return []
    if state.phase == INITIATIVE:
        return [A.Begin()]
    if state.phase == AC_MOVEMENT:
        out_ac: list[A.Action] = []
        for f in _ac_pending(state):
            out_ac.extend(fly_options(state, f))
        return out_ac
    if state.phase == MOVEMENT:
        if state.nominated is not None:
            ship = state.ship(state.nominated)
            hyper = [A.Lurk(ship.id)] if ship.hyperspace else []
            return list(ship_moves(state, ship)) + special_options(state, ship) + hyper
        out: list[A.Action] = []
        for ship in _pending(state, state.acting):
            if state.squadron_next and ship.id not in state.squadron_next:
                continue
            if ship.status == LURKING:
                out.extend(lurk_options(state, ship))
                continue
            out.extend(ship_moves(state, ship))
            out.extend(special_options(state, ship))
            if ship.hyperspace:
                out.append(A.Lurk(ship.id))
        return out
    if state.nominated is not None:
        return list(fire_options(state, state.ship(state.nominated)))
    out = []
    for ship in _pending(state, state.acting):
        if state.squadron_next and ship.id not in state.squadron_next:
            continue
        out.extend(fire_options(state, ship))
        if ship.uses("cloak_hunter") and not ship.searched and ship.moved_inches <= HUNTER_MOVE + EPSILON:
            out.append(A.Detect(ship.id))
    return out


def _pending(state: BattleState, side: int) -> list[Ship]:
    if state.phase == MOVEMENT:
        out = [s for s in state.active_ships(side) if not s.moved]
        if not CAM.breaking(state, side):  # 10.2: lurkers are nominated to reveal or stay hidden (BZ53)
            out += [s for s in state.lurking(side) if not s.moved]
        return out
    if state.phase == ATTACK:
        return [s for s in state.active_ships(side) if can_fire(s)]
    return []


def phase_order(state: BattleState, holder_first: bool) -> tuple[int, ...]:
    """The sides in the order they nominate in a phase (2.1, 3.0; ruling BZ85): the order of
    play, the Initiative holder first, or (not ``holder_first``) the holder last. With two sides,
    "move a ship first, or force his opponent to do so"."""
    order = state.order_of_play()
    return order if holder_first else order[1:] + order[:1]


def _next_actor(state: BattleState, last: int | None) -> int | None:
    """Players alternate (2.1): the sides take turns in the phase's order, from ``state.first``;
    a side with nothing left to nominate is skipped (rulings BZ9, BZ85)."""
    order = state.order_of_play()
    i = order.index(state.first)
    order = order[i:] + order[:i]
    if last is not None:
        j = order.index(last)
        order = order[j + 1:] + order[:j + 1]
    for side in order:
        if _pending(state, side):
            return side
    return None


def _start_phase(state: BattleState, phase: str, ctx: _Ctx) -> BattleState:
    init = state.initiative
    orders = state.orders_of(init)
    wants_first = orders.move_first if phase == MOVEMENT else orders.fire_first
    first = phase_order(state, wants_first)[0]
    state = replace(state, phase=phase, first=first, acting=None, nominated=None, squadron_next=())
    acting = _next_actor(state, None)
    state = replace(state, acting=acting)
    if acting is None:
        return _advance(state, ctx)
    ctx.log("phase", f"Turn {state.turn}: {phase} phase; side {acting} nominates first", phase=phase,
            first=acting)
    return state


def _advance(state: BattleState, ctx: _Ctx) -> BattleState:
    """The current phase has nothing left to nominate: go on to the next."""
    if state.phase == MOVEMENT:
        return _start_ac_movement(state, ctx)
    if state.phase == AC_MOVEMENT:
        state = _cap_intercepts(replace(state, acting=None), ctx)  # 2.2 Movement Phase 5)
        state = _anti_ac(state, ctx)  # 2.2 Attack Phase 1)
        return _start_phase(state, ATTACK, ctx)
    if state.phase == ATTACK:
        state = _dogfights(state, ctx)  # 2.2 Attack Phase 3)
        state = _ac_attacks(state, ctx)  # 2.2 Attack Phase 4)
        state = _end_phase(state, ctx)
        if state.phase == OVER:
            return state
        return _roll_initiative(state, ctx)
    raise AssertionError(state.phase)


def _after_nomination(state: BattleState, side: int, ctx: _Ctx, ship_id: int | None = None) -> BattleState:
    state = _check_over(state, ctx, mid_turn=True)
    if state.phase == OVER:
        return state
    if ship_id is not None:  # 11.1: the rest of its squadron moves / fires before the other side acts
        members = {s.id for s in squadron(state, state.ship(ship_id))} if state.ship(ship_id).active else set()
        if not members:
            members = set(state.squadron_next)
        rest = tuple(s.id for s in _pending(state, side) if s.id in members and s.id != ship_id)
        if rest:
            return replace(state, acting=side, squadron_next=rest)
    state = replace(state, squadron_next=())
    acting = _next_actor(state, side)
    if acting is None:
        return _advance(replace(state, acting=None), ctx)
    return replace(state, acting=acting)


def _roll_initiative(state: BattleState, ctx: _Ctx) -> BattleState:
    """3.0: each side 2D6 plus modifiers, ties re-rolled; the highest holds Initiative."""
    turn = state.turn + 1
    state = _drop_out(state, ctx)  # 2.2 Initiative Phase 1) "Vessels in Hyperspace drop out"
    state = _emerge(state, turn, ctx) if state.tables > 1 else state
    state = _check_over(state, ctx, mid_turn=True)
    if state.phase == OVER:
        return state
    mods = {side: initiative_modifier(state, side) for side in state.sides}
    totals: dict[int, int] = {}
    rolling = list(state.sides)
    while True:
        for side in rolling:
            totals[side] = sum(ctx.roll(2, f"{INITIATIVE_RULE}: side {side} initiative")) + mods[side]
        best = max(totals.values())
        leaders = [side for side in state.sides if totals[side] == best]
        if len(leaders) == 1:
            break
        # Ruling BZ84: only the sides tied for the highest total roll again.
        words = "both sides" if len(state.sides) == 2 else "sides " + ", ".join(map(str, leaders))
        ctx.log("initiative_tie", f"Initiative tied at {best}: {words} roll again", total=best,
                **({"sides": leaders} if len(state.sides) > 2 else {}))
        rolling = leaders
    winner = leaders[0]
    play = play_order(state, winner, totals)
    ctx.log("initiative", f"Turn {turn}: side {winner} holds initiative "
            f"({' to '.join(str(totals[side]) for side in state.sides)})"
            + (f"; order of play {', '.join(map(str, play))}" if len(play) > 2 else ""), turn=turn, winner=winner,
            totals=totals, modifiers=mods, **({"play": list(play)} if len(play) > 2 else {}))
    state = replace(state, turn=turn, initiative=winner, play=play if len(play) > 2 else ())
    return _start_phase(state, MOVEMENT, ctx)


def play_order(state: BattleState, holder: int, totals: dict[int, int]) -> tuple[int, ...]:
    """3.0 "the Initiative holder decides the order of play" (ruling BZ85): the holder, then the
    sides its ``play_order`` lists, then the rest in descending initiative total (``sides``
    order on equal totals)."""
    chosen = [side for side in state.orders_of(holder).play_order if side in state.sides and side != holder]
    rest = sorted((side for side in state.sides if side != holder and side not in chosen),
                  key=lambda side: (-totals.get(side, 0), state.sides.index(side)))
    return (holder, *chosen, *rest)


def flagship(state: BattleState, side: int) -> Ship | None:
    """The side's flagship; if it is gone, its dearest surviving ship (ruling BZ8)."""
    mine = state.active_ships(side)
    for s in mine:
        if s.flagship:
            return s
    return max(mine, key=lambda s: (s.sd.points, -s.id), default=None)


def initiative_modifier(state: BattleState, side: int) -> int:
    """3.0's modifiers for ``side``'s ships on the table."""
    ships = state.active_ships(side)
    flag = flagship(state, side)
    mod = 0
    if any(s.sd.ship_class.value == "TP" for s in ships):
        mod -= 1  # "any civilian shipping –1"
    if flag is not None:
        if command(state, flag) >= 3:  # 11.1: a squadron's highest Command for all purposes
            mod += 2
        elif command(state, flag) <= 1:
            mod -= 2
        if has(flag.abilities, "Advanced Sensors"):
            mod += 1
    if any(has(s.abilities, "Cloak") for s in ships + state.lurking(side)):
        mod += 1  # ruling BZ53: a lurking ship is still in the fleet
    if any(s.sd.ship_class.value == "RB" for s in ships) or any(
            f.patrol and f.flying and f.side == side for f in state.flights):
        mod += 2  # "patrol counters available on the table +2" (8.2: loitering shuttles count, BZ59)
    return mod


def _drop_out(state: BattleState, ctx: _Ctx) -> BattleState:
    """11.8: a ship in hyperspace drops out where it is; if that is off the table it has left
    (11.7; ruling BZ50)."""
    for ship in state.ships:
        if ship.active and ship.hyperspace and ship.hyper_lurk:  # 11.8 "They can 'lurk' stationary"
            state = with_ship(state, replace(ship, hyper_lurk=False))
            ctx.log("hyperspace", f"{ship.name} ({ship.id}) lurks on in hyperspace", ship=ship.id, left=False)
            continue
        if ship.active and ship.hyperspace:
            on = state.table_of(ship.pos) is not None
            ship = replace(ship, hyperspace=False, status=ship.status if on else LEFT)
            ctx.log(
                "hyperspace",
                f"{ship.name} ({ship.id}) drops out of hyperspace"
                + ("" if on else f" off the table: it has left the battle ({LEAVE_RULE})"),
                ship=ship.id,
                left=not on,
            )
            state = with_ship(state, ship)
    return state


def _check_over(state: BattleState, ctx: _Ctx, mid_turn: bool = False) -> BattleState:
    """BZ17; with a CAM link, CAM 3.0: over once all table contact is broken (after an End
    Phase), or forced when a side has no ship left or at the turn cap, and tallied by CAM."""
    alive = [side for side in state.sides if state.active_ships(side)
             or (state.lurking(side) and not CAM.breaking(state, side))
             or any(s.status == TRANSIT and s.side == side for s in state.ships)]  # BZ53: lurkers are in the battle
    done = CAM.scenario_over(state, alive, mid_turn)
    if done is not None:
        if not done:
            return state
        state, winner = CAM.finish(state, ctx)
        ctx.log("over", f"The CAM scenario ends: {'side ' + str(winner) + ' wins' if winner is not None else 'a draw'}",
                winner=winner)
        return replace(state, phase=OVER, acting=None, nominated=None, winner=winner)
    if len(alive) >= 2:  # BZ17, ruling BZ86: on while two or more sides have ships in the battle
        if not mid_turn and state.turn >= state.turn_cap:
            ctx.log("over", f"The battle ends undecided after {state.turn} turns (ruling BZ17)", winner=None)
            return replace(state, phase=OVER, acting=None, winner=None)
        return state
    winner = alive[0] if alive else None
    text = (f"Side {winner} holds the field" if winner is not None
            else f"Mutual destruction: no ship of {'either' if len(state.sides) == 2 else 'any'} side is left on "
            "the table (ruling BZ61)")
    ctx.log("over", text, winner=winner)
    return replace(state, phase=OVER, acting=None, nominated=None, winner=winner)


def _end_phase(state: BattleState, ctx: _Ctx) -> BattleState:
    state = replace(state, phase="end", acting=None)
    ctx.log("phase", f"Turn {state.turn}: end phase", phase="end")
    state = _resolve_torpedoes(state, ctx)
    state = _resolve_boardings(state, ctx)
    state = _damage_control(state, ctx)
    state = _break_tractors(state, ctx)
    state = _carrier_ops(state, ctx)
    state = _webs_hold(state, ctx) if state.webs else state
    state = _rotate(state, ctx)
    ships = tuple(
        replace(
            s,
            moved=False,
            weaving=False,
            fired=False,
            fired_keys=(),
            sweeping=False,
            extra_specials=(),
            extra_tries=0,
            overwatch=False,
            burnt=s.burnt or s.uses("engine_doubling"),
            exchanged=tuple(sorted(set(s.exchanged) | set(s.engaged))),
            engaged=(),
            moved_inches=0.0,
            special="",
            special_tried="",
            shields_lowered=False,
            detected=False,
            searched=False,
        )
        if s.active or s.status in (LURKING, TRANSIT)
        else s
        for s in state.ships
    )
    state = replace(state, ships=ships, torpedoes=())
    state = CAM.end_phase(state, ctx)
    return _check_over(state, ctx)


# The other phases of the turn, imported last: the phases call one another (the sequence
# calls each phase; a phase hands the turn back to the sequence), and by now every name
# of this module is defined for them.
from .aircraft import (  # noqa: E402
    _ac_attacks,
    _ac_pending,
    _anti_ac,
    _cap_intercepts,
    _carrier_ops,
    _dogfights,
    _start_ac_movement,
    fly_options,
    handle_fly,
)
from .boarding import _resolve_boardings  # noqa: E402
from .damage import _damage_control  # noqa: E402
from .fire import HUNTER_MOVE, fire_options, handle_detect, handle_fire  # noqa: E402
from .movement import (  # noqa: E402
    LEAVE_RULE,
    LURK_RULE,
    _emerge,
    handle_lurk,
    handle_move,
    handle_reveal,
    lurk_options,
    ship_moves,
)
from .specials import _break_tractors, handle_special, special_options  # noqa: E402
from .terrain import _rotate, _webs_hold  # noqa: E402
from .torpedoes import _resolve_torpedoes  # noqa: E402

_HANDLERS = {A.Begin: handle_begin, A.Special: handle_special, A.Move: handle_move, A.Fire: handle_fire,
             A.Detect: handle_detect, A.FlyAC: handle_fly, A.Reveal: handle_reveal, A.Lurk: handle_lurk}
