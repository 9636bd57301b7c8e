"""The My Trek V board as SVG (pure: no Django): the square grid, each ship a wedge pointing the
way it faces with its id and hull, and for the ``selected`` ship its range bands (1-3, 4-7, 8-11,
12 spaces: 002 Attacking) and forward arc (ruling MT12).

Fog of war: an enemy under its invisibility device that the viewer has not detected is not drawn
(ruling MT11); the viewer's own invisible ships are drawn faded. ``viewer_side=None`` draws
everything. Squares carry ``data-x``/``data-y``, ships ``data-ship``, ``data-x``, ``data-y`` and
``data-facing``, the board ``data-selected`` (the ship being ordered) for the page's script
(``static/mytrek_board.js``: a tap ahead moves forward, beside turns, on the ship holds; a tap on an
enemy attacks it).
"""

from __future__ import annotations

from html import escape

from . import engine as E
from .state import Battle

CELL = 24
MARGIN = 4
COLOURS = {1: "#d0453a", 2: "#3a72d0"}
BANDS = ((12, "#1d2b3a"), (11, "#22374a"), (7, "#29435a"), (3, "#31506b"))
WEDGE = {
    0: ((0.5, 0.1), (0.85, 0.9), (0.15, 0.9)),
    1: ((0.9, 0.5), (0.1, 0.85), (0.1, 0.15)),
    2: ((0.5, 0.9), (0.15, 0.1), (0.85, 0.1)),
    3: ((0.1, 0.5), (0.9, 0.15), (0.9, 0.85)),
}


def visible_ships(battle: Battle, viewer_side: int | None):
    return [s for s in battle.ships if not s.removed and not E.hidden_from(battle, s, viewer_side)]


def _bands(battle: Battle, ship) -> list[str]:
    out = []
    for reach, colour in BANDS:
        x0, y0 = max(0, ship.x - reach), max(0, ship.y - reach)
        x1, y1 = min(battle.width - 1, ship.x + reach), min(battle.height - 1, ship.y + reach)
        out.append(
            f'<rect class="band" x="{MARGIN + x0 * CELL}" y="{MARGIN + y0 * CELL}" '
            f'width="{(x1 - x0 + 1) * CELL}" height="{(y1 - y0 + 1) * CELL}" fill="{colour}"/>'
        )
    return out


def render(
    battle: Battle, viewer_side: int | None = None, selected: int | None = None, colours: dict | None = None
) -> str:
    colours = {**COLOURS, **(colours or {})}
    w, h = battle.width * CELL + 2 * MARGIN, battle.height * CELL + 2 * MARGIN
    ships = visible_ships(battle, viewer_side)
    chosen = next((s for s in ships if s.id == selected), None)
    mark = f' data-selected="{chosen.id}"' if chosen is not None else ""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="mytrek-board" viewBox="0 0 {w} {h}" '
        f'width="100%" role="img" aria-label="My Trek V board, turn {battle.turn}"{mark}>',
        f'<rect x="0" y="0" width="{w}" height="{h}" fill="#0b1220"/>',
    ]
    if chosen is not None:
        parts += _bands(battle, chosen)
    for y in range(battle.height):
        for x in range(battle.width):
            parts.append(
                f'<rect class="sq" data-x="{x}" data-y="{y}" x="{MARGIN + x * CELL}" y="{MARGIN + y * CELL}" '
                f'width="{CELL}" height="{CELL}" fill="none" pointer-events="all" stroke="#2a3547" '
                'stroke-width="0.5"/>'
            )
    for s in ships:
        pts = " ".join(
            f"{MARGIN + (s.x + px) * CELL:.1f},{MARGIN + (s.y + py) * CELL:.1f}" for px, py in WEDGE[s.facing]
        )
        faded = ' opacity="0.45"' if s.invisible else ""
        wreck = ' stroke-dasharray="2,2"' if s.hull <= 0 else ""
        parts.append(
            f'<g class="ship" data-ship="{s.id}" data-side="{s.side}" data-x="{s.x}" data-y="{s.y}" '
            f'data-facing="{s.facing}"{faded}>'
            f"<title>{escape(s.label)}: hull {s.hull}/{s.design.hull}</title>"
            f'<polygon points="{pts}" fill="{escape(colours.get(s.side, "#999"))}" stroke="#fff" '
            f'stroke-width="{2 if s.id == selected else 0.6}"{wreck}/>'
            f'<text x="{MARGIN + s.x * CELL + 2}" y="{MARGIN + s.y * CELL + 9}" font-size="8" '
            f'fill="#fff">{s.id}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)
