"""What the Buoyz 'N Da 'Hood play page shows a seat: the ship rows, the acting side's choices
grouped by ship or AC flight (``_choice_groups``), their paths and destinations on the board in
the SVG's pixels (``board_plan``, ``flight_plan``), and the banner's words (``_deciding``).
"""

from __future__ import annotations

import json

from tactical.rules.play import Viewer

from .. import actions as A
from .. import board, plans
from ..engine import allowance, system_dice, systems, turning
from ..geometry import ARCS
from ..state import AC_MOVEMENT, ATTACK, INITIATIVE, MOVEMENT, BattleState
from .codec import describe, to_json
from .fog import hidden_ships, side_actions

PHASE_NAMES = {INITIATIVE: "initiative", MOVEMENT: "movement", AC_MOVEMENT: "AC movement", ATTACK: "attack"}


def ship_rows(state: BattleState, viewer: Viewer) -> list[dict]:
    hidden = hidden_ships(state, viewer.fog_side)
    rows = []
    for s in state.ships:
        if s.id in hidden:
            continue
        rows.append({
            "id": s.id, "side": s.side, "side_name": viewer.names.get(s.side, s.side), "name": s.name,
            "class": s.sd.ship_class.value, "sd": s.sd.key, "status": s.status,
            "pos": [s.pos[0], s.pos[1]], "heading": s.heading, "hull": s.hull, "max_hull": s.sd.hull,
            "crippled": s.crippled, "crits": dict(zip(("armament", "motive", "shields"), s.crits)),
            "shields": dict(zip(ARCS, s.sd.shields)), "speed": s.sd.speed, "allowance": allowance(s),
            "turning": turning(s), "cloaked": s.cloaked, "detected": s.detected, "flagship": s.flagship,
            "moved": s.moved, "fired": s.fired, "special": s.special, "mine": s.side == viewer.seat,
            "colour": viewer.colours.get(s.side, "#999"), "zone": list(s.zone) if s.zone else None,
            "weapons": [{"key": w.key, "name": w.name, "dice": system_dice(s, w), "arcs": sorted(w.arcs),
                         "range": w.range, "torpedo": w.torpedo} for w in systems(s)],
        })
    return rows


def _selected(state: BattleState, viewer: Viewer) -> int | None:
    """The ship the board highlights: the one nominated now if the viewer may see it, else the
    first of the viewer's ships still to act."""
    hidden = hidden_ships(state, viewer.fog_side)
    if state.nominated is not None and state.nominated not in hidden:
        return state.nominated
    if state.acting is not None and state.acting == viewer.seat:
        for a in side_actions(state, viewer.seat):
            if hasattr(a, "ship"):
                return a.ship
    return None


def _fly_category(a: A.FlyAC) -> str:
    """Which control of an AC counter's choices an AC move belongs to (4.2, 8.x)."""
    if a.cap:
        return "Combat Air Patrol"
    if a.loiter or a.home:
        return "Loiter or go home"
    if a.attack is not None:
        return "Attack runs and dogfights"
    return "Fly"


def _special_label(a: A.Special) -> str:
    return {"cloak": "Cloak (10.2)", "decloak": "Decloak (10.2)"}.get(a.action, "")


def _list_order(a) -> tuple:
    """The order of a ship's choices on the page: moves first, straight ahead and farthest first."""
    if isinstance(a, A.Move):
        return (0, abs(a.turn) + abs(a.turn_end), -(a.before + a.after), a.lay_mine or a.sweep or a.web)
    return (1,)


