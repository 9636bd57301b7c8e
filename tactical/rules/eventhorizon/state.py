"""The tactical battle as frozen values: ships, the battlefield, the deck, the activation.

Rule book ``seeds/003_…`` "Event Horizon – Quick Play Star Ship Combat Rules". Pure Python.
A ``TacticalShip`` is built from a campaign ``Design`` (``campaign/rules/eventhorizon/designs.py``)
plus the ``Damage`` it carries (``economy.py``) and its hero crew; see ``deploy.py``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from campaign.rules.eventhorizon.designs import Design
from tactical.rules.kit import Event, IllegalActionError, build, derive, evolve

from .cards import Card
from .geometry import ARC_NAMES, FACING_NAMES, Coord

# Terrain of a battlefield square ("Spatial Anomalies").
PLANET, BLACK_HOLE, SUN, CLOUD, WORMHOLE = "planet", "black_hole", "sun", "cloud", "wormhole"
TERRAIN_KINDS = (PLANET, BLACK_HOLE, SUN, CLOUD, WORMHOLE)

# Ship status.
ACTIVE, LANDED, DESTROYED, WARPED_OUT = "active", "landed", "destroyed", "warped_out"

# Life support ("18 = Life support lost – … auxiliary life support").
LIFE_MAIN, LIFE_AUXILIARY, LIFE_LOST = 0, 1, 2

# Ruling TC20: a shuttlecraft has hull 1, movement 3, no force fields, weapons, boarding parties
# or auxiliary systems (the rule book gives it no numbers).
SHUTTLE_HULL = 1
SHUTTLE_MOVE = 3

# Weapons: damage points and the range bands they reach ("Weapon Damage and Range").
WEAPON_DAMAGE: Mapping[str, int] = MappingProxyType({
    "laser_bank": 1,
    "particle_accelerator": 2,
    "emp_cannon": 3,
    "guided_missile_bay": 3,
    "fighter_bay": 1,
    "planetary_bombardment_array": 0,  # rolls on the bombardment table instead
})
WEAPON_RANGES: Mapping[str, frozenset[str]] = MappingProxyType({
    "laser_bank": frozenset({"close"}),
    "particle_accelerator": frozenset({"close"}),
    "emp_cannon": frozenset({"close"}),
    "guided_missile_bay": frozenset({"close", "long"}),
    "fighter_bay": frozenset({"close", "long"}),
    "planetary_bombardment_array": frozenset({"long"}),
})
PBA = "planetary_bombardment_array"
FIGHTER_BAY = "fighter_bay"


# Look-ups kept in a ``BattleState``'s instance dict (see below). Those in ``_SHIP_CACHED``
# derive from its ``ships`` (and ``_derived``, the doctrine's, also from the table); ``_lines``
# (lines of fire) from its ``field`` and ``planets`` alone, and is shared, filled in as it is
# used, by every state evolved from it until those change. ``evolve`` (the kit's) drops them
# when what they derive from changes and keeps them otherwise (``BattleState._cached_from``).
_SHIP_CACHED = ("_index", "occupied", "combat_sides", "_derived")
_TABLE_CACHED = ("_derived", "_lines")

# The event of the battle log is the kit's (fog-of-war tags ``sides``/``public`` set by the engine).
BattleEvent = Event


@dataclass(frozen=True)
class LogNode:
    """The battle log as a persistent list (O(1) to extend a frozen state)."""

    event: BattleEvent
    previous: LogNode | None
    length: int


@dataclass(frozen=True)
class Planet:
    """A planet or moon on the table. ``status``: ``intact``, ``overcome`` (defences overcome,
    the populace refuses to surrender), ``surrendered`` or ``destroyed`` (bombardment table)."""

    id: str
    squares: tuple[Coord, ...]
    owner: int | None = None
    defences: bool = False
    status: str = "intact"
    surrendered_to: int | None = None


@dataclass(frozen=True)
class Battlefield:
    """The table: ``width`` × ``height`` 3" squares (a 4ft table is 16 × 16), its terrain and
    where each wormhole leads."""

    width: int = 16
    height: int = 16
    terrain: Mapping[Coord, str] = field(default_factory=dict)
    wormholes: Mapping[Coord, Coord] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("width", "height"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= 100:
                raise ValueError(f"003 Table: the table's {name} must be 2 to 100 squares, not {value!r}")
        for c, kind in self.terrain.items():
            if kind not in TERRAIN_KINDS:
                raise ValueError(f"003 Spatial Anomalies: unknown anomaly {kind!r} at {c}")
            if not self.on_table(c):
                raise ValueError(f"003 Spatial Anomalies: {kind} at {c} is off the table")
        for a, b in self.wormholes.items():
            if self.terrain.get(a) != WORMHOLE or not self.on_table(b):
                raise ValueError(
                    f"003 Spatial Anomalies: wormhole {a} -> {b} needs a wormhole at {a} and an exit on the table"
                )
        object.__setattr__(self, "terrain", MappingProxyType(dict(self.terrain)))
        object.__setattr__(self, "wormholes", MappingProxyType(dict(self.wormholes)))

    def on_table(self, c: Coord) -> bool:
        return 0 <= c[0] < self.width and 0 <= c[1] < self.height


@dataclass(frozen=True)
class TacticalShip:
    """A ship (or the shuttlecraft its crew abandoned it for) on the table.

    ``movement`` is the engine rating left (below 0: engines destroyed); ``weapons`` the
    operable weapon systems, one key per system; ``force_fields`` the current strength of each
    arc (forward, starboard, aft, port) and ``generators`` which arcs still have a generator.
    """

    id: int
    side: int
    design: Design
    pos: Coord
    facing: int
    hull: int
    movement: int
    weapons: tuple[str, ...]
    force_fields: tuple[int, int, int, int]
    generators: tuple[bool, bool, bool, bool]
    boarding_parties: int
    original_side: int
    name: str = ""
    hero_crew: bool = False
    weapons_lost: tuple[str, ...] = ()
    parties_lost: int = 0
    power: bool = True
    sensors: bool = True
    life_support: int = LIFE_MAIN
    stealth_operable: bool = False
    stealth_engaged: bool = False
    evasive: bool = False
    capacitor: bool = False
    status: str = ACTIVE
    shuttle: bool = False
    captured_by: int | None = None
    fate: str = ""  # how it left play: core breach, abandoned, black hole, …

    @property
    def ff_strength(self) -> int:
        return self.design.force_field or 0

    @property
    def has_teleporter(self) -> bool:
        # Ruling TC16: a ship designed with boarding parties carries one teleporter.
        return self.design.boarding_parties > 0 and not self.shuttle

    @property
    def engines_destroyed(self) -> bool:
        return self.movement < 0

    @property
    def in_play(self) -> bool:
        return self.status in (ACTIVE, LANDED)

    @property
    def on_table(self) -> bool:
        """Visible on the table: in play, not landed, not hidden by a stealth field."""
        return self.status == ACTIVE and not self.stealth_engaged

    @property
    def sensor_range(self) -> int:
        """"Sensor range is equal to the movement distance of the ship; … not modified by damage
        to the engines"."""
        return SHUTTLE_MOVE if self.shuttle else self.design.engine

    @property
    def fighter_bay_working(self) -> bool:
        return FIGHTER_BAY in self.weapons

    def describe(self) -> str:
        return f"{self.name or self.design.name} (ship {self.id}, side {self.side})"

    def systems(self) -> dict[str, Any]:
        """What a scan reveals ("Sensor Information"): functioning and damaged systems."""
        return {
            "ship": self.id,
            "shuttle": self.shuttle,
            "hull": self.hull,
            "movement": self.movement,
            "weapons": list(self.weapons),
            "weapons_lost": list(self.weapons_lost),
            "force_fields": dict(zip(ARC_NAMES, self.force_fields)),
            "generators": dict(zip(ARC_NAMES, self.generators)),
            "power": self.power,
            "sensors": self.sensors,
            "life_support": ("main", "auxiliary", "lost")[self.life_support],
            "stealth_operable": self.stealth_operable,
            "boarding_parties": self.boarding_parties,
            "evasive": self.evasive,
            "facing": FACING_NAMES[self.facing],
        }


