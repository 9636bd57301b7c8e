"""The Buoyz 'N Da 'Hood table as SVG, drawn to scale in inches (pure: no Django).

``render(state, viewer_side=…, selected=…)`` draws the 72" × 48" table (ruling BZ4; any size the
state has) at ``SCALE`` pixels an inch, "up the table" (+y) at the top: a 6" grid, the celestial
objects (9.0, ruling BZ41), the minefields (5.10), the flying AC counters (4.2), torpedo counters
beside their targets (5.9), and the ships as arrows at their position and heading, with id and
hull. For the ``selected`` ship it adds its weapon systems' fire arcs and ranges (Template 1,
ruling BZ2; 5.3, 5.9) and the turning template (Template 2, ruling BZ3): the headings it may turn
to this turn, each drawn as far as its movement allowance.

Fog of war (10.2, 10.3): an enemy ship that is cloaked and not detected is not drawn at all, nor
is anything that would give it away (its arcs, its AC aboard); the viewer's own cloaked ships
are drawn faded. ``viewer_side=None`` draws everything (the moderator, or a finished battle).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from .engine import allowance, system_dice, systems, turning
from .geometry import ARC_CENTRES, ARC_HALF_WIDTH, turn_degrees
from .state import ACTIVE, ASTEROIDS, LURKING, MOON, NEBULA, PLANET, BattleState, Ship, no_such_ship

SCALE = 10  # pixels an inch
MARGIN = 22
DEFAULT_COLOURS = ("#d0453a", "#3a72d0", "#3aa35c", "#d0a13a", "#9b5bd0", "#3ab8c4")  # up to six sides (BZ83)
OBJECT_FILL = {PLANET: "#2f7d4f", MOON: "#8a8f99", ASTEROIDS: "#7a6a55", NEBULA: "#6b5b8c"}
AC_LETTER = {"fighter": "F", "bomber": "B", "shuttle": "S"}
ARC_COLOURS = ("#ffd166", "#06d6a0", "#ef476f", "#8ecae6", "#f4a261")


def _attr(text: object) -> str:
    return escape(str(text), quote=True)


def hidden_from(ship: Ship, viewer_side: int | None) -> bool:
    """Whether ``viewer_side`` may not see ``ship``: an enemy lurking, or cloaked and not
    detected (10.2, 10.3)."""
    return (viewer_side is not None and ship.side != viewer_side
            and (ship.status == LURKING or (ship.cloaked and not ship.detected)))


def ship_in_sight(state: BattleState, ship_id: int, viewer_side: int | None) -> Ship:
    """Ship ``ship_id`` as ``viewer_side`` names it: one it cannot see is refused exactly as a
    ship that is not in the battle (ruling BZP2), so the refusal gives nothing away."""
    ship = state.ship(ship_id)
    if hidden_from(ship, viewer_side):
        raise no_such_ship(ship_id)
    return ship


def visible_ships(state: BattleState, viewer_side: int | None) -> list[Ship]:
    return [s for s in state.ships if s.status == ACTIVE and not hidden_from(s, viewer_side)]


TABLE_GAP = 30  # pixels between the tables of 11.3, drawn side by side


class _Frame:
    """Table inches → SVG pixels (y flipped: up the table is up the page). The tables of 11.3
    (ruling BZ82: table k's west edge at x = k × pitch) are drawn side by side."""

    def __init__(self, state: BattleState):
        self.w, self.h = state.table
        self.tables, self.pitch = state.tables, state.pitch
        self.width = round(self.tables * self.w * SCALE + (self.tables - 1) * TABLE_GAP + 2 * MARGIN)
        self.height = round(self.h * SCALE + 2 * MARGIN)

    def x(self, x: float) -> float:
        k = min(max(int(math.floor((x + 1e-6) / self.pitch)), 0), self.tables - 1) if self.tables > 1 else 0
        return round(MARGIN + k * (self.w * SCALE + TABLE_GAP) + (x - k * self.pitch) * SCALE, 2)

    def y(self, y: float) -> float:
        return round(MARGIN + (self.h - y) * SCALE, 2)


def _wedge(f: _Frame, pos, heading: float, arc: str, reach: float) -> str:
    """The SVG path of one Template 1 quadrant out to ``reach`` inches."""
    centre = heading + ARC_CENTRES[arc]
    a0, a1 = math.radians(centre - ARC_HALF_WIDTH), math.radians(centre + ARC_HALF_WIDTH)
    x0, y0 = f.x(pos[0]), f.y(pos[1])
    r = reach * SCALE
    p0 = (round(x0 + r * math.sin(a0), 2), round(y0 - r * math.cos(a0), 2))
    p1 = (round(x0 + r * math.sin(a1), 2), round(y0 - r * math.cos(a1), 2))
    return f"M{x0},{y0} L{p0[0]},{p0[1]} A{r},{r} 0 0 1 {p1[0]},{p1[1]} Z"


def _for(ship: Ship, shown: bool) -> str:
    """The attributes of a ship's arcs or template group: whose they are, and hidden unless it is
    the selected ship (the page's script shows another ship's when the player picks it)."""
    return f' data-for="{ship.id}"' + ("" if shown else ' display="none"')


def _arcs(f: _Frame, ship: Ship, shown: bool = True) -> list[str]:
    out = [f'<g class="fire-arcs"{_for(ship, shown)} pointer-events="none">']
    for i, system in enumerate(systems(ship)):
        dice = system_dice(ship, system)
        if not dice:
            continue
        colour = ARC_COLOURS[i % len(ARC_COLOURS)]
        for arc in sorted(system.arcs):
            out.append(
                f'<path class="arc" data-weapon="{_attr(system.key)}" data-arc="{arc}" '
                f'd="{_wedge(f, ship.pos, ship.heading, arc, system.range)}" fill="{colour}" fill-opacity="0.10" '
                f'stroke="{colour}" stroke-opacity="0.7" stroke-width="1"><title>{_attr(system.name)}: '
                f'{dice} dice, {system.range}" range, {arc} arc</title></path>'
            )
    out.append("</g>")
    return out


def _template(f: _Frame, ship: Ship, shown: bool = True) -> list[str]:
    """Template 2: the headings the ship may turn to this turn, each as far as its allowance
    (a turn costs 1" a point, 4.1, so a line stops short by the points turned)."""
    reach, points = allowance(ship), turning(ship)
    if reach <= 0:
        return []
    x0, y0 = f.x(ship.pos[0]), f.y(ship.pos[1])
    out = [
        f'<g class="turn-template"{_for(ship, shown)} pointer-events="none"><circle cx="{x0}" cy="{y0}" '
        f'r="{round(reach * SCALE, 2)}" '
        'fill="none" stroke="#ffffff" stroke-opacity="0.35" stroke-dasharray="4 4"/>'
    ]
    for p in range(-points, points + 1):
        dist = max(0.0, reach - abs(p))
        if dist <= 0 and p:
            continue
        h = math.radians(ship.heading + turn_degrees(p))
        x1, y1 = round(x0 + dist * SCALE * math.sin(h), 2), round(y0 - dist * SCALE * math.cos(h), 2)
        out.append(f'<line class="turn" data-points="{p}" x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#ffffff" '
                   f'stroke-opacity="{0.9 if p == 0 else 0.55}" stroke-width="1.2"><title>turn {p:+d}: '
                   f'{abs(turn_degrees(p)):g}° to {"starboard" if p > 0 else "port" if p else "ahead"}, '
                   f'{dist:g}" left</title></line>')
    out.append("</g>")
    return out


def _ship_title(ship: Ship, names: Mapping[int, str]) -> str:
    lines = [f"{ship.name} — ship {ship.id}, {names.get(ship.side, f'side {ship.side}')}",
             f"Hull {ship.hull}/{ship.sd.hull}{' (crippled)' if ship.crippled else ''}; heading {ship.heading:g}°; "
             f"at ({ship.pos[0]:g}, {ship.pos[1]:g})",
             "Shields F/P/S/A " + "/".join(str(v) for v in ship.sd.shields)]
    flags = [t for t, on in (("cloaked", ship.cloaked), ("detected", ship.detected), ("flagship", ship.flagship),
                             ("moved", ship.moved), ("fired", ship.fired)) if on]
    if flags:
        lines.append(", ".join(flags))
    return "\n".join(lines)


def _ship(f: _Frame, ship: Ship, colour: str, names: Mapping[int, str], selected: bool) -> str:
    cx, cy = f.x(ship.pos[0]), f.y(ship.pos[1])
    size = 7 + ship.sd.target_size  # a bigger counter for a bigger ship
    parts = [f'<g class="ship{" selected" if selected else ""}" data-ship="{ship.id}" data-side="{ship.side}" '
             f'opacity="{0.45 if ship.cloaked else 1}">', f"<title>{_attr(_ship_title(ship, names))}</title>"]
    if selected:
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="{size + 4}" fill="none" stroke="#ffe14d" stroke-width="2"/>')
    parts.append(f'<polygon points="0,{-size} {size * 0.7:.1f},{size} 0,{size * 0.45:.1f} {-size * 0.7:.1f},{size}" '
                 f'transform="translate({cx} {cy}) rotate({ship.heading:g})" fill="{colour}" stroke="#fff" '
                 'stroke-width="1"/>')
    parts.append(f'<text class="sid" x="{cx + size + 2}" y="{cy - 2}" fill="#fff" font-size="10">{ship.id}</text>')
    parts.append(f'<text class="hull" x="{cx + size + 2}" y="{cy + 9}" fill="#cfd8e3" font-size="9">{ship.hull}</text>')
    parts.append("</g>")
    return "".join(parts)


def frame_point(state: BattleState, pos) -> list[float]:
    """A table point (inches) as the SVG's pixel coordinates: for the page's script, which
    draws candidate moves over the board (tables of 11.3 side by side, as ``render`` draws)."""
    f = _Frame(state)
    return [f.x(pos[0]), f.y(pos[1])]


def render(state: BattleState, *, viewer_side: int | None = None, colours: Mapping[int, str] | None = None,
           names: Mapping[int, str] | None = None, selected: int | None = None, also: Sequence[int] = ()) -> str:
    """The table as SVG; ``selected``'s fire arcs (and, for the viewer's own ship, its turning
    template) drawn, and those of the viewer's ships in ``also`` drawn hidden, for the page's
    script to show when the player picks one of them instead."""
    colours = dict(colours or {})
    for i, side in enumerate(state.sides):
        colours.setdefault(side, DEFAULT_COLOURS[i % len(DEFAULT_COLOURS)])
    names = dict(names or {})
    f = _Frame(state)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="board buoyz" viewBox="0 0 {f.width} {f.height}" '
           f'width="{f.width}" height="{f.height}" data-scale="{SCALE}" data-margin="{MARGIN}" '
           f'data-table="{f.w:g}x{f.h:g}" role="img" aria-label="Buoyz table, {f.w:g} by {f.h:g} inches">',
           f'<rect width="{f.width}" height="{f.height}" fill="#07101c"/>']
    for k in range(f.tables):
        x0 = k * f.pitch
        out.append(f'<rect class="table" x="{f.x(x0)}" y="{MARGIN}" width="{round(f.w * SCALE, 2)}" '
                   f'height="{round(f.h * SCALE, 2)}" fill="#0b1a2e" stroke="#5a6b80"/>')
        for gx in range(6, int(f.w), 6):
            out.append(f'<line class="grid" x1="{f.x(x0 + gx)}" y1="{f.y(0)}" x2="{f.x(x0 + gx)}" y2="{f.y(f.h)}" '
                       'stroke="#1d3350"/>')
        for gy in range(6, int(f.h), 6):
            out.append(f'<line class="grid" x1="{f.x(x0)}" y1="{f.y(gy)}" x2="{f.x(x0 + f.w)}" y2="{f.y(gy)}" '
                       'stroke="#1d3350"/>')
        for gx in range(0, int(f.w) + 1, 12):
            out.append(f'<text class="lbl" x="{f.x(x0 + gx)}" y="{MARGIN - 6}" fill="#8da2bb" font-size="10" '
                       f'text-anchor="middle">{gx}"</text>')
    for gy in range(0, int(f.h) + 1, 12):
        out.append(f'<text class="lbl" x="{MARGIN - 4}" y="{f.y(gy) + 3}" fill="#8da2bb" font-size="10" '
                   f'text-anchor="end">{gy}"</text>')
    for o in state.objects:
        fill = OBJECT_FILL.get(o.kind, "#555")
        opacity = 0.45 if o.kind in (NEBULA, ASTEROIDS) else 0.9
        out.append(f'<circle class="object {o.kind}" cx="{f.x(o.centre[0])}" cy="{f.y(o.centre[1])}" '
                   f'r="{round(o.radius * SCALE, 2)}" fill="{fill}" fill-opacity="{opacity}" pointer-events="none">'
                   f'<title>{o.kind} ({o.radius:g}" radius)</title></circle>')
    for m in state.minefields:
        w, h = round(m.length * SCALE, 2), round(m.width * SCALE, 2)
        out.append(f'<rect class="minefield" x="{-w / 2}" y="{-h / 2}" width="{w}" height="{h}" '
                   f'transform="translate({f.x(m.centre[0])} {f.y(m.centre[1])}) rotate({m.heading:g})" '
                   f'fill="#ff5a5a" fill-opacity="0.35" stroke="#ff5a5a" stroke-dasharray="2 2">'
                   f'<title>minefield, {m.rows} row(s)</title></rect>')
    unseen = {s.id for s in state.ships if hidden_from(s, viewer_side)}
    for web in state.webs:
        if unseen & set(web.anchors):
            continue
        out.append(f'<line class="web" x1="{f.x(web.a[0])}" y1="{f.y(web.a[1])}" x2="{f.x(web.b[0])}" '
                   f'y2="{f.y(web.b[1])}" stroke="#b388ff" stroke-width="2" stroke-dasharray="6 3">'
                   f'<title>Tholian web (7.3)</title></line>')
    shown = visible_ships(state, viewer_side)
    sel = next((s for s in shown if s.id == selected), None)
    if sel is not None:
        out += _arcs(f, sel)
        if sel.side == viewer_side or viewer_side is None:
            out += _template(f, sel)
    for other in shown:
        if other.id in also and other.id != selected and (other.side == viewer_side or viewer_side is None):
            out += _arcs(f, other, shown=False) + _template(f, other, shown=False)
    for fl in state.flights:
        if not fl.flying or fl.pos is None:
            continue
        x, y = f.x(fl.pos[0]), f.y(fl.pos[1])
        out.append(f'<g class="flight" data-flight="{fl.id}" data-side="{fl.side}"><rect x="{x - 5}" y="{y - 5}" '
                   f'width="10" height="10" fill="{colours.get(fl.side, "#999")}" stroke="#fff" stroke-width="0.8"/>'
                   f'<text x="{x}" y="{y + 3.5}" fill="#fff" font-size="8" text-anchor="middle">'
                   f'{AC_LETTER.get(fl.kind, "?")}</text><title>AC {fl.id}: {fl.kind}, dogfight {fl.dogfight}'
                   f'{"" if fl.armed else ", spent"}</title></g>')
    for t in state.torpedoes:
        target = next((s for s in shown if s.id == t.target), None)
        if target is None:
            continue
        out.append(f'<circle class="torpedo" cx="{f.x(target.pos[0]) - 8}" cy="{f.y(target.pos[1]) + 8}" r="3" '
                   f'fill="#ffb703"><title>{t.kind} torpedo at ship {t.target}</title></circle>')
    for s in shown:
        out.append(_ship(f, s, colours.get(s.side, "#999"), names, s.id == selected))
    out.append("</svg>")
    return "".join(out)


__all__ = ["MARGIN", "SCALE", "frame_point", "hidden_from", "render", "visible_ships"]