def _choice_groups(state: BattleState, seat: int) -> list[dict]:
    """The acting side's legal actions grouped by ship (or AC flight) for the page: its moves
    (the list, and on the board their paths: ``plans.move_plans``), its Special Actions (cloak and
    decloak among them), its fire (the listed volleys, and the fire form of ``plans.fire_plan``:
    every eligible target of every weapon with the dice to roll), an AC counter's moves by
    kind (attack run, CAP, loiter or home), and the rest (detect, lurk)."""
    groups: dict[str, dict] = {}
    legal = side_actions(state, seat)
    hidden = hidden_ships(state, seat)

    for a in sorted(legal, key=_list_order):
        if isinstance(a, A.FlyAC):
            f = state.flight(a.flight)
            key, label = f"flight {a.flight}", f"AC {a.flight} ({f.kind}{', spent' if not f.armed else ''})"
        elif isinstance(a, A.Begin):
            continue
        else:
            ship = state.ship(a.ship)
            key, label = f"ship {a.ship}", f"{ship.name} ({ship.id})"
        g = groups.setdefault(key, {"key": key, "label": label, "moves": [], "buttons": [], "specials": [],
                                    "fires": [], "fly": {}, "fire_plan": None, "ship": getattr(a, "ship", None),
                                    "flight": getattr(a, "flight", None),
                                    "flags": set()})
        entry = {"label": describe(to_json(a)), "json": json.dumps(to_json(a))}
        if isinstance(a, A.FlyAC):
            g["fly"].setdefault(_fly_category(a), []).append(entry)
        elif isinstance(a, (A.Move, A.Reveal)):
            g["moves"].append(entry)
            for flag in ("lay_mine", "sweep", "web"):
                if getattr(a, flag, False):
                    g["flags"].add(flag)
        elif isinstance(a, A.Special):
            entry["label"] = _special_label(a) or entry["label"]
            entry["cloak"] = a.action in ("cloak", "decloak")
            g["specials"].append(entry)
        elif isinstance(a, A.Fire):
            g["fires"].append(entry)
            if g["fire_plan"] is None:
                g["fire_plan"] = plans.fire_plan(state, a.ship, hidden)
                g["fire_plan"]["boardable"] = []
            if a.board is not None:
                g["fire_plan"]["boardable"].append(a.board)
        else:
            g["buttons"].append(entry)
    out = []
    for g in groups.values():
        g["fly"] = [{"name": name, "choices": choices} for name, choices in g["fly"].items()]
        g["flags"] = sorted(g["flags"])
        out.append(g)
    return out


def _px(state: BattleState, pos) -> list[float]:
    x, y = board.frame_point(state, pos)
    return [round(x, 1), round(y, 1)]


def board_plan(state: BattleState, seat: int) -> dict:
    """What the page's script needs to pick a move on the board (``static/buoyz_board.js``):
    each of the side's ships with listed moves, its position, and each move's path in the SVG's
    pixels, the inches and turning points it uses and ``i``, its place in the ship's list on the
    page (whose option carries the action JSON and label, so they are not sent twice). An orbit
    is chosen from the list only."""
    legal = sorted((a for a in side_actions(state, seat) if isinstance(a, A.Move)), key=_list_order)
    ships = []
    for ship_id, plan in plans.move_plans(state, legal).items():
        mine = [a for a in legal if a.ship == ship_id]
        moves = []
        for i, (m, path) in enumerate(zip(mine, plan["moves"])):
            if m.orbit is not None:
                continue
            entry = {"i": i, "px": [_px(state, p) for p in path["points"]], "heading": path["heading"],
                     "used": path["used"], "left": path["left"], "turned": path["turned"], "turn": m.turn,
                     "turn_end": m.turn_end}
            entry.update({flag: True for flag in ("lay_mine", "sweep", "web") if getattr(m, flag)})
            moves.append(entry)
        if moves:
            ships.append({"ship": ship_id, "name": state.ship(ship_id).name, "px": _px(state, plan["pos"]),
                          "allowance": plan["allowance"], "turning": plan["turning"], "agile": plan["agile"],
                          "moves": moves})
    return {"scale": board.SCALE, "ships": ships, "flights": flight_plan(state, seat)}


def flight_plan(state: BattleState, seat: int) -> list[dict]:
    """The side's AC counters to move, each listed AC move's destination in the SVG's pixels and
    its place in the page's lists: ``c``, the kind's list (``_fly_category``, in the order the
    page shows them), ``i``, the option in it."""
    out: dict[int, dict] = {}
    for a in sorted(side_actions(state, seat), key=_list_order):
        if not isinstance(a, A.FlyAC):
            continue
        f = state.flight(a.flight)
        entry = out.setdefault(a.flight, {"flight": a.flight, "px": _px(state, f.pos) if f.pos else None,
                                          "kinds": [], "moves": []})
        kind = _fly_category(a)
        if kind not in entry["kinds"]:
            entry["kinds"].append(kind)
        c = entry["kinds"].index(kind)
        i = sum(1 for m in entry["moves"] if m["c"] == c)
        entry["moves"].append({"c": c, "i": i, "px": _px(state, a.to)})
    return [e for e in out.values() if e["px"] is not None]


_DECIDING = {
    INITIATIVE: "the battle begins: initiative is rolled",
    MOVEMENT: "nominate a ship to move (a Special Action first, if any)",
    AC_MOVEMENT: "move an AC counter (an attack run, Combat Air Patrol, or home)",
    ATTACK: "nominate a ship to fire",
}


def _deciding(state: BattleState) -> str:
    """What the side to nominate decides now, for the page's banner."""
    if state.nominated is not None and state.phase == MOVEMENT:
        return f"ship {state.nominated} attempted its Special Action and moves now"
    if state.nominated is not None and state.phase == ATTACK:
        return f"ship {state.nominated} made its detection roll and fires now"
    return _DECIDING.get(state.phase, "")
