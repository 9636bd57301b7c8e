"""Issue 23 in a real browser at phone width (390×844): the CAM fleet picker keeps the reader's
place on "Add" (item 14) and the standings chart fits the screen in the players' colours (item 20).
Screenshots: tests/artifacts/test_cam_ux_issue23*.png."""

from django.urls import reverse

from campaign.cam import actions
from campaign.cam.models import CamPlayer

from .conftest import PHONE, log_in


def _users(django_user_model):
    return {
        n: django_user_model.objects.create_user(n, f"{n}@example.com", f"pw-{n}")
        for n in ("alice", "bob", "carol")
    }


def _picker_rubber(users):
    return actions.create_cam_campaign(
        user=users["alice"], name="Picker Rubber", period=2, starting_points=100, seed="picker",
        players=[{"username": "bob", "faction": "UFP", "fleet": ["constitution"]},
                 {"username": "carol", "faction": "Klingons", "fleet": ["d7"]}])


def test_add_keeps_the_place_in_the_fleet_picker_on_a_phone(new_page, shot, django_user_model):
    # item 14 — 000 CAM 4.0: a starting fleet is picked ship by ship; each "Add" leaves the reader where he was.
    users = _users(django_user_model)
    campaign = _picker_rubber(users)
    bob = new_page(phone=True)
    log_in(bob, "bob", "pw-bob")
    bob.goto(reverse("cam-detail", args=[campaign.pk]))
    picker = bob.locator("#starting-1 .sd-picker")
    bob.locator("#starting-1 .sd-search").fill("talon")
    row = picker.locator("tr.sd-row").filter(has_text="War Talon")
    row.scroll_into_view_if_needed()
    before = bob.evaluate("window.scrollY")
    assert before > 200  # the picker is well below the page's top on a phone
    for n in (1, 2):
        row.get_by_role("button", name="Add").click()
        bob.wait_for_function("n => document.querySelectorAll('#starting-1 .fleet-list li').length === n + 1", arg=n)
        assert abs(bob.evaluate("window.scrollY") - before) < 80, "the page jumped away from the picker"
        box = row.bounding_box()
        assert 0 <= box["y"] and box["y"] + box["height"] <= PHONE["height"], box  # the button is still in view
    assert "Ship added" in bob.locator("#starting-1 .fleet-status").inner_text()
    assert bob.locator("#starting-1 .sd-search").input_value() == "talon"  # the search is kept too
    assert [s["sd"] for s in CamPlayer.objects.get(cam=campaign.cam, seat=1).starting_fleet] == [
        "constitution", "war_talon", "war_talon"]
    shot(bob, "picker-after-add", full_page=False)


def test_add_without_script_comes_back_to_the_fleets_card(browser, live_server, django_user_model):
    # item 14 — the page works without its script: the post comes back to #starting-<seat>, not the top.
    users = _users(django_user_model)
    campaign = _picker_rubber(users)
    ctx = browser.new_context(base_url=live_server.url, viewport=PHONE, is_mobile=True, has_touch=True,
                              java_script_enabled=False)
    try:
        bob = ctx.new_page()
        log_in(bob, "bob", "pw-bob")
        bob.goto(reverse("cam-detail", args=[campaign.pk]))
        with bob.expect_navigation():
            bob.locator("#starting-1 tr.sd-row").filter(has_text="War Talon").get_by_role("button", name="Add").click()
        assert bob.url.endswith(f"/cam/{campaign.pk}/#starting-1")
        assert bob.evaluate("window.scrollY") > 200  # the browser went to the card (the script is off, not the engine)
        assert "War Talon" in bob.locator("#starting-1 .fleet-list").inner_text()
    finally:
        ctx.close()




def test_the_standings_chart_fits_a_phone_in_the_players_colours(new_page, shot, django_user_model):
    # item 20 — CAM 4.3 campaign points, charted: within the phone's width, each line in its player's colour.
    from campaign.models import Membership
    from tests.cam.conftest import BOB_FLEET, CAROL_FLEET

    users = _users(django_user_model)
    c = actions.create_cam_campaign(
        user=users["alice"], name="Chart Rubber", period=2, starting_points=100, scenarios=2, seed="chart",
        players=[{"username": "bob", "name": "Bob's Squadron", "faction": "UFP", "fleet": BOB_FLEET},
                 {"username": "carol", "name": "Carol's Raiders", "faction": "Klingons", "fleet": CAROL_FLEET}])
    actions.start(campaign_id=c.pk, user=users["alice"])
    actions.generate_scenario(campaign_id=c.pk, user=users["alice"], nature="open_battle")
    for seat, user in ((1, users["bob"]), (2, users["carol"])):
        ships = list(c.cam.players.get(seat=seat).ships.order_by("number").values_list("number", flat=True))[:2]
        actions.select_forces(campaign_id=c.pk, user=user, ships=ships)
    actions.roll_table(campaign_id=c.pk, user=users["bob"])
    actions.autoresolve(campaign_id=c.pk, user=users["alice"])
    Membership.objects.filter(campaign=c, user=users["bob"]).update(colour="#2ca02c")    # green
    Membership.objects.filter(campaign=c, user=users["carol"]).update(colour="#9467bd")  # purple

    bob = new_page(phone=True)
    log_in(bob, "bob", "pw-bob")
    bob.goto(reverse("cam-standings", args=[c.pk]))
    chart = bob.locator("#cp-chart")
    box = chart.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    assert bob.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    strokes = dict(chart.locator("polyline").evaluate_all(
        "lines => lines.map(l => [l.dataset.seat, getComputedStyle(l).stroke])"))
    assert strokes == {"1": "rgb(44, 160, 44)", "2": "rgb(148, 103, 189)"}
    legend = chart.locator("text", has_text="Bob's Squadron")
    assert legend.evaluate("t => getComputedStyle(t).fill") == "rgb(44, 160, 44)"
    shot(bob, "standings-chart", full_page=False)
