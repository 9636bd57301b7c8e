"""Event Horizon star ship designs: the design rules as data, a design value and its validation.

Pure Python (standard library only). Rule book: ``seeds/003_…``, "Star Ship Design Rules" and
"Ideas for a Military Campaign" ("Campaign Movement", "Research Facility", "Star Ship Build
Times"); project rulings: ``RULINGS.md`` "Event Horizon campaign" ("Ship classes",
"Research-gated components").

A ``Design`` can be built with out-of-range numbers (so a designer screen can show its BP while it
is being edited); ``validate_design`` is what decides whether it may be built or fielded.

JSON form (``Design.to_dict`` / ``Design.from_dict``), keys exactly the field names::

    {
      "name": "Sword Class",                # required, non-empty string
      "ship_type": "frigate",               # required, a ShipType value
      "hull": 6,                            # required, int
      "engine": 7,                          # required, int
      "force_field": 6,                     # int, or null for no generators (default null)
      "weapons": {"laser_bank": 4, "fighter_bay": 2},   # {weapon key: count} (default {})
      "stealth_field": true,                # bool (default false)
      "boarding_parties": 1,                # int (default 0)
      "cargo": 0,                           # BP allocated to cargo capacity, int (default 0)
      "improved_force_fields": false,       # bool (default false)
      "nanobot_skin": false,                # bool (default false)
      "core_containment_capacitor": false,  # bool (default false)
      "ai_supercomputer": false,            # bool (default false)
      "civilian": false                     # bool, space stations only (default false)
    }
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from enum import Enum
from types import MappingProxyType
from typing import Any

DESIGN_RULES = "003 Star Ship Design Rules"
SHIP_TYPE_RULE = "003 Star Ship Design Rules: Ship Type"
ADVANCED_RULE = "003 Star Ship Design Rules: Advanced Ship Components"
NOTE_RULE = "003 Star Ship Design Rules: Note"
SHIP_CLASS_RULE = "003 Star Ship Design Rules: Ship Type (house ruling: Ship classes)"
RESEARCH_RULE = "003 Use of BP in a Campaign: Research Facility (house ruling: Research-gated components)"

HULL_MIN, HULL_MAX = 1, 12
ENGINE_MIN, ENGINE_MAX = 1, 9
STATION_MAX_ENGINE = 1
MILITARY_MAX_WEAPON_SYSTEMS = 7
CIVILIAN_MAX_WEAPON_SYSTEMS = 2
HULL_POINTS_PER_BOARDING_PARTY = 3

HULL_BP_PER_POINT = 1
ENGINE_BP_PER_POINT = 1
BOARDING_PARTY_BP = 1
CARGO_BP_PER_POINT = 1
CARGO_HOLDS_BP = 5  # "Each BP allocated to Cargo Capacity holds the equivalent of 5BP"
STEALTH_FIELD_BP = 5
IMPROVED_FORCE_FIELD_SURCHARGE = 3
CORE_CONTAINMENT_CAPACITOR_BP = 5
AI_SUPERCOMPUTER_BP = 5

# Force field strength -> BP; paid once for the whole ship, not per generator (Note).
FORCE_FIELD_COST: Mapping[int, int] = MappingProxyType({4: 1, 5: 2, 6: 3, 7: 4, 8: 5})


class DesignError(ValueError):
    """A design (or its JSON form) breaks a rule; ``rule`` names the rule book section."""

    def __init__(self, rule: str, message: str):
        self.rule = rule
        self.message = message
        super().__init__(f"{rule}: {message}")


class ShipCategory(str, Enum):  # noqa: UP042 - the agreed (str, Enum) contract, as mapgen.EconomyType
    """The rule book's grouping of ship types, which sets the weapon-system limit."""

    MILITARY = "military"
    STATION = "station"
    FREIGHTER = "freighter"


