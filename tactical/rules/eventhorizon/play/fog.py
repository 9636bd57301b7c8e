"""Fog of war in Event Horizon online play (003 Stealth Field; rulings TC29, TP…): which events a
side may read (the engine tags each where it makes it: ``kit.Event`` ``public``/``sides``), whether
another side's step is "a hidden action" to it, the ship a seat may name, and the last move a
replay may show.
"""

from __future__ import annotations

from ..state import IllegalActionError, hidden_from

TURN_RULE = "003 The Turn Sequence"


def visible_events(events, side):
    return [e for e in events if side is None or e.public or side in e.sides]


def hides_step(events, side):
    return not any(e.public for e in events)


def ship_in_sight(state, ship_id, seat):
    """Ship ``ship_id`` as ``seat`` names it: a hidden ship is refused as one not there (ruling TC29)."""
    ship = state.find(ship_id)
    if ship is None or hidden_from(ship, seat):
        raise IllegalActionError(TURN_RULE, f"there is no ship {ship_id} in this battle")
    return ship


def seen_move(state, action_json, viewer_side):
    """Where the ship an action moved ended up, if ``viewer_side`` may see it (None: not a move,
    or a move under an enemy's engaged stealth field)."""
    if action_json and action_json.get("type") == "move":
        s = state.find(action_json.get("ship"))
        if s is not None and (viewer_side is None or not s.stealth_engaged or s.side == viewer_side):
            return s.pos
    return None
