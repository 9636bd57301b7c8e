"""Setting a battle up from two fleets of SDs (rule book ``seeds/000_…`` 2.2 Pre-Game 1).

Ruling BZ4: the table is 6' x 4' (72" x 48"); each side deploys in a line across its own long
edge, 6" in from it, ships 6" apart, bows toward the enemy. A moderator's own placement can be
given as ``Ship`` values to ``state.new_battle`` instead.

``lurking`` (ship id → 2' square) sets cloak-capable ships up lurking instead (10.2, ruling BZ53);
``tables`` lays out that many tables in a row for 11.3 (ruling BZ82; the fleets start on the first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from campaign.rules.cam.ships import SD

from .sds import has
from .state import DEFAULT_TABLE, LURKING, BattleState, IllegalActionError, Orders, Ship, new_battle, new_ship

EDGE_GAP = 6.0
SPACING = 6.0


def deploy(fleets: Mapping[int, Sequence[SD]], table: tuple[float, float] = DEFAULT_TABLE,
           orders: Mapping[int, Orders] | None = None, turn_cap: int | None = None, *,
           lurking: Mapping[int, tuple[int, int]] | None = None, tables: int = 1) -> BattleState:
    """Two fleets in line abreast facing each other; ship ids run 1, 2, … in fleet order."""
    sides = tuple(fleets)
    if len(sides) != 2:
        raise ValueError(f"a battle needs two fleets, not {len(sides)}")
    w, h = table
    ships: list[Ship] = []
    next_id = 1
    for n, side in enumerate(sides):
        fleet = list(fleets[side])
        rows = max(1, -(-len(fleet) * SPACING // (w - 2 * EDGE_GAP)))
        per_row = -(-len(fleet) // int(rows))
        for i, sd in enumerate(fleet):
            row, col = divmod(i, per_row)
            x = w / 2 + (col - (per_row - 1) / 2) * SPACING
            y = EDGE_GAP + row * SPACING if n == 0 else h - EDGE_GAP - row * SPACING
            ships.append(new_ship(next_id, side, sd, (x, y), 0.0 if n == 0 else 180.0))
            next_id += 1
    kwargs = {} if turn_cap is None else {"turn_cap": turn_cap}
    o = orders or {}
    state = new_battle(ships, sides=sides, table=table,  # type: ignore[arg-type]
                       orders=(o.get(sides[0], Orders()), o.get(sides[1], Orders())), **kwargs)
    if tables != 1:
        if not isinstance(tables, int) or isinstance(tables, bool) or tables < 1:
            raise IllegalActionError("000 11.3 Using Multi-Tables", f"tables must be 1 or more, not {tables!r}")
        state = replace(state, tables=tables)
    return lurk(state, lurking or {})


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


__all__ = ["deploy", "lurk"]
