"""The tactical board as SVG (pure: no Django): the 16 × 16 table of 3" squares, its spatial
anomalies, the ships as coloured arrows pointing where they face, with their id, hull and the
force field of each arc, the activated ship highlighted.

``render(state, viewer_side=…)`` draws the table as that side sees it: an enemy ship hidden by
its stealth field is not drawn at all (003 "Stealth Fields"); the viewer's own hidden ships are
drawn faded. ``viewer_side=None`` draws everything (the moderator, or a finished battle).
Each square carries ``data-x``/``data-y`` so the page can make squares clickable.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape

from .geometry import ARC_NAMES, FACING_NAMES, FACING_VECTORS
from .state import (
    ACTIVE,
    BLACK_HOLE,
    CLOUD,
    DESTROYED,
    LANDED,
    PLANET,
    SHUTTLE_HULL,
    SUN,
    WARPED_OUT,
    WORMHOLE,
    BattleState,
    TacticalShip,
)

CELL = 40
MARGIN = 18
DEFAULT_COLOURS = ("#d0453a", "#3a72d0", "#3aa35a", "#c9a227")
TERRAIN_FILL = {CLOUD: "#6b5b8c", SUN: "#f2b134", BLACK_HOLE: "#000000", WORMHOLE: "#1c6d73", PLANET: "#2f7d4f"}
TERRAIN_LABEL = {CLOUD: "particle cloud", SUN: "sun", BLACK_HOLE: "black hole", WORMHOLE: "wormhole", PLANET: "planet"}


def _attr(text: object) -> str:
    return escape(str(text), quote=True)


def condition(ship: TacticalShip) -> tuple[str, str]:
    """What became of a ship, for the pages (issue 13 item 11): ("in_play" | "abandoned" |
    "destroyed" | "warped_out" | "landed", a sentence). An abandoned ship is lost even while its
    crew's shuttlecraft is still on the table (ruling TC20), so it never reads as alive."""
    if ship.shuttle:
        why = f" ({ship.fate})" if ship.fate and ship.fate != "shuttle destroyed" else ""
        if ship.status == DESTROYED:
            return "destroyed", f"abandoned{why}; the crew's shuttlecraft was lost"
        if ship.status == WARPED_OUT:
            return "abandoned", f"abandoned{why}; the crew escaped in a shuttlecraft"
        return "abandoned", f"abandoned{why}: the crew are in a shuttlecraft"
    if ship.status == DESTROYED:
        return "destroyed", "destroyed" + (f" ({ship.fate})" if ship.fate else "")
    if ship.status == WARPED_OUT:
        return "warped_out", "warped out"
    if ship.status == LANDED:
        return "landed", "landed"
    return "in_play", "in play"


def max_hull(ship: TacticalShip) -> int:
    return SHUTTLE_HULL if ship.shuttle else ship.design.hull


def _ship_title(ship: TacticalShip, names: Mapping[int, str]) -> str:
    sys = ship.systems()
    fields = ", ".join(f"{arc} {sys['force_fields'][arc]}" + ("" if sys["generators"][arc] else " (no generator)")
                       for arc in ARC_NAMES)
    if ship.shuttle:
        return "\n".join(
            [
                f"Shuttlecraft of ship {ship.id} ({ship.name or ship.design.name}), "
                f"{names.get(ship.side, f'side {ship.side}')}",
                f"The ship is {condition(ship)[1]} (ruling TC20: the ship is lost).",
                f"Shuttlecraft hull {ship.hull}/{SHUTTLE_HULL}; movement {max(ship.movement, 0)}; facing "
                f"{FACING_NAMES[ship.facing]}",
            ]
        )
    lines = [
        f"{ship.name or ship.design.name} — ship {ship.id}, {names.get(ship.side, f'side {ship.side}')}",
        f"{ship.design.name}",
        f"Hull {ship.hull}/{ship.design.hull}; engines {max(ship.movement, 0)}/{ship.design.engine}"
        + (" (destroyed)" if ship.engines_destroyed else "") + f"; facing {FACING_NAMES[ship.facing]}",
        f"Force fields: {fields}",
        "Weapons: " + (", ".join(w.replace("_", " ") for w in ship.weapons) or "none")
        + (f" (lost: {', '.join(w.replace('_', ' ') for w in ship.weapons_lost)})" if ship.weapons_lost else ""),
        f"Boarding parties {ship.boarding_parties}; power {'on' if ship.power else 'LOST'}; sensors "
        f"{'working' if ship.sensors else 'destroyed'}; life support {sys['life_support']}",
    ]
    flags = [f for f, on in (("evasive manoeuvres", ship.evasive), ("stealth engaged", ship.stealth_engaged),
                             ("hero crew", ship.hero_crew), (f"captured by side {ship.captured_by}",
                                                             ship.captured_by is not None)) if on]
    if flags:
        lines.append("; ".join(flags))
    return "\n".join(lines)


