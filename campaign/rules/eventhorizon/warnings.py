"""Warnings for valid orders that may cost the player the campaign (pure Python).

    orders_warnings(state, seat, orders, preview) -> tuple[str, ...]

Today one kind: orders that can leave the empire with no ships at the end of the turn, which
loses the campaign (003 Purpose of the Campaign: "a player loses if he finishes a campaign turn
with no ships"; docs/rulings.md VC3, W1). A warning never refuses orders.

A ship counts as safe this turn when it ends its move (or stays) in a hex where nothing can
destroy it: not a hex another empire holds (its path stops there and a battle follows), not a
neutral world as a fleet of one (a 1–2 on the neutral roll destroys a ship: 003 Neutral
Planets/Colonies), and not within reach of another empire's fleet this turn (grid distance up to
that fleet's speed: it could invade). A ship completed this turn (its build's last turn) appears
after the battles and is safe. If no ship is safe, the preview warns and says why.

``state`` is what the seat may see (``fog.orders_view``, docs/rulings.md FW10): a warning about a
fleet the seat does not detect would reveal it.
"""

from __future__ import annotations

from .mapgen import Terrain
from .orders import Orders, Preview, fleet_speed
from .state import CampaignState

RULE = "003 Purpose of the Campaign"


def _threats(state: CampaignState, seat: int) -> tuple[frozenset, tuple[tuple[tuple[int, int], int], ...]]:
    """(the hexes other empires hold, each other empire's fleet as (hex, speed)) as ``seat`` sees
    them: made once per (frozen) state and seat and kept on it, as ``PathRules`` is, since the
    order page's view of a turn is kept between requests (campaign/eventhorizon/adapters.py)."""
    kept = state.__dict__.setdefault("_warning_threats", {})
    found = kept.get(seat)
    if found is None:
        active = set(state.active_seats())
        others = active - {seat}
        held = {f.coord for f in state.fleets if f.owner in others and f.ships}
        held |= {w.coord for w in state.worlds if w.owner in others}
        held |= {s.coord for s in state.structures if s.owner in others and s.resource.value == "star_gate"}
        enemies = tuple((f.coord, fleet_speed(state, f.ships)) for f in state.fleets
                        if f.owner != seat and f.ships and f.owner in active)
        found = kept[seat] = (frozenset(held), enemies)
    return found


def orders_warnings(state: CampaignState, seat: int, orders: Orders, preview: Preview) -> tuple[str, ...]:
    """The warnings for valid turn orders (W1). ``preview`` is what ``validate_orders`` returned."""
    completing = sum(1 for b in state.builds if b.owner == seat and b.turns_left <= 1)
    completing += sum(1 for b in preview.spending.builds if b.turns_left <= 1)
    if completing:
        return ()
    mine = [f for f in state.fleets if f.owner == seat and f.ships]
    if not mine:
        return (f"{RULE}: you have no ships and none is completed this turn: you will finish the turn with "
                "no ships and lose the campaign. Build a ship that takes one turn (a Patrol Craft) to stay in it.",)
    # The fleets as the orders regroup them: validate_orders did it (and found nothing wrong).
    fleets, labels = preview.fleets_after_regrouping, dict(preview.split_ids)
    ends = {f.id: (f.coord, ()) for f in fleets if f.owner == seat and f.ships}
    held, enemies = _threats(state, seat)
    for move in orders.moves:
        fid = labels.get(move.fleet) if isinstance(move.fleet, str) else move.fleet
        if fid in ends:
            end, passed = move.path[-1], ()
            for cell in move.path:
                if cell in held:
                    end, passed = cell, (cell,)
                    break
            ends[fid] = (end, passed)
    grid = state.grid
    reasons = []
    by_id = {f.id: f for f in fleets}
    for fid, (end, stopped) in sorted(ends.items()):
        fleet = by_id[fid]
        if stopped or end in held:
            reasons.append(f"fleet {fid} ends in {end}, held by another empire: a battle there can destroy it")
            continue
        world = state.world_at(end)
        if world is not None and world.owner is None and len(fleet.ships) == 1 \
                and state.terrain_at(end) in (Terrain.PLANET, Terrain.COLONY):
            reasons.append(
                f"fleet {fid}, a lone ship, ends on the neutral world at {end}: a 1–2 on its roll destroys it"
            )
            continue
        near = [c for c, speed in enemies if grid.distance(c, end) <= speed]
        if near:
            reasons.append(f"fleet {fid} at {end} is within reach of an enemy fleet at {near[0]}")
            continue
        return ()  # a safe ship
    return (f"{RULE}: these orders can leave you with no ships at the end of the turn, and an empire that "
            "finishes a campaign turn with no ships has lost: " + "; ".join(reasons) + ".",)
