"""Event Horizon trade routes ("003 Trade Routes") and the Trade War victory condition.

Pure Python, standard library only. Rule book: ``seeds/003_…``, "Ideas for a Military Campaign":
"Trade Routes", "Campaign Movement" (what a fleet is), "Purpose of the Campaign (Victory
Conditions)" (5 = Trade War); project rulings: ``RULINGS.md`` "Trade routes", "Star gates", and
the rulings noted beside the code below (summarised in ``docs/rulings.md``).

What the module computes
    * :func:`shortest_path` - the one route the rules draw between two cells.
    * :func:`network` - an empire's trade network: a minimum spanning forest over its planets and
      colonies, each edge a :class:`Route` along a shortest path.
    * :func:`interdicted` / :func:`network_status` - which routes enemy fleets block this turn, and
      which worlds are cut off from the home world (they "may not roll the BP dice").
    * :func:`trade_war_interdicted` / :func:`next_trade_war_counter` - the Trade War victory.

Rulings made here ("003 Trade Routes" unless noted)
    T1  Routes are lines of hex (square) steps on the map. They never jump through wormholes or
        star gates: the rule book draws "a line on the map", and a jump has no hexes in which a
        fleet could interdict it. Particle clouds, empty cells and wormhole cells are ordinary
        cells a line may cross. Black holes block (RULINGS "Trade routes").
    T2  "Shortest possible path": fewest steps (every step costs 1, diagonal steps on square maps
        included). Among equally short paths the route is the one whose cells, read from its first
        end, come earliest in reading (row-major) order at the first place where they differ.
        A route is stored from its earlier end (reading order) to its later end.
    T3  A route may pass neutral planets/colonies and the empire's own worlds; it may not pass a
        world owned by any other empire. (In a minimum spanning tree no route passes through
        another of the empire's own worlds anyway: the two shorter routes via that world win.)
    T4  The network: list every pair of the empire's worlds with the length of the shortest route
        between them; take the pairs shortest first (equal lengths: the pair whose earlier world
        comes first in reading order, then the later world), and draw a route when it joins two
        worlds not yet joined (Kruskal). The network is recomputed from the current map and
        ownership whenever it is needed (every turn); routes are never carried over.
    T5  Worlds no route can reach from the home world (walled off by black holes and enemy worlds)
        form their own networks but are cut off: no income roll until a route opens. An empire
        that does not own its home world (captured) has every world cut off: there is no home
        world to trace a line from. The home world itself is never cut off.
    T6  A fleet is two or more ships of one empire in a hex ("Two or more ships constitute a
        fleet"). One ship never interdicts; nor do single ships of two different empires sharing
        a hex. An empire's own ships never interdict its routes. Every hex of the route counts,
        its two end worlds included.
    T7  A world is cut off when the one network path (the network is a tree) from the home world to
        it crosses an interdicted route (RULINGS "Trade routes").
    T8  (Trade War) "Routes leading directly to the enemy home world" are the network routes with
        one end at it. For the attacker's victory they must all be interdicted by the attacker's
        own fleets (another empire's fleet on a route does not count for the attacker). A victim
        without such a route (it owns no other reachable world, or has lost its home world) is
        not interdicted that turn, so the attacker's count of consecutive turns starts again.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field

from campaign.rules.eventhorizon.mapgen import GeneratedMap, Terrain
from campaign.rules.grid import Coord, Grid

TRADE_RULE = "003 Trade Routes"
TRADE_WAR_RULE = "003 Purpose of the Campaign (Victory Conditions): Trade War"
FLEET_MIN_SHIPS = 2  # "Campaign Movement": "Two or more ships constitute a fleet"
TRADE_WAR_TURNS = 3  # "interdicted for three consecutive campaign turns"
WORLD_TERRAIN = frozenset({Terrain.PLANET, Terrain.COLONY})

EmpireId = Hashable
"""Any hashable id for an empire (a seat number, a primary key ...); only compared with ``==``."""


class TradeError(ValueError):
    """Inputs that cannot describe a campaign position (off-map cell, an owned empty hex ...)."""

    def __init__(self, message: str, rule: str = TRADE_RULE):
        self.rule = rule
        self.message = message
        super().__init__(f"{rule}: {message}")


# --------------------------------------------------------------------------------------------
# The map as trade routes see it


@dataclass(frozen=True)
class TradeMap:
    """A campaign map's grid and terrain, with the step graph trade routes use (ruling T1).

    Building one walks every cell once (under 0.1 s for 128 x 128); the terrain never changes
    during a campaign, so build it once per map and reuse it.
    """

    grid: Grid
    terrain: tuple[Terrain, ...]
    # Cell index -> indices of its passable neighbours, ascending (so the first match in a scan is
    # the earliest cell in reading order, which is how ruling T2 breaks ties). Black holes have
    # none and are in nobody's list, so no search ever enters one.
    _adjacency: tuple[tuple[int, ...], ...] = field(
        init=False, repr=False, compare=False, hash=False, default=()
    )

    def __post_init__(self) -> None:
        terrain = tuple(self.terrain)
        if len(terrain) != self.grid.size:
            raise TradeError(
                f"a {self.grid.width} x {self.grid.height} map needs {self.grid.size} cells "
                f"of terrain, not {len(terrain)}"
            )
        if not all(isinstance(t, Terrain) for t in terrain):
            raise TradeError("every cell's terrain must be a Terrain")
        object.__setattr__(self, "terrain", terrain)
        width = self.grid.width
        blocked = Terrain.BLACK_HOLE
        adjacency = []
        for i, cell in enumerate(self.grid.cells()):
            if terrain[i] is blocked:
                adjacency.append(())
                continue
            steps = [row * width + col for col, row in self.grid.neighbours(cell)]
            adjacency.append(tuple(sorted(n for n in steps if terrain[n] is not blocked)))
        object.__setattr__(self, "_adjacency", tuple(adjacency))

    @classmethod
    def from_map(cls, gmap: GeneratedMap) -> TradeMap:
        """The trade map of a generated campaign map."""
        return cls(grid=gmap.grid, terrain=gmap.terrain)

    def index(self, c: Coord) -> int:
        """Row-major index of ``c``; TradeError off the map."""
        if not _is_coord(c) or not self.grid.in_bounds(c):
            raise TradeError(f"{c!r} is not a cell of this {self.grid.width} x {self.grid.height} map")
        return c[1] * self.grid.width + c[0]

    def coord(self, i: int) -> Coord:
        """Inverse of :meth:`index`."""
        return (i % self.grid.width, i // self.grid.width)

    def terrain_at(self, c: Coord) -> Terrain:
        return self.terrain[self.index(c)]

    def is_world(self, c: Coord) -> bool:
        """True for a planet or colony: the only cells an empire can own for trade purposes."""
        return self.terrain_at(c) in WORLD_TERRAIN


def _is_coord(c: object) -> bool:
    return (
        isinstance(c, tuple)
        and len(c) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in c)
    )


# --------------------------------------------------------------------------------------------
# Shortest paths (ruling T2)


def _path(
    adjacency: tuple[tuple[int, ...], ...], closed: bytes | bytearray, a: int, b: int
) -> list[int] | None:
    """Cell indices of the route from ``a`` to ``b`` (both included), or None if there is none.

    Breadth-first search from ``b`` (stopping once ``a`` is labelled), then a walk from ``a`` that
    always steps to the earliest cell (reading order) one step closer to ``b``. Step by step that
    picks the earliest possible next cell, so the result is the shortest path whose cell sequence
    comes first in reading order (ruling T2). ``closed`` cells are never entered, except that the
    two ends are always allowed.
    """
    if a == b:
        return [a]
    dist = {b: 0}
    frontier = [b]
    d = 0
    while frontier and a not in dist:
        d += 1
        nxt = []
        for u in frontier:
            for v in adjacency[u]:
                if v not in dist and (not closed[v] or v == a):
                    dist[v] = d
                    nxt.append(v)
        frontier = nxt
    if a not in dist:
        return None
    path = [a]
    cur = a
    d = dist[a]
    while d:
        d -= 1
        # Every level below a's was complete when a was labelled, so this scan sees all of them.
        # adjacency is ascending, so the first match is the earliest cell in reading order.
        for v in adjacency[cur]:
            if dist.get(v) == d:
                cur = v
                break
        path.append(cur)
    return path


def shortest_path(
    tmap: TradeMap, a: Coord, b: Coord, blocked: Iterable[Coord] = ()
) -> tuple[Coord, ...] | None:
    """The trade route from ``a`` to ``b``: a shortest chain of neighbouring cells, or None.

    Never enters a black hole or a ``blocked`` cell, except that ``a`` and ``b`` themselves may be
    blocked (a route ends at a world even if that world is in the blocked set). A black hole as an
    end gives None. Ties between equally short paths go the same way every time (ruling T2): the
    earliest cells in reading order, looking from ``a``. ``shortest_path(a, a)`` is ``(a,)``.
    """
    ia, ib = tmap.index(a), tmap.index(b)
    closed = bytearray(tmap.grid.size)
    for c in blocked:
        closed[tmap.index(c)] = 1
    if Terrain.BLACK_HOLE in (tmap.terrain[ia], tmap.terrain[ib]):
        return None
    path = _path(tmap._adjacency, closed, ia, ib)
    return None if path is None else tuple(tmap.coord(i) for i in path)


# --------------------------------------------------------------------------------------------
# Networks (rulings T3 - T5)


@dataclass(frozen=True)
class Route:
    """One trade route: the cells from world ``a`` to world ``b``, both ends included.

    ``a`` comes before ``b`` in reading order and ``path`` runs from ``a`` to ``b`` (ruling T2).
    """

    a: Coord
    b: Coord
    path: tuple[Coord, ...]

    @property
    def length(self) -> int:
        """Number of steps."""
        return len(self.path) - 1

    def ends_at(self, c: Coord) -> bool:
        return c == self.a or c == self.b


@dataclass(frozen=True)
class TradeNetwork:
    """An empire's trade routes this turn.

    ``nodes``: the empire's planets and colonies in reading order. ``edges``: the routes of the
    minimum spanning forest (ruling T4), in the order Kruskal draws them, i.e. by (length, a, b).
    ``home``: the home world, or None if the empire does not own it (ruling T5).
    """

    empire: EmpireId
    home: Coord | None
    nodes: tuple[Coord, ...]
    edges: tuple[Route, ...]

    @property
    def routes_to_home(self) -> tuple[Route, ...]:
        """Routes with one end at the home world ("leading directly to" it, ruling T8)."""
        if self.home is None:
            return ()
        return tuple(r for r in self.edges if r.ends_at(self.home))

    def components(self) -> tuple[tuple[Coord, ...], ...]:
        """The worlds grouped by which of them the routes join, each group and the list in
        reading order of their first world."""
        neighbours = _tree_neighbours(self.edges)
        seen: set[Coord] = set()
        out = []
        for start in self.nodes:
            if start in seen:
                continue
            group = _reach(start, neighbours)
            seen |= group
            out.append(tuple(c for c in self.nodes if c in group))
        return tuple(out)


def _tree_neighbours(routes: Iterable[Route]) -> dict[Coord, list[Coord]]:
    out: dict[Coord, list[Coord]] = {}
    for r in routes:
        out.setdefault(r.a, []).append(r.b)
        out.setdefault(r.b, []).append(r.a)
    return out


def _reach(start: Coord, neighbours: Mapping[Coord, list[Coord]]) -> set[Coord]:
    seen = {start}
    stack = [start]
    while stack:
        for n in neighbours.get(stack.pop(), ()):
            if n not in seen:
                seen.add(n)
                stack.append(n)
    return seen


def _check_owners(tmap: TradeMap, owners: Mapping[Coord, EmpireId]) -> None:
    for c in owners:
        if tmap.terrain_at(c) not in WORLD_TERRAIN:
            raise TradeError(f"only planets and colonies can be owned; {c!r} is {tmap.terrain_at(c).label}")


def network(
    tmap: TradeMap, empire: EmpireId, owners: Mapping[Coord, EmpireId], home: Coord | None
) -> TradeNetwork:
    """The empire's trade network: a minimum spanning forest over its worlds (rulings T2 - T5).

    ``owners`` maps every owned world (any empire) to its owner; worlds not in it, or mapped to
    None, are neutral.
    ``home`` is the empire's home world; if the empire does not own it (or it is None) the network
    has no home and every world is cut off (ruling T5). Worlds owned by other empires are walls.
    The result depends only on the map and on who owns what, never on the order of ``owners``.
    """
    _check_owners(tmap, owners)
    if home is not None:
        tmap.index(home)
        if owners.get(home) != empire:
            home = None  # lost (captured): nothing to trace a line from (ruling T5)
    size = tmap.grid.size
    closed = bytearray(size)
    worlds = []
    for c, owner in owners.items():
        if owner is None:
            continue  # listed as nobody's: a neutral world
        if owner == empire:
            worlds.append(tmap.index(c))
        else:
            closed[tmap.index(c)] = 1  # an enemy world: routes may not pass it (ruling T3)
    worlds.sort()
    adjacency = tmap._adjacency
    edges = []
    for ka, kb, length in _spanning_forest(adjacency, closed, worlds):
        path = _path(adjacency, closed, worlds[ka], worlds[kb])
        # The forest search found this pair at exactly this distance.
        assert path is not None and len(path) == length + 1
        edges.append(Route(tmap.coord(worlds[ka]), tmap.coord(worlds[kb]), tuple(map(tmap.coord, path))))
    return TradeNetwork(empire=empire, home=home, nodes=tuple(map(tmap.coord, worlds)), edges=tuple(edges))


def all_networks(
    tmap: TradeMap, owners: Mapping[Coord, EmpireId], home_worlds: Mapping[EmpireId, Coord]
) -> dict[EmpireId, TradeNetwork]:
    """:func:`network` for every empire in ``home_worlds`` (in its order), then any other empire
    that owns worlds (in reading order of its first world)."""
    empires = list(home_worlds)
    for c in sorted(owners, key=lambda c: (c[1], c[0])):
        if owners[c] is not None and owners[c] not in empires:
            empires.append(owners[c])
    return {e: network(tmap, e, owners, home_worlds.get(e)) for e in empires}


def _spanning_forest(
    adjacency: tuple[tuple[int, ...], ...], closed: bytes | bytearray, worlds: list[int]
) -> list[tuple[int, int, int]]:
    """Kruskal over all pairs of ``worlds`` by (distance, first, second): ``(i, j, distance)``
    with ``i < j`` indices into ``worlds`` (sorted cell indices), in the order drawn.

    Exactly Kruskal on the complete graph of pairwise shortest distances, without computing every
    distance: all worlds grow breadth-first "balls" together, one step per round, so after round
    ``r`` every pair at distance ``r`` has been found and can be handed to Kruskal in order. The
    search ends when every group of mutually reachable worlds is joined. A pair only needs one of
    its two balls to find it, so in each reachable group the joined component with the most worlds
    rests for the round (a resting ball catches up if it has to grow again later); a far-off
    world's ball then grows alone instead of forty balls growing across the whole map.
    """
    n = len(worlds)
    if n < 2:
        return []
    slot = {w: k for k, w in enumerate(worlds)}
    targets = set(worlds)

    # Which worlds can reach each other at all (one flood per reachable group).
    group = [-1] * n
    group_size: list[int] = []
    for k in range(n):
        if group[k] >= 0:
            continue
        seen = bytearray(closed)
        seen[worlds[k]] = 1
        frontier = [worlds[k]]
        while frontier:
            frontier = _grow(adjacency, seen, frontier)
        g = len(group_size)
        members = [j for j in range(k, n) if seen[worlds[j]]]
        for j in members:
            group[j] = g
        group_size.append(len(members))

    parent = list(range(n))
    size = [1] * n

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    balls: list[bytearray | None] = [None] * n
    fronts: list[list[int]] = [[] for _ in range(n)]
    radius = [0] * n
    components = n
    edges: list[tuple[int, int, int]] = []
    r = 0
    while components > len(group_size):
        r += 1
        # The biggest unfinished component of each reachable group rests (ties: the one holding
        # the earliest world, which is its root because unions keep the smaller root).
        resting: dict[int, int] = {}
        for k in range(n):
            if parent[k] == k and size[k] < group_size[group[k]]:
                best = resting.get(group[k])
                if best is None or size[k] > size[best]:
                    resting[group[k]] = k
        rest = set(resting.values())
        found: set[tuple[int, int, int]] = set()
        grew = False
        for k in range(n):
            root = find(k)
            if root in rest or size[root] == group_size[group[k]]:
                continue
            ball = balls[k]
            if ball is None:
                ball = balls[k] = bytearray(closed)
                ball[worlds[k]] = 1
                fronts[k] = [worlds[k]]
            while radius[k] < r and fronts[k]:
                fronts[k] = _grow(adjacency, ball, fronts[k])
                radius[k] += 1
                grew = True
                for hit in targets.intersection(fronts[k]):
                    j = slot[hit]
                    found.add((radius[k], min(j, k), max(j, k)))
        if not grew:  # pragma: no cover - the groups above guarantee a ball can still grow
            raise AssertionError("trade network search stalled")
        # Pairs a catching-up ball finds below this round were joined in their own round already.
        for d, i, j in sorted(found):
            ri, rj = find(i), find(j)
            if ri != rj:
                lo, hi = min(ri, rj), max(ri, rj)
                parent[hi] = lo
                size[lo] += size[hi]
                components -= 1
                edges.append((i, j, d))
    return edges


def _grow(adjacency: tuple[tuple[int, ...], ...], seen: bytearray, frontier: list[int]) -> list[int]:
    """One breadth-first step: the unseen neighbours of ``frontier``, marked seen."""
    nxt: list[int] = []
    add = nxt.append
    for u in frontier:
        for v in adjacency[u]:
            if not seen[v]:
                seen[v] = 1
                add(v)
    return nxt


# --------------------------------------------------------------------------------------------
# Interdiction (rulings T6, T7)


def fleet_owners(cell_ships: Mapping[EmpireId, int]) -> frozenset[EmpireId]:
    """Empires with a fleet (two or more ships, ruling T6) among one hex's ``empire -> ships``."""
    out = []
    for empire, ships in cell_ships.items():
        if isinstance(ships, bool) or not isinstance(ships, int) or ships < 0:
            raise TradeError(f"a ship count must be a whole number 0 or more, not {ships!r}")
        if ships >= FLEET_MIN_SHIPS:
            out.append(empire)
    return frozenset(out)


