"""Event Horizon campaign economy: world income, resources, ship builds and repairs.

Pure Python (standard library only). Rule book: ``seeds/003_…``, "Ideas for a Military
Campaign": "Creating a Map" (Planet, Colony), "Set Up", "Use of BP in a Campaign" and its "Note",
"Star Ship Build Times", "Planetary Economy Type"; project rulings: ``RULINGS.md`` ("Colony
income", "Research-gated components") and the rulings noted beside the code below.

``validate_spending`` checks a turn's purchase list as a whole, item by item in the order given,
against a simulated copy of the empire: an earlier item's resource counts for later items
(resources take effect when bought), and the first item that breaks a rule is refused with
``SpendingError`` naming the item and the rule. Nothing is changed: every value here is frozen,
and the caller stores ``SpendingPlan.economy_after`` only if it accepts the plan.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from types import MappingProxyType

from campaign.rules.dice import Dice, Roll
from campaign.rules.eventhorizon.designs import (
    BOARDING_PARTY_BP,
    ENGINE_BP_PER_POINT,
    HULL_BP_PER_POINT,
    STEALTH_FIELD_BP,
    WEAPONS,
    Design,
    DesignError,
    Technology,
    force_field_bp,
    validate_design,
)
from campaign.rules.eventhorizon.mapgen import EconomyType
from campaign.rules.grid import Coord

STARTING_BP = 240  # "Set Up": each player starts with 240BP
HERO_CREW_BP = 30  # "Military Academy": a hero crew costs +30BP
FORCE_FIELD_ARCS = 4  # sample designs: force fields "in all four arcs", one generator each

BP_RULE = "003 Use of BP in a Campaign"
NOTE_RULE = "003 Use of BP in a Campaign: Note"
DOCKYARD_RULE = "003 Use of BP in a Campaign: Dockyard"
ACADEMY_RULE = "003 Use of BP in a Campaign: Military Academy"
RESEARCH_RULE = "003 Use of BP in a Campaign: Research Facility"
STAR_GATE_RULE = "003 Use of BP in a Campaign: Star Gate"
BUILD_TIME_RULE = "003 Star Ship Build Times"
INCOME_PURPOSE = "003 Resource Exploitation"


class EconomyError(ValueError):
    """A rule of the campaign economy is broken; ``rule`` names the rule book section."""

    def __init__(self, rule: str, message: str):
        self.rule = rule
        self.message = message
        super().__init__(f"{rule}: {message}")


def format_coord(coord: Coord) -> str:
    """``(4, 5)`` -> ``"(4,5)"``, as the rule refusals print a hex."""
    if isinstance(coord, tuple):
        return "(" + ",".join(str(part) for part in coord) + ")"
    return str(coord)


# --- World income ---------------------------------------------------------------------------


class WorldKind(str, Enum):  # noqa: UP042 - the agreed (str, Enum) contract, as mapgen.EconomyType
    """A world that produces income; the values match ``mapgen.Terrain``'s."""

    PLANET = "planet"
    COLONY = "colony"


# Die offset of each income formula: BP = (1d6 [+1 enriched] - offset) x 10 ("Creating a Map",
# "Planetary Economy Type"). None = an untyped planet (the economy-type option is off).
_PLANET_OFFSET: Mapping[EconomyType | None, int] = MappingProxyType(
    {
        None: 0,
        EconomyType.INDUSTRIAL: 0,
        EconomyType.COMMERCIAL: 1,
        EconomyType.AGRICULTURAL: 2,
    }
)
COLONY_OFFSET = 3
ENRICHMENT_DIE_BONUS = 1
# "Stabilised Economy": a stabilised planet always produces 40BP, a colony 10BP; the economy
# type table gives 40/30/20 by type.
_PLANET_STABILISED_BP: Mapping[EconomyType | None, int] = MappingProxyType(
    {
        None: 40,
        EconomyType.INDUSTRIAL: 40,
        EconomyType.COMMERCIAL: 30,
        EconomyType.AGRICULTURAL: 20,
    }
)
COLONY_STABILISED_BP = 10


