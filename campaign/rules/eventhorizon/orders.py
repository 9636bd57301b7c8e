"""A player's orders for one Event Horizon campaign turn: the JSON form (docs/orders.md), its
parsing and its validation against the campaign state, with a preview of the effect.

Pure Python. ``parse_orders`` checks the shape; ``validate_orders`` checks the orders against the
rules and the state and returns a ``Preview``. Both raise ``OrderError`` naming the rule and the
place in the document (``moves[1].path[2]``); nothing is applied here. Every problem is found,
not only the first: the error raised is an ``OrderErrors`` listing them all (its own ``where``,
``rule`` and ``message`` are the first one's), so a player fixes them in one go (issue 13 item 14).
``purchase_options`` says which resources, dockyards and designs can still be ordered, and why not.
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
BUILD_TIME_RULE = eh.BUILD_TIME_RULE
ORDERS_RULE = "the orders format (explained in the API documentation)"
MAP_RULE = "003 Creating a Map"
DRIFT_RULE = "003 Creating a Map: Particle Cloud (house ruling \"Particle clouds\", an option)"
STAR_GATE_RULE = eh.STAR_GATE_RULE
BLACK_HOLE_RULE = "003 Creating a Map: Black Hole"


class OrderError(ValueError):
    def __init__(self, where: str, rule: str, message: str):
        self.where, self.rule, self.message = where, rule, message
        super().__init__(f"{where}: {rule}: {message}" if where else f"{rule}: {message}")

    @property
    def problems(self) -> tuple[OrderError, ...]:
        return (self,)

    def as_dict(self) -> dict:
        return {"where": self.where, "rule": self.rule, "message": self.message, "text": OrderError.__str__(self)}


class OrderErrors(OrderError):
    """Several problems in one set of orders, in document order; the first is this error's own."""

    def __init__(self, errors):
        flat = [p for e in errors for p in e.problems]
        if not flat:
            raise ValueError("OrderErrors needs at least one error")
        self.errors = tuple(flat)
        first = self.errors[0]
        super().__init__(first.where, first.rule, first.message)

    @property
    def problems(self) -> tuple[OrderError, ...]:
        return self.errors

    def __str__(self) -> str:
        return "\n".join(OrderError.__str__(e) for e in self.errors)


def _raise_all(errors: list[OrderError]) -> None:
    if errors:
        raise errors[0] if len(errors) == 1 else OrderErrors(errors)


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
    if obj.keys() <= allowed:
        return
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
        raise OrderError(
            f"{where}.initiative", "003 Initiative Phase", f"must be 'first' or 'last', not {initiative!r}"
        )
    drift = None
    if raw.get("drift") is not None:
        at = f"{where}.drift"
        item = _obj(raw["drift"], at)
        _only(item, set(DRIFT_MODES), at)
        if len(item) != 1:
            raise OrderError(
                at,
                DRIFT_RULE,
                f"a drift order is {{'toward': [x, y]}} or {{'away_from': [x, y]}}, not {item!r}",
            )
        (mode, target), = item.items()
        drift = DriftOrder(mode=mode, hex=_coord(target, f"{at}.{mode}"))
    return StandingOrders(invasion=tuple(orders), loss_order=loss, initiative=initiative, drift=drift)


def _parse_split(item: Any, at: str) -> Split:
    item = _obj(item, at)
    _only(item, {"fleet", "ships", "as"}, at)
    label = item.get("as")
    if not isinstance(label, str) or not label.strip():
        raise OrderError(f"{at}.as", ORDERS_RULE, "name the new fleet with a non-empty 'as' label")
    ships = tuple(_int(s, f"{at}.ships[{j}]") for j, s in enumerate(_list(item.get("ships"), f"{at}.ships")))
    return Split(fleet=_int(item.get("fleet"), f"{at}.fleet"), ships=ships, label=label.strip())


def _parse_merge(item: Any, at: str) -> Merge:
    item = _obj(item, at)
    _only(item, {"fleets"}, at)
    return Merge(
        fleets=tuple(
            _int(f, f"{at}.fleets[{j}]") for j, f in enumerate(_list(item.get("fleets"), f"{at}.fleets"))
        )
    )


def _parse_move(item: Any, at: str) -> Move:
    item = _obj(item, at)
    _only(item, {"fleet", "path"}, at)
    fleet = item.get("fleet")
    if not isinstance(fleet, str):
        fleet = _int(fleet, f"{at}.fleet")
    steps = item.get("path")
    if type(steps) is not list:
        steps = _list(steps, f"{at}.path")
    # A well-formed [x, y] step is taken as it is; anything else gets _coord's check and message.
    path = tuple((c[0], c[1]) if type(c) is list and len(c) == 2 and type(c[0]) is int and type(c[1]) is int
                 else _coord(c, f"{at}.path[{j}]") for j, c in enumerate(steps))
    return Move(fleet=fleet, path=path)


