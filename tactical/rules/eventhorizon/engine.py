"""The Event Horizon Quick Play tactical engine: draw a card, activate ships, resolve actions.

Rule book ``seeds/003_…``, "Event Horizon – Quick Play Star Ship Combat Rules" (everything up to
"Star Ship Design Rules") and the advanced components of "Star Ship Design Rules" / "Use of BP in
a Campaign". Project rulings: ``docs/rulings.md`` "Tactical (Event Horizon Quick Play)", TC1…,
repeated beside the code. Pure Python; dice are injected.

Entry points::

    draw_card(state, dice) -> Resolution          # the next card of the turn sequence
    apply(state, action, dice) -> Resolution      # one action (actions.py); refused -> IllegalActionError
    legal_actions(state, ship_id) -> tuple        # what apply would accept for that ship now
    is_over(state) -> bool; outcome(state) -> BattleOutcome

``apply`` checks everything before it rolls a die, so a refused action rolls nothing and changes
nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from campaign.rules.dice import Dice
from campaign.rules.eventhorizon.economy import NO_DAMAGE, Damage
from tactical.rules.kit import Resolution

from . import actions as A
from .cards import full_deck, shuffle, suit_owner
from .geometry import (
    ARC_NAMES,
    FACING_NAMES,
    FORWARD,
    STEP_TOKENS,
    TURN_TOKENS,
    Coord,
    arc_of,
    distance,
    move_cost,
    neighbours,
    range_band,
    squares_between,
    step_offset,
    turn,
)
from .state import (
    ACTIVE,
    BLACK_HOLE,
    CLOUD,
    DESTROYED,
    LANDED,
    LIFE_AUXILIARY,
    LIFE_LOST,
    LIFE_MAIN,
    PBA,
    PLANET,
    SHUTTLE_HULL,
    SHUTTLE_MOVE,
    SUN,
    WARPED_OUT,
    WEAPON_DAMAGE,
    WEAPON_RANGES,
    WORMHOLE,
    Activation,
    BattleEvent,
    BattleState,
    Boarding,
    IllegalActionError,
    LogNode,
    Planet,
    TacticalShip,
    build,
    derive,
    evolve,
    hidden_from,
    no_such_ship,
)

TURN_RULE = "003 The Turn Sequence"
DAC_RULE = "003 The Turn Sequence: Decisive Action Cards"
STORM_RULE = "003 The Turn Sequence: particle storm (Jokers)"
WARP_RULE = "003 The Turn Sequence: go to warp"
LOCK_RULE = "003 Lock On"
MOVE_RULE = "003 Movement"
FF_RULE = "003 Force Fields"
RANGE_RULE = "003 Ranges"
WEAPON_RULE = "003 Weapon Damage and Range"
PBA_RULE = "003 Weapon Damage and Range: Planetary Bombardment Array"
HIT_RULE = "003 Hit Locations"
BOARD_RULE = "003 Boarding Parties Rules"
SENSOR_RULE = "003 Sensor Information"
STEALTH_RULE = "003 Stealth Fields"
SHUTTLE_RULE = "003 Shuttle Craft"
ANOMALY_RULE = "003 Spatial Anomalies"
ADVANCED_RULE = "003 Star Ship Design Rules: Advanced Ship Components"

LOCK_TARGET = 4  # "Each score of 4, 5 or 6"
# Hit location table, top to bottom as printed; "move up the chart" goes towards index 0.
HULL, ENGINE, WEAPONS, FF_GENERATOR, SENSORS, LIFE_SUPPORT, POWER, CORE_BREACH = range(8)
LOCATION_NAMES = ("hull", "engine", "weapons", "force field generator", "sensors & targeting",
                  "life support", "all power", "engine core breach")
PBA_BACKLASH_DAMAGE = 4
SHOCK_WAVE_DAMAGE = 5
SHOCK_WAVE_RANGE = 3


class _Log:
    """Collects a step's events and threads them onto the state's persistent log."""

    def __init__(self) -> None:
        self.events: list[BattleEvent] = []

    def add(self, kind: str, text: str, sides: tuple[int, ...] = (), public: bool = True, **data) -> None:
        self.events.append(build(BattleEvent, {"kind": kind, "text": text, "data": data, "sides": sides,
                                               "public": public}))

    def finish(self, state: BattleState, fresh: bool = False) -> Resolution:
        """``fresh``: ``state`` was made by this step and nobody else holds it yet, so its log
        can be set in place (saves copying the state once more per action)."""
        node = state.history
        length = node.length if node else 0
        for e in self.events:
            length += 1
            node = build(LogNode, {"event": e, "previous": node, "length": length})
        events = tuple(self.events)
        if fresh:
            state.__dict__["history"] = node
            return build(Resolution, {"state": state, "events": events})
        return build(Resolution, {"state": derive(state, {"history": node}), "events": events})


def _with_ship(state: BattleState, ship: TacticalShip) -> BattleState:
    sid = ship.id
    ships = state.ships
    for i, s in enumerate(ships):
        if s.id == sid:
            if s is ship:
                return state  # unchanged (every value is frozen)
            listed = list(ships)
            listed[i] = ship
            ships = tuple(listed)
            break
    new = derive(state, {"ships": ships})
    # Carry the old state's look-ups over where this one ship's change cannot alter them.
    cached = state.__dict__
    index = cached.get("_index")
    if index is not None:
        old = index.get(sid)
        fresh = new.__dict__
        index = index.copy()
        index[sid] = ship
        fresh["_index"] = index
        if old is not None and old.status == ship.status:
            if old.side == ship.side and old.shuttle == ship.shuttle and "combat_sides" in cached:
                fresh["combat_sides"] = cached["combat_sides"]
            if old.pos == ship.pos and "occupied" in cached:
                fresh["occupied"] = cached["occupied"]
    return new


def _terrain(state: BattleState, c: Coord) -> str | None:
    kind = state.field.terrain.get(c)
    if kind == PLANET and state.planet_at(c) is None and any(c in p.squares for p in state.planets):
        return None  # a destroyed planet leaves empty space (ruling TC13)
    return kind


# --- the turn sequence ---------------------------------------------------------------------

def combat_sides(state: BattleState) -> frozenset[int]:
    """Sides with a ship (not a shuttle) still in play, on the table, hidden or landed."""
    return state.combat_sides


def is_over(state: BattleState) -> bool:
    """Over when at most one side has ships (shuttles do not count) in play, or when the card
    cap has been reached and the last card is played out (ruling TC23)."""
    if len(combat_sides(state)) <= 1:
        return True
    return state.cards_drawn >= state.card_cap and state.activation is None and state.activations_left == 0


def draw_card(state: BattleState, dice: Dice) -> Resolution:
    """Draw the next card ("take turns drawing a card"); reshuffle the whole deck with the dice
    when it has run out."""
    if is_over(state):
        raise IllegalActionError(TURN_RULE, "the battle is over; no more cards are drawn")
    if state.activation is not None or state.activations_left > 0:
        raise IllegalActionError(
            TURN_RULE, f"the {state.card.label if state.card else ''} card is still in play: side "
            f"{state.acting_side} may activate {state.activations_left} more ship(s), or pass")
    log = _Log()
    deck, discard, reshuffles = state.deck, state.discard, state.reshuffles
    if not deck:
        deck = shuffle(full_deck(), dice)
        discard = ()
        reshuffles += 1
        log.add("reshuffle", "The deck ran out and is reshuffled.", reshuffles=reshuffles)
    card, deck = deck[0], deck[1:]
    discard = discard + (card,)
    state = derive(state, {"deck": deck, "discard": discard, "card": card, "reshuffles": reshuffles,
                           "cards_drawn": state.cards_drawn + 1, "acting_side": None, "activations_left": 0,
                           "activated": ()})
    if card.is_joker:
        storm = not state.storm
        ships = state.ships
        if storm:
            # "forces all vessels to disengage their stealth fields automatically"
            ships = tuple(evolve(s, stealth_engaged=False) if s.stealth_engaged else s for s in ships)
        state = evolve(state, storm=storm, ships=ships)
        log.add("card", f"Joker: the particle storm {'begins' if storm else 'ceases'}.", card=card.label,
                storm=storm)
        return log.finish(state)
    side = suit_owner(state.sides, card)
    available = [s for s in state.ships_of(side)] if side is not None else []
    if not available:
        log.add("card", f"{card.label}: no fleet to activate.", card=card.label, side=side)
        return log.finish(state)
    count = min(card.activations, len(available))
    state = derive(state, {"acting_side": side, "activations_left": count})
    log.add("card", f"{card.label}: side {side} may activate {count} ship(s).", card=card.label, side=side,
            activations=count)
    return log.finish(state)


def _need_acting(state: BattleState, side: int) -> None:
    if state.acting_side is None or state.activations_left <= 0:
        raise IllegalActionError(TURN_RULE, f"acting out of turn: no card lets side {side} activate a ship now "
                                 "(draw a card)")
    if side != state.acting_side:
        raise IllegalActionError(
            TURN_RULE,
            f"acting out of turn: the card drawn ({state.card.label if state.card else '-'}) is side "
            f"{state.acting_side}'s, not side {side}'s",
        )


def _activated(state: BattleState, ship_id: int, kind: str | None) -> TacticalShip:
    """The activated ship for an action of ``kind``; checks the three-action limit and order."""
    ship = state.ship(ship_id)
    act = state.activation
    if act is None or act.ship != ship_id:
        if state.acting_side is not None and ship.side != state.acting_side:
            raise IllegalActionError(TURN_RULE, f"ship {ship_id} is side {ship.side}'s, not the acting side "
                                     f"{state.acting_side}'s")
        what = f"ship {act.ship} is activated" if act else "no ship is activated"
        raise IllegalActionError(TURN_RULE, f"ship {ship_id} is not the activated ship ({what})")
    if kind is None:
        return ship
    used = len(act.actions) + (1 if act.boarding_due else 0)
    if used >= A.ACTIONS_PER_ACTIVATION:
        extra = " (one goes on the compulsory boarding action)" if act.boarding_due else ""
        raise IllegalActionError(TURN_RULE, f"ship {ship_id} has used its three actions{extra}")
    if kind in act.actions:
        raise IllegalActionError(TURN_RULE, f"ship {ship_id} has already taken the {kind.replace('_', ' ')} "
                                 "action this activation (ruling TC4)")
    if kind in A.KIND_ORDER:
        later = [k for k in act.actions if A.KIND_ORDER.get(k, -1) > A.KIND_ORDER[kind]]
        if later:
            raise IllegalActionError(TURN_RULE, f"actions are taken in the rule book's order: {kind.replace('_', ' ')} "
                                     f"cannot follow {later[0].replace('_', ' ')} (ruling TC4)")
    if ship.status == ACTIVE and not ship.power and kind != A.RESTORE_POWER:
        raise IllegalActionError(HIT_RULE, f"ship {ship_id} has lost all power: it is helpless until power is "
                                 "restored")
    if ship.status == LANDED and kind not in (A.RESTORE_POWER, A.REGENERATE, A.MOVE):
        raise IllegalActionError(ANOMALY_RULE, f"ship {ship_id} has landed: it may only launch, restore "
                                 "power or regenerate (ruling TC14)")
    return ship


def _took(state: BattleState, kind: str) -> BattleState:
    act = state.activation
    return derive(state, {"activation": build(Activation, {
        "ship": act.ship, "actions": act.actions + (kind,), "boarding_due": act.boarding_due,
        "resolved_boarding": act.resolved_boarding})})


def _boarding_due(state: BattleState, ship_id: int) -> bool:
    return any(b.boarder == ship_id or b.target == ship_id for b in state.boardings)


# --- apply ---------------------------------------------------------------------------------

def apply(state: BattleState, action: A.Action, dice: Dice) -> Resolution:
    """Validate and resolve one action. Refused actions raise IllegalActionError naming the rule
    and the reason, before any die is rolled."""
    if is_over(state) and not isinstance(action, A.EndActivation):
        raise IllegalActionError(TURN_RULE, "the battle is over")
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise IllegalActionError(TURN_RULE, f"{action!r} is not a tactical action")
    resolve = handler(state, action)  # validation only; returns the resolver
    log = _Log()
    new_state = resolve(dice, log)
    return log.finish(new_state, fresh=new_state is not state)


def check(state: BattleState, action: A.Action) -> None:
    """Raise IllegalActionError if ``apply`` would refuse ``action`` (rolls nothing)."""
    if is_over(state) and not isinstance(action, A.EndActivation):
        raise IllegalActionError(TURN_RULE, "the battle is over")
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise IllegalActionError(TURN_RULE, f"{action!r} is not a tactical action")
    handler(state, action)


def _h_activate(state: BattleState, action: A.Activate):
    ship = state.ship(action.ship)
    _need_acting(state, ship.side)
    if state.activation is not None:
        raise IllegalActionError(
            TURN_RULE, f"ship {state.activation.ship} is still activated: end its activation first"
        )
    if not ship.in_play:
        raise IllegalActionError(TURN_RULE, f"ship {ship.id} is out of play ({ship.status})")
    if state.card is not None and state.card.is_dac and ship.id in state.activated:
        raise IllegalActionError(DAC_RULE, f"consecutive activation of the same ship is not permissible "
                                 f"when using DACs: ship {ship.id} has already acted on this card")
    if action.evasive is not None and not isinstance(action.evasive, bool):
        raise IllegalActionError(LOCK_RULE, f"evasive must be true, false or null, not {action.evasive!r}")

    def resolve(dice: Dice, log: _Log) -> BattleState:
        s = ship
        if action.evasive is not None and action.evasive != s.evasive:
            s = evolve(s, evasive=action.evasive)
            log.add("evasive", f"Ship {s.id} {'begins' if s.evasive else 'stops'} evasive manoeuvres.",
                    ship=s.id, evasive=s.evasive)
        st = _with_ship(state, s)
        log.add("activate", f"Side {s.side} activates ship {s.id}.", ship=s.id, side=s.side)
        return derive(st, {"activation": Activation(ship=s.id, boarding_due=_boarding_due(st, s.id))})

    return resolve


def _h_end(state: BattleState, action: A.EndActivation):
    _activated(state, action.ship, None)

    def resolve(dice: Dice, log: _Log) -> BattleState:
        st = _resolve_due_boardings(state, action.ship, dice, log)
        left = st.activations_left - 1
        changes = {"activation": None, "activations_left": left, "activated": st.activated + (action.ship,)}
        if left <= 0:
            changes["acting_side"] = None
            changes["activations_left"] = 0
        st = derive(st, changes)
        log.add("end_activation", f"Ship {action.ship}'s activation ends.", ship=action.ship)
        return st

    return resolve


def _h_pass(state: BattleState, action: A.Pass):
    _need_acting(state, action.side)
    if state.activation is not None:
        raise IllegalActionError(TURN_RULE, f"ship {state.activation.ship} is activated: end its activation first")

    def resolve(dice: Dice, log: _Log) -> BattleState:
        log.add("pass", f"Side {action.side} activates no more ships for this card.", side=action.side)
        return derive(state, {"acting_side": None, "activations_left": 0})

    return resolve


def _restore_target(ship: TacticalShip) -> int:
    return 4 if (ship.hero_crew or ship.design.ai_supercomputer) else 5


def _h_restore(state: BattleState, action: A.RestorePower):
    ship = _activated(state, action.ship, A.RESTORE_POWER)
    if ship.power:
        raise IllegalActionError(HIT_RULE, f"ship {ship.id} has not lost power: there is nothing to restore")

    def resolve(dice: Dice, log: _Log) -> BattleState:
        need = _restore_target(ship)
        face = dice.roll(1, 6, f"{HIT_RULE}: 19 restore power (ship {ship.id})").faces[0]
        ok = face >= need
        st = _took(state, A.RESTORE_POWER)
        if ok:
            st = _with_ship(st, evolve(ship, power=True))
        log.add("restore_power", f"Ship {ship.id} {'restores' if ok else 'fails to restore'} power "
                f"({face}, needs {need}+).", ship=ship.id, roll=face, needed=need, restored=ok)
        return st

    return resolve


def _regen_target(ship: TacticalShip) -> int:
    if ship.hero_crew or ship.design.ai_supercomputer or ship.design.improved_force_fields:
        return 4
    return 5


def _h_regenerate(state: BattleState, action: A.Regenerate):
    ship = _activated(state, action.ship, A.REGENERATE)
    lost = [(arc, ship.ff_strength - ship.force_fields[arc]) for arc in range(4)
            if ship.generators[arc] and ship.force_fields[arc] < ship.ff_strength]
    hull_lost = ship.design.hull - ship.hull if (ship.design.nanobot_skin and not ship.shuttle) else 0
    if not lost and hull_lost <= 0:
        raise IllegalActionError(FF_RULE, f"ship {ship.id} has no damaged force field with a working generator"
                                 + (" and no hull damage for its nanobot skin" if ship.design.nanobot_skin else ""))

    def resolve(dice: Dice, log: _Log) -> BattleState:
        need = _regen_target(ship)
        fields = list(ship.force_fields)
        rolled = {}
        for arc, n in lost:
            faces = dice.roll(n, 6, f"{FF_RULE}: regenerate {ARC_NAMES[arc]} (ship {ship.id})").faces
            fields[arc] += sum(1 for f in faces if f >= need)
            rolled[ARC_NAMES[arc]] = list(faces)
        hull = ship.hull
        if hull_lost > 0:
            # Nanobot Skin: "regenerate damage like a force field on 5 or 6" (ruling TC21).
            faces = dice.roll(hull_lost, 6, f"{ADVANCED_RULE}: nanobot skin (ship {ship.id})").faces
            hull += sum(1 for f in faces if f >= 5)
            rolled["hull"] = list(faces)
        new = evolve(ship, force_fields=tuple(fields), hull=hull)
        log.add("regenerate", f"Ship {ship.id} regenerates: force fields {list(new.force_fields)}, hull {hull}.",
                ship=ship.id, needed=need, rolls=rolled, force_fields=list(new.force_fields), hull=hull)
        return _with_ship(_took(state, A.REGENERATE), new)

    return resolve


def _in_cloud(state: BattleState, c: Coord) -> bool:
    return bool(state.field.terrain) and _terrain(state, c) == CLOUD


def _lines(state: BattleState) -> dict:
    """The state's cache of lines of fire (they depend on the table and its planets only)."""
    lines = state.__dict__.get("_lines")
    if lines is None:
        lines = state.__dict__["_lines"] = {}
    return lines