@dataclass(frozen=True)
class IncomeRoll:
    """One world's income for a turn; ``roll`` is None when stabilised (no dice are rolled)."""

    bp: int
    roll: Roll | None
    formula: str = ""


def world_income(
    kind: WorldKind | str,
    economy: EconomyType | str | None,
    enriched: bool,
    stabilised: bool,
    dice: Dice | None,
) -> IncomeRoll:
    """Roll (or, stabilised, fix) one planet's or colony's BP income for a turn.

    ``economy`` is the planet's "Planetary Economy Type", or None when the option is off;
    colonies have none. Results never go below 0 (RULINGS.md: Colony income, for every type).
    """
    try:
        kind = WorldKind(kind)
    except ValueError:
        raise EconomyError(
            "003 Creating a Map", f"only a planet or colony produces income, not {kind!r}"
        ) from None
    if economy is not None:
        try:
            economy = EconomyType(economy)
        except ValueError:
            raise EconomyError("003 Planetary Economy Type", f"unknown economy type {economy!r}") from None
    if kind is WorldKind.COLONY and economy is not None:
        # RULINGS.md: economy types are rolled for planets; colonies use the colony formula.
        raise EconomyError(
            "003 Planetary Economy Type", f"a colony has no economy type, not {economy.value!r}"
        )
    if stabilised and not enriched:
        raise EconomyError(
            "003 Use of BP in a Campaign: Stabilised Economy",
            "a stabilised world must have been enriched",
        )
    if stabilised:
        bp = COLONY_STABILISED_BP if kind is WorldKind.COLONY else _PLANET_STABILISED_BP[economy]
        return IncomeRoll(bp=bp, roll=None, formula=f"stabilised {bp}")
    if dice is None:
        raise EconomyError(INCOME_PURPOSE, "an unstabilised world's income needs a die roll")
    offset = COLONY_OFFSET if kind is WorldKind.COLONY else _PLANET_OFFSET[economy]
    bonus = ENRICHMENT_DIE_BONUS if enriched else 0
    roll = dice.roll(1, 6, INCOME_PURPOSE)
    bp = max(0, (roll.total + bonus - offset) * 10)
    terms = "1d6" + (f" + {bonus}" if bonus else "") + (f" - {offset}" if offset else "")
    formula = f"({terms}) x 10" if (bonus or offset) else "1d6 x 10"
    return IncomeRoll(bp=bp, roll=roll, formula=f"{formula}, at least 0")


# --- Resources ------------------------------------------------------------------------------


class Scope(str, Enum):  # noqa: UP042 - the agreed (str, Enum) contract, as mapgen.EconomyType
    """Where a resource goes and how often (rulings on "Use of BP in a Campaign")."""

    EMPIRE = "empire"  # one per empire, placed on a world the empire owns
    WORLD = "world"  # at most one on each owned world
    WORLD_REPEATABLE = "world_repeatable"  # may be built again on the same owned world
    ANY_HEX = "any_hex"  # any hex, owned world or not; at most one per hex


class Requirement(str, Enum):  # noqa: UP042 - the agreed (str, Enum) contract, as mapgen.EconomyType
    """A resource's prerequisite, as the rule book words it."""

    OWN_WORLD = "own_world"
    PLANETARY_DEFENCES = "planetary_defences"
    DOCKYARD = "dockyard"
    HOME_WORLD = "home_world"
    MERCHANTS_GUILD = "merchants_guild"
    ENRICHED = "enriched"
    RESEARCH_FACILITY = "research_facility"

    @property
    def label(self) -> str:
        return _REQUIREMENT_LABELS[self]


