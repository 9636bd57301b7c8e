"""Issue 23 item 3: a site-admin (staff) account has only its own roles on the site's pages; it
reaches other campaigns through the Django admin (docs/rulings.md MO7, MO8). Home rows show the
user's own roles, and every home card's link opens (a pickup card's too)."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from campaign import lookups
from campaign.access import role_of, visible_campaigns

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("root", "root@example.com", "pw-root", is_staff=True,
                                                 is_superuser=True)


def _home_rows(client, user) -> dict:
    client.force_login(user)
    response = client.get(reverse("home"))
    assert response.status_code == 200
    return {row.campaign.pk: row for row in response.context["rows"]}


def test_staff_see_only_their_own_campaigns_on_home(client, small_campaign, staff):
    assert _home_rows(client, staff) == {}
    assert b"you moderate" not in client.get(reverse("home")).content
    assert role_of(staff, small_campaign) is None
    assert not visible_campaigns(staff).exists()
    assert lookups.campaign_access(staff, small_campaign.pk) is None


def test_staff_cannot_open_another_campaigns_moderation_panel(client, small_campaign, staff):
    client.force_login(staff)
    assert client.get(reverse("moderation-panel", args=[small_campaign.pk])).status_code == 404
    assert client.post(reverse("moderation-pause", args=[small_campaign.pk])).status_code == 404
    small_campaign.refresh_from_db()
    assert not small_campaign.paused
    # ... and reach it through the admin instead.
    assert client.get(reverse("admin:campaign_campaign_change", args=[small_campaign.pk])).status_code == 200


def test_a_staff_member_who_plays_is_a_player_not_a_moderator(client, small_campaign, bob):
    bob.is_staff = True
    bob.save(update_fields=["is_staff"])
    row = _home_rows(client, bob)[small_campaign.pk]
    assert row.role == "player"
    assert client.get(reverse("moderation-panel", args=[small_campaign.pk])).status_code == 403  # as any player


def test_every_home_card_link_opens_a_pickup_card_too(client, bob, staff):
    api = APIClient()
    api.force_login(bob)
    res = api.post("/api/pickup/", {"ruleset": "buoyz", "points": 40, "opponent": "computer"}, format="json")
    assert res.status_code == 201, res.content
    for user in (bob, staff):
        for row in _home_rows(client, user).values():
            response = client.get(row.url, follow=True)
            assert response.status_code == 200, (user.username, row.url)
    assert _home_rows(client, staff) == {}
