"""The hex grid of the campaign map (``campaign.rules.grid.HexGrid``: pointy-top hexes, odd-r
layout, ``(col, row)`` cells) with what a tactical hex book needs on top (pure Python).

The campaign layer may not import ``tactical`` (tests/test_architecture.py), so the grid itself
stays in ``campaign/rules/grid.py`` and this module builds on it:

``SIDES``            the six hex-side facings, in the grid's neighbour order: E, NE, NW, W, SW, SE
                     (0–5; a turn to starboard is −1, to port +1 — counter-clockwise order)
``step(c, facing)``  the cell across hex side ``facing`` (may be off the map: check ``in_bounds``)
``turn(facing, n)``  ``n`` hex sides to port (negative: to starboard)
``side_towards(grid, a, b)`` the facing from ``a`` whose direction is nearest ``b`` (ties: the
                     lower facing)
``relative_side(grid, pos, facing, other)`` where ``other`` lies from a unit at ``pos`` facing
                     ``facing``: 0 dead ahead, 1 ahead-port, 2 aft-port, 3 astern, 4 aft-starboard,
                     5 ahead-starboard (the hex-side arc it is seen through)
``in_arc(grid, pos, facing, other, arcs)`` whether ``other`` is in one of ``arcs``
                     (``relative_side`` values); the same cell is in every arc
``line_of_sight(grid, a, b, blocks)`` the first cell strictly between ``a`` and ``b`` (the
                     grid's deterministic hex line) for which ``blocks(cell)`` is true, else None
``corners(grid, c, size)`` the six pixel corners of a hex of radius ``size`` (for an SVG
                     polygon; the same placement as ``grid.center``)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from campaign.rules.grid import _AXIAL_DIRECTIONS, HexGrid

Coord = tuple[int, int]

SIDES = ("E", "NE", "NW", "W", "SW", "SE")
E, NE, NW, W, SW, SE = range(6)


def step(c: Coord, facing: int) -> Coord:
    q, r = HexGrid.to_axial(c)
    dq, dr = _AXIAL_DIRECTIONS[facing % 6]
    return HexGrid.from_axial(q + dq, r + dr)


def turn(facing: int, n: int = 1) -> int:
    return (facing + n) % 6


def _angle(grid: HexGrid, a: Coord, b: Coord) -> float:
    """Degrees counter-clockwise from east of ``b`` seen from ``a`` (screen y grows down)."""
    ax, ay = grid.center(a)
    bx, by = grid.center(b)
    return math.degrees(math.atan2(ay - by, bx - ax)) % 360.0


def side_towards(grid: HexGrid, a: Coord, b: Coord) -> int:
    """The hex side of ``a`` whose direction (E = 0°, NE = 60°, …) is nearest ``b``."""
    ang = _angle(grid, a, b)
    return min(range(6), key=lambda f: (abs((ang - 60.0 * f + 180.0) % 360.0 - 180.0), f))


def relative_side(grid: HexGrid, pos: Coord, facing: int, other: Coord) -> int:
    return (side_towards(grid, pos, other) - facing) % 6


def in_arc(grid: HexGrid, pos: Coord, facing: int, other: Coord, arcs: Iterable[int]) -> bool:
    if other == pos:
        return True
    return relative_side(grid, pos, facing, other) in set(arcs)


def line_of_sight(grid: HexGrid, a: Coord, b: Coord, blocks: Callable[[Coord], bool]) -> Coord | None:
    for cell in grid.line(a, b)[1:-1]:
        if blocks(cell):
            return cell
    return None


def corners(grid: HexGrid, c: Coord, size: float = 1.0) -> tuple[tuple[float, float], ...]:
    cx, cy = grid.center(c, size)
    return tuple((cx + size * math.cos(math.radians(60 * i - 30)), cy + size * math.sin(math.radians(60 * i - 30)))
                 for i in range(6))


__all__ = ["E", "NE", "NW", "SE", "SIDES", "SW", "W", "corners", "in_arc", "line_of_sight", "relative_side",
           "side_towards", "step", "turn"]
