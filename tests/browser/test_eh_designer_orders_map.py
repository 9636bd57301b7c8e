"""Issue 13 "Confusing today" in a real browser: the designer's running BP total (item 21), the
order form that offers only what can be ordered (item 14), the map's coordinate labels and details
on tap (item 13), at a phone's width and a desktop's. Screenshots: tests/artifacts/."""

from django.urls import reverse

from campaign.rules.eventhorizon.designs import GALIOT


def test_item21_the_designer_keeps_a_running_bp_total(page, login, shot, small_campaign):
    login(page, "bob", "pw-bob")
    page.goto(reverse("campaign-design-new", args=[small_campaign.pk]))
    tally = page.locator("#bp-tally")
    tally.wait_for(state="visible")
    page.select_option("select[name=ship_type]", GALIOT.ship_type.value)
    page.fill("input[name=hull]", str(GALIOT.hull))
    page.fill("input[name=engine]", str(GALIOT.engine))
    assert page.locator("#bp-target").inner_text() == str(GALIOT.ship_type.bp)
    assert page.locator("#bp-total").inner_text() == str(GALIOT.hull + GALIOT.engine)
    assert "still to spend" in page.locator("#bp-status").inner_text()
    page.select_option("select[name=force_field]", "" if GALIOT.force_field is None else str(GALIOT.force_field))
    for key, count in GALIOT.weapons:
        page.fill(f"input[name=weapon_{key}]", str(count))
    for flag in (
        "stealth_field",
        "improved_force_fields",
        "nanobot_skin",
        "core_containment_capacitor",
        "ai_supercomputer",
    ):
        if getattr(GALIOT, flag):
            page.check(f"input[name={flag}]")
    if GALIOT.boarding_parties:
        page.fill("input[name=boarding_parties]", str(GALIOT.boarding_parties))
    # The starter Galiot is a valid corvette: the tally reaches its type's BP exactly.
    assert page.locator("#bp-total").inner_text() == str(GALIOT.bp) == str(GALIOT.ship_type.bp)
    assert page.locator("#bp-status").inner_text() == "exactly right"
    page.fill("input[name=hull]", str(GALIOT.hull + 2))
    assert page.locator("#bp-status").inner_text() == "2 BP too many"
    shot(page, "designer")
    page.set_viewport_size({"width": 390, "height": 844})  # the header's width is base.html's (item 23)
    shot(page, "designer-phone")


def test_item14_the_order_form_disables_what_cannot_be_bought(page, login, shot, small_campaign):
    login(page, "bob", "pw-bob")
    page.goto(reverse("campaign-orders", args=[small_campaign.pk]))
    aewa = page.locator("#buy-resource option[value=aewa]")
    assert aewa.is_disabled() and "requires planetary defences" in aewa.inner_text()
    assert not page.locator("#buy-resource option[value=planetary_defences]").is_disabled()
    # A bad order shows every problem in the preview.
    page.fill(
        "#orders-form textarea",
        '{"moves": [{"fleet": 998, "path": [[0, 0]]}, {"fleet": 999, "path": [[0, 0]]}]}',
    )
    page.locator("#orders-form textarea").focus()
    page.locator("#orders-form textarea").press("End")
    page.locator("#orders-form textarea").type(" ")
    problems = page.locator("#preview-problems li")
    problems.nth(1).wait_for()
    assert problems.count() == 2 and "fleet 999" in problems.nth(1).inner_text()
    assert page.locator("#preview-status").inner_text() == "2 problems"
    shot(page, "orders-problems")


def test_item13_map_labels_and_details_on_tap(new_page, login, shot, small_campaign):
    for width, height in ((1280, 900), (390, 844)):
        page = new_page()
        page.set_viewport_size({"width": width, "height": height})
        login(page, "bob", "pw-bob")
        page.goto(reverse("campaign-detail", args=[small_campaign.pk]))
        page.locator("[data-map-loaded] svg.campaign-map").wait_for()
        labels = page.locator("svg.campaign-map g.coord-cols text")
        assert labels.count() == small_campaign.width and labels.first.inner_html() == "0"
        page.locator("svg.campaign-map g.cell").first.click()
        assert page.locator("#detail-hover").inner_text().startswith("(")
        shot(page, f"campaign-map-{width}")
