"""Hex and square campaign maps of any width x height (pure Python, standard library only).

The Event Horizon campaign ("003 Creating a Map") is played "using hexes or squares". Both kinds
share one interface, so rules code never needs to know which one it is looking at.

Coordinates
    A cell is ``(col, row)``, both 0-based: ``0 <= col < width``, ``0 <= row < height``.
    Row 0 is the top row. ``index(c) == row * width + col`` (row-major), and every method that
    returns many cells returns them in row-major order unless it says otherwise.

Square maps (``SquareGrid``)
    Eight neighbours: diagonal steps are allowed, as the tactical rules allow diagonal movement
    ("Movement and firing can be done diagonally"). Distance is therefore Chebyshev distance,
    ``max(|dcol|, |drow|)``.

Hex maps (``HexGrid``): pointy-top hexes in the "odd-r" offset layout
    Every row is a horizontal line of pointy-top hexes; odd rows (1, 3, 5 ...) are shoved right by
    half a hex, so a map looks like this (numbers are columns)::

         row 0:   0   1   2   3
         row 1:     0   1   2   3
         row 2:   0   1   2   3

    The six neighbours of ``(col, row)`` are its left and right cells in the same row plus two
    cells in each adjacent row: ``col - 1`` and ``col`` there when ``row`` is even, ``col`` and
    ``col + 1`` when ``row`` is odd. Internally cells are converted to axial/cube coordinates
    (``q = col - (row - (row & 1)) // 2``, ``r = row``, ``s = -q - r``); hex distance is
    ``max(|dq|, |dr|, |ds|)``.

Pixel centres (for the SVG renderer)
    ``center(c, size)`` places the map with its bounding box's top-left corner at ``(0, 0)``,
    x growing right and y growing down. For a square map ``size`` is the side of a square; for a
    hex map it is the hex's radius (centre to corner), so a hex is ``sqrt(3) * size`` wide and
    rows are ``1.5 * size`` apart. ``pixel_size(size)`` gives the bounding box.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

Coord = tuple[int, int]

MAX_SIDE = 250
SQRT3 = math.sqrt(3.0)

# Axial (dq, dr) steps for pointy-top hexes, in a fixed order: E, NE, NW, W, SW, SE.
_AXIAL_DIRECTIONS: tuple[tuple[int, int], ...] = (
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, 0),
    (-1, 1),
    (0, 1),
)
# Square steps in row-major order, so neighbours come out row-major too.
_SQUARE_DIRECTIONS: tuple[tuple[int, int], ...] = (
    (-1, -1), (0, -1), (1, -1),
    (-1, 0), (1, 0),
    (-1, 1), (0, 1), (1, 1),
)  # fmt: skip
# Shifting every lerp point by the same tiny amount picks one side of every exact tie between two
# hexes, so line() is deterministic; 1e-6 is far above float error and far below a hex.
_HEX_NUDGE = (1e-6, 1e-6, -2e-6)


class GridError(ValueError):
    """A map that cannot exist (bad kind or size) or a cell that is not on the map."""


def _check_side(value: object, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SIDE:
        raise GridError(f"a map must be 1 to {MAX_SIDE} cells {what}, not {value!r}")


def _check_radius(radius: int) -> None:
    if isinstance(radius, bool) or not isinstance(radius, int) or radius < 0:
        raise GridError(f"a radius must be a whole number 0 or more, not {radius!r}")


def _round_half_up(numerator: int, denominator: int) -> int:
    """``round(numerator / denominator)`` with halves rounded up, in exact integer arithmetic."""
    return (2 * numerator + denominator) // (2 * denominator)


@dataclass(frozen=True)
class _BaseGrid:
    width: int
    height: int

    def __post_init__(self) -> None:
        _check_side(self.width, "wide")
        _check_side(self.height, "tall")

    @property
    def size(self) -> int:
        """Number of cells."""
        return self.width * self.height

    def in_bounds(self, c: Coord) -> bool:
        """True if ``c`` is a cell of this map."""
        col, row = c
        return 0 <= col < self.width and 0 <= row < self.height

    def cells(self) -> Iterator[Coord]:
        """Every cell, row by row (row-major)."""
        for row in range(self.height):
            for col in range(self.width):
                yield (col, row)

    def index(self, c: Coord) -> int:
        """Row-major index ``row * width + col``; raises GridError off the map."""
        if not self.in_bounds(c):
            raise GridError(f"{c!r} is not on this {self.width} x {self.height} map")
        return c[1] * self.width + c[0]

    def coord(self, i: int) -> Coord:
        """Inverse of :meth:`index`."""
        if not 0 <= i < self.size:
            raise GridError(f"cell index {i} is not on this {self.width} x {self.height} map")
        row, col = divmod(i, self.width)
        return (col, row)

    def _require(self, c: Coord) -> None:
        if not self.in_bounds(c):
            raise GridError(f"{c!r} is not on this {self.width} x {self.height} map")


@dataclass(frozen=True)
class SquareGrid(_BaseGrid):
    """A map of squares with eight neighbours each (diagonal moves allowed)."""

    kind: Literal["square"] = field(default="square", init=False)

    def neighbours(self, c: Coord) -> list[Coord]:
        """In-bounds cells one step away, in row-major order."""
        col, row = c
        return [
            (col + dc, row + dr)
            for dc, dr in _SQUARE_DIRECTIONS
            if 0 <= col + dc < self.width and 0 <= row + dr < self.height
        ]

    def distance(self, a: Coord, b: Coord) -> int:
        """Chebyshev distance: diagonal steps cost the same as straight ones."""
        return max(abs(a[0] - b[0]), abs(a[1] - b[1]))

    def line(self, a: Coord, b: Coord) -> list[Coord]:
        """Cells from ``a`` to ``b`` inclusive, one step at a time (exact rounding, halves up)."""
        self._require(a)
        self._require(b)
        n = self.distance(a, b)
        if n == 0:
            return [a]
        dc, dr = b[0] - a[0], b[1] - a[1]
        return [(a[0] + _round_half_up(dc * i, n), a[1] + _round_half_up(dr * i, n)) for i in range(n + 1)]

    def within(self, c: Coord, radius: int) -> list[Coord]:
        """In-bounds cells at most ``radius`` from ``c``, row-major."""
        _check_radius(radius)
        col, row = c
        c0, c1 = max(0, col - radius), min(self.width - 1, col + radius)
        r0, r1 = max(0, row - radius), min(self.height - 1, row + radius)
        return [(x, y) for y in range(r0, r1 + 1) for x in range(c0, c1 + 1)]

    def ring(self, c: Coord, radius: int) -> list[Coord]:
        """In-bounds cells exactly ``radius`` from ``c``, row-major (``[c]`` for radius 0)."""
        _check_radius(radius)
        col, row = c
        out: list[Coord] = []
        c0, c1 = max(0, col - radius), min(self.width - 1, col + radius)
        for y in range(max(0, row - radius), min(self.height - 1, row + radius) + 1):
            if abs(y - row) == radius:
                out.extend((x, y) for x in range(c0, c1 + 1))
            else:
                for x in sorted({col - radius, col + radius}):
                    if 0 <= x < self.width:
                        out.append((x, y))
        return out

    def center(self, c: Coord, size: float = 1.0) -> tuple[float, float]:
        """Pixel centre of a square of side ``size``; the map's top-left corner is ``(0, 0)``."""
        return ((c[0] + 0.5) * size, (c[1] + 0.5) * size)

    def pixel_size(self, size: float = 1.0) -> tuple[float, float]:
        """Width and height of the whole map's bounding box."""
        return (self.width * size, self.height * size)


