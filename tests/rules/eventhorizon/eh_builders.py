"""Build small Event Horizon campaign states from ASCII pictures, for rule tests.

Picture symbols, one per cell, rows separated by newlines (spaces are ignored):
    .  empty            @  black hole        ~  particle cloud      W  worm hole
    O  neutral planet   o  neutral colony
    1-8  the home world (a planet) of that seat
    a-h  a planet owned by seat 1-8 (a = seat 1 …)
    A-H  a colony owned by seat 1-8
"""

from __future__ import annotations

from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS, Design, ShipType
from campaign.rules.eventhorizon.economy import Resource, WorldKind
from campaign.rules.eventhorizon.mapgen import GeneratedMap, Terrain
from campaign.rules.eventhorizon.state import (
    CampaignState,
    EmpireState,
    FleetState,
    ShipState,
    StructureState,
    WorldState,
)
from campaign.rules.grid import make_grid

# Design ids used by the builders: the four samples, a bombardment corvette and a freighter.
DESIGNS: dict[str, int] = {"san_marco": 1, "sword": 2, "sultan": 3, "galiot": 4, "bomber": 5, "tramp": 6}
_EXTRA = {
    5: Design(name="Bombard Corvette", ship_type=ShipType.CORVETTE, hull=2, engine=3,
              weapons=(("planetary_bombardment_array", 1),)),
    6: Design(name="Tramp", ship_type=ShipType.TRAMP_FREIGHTER, hull=5, engine=4, cargo=6),
}
DESIGN_TABLE: dict[int, Design] = {i + 1: d for i, d in enumerate(SAMPLE_DESIGNS)} | _EXTRA
TERRAIN = {".": Terrain.EMPTY, "@": Terrain.BLACK_HOLE, "~": Terrain.PARTICLE_CLOUD, "W": Terrain.WORMHOLE,
           "O": Terrain.PLANET, "o": Terrain.COLONY}


def build_state(
    picture: str,
    *,
    grid: str = "square",
    seats: int | None = None,
    fleets: list[tuple[int, tuple[int, int], list[str]]] = (),
    structures: list[tuple[int, str, tuple[int, int]]] = (),
    bp: int | dict[int, int] = 0,
    turn: int = 1,
    purpose: int | None = None,
    dockyards: bool = True,
) -> CampaignState:
    """A CampaignState from a picture. ``fleets``: (seat, coord, [design keys]) — each entry one
    fleet, ids in order from 1. ``structures``: (seat, resource value, coord). Home worlds get a
    dockyard unless ``dockyards`` is False."""
    rows = [row.replace(" ", "") for row in picture.strip().splitlines()]
    height, width = len(rows), len(rows[0])
    assert all(len(r) == width for r in rows), "every row of the picture needs the same width"
    board = make_grid(grid, width, height)
    terrain, worlds, homes = [], [], {}
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch in TERRAIN:
                terrain.append(TERRAIN[ch])
                if ch in "Oo":
                    kind = WorldKind.PLANET if ch == "O" else WorldKind.COLONY
                    worlds.append(WorldState(coord=(x, y), kind=kind))
            elif ch.isdigit():
                seat = int(ch)
                terrain.append(Terrain.PLANET)
                homes[seat] = (x, y)
                worlds.append(WorldState(coord=(x, y), kind=WorldKind.PLANET, owner=seat, home_of=seat))
            elif ch in "abcdefgh":
                terrain.append(Terrain.PLANET)
                worlds.append(WorldState(coord=(x, y), kind=WorldKind.PLANET, owner="abcdefgh".index(ch) + 1))
            elif ch in "ABCDEFGH":
                terrain.append(Terrain.COLONY)
                worlds.append(WorldState(coord=(x, y), kind=WorldKind.COLONY, owner="ABCDEFGH".index(ch) + 1))
            else:
                raise ValueError(f"unknown picture symbol {ch!r}")
    seat_count = seats or max([*homes, *(w.owner for w in worlds if w.owner), *(f[0] for f in fleets), 2])
    gmap = GeneratedMap(grid=board, terrain=tuple(terrain),
                        home_worlds=tuple(homes[s] for s in sorted(homes)))
    bps = bp if isinstance(bp, dict) else {s: bp for s in range(1, seat_count + 1)}
    empires = tuple(EmpireState(seat=s, name=f"Empire {s}", bp=bps.get(s, 0)) for s in range(1, seat_count + 1))
    ship_list, fleet_list = [], []
    for fid, (seat, coord, keys) in enumerate(fleets, start=1):
        ids = []
        for key in keys:
            ship = ShipState(id=len(ship_list) + 1, owner=seat, design=DESIGNS[key])
            ship_list.append(ship)
            ids.append(ship.id)
        fleet_list.append(FleetState(id=fid, owner=seat, coord=coord, ships=tuple(ids)))
    structure_list = []
    if dockyards:
        for seat in sorted(homes):
            structure_list.append(
                StructureState(
                    id=len(structure_list) + 1, owner=seat, resource=Resource.DOCKYARD, coord=homes[seat]
                )
            )
    for seat, resource, coord in structures:
        structure_list.append(
            StructureState(id=len(structure_list) + 1, owner=seat, resource=Resource(resource), coord=coord)
        )
    return CampaignState(
        turn=turn, map=gmap, empires=empires, worlds=tuple(worlds), designs=DESIGN_TABLE,
        structures=tuple(structure_list), ships=tuple(ship_list), fleets=tuple(fleet_list), purpose=purpose,
    )
