"""Issue 23 item 9: "I'll play too" on the create form (docs/rulings.md L6): the creator takes a
seat as well as moderating, and sees the campaign through his seat's eyes; unticked, he is told
that he moderates without a seat."""

import pytest
from django.urls import reverse

from campaign import actions
from campaign.access import role_of
from campaign.eventhorizon.visibility import viewer_for
from campaign.models import COLOUR_PALETTE, Campaign, Empire

pytestmark = pytest.mark.django_db

FORM = {"name": "Orion Reach", "grid": "hex", "width": 14, "height": 12, "seats": 2, "turn_hours": 48,
        "setup_hours": 72, "battle_mode": "auto", "battle_requests": "either", "battle_hours": 48,
        "activation_hours": 24, "deployment": "automatic", "fog_of_war": "on", "detection_range": 2,
        "missed_turn_limit": 3, "show_ready": "on", "seed": "play-too"}


def _create(client, alice, **extra):
    client.force_login(alice)
    response = client.post(reverse("lobby-create"), {**FORM, **extra}, follow=True)
    assert response.status_code == 200
    return response, Campaign.objects.filter(name="Orion Reach").first()


def test_the_create_form_offers_to_play_and_says_so_when_not_chosen(client, alice):
    client.force_login(alice)
    assert "I&#x27;ll play too" in client.get(reverse("lobby-create")).content.decode()
    response, campaign = _create(client, alice)
    said = " ".join(str(m) for m in response.context["messages"])
    assert campaign is not None and "without a seat" in said


def test_a_name_is_needed_to_play(client, alice):
    response, campaign = _create(client, alice, play="on")
    assert campaign is None and "Name your empire" in response.content.decode()


def test_the_creator_who_plays_takes_a_seat_and_sees_through_it(client, alice, bob, carol,
                                                                  django_capture_on_commit_callbacks):
    response, campaign = _create(client, alice, play="on", empire_name="Alice's Ascendancy", colour=COLOUR_PALETTE[2])
    assert "You play too" in " ".join(str(m) for m in response.context["messages"])
    actions.join_campaign(user=bob, token=campaign.invite_token, empire_name="Bob's Realm", colour=COLOUR_PALETTE[0])
    with pytest.raises(actions.ActionError, match="full"):  # two seats: alice's and bob's
        actions.join_campaign(user=carol, token=campaign.invite_token, empire_name="Carol's", colour=COLOUR_PALETTE[1])
    with django_capture_on_commit_callbacks(execute=True):
        actions.start_campaign(campaign_id=campaign.pk, user=alice)
    mine = Empire.objects.get(campaign=campaign, user=alice)
    assert mine.seat == 1 and mine.name == "Alice's Ascendancy" and not mine.is_bot
    assert role_of(alice, campaign) == "moderator"
    viewer = viewer_for(alice, campaign)
    assert viewer.seat == 1 and viewer.fog_seat == 1 and not viewer.full  # no more than her seat sees
    assert viewer_for(alice, campaign, as_seat=2).fog_seat == 1  # and no other seat's eyes either
    assert client.get(reverse("campaign-orders", args=[campaign.pk])).status_code == 200
    assert client.get(reverse("moderation-panel", args=[campaign.pk])).status_code == 200


def test_the_lobby_api_takes_play_too(alice):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_login(alice)
    body = {"name": "Orion Reach", "width": 14, "height": 12, "seats": 2, "seed": "play-too"}
    bad = api.post("/api/lobby/", {**body, "play": {"empire_name": "", "colour": COLOUR_PALETTE[0]}}, format="json")
    assert bad.status_code == 400 and "name for your empire" in str(bad.json())
    res = api.post("/api/lobby/", {**body, "play": {"empire_name": "Alice's Ascendancy", "colour": COLOUR_PALETTE[0]}},
                   format="json")
    assert res.status_code == 201, res.content
    assert Campaign.objects.get(pk=res.json()["id"]).memberships.get(user=alice).empire_name == "Alice's Ascendancy"
