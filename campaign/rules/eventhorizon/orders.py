"""A player's orders for one Event Horizon campaign turn: the JSON form (docs/orders.md), its
parsing and its validation against the campaign state, with a preview of the effect.

Pure Python. ``parse_orders`` checks the shape; ``validate_orders`` checks the orders against the
rules and the state and returns a ``Preview``. Both raise ``OrderError`` naming the rule and the
place in the document (``moves[1].path[2]``); nothing is applied here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..grid import Coord
from . import economy as eh
from .designs import DesignError
from .mapgen import Terrain
from .state import (
    DRIFT_MODES,
    FIGHT,
    LOSS_ORDERS,
    MOVE_FIRST,
    MOVE_LAST,
    RETREAT,
    CampaignState,
    DriftOrder,
    FleetState,
    InvasionOrder,
    StandingOrders,
)

MOVE_RULE = "003 Campaign Movement"
ORDERS_RULE = "docs/orders.md"
MAP_RULE = "003 Creating a Map"
DRIFT_RULE = "003 Creating a Map: Particle Cloud (RULINGS \"Particle clouds\" option)"
STAR_GATE_RULE = eh.STAR_GATE_RULE
BLACK_HOLE_RULE = "003 Creating a Map: Black Hole"


class OrderError(ValueError):
    def __init__(self, where: str, rule: str, message: str):
        self.where, self.rule, self.message = where, rule, message
        super().__init__(f"{where}: {rule}: {message}" if where else f"{rule}: {message}")


@dataclass(frozen=True)
class Split:
    fleet: int
    ships: tuple[int, ...]
    label: str


@dataclass(frozen=True)
class Merge:
    fleets: tuple[int, ...]


@dataclass(frozen=True)
class Move:
    fleet: int | str  # a fleet id, or the label of a fleet split off this turn
    path: tuple[Coord, ...]  # the cells entered, in order (not the start)


@dataclass(frozen=True)
class Orders:
    purchases: tuple[dict, ...] = ()
    splits: tuple[Split, ...] = ()
    merges: tuple[Merge, ...] = ()
    moves: tuple[Move, ...] = ()
    standing: StandingOrders | None = None  # None: keep the standing orders in force

    @property
    def empty(self) -> bool:
        return not (self.purchases or self.splits or self.merges or self.moves or self.standing)


NO_ORDERS = Orders()


# --- parsing --------------------------------------------------------------------------------

def _obj(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise OrderError(where, ORDERS_RULE, f"must be an object, not {type(value).__name__}")
    return value


def _list(value: Any, where: str) -> list:
    if not isinstance(value, list):
        raise OrderError(where, ORDERS_RULE, f"must be a list, not {type(value).__name__}")
    return value


def _int(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise OrderError(where, ORDERS_RULE, f"must be a whole number, not {value!r}")
    return value


def _coord(value: Any, where: str) -> Coord:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise OrderError(where, ORDERS_RULE, f"must be an [x, y] pair, not {value!r}")
    return (value[0], value[1])


def _only(obj: dict, allowed: set[str], where: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        raise OrderError(where, ORDERS_RULE, f"unknown field(s): {', '.join(extra)}")


def parse_standing(raw: Any, where: str = "standing") -> StandingOrders:
    raw = _obj(raw, where)
    _only(raw, {"invasion", "loss_order", "initiative", "drift"}, where)
    orders = []
    for i, item in enumerate(_list(raw.get("invasion", []), f"{where}.invasion")):
        at = f"{where}.invasion[{i}]"
        item = _obj(item, at)
        _only(item, {"hex", "fleet", "response", "retreat_to"}, at)
        response = item.get("response", FIGHT)
        if response not in (FIGHT, RETREAT):
            raise OrderError(at, "003 Invading Enemy Hexes", f"response must be 'fight' or 'retreat', not {response!r}")
        hex_ = _coord(item["hex"], f"{at}.hex") if "hex" in item else None
        fleet = _int(item["fleet"], f"{at}.fleet") if "fleet" in item else None
        if hex_ is not None and fleet is not None:
            raise OrderError(at, ORDERS_RULE, "an invasion order covers a hex or a fleet, not both")
        retreat_to = _coord(item["retreat_to"], f"{at}.retreat_to") if item.get("retreat_to") is not None else None
        orders.append(InvasionOrder(response=response, hex=hex_, fleet=fleet, retreat_to=retreat_to))
    loss = raw.get("loss_order", "cheapest")
    if loss not in LOSS_ORDERS:
        raise OrderError(f"{where}.loss_order", ORDERS_RULE, f"must be one of {', '.join(LOSS_ORDERS)}, not {loss!r}")
    initiative = raw.get("initiative", MOVE_FIRST)
    if initiative not in (MOVE_FIRST, MOVE_LAST):
        raise OrderError(f"{where}.initiative", "003 Initiative Phase", f"must be 'first' or 'last', not {initiative!r}")
    drift = None
    if raw.get("drift") is not None:
        at = f"{where}.drift"
        item = _obj(raw["drift"], at)
        _only(item, set(DRIFT_MODES), at)
        if len(item) != 1:
            raise OrderError(at, DRIFT_RULE, f"a drift order is {{'toward': [x, y]}} or {{'away_from': [x, y]}}, not {item!r}")
        (mode, target), = item.items()
        drift = DriftOrder(mode=mode, hex=_coord(target, f"{at}.{mode}"))
    return StandingOrders(invasion=tuple(orders), loss_order=loss, initiative=initiative, drift=drift)


def parse_orders(raw: Any) -> Orders:
    """The documented JSON structure (docs/orders.md) to ``Orders``; shape errors only."""
    raw = _obj(raw, "orders")
    _only(raw, {"purchases", "split", "merge", "moves", "standing"}, "orders")
    purchases = tuple(_obj(p, f"purchases[{i}]") for i, p in enumerate(_list(raw.get("purchases", []), "purchases")))
    splits = []
    for i, item in enumerate(_list(raw.get("split", []), "split")):
        at = f"split[{i}]"
        item = _obj(item, at)
        _only(item, {"fleet", "ships", "as"}, at)
        label = item.get("as")
        if not isinstance(label, str) or not label.strip():
            raise OrderError(f"{at}.as", ORDERS_RULE, "name the new fleet with a non-empty 'as' label")
        ships = tuple(_int(s, f"{at}.ships[{j}]") for j, s in enumerate(_list(item.get("ships"), f"{at}.ships")))
        splits.append(Split(fleet=_int(item.get("fleet"), f"{at}.fleet"), ships=ships, label=label.strip()))
    merges = []
    for i, item in enumerate(_list(raw.get("merge", []), "merge")):
        at = f"merge[{i}]"
        item = _obj(item, at)
        _only(item, {"fleets"}, at)
        fleets = tuple(_int(f, f"{at}.fleets[{j}]") for j, f in enumerate(_list(item.get("fleets"), f"{at}.fleets")))
        merges.append(Merge(fleets=fleets))
    moves = []
    for i, item in enumerate(_list(raw.get("moves", []), "moves")):
        at = f"moves[{i}]"
        item = _obj(item, at)
        _only(item, {"fleet", "path"}, at)
        fleet = item.get("fleet")
        if not isinstance(fleet, str):
            fleet = _int(fleet, f"{at}.fleet")
        path = tuple(_coord(c, f"{at}.path[{j}]") for j, c in enumerate(_list(item.get("path"), f"{at}.path")))
        moves.append(Move(fleet=fleet, path=path))
    standing = parse_standing(raw["standing"]) if "standing" in raw else None
    return Orders(purchases=purchases, splits=tuple(splits), merges=tuple(merges), moves=tuple(moves), standing=standing)


def orders_to_json(orders: Orders) -> dict:
    """The inverse of ``parse_orders`` (for storage and for echoing a preview)."""
    out: dict[str, Any] = {}
    if orders.purchases:
        out["purchases"] = [dict(p) for p in orders.purchases]
    if orders.splits:
        out["split"] = [{"fleet": s.fleet, "ships": list(s.ships), "as": s.label} for s in orders.splits]
    if orders.merges:
        out["merge"] = [{"fleets": list(m.fleets)} for m in orders.merges]
    if orders.moves:
        out["moves"] = [{"fleet": m.fleet, "path": [list(c) for c in m.path]} for m in orders.moves]
    if orders.standing is not None:
        s = orders.standing
        invasion = []
        for o in s.invasion:
            item: dict[str, Any] = {"response": o.response}
            if o.hex is not None:
                item["hex"] = list(o.hex)
            if o.fleet is not None:
                item["fleet"] = o.fleet
            if o.retreat_to is not None:
                item["retreat_to"] = list(o.retreat_to)
            invasion.append(item)
        out["standing"] = {"invasion": invasion, "loss_order": s.loss_order, "initiative": s.initiative}
        if s.drift is not None:
            out["standing"]["drift"] = {s.drift.mode: list(s.drift.hex)}
    return out


# --- the state as the economy engine sees it ----------------------------------------------

def empire_economy(state: CampaignState, seat: int) -> eh.EmpireEconomy:
    empire = state.empire(seat)
    worlds = tuple(
        eh.OwnedWorld(coord=w.coord, kind=w.kind, economy=w.economy)
        for w in state.worlds_of(seat)
    )
    home = (h.coord if (h := state.home_world(seat)) is not None else None)
    structures = tuple(
        eh.Structure(id=s.id, resource=s.resource, coord=s.coord, technology=s.technology)
        for s in state.structures if s.owner == seat
    )
    fleets_by_ship = {sid: f for f in state.fleets for sid in f.ships}
    ships = tuple(
        eh.ShipAt(id=s.id, coord=fleets_by_ship[s.id].coord, design_name=str(s.design), damage=s.damage)
        for s in state.ships if s.owner == seat and s.id in fleets_by_ship
    )
    return eh.EmpireEconomy(
        bp=empire.bp, home_world=home, worlds=worlds, structures=structures,
        technologies=empire.technologies,
        dockyard_busy=frozenset(b.dockyard for b in state.builds if b.owner == seat),
        ships=ships,
    )


def other_gates(state: CampaignState, seat: int) -> frozenset[Coord]:
    """Hexes where another empire has a star gate: one gate per hex (docs/rulings.md E2)."""
    return frozenset(s.coord for s in state.structures if s.resource is eh.Resource.STAR_GATE and s.owner != seat)


# --- coordinates ------------------------------------------------------------------------------

def off_map(grid, coord: Coord) -> str | None:
    """Why ``coord`` is not a cell of ``grid`` (None if it is): "003 Creating a Map" makes a map
    "of any size", and nothing lies outside it (docs/rulings.md E11)."""
    if grid.in_bounds(coord):
        return None
    return (f"{eh.format_coord(coord)} is off the map (a {grid.width}×{grid.height} map has columns "
            f"0–{grid.width - 1} and rows 0–{grid.height - 1})")


def star_gate_site(grid, terrain_at, coord: Coord) -> tuple[str, str] | None:
    """(rule, reason) if a star gate cannot stand at ``coord``, else None (docs/rulings.md E11).

    "A gate … can be built in any hex": any hex of the map, so never off it; and not in a black
    hole, through which "no ship/fleet can pass" — a gate nobody can enter or capture would be
    120 BP for a structure that only stops Power Projection from ever being won."""
    problem = off_map(grid, coord)
    if problem is not None:
        return STAR_GATE_RULE, f"a star gate is built in a hex of the map; {problem}"
    if terrain_at(coord) is Terrain.BLACK_HOLE:
        return BLACK_HOLE_RULE, (f"no ship/fleet can pass through the black hole at {eh.format_coord(coord)}, "
                                 "so no star gate can be built or used there")
    return None


def check_on_map(state: CampaignState, coord: Coord, where: str, rule: str = MAP_RULE) -> Coord:
    """``coord`` if it is a cell of the campaign's map, else an OrderError naming ``rule``."""
    problem = off_map(state.grid, coord)
    if problem is not None:
        raise OrderError(where, rule, problem)
    return coord


