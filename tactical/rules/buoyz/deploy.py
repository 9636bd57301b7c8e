"""Setting a battle up from two fleets of SDs (rule book ``seeds/000_…`` 2.2 Pre-Game 1).

Ruling BZ4: the table is 6' x 4' (72" x 48"); each side deploys in a line across its own long
edge, 6" in from it, ships 6" apart, bows toward the enemy. A moderator's own placement can be
given as ``Ship`` values to ``state.new_battle`` instead.

``lurking`` (ship id → 2' square) sets cloak-capable ships up lurking instead (10.2, ruling BZ53);
``tables`` lays out that many tables in a row for 11.3 (ruling BZ82) and ``table_of`` says which
table each side's ships deploy on (ruling BZ90; by default the first, "main", table).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from campaign.rules.cam.ships import SD

from .sds import has
from .state import (
    DEFAULT_TABLE,
    LURKING,
    MAX_SIDES,
    SIDE_EDGES,
    SIDES_RULE,
    BattleState,
    IllegalActionError,
    Orders,
    Ship,
    new_battle,
    new_ship,
    table_pitch,
)

EDGE_GAP = 6.0
SPACING = 6.0
MULTI_RULE = "000 11.3 Using Multi-Tables"


def deploy(fleets: Mapping[int, Sequence[SD]], table: tuple[float, float] = DEFAULT_TABLE,
           orders: Mapping[int, Orders] | None = None, turn_cap: int | None = None, *,
           lurking: Mapping[int, tuple[int, int]] | None = None, tables: int = 1,
           table_of: Mapping[int, int | Sequence[int]] | None = None) -> BattleState:
    """Two to six fleets in line abreast, each along its own edge facing the middle (rulings
    BZ4, BZ87; ``place``); ship ids run 1, 2, … in fleet order.

    ``table_of`` (11.3, ruling BZ90): side → the table number (1 = the first, westmost) all its
    ships deploy on, or a list of table numbers, one for each ship of its fleet in order. A side
    not given deploys on the first table. Each side lines up along its own edge of every table
    it has ships on."""
    sides = tuple(fleets)
    if not 2 <= len(sides) <= MAX_SIDES:
        raise IllegalActionError(
            SIDES_RULE, f"a battle needs two to {MAX_SIDES} fleets (ruling BZ83), not {len(sides)}"
        )
    if not isinstance(tables, int) or isinstance(tables, bool) or tables < 1:
        raise IllegalActionError(MULTI_RULE, f"tables must be 1 or more, not {tables!r}")
    where = fleet_tables({side: len(fleets[side]) for side in sides}, tables, table_of)
    pitch = table_pitch(table)
    ships: list[Ship] = []
    next_id = 1
    for n, side in enumerate(sides):
        fleet = list(fleets[side])
        on = where[side]
        for i, sd in enumerate(fleet):
            k = on[i]  # 11.3: its table; it takes its place in that table's line
            j, count = on[:i].count(k), on.count(k)
            x, y, heading = place(n, len(sides), j, count, table)
            ships.append(new_ship(next_id, side, sd, (x + k * pitch, y), heading))
            next_id += 1
    kwargs = {} if turn_cap is None else {"turn_cap": turn_cap}
    o = orders or {}
    state = new_battle(ships, sides=sides, table=table,  # type: ignore[arg-type]
                       orders=tuple(o.get(side, Orders()) for side in sides), **kwargs)
    if tables != 1:
        state = replace(state, tables=tables)
    return lurk(state, lurking or {})


def table_number(value: object, tables: int, what: str) -> int:
    """A table number (1 … ``tables``) as the table's index from 0, or a 000 11.3 refusal."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalActionError(MULTI_RULE, f"{what}: a table is given by its number (1 to {tables}), not {value!r}")
    if not 1 <= value <= tables:
        raise IllegalActionError(MULTI_RULE, f"{what}: there is no table {value} (the battle has {tables} "
                                 f"table{'s' if tables != 1 else ''}, numbered 1 to {tables} west to east)")
    return value - 1


