"""Issue 31 ("Done when"): an Event Horizon campaign whose battles are fought online on Buoyz 'N
Da 'Hood, in a real browser. The moderator chooses the rule book in the moderation panel; the
campaign turn hands its battle off; the fleets arrive as converted SDs (rulings XC1-XC9) on the
Buoyz board; both players open it (one at phone width), then hand their fleets to the computer,
which fights it to the end; the result comes back as Event Horizon's and the turn that waited
for it completes. The replay and the record sheets of the battle open. Screenshots:
tests/artifacts/test_an_event_horizon_battle_is_fought_on_buoyz--*.png."""

from __future__ import annotations

from django.urls import reverse

from campaign.models import AuditEntry, Turn
from tactical.models import Battle
from tests.tactical.battle_support import contact_turn


def test_an_event_horizon_battle_is_fought_on_buoyz(eager_tasks, small_campaign, new_page, login, shot,
                                                    alice, bob, carol):
    mod = new_page()
    login(mod, "alice", "pw-alice")
    mod.goto(reverse("moderation-panel", args=[small_campaign.pk]))
    mod.select_option("#opt-battle_book", "buoyz")
    shot(mod, "01-moderator-chooses-buoyz")
    with mod.expect_navigation():
        mod.locator("#rule-options button[type=submit]").click()
    small_campaign.refresh_from_db()
    assert small_campaign.options["battle_book"] == "buoyz"
    assert AuditEntry.objects.filter(campaign=small_campaign, action="set_option").exists()

    turn = contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get(campaign=small_campaign, turn=turn.number)
    assert battle.ruleset == "buoyz" and battle.status == Battle.Status.PLAYING

    pages = {1: new_page(phone=True), 2: new_page()}
    login(pages[1], "bob", "pw-bob")
    login(pages[2], "carol", "pw-carol")
    for seat, page in pages.items():
        page.goto(reverse("battle-play", args=[battle.pk]))
        assert page.locator("#board svg").count() == 1  # the Buoyz board
        shot(page, f"02-seat{seat}-opens-the-buoyz-battle")
    for page in pages.values():
        page.goto(reverse("battle-play", args=[battle.pk]))
        if page.locator("#doctrine-button").count():
            with page.expect_navigation():
                page.click("#doctrine-button")
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and battle.resolved_how == Battle.How.TACTICAL
    fates = {s["fate"] for s in battle.result["ships"]}
    assert fates <= {"survived", "destroyed", "captured", "warped_out"}  # Event Horizon's result
    assert Turn.objects.get(campaign=small_campaign, number=turn.number).status == Turn.Status.DONE
    small_campaign.refresh_from_db()
    assert small_campaign.turn == turn.number + 1

    page = pages[1]
    page.goto(reverse("battle-play", args=[battle.pk]))
    page.wait_for_selector("#battle-over")
    shot(page, "03-battle-over-at-phone-width")
    page.goto(reverse("battle-replay", args=[battle.pk]) + "?step=0")
    assert page.locator("svg").count() >= 1 and "2.2 Pre-Game" in page.content()  # the Buoyz replay
    shot(page, "04-replay")
    page.goto(reverse("battle-detail", args=[battle.pk]))
    assert "Buoyz" in page.locator("#record-sheets").locator("xpath=..").inner_text()
    page.click("#record-sheets")
    assert page.locator("section.sheet").count() == sum(len(s["ships"]) for s in battle.setup["sides"].values())
    shot(page, "05-record-sheets")