def parse_orders_collecting(raw: Any) -> tuple[Orders, list[OrderError]]:
    """The orders that parse, and an error for each part that does not (that part is left out)."""
    raw = _obj(raw, "orders")
    errors: list[OrderError] = []
    try:
        _only(raw, {"purchases", "split", "merge", "moves", "standing"}, "orders")
    except OrderError as exc:
        errors.append(exc)

    def items(key: str, parse) -> tuple:
        try:
            values = _list(raw.get(key, []), key)
        except OrderError as exc:
            errors.append(exc)
            return ()
        out = []
        for i, value in enumerate(values):
            try:
                out.append(parse(value, f"{key}[{i}]"))
            except OrderError as exc:
                errors.append(exc)
        return tuple(out)

    purchases = items("purchases", _obj)
    splits = items("split", _parse_split)
    merges = items("merge", _parse_merge)
    moves = items("moves", _parse_move)
    standing = None
    if "standing" in raw:
        try:
            standing = parse_standing(raw["standing"])
        except OrderError as exc:
            errors.append(exc)
    return Orders(purchases=purchases, splits=splits, merges=merges, moves=moves, standing=standing), errors


def parse_orders(raw: Any) -> Orders:
    """The documented JSON structure (docs/orders.md) to ``Orders``; shape errors only (all of
    them, as ``OrderErrors`` when there are several)."""
    orders, errors = parse_orders_collecting(raw)
    _raise_all(errors)
    return orders


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
    # Kept on the state, as its indexes are (frozen, so never stale; the economy is frozen too):
    # a player's order checks against the kept view build it once (issue 34 item 10).
    kept = state.__dict__.setdefault("_economies", {})
    found = kept.get(seat)
    if found is None:
        found = kept[seat] = _empire_economy(state, seat)
    return found


def _empire_economy(state: CampaignState, seat: int) -> eh.EmpireEconomy:
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


# The fields of each kind of purchase (docs/export-format.md "Purchases").
_PURCHASE_FIELDS = {"buy": frozenset({"buy", "at", "technology"}),
                    "build": frozenset({"build", "dockyard", "hero_crew", "name"}),
                    "repair": frozenset({"repair", "dockyard"})}


def purchase_items(state: CampaignState, seat: int, raw: tuple[dict, ...],
                   design_names: Mapping[str, int]) -> list[eh.Purchase]:
    """Purchase objects (docs/export-format.md "Purchases") to economy items."""
    items: list[eh.Purchase] = []
    for i, p in enumerate(raw):
        at = f"purchases[{i}]"
        kinds = [k for k in _PURCHASE_FIELDS if k in p]
        if len(kinds) != 1:
            raise OrderError(at, ORDERS_RULE, "a purchase needs exactly one of 'buy', 'build' or 'repair'")
        kind = kinds[0]
        _only(p, _PURCHASE_FIELDS[kind], at)
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
            items.append(
                eh.BuildShip(
                    design=state.designs[design_names[name]],
                    dockyard_id=_int(p.get("dockyard"), f"{at}.dockyard"),
                    hero_crew=hero,
                    name=ship_name,
                )
            )
        else:
            items.append(
                eh.RepairShip(
                    ship_id=_int(p["repair"], f"{at}.repair"),
                    dockyard_id=_int(p.get("dockyard"), f"{at}.dockyard"),
                )
            )
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
    # The ids given to the fleets split off, by label (``regroup``'s second answer).
    split_ids: tuple[tuple[str, int], ...] = ()
    lines: tuple[str, ...] = field(default=())
    # Warnings, not refusals: the orders are valid but may cost the player dearly
    # (campaign/rules/eventhorizon/warnings.py).
    warnings: tuple[str, ...] = field(default=())


def ship_campaign_move(state: CampaignState, ship_id: int) -> int:
    """Half the engine rating, rounded up ("Campaign Movement"); engine damage lowers the
    rating first (docs/rulings.md)."""
    ship = state.ship_index()[ship_id]
    engine = max(0, state.designs[ship.design].engine - ship.damage.engine)
    return (engine + 1) // 2


