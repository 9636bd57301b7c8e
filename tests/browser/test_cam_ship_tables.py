"""Ruling BZ94 in a real browser at phone width (390×844): a CAM player of a scenario fought
online on several gaming tables picks the table of each ship with a select per ship, and the page
does not scroll sideways. Screenshot: tests/artifacts/test_cam_ship_tables*.png."""

from django.urls import reverse

from campaign.cam import actions, online
from campaign.cam.models import CamScenario
from tests.cam.conftest import make_cam, ship_numbers

from .conftest import sideways_overflow


def test_phone_player_chooses_the_table_of_a_ship(phone, login, shot, alice, bob, carol):
    c = make_cam(alice, bob, carol, tables=3)
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    online.set_mode(campaign_id=c.pk, user=alice, number=1, mode="online")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    first = f"ship:{ship_numbers(c, 1)[0]}"
    login(phone, "bob", "pw-bob")
    phone.goto(reverse("cam-scenario", args=[c.pk, 1]))
    form = phone.locator("#tables-form")
    assert form.locator("select").count() == 3
    assert sideways_overflow(phone) == []
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    select = form.locator(f'select[name="table-{first}"]')
    box = select.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    select.select_option("3")
    shot(phone, "chosen")
    form.get_by_role("button", name="Choose these tables").click()
    phone.wait_for_url(f"**/cam/{c.pk}/scenarios/1/")
    assert online.table_choices(CamScenario.objects.get(cam=c.cam), 1) == {first: 3}
    assert phone.locator(f'#tables-form select[name="table-{first}"]').input_value() == "3"
