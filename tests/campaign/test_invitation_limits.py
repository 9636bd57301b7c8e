"""Invitation emails and pickup battle creation are limited (issue 24 items 9 and 10), with the
sign-up throttle's counting (campaign/accounts.py, each clock hour): invitation emails per sender
(INVITATION_EMAILS_PER_SENDER) and per recipient address (INVITATION_EMAILS_PER_ADDRESS) — the
campaign lobby's, a pickup battle's invitation and a pickup created against an emailed opponent
all count — and pickup battles per creator (PICKUP_CREATE_LIMIT). Over a limit the API answers
429 with Retry-After, a page shows the form error, and nothing is stored or sent."""

import pytest
from django.core import mail
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.eventhorizon import actions as eh_actions
from campaign.models import Invitation
from tactical.models import PickupBattle

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


@pytest.fixture
def limits(settings):
    settings.INVITATION_EMAILS_PER_SENDER = 3
    settings.INVITATION_EMAILS_PER_ADDRESS = 2
    settings.PICKUP_CREATE_LIMIT = 4
    return settings


def lobby_of(moderator, name="Lobby"):
    return eh_actions.create_lobby(moderator=moderator, name=name, width=14, height=12, seats=3, seed=name)


def invite(user, lobby, email):
    return api(user).post(f"/api/campaigns/{lobby.pk}/invitations/", {"email": email}, format="json")


def test_lobby_invitations_are_limited_per_sender(limits, alice, django_capture_on_commit_callbacks):
    lobby = lobby_of(alice)
    with django_capture_on_commit_callbacks(execute=True):
        for n in range(3):
            assert invite(alice, lobby, f"friend{n}@example.com").status_code == 201
        refused = invite(alice, lobby, "friend9@example.com")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "too many invitation emails" in refused.json()["detail"]
    assert len(mail.outbox) == 3 and Invitation.objects.count() == 3


def test_invitations_are_limited_per_address_whoever_sends_them(limits, alice, bob, carol, client):
    target = "victim@example.com"
    assert invite(alice, lobby_of(alice, "A"), target).status_code == 201
    assert api(bob).post("/api/pickup/", {"ruleset": "buoyz", "points": 40, "opponent": "email",
                                          "email": target}, format="json").status_code == 201
    # a third, from someone else, through the lobby page: the form says why and nothing is stored
    lobby = lobby_of(carol, "C")
    client.force_login(carol)
    page = client.post(reverse("lobby-invite", args=[lobby.pk]), {"email": target}, follow=True)
    assert b"too many invitation emails" in page.content
    assert not Invitation.objects.filter(campaign=lobby).exists()
    # the pickup invitation API too
    pickup = api(carol).post("/api/pickup/", {"ruleset": "buoyz", "points": 40, "opponent": "link"},
                             format="json").json()
    refused = api(carol).post(f"/api/pickup/{pickup['id']}/invite/", {"email": target}, format="json")
    assert refused.status_code == 429 and refused["Retry-After"]
    assert PickupBattle.objects.get(pk=pickup["id"]).invite_email == ""


def test_pickup_creation_is_limited(limits, bob, client):
    body = {"ruleset": "buoyz", "points": 40, "opponent": "link"}
    for _ in range(4):
        assert api(bob).post("/api/pickup/", body, format="json").status_code == 201
    refused = api(bob).post("/api/pickup/", body, format="json")
    assert refused.status_code == 429 and "pickup battles this hour" in refused.json()["detail"]
    assert PickupBattle.objects.filter(creator=bob).count() == 4
    client.force_login(bob)
    page = client.post(reverse("pickup-new"), {**body, "activation_hours": 24, "sides": 2})
    assert b"pickup battles this hour" in page.content
    assert PickupBattle.objects.filter(creator=bob).count() == 4


def test_a_limit_of_zero_is_no_limit(settings, bob):
    settings.PICKUP_CREATE_LIMIT = 0
    settings.INVITATION_EMAILS_PER_SENDER = settings.INVITATION_EMAILS_PER_ADDRESS = 0
    for _ in range(25):
        assert api(bob).post("/api/pickup/", {"ruleset": "buoyz", "points": 40, "opponent": "email",
                                              "email": "x@example.com"}, format="json").status_code == 201