def _line_blocked(state: BattleState, a: Coord, b: Coord) -> tuple[Coord, str] | None:
    """The anomaly a line from a to b passes through, if it cannot pass ("Ships cannot shoot
    through … a square that contains a spatial anomaly"; ruling TC8 for lines between squares)."""
    if not state.field.terrain:
        return None
    lines = _lines(state)
    key = (a, b)
    if key in lines:
        return lines[key]
    out = None
    for step in squares_between(a, b):
        kinds = [_terrain(state, c) for c in step]
        if all(kinds):
            out = step[0], kinds[0]
            break
    lines[key] = out
    return out


def _line_touches_cloud(state: BattleState, a: Coord, b: Coord) -> bool:
    if not state.field.terrain:
        return False
    lines = _lines(state)
    key = ("cloud", a, b)
    out = lines.get(key)
    if out is None:
        out = lines[key] = (_in_cloud(state, a) or _in_cloud(state, b)
                            or any(any(_in_cloud(state, c) for c in step) for step in squares_between(a, b)))
    return out


def _visible_target(state: BattleState, target_id: object, rule: str, viewer: int) -> TacticalShip:
    """The target ship ``target_id`` named by a ship of side ``viewer``; a ship that side
    cannot see is refused as one that is not there (ruling TC29)."""
    if isinstance(target_id, bool) or not isinstance(target_id, int):
        raise IllegalActionError(rule, f"a target must be a ship id, not {target_id!r}")
    target = state.ship(target_id)
    if hidden_from(target, viewer):
        raise no_such_ship(target_id)
    if not target.in_play:
        raise IllegalActionError(rule, f"ship {target.id} is out of play ({target.status})")
    if target.status == LANDED:
        raise IllegalActionError(ANOMALY_RULE, f"ship {target.id} has landed on a planet and is off the table")
    if target.stealth_engaged:
        raise IllegalActionError(STEALTH_RULE, f"ship {target.id} is hidden by its stealth field")
    return target


