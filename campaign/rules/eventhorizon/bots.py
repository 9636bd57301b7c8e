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
RESERVE_AFTER_NAVY = 0


def _bfs(state: CampaignState, start: Coord, blocked: set[Coord]) -> dict[Coord, Coord | None]:
    grid = state.grid
    parents: dict[Coord, Coord | None] = {start: None}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for nxt in grid.neighbours(here):
            if nxt in parents or state.terrain_at(nxt) is Terrain.BLACK_HOLE:
                continue
            parents[nxt] = here
            if nxt not in blocked:
                queue.append(nxt)
    return parents


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
    ships = sum(1 for s in state.ships if s.owner == seat) + sum(1 for b in state.builds if b.owner == seat)
    # Quick, cheap ships first to claim neutral worlds; the strongest affordable ones after.
    if ships < 4:
        buildable.sort(key=lambda t: (t[0], -t[1], t[2]))
    else:
        buildable.sort(key=lambda t: (-t[1], t[0], t[2]))
    for dock in sorted((s for s in mine if s.resource is eh.Resource.DOCKYARD), key=lambda s: s.id):
        if dock.id in busy:
            continue
        choice = next((name for _, cost, name in buildable if cost <= bp), None)
        if choice is None:
            break
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
        # Spare BP become dockyards on planets without one, nearest home first, so income
        # turns into ships ("Multiple dockyards … are permissible").
        docked = {s.coord for s in mine if s.resource is eh.Resource.DOCKYARD}
        planets = sorted((w.coord for w in state.worlds if w.owner == seat and w.coord not in docked
                          and w.coord != home and w.kind.value == "planet"),
                         key=lambda c: (state.grid.distance(home, c), c))
        for coord in planets:
            if bp < 120 + 80:
                break
            purchases.append({"buy": eh.Resource.DOCKYARD.value, "at": list(coord)})
            bp -= 120
    return purchases


def _regroup(state: CampaignState, seat: int):
    """Keep one ship at home as its guard and send the rest out; gather fleets elsewhere."""
    home = next((w.coord for w in state.worlds if w.home_of == seat and w.owner == seat), None)
    fleets = {f.id: f for f in state.fleets if f.owner == seat}
    splits, merges = [], []
    at_home = sorted((f for f in fleets.values() if f.coord == home), key=lambda f: f.id)
    if at_home and len(at_home[0].ships) > 1:
        guard = at_home[0]
        splits.append({"fleet": guard.id, "ships": list(guard.ships[1:]), "as": "sortie"})
    by_hex: dict[Coord, list[int]] = {}
    for fleet in fleets.values():
        if fleet.coord != home:
            by_hex.setdefault(fleet.coord, []).append(fleet.id)
    for _, ids in sorted(by_hex.items()):
        if len(ids) > 1:
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


def _moves(state: CampaignState, seat: int, fleets: dict) -> list[dict]:
    home = next((w.coord for w in state.worlds if w.home_of == seat and w.owner == seat), None)
    enemy_strength: dict[Coord, int] = {}
    for fleet in state.fleets:
        if fleet.owner != seat:
            enemy_strength[fleet.coord] = enemy_strength.get(fleet.coord, 0) + _strength(state, fleet.ships)
    enemy_worlds = {w.coord for w in state.worlds if w.owner not in (None, seat)}
    neutral = {w.coord for w in state.worlds if w.owner is None}
    blocked = set(enemy_strength) | enemy_worlds
    claimed: set[Coord] = set()
    moves = []
    guard_left = False
    for fleet in sorted(fleets.values(), key=lambda f: (-len(f.ships), str(f.id))):
        if fleet.coord == home and not guard_left and fleet.id != "sortie":
            guard_left = True  # the first fleet at home stays as the home guard
            continue
        speed = fleet_speed(state, fleet.ships)
        if speed <= 0:
            continue
        parents = _bfs(state, fleet.coord, blocked)
        power = _strength(state, fleet.ships)
        target = None
        enemies = sorted((c for c in blocked if c in parents), key=lambda c: (len(_path_to(parents, c)), c))
        # Attack a clearly weaker enemy nearby; big fleets hunt at any distance.
        reach = 2 * speed if len(fleet.ships) < 3 else 10_000
        for cell in enemies:
            if len(_path_to(parents, cell)) > reach:
                break
            if power >= ATTACK_RATIO * max(enemy_strength.get(cell, 0), 1):
                target = cell
                break
        if target is None:
            if fleet.coord in neutral and fleet.coord not in claimed:
                claimed.add(fleet.coord)  # stay and keep rolling for the world
                continue
            options = [c for c in neutral if c in parents and c not in claimed and c != fleet.coord]
            if options:
                target = min(options, key=lambda c: (len(_path_to(parents, c)), c))
            elif enemies:
                # Nothing left to claim: go for the weakest enemy within reach of the map.
                target = min(enemies, key=lambda c: (enemy_strength.get(c, 0), len(_path_to(parents, c)), c))
        if target is None:
            continue
        claimed.add(target)
        path = _path_to(parents, target)[:speed]
        # Never stop short on a cell that is another fleet's target or an enemy hex mid-path.
        if path:
            moves.append({"fleet": fleet.id, "path": [list(c) for c in path]})
    return moves
