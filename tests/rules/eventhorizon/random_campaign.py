"""Random Event Horizon campaigns for property tests (pure Python, no Django).

``new_campaign`` builds the state ``campaign.eventhorizon.actions.create_campaign`` would store (a rolled
map, empires with the starting BP, owned home worlds with a dockyard each, the purpose rolled
after the map), optionally with a few fleets already out near the home worlds so that
battles, retreats and neutral-world rolls happen in the first turns. ``random_orders`` writes
orders a player could submit: every part is checked with ``validate_orders`` as it is added,
so the result is always accepted. ``play`` runs a campaign turn by turn and records each turn.

Everything is driven by seeds (``bytes`` for the dice, ``int`` for the players' choices), so a
campaign is reproduced exactly from the parameters hypothesis prints.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from campaign.rules.dice import SeededDice
from campaign.rules.eventhorizon import economy as eh
from campaign.rules.eventhorizon import victory
from campaign.rules.eventhorizon.bots import bot_orders
from campaign.rules.eventhorizon.designs import Technology
from campaign.rules.eventhorizon.economy import Damage, WorldKind
from campaign.rules.eventhorizon.mapgen import MapError, Terrain, generate_map
from campaign.rules.eventhorizon.orders import (
    Merge,
    Move,
    OrderError,
    Orders,
    Split,
    fleet_speed,
    is_jump,
    regroup,
    validate_orders,
)
from campaign.rules.eventhorizon.state import (
    FIGHT,
    LOSS_ORDERS,
    MOVE_FIRST,
    MOVE_LAST,
    RETREAT,
    CampaignState,
    EmpireState,
    FleetState,
    InvasionOrder,
    ShipState,
    StandingOrders,
    StructureState,
    WorldState,
)
from campaign.rules.eventhorizon.turn import Resolution, resolve_turn
from campaign.rules.grid import Coord, make_grid
from tests.rules.eventhorizon.eh_builders import DESIGN_TABLE, DESIGNS

# Every seat may build every design of the table (the library and the two extras); research
# gating is left to validate_orders.
DESIGN_NAMES: dict[str, int] = {d.name: i for i, d in DESIGN_TABLE.items()}

# Designs for pre-placed ships: the ones that need no technology, so any empire could own them.
STARTER_KEYS = ("san_marco", "galiot", "bomber", "tramp")


def derive(seed: bytes, *parts: object) -> bytes:
    """A 32-byte seed for one use of the campaign seed (map, turn n …)."""
    return hashlib.sha256(seed + b"/" + "/".join(map(str, parts)).encode()).digest()


@dataclass(frozen=True)
class CampaignSpec:
    """What hypothesis draws; everything else follows from it."""

    seed: bytes
    grid: str
    width: int
    height: int
    players: int
    turns: int
    fleets_out: int  # pre-placed fleets per seat (0: a fresh campaign, as created)
    choices: int  # seed of the players' choices
    bots: tuple[bool, ...] = ()  # per seat: bot orders (True) or random orders (False)


# --- setting up -----------------------------------------------------------------------------

def new_campaign(spec: CampaignSpec) -> CampaignState:
    """The state of a campaign as created (campaign.eventhorizon.actions.create_campaign), plus
    ``spec.fleets_out`` fleets per seat near its home world. Raises MapError when no map can
    be made (too few reachable planets)."""
    dice = SeededDice(derive(spec.seed, "setup"))
    gmap = generate_map(make_grid(spec.grid, spec.width, spec.height), spec.players, dice)
    homes = {c: seat for seat, c in enumerate(gmap.home_worlds, start=1)}
    worlds = []
    for c in gmap.planets() + gmap.colonies():
        kind = WorldKind.PLANET if gmap.terrain_at(c) is Terrain.PLANET else WorldKind.COLONY
        seat = homes.get(c)
        worlds.append(WorldState(coord=c, kind=kind, economy=gmap.economy_of(c), owner=seat, home_of=seat))
    worlds.sort(key=lambda w: (w.coord[1], w.coord[0]))
    seats = range(1, len(gmap.home_worlds) + 1)
    empires = tuple(EmpireState(seat=s, name=f"Empire {s}", bp=eh.STARTING_BP) for s in seats)
    structures = tuple(StructureState(id=s, owner=s, resource=eh.Resource.DOCKYARD, coord=gmap.home_worlds[s - 1])
                       for s in seats)
    state = CampaignState(turn=1, map=gmap, empires=empires, worlds=tuple(worlds), designs=DESIGN_TABLE,
                          structures=structures, purpose=victory.roll_purpose(dice))
    if spec.fleets_out:
        state = _place_fleets(state, spec.fleets_out, random.Random(spec.choices ^ 0x5EED))
    return state


def _place_fleets(state: CampaignState, per_seat: int, rng: random.Random) -> CampaignState:
    """Fleets of 1–3 ships (some damaged) at or near each home world, some of them close to a
    neighbour's so that contact comes early."""
    grid = state.grid
    ships: list[ShipState] = []
    fleets: list[FleetState] = []
    passable = [c for c in (grid.coord(i) for i in range(grid.size)) if state.terrain_at(c) is not Terrain.BLACK_HOLE]
    homes = state.map.home_worlds
    for seat, home in enumerate(homes, start=1):
        for n in range(per_seat):
            if n == 0:
                where = home
            else:
                # Somewhere between home and another empire's home world (or anywhere).
                other = rng.choice(homes)
                near = sorted(passable, key=lambda c: (grid.distance(c, other) + rng.random() * 3, c))
                where = near[min(len(near) - 1, rng.randint(1, 4))]
            ids = []
            for _ in range(rng.randint(1, 3)):
                design = DESIGNS[rng.choice(STARTER_KEYS)]
                damage = eh.NO_DAMAGE
                if rng.random() < 0.3:
                    # Now and then an engine wrecked outright: a fleet that cannot move or retreat.
                    engine = DESIGN_TABLE[design].engine if rng.random() < 0.15 else rng.randint(0, 2)
                    damage = Damage(hull=rng.randint(1, 2), engine=engine)
                ship = ShipState(id=len(ships) + 1, owner=seat, design=design, hero_crew=rng.random() < 0.1,
                                 damage=damage)
                ships.append(ship)
                ids.append(ship.id)
            fleets.append(FleetState(id=len(fleets) + 1, owner=seat, coord=where, ships=tuple(ids)))
    return replace(state, ships=tuple(ships), fleets=tuple(fleets))