@dataclass(frozen=True)
class HexGrid(_BaseGrid):
    """A map of pointy-top hexes in the odd-r layout (odd rows shoved right by half a hex)."""

    kind: Literal["hex"] = field(default="hex", init=False)

    @staticmethod
    def to_axial(c: Coord) -> tuple[int, int]:
        """``(col, row)`` -> axial ``(q, r)``; the cube coordinate ``s`` is ``-q - r``."""
        col, row = c
        return (col - (row - (row & 1)) // 2, row)

    @staticmethod
    def from_axial(q: int, r: int) -> Coord:
        """Axial ``(q, r)`` -> ``(col, row)``."""
        return (q + (r - (r & 1)) // 2, r)

    def neighbours(self, c: Coord) -> list[Coord]:
        """In-bounds cells one step away, in the order E, NE, NW, W, SW, SE."""
        q, r = self.to_axial(c)
        out = []
        for dq, dr in _AXIAL_DIRECTIONS:
            n = self.from_axial(q + dq, r + dr)
            if self.in_bounds(n):
                out.append(n)
        return out

    def distance(self, a: Coord, b: Coord) -> int:
        """Number of hex steps between ``a`` and ``b``."""
        aq, ar = self.to_axial(a)
        bq, br = self.to_axial(b)
        dq, dr = aq - bq, ar - br
        return max(abs(dq), abs(dr), abs(dq + dr))

    def line(self, a: Coord, b: Coord) -> list[Coord]:
        """Cells from ``a`` to ``b`` inclusive: cube lerp with rounding, nudged for determinism."""
        self._require(a)
        self._require(b)
        n = self.distance(a, b)
        if n == 0:
            return [a]
        # The nudge resolves exact ties to one side. The only ties between an on-map and an off-map
        # hex occur on a line running straight down the map's left or right edge, and all of one
        # line's ties fall the same way, so flipping the nudge always brings such a line back on.
        for sign in (1.0, -1.0):
            cells = self._lerp_line(a, b, n, sign)
            if all(self.in_bounds(x) for x in cells):
                return cells
        raise AssertionError(f"no on-map line from {a} to {b}")  # pragma: no cover - see above

    def _lerp_line(self, a: Coord, b: Coord, n: int, sign: float) -> list[Coord]:
        aq, ar = self.to_axial(a)
        bq, br = self.to_axial(b)
        eq, er, es = (sign * e for e in _HEX_NUDGE)
        a_cube = (aq + eq, ar + er, -aq - ar + es)
        b_cube = (bq + eq, br + er, -bq - br + es)
        out = []
        for i in range(n + 1):
            t = i / n
            q, r = _cube_round(
                a_cube[0] + (b_cube[0] - a_cube[0]) * t,
                a_cube[1] + (b_cube[1] - a_cube[1]) * t,
                a_cube[2] + (b_cube[2] - a_cube[2]) * t,
            )
            out.append(self.from_axial(q, r))
        return out

    def _row_span(self, c: Coord, radius: int, row: int) -> tuple[int, int]:
        """Column range (inclusive, unclipped) of cells in ``row`` within ``radius`` of ``c``."""
        q, r = self.to_axial(c)
        dr = row - r
        offset = (row - (row & 1)) // 2
        return (q + max(-radius, -radius - dr) + offset, q + min(radius, radius - dr) + offset)

    def within(self, c: Coord, radius: int) -> list[Coord]:
        """In-bounds cells at most ``radius`` from ``c``, row-major."""
        _check_radius(radius)
        out: list[Coord] = []
        for y in range(max(0, c[1] - radius), min(self.height - 1, c[1] + radius) + 1):
            lo, hi = self._row_span(c, radius, y)
            out.extend((x, y) for x in range(max(0, lo), min(self.width - 1, hi) + 1))
        return out

    def ring(self, c: Coord, radius: int) -> list[Coord]:
        """In-bounds cells exactly ``radius`` from ``c``, row-major (``[c]`` for radius 0)."""
        _check_radius(radius)
        out: list[Coord] = []
        for y in range(max(0, c[1] - radius), min(self.height - 1, c[1] + radius) + 1):
            lo, hi = self._row_span(c, radius, y)
            xs = range(lo, hi + 1) if abs(y - c[1]) == radius else sorted({lo, hi})
            out.extend((x, y) for x in xs if 0 <= x < self.width)
        return out

    def center(self, c: Coord, size: float = 1.0) -> tuple[float, float]:
        """Pixel centre of a hex of radius ``size``; the map's bounding box starts at ``(0, 0)``."""
        col, row = c
        return (SQRT3 * size * (col + 0.5 + 0.5 * (row & 1)), size * (1.0 + 1.5 * row))

    def pixel_size(self, size: float = 1.0) -> tuple[float, float]:
        """Width and height of the whole map's bounding box (odd rows stick out half a hex)."""
        half_hex = 0.5 if self.height > 1 else 0.0
        return (SQRT3 * size * (self.width + half_hex), size * (2.0 + 1.5 * (self.height - 1)))


Grid = SquareGrid | HexGrid


def _cube_round(fq: float, fr: float, fs: float) -> tuple[int, int]:
    """Nearest hex to a fractional cube point, as axial ``(q, r)``."""
    q, r, s = round(fq), round(fr), round(fs)
    dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return (q, r)


def make_grid(kind: str, width: int, height: int) -> Grid:
    """A ``"hex"`` or ``"square"`` map of ``width`` x ``height`` cells (each 1..MAX_SIDE)."""
    if kind == "hex":
        return HexGrid(width, height)
    if kind == "square":
        return SquareGrid(width, height)
    raise GridError(f"a map is made of 'hex' or 'square' cells, not {kind!r}")