def ship_from_design(ship_id: int, side: int, design: Design, pos: Coord, facing: int,
                     hero_crew: bool = False, name: str = "") -> TacticalShip:
    """A fresh, undamaged ship of ``design`` (deploy.py applies carried campaign damage)."""
    weapons = tuple(key for key, count in design.weapons for _ in range(count))
    strength = design.force_field or 0
    has_ff = design.force_field is not None
    return TacticalShip(
        id=ship_id, side=side, design=design, pos=pos, facing=facing, hull=design.hull,
        movement=design.engine, weapons=weapons, force_fields=(strength,) * 4,
        generators=(has_ff,) * 4, boarding_parties=design.boarding_parties, original_side=side,
        name=name, hero_crew=hero_crew, stealth_operable=design.stealth_field,
        capacitor=design.core_containment_capacitor,
    )


@dataclass(frozen=True)
class Boarding:
    """A boarding action in progress: ``parties`` of ``boarder``'s boarding parties are aboard
    ``target``; ``goes`` capture rolls have been made so far."""

    boarder: int
    target: int
    boarder_side: int
    goes: int = 1


@dataclass(frozen=True)
class Activation:
    """The ship activated now and the actions it has taken (action kinds, in order)."""

    ship: int
    actions: tuple[str, ...] = ()
    boarding_due: bool = False
    resolved_boarding: tuple[tuple[int, int], ...] = ()


