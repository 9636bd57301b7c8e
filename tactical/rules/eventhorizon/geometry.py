"""Event Horizon's templates on the square grid (``tactical.rules.geometry.square``): its arcs and
angle locator, ranges and movement tokens and costs.

Rule book ``seeds/003_…``: "Table", "Movement", "Ranges", "Angle Locator", "Spatial Anomalies".
Pure Python.

Coordinates are ``(x, y)``, 0-based, ``y`` growing down the table (row 0 is the top edge).
A ship faces one of four directions (``N``, ``E``, ``S``, ``W`` = 0–3): "each side of the square
corresponds to … forward, aft, port, starboard". Distance is Chebyshev (``max(|dx|, |dy|)``),
because "Movement and firing can be done diagonally" (as ruling M1 for square campaign maps).
"""

from __future__ import annotations

from functools import lru_cache

from tactical.rules.geometry import square
from tactical.rules.geometry.square import (  # noqa: F401 - the grid's names, read from here by the engine
    FACING_NAMES,
    FACING_VECTORS,
    Coord,
    E,
    N,
    S,
    W,
    distance,
    neighbours,
    relative,
    squares_between,
    step_offset,
    turn,
)

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
    return square.parse_facing(value, "003 Movement")


def range_band(d: int) -> str | None:
    """"Ranges": close = 1 square, long = 2 and 3 squares (ruling TC6: 0, the same planet
    square, counts as close); beyond 3 there is no range."""
    if d <= CLOSE_RANGE:
        return "close"
    if d <= MAX_RANGE:
        return "long"
    return None


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
    return ARC_LETTERS[square.read_chart(ANGLE_LOCATOR, ahead, right)]


# Movement tokens: a step forward, or diagonally forward to port/starboard; a 90 degree turn to
# port (L) or starboard (R). Ships "cannot move in reverse" (ruling TC9: nor sideways).
STEP_TOKENS = ("F", "FL", "FR")
TURN_TOKENS = ("L", "R")
MOVE_TOKENS = STEP_TOKENS + TURN_TOKENS


def move_cost(tokens: tuple[str, ...]) -> int:
    """"One free 90 degree turn of face per square moved … before, during or after" and "1pt of
    movement per 90 degree face turned" beyond that: steps + max(0, turns − steps)."""
    steps = sum(1 for t in tokens if t in STEP_TOKENS)
    turns = len(tokens) - steps
    return max(steps, turns)
