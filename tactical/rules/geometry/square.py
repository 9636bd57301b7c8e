"""One grid of squares, with facings and lines (pure Python, standard library only).

Coordinates are ``(x, y)``, 0-based, ``y`` growing down the table (row 0 is the top edge). A
unit faces one of four directions (``N``, ``E``, ``S``, ``W`` = 0–3). Distance is Chebyshev
(``max(|dx|, |dy|)``): movement and fire go diagonally.

``distance(a, b)``, ``neighbours(c)`` (the eight around), ``relative(facing, offset)`` (world
offset → ``(ahead, starboard)``), ``step_offset(facing, token)`` (``F``/``FL``/``FR``: ahead,
ahead-and-port, ahead-and-starboard), ``turn(facing, token)`` (``L``/``R``: 90 degrees),
``squares_between(a, b)`` (a line's squares, both where it runs exactly between two),
``read_chart(chart, ahead, right)`` (a square "angle locator" chart centred on the unit, the
offset scaled onto its rim when beyond it), ``parse_facing``.
A rule book keeps its own charts (Event Horizon's angle locator), ranges and movement costs.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

Coord = tuple[int, int]

N, E, S, W = 0, 1, 2, 3
FACING_NAMES = ("N", "E", "S", "W")
FACING_VECTORS: tuple[Coord, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))


def parse_facing(value: int | str, rule: str = "facing") -> int:
    """``"N"``…``"W"`` or 0–3 → 0–3; ``ValueError`` naming ``rule`` otherwise."""
    if isinstance(value, str) and value.upper() in FACING_NAMES:
        return FACING_NAMES.index(value.upper())
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return value
    raise ValueError(f"{rule}: a facing is N, E, S or W (or 0-3), not {value!r}")


def distance(a: Coord, b: Coord) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def neighbours(c: Coord) -> tuple[Coord, ...]:
    x, y = c
    return tuple((x + dx, y + dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy)


def relative(origin_facing: int, offset: Coord) -> tuple[int, int]:
    """``offset`` (world dx, dy) in the frame of a unit facing ``origin_facing``:
    ``(ahead, starboard)`` squares."""
    fx, fy = FACING_VECTORS[origin_facing]
    sx, sy = -fy, fx  # starboard is 90 degrees clockwise of forward
    dx, dy = offset
    return dx * fx + dy * fy, dx * sx + dy * sy


def read_chart(chart: tuple[str, ...], ahead: int, right: int) -> str:
    """The letter of a square chart (rows from ``r`` squares ahead to ``r`` behind, columns from
    ``r`` to port to ``r`` to starboard, the unit in the middle) at ``(ahead, right)``; beyond the
    chart the offset is scaled down onto its rim."""
    r = len(chart) // 2
    big = max(abs(ahead), abs(right))
    if big > r:
        ahead = round(Fraction(ahead * r, big))
        right = round(Fraction(right * r, big))
    return chart[r - ahead][r + right]


def squares_between(a: Coord, b: Coord) -> tuple[tuple[Coord, ...], ...]:
    """The squares a line from ``a`` to ``b`` passes through, not counting either end.

    One entry per intermediate step ``i`` (1 … n−1, n the distance): the square nearest the
    point ``i/n`` of the way along; where the line runs exactly between two squares the entry
    holds both.
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


def step_offset(facing: int, token: str) -> Coord:
    """One step: ``F`` ahead, ``FL`` ahead and to port, ``FR`` ahead and to starboard."""
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
    """A 90-degree turn: ``R`` to starboard, anything else (``L``) to port."""
    return (facing + (1 if token == "R" else -1)) % 4


__all__ = ["E", "FACING_NAMES", "FACING_VECTORS", "N", "S", "W", "Coord", "distance", "neighbours",
           "parse_facing", "read_chart", "relative", "squares_between", "step_offset", "turn"]
