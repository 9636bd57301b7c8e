"""Event Horizon trade routes and the Trade War (seeds/003 "Trade Routes", "Purpose of the Campaign
(Victory Conditions)", "Campaign Movement"; RULINGS.md "Trade routes"; rulings T1-T8 in trade.py)."""

from __future__ import annotations

import itertools
import random
from collections import deque
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.rules.dice import SeededDice
from campaign.rules.eventhorizon.mapgen import Terrain, generate_map
from campaign.rules.eventhorizon.trade import (
    FLEET_MIN_SHIPS,
    TRADE_WAR_TURNS,
    NetworkStatus,
    Route,
    TradeError,
    TradeMap,
    TradeNetwork,
    all_networks,
    fleet_owners,
    interdicted,
    network,
    network_status,
    next_trade_war_counter,
    shortest_path,
    trade_war_interdicted,
    trade_war_won,
)
from campaign.rules.grid import make_grid

ME, THEM, OTHER = "me", "them", "other"

# Picture legend. Owned worlds: H my home world, P my planet, C my colony, X their home world,
# E their planet, O another empire's planet. Unowned: N neutral planet, n neutral colony,
# @ black hole, . empty, ~ particle cloud, W wormhole.
_CELLS = {
    "H": (Terrain.PLANET, ME),
    "P": (Terrain.PLANET, ME),
    "C": (Terrain.COLONY, ME),
    "X": (Terrain.PLANET, THEM),
    "E": (Terrain.PLANET, THEM),
    "O": (Terrain.PLANET, OTHER),
    "N": (Terrain.PLANET, None),
    "n": (Terrain.COLONY, None),
    "@": (Terrain.BLACK_HOLE, None),
    ".": (Terrain.EMPTY, None),
    "~": (Terrain.PARTICLE_CLOUD, None),
    "W": (Terrain.WORMHOLE, None),
}


@dataclass(frozen=True)
class Scene:
    tmap: TradeMap
    owners: dict
    homes: dict

    def net(self, empire=ME):
        return network(self.tmap, empire, self.owners, self.homes.get(empire))


def scene(kind: str, picture: str) -> Scene:
    """A map from a picture, one text line per map row. Spaces are ignored, so hex rows can be
    drawn shifted (odd rows sit half a hex to the right)."""
    rows = ["".join(line.split()) for line in picture.strip("\n").splitlines()]
    rows = [r for r in rows if r]
    width = len(rows[0])
    assert all(len(r) == width for r in rows), rows
    terrain, owners, homes = [], {}, {}
    for row, line in enumerate(rows):
        for col, ch in enumerate(line):
            t, owner = _CELLS[ch]
            terrain.append(t)
            if owner is not None:
                owners[(col, row)] = owner
            if ch == "H":
                homes[ME] = (col, row)
            elif ch == "X":
                homes[THEM] = (col, row)
    return Scene(TradeMap(make_grid(kind, width, len(rows)), tuple(terrain)), owners, homes)


def routes_between(net: TradeNetwork) -> set[frozenset]:
    return {frozenset((r.a, r.b)) for r in net.edges}


def fleet(empire, ships=FLEET_MIN_SHIPS):
    return {empire: ships}


# ---------------------------------------------------------------------------------------------
# Drawing routes  # 003 Trade Routes


def test_single_world_has_no_routes():  # 003 Trade Routes: "more than one planet/colony"
    s = scene("square", "...\n.H.\n...")
    net = s.net()
    assert net.nodes == ((1, 1),) and net.edges == () and net.home == (1, 1)
    status = network_status(net, ME, {})
    assert status.connected == ((1, 1),) and status.cut_off == () and status.routes_to_home == ()


def test_no_worlds_no_network():  # 003 Trade Routes
    s = scene("hex", "...\n...")
    net = network(s.tmap, ME, {}, None)
    assert net.nodes == () and net.edges == () and net.components() == ()
    assert network_status(net, ME, {}).cut_off == ()


@pytest.mark.parametrize("kind", ["square", "hex"])
def test_two_worlds_one_shortest_route(kind):  # 003 Trade Routes: "shortest possible path"
    s = scene(kind, "H...P\n.....")
    net = s.net()
    assert net.edges == (Route((0, 0), (4, 0), ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0))),)
    assert net.edges[0].length == 4 == s.tmap.grid.distance((0, 0), (4, 0))
    assert net.routes_to_home == net.edges


