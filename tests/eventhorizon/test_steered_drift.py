"""Issue 13 item 4: the option RULINGS "Particle clouds" promises — "the nearest opponent's
standing drift order steers it" (003 Creating a Map: Particle Cloud, "Failure means that the
opponent moves the ship/fleet for the rest of its remaining movement"; docs/rulings.md P2) — on
the site: a campaign option (off by default) on the lobby form, the API and the moderation
panel, and a standing drift order given with any turn's orders. The engine's use of it is tested
in tests/rules/eventhorizon/test_movement.py (test_issue13_item4_p2_*)."""

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import adapters
from campaign.models import AuditEntry, Campaign

pytestmark = pytest.mark.django_db


def api(user):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def test_issue13_item4_option_is_off_by_default_and_on_the_lobby_form(client, alice):  # RULINGS "Particle clouds"
    client.force_login(alice)
    page = client.get(reverse("lobby-create")).content.decode()
    assert 'name="option_steered_drift"' in page and "Opponents steer particle-cloud drift" in page
    campaign = eh_actions.create_campaign(name="Default", grid="hex", width=12, height=12, players=2, seed="d")
    assert campaign.options["steered_drift"] is False
    assert adapters.load_state(campaign).options["steered_drift"] is False


def test_issue13_item4_newcampaign_takes_the_option(capsys):  # docs/rulings.md P2
    call_command("newcampaign", "--name", "Drift", "--size", "12x12", "--seed", "x", "--steered-drift")
    campaign = Campaign.objects.get(name="Drift")
    assert campaign.options["steered_drift"] is True
    assert adapters.load_state(campaign).options["steered_drift"] is True


def test_issue13_item4_moderator_switches_the_option_on_the_panel(small_campaign, client, alice, bob):
    """RULINGS: "A moderator may switch any ruling marked (option) per campaign"; audited."""
    url = reverse("moderation-options", args=[small_campaign.pk])
    client.force_login(bob)
    assert client.post(url, {"steered_drift": "on"}).status_code == 403
    client.force_login(alice)
    panel = client.get(reverse("moderation-panel", args=[small_campaign.pk])).content.decode()
    assert 'id="rule-options"' in panel and 'name="steered_drift"' in panel
    assert client.post(url, {"steered_drift": "on"}).status_code == 302
    small_campaign.refresh_from_db()
    assert small_campaign.options["steered_drift"] is True and small_campaign.options["economy_types"] is True
    entry = AuditEntry.objects.get(campaign=small_campaign, action="set_option")
    assert (entry.before, entry.after) == ({"steered_drift": False}, {"steered_drift": True})
    client.post(url, {})  # unticked: off again
    small_campaign.refresh_from_db()
    assert small_campaign.options["steered_drift"] is False


def test_issue13_item4_options_api(small_campaign, alice, bob, mallory):  # RULINGS "(option)"; docs/rulings.md P2
    url = f"/api/campaigns/{small_campaign.pk}/options/"
    assert api(bob).get(url).json()["options"]["steered_drift"] is False
    assert api(mallory).get(url).status_code == 404
    assert api(bob).patch(url, {"steered_drift": True}, format="json").status_code == 403
    response = api(alice).patch(url, {"steered_drift": True}, format="json")
    assert response.status_code == 200 and response.json()["options"]["steered_drift"] is True
    for body, message in [({"steered_drift": "yes"}, "must be bool"),
                          ({"economy_types": False}, "cannot be switched during a campaign"),
                          ({}, "send the options")]:
        response = api(alice).patch(url, body, format="json")
        assert response.status_code == 400 and message in response.json()["detail"], response.content
    small_campaign.refresh_from_db()
    assert small_campaign.options == {"economy_types": True, "steered_drift": True}


def test_issue13_item4_drift_order_given_with_orders_becomes_standing(small_campaign, alice, bob):
    """RULINGS "Live decisions become standing orders": the drift order is checked (on the map),
    previewed (saying when the option is off) and stands after the turn."""
    url = f"/api/campaigns/{small_campaign.pk}/orders/"
    bad = {"orders": {"standing": {"drift": {"toward": [40, 40]}}}}
    response = api(bob).post(url + "preview/", bad, format="json")
    assert response.status_code == 400 and "off the map" in response.json()["orders"]
    orders = {"orders": {"standing": {"invasion": [], "loss_order": "cheapest", "initiative": "first",
                                      "drift": {"away_from": [3, 4]}}}}
    preview = api(bob).post(url + "preview/", orders, format="json").json()
    assert any("steered-drift option is off" in line for line in preview["lines"])
    assert api(bob).put(url, orders, format="json").status_code == 200
    actions.process_now(campaign_id=small_campaign.pk, user=alice)
    empire = small_campaign.empires.get(seat=1)
    assert empire.standing_orders["drift"] == {"away_from": [3, 4]}
    assert adapters.load_state(small_campaign).empire(1).standing.drift.hex == (3, 4)