def purchase_items(state: CampaignState, seat: int, raw: tuple[dict, ...],
                   design_names: Mapping[str, int]) -> list[eh.Purchase]:
    """Purchase objects (docs/export-format.md "Purchases") to economy items."""
    items: list[eh.Purchase] = []
    for i, p in enumerate(raw):
        at = f"purchases[{i}]"
        kinds = [k for k in ("buy", "build", "repair") if k in p]
        if len(kinds) != 1:
            raise OrderError(at, ORDERS_RULE, "a purchase needs exactly one of 'buy', 'build' or 'repair'")
        kind = kinds[0]
        allowed = {"buy": {"buy", "at", "technology"}, "build": {"build", "dockyard", "hero_crew", "name"},
                   "repair": {"repair", "dockyard"}}[kind]
        _only(p, allowed, at)
        if kind == "buy":
            try:
                resource = eh.Resource(p["buy"])
            except ValueError:
                raise OrderError(at, "003 Use of BP in a Campaign", f"unknown resource {p['buy']!r}") from None
            technology = None
            if p.get("technology") is not None:
                from .designs import Technology

                try:
                    technology = Technology(p["technology"])
                except ValueError:
                    raise OrderError(at, "003 Research Facility", f"unknown technology {p['technology']!r}") from None
            coord = _coord(p.get("at"), f"{at}.at")
            if resource is eh.Resource.STAR_GATE:
                site = star_gate_site(state.grid, state.terrain_at, coord)
                if site is not None:
                    raise OrderError(f"{at}.at", *site)
            else:
                check_on_map(state, coord, f"{at}.at", "003 Use of BP in a Campaign")
            items.append(eh.BuyResource(resource=resource, coord=coord, technology=technology))
        elif kind == "build":
            name = p["build"]
            if not isinstance(name, str) or name not in design_names:
                raise OrderError(at, "003 Star Ship Design Rules", f"no design named {name!r} is available to you")
            hero = p.get("hero_crew", False)
            if not isinstance(hero, bool):
                raise OrderError(f"{at}.hero_crew", ORDERS_RULE, "must be true or false")
            ship_name = p.get("name", "")
            if not isinstance(ship_name, str) or len(ship_name) > 80:
                raise OrderError(f"{at}.name", ORDERS_RULE, "must be text of at most 80 characters")
            items.append(eh.BuildShip(design=state.designs[design_names[name]], dockyard_id=_int(p.get("dockyard"), f"{at}.dockyard"),
                                      hero_crew=hero, name=ship_name))
        else:
            items.append(eh.RepairShip(ship_id=_int(p["repair"], f"{at}.repair"), dockyard_id=_int(p.get("dockyard"), f"{at}.dockyard")))
    return items


