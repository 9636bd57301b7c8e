"""The Star Sectors board as an SVG string (pure code): the hex map, terrain, mines, ships with
their facing and hull, and what a side may see only (cloaked enemies hidden, VI.A).

Around one ship (the one whose turn it is, or the one the acting player is about to order) the
board draws its targeting arc (IV.D) out to its reach, each hex with the combat factor an attack
there rolls (IV.E: −1 CF per hex after the first; the point-blank hexes marked "PB"). For the
acting side's ships it also draws its legal orders as marks to tap (``plan``: each ship's legal
actions, ``sequence.legal_actions``): the hex a move or warp jump ends on, the turns to port and
starboard, the enemy ships and mines it may attack. Nothing here looks at what the side cannot
see: the ships drawn are ``seen_by`` the viewer and the marks come from the legal actions, which
never name a hidden ship (the contract's hidden-unit clause and ``test_starsectors_board``)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from html import escape

from tactical.rules.geometry import hex as hx

from . import actions as A
from . import codec
from . import core as C
from .engine import seen_by
from .state import BattleState, Ship

SIZE = 18.0
COLOURS = {"asteroid": "#8d7b68", "ion": "#d9534f", "metaphasic": "#5b8def", "moon": "#cfcfcf",
           "mutara": "#9b7fd1", "planet": "#3fa34d", "star": "#ffd23f", "wormhole": "#222", "station": "#7a7a7a"}
TERRAIN_NAMES = {"asteroid": "asteroid field", "ion": "ion storm", "metaphasic": "metaphasic nebula",
                 "moon": "moon", "mutara": "Mutara nebula", "planet": "planet", "star": "star",
                 "wormhole": "worm hole", "station": "space station"}
SIDES = {1: "#1f77b4", 2: "#d62728", 3: "#2ca02c", 4: "#9467bd", 5: "#ff7f0e", 6: "#17becf"}


def _pts(points) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def _poly(state: BattleState, c, fill: str, stroke: str = "#445", extra: str = "") -> str:
    return (f'<polygon points="{_hexagon(state, c)}" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="0.6"{extra}/>')


def _hexagon(state: BattleState, c, k: float = 1.0) -> str:
    """The corners of hex ``c`` drawn ``k`` times its size about its centre."""
    x, y = state.grid.center(c, SIZE)
    r = SIZE * k
    return _pts((x + r * math.cos(math.radians(60 * i - 30)), y + r * math.sin(math.radians(60 * i - 30)))
                for i in range(6))


def _toward(state: BattleState, c, facing: int, k: float) -> tuple[float, float]:
    """The point ``k`` hex radii from ``c``'s centre towards hex side ``facing``."""
    x, y = state.grid.center(c, SIZE)
    angle = math.radians(60 * (facing % 6))
    return x + k * SIZE * math.cos(angle), y - k * SIZE * math.sin(angle)


def _data(action) -> str:
    return escape(json.dumps(codec.to_json(action), separators=(",", ":")), quote=True)


def _banks(action, ship: Ship | None) -> str:
    names = ship.card.banks if ship is not None else ()
    return ", ".join(f"{b + 1} ({names[b]})" if b < len(names) else str(b + 1) for b in action.banks)


