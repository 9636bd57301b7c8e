"""Hex and square map geometry (003 Creating a Map: "Using hexes or squares ... a map of any size")."""

from __future__ import annotations

import math
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaign.rules.grid import MAX_SIDE, GridError, HexGrid, SquareGrid, make_grid

KINDS = ("hex", "square")


@st.composite
def grids(draw, max_side: int = 30):
    return make_grid(
        draw(st.sampled_from(KINDS)),
        draw(st.integers(1, max_side)),
        draw(st.integers(1, max_side)),
    )


@st.composite
def cell_of(draw, grid):
    return (draw(st.integers(0, grid.width - 1)), draw(st.integers(0, grid.height - 1)))


@st.composite
def grid_with_cells(draw, count: int, max_side: int = 30):
    grid = draw(grids(max_side))
    return (grid, *(draw(cell_of(grid)) for _ in range(count)))


def row_major(cells):
    return sorted(cells, key=lambda c: (c[1], c[0]))


# ---------------------------------------------------------------------------------------------
# Construction


@pytest.mark.parametrize("kind, cls", [("hex", HexGrid), ("square", SquareGrid)])
def test_make_grid_builds_either_kind(kind, cls):  # 003 Creating a Map: Using hexes or squares
    grid = make_grid(kind, 7, 3)
    assert isinstance(grid, cls)
    assert (grid.kind, grid.width, grid.height, grid.size) == (kind, 7, 3, 21)


def test_any_size_up_to_the_cap():  # 003 Creating a Map: a map of any size
    assert make_grid("hex", 1, 1).size == 1
    assert make_grid("square", MAX_SIDE, MAX_SIDE).size == MAX_SIDE * MAX_SIDE


@pytest.mark.parametrize(
    "kind, width, height, message",
    [
        ("hex", 0, 5, "a map must be 1 to 250 cells wide, not 0"),
        ("square", 251, 5, "a map must be 1 to 250 cells wide, not 251"),
        ("hex", 5, 0, "a map must be 1 to 250 cells tall, not 0"),
        ("square", 5, -3, "a map must be 1 to 250 cells tall, not -3"),
        ("hex", 2.5, 5, "a map must be 1 to 250 cells wide, not 2.5"),
        ("hex", True, 5, "a map must be 1 to 250 cells wide, not True"),
        ("triangle", 5, 5, "a map is made of 'hex' or 'square' cells, not 'triangle'"),
    ],
)
def test_make_grid_refuses_bad_maps(kind, width, height, message):  # 003 Creating a Map
    with pytest.raises(GridError) as err:
        make_grid(kind, width, height)
    assert str(err.value) == message


def test_grid_error_is_a_value_error():  # 003 Creating a Map
    assert issubclass(GridError, ValueError)


def test_kind_is_not_a_constructor_argument():  # 003 Creating a Map: Using hexes or squares
    with pytest.raises(TypeError):
        HexGrid(3, 3, "square")  # type: ignore[call-arg]


def test_grids_are_frozen_and_hashable():  # 003 Creating a Map
    grid = make_grid("hex", 4, 4)
    with pytest.raises(AttributeError):
        grid.width = 5  # type: ignore[misc]
    assert {grid, make_grid("hex", 4, 4)} == {grid}
    assert make_grid("hex", 4, 4) != make_grid("square", 4, 4)


# ---------------------------------------------------------------------------------------------
# Cells and indices


@settings(deadline=None)
@given(grids())
def test_cells_are_row_major_and_match_index(grid):  # 003 Creating a Map: roll for each hex
    cells = list(grid.cells())
    assert len(cells) == grid.size
    assert cells == row_major(cells)
    assert [grid.index(c) for c in cells] == list(range(grid.size))
    assert all(grid.in_bounds(c) for c in cells)


@given(grid_with_cells(1))
def test_index_coord_round_trip(args):  # 003 Creating a Map: roll for each hex
    grid, c = args
    i = grid.index(c)
    assert i == c[1] * grid.width + c[0]
    assert grid.coord(i) == c


@pytest.mark.parametrize("kind", KINDS)
def test_off_map_cells_are_refused(kind):  # 003 Creating a Map: a map of any size
    grid = make_grid(kind, 4, 3)
    for c in [(-1, 0), (4, 0), (0, 3), (0, -1)]:
        assert not grid.in_bounds(c)
        with pytest.raises(GridError):
            grid.index(c)
    for i in (-1, 12):
        with pytest.raises(GridError):
            grid.coord(i)
    with pytest.raises(GridError):
        grid.line((0, 0), (4, 0))
    with pytest.raises(GridError):
        grid.ring((0, 0), -1)