# --- validation -------------------------------------------------------------------------------

@dataclass(frozen=True)
class MovePreview:
    fleet: int | str
    start: Coord
    end: Coord
    speed: int
    steps: int


@dataclass(frozen=True)
class Preview:
    """What valid orders would do, as far as it is known before the turn is resolved."""

    spending: eh.SpendingPlan
    moves: tuple[MovePreview, ...] = ()
    fleets_after_regrouping: tuple[FleetState, ...] = ()
    lines: tuple[str, ...] = field(default=())


def ship_campaign_move(state: CampaignState, ship_id: int) -> int:
    """Half the engine rating, rounded up ("Campaign Movement"); engine damage lowers the
    rating first (docs/rulings.md)."""
    ship = state.ship_index()[ship_id]
    engine = max(0, state.designs[ship.design].engine - ship.damage.engine)
    return (engine + 1) // 2


def fleet_speed(state: CampaignState, ships: tuple[int, ...]) -> int:
    """"Fleets must move at the speed of the slowest vessel"."""
    return min((ship_campaign_move(state, s) for s in ships), default=0)


def is_jump(state: CampaignState, a: Coord, b: Coord) -> bool:
    """A step between two worm holes, or two star gates, costs no movement ("Worm Hole",
    "Star Gate": instantaneous travel)."""
    if a == b:
        return False
    terrain = state.terrain_at
    if terrain(a) is Terrain.WORMHOLE and terrain(b) is Terrain.WORMHOLE:
        return True
    gates = {s.coord for s in state.structures if s.resource is eh.Resource.STAR_GATE}
    return a in gates and b in gates


