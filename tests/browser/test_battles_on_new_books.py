"""Issue 31 ("Done when", one on each new book): an Event Horizon campaign whose battles are
fought online on a new rule book, in a real browser — My Trek V (converted designs, rulings
XC31-XC35, both sides giving secret orders at once on its grid), Star Trek Print&Play (converted
dashboards, rulings XC19-XC25, each ship's shields drawn on its sides on the mat) and Star Sectors
(converted profile cards, rulings XC41-XC45, ship by ship on its hex map). The moderator
chooses the book in the moderation panel; the campaign turn hands its battle off; both players open
it (one at phone width) and hand their fleets to the computer, which fights it to the end; the
result comes back as Event Horizon's and the turn completes. The replay and the record sheets (ship
logs, dashboards, profile cards) open.
Screenshots: tests/artifacts/test_an_event_horizon_battle_is_fought_on_a_new_book*."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaign.models import Turn
from tactical.models import Battle
from tests.tactical.battle_support import contact_turn

BOOKS = {
    # book: (the board drawn, the fates its results name, a record sheet's heading, its screenshot)
    "mytrek": ("#board svg .ship", {"survived", "destroyed"}, "My Trek V ship log (002)", "03-ship-logs"),
    "printplay": ("#board svg .pp-shield", {"survived", "destroyed", "warped_out"}, "001 Dashboards",
                  "03-dashboards"),
    "starsectors": ("#board svg [data-ship]", {"survived", "destroyed"}, "Star Sectors profile card (004 II)",
                    "03-profile-cards"),
}


@pytest.mark.parametrize("book", sorted(BOOKS))
def test_an_event_horizon_battle_is_fought_on_a_new_book(book, eager_tasks, small_campaign, new_page, login, shot,
                                                          alice, bob, carol):
    board, fates, sheet_heading, sheet_shot = BOOKS[book]
    mod = new_page()
    login(mod, "alice", "pw-alice")
    mod.goto(reverse("moderation-panel", args=[small_campaign.pk]))
    mod.select_option("#opt-battle_book", book)
    with mod.expect_navigation():
        mod.locator("#rule-options button[type=submit]").click()
    small_campaign.refresh_from_db()
    assert small_campaign.options["battle_book"] == book

    turn = contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get(campaign=small_campaign, turn=turn.number)
    assert battle.ruleset == book and battle.status == Battle.Status.PLAYING

    pages = {1: new_page(phone=True), 2: new_page()}
    login(pages[1], "bob", "pw-bob")
    login(pages[2], "carol", "pw-carol")
    for seat, page in pages.items():
        page.goto(reverse("battle-play", args=[battle.pk]))
        page.wait_for_selector(board)
        shot(page, f"01-seat{seat}-opens-the-{book}-battle")
    for page in pages.values():
        page.goto(reverse("battle-play", args=[battle.pk]))
        if page.locator("#doctrine-button").count():
            with page.expect_navigation():
                page.click("#doctrine-button")
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and battle.resolved_how == Battle.How.TACTICAL
    assert {s["fate"] for s in battle.result["ships"]} <= fates
    assert Turn.objects.get(campaign=small_campaign, number=turn.number).status == Turn.Status.DONE

    page = pages[1]
    page.goto(reverse("battle-replay", args=[battle.pk]) + "?step=0")
    assert page.locator("svg").count() >= 1
    shot(page, "02-replay")
    page.goto(reverse("battle-detail", args=[battle.pk]))
    page.click("#record-sheets")
    assert page.locator("section.sheet").count() == sum(len(s["ships"]) for s in battle.setup["sides"].values())
    assert sheet_heading in page.content()
    shot(page, sheet_shot)