def test_route_runs_from_the_earlier_world_in_reading_order():  # 003 Trade Routes (ruling T2)
    s = scene("square", "P....\n....H")
    (route,) = s.net().edges
    assert (route.a, route.b) == ((0, 0), (4, 1))
    assert route.path[0] == route.a and route.path[-1] == route.b


@pytest.mark.parametrize("kind", ["square", "hex"])
def test_routes_go_round_black_holes(kind):  # RULINGS Trade routes: "never black holes"
    s = scene(
        kind,
        """
        . . @ . .
         H . @ . P
        . . @ . .
         . . @ . .
        . . . . .
        """,
    )
    (route,) = s.net().edges
    assert all(s.tmap.terrain_at(c) is not Terrain.BLACK_HOLE for c in route.path)
    assert (2, 4) in route.path  # the only way past the wall
    assert route.path == shortest_path(s.tmap, (0, 1), (4, 1))
    assert route.length > s.tmap.grid.distance((0, 1), (4, 1))


def test_hex_detour_by_hand():  # 003 Trade Routes
    # Odd-r hexes: a wall in column 2 of rows 0-2 forces the route down to row 3 and back up.
    s = scene(
        "hex",
        """
        . . @ . .
         H . @ . P
        . . @ . .
         . . . . .
        """,
    )
    (route,) = s.net().edges
    # Axial: H is (q0, r1), P (q4, r1); any row-3 hex (q = col - 1) is col + 1 steps from H and
    # max(5 - col, 3 - col, 2) steps from P, six in all: the fewest possible.
    assert route.length == 6
    # Of the shortest paths, the one whose cells come earliest in reading order, step by step.
    assert route.path == ((0, 1), (1, 2), (1, 3), (2, 3), (3, 2), (3, 1), (4, 1))


def test_routes_pass_neutral_worlds():  # 003 Trade Routes: "can pass through neutral ... planets"
    s = scene("square", "H N n P")
    (route,) = s.net().edges
    assert route.path == ((0, 0), (1, 0), (2, 0), (3, 0))


def test_routes_never_pass_enemy_worlds():  # 003 Trade Routes: "(but not enemy) planets"
    s = scene("square", "HEP\n...")
    (route,) = s.net().edges
    assert (1, 0) not in route.path and route.length == 2
    walled = scene("square", "HEP")
    net = walled.net()
    assert net.edges == () and net.components() == (((0, 0),), ((2, 0),))
    # The enemy's own network may pass neither of my worlds.
    them = scene("square", "EHX")
    assert them.net(THEM).edges == ()


def test_none_owner_means_neutral():  # 003 Trade Routes
    s = scene("square", "H.N.P")
    assert network(s.tmap, ME, {**s.owners, (2, 0): None}, (0, 0)) == s.net()
    assert list(all_networks(s.tmap, {**s.owners, (2, 0): None}, {})) == [ME]


def test_own_world_in_the_way_splits_the_route():  # ruling T3
    s = scene("square", "H.P.C")
    net = s.net()
    assert routes_between(net) == {frozenset({(0, 0), (2, 0)}), frozenset({(2, 0), (4, 0)})}
    for r in net.edges:
        assert not any(c in net.nodes for c in r.path[1:-1])


def test_mst_joins_three_worlds_in_a_line_with_two_routes():  # RULINGS Trade routes: MST
    s = scene("hex", "H..P...C")
    net = s.net()
    assert len(net.edges) == 2
    assert routes_between(net) == {frozenset({(0, 0), (3, 0)}), frozenset({(3, 0), (7, 0)})}
    assert [r.length for r in net.edges] == [3, 4]  # drawn shortest first


def test_mst_prefers_short_routes_in_a_triangle():  # RULINGS Trade routes: MST by path length
    s = scene(
        "square",
        """
        H . . . . . P
        . . . . . . .
        C . . . . . .
        """,
    )
    net = s.net()
    # H-C is 2, C-P is 6, H-P is 6: H-C plus one of the two sixes; the tie goes to the pair
    # whose earlier world comes first, (0,0)-(6,0) before (0,2)-(6,0).
    assert routes_between(net) == {frozenset({(0, 0), (0, 2)}), frozenset({(0, 0), (6, 0)})}


