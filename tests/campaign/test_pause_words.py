"""Issue 23 item 19: while a campaign is paused the moderator's panel, the players' home cards and
what the site does agree: orders are still taken, nothing is processed (docs/rulings.md MO2)."""

import pytest
from django.urls import reverse

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.models import Turn, TurnOrders

pytestmark = pytest.mark.django_db


def test_a_paused_campaign_still_takes_orders_and_every_page_says_so(client, small_campaign, alice, bob):
    actions.pause_campaign(campaign_id=small_campaign.pk, user=alice)
    small_campaign.refresh_from_db()
    assert small_campaign.paused
    client.force_login(alice)
    panel = client.get(reverse("moderation-panel", args=[small_campaign.pk])).content.decode()
    assert "players can still write orders" in panel
    # What actually happens: bob's orders are stored, ready and all, and the turn waits.
    bob_empire = small_campaign.empires.get(seat=1)
    eh_actions.submit_orders(empire_id=bob_empire.pk, raw={}, ready=True)
    assert TurnOrders.objects.get(empire=bob_empire, turn__number=small_campaign.turn).ready
    assert Turn.objects.get(campaign=small_campaign, number=small_campaign.turn).status == Turn.Status.OPEN
    client.force_login(bob)
    home = client.get(reverse("home"))
    [row] = [r for r in home.context["rows"] if r.campaign.pk == small_campaign.pk]
    assert row.taking_orders
    text = home.content.decode()
    assert "not taking orders" not in text
    assert reverse("campaign-orders", args=[small_campaign.pk]) in text
