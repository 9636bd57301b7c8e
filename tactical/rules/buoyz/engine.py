"""The Buoyz 'N Da 'Hood turn sequence (rule book ``seeds/000_…`` 2.2), one action at a time.

``apply(state, action, dice)`` checks the action first (an ``IllegalActionError`` names the
section; nothing is rolled and the state is unchanged), then resolves it and every automatic
step that follows it (the End Phase, the next turn's initiative) with the ``dice`` given.
``legal_actions(state)`` lists what the nominating side may do now. Rulings BZ… are in
``docs/rulings.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from campaign.rules.dice import Dice

from . import actions as A
from . import cam as C
from .geometry import (
    ARCS,
    EPSILON,
    advance,
    arcs_of,
    around,
    bearing,
    distance,
    halve,
    inches,
    norm,
    round_half_up,
    segment_crosses_rect,
    segment_meets_circle,
    segments_cross,
    turn_degrees,
)
from .sds import GUIDED, INTERCEPTABLE, MAIN, SECONDARY, WeaponSystem, has, one_shot, weapon_systems
from .state import (
    ABOARD,
    AC_MOVEMENT,
    AC_TYPES,
    ACTIVE,
    ARMAMENT,
    ATTACK,
    CAPTURED,
    CRITS,
    DESTROYED,
    FIGHTER,
    FLYING,
    INITIATIVE,
    LEFT,
    LOST,
    LURKING,
    MINE_RULE,
    MOTIVE,
    MOVEMENT,
    OVER,
    SHIELDS,
    SHUTTLE,
    TRANSIT,
    BattleState,
    Event,
    Flight,
    IllegalActionError,
    Minefield,
    Ship,
    Torpedo,
    Web,
    mine_load_problem,
    with_ship,
)
from .state import evolve as replace  # dataclasses.replace, faster for the engine's plain frozen values

TURN_RULE = "000 2.2 Detailed Turn Sequence"
INITIATIVE_RULE = "000 3.0 Initiative Phase"
MOVE_RULE = "000 4.1 Ship Movement"
SPECIAL_RULE = "000 7.2 Special Actions"
CLOAK_RULE = "000 10.2 Cloaking Devices"
DETECT_RULE = "000 10.3 Detecting Cloaked Ships"
DETECT_TARGET, DETECT_RANGE, HUNTER_MOVE = 4, 2, 4.0
FIRE_RULE = "000 5.3 Fire Procedure"
SPLIT_RULE = "000 5.2 Splitting Fire"
TARGET_RULE = "000 5.4 Eligible Targets"
HIT_RULE = "000 5.5 Gaining Hits With Beam Weapons"
EFFECT_RULE = "000 5.6 Effect Of Hits"
CRIPPLE_RULE = "000 5.7 Crippled Ships"
CRIT_RULE = "000 5.8 The Effect Of Critical Hits"
TORP_RULE = "000 5.9 Torpedoes"
DC_RULE = "000 6.2 Damage Control"
EXPLOSION_RULE = "000 11.6 Terminal Explosions"
LEAVE_RULE = "000 11.7 Leaving The Table"
MINE_HIT = 4  # 5.10 "On a resultant score of 4 or above the ship has hit a mine"
SWEEP_SPEED = 2.0  # 5.10 "if they are moving at 2\" or less per turn"
MINE_FAST = 3.0  # 5.10 "+1 if moving more than 3\" that turn"

DAMAGE_CONTROL_TARGET = 5  # 6.2 "1D6, adding the ship's Command score. On a roll of 5+"
CRIT_CHECK = 4  # 5.6 "If a 4+ is rolled … it also scores a critical hit"
CRIPPLE_LOSS = 4  # 5.7 (3) "On a 4+ this is destroyed or removed"
AEGIS_TARGET = 5  # 5.9 "on a 5+ they have intercepted the torpedo"
CD_SUPPORT_RANGE = 2  # 8.5 "CD / Secondary weapons can also be fired in support of friendly ships within range"
TORP_TO_HIT = 3  # 5.9 "they hit on a 3+"
FAST_TARGET = 6.0  # 5.5 "target moved more than 6\" this current turn"
IMPULSE_LIMIT = 2.0
RAM_RANGE = 2  # 7.2 Ramming Speed! "an enemy vessel within 2\""  # 7.3 Impulse "may not move more than 2\" a turn"
# Ruling BZ13: the ability a side gives up first on a Vital System hit, unless its orders say.
DEFAULT_LOSS = ("Research", "Saucer", "Landing", "Pursuit Mine", "Trans", "Trac", "Advanced Sensors",
                "Attack Shields", "Adaption", "Shield Drain", "Carrier", "Cloak", "Fire cloaked", "Agile",
                "Impulse", "Warp")


from tactical.rules.kit import Resolution  # noqa: E402 - the kit's (state, events)


class _Ctx:
    def __init__(self, dice: Dice):
        self.dice = dice
        self.events: list[Event] = []

    def roll(self, count: int, purpose: str) -> tuple[int, ...]:
        if count <= 0:
            return ()
        return self.dice.roll(count, 6, purpose).faces

    def log(self, event_kind: str, text: str, **data) -> None:
        self.events.append(Event(event_kind, text, data))

    def add(self, event_kind: str, text: str, data: dict) -> None:
        self.events.append(Event(event_kind, text, data))


# --- ship values -----------------------------------------------------------------------------

def base_speed(ship: Ship) -> float:
    """The SD's Speed, halved when Crippled (5.7 (1)) and once per Critical Motive (5.8 (2));
    kept in exact inches (ruling BZ5). A station or base (Speed N/A) has none."""
    v = float(ship.sd.speed or 0)
    return v / (2 ** (int(ship.crippled) + ship.crit(MOTIVE) + int(ship.burnt)))


def dead_in_space(ship: Ship) -> bool:
    """4.1 "If its move is reduced below 1\", it is considered to be (effectively) dead in space"."""
    return ship.sd.speed is not None and base_speed(ship) < 1.0


def allowance(ship: Ship) -> float:
    """The most a ship may move this turn (4.1, 7.2 Flank Speed, 7.3 Impulse / Warp)."""
    if ship.sd.speed is None or dead_in_space(ship):
        return 0.0
    if ship.hyperspace:
        return HYPER_MOVE  # 11.8 "Ships in hyperspace may move up to 24\""
    v = base_speed(ship)
    if ship.uses("flank_speed"):
        v = v + max(1.0, v / 2)
    elif has(ship.abilities, "Impulse") and not (has(ship.abilities, "Warp") or has(ship.abilities, "Hyperspace")):
        v = min(v, IMPULSE_LIMIT)  # ruling BZ16: an SD listing neither moves at its Speed
    if ship.uses("engine_doubling"):
        v *= 2  # 7.3 Orion engine doubling: double the move for a turn
    return v / 2 if ship.cloaked else v  # 10.2 a) "up to half their current maximum speed"


def turning(ship: Ship) -> int:
    """Turning points (4.1): +2 for Hard About (7.2); a Crippled ship turns one point at most
    (5.7 (1); ruling BZ11: the cap applies after Hard About)."""
    t = ship.sd.turning or 0
    if ship.uses("hard_about"):
        t += 2
    if ship.crippled:
        t = min(t, 1)
    return t


def agile(ship: Ship) -> bool:
    return has(ship.abilities, "Agile") or ship.sd.ship_class.value == "RB"  # 4.2 sidebar: patrol craft


def shields_facing(ship: Ship, from_pos, drained: bool = False) -> int:
    """The target's current shields toward ``from_pos`` (1.5, 5.6): the facing's value (the
    better one on an arc boundary, ruling BZ2), 0 while lowered, halved when Crippled (5.7 (4)),
    per Critical Shields (5.8 (3)) and by a Borg Shield Drain (7.3)."""
    if ship.shields_lowered or ship.cloaked:  # 10.2 b) a cloaked vessel deploys no shields
        return 0
    facings = arcs_of(ship.pos, ship.heading, from_pos)
    shields = ship.sd.shields
    if ship.uses("attack_shields"):  # 7.3: +1 fore, port, starboard; -2 aft, this turn
        shields = (shields[0] + 1, shields[1] + 1, shields[2] + 1, max(0, shields[3] - 2))
    value = max(shields[ARCS.index(a)] for a in facings)
    return halve(value, int(ship.crippled) + ship.crit(SHIELDS) + int(drained))


def systems(ship: Ship) -> tuple[WeaponSystem, ...]:
    return weapon_systems(ship.sd)


def system_dice(ship: Ship, system: WeaponSystem) -> int:
    """Attack dice now (5.5): halved when Crippled (5.7 (2)) and per Critical Armament (5.8 (1));
    0 once a one-shot weapon is spent (7.3)."""
    if system.key in ship.spent or (system.group == SECONDARY and ship.uses("point_defence")):
        return 0  # spent one-shot (7.3), or secondaries on Point Defence (7.2: "don't otherwise fire")
    dice = halve(system.dice, int(ship.crippled) + ship.crit(ARMAMENT))
    return dice * 2 if ship.uses("engine_doubling") else dice  # 7.3: and fire dice, for a turn


def close_defence(ship: Ship) -> int:
    return halve(ship.sd.close_defence, int(ship.crippled) + ship.crit(ARMAMENT))


SQUADRON_RULE = "000 11.1 Squadrons"
FORMATION = 3  # 11.1 "within 3\" of at least one other ship in the squadron"


def command_of(state: BattleState, ship: Ship) -> int:
    return command(state, ship)


def squadron(state: BattleState, ship: Ship) -> tuple[Ship, ...]:
    """The ship's squadron as it stands (11.1): its active members that are not Crippled (a
    Crippled ship drops out); empty if it is in none, or has dropped out."""
    if not ship.active or ship.crippled:
        return ()
    for members in state.orders_of(ship.side).squadrons:
        if ship.id in members:
            return tuple(s for s in state.ships if s.id in members and s.active and not s.crippled)
    return ()


def command(state: BattleState, ship: Ship) -> int:
    """11.1: ships use the highest Command score of all ships within the squadron."""
    return max((s.sd.command for s in squadron(state, ship)), default=ship.sd.command)


def formation_problem(state: BattleState, ship: Ship, end) -> str | None:
    """11.1 (ruling BZ51): a member ends its move within 3\" of a member that has already moved
    this turn, or at least no farther from the nearest of them than it started (the first to
    move leads)."""
    mates = [s for s in squadron(state, ship) if s.id != ship.id and s.moved]
    if not mates:
        return None
    near_end = min(distance(end, m.pos) for m in mates)
    if round_half_up(round(near_end, 4)) <= FORMATION:
        return None
    if near_end <= min(distance(ship.pos, m.pos) for m in mates) + 1e-6:
        return None
    return f"a squadron keeps within 3\" of each other: {ship.name} ({ship.id}) would end {near_end:.1f}\" from the nearest"


def fires_cloaked(ship: Ship) -> bool:
    """7.3 Klingon Cloaked Firing: 'Superior' Size Class 5 Birds of Prey with the ability."""
    return has(ship.abilities, "Fire cloaked") and ship.sd.command >= 3 and ship.sd.target_size == 5


_SILENT = ("ecm", "cloak", "decloak")


def can_fire(ship: Ship) -> bool:
    """Ruling BZ10: a ship with nothing it could fire (under ECM, 7.2; cloaked, or having cloaked
    or uncloaked this turn, 10.2) is passed over."""
    if not ship.active or ship.fired or ship.sweeping or ship.tractor is not None or ship.hyperspace:
        return False
    if ship.special in _SILENT or (ship.extra_specials and any(ship.uses(x) for x in _SILENT)):
        return False
    if ship.cloaked and not fires_cloaked(ship):
        return False
    return any(system_dice(ship, s) > 0 for s in systems(ship))


def eligible(state: BattleState, ship: Ship, system: WeaponSystem, target: Ship) -> bool:
    """5.4: in the weapon's arc and within its range (rounded, ruling BZ1); every ship is located
    (9.1: 40\" sensor range) unless cloaked and not detected (10.2, 10.3)."""
    if not target.active or target.side == ship.side or target.uses("ecm"):
        return False
    if target.cloaked and not target.detected:
        return False
    if target.hyperspace:  # 11.8 "No combat is possible in hyperspace"
        return False
    if inches(ship.pos, target.pos) > system.range:
        return False
    if not located(state, ship, target):
        return False
    return bool(arcs_of(ship.pos, ship.heading, target.pos) & system.arcs)


SENSOR_RANGE, SENSOR_RANGE_INHIBITED, ADVANCED_SENSOR_RANGE = 40, 30, 50  # 9.1, 9.2
MASSES = ("planet", "moon")
INHIBITORS = ("asteroids", "nebula")


def _through(state: BattleState, a, b, kinds) -> bool:
    return any(o.kind in kinds and segment_meets_circle(a, b, o.centre, o.radius) for o in state.objects)


def located(state: BattleState, ship: Ship, target: Ship) -> bool:
    """9.1, 9.2: within sensor range (40\"; 30\" into or through asteroids or nebulae; 50\" with
    Advanced Sensors, which ignore asteroids and nebulae; a quarter when either ship is cloaked)
    and no planet or moon in the way (ruling BZ41)."""
    if not state.objects:
        return inches(ship.pos, target.pos) <= (ADVANCED_SENSOR_RANGE if has(ship.abilities, "Advanced Sensors")
                                                else SENSOR_RANGE) / (4 if ship.cloaked or target.cloaked else 1)
    if _through(state, ship.pos, target.pos, MASSES):
        return False
    advanced = has(ship.abilities, "Advanced Sensors")
    rng = ADVANCED_SENSOR_RANGE if advanced else (
        SENSOR_RANGE_INHIBITED if _through(state, ship.pos, target.pos, INHIBITORS) else SENSOR_RANGE)
    if ship.cloaked or target.cloaked:
        rng /= 4
    return inches(ship.pos, target.pos) <= rng


def inhibited(state: BattleState, ship: Ship, other_pos=None) -> bool:
    """9.1: ``ship`` is inside (or, with ``other_pos``, its line to it passes through) an asteroid
    field or nebula."""
    end = ship.pos if other_pos is None else other_pos
    return bool(state.objects) and _through(state, ship.pos, end, INHIBITORS)


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


# --- phases ----------------------------------------------------------------------------------

def _pending(state: BattleState, side: int) -> list[Ship]:
    if state.phase == MOVEMENT:
        out = [s for s in state.active_ships(side) if not s.moved]
        if not C.breaking(state, side):  # 10.2: lurkers are nominated to reveal or stay hidden (BZ53)
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
            ctx.log("hyperspace", f"{ship.name} ({ship.id}) drops out of hyperspace"
                    + ("" if on else f" off the table: it has left the battle ({LEAVE_RULE})"), ship=ship.id, left=not on)
            state = with_ship(state, ship)
    return state


def _check_over(state: BattleState, ctx: _Ctx, mid_turn: bool = False) -> BattleState:
    """BZ17; with a CAM link, CAM 3.0: over once all table contact is broken (after an End
    Phase), or forced when a side has no ship left or at the turn cap, and tallied by CAM."""
    alive = [side for side in state.sides if state.active_ships(side)
             or (state.lurking(side) and not C.breaking(state, side))
             or any(s.status == TRANSIT and s.side == side for s in state.ships)]  # BZ53: lurkers are in the battle
    if state.cam is not None:
        done = len(alive) < 2 or (not mid_turn and (state.cam.battle.contact_broken or state.turn >= state.turn_cap))
        if not done:
            return state
        state, winner = C.finish(state, ctx)
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


# --- checking ----------------------------------------------------------------------------------

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
        raise IllegalActionError(SQUADRON_RULE, f"the rest of the squadron ({', '.join(map(str, state.squadron_next))}) "
                                 "moves and fires first")
    return ship


def check(state: BattleState, action: A.Action) -> None:
    """Raise ``IllegalActionError`` if ``action`` is not allowed now (rolls nothing)."""
    if state.phase == OVER:
        raise IllegalActionError(TURN_RULE, "the battle is over")
    if isinstance(action, A.Begin):
        if state.phase != INITIATIVE or state.turn != 0:
            raise IllegalActionError(INITIATIVE_RULE, "the battle has begun; initiative is rolled after each End Phase")
        return
    if state.phase == INITIATIVE:
        raise IllegalActionError(INITIATIVE_RULE, "roll for initiative first (Begin)")
    if isinstance(action, A.Special):
        _check_special(state, action)
    elif isinstance(action, A.Move):
        _check_move(state, action)
    elif isinstance(action, A.Fire):
        _check_fire(state, action)
    elif isinstance(action, A.Detect):
        _check_detect(state, action)
    elif isinstance(action, A.FlyAC):
        _check_fly(state, action)
    elif isinstance(action, A.Reveal):
        _check_reveal(state, action)
    elif isinstance(action, A.Lurk):
        _check_lurk(state, action)
    else:
        raise IllegalActionError(TURN_RULE, f"unknown action {action!r}")


def _check_special(state: BattleState, action: A.Special) -> None:
    if state.phase != MOVEMENT:
        raise IllegalActionError(SPECIAL_RULE, "Special Actions are attempted when a ship is nominated to move")
    ship = _own_ship(state, action.ship, SPECIAL_RULE)
    if action.action not in A.SPECIAL_ACTIONS:
        raise IllegalActionError(SPECIAL_RULE, f"unknown Special Action {action.action!r} "
                                 f"(known: {', '.join(sorted(A.SPECIAL_ACTIONS))})")
    name = action.action.replace("_", " ")
    if action.action == "hyperspace":
        if state.nominated != ship.id or not ship.uses("flank_speed") or not has(ship.abilities, "Hyperspace"):
            raise IllegalActionError(HYPER_RULE, "a ship with the Hyperspace ability enters hyperspace after "
                                     "successfully rolling for Flank Speed")
    elif action.action == "maximum_warp":
        if state.nominated != ship.id or not ship.uses("flank_speed"):
            raise IllegalActionError(f"{SPECIAL_RULE}: Maximum Warp!", "only a ship that has this turn successfully "
                                     "invoked Flank Speed can convert it to maximum warp")
        if not has(ship.abilities, "Warp") or ship.crippled or ship.crit(MOTIVE):
            raise IllegalActionError(f"{SPECIAL_RULE}: Maximum Warp!", f"{ship.name} ({ship.id}) is not a warp capable "
                                     "ship whose movement has not been reduced by combat")
        if ship.cloaked:
            raise IllegalActionError(f"{SPECIAL_RULE}: Maximum Warp!", f"{ship.name} ({ship.id}) is cloaked: only "
                                     "uncloaked warp capable ships go to maximum warp")
    elif ship.extra_tries:  # after a successful No Win Scenario: two more, each a different one
        if action.action == "no_win" or action.action == ship.special_tried or ship.uses(action.action):
            raise IllegalActionError(SPECIAL_RULE, f"{ship.name} ({ship.id}) has already tried {action.action} this turn")
    else:
        if state.nominated is not None:
            raise IllegalActionError(SPECIAL_RULE, f"ship {state.nominated} attempted its Special Action and must move "
                                     "now")
        if ship.special_tried:
            raise IllegalActionError(SPECIAL_RULE, f"{ship.name} ({ship.id}) has attempted its Special Action this turn")
    if ship.moved:
        raise IllegalActionError(MOVE_RULE, f"{ship.name} ({ship.id}) has already been nominated to move this turn")
    if (action.target is not None) != (action.action == "ramming" or action.action in TRACTORS):
        raise IllegalActionError(SPECIAL_RULE, "Ramming Speed! and Tractor! name the ship they act on; no other "
                                 "Special Action takes a target")
    if action.action in TRACTORS:
        _check_tractor(state, ship, action.target)
    if action.action in ("flank_speed", "hard_about", "ramming") and (ship.sd.speed is None or dead_in_space(ship)):
        raise IllegalActionError(SPECIAL_RULE, f"{ship.name} ({ship.id}) cannot move, so cannot use {name}")
    if action.action == "ecm" and any(o.kind in ("nebula", "planet") and distance(ship.pos, o.centre) <= o.radius
                                      for o in state.objects):
        raise IllegalActionError(ECM_RULE, "ECM cannot be performed within an atmosphere or nebula")
    if action.action == "attack_shields" and not has(ship.abilities, "Attack Shields"):
        raise IllegalActionError("000 7.3 Klingon Attack Shields", f"{ship.name} ({ship.id}) has no Attack Shields")
    if action.action in ("cloak", "decloak"):
        if not has(ship.abilities, "Cloak"):
            raise IllegalActionError(CLOAK_RULE, f"{ship.name} ({ship.id}) has no cloaking device")
        if action.action == "cloak" and ship.cloaked or action.action == "decloak" and not ship.cloaked:
            raise IllegalActionError(CLOAK_RULE, f"{ship.name} ({ship.id}) is {'already' if ship.cloaked else 'not'} "
                                     "cloaked")
        if action.action == "cloak" and (ship.crippled or ship.crit(SHIELDS)):
            raise IllegalActionError(CLOAK_RULE, f"{ship.name} ({ship.id})'s cloak is inoperative (5.7 (5), 5.8 (3))")
    if action.action == "engine_doubling" and not (has(ship.abilities, "Engine Doubling") or ship.extra_tries):
        raise IllegalActionError("000 7.3 Orion / Pirate Engine Doubling", f"{ship.name} ({ship.id}) cannot double its "
                                 "engines (an Orion ability, or one of a No Win Scenario's actions)")
    if action.action == "saucer_separation":
        if not has(ship.abilities, "Saucer"):
            raise IllegalActionError(SAUCER_RULE, f"{ship.name} ({ship.id}) has no separable saucer")
        if ship.hull < 2:
            raise IllegalActionError(SAUCER_RULE, f"{ship.name} ({ship.id}) has too little hull left to separate")
    if action.action == "land":
        if not has(ship.abilities, "Landing"):
            raise IllegalActionError(LANDING_RULE, f"{ship.name} ({ship.id}) cannot land")
        if ship.landed or not any(o.kind in MASSES and distance(ship.pos, o.centre) <= o.radius + 1 + EPSILON
                                  for o in state.objects):
            raise IllegalActionError(LANDING_RULE, f"{ship.name} ({ship.id}) is not within 1\" of a planet or moon it "
                                     "could land on")
    if action.action == "take_off" and not ship.landed:
        raise IllegalActionError(LANDING_RULE, f"{ship.name} ({ship.id}) has not landed")
    if action.action == "use_the_force" and ship.sd.command < 3:
        raise IllegalActionError(FORCE_RULE, f"only Superior crews go into overwatch; {ship.name} ({ship.id}) has "
                                 f"Command {ship.sd.command}")
    if action.action == "point_defence" and not ship.sd.secondary:
        raise IllegalActionError("000 7.2 Point Defence!", f"{ship.name} ({ship.id}) has no secondary weapons")
    if action.action == "ramming":
        target = state.ship(action.target) if isinstance(action.target, int) else None
        if target is None or target.side == ship.side or not target.active:
            raise IllegalActionError("000 7.2 Ramming Speed!", f"ship {action.target!r} is not an enemy vessel in the "
                                     "battle")
        _no_attack_under_ecm(target, "rammed")
        if inches(ship.pos, target.pos) > RAM_RANGE:
            raise IllegalActionError("000 7.2 Ramming Speed!", f"{target.name} ({target.id}) is "
                                     f"{inches(ship.pos, target.pos)}\" away; a ram reaches {RAM_RANGE}\"")


BOARD_RULE = "000 11.4 Boarding Actions"
BASE_RULE = "000 11.2 'Shore' Batteries And Bases"
TRANSPORTER_RANGE = 0.5  # 7.3 Transporters "if within 1/2\""
SIZE_BONUS = {5: -1, 4: 0, 3: 1, 2: 3, 1: 5, 0: 6}  # 11.4 'size dice bonus'


TRACTORS = {"tractor_hold": "hold", "tractor_tow": "tow", "tractor_pull": "pull"}
TRACTOR_RULE = "000 7.2 Tractor!"
TRACTOR_RANGE, PULL = 1, 0.5


def _check_tractor(state: BattleState, ship: Ship, target_id: object) -> None:
    if not has(ship.abilities, "Trac"):
        raise IllegalActionError(TRACTOR_RULE, f"{ship.name} ({ship.id}) has no tractor beam")
    if ship.tractor is not None:
        raise IllegalActionError(TRACTOR_RULE, f"{ship.name} ({ship.id})'s beam already holds ship {ship.tractor[0]}")
    target = next((x for x in state.ships if x.id == target_id), None) if isinstance(target_id, int) else None
    if target is None or target.id == ship.id or not target.active:
        raise IllegalActionError(TRACTOR_RULE, f"ship {target_id!r} is not a ship in the battle")
    if target.sd.target_size <= ship.sd.target_size:
        raise IllegalActionError(TRACTOR_RULE, f"a tractor beam holds a smaller ship; {target.name} is Size "
                                 f"{target.sd.target_size}, {ship.name} Size {ship.sd.target_size}")
    if inches(ship.pos, target.pos) > TRACTOR_RANGE:
        raise IllegalActionError(TRACTOR_RULE, f"{target.name} ({target.id}) is {inches(ship.pos, target.pos)}\" away; "
                                 "a tractor beam reaches 1\"")
    if target.cloaked and not target.detected and target.side != ship.side:
        raise IllegalActionError(DETECT_RULE, f"{target.name} ({target.id}) is cloaked")
    if target.side != ship.side:
        _no_attack_under_ecm(target, "held by an enemy tractor beam")


def _tractor(state: BattleState, ship: Ship, target: Ship, mode: str, ctx: _Ctx) -> BattleState:
    """7.2 Tractor!: the ship may not fire; it tows, holds in place, or pulls ½\" toward it a
    smaller ship; the beam holds until the tractored ship rolls a 6 in the End Phase (ruling BZ43)."""
    ship = replace(ship, tractor=(target.id, mode))
    state = with_ship(state, ship)
    if mode == "hold":
        state = with_ship(state, replace(target, held=True))
    elif mode == "pull":
        d = min(PULL, distance(target.pos, ship.pos))
        pos = advance(target.pos, bearing(target.pos, ship.pos), d) if d > 0 else target.pos
        state = with_ship(state, replace(target, pos=pos))
    ctx.log("tractor", f"{ship.name} ({ship.id}) locks its tractor beam on {target.name} ({target.id}) ({mode})",
            ship=ship.id, target=target.id, mode=mode)
    return state


def _break_tractors(state: BattleState, ctx: _Ctx) -> BattleState:
    """2.2 End Phase 4) "Break Tractors": the tractored ship breaks the beam on a 6; a beam whose
    ships are more than 1\" apart, or one of them gone, is broken anyway."""
    for ship in state.ships:
        ship = state.ship(ship.id)
        if ship.tractor is None:
            continue
        target = state.ship(ship.tractor[0])
        broken = not (ship.active and target.active) or inches(ship.pos, target.pos) > TRACTOR_RANGE
        if not broken:
            face = ctx.roll(1, f"{TRACTOR_RULE}: {target.id} tries to break the beam")[0]
            broken = face == 6
        if broken:
            ctx.log("tractor_broken", f"The tractor beam of ship {ship.id} on ship {target.id} is broken", ship=ship.id,
                    target=target.id)
            state = with_ship(state, replace(ship, tractor=None))
            state = with_ship(state, replace(state.ship(target.id), held=False))
    return state


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


def _check_detect(state: BattleState, action: A.Detect) -> None:
    if state.phase != ATTACK:
        raise IllegalActionError(DETECT_RULE, "detection is rolled in the Attack Phase, before a ship declares attacks")
    ship = _own_ship(state, action.ship, DETECT_RULE)
    if state.nominated is not None:
        raise IllegalActionError(DETECT_RULE, f"ship {state.nominated} has made its detection roll and fires now")
    if not can_fire(ship):
        raise IllegalActionError(FIRE_RULE, f"{ship.name} ({ship.id}) has nothing left to attack with this turn")
    if not ship.uses("cloak_hunter"):
        raise IllegalActionError(DETECT_RULE, f"{ship.name} ({ship.id}) did not select Cloak Hunter! this turn")
    if ship.moved_inches > HUNTER_MOVE + EPSILON:
        raise IllegalActionError(DETECT_RULE, f"{ship.name} ({ship.id}) moved {ship.moved_inches:g}\"; a cloak hunter "
                                 f"moves no more than {HUNTER_MOVE:g}\"")
    if ship.searched:
        raise IllegalActionError(DETECT_RULE, f"{ship.name} ({ship.id}) has already searched this turn")


def _end_of(ship: Ship, m: A.Move, state: BattleState | None = None):
    if m.orbit is not None and state is not None:
        return _orbit_end(state, ship, m.orbit)[0]
    pos = advance(ship.pos, ship.heading, m.before) if m.before else ship.pos
    if m.after:
        pos = advance(pos, norm(ship.heading + turn_degrees(m.turn)), m.after)
    return pos


PURSUIT_SIZE = 3  # 7.3 "a Romulan ship of Class 3 size or larger" (Size 3 down to 0)


def pursuit_mine_ready(ship: Ship) -> bool:
    """7.3 Romulan Pursuit Mines: one, free, for a ship with the ability of Size 3 or larger
    (target size 3 or less; ruling BZ97) that has not laid it yet."""
    return (has(ship.abilities, "Pursuit Mine") and "pursuit_mine" not in ship.spent
            and ship.sd.target_size <= PURSUIT_SIZE)


def mine_layer_problem(ship: Ship) -> str | None:
    """5.10: Size 3 and smaller capable vessels, 1 mine a turn from the 6 they carry, and no
    torpedoes besides (``mine_load_problem``); 7.3 Romulan Pursuit Mines (ruling BZ33)."""
    if pursuit_mine_ready(ship):
        return None
    if ship.mines <= 0:
        if has(ship.abilities, "Pursuit Mine") and ship.sd.target_size > PURSUIT_SIZE:
            return (f"Pursuit Mines are laid by Romulan ships of Class 3 size or larger (7.3); {ship.name} is Size "
                    f"{ship.sd.target_size}, and it carries no mines")
        return f"{ship.name} ({ship.id}) carries no mines"
    if ship.sd.target_size < 3:
        return f"only Size 3 and smaller vessels lay mines; {ship.name} is Size {ship.sd.target_size}"
    return mine_load_problem(ship.sd, ship.mines)


def move_cost_ok(ship: Ship, action: A.Move) -> str | None:
    """Why ``action`` is not a legal move for ``ship`` (4.1, 7.3 Agile), or None."""
    for what in ("before", "after"):
        value = getattr(action, what)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
            return f"'{what}' must be a distance of 0 inches or more, not {value!r}"
    for what in ("turn", "turn_end"):
        if not isinstance(getattr(action, what), int) or isinstance(getattr(action, what), bool):
            return f"'{what}' must be a whole number of turning points"
    allow = allowance(ship)
    if ship.sd.speed is None:
        if action.before or action.after or action.turn or action.turn_end:
            return f"{ship.name} ({ship.id}) is a station or base and does not move"
        return None
    if dead_in_space(ship) or ship.held or ship.landed:
        if action.before or action.after or action.turn or action.turn_end:
            return (f"{ship.name} ({ship.id}) is held in place by a tractor beam" if ship.held
                    else f"{ship.name} ({ship.id}) has landed; it takes off before it moves" if ship.landed
                    else f"{ship.name} ({ship.id}) is dead in space (its move is below 1\")")
        return None
    t = turning(ship)
    if agile(ship):
        if action.turn and action.before > EPSILON:
            return "an Agile ship's first turn is made right at the start of its move (7.3)"
    elif action.turn_end:
        return "only an Agile ship turns twice (7.3); a ship turns once in its move"
    for what in ("turn", "turn_end"):
        if abs(getattr(action, what)) > t:
            return f"a turn of {abs(getattr(action, what))} points is more than {ship.name}'s Turning {t}"
    points = abs(action.turn) + abs(action.turn_end)
    forward = action.before + action.after
    room = max(0.0, allow - points)  # 4.1: each point turned costs 1"; extra turns are free
    if forward > room + EPSILON:
        return (f"moving {forward:g}\" after turning {points} point(s) is more than the {room:g}\" left of "
                f"{ship.name}'s {allow:g}\" move")
    return None


def _check_move(state: BattleState, action: A.Move) -> None:
    if state.phase != MOVEMENT:
        raise IllegalActionError(MOVE_RULE, "ships move in the Movement Phase")
    ship = _own_ship(state, action.ship, MOVE_RULE)
    if state.nominated is not None and state.nominated != ship.id:
        raise IllegalActionError(SPECIAL_RULE, f"ship {state.nominated} attempted its Special Action and must move now")
    if ship.moved:
        raise IllegalActionError(MOVE_RULE, f"{ship.name} ({ship.id}) may only be nominated to move once each turn")
    why = move_cost_ok(ship, action)
    if why:
        raise IllegalActionError(MOVE_RULE, why)
    if action.lay_mine:
        why = mine_layer_problem(ship)
        if why:
            raise IllegalActionError(MINE_RULE, why)
    if action.sweep:
        if not has(ship.abilities, "Minesweeper"):
            raise IllegalActionError(MINE_RULE, f"{ship.name} ({ship.id}) is not a Minesweeper (7.3)")
        if action.before + action.after > SWEEP_SPEED + EPSILON:
            raise IllegalActionError(MINE_RULE, "a Minesweeper sweeps only while moving 2\" or less")
    if action.orbit is not None:
        why = orbit_problem(state, ship, action)
        if why:
            raise IllegalActionError(ORBIT_RULE, why)
    if action.web:
        if not has(ship.abilities, "Web"):
            raise IllegalActionError(WEB_RULE, f"{ship.name} ({ship.id}) cannot spin a Tholian web")
        if action.lay_mine or action.sweep or action.orbit is not None:
            raise IllegalActionError(WEB_RULE, "a ship spinning a web moves as if laying a minefield: no mine, "
                                     "sweep or orbit besides")
    if C.breaking(state, ship.side):
        why = C.retreat_problem(state, ship, action)
        if why:
            raise IllegalActionError(C.RETREAT_RULE, why)
    why = web_block(state, [(ship.pos, _end_of(ship, action, state))] if action.orbit is not None
                    else _legs(ship, action)) if state.webs else None
    if why:
        raise IllegalActionError(WEB_RULE, why)
    why = formation_problem(state, ship, _end_of(ship, action, state))
    if why:
        raise IllegalActionError(SQUADRON_RULE, why)


ECM_RULE = "000 7.2 ECM! / Go Dark!"


def _no_attack_under_ecm(target: Ship, how: str) -> None:
    """7.2 ECM!: "No attacks on this ship may be made at all that turn" (ruling BZ95: fire,
    boarding, ramming, an enemy's tractor beam, and attack craft runs with their torpedoes). The
    ECM counter is on the table for every side to see, so refusing gives nothing away."""
    if target.uses("ecm"):
        raise IllegalActionError(ECM_RULE, f"no attacks may be made on {target.name} ({target.id}) this turn (ECM): "
                                 f"it may not be {how}")


def _check_fire(state: BattleState, action: A.Fire) -> None:
    if state.phase != ATTACK:
        raise IllegalActionError(FIRE_RULE, "ships fire in the Attack Phase")
    ship = _own_ship(state, action.ship, FIRE_RULE)
    if ship.fired:
        raise IllegalActionError(FIRE_RULE, f"{ship.name} ({ship.id}) has already been nominated to fire this turn")
    if ship.uses("ecm"):
        raise IllegalActionError(ECM_RULE, f"{ship.name} ({ship.id}) is under ECM and may not fire")
    if state.nominated is not None and state.nominated != ship.id:
        raise IllegalActionError(CLOAK_RULE, f"ship {state.nominated} has made its detection roll and fires now")
    if ship.uses("cloak") or ship.uses("decloak"):
        raise IllegalActionError(CLOAK_RULE, f"{ship.name} ({ship.id}) cloaked or uncloaked this turn and may not "
                                 "attack")
    if ship.sweeping:
        raise IllegalActionError(MINE_RULE, f"{ship.name} ({ship.id}) swept mines this turn and may not shoot")
    if ship.tractor is not None:
        raise IllegalActionError(TRACTOR_RULE, f"{ship.name} ({ship.id}) holds a tractor beam and may not fire")
    if ship.cloaked and not fires_cloaked(ship):
        raise IllegalActionError(CLOAK_RULE, f"{ship.name} ({ship.id}) is cloaked and may not fire")
    if action.board is not None:
        _check_board(state, ship, action.board)
    by_key = {s.key: s for s in systems(ship)}
    used: dict[str, int] = {}
    for shot in action.shots:
        if not (isinstance(shot, tuple) and len(shot) == 3):
            raise IllegalActionError(FIRE_RULE, f"a shot is (weapon, target, dice), not {shot!r}")
        key, target_id, dice = shot
        system = by_key.get(key)
        if system is None:
            raise IllegalActionError(FIRE_RULE, f"{ship.name} has no weapon system {key!r} "
                                     f"(it has: {', '.join(by_key) or 'none'})")
        if not isinstance(dice, int) or isinstance(dice, bool) or dice < 1:
            raise IllegalActionError(FIRE_RULE, f"{key}: fire 1 or more dice, not {dice!r}")
        if system.group == SECONDARY and ship.uses("point_defence"):
            raise IllegalActionError("000 7.2 Point Defence!", f"{ship.name} ({ship.id})'s secondary weapons are on "
                                     "Point Defence this turn (they do not otherwise fire)")
        if key in used and system.group == MAIN:
            raise IllegalActionError(SPLIT_RULE, f"only Secondary and Close Defence weapons may split their fire; "
                                     f"{system.name} ({key}) fires at one target")
        used[key] = used.get(key, 0) + dice
        available = system_dice(ship, system)
        if used[key] > available:
            raise IllegalActionError(HIT_RULE, f"{system.name} ({key}) has {available} attack dice now, not {used[key]}")
        target = state.ship(target_id) if isinstance(target_id, int) else None
        if target is None or target.side == ship.side:
            raise IllegalActionError(TARGET_RULE, f"ship {target_id!r} is not an enemy ship")
        if target.status == LURKING:
            raise IllegalActionError(LURK_RULE, f"{target.name} ({target.id}) is lurking unseen, not on the table")
        if target.status == TRANSIT:
            raise IllegalActionError(MULTI_RULE, f"{target.name} ({target.id}) is in transit between tables and "
                                     "cannot be attacked")
        if not target.active:
            raise IllegalActionError(TARGET_RULE, f"{target.name} ({target.id}) is no longer in the battle")
        _no_attack_under_ecm(target, "fired at")
        if target.cloaked and not target.detected:
            raise IllegalActionError(DETECT_RULE, f"{target.name} ({target.id}) is cloaked and has not been detected")
        if target.hyperspace:
            raise IllegalActionError(HYPER_RULE, f"{target.name} ({target.id}) is in hyperspace: no combat is possible")


# --- resolving -------------------------------------------------------------------------------

def apply(state: BattleState, action: A.Action, dice: Dice) -> Resolution:
    check(state, action)
    ctx = _Ctx(dice)
    if isinstance(action, A.Begin):
        ctx.log("begin", "The battle begins")
        state = _roll_initiative(state, ctx)
    elif isinstance(action, A.Special):
        state = _do_special(state, action, ctx)
    elif isinstance(action, A.Move):
        state = _do_move(state, action, ctx)
    elif isinstance(action, A.Detect):
        state = _do_detect(state, action, ctx)
    elif isinstance(action, A.FlyAC):
        state = _do_fly(state, action, ctx)
    elif isinstance(action, A.Reveal):
        state = _do_reveal(state, action, ctx)
    elif isinstance(action, A.Lurk):
        state = _do_lurk(state, action, ctx)
    else:
        state = _do_fire(state, action, ctx)
    return Resolution(state, tuple(ctx.events))


def _do_detect(state: BattleState, action: A.Detect, ctx: _Ctx) -> BattleState:
    """10.3: 4+ (Advanced Sensors +1, 9.2) detects every cloaked enemy within 2\"; a failure
    leaves the ship too busy searching to attack this turn."""
    ship = state.ship(action.ship)
    bonus = 1 if has(ship.abilities, "Advanced Sensors") else 0
    face = ctx.roll(1, f"{DETECT_RULE}: {ship.id} searches")[0]
    ok = face + bonus >= DETECT_TARGET
    found = [e for e in state.enemy_ships(ship.side)
             if e.cloaked and inches(ship.pos, e.pos) <= DETECT_RANGE] if ok else []
    ctx.log("detect", f"{ship.name} ({ship.id}) searches: {face}{'+1' if bonus else ''} "
            + (f"detects {', '.join(f'{e.name} ({e.id})' for e in found) or 'nothing within 2'}" if ok
               else "fails; too busy searching to attack"), ship=ship.id, success=ok, detected=[e.id for e in found])
    for e in found:
        state = with_ship(state, replace(e, detected=True))
    if not ok:
        state = with_ship(state, replace(ship, searched=True, fired=True))
        return _after_nomination(state, ship.side, ctx)
    return replace(with_ship(state, replace(ship, searched=True)), nominated=ship.id)


def _do_special(state: BattleState, action: A.Special, ctx: _Ctx) -> BattleState:
    ship = state.ship(action.ship)
    need = A.SPECIAL_ACTIONS[action.action]
    if need:
        face = ctx.roll(1, f"{SPECIAL_RULE}: {action.action} command check ({ship.id})")[0]
        command = command_of(state, ship) - (1 if inhibited(state, ship) else 0)  # 9.1: -1 in asteroids, nebulae
        ok = face + command >= need
        ctx.log("special", f"{ship.name} ({ship.id}) attempts {action.action}: {face}+{command} "
                f"{'succeeds' if ok else 'fails'} (needs {need})", ship=ship.id, action=action.action, success=ok)
    else:
        ok = True
        ctx.log("special", f"{ship.name} ({ship.id}) declares {action.action}", ship=ship.id, action=action.action,
                success=True)
    if ok and need:
        state, ok = _overwatch(state, ship, action.action, ctx)
        ship = state.ship(ship.id)
    if action.action == "hyperspace":
        ship = replace(ship, hyperspace=True)
        ctx.log("hyperspace", f"{ship.name} ({ship.id}) enters hyperspace ({HYPER_RULE})", ship=ship.id)
        return with_ship(state, ship)
    if action.action == "maximum_warp":
        if not ok:
            return state  # it still moves, at Flank Speed
        ship = replace(ship, status=LEFT, moved=True)
        ctx.log("move", f"{ship.name} ({ship.id}) goes to maximum warp and leaves the table ({LEAVE_RULE})",
                ship=ship.id, left=True)
        return _gone_this_turn(state, ship, ctx)
    if ship.extra_tries:
        ship = replace(ship, extra_tries=ship.extra_tries - 1,
                       extra_specials=ship.extra_specials + ((action.action,) if ok else ()))
    else:
        ship = replace(ship, special=action.action if ok else "", special_tried=action.action,
                       extra_tries=2 if ok and action.action == "no_win" else 0,
                       overwatch=ok and action.action == "use_the_force")
    if action.action in ("cloak", "decloak"):
        ship = replace(ship, cloaked=action.action == "cloak", detected=False)
    state = replace(with_ship(state, ship), nominated=ship.id)
    if ok and action.action == "self_destruct":
        ship = replace(ship, status=DESTROYED, moved=True)
        ctx.log("destroyed", f"{ship.name} ({ship.id}) self-destructs (000 7.2 Self-Destruct!)", ship=ship.id)
        state = with_ship(state, ship)
        state = explode(state, ship.id, ctx)
        return _gone_this_turn(state, state.ship(ship.id), ctx)
    if ok and action.action == "ramming":
        return _ram(state, ship, state.ship(action.target), ctx)
    if action.action in ("land", "take_off"):
        landed = action.action == "land"
        state = with_ship(state, replace(state.ship(ship.id), landed=landed))
        ctx.log("landing", f"{ship.name} ({ship.id}) {'lands' if landed else 'takes off'} ({LANDING_RULE})",
                ship=ship.id, landed=landed)
    if ok and action.action == "saucer_separation":
        state = separate_saucer(state, state.ship(ship.id), ctx)
    if ok and action.action in TRACTORS:
        return _tractor(state, state.ship(ship.id), state.ship(action.target), TRACTORS[action.action], ctx)
    return state


FORCE_RULE = "000 7.2 'Use The Force, Luke!'"
SAUCER_RULE = "000 7.3 Federation Saucer Separation"
HYPER_RULE = "000 11.8 Hyperspace"
HYPER_MOVE = 24.0
LANDING_RULE = "000 7.3 Landing"


def _third(n: int) -> int:
    return round_half_up(n / 3)


def separate_saucer(state: BattleState, ship: Ship, ctx: _Ctx) -> BattleState:
    """7.3 (ruling BZ47): the saucer takes a third (rounded) of every surviving weapon system, of
    the hull (its hull and Crippled figure, and the hull left) and moves at most 2\" (a
    dreadnought's still warps); it is one Size smaller, keeps the shields and Command, and has
    Impulse, Trans and Landing. The drive section keeps the ship's id, the rest, its warp speed
    and its other abilities, less Saucer."""
    sd = ship.sd
    lost_keys = set(ship.spent)
    main_s, main_d = [], []
    for i, w in enumerate(sd.main):
        if f"main{i}" in lost_keys:
            continue
        a = _third(w.count)
        if a:
            main_s.append(replace(w, count=a))
        if w.count - a:
            main_d.append(replace(w, count=w.count - a))
    hull_s, crip_s = max(1, _third(sd.hull)), _third(sd.crippled_at)
    left_s = max(1, min(hull_s, _third(ship.hull)))
    warp = sd.ship_class.value == "BB"
    saucer_sd = replace(sd, key=f"{sd.key}_saucer", name=f"{sd.name} – saucer", speed=sd.speed if warp else
                        min(sd.speed or 0, 2), target_size=min(5, sd.target_size + 1), hull=hull_s,
                        crippled_at=min(crip_s, hull_s - 1), ac=0, ac_capacity=0,
                        special_abilities=("Warp", "Impulse", "Trans", "Landing") if warp else ("Impulse", "Trans", "Landing"),
                        main=tuple(main_s), secondary=_third(sd.secondary), close_defence=_third(sd.close_defence))
    drive_sd = replace(sd, key=f"{sd.key}_drive", name=f"{sd.name} – drive section", hull=max(1, sd.hull - hull_s),
                       crippled_at=max(0, min(sd.crippled_at - crip_s, sd.hull - hull_s - 1)),
                       special_abilities=tuple(a for a in ship.abilities if a.lower() != "saucer"),
                       main=tuple(main_d), secondary=sd.secondary - _third(sd.secondary),
                       close_defence=sd.close_defence - _third(sd.close_defence))
    new_id = max(s.id for s in state.ships) + 1
    saucer = replace(ship, id=new_id, sd=saucer_sd, pos=advance(ship.pos, ship.heading, -1.0), hull=left_s,
                     crits=(0, 0, 0), lost=(), vital_lost=(), spent=(), flagship=False, tractor=None, moved=True,
                     special="", special_tried="", extra_specials=(), engaged=(), exchanged=ship.exchanged)
    drive = replace(ship, sd=drive_sd, hull=max(1, ship.hull - left_s), lost=(), vital_lost=(), spent=())
    state = with_ship(state, drive)
    state = replace(state, ships=state.ships + (saucer,))
    ctx.log("saucer", f"{sd.name} ({ship.id}) separates: the saucer is ship {new_id} (hull {left_s}), the drive "
            f"section keeps hull {drive.hull} ({SAUCER_RULE})", ship=ship.id, saucer=new_id)
    return state


def _overwatch(state: BattleState, ship: Ship, action: str, ctx: _Ctx) -> tuple[BattleState, bool]:
    """7.2 'Use The Force, Luke!': an enemy ship in overwatch negates one successful Special
    Action later that turn — the first on its side's standing list (ruling BZ45)."""
    for mystic in state.enemy_ships(ship.side):  # any enemy side's mystic (ruling BZ83)
        if mystic.overwatch and action in state.orders_of(mystic.side).negate:
            state = with_ship(state, replace(mystic, overwatch=False))
            ctx.log("negated", f"{mystic.name} ({mystic.id}) uses the Force: {ship.name} ({ship.id})'s {action} is "
                    f"negated ({FORCE_RULE})", ship=mystic.id, target=ship.id, action=action)
            return state, False
    return state, True


def _gone_this_turn(state: BattleState, ship: Ship, ctx: _Ctx) -> BattleState:
    state = replace(with_ship(state, ship), nominated=None)
    state = replace(state, torpedoes=tuple(t for t in state.torpedoes if t.target != ship.id))
    return _after_nomination(state, ship.side, ctx)


def _ram(state: BattleState, ship: Ship, target: Ship, ctx: _Ctx) -> BattleState:
    """7.2 Ramming Speed!: the rammer is destroyed, the ramee immediately crippled, its hull
    reduced to its Crippled figure; neither explodes. Ruling BZ31: a ramee that can never be
    crippled (Crippled figure 0) is destroyed; one already crippled suffers nothing more."""
    ship = replace(ship, status=DESTROYED, moved=True)
    ctx.log("destroyed", f"{ship.name} ({ship.id}) rams {target.name} ({target.id}) and is destroyed "
            "(000 7.2 Ramming Speed!)", ship=ship.id, target=target.id)
    state = with_ship(state, ship)
    if target.sd.crippled_at == 0:
        state = _lose_hull(state, target.id, target.hull, ctx)
    elif not target.crippled:
        state = with_ship(state, replace(target, hull=min(target.hull, target.sd.crippled_at)))
        state = _cripple(state, target.id, ctx)
    return _gone_this_turn(state, state.ship(ship.id), ctx)


def _do_move(state: BattleState, action: A.Move, ctx: _Ctx) -> BattleState:
    ship = state.ship(action.ship)
    w, h = state.table
    start = pos = ship.pos
    heading = ship.heading
    legs = []
    left = False
    if action.orbit is not None:
        return _do_orbit(state, ship, action, ctx)
    home_table = state.table_of(start)
    if action.before:
        pos = advance(pos, heading, action.before)
        legs.append((start, pos))
        left = left or state.table_of(pos) != home_table
    heading = norm(heading + turn_degrees(action.turn))
    if action.after:
        end = advance(pos, heading, action.after)
        legs.append((pos, end))
        pos = end
        left = left or state.table_of(pos) != home_table
    heading = norm(heading + turn_degrees(action.turn_end))
    moved = action.before + action.after
    if action.lay_mine:
        state = _lay_mine(state, ship, ctx)
        ship = state.ship(ship.id)
    ship = replace(ship, pos=pos, heading=heading, moved=True, moved_inches=moved, sweeping=action.sweep,
                   shields_lowered=ship.shields_lowered or action.lower_shields, weaving=action.web)
    text = (f"{ship.name} ({ship.id}) moves {moved:g}\" (turning {action.turn:+d}"
            + (f", {action.turn_end:+d}" if action.turn_end else "") + f") to ({pos[0]:g}, {pos[1]:g}) heading "
            f"{heading:g}")
    if left and ship.hyperspace:
        left = False  # 11.8: it must drop out onto the table next turn, or it has left (checked then)
    to_table = _transit_to(state, ship, home_table, legs) if left else None
    if to_table is not None:
        entry = (to_table * state.pitch + (0.0 if to_table > home_table else w), min(max(pos[1], 0.0), float(h)))
        entry = (round(entry[0], 4), round(entry[1], 4))
        ship = replace(ship, status=TRANSIT, pos=entry, emerge=state.turn + TRANSIT_TURNS + 1)
        text += f"; it leaves for table {to_table + 1}: in transit, it emerges on turn {ship.emerge} ({MULTI_RULE})"
        left = False
        transit = True
    else:
        transit = False
    if left:
        ship = replace(ship, status=LEFT)
        text += f"; it leaves the table and the battle ({LEAVE_RULE})"
    ctx.log("move", text, ship=ship.id, pos=list(pos), heading=heading, left=left, transit=transit)
    state = replace(with_ship(state, ship), nominated=None)
    if ship.tractor is not None and ship.tractor[1] == "tow":
        towed = state.ship(ship.tractor[0])
        if towed.active:
            dx, dy = pos[0] - start[0], pos[1] - start[1]
            tpos = (round(towed.pos[0] + dx, 4), round(towed.pos[1] + dy, 4))
            towed = replace(towed, pos=tpos, status=towed.status if state.table_of(tpos) == state.table_of(towed.pos)
                            else LEFT)
            state = with_ship(state, towed)
            ctx.log("towed", f"{towed.name} ({towed.id}) is towed to ({tpos[0]:g}, {tpos[1]:g})", ship=towed.id)
    if left or transit:
        state = replace(state, torpedoes=tuple(t for t in state.torpedoes if t.target != ship.id))
    crossed = [f for f in state.minefields if f.id not in ship_new_fields(state, ship)
               and any(segment_crosses_rect(a, b, f.centre, f.heading, f.length, f.width) for a, b in legs)]
    if crossed and not ship.hyperspace:
        state = _through_mines(state, ship.id, crossed, moved, action.sweep, ctx)
    if action.web and state.ship(ship.id).active:
        state = _spin_web(state, state.ship(ship.id), ctx)
    return _after_nomination(state, ship.side, ctx, ship.id)


# --- 9.0 orbits, 7.3 Tholian webs, 10.2 lurking, 11.5 rotation ---------------------------------

ORBIT_RULE = "000 9.0 Celestial Objects & Sensors (orbits)"
ORBIT_REACH, ORBIT_STEP = 1.0, 0.5  # 9.0 "within 1\" of a moon or planet … moving ½\" around it each turn"
WEB_RULE = "000 7.3 Tholian Web"
WEB_LENGTH = 6.0  # ruling BZ54: a web spans at most 6" between its anchors
WEB_HOLD = 0.5  # ruling BZ54: an anchoring ship that moves more than ½" from its end breaks the web
LURK_RULE = "000 10.2 Deployment (lurking)"
ROTATION_RULE = "000 11.5 Planetary / Base Rotation"
ROTATION_STEP = 0.5  # 11.5 "We suggest ½\" a turn"


MULTI_RULE = "000 11.3 Using Multi-Tables"
TRANSIT_TURNS = 2  # 11.3: "leaves it's table on turn 1 and spends turn 2 and 3 'in transit', then emerges upon turn 4"


def _transit_to(state: BattleState, ship: Ship, home: int | None, legs) -> int | None:
    """11.3 (ruling BZ82): a Warp (or Hyperspace) capable ship, not breaking contact, that leaves
    its table by its east or west edge where a neighbouring table lies goes there in transit."""
    if state.tables < 2 or home is None or ship.hyperspace or C.breaking(state, ship.side):
        return None
    if not (has(ship.abilities, "Warp") or has(ship.abilities, "Hyperspace")):
        return None
    w, h = state.table
    x0 = home * state.pitch
    for a, b in legs:
        for p in (a, b):
            if not -EPSILON <= p[1] <= h + EPSILON:
                return None  # off the north or south edge first: it has left
            if p[0] > x0 + w + EPSILON:
                return home + 1 if home + 1 < state.tables else None
            if p[0] < x0 - EPSILON:
                return home - 1 if home >= 1 else None
    return None


def _emerge(state: BattleState, turn: int, ctx: _Ctx) -> BattleState:
    """11.3: ships in transit emerge onto their new table at the start of the turn they arrive."""
    for ship in state.ships:
        if ship.status == TRANSIT and ship.emerge <= turn:
            state = with_ship(state, replace(ship, status=ACTIVE, emerge=0))
            ctx.log("transit", f"{ship.name} ({ship.id}) emerges on table {state.table_of(ship.pos) + 1} at "
                    f"({ship.pos[0]:g}, {ship.pos[1]:g}) ({MULTI_RULE})", ship=ship.id, table=state.table_of(ship.pos))
    return state


def _body(state: BattleState, body_id: object):
    return next((o for o in state.objects if o.id == body_id and o.kind in MASSES), None)


def orbit_problem(state: BattleState, ship: Ship, action: A.Move) -> str | None:
    """9.0 (ruling BZ57): a ship within 1\" of a planet's or moon's surface may be declared in
    orbit: its whole move is ½\" counter-clockwise around the body's centre, at its distance."""
    body = _body(state, action.orbit)
    if body is None:
        return f"{action.orbit!r} is not a planet or moon on the table"
    if action.before or action.after or action.turn or action.turn_end or action.lay_mine or action.sweep:
        return "a ship in orbit moves ½\" around its planet or moon and makes no other move"
    if ship.sd.speed is None or ship.held or ship.landed or ship.hyperspace or allowance(ship) < ORBIT_STEP - EPSILON:
        return f"{ship.name} ({ship.id}) cannot move into orbit (a base, dead in space, held by a tractor beam, " \
               "landed or in hyperspace)"
    if distance(ship.pos, body.centre) - body.radius > ORBIT_REACH + EPSILON:
        return f"{ship.name} ({ship.id}) is not within 1\" of {body.kind} {body.id}"
    return None


def _orbit_end(state: BattleState, ship: Ship, body_id: int):
    body = _body(state, body_id)
    pos, turned = around(ship.pos, body.centre, ORBIT_STEP)
    return pos, norm(ship.heading + turned)


def _legs(ship: Ship, m: A.Move) -> list:
    """The straight legs a move travels (an orbit's ½\" arc as its chord)."""
    legs = []
    pos = ship.pos
    if m.before:
        nxt = advance(pos, ship.heading, m.before)
        legs.append((pos, nxt))
        pos = nxt
    if m.after:
        legs.append((pos, advance(pos, norm(ship.heading + turn_degrees(m.turn)), m.after)))
    return legs


def web_block(state: BattleState, legs) -> str | None:
    """7.3 "Webs cannot be moved through" (ruling BZ54: by any ship or AC counter, either side's)."""
    for web in state.webs:
        for a, b in legs:
            if segments_cross(a, b, web.a, web.b):
                return f"a Tholian web (web {web.id}) cannot be moved through"
    return None


def _anchor(state: BattleState, ship: Ship) -> int:
    """A web's end anchors to an asteroid field the ship's end lies in, else to the ship (7.3)."""
    for o in state.objects:
        if o.kind == "asteroids" and distance(ship.pos, o.centre) <= o.radius + EPSILON:
            return -o.id
    return ship.id


def _spin_web(state: BattleState, ship: Ship, ctx: _Ctx) -> BattleState:
    """7.3 (ruling BZ54): "laid by at least two Tholian ships moving as if laying a minefield":
    a ship that moves spinning a web, and ends within 6\" of a ship of its side that moved
    spinning one earlier this turn, completes a web between their two positions."""
    partners = [s for s in state.active_ships(ship.side) if s.id != ship.id and s.weaving
                and distance(s.pos, ship.pos) <= WEB_LENGTH + EPSILON]
    if not partners:
        ctx.log("web", f"{ship.name} ({ship.id}) spins a web strand: a second web-layer within 6\" must join it "
                f"this turn ({WEB_RULE})", ship=ship.id, web=None)
        return state
    partner = min(partners, key=lambda s: (distance(s.pos, ship.pos), s.id))
    web = Web(max((w.id for w in state.webs), default=0) + 1, ship.side, partner.pos, ship.pos,
              (_anchor(state, partner), _anchor(state, ship)))
    ctx.log("web", f"{partner.name} ({partner.id}) and {ship.name} ({ship.id}) complete Tholian web {web.id} "
            f"({WEB_RULE})", ship=ship.id, partner=partner.id, web=web.id, a=list(web.a), b=list(web.b))
    return replace(state, webs=state.webs + (web,))


def _webs_hold(state: BattleState, ctx: _Ctx) -> BattleState:
    """End Phase (ruling BZ54): a web holds while each end is anchored to an asteroid field, or to
    its ship, still in the battle and within ½\" of that end."""
    keep = []
    for web in state.webs:
        ok = True
        for anchor, end in zip(web.anchors, (web.a, web.b)):
            if anchor < 0:
                continue
            s = state.ship(anchor)
            if not s.active or distance(s.pos, end) > WEB_HOLD + EPSILON:
                ok = False
        if ok:
            keep.append(web)
        else:
            ctx.log("web_gone", f"Tholian web {web.id} has lost an anchor and collapses ({WEB_RULE})", web=web.id)
    return replace(state, webs=tuple(keep)) if len(keep) != len(state.webs) else state


def _do_orbit(state: BattleState, ship: Ship, action: A.Move, ctx: _Ctx) -> BattleState:
    pos, heading = _orbit_end(state, ship, action.orbit)
    ship = replace(ship, pos=pos, heading=heading, moved=True, moved_inches=ORBIT_STEP,
                   shields_lowered=ship.shields_lowered or action.lower_shields)
    ctx.log("move", f"{ship.name} ({ship.id}) orbits body {action.orbit}: ½\" to ({pos[0]:g}, {pos[1]:g}) heading "
            f"{heading:g} ({ORBIT_RULE})", ship=ship.id, pos=list(pos), heading=heading, orbit=action.orbit, left=False)
    state = replace(with_ship(state, ship), nominated=None)
    return _after_nomination(state, ship.side, ctx, ship.id)


def _rotate(state: BattleState, ctx: _Ctx) -> BattleState:
    """11.5 (an option, ruling BZ58): in the End Phase every base (Speed N/A) and landed ship
    within 1\" of a planet or moon turns ½\" around it, and every moon ½\" around its planet."""
    if not state.rotation:
        return state
    planets = [o for o in state.objects if o.kind == "planet"]
    for ship in state.ships:
        if not ship.active or not (ship.sd.speed is None or ship.landed):
            continue
        body = min((o for o in state.objects if o.kind in MASSES
                    and distance(ship.pos, o.centre) - o.radius <= ORBIT_REACH + EPSILON),
                   key=lambda o: (distance(ship.pos, o.centre) - o.radius, o.id), default=None)
        if body is None:
            continue
        pos, turned = around(ship.pos, body.centre, ROTATION_STEP)
        state = with_ship(state, replace(ship, pos=pos, heading=norm(ship.heading + turned)))
        ctx.log("rotation", f"{ship.name} ({ship.id}) turns with {body.kind} {body.id} to ({pos[0]:g}, {pos[1]:g}) "
                f"({ROTATION_RULE})", ship=ship.id, pos=list(pos))
    if planets:
        objects = []
        for o in state.objects:
            if o.kind == "moon":
                planet = min(planets, key=lambda p: (distance(o.centre, p.centre), p.id))
                o = replace(o, centre=around(o.centre, planet.centre, ROTATION_STEP)[0])
            objects.append(o)
        state = replace(state, objects=tuple(objects))
    return state


def _check_reveal(state: BattleState, action: A.Reveal) -> None:
    if state.phase != MOVEMENT:
        raise IllegalActionError(LURK_RULE, "lurking ships are revealed at the start of a Movement Phase")
    ship = state.ship(action.ship)
    if ship.status != LURKING:
        raise IllegalActionError(LURK_RULE, f"{ship.name} ({ship.id}) is not lurking")
    if ship.side != state.acting:
        raise IllegalActionError(TURN_RULE, f"it is side {state.acting}'s turn to nominate, not side {ship.side}'s")
    if C.breaking(state, ship.side):
        raise IllegalActionError(C.LURK_RULE, f"{ship.name} ({ship.id}) lurks under a 'break contact' order: it has "
                                 "broken contact (ruling BZ52)")
    if state.nominated is not None or (state.squadron_next and ship.id not in state.squadron_next):
        raise IllegalActionError(TURN_RULE, "another ship is being nominated now")
    if ship.moved:
        raise IllegalActionError(LURK_RULE, f"{ship.name} ({ship.id}) has been nominated this turn")
    at, heading = action.at, action.heading
    if not (isinstance(at, tuple) and len(at) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                          and math.isfinite(v) for v in at)):
        raise IllegalActionError(LURK_RULE, f"'at' must be a point (x, y) in inches, not {at!r}")
    if not isinstance(heading, (int, float)) or isinstance(heading, bool) or not math.isfinite(heading):
        raise IllegalActionError(LURK_RULE, f"'heading' must be degrees, not {heading!r}")
    rect = state.zone_rect(ship.zone) if ship.zone is not None else None
    if rect is None or not (rect[0] - EPSILON <= at[0] <= rect[2] + EPSILON and rect[1] - EPSILON <= at[1] <= rect[3] + EPSILON):
        raise IllegalActionError(LURK_RULE, f"{ship.name} ({ship.id}) is revealed within its square {list(ship.zone)}")


