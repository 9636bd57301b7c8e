"""The Event Horizon campaign as one frozen value: what every step of the turn pipeline reads
and returns (pure Python).

Empires are named by their seat (1–8). Ships, fleets and structures carry campaign-wide integer
ids; new ones take the next free id (``CampaignState.next_id``), so resolution is deterministic.
Designs are referenced by integer id into ``CampaignState.designs``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any

from ..grid import Coord
from .designs import Design, ShipType, Technology
from .economy import NO_DAMAGE, Damage, Resource, WorldKind
from .mapgen import EconomyType, GeneratedMap, Terrain

FIGHT = "fight"
RETREAT = "retreat"
MOVE_FIRST = "first"
MOVE_LAST = "last"
LOSS_ORDERS = ("cheapest", "costliest")
DRIFT_TOWARD = "toward"
DRIFT_AWAY = "away_from"
DRIFT_MODES = (DRIFT_TOWARD, DRIFT_AWAY)


@dataclass(frozen=True)
class InvasionOrder:
    """A standing order for when an enemy enters a hex: fight (default) or retreat, optionally
    to a named hex (RULINGS "Invasion"). ``hex`` or ``fleet`` says what it covers; neither
    means the empire's default."""

    response: str = FIGHT
    hex: Coord | None = None
    fleet: int | None = None
    retreat_to: Coord | None = None


@dataclass(frozen=True)
class DriftOrder:
    """How this empire steers an opponent's fleet that drifts in a particle cloud, when the
    campaign's steered-drift option is on and this empire is the nearest opponent (RULINGS
    "Particle clouds" option; docs/rulings.md P2): each point of drift moves it to the passable
    neighbour nearest ``hex`` (``toward``) or farthest from it (``away_from``)."""

    mode: str
    hex: Coord


@dataclass(frozen=True)
class StandingOrders:
    """Decisions made in advance (RULINGS "Live decisions become standing orders")."""

    invasion: tuple[InvasionOrder, ...] = ()
    loss_order: str = "cheapest"
    initiative: str = MOVE_FIRST
    drift: DriftOrder | None = None  # None: an opponent's drift this empire steers is random

    def invasion_response(self, hex: Coord, fleet: int | None = None) -> InvasionOrder:
        """The order for a fleet (its own order first, then its hex's, then the default)."""
        if fleet is not None:
            for order in self.invasion:
                if order.fleet == fleet:
                    return order
        for order in self.invasion:
            if order.hex == hex and order.fleet is None:
                return order
        for order in self.invasion:
            if order.hex is None and order.fleet is None:
                return order
        return InvasionOrder()


@dataclass(frozen=True)
class ShipState:
    id: int
    owner: int
    design: int
    name: str = ""
    hero_crew: bool = False
    damage: Damage = NO_DAMAGE


@dataclass(frozen=True)
class FleetState:
    """Ships that move together. A lone ship is a fleet of one (it is not a "fleet" for
    interdiction, which needs two or more ships: RULINGS "Trade routes")."""

    id: int
    owner: int
    coord: Coord
    ships: tuple[int, ...]


@dataclass(frozen=True)
class WorldState:
    coord: Coord
    kind: WorldKind
    economy: EconomyType | None = None
    owner: int | None = None
    home_of: int | None = None
    # A hold-out garrison denies an invader ownership for one campaign turn: the invader
    # takes the world at the end of turn ``held_out_until`` (003 Hold Out Garrison).
    held_out_by: int | None = None
    held_out_until: int | None = None


@dataclass(frozen=True)
class StructureState:
    id: int
    owner: int
    resource: Resource
    coord: Coord
    technology: Technology | None = None


@dataclass(frozen=True)
class BuildState:
    """A ship on the stocks at dockyard ``dockyard`` (a structure id)."""

    dockyard: int
    owner: int
    design: int
    turns_left: int
    hero_crew: bool = False
    name: str = ""


@dataclass(frozen=True)
class EmpireState:
    seat: int
    name: str
    bp: int
    technologies: frozenset[Technology] = frozenset()
    eliminated: bool = False
    is_bot: bool = False
    standing: StandingOrders = StandingOrders()
    # Trade War: consecutive turns this empire has interdicted each victim's home routes.
    trade_war: tuple[tuple[int, int], ...] = ()

    def trade_war_count(self, victim: int) -> int:
        return dict(self.trade_war).get(victim, 0)


