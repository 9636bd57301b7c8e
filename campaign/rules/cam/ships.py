"""Ship descriptions (SDs), their limits, the CAM points costs and the rule book's starter SDs.

Pure Python (standard library only). Rule book: ``seeds/000_…`` section 1.5 "Ship Descriptions
(SDs)" (the fields, Sub-Commander T'Corr's limits, the six periods and the sample SDs), 1.6
"'Counters'" (the runabout counter) and the campaign supplement's CAM 2.2 "Scenario Point Level"
(points costs). Rulings made here are listed in ``docs/rulings.md`` ("CAM campaign layer").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType

SD_RULE = "000 1.5 Ship Descriptions (SDs)"
LIMITS_RULE = "000 1.5 Ship Descriptions (SDs): Sub-Commander T'Corr's limits"
PERIOD_RULE = "000 1.5 Ship Descriptions (SDs): time periods"
COST_RULE = "000 CAM 2.2 Scenario Point Level"

PERIODS = MappingProxyType({
    1: "The era of the 'Enterprise' series and establishment of the UFP (c.2065 - c.2220)",
    2: "The era of 'Discovery', 'The Original Series', 'Star Fleet Battles', 'The Animated Series' "
       "and the 'Kelvin Timeline' (c.2220 - c.2270)",
    3: "The era of the 'movies' and subsequent events (c.2270 - c.2300)",
    4: "A period of change and shifting alliances (c.2300 - c.2350)",
    5: "The era of 'The Next Generation', 'Deep Space 9', 'Voyager' and associated movies (c.2350 - c.2380)",
    6: "From the destruction of Romulus, its aftermath and 'Picard' (c.2380+)",
})
FIRST_PERIOD, LAST_PERIOD = 1, 6

# T'Corr's limits ("Speed: 10", Turning: 4, Target Size: 0 to 5, Shields: 6, Hull: 30, Command: 1
# to 3, AC: 10, Special Abilities: 8; Weapons: Main 10, Secondary 10, Close Defence 10").
MAX_SPEED = 10
MAX_TURNING = 4
MAX_TURNING_SIZE_5 = 5  # ruling CAM2: the book's own size-5 DE and runabouts turn 5
MIN_TARGET_SIZE, MAX_TARGET_SIZE = 0, 5
MAX_SHIELDS = 6
MAX_HULL = 30
MIN_COMMAND, MAX_COMMAND = 1, 3
MAX_AC = 10
MAX_SPECIAL_ABILITIES = 8
MAX_MAIN = MAX_SECONDARY = MAX_CLOSE_DEFENCE = 10

SIZE_CLASS_0_SURCHARGE = 20  # "Each ship Size Class 0 +20 points to its cost"


class SDError(ValueError):
    """An SD that breaks section 1.5 (a limit, a missing field, a bad period); names the rule."""

    def __init__(self, sd: str, rule: str, message: str):
        self.sd, self.rule, self.message = sd, rule, message
        super().__init__(f"SD {sd!r}: {rule}: {message}")


class ShipClass(str, Enum):
    """The type letters of an SD's name (1.5 "Name: Class and name"), as CAM 2.2 prices them."""

    BB = "BB"  # battleship
    CV = "CV"  # carrier
    BC = "BC"  # battlecruiser
    CVE = "CVE"  # escort carrier
    CA = "CA"  # heavy cruiser
    CL = "CL"  # light cruiser
    DD = "DD"  # destroyer
    DE = "DE"  # destroyer escort
    SS = "SS"  # small ship named by CAM 4.2 "Small Ship Flexibility" (no CAM 2.2 price: ruling CAM3)
    TP = "TP"  # merchant ship / transport
    RB = "RB"  # patrol 'Runabout' counter (1.6: the counter counts as a ship)


class SizeGroup(str, Enum):
    """CAM 4.2's three replacement groups; ``CAPITAL`` is also CAM 3.1's 'capital ships'."""

    CAPITAL = "capital"  # BB, CV, BC (CAM 3.1 "(i.e. BB, CV and/or BC)"; CAM 4.2)
    MEDIUM = "medium"  # CA, CL, CVE (CAM 4.2 "Medium Ship Replacement Limitation")
    SMALL = "small"  # DD, DE, SS, TP, 'Runabouts' (CAM 4.2 "Small Ship Flexibility")


