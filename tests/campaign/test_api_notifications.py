"""GET/PUT /api/campaigns/{id}/notifications/: each member's own email preferences."""

import pytest
from rest_framework.test import APIClient

from campaign.models import Membership

pytestmark = pytest.mark.django_db

ALL_ON = {"notify_turn": True, "notify_reminders": True, "notify_battles": True, "notify_press": True}


@pytest.fixture
def dave(django_user_model, small_campaign):
    """An observer of small_campaign."""
    user = django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")
    Membership.objects.create(campaign=small_campaign, user=user, role=Membership.Role.OBSERVER)
    return user


def client_for(user):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


# alice moderates, bob (seat 1) and carol (seat 2) play, dave observes, mallory is an outsider.
MATRIX = {"alice": 200, "bob": 200, "carol": 200, "dave": 200, "mallory": 404, None: 403}


@pytest.mark.parametrize("method", ["get", "put"])
@pytest.mark.parametrize("who", list(MATRIX))
def test_permission_matrix(small_campaign, dave, mallory, django_user_model, method, who):
    user = django_user_model.objects.get(username=who) if who else None
    kwargs = {"data": {"notify_battles": False}, "format": "json"} if method == "put" else {}
    response = getattr(client_for(user), method)(f"/api/campaigns/{small_campaign.pk}/notifications/", **kwargs)
    assert response.status_code == MATRIX[who], response.content
    if MATRIX[who] == 200:
        expected = {**ALL_ON, "notify_battles": False} if method == "put" else ALL_ON
        assert response.json() == {"campaign": small_campaign.pk, **expected}
    else:
        assert "notify_turn" not in response.content.decode()


def test_each_member_changes_only_their_own(small_campaign, bob, carol):
    url = f"/api/campaigns/{small_campaign.pk}/notifications/"
    assert client_for(bob).put(url, {"notify_turn": False}, format="json").json()["notify_turn"] is False
    assert client_for(bob).get(url).json() == {"campaign": small_campaign.pk, **ALL_ON, "notify_turn": False}
    assert client_for(carol).get(url).json() == {"campaign": small_campaign.pk, **ALL_ON}
    # What GET answers may be PUT back.
    body = client_for(bob).get(url).json()
    body["notify_reminders"] = False
    assert client_for(bob).put(url, body, format="json").json() == {**body}


@pytest.mark.parametrize("body,message", [
    ({"notify_everything": False}, "unknown notification preference"),
    ({"notify_turn": "no"}, "must be true or false"),
    ({"notify_turn": 0}, "must be true or false"),
    ([1, 2], "send an object"),
])
def test_bad_input_is_refused_with_the_reason(small_campaign, bob, body, message):
    url = f"/api/campaigns/{small_campaign.pk}/notifications/"
    response = client_for(bob).put(url, body, format="json")
    assert response.status_code == 400 and message in response.json()["detail"]
    assert not Membership.objects.filter(user=bob).exists()


def test_outsiders_learn_nothing_about_other_campaigns(small_campaign, mallory):
    for campaign_id in (small_campaign.pk, 10**6):
        assert client_for(mallory).get(f"/api/campaigns/{campaign_id}/notifications/").status_code == 404
