"""Event Horizon campaign maps: "Creating a Map", "Planetary Economy Type" and "Set Up" (003)."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.rules.dice import DiceError, FixedDice, SeededDice
from campaign.rules.eventhorizon.mapgen import (
    ECONOMY_PURPOSE,
    TERRAIN_PURPOSE,
    EconomyType,
    GeneratedMap,
    MapError,
    Terrain,
    _key,
    _tilings,
    component_labels,
    disperse,
    economy_for_d6,
    generate_map,
    min_distance,
    render_text,
    terrain_for_d20,
)
from campaign.rules.grid import make_grid
from tests.stats import chisquare

SEEDS = [bytes(range(i, i + 32)) for i in (0, 1, 7, 42)]

# Single-face shorthands for FixedDice maps.
BH, EM, CL, PL, CO, WH = 1, 5, 12, 14, 18, 20


def reach_groups(gmap: GeneratedMap) -> dict:
    """Independent flood fill: cell -> group id over passable cells, wormholes all linked."""
    grid = gmap.grid
    passable = {c for c in grid.cells() if gmap.terrain_at(c).passable}
    wormholes = set(gmap.wormholes())
    group: dict = {}
    for start in grid.cells():
        if start not in passable or start in group:
            continue
        group[start] = start
        stack = [start]
        while stack:
            c = stack.pop()
            nxt = [n for n in grid.neighbours(c) if n in passable]
            if c in wormholes:
                nxt.extend(wormholes)
            for n in nxt:
                if n not in group:
                    group[n] = start
                    stack.append(n)
    return group


def brute_force_best(gmap: GeneratedMap, players: int) -> int | None:
    """The true max-min home world distance, or None if no group has enough planets."""
    group = reach_groups(gmap)
    by_group: dict = {}
    for p in gmap.planets():
        by_group.setdefault(group[p], []).append(p)
    best = None
    for planets in by_group.values():
        for combo in itertools.combinations(planets, players):
            d = min_distance(gmap.grid, combo)
            if best is None or d > best:
                best = d
    return best


# ---------------------------------------------------------------------------------------------
# The tables


D20_TABLE = (
    [(1, Terrain.BLACK_HOLE)]
    + [(f, Terrain.EMPTY) for f in range(2, 12)]
    + [(f, Terrain.PARTICLE_CLOUD) for f in (12, 13)]
    + [(f, Terrain.PLANET) for f in range(14, 18)]
    + [(f, Terrain.COLONY) for f in (18, 19)]
    + [(20, Terrain.WORMHOLE)]
)


@pytest.mark.parametrize("face, terrain", D20_TABLE)
def test_d20_contents_table(face, terrain):  # 003 Creating a Map: 1 Black Hole ... 20 Worm Hole
    assert terrain_for_d20(face) is terrain


def test_d20_table_covers_every_face_once():  # 003 Creating a Map
    assert [face for face, _ in D20_TABLE] == list(range(1, 21))
    counts = Counter(t for _, t in D20_TABLE)
    assert counts == {
        Terrain.BLACK_HOLE: 1,
        Terrain.EMPTY: 10,
        Terrain.PARTICLE_CLOUD: 2,
        Terrain.PLANET: 4,
        Terrain.COLONY: 2,
        Terrain.WORMHOLE: 1,
    }


@pytest.mark.parametrize("face", [0, 21, -1, 2.0, True])
def test_d20_table_refuses_impossible_faces(face):  # 003 Creating a Map
    with pytest.raises(MapError):
        terrain_for_d20(face)


@pytest.mark.parametrize(
    "face, economy",
    [
        (1, EconomyType.AGRICULTURAL),
        (2, EconomyType.AGRICULTURAL),
        (3, EconomyType.COMMERCIAL),
        (4, EconomyType.COMMERCIAL),
        (5, EconomyType.INDUSTRIAL),
        (6, EconomyType.INDUSTRIAL),
    ],
)
def test_d6_economy_table(face, economy):  # 003 Planetary Economy Type: 5-6 / 3-4 / 1-2
    assert economy_for_d6(face) is economy


@pytest.mark.parametrize("face", [0, 7])
def test_d6_table_refuses_impossible_faces(face):  # 003 Planetary Economy Type
    with pytest.raises(MapError):
        economy_for_d6(face)


def test_economy_map_colours():  # 003 Planetary Economy Type: draw the planet in black/blue/green
    assert EconomyType.INDUSTRIAL.colour == "black"
    assert EconomyType.COMMERCIAL.colour == "blue"
    assert EconomyType.AGRICULTURAL.colour == "green"


def test_terrain_symbols_and_passability():  # 003 Creating a Map: Black Hole = no ship can pass
    symbols = [t.symbol for t in Terrain]
    assert all(len(s) == 1 for s in symbols) and len(set(symbols)) == len(symbols)
    assert not any(s.isdigit() for s in symbols)  # digits are home worlds on text maps
    assert [t for t in Terrain if not t.passable] == [Terrain.BLACK_HOLE]
    assert Terrain("planet") is Terrain.PLANET and Terrain.PLANET == "planet"


# ---------------------------------------------------------------------------------------------
# Rolling a map


def tiny_hex_dice() -> FixedDice:
    return FixedDice(
        [PL, BH, 15, CO]  # row 0: planet, black hole, planet, colony
        + [2, WH, CL, 16]  # row 1: empty, wormhole, cloud, planet
        + [CO, 3, 19, 11]  # row 2: colony, empty, colony, empty (no planets: no economy roll)
        + [6, 3]  # economy, row 0's two planets left to right
        + [1]  # economy, row 1's planet
    )


def test_one_terrain_roll_per_row_then_economy_rolls():  # 003 Creating a Map; Planetary Economy Type
    # Roll for the contents of each hex (a row at a time), then a type for each planet.
    dice = tiny_hex_dice()
    gmap = generate_map(make_grid("hex", 4, 3), 2, dice)
    assert [(r.count, r.sides, r.purpose) for r in dice.rolls] == [
        (4, 20, TERRAIN_PURPOSE),
        (4, 20, TERRAIN_PURPOSE),
        (4, 20, TERRAIN_PURPOSE),
        (2, 6, ECONOMY_PURPOSE),
        (1, 6, ECONOMY_PURPOSE),
    ]
    assert TERRAIN_PURPOSE == "003 Creating a Map"
    assert ECONOMY_PURPOSE == "003 Planetary Economy Type"
    assert dice.remaining() == []
    T = Terrain
    assert gmap.terrain == (
        (T.PLANET, T.BLACK_HOLE, T.PLANET, T.COLONY)
        + (T.EMPTY, T.WORMHOLE, T.PARTICLE_CLOUD, T.PLANET)
        + (T.COLONY, T.EMPTY, T.COLONY, T.EMPTY)
    )
    assert gmap.terrain_at((1, 1)) is T.WORMHOLE
    assert gmap.planets() == ((0, 0), (2, 0), (3, 1))
    assert gmap.colonies() == ((3, 0), (0, 2), (2, 2))
    assert gmap.wormholes() == ((1, 1),)
    assert gmap.economy == (
        ((0, 0), EconomyType.INDUSTRIAL),
        ((2, 0), EconomyType.COMMERCIAL),
        ((3, 1), EconomyType.AGRICULTURAL),
    )
    assert gmap.economy_of((2, 0)) is EconomyType.COMMERCIAL
    assert gmap.economy_of((3, 0)) is None  # a colony has no economy type
    assert dict(gmap.economy_map) == dict(gmap.economy)
    # 003 Set Up: the two planets farthest apart (4 hexes; the other pairs are 2).
    assert gmap.home_worlds == ((0, 0), (3, 1))
    assert gmap.seat_of((3, 1)) == 2 and gmap.seat_of((2, 0)) is None


def test_economy_types_off_rolls_no_economy_dice():  # 003 Planetary Economy Type (option)
    dice = FixedDice([PL, BH, 15, CO, 2, WH, CL, 16, CO, 3, 19, 11])
    gmap = generate_map(make_grid("hex", 4, 3), 2, dice, economy_types=False)
    assert {r.purpose for r in dice.rolls} == {TERRAIN_PURPOSE}
    assert len(dice.rolls) == 3
    assert gmap.economy == ()
    assert all(gmap.economy_of(p) is None for p in gmap.planets())


def test_economy_types_cover_every_planet():  # 003 Planetary Economy Type
    gmap = generate_map(make_grid("square", 30, 20), 4, SeededDice(seed=SEEDS[0]))
    assert [c for c, _ in gmap.economy] == list(gmap.planets())
    assert all(gmap.economy_of(p) in EconomyType for p in gmap.planets())


def test_fixed_dice_running_out_is_loud():  # 003 Creating a Map
    with pytest.raises(DiceError):
        generate_map(make_grid("square", 4, 3), 2, FixedDice([PL] * 8))


# ---------------------------------------------------------------------------------------------
# Home worlds


def terrain_only(grid, seed) -> GeneratedMap:
    """The map a seed's terrain rolls make (they come first), without economy or home worlds."""
    dice = SeededDice(seed=seed)
    faces = [f for _ in range(grid.height) for f in dice.roll(grid.width, 20, TERRAIN_PURPOSE).faces]
    return GeneratedMap(grid=grid, terrain=tuple(map(terrain_for_d20, faces)))


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"seed{s[0]}")
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize(
    "kind, width, height", [("hex", 8, 8), ("square", 8, 8), ("hex", 10, 6), ("square", 10, 6)]
)
def test_home_worlds_as_far_apart_as_possible(kind, width, height, players, seed):  # 003 Set Up
    # "the selected planets should be as far away from each other as possible": brute force agrees.
    grid = make_grid(kind, width, height)
    gmap = generate_map(grid, players, SeededDice(seed=seed))
    assert gmap.terrain == terrain_only(grid, seed).terrain
    assert min_distance(grid, gmap.home_worlds) == brute_force_best(gmap, players)