def test_tie_break_is_reading_order_of_cells():  # ruling T2
    s = scene("square", "...\nH.P\n...")
    # Three shortest paths (through (1,0), (1,1) or (1,2)); the earliest cell is (1,0).
    assert s.net().edges[0].path == ((0, 1), (1, 0), (2, 1))
    assert shortest_path(s.tmap, (2, 1), (0, 1)) == ((2, 1), (1, 0), (0, 1))


def test_same_input_same_network_whatever_the_dict_order():  # ruling T2, T4
    s = scene(
        "hex",
        """
        H . . N . . P
         . @ . . . . .
        . . P . @ . E
         C . . . . . .
        . . . P . . C
        """,
    )
    first = s.net()
    assert s.net() == first
    items = list(s.owners.items())
    for seed in range(5):
        random.Random(seed).shuffle(items)
        assert network(s.tmap, ME, dict(items), s.homes[ME]) == first


def test_wormholes_are_not_shortcuts():  # ruling T1 (003 Campaign Movement: worm holes)
    s = scene(
        "square",
        """
        H W @ W P
        . . @ . .
        """,
    )
    net = s.net()
    assert net.edges == ()  # ships may jump W -> W; a trade route may not
    assert network_status(net, ME, {}).cut_off == ((4, 0),)


def test_particle_clouds_do_not_stop_routes():  # ruling T1
    s = scene("hex", "H~~P")
    assert s.net().edges[0].length == 3


# ---------------------------------------------------------------------------------------------
# shortest_path  # 003 Trade Routes


def test_shortest_path_basics():  # 003 Trade Routes
    s = scene("square", ".@.\n...\n@..")
    t = s.tmap
    assert shortest_path(t, (0, 0), (0, 0)) == ((0, 0),)
    assert shortest_path(t, (0, 0), (2, 0)) == ((0, 0), (1, 1), (2, 0))
    assert shortest_path(t, (1, 0), (2, 0)) is None  # a black hole end
    assert shortest_path(t, (0, 0), (0, 2)) is None
    # Blocked cells are avoided, but the ends themselves may be blocked.
    assert shortest_path(t, (0, 0), (2, 0), blocked={(1, 1)}) == (
        (0, 0), (0, 1), (1, 2), (2, 1), (2, 0)
    )  # fmt: skip
    assert shortest_path(t, (0, 0), (2, 0), blocked={(1, 1), (1, 2)}) is None
    assert shortest_path(t, (0, 0), (2, 0), blocked={(0, 0), (2, 0)}) == ((0, 0), (1, 1), (2, 0))
    with pytest.raises(TradeError):
        shortest_path(t, (0, 0), (3, 0))
    with pytest.raises(TradeError):
        shortest_path(t, (0, 0), (2, 0), blocked={(9, 9)})


# ---------------------------------------------------------------------------------------------
# Interdiction  # 003 Trade Routes; 003 Campaign Movement ("Two or more ships constitute a fleet")


LINE = "H . . P . . C"  # MST: H-P (3), P-C (3); C links to home via P


@pytest.fixture
def line_net():
    return scene("square", LINE).net()


def test_lone_ship_does_not_interdict(line_net):  # "enemy fleet (not ship)", ruling T6
    route = line_net.edges[0]
    assert not interdicted(route, ME, {(1, 0): {THEM: 1}})


def test_two_ships_of_one_enemy_interdict(line_net):  # ruling T6
    route = line_net.edges[0]
    assert interdicted(route, ME, {(1, 0): {THEM: 2}})
    assert interdicted(route, ME, {(1, 0): {THEM: 7, ME: 9}})


def test_single_ships_of_two_enemies_do_not_interdict(line_net):  # ruling T6
    route = line_net.edges[0]
    assert not interdicted(route, ME, {(1, 0): {THEM: 1, OTHER: 1}})


def test_own_ships_never_interdict(line_net):  # ruling T6
    route = line_net.edges[0]
    assert not interdicted(route, ME, {(1, 0): {ME: 12}})
    status = network_status(line_net, ME, {c: {ME: 5} for c in line_net.edges[0].path})
    assert status.interdicted == () and status.cut_off == ()


def test_fleet_off_the_route_does_not_interdict(line_net):  # 003 Trade Routes
    # (5,0) is on the P-C route, not on H-P.
    assert not interdicted(line_net.edges[0], ME, {(5, 0): {THEM: 3}})
    assert interdicted(line_net.edges[1], ME, {(5, 0): {THEM: 3}})