def fleet_tables(counts: Mapping[int, int], tables: int,
                 table_of: Mapping[int, int | Sequence[int]] | None) -> dict[int, list[int]]:
    """11.3 (ruling BZ90): each side's ships' tables (indices from 0) in fleet order."""
    table_of = dict(table_of or {})
    stray = [side for side in table_of if side not in counts]
    if stray:
        raise IllegalActionError(MULTI_RULE, f"table_of names side(s) {stray} that have no fleet in this battle")
    out: dict[int, list[int]] = {}
    for side, count in counts.items():
        given = table_of.get(side, 1)
        if isinstance(given, (list, tuple)):
            if len(given) != count:
                raise IllegalActionError(MULTI_RULE, f"side {side} has {count} ship(s) but {len(given)} table "
                                         "number(s) were given")
            out[side] = [table_number(v, tables, f"side {side}'s ship {i + 1}") for i, v in enumerate(given)]
        else:
            out[side] = [table_number(given, tables, f"side {side}")] * count
    return out


def place(n: int, count_sides: int, i: int, count: int, table: tuple[float, float]) -> tuple[float, float, float]:
    """Where the ``i``th of ``count`` ships of the ``n``th side lines up, and its heading: along
    its own edge (``SIDE_EDGES``), 6" in, 6" apart, in rows as many as it needs, bow to the
    middle (ruling BZ4). With more than two sides (ruling BZ87) each line keeps 15" clear of the
    table's corners and its rows within a quarter of the table's short side of its edge (closer
    than 6" if need be); with five or six sides the two long edges are shared, the first and
    fifth sides on the south edge's west and east halves, the second and sixth on the north
    edge's east and west halves."""
    w, h = table
    edge = SIDE_EDGES[n]
    length = h if edge in ("west", "east") else w
    lo, hi = EDGE_GAP, length - EDGE_GAP
    if count_sides > 2:
        zone = min(w, h) / 4
        lo, hi = zone + SPACING / 2, length - zone - SPACING / 2
        if count_sides > 4 and edge in ("south", "north") and (n >= 4 or n + 4 < count_sides):
            west_half = n in (0, 5)  # the south edge: first side west, fifth east; the north: sixth west
            lo, hi = (lo, length / 2 - SPACING / 2) if west_half else (length / 2 + SPACING / 2, hi)
    rows = max(1, -(-count * SPACING // (hi - lo)))
    per_row = -(-count // int(rows))
    row, col = divmod(i, per_row)
    along = (lo + hi) / 2 + (col - (per_row - 1) / 2) * SPACING
    step = SPACING
    if count_sides > 2 and rows > 1:
        step = min(SPACING, max(1.0, (min(w, h) / 4 - EDGE_GAP) / (rows - 1)))
    depth = EDGE_GAP + row * step
    if edge == "south":
        return along, depth, 0.0
    if edge == "north":
        return along, h - depth, 180.0
    if edge == "west":
        return depth, along, 90.0
    return w - depth, along, 270.0


def lurk(state: BattleState, lurking: Mapping[int, tuple[int, int]]) -> BattleState:
    """10.2: set ships up lurking in the 2' squares given (ship id → (column, row))."""
    for ship_id, zone in lurking.items():
        ship = state.ship(ship_id)
        if not has(ship.sd.special_abilities, "Cloak"):
            raise IllegalActionError("000 10.2 Deployment", f"{ship.name} ({ship.id}) has no cloaking device")
        rect = state.zone_rect(tuple(zone)) if isinstance(zone, (tuple, list)) and len(zone) == 2 else None
        if rect is None:
            raise IllegalActionError("000 10.2 Deployment", f"there is no 2' square {zone!r} on the table")
        centre = ((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2)
        state = replace(state, ships=tuple(replace(s, status=LURKING, zone=tuple(zone), pos=centre, cloaked=True)
                                           if s.id == ship_id else s for s in state.ships))
    return state


__all__ = ["deploy", "fleet_tables", "lurk", "place", "table_number"]