def regroup(state: CampaignState, seat: int, orders: Orders) -> tuple[tuple[FleetState, ...], dict[str, int]]:
    """Apply splits then merges to the empire's fleets; returns the new fleets and the ids
    given to split labels. Raises OrderError for a bad split or merge."""
    fleets = {f.id: f for f in state.fleets}
    next_fleet = state.next_id("fleet")
    labels: dict[str, int] = {}
    for i, split in enumerate(orders.splits):
        at = f"split[{i}]"
        fleet = fleets.get(split.fleet)
        if fleet is None or fleet.owner != seat:
            raise OrderError(f"{at}.fleet", MOVE_RULE, f"fleet {split.fleet} is not one of yours")
        if split.label in labels:
            raise OrderError(f"{at}.as", ORDERS_RULE, f"the label {split.label!r} is used twice")
        if not split.ships or len(set(split.ships)) != len(split.ships):
            raise OrderError(f"{at}.ships", ORDERS_RULE, "list the ships to split off, each once")
        missing = [s for s in split.ships if s not in fleet.ships]
        if missing:
            raise OrderError(f"{at}.ships", MOVE_RULE, f"ship {missing[0]} is not in fleet {fleet.id}")
        if len(split.ships) == len(fleet.ships):
            raise OrderError(f"{at}.ships", ORDERS_RULE, "a split must leave at least one ship behind")
        fleets[fleet.id] = FleetState(fleet.id, seat, fleet.coord, tuple(s for s in fleet.ships if s not in split.ships))
        fleets[next_fleet] = FleetState(next_fleet, seat, fleet.coord, tuple(split.ships))
        labels[split.label] = next_fleet
        next_fleet += 1
    merged: set[int] = set()
    for i, merge in enumerate(orders.merges):
        at = f"merge[{i}]"
        if len(merge.fleets) < 2 or len(set(merge.fleets)) != len(merge.fleets):
            raise OrderError(f"{at}.fleets", ORDERS_RULE, "a merge names two or more different fleets")
        group = []
        for fid in merge.fleets:
            fleet = fleets.get(fid)
            if fleet is None or fleet.owner != seat:
                raise OrderError(f"{at}.fleets", MOVE_RULE, f"fleet {fid} is not one of yours")
            if fid in merged:
                raise OrderError(f"{at}.fleets", ORDERS_RULE, f"fleet {fid} is merged twice")
            group.append(fleet)
        if len({f.coord for f in group}) != 1:
            raise OrderError(f"{at}.fleets", MOVE_RULE, "only fleets in the same hex can merge")
        first = group[0]
        fleets[first.id] = FleetState(first.id, seat, first.coord, tuple(s for f in group for s in f.ships))
        for fleet in group[1:]:
            del fleets[fleet.id]
            merged.add(fleet.id)
        merged.add(first.id)
    return tuple(sorted(fleets.values(), key=lambda f: f.id)), labels


