"""The Print&Play dashboard designer at phone width (390×844; issue 30): from his pickup battle's
fleet form Bob opens the designer, types a dashboard with a hit column out of bounds, sees the
designer's refusal at that field, corrects it, saves it at the engine's price and buys it back
on the fleet form. No page is wider than the phone.
Screenshots: tests/artifacts/test_the_dashboard_designer_on_a_phone--*.png."""

from __future__ import annotations

from django.urls import reverse

from tactical.hosts.pickup import actions
from tactical.models import PickupBattle, PlayerDesign
from tests.browser.conftest import sideways_overflow


def test_the_dashboard_designer_on_a_phone(new_page, login, shot, bob):
    page = new_page(phone=True)
    login(page, "bob", "pw-bob")
    pickup = actions.create_pickup(user=bob, ruleset="printplay", points=200, opponent="computer")
    page.goto(reverse("pickup-detail", args=[pickup.pk]))
    with page.expect_navigation():
        page.click("#designer-link")
    for field, value in (("#id_name", "Akira"), ("#id_shields_fore", "18"), ("#id_shields_aft", "18"),
                         ("#id_shields_port", "14"), ("#id_shields_starboard", "14"), ("#id_shield_max", "26"),
                         ("#id_hull", "28"), ("#id_impulse", "6"), ("#id_w0_name", "Phaser"), ("#id_w0_qty", "4"),
                         ("#id_w0_hit", "8")):
        page.fill(field, value)
    page.select_option("#id_type", "heavy cruiser")
    page.select_option("#id_w0_arc", "270")
    assert sideways_overflow(page) == []
    with page.expect_navigation():
        page.click("#save-design")
    assert "Hit must be a whole number from 2 to 6, not 8" in page.inner_text("#error-w0_hit")
    shot(page, "01-refused-at-its-field")
    assert sideways_overflow(page) == [] and not PlayerDesign.objects.exists()
    page.fill("#id_w0_hit", "3")
    with page.expect_navigation():
        page.click("#save-design")
    row = PlayerDesign.objects.get(owner=bob)
    assert row.name in page.inner_text("#your-designs") and str(row.points) in page.inner_text("#your-designs")
    shot(page, "02-saved")
    assert sideways_overflow(page) == []
    page.goto(reverse("pickup-detail", args=[pickup.pk]))
    page.fill(f"#id_ship_design-{row.pk}", "1")
    with page.expect_navigation():
        page.click("#submit-fleet")
    assert page.url.endswith(reverse("battle-play", args=[PickupBattle.objects.get().battle_id]))
    assert "Akira" in page.content()  # his own design is in the battle