def visible_ships(state: BattleState, viewer_side: int | None) -> list[TacticalShip]:
    """Ships on the table that ``viewer_side`` sees (all for None)."""
    out = []
    for s in state.ships:
        if s.status != ACTIVE:
            continue
        if s.stealth_engaged and viewer_side is not None and s.side != viewer_side:
            continue
        out.append(s)
    return out


def render(state: BattleState, *, viewer_side: int | None = None, colours: Mapping[int, str] | None = None,
           names: Mapping[int, str] | None = None, highlight: Iterable[tuple[int, int]] = (),
           last_move: tuple[int, int] | None = None) -> str:
    colours = dict(colours or {})
    for i, side in enumerate(state.sides):
        colours.setdefault(side, DEFAULT_COLOURS[i % len(DEFAULT_COLOURS)])
    names = dict(names or {})
    w, h = state.field.width, state.field.height
    width, height = w * CELL + 2 * MARGIN, h * CELL + 2 * MARGIN
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" role="img" aria-label="Tactical board, {w} by {h} squares">',
           f'<rect width="{width}" height="{height}" fill="#07101c"/>']
    for x in range(w):
        out.append(
            f'<text class="lbl" x="{MARGIN + x * CELL + CELL / 2}" y="{MARGIN - 5}" text-anchor="middle">{x}</text>'
        )
    for y in range(h):
        out.append(
            f'<text class="lbl" x="{MARGIN - 4}" y="{MARGIN + y * CELL + CELL / 2 + 3}" text-anchor="end">{y}</text>'
        )
    reach = set(highlight)
    for y in range(h):
        for x in range(w):
            cls = "sq reach" if (x, y) in reach else "sq"
            out.append(f'<rect class="{cls}" data-x="{x}" data-y="{y}" x="{MARGIN + x * CELL}" y="{MARGIN + y * CELL}" '
                       f'width="{CELL}" height="{CELL}"><title>({x}, {y})</title></rect>')
    planets = {sq: p for p in state.planets for sq in p.squares}
    for (x, y), kind in sorted(state.field.terrain.items()):
        cx, cy = MARGIN + x * CELL + CELL / 2, MARGIN + y * CELL + CELL / 2
        label = TERRAIN_LABEL.get(kind, kind)
        if kind == PLANET and (x, y) in planets:
            p = planets[(x, y)]
            if p.status == "destroyed":
                continue
            owner = names.get(p.owner, f"side {p.owner}") if p.owner is not None else "nobody"
            label = (
                f"planet {p.id}: owned by {owner}; defences {'yes' if p.defences else 'no'}; {p.status}"
                + (
                    f" (surrendered to {names.get(p.surrendered_to, p.surrendered_to)})"
                    if p.surrendered_to is not None
                    else ""
                )
            )
        title = f"<title>({x}, {y}) {_attr(label)}</title>"
        fill = TERRAIN_FILL.get(kind, "#555")
        if kind == CLOUD:
            out.append(
                f'<rect class="terrain cloud" x="{cx - CELL / 2 + 2}" y="{cy - CELL / 2 + 2}" width="{CELL - 4}" '
                f'height="{CELL - 4}" rx="8" fill="{fill}" opacity="0.55" pointer-events="none">{title}</rect>'
            )
        elif kind == SUN:
            out.append(f'<circle class="terrain sun" cx="{cx}" cy="{cy}" r="{CELL * 0.4}" fill="{fill}" '
                       f'stroke="#ffe08a" stroke-width="3">{title}</circle>')
        elif kind == BLACK_HOLE:
            out.append(f'<circle class="terrain black-hole" cx="{cx}" cy="{cy}" r="{CELL * 0.4}" fill="#000" '
                       f'stroke="#a070ff" stroke-width="2" stroke-dasharray="4 3">{title}</circle>')
        elif kind == WORMHOLE:
            out.append(f'<circle class="terrain wormhole" cx="{cx}" cy="{cy}" r="{CELL * 0.38}" fill="none" '
                       f'stroke="#4fd1d9" stroke-width="3">{title}</circle>')
        else:
            ring = colours.get(planets[(x, y)].owner, "#cfd8e3") if (x, y) in planets else "#cfd8e3"
            out.append(f'<circle class="terrain planet" cx="{cx}" cy="{cy}" r="{CELL * 0.42}" fill="{fill}" '
                       f'stroke="{ring}" stroke-width="3" pointer-events="none">{title}</circle>')
    if last_move is not None:
        x, y = last_move
        out.append(
            f'<rect x="{MARGIN + x * CELL + 1}" y="{MARGIN + y * CELL + 1}" width="{CELL - 2}" height="{CELL - 2}" '
            'fill="none" stroke="#fff" stroke-dasharray="3 3" pointer-events="none"/>'
        )
    active = state.activation.ship if state.activation else None
    for s in visible_ships(state, viewer_side):
        out.append(_ship(s, colours.get(s.side, "#999"), names, active == s.id))
    out.append("</svg>")
    return "".join(out)


