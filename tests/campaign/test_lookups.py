"""The one-query look-ups of campaign/lookups.py give exactly what the ORM gives (issue 4, the
HTTP bench): the same user, token, campaign, role and empire, field by field, on whichever
database the run uses (CI runs SQLite and PostgreSQL)."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from campaign import actions, lookups
from campaign.access import empire_of, role_of
from campaign.accounts import ThrottledModelBackend
from campaign.models import ApiToken, Campaign, Membership

pytestmark = pytest.mark.django_db


def fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def test_user_by_id_is_the_orm_user(bob):
    bob.first_name = "Bob"
    bob.save()
    found = lookups.user_by_id(bob.pk)
    assert type(found) is get_user_model()
    assert fields(found) == fields(get_user_model().objects.get(pk=bob.pk))
    assert not found._state.adding and found._state.db == "default"


def test_user_by_id_of_nobody_is_none(db):
    assert lookups.user_by_id(987654) is None


def test_session_backend_refuses_an_inactive_user(bob):
    backend = ThrottledModelBackend()
    assert backend.get_user(bob.pk) == bob
    bob.is_active = False
    bob.save()
    assert backend.get_user(bob.pk) is None


def test_a_deactivated_user_is_logged_out_on_the_next_request(bob):
    client = Client()
    client.force_login(bob)
    assert client.get("/accounts/").status_code == 200
    get_user_model().objects.filter(pk=bob.pk).update(is_active=False)
    response = client.get("/accounts/")
    assert response.status_code == 302 and "/login" in response["Location"]


def test_user_and_token_is_the_orm_pair(bob):
    token, key = actions.create_api_token(user=bob)
    user, found = lookups.user_and_token(key)
    assert fields(user) == fields(bob)
    assert fields(found) == fields(ApiToken.objects.get(pk=token.pk))
    assert found.user is user  # no second query for token.user
    assert lookups.user_and_token("not-a-token") is None


def test_api_token_authentication_answers_as_drf(bob, small_campaign):
    _, key = actions.create_api_token(user=bob)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get(f"/api/campaigns/{small_campaign.pk}/").status_code == 200
    api.credentials(HTTP_AUTHORIZATION="Token wrong")
    response = api.get(f"/api/campaigns/{small_campaign.pk}/")
    # DRF's convention for a refused token: 401 with its challenge (issue 23 item 24)
    assert response.status_code == 401 and response.json()["detail"] == "Invalid token."
    assert response["WWW-Authenticate"] == "Token"
    bob.is_active = False
    bob.save()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    response = api.get(f"/api/campaigns/{small_campaign.pk}/")
    assert response.status_code == 401 and response.json()["detail"] == "User inactive or deleted."


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("root", "root@example.com", "pw", is_staff=True)


@pytest.mark.parametrize("who", ["alice", "bob", "carol", "dave", "erin", "mallory", "staff"])
def test_campaign_access_matches_role_of_and_empire_of(request, small_campaign, django_user_model, who):
    # alice created it; bob and carol play; dave co-moderates, erin observes, mallory is an outsider.
    dave = django_user_model.objects.create_user("dave", "d@example.com", "pw")
    erin = django_user_model.objects.create_user("erin", "e@example.com", "pw")
    Membership.objects.create(campaign=small_campaign, user=dave, role=Membership.Role.MODERATOR)
    Membership.objects.create(campaign=small_campaign, user=erin, role=Membership.Role.OBSERVER)
    user = {"dave": dave, "erin": erin}.get(who) or request.getfixturevalue(who)
    found = lookups.campaign_access(user, small_campaign.pk)
    role = role_of(user, small_campaign)
    if role is None:
        assert found is None  # an outsider: the same 404 as visible_campaigns
        return
    assert found.role == role
    assert fields(found.campaign) == fields(Campaign.objects.get(pk=small_campaign.pk))
    expected = empire_of(user, small_campaign)
    assert (found.empire and fields(found.empire)) == (expected and fields(expected))
    if found.empire is not None:
        assert found.empire.campaign is found.campaign


def test_campaign_access_refuses_anonymous_unknown_and_other_layers(small_campaign, bob):
    from django.contrib.auth.models import AnonymousUser

    assert lookups.campaign_access(AnonymousUser(), small_campaign.pk) is None
    assert lookups.campaign_access(bob, 987654) is None
    assert lookups.campaign_access(bob, "12x") is None
    assert lookups.campaign_access(bob, 10**30) is None and lookups.campaign_access(bob, -1) is None
    assert lookups.campaign_access(bob, small_campaign.pk, layer="cam") is None
    assert lookups.campaign_access(bob, small_campaign.pk, layer="eventhorizon").role == Membership.Role.PLAYER


def test_ids_beyond_any_row_are_404_not_500(client, bob, small_campaign):
    client.force_login(bob)
    huge = 10**25
    assert client.get(f"/campaigns/{huge}/map/").status_code == 404
    assert client.get(f"/campaigns/{huge}/map.svg").status_code == 404
    _, key = actions.create_api_token(user=bob)
    response = client.put(f"/api/campaigns/{huge}/orders/", {"orders": {}}, content_type="application/json",
                          HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 404