# --- random orders --------------------------------------------------------------------------

def _accepts(state: CampaignState, seat: int, orders: Orders) -> bool:
    try:
        validate_orders(state, seat, orders, DESIGN_NAMES)
    except OrderError:
        return False
    return True


def _purchase_candidates(state: CampaignState, seat: int, rng: random.Random) -> list[dict]:
    mine = [s for s in state.structures if s.owner == seat]
    owned = [w.coord for w in state.worlds if w.owner == seat]
    docks = [s for s in mine if s.resource is eh.Resource.DOCKYARD]
    out: list[dict] = []
    for dock in docks:
        name = rng.choice(sorted(DESIGN_NAMES))
        item = {"build": name, "dockyard": dock.id}
        if rng.random() < 0.2:
            item["hero_crew"] = True
        out.append(item)
    for _ in range(rng.randint(0, 3)):
        resource = rng.choice(list(eh.Resource))
        if resource is eh.Resource.STAR_GATE:
            grid = state.grid
            at = grid.coord(rng.randrange(grid.size))
        elif owned:
            at = rng.choice(owned)
        else:
            continue
        item = {"buy": resource.value, "at": list(at)}
        if resource is eh.Resource.RESEARCH_FACILITY:
            item["technology"] = rng.choice(list(Technology)).value
        out.append(item)
    where = {sid: f.coord for f in state.fleets for sid in f.ships}
    for ship in state.ships:
        if ship.owner == seat and ship.damage.any and ship.id in where:
            for dock in docks:
                if dock.coord == where[ship.id]:
                    out.append({"repair": ship.id, "dockyard": dock.id})
    rng.shuffle(out)
    return out


def _standing(state: CampaignState, seat: int, rng: random.Random) -> StandingOrders:
    invasion = []
    fleets = [f for f in state.fleets if f.owner == seat]
    worlds = [w.coord for w in state.worlds if w.owner == seat]
    for _ in range(rng.randint(0, 3)):
        response = rng.choice((FIGHT, RETREAT))
        target = rng.random()
        retreat_to = None
        if response == RETREAT and worlds and rng.random() < 0.5:
            retreat_to = rng.choice(worlds)
        if target < 0.4 and fleets:
            invasion.append(InvasionOrder(response=response, fleet=rng.choice(fleets).id, retreat_to=retreat_to))
        elif target < 0.7 and worlds:
            invasion.append(InvasionOrder(response=response, hex=rng.choice(worlds), retreat_to=retreat_to))
        else:
            invasion.append(InvasionOrder(response=response, retreat_to=retreat_to))
    return StandingOrders(invasion=tuple(invasion), loss_order=rng.choice(LOSS_ORDERS),
                          initiative=rng.choice((MOVE_FIRST, MOVE_LAST)))