@pytest.mark.parametrize(
    "kind, width, height, players, seed",
    [("square", 12, 12, 4, SEEDS[2]), ("hex", 12, 12, 4, SEEDS[3]), ("hex", 12, 10, 5, SEEDS[1])],
    ids=["square-12x12-4p", "hex-12x12-4p", "hex-12x10-5p"],
)
def test_home_worlds_optimal_on_bigger_maps(kind, width, height, players, seed):  # 003 Set Up
    gmap = generate_map(make_grid(kind, width, height), players, SeededDice(seed=seed))
    assert min_distance(gmap.grid, gmap.home_worlds) == brute_force_best(gmap, players)


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["hex", "square"]),
    width=st.integers(3, 16),
    height=st.integers(3, 16),
    players=st.integers(2, 8),
    seed=st.binary(min_size=32, max_size=32),
)
def test_home_worlds_are_reachable_planets_in_seat_order(kind, width, height, players, seed):  # 003 Set Up
    # Each player selects one planet as his home world.
    grid = make_grid(kind, width, height)
    try:
        gmap = generate_map(grid, players, SeededDice(seed=seed))
    except MapError:
        # Refused only when no reachable group of planets is big enough.
        bare = terrain_only(grid, seed)
        group = reach_groups(bare)
        assert max(Counter(group[p] for p in bare.planets()).values(), default=0) < players
        return
    homes = gmap.home_worlds
    assert len(homes) == players == len(set(homes))
    assert all(gmap.terrain_at(h) is Terrain.PLANET for h in homes)
    assert list(homes) == sorted(homes, key=lambda c: (c[1], c[0]))
    group = reach_groups(gmap)
    assert len({group[h] for h in homes}) == 1