def test_fleet_on_an_end_world_interdicts(line_net):  # ruling T6: "any hex on it"
    route = line_net.edges[0]
    assert interdicted(route, ME, {route.b: {THEM: 2}})


def test_fleet_owners():  # ruling T6
    assert fleet_owners({THEM: 2, OTHER: 1, ME: 0}) == frozenset({THEM})
    with pytest.raises(TradeError):
        fleet_owners({THEM: -1})
    with pytest.raises(TradeError):
        fleet_owners({THEM: True})


def test_world_beyond_an_interdicted_route_is_cut_off(line_net):  # 003 Trade Routes (T7)
    h, p, c = (0, 0), (3, 0), (6, 0)
    # Fleet on P-C: only C is cut off.
    status = network_status(line_net, ME, {(5, 0): fleet(THEM)})
    assert status.connected == (h, p) and status.cut_off == (c,)
    assert [(r.a, r.b) for r in status.interdicted] == [(p, c)]
    # Fleet on H-P: C links to home via P, so both are cut off.
    status = network_status(line_net, ME, {(1, 0): fleet(THEM)})
    assert status.connected == (h,) and status.cut_off == (p, c)


def test_star_network_only_the_interdicted_branch_is_cut_off():  # 003 Trade Routes (T7)
    s = scene("square", "C . H . P")
    net = s.net()
    c, h, p = (0, 0), (2, 0), (4, 0)
    assert routes_between(net) == {frozenset({c, h}), frozenset({h, p})}
    status = network_status(net, ME, {(1, 0): fleet(THEM)})
    assert status.cut_off == (c,) and status.connected == (h, p)
    # The home world itself is never cut off, even with an enemy fleet on it.
    status = network_status(net, ME, {h: fleet(THEM)})
    assert status.connected == (h,) and status.cut_off == (c, p)


def test_the_network_not_the_open_map_decides():  # ruling T7 (RULINGS "every network path")
    s = scene("square", "H.P\n...\n...")
    net = s.net()
    # A ship could fly round the fleet at (1,0), but the one route runs through it.
    assert net.edges[0].path == ((0, 0), (1, 0), (2, 0))
    assert network_status(net, ME, {(1, 0): fleet(THEM)}).cut_off == ((2, 0),)


def test_lost_home_world_cuts_everything_off():  # ruling T5
    s = scene("square", "H.P.C")
    captured = dict(s.owners)
    captured[(0, 0)] = THEM
    net = network(s.tmap, ME, captured, (0, 0))
    assert net.home is None and net.routes_to_home == ()
    assert net.nodes == ((2, 0), (4, 0)) and len(net.edges) == 1
    status = network_status(net, ME, {})
    assert status.connected == () and status.cut_off == ((2, 0), (4, 0))
    assert network(s.tmap, ME, s.owners, None).home is None


def test_unreachable_world_is_cut_off():  # ruling T5
    s = scene(
        "hex",
        """
        H . . . @ . .
         . P . . @ C .
        . . . . @ @ C
        """,
    )
    net = s.net()
    assert net.components() == (((0, 0), (1, 1)), ((5, 1), (6, 2)))
    assert len(net.edges) == len(net.nodes) - len(net.components()) == 2
    status = network_status(net, ME, {})
    assert status.interdicted == ()
    assert status.connected == ((0, 0), (1, 1)) and status.cut_off == ((5, 1), (6, 2))


# ---------------------------------------------------------------------------------------------
# Trade War  # 003 Purpose of the Campaign (Victory Conditions): 5 = Trade War


WAR = """
. . E . . . .
. . . . . . .
. . X . . . P
. . . . . . .
. . E . . . H
"""


@pytest.fixture
def war():
    s = scene("square", WAR)
    net = s.net(THEM)
    assert len(net.routes_to_home) == 2 and len(net.edges) == 2  # both enemy worlds link to X
    return net


def mids(net):
    """The middle cell of each route to home (ruling T2 puts them at (1,1) and (1,3))."""
    return [r.path[1] for r in net.routes_to_home]


def test_routes_to_home_are_the_edges_ending_there(war):  # ruling T8
    assert all(r.ends_at((2, 2)) for r in war.routes_to_home)
    assert mids(war) == [(1, 1), (1, 3)]


