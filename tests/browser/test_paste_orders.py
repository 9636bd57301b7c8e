"""The "paste orders" page (orders as text, docs/orders.md) on a phone: the template fits the
screen, a refused line is shown with its number and rule, an accepted set is stored.
Screenshots: tests/artifacts/test_paste_orders_on_a_phone--*.png."""

from __future__ import annotations

from django.urls import reverse

from tests.browser.conftest import sideways_overflow


def test_paste_orders_on_a_phone(small_campaign, phone, login, shot):
    login(phone, "bob", "pw-bob")
    phone.goto(reverse("campaign-orders-text", args=[small_campaign.pk]))
    box = phone.locator("textarea.paste-orders")
    template = box.input_value()
    assert template.startswith(f"#SECTOR {small_campaign.pk} 1 T1-")
    assert sideways_overflow(phone) == []
    shot(phone, "template")
    box.fill(template.replace("#END", "MOVE 999 TO 1,1\n#END"))
    phone.locator("main form button[type=submit]").click()
    phone.wait_for_selector("text=Refused")
    assert "003 Campaign Movement" in phone.locator(".lines").inner_text()
    assert sideways_overflow(phone) == []
    shot(phone, "refused")
    box = phone.locator("textarea.paste-orders")
    box.fill(template.replace("INITIATIVE first", "INITIATIVE last"))
    phone.locator("main form button[type=submit]").click()
    phone.wait_for_selector("text=Accepted")
    assert sideways_overflow(phone) == []
    shot(phone, "accepted")
    orders = small_campaign.turns.get(number=1).orders.get(empire__seat=1).orders
    assert orders["standing"]["initiative"] == "last"
    phone.goto(reverse("campaign-order-secret", args=[small_campaign.pk]))
    phone.locator("main form button[type=submit]").click()
    phone.wait_for_selector("text=shown this once")
    assert sideways_overflow(phone) == []
    shot(phone, "secret")