# A 7 x 3 map split by a column of black holes: planets (0, 0) and (2, 2) on the left,
# (4, 0) and (5, 0) on the right.
# fmt: off
WALL = [
    PL, EM, EM, BH, PL, PL, EM,
    EM, EM, EM, BH, EM, EM, EM,
    EM, EM, PL, BH, EM, EM, EM,
]
# fmt: on


@pytest.mark.parametrize("kind", ["hex", "square"])
def test_home_worlds_never_straddle_a_black_hole_wall(kind):  # 003 Set Up; Creating a Map: Black Hole
    # No ship can pass a black hole, so planets on either side of the wall can't be paired even
    # though (0, 0) and (5, 0) would be farther apart.
    gmap = generate_map(make_grid(kind, 7, 3), 2, FixedDice(WALL), economy_types=False)
    assert gmap.home_worlds == ((0, 0), (2, 2))


@pytest.mark.parametrize("kind", ["hex", "square"])
def test_wormholes_connect_across_a_wall(kind):  # 003 Creating a Map: Worm Hole
    faces = list(WALL)
    faces[14] = WH  # (0, 2)
    faces[20] = WH  # (6, 2)
    gmap = generate_map(make_grid(kind, 7, 3), 2, FixedDice(faces), economy_types=False)
    assert gmap.home_worlds == ((0, 0), (5, 0))


def test_too_few_reachable_planets_names_the_numbers():  # 003 Set Up
    faces = list(WALL)
    faces[1] = PL  # (1, 0): three planets left of the wall, two right of it
    with pytest.raises(MapError) as err:
        generate_map(make_grid("square", 7, 3), 4, FixedDice(faces), economy_types=False)
    assert str(err.value) == (
        "only 3 planets are reachable from one another; 4 players need 4 — try a bigger map or another seed"
    )