_REQUIREMENT_LABELS: Mapping[Requirement, str] = MappingProxyType(
    {
        Requirement.OWN_WORLD: "requires that you own the planet/colony",
        Requirement.PLANETARY_DEFENCES: "requires planetary defences",
        Requirement.DOCKYARD: "requires a dockyard",
        Requirement.HOME_WORLD: "requires a home world",
        Requirement.MERCHANTS_GUILD: "requires a Merchants Guild",
        Requirement.ENRICHED: "requires that the planet/colony has been enriched",
        Requirement.RESEARCH_FACILITY: "requires that at least one research facility has been built",
    }
)


class Resource(str, Enum):  # noqa: UP042 - the agreed (str, Enum) contract, as mapgen.EconomyType
    """A "resource" bought with BP: cost, map symbol, where it goes and what it needs first."""

    DIPLOMATIC_CORPS = "diplomatic_corps"
    PLANETARY_DEFENCES = "planetary_defences"
    HOLD_OUT_GARRISON = "hold_out_garrison"
    AEWA = "aewa"
    DOCKYARD = "dockyard"
    MILITARY_ACADEMY = "military_academy"
    MERCHANTS_GUILD = "merchants_guild"
    ENRICHMENT = "enrichment"
    STABILISED_ECONOMY = "stabilised_economy"
    RESEARCH_FACILITY = "research_facility"
    STAR_GATE = "star_gate"

    @property
    def label(self) -> str:
        return _RESOURCES[self][0]

    @property
    def cost(self) -> int:
        return _RESOURCES[self][1]

    @property
    def symbol(self) -> str | None:
        """Map symbol, or None where the rule book says none is required."""
        return _RESOURCES[self][2]

    @property
    def scope(self) -> Scope:
        return _RESOURCES[self][3]

    @property
    def requires(self) -> Requirement | None:
        return _RESOURCES[self][4]


_RESOURCES: Mapping[Resource, tuple[str, int, str | None, Scope, Requirement | None]] = MappingProxyType(
    {
        Resource.DIPLOMATIC_CORPS: ("Diplomatic Corps", 60, None, Scope.EMPIRE, None),
        Resource.PLANETARY_DEFENCES: ("Planetary Defences", 40, "^", Scope.WORLD, Requirement.OWN_WORLD),
        Resource.HOLD_OUT_GARRISON: (
            "Hold Out Garrison",
            20,
            None,
            Scope.WORLD,
            Requirement.PLANETARY_DEFENCES,
        ),
        Resource.AEWA: (
            "Advanced Early Warning Array",
            120,
            "#",
            Scope.WORLD,
            Requirement.PLANETARY_DEFENCES,
        ),
        Resource.DOCKYARD: ("Dockyard", 120, "*", Scope.WORLD_REPEATABLE, None),
        # Ruling: an academy trains hero crews for the dockyards on its own world, so a
        # second one on the same world would add nothing.
        Resource.MILITARY_ACADEMY: ("Military Academy", 180, None, Scope.WORLD, Requirement.DOCKYARD),
        Resource.MERCHANTS_GUILD: ("Merchants Guild", 240, None, Scope.EMPIRE, Requirement.HOME_WORLD),
        Resource.ENRICHMENT: ("Enrichment", 60, "+", Scope.WORLD, Requirement.MERCHANTS_GUILD),
        Resource.STABILISED_ECONOMY: ("Stabilised Economy", 40, "S", Scope.WORLD, Requirement.ENRICHED),
        Resource.RESEARCH_FACILITY: (
            "Research Facility",
            60,
            "X",
            Scope.WORLD_REPEATABLE,
            Requirement.MERCHANTS_GUILD,
        ),
        Resource.STAR_GATE: ("Star Gate", 120, "G", Scope.ANY_HEX, Requirement.RESEARCH_FACILITY),
    }
)


# --- An empire's economic position ----------------------------------------------------------


@dataclass(frozen=True)
class OwnedWorld:
    """A planet or colony the empire owns; ``economy`` is a planet's type (None if untyped)."""

    coord: Coord
    kind: WorldKind
    economy: EconomyType | None = None