CLASS_POINTS: Mapping[ShipClass, int] = MappingProxyType({
    ShipClass.BB: 20,  # "Each BB or CV and its AC compliment 20 points"
    ShipClass.CV: 20,
    ShipClass.BC: 15,  # "Each BC or CVE and its AC compliment 15 points"
    ShipClass.CVE: 15,
    ShipClass.CA: 10,
    ShipClass.CL: 7,
    ShipClass.DD: 5,
    ShipClass.DE: 3,  # "Each DE, patrol 'Runabout' counter, or extra AC counter 3 points"
    ShipClass.RB: 3,
    ShipClass.SS: 3,  # ruling CAM3: priced as the other small warship counter, a DE
    ShipClass.TP: 2,  # "Each TP Merchant Ship 2 points"
})
EXTRA_AC_POINTS = 3
BASE_COST_DICE = (1, 6, 5)  # "Each Planetary Battery / Base 1D6 + 5 points": (count, sides, plus)
MINEFIELD_COST_DICE = (1, 6, 0)  # "Each Minefield 12" Square 1 XD6 points"

CLASS_GROUP: Mapping[ShipClass, SizeGroup] = MappingProxyType({
    ShipClass.BB: SizeGroup.CAPITAL, ShipClass.CV: SizeGroup.CAPITAL, ShipClass.BC: SizeGroup.CAPITAL,
    ShipClass.CA: SizeGroup.MEDIUM, ShipClass.CL: SizeGroup.MEDIUM, ShipClass.CVE: SizeGroup.MEDIUM,
    ShipClass.DD: SizeGroup.SMALL, ShipClass.DE: SizeGroup.SMALL, ShipClass.SS: SizeGroup.SMALL,
    ShipClass.TP: SizeGroup.SMALL, ShipClass.RB: SizeGroup.SMALL,
})
# CAM 2.2 convoy: "At least 80% of the attacker's fleet must be CL or smaller".
CL_OR_SMALLER = frozenset({ShipClass.CL, ShipClass.DD, ShipClass.DE, ShipClass.SS, ShipClass.TP, ShipClass.RB})
CARRIERS = frozenset({ShipClass.CV, ShipClass.CVE})  # CAM 3.1 condition 3


@dataclass(frozen=True)
class Weapon:
    """One weapon line of an SD: ``count`` attack dice of ``name`` (5.0), ``arc`` if limited."""

    count: int
    name: str
    arc: str = ""


@dataclass(frozen=True)
class SD:
    """A ship description (1.5). ``speed``/``turning`` are ``None`` for a space station or
    'shore' base ("N/A"). ``shields`` are (fore, port, starboard, aft): the D7 has different
    aft shields. ``hull``/``crippled_at``: "Hull 7/3" (crippled_at 0: never crippled, 5.7).
    ``ac`` is flights carried, ``ac_capacity`` room for more ("AC: None – capacity for 2").
    ``secondary`` and ``close_defence`` are attack dice. ``periods`` is (first, last), 1–6."""

    key: str
    ship_class: ShipClass
    name: str
    speed: int | None
    turning: int | None
    target_size: int
    shields: tuple[int, int, int, int]
    hull: int
    crippled_at: int
    command: int = 2
    ac: int = 0
    ac_capacity: int = 0
    special_abilities: tuple[str, ...] = ()
    main: tuple[Weapon, ...] = ()
    secondary: int = 0
    close_defence: int = 0
    periods: tuple[int, int] = (FIRST_PERIOD, LAST_PERIOD)
    notes: str = field(default="", compare=False)

    @property
    def group(self) -> SizeGroup:
        return CLASS_GROUP[self.ship_class]

    @property
    def size_class_0(self) -> bool:
        """'Size Class' is the Target Size (1.5; CAM 2.2 "Each ship Size Class 0")."""
        return self.target_size == 0

    @property
    def points(self) -> int:
        """CAM 2.2 cost: the class's points (AC compliment included), +20 for Size Class 0."""
        return CLASS_POINTS[self.ship_class] + (SIZE_CLASS_0_SURCHARGE if self.size_class_0 else 0)

    @property
    def main_dice(self) -> int:
        return sum(w.count for w in self.main)

    def available_in(self, period: int) -> bool:
        first, last = self.periods
        return first <= period <= last


