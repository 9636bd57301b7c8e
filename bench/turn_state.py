"""Builds the large Event Horizon campaign state the turn benchmark uses (pure; no Django).

A 128×128 hex map from the real map engine, 8 players, each owning the planets and colonies
nearest its home world, and fleets of five ships placed on those worlds, with every fleet
ordered one or two hexes along a valid path.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

from campaign.rules.dice import SeededDice, derive_seed
from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS
from campaign.rules.eventhorizon.economy import STARTING_BP, Resource, WorldKind
from campaign.rules.eventhorizon.mapgen import Terrain, generate_map
from campaign.rules.eventhorizon.orders import Move, Orders
from campaign.rules.eventhorizon.state import (
    CampaignState,
    EmpireState,
    FleetState,
    ShipState,
    StructureState,
    WorldState,
)
from campaign.rules.grid import make_grid

SIZE = 128
PLAYERS = 8
SHIPS_PER_FLEET = 5
DESIGNS = {i + 1: d for i, d in enumerate(SAMPLE_DESIGNS)}
GALIOT, SAN_MARCO = 4, 1


def build(fleets: int = 400, worlds_per_player: int = 40, seed: str = "bench") -> tuple[CampaignState, dict]:
    grid = make_grid("hex", SIZE, SIZE)
    gmap = generate_map(grid, PLAYERS, SeededDice(derive_seed(seed)))
    owner: dict = {}
    for seat, home in enumerate(gmap.home_worlds, start=1):
        # The nearest worlds to each home, found outward by breadth-first search.
        seen, queue, taken = {home}, deque([home]), 0
        while queue and taken < worlds_per_player:
            cell = queue.popleft()
            if gmap.terrain_at(cell) in (Terrain.PLANET, Terrain.COLONY) and cell not in owner:
                owner[cell] = seat
                taken += 1
            for nxt in grid.neighbours(cell):
                if nxt not in seen and gmap.terrain_at(nxt) is not Terrain.BLACK_HOLE:
                    seen.add(nxt)
                    queue.append(nxt)
    worlds = []
    homes = {c: s for s, c in enumerate(gmap.home_worlds, start=1)}
    for index, terrain in enumerate(gmap.terrain):
        if terrain in (Terrain.PLANET, Terrain.COLONY):
            c = grid.coord(index)
            worlds.append(WorldState(coord=c, kind=WorldKind(terrain.value), economy=gmap.economy_of(c),
                                     owner=owner.get(c), home_of=homes.get(c)))
    structures = tuple(StructureState(id=s, owner=s, resource=Resource.DOCKYARD, coord=c)
                       for c, s in homes.items())
    owned = {s: [c for c, o in sorted(owner.items()) if o == s] for s in range(1, PLAYERS + 1)}
    ships, fleet_list = [], []
    per_player = fleets // PLAYERS
    for seat in range(1, PLAYERS + 1):
        cells = owned[seat]
        for k in range(per_player):
            ids = []
            for j in range(SHIPS_PER_FLEET):
                ship = ShipState(id=len(ships) + 1, owner=seat, design=GALIOT if j % 2 else SAN_MARCO)
                ships.append(ship)
                ids.append(ship.id)
            fleet_list.append(
                FleetState(id=len(fleet_list) + 1, owner=seat, coord=cells[k % len(cells)], ships=tuple(ids))
            )
    state = CampaignState(
        turn=5, map=gmap,
        empires=tuple(EmpireState(seat=s, name=f"Empire {s}", bp=STARTING_BP) for s in range(1, PLAYERS + 1)),
        worlds=tuple(worlds), designs=DESIGNS, structures=structures, ships=tuple(ships),
        fleets=tuple(fleet_list), purpose=4,
    )
    return state, orders_for(state)


def orders_for(state: CampaignState) -> dict[int, Orders]:
    """Every fleet moves up to two hexes along passable neighbours (deterministic)."""
    grid = state.grid
    moves: dict[int, list[Move]] = {}
    for fleet in state.fleets:
        path, here = [], fleet.coord
        for _ in range(2):
            options = [c for c in grid.neighbours(here) if state.terrain_at(c) is not Terrain.BLACK_HOLE]
            if not options:
                break
            here = options[(fleet.id + len(path)) % len(options)]
            path.append(here)
        if path:
            moves.setdefault(fleet.owner, []).append(Move(fleet=fleet.id, path=tuple(path)))
    return {seat: Orders(moves=tuple(m)) for seat, m in moves.items()}


def scaled(fleets: int) -> tuple[CampaignState, dict]:
    state, orders = build(fleets=fleets)
    return replace(state), orders
