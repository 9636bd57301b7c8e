"""The Event Horizon campaign turn as one pure pipeline ("003 Campaign Turn Sequence", adapted
for simultaneous orders by RULINGS.md "Online play model").

    resolve_turn(state, orders, dice) -> Resolution(new_state, events)

Steps, in order: spending → initiative → movement → invasions → neutral world rolls → battles
(with their outcomes) → build queues → trade network and interdiction → victory and elimination
→ next turn's income. (Trade comes before victory so that Trade War is won on the turn of the
third consecutive interdiction; docs/rulings.md.) Each step is a function ``(state, …, dice) -> (state,
events)`` in its own module; this module only composes them. Dice are passed in; nothing here reads a clock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from ..dice import Dice, concerning
from . import conflict, movement, trade, victory
from . import economy as eh
from .designs import DesignError
from .orders import NO_ORDERS, OrderError, Orders, empire_economy, other_gates, purchase_items
from .state import BuildState, CampaignState, Event, FleetState, ShipState, StructureState


@dataclass(frozen=True)
class Resolution:
    """The state after the turn and what happened. ``pending`` is not empty when the turn stopped
    before its battles because some are to be fought as games: ``state`` is then the state at
    that point (turn number unchanged) and ``complete_turn`` finishes the turn once they have
    been fought."""

    state: CampaignState
    events: tuple[Event, ...]
    pending: tuple[conflict.Battle, ...] = ()


def resolve_turn(state: CampaignState, orders: Mapping[int, Orders], dice: Dice,
                 design_names: Mapping[int, Mapping[str, int]] | None = None,
                 fought_as_game: Callable[[CampaignState, conflict.Battle], bool] | None = None) -> Resolution:
    """Resolve one campaign turn. ``orders`` maps seats to their orders (a seat with none keeps
    its standing orders: RULINGS "Missed deadline"); ``design_names`` maps each seat to the
    design names it may build (name -> design id).

    ``fought_as_game(state, battle)`` says whether a battle that will be fought is to be fought
    as a tactical or tabletop game rather than auto-resolved. If it says so for any battle, the
    turn stops before the battles step and returns them as ``pending``; ``complete_turn`` then
    applies their results in order (auto-resolving the others) and runs the rest of the turn."""
    if state.finished:
        raise ValueError("the campaign has ended")
    events: list[Event] = []
    orders = {seat: orders.get(seat, NO_ORDERS) for seat in state.active_seats()}
    design_names = design_names or {}

    # Ids are never reused: the floor is raised after every step that may create some, before
    # any later step can destroy them (neutral rolls and battles destroy; builds create).
    state = state.with_id_floor()
    state, evs = apply_spending(state, orders, design_names)
    events += evs
    initiative, evs = movement.roll_initiative(state, orders, dice)
    events += evs
    state, evs, contacts = movement.move_fleets(state.with_id_floor(), orders, initiative, dice)
    events += evs
    state = state.with_id_floor()
    state, evs, battles = conflict.resolve_invasions(state, contacts, dice)
    events += evs
    state, evs = conflict.neutral_world_rolls(state, dice)
    events += evs
    if fought_as_game is not None and any(
            conflict.battle_is_fought(state, b) and fought_as_game(state, b) for b in battles):
        return Resolution(state=state, events=tuple(events), pending=tuple(battles))
    rest = complete_turn(state, battles, {}, dice)
    return Resolution(state=rest.state, events=tuple(events) + rest.events)


def complete_turn(state: CampaignState, battles: Sequence[conflict.Battle],
                  results: Mapping[int, conflict.BattleResult], dice: Dice,
                  settled: Mapping[int, str] | None = None) -> Resolution:
    """The rest of a turn from its battles step: the battles in order (``results`` by index for
    those fought as games, auto-resolve for the others; ``settled``: how a battle handed off as
    a game came to be auto-resolved) → build queues → trade network and interdiction → victory
    and elimination → next turn's income."""
    events: list[Event] = []
    state, evs = conflict.fight_battles(state, battles, None, dice, results, settled)
    events += evs
    state, evs = advance_builds(state, {})
    events += evs
    state = state.with_id_floor()
    # Trade before victory, so a third consecutive interdicted turn wins Trade War that turn.
    state, evs, cut_off = trade_step(state)
    events += evs
    state, evs = victory.check(state, dice)
    events += evs
    if not state.finished:
        state, evs = roll_income(state, cut_off, dice)
        events += evs
    state = replace(state, turn=state.turn + 1)
    return Resolution(state=state, events=tuple(events))


# --- spending ("Resource Exploitation Phase") ---------------------------------------------

