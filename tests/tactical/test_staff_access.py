"""Site staff see and act through the Django admin (audited, ruling MO7) and the moderation they
are given, never by accident (issue 24 item 6; ruling MO8): a staff account that holds no role in a
campaign is an outsider to its pages, its API, its press and its emails."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.access import role_of, visible_campaigns
from campaign.models import Campaign, Membership
from tactical.battles.actions import visible_battles
from tactical.hosts.pickup import actions

from .pickup.test_pickup import EH, a_fleet

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("root", "root@example.com", "pw-root", is_staff=True,
                                                    is_superuser=True)


def api(user) -> APIClient:
    c = APIClient()
    c.force_login(user)
    return c


def test_staff_without_a_role_are_outsiders_to_a_pickup_battle(staff, bob, carol):
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=200, opponent="link")
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=a_fleet(bob, 200))
    actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=a_fleet(carol, 200))
    pickup.refresh_from_db()
    host = Campaign.objects.get(pk=pickup.campaign_id)
    assert pickup.battle_id and role_of(staff, host) is None
    assert not visible_campaigns(staff).exists() and not visible_battles(staff).exists()
    c = api(staff)
    # the battle's state (cloaked ships included) is not read through the site
    for url in (reverse("api-battle-state", args=[pickup.battle_id]), reverse("battle-play", args=[pickup.battle_id]),
                f"/api/battles/{pickup.battle_id}/", reverse("press", args=[host.pk])):
        assert c.get(url).status_code == 404, url
    # no "moderator" announcement emailed to the players
    mail.outbox.clear()
    posted = c.post(f"/api/campaigns/{host.pk}/press/", {"announcement": True, "text": "Hello"}, format="json")
    assert posted.status_code == 404 and mail.outbox == []
    # saving notification settings does not make them a co-moderator
    saved = c.post(reverse("notification-preferences", args=[host.pk]), {"notify_turn": "on"})
    assert saved.status_code == 404
    assert not Membership.objects.filter(campaign=host, user=staff).exists()


def test_staff_given_a_moderation_moderate_and_the_admin_still_serves_them(staff, small_campaign):
    assert role_of(staff, small_campaign) is None
    Membership.objects.create(campaign=small_campaign, user=staff, role=Membership.Role.MODERATOR)
    assert role_of(staff, small_campaign) == Membership.Role.MODERATOR
    assert api(staff).get(reverse("moderation-panel", args=[small_campaign.pk])).status_code == 200
    assert api(staff).get(f"/admin/campaign/campaign/{small_campaign.pk}/change/").status_code == 200