def _ship(s: TacticalShip, colour: str, names: Mapping[int, str], active: bool) -> str:
    x0, y0 = MARGIN + s.pos[0] * CELL, MARGIN + s.pos[1] * CELL
    cx, cy = x0 + CELL / 2, y0 + CELL / 2
    angle = s.facing * 90  # the arrow is drawn pointing north, then rotated
    parts = [f'<g class="ship{" active" if active else ""}{" shuttle" if s.shuttle else ""}" data-ship="{s.id}" '
             f'data-side="{s.side}" data-condition="{condition(s)[0]}" '
             f'opacity="{0.45 if s.stealth_engaged else 1}">',
             f"<title>{_attr(_ship_title(s, names))}</title>"]
    if active:
        parts.append(f'<rect x="{x0 + 1}" y="{y0 + 1}" width="{CELL - 2}" height="{CELL - 2}" fill="none" '
                     'stroke="#ffe14d" stroke-width="3" rx="4"/>')
    # Force fields: one edge per arc, thicker the stronger it is; dashed grey where the generator is gone.
    fx, fy = FACING_VECTORS[s.facing]
    edges = []
    for arc in range(4):
        # arc 0 forward, 1 starboard, 2 aft, 3 port: rotate the facing vector clockwise by 90° per arc
        vx, vy = fx, fy
        for _ in range(arc):
            vx, vy = -vy, vx
        edges.append((arc, vx, vy))
    strength = s.design.force_field or 0
    for arc, vx, vy in edges:
        if strength <= 0 and not s.generators[arc]:
            continue
        value = s.force_fields[arc]
        half = CELL / 2 - 3
        if vx:  # a vertical edge
            ex = cx + vx * half
            x1 = x2 = ex
            y1, y2 = cy - half, cy + half
        else:
            ey = cy + vy * half
            y1 = y2 = ey
            x1, x2 = cx - half, cx + half
        if not s.generators[arc]:
            style = 'stroke="#777" stroke-width="1.5" stroke-dasharray="3 3"'
        elif value <= 0:
            style = 'stroke="#ff5a5a" stroke-width="1.5" stroke-dasharray="1 3"'
        else:
            style = f'stroke="#7fe0ff" stroke-width="{1 + 3 * value / max(strength, 1):.1f}" opacity="0.9"'
        parts.append(f'<line class="ff ff-{ARC_NAMES[arc]}" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" {style}>'
                     f"<title>{ARC_NAMES[arc]} force field {value}/{strength}</title></line>")
    size = CELL * (0.26 if s.shuttle else 0.36)
    parts.append(f'<polygon points="0,{-size} {size * 0.8},{size} 0,{size * 0.45} {-size * 0.8},{size}" '
                 f'transform="translate({cx} {cy}) rotate({angle})" fill="{colour}" stroke="#fff" stroke-width="1"/>')
    parts.append(f'<text class="sid" x="{x0 + 3}" y="{y0 + 11}">{s.id}</text>')
    if s.shuttle:  # the ship is lost: its crew's shuttlecraft carries an "S", not the ship's hull
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL * 0.42}" fill="none" stroke="#ffffff" '
                     'stroke-width="1" stroke-dasharray="2 3"/>')
        parts.append(f'<text class="hull" x="{x0 + CELL - 3}" y="{y0 + CELL - 4}" text-anchor="end">S</text>')
    else:
        parts.append(f'<text class="hull" x="{x0 + CELL - 3}" y="{y0 + CELL - 4}" text-anchor="end">{s.hull}</text>')
    parts.append("</g>")
    return "".join(parts)


__all__ = ["render", "visible_ships", "condition", "max_hull", "CELL", "MARGIN"]