def route_interdictors(
    route: Route, empire: EmpireId, fleets: Mapping[Coord, Mapping[EmpireId, int]]
) -> frozenset[EmpireId]:
    """Every other empire with a fleet on some hex of ``route`` (its ends included)."""
    out: set[EmpireId] = set()
    for c in route.path:
        ships = fleets.get(c)
        if ships:
            out |= fleet_owners(ships)
    out.discard(empire)  # own ships never interdict
    return frozenset(out)


def interdicted(route: Route, empire: EmpireId, fleets: Mapping[Coord, Mapping[EmpireId, int]]) -> bool:
    """True while an enemy fleet (two or more ships of one other empire) is on any hex of the
    route (RULINGS "Trade routes", ruling T6). ``fleets``: hex -> empire -> ships there."""
    return bool(route_interdictors(route, empire, fleets))


@dataclass(frozen=True)
class NetworkStatus:
    """A trade network under this turn's fleets.

    ``interdictors[i]`` is the set of empires whose fleets interdict ``network.edges[i]``.
    ``interdicted``: the interdicted routes. ``connected``: worlds joined to the home world by
    routes none of which is interdicted (the home world included). ``cut_off``: the rest of the
    empire's worlds - they "may not roll the BP dice". ``routes_to_home``: the routes with one end
    at the home world. World lists are in reading order, route lists in network order.
    """

    network: TradeNetwork
    interdictors: tuple[frozenset[EmpireId], ...]
    interdicted: tuple[Route, ...]
    connected: tuple[Coord, ...]
    cut_off: tuple[Coord, ...]
    routes_to_home: tuple[Route, ...]

    @property
    def empire(self) -> EmpireId:
        return self.network.empire

    def interdicted_by(self, empire: EmpireId) -> tuple[Route, ...]:
        """Routes on which ``empire`` has a fleet."""
        return tuple(r for r, who in zip(self.network.edges, self.interdictors) if empire in who)