class ShipType(str, Enum):  # noqa: UP042 - the agreed (str, Enum) contract, as mapgen.EconomyType
    """A ship class ("Ship Type"): its BP total, category and build time."""

    PATROL_CRAFT = "patrol_craft"
    CORVETTE = "corvette"
    FRIGATE = "frigate"
    DESTROYER = "destroyer"
    STAR_CRUISER = "star_cruiser"
    SPACE_STATION = "space_station"
    TRAMP_FREIGHTER = "tramp_freighter"
    BULK_CARRIER = "bulk_carrier"
    STAR_LIFTER = "star_lifter"

    @property
    def label(self) -> str:
        return _SHIP_TYPES[self][0]

    @property
    def bp(self) -> int:
        """The BP total every design of this type must have (RULINGS.md: Ship classes)."""
        return _SHIP_TYPES[self][1]

    @property
    def category(self) -> ShipCategory:
        """``"military"``, ``"station"`` or ``"freighter"`` (a str enum)."""
        return _SHIP_TYPES[self][2]

    @property
    def build_time(self) -> int:
        """Campaign turns a dockyard needs to build it ("Star Ship Build Times")."""
        return _SHIP_TYPES[self][3]


# label, BP ("Ship Type"), category, build time ("Star Ship Build Times"; its "Bulk Hauler" is
# the Ship Type list's Bulk Carrier).
_SHIP_TYPES: Mapping[ShipType, tuple[str, int, ShipCategory, int]] = MappingProxyType(
    {
        ShipType.PATROL_CRAFT: ("Patrol Craft", 20, ShipCategory.MILITARY, 1),
        ShipType.CORVETTE: ("Corvette", 25, ShipCategory.MILITARY, 2),
        ShipType.FRIGATE: ("Frigate", 30, ShipCategory.MILITARY, 3),
        ShipType.DESTROYER: ("Destroyer", 35, ShipCategory.MILITARY, 4),
        ShipType.STAR_CRUISER: ("Star Cruiser", 40, ShipCategory.MILITARY, 5),
        ShipType.SPACE_STATION: ("Space Station", 30, ShipCategory.STATION, 4),
        ShipType.TRAMP_FREIGHTER: ("Tramp Freighter", 15, ShipCategory.FREIGHTER, 1),
        ShipType.BULK_CARRIER: ("Bulk Carrier", 30, ShipCategory.FREIGHTER, 3),
        ShipType.STAR_LIFTER: ("Star Lifter", 60, ShipCategory.FREIGHTER, 6),
    }
)


class Technology(str, Enum):  # noqa: UP042 - the agreed (str, Enum) contract, as mapgen.EconomyType
    """An advanced technology a Research Facility grants ("Research Facility")."""

    IMPROVED_FORCE_FIELDS = "improved_force_fields"
    CORE_CONTAINMENT_CAPACITOR = "core_containment_capacitor"
    NANOBOT_SKIN = "nanobot_skin"
    STEALTH_FIELD = "stealth_field"
    AI_SUPERCOMPUTER = "ai_supercomputer"

    @property
    def label(self) -> str:
        return _TECHNOLOGY_LABELS[self]


_TECHNOLOGY_LABELS: Mapping[Technology, str] = MappingProxyType(
    {
        Technology.IMPROVED_FORCE_FIELDS: "Improved Force Fields",
        Technology.CORE_CONTAINMENT_CAPACITOR: "Core Containment Capacitor",
        Technology.NANOBOT_SKIN: "Nanobot Skin",
        Technology.STEALTH_FIELD: "Stealth Field Technology",
        Technology.AI_SUPERCOMPUTER: "AI Supercomputer",
    }
)


@dataclass(frozen=True)
class Weapon:
    """One weapon system of the catalogue ("Weapon Systems")."""

    key: str
    label: str
    bp: int