def label(action, ship: Ship | None = None) -> str:
    """A short English label of an order (the board's marks and the order buttons); ``ship``, the
    one ordered, names its advanced banks."""
    if isinstance(action, A.Move):
        return {"forward": "Move forward", "reverse": "Move in reverse (1 MF)", "port": "Turn to port",
                "starboard": "Turn to starboard"}[action.kind]
    if isinstance(action, A.Warp):
        return f"Warp {action.hexes} hex{'es' if action.hexes > 1 else ''}{' in reverse' if action.reverse else ''}"
    if isinstance(action, A.Attack):
        how = (["roll"] if action.roll else []) + ([f"bank{'s' if len(action.banks) > 1 else ''} "
                                                    + _banks(action, ship)] if action.banks else [])
        return f"Attack ship {action.target} ({' and '.join(how)})"
    if isinstance(action, A.Ram):
        return f"Ram ship {action.target} (kamikaze)"
    if isinstance(action, A.AttackMine):
        return f"Attack mine {action.mine}"
    if isinstance(action, A.Engineer):
        return "Engineering: " + action.task.replace("_", " ")
    if isinstance(action, A.Crew):
        return f"Command crew: {action.option} order"
    if isinstance(action, A.Transfer):
        return f"Warp energy to {action.boost.upper() if action.boost != 'repair' else 'a repair'}"
    if isinstance(action, A.Boost):
        stuff, use = action.use.split(":")
        return f"Use {stuff} for +1 {use.upper()}"
    return {A.Decloak: "Drop the cloak", A.LayMine: "Lay a mine", A.SelfDestruct: "Self-destruct",
            A.EndTurn: "End the turn", A.Withdraw: "Withdraw the whole fleet"}.get(type(action), repr(action))


# --- the parts ---------------------------------------------------------------------------------

def _terrain(state: BattleState) -> list[str]:
    out = []
    for c in state.grid.cells():
        tile = state.terrain.get(c)
        fill = COLOURS[tile.kind] if tile else "#0b1020"
        extra = f' data-cell="{c[0]},{c[1]}"'
        if tile:
            extra += f' class="ss-terrain" data-kind="{tile.kind}"'
            out.append(f'<g>{_poly(state, c, fill, extra=extra)}<title>{TERRAIN_NAMES[tile.kind]} '
                       f'at {c[0]},{c[1]}</title></g>')
        else:
            out.append(_poly(state, c, fill, extra=extra + ' class="ss-hex"'))
    return out


def _mines(state: BattleState) -> list[str]:
    out = []
    for m in state.mines:
        x, y = state.grid.center(m.cell, SIZE)
        out.append(f'<g class="ss-mine" data-mine="{m.id}"><circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" '
                   f'fill="#f0ad4e" stroke="{SIDES.get(m.side, "#fff")}" stroke-width="1.5"/>'
                   f'<title>mine {m.id} (side {m.side}) at {m.cell[0]},{m.cell[1]}</title></g>')
    return out


def _ship(state: BattleState, s: Ship, colours: Mapping[int, str], selected: bool, candidate: bool) -> str:
    colour = colours.get(s.side) or SIDES.get(s.side, "#fff")
    parts = [f'<g class="ss-ship{" ss-selected" if selected else ""}" data-ship="{s.id}" data-side="{s.side}" '
             f'data-facing="{s.facing}" data-x="{s.pos[0]}" data-y="{s.pos[1]}"'
             + (' data-candidate="1"' if candidate else "") + ">"]
    for c in s.hull():
        parts.append(_poly(state, c, colour, "#fff", ' fill-opacity="0.35"'))
    x, y = state.grid.center(s.pos, SIZE)
    tip = _toward(state, s.pos, s.facing, 0.85)
    left = _toward(state, s.pos, s.facing + 2.4, 0.62)
    right = _toward(state, s.pos, s.facing - 2.4, 0.62)
    dash = ' stroke-dasharray="2,2"' if s.cloaked else ""
    ring = "#ffe14d" if selected else "#fff"
    parts.append(f'<polygon class="ss-hull" points="{_pts((tip, left, right))}" fill="{colour}" stroke="{ring}" '
                 f'stroke-width="{1.8 if selected else 1}"{dash}/>')
    parts.append(f'<text x="{x:.1f}" y="{y + 3.5:.1f}" font-size="9" text-anchor="middle" fill="#fff" '
                 f'pointer-events="none">{s.id}</text>')
    parts.append(f"<title>{escape(s.card.name)} (ship {s.id}, side {s.side}): CF {C.cf(state, s)}, "
                 f"DF {C.df(state, s)}, MF {C.mf(state, s)}, SS {s.card.ss - s.damage}/{s.card.ss}, "
                 f"facing {hx.SIDES[s.facing]}{', cloaked' if s.cloaked else ''}</title></g>")
    return "".join(parts)