def fleet_speed(state: CampaignState, ships: tuple[int, ...]) -> int:
    """"Fleets must move at the speed of the slowest vessel". Each ship's move is worked out
    once per (frozen) state and kept on it, as its indexes are."""
    moves = state.__dict__.setdefault("_ship_moves", {})
    slowest = None
    for ship in ships:
        move = moves.get(ship)
        if move is None:
            move = moves[ship] = ship_campaign_move(state, ship)
        if slowest is None or move < slowest:
            slowest = move
    return 0 if slowest is None else slowest


@dataclass(frozen=True)
class PathRules:
    """Which steps a path may take, for the order check and for the order page's path editor
    alike (issue 23 item 2: the editor offers exactly the steps the check accepts; the page sends
    ``as_json()`` and ``static/orders.js`` applies ``step_cost`` to it).

    A step goes to a neighbouring cell on the map (one move) or jumps between two worm holes or
    two star gates (no move: ``is_jump``); no step enters a black hole."""

    blocked: frozenset[Coord]
    jumps: tuple[frozenset[Coord], ...]

    @classmethod
    def of(cls, state: CampaignState) -> PathRules:
        found = state.__dict__.get("_path_rules")  # kept on the (frozen) state, as its indexes are
        if type(found) is not cls:
            gates = frozenset(s.coord for s in state.structures if s.resource is eh.Resource.STAR_GATE)
            found = state.__dict__["_path_rules"] = cls(
                blocked=frozenset(state.map.cells_of(Terrain.BLACK_HOLE)),
                jumps=(frozenset(state.map.cells_of(Terrain.WORMHOLE)), gates))
        return found

    def is_jump(self, a: Coord, b: Coord) -> bool:
        if a == b:
            return False
        for group in self.jumps:  # a loop, not any(…): asked for every step of every path
            if a in group and b in group:
                return True
        return False

    def step_cost(self, grid, here: Coord, cell: Coord) -> int | None:
        """Moves the step costs (0 for a jump), or None when it is no step at all (off the map,
        into a black hole, or to a cell that is not next to ``here``)."""
        if cell in self.blocked:
            return None
        if self.is_jump(here, cell):  # worm holes and star gates are on the map
            return 0
        return 1 if cell in self._neighbours(grid, here) else None

    def _neighbours(self, grid, here: Coord) -> frozenset[Coord]:
        """The in-bounds cells at distance 1 from ``here`` (both grids), worked out once per cell
        and kept with these rules (themselves kept per frozen state): every step of every path
        asks."""
        kept = self.__dict__.get("_neighbours_of")
        if kept is None or kept[0] is not grid:
            kept = self.__dict__["_neighbours_of"] = (grid, {})
        near = kept[1].get(here)
        if near is None:
            near = kept[1][here] = frozenset(grid.neighbours(here))
        return near

    def as_json(self) -> dict:
        return {"blocked": sorted(map(list, self.blocked)),
                "jumps": [sorted(map(list, group)) for group in self.jumps if len(group) > 1]}


def is_jump(state: CampaignState, a: Coord, b: Coord) -> bool:
    """A step between two worm holes, or two star gates, costs no movement ("Worm Hole",
    "Star Gate": instantaneous travel). For one step; a whole turn's checks build ``PathRules`` once."""
    return PathRules.of(state).is_jump(a, b)


def regroup(state: CampaignState, seat: int, orders: Orders,
            errors: list[OrderError] | None = None) -> tuple[tuple[FleetState, ...], dict[str, int]]:
    """Apply splits then merges to the empire's fleets; returns the new fleets and the ids
    given to split labels. Raises OrderError for a bad split or merge; with ``errors`` given,
    appends each bad split or merge to it instead, leaves that one out and goes on."""
    fleets = {f.id: f for f in state.fleets}
    next_fleet = state.next_id("fleet")
    labels: dict[str, int] = {}

    def do_split(i: int, split: Split) -> None:
        nonlocal next_fleet
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
        fleets[fleet.id] = FleetState(
            fleet.id, seat, fleet.coord, tuple(s for s in fleet.ships if s not in split.ships)
        )
        fleets[next_fleet] = FleetState(next_fleet, seat, fleet.coord, tuple(split.ships))
        labels[split.label] = next_fleet
        next_fleet += 1

    merged: set[int] = set()

    def do_merge(i: int, merge: Merge) -> None:
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

    for step, entries in ((do_split, orders.splits), (do_merge, orders.merges)):
        for i, entry in enumerate(entries):
            try:
                step(i, entry)
            except OrderError as exc:
                if errors is None:
                    raise
                errors.append(exc)
    return tuple(sorted(fleets.values(), key=lambda f: f.id)), labels