def _h_scan(state: BattleState, action: A.Scan):
    ship = _activated(state, action.ship, A.SCAN)
    target = _visible_target(state, action.target, SENSOR_RULE, ship.side)
    if target.id == ship.id:
        raise IllegalActionError(SENSOR_RULE, "a ship cannot scan itself")
    if not ship.sensors:
        raise IllegalActionError(SENSOR_RULE, f"ship {ship.id}'s sensors are destroyed")
    rng = ship.sensor_range
    if _line_touches_cloud(state, ship.pos, target.pos):
        rng = 1  # "Sensor range is reduced to 1 square when looking into, through or out of a particle cloud"
    d = distance(ship.pos, target.pos)
    if d > rng:
        raise IllegalActionError(SENSOR_RULE, f"ship {target.id} is out of sensor range ({d} squares; range {rng})")

    def resolve(dice: Dice, log: _Log) -> BattleState:
        log.add("scan", f"Ship {ship.id} scans ship {target.id}.", sides=(ship.side,), public=False,
                ship=ship.id, target=target.id, systems=target.systems())
        return _took(state, A.SCAN)

    return resolve


# --- movement ------------------------------------------------------------------------------

def move_allowance(state: BattleState, ship: TacticalShip) -> int:
    """Movement points this activation: the engine rating left; 1 in a particle cloud."""
    allowance = max(ship.movement, 0)
    if _in_cloud(state, ship.pos):
        allowance = min(allowance, 1)
    return allowance


def trace_path(state: BattleState, ship: TacticalShip, path: Iterable[str], into_black_hole: bool = False
               ) -> tuple[Coord, int, str | None]:
    """Follow ``path`` from the ship: ``(final square, final facing, fate)`` where fate is
    ``"black_hole"`` when the ship is pulled in. Raises IllegalActionError for a bad path."""
    path = tuple(path)
    if not path:
        raise IllegalActionError(MOVE_RULE, "a move needs at least one step or turn")
    for t in path:
        if t not in STEP_TOKENS and t not in TURN_TOKENS:
            raise IllegalActionError(MOVE_RULE, f"unknown move {t!r}: use F, FL, FR (steps) or L, R (turns); "
                                     "ships cannot move in reverse")
    cost = move_cost(path)
    allowance = move_allowance(state, ship)
    if cost > allowance:
        why = " (particle cloud: one square per activation)" if _in_cloud(state, ship.pos) else ""
        raise IllegalActionError(MOVE_RULE, f"the move costs {cost} points; ship {ship.id} has {allowance}{why}")
    pos, facing, stopped = ship.pos, ship.facing, None
    for i, t in enumerate(path):
        if t in TURN_TOKENS:
            facing = turn(facing, t)
            continue
        if stopped:
            raise IllegalActionError(ANOMALY_RULE if stopped != "edge" else MOVE_RULE,
                                     f"movement ends on entering the {stopped} (ruling TC12)")
        dx, dy = step_offset(facing, t)
        pos = (pos[0] + dx, pos[1] + dy)
        if not state.field.on_table(pos):
            raise IllegalActionError(MOVE_RULE, f"{pos} is off the table (ruling TC10: leave by going to warp)")
        kind = _terrain(state, pos)
        if kind == BLACK_HOLE:
            if not into_black_hole:
                raise IllegalActionError(ANOMALY_RULE, f"moving into a black hole at {pos}: the ship would be pulled "
                                         "in (set into_black_hole to do it; ruling TC11)")
            if any(x in STEP_TOKENS for x in path[i + 1:]):
                raise IllegalActionError(ANOMALY_RULE, "a ship pulled into a black hole moves no further")
            return pos, facing, "black_hole"
        if kind == WORMHOLE:
            pos = state.field.wormholes.get(pos, pos)
            stopped = "wormhole"
        elif kind == CLOUD:
            stopped = "particle cloud"
    if _terrain(state, pos) == SUN:
        raise IllegalActionError(ANOMALY_RULE, f"moving into a sun at {pos}: ships may pass through but cannot end "
                                 "their movement in a sun")
    other = state.occupied.get(pos)
    if other is not None and other != ship.id and _terrain(state, pos) != PLANET:
        if not hidden_from(state.ship(other), ship.side):
            raise IllegalActionError(MOVE_RULE, f"moving into an occupied square {pos} (ship {other}): no more "
                                     "than one ship may occupy a square")
        # Ruling TC29: a ship the mover cannot see does not refuse the move; the move stops short
        # when it resolves (``_blocked_move``).
    return pos, facing, None


def _hidden_occupant(state: BattleState, ship: TacticalShip, pos: Coord) -> TacticalShip | None:
    """The ship hidden from ``ship``'s side that holds ``pos`` (planet squares hold many)."""
    other = state.occupied.get(pos)
    if other is None or other == ship.id or _terrain(state, pos) == PLANET:
        return None
    found = state.ship(other)
    return found if hidden_from(found, ship.side) else None


def _blocked_move(state: BattleState, ship: TacticalShip, path: tuple[str, ...]) -> tuple[Coord, int]:
    """Where a move whose last square holds a ship the mover cannot see ends (ruling TC29):
    the last square of its path it may end in (no other ship, not a sun), facing as it did
    there; its own square if there is none."""
    stops = [(ship.pos, ship.facing)]
    pos, facing = ship.pos, ship.facing
    for t in path:
        if t in TURN_TOKENS:
            facing = turn(facing, t)
            continue
        dx, dy = step_offset(facing, t)
        pos = (pos[0] + dx, pos[1] + dy)
        if _terrain(state, pos) == WORMHOLE:
            pos = state.field.wormholes.get(pos, pos)
        stops.append((pos, facing))
    for pos, facing in reversed(stops[:-1]):
        holder = state.occupied.get(pos)
        free = holder in (None, ship.id) or _terrain(state, pos) == PLANET
        if free and _terrain(state, pos) != SUN:
            return pos, facing
    return ship.pos, ship.facing


