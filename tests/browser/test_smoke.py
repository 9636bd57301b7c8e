"""Smoke test in a real browser: a player logs in through the form, opens the campaign page and
the map. Screenshots: tests/artifacts/test_player_sees_campaign_and_map--*.png."""

from django.urls import reverse


def test_player_sees_campaign_and_map(page, login, shot, small_campaign):
    login(page, "bob", "pw-bob")
    # Logged in: the header names the player and offers to log out.
    assert page.locator("header").get_by_text("bob").is_visible()

    page.goto(reverse("campaign-detail", args=[small_campaign.pk]))
    assert "Test Sector" in page.locator("h1").inner_text()
    # In the empires table (the live map's hidden <title>s name it too).
    assert page.locator("table").get_by_text("Bob's Realm").first.is_visible()
    shot(page, "campaign")

    page.goto(reverse("campaign-map", args=[small_campaign.pk]))
    svg = page.locator("[data-map-loaded] svg.campaign-map")  # fetched by map.js from map.svg
    svg.wait_for(state="visible")
    box = svg.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 100, box
    # The map draws the 12×12 board: many cells, not an empty frame.
    assert page.locator("svg.campaign-map polygon, svg.campaign-map rect").count() >= 144
    shot(page, "map")


def test_outsider_cannot_open_the_campaign(page, login, small_campaign, mallory):
    login(page, "mallory", "pw-mallory")
    response = page.goto(reverse("campaign-detail", args=[small_campaign.pk]))
    assert response.status == 404
    assert "Test Sector" not in page.content()
