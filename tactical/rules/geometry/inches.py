"""A table measured in inches (pure Python): distance, bearing, advance, arcs, segment tests.

Positions are ``(x, y)`` in inches on the table, ``y`` growing "up" the table; a heading is in
degrees, 0 pointing up the table (+y) and growing clockwise (to starboard). Values are kept to
``PLACES`` decimals (1/10,000 inch or degree) so replays agree bit for bit; ``EPSILON`` is the
tolerance of every comparison. A rule book keeps its own templates (its arcs' centres and
widths, its turning template, its zones) and builds on these:

``distance(a, b)``, ``inches(a, b)`` (whole inches, ½ up), ``round_half_up(x)``, ``norm(h)``,
``bearing(a, b)``, ``relative_bearing(pos, heading, other)``, ``advance(pos, heading, d)``,
``arcs_of(pos, heading, other, centres, half_width)``, ``on_table(pos, w, h)``,
``segment_crosses_rect``, ``segment_meets_circle``, ``segments_cross``, ``around`` (orbits).
Buoyz (``tactical/rules/buoyz/geometry.py``) is the model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

Point = tuple[float, float]

PLACES = 4  # positions and headings are kept to 1/10,000 inch / degree
EPSILON = 1e-6


def round_half_up(value: float) -> int:
    """1.1 "Fractions. ½ and above always round up, less than a half, always round down"
    (of a value that is not negative; a negative one rounds as its size does)."""
    v = round(value, 9)  # float noise: 2.4999999999 from arithmetic is 2.5
    if v < 0:
        return -round_half_up(-v)
    return math.floor(v + 0.5)



def norm(heading: float) -> float:
    h = round(heading % 360.0, PLACES)
    return 0.0 if h >= 360.0 else h



def distance(a: Point, b: Point) -> float:
    """Singularity to singularity, exact (1.1)."""
    return math.hypot(b[0] - a[0], b[1] - a[1])



def inches(a: Point, b: Point) -> int:
    """A measured distance in whole inches, rounded as 1.1 (ruling BZ1): ranges (5.3, 5.9) and the
    range modifier (5.5) are read from it, so 6.4" is in main weapon range and 2.5" is 3" away."""
    # round_half_up of a distance (never negative) already kept to 4 places, inline
    return math.floor(round(math.hypot(b[0] - a[0], b[1] - a[1]), PLACES) + 0.5)



def bearing(a: Point, b: Point) -> float:
    """The compass direction from ``a`` to ``b`` (0 = up the table, clockwise)."""
    return norm(math.degrees(math.atan2(b[0] - a[0], b[1] - a[1])))



def relative_bearing(pos: Point, heading: float, other: Point) -> float:
    """Where ``other`` lies seen from a ship at ``pos`` heading ``heading``: 0 dead ahead,
    90 to starboard, 180 astern, 270 to port."""
    return norm(bearing(pos, other) - heading)



def arcs_of(pos: Point, heading: float, other: Point, centres: Mapping[str, float], half_width: float
            ) -> frozenset[str]:
    """The arc(s) ``other`` lies in, seen from ``pos`` heading ``heading``: every arc of
    ``centres`` (name → relative bearing of its centre) within ``half_width`` degrees of it (two
    on a boundary). The same point as ``pos``: every arc."""
    if distance(pos, other) < EPSILON:
        return frozenset(centres)
    rel = relative_bearing(pos, heading, other)
    out = set()
    for arc, centre in centres.items():
        off = abs((rel - centre + 180.0) % 360.0 - 180.0)
        if off <= half_width + EPSILON:
            out.add(arc)
    return frozenset(out)

def advance(pos: Point, heading: float, dist: float) -> Point:
    rad = math.radians(heading)
    return (round(pos[0] + dist * math.sin(rad), PLACES), round(pos[1] + dist * math.cos(rad), PLACES))



def on_table(pos: Point, width: float, height: float) -> bool:
    return -EPSILON <= pos[0] <= width + EPSILON and -EPSILON <= pos[1] <= height + EPSILON



def segment_crosses_rect(a: Point, b: Point, centre: Point, heading: float, length: float, width: float) -> bool:
    """Whether the segment a→b passes through the rectangle centred on ``centre`` whose ``length``
    lies across ``heading`` and ``width`` along it (a laid mine's 1" by ½" field, 5.10)."""
    rad = math.radians(heading)
    fx, fy = math.sin(rad), math.cos(rad)  # along the heading
    rx, ry = fy, -fx  # across it (to starboard)

    def local(p: Point) -> tuple[float, float]:
        dx, dy = p[0] - centre[0], p[1] - centre[1]
        return dx * rx + dy * ry, dx * fx + dy * fy

    (x0, y0), (x1, y1) = local(a), local(b)
    t0, t1 = 0.0, 1.0
    for p, q in ((-(x1 - x0), x0 + length / 2), (x1 - x0, length / 2 - x0),
                 (-(y1 - y0), y0 + width / 2), (y1 - y0, width / 2 - y0)):
        if abs(p) < 1e-12:
            if q < 0:
                return False
            continue
        r = q / p
        if p < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 > t1 + 1e-12:
            return False
    return True



def segment_meets_circle(a: Point, b: Point, centre: Point, radius: float) -> bool:
    """Whether the segment a→b comes within ``radius`` of ``centre`` (passes into or through a
    planet, asteroid field or nebula, 9.0)."""
    ax, ay = a[0] - centre[0], a[1] - centre[1]
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 < 1e-12 else max(0.0, min(1.0, -(ax * dx + ay * dy) / length2))
    px, py = ax + t * dx, ay + t * dy
    return px * px + py * py <= radius * radius + 1e-9



def segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    """Whether the segments a→b and c→d meet (a path through a Tholian web, 7.3). A path that
    only starts or ends on the web does not cross it."""
    def orient(p: Point, q: Point, r: Point) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    d1, d2 = orient(c, d, a), orient(c, d, b)
    d3, d4 = orient(a, b, c), orient(a, b, d)
    eps = 1e-9
    return ((d1 > eps and d2 < -eps) or (d1 < -eps and d2 > eps)) and \
        ((d3 > eps and d4 < -eps) or (d3 < -eps and d4 > eps) or abs(d3) <= eps or abs(d4) <= eps)



def around(pos: Point, centre: Point, arc_inches: float) -> tuple[Point, float]:
    """``pos`` carried ``arc_inches`` counter-clockwise (seen from above the table) around
    ``centre`` at its distance from it (9.0 orbits, 11.5 rotation; ruling BZ57), and the degrees
    turned (negative: to port, as a heading change)."""
    r = distance(pos, centre)
    if r < 1e-9:
        return pos, 0.0
    angle = arc_inches / r  # radians
    dx, dy = pos[0] - centre[0], pos[1] - centre[1]
    c, s = math.cos(angle), math.sin(angle)
    new = (round(centre[0] + dx * c - dy * s, PLACES), round(centre[1] + dx * s + dy * c, PLACES))
    return new, -math.degrees(angle)


__all__ = ["EPSILON", "PLACES", "Point", "advance", "arcs_of", "around", "bearing", "distance", "inches", "norm",
           "on_table", "relative_bearing", "round_half_up", "segment_crosses_rect", "segment_meets_circle",
           "segments_cross"]
