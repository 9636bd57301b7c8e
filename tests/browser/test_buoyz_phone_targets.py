"""Issue 23 item 18 at phone size (390×844): on the Buoyz board the moves of the ship to nominate
are targets a finger can take — each at least 24 px across and, the board zoomed in on them, at
least 24 px apart — and once a move is chosen its "Confirm move" button is on the screen. The move
picker sits under the board: it covers none of it and leaves no blank band below it (it was sticky
at the foot of the screen, over the board, its place under the board empty).
Screenshot: tests/artifacts/test_buoyz_phone_targets*.png."""

from __future__ import annotations

import math

from django.urls import reverse

from tactical.play import embedded
from tactical.rules import registry

from .conftest import PHONE
from .test_buoyz_board import USERS, _battle, _screen_point

RULES = registry.find_play("buoyz")


def gaps_under_the_board(page) -> dict:
    """Below the board, in the board's column (its parent): how far the boxes drawn there overlap
    the board, and the tallest band nothing is drawn in (page pixels)."""
    return page.evaluate("""() => {
      const board = document.getElementById('board'), column = board.parentElement;
      const {top, bottom} = board.getBoundingClientRect(), end = column.getBoundingClientRect().bottom;
      const boxes = [...column.children].filter(c => c !== board && !c.hidden)
        .map(c => c.getBoundingClientRect()).filter(b => b.height > 0).sort((a, b) => a.top - b.top);
      let reached = bottom, band = 0, overlap = 0;
      for (const b of boxes) {
        const over = Math.min(b.bottom, bottom) - Math.max(b.top, top);  // > 0: drawn over the board
        overlap = Math.max(overlap, over);
        if (b.bottom <= bottom) continue;
        band = Math.max(band, b.top - reached);
        reached = Math.max(reached, b.bottom);
      }
      return {overlap: Math.round(overlap), band: Math.round(Math.max(band, end - reached))};
    }""")


def test_move_targets_are_big_enough_and_the_confirmation_is_in_view(small_campaign, new_page, login, shot):
    battle = _battle(small_campaign)
    seat = RULES.acting_side(embedded.current_state(battle))
    page = new_page(phone=True)
    login(page, *USERS[seat])
    page.goto(reverse("battle-play", args=[battle.pk]))
    page.wait_for_selector("#bz-picker:not([hidden])")
    gaps = gaps_under_the_board(page)
    assert gaps["overlap"] == 0 and gaps["band"] <= 24, gaps
    page.locator("#board").scroll_into_view_if_needed()
    frame = page.locator("#board").bounding_box()

    def targets():
        # each move end's largest circle (its tap target; before issue 23 only the 3.2 px dot)
        by_end = {}
        for h in page.locator("#bz-overlay circle.bz-hit, #bz-overlay circle.bz-cand").all():
            b = h.bounding_box()
            if b:
                key = (h.get_attribute("cx"), h.get_attribute("cy"))
                if key not in by_end or b["width"] > by_end[key]["width"]:
                    by_end[key] = b
        boxes = list(by_end.values())
        inside = [b for b in boxes if frame["x"] <= b["x"] + b["width"] / 2 <= frame["x"] + frame["width"]
                  and frame["y"] <= b["y"] + b["height"] / 2 <= frame["y"] + frame["height"]]
        return boxes, inside

    boxes, inside = targets()
    assert len(inside) >= 2, "the moves are on the board as it opens"
    assert min(min(b["width"], b["height"]) for b in boxes) >= 24
    centres = [(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2) for b in inside]
    nearest = min(math.dist(p, q) for i, p in enumerate(centres) for q in centres[i + 1:])
    assert nearest >= 24 - 0.5, (nearest, page.locator("#board svg").get_attribute("viewBox"), len(inside))
    # The whole table: the targets keep their size on screen.
    page.click("[data-bz-zoom=reset]")
    boxes, _ = targets()
    assert min(min(b["width"], b["height"]) for b in boxes) >= 24
    page.click("[data-bz-zoom=in]")
    # Choose a move on the board: the confirmation is then on the screen, without scrolling.
    plan_ship = page.evaluate("JSON.parse(document.getElementById('bz-plan').textContent).ships[0]")
    move = next(m for m in plan_ship["moves"] if not m["turned"] and m["used"] > 0
                and not (m.get("lay_mine") or m.get("sweep") or m.get("web")))
    page.locator("#board").scroll_into_view_if_needed()
    page.mouse.click(*_screen_point(page, move["px"][-1]))
    assert not page.locator("#bz-confirm").is_disabled()
    box = page.locator("#bz-confirm").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box
    assert gaps_under_the_board(page)["band"] <= 24
    shot(page, "move-chosen", full_page=False)
    shot(page, "whole-page")
