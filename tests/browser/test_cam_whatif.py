"""What-if for CAM fleets in a real browser at phone width (issue 17, item 5): a player opens his
scenario, follows "What-if" beside the auto-resolve odds, runs K Buoyz battles, watches them run
and reads the result; back on the scenario page his latest run is shown. Nothing scrolls
sideways. Screenshots: tests/artifacts/test_cam_whatif*.png."""

from django.urls import reverse

from campaign.cam import actions as cam_actions
from tests.cam.conftest import make_cam, ship_numbers

from .conftest import sideways_overflow


def test_a_player_runs_a_cam_what_if_from_his_scenario_on_a_phone(eager_tasks, phone, login, shot, settings,
                                                                  django_user_model):
    settings.WHATIF_IN_BACKGROUND = True
    alice, bob, carol = (django_user_model.objects.create_user(n, f"{n}@example.com", f"pw-{n}")
                         for n in ("alice", "bob", "carol"))
    rubber = make_cam(alice, bob, carol)
    cam_actions.generate_scenario(campaign_id=rubber.pk, user=alice, nature="open_battle")
    cam_actions.select_forces(campaign_id=rubber.pk, user=bob, ships=ship_numbers(rubber, 1, "constitution")[:3])
    cam_actions.select_forces(campaign_id=rubber.pk, user=carol, ships=ship_numbers(rubber, 2)[:3])
    cam_actions.roll_table(campaign_id=rubber.pk, user=carol)

    login(phone, "bob", "pw-bob")
    phone.goto(reverse("cam-scenario", args=[rubber.pk, 1]))
    panel = phone.locator("#cam-whatif")
    assert "Auto-resolve" in panel.inner_text()
    panel.scroll_into_view_if_needed()
    assert sideways_overflow(phone) == []
    shot(phone, "01-scenario-odds", full_page=False)
    with phone.expect_navigation():
        phone.locator("#cam-whatif-link").click()
    assert sideways_overflow(phone) == []
    phone.fill("input[name=trials]", "6")
    phone.fill("input[name=seed]", "phone")
    shot(phone, "02-form")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Run the what-if").click()
    phone.wait_for_selector("#whatif-cam-results", timeout=60_000)
    assert sideways_overflow(phone) == []
    assert "Wilson" in phone.content() or "Wins (95% Wilson interval)" in phone.inner_text("#whatif-cam-results")
    shot(phone, "03-result")
    phone.goto(reverse("cam-scenario", args=[rubber.pk, 1]))
    assert "Your latest what-if" in phone.inner_text("#cam-whatif-latest")
    phone.goto(reverse("whatif-cam-new") + "?period=2")
    assert sideways_overflow(phone) == []
    phone.goto(reverse("whatif-list"))
    assert "Buoyz (CAM)" in phone.inner_text("#whatif-runs") and sideways_overflow(phone) == []
    shot(phone, "04-list", full_page=False)