@dataclass(frozen=True)
class CampaignState:
    turn: int
    map: GeneratedMap
    empires: tuple[EmpireState, ...]
    worlds: tuple[WorldState, ...]
    designs: Mapping[int, Design]
    structures: tuple[StructureState, ...] = ()
    ships: tuple[ShipState, ...] = ()
    fleets: tuple[FleetState, ...] = ()
    builds: tuple[BuildState, ...] = ()
    # Repairs paid this turn, done at its end if the ship is still there: (ship id, dockyard id).
    repairs: tuple[tuple[int, int], ...] = ()
    purpose: int | None = None  # the d6 of "Purpose of the Campaign", once rolled
    winner: int | None = None
    finished: bool = False
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # The highest id ever given, by kind ("ship", "fleet", "structure"): ids are never reused,
    # even after the ship, fleet or structure holding the highest one is gone.
    id_floor: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "designs", MappingProxyType(dict(self.designs)))
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        object.__setattr__(self, "id_floor", MappingProxyType(dict(self.id_floor)))

    # --- lookups (linear scans are fine at campaign sizes; hot loops build their own maps) --
    @property
    def grid(self):
        return self.map.grid

    def terrain_at(self, c: Coord) -> Terrain:
        return self.map.terrain_at(c)

    def empire(self, seat: int) -> EmpireState:
        for empire in self.empires:
            if empire.seat == seat:
                return empire
        raise KeyError(f"no empire in seat {seat}")

    def active_seats(self) -> tuple[int, ...]:
        return tuple(e.seat for e in self.empires if not e.eliminated)

    def world_at(self, c: Coord) -> WorldState | None:
        return self.world_index().get(c)

    # The indexes are built once per state value (the state is frozen, so they never go
    # stale); callers must not mutate the dicts they get.
    @cached_property
    def _world_index(self) -> dict[Coord, WorldState]:
        return {w.coord: w for w in self.worlds}

    @cached_property
    def _ship_index(self) -> dict[int, ShipState]:
        return {s.id: s for s in self.ships}

    @cached_property
    def _worlds_by_owner(self) -> dict[int, tuple[WorldState, ...]]:
        out: dict[int, list[WorldState]] = {}
        for w in self.worlds:
            if w.owner is not None:
                out.setdefault(w.owner, []).append(w)
        return {seat: tuple(ws) for seat, ws in out.items()}

    def world_index(self) -> dict[Coord, WorldState]:
        return self._world_index

    @cached_property
    def _home_worlds(self) -> dict[int, WorldState]:
        out: dict[int, WorldState] = {}
        for w in self.worlds:
            if w.home_of is not None:
                out.setdefault(w.home_of, w)
        return out

    @cached_property
    def _ship_holders(self) -> dict[Coord, frozenset[int]]:
        holders: dict[Coord, set[int]] = {}
        for f in self.fleets:
            if f.ships:
                holders.setdefault(f.coord, set()).add(f.owner)
        return {c: frozenset(seats) for c, seats in holders.items()}

    def ship_holders(self) -> dict[Coord, frozenset[int]]:
        """Cell -> the seats with ships there (callers must not mutate it)."""
        return self._ship_holders

    def home_world(self, seat: int) -> WorldState | None:
        """The first world (in ``worlds`` order) that is ``seat``'s home world, or None."""
        return self._home_worlds.get(seat)

    def worlds_of(self, seat: int) -> tuple[WorldState, ...]:
        """The worlds ``seat`` owns, in the order of ``worlds``."""
        return self._worlds_by_owner.get(seat, ())

    def ship_index(self) -> dict[int, ShipState]:
        return self._ship_index

    def fleet(self, fleet_id: int) -> FleetState | None:
        return next((f for f in self.fleets if f.id == fleet_id), None)

    def fleets_at(self, c: Coord) -> tuple[FleetState, ...]:
        return tuple(f for f in self.fleets if f.coord == c)

    def structures_at(self, c: Coord) -> tuple[StructureState, ...]:
        return tuple(s for s in self.structures if s.coord == c)

    def ship_bp(self, ship: ShipState) -> int:
        """A ship's BP: its design's BP plus 30 for a hero crew (RULINGS "Auto-resolve odds")."""
        return self.designs[ship.design].bp + (30 if ship.hero_crew else 0)

    def ship_type(self, ship: ShipState) -> ShipType:
        return self.designs[ship.design].ship_type

    def _ids(self, kind: str) -> Iterable[int]:
        if kind == "ship":
            return (s.id for s in self.ships)
        if kind == "fleet":
            return (f.id for f in self.fleets)
        if kind == "structure":
            return (s.id for s in self.structures)
        raise ValueError(f"unknown id kind {kind!r}")

    def next_id(self, kind: str) -> int:
        return max(max(self._ids(kind), default=0), self.id_floor.get(kind, 0)) + 1

    def with_id_floor(self) -> CampaignState:
        """The state with its id floor raised to every id now in use."""
        floor = {kind: max(max(self._ids(kind), default=0), self.id_floor.get(kind, 0))
                 for kind in ("ship", "fleet", "structure")}
        return self if floor == dict(self.id_floor) else replace(self, id_floor=floor)

    def with_empire(self, empire: EmpireState) -> CampaignState:
        return replace(self, empires=tuple(empire if e.seat == empire.seat else e for e in self.empires))


@dataclass(frozen=True)
class Event:
    """Something that happened during a turn, for reports. ``seats`` are the empires involved;
    ``public`` events go to every report (subject to fog of war later), others only to
    ``seats``. ``data`` holds JSON-friendly details (dice faces included)."""

    step: str
    kind: str
    seats: tuple[int, ...] = ()
    text: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)
    public: bool = False