WEAPONS: Mapping[str, Weapon] = MappingProxyType(
    {
        w.key: w
        for w in (
            Weapon("laser_bank", "Laser Bank", 1),
            Weapon("particle_accelerator", "Particle Accelerator", 2),
            Weapon("emp_cannon", "EMP Cannon", 3),
            # "Fighters are treated as a weapons system": a bay counts towards the limit.
            Weapon("fighter_bay", "Fighter Bay", 2),
            Weapon("guided_missile_bay", "Guided Missile Bay", 4),
            Weapon("planetary_bombardment_array", "Planetary Bombardment Array", 20),
        )
    }
)


def force_field_bp(strength: int | None, improved: bool = False) -> int:
    """BP of a ship's force field generators (paid once, not per generator); 0 for none."""
    if strength is None:
        return 0
    if strength not in FORCE_FIELD_COST:
        raise DesignError(DESIGN_RULES, f"force field strength must be 4 to 8, not {strength}")
    return FORCE_FIELD_COST[strength] + (IMPROVED_FORCE_FIELD_SURCHARGE if improved else 0)


def _is_int(value: object) -> bool:
    # bool is an int subclass; a JSON true must not pass for a hull of 1.
    return isinstance(value, int) and not isinstance(value, bool)


def _require_int(name: str, value: object) -> None:
    if not _is_int(value):
        raise DesignError(DESIGN_RULES, f"{name} must be a whole number, not {value!r}")


def _require_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise DesignError(DESIGN_RULES, f"{name} must be true or false, not {value!r}")


def _normalise_weapons(weapons: object) -> tuple[tuple[str, int], ...]:
    if isinstance(weapons, Mapping):
        pairs: Iterable[object] = weapons.items()
    elif isinstance(weapons, (str, bytes)) or not isinstance(weapons, Iterable):
        raise DesignError(DESIGN_RULES, f"weapons must be weapon/count pairs, not {weapons!r}")
    else:
        pairs = weapons
    counts: dict[str, int] = {}
    for pair in pairs:
        if not (isinstance(pair, tuple | list) and len(pair) == 2):
            raise DesignError(DESIGN_RULES, f"weapons must be weapon/count pairs, not {pair!r}")
        key, count = pair
        if key not in WEAPONS:
            raise DesignError(DESIGN_RULES, f"unknown weapon system {key!r}")
        if not _is_int(count):
            raise DesignError(
                DESIGN_RULES, f"the number of {WEAPONS[key].label}s must be a whole number, not {count!r}"
            )
        counts[key] = counts.get(key, 0) + count
    # Catalogue order, so equal designs compare equal and read like the rule book's list.
    return tuple((k, counts[k]) for k in WEAPONS if counts.get(k, 0) != 0)


