"""Issue 31 item 4, found walking it as a newcomer: the record sheets at phone width (390×844). A
sheet's tables (a Print&Play dashboard's weapons, with a long weapon or arc name in a cell) pushed
the page a few pixels wider than the phone, so the whole page slid sideways; a cell's long word now
wraps inside it. Each page opens with a link back to its battle or scenario, on screen only; it
was missing (the only way back was the browser's button): at phone width it is in view at the top,
a finger-sized target, and takes the player back. Screenshots: tests/artifacts/test_record_sheets_fit_a_phone*."""

from __future__ import annotations

from campaign import actions as platform
from campaign.cam import actions as cam_actions
from tactical.models import Battle
from tests.cam.conftest import make_cam, ship_numbers
from tests.tactical.battle_support import contact_turn

from .conftest import sideways_overflow


def test_record_sheets_fit_a_phone(small_campaign, new_page, login, shot, alice, bob, carol):
    platform.set_campaign_option(campaign_id=small_campaign.pk, user=alice, key="battle_book", value="printplay")
    contact_turn(small_campaign, "tactical", ships_per_side=None)
    battle = Battle.objects.get(campaign=small_campaign)
    rubber = make_cam(alice, bob, carol)
    cam_actions.generate_scenario(campaign_id=rubber.pk, user=alice, nature="open_battle")
    cam_actions.select_forces(campaign_id=rubber.pk, user=bob, ships=ship_numbers(rubber, 1)[:3])
    cam_actions.select_forces(campaign_id=rubber.pk, user=carol, ships=ship_numbers(rubber, 2)[:3])
    cam_actions.roll_table(campaign_id=rubber.pk, user=bob)
    page = new_page(phone=True)
    login(page, "bob", "pw-bob")
    urls = [f"/battles/{battle.pk}/sheets/"] + [f"/cam/{rubber.pk}/scenarios/1/sheets/?book={book}" for book in
                                                ("buoyz", "eventhorizon", "mytrek", "printplay", "starsectors")]
    wide = {}
    for n, url in enumerate(urls):
        page.goto(url)
        assert page.locator("section.sheet").count() >= 2, url
        shot(page, f"{n:02d}-sheets")
        shot(page, f"{n:02d}-top", full_page=False)  # the link back, in view as the page opens
        if found := sideways_overflow(page):
            wide[url] = found
        back = page.locator("#back-link")
        box = back.bounding_box()
        assert back.is_visible() and box, url
        assert box["y"] + box["height"] <= 844 and box["x"] >= 0 and box["x"] + box["width"] <= 390, (url, box)
        assert box["height"] >= 40, (url, box)  # a finger-sized target
    assert not wide, wide
    page.click("#back-link")  # the CAM scenario's sheets: back to the scenario
    page.wait_for_url(f"**/cam/{rubber.pk}/scenarios/1/")
    page.goto(urls[0])
    page.click("#back-link")  # the battle's sheets: back to the battle
    page.wait_for_url(f"**/battles/{battle.pk}/")
    assert page.locator("#record-sheets").is_visible()
    page.emulate_media(media="print")  # not on paper
    page.goto(urls[0])
    assert not page.locator("#back-link").is_visible()
