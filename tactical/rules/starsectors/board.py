"""The Star Sectors board as an SVG string (pure code): the hex map, terrain, mines, ships with
their facing, what a side may see only (cloaked enemies hidden, VI.A)."""

from __future__ import annotations

from html import escape

from tactical.rules.geometry import hex as hx

from .engine import seen_by
from .state import BattleState

SIZE = 18.0
COLOURS = {"asteroid": "#8d7b68", "ion": "#d9534f", "metaphasic": "#5b8def", "moon": "#cfcfcf",
           "mutara": "#9b7fd1", "planet": "#3fa34d", "star": "#ffd23f", "wormhole": "#222", "station": "#7a7a7a"}
SIDES = {1: "#1f77b4", 2: "#d62728", 3: "#2ca02c", 4: "#9467bd", 5: "#ff7f0e", 6: "#17becf"}


def _poly(state: BattleState, c, fill: str, stroke: str = "#445", extra: str = "") -> str:
    pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in hx.corners(state.grid, c, SIZE))
    return f'<polygon points="{pts}" fill="{fill}" stroke="{stroke}" stroke-width="0.6"{extra}/>'


def board_svg(state: BattleState, side: int | None) -> str:
    w, h = state.grid.pixel_size(SIZE)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0f} {h:.0f}" class="ss-board" '
           f'role="img" aria-label="Star Sectors hex map">']
    for c in state.grid.cells():
        tile = state.terrain.get(c)
        fill = COLOURS[tile.kind] if tile else "#0b1020"
        out.append(_poly(state, c, fill, extra=f' data-cell="{c[0]},{c[1]}"'))
    for m in state.mines:
        x, y = state.grid.center(m.cell, SIZE)
        out.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#f0ad4e" data-mine="{m.id}"><title>mine '
            f'{m.id}</title></circle>'
        )
    seen = seen_by(state, side)
    for s in state.ships:
        if s.destroyed or s.id not in seen:
            continue
        colour = SIDES.get(s.side, "#fff")
        for c in s.hull()[1:]:
            out.append(_poly(state, c, colour, "#fff", ' fill-opacity="0.45"'))
        x, y = state.grid.center(s.pos, SIZE)
        fx, fy = state.grid.center(hx.step(s.pos, s.facing), SIZE)
        dash = ' stroke-dasharray="2,2"' if s.cloaked else ""
        out.append(f'<g data-ship="{s.id}"><circle cx="{x:.1f}" cy="{y:.1f}" r="{SIZE * 0.6:.1f}" fill="{colour}" '
                   f'stroke="#fff"{dash}/><line x1="{x:.1f}" y1="{y:.1f}" x2="{(x + fx) / 2:.1f}" '
                   f'y2="{(y + fy) / 2:.1f}" stroke="#fff" stroke-width="2"/>'
                   f'<text x="{x:.1f}" y="{y + 4:.1f}" font-size="10" text-anchor="middle" fill="#fff">{s.id}</text>'
                   f'<title>{escape(s.card.name)} (ship {s.id}, side {s.side})</title></g>')
    out.append("</svg>")
    return "".join(out)


__all__ = ["board_svg"]