def apply_spending(state: CampaignState, orders: Mapping[int, Orders],
                   design_names: Mapping[int, Mapping[str, int]]):
    """Each empire's purchases, validated again as a whole and applied in seat order. Orders
    were checked on submission against this same state, so a refusal here means the state
    changed under them (a moderator edit); the whole list is then dropped and reported."""
    events = []
    for seat in state.active_seats():
        raw = orders[seat].purchases
        standing = orders[seat].standing
        if standing is not None:
            state = state.with_empire(replace(state.empire(seat), standing=standing))
        if not raw:
            continue
        try:
            items = purchase_items(state, seat, raw, design_names.get(seat, {}))
            plan = eh.validate_spending(empire_economy(state, seat), items,
                                        designs={str(k): v for k, v in state.designs.items()},
                                        other_gates=other_gates(state, seat))
        except (OrderError, eh.SpendingError, DesignError) as exc:
            events.append(Event("spending", "spending_refused", (seat,), f"Purchases not made: {exc}"))
            continue
        state = _apply_plan(state, seat, plan, design_names.get(seat, {}))
        for planned in plan.items:
            events.append(Event("spending", "purchase", (seat,), f"{planned.item.describe()}: {planned.cost} BP",
                                {"cost": planned.cost}))
    return state, events


def _apply_plan(state: CampaignState, seat: int, plan: eh.SpendingPlan, names: Mapping[str, int]) -> CampaignState:
    empire = state.empire(seat)
    before = {s.id for s in state.structures}
    next_id = state.next_id("structure")
    renumber: dict[int, int] = {}
    structures = list(state.structures)
    for s in plan.economy_after.structures:
        if s.id in before and any(x.id == s.id and x.owner == seat for x in state.structures):
            continue
        renumber[s.id] = next_id
        structures.append(
            StructureState(
                id=next_id, owner=seat, resource=s.resource, coord=s.coord, technology=s.technology
            )
        )
        next_id += 1
    builds = list(state.builds)
    for b in plan.builds:
        # The order named the design; names are what purchase_items resolved it by.
        builds.append(
            BuildState(
                dockyard=renumber.get(b.dockyard_id, b.dockyard_id),
                owner=seat,
                design=names[b.design.name],
                turns_left=b.turns_left,
                hero_crew=b.hero_crew,
                name=b.name,
            )
        )
    repairs = {r.ship_id for r in plan.repairs}
    # Repairs are paid now and done at the end of the turn if the ship is still at the
    # dockyard (003 Dockyard: "remain there for the rest of that campaign turn").
    empire = replace(empire, bp=plan.bp_left, technologies=plan.economy_after.technologies)
    state = replace(state, structures=tuple(structures), builds=tuple(builds))
    state = state.with_empire(empire)
    if repairs:
        dock_of = {r.ship_id: renumber.get(r.dockyard_id, r.dockyard_id) for r in plan.repairs}
        state = replace(state, repairs=state.repairs + tuple(sorted(dock_of.items())))
    return state


# --- build queues ("Dockyard", "Star Ship Build Times") ----------------------------------

def advance_builds(state: CampaignState, orders: Mapping[int, Orders]):
    """Every ship on the stocks is a turn closer; finished ships appear at their dockyard
    ("Once built, ships appear on the map at the dockyard where they have been constructed")
    as a new fleet of one. Paid repairs are done for ships still in their dockyard's hex."""
    events = []
    structures = {s.id: s for s in state.structures}
    ships = list(state.ships)
    fleets = list(state.fleets)
    remaining = []
    next_ship, next_fleet = state.next_id("ship"), state.next_id("fleet")
    for build in state.builds:
        dockyard = structures.get(build.dockyard)
        if dockyard is None or dockyard.owner != build.owner:
            # The dockyard changed hands or was lost; the work on the stocks went with it
            # (003 Result of a Tactical Battle) — conflict.py moves builds with their dockyard.
            continue
        left = build.turns_left - 1
        if left > 0:
            remaining.append(replace(build, turns_left=left))
            continue
        ship = ShipState(
            id=next_ship, owner=build.owner, design=build.design, name=build.name, hero_crew=build.hero_crew
        )
        ships.append(ship)
        fleets.append(FleetState(id=next_fleet, owner=build.owner, coord=dockyard.coord, ships=(ship.id,)))
        design = state.designs[build.design]
        events.append(Event("builds", "ship_completed", (build.owner,),
                            f"{design.ship_type.label} {build.name or design.name} completed at {dockyard.coord}",
                            {"ship": ship.id, "fleet": next_fleet, "at": list(dockyard.coord)}))
        next_ship += 1
        next_fleet += 1
    state = replace(state, ships=tuple(ships), fleets=tuple(fleets), builds=tuple(remaining))
    pending = state.repairs
    if pending:
        where = {sid: f.coord for f in state.fleets for sid in f.ships}
        ship_list = []
        done = {}
        for ship_id, dock_id in pending:
            dock = structures.get(dock_id)
            if dock is not None and where.get(ship_id) == dock.coord:
                done[ship_id] = dock.coord
        for ship in state.ships:
            if ship.id in done:
                ship = replace(ship, damage=eh.NO_DAMAGE)
                events.append(
                    Event(
                        "builds",
                        "ship_repaired",
                        (ship.owner,),
                        f"Ship {ship.id} repaired at {done[ship.id]}",
                    )
                )
            ship_list.append(ship)
        state = replace(state, ships=tuple(ship_list), repairs=())
    return state, events