def _spending(state: CampaignState, seat: int, orders: Orders, design_names: Mapping[str, int],
              errors: list[OrderError], *, setup: bool = False) -> tuple[eh.SpendingPlan, list[eh.Purchase]]:
    """The plan of every purchase that passes; each one refused is added to ``errors`` (with
    its place in the list) and left out, and the rest are checked without it. ``setup``: the
    set-up round's purchase (``eh.validate_spending``; campaign/rules/eventhorizon/setup.py)."""
    economy = empire_economy(state, seat)
    items: list[tuple[int, eh.Purchase]] = []
    for i, raw in enumerate(orders.purchases):
        try:
            (item,) = purchase_items(state, seat, (raw,), design_names)
        except OrderError as exc:
            errors.append(OrderError(exc.where.replace("purchases[0]", f"purchases[{i}]", 1), exc.rule, exc.message))
            continue
        items.append((i, item))
    refused: list[OrderError] = []
    designs = {str(k): v for k, v in state.designs.items()}
    gates = other_gates(state, seat)
    while True:
        try:
            plan = eh.validate_spending(economy, [item for _, item in items], designs=designs, other_gates=gates,
                                        setup=setup)
        except eh.SpendingError as exc:
            index = items[exc.index][0]
            refused.append(OrderError(f"purchases[{index}]", exc.rule, f"{exc.description}: {exc.message}"))
            del items[exc.index]
            continue
        except DesignError as exc:
            refused.append(OrderError("purchases", exc.rule, exc.message))
            items = []
            continue
        break
    errors.extend(sorted(refused, key=lambda e: e.where))
    return plan, [item for _, item in items]


def validate_orders(state: CampaignState, seat: int, orders: Orders,
                    design_names: Mapping[str, int], *, errors: list[OrderError] | None = None) -> Preview:
    """Check orders as a whole against the state; return the preview or raise OrderError
    (``OrderErrors`` when several things are wrong). ``errors`` (from parsing, say) are
    reported with the others."""
    if state.empire(seat).eliminated:
        raise OrderError("", "003 Purpose of the Campaign", "your empire has been eliminated")
    errors = list(errors or ())
    if orders.standing is not None:
        # Standing orders name hexes too: each off the map is one more problem (issue 13 item 3).
        places = [(order.hex if key == "hex" else order.retreat_to, f"standing.invasion[{i}].{key}",
                   "003 Invading Enemy Hexes")
                  for i, order in enumerate(orders.standing.invasion) for key in ("hex", "retreat_to")]
        if orders.standing.drift is not None:
            places.append((orders.standing.drift.hex, f"standing.drift.{orders.standing.drift.mode}", DRIFT_RULE))
        for cell, where, rule in places:
            if cell is None:
                continue
            try:
                check_on_map(state, cell, where, rule)
            except OrderError as exc:
                errors.append(exc)
    plan, _ = _spending(state, seat, orders, design_names, errors)
    fleets, labels = regroup(state, seat, orders, errors)
    by_id = {f.id: f for f in fleets}
    grid = state.grid
    paths = PathRules.of(state)
    moved: set[int] = set()
    previews = []

    def check_move(i: int, move: Move) -> MovePreview:
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
            cost = paths.step_cost(grid, here, cell)
            if cost is None:
                where = f"{at}.path[{j}]"
                if not grid.in_bounds(cell):
                    raise OrderError(where, MOVE_RULE, f"{cell} is off the map")
                if cell in paths.blocked:
                    raise OrderError(where, "003 Creating a Map: Black Hole",
                                     f"no fleet can pass through the black hole at {cell}")
                raise OrderError(where, MOVE_RULE, f"{cell} is not next to {here}")
            steps += cost
            here = cell
        if steps > speed:
            raise OrderError(f"{at}.path", MOVE_RULE,
                             f"the path is {steps} hexes but fleet {move.fleet} moves {speed} (its slowest ship)")
        return MovePreview(fleet=move.fleet, start=fleet.coord, end=here, speed=speed, steps=steps)

    for i, move in enumerate(orders.moves):
        try:
            previews.append(check_move(i, move))
        except OrderError as exc:
            errors.append(exc)
    _raise_all(errors)
    lines = [f"Spend {plan.total} BP, {plan.bp_left} BP left"]
    lines += [f"  {p.item.describe()}: {p.cost} BP" for p in plan.items]
    lines += [f"Fleet {m.fleet}: {m.start} to {m.end} ({m.steps} of {m.speed} moves)" for m in previews]
    if orders.standing is not None and orders.standing.drift is not None:
        drift = orders.standing.drift
        lines.append(f"Drift order: opponents' fleets you steer drift {drift.mode.replace('_', ' ')} {drift.hex}"
                     + ("" if state.options.get("steered_drift") else
                        " (kept, but this campaign's drift is random: the steered-drift option is off)"))
    return Preview(spending=plan, moves=tuple(previews), fleets_after_regrouping=fleets,
                   split_ids=tuple(labels.items()), lines=tuple(lines))