def _random_path(state: CampaignState, start: Coord, speed: int, rng: random.Random) -> list[Coord]:
    """A walk of up to ``speed`` steps along grid neighbours (and, sometimes, free jumps
    between worm holes or star gates), never into a black hole."""
    grid = state.grid
    path: list[Coord] = []
    here, steps = start, 0
    jumps = list(state.map.wormholes()) + [s.coord for s in state.structures if s.resource is eh.Resource.STAR_GATE]
    for _ in range(speed + 2):
        options = [n for n in grid.neighbours(here) if state.terrain_at(n) is not Terrain.BLACK_HOLE]
        free = [j for j in jumps if j != here and is_jump(state, here, j)]
        if free and rng.random() < 0.5:
            here = rng.choice(free)
        elif options and steps < speed:
            here = rng.choice(options)
            steps += 1
        else:
            break
        path.append(here)
    return path


def random_orders(state: CampaignState, seat: int, rng: random.Random) -> Orders:
    """Orders a player might give; each part is kept only if the whole is still accepted."""
    orders = Orders()
    if rng.random() < 0.3:
        orders = replace(orders, standing=_standing(state, seat, rng))
    for item in _purchase_candidates(state, seat, rng):
        trial = replace(orders, purchases=orders.purchases + (item,))
        if _accepts(state, seat, trial):
            orders = trial
    mine = sorted((f for f in state.fleets if f.owner == seat), key=lambda f: f.id)
    for fleet in mine:
        if len(fleet.ships) > 1 and rng.random() < 0.4:
            ships = rng.sample(fleet.ships, rng.randint(1, len(fleet.ships) - 1))
            trial = replace(orders, splits=orders.splits + (Split(fleet.id, tuple(ships), f"split{fleet.id}"),))
            if _accepts(state, seat, trial):
                orders = trial
    by_hex: dict[Coord, list[int]] = {}
    for fleet in mine:
        by_hex.setdefault(fleet.coord, []).append(fleet.id)
    for ids in by_hex.values():
        if len(ids) > 1 and rng.random() < 0.5:
            trial = replace(orders, merges=orders.merges + (Merge(tuple(ids)),))
            if _accepts(state, seat, trial):
                orders = trial
    fleets, labels = regroup(state, seat, orders)
    movers: list[tuple[int | str, FleetState]] = [(f.id, f) for f in fleets if f.owner == seat]
    ids_of_label = {v: k for k, v in labels.items()}
    rng.shuffle(movers)
    for key, fleet in movers:
        if rng.random() < 0.25:
            continue
        speed = fleet_speed(state, fleet.ships)
        path = _random_path(state, fleet.coord, speed, rng)
        if not path:
            continue
        name = ids_of_label.get(fleet.id, key)
        trial = replace(orders, moves=orders.moves + (Move(name, tuple(path)),))
        if _accepts(state, seat, trial):
            orders = trial
    return orders


# --- playing --------------------------------------------------------------------------------

@dataclass(frozen=True)
class TurnRecord:
    before: CampaignState
    orders: Mapping[int, Orders]
    dice_seed: bytes
    resolution: Resolution
    previews: Mapping[int, int] = field(default_factory=dict)  # seat -> BP the orders spend


def turn_orders(state: CampaignState, spec: CampaignSpec, rng: random.Random) -> dict[int, Orders]:
    orders: dict[int, Orders] = {}
    for seat in state.active_seats():
        bot = spec.bots[seat - 1] if seat - 1 < len(spec.bots) else rng.random() < 0.5
        roll = rng.random()
        if roll < 0.1:
            continue  # missed the deadline: standing orders only
        orders[seat] = bot_orders(state, seat, DESIGN_NAMES) if bot else random_orders(state, seat, rng)
    return orders


def play(spec: CampaignSpec) -> tuple[CampaignState, list[TurnRecord]]:
    """Create the campaign and play up to ``spec.turns`` turns (fewer if it is won)."""
    state = new_campaign(spec)
    start = state
    rng = random.Random(spec.choices)
    records = []
    for _ in range(spec.turns):
        if state.finished:
            break
        orders = turn_orders(state, spec, rng)
        previews = {seat: validate_orders(state, seat, o, DESIGN_NAMES).spending.total for seat, o in orders.items()}
        seed = derive(spec.seed, "turn", state.turn)
        resolution = resolve_turn(state, orders, SeededDice(seed), {s: DESIGN_NAMES for s in state.active_seats()})
        records.append(TurnRecord(state, orders, seed, resolution, previews))
        state = resolution.state
    return start, records


__all__ = ["CampaignSpec", "DESIGN_NAMES", "MapError", "TurnRecord", "derive", "new_campaign", "play",
           "random_orders", "turn_orders"]