# --- trade and income ----------------------------------------------------------------------

_TRADE_MAPS: dict[int, tuple] = {}


def _trade_map(gmap) -> trade.TradeMap:
    """The map never changes during a campaign, so its trade graph is built once per process
    (keyed by the map object, which the cache keeps alive so the id stays unique)."""
    hit = _TRADE_MAPS.get(id(gmap))
    if hit is None or hit[0] is not gmap:
        if len(_TRADE_MAPS) > 16:
            _TRADE_MAPS.clear()
        hit = _TRADE_MAPS[id(gmap)] = (gmap, trade.TradeMap.from_map(gmap))
    return hit[1]


def trade_step(state: CampaignState):
    """Trade networks, interdiction and the Trade War counters (RULINGS "Trade routes")."""
    tmap = _trade_map(state.map)
    owners = {w.coord: w.owner for w in state.worlds if w.owner is not None}
    homes = {w.home_of: w.coord for w in state.worlds if w.home_of is not None and w.owner == w.home_of}
    fleets: dict = {}
    for f in state.fleets:
        cell = fleets.setdefault(f.coord, {})
        cell[f.owner] = cell.get(f.owner, 0) + len(f.ships)
    events = []
    cut_off: set = set()
    statuses = {}
    for seat in state.active_seats():
        net = trade.network(tmap, seat, owners, homes.get(seat))
        status = trade.network_status(net, seat, fleets)
        statuses[seat] = status
        cut_off |= set(status.cut_off)
        if status.interdicted:
            events.append(Event("trade", "routes_interdicted", (seat,),
                                f"{len(status.interdicted)} trade route(s) interdicted; cut off: "
                                + (", ".join(str(c) for c in status.cut_off) or "none"),
                                {"cut_off": [list(c) for c in status.cut_off]}))
    empires = []
    for empire in state.empires:
        counters = []
        if not empire.eliminated:
            for victim, status in statuses.items():
                if victim == empire.seat:
                    continue
                now = trade.trade_war_interdicted(empire.seat, status)
                count = trade.next_trade_war_counter(empire.trade_war_count(victim), now)
                if count:
                    counters.append((victim, count))
        empires.append(replace(empire, trade_war=tuple(counters)))
    return replace(state, empires=tuple(empires)), events, cut_off


def roll_income(state: CampaignState, cut_off: set, dice: Dice):
    """Next turn's income, rolled as the last step of this one (RULINGS "Timing of income"):
    every owned world not cut off by interdiction, enrichment and stabilisation applied."""
    events = []
    enriched = {s.coord for s in state.structures if s.resource is eh.Resource.ENRICHMENT}
    stable = {s.coord for s in state.structures if s.resource is eh.Resource.STABILISED_ECONOMY}
    income: dict[int, int] = {}
    for world in state.worlds:
        if world.owner is None or state.empire(world.owner).eliminated:
            continue
        if world.coord in cut_off:
            events.append(
                Event(
                    "income",
                    "world_cut_off",
                    (world.owner,),
                    f"{world.kind.value.title()} at {world.coord} is cut off: no income",
                )
            )
            continue
        # The roll is the owner's: fog of war withholds it from other empires (FW7).
        result = eh.world_income(world.kind, world.economy, world.coord in enriched, world.coord in stable,
                                 concerning(dice, world.owner))
        income[world.owner] = income.get(world.owner, 0) + result.bp
        events.append(
            Event(
                "income",
                "world_income",
                (world.owner,),
                f"{world.coord}: {result.bp} BP ({result.formula})",
                {
                    "at": list(world.coord),
                    "bp": result.bp,
                    "faces": list(result.roll.faces) if result.roll else [],
                },
            )
        )
    empires = tuple(replace(e, bp=e.bp + income.get(e.seat, 0)) for e in state.empires)
    for seat, bp in sorted(income.items()):
        events.append(Event("income", "income_total", (seat,), f"Income for next turn: {bp} BP", {"bp": bp}))
    return replace(state, empires=empires), events
