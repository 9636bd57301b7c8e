"""A pickup battle that waits (ruling PK7) on phones (390×844): Carol takes seat 2 of three and
leaves it; Bob gives the free seat 3 to the computer, then cancels the battle through its
confirmation page; the invitation link then says it was cancelled to Carol. No page is wider
than the phone. Screenshots: tests/artifacts/test_a_waiting_pickup_battle_on_phones--*.png."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.urls import reverse

from campaign.models import Empire
from tactical.hosts.pickup.books import available
from tactical.models import PickupBattle
from tests.browser.conftest import sideways_overflow


def test_a_waiting_pickup_battle_on_phones(new_page, login, shot, bob, carol):
    if "buoyz" not in [n for n, _, _ in available()]:
        raise AssertionError("Buoyz 'N Da 'Hood online play is not registered")
    page, other = new_page(phone=True), new_page(phone=True)
    login(page, "bob", "pw-bob")
    login(other, "carol", "pw-carol")
    page.goto(reverse("pickup-new"))
    page.select_option("#id_ruleset", "buoyz")
    page.select_option("#id_sides", "3")
    page.check("input[name=opponent][value=link]")
    page.check("input[name=others][value=link]")
    with page.expect_navigation():
        page.click("#create-pickup")
    pickup = PickupBattle.objects.get(creator=bob)
    link = urlsplit(page.input_value("#invite-url")).path

    other.goto(link)
    with other.expect_navigation():
        other.click("#accept-pickup")
    shot(other, "01-carol-may-leave")
    assert sideways_overflow(other) == []
    with other.expect_navigation():
        other.click("#leave-pickup")
    assert not Empire.objects.filter(campaign_id=pickup.campaign_id, user=carol).exists()

    page.reload()
    with page.expect_navigation():
        page.click("#computer-seat-3")
    assert "the computer" in page.locator("#seat-3").inner_text()
    shot(page, "02-seat-3-the-computers")
    assert sideways_overflow(page) == []
    with page.expect_navigation():
        page.click("#cancel-pickup")
    assert "cannot be undone" in page.locator("#confirm").inner_text()
    assert PickupBattle.objects.get(pk=pickup.pk).status != PickupBattle.Status.CANCELLED
    shot(page, "03-confirm-cancel")
    with page.expect_navigation():
        page.click("#confirm-cancel")
    assert "Cancelled by its creator" in page.locator("#pickup-status").inner_text()
    assert PickupBattle.objects.get(pk=pickup.pk).status == PickupBattle.Status.CANCELLED

    other.goto(link)
    assert "cancelled by its creator" in other.locator("#pickup-cancelled").inner_text()
    assert other.locator("#accept-pickup").count() == 0
    shot(other, "04-link-cancelled")