def test_a_map_without_planets_is_refused():  # 003 Set Up
    with pytest.raises(MapError) as err:
        generate_map(make_grid("hex", 3, 3), 2, FixedDice([EM] * 9))
    assert str(err.value).startswith("the map has no planets; 2 players need 2")


@pytest.mark.parametrize("players", [1, 9, 0])
def test_player_count_must_be_2_to_8(players):  # 003 Set Up: each player selects one planet
    dice = FixedDice([])  # refused before any die is rolled
    with pytest.raises(MapError) as err:
        generate_map(make_grid("hex", 10, 10), players, dice)
    assert f"2 to 8 players, not {players}" in str(err.value)
    assert dice.rolls == []


def test_same_seed_same_map():  # RULINGS: Dice — anyone holding the seed can recompute every roll
    grid = make_grid("hex", 40, 30)
    a_dice, b_dice = SeededDice(seed=SEEDS[1]), SeededDice(seed=SEEDS[1])
    a = generate_map(grid, 6, a_dice)
    b = generate_map(grid, 6, b_dice)
    assert a == b and hash(a) == hash(b)
    assert a_dice.log == b_dice.log
    c = generate_map(grid, 6, SeededDice(seed=SEEDS[2]))
    assert c.terrain != a.terrain


def test_home_worlds_on_a_big_thinned_map_are_well_spread():  # 003 Set Up
    # Big maps go through the thinned search; four players on an 80 x 80 square map should sit
    # near the corners (the bound is 79, the diagonal of the map).
    gmap = generate_map(make_grid("square", 80, 80), 4, SeededDice(seed=SEEDS[3]))
    assert len(gmap.planets()) > 1000
    assert min_distance(gmap.grid, gmap.home_worlds) >= 74


@pytest.mark.parametrize("players, best", [(2, 149), (4, 149), (5, 74), (8, 74)])
def test_home_worlds_on_a_map_full_of_planets_are_optimal(players, best):  # 003 Set Up
    # Every cell a planet: 4 players take the corners; 5 to 9 cannot all be 75 apart (split the
    # map into four 75 x 75 quarters: two players share one), and 74 apart fits nine.
    grid = make_grid("square", 150, 150)
    assert min_distance(grid, disperse(grid, list(grid.cells()), players)) == best


@settings(deadline=None, max_examples=60)
@given(
    hexes=st.booleans(),
    d=st.integers(1, 12),
    cells=st.sets(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=80),
)
def test_search_tiles_only_hold_cells_closer_than_d(hexes, d, cells):  # 003 Set Up
    # The branch and bound's pruning is only sound if no tile can hold two cells d apart.
    grid = make_grid("hex" if hexes else "square", 41, 41)
    cells = sorted(cells)
    keys = [_key(grid, c) for c in cells]
    for ids in _tilings(keys, d, hexes):
        by_tile: dict = {}
        for c, tile in zip(cells, ids, strict=True):
            by_tile.setdefault(tile, []).append(c)
        for members in by_tile.values():
            assert all(grid.distance(a, b) < d for a, b in itertools.combinations(members, 2))


# ---------------------------------------------------------------------------------------------
# Reachability


@settings(deadline=None, max_examples=80)
@given(st.data())
def test_component_labels_match_a_flood_fill(data):  # 003 Creating a Map: Black Hole, Worm Hole
    grid = make_grid(
        data.draw(st.sampled_from(["hex", "square"])),
        data.draw(st.integers(1, 12)),
        data.draw(st.integers(1, 12)),
    )
    pool = [Terrain.BLACK_HOLE, Terrain.BLACK_HOLE, Terrain.EMPTY, Terrain.PLANET, Terrain.WORMHOLE]
    terrain = tuple(data.draw(st.lists(st.sampled_from(pool), min_size=grid.size, max_size=grid.size)))
    labels = component_labels(grid, terrain)
    group = reach_groups(GeneratedMap(grid=grid, terrain=terrain))
    pairs = {(labels[grid.index(c)], g) for c, g in group.items()}
    assert len({a for a, _ in pairs}) == len(pairs) == len({b for _, b in pairs})  # a bijection
    assert all(
        (labels[grid.index(c)] == -1) == (t is Terrain.BLACK_HOLE) for c, t in zip(grid.cells(), terrain)
    )


# ---------------------------------------------------------------------------------------------
# The stored map


