"""Issue 31 ("Done when"): a CAM rubber whose scenario is fought online on another rule book — Event
Horizon's tactical rules, Star Trek Print&Play, My Trek V or Star Sectors — in a real browser. The
moderator chooses the book in the moderation panel; the scenario's table is rolled and its forces
arrive converted (Event Horizon squadrons, rulings XC10–XC17; Print&Play dashboards, XC19–XC30; My
Trek V designs, XC31–XC40; Star Sectors profile cards, XC41–XC50); both players open the battle (bob
at phone width, 390×844), hand their sides to the computer, which fights it to the end; the result
comes back as CAM's (XC18, and each book's ``cam_result_back``) and the scenario is scored (000 CAM
3.1, 4.3), shown on its page with the game turn the book ended in.
Screenshots:
tests/artifacts/test_a_cam_scenario_is_fought_on_another_book-<book>--*.png."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaign.cam import actions, online
from campaign.cam.models import CamScenario, CamShip
from campaign.models import AuditEntry
from tactical.models import Battle

from .conftest import sideways_overflow

BOOKS = {"eventhorizon": "Event Horizon", "printplay": "Star Trek Print&Play", "mytrek": "My Trek V",
         "starsectors": "Star Sectors"}


@pytest.mark.parametrize("book", list(BOOKS))
def test_a_cam_scenario_is_fought_on_another_book(new_page, login, shot, django_user_model, book):
    users = {name: django_user_model.objects.create_user(name, f"{name}@example.com", f"pw-{name}")
             for name in ("alice", "bob", "carol")}
    campaign = actions.create_cam_campaign(
        user=users["alice"], name="Rubber on EH", period=2, starting_points=100, scenarios=2, seed="camxc-1",
        players=[{"username": "bob", "name": "Bob's Squadron", "faction": "UFP",
                  "fleet": ["constitution", "constitution", "firecat", "kobayashi_maru"]},
                 {"username": "carol", "name": "Carol's Raiders", "faction": "Klingons",
                  "fleet": ["d7", "d7", "war_talon"]}])
    actions.start(campaign_id=campaign.pk, user=users["alice"])

    mod = new_page()
    login(mod, "alice", "pw-alice")
    mod.goto(reverse("moderation-panel", args=[campaign.pk]))
    mod.select_option("#opt-battle_book", book)
    shot(mod, "01-moderator-chooses-the-book")
    with mod.expect_navigation():
        mod.locator("#rule-options button[type=submit]").click()
    campaign.refresh_from_db()
    assert campaign.options["battle_book"] == book
    assert AuditEntry.objects.filter(campaign=campaign, action="set_option").exists()

    actions.generate_scenario(campaign_id=campaign.pk, user=users["alice"], nature="open_battle")
    online.set_mode(campaign_id=campaign.pk, user=users["alice"], number=1, mode="online")
    for user, seat in ((users["bob"], 1), (users["carol"], 2)):
        ships = CamShip.objects.filter(player__cam=campaign.cam, player__seat=seat).order_by("number")
        actions.select_forces(campaign_id=campaign.pk, user=user, ships=[s.number for s in ships][:2])
    actions.roll_table(campaign_id=campaign.pk, user=users["bob"])
    battle = Battle.objects.get(campaign=campaign)
    assert battle.ruleset == book and battle.converted and battle.status == Battle.Status.PLAYING

    pages = {1: new_page(phone=True), 2: new_page()}
    login(pages[1], "bob", "pw-bob")
    login(pages[2], "carol", "pw-carol")
    for seat, page in pages.items():
        page.goto(reverse("battle-play", args=[battle.pk]))
        assert page.locator("#board svg").count() == 1  # the book's own board
        assert "Scenario 1" in page.content()
        shot(page, f"02-seat{seat}-opens-the-battle")
    assert not sideways_overflow(pages[1])
    for page in pages.values():
        page.goto(reverse("battle-play", args=[battle.pk]))
        if page.locator("#doctrine-button").count():
            with page.expect_navigation():
                page.click("#doctrine-button")
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and battle.result["book"] == book
    book_turns = battle.result["book_result"].get("turns") or battle.result["book_result"].get("rounds")
    if book_turns:  # the game turn the book ended in (My Trek V's turns, a Print&Play round)
        assert battle.result["turns"] == book_turns
    row = CamScenario.objects.get(cam=campaign.cam, number=1)
    assert row.stage == CamScenario.Stage.SCORED and row.score is not None
    # CAM scoring took the book's result up: every unit the book destroyed is lost in the CAM
    # record and the roster, the winner of the book is the winner CAM scored.
    for seat, uids in battle.result["destroyed"].items():
        assert all(row.battle["status"][seat][uid]["state"] == "destroyed" for uid in uids)
        lost = {int(uid.split(":")[1]) for uid in uids}
        assert set(CamShip.objects.filter(player__cam=campaign.cam, number__in=lost)
                   .values_list("status", flat=True)) == {"destroyed"}
    if battle.result["winner"] is not None:
        assert row.score["winner"] == battle.result["winner"]

    for old in pages.values():  # the play pages' own scripts stop with them
        old.close()
    page = new_page(phone=True)
    login(page, "bob", "pw-bob")
    page.goto(reverse("cam-scenario", args=[campaign.pk, 1]))
    assert f"Fought online on {BOOKS[book]}" in page.locator("#online-battle h2").inner_text()
    assert "Scored" in page.content()
    assert not sideways_overflow(page)
    shot(page, "03-scenario-scored-at-phone-width")
    page.goto(reverse("battle-replay", args=[battle.pk]) + "?step=0")
    assert page.locator("svg").count() >= 1
    shot(page, "04-replay")
