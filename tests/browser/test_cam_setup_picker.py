"""Issue 13 item 20 in a real browser, at phone width (390×844) and on a desktop: a CAM player
picks his starting ships from the catalogue — search, the Period filter (000 1.5), "Add" — and
the roster names the ships. Screenshots: tests/artifacts/test_cam_setup_picker*.png."""

import pytest
from django.urls import reverse

from campaign.cam import actions
from campaign.cam.models import CamPlayer


@pytest.mark.parametrize("viewport", [{"width": 390, "height": 844}, {"width": 1280, "height": 900}],
                         ids=["phone", "desktop"])
def test_cam_setup_picks_ships_from_the_catalogue(new_page, login, shot, django_user_model, viewport):
    users = {
        n: django_user_model.objects.create_user(n, f"{n}@example.com", f"pw-{n}")
        for n in ("alice", "bob", "carol")
    }
    campaign = actions.create_cam_campaign(
        user=users["alice"], name="Picker Rubber", period=2, starting_points=100, seed="picker",
        players=[{"username": "bob", "faction": "UFP", "fleet": ["constitution"]},
                 {"username": "carol", "faction": "Klingons", "fleet": ["d7"]}])
    bob = new_page()
    bob.set_viewport_size(viewport)
    login(bob, "bob", "pw-bob")
    bob.goto(reverse("cam-detail", args=[campaign.pk]))
    picker = bob.locator("#starting-1 .sd-picker")
    rows = picker.locator("tr.sd-row")
    # Period 2 only (000 1.5): the Galaxy class (Periods 5-6) is hidden until asked for
    assert picker.locator("tr.sd-row:visible").count() == 6
    picker.locator(".sd-search").fill("talon")
    assert [t.strip() for t in picker.locator("tr.sd-row:visible td:first-child").all_inner_texts()] == [
        "CL IRS 'War Talon' (Bird of Prey) war_talon\nCL · 7 pts · Periods 1–2"]
    picker.locator(".sd-search").fill("galaxy")
    assert picker.locator("tr.sd-row:visible").count() == 0 and picker.locator("tr.sd-none").is_visible()
    picker.locator(".sd-all").check()
    galaxy = rows.filter(has_text="Galaxy class")
    assert galaxy.is_visible() and "not in Period 2" in galaxy.inner_text()
    assert galaxy.locator("button").count() == 0
    shot(bob, f"{viewport['width']}-search")
    # the set-up card and its "Add" buttons fit the screen (nothing to scroll sideways for)
    for element in (bob.locator("#starting-1"), galaxy.locator("td.sd-add"),
                    picker.locator(".sd-table")):
        box = element.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], box
    picker.locator(".sd-all").uncheck()
    picker.locator(".sd-search").fill("talon")
    picker.locator("input[name=add_name]").fill("IRS Talon")
    rows.filter(has_text="War Talon").get_by_role("button", name="Add").click()  # in place (issue 23 item 14)
    bob.wait_for_function("() => document.querySelectorAll('#starting-1 .fleet-list li').length === 2")
    assert "Ship added" in bob.locator("#starting-1 .fleet-status").inner_text()
    assert (
        "IRS Talon — CL IRS 'War Talon' (Bird of Prey) (CL, 7 pts)"
        in bob.locator("#starting-1 .fleet-list").inner_text()
    )
    assert [s["sd"] for s in CamPlayer.objects.get(cam=campaign.cam, seat=1).starting_fleet] == [
        "constitution",
        "war_talon",
    ]
    shot(bob, f"{viewport['width']}-added")
