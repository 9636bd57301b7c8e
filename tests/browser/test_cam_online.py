"""A CAM scenario fought online, as far as the CAM pages go (issue 17): the moderator switches the
scenario to "fought online" on its page; the forces are chosen and the table rolled; a player at
phone width sees the mode, the battle link and whose decision it is, and hands his side to the
computer doctrine; the other does too, and the scenario is scored. (The Buoyz board itself is the
play page's: tests/browser/test_cam_online_play.py.) Screenshots: tests/artifacts/test_cam_online*.png."""

from django.urls import reverse

from campaign.cam import actions
from campaign.cam.models import CamScenario, CamShip

from .conftest import sideways_overflow


def test_cam_scenario_fought_online_pages(new_page, login, shot, django_user_model):
    users = {name: django_user_model.objects.create_user(name, f"{name}@example.com", f"pw-{name}")
             for name in ("alice", "bob", "carol")}
    campaign = actions.create_cam_campaign(
        user=users["alice"], name="Online Rubber", period=2, starting_points=100, scenarios=2, seed="browser-online",
        players=[{"username": "bob", "name": "Bob's Squadron", "faction": "UFP",
                  "fleet": ["constitution", "constitution", "firecat", "kobayashi_maru"]},
                 {"username": "carol", "name": "Carol's Raiders", "faction": "Klingons",
                  "fleet": ["d7", "d7", "war_talon"]}])
    actions.start(campaign_id=campaign.pk, user=users["alice"])
    actions.generate_scenario(campaign_id=campaign.pk, user=users["alice"], nature="open_battle")
    url = reverse("cam-scenario", args=[campaign.pk, 1])
    alice, bob, carol = new_page(), new_page(phone=True), new_page()
    login(alice, "alice", "pw-alice")
    login(bob, "bob", "pw-bob")
    login(carol, "carol", "pw-carol")

    alice.goto(url)
    alice.select_option("#mode-form select[name=mode]", "online")
    with alice.expect_navigation():
        alice.click("#mode-form button")
    assert "Fought online on the Buoyz engine" in alice.inner_text("#scenario-mode")
    shot(alice, "01-mode")

    for user, seat in ((users["bob"], 1), (users["carol"], 2)):
        ships = CamShip.objects.filter(player__cam=campaign.cam, player__seat=seat).order_by("number")
        actions.select_forces(campaign_id=campaign.pk, user=user, ships=[s.number for s in ships][:2])
    carol.goto(url)
    with carol.expect_navigation():
        carol.get_by_role("button", name="Roll the table and begin (CAM 2.3)").click()
    assert "Battle" in carol.inner_text("#online-battle")

    bob.goto(url)
    box = bob.inner_text("#online-battle")
    assert "Fought online on the Buoyz engine" in box and "Decision:" in box
    assert bob.locator("#turn-form").count() == 0  # no tabletop entry for a scenario fought online
    assert sideways_overflow(bob) == []
    shot(bob, "02-phone-battle")
    link = bob.get_attribute("#battle-link", "href")
    with bob.expect_navigation():
        bob.get_by_role("button", name="Hand my side to the computer doctrine").click()
    assert "Take my side back from the computer" in bob.inner_text("#online-battle")
    carol.goto(url)
    with carol.expect_navigation():
        carol.get_by_role("button", name="Hand my side to the computer doctrine").click()
    assert CamScenario.objects.get(cam=campaign.cam, number=1).stage == "scored"
    assert "Scored" in carol.inner_text("#stage")
    shot(carol, "03-scored")
    bob.goto(link)  # the battle's play page, over: the CAM score and the way back to the scenario
    assert "The battle is over" in bob.inner_text("#battle-over") and bob.locator("#back-link").count() == 1
    assert sideways_overflow(bob) == []
    shot(bob, "04-phone-battle-page")