@dataclass(frozen=True)
class Structure:
    """A resource the empire has built; ``technology`` is what a Research Facility granted."""

    id: int
    resource: Resource
    coord: Coord
    technology: Technology | None = None


@dataclass(frozen=True)
class Damage:
    """Battle damage a ship carries until repaired.

    ``weapons`` lists the weapon keys destroyed (a key once per system lost);
    ``force_field_generators`` counts generators lost; ``boarding_parties`` counts parties lost.
    """

    hull: int = 0
    engine: int = 0
    weapons: tuple[str, ...] = ()
    force_field_generators: int = 0
    stealth: bool = False
    boarding_parties: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "weapons", tuple(self.weapons))

    def to_json(self) -> dict:
        """The stored form (ship rows, battle setups and results, what-if runs): ``{}`` when
        undamaged, otherwise every field, weapons as a list."""
        if not self.any:
            return {}
        return {"hull": self.hull, "engine": self.engine, "weapons": list(self.weapons),
                "force_field_generators": self.force_field_generators, "stealth": self.stealth,
                "boarding_parties": self.boarding_parties}

    @classmethod
    def from_json(cls, raw) -> Damage:
        """The inverse of ``to_json`` (``{}`` or None: no damage)."""
        return cls(**raw) if raw else NO_DAMAGE

    @property
    def any(self) -> bool:
        """Whether there is anything to repair."""
        return bool(
            self.hull
            or self.engine
            or self.weapons
            or self.force_field_generators
            or self.stealth
            or self.boarding_parties
        )


NO_DAMAGE = Damage()


@dataclass(frozen=True)
class ShipAt:
    """One of the empire's ships: where it is, its design's name and its damage."""

    id: int
    coord: Coord
    design_name: str
    damage: Damage = NO_DAMAGE


@dataclass(frozen=True)
class EmpireEconomy:
    """What spending depends on: banked BP, worlds, built resources, research, dockyards, ships.

    ``home_world`` is the home world's coordinate (it counts only while in ``worlds``);
    ``dockyard_busy`` holds the ids of dockyards with a ship under construction.
    """

    bp: int
    home_world: Coord | None
    worlds: tuple[OwnedWorld, ...] = ()
    structures: tuple[Structure, ...] = ()
    technologies: frozenset[Technology] = frozenset()
    dockyard_busy: frozenset[int] = frozenset()
    ships: tuple[ShipAt, ...] = ()

    # Plain loops, not next(generator): these are asked for every purchase of every preview.
    def world_at(self, coord: Coord) -> OwnedWorld | None:
        for world in self.worlds:
            if world.coord == coord:
                return world
        return None

    def owns_home_world(self) -> bool:
        return self.home_world is not None and self.world_at(self.home_world) is not None

    def structures_at(self, coord: Coord) -> tuple[Structure, ...]:
        return tuple(s for s in self.structures if s.coord == coord)

    def has(self, resource: Resource, coord: Coord | None = None) -> bool:
        """Whether the empire has ``resource`` (at ``coord`` when given)."""
        for s in self.structures:
            if s.resource is resource and (coord is None or s.coord == coord):
                return True
        return False

    def structure(self, structure_id: int) -> Structure | None:
        for structure in self.structures:
            if structure.id == structure_id:
                return structure
        return None

    def ship(self, ship_id: int) -> ShipAt | None:
        for ship in self.ships:
            if ship.id == ship_id:
                return ship
        return None

    def next_structure_id(self) -> int:
        return max((s.id for s in self.structures), default=0) + 1


# --- Purchases ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BuyResource:
    """Buy ``resource`` at ``coord``; a Research Facility names the ``technology`` it grants."""

    resource: Resource
    coord: Coord
    technology: Technology | None = None

    def describe(self) -> str:
        text = f"{Resource(self.resource).label} at {format_coord(self.coord)}"
        if self.technology is not None:
            text += f", researching {Technology(self.technology).label}"
        return text