def test_trade_war_needs_every_route_to_home(war):  # 003 Trade War
    first, second = mids(war)
    both = {first: fleet(ME), second: fleet(ME)}
    assert trade_war_interdicted(ME, network_status(war, THEM, both))
    one = {first: fleet(ME)}
    assert not trade_war_interdicted(ME, network_status(war, THEM, one))
    lone = {first: fleet(ME), second: {ME: 1}}
    assert not trade_war_interdicted(ME, network_status(war, THEM, lone))
    # A fleet on the home world itself interdicts every route to it.
    assert trade_war_interdicted(ME, network_status(war, THEM, {(2, 2): fleet(ME)}))


def test_trade_war_counts_only_the_attackers_fleets(war):  # ruling T8
    first, second = mids(war)
    mixed = {first: fleet(ME), second: fleet(OTHER)}
    status = network_status(war, THEM, mixed)
    assert len(status.interdicted) == 2 and status.cut_off == ((2, 0), (2, 4))
    assert not trade_war_interdicted(ME, status)
    assert not trade_war_interdicted(OTHER, status)
    assert status.interdicted_by(ME) == tuple(r for r in war.edges if first in r.path)
    assert not trade_war_interdicted(THEM, status)  # nobody trade-wars itself


def test_trade_war_without_routes_to_home_is_not_interdicted():  # ruling T8
    s = scene("square", "X.H")
    status = network_status(s.net(THEM), THEM, {(2, 0): fleet(ME)})
    assert status.routes_to_home == () and not trade_war_interdicted(ME, status)


def test_trade_war_counter():  # 003 Trade War: "three consecutive campaign turns"
    counter = 0
    history = []
    for now in [True, True, False, True, True, True, True]:
        counter = next_trade_war_counter(counter, now)
        history.append(counter)
    assert history == [1, 2, 0, 1, 2, 3, 4]
    assert TRADE_WAR_TURNS == 3
    assert [trade_war_won(n) for n in (0, 2, 3, 4)] == [False, False, True, True]
    for bad in (-1, True, 1.0, "2"):
        with pytest.raises(TradeError):
            next_trade_war_counter(bad, True)


# ---------------------------------------------------------------------------------------------
# Bad inputs  # 003 Trade Routes


def test_only_worlds_can_be_owned():
    s = scene("square", "H..")
    with pytest.raises(TradeError):
        network(s.tmap, ME, {**s.owners, (1, 0): ME}, (0, 0))
    with pytest.raises(TradeError):
        network(s.tmap, ME, {**s.owners, (5, 0): THEM}, (0, 0))
    with pytest.raises(TradeError):
        network(s.tmap, ME, s.owners, (9, 9))


def test_status_checks_the_empire():
    s = scene("square", "H.P")
    with pytest.raises(TradeError):
        network_status(s.net(), THEM, {})


def test_trade_map_checks_terrain():
    grid = make_grid("hex", 2, 2)
    with pytest.raises(TradeError):
        TradeMap(grid, (Terrain.EMPTY,) * 3)
    with pytest.raises(TradeError):
        TradeMap(grid, ("empty",) * 4)


def test_generated_map_all_empires():  # 003 Creating a Map + Trade Routes
    gmap = generate_map(make_grid("hex", 40, 40), 4, SeededDice(bytes(range(32))), economy_types=False)
    tmap = TradeMap.from_map(gmap)
    homes = dict(enumerate(gmap.home_worlds))
    rng = random.Random(3)
    owners = {h: e for e, h in homes.items()}
    for w in gmap.planets() + gmap.colonies():
        if w not in owners and rng.random() < 0.2:
            owners[w] = rng.randrange(4)
    nets = all_networks(tmap, owners, homes)
    assert list(nets) == [0, 1, 2, 3]
    for e, net in nets.items():
        assert net.home == homes[e]
        assert set(net.nodes) == {c for c, o in owners.items() if o == e}
        assert len(net.edges) == len(net.nodes) - len(net.components())
        _check_routes(tmap, owners, e, net)
        assert net == reference_network(tmap, owners, e, homes[e])


# ---------------------------------------------------------------------------------------------
# Properties on random small maps  # 003 Trade Routes