def _do_reveal(state: BattleState, action: A.Reveal, ctx: _Ctx) -> BattleState:
    """10.2 (ruling BZ53): placed where its player wishes in its square, cloaked; it has been
    nominated to move and moves now (revealing is its Special Action for the turn)."""
    ship = state.ship(action.ship)
    at = (round(float(action.at[0]), 4), round(float(action.at[1]), 4))
    ship = replace(ship, status=ACTIVE, pos=at, heading=norm(float(action.heading)), zone=None, cloaked=True,
                   detected=False, special_tried="reveal")
    ctx.log("reveal", f"{ship.name} ({ship.id}) is revealed, cloaked, at ({at[0]:g}, {at[1]:g}) ({LURK_RULE})",
            ship=ship.id, pos=list(at))
    return replace(with_ship(state, ship), nominated=ship.id)


def _check_lurk(state: BattleState, action: A.Lurk) -> None:
    if state.phase != MOVEMENT:
        raise IllegalActionError(LURK_RULE, "a ship is nominated to lurk in the Movement Phase")
    ship = state.ship(action.ship)
    if ship.status == LURKING:
        _check_reveal(state, A.Reveal(ship.id, ship.pos))  # the same nomination checks
        return
    ship = _own_ship(state, action.ship, HYPER_RULE)
    if not ship.hyperspace:
        raise IllegalActionError(LURK_RULE, f"{ship.name} ({ship.id}) is on the table: once revealed a cloaked "
                                 "vessel may not return to lurking (10.2)")
    if state.nominated is not None and state.nominated != ship.id:
        raise IllegalActionError(SPECIAL_RULE, f"ship {state.nominated} must move now")
    if ship.moved:
        raise IllegalActionError(MOVE_RULE, f"{ship.name} ({ship.id}) may only be nominated to move once each turn")


