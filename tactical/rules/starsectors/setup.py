"""Set-up (004 III): the fleets bought with points, the roll for the order of play, terrain and
space stations placed, ships deployed on the first row of hexes of each side's edge.

The stored set-up (JSON)::

    {"width": 16, "height": 12, "round_cap": 30, "points": 25,
     "sides": {"1": {"name": "…", "ships": [{"card": "fed-frigate" | {card JSON}, "crew": false,
                                             "mines": 0, "dilithium": 0, "trilithium": 0}]}, …},
     "terrain": [{"kind": "planet", "at": [7, 5]}, …]}

``points``: each side's fleet points (III); 0 or absent: not checked (rule cases). Cargo (mines,
dilithium, trilithium) within the card's cargo factor (III).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from campaign.rules.grid import HexGrid
from tactical.rules import kit
from tactical.rules.geometry import hex as hx

from . import core as C
from .cards import (
    COMMAND_CREW_COST,
    DILITHIUM_COST,
    MINE_COST,
    ROSTER,
    TRILITHIUM_COST,
    Card,
    CardError,
    card_from_json,
)
from .state import ROUND_CAP, BattleState, Refusal, Ship, Tile

KINDS = ("asteroid", "ion", "metaphasic", "moon", "mutara", "planet", "star", "wormhole", "station")
# Each side's edge (ruling SS22): the first hexes to try, the facing (toward the enemy).
EDGES = {0: ("west", hx.E), 1: ("east", hx.W), 2: ("north", hx.SE), 3: ("south", hx.NE), 4: ("north", hx.SW),
         5: ("south", hx.NW)}


class SetupError(Refusal):
    pass


def _int(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SetupError("004 III", f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _card(raw: Any) -> Card:
    if isinstance(raw, str):
        if raw not in ROSTER:
            raise SetupError("004 II", f"no card {raw!r} in the house roster")
        return ROSTER[raw]
    try:
        return card_from_json(raw)
    except CardError as exc:
        raise SetupError(exc.rule, exc.message) from exc


def fleet_cost(entries) -> int:
    """III and VII.B: the cards, command crews (4), mines (1), dilithium (2), trilithium (3)."""
    return sum(e["card"].points + COMMAND_CREW_COST * e["crew"] + MINE_COST * e["mines"]
               + DILITHIUM_COST * e["dilithium"] + TRILITHIUM_COST * e["trilithium"] for e in entries)


def _entries(raw_ships: Any) -> list[dict]:
    if not isinstance(raw_ships, list) or not raw_ships:
        raise SetupError("004 III", "each side needs a list of ships")
    out = []
    for raw in raw_ships:
        if not isinstance(raw, Mapping) or not set(raw) <= {"card", "crew", "mines", "dilithium", "trilithium"}:
            raise SetupError("004 III", f"a ship is {{card, crew, mines, dilithium, trilithium}}, not {raw!r}")
        card = _card(raw.get("card"))
        e = {"card": card, "crew": bool(raw.get("crew", False))}
        for k in ("mines", "dilithium", "trilithium"):
            e[k] = _int(raw.get(k, 0), k, 0, 20)
        if e["mines"] + e["dilithium"] + e["trilithium"] > card.cargo:
            raise SetupError("004 III", f"{card.name} carries at most {card.cargo} items of cargo")
        out.append(e)
    return out


def _tiles(raw: Any, grid: HexGrid) -> tuple[Tile, ...]:
    tiles = []
    for i, t in enumerate(raw or (), start=1):
        if not isinstance(t, Mapping) or t.get("kind") not in KINDS or not isinstance(t.get("at"), (list, tuple)):
            raise SetupError("004 VII.A", f"a terrain tile is {{kind: one of {', '.join(KINDS)}, at: [col, row]}}")
        at = tuple(t["at"])
        if len(at) != 2 or not grid.in_bounds(at):
            raise SetupError("004 VII.A", f"terrain at {list(at)} is off the map")
        cells = tuple(grid.within(at, 1)) if t["kind"] == "mutara" else (at,)  # a seven-hex tile
        if t["kind"] == "mutara":
            cells = (at,) + tuple(c for c in cells if c != at)
        tiles.append(Tile(i, t["kind"], cells))
    return tuple(tiles)


def order_of_play(sides: list[int], dice) -> tuple[tuple[int, ...], dict[int, int]]:
    """III: each player rolls one 12d; the winner goes first, then the others from the highest
    roll down (ruling SS1); sides that tie roll again among themselves for their places."""
    faces = kit.d12(dice, "004 III: each player rolls one 12d for the order of play", len(sides))
    rolls = dict(zip(sides, faces))
    order: list[int] = []
    for value in sorted(set(faces), reverse=True):
        group = [s for s in sides if rolls[s] == value]
        order += list(order_of_play(group, dice)[0]) if len(group) > 1 else group
    return tuple(order), rolls


def _edge_cells(grid: HexGrid, edge: str) -> list:
    w, h = grid.width, grid.height
    if edge in ("west", "east"):
        col = 0 if edge == "west" else w - 1
        rows = sorted(range(h), key=lambda r: (abs(r - (h - 1) / 2), r))
        return [(col, r) for r in rows]
    row = 0 if edge == "north" else h - 1
    cols = sorted(range(w), key=lambda c: (abs(c - (w - 1) / 2), c))
    return [(c, row) for c in cols]


def deploy(state: BattleState, side_index: int, ship: Ship) -> Ship:
    """III: along the first row of hexes of the side's edge, facing the enemy; a hull longer
    than one hex lies astern, inward from the edge (ruling SS22)."""
    edge, facing = EDGES[side_index % 6]
    taken = {c for s in state.ships for c in s.hull()}
    for depth in range(4):  # the first row full: the next one inward (ruling SS22)
        for cell in _edge_cells(state.grid, edge):
            base = cell
            for _ in range(ship.card.hull - 1 + depth):
                base = hx.step(base, facing)
            placed = Ship(**{**ship.__dict__, "pos": base, "facing": facing})
            if not C.hull_ok(state, placed.hull(), placed, set()) and not set(placed.hull()) & taken:
                return placed
    raise SetupError("004 III", f"no room to deploy ship {ship.id} on side {ship.side}'s first row")


def new_battle(setup: Mapping[str, Any], dice) -> BattleState:
    if not isinstance(setup, Mapping) or not isinstance(setup.get("sides"), Mapping):
        raise SetupError("004 III", "a set-up names its sides")
    width = _int(setup.get("width", 16), "the map's width", 6, 40)
    height = _int(setup.get("height", 12), "the map's height", 6, 40)
    grid = HexGrid(width, height)
    points = _int(setup.get("points", 0), "the fleet points", 0, 1000)
    try:
        sides = sorted(int(k) for k in setup["sides"])
    except (TypeError, ValueError):
        raise SetupError("004 III", "sides are numbered") from None
    if not 2 <= len(sides) <= 6:
        raise SetupError("004 III", "two to six sides (ruling SS1)")
    fleets = {side: _entries((setup["sides"][str(side)] or {}).get("ships")) for side in sides}
    for side, entries in fleets.items():
        if points and fleet_cost(entries) > points:
            raise SetupError("004 III", f"side {side}'s fleet costs {fleet_cost(entries)} points, over {points}")
    tiles = _tiles(setup.get("terrain"), grid)
    order, rolls = order_of_play(sides, dice)
    state = BattleState(width, height, (), tuple(sides), order, tiles,
                        round_cap=_int(setup.get("round_cap", ROUND_CAP), "the round cap", 1, 200))
    n = 0
    for index, side in enumerate(sides):
        for e in fleets[side]:
            n += 1
            card = e["card"]
            ship = Ship(n, side, card, (0, 0), 0, banks=(True,) * len(card.banks), mines=e["mines"],
                        dilithium=e["dilithium"], trilithium=e["trilithium"], crew=e["crew"])
            state = kit.evolve(state, ships=state.ships + (deploy(state, index, ship),))
    text = "; ".join(f"side {s} rolls {rolls[s]}" for s in sides)
    start = kit.Event("setup", f"004 III: {text}. Order of play: {', '.join(map(str, order))}.",
                      {"order": list(order), "rolls": {str(k): v for k, v in rolls.items()}})
    return kit.evolve(state, log=(start,))


__all__ = ["EDGES", "KINDS", "SetupError", "deploy", "fleet_cost", "new_battle", "order_of_play"]
