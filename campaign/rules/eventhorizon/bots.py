"""Computer players for Event Horizon campaigns: a simple, sensible strategy that writes the
same orders a person would (pure Python, deterministic, no dice — bots' choices are not rolls).

Each turn a bot:
- builds at every idle dockyard the strongest library design it can afford and may build
  (research gating respected), keeping a small reserve once it has a navy;
- buys planetary defences at home, then a Diplomatic Corps, when it has BP to spare;
- keeps a home guard: the fleet at its home world stays while it is the only one there;
- sends other fleets to the nearest neutral world no other of its fleets is heading for
  (expansion), or, when a neighbour's fleet or world nearby is clearly weaker than the fleet,
  attacks it;
- merges fleets that share a hex, so strength gathers.
Orders are checked with ``validate_orders``; anything refused is dropped, so a bot never submits
invalid orders.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from ..grid import Coord
from . import economy as eh
from .mapgen import Terrain
from .orders import NO_ORDERS, OrderError, Orders, fleet_speed, parse_orders, validate_orders
from .state import CampaignState, FleetState

ATTACK_RATIO = 1.5  # attack only with a clear edge (003 Alternative to a Tactical Battle odds)
STRIKE_SIZE = 3  # ships that gather at home before they sortie together
MAX_SCOUTS = 6  # lone ships out claiming neutral worlds; the rest gather to strike
DOCKYARD_EVERY = 3  # one dockyard per this many worlds owned: enough to spend, not a swarm
RESERVE_AFTER_NAVY = 0


def _bfs(state: CampaignState, start: Coord, blocked: set[Coord]):
    """Shortest paths from ``start`` (no black holes; enemy-held cells end a path)."""
    grid = state.grid
    parents: dict[Coord, Coord | None] = {start: None}
    depth = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for nxt in grid.neighbours(here):
            if nxt in parents or state.terrain_at(nxt) is Terrain.BLACK_HOLE:
                continue
            parents[nxt] = here
            depth[nxt] = depth[here] + 1
            if nxt not in blocked:
                queue.append(nxt)
    return parents, depth


def _path_to(parents: dict[Coord, Coord | None], target: Coord) -> list[Coord]:
    path = []
    cell: Coord | None = target
    while cell is not None and parents.get(cell) is not None:
        path.append(cell)
        cell = parents[cell]
    return list(reversed(path))


def _strength(state: CampaignState, ship_ids) -> int:
    ships = state.ship_index()
    return sum(state.ship_bp(ships[s]) for s in ship_ids)


def bot_orders(state: CampaignState, seat: int, design_names: Mapping[str, int]) -> Orders:
    """The orders of the computer player in ``seat`` for this turn."""
    empire = state.empire(seat)
    if empire.eliminated or state.finished:
        return NO_ORDERS
    raw: dict = {"purchases": _purchases(state, seat, design_names)}
    splits, merges, fleets = _regroup(state, seat)
    if splits:
        raw["split"] = splits
    if merges:
        raw["merge"] = merges
    raw["moves"] = _moves(state, seat, fleets)
    return _valid(state, seat, raw, design_names)


def _valid(state: CampaignState, seat: int, raw: dict, design_names: Mapping[str, int]) -> Orders:
    # Drop the parts that fail, most specific first, so a bot's orders are always accepted.
    for attempt in (raw, {**raw, "moves": []}, {k: v for k, v in raw.items() if k != "purchases"}, {}):
        try:
            orders = parse_orders(attempt)
            validate_orders(state, seat, orders, design_names)
            return orders
        except OrderError:
            continue
    return NO_ORDERS


def _purchases(state: CampaignState, seat: int, design_names: Mapping[str, int]) -> list[dict]:
    empire = state.empire(seat)
    bp = empire.bp
    purchases: list[dict] = []
    busy = {b.dockyard for b in state.builds}
    mine = [s for s in state.structures if s.owner == seat]
    home = next((w.coord for w in state.worlds if w.home_of == seat and w.owner == seat), None)
    buildable = []
    for name, design_id in design_names.items():
        design = state.designs[design_id]
        if design.ship_type.category == "military" and design.technologies_required <= empire.technologies:
            buildable.append((design.ship_type.build_time, design.bp, name))
    # Quick, cheap ships claim worlds and make up the numbers; the home dockyard builds the
    # strongest ship it can (a Star Cruiser earns an extra die: 003 Force Multipliers).
    fast = sorted(buildable, key=lambda t: (t[0], -t[1], t[2]))
    strong = sorted(buildable, key=lambda t: (-t[1], t[0], t[2]))
    for dock in sorted((s for s in mine if s.resource is eh.Resource.DOCKYARD), key=lambda s: s.id):
        if dock.id in busy:
            continue
        ranked = strong if dock.coord == home and any(s.owner == seat for s in state.ships) else fast
        choice = next((name for _, cost, name in ranked if cost <= bp), None)
        if choice is None:
            continue
        purchases.append({"build": choice, "dockyard": dock.id})
        bp -= state.designs[design_names[choice]].bp
    if home is not None:
        have = {s.resource for s in mine}
        # One resource per world per turn (003 Use of BP in a Campaign: Note).
        if eh.Resource.PLANETARY_DEFENCES not in have and bp >= 40 + 40:
            purchases.append({"buy": eh.Resource.PLANETARY_DEFENCES.value, "at": list(home)})
            bp -= 40
        elif eh.Resource.DIPLOMATIC_CORPS not in have and bp >= 60 + 40:
            purchases.append({"buy": eh.Resource.DIPLOMATIC_CORPS.value, "at": list(home)})
            bp -= 60
        # Spare BP become dockyards, on the worlds with fewest first (nearest home breaking
        # ties), so income turns into ships ("Multiple dockyards … are permissible").
        docks: dict[Coord, int] = {}
        for s_ in mine:
            if s_.resource is eh.Resource.DOCKYARD:
                docks[s_.coord] = docks.get(s_.coord, 0) + 1
        bought_at = {tuple(p["at"]) for p in purchases if "at" in p}
        owned = sorted((w.coord for w in state.worlds if w.owner == seat and w.coord not in bought_at),
                       key=lambda c: (docks.get(c, 0), state.grid.distance(home, c), c))
        allowed = max(1, sum(1 for w in state.worlds if w.owner == seat) // DOCKYARD_EVERY) - sum(docks.values())
        for coord in owned[:max(0, allowed)]:
            if bp < 120 + 60:
                break
            purchases.append({"buy": eh.Resource.DOCKYARD.value, "at": list(coord)})
            bp -= 120
    return purchases


def _neutral_left(state: CampaignState) -> bool:
    return any(w.owner is None for w in state.worlds)


def _regroup(state: CampaignState, seat: int):
    """Keep one ship at home as its guard and send the rest out; gather fleets elsewhere."""
    home = next((w.coord for w in state.worlds if w.home_of == seat and w.owner == seat), None)
    fleets = {f.id: f for f in state.fleets if f.owner == seat}
    splits, merges = [], []
    at_home = sorted((f for f in fleets.values() if f.coord == home), key=lambda f: f.id)
    scouts = sum(1 for f in fleets.values() if f.coord != home and len(f.ships) < STRIKE_SIZE)
    scouts_wanted = _neutral_left(state) and scouts < MAX_SCOUTS
    # Ships gather at home; the guard stays and the rest sortie together once there are
    # enough of them to strike (or one at a time while neutral worlds are left to claim).
    if at_home and (len(at_home[0].ships) > STRIKE_SIZE or (scouts_wanted and len(at_home[0].ships) > 1)):
        guard = at_home[0]
        splits.append({"fleet": guard.id, "ships": list(guard.ships[1:]), "as": "sortie"})
    by_hex: dict[Coord, list[int]] = {}
    for fleet in fleets.values():
        by_hex.setdefault(fleet.coord, []).append(fleet.id)
    for _, ids in sorted(by_hex.items()):
        if len(ids) > 1 and not (splits and at_home and at_home[0].id in ids):
            ids.sort()
            merges.append({"fleets": ids})
            first = fleets[ids[0]]
            fleets[first.id] = FleetState(first.id, seat, first.coord, tuple(s for fid in ids for s in fleets[fid].ships))
            for fid in ids[1:]:
                del fleets[fid]
    if splits:
        guard = at_home[0]
        fleets[guard.id] = FleetState(guard.id, seat, guard.coord, guard.ships[:1])
        fleets["sortie"] = FleetState("sortie", seat, guard.coord, guard.ships[1:])
    return splits, merges, fleets


def _purpose_targets(state: CampaignState, seat: int) -> set[Coord]:
    """Enemy-held cells whose capture advances the campaign's purpose (003 Purpose of the
    Campaign); fleets that can win there go for these first."""
    enemies = {w for w in state.active_seats() if w != seat}
    worlds = [w for w in state.worlds if w.owner in enemies]
    purpose = state.purpose
    if purpose == 1:  # Land Grab: colonies
        return {w.coord for w in worlds if w.kind.value == "colony"}
    if purpose == 2:  # Power Projection: dockyards, star gates, enriched planets
        kinds = {eh.Resource.DOCKYARD, eh.Resource.STAR_GATE, eh.Resource.ENRICHMENT}
        return {s.coord for s in state.structures if s.owner in enemies and s.resource in kinds}
    if purpose == 3:  # Open Battle: their fleets
        return {f.coord for f in state.fleets if f.owner in enemies}
    if purpose in (4, 5):  # Regime Change (and Trade War, whose routes all end at the home world)
        return {w.coord for w in worlds if w.home_of in enemies}
    return {w.coord for w in worlds if w.kind.value == "planet"}  # 6 Total Annihilation


def _moves(state: CampaignState, seat: int, fleets: dict) -> list[dict]:
    home = next((w.coord for w in state.worlds if w.home_of == seat and w.owner == seat), None)
    enemy_strength: dict[Coord, int] = {}
    for fleet in state.fleets:
        if fleet.owner != seat:
            enemy_strength[fleet.coord] = enemy_strength.get(fleet.coord, 0) + _strength(state, fleet.ships)
    enemy_worlds = {w.coord for w in state.worlds if w.owner not in (None, seat)}
    neutral = {w.coord for w in state.worlds if w.owner is None}
    if state.purpose == 1:
        # Land Grab: neutral colonies are the prize, so claim them before planets.
        neutral_rank = {w.coord: 0 if w.kind.value == "colony" else 1 for w in state.worlds if w.owner is None}
    else:
        neutral_rank = dict.fromkeys(neutral, 0)
    blocked = set(enemy_strength) | enemy_worlds
    goals = _purpose_targets(state, seat) or enemy_worlds
    origin = home or next((f.coord for f in fleets.values()), None)
    # One objective at a time, the purpose's target nearest home; strike fleets gather at the
    # staging world (the one of ours nearest the objective) and go in together.
    objective = min(goals, key=lambda c: (state.grid.distance(origin, c), c)) if goals and origin else None
    own = [w.coord for w in state.worlds if w.owner == seat] or ([origin] if origin else [])
    staging = min(own, key=lambda c: (state.grid.distance(c, objective), c)) if objective and own else None
    claimed: set[Coord] = set()
    moves = []
    guard_left = False
    searches: dict[Coord, tuple] = {}
    for fleet in sorted(fleets.values(), key=lambda f: (-len(f.ships), str(f.id))):
        if fleet.coord == home and not guard_left and fleet.id != "sortie":
            guard_left = True  # the first fleet at home stays as the home guard
            continue
        speed = fleet_speed(state, fleet.ships)
        if speed <= 0:
            continue
        if fleet.coord not in searches:
            searches[fleet.coord] = _bfs(state, fleet.coord, blocked)
        parents, depth = searches[fleet.coord]
        power = _strength(state, fleet.ships)

        def beatable(cell: Coord, ratio: float = ATTACK_RATIO, power: int = power) -> bool:
            return power >= ratio * max(enemy_strength.get(cell, 0), 1)

        target = None
        strike = len(fleet.ships) >= STRIKE_SIZE or not neutral
        if strike and objective is not None:
            front = objective if objective in depth else min(
                (c for c in blocked if c in depth), key=lambda c: (state.grid.distance(c, objective), depth[c], c),
                default=None)
            if front is not None and beatable(front):
                target = front
            elif staging is not None and fleet.coord != staging and staging in depth:
                target = staging  # not strong enough alone: gather with the others
            elif front is not None and fleet.coord == staging:
                continue  # wait at the staging world for more ships
        if target is None and not strike:
            near = [c for c in blocked if c in depth and depth[c] <= 2 * speed and beatable(c)]
            if near:
                target = min(near, key=lambda c: (c not in goals, depth[c], c))
            elif fleet.coord in neutral and fleet.coord not in claimed:
                claimed.add(fleet.coord)  # stay and keep rolling for the world
                continue
            else:
                options = [c for c in neutral if c in depth and c not in claimed and c != fleet.coord]
                if options:
                    target = min(options, key=lambda c: (neutral_rank[c], depth[c], c))
                elif home is not None and fleet.coord != home and home in depth:
                    target = home  # nothing to do alone: rally at home to strike together
        if target is None or target == fleet.coord:
            continue
        claimed.add(target)
        path = _path_to(parents, target)[:speed]
        if path:
            moves.append({"fleet": fleet.id, "path": [list(c) for c in path]})
    return moves