def _do_lurk(state: BattleState, action: A.Lurk, ctx: _Ctx) -> BattleState:
    ship = state.ship(action.ship)
    if ship.status == LURKING:
        ctx.log("lurk", f"Side {ship.side}'s lurking ship {ship.id} stays hidden ({LURK_RULE})", ship=ship.id)
        state = with_ship(state, replace(ship, moved=True))
    else:
        ctx.log("lurk", f"{ship.name} ({ship.id}) lurks stationary in hyperspace ({HYPER_RULE})", ship=ship.id)
        state = with_ship(state, replace(ship, moved=True, moved_inches=0.0, hyper_lurk=True))
    return _after_nomination(replace(state, nominated=None), ship.side, ctx)


def lurk_options(state: BattleState, ship: Ship) -> list[A.Action]:
    """Stay hidden; or reveal at the centre of its square, or at the point of the square nearest
    the nearest enemy, bow toward it (a representative list; ``apply`` takes any point in it)."""
    out: list[A.Action] = [A.Lurk(ship.id)]
    x0, y0, x1, y1 = state.zone_rect(ship.zone)
    centre = (round((x0 + x1) / 2, 4), round((y0 + y1) / 2, 4))
    enemies = state.enemy_ships(ship.side)
    if enemies:
        e = min(enemies, key=lambda e: (distance(centre, e.pos), e.id))
        near = (min(max(e.pos[0], x0), x1), min(max(e.pos[1], y0), y1))
        for at in (centre, near):
            out.append(A.Reveal(ship.id, at, round(bearing(at, e.pos), 4) if distance(at, e.pos) > 1e-6 else 0.0))
    else:
        out.append(A.Reveal(ship.id, centre, 0.0))
    return out


