"""Fog of war (issue 4 "Online play"; docs/rulings.md "Fog of war"): what one seat may see of a
campaign. Pure Python: a frozen ``CampaignState`` in, a smaller one out.

A seat *detects* every cell within ``radius`` steps (grid distance) of a world it owns or of one of
its fleets. It sees:

- all terrain, every world and its owner and home-world mark (ownership is public, ruling FW1);
- its own fleets, ships, structures, builds, treasury, technologies and standing orders;
- other empires' fleets and ships only in cells it detects (FW2);
- other empires' structures that carry a map symbol (^ # * + S X G), wherever they are, but not
  the ones the rule book draws no symbol for, nor a research facility's technology (FW3);
- nothing of other empires' treasuries, technologies, builds, repairs, orders or standing orders.

``seat=None`` means an unfogged view (the moderator, or anyone once fog is lifted);
``radius=None`` means fog of war is off: the seat sees every fleet, but still nothing private of
other empires.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..grid import Coord
from .state import CampaignState, FleetState, StandingOrders


def detected_cells(state: CampaignState, seat: int | None, radius: int | None) -> frozenset[Coord] | None:
    """Cells ``seat`` detects; None means every cell (no fog)."""
    if seat is None or radius is None:
        return None
    grid = state.grid
    sources = {w.coord for w in state.worlds_of(seat)}
    sources |= {f.coord for f in state.fleets if f.owner == seat}
    cells: set[Coord] = set()
    for c in sources:
        cells.update(grid.within(c, max(0, radius)))
    return frozenset(cells)


def can_see(cells: frozenset[Coord] | None, c: Iterable[int] | None) -> bool:
    if cells is None:
        return True
    if c is None:
        return False
    return tuple(c) in cells


def visible_fleets(state: CampaignState, seat: int | None, radius: int | None) -> tuple[FleetState, ...]:
    """The seat's own fleets and other empires' fleets in cells it detects."""
    cells = detected_cells(state, seat, radius)
    return tuple(f for f in state.fleets if seat is None or f.owner == seat or can_see(cells, f.coord))


def fogged_state(state: CampaignState, seat: int | None, radius: int | None) -> CampaignState:
    """The campaign as ``seat`` may see it (everything when ``seat`` is None)."""
    if seat is None:
        return state
    cells = detected_cells(state, seat, radius)
    fleets = tuple(f for f in state.fleets if f.owner == seat or can_see(cells, f.coord))
    ship_ids = {sid for f in fleets for sid in f.ships}
    ships = tuple(s for s in state.ships if s.id in ship_ids)
    structures = tuple(
        s if s.owner == seat else replace(s, technology=None)
        for s in state.structures
        if s.owner == seat or s.resource.symbol
    )
    empires = tuple(
        e if e.seat == seat else replace(e, bp=0, technologies=frozenset(), standing=StandingOrders(), trade_war=())
        for e in state.empires
    )
    # Designs: those of the ships the seat sees and of its own builds (the state does not say
    # whose a design is; other empires' designs stay out).
    seen_designs = {s.design for s in ships} | {b.design for b in state.builds if b.owner == seat}
    designs = {k: v for k, v in state.designs.items() if k in seen_designs}
    return replace(
        state, empires=empires, fleets=fleets, ships=ships, structures=structures,
        builds=tuple(b for b in state.builds if b.owner == seat),
        repairs=tuple(r for r in state.repairs if r[0] in {s.id for s in ships if s.owner == seat}),
        designs=designs,
    )


def orders_view(state: CampaignState, seat: int, radius: int | None) -> CampaignState:
    """What a seat's orders are checked, previewed and warned about against (issue 23 item 1):
    ``fogged_state``, so no refusal, preview line or warning can tell of a fleet the seat does not
    see, with every design kept (a design's figures say nothing of where anyone is, and the
    seat's own designs that no ship uses yet must still be buyable)."""
    return replace(fogged_state(state, seat, radius), designs=state.designs)


# --- events ---------------------------------------------------------------------------------

def visible_event(event: Mapping[str, Any], seat: int | None) -> bool:
    """Events go to the seats involved and public events to everyone (the turn pipeline decides
    who is involved); the moderator (None) sees all."""
    return seat is None or bool(event.get("public")) or seat in event.get("seats", ())


def redact_event(event: Mapping[str, Any], seat: int | None, cells: frozenset[Coord] | None) -> dict[str, Any]:
    """An event as ``seat`` may read it. Where another empire's fleet retreated to — before an
    invasion or after a lost battle — is left out unless the seat detects that cell afterwards:
    a retreat lets the fleet slip back into the fog (FW4)."""
    out = dict(event)
    if seat is None:
        return out
    kind = event.get("kind")
    seats = tuple(event.get("seats", ()))
    data = dict(event.get("data") or {})
    if kind == "retreat":
        # Retreat events name (invader, defender); the defender is the one retreating.
        if len(seats) > 1 and seats[1] != seat and not can_see(cells, data.get("to")):
            for key in ("to", "ordered_to", "ships"):
                data.pop(key, None)
            out["data"] = data
            out["text"] = f"Fleet {data.get('fleet')} retreats from {tuple(data.get('hex') or ())} out of sight"
    elif kind == "battle" and data.get("retreats"):
        loser = data.get("winner")
        loser = next((s for s in seats if s != loser), None)
        if loser != seat:
            data["retreats"] = [
                move if can_see(cells, move.get("to")) else {**move, "to": None, "out_of_sight": True}
                for move in data["retreats"]
            ]
            out["data"] = data
    return out


def events_for(events: Iterable[Mapping[str, Any]], seat: int | None,
               cells: frozenset[Coord] | None = None) -> list[dict[str, Any]]:
    """The events ``seat`` may read, redacted (FW4)."""
    return [redact_event(e, seat, cells) for e in events if visible_event(e, seat)]
