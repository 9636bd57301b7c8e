"""The square grid: facings, distance, ranges, the angle locator and lines of fire.

Rule book ``seeds/003_…``: "Table", "Movement", "Ranges", "Angle Locator", "Spatial Anomalies".
Pure Python.

Coordinates are ``(x, y)``, 0-based, ``y`` growing down the table (row 0 is the top edge).
A ship faces one of four directions (``N``, ``E``, ``S``, ``W`` = 0–3): "each side of the square
corresponds to … forward, aft, port, starboard". Distance is Chebyshev (``max(|dx|, |dy|)``),
because "Movement and firing can be done diagonally" (as ruling M1 for square campaign maps).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

Coord = tuple[int, int]

N, E, S, W = 0, 1, 2, 3
FACING_NAMES = ("N", "E", "S", "W")
FACING_VECTORS: tuple[Coord, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))

# Force field arcs, indexed clockwise from forward.
FORWARD, STARBOARD, AFT, PORT = 0, 1, 2, 3
ARC_NAMES = ("forward", "starboard", "aft", "port")
ARC_LETTERS = {"F": FORWARD, "S": STARBOARD, "A": AFT, "P": PORT}

CLOSE_RANGE = 1
LONG_RANGE = (2, 3)
MAX_RANGE = 3

# "Angle Locator": the target at the centre facing up (^); the other vessel's square read off.
# Rows run from 3 squares ahead (top) to 3 behind; columns from 3 to port (left) to 3 to starboard.
ANGLE_LOCATOR: tuple[str, ...] = (
    "FFFFFFF",
    "PFFFFFS",
    "PPFFFSS",
    "PPP^SSS",
    "PPAAASS",
    "PAAAAAS",
    "AAAAAAA",
)


def parse_facing(value: int | str) -> int:
    if isinstance(value, str) and value.upper() in FACING_NAMES:
        return FACING_NAMES.index(value.upper())
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return value
    raise ValueError(f"003 Movement: a facing is N, E, S or W (or 0-3), not {value!r}")


def distance(a: Coord, b: Coord) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def range_band(d: int) -> str | None:
    """"Ranges": close = 1 square, long = 2 and 3 squares (ruling TC6: 0, the same planet
    square, counts as close); beyond 3 there is no range."""
    if d <= CLOSE_RANGE:
        return "close"
    if d <= MAX_RANGE:
        return "long"
    return None


def relative(origin_facing: int, offset: Coord) -> tuple[int, int]:
    """``offset`` (world dx, dy) in the frame of a ship facing ``origin_facing``:
    ``(ahead, starboard)`` squares."""
    fx, fy = FACING_VECTORS[origin_facing]
    sx, sy = -fy, fx  # starboard is 90 degrees clockwise of forward
    dx, dy = offset
    return dx * fx + dy * fy, dx * sx + dy * sy


def arc_of(target_pos: Coord, target_facing: int, other_pos: Coord) -> int:
    """The angle locator: which of the target's arcs (FORWARD/STARBOARD/AFT/PORT) faces the
    other vessel. Beyond the chart's 3 squares the offset is scaled down onto the chart's rim
    (ruling TC7); the same square counts as forward (ruling TC7)."""
    return _arc(target_facing, other_pos[0] - target_pos[0], other_pos[1] - target_pos[1])


@lru_cache(maxsize=1 << 16)
def _arc(target_facing: int, dx: int, dy: int) -> int:
    ahead, right = relative(target_facing, (dx, dy))
    if ahead == 0 and right == 0:
        return FORWARD
    big = max(abs(ahead), abs(right))
    if big > 3:
        ahead = round(Fraction(ahead * 3, big))
        right = round(Fraction(right * 3, big))
    row, col = 3 - ahead, 3 + right
    return ARC_LETTERS[ANGLE_LOCATOR[row][col]]


def squares_between(a: Coord, b: Coord) -> tuple[tuple[Coord, ...], ...]:
    """The squares a line of fire from ``a`` to ``b`` passes through, not counting either end.

    One entry per intermediate step ``i`` (1 … n−1, n the distance): the square nearest the
    point ``i/n`` of the way along; where the line runs exactly between two squares the entry
    holds both (ruling TC8: the shot is blocked there only if both are blocked).
    """
    ax, ay = a
    return tuple(tuple((ax + x, ay + y) for x, y in step) for step in _between_offsets(b[0] - ax, b[1] - ay))


@lru_cache(maxsize=4096)
def _between_offsets(dx: int, dy: int) -> tuple[tuple[Coord, ...], ...]:
    n = max(abs(dx), abs(dy))
    out = []
    for i in range(1, n):
        xs = _nearest(dx * i, n)
        ys = _nearest(dy * i, n)
        out.append(tuple((x, y) for x in xs for y in ys))
    return tuple(out)


def _nearest(num: int, den: int) -> tuple[int, ...]:
    """The integers nearest num/den (both, when it is exactly halfway); den > 0."""
    floor, rem = divmod(num, den)
    if 2 * rem == den:
        return (floor, floor + 1)
    return (floor + 1,) if 2 * rem > den else (floor,)


def neighbours(c: Coord) -> tuple[Coord, ...]:
    x, y = c
    return tuple((x + dx, y + dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy)


# Movement tokens: a step forward, or diagonally forward to port/starboard; a 90 degree turn to
# port (L) or starboard (R). Ships "cannot move in reverse" (ruling TC9: nor sideways).
STEP_TOKENS = ("F", "FL", "FR")
TURN_TOKENS = ("L", "R")
MOVE_TOKENS = STEP_TOKENS + TURN_TOKENS


def step_offset(facing: int, token: str) -> Coord:
    fx, fy = FACING_VECTORS[facing]
    sx, sy = -fy, fx
    if token == "F":
        return fx, fy
    if token == "FL":
        return fx - sx, fy - sy
    if token == "FR":
        return fx + sx, fy + sy
    raise ValueError(token)


def turn(facing: int, token: str) -> int:
    return (facing + (1 if token == "R" else -1)) % 4


def move_cost(tokens: tuple[str, ...]) -> int:
    """"One free 90 degree turn of face per square moved … before, during or after" and "1pt of
    movement per 90 degree face turned" beyond that: steps + max(0, turns − steps)."""
    steps = sum(1 for t in tokens if t in STEP_TOKENS)
    turns = len(tokens) - steps
    return max(steps, turns)
