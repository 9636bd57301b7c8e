"""Issue 13 item 4 in a real browser, at phone width and on a desktop: a player gives a standing
drift order on the orders page (003 Creating a Map: Particle Cloud; docs/rulings.md P2) and saves
it. Screenshots: tests/artifacts/test_drift_order_on_the_orders_page*.png."""

import pytest
from django.urls import reverse

from campaign.models import TurnOrders


@pytest.mark.parametrize("viewport", [{"width": 390, "height": 844}, {"width": 1280, "height": 900}],
                         ids=["phone", "desktop"])
def test_drift_order_on_the_orders_page(new_page, login, shot, small_campaign, viewport):
    small_campaign.options = {**small_campaign.options, "steered_drift": True}
    small_campaign.save(update_fields=["options"])
    page = new_page()
    page.set_viewport_size(viewport)
    login(page, "bob", "pw-bob")
    page.goto(reverse("campaign-orders", args=[small_campaign.pk]))
    page.locator("#standing-change").check()
    assert "nearest opponent" in page.locator("#drift-note").inner_text()
    page.select_option("#drift-mode", "toward")
    assert page.locator("#drift-hex").is_visible()
    page.fill("#drift-x", "5")
    page.fill("#drift-y", "6")
    page.locator("#drift-y").dispatch_event("change")
    text = page.locator("#orders-form textarea").input_value()
    assert '"drift"' in text and '"toward"' in text
    shot(page, f"{viewport['width']}-drift")
    # the drift controls wrap inside the standing-orders card (the page's own width is item 23's)
    box, card = page.locator("#drift-form").bounding_box(), page.locator("#standing-form").bounding_box()
    assert box["x"] >= card["x"] and box["x"] + box["width"] <= card["x"] + card["width"] + 1, (box, card)
    page.locator("#save-button").click()  # saved in place, through the API
    from playwright.sync_api import expect  # imported here: without playwright the tests skip

    expect(page.locator("#save-status")).to_contain_text("saved (revision")
    row = TurnOrders.objects.get(empire__seat=1, turn__campaign=small_campaign, turn__number=small_campaign.turn)
    assert row.orders["standing"]["drift"] == {"toward": [5, 6]}
