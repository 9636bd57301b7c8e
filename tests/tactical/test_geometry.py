"""tactical/rules/geometry (issue 27 item 2): the inch table, the square grid and the hex grid
every rule book builds on. The books' own uses are covered by their rule cases (unchanged)."""

from __future__ import annotations

import math

from campaign.rules.grid import HexGrid
from tactical.rules.geometry import hex as hx
from tactical.rules.geometry import inches, square


def test_inches_arcs_from_any_template():
    centres = {"fore": 0.0, "aft": 180.0}
    assert inches.arcs_of((0, 0), 0.0, (0, 5), centres, 45.0) == {"fore"}
    assert inches.arcs_of((0, 0), 90.0, (0, 5), centres, 90.0) == {"fore", "aft"}  # on the boundary: both
    assert inches.arcs_of((0, 0), 0.0, (0, 0), centres, 10.0) == {"fore", "aft"}
    assert inches.advance((0, 0), 90.0, 2.0) == (2.0, 0.0)
    assert inches.bearing((0, 0), (-1, 0)) == 270.0 and inches.inches((0, 0), (0, 2.5)) == 3


def test_square_chart_reads_the_rim_beyond_it():
    chart = ("FFF", "P^S", "AAA")
    assert square.read_chart(chart, 1, 0) == "F" and square.read_chart(chart, 0, 5) == "S"
    assert square.read_chart(chart, -7, 1) == "A"
    assert square.step_offset(square.E, "FL") == (1, -1) and square.turn(square.N, "L") == square.W
    assert square.squares_between((0, 0), (2, 1)) == (((1, 0), (1, 1)),)


def test_hex_facings_arcs_lines_and_corners():
    grid = HexGrid(9, 9)
    c = (4, 4)
    assert [hx.step(c, f) for f in range(6)] == grid.neighbours(c)
    for f in range(6):
        assert hx.side_towards(grid, c, hx.step(c, f)) == f
        assert hx.relative_side(grid, c, f, hx.step(c, f)) == 0
        assert hx.relative_side(grid, c, f, hx.step(c, hx.turn(f, 3))) == 3
    assert hx.in_arc(grid, c, hx.E, (7, 4), {0}) and not hx.in_arc(grid, c, hx.W, (7, 4), {0, 1, 5})
    assert hx.line_of_sight(grid, (0, 4), (8, 4), lambda cell: cell == (5, 4)) == (5, 4)
    assert hx.line_of_sight(grid, (0, 4), (8, 4), lambda cell: cell in ((0, 4), (8, 4))) is None
    pts = hx.corners(grid, c, 10.0)
    cx, cy = grid.center(c, 10.0)
    assert len(pts) == 6 and all(math.isclose(math.hypot(x - cx, y - cy), 10.0) for x, y in pts)