def arc_cells(state: BattleState, ship: Ship, seen=None) -> list[tuple[tuple[int, int], int, str]]:
    """The hexes in ``ship``'s targeting arc (IV.D) an attack could reach, each with its range
    from the nearest hull point (IV.E: range ``r`` rolls CF − (r − 1), so the reach is the CF) and
    why fire there is blocked ("" when clear: terrain, a nebula's edge, or a vessel in ``seen`` —
    the viewer's eyes, never the firer's, so a ship hidden from the viewer blocks nothing drawn)."""
    reach = C.cf(state, ship)
    if reach < 1 or not C.ARCS[ship.card.arc]:
        return []
    hull = ship.hull()
    seen = seen if seen is not None else seen_by(state, ship.side)
    out = []
    for c in state.grid.within(ship.pos, reach + len(hull) - 1):
        if c in hull or not C.in_arc(state, ship, c):
            continue
        r, start = min((state.grid.distance(h, c), i) for i, h in enumerate(hull))
        if r <= reach:
            out.append((c, r, C.fire_blocked(state, hull[start], c, seen, exclude=(ship.id,))))
    return out


def _arcs(state: BattleState, ship: Ship, seen) -> list[str]:
    cf = C.cf(state, ship)
    blank = set(C.point_blank_cells(ship))
    out = [f'<g class="ss-arc" data-for="{ship.id}" pointer-events="none">']
    for c, r, blocked in arc_cells(state, ship, seen):
        pb = c in blank
        if blocked:
            out.append(_poly(state, c, "#888", "#666", f' fill-opacity="0.12" class="ss-blocked" data-range="{r}"'))
            continue
        out.append(_poly(state, c, "#ffe14d", "#ffe14d" if pb else "#c9a400",
                         f' fill-opacity="{0.32 if pb else max(0.08, 0.26 - 0.03 * r):.2f}"'
                         f' class="{"ss-pb" if pb else "ss-range"}" data-range="{r}"'))
        x, y = state.grid.center(c, SIZE)
        text = "PB" if pb else str(cf - (r - 1))
        out.append(f'<text x="{x:.1f}" y="{y - SIZE * 0.45:.1f}" font-size="6" text-anchor="middle" '
                   f'fill="#ffe9a8">{text}</text>')
    out.append("</g>")
    return out


def _place(ship: Ship, a) -> tuple | None:
    """Where an order is tapped on the map (None: it has no place there; a button only)."""
    if isinstance(a, A.Move):
        if a.kind in ("port", "starboard"):
            return ("turn", a.kind)
        return ("cell", hx.step(ship.pos, ship.facing + (0 if a.kind == "forward" else 3)))
    if isinstance(a, A.Warp):
        c = ship.pos
        for _ in range(a.hexes):
            c = hx.step(c, ship.facing + (3 if a.reverse else 0))
        return ("cell", c)
    if isinstance(a, (A.Attack, A.Ram)):
        return ("ship", a.target)
    if isinstance(a, A.AttackMine):
        return ("mine", a.mine)
    return None


def _attrs(kind: str, orders: Sequence, ship: Ship) -> str:
    first = orders[0]
    out = (f' data-kind="{kind}" data-action="{_data(first)}" '
           f'data-label="{escape(label(first, ship), quote=True)}"')
    if len(orders) > 1:  # the other orders of the same place: the picker offers them too
        alts = [{"label": label(a, ship), "action": codec.to_json(a)} for a in orders]
        out += f' data-alts="{escape(json.dumps(alts, separators=(",", ":")), quote=True)}"'
    return out


def _title(orders: Sequence, ship: Ship) -> str:
    return "<title>" + escape("; ".join(label(a, ship) for a in orders)) + "</title>"