def _can_move(ship: TacticalShip) -> None:
    if ship.status != ACTIVE:
        raise IllegalActionError(ANOMALY_RULE, f"ship {ship.id} has landed: launch first")
    if ship.engines_destroyed:
        raise IllegalActionError(HIT_RULE, f"ship {ship.id}'s engines are destroyed")


def _h_move(state: BattleState, action: A.Move):
    ship = _activated(state, action.ship, A.MOVE)
    _can_move(ship)
    pos, facing, fate = trace_path(state, ship, action.path, action.into_black_hole)

    def resolve(dice: Dice, log: _Log) -> BattleState:
        hidden = ship.stealth_engaged
        st = _took(state, A.MOVE)
        if fate == "black_hole":
            new = evolve(ship, pos=pos, facing=facing, status=DESTROYED, fate="pulled into a black hole")
            log.add("black_hole", f"Ship {ship.id} enters the black hole at {pos} and is pulled in.", ship=ship.id,
                    to=list(pos))
            return _end_boardings_of(_with_ship(st, new), ship.id, log)
        blocker = _hidden_occupant(state, ship, pos)
        to, to_facing = _blocked_move(state, ship, tuple(action.path)) if blocker else (pos, facing)
        new = evolve(ship, pos=to, facing=to_facing)
        log.add("move", f"Ship {ship.id} moves to {to} facing {FACING_NAMES[to_facing]}.",
                sides=(ship.side,) if hidden else (), public=not hidden, ship=ship.id, path=list(action.path),
                to=list(to), facing=FACING_NAMES[to_facing])
        if blocker:
            # Told only to the mover's side and the hidden ship's: nobody else learns where it is.
            log.add("move_blocked", f"Ship {ship.id} cannot enter {pos}: something unseen is there.",
                    sides=tuple(sorted({ship.side, blocker.side})), public=False, ship=ship.id, at=list(pos))
        return _with_ship(st, new)

    return resolve


def _h_warp(state: BattleState, action: A.WarpOut):
    ship = _activated(state, action.ship, A.MOVE)
    _can_move(ship)

    def resolve(dice: Dice, log: _Log) -> BattleState:
        st = _with_ship(_took(state, A.MOVE), evolve(ship, status=WARPED_OUT, stealth_engaged=False))
        log.add("warp_out", f"Ship {ship.id} goes to warp and leaves the battle.", ship=ship.id)
        return _end_boardings_of(st, ship.id, log)

    return resolve


def blockaded(state: BattleState, planet: Planet, side: int) -> bool:
    """"placing vessels in every square adjacent to the one(s) occupied by said planet" — by
    ships not of ``side``, on the table (ruling TC15); planetary defences not yet overcome
    cannot be blockaded."""
    if planet.status == "destroyed" or (planet.defences and planet.status == "intact"):
        return False
    ring = {c for sq in planet.squares for c in neighbours(sq) if state.field.on_table(c)} - set(planet.squares)
    holders = {s.pos: s for s in state.ships if s.on_table and not s.shuttle}
    return bool(ring) and all(c in holders and holders[c].side != side for c in ring)


def _h_land(state: BattleState, action: A.Land):
    ship = _activated(state, action.ship, A.MOVE)
    _can_move(ship)
    planet = state.planet_at(ship.pos)
    if planet is None:
        raise IllegalActionError(ANOMALY_RULE, f"ship {ship.id} is not in a planet's square")
    if blockaded(state, planet, ship.side):
        raise IllegalActionError(ANOMALY_RULE, f"planet {planet.id} is blockaded: no landing")

    def resolve(dice: Dice, log: _Log) -> BattleState:
        log.add("land", f"Ship {ship.id} lands on planet {planet.id}.", ship=ship.id, planet=planet.id)
        return _with_ship(_took(state, A.MOVE), evolve(ship, status=LANDED, stealth_engaged=False))

    return resolve


def _h_launch(state: BattleState, action: A.Launch):
    ship = _activated(state, action.ship, A.MOVE)
    if ship.status != LANDED:
        raise IllegalActionError(ANOMALY_RULE, f"ship {ship.id} has not landed")
    planet = state.planet_at(ship.pos)
    if planet is not None and blockaded(state, planet, ship.side):
        raise IllegalActionError(ANOMALY_RULE, f"planet {planet.id} is blockaded: no launching")

    def resolve(dice: Dice, log: _Log) -> BattleState:
        log.add("launch", f"Ship {ship.id} launches from planet {planet.id if planet else '?'}.", ship=ship.id)
        return _with_ship(_took(state, A.MOVE), evolve(ship, status=ACTIVE))

    return resolve


def _h_engage(state: BattleState, action: A.EngageStealth):
    ship = _activated(state, action.ship, A.ENGAGE_STEALTH)
    if A.DISENGAGE_STEALTH in state.activation.actions:
        raise IllegalActionError(TURN_RULE, "engage stealth field cannot be combined in the same activation with "
                                 "disengage stealth field")
    if not ship.stealth_operable:
        raise IllegalActionError(STEALTH_RULE, f"ship {ship.id} has no operable stealth field generator")
    if state.storm:
        raise IllegalActionError(STORM_RULE, "no vessel may engage a stealth field during a particle storm")
    if ship.stealth_engaged:
        raise IllegalActionError(STEALTH_RULE, f"ship {ship.id}'s stealth field is already engaged")
    if ship.status != ACTIVE:
        raise IllegalActionError(ANOMALY_RULE, f"ship {ship.id} has landed")

    def resolve(dice: Dice, log: _Log) -> BattleState:
        log.add("stealth", f"Ship {ship.id} engages its stealth field and disappears.", ship=ship.id, engaged=True)
        return _with_ship(_took(state, A.ENGAGE_STEALTH), evolve(ship, stealth_engaged=True))

    return resolve


def _h_disengage(state: BattleState, action: A.DisengageStealth):
    ship = _activated(state, action.ship, A.DISENGAGE_STEALTH)
    if A.ENGAGE_STEALTH in state.activation.actions:
        raise IllegalActionError(TURN_RULE, "disengage stealth field cannot be combined in the same activation with "
                                 "engage stealth field")
    if not ship.stealth_engaged:
        raise IllegalActionError(STEALTH_RULE, f"ship {ship.id}'s stealth field is not engaged")

    def resolve(dice: Dice, log: _Log) -> BattleState:
        log.add("stealth", f"Ship {ship.id} disengages its stealth field at {ship.pos}.", ship=ship.id,
                engaged=False, at=list(ship.pos))
        return _with_ship(_took(state, A.DISENGAGE_STEALTH), evolve(ship, stealth_engaged=False))

    return resolve


# --- lock on and fire ----------------------------------------------------------------------

def lock_modifiers(state: BattleState, firer: TacticalShip, target: TacticalShip | None, band: str,
                   weapons: bool = True) -> list[tuple[int, str]]:
    """Every "Modifiers to the dice scores thrown to achieve a lock" that applies."""
    mods: list[tuple[int, str]] = []
    if target is not None and (not target.power or target.engines_destroyed):
        mods.append((2, "target has lost all power and/or had its engines destroyed"))
    act = state.activation
    ambush = act is not None and act.ship == firer.id and A.DISENGAGE_STEALTH in act.actions and band == "close"
    if ambush and not (target is not None and target.fighter_bay_working):
        mods.append((1, "ambush: disengaging stealth field and firing at close range"))
    if firer.hero_crew or firer.design.ai_supercomputer:
        mods.append((1, "Hero Crew or AI Supercomputer"))  # ruling TC5: +1 once, not +2 with both
    if target is not None and target.evasive:
        mods.append((-1, "target taking evasive manoeuvres"))
    if firer.evasive:
        mods.append((-1, "firing ship taking evasive manoeuvres"))
    if not firer.sensors:
        mods.append((-1, "manual lock (sensors & targeting destroyed)"))
    if weapons and target is not None and target.shuttle:
        mods.append((-1, "weapons lock on a hostile shuttlecraft"))
    if _in_cloud(state, firer.pos) or (target is not None and _in_cloud(state, target.pos)):
        mods.append((-2, "ship enveloped in a particle cloud"))  # ruling TC5: firer or target, once
    return mods


def _check_firer(ship: TacticalShip, rule: str = LOCK_RULE) -> None:
    if ship.stealth_engaged:
        raise IllegalActionError(
            STEALTH_RULE, "while in stealth mode, ships cannot attempt to get a lock on with weapons"
        )
    if ship.status != ACTIVE:
        raise IllegalActionError(ANOMALY_RULE, f"ship {ship.id} has landed")


