"""Issue 17 "Done when": two players (two browser contexts) play a CAM scenario online on the Buoyz
play page to broken contact, see it scored on the scenario page, and roll the between-scenario
replacements (CAM 4.2). Each player takes decisions from the page (bob at phone width), then both
hand their sides to the computer doctrine from the page, which plays on to the end; the seed and
forces are fixed so that the battle ends with all table contact broken. The replay page steps
through the battle with autoplay. Screenshots: tests/artifacts/test_cam_scenario_played_online*.png.
"""

from django.urls import reverse

from campaign.cam import actions, online
from campaign.cam.models import CamScenario, CamShip
from tactical.models import Battle
from tactical.play import embedded

from .conftest import sideways_overflow

SEED = "camplay-1"  # with these forces and decisions: all table contact broken in game turn 4
DECISIONS = 4


def test_cam_scenario_played_online_to_broken_contact(new_page, login, shot, django_user_model):
    users = {name: django_user_model.objects.create_user(name, f"{name}@example.com", f"pw-{name}")
             for name in ("alice", "bob", "carol")}
    campaign = actions.create_cam_campaign(
        user=users["alice"], name="Online Rubber", period=2, starting_points=100, scenarios=2, seed=SEED,
        players=[{"username": "bob", "name": "Bob's Squadron", "faction": "UFP",
                  "fleet": ["constitution", "constitution", "firecat", "kobayashi_maru"]},
                 {"username": "carol", "name": "Carol's Raiders", "faction": "Klingons",
                  "fleet": ["d7", "d7", "war_talon"]}])
    actions.start(campaign_id=campaign.pk, user=users["alice"])
    actions.generate_scenario(campaign_id=campaign.pk, user=users["alice"], nature="open_battle")
    online.set_mode(campaign_id=campaign.pk, user=users["alice"], number=1, mode="online")
    for user, seat in ((users["bob"], 1), (users["carol"], 2)):
        ships = CamShip.objects.filter(player__cam=campaign.cam, player__seat=seat).order_by("number")
        actions.select_forces(campaign_id=campaign.pk, user=user, ships=[s.number for s in ships][:2])
    scenario_url = reverse("cam-scenario", args=[campaign.pk, 1])
    pages = {1: new_page(phone=True), 2: new_page()}
    login(pages[1], "bob", "pw-bob")
    login(pages[2], "carol", "pw-carol")
    carol = pages[2]
    carol.goto(scenario_url)
    with carol.expect_navigation():
        carol.get_by_role("button", name="Roll the table and begin (CAM 2.3)").click()

    # The scenario page links to the play page; both players decide there in turn.
    with carol.expect_navigation():
        carol.click("#battle-link")
    battle = Battle.objects.get(campaign=campaign)
    play_url = reverse("battle-play", args=[battle.pk])
    assert carol.url.endswith(play_url)
    rules = embedded.rules_for(battle)
    acted = set()
    for n in range(DECISIONS):
        battle.refresh_from_db()
        seat = rules.acting_side(embedded.current_state(battle))
        page, other = pages[seat], pages[3 - seat]
        page.goto(play_url)
        other.goto(play_url)
        assert page.locator("#your-turn").count() == 1 and other.locator("#your-turn").count() == 0
        assert "Waiting for" in other.inner_text("#status")
        # The sides are the CAM players, and the heading names the scenario.
        status = page.inner_text("#status")
        assert "Bob's Squadron" in status and "Carol's Raiders" in status
        assert "Scenario 1" in page.inner_text("h1")
        assert page.locator("svg.board.buoyz").count() == 1
        if n < 2:
            assert sideways_overflow(pages[1]) == []
            shot(page, f"{n}-side{seat}-decides")
        with page.expect_navigation():
            page.locator("#actions form").first.locator("button").click()
        assert "Refused" not in page.content()
        acted.add(seat)
    assert acted == {1, 2}, "both players decided through the page"
    assert battle.steps.filter(by_doctrine=False, user__isnull=False).values("user").distinct().count() == 2

    # Short of time, each hands his side to the doctrine from the play page: it plays to the end.
    for seat in (1, 2):
        pages[seat].goto(play_url)
        with pages[seat].expect_navigation():
            pages[seat].click("#doctrine-button")
    battle.refresh_from_db()
    row = CamScenario.objects.get(cam=campaign.cam, number=1)
    assert battle.status == "resolved" and battle.result["ending"] == "contact broken"
    assert row.stage == CamScenario.Stage.SCORED and row.score == battle.result["cam_score"]
    assert not row.force_end  # all table contact broken: CAM 3.0, not forced
    carol.goto(play_url)
    assert "The battle is over" in carol.inner_text("#battle-over")
    shot(carol, "over")

    # Scored on the scenario page.
    for seat in (1, 2):
        pages[seat].goto(scenario_url)
        assert "Scored" in pages[seat].inner_text("#stage")
    shot(pages[1], "scored-phone")
    assert sideways_overflow(pages[1]) == []

    # The replay: step by step, with autoplay.
    bob = pages[1]
    bob.goto(reverse("battle-replay", args=[battle.pk]))
    assert bob.locator("#replay-controls").is_visible()
    bob.select_option("#replay-speed", "150")
    bob.click("#replay-play")
    bob.wait_for_function("() => { const m = /step=(\\d+)/.exec(location.search); return m && Number(m[1]) >= 3; }",
                          timeout=20_000)
    assert "Stopped" not in bob.inner_text("#replay-state")
    shot(bob, "replay-autoplay")

    # CAM 4.2 between scenarios: both ready; the replacements are rolled.
    detail = reverse("cam-detail", args=[campaign.pk])
    for seat in (1, 2):
        pages[seat].goto(detail)
        with pages[seat].expect_navigation():
            pages[seat].get_by_role("button", name="Ready for the next scenario").click()
    campaign.cam.refresh_from_db()
    assert campaign.cam.replacements_done == 1
    shot(carol, "between")