@dataclass(frozen=True)
class Design:
    """A ship design. Numbers are checked by ``validate_design``; types are checked here.

    ``weapons`` may be given as a mapping or as pairs; it is stored as ``(weapon key, count)``
    pairs in catalogue (``WEAPONS``) order, repeated keys added together, zero counts dropped.
    """

    name: str
    ship_type: ShipType
    hull: int
    engine: int
    force_field: int | None = None
    weapons: tuple[tuple[str, int], ...] = ()
    stealth_field: bool = False
    boarding_parties: int = 0
    cargo: int = 0
    improved_force_fields: bool = False
    nanobot_skin: bool = False
    core_containment_capacitor: bool = False
    ai_supercomputer: bool = False
    civilian: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise DesignError(DESIGN_RULES, f"a design needs a name, not {self.name!r}")
        try:
            object.__setattr__(self, "ship_type", ShipType(self.ship_type))
        except ValueError:
            known = ", ".join(t.value for t in ShipType)
            raise DesignError(
                SHIP_TYPE_RULE, f"unknown ship type {self.ship_type!r} (one of {known})"
            ) from None
        for name in ("hull", "engine", "boarding_parties", "cargo"):
            _require_int(name, getattr(self, name))
        if self.force_field is not None:
            _require_int("force_field", self.force_field)
        for name in _BOOL_FIELDS:
            _require_bool(name, getattr(self, name))
        object.__setattr__(self, "weapons", _normalise_weapons(self.weapons))

    @property
    def tactical_move(self) -> int:
        return self.engine

    @property
    def campaign_move(self) -> int:
        """Hexes per campaign move: half the movement allowance, fractions up ("Campaign
        Movement")."""
        return (self.engine + 1) // 2

    @property
    def cargo_capacity(self) -> int:
        """BP worth of cargo the hold carries (5 per BP allocated; design rules "Note")."""
        return self.cargo * CARGO_HOLDS_BP

    @property
    def weapon_systems(self) -> int:
        return sum(count for _, count in self.weapons)

    @property
    def weapon_counts(self) -> Mapping[str, int]:
        return MappingProxyType(dict(self.weapons))

    def bp_breakdown(self) -> tuple[tuple[str, int], ...]:
        """The design's BP, one ``(component, BP)`` line per component fitted."""
        lines: list[tuple[str, int]] = [
            (f"Hull Strength {self.hull}", self.hull * HULL_BP_PER_POINT),
        ]
        if self.nanobot_skin:
            # "double the hull's normal BP cost": the skin adds the hull's cost once more.
            lines.append(("Nanobot Skin", self.hull * HULL_BP_PER_POINT))
        lines.append((f"Engine {self.engine}", self.engine * ENGINE_BP_PER_POINT))
        if self.force_field is not None:
            lines.append((f"Force Fields {self.force_field}", FORCE_FIELD_COST.get(self.force_field, 0)))
        if self.improved_force_fields:
            lines.append(("Improved Force Field Generators", IMPROVED_FORCE_FIELD_SURCHARGE))
        for key, count in self.weapons:
            weapon = WEAPONS[key]
            lines.append((f"{weapon.label} x{count}", weapon.bp * count))
        if self.stealth_field:
            lines.append(("Stealth Field Generator", STEALTH_FIELD_BP))
        if self.boarding_parties:
            lines.append(
                (f"Boarding Party x{self.boarding_parties}", self.boarding_parties * BOARDING_PARTY_BP)
            )
        if self.cargo:
            lines.append(
                (
                    f"Cargo Capacity {self.cargo} (holds {self.cargo_capacity} BP)",
                    self.cargo * CARGO_BP_PER_POINT,
                )
            )
        if self.core_containment_capacitor:
            lines.append(("Core Containment Capacitor (3C)", CORE_CONTAINMENT_CAPACITOR_BP))
        if self.ai_supercomputer:
            lines.append(("AI Supercomputer", AI_SUPERCOMPUTER_BP))
        return tuple(lines)

    @property
    def bp(self) -> int:
        # Kept in the instance dict (the design is frozen; tactical/rules/kit/values.py's way):
        # an order check asks a build's cost several times (issue 34 item 10).
        found = self.__dict__.get("_bp")
        if found is None:
            found = self.__dict__["_bp"] = sum(bp for _, bp in self.bp_breakdown())
        return found

    @property
    def technologies_required(self) -> frozenset[Technology]:
        """Technologies a campaign empire must hold to build this design."""
        found = self.__dict__.get("_technologies_required")
        if found is None:
            found = self.__dict__["_technologies_required"] = self._technologies_required()
        return found

    def _technologies_required(self) -> frozenset[Technology]:
        needed = set()
        if self.improved_force_fields:
            needed.add(Technology.IMPROVED_FORCE_FIELDS)
        if self.core_containment_capacitor:
            needed.add(Technology.CORE_CONTAINMENT_CAPACITOR)
        if self.nanobot_skin:
            needed.add(Technology.NANOBOT_SKIN)
        if self.stealth_field:
            needed.add(Technology.STEALTH_FIELD)
        if self.ai_supercomputer:
            needed.add(Technology.AI_SUPERCOMPUTER)
        return frozenset(needed)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-friendly form described in the module docstring."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        out["ship_type"] = self.ship_type.value
        out["weapons"] = dict(self.weapons)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Design:
        """Read the JSON form; refuses unknown or missing keys and wrong types with DesignError.

        The result is well-typed but not yet validated: call ``validate_design`` on it.
        """
        if not isinstance(data, Mapping):
            raise DesignError(DESIGN_RULES, f"a design must be an object, not {data!r}")
        unknown = sorted(str(k) for k in data if k not in _FIELD_NAMES)
        if unknown:
            raise DesignError(DESIGN_RULES, f"unknown component {unknown[0]!r}")
        missing = [k for k in _REQUIRED_KEYS if k not in data]
        if missing:
            raise DesignError(DESIGN_RULES, f"a design needs {missing[0]!r}")
        values = dict(data)
        weapons = values.get("weapons", {})
        if not isinstance(weapons, Mapping):
            raise DesignError(DESIGN_RULES, f"weapons must be an object of weapon: count, not {weapons!r}")
        if not isinstance(values["ship_type"], str):
            raise DesignError(
                SHIP_TYPE_RULE, f"ship_type must be a ship type name, not {values['ship_type']!r}"
            )
        return cls(**values)


