"""The Print&Play mat as an SVG string (pure Python): the mat in inches with a 6" grid, the 8"
deployment zones, terrain, and each ship as an arrow at its heading with its four shields drawn
as arcs on its sides (thicker: more shields), its id and hull. Ships hidden from the viewer are
not drawn (ruling PP7)."""

from __future__ import annotations

import math
from html import escape

from .dashboards import SIDES
from .state import SIDE_CENTRES, ZONE, State, hidden_from

SCALE = 12  # pixels per inch
COLOURS = ("#4da3ff", "#ff5a5a", "#4dd17a", "#ffb347", "#c77dff", "#f2f26b")


def _pt(state: State, pos) -> tuple[float, float]:
    return round(pos[0] * SCALE, 1), round((state.mat[1] - pos[1]) * SCALE, 1)


def _arc(cx, cy, r, heading, centre, width=80) -> str:
    a0 = math.radians(heading + centre - width / 2)
    a1 = math.radians(heading + centre + width / 2)
    x0, y0 = cx + r * math.sin(a0), cy - r * math.cos(a0)
    x1, y1 = cx + r * math.sin(a1), cy - r * math.cos(a1)
    return f"M{x0:.1f},{y0:.1f} A{r},{r} 0 0 1 {x1:.1f},{y1:.1f}"


def ship_svg(state: State, ship, colour: str, selected: bool = False) -> str:
    cx, cy = _pt(state, ship.pos)
    h = ship.heading
    r = SCALE * 1.6  # drawn larger than the 1" tile, to be seen on a phone
    tip = (cx + r * math.sin(math.radians(h)), cy - r * math.cos(math.radians(h)))
    left = (cx + r * 0.7 * math.sin(math.radians(h + 140)), cy - r * 0.7 * math.cos(math.radians(h + 140)))
    right = (cx + r * 0.7 * math.sin(math.radians(h - 140)), cy - r * 0.7 * math.cos(math.radians(h - 140)))
    parts = [f'<g class="pp-ship" id="ship-{ship.id}" data-ship="{ship.id}" data-side="{ship.side}">',
             f"<title>{escape(ship.name)} (side {ship.side}): hull {ship.hull}/{ship.dash.hull}, shields "
             + ", ".join(f"{s} {ship.shield(s)}" for s in SIDES) + (", cloaked" if ship.cloaked else "")
             + (f", {ship.power} power token" if ship.power else "") + "</title>"]
    for side in SIDES:
        value = 0 if ship.cloaked else ship.shield(side)
        width = 1.5 + 4.5 * min(value, ship.dash.shield_max) / max(ship.dash.shield_max, 1)
        opacity = "0.9" if value else "0.2"
        parts.append(
            f'<path class="pp-shield" data-side="{side}" d="{_arc(cx, cy, SCALE * 2.2, h, SIDE_CENTRES[side])}" '
            f'stroke="#9fe8ff" stroke-width="{width:.1f}" fill="none" opacity="{opacity}"/>'
        )
    dash = ' stroke-dasharray="3,2"' if ship.cloaked else ""
    parts.append(
        f'<polygon points="{tip[0]:.1f},{tip[1]:.1f} {left[0]:.1f},{left[1]:.1f} {right[0]:.1f},{right[1]:.1f}" '
        f'fill="{colour}" stroke="{"#fff" if selected else "#000"}" stroke-width="{2 if selected else 1}"{dash}/>'
    )
    parts.append(f'<text x="{cx:.1f}" y="{cy + SCALE * 3.4:.1f}" font-size="18" fill="#fff" text-anchor="middle">'
                 f"{ship.id}·{ship.hull}</text></g>")
    return "".join(parts)


def render(state: State, side: int | None = None, selected: int | None = None, colours=None, dots=()) -> str:
    """The mat seen by ``side`` (None: everything); ``dots``: (x, y, move JSON, label) of the
    moves the viewer may pick on the mat (static/printplay_board.js)."""
    w, hgt = state.mat
    W, H = w * SCALE, hgt * SCALE
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W:.0f} {H:.0f}" width="{W:.0f}" height="{H:.0f}" '
           f'role="img" aria-label="The mat, {w:g} by {hgt:g} inches">',
           f'<rect width="{W:.0f}" height="{H:.0f}" fill="#07101c"/>']
    for x in range(0, int(w) + 1, 6):
        out.append(f'<line x1="{x * SCALE}" y1="0" x2="{x * SCALE}" y2="{H:.0f}" stroke="#1c2a3d" stroke-width="1"/>')
    for y in range(0, int(hgt) + 1, 6):
        out.append(f'<line x1="0" y1="{y * SCALE}" x2="{W:.0f}" y2="{y * SCALE}" stroke="#1c2a3d" stroke-width="1"/>')
    z = ZONE * SCALE
    out.append(f'<rect x="{z}" y="{z}" width="{W - 2 * z:.0f}" height="{H - 2 * z:.0f}" fill="none" '
               'stroke="#2e4463" stroke-dasharray="6,4"/>')
    for t in state.terrain:
        cx, cy = _pt(state, t.at)
        fill = "#6b5a45" if t.kind == "asteroids" else "#6a3fb0"
        label = "asteroids" if t.kind == "asteroids" else f"nebula type {t.nebula}"
        out.append(f'<circle class="pp-terrain" cx="{cx}" cy="{cy}" r="{t.radius * SCALE:.1f}" fill="{fill}" '
                   f'opacity="0.35"><title>{label}</title></circle>')
    sides = list(state.sides)
    for ship in state.ships:
        if not ship.alive or hidden_from(state, ship, side):
            continue
        colour = (colours or {}).get(ship.side) or (COLOURS[sides.index(ship.side) % len(COLOURS)]
                                                    if ship.side in sides else "#ccc")
        out.append(ship_svg(state, ship, colour, ship.id == selected))
    for x, y, move, text in dots:
        px, py = _pt(state, (x, y))
        out.append(f'<circle class="pp-dot" cx="{px}" cy="{py}" r="5" fill="#ffffff" opacity="0.75" '
                   f'data-move="{escape(move, quote=True)}" data-label="{escape(text, quote=True)}">'
                   f"<title>{escape(text)}</title></circle>")
    out.append("</svg>")
    return "".join(out)


__all__ = ["COLOURS", "render"]