@dataclass(frozen=True)
class BuildShip:
    """Start building ``design`` at dockyard ``dockyard_id``, optionally with a hero crew."""

    design: Design
    dockyard_id: int
    hero_crew: bool = False
    name: str = ""

    @property
    def cost(self) -> int:
        return self.design.bp + (HERO_CREW_BP if self.hero_crew else 0)

    def describe(self) -> str:
        named = f" '{self.name}'" if self.name else ""
        hero = " with hero crew" if self.hero_crew else ""
        return (
            f"{self.design.ship_type.label}{named} ({self.design.name}){hero} at dockyard {self.dockyard_id}"
        )


@dataclass(frozen=True)
class RepairShip:
    """Repair ship ``ship_id`` at dockyard ``dockyard_id`` (the ship must be in its hex)."""

    ship_id: int
    dockyard_id: int

    def describe(self) -> str:
        return f"repair of ship {self.ship_id} at dockyard {self.dockyard_id}"


Purchase = BuyResource | BuildShip | RepairShip


def build_time(design: Design) -> int:
    """Campaign turns a dockyard needs for ``design`` ("Star Ship Build Times")."""
    return design.ship_type.build_time


@dataclass(frozen=True)
class DockyardBuild:
    """A ship on the stocks: the dockyard is busy until ``turns_left`` reaches 0."""

    dockyard_id: int
    design: Design
    hero_crew: bool = False
    name: str = ""
    turns_left: int = 0

    @staticmethod
    def build_time(design: Design) -> int:
        return build_time(design)

    @classmethod
    def start(cls, order: BuildShip) -> DockyardBuild:
        return cls(
            dockyard_id=order.dockyard_id,
            design=order.design,
            hero_crew=order.hero_crew,
            name=order.name,
            turns_left=build_time(order.design),
        )

    def advance(self) -> DockyardBuild:
        """The build one campaign turn later."""
        return replace(self, turns_left=max(0, self.turns_left - 1))

    @property
    def complete(self) -> bool:
        return self.turns_left == 0


def repair_cost(design: Design, damage: Damage) -> int:
    """BP to repair ``damage`` on a ship of ``design``: the damaged components' BP
    ("Dockyard": "the cost of the repairs is the same as the component BP cost").

    Hull points cost 1 each (2 with Nanobot Skin), engine points 1 each, each destroyed weapon
    its BP, lost force field generators the design's force field cost once ("You only pay for FF
    generators once"), a stealth field generator 5, boarding parties 1 each.
    """
    _check_damage(design, damage)
    if not damage.any:
        raise EconomyError(DOCKYARD_RULE, "the ship is undamaged: there is nothing to repair")
    hull_bp = HULL_BP_PER_POINT * (2 if design.nanobot_skin else 1)
    cost = damage.hull * hull_bp + damage.engine * ENGINE_BP_PER_POINT
    cost += sum(WEAPONS[key].bp for key in damage.weapons)
    if damage.force_field_generators:
        cost += force_field_bp(design.force_field, design.improved_force_fields)
    if damage.stealth:
        cost += STEALTH_FIELD_BP
    cost += damage.boarding_parties * BOARDING_PARTY_BP
    return cost


