"""What the play page shows about a nomination before it is made (pure: no Django; issue 17
item 2): the path, distance and turning of each legal move, drawn on the board and picked by
clicking or dragging along it (``move_plans``), and for a ship to fire, each weapon system's
eligible targets with the dice it rolls at each and the score it needs (``fire_plan``); a fire
form's fields read back into the action JSON (``fire_from_form``).

Everything here reads the engine's own rule functions (``eligible``, ``hit_modifier``,
``system_dice``, the Template 2 angles), so what the page promises is what ``apply`` does; and
it only describes actions ``legal_actions`` lists or ``check`` accepts, never decides one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import actions as A
from .engine import (
    agile,
    allowance,
    eligible,
    hit_modifier,
    shields_facing,
    system_dice,
    systems,
    turning,
)
from .geometry import advance, arcs_of, inches, norm, round_half_up, turn_degrees
from .sds import MAIN
from .state import BattleState, IllegalActionError

FIRE_FORM_RULE = "000 5.2 Fire (the fire form)"
MAX_FORM_DICE = 99


def move_path(state: BattleState, move: A.Move) -> dict[str, Any]:
    """One move's path in inches: the points it passes (start, the turning point, the end), the
    heading it ends with, the inches it uses of the ship's allowance (4.1: each point turned
    costs 1") and the turning points it spends. An orbit (9.0) is its start and end only."""
    ship = state.ship(move.ship)
    allow = allowance(ship)
    points = [ship.pos]
    heading = ship.heading
    if move.orbit is not None:
        body = next((o for o in state.objects if o.id == move.orbit), None)
        return {"points": [list(ship.pos)], "heading": heading, "used": 0.0, "left": allow, "turned": 0,
                "orbit": body.id if body else move.orbit}
    pos = ship.pos
    if move.before:
        pos = advance(pos, heading, move.before)
        points.append(pos)
    heading = norm(heading + turn_degrees(move.turn))
    if move.after:
        pos = advance(pos, heading, move.after)
        points.append(pos)
    heading = norm(heading + turn_degrees(move.turn_end))
    turned = abs(move.turn) + abs(move.turn_end)
    used = min(round(move.before + move.after + turned, 4), allow)  # 4.1: turns beyond the move are free
    return {"points": [list(p) for p in points], "heading": round(heading, 4), "used": used,
            "left": round(max(0.0, allow - used), 4), "turned": turned, "orbit": None}


def move_plans(state: BattleState, moves: Sequence[A.Move]) -> dict[int, dict[str, Any]]:
    """The listed moves of each ship, with their paths (``move_path``), and the ship's
    allowance, Turning and agility: what the board draws as the candidate end poses."""
    out: dict[int, dict[str, Any]] = {}
    for m in moves:
        if not isinstance(m, A.Move):
            continue
        ship = state.ship(m.ship)
        plan = out.setdefault(ship.id, {"ship": ship.id, "pos": list(ship.pos), "heading": ship.heading,
                                        "allowance": allowance(ship), "turning": turning(ship),
                                        "agile": agile(ship), "moves": []})
        path = move_path(state, m)
        path.update({"turn": m.turn, "turn_end": m.turn_end, "lay_mine": m.lay_mine, "sweep": m.sweep,
                     "web": m.web, "lower_shields": m.lower_shields})
        plan["moves"].append(path)
    return out


def to_hit(need: int, modifier: int) -> int:
    """The lowest face that hits (5.5: a natural 1 always misses, a natural 6 always hits)."""
    return max(2, min(6, need - modifier))


def fire_plan(state: BattleState, ship_id: int, hidden: set[int] | frozenset[int] = frozenset()) -> dict[str, Any]:
    """The ship's weapon systems with attack dice now, each with the enemy ships it may fire at
    (5.4: in arc and range, located, not cloaked and undetected; none of ``hidden``) and, at each,
    the dice it rolls (5.4, ruling BZ81: a bank split between arcs rolls its bearing share), the
    range, the score needed (5.5: the target's Size less the modifiers) or that it is a torpedo
    (5.9: resolved in the End Phase), and the shields it strikes (5.6). Secondary and Close
    Defence weapons may split their dice between targets (5.2); a main weapon fires at one."""
    ship = state.ship(ship_id)
    enemies = [e for e in state.enemy_ships(ship.side) if e.id not in hidden]
    weapons = []
    for system in systems(ship):
        dice = system_dice(ship, system)
        if dice <= 0:
            continue
        targets = []
        for e in enemies:
            if not eligible(state, ship, system, e):
                continue
            roll = dice
            if system.banks:
                bearing, total = system.bearing_share(arcs_of(ship.pos, ship.heading, e.pos))
                if bearing < total:
                    roll = round_half_up(dice * bearing / total)
            if not roll:
                continue
            entry: dict[str, Any] = {"target": e.id, "name": e.name, "range": inches(ship.pos, e.pos), "dice": roll}
            if system.torpedo:
                entry.update({"torpedo": system.torpedo, "needs": None, "modifier": None})
            else:
                mod = hit_modifier(state, ship, e)
                entry.update({"torpedo": None, "needs": to_hit(e.sd.target_size, mod), "modifier": mod,
                              "shields": shields_facing(e, ship.pos)})
            targets.append(entry)
        weapons.append({"key": system.key, "name": system.name, "dice": dice, "range": system.range,
                        "arcs": sorted(system.arcs), "split": system.group != MAIN, "torpedo": system.torpedo,
                        "targets": targets})
    return {"ship": ship.id, "name": ship.name, "weapons": weapons}


def _whole(value: str, what: str) -> int:
    text = (value or "").strip()
    if not text:
        return 0
    if not text.isdigit() or int(text) > MAX_FORM_DICE:
        raise IllegalActionError(FIRE_FORM_RULE, f"{what} is a number of dice from 0 to {MAX_FORM_DICE}, not {value!r}")
    return int(text)


def fire_from_form(form: Mapping[str, list[str]]) -> dict[str, Any]:
    """The fire action JSON from the play page's fire form: ``ship``; one ``dice:<weapon>:<target>``
    field per weapon and eligible target (a number of dice, blank or 0 for none), in the order
    the page lists them; ``board`` (a ship id, or blank). Whether the shots are legal is the
    engine's to say (``check``); this only reads the form."""
    def one(name: str) -> str:
        values = form.get(name) or [""]
        return values[-1]

    ship = one("ship").strip()
    if not ship.isdigit():
        raise IllegalActionError(FIRE_FORM_RULE, "the fire form names no ship")
    shots = []
    for name, values in form.items():
        if not name.startswith("dice:"):
            continue
        parts = name.split(":")
        if len(parts) != 3 or not parts[1] or not parts[2].isdigit():
            raise IllegalActionError(FIRE_FORM_RULE, f"{name!r} is not a weapon and target of the fire form")
        dice = _whole(values[-1] if values else "", f"{parts[1]} at ship {parts[2]}")
        if dice:
            shots.append([parts[1], int(parts[2]), dice])
    board = one("board").strip()
    if board and not board.isdigit():
        raise IllegalActionError(FIRE_FORM_RULE, f"'board' names a ship by its number, not {board!r}")
    return {"type": "fire", "ship": int(ship), "shots": shots, "board": int(board) if board else None}


__all__ = ["fire_from_form", "fire_plan", "move_path", "move_plans", "to_hit"]