def validate_orders(state: CampaignState, seat: int, orders: Orders,
                    design_names: Mapping[str, int]) -> Preview:
    """Check orders as a whole against the state; return the preview or raise OrderError."""
    if state.empire(seat).eliminated:
        raise OrderError("", "003 Purpose of the Campaign", "your empire has been eliminated")
    if orders.standing is not None:
        for i, order in enumerate(orders.standing.invasion):
            for key in ("hex", "retreat_to"):
                if getattr(order, key) is not None:
                    check_on_map(state, getattr(order, key), f"standing.invasion[{i}].{key}", "003 Invading Enemy Hexes")
        if orders.standing.drift is not None:
            check_on_map(state, orders.standing.drift.hex, f"standing.drift.{orders.standing.drift.mode}", DRIFT_RULE)
    economy = empire_economy(state, seat)
    items = purchase_items(state, seat, orders.purchases, design_names)
    try:
        plan = eh.validate_spending(economy, items, designs={str(k): v for k, v in state.designs.items()},
                                    other_gates=other_gates(state, seat))
    except eh.SpendingError as exc:
        raise OrderError(f"purchases[{exc.index}]", exc.rule, f"{exc.description}: {exc.message}") from None
    except DesignError as exc:
        raise OrderError("purchases", exc.rule, exc.message) from None
    fleets, labels = regroup(state, seat, orders)
    by_id = {f.id: f for f in fleets}
    grid = state.grid
    moved: set[int] = set()
    previews = []
    for i, move in enumerate(orders.moves):
        at = f"moves[{i}]"
        fid = labels.get(move.fleet) if isinstance(move.fleet, str) else move.fleet
        if isinstance(move.fleet, str) and fid is None:
            raise OrderError(f"{at}.fleet", ORDERS_RULE, f"no fleet is split off as {move.fleet!r}")
        fleet = by_id.get(fid)
        if fleet is None or fleet.owner != seat:
            raise OrderError(f"{at}.fleet", MOVE_RULE, f"fleet {move.fleet} is not one of yours")
        if fid in moved:
            raise OrderError(f"{at}.fleet", MOVE_RULE, f"fleet {move.fleet} is given two moves")
        moved.add(fid)
        if not move.path:
            raise OrderError(f"{at}.path", MOVE_RULE, "a move needs at least one hex")
        speed = fleet_speed(state, fleet.ships)
        here, steps = fleet.coord, 0
        for j, cell in enumerate(move.path):
            where = f"{at}.path[{j}]"
            if not grid.in_bounds(cell):
                raise OrderError(where, MOVE_RULE, f"{cell} is off the map")
            if state.terrain_at(cell) is Terrain.BLACK_HOLE:
                raise OrderError(where, "003 Creating a Map: Black Hole", f"no fleet can pass through the black hole at {cell}")
            if is_jump(state, here, cell):
                pass
            elif cell in grid.neighbours(here):
                steps += 1
            else:
                raise OrderError(where, MOVE_RULE, f"{cell} is not next to {here}")
            here = cell
        if steps > speed:
            raise OrderError(f"{at}.path", MOVE_RULE,
                             f"the path is {steps} hexes but fleet {move.fleet} moves {speed} (its slowest ship)")
        previews.append(MovePreview(fleet=move.fleet, start=fleet.coord, end=here, speed=speed, steps=steps))
    lines = [f"Spend {plan.total} BP, {plan.bp_left} BP left"]
    lines += [f"  {p.item.describe()}: {p.cost} BP" for p in plan.items]
    lines += [f"Fleet {m.fleet}: {m.start} to {m.end} ({m.steps} of {m.speed} moves)" for m in previews]
    if orders.standing is not None and orders.standing.drift is not None:
        drift = orders.standing.drift
        lines.append(f"Drift order: opponents' fleets you steer drift {drift.mode.replace('_', ' ')} {drift.hex}"
                     + ("" if state.options.get("steered_drift") else
                        " (kept, but this campaign's drift is random: the steered-drift option is off)"))
    return Preview(spending=plan, moves=tuple(previews), fleets_after_regrouping=fleets, lines=tuple(lines))