def _mark_hex(state: BattleState, cell, kind: str, orders: Sequence, ship: Ship, extra: str = "") -> str:
    return (f'<polygon class="ss-go"{_attrs(kind, orders, ship)} points="{_hexagon(state, cell, 0.86)}"{extra}>'
            f"{_title(orders, ship)}</polygon>")


def _marks(state: BattleState, ship: Ship, actions: Sequence) -> list[str]:
    """The legal orders of ``ship`` that have a place on the map, as marks to tap: one a place,
    the first order there its own (a move before a warp jump to the same hex, an attack before a
    ram), the others offered beside it (``data-alts``)."""
    places: dict[tuple, list] = {}
    for a in sorted(actions, key=lambda a: isinstance(a, (A.Warp, A.Ram))):
        where = _place(ship, a)
        if where is not None:
            places.setdefault(where, []).append(a)
    out = []
    for (what, where), orders in places.items():
        if what == "cell":
            kind = "warp" if isinstance(orders[0], A.Warp) else "move"
            out.append(_mark_hex(state, where, kind, orders, ship))
            if kind == "warp":
                x, y = state.grid.center(where, SIZE)
                out.append(f'<text x="{x:.1f}" y="{y + 3:.1f}" font-size="8" text-anchor="middle" fill="#bff" '
                           f'pointer-events="none">W{orders[0].hexes}</text>')
        elif what == "turn":
            x, y = _toward(state, ship.pos, ship.facing + (1 if where == "port" else -1), 0.78)
            out.append(f'<g class="ss-go ss-turn"{_attrs("turn", orders, ship)}><circle cx="{x:.1f}" '
                       f'cy="{y:.1f}" r="{SIZE * 0.5:.1f}"/><text x="{x:.1f}" y="{y + 3.5:.1f}" font-size="10" '
                       f'text-anchor="middle" pointer-events="none">{"↺" if where == "port" else "↻"}</text>'
                       f"{_title(orders, ship)}</g>")
        elif what == "ship":
            for c in state.ship(where).hull():
                out.append(_mark_hex(state, c, "attack", orders, ship, f' data-target="{where}"'))
        else:
            mine = next(m for m in state.mines if m.id == where)
            out.append(_mark_hex(state, mine.cell, "mine", orders, ship, f' data-mine="{where}"'))
    return out


def board_svg(state: BattleState, side: int | None, plan: Mapping[int, Sequence] | None = None,
              selected: int | None = None, colours: Mapping[int, str] | None = None) -> str:
    """The map seen by ``side`` (None: everything). ``plan``: the acting viewer's ships and each
    one's legal actions (marks to tap, static/starsectors_board.js); ``selected``: the ship whose
    arc and marks show first (the others' are drawn hidden, shown when their ship is tapped)."""
    colours = colours or {}
    plan = plan or {}
    w, h = state.grid.pixel_size(SIZE)
    seen = seen_by(state, side)
    if selected is not None and selected not in seen:
        selected = None
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0f} {h:.0f}" class="ss-board" '
           f'role="img" aria-label="Star Sectors hex map"'
           + (f' data-selected="{selected}"' if selected is not None else "") + ">"]
    out += _terrain(state)
    out += _mines(state)
    ships = [s for s in state.ships if s.alive and s.id in seen]
    arcs = [s for s in ships if s.id in plan or s.id == selected]
    for s in arcs:
        group = _arcs(state, s, seen)
        if s.id != selected:
            group[0] = group[0][:-1] + ' display="none">'
        out += group
    for s in ships:
        out.append(_ship(state, s, colours, s.id == selected, s.id in plan))
    for sid, actions in plan.items():
        ship = state.ship(sid)
        hidden = "" if sid == selected else ' display="none"'
        out.append(f'<g class="ss-plan" data-for="{sid}"{hidden}>')
        out += _marks(state, ship, actions)
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


__all__ = ["COLOURS", "SIDES", "arc_cells", "board_svg", "label"]