def _whole(sd: str, what: str, value: object, low: int, high: int, rule: str = LIMITS_RULE) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SDError(sd, rule, f"{what} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise SDError(sd, rule, f"{what} {value} is outside {low} to {high}")


def validate_sd(sd: SD) -> SD:
    """Check ``sd`` against 1.5 and T'Corr's limits; returns it, or raises ``SDError``."""
    key = sd.key or sd.name
    if not sd.key or not sd.key.strip():
        raise SDError(key, SD_RULE, "an SD needs a catalogue key")
    if not sd.name or not sd.name.strip():
        raise SDError(key, SD_RULE, "an SD needs a name (class and name, e.g. CA USS 'Hood')")
    if not isinstance(sd.ship_class, ShipClass):
        raise SDError(key, SD_RULE, f"unknown ship class {sd.ship_class!r}")
    _whole(key, "Target Size", sd.target_size, MIN_TARGET_SIZE, MAX_TARGET_SIZE)
    if (sd.speed is None) != (sd.turning is None):
        raise SDError(key, SD_RULE, "Speed and Turning are both N/A (a station or base) or both given")
    if sd.speed is not None:
        _whole(key, "Speed", sd.speed, 0, MAX_SPEED)
        turning_limit = MAX_TURNING_SIZE_5 if sd.target_size == MAX_TARGET_SIZE else MAX_TURNING
        _whole(key, "Turning", sd.turning, 0, turning_limit)
    if len(sd.shields) != 4:
        raise SDError(key, SD_RULE, "Shields are given for the fore, port, starboard and aft arcs")
    for arc, value in zip(("fore", "port", "starboard", "aft"), sd.shields):
        _whole(key, f"Shields ({arc})", value, 0, MAX_SHIELDS)
    _whole(key, "Hull", sd.hull, 1, MAX_HULL)
    _whole(key, "Hull's Crippled figure", sd.crippled_at, 0, sd.hull - 1, rule="000 5.7 Crippled Ships")
    _whole(key, "Command", sd.command, MIN_COMMAND, MAX_COMMAND)
    _whole(key, "AC", sd.ac, 0, MAX_AC)
    _whole(key, "AC carried plus spare capacity", sd.ac + sd.ac_capacity, 0, MAX_AC)
    if len(sd.special_abilities) > MAX_SPECIAL_ABILITIES:
        raise SDError(key, LIMITS_RULE, f"{len(sd.special_abilities)} Special Abilities; the limit is "
                      f"{MAX_SPECIAL_ABILITIES} (national characteristics included)")
    for weapon in sd.main:
        _whole(key, f"Main weapon {weapon.name!r} strength", weapon.count, 1, MAX_MAIN)
    _whole(key, "Main weapons (attack dice in all)", sd.main_dice, 0, MAX_MAIN)
    _whole(key, "Secondary weapons", sd.secondary, 0, MAX_SECONDARY)
    _whole(key, "Close Defence", sd.close_defence, 0, MAX_CLOSE_DEFENCE)
    if len(sd.periods) != 2:
        raise SDError(key, PERIOD_RULE, "periods are (first, last)")
    first, last = sd.periods
    _whole(key, "first period", first, FIRST_PERIOD, LAST_PERIOD, PERIOD_RULE)
    _whole(key, "last period", last, first, LAST_PERIOD, PERIOD_RULE)
    return sd


def _shields(all_arcs: int, aft: int | None = None) -> tuple[int, int, int, int]:
    return (all_arcs, all_arcs, all_arcs, all_arcs if aft is None else aft)


# The rule book's sample SDs (1.5, 1.6), as a starter catalogue. Ruling CAM1 reads "Available
# Period N" as that period only, "N onwards" as N to 6, "any period" as 1 to 6.
STARTER_SDS: tuple[SD, ...] = (
    SD("constitution", ShipClass.CA, "CA USS 'Hood' (Constitution class)", 6, 3, 3, _shields(3), 7, 3,
       special_abilities=("Research", "Warp", "Impulse", "Trans", "Trac", "Saucer"),
       main=(Weapon(4, "Phaser"), Weapon(2, "Photon Torp", "Fwd")), secondary=0, close_defence=2,
       periods=(2, 2), notes="'Classic' Federation Constitution class. Available Period 2."),
    SD("d7", ShipClass.BC, "BC IKS 'Doomslayer' (D7 class)", 6, 3, 3, _shields(4, aft=2), 6, 3,
       special_abilities=("Warp", "Impulse", "Trans", "Trac", "Attack Shields"),
       main=(Weapon(4, "Phaser"), Weapon(2, "Disruptor Torp", "Fwd"), Weapon(1, "Drone Torp")),
       secondary=2, close_defence=3, periods=(2, 2),
       notes="'Classic' Klingon D7 class. Available Period 2 (the K'T'Inga refit from Period 3)."),
    SD("war_talon", ShipClass.CL, "CL IRS 'War Talon' (Bird of Prey)", 3, 3, 3, _shields(3), 3, 1,
       special_abilities=("Impulse", "Trans", "Trac", "Cloak", "Pursuit Mine"),
       main=(Weapon(2, "Phaser"), Weapon(1, "Plasma Torp", "Fwd only")), secondary=1, close_defence=1,
       periods=(1, 2), notes="'Classic' Romulan Bird of Prey. Available Periods 1 to 2."),
    SD("b_rel", ShipClass.DD, "DD IKS 'B'Rel' (B'Rel / K'Vort class)", 7, 4, 4, _shields(2), 2, 1,
       special_abilities=("Warp", "Impulse", "Trans", "Cloak", "Landing"),
       main=(Weapon(2, "Phaser", "Fwd"), Weapon(1, "Disruptor Torp", "Fwd")), secondary=0, close_defence=1,
       periods=(3, 6), notes="'Movie' B'Rel / K'Vort class Bird of Prey. Available Period 3 onwards."),
    SD("l42", ShipClass.DE, "DE IKS 'K'Prn' (L42 class)", 7, 5, 5, _shields(1), 1, 0,
       special_abilities=("Warp", "Impulse", "Trans", "Cloak", "Landing", "Fire cloaked"),
       main=(Weapon(1, "Phaser", "Fwd"), Weapon(1, "Disruptor Torp", "Fwd")), secondary=0, close_defence=1,
       periods=(3, 6), notes="'Movie' L42 class Bird of Prey, a scout. Available P3 onwards."),
    SD("galaxy", ShipClass.CA, "CA USS 'Hood' (Galaxy class)", 8, 2, 1, _shields(6), 12, 8, ac_capacity=2,
       special_abilities=("Research", "Warp", "Impulse", "Trans", "Trac", "Saucer", "Advanced Sensors"),
       main=(Weapon(6, "Phaser"), Weapon(2, "Photon Torp")), secondary=3, close_defence=5,
       periods=(5, 6), notes="'TNG' Galaxy class. Available Period 5 onwards."),
    SD("valkyrie", ShipClass.CV, "CV USS 'Valkyrie'", 6, 2, 1, _shields(5), 14, 8, ac=8,
       special_abilities=("Warp", "Impulse", "Trans", "Trac", "Carrier"),
       main=(), secondary=5, close_defence=6,
       periods=(5, 6), notes="Late 'TNG' era carrier. Available Period 5 onwards."),
    SD("kobayashi_maru", ShipClass.TP, "TP SS 'Kobayashi Maru'", 3, 2, 3, _shields(1), 5, 4,
       special_abilities=("Warp", "Impulse", "Trans"), close_defence=1,
       periods=(1, 6), notes="A merchant veteran. Available any period."),
    SD("borg_cube", ShipClass.BB, "BB Cube 249", 8, 2, 0, _shields(6), 30, 10,
       special_abilities=("Research", "Warp", "Impulse", "Trans", "Trac", "Adaption", "Shield Drain",
                          "Advanced Sensors"),
       main=(Weapon(6, "Phaser"),), secondary=6, close_defence=6,
       periods=(5, 6), notes="Borg Cube, Size 0. Available Period 5 onwards."),
    SD("firecat", ShipClass.CA, "CA 'Firecat' (Kzinti Attack Cruiser)", 6, 3, 3, _shields(4), 6, 4,
       special_abilities=("Warp", "Impulse", "Trans", "Trac"),
       main=(Weapon(2, "Phaser"), Weapon(1, "Disruptor Torp", "Fwd"), Weapon(4, "Drone Torp")),
       secondary=4, close_defence=6, periods=(2, 6), notes="Kzinti 'Attack Cruiser'. Available Period 2 onwards."),
    SD("runabouts", ShipClass.RB, "'4077th Squadron Runabouts' (patrol counter)", 6, 5, 5, _shields(0), 1, 0,
       special_abilities=("Agile", "1 shot only", "Landing", "Advanced Sensors"),
       main=(Weapon(1, "Photon Torp", "Fwd"),), close_defence=1,
       periods=(1, 6), notes="1.6 'Counters': generic patrol 'Runabout' swarm. No period given (ruling CAM1)."),
)


def _catalogue(sds: tuple[SD, ...]) -> Mapping[str, SD]:
    out: dict[str, SD] = {}
    for sd in sds:
        validate_sd(sd)
        if sd.key in out:
            raise SDError(sd.key, SD_RULE, "two SDs share one catalogue key")
        out[sd.key] = sd
    return MappingProxyType(out)


STARTER_CATALOGUE: Mapping[str, SD] = _catalogue(STARTER_SDS)


def make_catalogue(*extra: SD, base: Mapping[str, SD] = STARTER_CATALOGUE) -> Mapping[str, SD]:
    """The starter catalogue plus ``extra`` SDs (each validated; keys must be new)."""
    return _catalogue(tuple(base.values()) + tuple(extra))
