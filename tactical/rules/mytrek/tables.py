"""My Trek V's tables as data (pure Python): the phase chart (reconstructed, ruling MT1), the attack
deductions, the hull damage levels and power points, the damage levels by size class, and the
"Assembling a Fleet" points (``../shared/seeds/002_…``; the sections are the book's headings,
cited as "002 <heading>").

Speeds are numbered 0–12: 0 all stop (ruling MT3), 1 "H" (half sub-light), 2 "F" (full
sub-light), 3–12 Hyper 1–10.
"""

from __future__ import annotations

BOOK = "002"
PHASE_ZERO = f"{BOOK} Phase Zero: The Command Phase"
PHASES = f"{BOOK} Combat Phases"
ATTACKING = f"{BOOK} Attacking"
TARGETING = f"{BOOK} Targeting Systems"
HULL = f"{BOOK} Hull Damage"
SYSTEMS = f"{BOOK} System Damage"
DESTRUCT = f"{BOOK} Self-Destruct"
FLEET = f"{BOOK} Assembling a Fleet"

STOP, HALF, FULL = 0, 1, 2
SPEED_NAMES = ("Stop", "H", "F") + tuple(f"Hyper {n}" for n in range(1, 11))
ATTACK_PHASES = (3, 6, 9, 12)


def hyper(speed: int) -> int:
    """The Hyper number of a speed (0 for sub-light and all stop)."""
    return max(0, speed - 2)


def speed_name(speed: int) -> str:
    return SPEED_NAMES[speed]


# --- the phase chart (002 Combat Phases; reconstructed: ruling MT1) ---------------------------
# The marks each phase's row kept, in the text as printed (the columns were lost).
ROW_MARKS = {1: 6, 2: 9, 3: 6, 4: 7, 5: 3, 6: 10, 7: 7, 8: 3, 9: 10, 10: 5, 11: 9, 12: 3}

# The phases each speed moves in (MT1): H once, F twice, Hyper n n+2 times (1+2+…+12 = 78, the
# chart's 78 marks); each speed's moves as evenly spaced as the rows allow (the gaps between its
# moves, counted from the start of the turn, differ by at most one), a faster speed never behind a
# slower one at the end of any phase, and of the charts doing both with the printed rows' counts,
# the one closest to even spacing (tests/tactical/mytrek/test_mytrek_tables.py re-derives it).
CHART: dict[int, frozenset[int]] = {
    STOP: frozenset(),
    HALF: frozenset({6}),
    FULL: frozenset({6, 11}),
    3: frozenset({3, 6, 9}),
    4: frozenset({2, 4, 7, 9}),
    5: frozenset({2, 4, 6, 9, 11}),
    6: frozenset({2, 3, 5, 7, 9, 11}),
    7: frozenset({1, 2, 4, 6, 8, 9, 11}),
    8: frozenset({1, 2, 4, 6, 7, 9, 10, 11}),
    9: frozenset({1, 2, 3, 5, 6, 7, 9, 10, 11}),
    10: frozenset({1, 2, 3, 4, 6, 7, 9, 10, 11, 12}),
    11: frozenset({1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12}),
    12: frozenset(range(1, 13)),
}


def moves_in(speed: int, phase: int) -> bool:
    return phase in CHART[speed]


# --- Attacking: the deductions ------------------------------------------------------------------
MAX_RANGE = 12  # the table's last band (ruling MT9)


def range_deduction(spaces: int) -> int:
    if spaces >= 12:
        return 3
    if spaces >= 8:
        return 2
    if spaces >= 4:
        return 1
    return 0


def speed_deduction(speed: int) -> int:
    """Hyper 4 or above −1, Hyper 8 or above −3 (the larger only: ruling MT10)."""
    h = hyper(speed)
    return 3 if h >= 8 else 1 if h >= 4 else 0


SIZE_DEDUCTION = {"A": 0, "B": 0, "C": 0, "D": 1, "E": 2, "F": 3}
TARGETED_DEDUCTION = 3
BLOCKED_DEDUCTION = 3
INVISIBLE_DEDUCTION = 6
SYSTEM_DAMAGE_MARGIN = 6  # 002 Targeting Systems: at least 6 points over the force field

# --- Hull Damage ----------------------------------------------------------------------------------
LEVELS = ("none", "light", "serious", "critical", "destroyed")
LEVEL_PP = {"none": 8, "light": 7, "serious": 5, "critical": 2, "destroyed": 0}
# size class: the lowest hull points of each level none, light, serious, critical (all down to 1)
LEVEL_FLOORS = {
    "A": (46, 31, 16, 1),
    "B": (37, 25, 13, 1),
    "C": (28, 19, 10, 1),
    "D": (19, 13, 7, 1),
    "E": (10, 7, 4, 1),
    "F": (5, 4, 3, 1),
}
HULL_POINTS = {"A": 60, "B": 48, "C": 36, "D": 24, "E": 12, "F": 6}


def damage_level(size: str, hull: int) -> str:
    if hull <= 0:
        return "destroyed"
    for level, floor in zip(LEVELS, LEVEL_FLOORS[size]):
        if hull >= floor:
            return level
    return "destroyed"  # pragma: no cover - every positive hull is at least 1


def power_points(size: str, hull: int) -> int:
    return LEVEL_PP[damage_level(size, hull)]


MAX_PER_SYSTEM = 3
SYSTEMS_NAMES = ("engines", "fields", "weapons")
FACTOR_NAMES = ("off-line", "I", "II", "III")
SELF_DESTRUCT_DICE = 12
SELF_DESTRUCT_RANGE = 12

# --- Assembling a Fleet -------------------------------------------------------------------------
ROW_POINTS = (100, 50, 25, 10, 5, 0)
SIZES = ("A", "B", "C", "D", "E", "F")
# max speed rows: Hyper 9-10, 7-8, 5-6, 3-4, 1-2, sub-light
SPEED_ROWS = ((9, 10), (7, 8), (5, 6), (3, 4), (1, 2), (0,))
FIELD_TYPES = (5, 4, 3, 2, 1, 0)  # V … I, "–" (none)
WEAPON_DICE = (9, 5, 4, 3, 2, 1)  # the "Max. Damage" column
SPECIALS = {"aft": 25, "invisibility": 25, "torpedoes": 25, "missiles": 10}
ROMAN = ("–", "I", "II", "III", "IV", "V")


def size_points(size: str) -> int:
    return ROW_POINTS[SIZES.index(size)]


def speed_points(max_hyper: int) -> int:
    return next(p for p, row in zip(ROW_POINTS, SPEED_ROWS) if max_hyper in row)


def field_points(field_type: int) -> int:
    return ROW_POINTS[FIELD_TYPES.index(field_type)]


def weapon_points(dice: int) -> int:
    return ROW_POINTS[WEAPON_DICE.index(dice)]