_FIELD_NAMES = frozenset(f.name for f in fields(Design))
_REQUIRED_KEYS = ("name", "ship_type", "hull", "engine")
_BOOL_FIELDS = (
    "stealth_field",
    "improved_force_fields",
    "nanobot_skin",
    "core_containment_capacitor",
    "ai_supercomputer",
    "civilian",
)


def _max_weapon_systems(design: Design) -> int:
    category = design.ship_type.category
    if category == ShipCategory.FREIGHTER or (category == ShipCategory.STATION and design.civilian):
        return CIVILIAN_MAX_WEAPON_SYSTEMS
    return MILITARY_MAX_WEAPON_SYSTEMS


def design_problems(
    design: Design, technologies: frozenset[Technology] | None = None
) -> tuple[DesignError, ...]:
    """Every rule the design breaks, in rule book order (empty when it is valid).

    ``technologies`` is the empire's researched technologies in a campaign; ``None`` is free or
    tactical play, where every component may be fitted.
    """
    if technologies is not None and type(technologies) is not frozenset:
        technologies = frozenset(technologies)
    # Kept on the (frozen) design per set of technologies, as its BP is: an order check asks once
    # per build order (issue 34 item 10). Kept as text, so each caller gets errors of its own.
    kept = design.__dict__.setdefault("_problems", {})
    found = kept.get(technologies)
    if found is None:
        found = kept[technologies] = tuple((e.rule, e.message) for e in _design_problems(design, technologies))
    return tuple(DesignError(rule, message) for rule, message in found)