def _check_damage(design: Design, damage: Damage) -> None:
    def refuse(message: str) -> None:
        raise EconomyError(DOCKYARD_RULE, f"damage does not fit {design.name}: {message}")

    for name in ("hull", "engine", "force_field_generators", "boarding_parties"):
        value = getattr(damage, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            refuse(f"{name} damage must be a whole number of at least 0, not {value!r}")
    if damage.hull > design.hull:
        refuse(f"{damage.hull} hull points lost of {design.hull}")
    if damage.engine > design.engine:
        refuse(f"{damage.engine} engine points lost of {design.engine}")
    fitted = dict(design.weapons)
    for key in set(damage.weapons):
        if key not in WEAPONS:
            refuse(f"unknown weapon system {key!r}")
        lost = damage.weapons.count(key)
        if lost > fitted.get(key, 0):
            refuse(f"{lost} {WEAPONS[key].label} lost of {fitted.get(key, 0)}")
    if damage.force_field_generators and design.force_field is None:
        refuse("it has no force field generators")
    if damage.force_field_generators > FORCE_FIELD_ARCS:
        refuse(f"{damage.force_field_generators} force field generators lost of {FORCE_FIELD_ARCS}")
    if damage.stealth and not design.stealth_field:
        refuse("it has no stealth field generator")
    if damage.boarding_parties > design.boarding_parties:
        refuse(f"{damage.boarding_parties} boarding parties lost of {design.boarding_parties}")


# --- Spending -------------------------------------------------------------------------------


class SpendingError(EconomyError):
    """The first purchase in a list that breaks a rule.

    ``index`` is its 0-based position in the list (the message counts from 1, as players do);
    ``item`` is the purchase, ``rule`` the rule book section and ``message`` what is wrong.
    """

    def __init__(self, index: int, item: object, rule: str, message: str):
        self.index = index
        self.item = item
        describe = getattr(item, "describe", None)
        self.description = describe() if callable(describe) else repr(item)
        ValueError.__init__(self, f"item {index + 1} ({self.description}): {rule}: {message}")
        self.rule = rule
        self.message = message


@dataclass(frozen=True)
class PlannedItem:
    """An accepted purchase, its cost, and what it made (a new structure or a build)."""

    item: Purchase
    cost: int
    structure: Structure | None = None
    build: DockyardBuild | None = None


@dataclass(frozen=True)
class SpendingPlan:
    """A valid purchase list: the empire after it, each item priced, the total and BP left."""

    economy_after: EmpireEconomy
    items: tuple[PlannedItem, ...]
    total: int
    bp_left: int

    @property
    def builds(self) -> tuple[DockyardBuild, ...]:
        return tuple(p.build for p in self.items if p.build is not None)

    @property
    def repairs(self) -> tuple[RepairShip, ...]:
        return tuple(p.item for p in self.items if isinstance(p.item, RepairShip))


@dataclass
class _Turn:
    """What one purchase list has used so far (the per-turn limits of the "Note")."""

    world_hexes: set[Coord] = field(default_factory=set)
    dockyards: set[int] = field(default_factory=set)
    repaired_ships: set[int] = field(default_factory=set)
    # The set-up round (003 "Set Up") is not a campaign turn: the Note's per-turn limits and
    # the build times do not bind it (docs/rulings.md SU2).
    setup: bool = False


class _Refusal(Exception):
    def __init__(self, rule: str, message: str):
        self.rule = rule
        self.message = message


def validate_spending(
    economy: EmpireEconomy,
    purchases: Sequence[Purchase],
    *,
    designs: Mapping[str, Design] | None = None,
    other_gates: frozenset[Coord] = frozenset(),
    setup: bool = False,
) -> SpendingPlan:
    """Check ``purchases`` in order against ``economy`` and return the resulting plan.

    ``designs`` maps design names to designs, to price repairs of ``economy.ships``;
    ``other_gates`` holds hexes where another empire already has a star gate. ``setup`` checks
    a set-up purchase (003 "Set Up"): no per-turn limit of the Note applies and a dockyard may
    take several ships (docs/rulings.md SU2). Raises ``SpendingError`` for the first item that
    breaks a rule; the input is never changed.
    """
    state = economy
    turn = _Turn(setup=setup)
    planned: list[PlannedItem] = []
    for index, item in enumerate(purchases):
        try:
            if isinstance(item, BuyResource):
                state, done = _buy_resource(state, item, turn, other_gates)
            elif isinstance(item, BuildShip):
                state, done = _build_ship(state, item, turn)
            elif isinstance(item, RepairShip):
                state, done = _repair_ship(state, item, turn, designs or {})
            else:
                raise _Refusal(BP_RULE, "BP buy resources, ship builds or repairs only")
        except _Refusal as refusal:
            raise SpendingError(index, item, refusal.rule, refusal.message) from None
        planned.append(done)
    total = sum(p.cost for p in planned)
    return SpendingPlan(economy_after=state, items=tuple(planned), total=total, bp_left=economy.bp - total)


def _afford(state: EmpireEconomy, cost: int) -> int:
    """The BP left after paying ``cost``; refused if they are not there."""
    if cost > state.bp:
        raise _Refusal(BP_RULE, f"costs {cost} BP but only {state.bp} BP are left ({cost - state.bp} short)")
    return state.bp - cost


def _pay(state: EmpireEconomy, cost: int) -> EmpireEconomy:
    return replace(state, bp=_afford(state, cost))


def _buy_resource(
    state: EmpireEconomy, item: BuyResource, turn: _Turn, other_gates: frozenset[Coord]
) -> tuple[EmpireEconomy, PlannedItem]:
    resource = Resource(item.resource)
    technology = Technology(item.technology) if item.technology is not None else None
    where = format_coord(item.coord)
    if resource is Resource.RESEARCH_FACILITY:
        if technology is None:
            raise _Refusal(RESEARCH_RULE, "choose the technology the facility will research")
        if technology in state.technologies:
            raise _Refusal(RESEARCH_RULE, f"{technology.label} has already been researched")
    elif technology is not None:
        raise _Refusal(BP_RULE, f"only a Research Facility grants a technology, not a {resource.label}")

    world = state.world_at(item.coord)
    if resource.scope is Scope.ANY_HEX:
        # Ruling: one star gate per hex, whoever built it.
        if state.has(Resource.STAR_GATE, item.coord) or item.coord in other_gates:
            raise _Refusal(STAR_GATE_RULE, f"there is already a star gate at {where}")
    elif world is None:
        # Ruling: every resource but a star gate stands on a planet/colony the empire owns.
        raise _Refusal(BP_RULE, f"requires that you own the planet/colony at {where}")
    if resource is Resource.MERCHANTS_GUILD and item.coord != state.home_world:
        # Ruling: "requires a home world" - the guild is established on the home world.
        raise _Refusal(BP_RULE, f"a Merchants Guild must be established on your home world, not {where}")

    if world is not None and item.coord in turn.world_hexes and not turn.setup:
        raise _Refusal(NOTE_RULE, f"only one resource can be built on the planet/colony at {where} per turn")
    if resource.scope is Scope.EMPIRE and state.has(resource):
        raise _Refusal(BP_RULE, f"your empire already has a {resource.label}")
    if resource.scope is Scope.WORLD and state.has(resource, item.coord):
        raise _Refusal(BP_RULE, f"{resource.label} has already been built on the planet/colony at {where}")

    requirement = resource.requires
    if requirement is not None and not _requirement_met(state, requirement, item.coord):
        raise _Refusal(BP_RULE, requirement.label)

    state = _pay(state, resource.cost)
    new = Structure(id=state.next_structure_id(), resource=resource, coord=item.coord, technology=technology)
    technologies = state.technologies | ({technology} if technology is not None else set())
    state = replace(state, structures=state.structures + (new,), technologies=technologies)
    if world is not None:
        turn.world_hexes.add(item.coord)
    return state, PlannedItem(item=item, cost=resource.cost, structure=new)


def _requirement_met(state: EmpireEconomy, requirement: Requirement, coord: Coord) -> bool:
    if requirement is Requirement.OWN_WORLD:
        return state.world_at(coord) is not None
    if requirement is Requirement.PLANETARY_DEFENCES:
        return state.has(Resource.PLANETARY_DEFENCES, coord)
    if requirement is Requirement.DOCKYARD:
        # Ruling: the academy trains crews for the dockyards of its own world.
        return state.has(Resource.DOCKYARD, coord)
    if requirement is Requirement.HOME_WORLD:
        return state.owns_home_world()
    if requirement is Requirement.MERCHANTS_GUILD:
        return state.has(Resource.MERCHANTS_GUILD)
    if requirement is Requirement.ENRICHED:
        return state.has(Resource.ENRICHMENT, coord)
    if requirement is Requirement.RESEARCH_FACILITY:
        return state.has(Resource.RESEARCH_FACILITY)
    raise AssertionError(requirement)  # pragma: no cover - every Requirement is handled above


def _dockyard(state: EmpireEconomy, dockyard_id: int, turn: _Turn) -> Structure:
    dockyard = state.structure(dockyard_id)
    if dockyard is None or dockyard.resource is not Resource.DOCKYARD:
        raise _Refusal(DOCKYARD_RULE, f"you have no dockyard {dockyard_id}")
    if turn.setup:
        return dockyard
    if dockyard_id in turn.dockyards:
        raise _Refusal(
            NOTE_RULE,
            f"only one star ship can be built or repaired per dockyard per turn (dockyard {dockyard_id})",
        )
    if dockyard_id in state.dockyard_busy:
        # Ruling: a dockyard works on one ship at a time; the build time occupies it.
        raise _Refusal(BUILD_TIME_RULE, f"dockyard {dockyard_id} is still building a ship")
    return dockyard


def _build_ship(state: EmpireEconomy, item: BuildShip, turn: _Turn) -> tuple[EmpireEconomy, PlannedItem]:
    dockyard = _dockyard(state, item.dockyard_id, turn)
    try:
        validate_design(item.design, state.technologies)
    except DesignError as error:
        raise _Refusal(error.rule, error.message) from None
    if item.hero_crew and not state.has(Resource.MILITARY_ACADEMY, dockyard.coord):
        # Ruling: hero crews come from a Military Academy on the dockyard's own world.
        raise _Refusal(
            ACADEMY_RULE,
            f"a hero crew needs a Military Academy at {format_coord(dockyard.coord)}, "
            f"the world of dockyard {dockyard.id}",
        )
    # One copy of the (frozen) economy per build, not one for the BP and another for the dockyard.
    state = replace(state, bp=_afford(state, item.cost), dockyard_busy=state.dockyard_busy | {dockyard.id})
    turn.dockyards.add(dockyard.id)
    return state, PlannedItem(item=item, cost=item.cost, build=DockyardBuild.start(item))


def _repair_ship(
    state: EmpireEconomy, item: RepairShip, turn: _Turn, designs: Mapping[str, Design]
) -> tuple[EmpireEconomy, PlannedItem]:
    ship = state.ship(item.ship_id)
    if ship is None:
        raise _Refusal(DOCKYARD_RULE, f"you have no ship {item.ship_id}")
    dockyard = _dockyard(state, item.dockyard_id, turn)
    if ship.coord != dockyard.coord:
        raise _Refusal(
            DOCKYARD_RULE,
            f"to be repaired ship {ship.id} must be in the dockyard's hex "
            f"{format_coord(dockyard.coord)}, not {format_coord(ship.coord)}",
        )
    if ship.id in turn.repaired_ships:
        raise _Refusal(DOCKYARD_RULE, f"ship {ship.id} is already being repaired this turn")
    design = designs.get(ship.design_name)
    if design is None:
        raise _Refusal(DOCKYARD_RULE, f"unknown design {ship.design_name!r} for ship {ship.id}")
    try:
        cost = repair_cost(design, ship.damage)
    except EconomyError as error:
        raise _Refusal(error.rule, f"ship {ship.id}: {error.message}") from None
    state = _pay(state, cost)
    turn.dockyards.add(dockyard.id)
    turn.repaired_ships.add(ship.id)
    return state, PlannedItem(item=item, cost=cost)