def network_status(
    net: TradeNetwork, empire: EmpireId, fleets: Mapping[Coord, Mapping[EmpireId, int]]
) -> NetworkStatus:
    """Which routes are interdicted and which worlds are cut off (rulings T5 - T7).

    ``empire`` must be the network's owner (it is passed so a caller cannot mix up whose fleets
    count as enemies). ``fleets``: hex -> empire -> number of ships there.
    """
    if empire != net.empire:
        raise TradeError(f"this network belongs to {net.empire!r}, not {empire!r}")
    interdictors = tuple(route_interdictors(r, empire, fleets) for r in net.edges)
    open_routes = [r for r, who in zip(net.edges, interdictors) if not who]
    reached = set() if net.home is None else _reach(net.home, _tree_neighbours(open_routes))
    return NetworkStatus(
        network=net,
        interdictors=interdictors,
        interdicted=tuple(r for r, who in zip(net.edges, interdictors) if who),
        connected=tuple(c for c in net.nodes if c in reached),
        cut_off=tuple(c for c in net.nodes if c not in reached),
        routes_to_home=net.routes_to_home,
    )


# --------------------------------------------------------------------------------------------
# Trade War (ruling T8)


def trade_war_interdicted(attacker: EmpireId, victim: NetworkStatus) -> bool:
    """True if every route leading directly to the victim's home world is interdicted by the
    attacker's own fleets this turn. False when the victim has no such route (ruling T8)."""
    routes = victim.routes_to_home
    if not routes or attacker == victim.empire:
        return False
    by_route = dict(zip(victim.network.edges, victim.interdictors))
    return all(attacker in by_route[r] for r in routes)


def next_trade_war_counter(previous: int, interdicted_now: bool) -> int:
    """Consecutive campaign turns of Trade War interdiction, after this turn's check: one more
    than before if interdicted now, else back to 0. The attacker wins at :data:`TRADE_WAR_TURNS`."""
    if isinstance(previous, bool) or not isinstance(previous, int) or previous < 0:
        raise TradeError(f"a turn count must be a whole number 0 or more, not {previous!r}", TRADE_WAR_RULE)
    return previous + 1 if interdicted_now else 0


def trade_war_won(counter: int) -> bool:
    """True once the routes to the victim's home world have been interdicted for three
    consecutive campaign turns."""
    return counter >= TRADE_WAR_TURNS