def check_orders(state: CampaignState, seat: int, raw: Any, design_names: Mapping[str, int]) -> Preview:
    """Parse and validate raw JSON orders, reporting every problem in both (``OrderErrors``)."""
    orders, errors = parse_orders_collecting(raw)
    return validate_orders(state, seat, orders, design_names, errors=errors)


# --- what can still be ordered -----------------------------------------------------------------

def purchase_options(state: CampaignState, seat: int, raw_purchases: Any,
                     design_names: Mapping[str, int], *, setup: bool = False) -> dict:
    """What the order form may offer after the purchases already listed (those that pass):
    for each resource, each owned world where it can be bought or the reason it cannot
    ("Use of BP in a Campaign": prerequisites, one per world per turn, BP); for each dockyard,
    whether it can take a build or repair this turn; for each design, whether the empire can build
    it (its technologies, the BP left). Reasons are the refusals a purchase of it
    would get, so the form and the preview say the same thing."""
    raw = raw_purchases if isinstance(raw_purchases, list) else []
    raw = [p for p in raw if isinstance(p, dict)]
    scratch: list[OrderError] = []
    plan, kept = _spending(state, seat, Orders(purchases=tuple(raw)), design_names, scratch, setup=setup)
    economy = empire_economy(state, seat)
    designs = {str(k): v for k, v in state.designs.items()}
    gates = other_gates(state, seat)

    def refusal(extra: eh.Purchase) -> str:
        try:
            eh.validate_spending(economy, [*kept, extra], designs=designs, other_gates=gates, setup=setup)
        except eh.SpendingError as exc:
            return exc.message if exc.index == len(kept) else ""
        except DesignError as exc:
            return exc.message
        return ""

    from .designs import Technology

    open_tech = next((t for t in Technology if t not in economy.technologies), None)
    worlds = [w.coord for w in state.worlds_of(seat)]
    taken = set(worlds) | set(gates) | {s.coord for s in economy.structures}
    free_hex = next((c for c in state.grid.cells() if c not in taken and state.terrain_at(c) is Terrain.EMPTY), None)
    resources = {}
    for resource in eh.Resource:
        if resource is eh.Resource.RESEARCH_FACILITY and open_tech is None:
            reasons = {c: "every technology has been researched" for c in worlds}
        else:
            tech = open_tech if resource is eh.Resource.RESEARCH_FACILITY else None
            reasons = {c: refusal(eh.BuyResource(resource=resource, coord=c, technology=tech)) for c in worlds}
        usable = [c for c in worlds if not reasons[c]]
        home = state.home_world(seat)
        first = home.coord if home is not None and home.coord in reasons else (worlds[0] if worlds else None)
        reason = "" if usable else (reasons[first] if first is not None else "you own no world")
        if resource.scope is eh.Scope.ANY_HEX and not usable and free_hex is not None:
            # A star gate needs no world: what stops it anywhere is what stops it in a free hex.
            reason = refusal(eh.BuyResource(resource=resource, coord=free_hex))
        resources[resource.value] = {
            "ok": not reason,
            "reason": reason,
            "worlds": {f"{c[0]},{c[1]}": reasons[c] for c in worlds},
        }
    dockyards = {}
    used = {getattr(item, "dockyard_id", None) for item in kept}
    for s in economy.structures:
        if s.resource is not eh.Resource.DOCKYARD:
            continue
        reason = ""
        if setup:
            pass  # the set-up round: a dockyard takes any number of ships (docs/rulings.md SU2)
        elif s.id in economy.dockyard_busy:
            reason = f"still building a ship ({BUILD_TIME_RULE})"
        elif s.id in used:
            reason = "already has a build or repair this turn (003 Use of BP in a Campaign: Note)"
        dockyards[str(s.id)] = reason
    from .designs import validate_design

    designs = {}
    for name, pk in design_names.items():
        design = state.designs.get(pk)
        if design is None:
            continue
        reason = ""
        try:
            validate_design(design, plan.economy_after.technologies)
        except DesignError as exc:
            reason = exc.message
        else:
            if design.bp > plan.bp_left:
                reason = f"costs {design.bp} BP but only {plan.bp_left} BP are left"
        designs[name] = reason
    return {"resources": resources, "dockyards": dockyards, "designs": designs}