def _check_routes(tmap, owners, empire, net):
    grid = tmap.grid
    for r in net.edges:
        assert r.path[0] == r.a and r.path[-1] == r.b
        assert grid.index(r.a) < grid.index(r.b)
        for x, y in itertools.pairwise(r.path):
            assert y in grid.neighbours(x)
        for c in r.path:
            assert tmap.terrain_at(c) is not Terrain.BLACK_HOLE
        for c in r.path[1:-1]:
            assert owners.get(c, empire) == empire  # no enemy world inside
            assert c not in net.nodes  # ruling T3 note: never through another own world


def bfs_dist(tmap, start, enemy):
    """Independent breadth-first distances (grid.neighbours, coordinates, a deque)."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        c = queue.popleft()
        for n in tmap.grid.neighbours(c):
            if n not in dist and tmap.terrain_at(n) is not Terrain.BLACK_HOLE and n not in enemy:
                dist[n] = dist[c] + 1
                queue.append(n)
    return dist


def all_shortest_paths(tmap, a, b, enemy):
    da = bfs_dist(tmap, a, enemy - {a, b})
    db = bfs_dist(tmap, b, enemy - {a, b})
    if b not in da:
        return []
    total = da[b]
    out = []

    def walk(path):
        c = path[-1]
        if c == b:
            out.append(tuple(path))
            return
        for n in tmap.grid.neighbours(c):
            if da.get(n) == len(path) and db.get(n) == total - len(path):
                walk(path + [n])

    walk([a])
    return out


def reference_network(tmap, owners, empire, home):
    """Textbook Kruskal over every pair's shortest path (the definition in ruling T4)."""
    index = tmap.grid.index
    mine = sorted((c for c, o in owners.items() if o == empire), key=index)
    enemy = {c for c, o in owners.items() if o != empire}
    pairs = []
    for a, b in itertools.combinations(mine, 2):
        path = shortest_path(tmap, a, b, enemy)
        if path is not None:
            pairs.append((len(path) - 1, index(a), index(b), a, b, path))
    pairs.sort(key=lambda p: p[:3])
    parent = {c: c for c in mine}

    def find(c):
        while parent[c] != c:
            c = parent[c]
        return c

    edges = []
    for _, _, _, a, b, path in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
            edges.append(Route(a, b, path))
    return TradeNetwork(
        empire=empire,
        home=home if home is not None and owners.get(home) == empire else None,
        nodes=tuple(mine),
        edges=tuple(edges),
    )


_TERRAIN_WEIGHTS = (
    [Terrain.EMPTY] * 5
    + [Terrain.BLACK_HOLE] * 2
    + [Terrain.PLANET] * 3
    + [Terrain.COLONY] * 2
    + [Terrain.PARTICLE_CLOUD, Terrain.WORMHOLE]
)


@st.composite
def positions(draw, max_side=7):
    kind = draw(st.sampled_from(["hex", "square"]))
    w = draw(st.integers(1, max_side))
    h = draw(st.integers(1, max_side))
    terrain = tuple(draw(st.lists(st.sampled_from(_TERRAIN_WEIGHTS), min_size=w * h, max_size=w * h)))
    tmap = TradeMap(make_grid(kind, w, h), terrain)
    worlds = [c for c in tmap.grid.cells() if tmap.terrain_at(c) in (Terrain.PLANET, Terrain.COLONY)]
    owners = {}
    for c in worlds:
        o = draw(st.sampled_from([None, ME, ME, THEM, OTHER]))
        if o is not None:
            owners[c] = o
    mine = [c for c, o in owners.items() if o == ME]
    home = draw(st.sampled_from(mine + [None])) if mine else None
    return tmap, owners, home


@st.composite
def fleet_maps(draw, tmap, empires=(ME, THEM, OTHER)):
    cells = list(tmap.grid.cells())
    fleets = {}
    for c in draw(st.lists(st.sampled_from(cells), max_size=6, unique=True)):
        fleets[c] = {e: draw(st.integers(0, 3)) for e in draw(st.sets(st.sampled_from(empires), min_size=1))}
    return fleets


PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(positions())
def test_network_is_the_kruskal_forest(pos):  # ruling T4
    tmap, owners, home = pos
    net = network(tmap, ME, owners, home)
    assert net == reference_network(tmap, owners, ME, home)
    _check_routes(tmap, owners, ME, net)
    # A forest: components counted independently of the network's own routes.
    enemy = {c for c, o in owners.items() if o != ME}
    groups = []
    for c in net.nodes:
        if not any(c in g for g in groups):
            reach = bfs_dist(tmap, c, enemy)
            groups.append({x for x in net.nodes if x in reach})
    assert len(net.edges) == len(net.nodes) - len(groups)
    assert {frozenset(g) for g in net.components()} == {frozenset(g) for g in groups}
    for r in net.edges:
        assert r.length == bfs_dist(tmap, r.a, enemy)[r.b]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(positions(max_side=14))
def test_network_is_the_kruskal_forest_on_larger_maps(pos):  # ruling T4 (many balls resting)
    tmap, owners, home = pos
    assert network(tmap, ME, owners, home) == reference_network(tmap, owners, ME, home)


@PROPS
@given(positions(), st.randoms(use_true_random=False))
def test_network_ignores_dict_order(pos, rnd):  # ruling T2
    tmap, owners, home = pos
    items = list(owners.items())
    rnd.shuffle(items)
    assert network(tmap, ME, dict(items), home) == network(tmap, ME, owners, home)


@settings(max_examples=150, deadline=None)
@given(positions(max_side=5), st.data())
def test_shortest_path_is_the_earliest_shortest_path(pos, data):  # ruling T2
    tmap, owners, _ = pos
    cells = list(tmap.grid.cells())
    a = data.draw(st.sampled_from(cells))
    b = data.draw(st.sampled_from(cells))
    enemy = set(data.draw(st.lists(st.sampled_from(cells), max_size=4)))
    got = shortest_path(tmap, a, b, enemy)
    if Terrain.BLACK_HOLE in (tmap.terrain_at(a), tmap.terrain_at(b)):
        assert got is None
        return
    paths = all_shortest_paths(tmap, a, b, enemy)
    if a == b:
        assert got == (a,)
    elif not paths:
        assert got is None
    else:
        assert got == min(paths, key=lambda p: [tmap.grid.index(c) for c in p])


@PROPS
@given(positions(), st.data())
def test_no_interdiction_without_enemy_fleets(pos, data):  # ruling T6
    tmap, owners, home = pos
    net = network(tmap, ME, owners, home)
    cells = list(tmap.grid.cells())
    fleets = {}
    for c in data.draw(st.lists(st.sampled_from(cells), max_size=8, unique=True)):
        fleets[c] = {ME: data.draw(st.integers(0, 9)), THEM: data.draw(st.integers(0, 1))}
        if data.draw(st.booleans()):
            fleets[c][OTHER] = 1
    status = network_status(net, ME, fleets)
    assert status.interdicted == () and all(not who for who in status.interdictors)
    home_group = next((g for g in net.components() if net.home in g), ())
    assert status.connected == tuple(home_group)
    assert status.cut_off == tuple(c for c in net.nodes if c not in home_group)


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
@PROPS
@given(positions().flatmap(lambda p: st.tuples(st.just(p), fleet_maps(p[0]))))
def test_status_matches_a_direct_check(args):  # rulings T6, T7, T8
    (tmap, owners, home), fleets = args
    net = network(tmap, ME, owners, home)
    status = network_status(net, ME, fleets)
    assert isinstance(status, NetworkStatus)
    for r, who in zip(net.edges, status.interdictors):
        direct = {e for c in r.path for e, n in fleets.get(c, {}).items() if e != ME and n >= FLEET_MIN_SHIPS}
        assert who == direct
        assert interdicted(r, ME, fleets) == bool(direct) == (r in status.interdicted)
    # Connected: reachable from home over open routes, by a separate union of open edges.
    parent = {c: c for c in net.nodes}

    def find(c):
        while parent[c] != c:
            c = parent[c]
        return c

    for r in net.edges:
        if r not in status.interdicted:
            parent[find(r.a)] = find(r.b)
    expect = {c for c in net.nodes if net.home is not None and find(c) == find(net.home)}
    assert set(status.connected) == expect
    assert set(status.cut_off) == set(net.nodes) - expect
    assert status.routes_to_home == tuple(r for r in net.edges if net.home in (r.a, r.b))
    for attacker in (THEM, OTHER):
        want = bool(status.routes_to_home) and all(
            attacker in status.interdictors[net.edges.index(r)] for r in status.routes_to_home
        )
        assert trade_war_interdicted(attacker, status) == want