def shot_clear(state: BattleState, firer: TacticalShip, target_pos: Coord, band: str) -> bool:
    """Whether ``_check_shot_geometry`` passes a weapon that reaches ``band`` (the range band
    of ``target_pos`` from the firer): the line of fire, particle clouds and the sensors."""
    if band == "long" and not firer.sensors:
        return False
    if not state.field.terrain:
        return True
    if _line_blocked(state, firer.pos, target_pos):
        return False
    return not (band == "long" and (_in_cloud(state, firer.pos) or _in_cloud(state, target_pos)))


def _check_shot_geometry(state: BattleState, firer: TacticalShip, target_pos: Coord, key: str, what: str) -> str:
    d = distance(firer.pos, target_pos)
    band = range_band(d)
    if band is None:
        raise IllegalActionError(RANGE_RULE, f"{what} is out of range ({d} squares; long range is 2 and 3)")
    if band not in WEAPON_RANGES[key]:
        label = key.replace("_", " ")
        reach = "long range only" if WEAPON_RANGES[key] == {"long"} else "short range only"
        raise IllegalActionError(WEAPON_RULE, f"{what} is out of range for the {label} ({band} range; {reach})")
    blocked = _line_blocked(state, firer.pos, target_pos)
    if blocked:
        raise IllegalActionError(ANOMALY_RULE, f"cannot shoot through the {blocked[1].replace('_', ' ')} at "
                                 f"{blocked[0]} at {what}")
    if band == "long" and (_in_cloud(state, firer.pos) or _in_cloud(state, target_pos)):
        raise IllegalActionError(
            ANOMALY_RULE, f"long-range fire in or out of a particle cloud is not permitted ({what})"
        )
    if band == "long" and not firer.sensors:
        raise IllegalActionError(LOCK_RULE, f"no lock on {what}: sensors destroyed, a manual lock can only be "
                                 "made at close range")
    return band


def _pba_square(state: BattleState, firer: TacticalShip, planet: Planet) -> tuple[Coord, str]:
    """The planet square the PBA can fire at: long range, forward arc, clear line."""
    last: IllegalActionError | None = None
    for sq in planet.squares:
        try:
            band = _check_shot_geometry(state, firer, sq, PBA, f"planet {planet.id}")
        except IllegalActionError as exc:
            last = exc
            continue
        if arc_of(firer.pos, firer.facing, sq) != FORWARD:
            last = IllegalActionError(RANGE_RULE, f"planet {planet.id} is not in the forward arc (PBA can only "
                                      "fire in the forward arc)")
            continue
        return sq, band
    raise last  # type: ignore[misc]


def _h_fire(state: BattleState, action: A.Fire):
    firer = _activated(state, action.ship, A.FIRE)
    _check_firer(firer)
    shots = tuple(action.shots)
    if not shots:
        raise IllegalActionError(LOCK_RULE, "fire needs at least one weapon system and target")
    counts: dict[str, int] = {}
    plan = []
    checked: dict[tuple[str, object], tuple[TacticalShip, str]] = {}  # (weapon, target) passed
    for shot in shots:
        if not (isinstance(shot, (tuple, list)) and len(shot) == 2):
            raise IllegalActionError(LOCK_RULE, f"a shot is (weapon, target), not {shot!r}")
        key, tid = shot
        if key not in WEAPON_DAMAGE:
            raise IllegalActionError(WEAPON_RULE, f"unknown weapon system {key!r}")
        counts[key] = counts.get(key, 0) + 1
        have = firer.weapons.count(key)
        if counts[key] > have:
            raise IllegalActionError(WEAPON_RULE, f"ship {firer.id} has {have} operable {key.replace('_', ' ')}(s); "
                                     "each system locks on and fires once")
        if key == PBA:
            if not isinstance(tid, str):
                raise IllegalActionError(PBA_RULE, "the planetary bombardment array fires at planets (ruling TC13)")
            planet = state.planet(tid)
            if planet.status == "destroyed":
                raise IllegalActionError(PBA_RULE, f"planet {planet.id} has been destroyed")
            if planet.owner == firer.side:
                raise IllegalActionError(PBA_RULE, f"planet {planet.id} is side {firer.side}'s own")
            sq, band = _pba_square(state, firer, planet)
            plan.append((key, planet, band))
            continue
        seen = checked.get((key, tid)) if type(tid) is int else None
        if seen is not None:  # the same weapon at the same target passed these checks already
            plan.append((key,) + seen)
            continue
        target = _visible_target(state, tid, LOCK_RULE, firer.side)
        if target.side == firer.side:
            raise IllegalActionError(LOCK_RULE, f"ship {target.id} is not hostile (it is side {target.side}'s)")
        band = _check_shot_geometry(state, firer, target.pos, key, f"ship {target.id}")
        checked[(key, tid)] = (target, band)
        plan.append((key, target, band))

    def resolve(dice: Dice, log: _Log) -> BattleState:
        st = _took(state, A.FIRE)
        hits: dict[object, list[str]] = {}
        order: list[object] = []
        # One roll per run of the same weapon at the same target ("throw 1d6 per weapon system"),
        # in the order the shots were given.
        groups: list[list] = []
        for key, target, band in plan:
            if groups and groups[-1][0] == key and groups[-1][1] is target:
                groups[-1][3] += 1
            else:
                groups.append([key, target, band, 1])
        for key, target, band, n in groups:
            is_ship = isinstance(target, TacticalShip)
            mods = lock_modifiers(st, firer, target if is_ship else None, band)
            total = sum(m for m, _ in mods)
            tname = f"ship {target.id}" if is_ship else f"planet {target.id}"
            faces = dice.roll(n, 6, f"{LOCK_RULE}: {key} of ship {firer.id} at {tname}").faces
            locked = [f + total >= LOCK_TARGET for f in faces]
            locks = sum(locked)
            log.add("lock", f"Ship {firer.id} {key.replace('_', ' ')} x{n} at {tname}: {list(faces)} {total:+d} -> "
                    f"{locks} lock(s).", ship=firer.id, weapon=key, target=target.id, rolls=list(faces),
                    modifiers=[[m, r] for m, r in mods], locked=locked, locks=locks)
            if locks:
                tkey = ("ship", target.id) if is_ship else ("planet", target.id)
                if tkey not in hits:
                    hits[tkey] = []
                    order.append(tkey)
                hits[tkey] += [key] * locks
        for tkey in order:
            kind, tid = tkey
            if kind == "planet":
                for _ in hits[tkey]:
                    st = _bombard(st, firer.id, tid, dice, log)
                continue
            st = _volley(st, firer.id, tid, hits[tkey], dice, log)
        return st

    return resolve


def best_hit_order(ff: int, damages: list[int]) -> list[int]:
    """Ruling TC17: locked hits on one target are applied in the order that lets the most
    damage through to the hit location table — first the hits that bring the force field to 0
    with the fewest points ("reduce an enemy's FF to exactly 0 whenever possible"), then the
    rest, biggest first. Returns indexes into ``damages``."""
    return list(_best_hit_order(ff, tuple(damages)))


@lru_cache(maxsize=4096)
def _best_hit_order(ff: int, damages: tuple[int, ...]) -> tuple[int, ...]:
    idx = sorted(range(len(damages)), key=lambda i: (-damages[i], i))
    if ff <= 0:
        return tuple(idx)
    best: tuple[int, int, tuple[int, ...]] | None = None
    for r in range(1, len(damages) + 1):
        for combo in combinations(idx, r):
            total = sum(damages[i] for i in combo)
            if total >= ff:
                key = (total, r, combo)
                if best is None or key[:2] < best[:2]:
                    best = key
    if best is None:
        return tuple(idx)  # everything is absorbed
    absorb = list(best[2])
    return tuple(absorb + [i for i in idx if i not in absorb])


def _volley(state: BattleState, firer_id: int, target_id: int, keys: list[str], dice: Dice, log: _Log) -> BattleState:
    firer = state.ship(firer_id)
    target = state.ship(target_id)
    arc = arc_of(target.pos, target.facing, firer.pos)
    ff = target.force_fields[arc] if (target.generators[arc] and target.power) else 0
    damages = [WEAPON_DAMAGE[k] for k in keys]
    was_shuttle = target.shuttle
    absorbed = None  # the target with the fields hits have taken down, not yet put in the state
    for i in _best_hit_order(ff, tuple(damages)):
        target = state.ship(target_id) if absorbed is None else absorbed
        if not target.in_play or target.shuttle != was_shuttle:
            log.add("hit_lost", f"Ship {target_id} is gone: the {keys[i].replace('_', ' ')} hit is lost "
                    "(ruling TC17).", ship=target_id)
            continue
        dmg = damages[i]
        value = target.force_fields[arc]
        if target.generators[arc] and target.power and value > 0:
            fields = list(target.force_fields)
            fields[arc] = max(0, value - dmg)
            absorbed = derive(target, {"force_fields": tuple(fields)})
            log.add("absorbed", f"Ship {target_id}'s {ARC_NAMES[arc]} force field absorbs {dmg} "
                    f"({value} -> {fields[arc]}).", ship=target_id, arc=ARC_NAMES[arc], damage=dmg,
                    before=value, after=fields[arc], weapon=keys[i])
            continue
        if absorbed is not None:
            state, absorbed = _with_ship(state, absorbed), None
        state = hit_location(state, target_id, dmg, firer.pos, dice, log, source=keys[i])
    if absorbed is not None:
        state = _with_ship(state, absorbed)
    return state


