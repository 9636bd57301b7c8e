"""A Buoyz 'N Da 'Hood battle on the generic play page in a real browser, at desktop and at phone
width (390×844): the table is drawn to scale with the selected ship's arcs and turning template,
the nominating player picks moves and fire from the page's forms, and the other side's page
never draws a cloaked ship (rulings BZP1–BZP3). Screenshots:
tests/artifacts/test_buoyz_play_page_*--*.png.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from tactical.models import Battle
from tactical.play import actions as play
from tactical.play import embedded
from tactical.rules import registry
from tactical.rules.buoyz import play as bp
from tests.browser.conftest import DESKTOP, PHONE, sideways_overflow

USERS = {1: ("bob", "pw-bob"), 2: ("carol", "pw-carol")}


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_buoyz_play_page(small_campaign, new_page, login, shot, phone):
    viewport = PHONE if phone else DESKTOP
    setup = bp.setup_for({1: ["constitution", "d7"], 2: ["war_talon", "d7"]},
                         names={1: "Bob's Realm", 2: "Carol's Combine"}, turn_cap=3)
    setup["sides"]["2"]["ships"][0].update({"x": 10, "y": 40, "heading": 90, "cloaked": True})
    battle = Battle.objects.create(campaign=small_campaign, turn=small_campaign.turn, index=1, x=0, y=0,
                                   attacker=1, defender=2, mode=Battle.Mode.TACTICAL, ruleset="buoyz", setup=setup)
    play.start_embedded(battle)
    rules = registry.find_play("buoyz")
    talon = 3  # the attacker's two ships are 1 and 2
    pages = {}
    for seat, (user, password) in USERS.items():
        pages[seat] = new_page(phone=phone)
        login(pages[seat], user, password)
    url = reverse("battle-play", args=[battle.pk])
    for n in range(4):
        battle.refresh_from_db()
        seat = rules.acting_side(embedded.current_state(battle))
        page = pages[seat]
        page.goto(url)
        assert page.locator("svg.board.buoyz").count() == 1
        assert page.locator("#your-turn").count() == 1
        # The nominated (or first) ship is selected: its fire arcs and the turning template are drawn.
        assert page.locator("svg.board path.arc").count() > 0
        assert sideways_overflow(page) == []
        if n == 0:
            shot(page, f"side{seat}-nominates")
        other = pages[3 - seat]
        other.goto(url)
        # Carol sees her cloaked War Talon (faded); Bob's table does not have it at all.
        assert pages[2].locator(f'svg.board g.ship[data-ship="{talon}"]').count() == 1
        assert pages[1].locator(f'svg.board g.ship[data-ship="{talon}"]').count() == 0
        form = page.locator("#actions form").first
        with page.expect_navigation():
            form.locator("button").first.click()
        assert "Refused" not in page.content()
    battle.refresh_from_db()
    assert battle.steps.filter(side__isnull=False, by_doctrine=False).count() >= 4
    box = pages[1].locator("#board").bounding_box()
    assert box is not None and box["x"] + box["width"] <= viewport["width"] + 0.5
    shot(pages[1], "after-four-nominations")