def orbit_options(state: BattleState, ship: Ship) -> list[A.Move]:
    out = []
    for o in state.objects:
        m = A.Move(ship.id, orbit=o.id)
        if o.kind in MASSES and orbit_problem(state, ship, m) is None:
            out.append(m)
    return out


def ship_new_fields(state: BattleState, ship: Ship) -> frozenset[int]:
    """The mine the ship laid in this very move is behind it (ruling BZ33)."""
    return frozenset(f.id for f in state.minefields if f.id == -ship.id * 1000 - state.turn)


def _lay_mine(state: BattleState, ship: Ship, ctx: _Ctx) -> BattleState:
    """A 1\" by ½\" notional mine, its long side across the ship's heading, just astern of it."""
    pursuit = pursuit_mine_ready(ship)
    centre = advance(ship.pos, ship.heading, -0.5)
    field = Minefield(-ship.id * 1000 - state.turn, ship.side, centre, ship.heading)
    if pursuit:
        ship = replace(ship, spent=ship.spent + ("pursuit_mine",))
    else:
        ship = replace(ship, mines=ship.mines - 1)
    ctx.log("mine_laid", f"{ship.name} ({ship.id}) lays {'a Pursuit Mine' if pursuit else 'a mine'} at "
            f"({centre[0]:g}, {centre[1]:g}) ({MINE_RULE})", ship=ship.id, field=field.id, pursuit=pursuit)
    return replace(with_ship(state, ship), minefields=state.minefields + (field,))


