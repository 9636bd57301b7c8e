"""Issue 13 item 9: zooming the map left its background behind — hexes turned navy and black
(industrial, 003 "Planetary Economy Type") planets vanished. The paper was a ``width="100%"``
rect, which SVG sizes by the current *view* and draws from (0, 0): once map.js changes the
viewBox it no longer covers the map. It is now drawn in map units over the whole map (the
browser check is tests/browser/test_map_zoom.py).
"""

from __future__ import annotations

import re

import pytest

from campaign.eventhorizon import mapsvg
from campaign.rules.dice import SeededDice
from campaign.rules.eventhorizon.mapgen import generate_map
from campaign.rules.grid import make_grid


@pytest.mark.parametrize("kind", ["hex", "square"])
@pytest.mark.parametrize("interactive", [False, True])
@pytest.mark.parametrize("labels", [False, True])
def test_paper_covers_the_whole_map_in_map_units(kind, interactive, labels):
    grid = make_grid(kind, 12, 9)
    gmap = generate_map(grid, 2, SeededDice(b"map-paper-seed-for-tests"))
    svg = mapsvg.render(gmap, interactive=interactive, labels=labels)
    paper = re.search(r'<rect class="map-paper"([^>]*)/>', svg)
    assert paper, "the map has its paper"
    attrs = {k: v for k, v in re.findall(r'(\w[\w-]*)="([^"]*)"', paper.group(1))}
    assert "%" not in attrs["width"] + attrs["height"], "a percentage follows the zoomed view, not the map"
    left, top = float(attrs.get("x", 0)), float(attrs.get("y", 0))
    right, bottom = left + float(attrs["width"]), top + float(attrs["height"])
    width, height = grid.pixel_size(12.0 if kind == "hex" else 20.0)
    assert left <= 0 and top <= 0 and right >= width and bottom >= height
    # It covers the whole picture the page starts from (the viewBox) …
    vb = [float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split()]
    assert left <= vb[0] and top <= vb[1] and right >= vb[0] + vb[2] - 0.5 and bottom >= vb[1] + vb[3] - 0.5
    # … and every cell, so none shows the page behind the map at any zoom.
    for pts in re.findall(r'<polygon points="([^"]+)"', svg):
        for point in pts.split():
            x, y = map(float, point.split(","))
            assert left - 0.5 <= x <= right + 0.5 and top - 0.5 <= y <= bottom + 0.5