def no_such_ship(ship_id: object) -> IllegalActionError:
    """The refusal for a ship id that is not in the battle, and (ruling TC29) for a ship the
    acting side cannot see: the same words, so a refusal tells nothing about hidden ships."""
    return IllegalActionError("003 The Turn Sequence", f"there is no ship {ship_id!r} in this battle")


def hidden_from(ship: TacticalShip, side: int | None) -> bool:
    """Whether ``side`` cannot see ``ship``: an enemy ship in play under its stealth field
    (003 Stealth Fields; ruling TP6). ``side`` None (the moderator) sees everything."""
    return ship.stealth_engaged and side is not None and ship.side != side and ship.in_play


@dataclass(frozen=True)
class BattleState:
    """One tactical battle. ``sides`` lists the fleets in card order (the first is red with two
    fleets). ``deck`` is the draw pile, top card first; ``discard`` the cards drawn since the
    last shuffle. ``acting_side`` may activate ``activations_left`` more ships for ``card``."""

    field: Battlefield
    sides: tuple[int, ...]
    ships: tuple[TacticalShip, ...]
    deck: tuple[Card, ...]
    planets: tuple[Planet, ...] = ()
    discard: tuple[Card, ...] = ()
    card: Card | None = None
    acting_side: int | None = None
    activations_left: int = 0
    activated: tuple[int, ...] = ()
    activation: Activation | None = None
    storm: bool = False
    boardings: tuple[Boarding, ...] = ()
    cards_drawn: int = 0
    card_cap: int = 540
    reshuffles: int = 0
    capped: bool = False
    history: LogNode | None = None

    # Derived look-ups, computed once per (immutable) state and kept in the instance dict
    # (functools.cached_property takes a lock on every read in Python 3.11: too slow here).
    @property
    def derived(self) -> dict:
        """A scratch dict of look-ups that depend on the ships and the table only (for the
        doctrine); shared by states evolved from this one until those change."""
        out = self.__dict__.get("_derived")
        if out is None:
            out = self.__dict__["_derived"] = {}
        return out

    @property
    def _index(self) -> dict[int, TacticalShip]:
        index = self.__dict__.get("_index")
        if index is None:
            index = self.__dict__["_index"] = {s.id: s for s in self.ships}
        return index

    def ship(self, ship_id: int) -> TacticalShip:
        try:
            return self._index[ship_id]
        except (KeyError, TypeError):
            raise no_such_ship(ship_id) from None

    def find(self, ship_id: int) -> TacticalShip | None:
        return self._index.get(ship_id)

    @property
    def combat_sides(self) -> frozenset[int]:
        """Sides with a ship (not a shuttle) still in play, on the table, hidden or landed."""
        sides = self.__dict__.get("combat_sides")
        if sides is None:
            sides = self.__dict__["combat_sides"] = frozenset(
                s.side for s in self.ships if s.status in (ACTIVE, LANDED) and not s.shuttle)
        return sides

    @property
    def occupied(self) -> dict[Coord, int]:
        """Square -> ship id for every ship in play and not landed (hidden ones included:
        "No more than one ship may occupy a square"; planet squares may hold many)."""
        out = self.__dict__.get("occupied")
        if out is None:
            out = {}
            for s in self.ships:
                if s.status == ACTIVE:
                    out.setdefault(s.pos, s.id)
            self.__dict__["occupied"] = out
        return out

    def planet(self, planet_id: str) -> Planet:
        for p in self.planets:
            if p.id == planet_id:
                return p
        raise IllegalActionError("003 Spatial Anomalies", f"there is no planet {planet_id!r} on the table")

    def planet_at(self, c: Coord) -> Planet | None:
        for p in self.planets:
            if c in p.squares and p.status != "destroyed":
                return p
        return None

    @property
    def log(self) -> tuple[BattleEvent, ...]:
        out: list[BattleEvent] = []
        node = self.history
        while node is not None:
            out.append(node.event)
            node = node.previous
        return tuple(reversed(out))

    def ships_of(self, side: int) -> Iterator[TacticalShip]:
        return (s for s in self.ships if s.side == side and s.in_play)


# Which cached look-ups each field's change drops (tactical.rules.kit.values).
BattleState._cached_from = {"ships": _SHIP_CACHED, "planets": _TABLE_CACHED, "field": _TABLE_CACHED}

__all__ = ["BattleEvent", "Battlefield", "BattleState", "IllegalActionError", "Planet", "TacticalShip", "build",
           "derive", "evolve", "hidden_from", "no_such_ship"]