def _design_problems(design: Design, technologies: frozenset[Technology] | None) -> tuple[DesignError, ...]:
    problems: list[DesignError] = []

    def refuse(rule: str, message: str) -> None:
        problems.append(DesignError(rule, message))

    if not HULL_MIN <= design.hull <= HULL_MAX:
        refuse(DESIGN_RULES, f"hull strength must be {HULL_MIN} to {HULL_MAX}, not {design.hull}")
    if not ENGINE_MIN <= design.engine <= ENGINE_MAX:
        refuse(DESIGN_RULES, f"engine must be {ENGINE_MIN} to {ENGINE_MAX}, not {design.engine}")
    if design.force_field is not None and design.force_field not in FORCE_FIELD_COST:
        refuse(DESIGN_RULES, f"force field strength must be 4 to 8, not {design.force_field}")
    if design.ship_type is ShipType.SPACE_STATION and design.engine > STATION_MAX_ENGINE:
        refuse(
            SHIP_TYPE_RULE,
            f"a Space Station is limited to a maximum movement of {STATION_MAX_ENGINE}, not {design.engine}",
        )
    if design.civilian and design.ship_type is not ShipType.SPACE_STATION:
        refuse(
            NOTE_RULE,
            f"only a Space Station can be civilian, not a {design.ship_type.label}",
        )
    for key, count in design.weapons:
        if count < 0:
            refuse(DESIGN_RULES, f"cannot fit {count} {WEAPONS[key].label}s")
    if design.boarding_parties < 0:
        refuse(DESIGN_RULES, f"cannot carry {design.boarding_parties} boarding parties")
    if design.cargo < 0:
        refuse(NOTE_RULE, f"cannot allocate {design.cargo} BP to cargo capacity")
    limit = _max_weapon_systems(design)
    if design.weapon_systems > limit:
        kind = (
            "a military ship or space station"
            if limit == MILITARY_MAX_WEAPON_SYSTEMS
            else "a freighter or civilian space station"
        )
        refuse(
            NOTE_RULE,
            f"{kind} can carry at most {limit} weapon systems, not {design.weapon_systems}",
        )
    most_parties = max(design.hull, 0) // HULL_POINTS_PER_BOARDING_PARTY
    if design.boarding_parties > most_parties:
        refuse(
            DESIGN_RULES,
            f"one boarding party per {HULL_POINTS_PER_BOARDING_PARTY} hull strength points: "
            f"hull {design.hull} allows {most_parties}, not {design.boarding_parties}",
        )
    if design.improved_force_fields and design.force_field is None:
        refuse(ADVANCED_RULE, "Improved Force Field Generators need force field generators")
    total, wanted = design.bp, design.ship_type.bp
    if total != wanted:
        difference = total - wanted
        refuse(
            SHIP_CLASS_RULE,
            f"a {design.ship_type.label} must total {wanted} BP; this design totals {total} BP "
            f"({abs(difference)} BP {'over' if difference > 0 else 'short'})",
        )
    if technologies is not None:
        for tech in Technology:  # enum order keeps the first refusal stable
            if tech in design.technologies_required and tech not in technologies:
                refuse(
                    RESEARCH_RULE,
                    f"{tech.label} must be researched before a design can carry it",
                )
    return tuple(problems)


def validate_design(design: Design, technologies: frozenset[Technology] | None = None) -> Design:
    """Return ``design`` if it may be built; otherwise raise the first rule it breaks.

    ``technologies=None`` is free/tactical play (everything allowed); in a campaign pass the
    empire's researched technologies and research-gated components need them.
    """
    problems = design_problems(design, technologies)
    if problems:
        raise problems[0]
    return design


def build_time(design: Design) -> int:
    """Campaign turns to build ``design`` ("Star Ship Build Times")."""
    return design.ship_type.build_time


# The rule book's four sample designs ("Sample Ship Design – …"), exactly as printed.
SAN_MARCO = Design(
    name="Venetian San Marco Class Star Cruiser",
    ship_type=ShipType.STAR_CRUISER,
    hull=10,
    engine=8,
    force_field=8,
    weapons=(("laser_bank", 3), ("guided_missile_bay", 3), ("fighter_bay", 1)),
)
SWORD = Design(
    name="Knights of G.O.D Sword Class Frigate",
    ship_type=ShipType.FRIGATE,
    hull=6,
    engine=7,
    force_field=6,
    weapons=(("laser_bank", 4), ("fighter_bay", 2)),
    stealth_field=True,
    boarding_parties=1,
)
SULTAN = Design(
    name="Automann Torque Sultan Class Destroyer",
    ship_type=ShipType.DESTROYER,
    hull=8,
    engine=7,
    force_field=5,
    weapons=(("particle_accelerator", 2), ("guided_missile_bay", 2)),
    stealth_field=True,
    boarding_parties=1,
)
GALIOT = Design(
    name="Cyber-Corsair Galiot Class Corvette",
    ship_type=ShipType.CORVETTE,
    hull=5,
    engine=9,
    force_field=7,
    weapons=(("laser_bank", 4), ("fighter_bay", 1)),
    boarding_parties=1,
)
SAMPLE_DESIGNS: tuple[Design, ...] = (SAN_MARCO, SWORD, SULTAN, GALIOT)
