"""Computer-player campaigns through the pure pipeline (no database): turns to a winner.

Reproduces ``manage.py demo`` exactly without Django: the map, the purpose and every turn's dice
come from the same seed text (``derive_seed``) through one dice stream, the starter design
library has the ids a fresh database gives it, and after each turn the state is put in the order
``campaign.eventhorizon.adapters.load_state`` reads it back (worlds by row, everything else by number, a
fleet's ships by number), so the bots see exactly what they would see in the demo.

    .venv/bin/python bench/botsim.py                      # the standard table below
    .venv/bin/python bench/botsim.py --players 4 --size 40x40 --turns 60 --seeds 1 2 3 -v
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campaign.rules.dice import SeededDice, derive_seed  # noqa: E402
from campaign.rules.eventhorizon import economy as eh  # noqa: E402
from campaign.rules.eventhorizon import victory  # noqa: E402
from campaign.rules.eventhorizon.bots import bot_orders  # noqa: E402
from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS  # noqa: E402
from campaign.rules.eventhorizon.economy import WorldKind  # noqa: E402
from campaign.rules.eventhorizon.mapgen import Terrain, generate_map  # noqa: E402
from campaign.rules.eventhorizon.setup import SETUP_TURN, resolve_setup  # noqa: E402
from campaign.rules.eventhorizon.state import (  # noqa: E402
    CampaignState,
    EmpireState,
    StructureState,
    WorldState,
)
from campaign.rules.eventhorizon.turn import resolve_turn  # noqa: E402
from campaign.rules.grid import make_grid  # noqa: E402

# The starter library (migration 0002) in a fresh database: ids 1–4 in SAMPLE_DESIGNS order.
DESIGNS = {i + 1: d for i, d in enumerate(SAMPLE_DESIGNS)}
NAMES = {d.name: i for i, d in DESIGNS.items()}


def new_campaign(seed: str, players: int, width: int, height: int, grid: str = "hex"):
    """The state ``campaign.eventhorizon.actions.create_campaign`` stores for ``seed`` (text), in its set-up round, and
    its dice stream."""
    dice = SeededDice(derive_seed(str(seed)))
    gmap = generate_map(make_grid(grid, width, height), players, dice, economy_types=True)
    homes = {c: seat for seat, c in enumerate(gmap.home_worlds, start=1)}
    worlds = []
    for index, terrain in enumerate(gmap.terrain):
        if terrain in (Terrain.PLANET, Terrain.COLONY):
            c = gmap.grid.coord(index)
            economy = gmap.economy_of(c) if terrain is Terrain.PLANET else None
            worlds.append(WorldState(coord=c, kind=WorldKind(terrain.value), economy=economy,
                                     owner=homes.get(c), home_of=homes.get(c)))
    seats = range(1, len(gmap.home_worlds) + 1)
    state = CampaignState(
        turn=SETUP_TURN, map=gmap,
        empires=tuple(EmpireState(seat=s, name=f"Empire {s}", bp=eh.STARTING_BP, is_bot=True) for s in seats),
        worlds=tuple(sorted(worlds, key=lambda w: (w.coord[1], w.coord[0]))), designs=DESIGNS,
        structures=tuple(StructureState(id=s, owner=s, resource=eh.Resource.DOCKYARD, coord=gmap.home_worlds[s - 1])
                         for s in seats),
        purpose=victory.roll_purpose(dice), options={"economy_types": True},
    )
    return state, dice


def as_stored(state: CampaignState) -> CampaignState:
    """The state in the order ``adapters.load_state`` returns it after ``save_state``."""
    return replace(
        state.with_id_floor(),
        worlds=tuple(sorted(state.worlds, key=lambda w: (w.coord[1], w.coord[0]))),
        structures=tuple(sorted(state.structures, key=lambda s: s.id)),
        ships=tuple(sorted(state.ships, key=lambda s: s.id)),
        fleets=tuple(sorted((replace(f, ships=tuple(sorted(f.ships))) for f in state.fleets), key=lambda f: f.id)),
        builds=tuple(sorted(state.builds, key=lambda b: b.dockyard)),
        repairs=(),
    )


@dataclass
class Result:
    seed: str
    players: int
    size: str
    purpose: int
    turns: int  # turns played
    winner: int | None
    lines: list[str]
    state: CampaignState


def summary_line(state: CampaignState, events) -> str:
    """The demo command's line for a turn (turn, then per seat bp/worlds/ships/battles)."""
    battles: dict[int, int] = {}
    for event in events:
        if event.step == "battles" and event.kind == "battle":
            for seat in event.seats:
                battles[seat] = battles.get(seat, 0) + 1
    cells = []
    for e in state.empires:
        if e.eliminated:
            cells.append("out")
            continue
        worlds = sum(1 for w in state.worlds if w.owner == e.seat)
        ships = sum(1 for s in state.ships if s.owner == e.seat)
        cells.append(f"{e.bp}/{worlds}/{ships}/{battles.get(e.seat, 0)}")
    return f"{state.turn - 1:>4} | " + " | ".join(f"{c:>22}" for c in cells)


def play(seed: str, players: int = 4, width: int = 40, height: int = 40, turns: int = 60,
         grid: str = "hex", verbose: bool = False) -> Result:
    state, dice = new_campaign(seed, players, width, height, grid)
    names = {e.seat: NAMES for e in state.empires}
    lines = []
    played = 0
    # The set-up round first (003 Set Up): every seat buys the computer's set-up fleet.
    orders = {seat: bot_orders(state, seat, NAMES) for seat in state.active_seats()}
    resolution = resolve_setup(state, orders, dice, names)
    state = as_stored(resolution.state)
    lines.append(summary_line(state, resolution.events))
    if verbose:
        print(lines[-1], flush=True)
    for _ in range(turns):
        orders = {seat: bot_orders(state, seat, NAMES) for seat in state.active_seats()}
        resolution = resolve_turn(state, orders, dice, names)
        state = as_stored(resolution.state)
        played += 1
        line = summary_line(state, resolution.events)
        lines.append(line)
        if verbose:
            print(line, flush=True)
        if state.finished:
            break
    return Result(seed=str(seed), players=players, size=f"{width}x{height}", purpose=state.purpose or 0,
                  turns=played, winner=state.winner, lines=lines, state=state)


STANDARD = [  # (players, size, turn limit, seeds)
    (4, "40x40", 60, ["1", "2", "3", "4", "5"]),
    (2, "20x20", 60, ["1", "2", "3", "4", "5"]),
    (3, "30x30", 60, ["1", "2", "3"]),
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int)
    parser.add_argument("--size")
    parser.add_argument("--grid", default="hex")
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--seeds", nargs="*")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every turn's line")
    args = parser.parse_args(argv)
    if args.players:
        size = args.size or "40x40"
        runs = [(args.players, size, args.turns, args.seeds or ["1", "2", "3", "4", "5"])]
    else:
        runs = STANDARD
    failures = 0
    for players, size, limit, seeds in runs:
        width, height = (int(v) for v in size.split("x"))
        for seed in seeds:
            started = time.process_time()
            r = play(seed, players, width, height, limit, args.grid, args.verbose)
            took = time.process_time() - started
            name = victory.PURPOSES[r.purpose].name
            outcome = f"winner seat {r.winner} on turn {r.turns}" if r.winner else f"NO WINNER after {r.turns}"
            failures += r.winner is None
            print(f"{players}p {size} seed {seed:>3} purpose {r.purpose} {name:<18} {outcome:<30} ({took:.1f} s)",
                  flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