# ---------------------------------------------------------------------------------------------
# Distance


@given(grid_with_cells(2))
def test_distance_is_symmetric_and_zero_only_on_itself(args):  # 003 Creating a Map
    grid, a, b = args
    assert grid.distance(a, b) == grid.distance(b, a)
    assert (grid.distance(a, b) == 0) == (a == b)
    assert grid.distance(a, b) >= 0


@given(grid_with_cells(3))
def test_distance_triangle_inequality(args):  # 003 Creating a Map
    grid, a, b, c = args
    assert grid.distance(a, c) <= grid.distance(a, b) + grid.distance(b, c)


def _steps_from(grid, start):
    seen = {start: 0}
    queue = deque([start])
    while queue:
        c = queue.popleft()
        for n in grid.neighbours(c):
            if n not in seen:
                seen[n] = seen[c] + 1
                queue.append(n)
    return seen


@settings(deadline=None, max_examples=60)
@given(grid_with_cells(1, max_side=14))
def test_distance_counts_steps_on_the_map(args):  # 003 Campaign Movement: moves in hexes
    grid, start = args
    steps = _steps_from(grid, start)
    assert len(steps) == grid.size  # every map is connected
    assert all(grid.distance(start, c) == n for c, n in steps.items())


# ---------------------------------------------------------------------------------------------
# Neighbours


@settings(deadline=None)
@given(grid_with_cells(1))
def test_neighbours_are_exactly_the_cells_one_step_away(args):  # 003 Creating a Map
    grid, c = args
    ns = grid.neighbours(c)
    assert len(ns) == len(set(ns))
    assert all(grid.in_bounds(n) and grid.distance(c, n) == 1 for n in ns)
    assert set(ns) == {x for x in grid.cells() if grid.distance(c, x) == 1}
    assert all(c in grid.neighbours(n) for n in ns)
    assert grid.neighbours(c) == ns  # deterministic order
    assert len(ns) <= (6 if grid.kind == "hex" else 8)


def test_odd_r_hex_neighbours_known_values():  # 003 Creating a Map: Using hexes
    grid = make_grid("hex", 5, 5)
    assert grid.neighbours((0, 0)) == [(1, 0), (0, 1)]
    # Odd rows are shoved right: (1, 1) touches columns 1-2 above and below.
    assert grid.neighbours((1, 1)) == [(2, 1), (2, 0), (1, 0), (0, 1), (1, 2), (2, 2)]
    # Even rows: (2, 2) touches columns 1-2 above and below.
    assert set(grid.neighbours((2, 2))) == {(1, 1), (2, 1), (1, 2), (3, 2), (1, 3), (2, 3)}
    assert grid.neighbours((4, 1)) == [(4, 0), (3, 1), (4, 2)]


def test_odd_r_hex_distances_known_values():  # 003 Creating a Map: Using hexes
    grid = make_grid("hex", 8, 8)
    assert grid.distance((0, 0), (3, 3)) == 5
    assert grid.distance((0, 0), (0, 2)) == 2
    assert grid.distance((0, 1), (0, 0)) == 1
    assert grid.distance((0, 0), (7, 0)) == 7
    assert grid.distance((0, 0), (0, 7)) == 7
    assert grid.distance((7, 0), (0, 7)) == 10


def test_square_neighbours_and_distances_include_diagonals():  # 003 Movement: diagonally
    grid = make_grid("square", 5, 5)
    assert grid.neighbours((0, 0)) == [(1, 0), (0, 1), (1, 1)]
    assert len(grid.neighbours((2, 2))) == 8
    assert grid.distance((0, 0), (3, 5)) == 5
    assert grid.distance((4, 0), (0, 4)) == 4


# ---------------------------------------------------------------------------------------------
# Lines


@settings(deadline=None)
@given(grid_with_cells(2))
def test_line_runs_step_by_step_between_its_ends(args):  # 003 Trade routes: shortest path
    grid, a, b = args
    line = grid.line(a, b)
    assert line[0] == a and line[-1] == b
    assert len(line) == grid.distance(a, b) + 1
    assert all(grid.in_bounds(c) for c in line)
    assert all(grid.distance(x, y) == 1 for x, y in zip(line, line[1:], strict=False))
    assert grid.line(a, b) == line  # deterministic