def hit_location(state: BattleState, ship_id: int, dmg: int, attacker_pos: Coord, dice: Dice, log: _Log,
                 source: str = "") -> BattleState:
    """"Hit Locations: Roll 1d20 per weapon hit", with "move up the chart" for a result that
    cannot be applied (ruling TC18: up = towards Hull, which always applies)."""
    ship = state.ship(ship_id)
    face = dice.roll(1, 20, f"{HIT_RULE} (ship {ship_id}, {dmg} pts)").faces[0]
    loc = _location_of(face)
    arc = arc_of(ship.pos, ship.facing, attacker_pos)
    rolled = loc
    while not _applicable(ship, loc, arc):
        loc -= 1
    stepped = f" (stepped up from {LOCATION_NAMES[rolled]})" if loc != rolled else ""
    log.add("hit", f"Ship {ship_id} hit for {dmg} ({face}): {LOCATION_NAMES[loc]}{stepped}.", ship=ship_id,
            roll=face, damage=dmg, location=LOCATION_NAMES[loc], rolled=LOCATION_NAMES[rolled], source=source)
    return _apply_location(state, ship, loc, dmg, arc, dice, log)


def _location_of(face: int) -> int:
    if face <= 10:
        return HULL
    if face <= 13:
        return ENGINE
    if face <= 15:
        return WEAPONS
    return {16: FF_GENERATOR, 17: SENSORS, 18: LIFE_SUPPORT, 19: POWER, 20: CORE_BREACH}[face]


def _applicable(ship: TacticalShip, loc: int, arc: int) -> bool:
    if loc == ENGINE:
        return not ship.engines_destroyed
    if loc == WEAPONS:
        return bool(ship.weapons)
    if loc == FF_GENERATOR:
        return ship.generators[arc]
    if loc == SENSORS:
        return ship.sensors
    if loc == POWER:
        return ship.power
    return True  # hull, life support, core breach always apply


def _apply_location(state: BattleState, ship: TacticalShip, loc: int, dmg: int, arc: int, dice: Dice,
                    log: _Log) -> BattleState:
    sid = ship.id
    if loc == HULL:
        hull = ship.hull - dmg
        if hull <= 0:
            return _abandon(state, evolve(ship, hull=hull), "hull strength reduced to 0", dice, log)
        return _with_ship(state, evolve(ship, hull=hull))
    if loc == ENGINE:
        movement = ship.movement - dmg
        if movement < 0:
            log.add("engines_destroyed", f"Ship {sid}'s engines are destroyed.", ship=sid)
        elif movement == 0:
            log.add("stationary", f"Ship {sid} is stationary.", ship=sid)
        return _with_ship(state, evolve(ship, movement=movement))
    if loc == WEAPONS:
        n = len(ship.weapons)
        pick = dice.roll(1, n, f"{HIT_RULE}: 14-15 weapons (ship {sid}, random system)").faces[0] - 1 if n > 1 else 0
        key = ship.weapons[pick]
        log.add("weapon_destroyed", f"Ship {sid}'s {key.replace('_', ' ')} is destroyed.", ship=sid, weapon=key)
        return _with_ship(state, evolve(ship, weapons=ship.weapons[:pick] + ship.weapons[pick + 1:],
                                         weapons_lost=ship.weapons_lost + (key,)))
    if loc == FF_GENERATOR:
        gens = list(ship.generators)
        gens[arc] = False
        fields = list(ship.force_fields)
        fields[arc] = 0
        new = evolve(ship, generators=tuple(gens), force_fields=tuple(fields))
        log.add("generator_lost", f"Ship {sid} loses its {ARC_NAMES[arc]} force field generator.", ship=sid,
                arc=ARC_NAMES[arc])
        if ship.stealth_operable:
            face = dice.roll(1, 6, f"{HIT_RULE}: 16 stealth field generator (ship {sid})").faces[0]
            if face >= 3:
                new = evolve(new, stealth_operable=False, stealth_engaged=False)
                log.add("stealth_lost", f"Ship {sid}'s stealth field generator is inoperable ({face}).", ship=sid,
                        roll=face)
        return _with_ship(state, new)
    if loc == SENSORS:
        log.add("sensors_lost", f"Ship {sid}'s sensors and targeting are destroyed; its teleporter is off-line.",
                ship=sid)
        return _with_ship(state, evolve(ship, sensors=False))
    if loc == LIFE_SUPPORT:
        if ship.life_support == LIFE_MAIN and not ship.shuttle:
            log.add("life_support", f"Ship {sid} engages auxiliary life support.", ship=sid)
            return _with_ship(state, evolve(ship, life_support=LIFE_AUXILIARY))
        return _abandon(state, evolve(ship, life_support=LIFE_LOST), "life support lost", dice, log)
    if loc == POWER:
        log.add("power_lost", f"Ship {sid} has lost all power and is helpless.", ship=sid)
        return _with_ship(state, evolve(ship, power=False, stealth_engaged=False))
    # CORE_BREACH
    if ship.capacitor:
        log.add("core_breach_negated", f"Ship {sid}'s Core Containment Capacitor negates the engine core breach.",
                ship=sid)
        return _with_ship(state, evolve(ship, capacitor=False))
    if ship.shuttle:
        log.add("destroyed", f"Shuttle {sid} explodes.", ship=sid)
        return _end_boardings_of(_with_ship(state, evolve(ship, status=DESTROYED, fate="shuttle destroyed")),
                                 sid, log)
    bonus = 2 if ship.hero_crew else 0
    face = dice.roll(1, 6, f"{HIT_RULE}: 20 escape shuttles (ship {sid})").faces[0]
    escaped = face + bonus >= 5
    log.add("core_breach", f"Ship {sid}'s engine core breaches and it explodes; the crew "
            f"{'escape in shuttles' if escaped else 'are lost'} ({face}{'+2' if bonus else ''}).", ship=sid,
            roll=face, escaped=escaped)
    if escaped:
        return _to_shuttle(state, ship, "engine core breach", log)
    return _end_boardings_of(_with_ship(state, evolve(ship, status=DESTROYED, fate="engine core breach")), sid, log)


def _abandon(state: BattleState, ship: TacticalShip, why: str, dice: Dice, log: _Log) -> BattleState:
    if ship.shuttle:
        # "Shuttles do not have auxiliary systems": a shuttle that is abandoned is lost.
        log.add("destroyed", f"Shuttle {ship.id} is lost ({why}).", ship=ship.id)
        return _end_boardings_of(_with_ship(state, evolve(ship, status=DESTROYED, fate="shuttle destroyed")),
                                 ship.id, log)
    log.add("abandoned", f"Ship {ship.id} must be abandoned ({why}); its crew take to a shuttlecraft.", ship=ship.id)
    return _to_shuttle(state, ship, why, log)


def _to_shuttle(state: BattleState, ship: TacticalShip, why: str, log: _Log) -> BattleState:
    """"When a crew abandons a ship replace the model with a shuttlecraft" (ruling TC20)."""
    shuttle = evolve(ship, shuttle=True, hull=SHUTTLE_HULL, movement=SHUTTLE_MOVE, weapons=(),
                      force_fields=(0, 0, 0, 0), generators=(False,) * 4, boarding_parties=0, power=True,
                      sensors=True, life_support=LIFE_MAIN, stealth_operable=False, stealth_engaged=False,
                      evasive=False, capacitor=False, fate=why)
    return _end_boardings_of(_with_ship(state, shuttle), ship.id, log)