def test_generated_map_checks_what_it_is_given():  # 003 Set Up: a home world is a planet
    grid = make_grid("square", 2, 1)
    with pytest.raises(MapError):
        GeneratedMap(grid=grid, terrain=(Terrain.PLANET,))
    with pytest.raises(MapError):
        GeneratedMap(grid=grid, terrain=(Terrain.PLANET, Terrain.COLONY), home_worlds=((1, 0),))
    with pytest.raises(MapError):
        GeneratedMap(
            grid=grid, terrain=(Terrain.PLANET, Terrain.COLONY), economy=(((1, 0), EconomyType.INDUSTRIAL),)
        )
    ok = GeneratedMap(
        grid=grid,
        terrain=(Terrain.PLANET, Terrain.COLONY),
        economy=(((0, 0), EconomyType.INDUSTRIAL),),
        home_worlds=((0, 0),),
    )
    assert ok.economy_of((0, 0)) is EconomyType.INDUSTRIAL
    with pytest.raises(AttributeError):
        ok.home_worlds = ()  # type: ignore[misc]


# ---------------------------------------------------------------------------------------------
# Text maps


def test_render_text_hex_rows_are_staggered():  # 003 Creating a Map: Using hexes
    gmap = generate_map(make_grid("hex", 4, 3), 2, tiny_hex_dice())
    lines = render_text(gmap).splitlines()
    assert lines[:3] == ["1 @ O o", " . W ~ 2", "o . o ."]
    assert lines[3].startswith("Legend: @ black hole") and "1-2 home worlds" in lines[3]


def test_render_text_owners_and_squares():  # 003 Neutral Planets: owned worlds marked
    gmap = generate_map(make_grid("square", 7, 3), 2, FixedDice(WALL), economy_types=False)
    text = render_text(gmap, owners={(4, 0): "a", (0, 0): "B"})
    assert text.splitlines()[:3] == ["B . . @ a O .", ". . . @ . . .", ". . 2 @ . . ."]
    with pytest.raises(MapError):
        render_text(gmap, owners={(4, 0): "ab"})


def test_render_text_40_by_40_is_legible():  # 003 Creating a Map: a map of any size
    gmap = generate_map(make_grid("hex", 40, 40), 8, SeededDice(seed=SEEDS[0]))
    lines = render_text(gmap).splitlines()
    assert len(lines) == 41
    assert all(len(line) <= 80 for line in lines[:40])
    assert sorted(ch for line in lines[:40] for ch in line if ch.isdigit()) == list("12345678")


# ---------------------------------------------------------------------------------------------
# Statistics


@pytest.mark.slow
def test_table_frequencies_on_a_big_map():  # 003 Creating a Map + Planetary Economy Type
    # One fixed-seed 250 x 250 map: 62,500 d20s and about 12,500 d6s. A fair table passes a
    # chi-square goodness-of-fit test at p > 0.001 with probability 0.999, and with a fixed seed
    # the result never changes, so the bound costs no flakiness; a table off by a single face
    # moves hundreds of cells and fails by a mile (checked below with a deliberately wrong table).
    dice = SeededDice(seed=bytes(range(100, 132)))
    gmap = generate_map(make_grid("square", 250, 250), 8, dice)
    n = len(gmap.terrain)

    categories = Counter(gmap.terrain)
    weights = {
        Terrain.BLACK_HOLE: 1,
        Terrain.EMPTY: 10,
        Terrain.PARTICLE_CLOUD: 2,
        Terrain.PLANET: 4,
        Terrain.COLONY: 2,
        Terrain.WORMHOLE: 1,
    }
    observed = [categories[t] for t in Terrain]
    expected = [n * weights[t] / 20 for t in Terrain]
    assert chisquare(observed, expected).pvalue > 0.001

    d20 = [f for logged in dice.log if logged.roll.sides == 20 for f in logged.roll.faces]
    assert len(d20) == n
    assert tuple(map(terrain_for_d20, d20)) == gmap.terrain  # faces map to cells in order
    face_counts = Counter(d20)
    assert chisquare([face_counts[f] for f in range(1, 21)]).pvalue > 0.001

    economy = Counter(t for _, t in gmap.economy)
    assert chisquare([economy[t] for t in EconomyType]).pvalue > 0.001
    d6 = Counter(f for logged in dice.log if logged.roll.sides == 6 for f in logged.roll.faces)
    assert sum(d6.values()) == len(gmap.planets())
    assert chisquare([d6[f] for f in range(1, 7)]).pvalue > 0.001

    # The test has teeth: calling 14-18 a planet (one face too many) is caught at once.
    wrong_planets = sum(1 for f in d20 if 14 <= f <= 18)
    assert chisquare([wrong_planets, n - wrong_planets], [n * 4 / 20, n * 16 / 20]).pvalue < 1e-9