def _through_mines(state: BattleState, ship_id: int, fields, moved: float, sweep: bool, ctx: _Ctx) -> BattleState:
    """5.10: sweep them (a Minesweeper at 2\" or less), or a D6 for each field passed through,
    +1 per row, +1 if moving more than 3\": 4+ hits a mine, three torpedo dice (5.9)."""
    if sweep:
        ids = {f.id for f in fields}
        ctx.log("mines_swept", f"Ship {ship_id} sweeps {len(ids)} minefield(s) ({MINE_RULE})", ship=ship_id,
                fields=sorted(ids))
        return replace(state, minefields=tuple(f for f in state.minefields if f.id not in ids))
    for f in fields:
        ship = state.ship(ship_id)
        if not ship.active:
            break
        face = ctx.roll(1, f"{MINE_RULE}: ship {ship_id} through minefield {f.id}")[0]
        score = face + f.rows + (1 if moved > MINE_FAST + EPSILON else 0)
        hit = score >= MINE_HIT
        ctx.log("minefield", f"{ship.name} ({ship_id}) moves through a minefield: {face}+{score - face} = {score}"
                f"{': it hits a mine' if hit else ''}", ship=ship_id, field=f.id, score=score, hit=hit)
        if not hit:
            continue
        faces = ctx.roll(3, f"{MINE_RULE}: mine hit on {ship_id}")
        hits = torpedo_hits(faces, "mine", ship.sd.target_size)
        ctx.log("mine_attack", f"Mine attack dice {list(faces)} against Size {ship.sd.target_size}: {hits} hit(s)",
                ship=ship_id, faces=list(faces), hits=hits)
        ahead = advance(ship.pos, ship.heading, 1.0)  # ruling BZ33: its fore shields meet the mine
        state = damage(state, ship_id, hits, ahead, ctx)
    return state


def _do_fire(state: BattleState, action: A.Fire, ctx: _Ctx) -> BattleState:
    ship = state.ship(action.ship)
    by_key = {s.key: s for s in systems(ship)}
    spent = set(ship.spent)
    if not action.shots:
        ctx.log("fire", f"{ship.name} ({ship.id}) holds its fire", ship=ship.id)
    for key, _target, _dice in action.shots:
        if one_shot(ship.abilities) or one_shot(ship.sd.special_abilities):
            spent.add(key)
    reveal = ship.cloaked and bool(action.shots)  # 7.3 Klingon Cloaked Firing: "Doing this 'reveals' them"
    state = with_ship(state, replace(ship, fired=True, spent=tuple(sorted(spent)), cloaked=ship.cloaked and not reveal,
                                     fired_keys=tuple(dict.fromkeys(k for k, _t, _d in action.shots))))
    state = replace(state, nominated=None)
    if action.board is not None:
        state = replace(state, boardings=state.boardings + ((ship.id, action.board),))
        target = state.ship(action.board)
        ctx.log("board", f"{ship.name} ({ship.id}) beams a boarding party across to {target.name} ({target.id})",
                ship=ship.id, target=target.id)
    for key, target_id, dice in action.shots:
        system = by_key[key]
        shooter = state.ship(ship.id)
        target = state.ship(target_id)
        if not shooter.active:
            break
        if not target.active:
            ctx.log("shot_lost", f"{system.name} ({key}): {target.name} ({target.id}) is already gone", ship=ship.id,
                    weapon=key, target=target.id)
            continue
        if not eligible(state, shooter, system, target):
            ctx.log("shot_lost", f"{system.name} ({key}) at {target.name} ({target.id}): out of arc or range, the "
                    f"shot is lost ({TARGET_RULE}: 'Get it wrong \u2018buy\u2019 happens!')", ship=ship.id, weapon=key,
                    target=target.id, range=inches(shooter.pos, target.pos))
            continue
        if system.banks:
            bearing_banks, all_banks = system.bearing_share(arcs_of(shooter.pos, shooter.heading, target.pos))
            if bearing_banks < all_banks:
                share = round_half_up(dice * bearing_banks / all_banks)
                ctx.log("banks", f"{system.name} ({key}): {bearing_banks} of its {all_banks} banks bear on "
                        f"{target.name} ({target.id}): {share} of {dice} dice ({TARGET_RULE})", ship=ship.id,
                        weapon=key, dice=share, declared=dice)
                dice = share
                if not dice:
                    continue
        if system.torpedo:
            rng = inches(shooter.pos, target.pos)
            torps = tuple(Torpedo(shooter.id, shooter.side, target.id, system.torpedo, shooter.pos, rng)
                          for _ in range(dice))
            state = replace(state, torpedoes=state.torpedoes + torps)
            ctx.log("torpedo", f"{shooter.name} ({shooter.id}) launches {dice} {system.torpedo} torpedo(es) at "
                    f"{target.name} ({target.id}), {rng}\" away", ship=ship.id, target=target.id, count=dice,
                    kind=system.torpedo)
            continue
        state = _beam_attack(state, shooter, system, target, dice, ctx)
    return _after_nomination(state, ship.side, ctx, ship.id)