def _bombard(state: BattleState, firer_id: int, planet_id: str, dice: Dice, log: _Log) -> BattleState:
    firer = state.ship(firer_id)
    planet = state.planet(planet_id)
    if planet.status == "destroyed" or not firer.in_play or firer.shuttle:
        return state
    face = dice.roll(1, 20, f"{PBA_RULE} (planet {planet_id})").faces[0]
    planets = state.planets
    if face == 20:
        log.add("planet_destroyed", f"Critical hit! Planet {planet_id} explodes ({face}).", planet=planet_id, roll=face)
        state = evolve(state, planets=tuple(evolve(p, status="destroyed") if p.id == planet_id else p
                                             for p in planets))
        for s in state.ships:
            if s.status == LANDED and s.pos in planet.squares:
                state = _with_ship(state, evolve(s, status=DESTROYED, fate="planet destroyed"))
                log.add("destroyed", f"Ship {s.id}, landed on planet {planet_id}, is destroyed.", ship=s.id)
        in_range = [s.id for s in state.ships if s.status == ACTIVE
                    and min(distance(s.pos, sq) for sq in planet.squares) <= SHOCK_WAVE_RANGE]
        for sid in in_range:
            ship = state.ship(sid)
            if ship.status == ACTIVE:
                centre = min(planet.squares, key=lambda sq: (distance(ship.pos, sq), sq))
                state = hit_location(state, sid, SHOCK_WAVE_DAMAGE, centre, dice, log, source="shock wave")
        return state
    if face >= 15:
        status, text = "surrendered", "planetary defences overcome, the populace surrenders"
        new = evolve(planet, status=status, surrendered_to=firer.side, owner=firer.side)
    elif face >= 11:
        status, text = "overcome", "planetary defences overcome, the populace refuses to surrender"
        new = evolve(planet, status=status)
    else:
        text = "planetary defences intact" if planet.defences else "no effect (the planet has no defences; ruling TC13)"
        new = planet
    state = evolve(state, planets=tuple(new if p.id == planet_id else p for p in planets))
    log.add("bombardment", f"Ship {firer_id} bombards planet {planet_id} ({face}): {text}.", ship=firer_id,
            planet=planet_id, roll=face, status=new.status)
    if face <= 10 and planet.defences:
        state = hit_location(state, firer_id, PBA_BACKLASH_DAMAGE, planet.squares[0], dice, log,
                             source="planetary defences")
    return state


# --- boarding ------------------------------------------------------------------------------

def _h_teleport(state: BattleState, action: A.Teleport):
    ship = _activated(state, action.ship, A.TELEPORT)
    if ship.status != ACTIVE:
        raise IllegalActionError(ANOMALY_RULE, f"ship {ship.id} has landed")
    if not ship.has_teleporter:
        raise IllegalActionError(BOARD_RULE, f"ship {ship.id} has no teleporter (no boarding parties in its design)")
    if not ship.sensors:
        raise IllegalActionError(HIT_RULE, f"ship {ship.id}'s teleporter is off-line (sensors destroyed)")
    if ship.boarding_parties <= 0:
        raise IllegalActionError(BOARD_RULE, f"ship {ship.id} has no boarding party left")
    target = _visible_target(state, action.target, BOARD_RULE, ship.side)
    if target.side == ship.side:
        raise IllegalActionError(BOARD_RULE, f"ship {target.id} is not hostile")
    d = distance(ship.pos, target.pos)
    if d > 1:
        raise IllegalActionError(RANGE_RULE, f"teleporters can only be used at close range; ship {target.id} is "
                                 f"{d} squares away")
    if any(b.boarder == ship.id and b.target == target.id for b in state.boardings):
        raise IllegalActionError(BOARD_RULE, f"ship {ship.id}'s boarding party is already aboard ship {target.id}")
    arc = arc_of(target.pos, target.facing, ship.pos)
    if target.generators[arc] and target.power and target.force_fields[arc] > 0:
        raise IllegalActionError(BOARD_RULE, f"ship {target.id}'s {ARC_NAMES[arc]} force field "
                                 f"({target.force_fields[arc]}) faces the teleporter: it must be down")

    def resolve(dice: Dice, log: _Log) -> BattleState:
        st = _took(state, A.TELEPORT)
        mods = lock_modifiers(st, ship, target, "close", weapons=False)
        total = sum(m for m, _ in mods)
        face = dice.roll(1, 6, f"{LOCK_RULE}: teleporter of ship {ship.id} at ship {target.id}").faces[0]
        ok = face + total >= LOCK_TARGET
        log.add("lock", f"Ship {ship.id} teleporter at ship {target.id}: {face}{total:+d} -> "
                f"{'lock' if ok else 'no lock'}.", ship=ship.id, weapon="teleporter", target=target.id, rolls=[face],
                modifiers=[[m, r] for m, r in mods], locked=[ok], locks=int(ok))
        if not ok:
            return st
        st = _with_ship(st, evolve(ship, boarding_parties=ship.boarding_parties - 1))
        boarding = Boarding(boarder=ship.id, target=target.id, boarder_side=ship.side, goes=0)
        st = evolve(st, boardings=st.boardings + (boarding,))
        log.add("boarding", f"Ship {ship.id} teleports a boarding party onto ship {target.id}.", ship=ship.id,
                target=target.id)
        act = st.activation
        st = evolve(st, activation=evolve(act, resolved_boarding=act.resolved_boarding + ((ship.id, target.id),)))
        return _capture_roll(st, boarding, dice, log, by_defender=False)

    return resolve


def _capture_roll(state: BattleState, boarding: Boarding, dice: Dice, log: _Log, by_defender: bool) -> BattleState:
    target = state.ship(boarding.target)
    mods: list[tuple[int, str]] = []
    if boarding.goes >= 1:
        mods.append((1, "second (and subsequent) go"))
    if target.hero_crew:
        mods.append((-1, "attempting to capture a Hero crew"))
    if by_defender:
        mods.append((-1, "the boarded ship is activated: additional security teams"))
    face = dice.roll(1, 6, f"{BOARD_RULE} (ship {boarding.boarder} aboard ship {boarding.target})").faces[0]
    total = face + sum(m for m, _ in mods)
    others = tuple(b for b in state.boardings if b != boarding)
    data = dict(boarder=boarding.boarder, target=target.id, roll=face, modifiers=[[m, r] for m, r in mods], total=total)
    if total >= 6:
        log.add("captured", f"Ship {target.id} is captured by side {boarding.boarder_side} ({face}→{total}).",
                result="captured", **data)
        new = evolve(target, side=boarding.boarder_side, captured_by=boarding.boarder_side, hero_crew=False,
                      evasive=False, stealth_engaged=False)
        state = _with_ship(evolve(state, boardings=others), new)
        state = _party_lost(state, boarding.boarder)  # the party crews the prize
        return _end_boardings_of(state, target.id, log)
    if total <= 2:
        log.add("boarders_defeated", f"Ship {boarding.boarder}'s boarding party aboard ship {target.id} is defeated "
                f"({face}→{total}).", result="defeated", **data)
        return _party_lost(evolve(state, boardings=others), boarding.boarder)
    log.add("boarding_continues", f"Fighting continues aboard ship {target.id} ({face}→{total}).",
            result="continues", **data)
    again = evolve(boarding, goes=boarding.goes + 1)
    return evolve(state, boardings=tuple(again if b == boarding else b for b in state.boardings))


def _party_lost(state: BattleState, ship_id: int) -> BattleState:
    ship = state.find(ship_id)
    if ship is None or ship.shuttle:
        return state
    return _with_ship(state, evolve(ship, parties_lost=ship.parties_lost + 1))


def _end_boardings_of(state: BattleState, ship_id: int, log: _Log) -> BattleState:
    """A ship leaving play (or changing hands) ends every boarding action it is part of; the
    parties involved are lost (ruling TC19)."""
    ended = [b for b in state.boardings if b.boarder == ship_id or b.target == ship_id]
    if not ended:
        return state
    state = evolve(state, boardings=tuple(b for b in state.boardings if b not in ended))
    for b in ended:
        state = _party_lost(state, b.boarder)
        log.add("boarding_ended", f"The boarding action of ship {b.boarder} aboard ship {b.target} ends.",
                boarder=b.boarder, target=b.target)
    return state


def _resolve_due_boardings(state: BattleState, ship_id: int, dice: Dice, log: _Log) -> BattleState:
    """"Resolve an ongoing boarding action – this is compulsory!" at the end of the activation
    of the ship the party came from, or (at −1) of the boarded ship (ruling TC19)."""
    done = set(state.activation.resolved_boarding) if state.activation else set()
    for b in list(state.boardings):
        if (b.boarder, b.target) in done or b not in state.boardings:
            continue
        if b.boarder == ship_id:
            state = _capture_roll(state, b, dice, log, by_defender=False)
        elif b.target == ship_id and state.ship(ship_id).side != b.boarder_side:
            state = _capture_roll(state, b, dice, log, by_defender=True)
    return state