def test_hex_line_known_values_and_map_edges():  # 003 Trade routes: shortest path
    grid = make_grid("hex", 4, 5)
    assert make_grid("hex", 5, 5).line((0, 0), (3, 3)) == [
        (0, 0),
        (0, 1),
        (1, 1),
        (2, 2),
        (3, 2),
        (3, 3),
    ]
    # Straight down either edge, where a tie between an on-map and an off-map hex must resolve
    # onto the map.
    assert grid.line((0, 0), (0, 4)) == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]
    assert grid.line((3, 1), (3, 3)) == [(3, 1), (3, 2), (3, 3)]
    assert grid.line((2, 2), (2, 2)) == [(2, 2)]


def test_square_line_known_values():  # 003 Trade routes: shortest path
    grid = make_grid("square", 6, 6)
    assert grid.line((0, 0), (4, 2)) == [(0, 0), (1, 1), (2, 1), (3, 2), (4, 2)]
    assert grid.line((5, 0), (0, 5)) == [(5 - i, i) for i in range(6)]


# ---------------------------------------------------------------------------------------------
# Rings and areas


@settings(deadline=None)
@given(grid_with_cells(1), st.integers(0, 35))
def test_rings_and_within(args, radius):  # 003 Campaign Movement: how far a ship can travel
    grid, c = args
    ring = grid.ring(c, radius)
    assert len(ring) == len(set(ring))
    assert all(grid.in_bounds(x) and grid.distance(c, x) == radius for x in ring)
    assert set(ring) == {x for x in grid.cells() if grid.distance(c, x) == radius}
    assert ring == row_major(ring)
    within = grid.within(c, radius)
    assert within == [x for x in grid.cells() if grid.distance(c, x) <= radius]
    union = set().union(*(grid.ring(c, r) for r in range(radius + 1)))
    assert set(within) == union


@pytest.mark.parametrize("kind", KINDS)
def test_ring_zero_is_the_cell_itself(kind):  # 003 Campaign Movement
    grid = make_grid(kind, 3, 3)
    assert grid.ring((1, 1), 0) == [(1, 1)]
    assert grid.within((1, 1), 0) == [(1, 1)]


def test_hex_ring_known_values():  # 003 Creating a Map: Using hexes
    grid = make_grid("hex", 7, 7)
    assert len(grid.ring((3, 3), 2)) == 12
    assert len(grid.within((3, 3), 2)) == 19
    assert grid.ring((0, 0), 1) == [(1, 0), (0, 1)]


def test_square_ring_known_values():  # 003 Creating a Map: Using squares
    grid = make_grid("square", 7, 7)
    assert len(grid.ring((3, 3), 2)) == 16
    assert len(grid.within((3, 3), 2)) == 25


# ---------------------------------------------------------------------------------------------
# Pixel centres (the SVG renderer's contract)


@settings(deadline=None)
@given(grid_with_cells(1), st.sampled_from([1.0, 10.0, 23.5]))
def test_neighbour_centres_sit_one_cell_apart(args, size):  # 003 Creating a Map
    grid, c = args
    x, y = grid.center(c, size)
    w, h = grid.pixel_size(size)
    for n in grid.neighbours(c):
        nx, ny = grid.center(n, size)
        gap = math.hypot(nx - x, ny - y)
        if grid.kind == "hex":
            assert gap == pytest.approx(math.sqrt(3) * size)
        else:
            assert gap == pytest.approx(size) or gap == pytest.approx(math.sqrt(2) * size)
    # The whole cell lies inside the bounding box that starts at (0, 0).
    half_w = (math.sqrt(3) / 2 if grid.kind == "hex" else 0.5) * size
    half_h = (1.0 if grid.kind == "hex" else 0.5) * size
    assert half_w - 1e-9 <= x <= w - half_w + 1e-9
    assert half_h - 1e-9 <= y <= h - half_h + 1e-9


def test_centre_known_values():  # 003 Creating a Map: Using hexes or squares
    hexes = make_grid("hex", 3, 3)
    assert hexes.center((0, 0)) == pytest.approx((math.sqrt(3) / 2, 1.0))
    assert hexes.center((0, 1), 2.0) == pytest.approx((2 * math.sqrt(3), 5.0))
    assert hexes.pixel_size(1.0) == pytest.approx((3.5 * math.sqrt(3), 5.0))
    squares = make_grid("square", 3, 2)
    assert squares.center((2, 1), 10.0) == (25.0, 15.0)
    assert squares.pixel_size(10.0) == (30.0, 20.0)
