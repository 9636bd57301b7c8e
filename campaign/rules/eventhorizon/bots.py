"""Computer players for Event Horizon campaigns: a strategy that plays to win and writes the same
orders a person would (pure Python, deterministic, no dice: bots' choices are not rolls).

A bot reads the whole position every turn (it keeps no memory; every position is open to every
player) and:

- **spends** ("003 Use of BP in a Campaign"): a Diplomatic Corps first while neutral worlds are
  left (+1 on every neutral roll, "003 Neutral Planets/Colonies"); a ship at every idle dockyard
  (scouts while worlds are left to claim, else the army: hero crews where a Military Academy
  trains them, +30 BP each in the auto-resolve, and a Star Cruiser for every few ships, for its
  extra die, "003 Alternative to a Tactical Battle: Force Multipliers"); as many dockyards as its
  income can keep busy, so BP become ships instead of sitting in the bank; planetary defences at
  home and where the enemy can strike;
- **keeps a home guard** as strong as the enemy ships near its home world (losing it cuts off
  every trade route and all income, "003 Trade Routes"); the guard strikes at such a threat only
  with very good odds;
- **expands**: lone scouts go to the neutral worlds the campaign's purpose wants most (colonies
  for Land Grab, planets otherwise) and stay there rolling until the world joins; army ships
  beyond what the war needs become scouts too;
- **fights by the exact auto-resolve odds** (``win_chance``): any enemy-held hex its groups can
  reach together this turn is attacked when the odds are good (several groups entering one hex
  fight one battle together); a strong enemy fleet sitting on its own world is first surrounded,
  so that, beaten, it has nowhere to retreat and is destroyed ("003 Result of a Tactical
  Battle", docs/rulings.md C11);
- **reads the enemy's strikes**: where an enemy fleet near us would strike this turn (as a
  computer player in its seat would choose), our ships meet it there;
- **pursues the purpose** ("003 Purpose of the Campaign"): the main army goes for the enemy world
  worth most for its distance (home worlds, dockyards and the purpose's targets first, the
  weakest and nearest rival's before the others'), gathering the other groups on the way; far
  ahead, the army keeps together to finish the job. In a Trade War enemy home worlds are not
  taken but besieged: a fleet on every cell next to one interdicts every route leading to it.

Orders are checked with ``validate_orders``; anything refused is dropped, so a bot never submits
invalid orders, and research gating is respected (only designs the empire may build are used; a
design with a planetary bombardment array, +1 on neutral rolls, is the scout of choice when the
empire has one).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property, lru_cache

from ..grid import Coord
from . import economy as eh
from .autoresolve import Side, _round_counts, dice_counts
from .designs import Design, ShipType
from .economy import Resource, WorldKind
from .mapgen import Terrain
from .orders import NO_ORDERS, OrderError, Orders, parse_orders, validate_orders
from .state import CampaignState

ATTACK_ODDS = 0.7  # win chance needed to attack enemy ships (003 Alternative to a Tactical Battle)
RAID_ODDS = 0.55  # enough against planetary defences alone: a loss only costs a retreat
GUARD_SORTIE_ODDS = 0.8  # the home guard strikes at a threat nearby only with these odds
MAX_DICE = 40  # past this many dice the odds no longer change in the third decimal
GUARD_RADIUS = 8  # enemy ships this close to the home world are a threat to it
CONTACT_RADIUS = 12  # enemy ships this close to our worlds are a threat the army must answer
STAGING_DISTANCE = 6  # a main army too weak for its objective waits this far from it
REINFORCE_MIN = 3  # army ships leave home together, at least this many
MIN_SCOUTS = 3
MAX_SCOUTS = 40
SCOUT_SHARE = 0.4  # of a turn's builds, while at war and neutral worlds are left
DOCK_RESERVE = 25  # BP kept back per dockyard (its next build) when buying more dockyards
DOCK_BP = 40  # a dockyard for every this many BP of expected income
MAX_DOCKS = 200
COLONY_DOCKS = False  # dockyards on colonies too (always when the empire has no dockyard)
ACADEMY_AT = 300  # BP in the bank before a Military Academy is bought
DOMINANT = 2.5  # this many times every enemy ship's BP: the army keeps together to finish
KILL_BP = 200  # enemy fleets this strong are worth surrounding before the attack
OBJECTIVE_DISTANCE = 3  # value a hex of distance costs when choosing the main army's objective
THROUGH_COST = 20  # extra cost of planning a path through an enemy-held hex
PREFER_BONUS = 8  # a preferred neutral world may be this much farther (2 per hex) than another

SETUP_TURN = 0  # the set-up round (setup.py)
SETUP_SCOUTS = 3  # lone scouts bought in the set-up round while neutral worlds are left
SETUP_CRUISERS = 2  # Star Cruisers in the set-up fleet (each an extra die: Force Multipliers)

PURPOSE_LAND_GRAB, PURPOSE_POWER, PURPOSE_BATTLE = 1, 2, 3
PURPOSE_REGIME, PURPOSE_TRADE, PURPOSE_ANNIHILATION = 4, 5, 6


# --- the map as a graph (built once per map) --------------------------------------------------

class _Graph:
    """Cell indexes, passable neighbours, move weights (a particle cloud costs a little more, so
    paths avoid drifting when they can: "003 Creating a Map: Particle Cloud") and worm holes."""

    def __init__(self, gmap):
        grid = gmap.grid
        self.grid = grid
        self.width = grid.width
        size = grid.size
        terrain = gmap.terrain
        self.coords = [grid.coord(i) for i in range(size)]
        self.passable = [t is not Terrain.BLACK_HOLE for t in terrain]
        self.weight = [3 if t is Terrain.PARTICLE_CLOUD else 2 for t in terrain]
        self.adj = []
        for i in range(size):
            near = [] if not self.passable[i] else [
                grid.index(c) for c in grid.neighbours(self.coords[i])]
            self.adj.append(tuple(n for n in near if self.passable[n]))
        self.wormholes = tuple(i for i, t in enumerate(terrain) if t is Terrain.WORMHOLE)
        self.worm_set = frozenset(self.wormholes)
        self.adjw = tuple(tuple((n, self.weight[n]) for n in near) for near in self.adj)

    def index(self, c: Coord) -> int:
        return c[1] * self.width + c[0]


_GRAPHS: dict[int, tuple] = {}


def _graph(gmap) -> _Graph:
    hit = _GRAPHS.get(id(gmap))
    if hit is None or hit[0] is not gmap:
        if len(_GRAPHS) > 16:
            _GRAPHS.clear()
        hit = _GRAPHS[id(gmap)] = (gmap, _Graph(gmap))
    return hit[1]


class _Search:
    """Cheapest paths from one cell (Dial's algorithm over weights 0, 2 and 3). Enemy-held cells
    end a path: a fleet may enter one, never pass through ("003 Invading Enemy Hexes").
    ``limit`` bounds the steps; ``goal(cell, cost)`` returning True stops the search there;
    ``through`` > 0 lets paths pass enemy-held cells at that extra cost (to plan past them)."""

    def __init__(self, graph: _Graph, start: int, held: set[int], limit: int | None = None,
                 goal=None, through: int = 0):
        self.graph, self.start = graph, start
        cost = {start: 0}
        steps = {start: 0}
        parent: dict[int, int] = {}
        buckets: list[list[int]] = [[start]]
        adjw, worm = graph.adjw, graph.worm_set
        big = 1 << 30
        limit = big if limit is None else limit
        self.found = None
        c = 0
        while c < len(buckets):
            bucket = buckets[c]
            while bucket:
                here = bucket.pop()
                if cost[here] != c:
                    continue
                if here != start:
                    if goal is not None and goal(here, c):
                        self.found = here
                        break
                    if here in held and not through:
                        continue
                moves = steps[here] + 1
                if moves <= limit:
                    for n, w in adjw[here]:
                        nc = c + w + (through if n in held else 0)
                        if nc < cost.get(n, big):
                            cost[n] = nc
                            steps[n] = moves
                            parent[n] = here
                            while len(buckets) <= nc:
                                buckets.append([])
                            buckets[nc].append(n)
                if here in worm and not (here == start and here in held):
                    for n in graph.wormholes:
                        if n != here and c < cost.get(n, big):
                            cost[n] = c
                            steps[n] = moves - 1
                            parent[n] = here
                            bucket.append(n)
            if self.found is not None:
                break
            c += 1
        self.cost, self.steps, self.parent = cost, steps, parent

    def path(self, target: int, speed: int) -> list[Coord]:
        """The cells entered on the way to ``target``, cut to one turn's move."""
        cells = []
        cell = target
        while cell != self.start:
            cells.append(cell)
            cell = self.parent[cell]
        cells.reverse()
        out = []
        for cell in cells:
            if self.steps[cell] > speed:
                break
            out.append(self.graph.coords[cell])
        return out


# --- the auto-resolve odds --------------------------------------------------------------------

def win_chance(attacker: Side, defender: Side) -> float:
    """The attacker's exact chance to win the auto-resolve ("003 Alternative to a Tactical
    Battle", force multipliers included)."""
    if attacker.bp == 0 and defender.bp == 0 and not defender.has_defences:
        return 0.0
    if defender.bp == 0 and not defender.has_defences:
        return 1.0  # nothing resists: the hex is taken without a battle
    a_dice, b_dice, _ = dice_counts(attacker, defender)
    # Past 40 dice the odds no longer change in the third decimal; the count is capped there.
    a_dice, b_dice = min(a_dice, MAX_DICE), min(b_dice, MAX_DICE)
    bigger = (attacker.bp > defender.bp) - (attacker.bp < defender.bp)
    return _exact(a_dice, b_dice, bigger)


@lru_cache(maxsize=4096)
def _exact(a_dice: int, b_dice: int, bigger: int) -> float:
    counts = _round_counts(a_dice, b_dice)
    if bigger == 0:
        decided = counts.total - counts.ties
        return counts.a_wins / decided if decided else 0.5
    return (counts.a_wins + (counts.ties if bigger > 0 else 0)) / counts.total


# --- orders -----------------------------------------------------------------------------------

def bot_orders(state: CampaignState, seat: int, design_names: Mapping[str, int]) -> Orders:
    """The orders of the computer player in ``seat`` for this turn (in the set-up round: its
    set-up purchase, ``setup_orders``)."""
    empire = state.empire(seat)
    if empire.eliminated or state.finished:
        return NO_ORDERS
    if state.turn == SETUP_TURN:
        return setup_orders(state, seat, design_names)
    bot = _Bot(state, seat, design_names)
    return _valid(state, seat, bot.orders(), design_names)


def setup_orders(state: CampaignState, seat: int, design_names: Mapping[str, int]) -> Orders:
    """The computer's set-up purchase (003 "Set Up": "240BP to construct his fleet or buy
    'resources'"): a Diplomatic Corps while neutral worlds are left (+1 on every neutral roll),
    then ships at the home dockyard, delivered at once: a few fast scouts to claim neutral
    worlds, Star Cruisers for their extra die, and line ships with the rest. Less than the
    cheapest ship stays banked. Also the standing order of a seat that sends nothing in the
    set-up round (RULINGS "Missed deadline")."""
    from .setup import setup_plan

    empire = state.empire(seat)
    if empire.eliminated or state.finished:
        return NO_ORDERS
    bot = _Bot(state, seat, design_names)
    scout, line, cruiser = bot._designs()
    bp = empire.bp
    raw: list[dict] = []
    if bot.neutral and bot.home is not None and bp >= Resource.DIPLOMATIC_CORPS.cost + 100:
        raw.append({"buy": Resource.DIPLOMATIC_CORPS.value, "at": list(bot.home)})
        bp -= Resource.DIPLOMATIC_CORPS.cost
    dock = next((d for d in bot.docks if d.coord == bot.home), bot.docks[0] if bot.docks else None)
    if dock is not None and scout is not None:
        cost = {name: state.designs[design_names[name]].bp for name in {scout, line, cruiser} if name}
        plan = [scout] * (min(SETUP_SCOUTS, bot._scouts_wanted()))
        if cruiser is not None:
            plan += [cruiser] * SETUP_CRUISERS
        for name in plan:
            if bp >= cost[name]:
                raw.append({"build": name, "dockyard": dock.id})
                bp -= cost[name]
        while bp >= cost[line]:
            raw.append({"build": line, "dockyard": dock.id})
            bp -= cost[line]
    orders = parse_orders({"purchases": raw} if raw else {})
    while True:
        try:
            setup_plan(state, seat, orders, design_names)
            return orders
        except OrderError as exc:  # never expected: drop the refused item and try again
            where = exc.where or ""
            if not where.startswith("purchases[") or not orders.purchases:
                return NO_ORDERS
            index = int(where[len("purchases["):].split("]")[0])
            orders = parse_orders({"purchases": [p for i, p in enumerate(orders.purchases) if i != index]})


def _valid(state: CampaignState, seat: int, raw: dict, design_names: Mapping[str, int]) -> Orders:
    """The orders, less whatever is refused: a failing purchase is dropped (the rest kept), then
    the moves, then the regrouping; a bot's orders are always accepted."""
    raw = dict(raw)
    for _ in range(len(raw.get("purchases", ())) + 1):
        try:
            orders = parse_orders(raw)
            validate_orders(state, seat, orders, design_names)
            return orders
        except OrderError as exc:
            where = exc.where or ""
            if where.startswith("purchases[") and raw.get("purchases"):
                index = int(where[len("purchases["):].split("]")[0])
                raw["purchases"] = [p for i, p in enumerate(raw["purchases"]) if i != index]
                continue
            break
    for attempt in ({**raw, "moves": []}, {k: v for k, v in raw.items() if k == "purchases"},
                    {k: v for k, v in raw.items() if k != "purchases"}, {}):
        try:
            orders = parse_orders(attempt)
            validate_orders(state, seat, orders, design_names)
            return orders
        except OrderError:
            continue
    return NO_ORDERS


class _Bot:
    def __init__(self, state: CampaignState, seat: int, design_names: Mapping[str, int]):
        self.state, self.seat, self.names = state, seat, design_names
        self.graph = _graph(state.map)
        self.grid = state.grid
        self.empire = state.empire(seat)
        self.ships = state.ship_index()
        self.enemies = {s for s in state.active_seats() if s != seat}
        self.my_worlds = list(state.worlds_of(seat))
        self.home = next((w.coord for w in self.my_worlds if w.home_of == seat), None)
        mine = [s for s in state.structures if s.owner == seat]
        self.mine = mine
        self.docks = sorted((s for s in mine if s.resource is Resource.DOCKYARD), key=lambda s: s.id)
        self.academies = {s.coord for s in mine if s.resource is Resource.MILITARY_ACADEMY}
        self.defended = {s.coord for s in mine if s.resource is Resource.PLANETARY_DEFENCES}
        self.has_dc = any(s.resource is Resource.DIPLOMATIC_CORPS for s in mine)
        self.my_fleets = sorted((f for f in state.fleets if f.owner == seat), key=lambda f: f.id)
        # Enemies: ships by hex, worlds, defences, dockyards.
        self.enemy_bp: dict[Coord, int] = {}
        self.enemy_cruiser: set[Coord] = set()
        self.enemy_destroyer: set[Coord] = set()
        self.enemy_ships_of: dict[int, int] = {}
        self.enemy_fleets_of: dict[int, list] = {}
        self.fleet_owner: dict[Coord, int] = {}
        for f in state.fleets:
            if f.owner == seat or f.owner not in self.enemies:
                continue
            self.fleet_owner.setdefault(f.coord, f.owner)
            bp = self._bp(f.ships)
            self.enemy_bp[f.coord] = self.enemy_bp.get(f.coord, 0) + bp
            self.enemy_ships_of[f.owner] = self.enemy_ships_of.get(f.owner, 0) + bp
            self.enemy_fleets_of.setdefault(f.owner, []).append(f)
            types = {state.ship_type(self.ships[s]) for s in f.ships}
            if ShipType.STAR_CRUISER in types:
                self.enemy_cruiser.add(f.coord)
            if ShipType.DESTROYER in types:
                self.enemy_destroyer.add(f.coord)
        self.enemy_worlds = {w.coord: w.owner for w in state.worlds if w.owner in self.enemies}
        self.enemy_defences = {s.coord for s in state.structures
                               if s.resource is Resource.PLANETARY_DEFENCES and s.owner in self.enemies
                               and self.enemy_worlds.get(s.coord) == s.owner}
        self.enemy_docks: dict[Coord, int] = {}
        for s in state.structures:
            if s.resource is Resource.DOCKYARD and s.owner in self.enemies:
                self.enemy_docks[s.coord] = self.enemy_docks.get(s.coord, 0) + 1
        self.enemy_homes = {w.coord: w.owner for w in state.worlds
                            if w.home_of in self.enemies and w.owner == w.home_of}
        gates = {s.coord for s in state.structures
                 if s.resource is Resource.STAR_GATE and s.owner in self.enemies}
        held = set(self.enemy_bp) | set(self.enemy_worlds) | gates
        self.held = held
        self.held_idx = {self.graph.index(c) for c in held}
        self.neutral = {w.coord: w for w in state.worlds if w.owner is None}
        self.base = self.home or self._fallback_base()
        self._values: dict[Coord, int] = {}
        self.purpose_targets = self._purpose_targets()
        self.rival = self._rival()
        self._searches: dict[tuple, _Search] = {}
        # Steps from our worlds (up to CONTACT_RADIUS): enemy ships within are a threat.
        self.near_me = self._territory()
        self.threat = sum(bp for c, bp in self.enemy_bp.items() if c in self.near_me)
        self.contact = self.threat > 0 or any(c in self.near_me for c in self.enemy_worlds)
        rival_bp = self.enemy_ships_of.get(self.rival, 0) if self.rival is not None else 0
        self.army_need = 2 * self.threat + rival_bp + 100 if self.contact else 0
        my_bp = sum(self.state.ship_bp(x) for x in state.ships if x.owner == seat)
        self.dominant = my_bp >= DOMINANT * max(1, sum(self.enemy_ships_of.values()))

    # --- small helpers ---
    def _bp(self, ship_ids) -> int:
        return sum(self.state.ship_bp(self.ships[s]) for s in ship_ids)

    def _speed(self, ship_ids) -> int:
        state = self.state
        return min(((max(0, state.designs[self.ships[s].design].engine - self.ships[s].damage.engine) + 1) // 2
                    for s in ship_ids), default=0)

    def _side(self, ship_ids) -> Side:
        types = {self.state.ship_type(self.ships[s]) for s in ship_ids}
        return Side(bp=self._bp(ship_ids), has_star_cruiser=ShipType.STAR_CRUISER in types,
                    has_destroyer=ShipType.DESTROYER in types)

    def _defender(self, cell: Coord) -> Side:
        return Side(bp=self.enemy_bp.get(cell, 0), has_star_cruiser=cell in self.enemy_cruiser,
                    has_destroyer=cell in self.enemy_destroyer, has_defences=cell in self.enemy_defences)

    def _territory(self) -> dict[Coord, int]:
        graph = self.graph
        dist = {graph.index(w.coord): 0 for w in self.my_worlds}
        frontier = list(dist)
        for step in range(1, CONTACT_RADIUS + 1):
            nxt = []
            for i in frontier:
                for n in graph.adj[i]:
                    if n not in dist:
                        dist[n] = step
                        nxt.append(n)
            frontier = nxt
        return {graph.coords[i]: d for i, d in dist.items()}

    def _fallback_base(self) -> Coord | None:
        if self.my_worlds:
            docks: dict[Coord, int] = {}
            for d in self.docks:
                docks[d.coord] = docks.get(d.coord, 0) + 1
            return max(self.my_worlds, key=lambda w: (docks.get(w.coord, 0), w.kind is WorldKind.PLANET,
                                                       -w.coord[1], -w.coord[0])).coord
        if self.my_fleets:
            return max(self.my_fleets, key=lambda f: (len(f.ships), -f.id)).coord
        return None

    def _search(self, start: Coord, limit: int | None = None) -> _Search:
        key = (start, limit)
        if key not in self._searches:
            self._searches[key] = _Search(self.graph, self.graph.index(start), self.held_idx, limit)
        return self._searches[key]

    def _dist(self, a: Coord, b: Coord) -> int:
        return self.grid.distance(a, b)

    # --- what to go for ---
    def _purpose_targets(self) -> set[Coord]:
        """Enemy-held cells whose capture advances the campaign's purpose (003 Purpose of the
        Campaign)."""
        state, enemies = self.state, self.enemies
        purpose = state.purpose
        if purpose == PURPOSE_LAND_GRAB:
            return {c for c, _ in self.enemy_worlds.items() if state.world_at(c).kind is WorldKind.COLONY}
        if purpose == PURPOSE_POWER:
            kinds = {Resource.DOCKYARD, Resource.STAR_GATE, Resource.ENRICHMENT}
            cells = {s.coord for s in state.structures if s.owner in enemies and s.resource in kinds}
            cells |= {c for c in self.enemy_bp if state.terrain_at(c) is Terrain.WORMHOLE}
            return cells
        if purpose == PURPOSE_BATTLE:
            return set(self.enemy_bp)
        if purpose in (PURPOSE_REGIME, PURPOSE_TRADE):
            return set(self.enemy_homes)
        if purpose == PURPOSE_ANNIHILATION:
            return {c for c in self.enemy_worlds if state.world_at(c).kind is WorldKind.PLANET}
        return set()

    def _rival(self) -> int | None:
        """The enemy to beat first: the weakest and nearest (its ships' BP and worlds, scaled by
        the distance to it)."""
        if self.base is None or not self.enemies:
            return None
        best = None
        for enemy in sorted(self.enemies):
            cells = [c for c, o in self.enemy_worlds.items() if o == enemy]
            cells += [f.coord for f in self.enemy_fleets_of.get(enemy, [])]
            if not cells:
                continue
            near = min(self._dist(self.base, c) for c in cells)
            worlds = sum(1 for o in self.enemy_worlds.values() if o == enemy)
            power = self.enemy_ships_of.get(enemy, 0) + 10 * worlds + 50
            key = (power * (near + 10), enemy)
            if best is None or key < best:
                best = key
        return best[1] if best else None

    def _value(self, cell: Coord) -> int:
        """How much taking ``cell`` is worth (for choosing between attacks)."""
        if cell not in self._values:
            self._values[cell] = self._worth(cell)
        return self._values[cell]

    def _worth(self, cell: Coord) -> int:
        value = 0
        owner = self.enemy_worlds.get(cell)
        if owner is not None:
            value += 30
            if self.state.world_at(cell).kind is WorldKind.PLANET:
                value += 10
            if cell in self.enemy_homes:
                value += 80
            value += 15 * min(self.enemy_docks.get(cell, 0), 4)
        if cell in self.enemy_bp:
            value += 20 + min(self.enemy_bp[cell], 400) // 10
            if self.near_me.get(cell, CONTACT_RADIUS) <= 1:
                value += 30  # enemy ships on or next to our worlds
        if cell in self.purpose_targets:
            value += 50
        if self.rival is not None and (owner == self.rival or self._fleet_owner(cell) == self.rival):
            value += 25
        return value

    def _fleet_owner(self, cell: Coord) -> int | None:
        return self.fleet_owner.get(cell)

    def _objective(self, near: Coord) -> Coord | None:
        """Where the main army is going: the enemy world (or, with none, the enemy fleet) worth
        most for its distance from ``near``: home worlds, dockyards and the purpose's targets
        first, the rival's before the others'."""
        spared = self._spared()
        cells = [c for c in self.enemy_worlds if c not in spared] or [
            f.coord for e in sorted(self.enemies) for f in self.enemy_fleets_of.get(e, []) if f.coord not in spared]
        if not cells:
            return None
        return min(cells, key=lambda c: (OBJECTIVE_DISTANCE * self._dist(near, c) - self._value(c), c[1], c[0]))

    # --- the turn ---
    def orders(self) -> dict:
        raw: dict = {}
        purchases = self._purchases()
        if purchases:
            raw["purchases"] = purchases
        splits, merges, moves = self._fleet_orders()
        if splits:
            raw["split"] = splits
        if merges:
            raw["merge"] = merges
        raw["moves"] = moves
        return raw

    # --- spending ("003 Use of BP in a Campaign") ---
    def _designs(self):
        """(scout, line, cruiser) design names this empire may build now (research gating)."""
        techs = self.empire.technologies
        ok = []
        for name, design_id in sorted(self.names.items()):
            design: Design = self.state.designs[design_id]
            if design.ship_type.category != "military" or not design.technologies_required <= techs:
                continue
            ok.append((name, design))
        if not ok:
            return None, None, None

        def speed(d: Design) -> int:
            return (d.engine + 1) // 2

        def pba(d: Design) -> bool:
            return d.weapon_counts.get("planetary_bombardment_array", 0) > 0

        scout = min(ok, key=lambda t: (not (pba(t[1]) and speed(t[1]) >= 4), t[1].ship_type.build_time,
                                       -speed(t[1]), t[1].bp, t[0]))[0]
        line = max(ok, key=lambda t: (t[1].bp / t[1].ship_type.build_time, speed(t[1]), t[0]))[0]
        cruisers = [t for t in ok if t[1].ship_type is ShipType.STAR_CRUISER]
        cruiser = max(cruisers, key=lambda t: (speed(t[1]), t[0]))[0] if cruisers else None
        return scout, line, cruiser

    def _purchases(self) -> list[dict]:
        state, seat = self.state, self.seat
        bp = self.empire.bp
        out: list[dict] = []
        used: set[Coord] = set()  # one resource per world per turn (003 Use of BP: Note)
        scout, line, cruiser = self._designs()
        my_ships = [s for s in state.ships if s.owner == seat]
        neutral_left = bool(self.neutral)
        where = self.home or (self.my_worlds[0].coord if self.my_worlds else None)

        def buy(resource: Resource, at: Coord) -> None:
            nonlocal bp
            out.append({"buy": resource.value, "at": list(at)})
            used.add(at)
            bp -= resource.cost

        # No dockyard left: one at once, and a ship on its stocks this same turn (a resource counts
        # as soon as it is bought, docs/rulings.md E4), so that the empire keeps building ships
        # (003 Purpose of the Campaign: "a player loses if he finishes a campaign turn with no
        # ships"; only ships in play count, VC3).
        if not self.docks and self.my_worlds and scout is not None:
            cost = state.designs[self.names[scout]].bp
            spots = [w for w in self.my_worlds if w.coord not in self.held]
            if spots and bp >= Resource.DOCKYARD.cost + cost:
                at = min(spots, key=lambda w: (w.kind is not WorldKind.PLANET, w.coord in self.dangers,
                                               w.coord[1], w.coord[0])).coord
                buy(Resource.DOCKYARD, at)
                # The new dockyard's number in this purchase list (economy.next_structure_id).
                out.append({"build": scout, "dockyard": max((x.id for x in self.mine), default=0) + 1})
                bp -= cost
        # A Diplomatic Corps first: +1 on every neutral world's roll (003 Neutral Planets/Colonies).
        where = next((c for c in [where] + [w.coord for w in self.my_worlds] if c is not None and c not in used),
                     None)
        if not self.has_dc and neutral_left and where is not None and bp >= 60 + 25:
            buy(Resource.DIPLOMATIC_CORPS, where)
        # Ships at every idle dockyard.
        busy = {b.dockyard for b in state.builds}
        scouts_now = sum(1 for f in self.my_fleets if self._is_scout(f))
        scouts_now += sum(1 for b in state.builds if b.owner == seat and not b.hero_crew
                          and state.designs[b.design].ship_type is not ShipType.STAR_CRUISER)
        wanted = self._scouts_wanted()
        cruisers = sum(1 for s in my_ships if state.ship_type(s) is ShipType.STAR_CRUISER)
        cruisers += sum(1 for b in state.builds if b.owner == seat
                        and state.designs[b.design].ship_type is ShipType.STAR_CRUISER)
        army = sum(1 for s in my_ships if s.hero_crew or state.ship_type(s) is ShipType.STAR_CRUISER)
        idle = [d for d in self.docks if d.id not in busy]
        # Dockyards without an academy build the scouts; with the enemy near, at most a share of
        # this turn's builds are scouts (the rest is army), else all of them may be.
        idle.sort(key=lambda d: (d.coord in self.academies, d.id))
        scout_builds = 0
        share = SCOUT_SHARE if self.contact else 1.0
        if scout is not None:
            for dock in idle:
                hero_ok = dock.coord in self.academies
                if scouts_now < wanted and (scout_builds < share * len(idle) or scouts_now < MIN_SCOUTS):
                    scout_builds += 1
                    choice, hero = scout, False
                    scouts_now += 1
                elif cruiser is not None and cruisers < 1 + army // 6:
                    choice, hero = cruiser, hero_ok
                    cruisers += 1
                    army += 1
                else:
                    choice, hero = line, hero_ok
                    army += 1
                cost = state.designs[self.names[choice]].bp
                if hero and bp >= cost + eh.HERO_CREW_BP:
                    out.append({"build": choice, "dockyard": dock.id, "hero_crew": True})
                    bp -= cost + eh.HERO_CREW_BP
                elif bp >= cost:
                    out.append({"build": choice, "dockyard": dock.id})
                    bp -= cost
        if self.home is not None:
            home = self.home
            home_docks = sum(1 for d in self.docks if d.coord == home)
            if home not in used and home_docks and home not in self.academies and bp >= ACADEMY_AT \
                    and (self.contact or state.turn >= 10):
                buy(Resource.MILITARY_ACADEMY, home)
            elif home not in used and home not in self.defended and bp >= 40 + 60:
                buy(Resource.PLANETARY_DEFENCES, home)
        # Income becomes ships: enough dockyards to spend it ("Multiple dockyards on the same
        # planet/colony are permissible"), on the worlds that have some already (their academy
        # trains hero crews), then on the safest planets (nearest home) not under threat.
        if state.turn >= 3:
            wanted_docks = min(MAX_DOCKS, max(1, self._income() // DOCK_BP))
            docks: dict[Coord, int] = {}
            for d in self.docks:
                docks[d.coord] = docks.get(d.coord, 0) + 1
            base = self.base
            kinds = {w.coord: w.kind for w in self.my_worlds}
            spots = [c for c in kinds if c not in self.held and (kinds[c] is WorldKind.PLANET or COLONY_DOCKS)]
            spots.sort(key=lambda c: (c != self.home, kinds[c] is not WorldKind.PLANET, c in self.dangers,
                                      -docks.get(c, 0), self._dist(c, base) if base else 0, c[1], c[0]))
            count = len(self.docks)
            for at in spots:
                if count >= wanted_docks or bp < 120 + DOCK_RESERVE * count:
                    break
                if at in used:
                    continue
                buy(Resource.DOCKYARD, at)
                count += 1
        # Planetary defences (an extra die, 003 Force Multipliers) where enemy ships could strike
        # this turn at a world we cannot afford to lose.
        for at in sorted(set(self.dangers) & self._critical(), key=lambda c: (c[1], c[0])):
            if at not in used and at not in self.defended and bp >= 40 + 100:
                buy(Resource.PLANETARY_DEFENCES, at)
        # Dockyard worlds get an academy and defences once the bank allows.
        dock_worlds = sorted({d.coord for d in self.docks} - {self.home}, key=lambda c: (c[1], c[0]))
        for at in dock_worlds:
            if at in used:
                continue
            if at not in self.academies and bp >= 180 + 300 and self.contact:
                buy(Resource.MILITARY_ACADEMY, at)
            elif at not in self.defended and bp >= 40 + 300:
                buy(Resource.PLANETARY_DEFENCES, at)
        return out

    def _income(self) -> int:
        """Expected income a turn: the mean of each world's roll ("Planetary Economy Type")."""
        total = 0
        for w in self.my_worlds:
            if w.kind is WorldKind.COLONY:
                total += 10
            else:
                total += {None: 35, "industrial": 35, "commercial": 25, "agricultural": 17}.get(
                    w.economy.value if w.economy else None, 35)
        return total

    def _scouts_wanted(self) -> int:
        if not self.neutral:
            return 0
        return min(len(self.neutral), MAX_SCOUTS, 4 + len(self.my_worlds))

    def _is_scout(self, fleet) -> bool:
        if len(fleet.ships) != 1:
            return False
        ship = self.ships[fleet.ships[0]]
        return not ship.hero_crew and self.state.ship_type(ship) is not ShipType.STAR_CRUISER

    # --- fleets ---
    def _fleet_orders(self):
        """Split each hex's ships into parts (home guard, scouts, army) and move each part."""
        by_hex, parts = self._parts()
        self._release(parts)
        self._plan_moves(parts)
        return self._realise(by_hex, parts)

    def _parts(self):
        state = self.state
        by_hex: dict[Coord, list] = {}
        for f in self.my_fleets:
            by_hex.setdefault(f.coord, []).append(f)
        parts: list[dict] = []  # {"ships": [...], "coord": c, "role": str}
        wanted = self._scouts_wanted()
        scouts_out = sum(1 for f in self.my_fleets if self._is_scout(f) and f.coord != self.home)
        for coord in sorted(by_hex, key=lambda c: (c[1], c[0])):
            fleets = by_hex[coord]
            pool = [s for f in fleets for s in f.ships]
            if coord == self.home:
                guard = self._guard(pool)
                if guard:
                    parts.append({"ships": guard, "coord": coord, "role": "guard"})
                pool = [s for s in pool if s not in guard]
                scouts = []
                for s in sorted(pool):
                    ship = self.ships[s]
                    if scouts_out < wanted and not ship.hero_crew and \
                            state.ship_type(ship) is not ShipType.STAR_CRUISER:
                        scouts.append(s)
                        scouts_out += 1
                for s in scouts:
                    parts.append({"ships": [s], "coord": coord, "role": "scout"})
                pool = [s for s in pool if s not in scouts]
                if pool:
                    parts.append({"ships": pool, "coord": coord, "role": "army", "home": True})
                continue
            singles = [f for f in fleets if self._is_scout(f)]
            if len(fleets) == 1 and singles and wanted:
                parts.append({"ships": list(pool), "coord": coord, "role": "scout"})
                continue
            if len(fleets) > 1 and singles and wanted:
                # Scouts that meet stay scouts (each rolls for a neutral world on its own).
                for f in singles:
                    parts.append({"ships": list(f.ships), "coord": coord, "role": "scout"})
                pool = [s for f in fleets if f not in singles for s in f.ships]
                if not pool:
                    continue
            parts.append({"ships": pool, "coord": coord, "role": "army"})
        return by_hex, parts

    def _release(self, parts: list[dict]) -> None:
        """Army ships beyond what the war needs (twice every enemy ship's BP) become lone
        scouts while neutral worlds are left: each rolls for a world of its own."""
        if not self.neutral:
            return
        army = [p for p in parts if p["role"] == "army"]
        total = sum(self._bp(p["ships"]) for p in army)
        excess = total - self.army_need
        room = len(self.neutral) - sum(1 for p in parts if p["role"] == "scout")
        if excess <= 0 or room <= 0:
            return
        held = list(self.held)

        def safety(p: dict) -> int:
            return min((self._dist(p["coord"], c) for c in held), default=1 << 20)

        state = self.state
        for p in sorted(army, key=lambda p: (-safety(p), p["coord"][1], p["coord"][0])):
            order = sorted(p["ships"], key=lambda s: (state.ship_bp(self.ships[s]), s))
            for s in order:
                if excess <= 0 or room <= 0:
                    break
                if state.ship_type(self.ships[s]) is ShipType.STAR_CRUISER:
                    continue
                p["ships"] = [x for x in p["ships"] if x != s]
                parts.append({"ships": [s], "coord": p["coord"], "role": "scout"})
                excess -= state.ship_bp(self.ships[s])
                room -= 1
        parts[:] = [p for p in parts if p["ships"]]

    def _guard(self, pool: list[int]) -> list[int]:
        """The ships that stay at the home world: as strong as the enemy ships near it, and at
        least one ship once the enemy is near; slow, strong ships first."""
        if not pool:
            return []
        threat = sum(bp for c, bp in self.enemy_bp.items() if self._dist(c, self.home) <= GUARD_RADIUS)
        need = max(1 if self.contact else 0, threat)
        order = sorted(pool, key=lambda s: (self._speed([s]), -self.state.ship_bp(self.ships[s]), s))
        guard, total = [], 0
        for s in order:
            if total >= need:
                break
            guard.append(s)
            total += self.state.ship_bp(self.ships[s])
        return guard

    def _plan_moves(self, parts: list[dict]) -> None:
        """Give every part a destination path (``path``; empty to stay)."""
        for p in parts:
            p["path"] = []
            p["speed"] = self._speed(p["ships"])
        army = [p for p in parts if p["role"] == "army"]
        scouts = [p for p in parts if p["role"] == "scout"]
        self.extra_parts: list[dict] = []  # ships split off to block a retreat
        # Scouts first: any that find nothing to do join the army.
        claimed: set[Coord] = set()
        for p in sorted(scouts, key=lambda p: (p["coord"][1], p["coord"][0], p["ships"][0])):
            if not self._scout(p, claimed):
                p["role"] = "army"
                army.append(p)
        self._army(army + [p for p in parts if p["role"] == "guard"])
        parts.extend(self.extra_parts)
        parts[:] = [p for p in parts if p["ships"]]

    def _scout(self, part: dict, claimed: set[Coord]) -> bool:
        here, speed = part["coord"], part["speed"]
        if speed <= 0:
            return True
        if here in self.neutral and here not in claimed and here not in self.enemy_bp:
            claimed.add(here)  # stay and keep rolling for the world (003 Neutral Planets/Colonies)
            return True
        graph = self.graph
        # The nearest neutral world nobody has claimed, the purpose's kind first (003 Purpose of
        # the Campaign: colonies for Land Grab, planets otherwise) unless the other is much nearer.
        prefer = WorldKind.COLONY if self.state.purpose == PURPOSE_LAND_GRAB else WorldKind.PLANET
        found: dict[str, tuple[int, int]] = {}

        def goal(i: int, cost: int) -> bool:
            c = graph.coords[i]
            w = self.neutral.get(c)
            if w is not None and c not in claimed and c not in self.held:
                kind = "prefer" if w.kind is prefer else "other"
                found.setdefault(kind, (cost, i))
                if kind == "prefer":
                    return True
            return "other" in found and cost > found["other"][0] + PREFER_BONUS

        search = _Search(graph, graph.index(here), self.held_idx, None, goal)
        if "prefer" in found and ("other" not in found or found["prefer"][0] <= found["other"][0] + PREFER_BONUS):
            target = found["prefer"][1]
        elif "other" in found:
            target = found["other"][1]
        else:
            return self._raid(part, claimed)
        claimed.add(graph.coords[target])
        part["path"] = search.path(target, speed)
        return True

    def _raid(self, part: dict, claimed: set[Coord]) -> bool:
        """With no neutral world left to claim: an enemy-held hex a lone ship can take."""
        here, speed = part["coord"], part["speed"]
        graph = self.graph
        near = self._search(here, speed)
        side = self._side(part["ships"])
        raids = []
        for i in near.cost:
            c = graph.coords[i]
            if c == here or c not in self.held or c in claimed:
                continue
            if win_chance(side, self._defender(c)) >= RAID_ODDS:
                raids.append((-self._value(c), near.cost[i], c[1], c[0], i))
        if not raids:
            return False
        target = min(raids)[-1]
        claimed.add(graph.coords[target])
        part["path"] = near.path(target, speed)
        return True

    def _army(self, army: list[dict]) -> None:
        """Garrisons and attacks for this turn, then gathering on the main army, advancing."""
        if not army:
            return
        graph = self.graph
        reach: dict[int, dict[Coord, int]] = {}
        for n, p in enumerate(army):
            p["n"] = n
            if p["speed"] <= 0:
                reach[n] = {}
                continue
            s = self._search(p["coord"], p["speed"])
            reach[n] = {graph.coords[i]: i for i in s.cost if i != s.start}
        assigned: set[int] = set()

        def send(p: dict, cell: Coord, why: str) -> None:
            assigned.add(p["n"])
            p["path"] = self._search(p["coord"], p["speed"]).path(reach[p["n"]][cell], p["speed"])
            p[why] = p["goal"] = cell

        self._intercept(army, assigned, reach, send, key=True)
        if self.state.purpose == PURPOSE_TRADE:
            self._siege(army, assigned, reach, send)
        # An enemy fleet about to strike elsewhere will not be where it is now: its world is
        # left to a small force, and our army meets it where it is going (``_intercept``).
        moving = {c for _, c, _, _ in self.strikes}
        leaving = moving - set(self.enemy_worlds)
        spared = self._spared()
        targets = sorted({c for r in reach.values() for c in r
                          if c in self.held and c not in leaving and c not in spared},
                         key=lambda c: (-self._value(c), c[1], c[0]))
        for t in targets:
            near_home = self.home is not None and t in self.enemy_bp and self._dist(t, self.home) <= GUARD_RADIUS
            avail = sorted((p for p in army if p["n"] not in assigned and t in reach[p["n"]]
                            and (p["role"] != "guard" or near_home)),
                           key=lambda p: (-self._bp(p["ships"]), p["n"]))
            if not avail:
                continue
            defender = self._defender(t)
            if t in moving:
                defender = Side(0, has_defences=defender.has_defences)
            need = ATTACK_ODDS if defender.bp > 0 else RAID_ODDS
            chosen, chance = self._strike_force(avail, defender, need)
            if any(p["role"] == "guard" for p in chosen):
                need = max(need, GUARD_SORTIE_ODDS)  # the home guard leaves only to win
            if chance < need:
                continue
            plan = self._encircle(t, army, chosen, defender, need, assigned, reach) \
                if t in self.enemy_bp and t not in moving else None
            if plan is None and self._siege_worthy(t) and all(self._dist(p["coord"], t) > 1 for p in chosen):
                # Not yet close enough to close every way out: close in this turn, strike next.
                for p in chosen:
                    self._close_in(p, t, reach, assigned)
                continue
            for p in chosen:
                send(p, t, "attack")
            if plan:
                self._block(plan, chosen, assigned, reach)
        self._intercept(army, assigned, reach, send, key=False)
        self._gather(army, assigned)

    def _strike_force(self, avail: list[dict], defender: Side, need: float) -> tuple[list[dict], float]:
        """The groups to send (``avail`` is strongest first): the smallest one that wins alone
        with good odds, else the strongest few together."""
        if defender.bp == 0:
            # Defences alone: one die against the attacker's minimum one (docs/rulings.md A2), more
            # ships add nothing but a Star Cruiser's extra die; the smallest group with the best odds.
            best = max(avail, key=lambda p: (round(win_chance(self._side(p["ships"]), defender), 6),
                                             -self._bp(p["ships"]), -p["n"]))
            return [best], win_chance(self._side(best["ships"]), defender)
        sure = max(need, 0.9)
        for p in reversed(avail):
            chance = win_chance(self._side(p["ships"]), defender)
            if chance >= sure:
                return [p], chance
        chosen, ships, chance = [], [], 0.0
        for p in avail:
            chosen.append(p)
            ships += p["ships"]
            chance = win_chance(self._side(ships), defender)
            if chance >= sure:
                break
        return chosen, chance

    def _siege_worthy(self, t: Coord) -> bool:
        """An enemy fleet worth destroying whole, sitting on a world of its own (so likely to
        stay there another turn)."""
        return self.enemy_bp.get(t, 0) >= KILL_BP and self.enemy_worlds.get(t) == self._fleet_owner(t)

    def _close_in(self, p: dict, t: Coord, reach: dict, assigned: set[int]) -> None:
        graph = self.graph
        s = self._search(p["coord"], p["speed"])
        best = None
        for n in graph.adj[graph.index(t)]:
            c = graph.coords[n]
            if c in self.held or (c not in reach[p["n"]] and c != p["coord"]):
                continue
            cost = 0 if c == p["coord"] else s.cost[n]
            if best is None or (cost, c[1], c[0]) < best[0]:
                best = ((cost, c[1], c[0]), c)
        assigned.add(p["n"])
        p["goal"] = t
        if best is not None and best[1] != p["coord"]:
            p["path"] = s.path(graph.index(best[1]), p["speed"])

    @cached_property
    def strikes(self) -> list[tuple[Side, Coord, Coord, int]]:
        """The attacks the enemy's fleets near us can make this turn, as a computer player in
        their seat would choose them (the whole position is open to every player): for each
        enemy group outside its home world, its strength, where it is, the hex it would strike
        and its seat."""
        out = []
        for enemy in sorted(self.enemies):
            groups: dict[Coord, list[int]] = {}
            for f in self.enemy_fleets_of.get(enemy, []):
                if f.coord in self.near_me:
                    groups.setdefault(f.coord, []).extend(f.ships)
            groups = {c: ships for c, ships in groups.items() if self._bp(ships) >= 100}
            if not groups:
                continue
            other = _Bot(self.state, enemy, self.names)
            graph = self.graph
            for coord, ships in sorted(groups.items(), key=lambda t: (t[0][1], t[0][0])):
                if coord == other.home:
                    continue  # its home guard stays
                speed = self._speed(ships)
                if speed <= 0:
                    continue
                side = self._side(ships)
                s = other._search(coord, speed)
                cells = sorted((graph.coords[i] for i in s.cost if i != s.start and graph.coords[i] in other.held),
                               key=lambda c: (-other._value(c), c[1], c[0]))
                for c in cells:
                    defender = other._defender(c)
                    if win_chance(side, defender) >= (ATTACK_ODDS if defender.bp > 0 else RAID_ODDS):
                        out.append((side, coord, c, enemy))
                        break
        return out

    def _intercept(self, army: list[dict], assigned: set[int], reach: dict, send, key: bool) -> None:
        """Meet enemy strikes at their targets among our hexes with enough ships to win there
        (``key``: only the one at our home world; else the others)."""
        for enemy, _, target, _ in sorted(self.strikes, key=lambda t: (-t[0].bp, t[2][1], t[2][0])):
            if target in self.held or (target == self.home) is not key:
                continue  # a strike at another empire is none of our business
            if self.dominant and not key:
                continue  # far ahead: the army stays together and finishes the job
            avail = sorted((p for p in army if p["n"] not in assigned
                            and (p["coord"] == target or target in reach[p["n"]] and p["role"] != "guard")),
                           key=lambda p: (-self._bp(p["ships"]), p["n"]))

            def holds(ships: list[int], target: Coord = target, enemy: Side = enemy) -> float:
                ours = self._side(ships)
                ours = Side(ours.bp, ours.has_star_cruiser, ours.has_destroyer, target in self.defended)
                return 1.0 - win_chance(enemy, ours)

            # The smallest group that holds the hex with good odds, else the strongest together.
            chosen = next(([p] for p in reversed(avail) if holds(p["ships"]) >= 0.9), None)
            if chosen is None:
                chosen, ships = [], []
                for p in avail:
                    chosen.append(p)
                    ships += p["ships"]
                    if holds(ships) >= 0.9:
                        break
            if not chosen or holds([x for p in chosen for x in p["ships"]]) < ATTACK_ODDS:
                continue
            for p in chosen:
                if p["coord"] == target:
                    assigned.add(p["n"])
                    p["goal"] = target
                else:
                    send(p, target, "intercept")

    def _besieged(self) -> dict[Coord, int]:
        """Trade War (003 Purpose of the Campaign: 5): the enemy home worlds that still have
        trade routes to interdict, each with its owner."""
        if self.state.purpose != PURPOSE_TRADE:
            return {}
        out = {}
        for home, enemy in self.enemy_homes.items():
            if any(o == enemy and c != home for c, o in self.enemy_worlds.items()):
                out[home] = enemy
        return out

    def _spared(self) -> set[Coord]:
        """Enemy home worlds not to capture: in a Trade War a captured home world has no routes
        left to interdict (docs/rulings.md T8, V7), so its owner could only be beaten by
        destroying every last ship."""
        return set(self._besieged())

    def _siege(self, army: list[dict], assigned: set[int], reach: dict, send) -> None:
        """Trade War: a fleet of two or more ships on every cell next to an enemy home world
        interdicts every trade route leading directly to it (003 Trade Routes: "If an enemy
        fleet (not ship) occupies a hex through which your trade route passes"; docs/rulings.md
        T6, T8). Each post is made strong enough that the home's defenders would not attack it;
        the ships for it are split off the groups that can reach it this turn."""
        graph = self.graph
        for home in sorted(self._besieged(), key=lambda c: (c[1], c[0])):
            inside = Side(self.enemy_bp.get(home, 0), home in self.enemy_cruiser, home in self.enemy_destroyer,
                          home in self.enemy_defences)

            def holds(ships: list[int], inside: Side = inside) -> bool:
                return len(ships) >= 2 and (inside.bp == 0 or win_chance(inside, self._side(ships)) < ATTACK_ODDS)

            for n in graph.adj[graph.index(home)]:
                post = graph.coords[n]
                if post in self.enemy_bp or (post in self.held and post not in self.enemy_worlds):
                    continue  # enemy ships there: the attack step deals with them
                ships: list[int] = []
                for p in army:
                    if p["n"] not in assigned and p["coord"] == post and p["role"] != "guard":
                        assigned.add(p["n"])
                        p["goal"] = post
                        ships += p["ships"]
                donors = sorted((p for p in army if p["n"] not in assigned and p["role"] != "guard"
                                 and post in reach[p["n"]]), key=lambda p: (-len(p["ships"]), p["n"]))
                for p in donors:
                    if holds(ships):
                        break
                    taken = []
                    for sid in sorted(p["ships"], key=lambda x: (self.state.ship_bp(self.ships[x]), x)):
                        if holds(ships + taken) or len(taken) == len(p["ships"]) - 1:
                            break
                        taken.append(sid)
                    if not holds(ships + taken):
                        taken = list(p["ships"])
                    path = self._search(p["coord"], p["speed"]).path(reach[p["n"]][post], p["speed"])
                    if len(taken) == len(p["ships"]):
                        send(p, post, "siege")
                    else:
                        p["ships"] = [x for x in p["ships"] if x not in taken]
                        self.extra_parts.append({"ships": taken, "coord": p["coord"], "role": "army",
                                                 "path": path, "speed": p["speed"], "goal": post, "siege": post})
                    ships += taken

    def _critical(self) -> set[Coord]:
        """Our cells whose loss would give an enemy what stops us winning (003 Purpose of the
        Campaign): colonies for Land Grab, planets for Total Annihilation, dockyard worlds for
        Power Projection; and the home world always (its loss cuts off all income)."""
        purpose = self.state.purpose
        cells = {self.home} if self.home is not None else set()
        for w in self.my_worlds:
            if purpose == PURPOSE_LAND_GRAB and w.kind is WorldKind.COLONY:
                cells.add(w.coord)
            elif purpose == PURPOSE_ANNIHILATION and w.kind is WorldKind.PLANET:
                cells.add(w.coord)
        if purpose == PURPOSE_POWER:
            cells |= {d.coord for d in self.docks}
        return cells

    @cached_property
    def dangers(self) -> dict[Coord, Side]:
        """For each cell of ours an enemy group could enter this turn, the enemy ships that
        could (all of them together, as a bot's attack would gather them)."""
        graph = self.graph
        out: dict[Coord, list[int]] = {}
        held_by: dict[int, set[int]] = {}
        for f in self.state.fleets:
            if f.owner in self.enemies and f.coord in self.near_me:
                held_by.setdefault(f.owner, set())
        for enemy in held_by:
            theirs = {graph.index(f.coord) for f in self.state.fleets if f.owner not in (enemy,)}
            theirs |= {graph.index(w.coord) for w in self.state.worlds if w.owner not in (None, enemy)}
            held_by[enemy] = theirs
        for f in self.state.fleets:
            if f.owner not in held_by or f.coord not in self.near_me or self._bp(f.ships) < 100:
                continue
            speed = self._speed(f.ships)
            if speed <= 0:
                continue
            s = _Search(graph, graph.index(f.coord), held_by[f.owner], speed)
            for i in s.cost:
                c = graph.coords[i]
                if i != s.start and self.near_me.get(c) == 0:
                    out.setdefault(c, []).extend(f.ships)
        return {c: self._side(ships) for c, ships in out.items()}

    def _encircle(self, t: Coord, army: list[dict], attackers: list[dict], defender: Side, need: float,
                  assigned: set[int], reach: dict):
        """Blockers for every way out of ``t``, so that the enemy fleet there, beaten, has
        nowhere to retreat and is destroyed (003 Result of a Tactical Battle: "must retreat one
        full map move"; docs/rulings.md C11): the cheapest ships of groups that can reach each
        neighbouring cell this turn, the attack keeping its odds. None if it cannot be done."""
        graph = self.graph
        owner = self._fleet_owner(t)
        others = {f.coord for f in self.state.fleets if f.owner not in (owner, self.seat)}
        holes = []
        for n in graph.adj[graph.index(t)]:
            c = graph.coords[n]
            if c in others:
                continue  # another empire's ships already bar the way
            if c in self.enemy_bp:
                return None  # the enemy's own ships there: no encirclement this turn
            holes.append(c)
        spare = {id(p): list(p["ships"]) for p in army}
        plan = []
        for c in holes:
            best = None
            for p in army:
                if (p["n"] in assigned and p not in attackers) or not (p["coord"] == c or c in reach[p["n"]]) \
                        or p["role"] == "guard":
                    continue
                for sid in spare[id(p)]:
                    if len(spare[id(p)]) == 1 and p in attackers:
                        continue
                    key = (self.state.ship_bp(self.ships[sid]), sid)
                    if best is None or key < best[0]:
                        best = (key, p, sid)
            if best is None:
                return None
            _, p, sid = best
            spare[id(p)].remove(sid)
            plan.append((c, p, sid))
        left = [x for p in attackers for x in spare[id(p)]]
        if not left or win_chance(self._side(left), defender) < need:
            return None
        return plan

    def _block(self, plan: list, attackers: list[dict], assigned: set[int], reach: dict) -> None:
        for c, p, sid in plan:
            p["ships"] = [x for x in p["ships"] if x != sid]
            path = [] if p["coord"] == c else \
                self._search(p["coord"], p["speed"]).path(reach[p["n"]][c], p["speed"])
            self.extra_parts.append({"ships": [sid], "coord": p["coord"], "role": "army", "path": path,
                                     "speed": p["speed"], "goal": c, "block": c})
            if p not in attackers and p["n"] not in assigned:
                assigned.add(p["n"])
                p["goal"] = p["coord"]

    def _gather(self, army: list[dict], assigned: set[int]) -> None:
        """The main army (the strongest group not already busy) closes in on the objective;
        other groups hunt what they can beat alone or gather on the main army."""
        graph = self.graph
        army = [p for p in army if p["role"] != "guard"]
        free = [p for p in army if p["n"] not in assigned]
        if not free:
            return
        attacking = [p for p in army if p["n"] in assigned]
        main = max(free, key=lambda p: (self._bp(p["ships"]), -p["n"]))
        objective = self._objective(main["coord"])
        total = self._bp([s for p in army for s in p["ships"]])
        gather = main["coord"]
        if objective is not None and main["speed"] > 0:
            s = self._search(main["coord"])
            oi = graph.index(objective)
            if oi not in s.cost:
                # Walled off by enemy-held hexes: plan through them; the first one on the way is
                # attacked if the main army can beat it, else it stops short of it.
                s = _Search(graph, graph.index(main["coord"]), self.held_idx, through=THROUGH_COST)
            if oi in s.cost:
                strong = win_chance(self._side([x for p in army for x in p["ships"]]), self._defender(objective))
                ready = self._bp(main["ships"]) >= 0.6 * total and strong >= ATTACK_ODDS
                cells = s.path(oi, 1 << 20)
                wall = next((k for k, c in enumerate(cells) if c in self.held), len(cells))
                blocker = cells[wall] if wall < len(cells) and cells[wall] != objective else None
                cells = cells[:wall]
                if not ready:
                    near = next((k for k, c in enumerate(cells) if self._dist(c, objective) < STAGING_DISTANCE),
                                len(cells))
                    cells = cells[:near]
                elif blocker is not None and s.steps[graph.index(blocker)] <= main["speed"]:
                    defender = self._defender(blocker)
                    if win_chance(self._side(main["ships"]), defender) >= (
                            ATTACK_ODDS if defender.bp > 0 else RAID_ODDS):
                        cells.append(blocker)
                if cells:
                    # Cut to one turn's move by the search's step counts (jumps cost nothing).
                    main["path"] = [c for c in cells if s.steps[graph.index(c)] <= main["speed"]]
                    gather = cells[-1] if cells[-1] not in self.held else (cells[:-1] or [main["coord"]])[-1]
        elif attacking:
            gather = max(attacking, key=lambda p: self._bp(p["ships"]))["goal"]
        # Groups strong enough on their own go for the best target within a few turns; the rest
        # head for the gathering point (home parts only when enough have gathered).
        for p in free:
            if p is not main and p["speed"] > 0 and not (p.get("home") and len(p["ships"]) < REINFORCE_MIN) \
                    and not self.dominant:
                self._hunt(p)
        gi = graph.index(gather)
        worm = set(graph.wormholes)
        toward = _Search(graph, gi, self.held_idx, through=THROUGH_COST) if free else None
        for p in free:
            if p is main or p["speed"] <= 0 or p.get("hunting"):
                continue
            if p.get("home") and len(p["ships"]) < REINFORCE_MIN and total > self._bp(p["ships"]):
                continue
            start = graph.index(p["coord"])
            if start not in toward.cost or start == gi:
                continue
            path = []
            cell, steps = start, 0
            while cell != gi:
                nxt = toward.parent.get(cell)
                if nxt is None:
                    break
                if nxt != gi and nxt in self.held_idx:
                    break
                steps += 0 if (cell in worm and nxt in worm) else 1
                if steps > p["speed"]:
                    break
                if nxt == gi and graph.coords[nxt] in self.held:
                    break
                path.append(graph.coords[nxt])
                cell = nxt
            p["path"] = path

    def _hunt(self, p: dict) -> None:
        """Send a group at the best enemy-held cell it can beat alone within three moves."""
        graph = self.graph
        s = self._search(p["coord"], 3 * p["speed"])
        side = self._side(p["ships"])
        best = None
        for i, cost in s.cost.items():
            c = graph.coords[i]
            if i == s.start or c not in self.held:
                continue
            defender = self._defender(c)
            need = ATTACK_ODDS if defender.bp > 0 else RAID_ODDS
            if win_chance(side, defender) < need:
                continue
            key = (-(self._value(c) - 2 * cost), c[1], c[0], i)
            if best is None or key < best:
                best = key
        if best is None:
            return
        path = [c for c in s.path(best[-1], p["speed"]) if c not in self.held]
        if path:
            p["path"] = path
            p["hunting"] = True

    # --- turning parts into split, merge and move orders ---
    def _realise(self, by_hex: dict, parts: list[dict]):
        splits, merges, moves = [], [], []
        for coord, fleets in sorted(by_hex.items(), key=lambda t: (t[0][1], t[0][0])):
            here = [p for p in parts if p["coord"] == coord]
            part_of = {s: n for n, p in enumerate(here) for s in p["ships"]}
            pieces: dict[int, list] = {n: [] for n in range(len(here))}
            for f in sorted(fleets, key=lambda f: f.id):
                groups: dict[int, list[int]] = {}
                for s in f.ships:
                    groups.setdefault(part_of[s], []).append(s)
                keep = max(groups, key=lambda n: (len(groups[n]), -n))
                pieces[keep].append(f.id)
                for n, ships in sorted(groups.items()):
                    if n == keep:
                        continue
                    label = f"p{coord[0]}_{coord[1]}_{n}_{f.id}"
                    splits.append({"fleet": f.id, "ships": ships, "as": label})
                    pieces[n].append(label)
            for n, p in enumerate(here):
                ids = [x for x in pieces[n] if isinstance(x, int)]
                if len(ids) > 1:
                    merges.append({"fleets": ids})
                    movers = [ids[0]] + [x for x in pieces[n] if isinstance(x, str)]
                else:
                    movers = pieces[n]
                if p["path"]:
                    for m in movers:
                        moves.append({"fleet": m, "path": [list(c) for c in p["path"]]})
        return splits, merges, moves
