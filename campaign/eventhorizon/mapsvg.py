"""Server-rendered SVG of a campaign map: terrain, worlds by economy colour, owners, the rule
book's map symbols (^ # * + S X G), fleets and trade routes. Every occupied cell carries a
<title> so hovering shows what is there.

What goes on the map is decided elsewhere (``campaign/eventhorizon/visibility.py`` applies fog of war and
builds the ``Overlay``); this module only draws. With ``interactive=True`` every cell, empty
ones too, is a ``<g class="cell" data-x data-y>`` that takes clicks, and every fleet is its own
``<g class="fleet" data-fleet data-owner>`` so pages can address fleets one by one.

Column numbers run along the top margin and row numbers down the left one (``labels``), the
``(column,row)`` every order, report and error uses; the margin lies at negative coordinates so
cell centres stay where ``grid.center`` puts them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from ..rules.eventhorizon.mapgen import GeneratedMap, Terrain

# "Planetary Economy Type": draw industrial planets black, commercial blue, agricultural green.
ECONOMY_FILL = {"industrial": "#111111", "commercial": "#1f4fd1", "agricultural": "#1d8a2f", None: "#555555"}
CLOUD_FILL = "#b9c3d6"
BLACK_HOLE_FILL = "#2b2233"
GRID_STROKE = "#d5d0c0"
PAPER = "#f7f4ea"
INTERDICTED = "#c0392b"
OUTLINE_LIMIT = 12_000  # draw every cell's outline only on maps up to this many cells


@dataclass(frozen=True)
class FleetMark:
    """One fleet on the map, as its viewer may see it."""

    number: int
    seat: int
    colour: str
    owner: str
    ships: int
    detail: str = ""  # e.g. "2 Corvette, 1 Frigate"


@dataclass(frozen=True)
class RouteMark:
    """One trade route: its cells from world to world, whose it is, and whether it is cut."""

    path: tuple[tuple[int, int], ...]
    seat: int
    colour: str
    interdicted: bool = False


@dataclass
class Overlay:
    """What sits on the map besides terrain, by cell."""

    owner_colour: dict = field(default_factory=dict)  # coord -> "#rrggbb"
    owner_name: dict = field(default_factory=dict)  # coord -> empire name
    home_worlds: set | dict = field(default_factory=set)  # coords, or coord -> whose home world
    symbols: dict = field(default_factory=dict)  # coord -> "*^X"
    ships: dict = field(default_factory=dict)  # coord -> [(colour, count, owner name)]
    fleets: dict = field(default_factory=dict)  # coord -> [FleetMark]
    routes: list = field(default_factory=list)  # [RouteMark]
    notes: dict = field(default_factory=dict)  # coord -> [str] extra hover lines


def _polygon(grid, c, size) -> str:
    cx, cy = grid.center(c, size)
    if grid.kind == "hex":
        pts = []
        for i in range(6):
            angle = math.radians(60 * i - 30)
            pts.append(f"{cx + size * math.cos(angle):.1f},{cy + size * math.sin(angle):.1f}")
        return " ".join(pts)
    h = size / 2
    return f"{cx - h:.1f},{cy - h:.1f} {cx + h:.1f},{cy - h:.1f} {cx + h:.1f},{cy + h:.1f} {cx - h:.1f},{cy + h:.1f}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _routes(grid, routes, size) -> list[str]:
    out = []
    for route in routes:
        if len(route.path) < 2:
            continue
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in (grid.center(c, size) for c in route.path))
        colour = INTERDICTED if route.interdicted else route.colour
        dash = ' stroke-dasharray="4 3"' if route.interdicted else ""
        label = (f"trade route {route.path[0]} - {route.path[-1]}"
                 + (" (interdicted)" if route.interdicted else ""))
        out.append(
            f'<polyline class="route{" interdicted" if route.interdicted else ""}" data-owner="{route.seat}" '
            f'points="{pts}" fill="none" stroke="{colour}" stroke-width="{size * 0.18:.1f}" stroke-opacity="0.7"'
            f'{dash} stroke-linecap="round" stroke-linejoin="round"><title>{escape(label)}</title></polyline>'
        )
    return out


def label_step(cells: int) -> int:
    """Label every column/row on maps up to 60 cells a side, else every 5th or 10th."""
    return 1 if cells <= 60 else (5 if cells <= 150 else 10)


def _coordinate_labels(grid, size: float, margin: float) -> list[str]:
    """Column numbers along the top and row numbers down the left, in the margin, as orders,
    reports and errors write coordinates: ``(column,row)`` from 0 (issue 13 item 13). Drawn last
    so they are above the map; ``static/map.js`` keeps them at the edge of the view."""
    font = size * (0.55 if grid.kind == "hex" else 0.45)
    width, height = grid.pixel_size(size)
    cols = [f'<rect class="coord-strip" x="{-margin:.1f}" y="{-margin:.1f}" width="{width + margin:.1f}" '
            f'height="{margin:.1f}" fill="{PAPER}" fill-opacity="0.9"/>']
    step = label_step(grid.width)
    for col in range(0, grid.width, step):
        x, _ = grid.center((col, 0), size)
        cols.append(f'<text x="{x:.1f}" y="{-margin / 2:.1f}" data-base-y="{-margin / 2:.1f}">{col}</text>')
    rows = [f'<rect class="coord-strip" x="{-margin:.1f}" y="{-margin:.1f}" width="{margin:.1f}" '
            f'height="{height + margin:.1f}" fill="{PAPER}" fill-opacity="0.9"/>']
    step = label_step(grid.height)
    for row in range(0, grid.height, step):
        _, y = grid.center((0, row), size)
        rows.append(f'<text x="{-margin / 2:.1f}" y="{y:.1f}" data-base-x="{-margin / 2:.1f}">{row}</text>')
    style = (f'pointer-events="none" font-size="{font:.1f}" fill="#5c5440" text-anchor="middle" '
             f'dominant-baseline="central" data-font="{font:.1f}" data-margin="{margin:.1f}"')
    return [f'<g class="coord-labels coord-cols" {style}>' + "".join(cols) + "</g>",
            f'<g class="coord-labels coord-rows" {style}>' + "".join(rows) + "</g>"]


def picture_size(grid, *, size: float | None = None, labels: bool = True) -> tuple[float, float]:
    """The width and height ``render`` draws ``grid`` at (pages size the map's frame by it)."""
    if size is None:
        size = 12.0 if grid.kind == "hex" else 20.0
    width, height = grid.pixel_size(size)
    margin = size * 1.3 if labels else 0.0
    return width + margin, height + margin


def render(gmap: GeneratedMap, overlay: Overlay | None = None, *, size: float | None = None,
           interactive: bool = False, labels: bool = True) -> str:
    overlay = overlay or Overlay()
    grid = gmap.grid
    if size is None:
        size = 12.0 if grid.kind == "hex" else 20.0
    width, height = grid.pixel_size(size)
    r = size * (0.8 if grid.kind == "hex" else 0.45)
    margin = size * 1.3 if labels else 0.0
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{-margin:.0f} {-margin:.0f} {width + margin:.0f} '
        f'{height + margin:.0f}" '
        f'width="{width + margin:.0f}" height="{height + margin:.0f}" font-family="sans-serif" class="campaign-map"'
        f' data-grid="{grid.kind}" data-width="{grid.width}" data-height="{grid.height}">',
        # The paper in map units, not "100%": a percentage is of the *view*, drawn from (0, 0), so
        # once map.js zooms or pans (a new viewBox) it stopped covering the map and the hexes,
        # transparent for clicks, showed the page's navy through (issue 13 item 9).
        f'<rect class="map-paper" x="{-margin:.0f}" y="{-margin:.0f}" width="{math.ceil(width + margin)}" '
        f'height="{math.ceil(height + margin)}" fill="{PAPER}"/>',
    ]
    outline = grid.size <= OUTLINE_LIMIT or interactive
    fleets_by_cell = overlay.fleets
    if not fleets_by_cell and overlay.ships:
        occupied = overlay.ships
    else:
        occupied = fleets_by_cell
    route_svg = _routes(grid, overlay.routes, size)
    for index, terrain in enumerate(gmap.terrain):
        c = grid.coord(index)
        colour = overlay.owner_colour.get(c)
        cell_attrs = f' data-x="{c[0]}" data-y="{c[1]}"' if interactive else ""
        if (terrain is Terrain.EMPTY and colour is None and c not in occupied and c not in overlay.symbols
                and c not in overlay.notes):
            if interactive:
                out.append(
                    f'<g class="cell"{cell_attrs}><polygon points="{_polygon(grid, c, size)}" fill="transparent" '
                    f'stroke="{GRID_STROKE}" stroke-width="0.6"/></g>'
                )
            elif outline:
                out.append(
                    f'<polygon points="{_polygon(grid, c, size)}" fill="none" stroke="{GRID_STROKE}" '
                    f'stroke-width="0.6"/>'
                )
            continue
        cx, cy = grid.center(c, size)
        title = [f"({c[0]},{c[1]}) {terrain.value.replace('_', ' ')}"]
        parts = []
        fill = "transparent" if interactive else "none"
        if terrain is Terrain.PARTICLE_CLOUD:
            fill = CLOUD_FILL
        elif terrain is Terrain.BLACK_HOLE:
            fill = BLACK_HOLE_FILL
        if colour:
            fill = colour
        opacity = ' fill-opacity="0.35"' if colour else ""
        parts.append(
            f'<polygon points="{_polygon(grid, c, size)}" fill="{fill}"{opacity} stroke="{GRID_STROKE}" '
            f'stroke-width="0.6"/>'
        )
        if terrain is Terrain.BLACK_HOLE:
            parts.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.55:.1f}" fill="none" stroke="#c77dff" '
                f'stroke-width="1.2"/>'
            )
        elif terrain is Terrain.WORMHOLE:
            parts.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.7:.1f}" fill="none" stroke="#8e44ad" '
                f'stroke-width="2" stroke-dasharray="3 2"/>'
            )
        elif terrain is Terrain.PLANET:
            economy = gmap.economy_of(c)
            econ = economy.value if economy else None
            title.append(f"{econ} planet" if econ else "planet")
            parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.6:.1f}" fill="{ECONOMY_FILL[econ]}"/>')
        elif terrain is Terrain.COLONY:
            parts.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.4:.1f}" fill="{PAPER}" stroke="#333" '
                f'stroke-width="1.5"/>'
            )
        if c in overlay.home_worlds:
            parts.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.85:.1f}" fill="none" '
                f'stroke="{colour or "#000"}" stroke-width="2"/>'
            )
            whose = overlay.home_worlds.get(c) if isinstance(overlay.home_worlds, dict) else None
            title.append(f"home world of {whose}" if whose else "home world")
        if c in overlay.owner_name:
            title.append(f"owner: {overlay.owner_name[c]}")
        symbols = overlay.symbols.get(c)
        if symbols:
            # Inside the cell, above the world, so symbols on edge cells are never clipped.
            parts.append(
                f'<text x="{cx:.1f}" y="{cy - r * 0.45:.1f}" font-size="{size * 0.6:.1f}" text-anchor="middle" '
                f'fill="#000" stroke="{PAPER}" stroke-width="0.6" paint-order="stroke" '
                f'font-weight="bold">{escape(symbols)}</text>'
            )
            title.append(f"structures: {symbols}")
        title.extend(overlay.notes.get(c, ()))
        if fleets_by_cell:
            for i, mark in enumerate(fleets_by_cell.get(c, [])):
                dx = (i % 3) * r * 0.55
                dy = (i // 3) * r * 0.45
                line = f"fleet {mark.number} of {mark.owner}: {_plural(mark.ships, 'ship')}"
                if mark.detail:
                    line += f" ({mark.detail})"
                title.append(line)
                parts.append(
                    f'<g class="fleet" data-fleet="{mark.number}" data-owner="{mark.seat}">'
                    f'<title>{escape(line)}</title>'
                    f'<rect x="{cx - r + dx:.1f}" y="{cy - r + dy:.1f}" width="{r * 0.9:.1f}" height="{r * 0.7:.1f}" '
                    f'fill="{mark.colour}" stroke="#000" stroke-width="0.5"/></g>'
                )
        else:
            for ship_colour, count, owner in overlay.ships.get(c, []):
                parts.append(
                    f'<rect x="{cx - r:.1f}" y="{cy - r:.1f}" width="{r * 0.9:.1f}" height="{r * 0.7:.1f}" '
                    f'fill="{ship_colour}" stroke="#000" stroke-width="0.5"/>'
                )
                title.append(f"{_plural(count, 'ship')} of {owner}")
        out.append(f'<g class="cell"{cell_attrs}><title>{escape("; ".join(title))}</title>{"".join(parts)}</g>')
    if route_svg:
        # Routes above the cells (so they show) but below nothing that takes clicks: pointer
        # events pass through to the cells.
        out.append('<g class="routes" pointer-events="none">' + "".join(route_svg) + "</g>")
    if labels:
        out.extend(_coordinate_labels(grid, size, margin))
    out.append("</svg>")
    return "\n".join(out)