_HANDLERS = {
    A.Activate: _h_activate,
    A.EndActivation: _h_end,
    A.Pass: _h_pass,
    A.RestorePower: _h_restore,
    A.Regenerate: _h_regenerate,
    A.Scan: _h_scan,
    A.Move: _h_move,
    A.WarpOut: _h_warp,
    A.Land: _h_land,
    A.Launch: _h_launch,
    A.Fire: _h_fire,
    A.Teleport: _h_teleport,
    A.EngageStealth: _h_engage,
    A.DisengageStealth: _h_disengage,
}


# --- legal actions -------------------------------------------------------------------------

def reachable(state: BattleState, ship: TacticalShip) -> dict[tuple[Coord, int], tuple[str, ...]]:
    """Every (square, facing) the ship can end a move on, with a shortest path to it.

    A breadth-first search over (square, facing, stopped) keeping, for each, only the
    (squares moved, turns made) pairs no other pair beats in both (the cost max(steps, turns)
    only grows with either)."""
    allowance = move_allowance(state, ship)
    out: dict[tuple[Coord, int], tuple[str, ...]] = {}
    if allowance <= 0 or ship.status != ACTIVE or ship.engines_destroyed:
        return out
    start = (ship.pos, ship.facing, False)
    best: dict[tuple[Coord, int, bool], list[tuple[int, int]]] = {start: [(0, 0)]}
    frontier = [(start, 0, 0, ())]
    on_table, terrain, wormholes = state.field.on_table, state.field.terrain, state.field.wormholes
    while frontier:
        nxt = []
        for (pos, facing, stopped), s, t, path in frontier:
            for tok in ("F", "FL", "FR", "L", "R"):
                if tok in TURN_TOKENS:
                    s2, t2, f2, p2, st2 = s, t + 1, turn(facing, tok), pos, stopped
                else:
                    if stopped:
                        continue
                    dx, dy = step_offset(facing, tok)
                    p2 = (pos[0] + dx, pos[1] + dy)
                    if not on_table(p2):
                        continue
                    kind = _terrain(state, p2) if terrain else None
                    if kind == BLACK_HOLE:
                        continue
                    st2 = kind in (CLOUD, WORMHOLE)
                    if kind == WORMHOLE:
                        p2 = wormholes.get(p2, p2)
                    s2, t2, f2 = s + 1, t, facing
                if max(s2, t2) > allowance:
                    continue
                key = (p2, f2, st2)
                pairs = best.setdefault(key, [])
                if any(a <= s2 and b <= t2 for a, b in pairs):
                    continue
                pairs[:] = [(a, b) for a, b in pairs if not (s2 <= a and t2 <= b)] + [(s2, t2)]
                npath = path + (tok,)
                nxt.append((key, s2, t2, npath))
                end = (p2, f2)
                if end not in out and end != (ship.pos, ship.facing):
                    kind = _terrain(state, p2) if terrain else None
                    if kind == SUN:
                        continue
                    other = state.occupied.get(p2)
                    if (other is not None and other != ship.id and kind != PLANET
                            and not hidden_from(state.ship(other), ship.side)):
                        continue  # ruling TC29: a ship the mover cannot see does not close a square
                    out[end] = npath
        frontier = nxt
    return out


def legal_actions(state: BattleState, ship_id: int) -> tuple[A.Action, ...]:
    """What ``apply`` would accept for ``ship_id`` now. Fire is listed once per target, with
    every weapon that can reach it (splitting fire between targets is legal but not listed);
    moves once per reachable (square, facing)."""
    ship = state.find(ship_id)
    if ship is None or is_over(state):
        return ()
    out: list[A.Action] = []

    def ok(action: A.Action) -> None:
        try:
            check(state, action)
        except IllegalActionError:
            return
        out.append(action)

    if state.activation is None:
        ok(A.Activate(ship_id))
        ok(A.Activate(ship_id, evasive=not ship.evasive))
        if state.acting_side == ship.side:
            ok(A.Pass(ship.side))
        return tuple(out)
    if state.activation.ship != ship_id:
        return ()
    ok(A.RestorePower(ship_id))
    ok(A.Regenerate(ship_id))
    for other in state.ships:
        if other.id != ship_id:
            ok(A.Scan(ship_id, other.id))
    try:
        _activated(state, ship_id, A.MOVE)
        _can_move(ship)
        for _end, path in sorted(reachable(state, ship).items()):
            ok(A.Move(ship_id, path))
    except IllegalActionError:
        pass
    ok(A.WarpOut(ship_id))
    ok(A.Land(ship_id))
    ok(A.Launch(ship_id))
    for other in state.ships:
        if other.side == ship.side or not other.on_table:
            continue
        shots = []
        for key in ship.weapons:
            if key == PBA:
                continue
            try:
                _check_shot_geometry(state, ship, other.pos, key, "")
            except IllegalActionError:
                continue
            shots.append((key, other.id))
        if shots:
            ok(A.Fire(ship_id, tuple(shots)))
        ok(A.Teleport(ship_id, other.id))
    for planet in state.planets:
        n = ship.weapons.count(PBA)
        if n:
            ok(A.Fire(ship_id, ((PBA, planet.id),) * n))
    ok(A.EngageStealth(ship_id))
    ok(A.DisengageStealth(ship_id))
    ok(A.EndActivation(ship_id))
    return tuple(out)


# --- outcome -------------------------------------------------------------------------------

DESTROYED_FATE, CAPTURED_FATE, WARPED_FATE, SURVIVED_FATE = "destroyed", "captured", "warped_out", "survived"


@dataclass(frozen=True)
class ShipOutcome:
    """What became of one ship. ``side`` is the side that brought it; ``damage`` is what it
    carries back to the campaign (None when destroyed); ``crew_escaped`` tells whether the crew
    of a lost ship got away in a shuttle that survived or went to warp."""

    ship: int
    side: int
    fate: str
    damage: Damage | None
    captured_by: int | None = None
    crew_escaped: bool = False
    landed: bool = False
    hero_crew: bool = False
    how: str = ""

    @property
    def damaged(self) -> bool:
        return self.damage is not None and self.damage.any


@dataclass(frozen=True)
class BattleOutcome:
    over: bool
    holder: int | None  # the side that holds the field (None: nobody, or the card cap was reached)
    ships: tuple[ShipOutcome, ...]
    planets: tuple[Planet, ...]
    blockades: tuple[tuple[str, int], ...]
    cards_drawn: int
    capped: bool


def carried_damage(ship: TacticalShip) -> Damage:
    """The campaign ``Damage`` a surviving ship carries back (ruling TC22: sensors, life
    support and power are restored after the battle; engines destroyed count as every engine
    point lost; force fields regenerate, lost generators do not)."""
    d = ship.design
    lost_gens = sum(1 for g in ship.generators if not g) if d.force_field is not None else 0
    engine_lost = d.engine if ship.movement < 0 else max(0, d.engine - ship.movement)
    dmg = Damage(hull=max(0, d.hull - ship.hull), engine=min(d.engine, engine_lost), weapons=ship.weapons_lost,
                 force_field_generators=lost_gens, stealth=d.stealth_field and not ship.stealth_operable,
                 boarding_parties=min(d.boarding_parties, ship.parties_lost))
    return dmg if dmg.any else NO_DAMAGE


def outcome(state: BattleState) -> BattleOutcome:
    over = is_over(state)
    sides = combat_sides(state)
    holder = next(iter(sides)) if len(sides) == 1 else None
    ships = []
    for s in state.ships:
        if s.shuttle or s.status == DESTROYED:
            escaped = s.shuttle and s.status in (ACTIVE, LANDED, WARPED_OUT)
            ships.append(ShipOutcome(s.id, s.original_side, DESTROYED_FATE, None, crew_escaped=escaped,
                                     hero_crew=s.hero_crew and escaped, how=s.fate))
            continue
        damage = carried_damage(s)
        if s.captured_by is not None:
            ships.append(ShipOutcome(s.id, s.original_side, CAPTURED_FATE, damage, captured_by=s.side,
                                     landed=s.status == LANDED))
        elif s.status == WARPED_OUT:
            ships.append(ShipOutcome(s.id, s.original_side, WARPED_FATE, damage, hero_crew=s.hero_crew))
        else:
            ships.append(ShipOutcome(s.id, s.original_side, SURVIVED_FATE, damage, landed=s.status == LANDED,
                                     hero_crew=s.hero_crew))
    blockades = []
    for p in state.planets:
        for side in state.sides:
            if side != p.owner and blockaded(state, p, p.owner if p.owner is not None else -1):
                holders = {s.side for s in state.ships if s.on_table and not s.shuttle and
                           any(s.pos in neighbours(sq) for sq in p.squares)}
                if holders == {side}:
                    blockades.append((p.id, side))
    capped = over and len(sides) > 1
    return BattleOutcome(over=over, holder=holder, ships=tuple(ships), planets=state.planets,
                         blockades=tuple(blockades), cards_drawn=state.cards_drawn, capped=capped)
