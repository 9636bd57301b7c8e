"""Setting a battle up from two fleets of SDs (rule book ``seeds/000_…`` 2.2 Pre-Game 1).

Ruling BZ4: the table is 6' x 4' (72" x 48"); each side deploys in a line across its own long
edge, 6" in from it, ships 6" apart, bows toward the enemy. A moderator's own placement can be
given as ``Ship`` values to ``state.new_battle`` instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from campaign.rules.cam.ships import SD

from .state import DEFAULT_TABLE, BattleState, Orders, Ship, new_battle, new_ship

EDGE_GAP = 6.0
SPACING = 6.0


def deploy(fleets: Mapping[int, Sequence[SD]], table: tuple[float, float] = DEFAULT_TABLE,
           orders: Mapping[int, Orders] | None = None, turn_cap: int | None = None) -> BattleState:
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
    return new_battle(ships, sides=sides, table=table,  # type: ignore[arg-type]
                      orders=(o.get(sides[0], Orders()), o.get(sides[1], Orders())), **kwargs)


__all__ = ["deploy"]
