"""Issue 13 item 9 in a real browser: zoom in and pan the map page and the map's paper still
lies under every hex in view (before the fix, the page's navy showed through the hexes and black
industrial planets vanished). Desktop and phone width. Screenshots:
tests/artifacts/test_zoomed_map_keeps_its_background*--*.png.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

COVERED = """() => {
  // Points across the visible map: each must have the paper under it (elementsFromPoint lists
  // everything drawn there, top first), or lie outside the map altogether.
  const vp = document.querySelector('[data-map-viewport]').getBoundingClientRect();
  const svg = document.querySelector('svg.campaign-map');
  const paper = svg.querySelector('rect.map-paper') || svg.querySelector(':scope > rect');  // the paper, drawn first
  const cells = svg.querySelectorAll('g.cell');
  let checked = 0, bare = [];
  for (let i = 1; i < 8; i++) for (let j = 1; j < 8; j++) {
    const x = vp.left + vp.width * i / 8, y = vp.top + vp.height * j / 8;
    const here = document.elementsFromPoint(x, y);
    const cell = here.find(e => e.closest && e.closest('g.cell'));
    if (!cell) continue;  // beyond the map's edge
    checked++;
    if (!here.includes(paper)) bare.push([Math.round(x), Math.round(y)]);
  }
  return {checked, bare, fill: getComputedStyle(paper).fill};
}"""


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_zoomed_map_keeps_its_background(small_campaign, new_page, login, shot, phone):
    page = new_page(phone=phone)
    login(page, "bob", "pw-bob")
    page.goto(reverse("campaign-map", args=[small_campaign.pk]))
    page.wait_for_selector("[data-map-viewport][data-map-loaded='1'] svg.campaign-map")
    before = page.evaluate(COVERED)
    assert before["checked"] and not before["bare"]
    for _ in range(3):
        page.click("button[data-map-action=in]")
    box = page.locator("[data-map-viewport]").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx - box["width"] / 5, cy - box["height"] / 6, steps=5)
    page.mouse.up()
    shot(page, "zoomed-phone" if phone else "zoomed-desktop")
    after = page.evaluate(COVERED)
    assert after["checked"] > 10, after
    assert not after["bare"], f"hexes with no paper under them at {after['bare']}"
    assert after["fill"] == "rgb(247, 244, 234)"  # mapsvg.PAPER