def hit_modifier(state: BattleState, shooter: Ship, target: Ship) -> int:
    """5.5: −1 per 2\" (or part) beyond 2\"; −1 fast moving target; +1 dead in space."""
    rng = inches(shooter.pos, target.pos)
    mod = -((rng - 2 + 1) // 2) if rng > 2 else 0
    if target.moved_inches > FAST_TARGET + EPSILON:
        mod -= 1
    if dead_in_space(target) or target.landed:
        mod += 1  # 5.5 "Target Dead in space or located upon celestial body +1"
    if target.cloaked:
        mod -= 1
    if shooter.sd.speed is None:
        mod += 1  # 11.2: bases are stable fire platforms, +1 to all accuracy scores at 5.5
    if inhibited(state, shooter, target.pos) and not has(shooter.abilities, "Advanced Sensors"):
        mod -= 1  # 9.1 attacks inside or through asteroid fields and nebulae; 9.2 Advanced Sensors ignore it
    return mod


def _hits(faces: Iterable[int], need: int, mod: int) -> int:
    """Natural 1 always misses, natural 6 always hits (5.5, 5.9)."""
    return sum(1 for f in faces if f != 1 and (f == 6 or f + mod >= need))


def _evasive_rerolls(ctx: _Ctx, shooter: Ship, target: Ship, hits: int, need: int, mod: int, what: str) -> int:
    """7.2 Evasive!: hits on an evading ship, and hits an evading ship makes, are re-rolled."""
    if hits and (target.uses("evasive") or shooter.uses("evasive")):
        faces = ctx.roll(hits, f"{'000 7.2 Evasive!'}: re-roll {what} hits")
        new = _hits(faces, need, mod)
        ctx.log("evasive", f"Evasive: {hits} hit(s) re-rolled, {new} stand", hits=new)
        return new
    return hits


def _beam_attack(state: BattleState, shooter: Ship, system: WeaponSystem, target: Ship, dice: int,
                 ctx: _Ctx) -> BattleState:
    mod = hit_modifier(state, shooter, target)
    faces = ctx.roll(dice, f"{HIT_RULE}: {shooter.id} {system.key} at {target.id}")
    hits = _hits(faces, target.sd.target_size, mod)
    ctx.log("attack", f"{shooter.name} ({shooter.id}) fires {system.name} ({dice} dice) at {target.name} "
            f"({target.id}): {list(faces)} modifier {mod:+d} needing {target.sd.target_size}: {hits} hit(s)",
            ship=shooter.id, target=target.id, weapon=system.key, faces=list(faces), modifier=mod, hits=hits)
    hits = _evasive_rerolls(ctx, shooter, target, hits, target.sd.target_size, mod, "beam")
    if hits and has(target.abilities, "Adaption") and shooter.id in target.exchanged:
        again = ctx.roll(hits, f"000 7.3 Borg Adaption: {target.id} re-rolls {shooter.id}'s hits")
        new = _hits(again, target.sd.target_size, mod)
        ctx.log("adaption", f"{target.name} ({target.id}) adapts: {hits} hit(s) re-rolled, {new} stand", ship=target.id,
                hits=new)
        hits = new
    state = with_ship(state, replace(shooter, engaged=tuple(dict.fromkeys(shooter.engaged + (target.id,)))))
    target = state.ship(target.id)
    state = with_ship(state, replace(target, engaged=tuple(dict.fromkeys(target.engaged + (shooter.id,)))))
    drained = has(shooter.abilities, "Shield Drain")
    return damage(state, target.id, hits, shooter.pos, ctx, secondary=system.group == SECONDARY, drained=drained)


def damage(state: BattleState, target_id: int, hits: int, from_pos, ctx: _Ctx, secondary: bool = False,
           drained: bool = False, penalty: int = 0) -> BattleState:
    """5.6: a D6 per hit; it goes through if it equals or beats the current shields (Secondary
    −1, plasma range ``penalty``, SWWOBS +1); each that beats them is checked for a critical hit
    (4+); then crippling (5.7) and critical effects (5.8)."""
    target = state.ship(target_id)
    if hits <= 0 or not target.active:
        return state
    shields = shields_facing(target, from_pos, drained)
    mod = -penalty - (1 if secondary else 0) + (1 if has(target.sd.special_abilities, "SWWOBS") else 0)
    faces = ctx.roll(hits, f"{EFFECT_RULE}: damage on {target.id}")
    through = sum(1 for f in faces if f + mod >= shields)
    beats = sum(1 for f in faces if f + mod > shields)
    ctx.log("damage", f"{target.name} ({target.id}) shields {shields}: damage dice {list(faces)} modifier {mod:+d}: "
            f"{through} go through", ship=target.id, shields=shields, faces=list(faces), through=through,
            beats=beats)
    state = _lose_hull(state, target.id, through, ctx)
    target = state.ship(target_id)
    if not target.active or beats == 0:
        return state
    checks = ctx.roll(beats, f"{EFFECT_RULE}: critical check on {target.id}")
    crits = sum(1 for f in checks if f >= CRIT_CHECK)
    if crits:
        ctx.log("critical_check", f"{crits} critical hit(s) on {target.name} ({target.id})", ship=target.id,
                crits=crits, faces=list(checks))
    for _ in range(crits):
        if not state.ship(target_id).active:
            break
        state = _critical(state, target_id, ctx)
    return state


def _lose_hull(state: BattleState, target_id: int, points: int, ctx: _Ctx) -> BattleState:
    target = state.ship(target_id)
    if points <= 0 or not target.active:
        return state
    hull = max(0, target.hull - points)
    target = replace(target, hull=hull)
    if hull == 0:
        ctx.log("destroyed", f"{target.name} ({target.id}) is destroyed ({EFFECT_RULE})", ship=target.id)
        state = with_ship(state, replace(target, status=DESTROYED))
        return replace(state, torpedoes=tuple(t for t in state.torpedoes if t.target != target.id))
    state = with_ship(state, target)
    if not target.crippled and target.sd.crippled_at > 0 and hull <= target.sd.crippled_at:
        state = _cripple(state, target.id, ctx)
    return state


def _cripple(state: BattleState, target_id: int, ctx: _Ctx) -> BattleState:
    """5.7: crippled for the rest of the game; a D6 for every Special Ability, lost on a 4+
    (those marked * are never lost)."""
    target = state.ship(target_id)
    losable = [a for a in target.abilities if a.lower() not in _NEGATIVE]
    lost = []
    if losable:
        faces = ctx.roll(len(losable), f"{CRIPPLE_RULE}: special abilities of {target.id}")
        lost = [a for a, f in zip(losable, faces) if f >= CRIPPLE_LOSS]
    ctx.log("crippled", f"{target.name} ({target.id}) is crippled" + (f"; loses {', '.join(lost)}" if lost else ""),
            ship=target.id, lost=lost)
    if target.cloaked:
        ctx.log("decloak", f"{target.name} ({target.id})'s cloak fails ({CRIPPLE_RULE} (5))", ship=target.id)
    return with_ship(state, replace(target, crippled=True, lost=target.lost + tuple(lost), cloaked=False))


_NEGATIVE = frozenset({"1 shot only", "one-shot", "swwobs"})


def _add_crit(state: BattleState, target_id: int, kind: str, ctx: _Ctx) -> BattleState:
    target = state.ship(target_id)
    i = CRITS.index(kind)
    crits = tuple(c + 1 if j == i else c for j, c in enumerate(target.crits))
    ctx.log("critical", f"{target.name} ({target.id}): Critical {kind.title()} ({CRIT_RULE})", ship=target.id,
            effect=kind)
    cloaked = target.cloaked and kind != SHIELDS  # 5.8 (3) "Cloaked ships can also no longer cloak"
    return with_ship(state, replace(target, crits=crits, cloaked=cloaked))


def _critical(state: BattleState, target_id: int, ctx: _Ctx) -> BattleState:
    """5.8's table (ruling BZ12 for result 4's re-roll)."""
    face = ctx.roll(1, f"{CRIT_RULE}: table for {target_id}")[0]
    if face == 4:
        again = ctx.roll(1, f"{CRIT_RULE}: critical fire / leak re-roll for {target_id}")[0]
        if again == 4:
            ctx.log("critical", "Critical Fire: lucky break, the safety back-ups kick in", ship=target_id, effect=None)
            return state
        face = again
    if face == 2 and state.ship(target_id).sd.speed is None:
        ctx.log("critical", f"Critical Motive on a base counts as a hull hit ({BASE_RULE})", ship=target_id,
                effect="hull")
        return _lose_hull(state, target_id, 1, ctx)
    if face in (1, 2, 3):
        return _add_crit(state, target_id, CRITS[face - 1], ctx)
    if face == 5:
        return _vital_fire(state, target_id, ctx)
    return _vital_system(state, target_id, ctx)


def _vital_fire(state: BattleState, target_id: int, ctx: _Ctx) -> BattleState:
    a, b = ctx.roll(2, f"{CRIT_RULE}: Vital Fire! on {target_id}")
    target = state.ship(target_id)
    if a == b:
        ctx.log("terminal_explosion", f"Vital Fire! doubles ({a},{b}): {target.name} ({target.id}) disintegrates",
                ship=target.id)
        state = with_ship(state, replace(target, status=DESTROYED))
        state = replace(state, torpedoes=tuple(t for t in state.torpedoes if t.target != target.id))
        return explode(state, target.id, ctx)
    choice = state.orders_of(target.side).vital_fire
    if choice not in (1, 2, 6):
        choice = 6 if _losable(target) else 2  # ruling BZ13
    ctx.log("vital_fire", f"Vital Fire! ({a},{b}) on {target.name} ({target.id}) counts as {choice}",
            ship=target.id, counts_as=choice)
    if choice == 6:
        return _vital_system(state, target_id, ctx)
    return _add_crit(state, target_id, CRITS[choice - 1], ctx)


def _losable(ship: Ship) -> list[str]:
    return [a for a in ship.abilities if a.lower() not in _NEGATIVE]


def _vital_system(state: BattleState, target_id: int, ctx: _Ctx) -> BattleState:
    target = state.ship(target_id)
    losable = _losable(target)
    if not losable:
        ctx.log("vital_system", f"Vital System hit on {target.name} ({target.id}): nothing left to lose, 2 more hull",
                ship=target.id, lost=None)
        return _lose_hull(state, target_id, 2, ctx)
    preference = state.orders_of(target.side).ability_loss or DEFAULT_LOSS
    pick = next((a for p in preference for a in losable if a.lower() == p.lower()), losable[-1])
    ctx.log("vital_system", f"Vital System hit: {target.name} ({target.id}) loses {pick}", ship=target.id, lost=pick)
    return with_ship(state, replace(target, lost=target.lost + (pick,), vital_lost=target.vital_lost + (pick,)))


def explode(state: BattleState, exploder_id: int, ctx: _Ctx) -> BattleState:
    """11.6: each ship within 1\" takes 1D6 hits (2D6 if the exploder is Size 0 or 1, none if 4 or 5)."""
    ex = state.ship(exploder_id)
    size = ex.sd.target_size
    if size >= 4:
        return state
    for other in state.ships:
        if other.id == ex.id or not other.active or inches(ex.pos, other.pos) > 1:
            continue
        n = sum(ctx.roll(2 if size <= 1 else 1, f"{EXPLOSION_RULE}: hits on {other.id}"))
        ctx.log("explosion", f"{other.name} ({other.id}) is caught in the explosion: {n} hit(s)", ship=other.id, hits=n)
        state = damage(state, other.id, n, ex.pos, ctx)
    return state


# --- End Phase -------------------------------------------------------------------------------

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
    ships = tuple(replace(s, moved=False, weaving=False, fired=False, fired_keys=(), sweeping=False, extra_specials=(), extra_tries=0,
                          overwatch=False, burnt=s.burnt or s.uses("engine_doubling"),
                          exchanged=tuple(sorted(set(s.exchanged) | set(s.engaged))), engaged=(), moved_inches=0.0, special="", special_tried="",
                          shields_lowered=False, detected=False, searched=False) if s.active or s.status in (LURKING, TRANSIT)
                  else s for s in state.ships)
    state = replace(state, ships=ships, torpedoes=())
    if state.cam is not None:
        state = C.end_phase(state, ctx)
    return _check_over(state, ctx)


def _aegis_points(ship: Ship) -> int:
    points = 0 if ship.cloaked else close_defence(ship)
    if ship.uses("point_defence") and "secondary" not in ship.fired_keys:
        points += halve(ship.sd.secondary, int(ship.crippled) + ship.crit(ARMAMENT))  # 7.2 Point Defence!
    return points


def _intercept(state: BattleState, defender: Ship, torps: list[Torpedo], intercepted: set[int], ctx: _Ctx) -> None:
    stoppable = [t for t in torps if t.kind in INTERCEPTABLE and id(t) not in intercepted]
    points = _aegis_points(defender)
    if not stoppable or not points:
        return
    share = [points // len(stoppable) + (1 if i < points % len(stoppable) else 0) for i in range(len(stoppable))]
    for t, n in zip(stoppable, share):
        if n == 0:
            continue
        faces = ctx.roll(n, f"000 5.9 'Aegis' Point Defence: {defender.id} against a {t.kind} at {t.target}")
        if any(f >= AEGIS_TARGET for f in faces):
            intercepted.add(id(t))
            ctx.log("aegis", f"{defender.name} ({defender.id}) intercepts a {t.kind} torpedo aimed at {t.target}",
                    ship=defender.id, target=t.target, kind=t.kind)


def _resolve_torpedoes(state: BattleState, ctx: _Ctx) -> BattleState:
    """5.9: Aegis intercepts first — each target with its own Close Defence, then friendly ships
    within 2\" that have not fired theirs in support of another (8.5; ruling BZ14) — then 3
    attack dice per torpedo (2 from AC) hitting on 3+ less the target size, +1 plasma and drones."""
    if not state.torpedoes:
        return state
    intercepted: set[int] = set()
    targets = [state.ship(tid) for tid in dict.fromkeys(t.target for t in state.torpedoes)]
    targets = [t for t in targets if t.active]
    for target in targets:
        _intercept(state, target, [t for t in state.torpedoes if t.target == target.id], intercepted, ctx)
    supported: set[int] = {t.id for t in targets}
    for target in targets:
        for friend in state.active_ships(target.side):
            if friend.id in supported or inches(friend.pos, target.pos) > CD_SUPPORT_RANGE:
                continue
            torps = [t for t in state.torpedoes if t.target == target.id]
            if any(t.kind in INTERCEPTABLE and id(t) not in intercepted for t in torps):
                supported.add(friend.id)
                _intercept(state, friend, torps, intercepted, ctx)
    survivors = [t for t in state.torpedoes if id(t) not in intercepted and state.ship(t.target).active
                 and not state.ship(t.target).uses("ecm")]  # 7.2 ECM! (ruling BZ95)
    for t in survivors:
        target = state.ship(t.target)
        if not target.active:
            continue
        evading = target.uses("evasive") or (not t.from_ac and state.ship(t.shooter).uses("evasive"))
        mod = (1 if t.kind in GUIDED else 0) - target.sd.target_size
        faces = ctx.roll(2 if t.from_ac else 3, f"{TORP_RULE}: {t.kind} torpedo at {t.target}")
        hits = torpedo_hits(faces, t.kind, target.sd.target_size)
        ctx.log("torpedo_attack", f"{t.kind.title()} torpedo at {target.name} ({target.id}): {list(faces)} modifier "
                f"{mod:+d}: {hits} hit(s)", ship=None if t.from_ac else t.shooter, flight=t.shooter if t.from_ac else None,
                target=t.target, faces=list(faces), hits=hits)
        if hits and evading:
            again = ctx.roll(hits, f"000 7.2 Evasive!: re-roll torpedo hits on {t.target}")
            hits = torpedo_hits(again, t.kind, target.sd.target_size)
            ctx.log("evasive", f"Evasive: torpedo hits re-rolled, {hits} stand", hits=hits)
        penalty = max(0, t.range_inches - 5) if t.kind == "plasma" else 0
        state = damage(state, t.target, hits, t.launched_from, ctx, penalty=penalty)
    return state


def torpedo_hits(faces: Iterable[int], kind: str, target_size: int) -> int:
    """5.9: a hit on 3+ after deducting the target size, +1 for plasma and drones; a natural 1
    misses, a natural 6 hits. Ruling BZ15: the 5.9 sidebar's worked example counts "net 1, 2, 4.
    Two hits!", which the text's 3+ makes one hit; the text governs."""
    guide = 1 if kind in GUIDED else 0
    return sum(1 for f in faces if f != 1 and (f == 6 or f + guide - target_size >= TORP_TO_HIT))


def _repair_vital(state: BattleState, ship: Ship, ctx: _Ctx) -> BattleState:
    """7.2 Red Alert!: "A 'Vital' hit may be repaired instead but no modifier is given – except to
    a 'Superior crew'" (ruling BZ22: only once no critical effect is left; the last ability lost
    to a Vital hit comes back)."""
    ability = ship.vital_lost[-1]
    bonus = 1 if ship.sd.command >= 3 else 0
    face = ctx.roll(1, f"{DC_RULE}: {ship.id} repairs the Vital hit on {ability} (Red Alert)")[0]
    ok = face + ship.sd.command + bonus >= DAMAGE_CONTROL_TARGET
    ctx.log("repair", f"{ship.name} ({ship.id}) damage control on the Vital hit ({ability}): "
            f"{face}+{ship.sd.command + bonus} {'repaired' if ok else 'fails'}", ship=ship.id, effect=ability,
            success=ok)
    if not ok:
        return state
    lost = list(ship.lost)
    lost.reverse()
    lost.remove(ability)
    lost.reverse()
    return with_ship(state, replace(ship, lost=tuple(lost), vital_lost=ship.vital_lost[:-1]))


def _damage_control(state: BattleState, ctx: _Ctx) -> BattleState:
    """6.2: the Initiative holder's ships first; one critical effect per ship a turn (two with
    Research, 7.3); 1D6 + Command (+1 on Red Alert, 7.2) repairs it on 5+."""
    for side in state.order_of_play():
        for ship in state.active_ships(side):
            tries = 2 if has(ship.abilities, "Research") else 1
            for _ in range(tries):
                ship = state.ship(ship.id)
                if ship.active and not any(ship.crits) and ship.vital_lost and ship.uses("red_alert"):
                    state = _repair_vital(state, ship, ctx)
                    break
                if not ship.active or not any(ship.crits):
                    break
                kinds = [k for k in state.orders_of(side).repair_order if k in CRITS] + list(CRITS)
                kind = next(k for k in kinds if ship.crit(k) > 0)
                bonus = 1 if ship.uses("red_alert") else 0
                face = ctx.roll(1, f"{DC_RULE}: {ship.id} repairs {kind}")[0]
                cmd = command(state, ship)
                ok = face + cmd + bonus >= DAMAGE_CONTROL_TARGET
                ctx.log("repair", f"{ship.name} ({ship.id}) damage control on {kind}: {face}+{cmd + bonus} "
                        f"{'repaired' if ok else 'fails'}", ship=ship.id, effect=kind, success=ok)
                if ok:
                    i = CRITS.index(kind)
                    crits = tuple(c - 1 if j == i else c for j, c in enumerate(ship.crits))
                    state = with_ship(state, replace(ship, crits=crits))
    return state


# --- legal actions ---------------------------------------------------------------------------

def _down(x: float) -> float:
    """``x`` to 4 places, never above it (so a listed move never exceeds the allowance)."""
    return math.floor(x * 10000 + 1e-7) / 10000


def move_options(ship: Ship) -> list[A.Move]:
    """A finite, representative list of legal moves (whole inches, and the full remaining
    move; turning at the start, the middle or the end). ``apply`` accepts any legal move."""
    if ship.sd.speed is None or dead_in_space(ship) or ship.held or ship.landed:
        return [A.Move(ship.id)]
    return list(_move_table(ship.id, allowance(ship), turning(ship), agile(ship)))


@lru_cache(maxsize=4096)
def _move_table(ship_id: int, allow: float, t: int, is_agile: bool, extra: str = "") -> tuple[A.Move, ...]:
    """``move_options`` for a ship that moves: they depend only on its allowance, Turning and
    agility, so they are worked out once for each (frozen ``Move`` values, shared). ``extra``
    adds the mine-laying ("lay") and sweeping ("sweep") variants ``ship_moves`` lists."""
    if extra:
        base = _move_table(ship_id, allow, t, is_agile)
        more: list[A.Move] = []
        if "lay" in extra:
            more += [replace(m, lay_mine=True) for m in base if m.turn == 0 and not m.turn_end]
        if "sweep" in extra:
            more += [replace(m, sweep=True) for m in base if m.before + m.after <= SWEEP_SPEED + EPSILON]
        return base + tuple(more)
    template = A.Move(ship_id)
    # each a Move(ship_id, before, turn, after, turn_end), made as ``state.evolve`` makes a copy
    return tuple(replace(template, before=b, turn=tn, after=a, turn_end=te) for b, tn, a, te in _move_shapes(allow, t, is_agile))


@lru_cache(maxsize=1024)
def _move_shapes(allow: float, t: int, is_agile: bool) -> tuple[tuple[float, int, float, int], ...]:
    """(before, turn, after, turn_end) of each move in ``move_options``, whatever the ship."""
    out: list[tuple[float, int, float, int]] = []
    seen = set()

    def add(shape: tuple[float, int, float, int]) -> None:  # legal by construction (the property tests check every one)
        if shape not in seen:
            seen.add(shape)
            out.append(shape)

    ends = (-t, 0, t) if is_agile else (0,)
    for turn in range(-t, t + 1):
        for end in ends:
            room = max(0.0, allow - abs(turn) - abs(end))
            dists = sorted({float(d) for d in range(int(room + EPSILON) + 1)} | {_down(room)})
            for d in dists:
                if is_agile:
                    add((0.0, turn, d, end))
                elif turn == 0:
                    add((0.0, 0, d, 0))
                else:
                    add((0.0, turn, d, 0))
                    add((d, turn, 0.0, 0))
                    if d:
                        add((_down(d / 2), turn, _down(d / 2), 0))
    return tuple(out)


def special_options(state: BattleState, ship: Ship) -> list[A.Special]:
    """Every Special Action ``ship`` may attempt now (a ram names each enemy within reach)."""
    out: list[A.Special] = []
    for name in A.SPECIAL_ACTIONS:
        if name == "ramming":
            cands = [A.Special(ship.id, name, e.id) for e in state.enemy_ships(ship.side)]
        elif name in TRACTORS:
            cands = [A.Special(ship.id, name, e.id) for e in state.ships if e.active and e.id != ship.id
                     and inches(ship.pos, e.pos) <= TRACTOR_RANGE]
        else:
            cands = [A.Special(ship.id, name)]
        for a in cands:
            try:
                _check_special(state, a)
            except IllegalActionError:
                continue
            out.append(a)
    return out


def ship_moves(state: BattleState, ship: Ship) -> list[A.Move]:
    """``move_options`` less those a ship breaking contact may not make (CAM 3.1 a)."""
    extra = ("lay" if mine_layer_problem(ship) is None else "") + ("sweep" if has(ship.abilities, "Minesweeper") else "")
    if extra and not (ship.sd.speed is None or dead_in_space(ship) or ship.held or ship.landed):
        options = list(_move_table(ship.id, allowance(ship), turning(ship), agile(ship), extra))
    else:
        base = move_options(ship)
        options = list(base)
        if "lay" in extra:
            options += [replace(m, lay_mine=True) for m in base if m.turn == 0 and not m.turn_end]
        if "sweep" in extra:
            options += [replace(m, sweep=True) for m in base if m.before + m.after <= SWEEP_SPEED + EPSILON]
    if has(ship.abilities, "Web"):
        options += [replace(m, web=True) for m in move_options(ship) if m.turn == 0 and not m.turn_end]
    if state.objects:
        options += orbit_options(state, ship)
    if state.webs:
        options = [m for m in options if web_block(state, [(ship.pos, _end_of(ship, m, state))] if m.orbit is not None
                                                   else _legs(ship, m)) is None]
    if C.breaking(state, ship.side):
        options = [m for m in options if C.retreat_problem(state, ship, m) is None]
    if len(squadron(state, ship)) > 1:
        options = [m for m in options if formation_problem(state, ship, _end_of(ship, m, state)) is None]
    return options


def fire_options(state: BattleState, ship: Ship) -> list[A.Fire]:
    """Waive; every eligible system at each target; and each system at its nearest eligible
    target (a representative list; ``apply`` accepts any legal Fire)."""
    out = [A.Fire(ship.id, ())]
    syss = [s for s in systems(ship) if system_dice(ship, s) > 0]
    enemies = list(state.enemy_ships(ship.side))
    for e in enemies:
        shots = tuple((s.key, e.id, system_dice(ship, s)) for s in syss if eligible(state, ship, s, e))
        if shots:
            out.append(A.Fire(ship.id, shots))
    spread = []
    for s in syss:
        cands = [e for e in enemies if eligible(state, ship, s, e)]
        if cands:
            e = min(cands, key=lambda e: (distance(ship.pos, e.pos), e.id))
            spread.append((s.key, e.id, system_dice(ship, s)))
    if spread and A.Fire(ship.id, tuple(spread)) not in out:
        out.append(A.Fire(ship.id, tuple(spread)))
    for e in enemies:
        try:
            _check_board(state, ship, e.id)
        except IllegalActionError:
            continue
        out.append(A.Fire(ship.id, (), board=e.id))
    return out


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


FIELD_HELD, CONTACT_BROKEN, MUTUAL_DESTRUCTION, TURN_CAP = "field held", "contact broken", "mutual destruction", "turn cap"


def ending(state: BattleState) -> str | None:
    """How an ended battle ended (rulings BZ17, BZ61): all table contact broken (a CAM scenario,
    CAM 3.0), one side holding the field, mutual destruction (no ship of either side left on the
    table), or undecided at the turn cap."""
    if not state.over:
        return None
    if state.cam is not None and state.cam.battle.contact_broken:
        return CONTACT_BROKEN
    alive = {s.side for s in state.ships if s.active}
    if not alive:
        return MUTUAL_DESTRUCTION
    return FIELD_HELD if len(alive) == 1 else TURN_CAP


def outcome(state: BattleState) -> Outcome:
    fates = tuple(ShipFate(s.id, s.side, s.status, s.sd.points, s.hull, s.crippled) for s in state.ships)
    lost = {side: sum(f.points for f in fates if f.side == side and f.fate in (DESTROYED, CAPTURED))
            for side in state.sides}
    link = state.cam
    return Outcome(state.over, state.winner, state.turn, fates, lost, link.score if link else None,
                   link.battle if link else None, ending(state))


__all__ = ["Outcome", "Resolution", "ShipFate", "agile", "allowance", "apply", "base_speed", "check", "close_defence",
           "damage", "dead_in_space", "eligible", "ending", "fire_options", "flagship", "hit_modifier", "initiative_modifier",
           "legal_actions", "move_cost_ok", "move_options", "outcome", "shields_facing", "system_dice", "systems",
           "turning"]
_ = (ACTIVE,)


# --- attack craft (4.2, 8.x) -----------------------------------------------------------------

AC_RULE = "000 4.2 Attack Craft Movement"
AC_ATTACK_RULE = "000 8.4 Attacking with ACs"
ANTI_AC_RULE = "000 8.5 Anti-AC / Close Defence Fire"
DOGFIGHT_RULE = "000 8.6 Dogfighting And CAP"
CARRIER_RULE = "000 8.3 Carrier Operations"
AC_TORP_RANGE = 2  # 5.9 "All AC Torpedoes also have a reduced range of 2\""
CD_RANGE = 2  # 8.5
CD_HIT, DODGE = 5, 5  # 8.5 "CD weapons need to roll a 5+"; "dodge … scoring a 5+"
DOGFIGHT_REACH = 1  # ruling BZ35: a fighter engages an enemy flight it ends within 1" of
MAX_AC_PER_TARGET = 3  # 8.4 "a maximum of three counters (of any type) may attack a single ship"
LAUNCH_SHARE = 0.2  # 8.3 "launch and/or recover up 20% of their flights each turn"


def _ac_slots(state: BattleState) -> list[tuple[str, int]]:
    order = phase_order(state, state.orders_of(state.initiative).ac_first)  # 4.2, ruling BZ85
    return [(t, side) for t in AC_TYPES for side in order]


def _ac_pending(state: BattleState, slot: int | None = None) -> list[Flight]:
    slots = _ac_slots(state)
    i = state.ac_slot if slot is None else slot
    if i >= len(slots):
        return []
    kind, side = slots[i]
    return [f for f in state.flights if f.flying and f.side == side and f.kind == kind and not f.moved and not f.locked]


def _next_ac_slot(state: BattleState, ctx: _Ctx, start: int) -> BattleState:
    for i in range(start, len(_ac_slots(state))):
        if _ac_pending(state, i):
            _kind, side = _ac_slots(state)[i]
            return replace(state, phase=AC_MOVEMENT, ac_slot=i, acting=side, nominated=None)
    return _advance(replace(state, phase=AC_MOVEMENT, ac_slot=len(_ac_slots(state))), ctx)


def _start_ac_movement(state: BattleState, ctx: _Ctx) -> BattleState:
    """2.2 Movement Phase 4): all AC counters move, by type, alternating in initiative order."""
    return _next_ac_slot(replace(state, acting=None), ctx, 0)


def _check_fly(state: BattleState, action: A.FlyAC) -> None:
    if state.phase != AC_MOVEMENT:
        raise IllegalActionError(AC_RULE, "AC counters move after every ship has moved")
    f = state.flight(action.flight)
    if f not in _ac_pending(state):
        kind, side = _ac_slots(state)[state.ac_slot]
        raise IllegalActionError(AC_RULE, f"side {side}'s {kind}s move now; flight {f.id} ({f.kind}, side {f.side}) "
                                 "cannot move now" + (" (locked in a dogfight, 8.6)" if f.locked else ""))
    to = action.to
    if not (isinstance(to, tuple) and len(to) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                         and math.isfinite(v) for v in to)):
        raise IllegalActionError(AC_RULE, f"'to' must be a point (x, y) in inches, not {to!r}")
    if action.home:
        if not f.offtable:
            raise IllegalActionError(CARRIER_RULE, f"flight {f.id} flies from a carrier on the table, not an off-table base")
        if action.attack is not None or action.cap or action.loiter:
            raise IllegalActionError(CARRIER_RULE, "a flight leaving for its base declares nothing else")
        if distance(to, edge_point(state, f.side, to)) > EPSILON:
            raise IllegalActionError(CARRIER_RULE, f"flight {f.id} leaves by its side's own ({state.edge(f.side)}) edge "
                                     "to reach its off-table base (ruling BZ80)")
    if state.table_of(to) is None or state.table_of(to) != state.table_of(f.pos):
        raise IllegalActionError(AC_RULE, "AC counters stay on the table (ruling BZ35; 11.3: only warp capable ships "
                                 "move between tables)")
    if state.webs and web_block(state, [(f.pos, to)]):
        raise IllegalActionError(WEB_RULE, web_block(state, [(f.pos, to)]))
    if action.loiter:
        if f.kind != SHUTTLE:
            raise IllegalActionError(PATROL_RULE, "only shuttles loiter over the table as patrol counters")
        if action.attack is not None or action.cap:
            raise IllegalActionError(PATROL_RULE, "a shuttle loitering as a patrol counter may never initiate combat")
    if distance(f.pos, to) > f.speed + 1e-3:
        raise IllegalActionError(AC_RULE, f"a {f.kind} with dogfight value {f.dogfight} moves up to {f.speed:g}\", "
                                 f"not {distance(f.pos, to):.2f}\"")
    if action.cap:
        if f.kind != FIGHTER or not f.armed:
            raise IllegalActionError(DOGFIGHT_RULE, "only armed Fighter ACs can fly CAP (8.1)")
        if action.attack is not None:
            raise IllegalActionError(DOGFIGHT_RULE, "a CAP intercepts what comes within 6\"; it declares no attack")
    if action.attack is None:
        return
    if f.patrol:
        raise IllegalActionError(PATROL_RULE, f"flight {f.id} loitered as a patrol counter and may never initiate combat")
    if not f.armed:
        raise IllegalActionError(AC_ATTACK_RULE, f"flight {f.id} has discharged its warload or dogfought and must "
                                 "return to rearm (8.1)")
    if f.kind == FIGHTER:
        enemy = next((x for x in state.flights if x.id == action.attack), None)
        if enemy is None or enemy.side == f.side or not enemy.flying:
            raise IllegalActionError(DOGFIGHT_RULE, f"a fighter attacks an enemy AC flight, not {action.attack!r}")
    else:
        target = next((x for x in state.ships if x.id == action.attack), None)
        if target is None or target.side == f.side or not target.active:
            raise IllegalActionError(AC_ATTACK_RULE, f"ship {action.attack!r} is not an enemy ship in the battle")
        if target.cloaked and not target.detected:
            raise IllegalActionError(DETECT_RULE, f"{target.name} ({target.id}) is cloaked")
        _no_attack_under_ecm(target, "the target of an attack craft run")


def _do_fly(state: BattleState, action: A.FlyAC, ctx: _Ctx) -> BattleState:
    f = state.flight(action.flight)
    to = (round(float(action.to[0]), 4), round(float(action.to[1]), 4))
    nf = replace(f, pos=to, moved=True, attack=action.attack, cap=action.cap, patrol=f.patrol or action.loiter)
    if action.home:  # 8.3 sidebar: a turn's flight back, a turn rearming, a turn flying back; enters the 4th
        nf = replace(nf, status=ABOARD, armed=False, rearm=OFFTABLE_TURNS)
        ctx.log("ac_home", f"Side {f.side}'s {f.kind} flight {f.id} leaves the table for its base ({CARRIER_RULE})",
                flight=f.id)
    state = _set_flight(state, nf)
    ctx.log("ac_move", f"Side {f.side}'s {f.kind} flight {f.id} moves to ({to[0]:g}, {to[1]:g})"
            + (f", attacking {action.attack}" if action.attack is not None else ""), flight=f.id, to=list(to),
            attack=action.attack)
    if _ac_pending(state):
        return state
    return _next_ac_slot(state, ctx, state.ac_slot + 1)


def _toward(a, b, dist: float):
    d = distance(a, b)
    if d <= dist or d < 1e-9:
        return (round(b[0], 4), round(b[1], 4))
    k = dist / d
    return (round(a[0] + (b[0] - a[0]) * k, 4), round(a[1] + (b[1] - a[1]) * k, 4))


def fly_options(state: BattleState, f: Flight) -> list[A.FlyAC]:
    """Stay; close on each enemy ship (declaring a run when it ends within 1.5\"); onto each
    enemy flight in reach (a fighter's dogfight); back toward its carrier (a representative
    list; ``apply`` accepts any legal FlyAC)."""
    out = [A.FlyAC(f.id, f.pos)]
    for e in state.enemy_ships(f.side):
        d = distance(f.pos, e.pos)
        to = _toward(f.pos, e.pos, min(f.speed, d - 1.5)) if d > 1.5 else f.pos
        can_run = (f.armed and f.kind != FIGHTER and distance(to, e.pos) <= 1.5 + 1e-6
                   and not (e.cloaked and not e.detected) and not e.uses("ecm"))
        out.append(A.FlyAC(f.id, to, e.id if can_run else None))
    if f.kind == FIGHTER and f.armed:
        out.append(A.FlyAC(f.id, f.pos, cap=True))
        for g in state.flights:
            if g.flying and g.side != f.side and distance(f.pos, g.pos) <= f.speed:
                out.append(A.FlyAC(f.id, g.pos, g.id))
    home = next((s for s in state.active_ships(f.side) if s.id == f.carrier), None)
    if home is not None:
        out.append(A.FlyAC(f.id, _toward(f.pos, home.pos, f.speed)))
    if f.offtable:
        exit_at = edge_point(state, f.side, f.pos)
        if distance(f.pos, exit_at) <= f.speed:
            out.append(A.FlyAC(f.id, exit_at, home=True))
        elif not f.armed:
            out.append(A.FlyAC(f.id, _toward(f.pos, exit_at, f.speed)))
    if f.kind == SHUTTLE and not f.patrol:
        out.append(A.FlyAC(f.id, f.pos, loiter=True))
    if f.patrol:
        out = [a for a in out if a.attack is None]
    seen, uniq = set(), []
    for a in out:
        key = (a.to, a.attack, a.cap, a.loiter, a.home)
        if key not in seen and state.table_of(a.to) == state.table_of(f.pos) is not None and not (state.webs and web_block(state, [(f.pos, a.to)])):
            seen.add(key)
            uniq.append(a)
    return uniq


PATROL_RULE = "000 8.2 Attack Craft Types (Shuttles loitering as patrol counters)"
OFFTABLE_TURNS = 4  # 8.3: "two turns flight away, in addition to the rearming time"; enters the 4th turn


def edge_point(state: BattleState, side: int, pos) -> tuple[float, float]:
    """The point of ``side``'s own edge of the table ``pos`` is on (11.3, ruling BZ92) nearest
    ``pos``."""
    x0, y0, x1, y1 = state.table_rect(state.home_table(pos))
    x, y = min(max(pos[0], x0), x1), min(max(pos[1], y0), y1)
    return {"south": (x, y0), "north": (x, y1), "west": (x0, y), "east": (x1, y)}[state.edge(side)]


def _set_flight(state: BattleState, f: Flight) -> BattleState:
    return replace(state, flights=tuple(f if x.id == f.id else x for x in state.flights))


def _on_attack_run(f: Flight) -> bool:
    return f.flying and f.armed and f.kind != FIGHTER and f.attack is not None and not f.locked


def _anti_ac(state: BattleState, ctx: _Ctx) -> BattleState:
    """8.5 (ruling BZ36): each ship's Close Defence, initiative holder's first, fires at enemy AC
    on attack runs within 2\" of it - those attacking it first, then those attacking friendly
    ships - its points shared among them as evenly as possible; 5+ hits (+1 against a shuttle);
    a hit AC dodges on 5+ (its attack aborted, it returns to rearm) or is destroyed. Never into
    a dogfight."""
    in_dogfight = _dogfight_members(state)
    for side in state.order_of_play():
        for ship in state.active_ships(side):
            points = _aegis_points(ship)  # Close Defence, and Point Defence secondaries (7.2, 8.5)
            if not points or ship.cloaked:
                continue
            runs = [f for f in state.flights if f.side != side and _on_attack_run(f) and f.id not in in_dogfight
                    and inches(ship.pos, f.pos) <= CD_RANGE]
            runs.sort(key=lambda f: (f.attack != ship.id, f.id))
            if not runs:
                continue
            share = {f.id: points // len(runs) + (1 if i < points % len(runs) else 0) for i, f in enumerate(runs)}
            for f in runs:
                f = state.flight(f.id)
                n = share[f.id]
                if not n or not _on_attack_run(f):
                    continue
                faces = ctx.roll(n, f"{ANTI_AC_RULE}: {ship.id} at flight {f.id}")
                bonus = 1 if f.kind == SHUTTLE else 0
                hits = sum(1 for x in faces if x + bonus >= CD_HIT)
                ctx.log("anti_ac", f"{ship.name} ({ship.id}) Close Defence at flight {f.id}: {list(faces)}: "
                        f"{hits} hit(s)", ship=ship.id, flight=f.id, faces=list(faces), hits=hits)
                if not hits:
                    continue
                dodge = ctx.roll(1, f"{ANTI_AC_RULE}: flight {f.id} dodges")[0]
                if dodge >= DODGE:
                    ctx.log("ac_abort", f"Flight {f.id} dodges ({dodge}): its attack is aborted, it returns to rearm",
                            flight=f.id)
                    state = _set_flight(state, replace(f, armed=False, attack=None))
                else:
                    ctx.log("ac_lost", f"Flight {f.id} fails to dodge ({dodge}) and is destroyed", flight=f.id)
                    state = _set_flight(state, replace(f, status=LOST, pos=None, attack=None))
    return state


CAP_RADIUS = 6  # 8.6 "enemy ACs coming within 6\" of them"


def _cap_intercepts(state: BattleState, ctx: _Ctx) -> BattleState:
    """8.6 (ruling BZ40): each CAP fighter, initiative holder's first, flies to engage the nearest
    enemy flight within 6\" that no CAP has engaged yet (1:1); 'extras' join the engaged one with
    the fewest CAP fighters on it. The dogfights are fought in the Attack Phase (2.2 Attack 3)."""
    engaged: dict[int, int] = {}
    for side in state.order_of_play():
        for f in [x for x in state.flights if x.side == side and x.cap]:
            f = state.flight(f.id)
            if not (f.flying and f.armed and not f.locked):
                continue
            near = [g for g in state.flights if g.flying and g.side != side and inches(f.pos, g.pos) <= CAP_RADIUS]
            if not near:
                continue
            free = [g for g in near if g.id not in engaged]
            pool = free or sorted(near, key=lambda g: engaged.get(g.id, 0))[:1]
            g = min(pool, key=lambda g: (engaged.get(g.id, 0), distance(f.pos, g.pos), g.id))
            engaged[g.id] = engaged.get(g.id, 0) + 1
            state = _set_flight(state, replace(f, pos=g.pos, attack=g.id))
            ctx.log("cap_intercept", f"CAP fighter {f.id} intercepts flight {g.id} ({DOGFIGHT_RULE})", flight=f.id,
                    target=g.id)
    return state


def _dogfight_members(state: BattleState) -> set[int]:
    out = set()
    for f in state.flights:
        if f.flying and f.kind == FIGHTER and f.attack is not None and (f.armed or f.locked):
            g = next((x for x in state.flights if x.id == f.attack), None)
            if g is not None and g.flying and g.side != f.side and inches(f.pos, g.pos) <= DOGFIGHT_REACH:
                out |= {f.id, g.id}
    return out


def _dogfights(state: BattleState, ctx: _Ctx) -> BattleState:
    """8.6: fighters engaging enemy flights; each group (joined by who attacks whom) rolls 1D6 a
    side + its best dogfight value + 1 per extra counter; the winners shoot the losers down and
    return to rearm; a draw leaves them locked in place, the dogfight continuing next turn."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    members = _dogfight_members(state)
    for f in state.flights:
        if f.id in members and f.kind == FIGHTER and f.attack in members:
            parent[find(f.id)] = find(f.attack)
    groups: dict[int, list[Flight]] = {}
    for fid in sorted(members):
        groups.setdefault(find(fid), []).append(state.flight(fid))
    for group in groups.values():
        sides = sorted({f.side for f in group}, key=lambda s: s != state.initiative)
        if len(sides) < 2:
            continue
        totals = {}
        for side in sides:
            mine = [f for f in group if f.side == side]
            face = ctx.roll(1, f"{DOGFIGHT_RULE}: side {side}'s dogfight")[0]
            totals[side] = face + max(f.dogfight for f in mine) + len(mine) - 1
        a, b = sides
        ids = [f.id for f in group]
        if totals[a] == totals[b]:
            ctx.log("dogfight", f"Dogfight {ids}: {totals[a]} all: they stay locked in place", flights=ids,
                    totals={str(k): v for k, v in totals.items()}, winner=None)
            for f in group:
                state = _set_flight(state, replace(state.flight(f.id), locked=True))
            continue
        win = a if totals[a] > totals[b] else b
        ctx.log("dogfight", f"Dogfight {ids}: side {win} wins {totals[win]} to {totals[b if win == a else a]}",
                flights=ids, totals={str(k): v for k, v in totals.items()}, winner=win)
        for f in group:
            f = state.flight(f.id)
            if f.side == win:
                state = _set_flight(state, replace(f, armed=False, attack=None, locked=False))
            else:
                state = _set_flight(state, replace(f, status=LOST, pos=None, attack=None, locked=False))
    return state


def _ac_attacks(state: BattleState, ctx: _Ctx) -> BattleState:
    """8.4, 5.9: surviving armed shuttles, then bombers, within 2\" of the ship they declared
    launch one torpedo counter each (two attack dice in the End Phase); at most three counters
    attack one ship a turn; the flight is then spent (one-shot) and returns to rearm."""
    per_target: dict[int, int] = {}
    busy = _dogfight_members(state)
    for kind in AC_TYPES:
        for side in state.order_of_play():
            for f in [x for x in state.flights if x.side == side and x.kind == kind]:
                f = state.flight(f.id)
                if not _on_attack_run(f) or f.id in busy:
                    continue
                target = state.ship(f.attack)
                rng = inches(f.pos, target.pos)
                if not target.active or rng > AC_TORP_RANGE or (target.cloaked and not target.detected) \
                        or target.uses("ecm"):  # 7.2 ECM!: no attacks on it at all (ruling BZ95)
                    ctx.log("ac_attack", f"Flight {f.id}'s run on {target.id} comes to nothing", flight=f.id,
                            target=target.id, launched=False)
                    state = _set_flight(state, replace(f, attack=None))
                    continue
                if per_target.get(target.id, 0) >= MAX_AC_PER_TARGET:
                    ctx.log("ac_attack", f"Flight {f.id} cannot get at {target.id}: three counters already attack it",
                            flight=f.id, target=target.id, launched=False)
                    state = _set_flight(state, replace(f, attack=None))
                    continue
                per_target[target.id] = per_target.get(target.id, 0) + 1
                torp = Torpedo(f.id, f.side, target.id, f.torpedo, f.pos, rng, from_ac=True)
                state = replace(state, torpedoes=state.torpedoes + (torp,))
                state = _set_flight(state, replace(f, armed=False, attack=None))
                ctx.log("ac_attack", f"Flight {f.id} ({f.kind}) launches a {f.torpedo} torpedo at {target.name} "
                        f"({target.id})", flight=f.id, target=target.id, launched=True)
    return state


def launch_rate(ship: Ship, flights: int) -> int:
    """8.3: a carrier launches and/or recovers up to 20% of its flights a turn (rounded, at least
    one, ruling BZ37); 5.8 (1) "Halve all firing factors / launch rates (if carrier)", half and
    half again per Critical Armament, rounded once (ruling BZ5; ruling BZ96)."""
    return max(1, round_half_up(flights * LAUNCH_SHARE / 2 ** ship.crit(ARMAMENT)))


def _carrier_ops(state: BattleState, ctx: _Ctx) -> BattleState:
    """8.3 in the End Phase (2.2 End Phase 6): flights aboard finish rearming (a complete turn
    aboard); a Carrier that is not Crippled, not cloaked and used no Special Action this turn
    recovers spent flights within 1\" of it, then launches armed ones (its side's standing
    order), up to 20% of its flights in all, rounded, at least one (ruling BZ37). Flights aboard
    a lost carrier are lost with it."""
    flights = []
    for f in state.flights:
        carrier = None if f.offtable else state.ship(f.carrier)
        if f.status == ABOARD and carrier is not None and carrier.status in (DESTROYED, CAPTURED):
            f = replace(f, status=LOST)  # a carrier that left the table (11.7) or lurks keeps its flights
        elif f.status == ABOARD and f.rearm > 0:
            f = replace(f, rearm=f.rearm - 1, armed=f.rearm - 1 == 0)
        flights.append(replace(f, moved=False, attack=f.attack if f.locked else None, cap=False))
    state = replace(state, flights=tuple(flights))
    for f in state.flights:  # 8.3: off-table bases launch rearmed flights back onto the table
        if f.offtable and f.status == ABOARD and f.armed and f.rearm == 0 and state.orders_of(f.side).launch \
                and not (C.breaking(state, f.side) or not state.active_ships(f.side)):
            at = edge_point(state, f.side, f.pos or (state.table[0] / 2, state.table[1] / 2))
            state = _set_flight(state, replace(f, status=FLYING, pos=(round(at[0], 4), round(at[1], 4))))
            ctx.log("ac_launched", f"Side {f.side}'s {f.kind} flight {f.id} returns from its off-table base at "
                    f"({at[0]:g}, {at[1]:g}) ({CARRIER_RULE})", flight=f.id)
    for ship in state.ships:
        mine = [f for f in state.flights if f.carrier == ship.id and not f.offtable]
        if not mine or not ship.active or ship.crippled or ship.cloaked or ship.special:
            continue
        if not has(ship.abilities, "Carrier"):
            continue
        room = launch_rate(ship, len(mine))
        for f in mine:
            if room and f.flying and not f.armed and not f.locked and inches(f.pos, ship.pos) <= 1:
                state = _set_flight(state, replace(f, status=ABOARD, pos=None, rearm=1, armed=False))
                ctx.log("ac_recovered", f"{ship.name} ({ship.id}) recovers flight {f.id} ({CARRIER_RULE})",
                        ship=ship.id, flight=f.id)
                room -= 1
        if not state.orders_of(ship.side).launch:
            continue
        for f in [state.flight(x.id) for x in mine]:
            if room and f.status == ABOARD and f.armed and f.rearm == 0:
                pos = advance(ship.pos, ship.heading, 0.5)
                state = _set_flight(state, replace(f, status=FLYING, pos=pos))
                ctx.log("ac_launched", f"{ship.name} ({ship.id}) launches {f.kind} flight {f.id} ({CARRIER_RULE})",
                        ship=ship.id, flight=f.id)
                room -= 1
    return state
