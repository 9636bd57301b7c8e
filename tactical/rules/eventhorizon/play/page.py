"""What the Event Horizon play page shows a seat: the acting side's choices shaped for the page
(``action_choices``), the ships' table with fog of war (``ship_rows``: an enemy ship hidden by its
stealth field is left out, 003 "Stealth Fields"; rulings TP5-TP6), and the result JSON.
"""

from __future__ import annotations

import json
from typing import Any

from tactical.rules.play import Viewer

from .. import actions as A
from .. import board as boardsvg
from ..engine import BattleOutcome, is_over, legal_actions, trace_path
from ..geometry import FACING_NAMES
from ..state import BattleState
from . import codec


def _ship_label(state: BattleState, ship_id: int) -> str:
    s = state.find(ship_id)
    return f"ship {ship_id}" + (f" ({s.name})" if s is not None and s.name else "")


def action_choices(state: BattleState, seat: int) -> dict:
    """The acting side's legal actions, shaped for the page: ``buttons`` (one action each),
    ``moves`` (reachable squares and facings), ``weapons`` (per weapon system, its targets, so
    fire can be split), ``ship`` (the activated ship)."""
    out = {"buttons": [], "moves": [], "weapons": [], "ship": None, "activate": []}
    if state.acting_side != seat or is_over(state):
        return out
    if state.activation is None:
        for ship in state.ships_of(seat):
            for action in legal_actions(state, ship.id):
                if isinstance(action, A.Activate):
                    out["activate"].append({"label": codec.describe(action), "json": json.dumps(codec.to_json(action)),
                                            "ship": ship})
        out["buttons"].append({"label": codec.describe(A.Pass(seat)), "json": json.dumps(codec.to_json(A.Pass(seat)))})
        return out
    ship = state.ship(state.activation.ship)
    out["ship"] = ship
    fires = []
    for action in legal_actions(state, ship.id):
        if isinstance(action, A.Move):
            pos, facing, _ = trace_path(state, ship, action.path, action.into_black_hole)
            out["moves"].append(
                {
                    "x": pos[0],
                    "y": pos[1],
                    "facing": FACING_NAMES[facing],
                    "path": " ".join(action.path),
                    "json": json.dumps(codec.to_json(action)),
                }
            )
        elif isinstance(action, A.Fire):
            fires.append(action)
        else:
            out["buttons"].append({"label": codec.describe(action), "json": json.dumps(codec.to_json(action))})
    out["moves"].sort(key=lambda m: (m["y"], m["x"], m["facing"]))
    for i, key in enumerate(ship.weapons):
        targets = []
        for fire in fires:
            target = fire.shots[0][1]
            if any(w == key for w, _ in fire.shots) and target not in [t for t, _ in targets]:
                label = f"planet {target}" if isinstance(target, str) else _ship_label(state, target)
                targets.append((target, label))
        if targets:
            out["weapons"].append({"index": i, "key": key, "name": key.replace("_", " "),
                                   "targets": [{"value": f"{key}|{t}", "label": label} for t, label in targets]})
    return out


def ship_rows(state: BattleState, viewer: Viewer) -> list[dict]:
    """The ships' table (fog of war: an enemy ship hidden by its stealth field is left out,
    003 "Stealth Fields"; rulings TP5–TP6)."""
    rows = []
    for s in state.ships:
        hidden = s.stealth_engaged and viewer.fog_side is not None and s.side != viewer.fog_side and s.in_play
        if hidden:
            continue
        rows.append(
            {
                "id": s.id,
                "side": s.side,
                "side_name": viewer.names.get(s.side, s.side),
                "name": s.name,
                "design": s.design.name,
                "pos": s.pos,
                "facing": FACING_NAMES[s.facing],
                "hull": s.hull,
                "max_hull": boardsvg.max_hull(s),
                "condition": boardsvg.condition(s)[0],
                "condition_text": boardsvg.condition(s)[1],
                "movement": s.movement,
                "force_fields": list(s.force_fields),
                "weapons": [w.replace("_", " ") for w in s.weapons],
                "status": s.status,
                "evasive": s.evasive,
                "stealth": s.stealth_engaged,
                "shuttle": s.shuttle,
                "power": s.power,
                "captured_by": s.captured_by,
                "original_side": s.original_side,
                "mine": s.side == viewer.seat,
                "colour": viewer.colours.get(s.side, "#999"),
            }
        )
    return rows


def outcome_to_result(result: BattleOutcome) -> dict[str, Any]:
    """The campaign-level result JSON handed to ``tactical.hosts.eventhorizon.lifecycle.record_result``."""
    ships = []
    for s in result.ships:
        ships.append({
            "ship": s.ship,
            "fate": s.fate,
            "damage": None if s.damage is None else s.damage.to_json(),
            "captured_by": s.captured_by,
        })
    return {"holder": result.holder, "ships": ships, "cards_drawn": result.cards_drawn, "capped": result.capped}
