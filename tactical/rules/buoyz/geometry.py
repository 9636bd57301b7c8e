"""The table in inches (rule book ``seeds/000_…`` 1.1, 1.2, 4.1, Templates 1 and 2); pure Python.

Positions are ``(x, y)`` in inches on the table, ``y`` growing "up" the table; a heading is in
degrees, 0 pointing up the table (+y) and growing clockwise (to starboard). Every ship is
measured from its singularity (1.1), its position. Templates 1 and 2 were lost with the book's
pictures; the angles chosen here are rulings BZ2 and BZ3 (``docs/rulings.md``).
"""

from __future__ import annotations

import math

from tactical.rules.geometry.inches import (
    EPSILON,
    PLACES,
    Point,
    advance,
    around,
    bearing,
    distance,
    inches,
    norm,
    on_table,
    relative_bearing,
    round_half_up,
    segment_crosses_rect,
    segment_meets_circle,
    segments_cross,
)
from tactical.rules.geometry.inches import arcs_of as _arcs_of

FORE, PORT, STARBOARD, AFT = "fore", "port", "starboard", "aft"
ARCS = (FORE, PORT, STARBOARD, AFT)  # the order of an SD's per-facing shields

# Ruling BZ2 (1.2, Template 1): four 90-degree quadrants centred on the bow, port beam,
# starboard beam and stern; a bearing exactly on a boundary lies in both quadrants.
ARC_HALF_WIDTH = 45.0
ARC_CENTRES = {FORE: 0.0, STARBOARD: 90.0, AFT: 180.0, PORT: 270.0}

# Ruling BZ3 (4.1, Template 2): the first point of turn is 45 degrees ("the first increment is
# deliberately generous"), every further point 30 degrees; no turn exceeds 180 degrees.
FIRST_POINT_DEGREES = 45.0
NEXT_POINT_DEGREES = 30.0
MAX_TURN_DEGREES = 180.0

# Positions and headings are kept to 1/10,000 inch / degree (ruling BZ1): inches.PLACES.


def halve(value: int, times: int = 1) -> int:
    """A whole number halved ``times`` times ("half and half again", 5.7/5.8), rounded once at the
    end as 1.1 says (ruling BZ5): 4 → 2 → 1, 1 → 1, 3 halved twice → 1."""
    if times <= 0:
        return value
    return round_half_up(value / (2 ** times))


def arcs_of(pos: Point, heading: float, other: Point) -> frozenset[str]:
    """The quadrant(s) of Template 1 that ``other`` lies in (two on a boundary; ruling BZ2)."""
    return _arcs_of(pos, heading, other, ARC_CENTRES, ARC_HALF_WIDTH)


def turn_degrees(points: int) -> float:
    """The angle of a turn of ``points`` (negative: to port) on Template 2 (ruling BZ3)."""
    n = abs(points)
    if n == 0:
        return 0.0
    deg = min(MAX_TURN_DEGREES, FIRST_POINT_DEGREES + (n - 1) * NEXT_POINT_DEGREES)
    return deg if points > 0 else -deg


ZONE = 24.0  # 10.2 "divide the table up into zones of 2' square"


def zone_of(pos: Point, width: float, height: float) -> tuple[int, int]:
    """The 2' square (column, row from the south-west corner) holding ``pos`` (10.2)."""
    cols, rows = zone_count(width, height)
    return (min(cols - 1, max(0, int(pos[0] // ZONE))), min(rows - 1, max(0, int(pos[1] // ZONE))))


def zone_count(width: float, height: float) -> tuple[int, int]:
    return (max(1, math.ceil(width / ZONE - 1e-9)), max(1, math.ceil(height / ZONE - 1e-9)))


def in_zone(pos: Point, zone: tuple[int, int], width: float, height: float) -> bool:
    x0, y0 = zone[0] * ZONE, zone[1] * ZONE
    return (x0 - EPSILON <= pos[0] <= min(width, x0 + ZONE) + EPSILON
            and y0 - EPSILON <= pos[1] <= min(height, y0 + ZONE) + EPSILON)


__all__ = [
    "EPSILON",
    "PLACES",
    "ZONE",
    "around",
    "in_zone",
    "segments_cross",
    "zone_count",
    "zone_of",
    "segment_crosses_rect",
    "segment_meets_circle",
    "ARCS",
    "FORE",
    "PORT",
    "STARBOARD",
    "AFT",
    "Point",
    "advance",
    "arcs_of",
    "bearing",
    "distance",
    "halve",
    "inches",
    "norm",
    "on_table",
    "relative_bearing",
    "round_half_up",
    "turn_degrees",
]
