"""The lobby's REST API: a permission matrix (moderator, player, other player, outsider,
anonymous) for every endpoint, lists scoped to the caller, 400 naming the problem on bad input."""

import pytest
from django.core import mail
from rest_framework.test import APIClient

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.models import COLOUR_PALETTE, Campaign, Invitation, Membership

pytestmark = pytest.mark.django_db

RED, BLUE, GREEN = COLOUR_PALETTE[0], COLOUR_PALETTE[1], COLOUR_PALETTE[2]
DENIED_ANONYMOUS = (401, 403)


@pytest.fixture
def lobby(alice, bob, carol):
    """alice moderates a 3-seat lobby; bob (red) and carol (blue) have joined as players."""
    campaign = eh_actions.create_lobby(moderator=alice, name="API Lobby", width=14, height=12, seats=3, seed="api-1")
    actions.join_campaign(user=bob, token=campaign.invite_token, empire_name="Bob's Realm", colour=RED)
    actions.join_campaign(user=carol, token=campaign.invite_token, empire_name="Carol's Combine", colour=BLUE)
    return campaign


def client_for(user):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def cast(alice, bob, carol, mallory):
    return {"moderator": alice, "player": bob, "other player": carol, "outsider": mallory, "anonymous": None}


def _member(lobby, username):
    return lobby.memberships.get(user__username=username).pk


# Each endpoint: method, path (from the lobby), body, and the status each caller gets. "player" is
# bob; for per-member endpoints the member is bob's own membership, so "other player" (carol) is
# acting on someone else's.
MATRIX = [
    ("get", lambda c: f"/api/lobby/{c.pk}/", None,
     {"moderator": 200, "player": 200, "other player": 200, "outsider": 404}),
    ("get", lambda c: f"/api/campaigns/{c.pk}/players/", None,
     {"moderator": 200, "player": 200, "other player": 200, "outsider": 404}),
    ("delete", lambda c: f"/api/campaigns/{c.pk}/players/{_member(c, 'bob')}/", None,
     {"moderator": 204, "player": 204, "other player": 403, "outsider": 404}),
    ("post", lambda c: f"/api/campaigns/{c.pk}/moderators/", {"username": "dave"},
     {"moderator": 201, "player": 403, "other player": 403, "outsider": 404}),
    ("get", lambda c: f"/api/campaigns/{c.pk}/invitations/", None,
     {"moderator": 200, "player": 403, "other player": 403, "outsider": 404}),
    ("post", lambda c: f"/api/campaigns/{c.pk}/invitations/", {"email": "erin@example.com"},
     {"moderator": 201, "player": 403, "other player": 403, "outsider": 404}),
    ("get", lambda c: f"/api/campaigns/{c.pk}/invite-link/", None,
     {"moderator": 200, "player": 403, "other player": 403, "outsider": 404}),
    ("put", lambda c: f"/api/campaigns/{c.pk}/invite-link/", {"enabled": True, "regenerate": True},
     {"moderator": 200, "player": 403, "other player": 403, "outsider": 404}),
    ("post", lambda c: f"/api/campaigns/{c.pk}/start/", None,
     {"moderator": 200, "player": 403, "other player": 403, "outsider": 404}),
]


@pytest.mark.parametrize("who", ["moderator", "player", "other player", "outsider", "anonymous"])
@pytest.mark.parametrize(
    "method, path, body, expected", MATRIX, ids=[f"{m} {i}" for i, (m, *_rest) in enumerate(MATRIX)]
)
def test_permission_matrix(
    lobby, cast, django_user_model, django_capture_on_commit_callbacks, who, method, path, body, expected
):
    django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")
    before = (Campaign.objects.get(pk=lobby.pk).status, Campaign.objects.get(pk=lobby.pk).invite_token,
              Membership.objects.count(), Invitation.objects.count())
    with django_capture_on_commit_callbacks(execute=True):
        response = getattr(client_for(cast[who]), method)(path(lobby), body, format="json")
    if who == "anonymous":
        assert response.status_code in DENIED_ANONYMOUS
    else:
        assert response.status_code == expected[who], response.content
    if response.status_code >= 400:
        # A refusal changes nothing and leaks nothing of the campaign.
        after = (Campaign.objects.get(pk=lobby.pk).status, Campaign.objects.get(pk=lobby.pk).invite_token,
                 Membership.objects.count(), Invitation.objects.count())
        assert after == before
        assert b"API Lobby" not in response.content and lobby.invite_token.encode() not in response.content
        assert b"Bob" not in response.content


def test_lobby_list_is_scoped(lobby, cast):
    other = eh_actions.create_lobby(moderator=cast["outsider"], name="Mallory's", width=12, height=12, seats=2,
                                    seed="m")
    for who, expected in [("moderator", [lobby.pk]), ("player", [lobby.pk]), ("other player", [lobby.pk]),
                          ("outsider", [other.pk])]:
        response = client_for(cast[who]).get("/api/lobby/")
        assert response.status_code == 200
        assert [c["id"] for c in response.json()["results"]] == expected
    assert client_for(None).get("/api/lobby/").status_code in DENIED_ANONYMOUS


def test_create_lobby(cast):
    client = client_for(cast["outsider"])
    response = client.post("/api/lobby/", {"name": "Orion Reach", "grid": "square", "width": 16, "height": 12,
                                           "seats": 4, "turn_hours": 24, "battle_mode": "tabletop",
                                           "fog_of_war": False, "detection_range": 1, "missed_turn_limit": 0,
                                           "options": {"economy_types": False}}, format="json")
    assert response.status_code == 201, response.content
    data = response.json()
    campaign = Campaign.objects.get(pk=data["id"])
    assert campaign.status == "setup" and campaign.moderator == cast["outsider"]
    assert (campaign.grid, campaign.width, campaign.height, campaign.seats, campaign.turn_hours, campaign.battle_mode,
            campaign.fog_of_war, campaign.detection_range, campaign.missed_turn_limit, campaign.options) == (
        "square", 16, 12, 4, 24, "tabletop", False, 1, 0, {"economy_types": False, "steered_drift": False})
    assert data["invite_token"] == campaign.invite_token and data["invite_url"].endswith(
        f"/join/{campaign.invite_token}/"
    )
    assert data["members"] == [{"id": campaign.memberships.get().pk, "username": "mallory", "role": "moderator",
                                "empire_name": "", "faction": "", "colour": "", "seat": None,
                                "joined_at": data["members"][0]["joined_at"]}]
    assert client_for(None).post("/api/lobby/", {"name": "X", "width": 12, "height": 12, "seats": 2},
                                 format="json").status_code in DENIED_ANONYMOUS


@pytest.mark.parametrize("body, problem", [
    ({"width": 12, "height": 12, "seats": 2}, "name"),
    ({"name": "X", "width": 12, "height": 12, "seats": 9}, "2 to 8 players"),
    ({"name": "X", "width": 0, "height": 12, "seats": 2}, "1 to 250"),
    ({"name": "X", "width": 12, "height": 12, "seats": 2, "grid": "triangle"}, "grid"),
    ({"name": "X", "width": 12, "height": 12, "seats": 2, "options": {"drift": True}}, "unknown campaign option"),
    ({"name": "X", "width": 12, "height": 12, "seats": 2, "options": {"economy_types": "yes"}}, "economy_types"),
    ({"name": "X", "width": 12, "height": 12, "seats": 2, "turn_hours": -1}, "turn length"),
    ({"name": "X", "width": 12, "height": 12, "seats": 2, "detection_range": 99}, "detection range"),
    ({"name": "X", "width": 12, "height": 12, "seats": 2, "battle_mode": "duel"}, "battle_mode"),
    ({"name": "X", "width": 3, "height": 3, "seats": 8}, "planet"),
    ({"name": "X", "width": "wide", "height": 12, "seats": 2}, "width"),
])
def test_create_lobby_bad_input(alice, body, problem):
    response = client_for(alice).post("/api/lobby/", body, format="json")
    assert response.status_code == 400
    assert problem in response.json()["detail"]
    assert not Campaign.objects.exists()


def test_lobby_detail_hides_the_link_from_players(lobby, bob):
    data = client_for(bob).get(f"/api/lobby/{lobby.pk}/").json()
    assert "invite_token" not in data and "invite_url" not in data
    assert [(m["username"], m["role"], m["colour"]) for m in data["members"]] == [
        ("alice", "moderator", ""), ("bob", "player", RED), ("carol", "player", BLUE)]
    assert data["players"] == 2 and data["seats"] == 3


def test_players_show_seats_after_start(lobby, alice, bob):
    client_for(alice).post(f"/api/campaigns/{lobby.pk}/start/")
    data = client_for(bob).get(f"/api/campaigns/{lobby.pk}/players/").json()["results"]
    assert [(m["username"], m["seat"]) for m in data] == [("alice", None), ("bob", 1), ("carol", 2)]
    assert all("email" not in m for m in data)


def test_join_by_token(lobby, mallory):
    client = client_for(mallory)
    response = client.post("/api/lobby/join/", {"token": lobby.invite_token, "empire_name": "Marauders",
                                                "faction": "Pirates", "colour": GREEN}, format="json")
    assert response.status_code == 201
    assert response.json()["role"] == "player" and response.json()["colour"] == GREEN
    assert lobby.memberships.get(user=mallory).empire_name == "Marauders"
    # Now a member: the lobby answers.
    assert client.get(f"/api/lobby/{lobby.pk}/").status_code == 200


def test_join_matrix(lobby, cast):
    body = {"token": lobby.invite_token, "role": "observer"}
    assert client_for(None).post("/api/lobby/join/", body, format="json").status_code in DENIED_ANONYMOUS
    for who in ("moderator", "player", "other player"):
        response = client_for(cast[who]).post("/api/lobby/join/", body, format="json")
        assert response.status_code == 400 and "already in this campaign" in response.json()["detail"]
    outsider = client_for(cast["outsider"])
    response = outsider.post("/api/lobby/join/", {**body, "token": "wrong"}, format="json")
    assert response.status_code == 404 and b"API Lobby" not in response.content
    assert outsider.post("/api/lobby/join/", body, format="json").status_code == 201


@pytest.mark.parametrize("body, status, problem", [
    ({"role": "player", "empire_name": "M", "colour": RED}, 400, "colour"),
    ({"role": "player", "empire_name": "", "colour": GREEN}, 400, "name"),
    ({"role": "player", "empire_name": "M", "colour": "#abcdef"}, 400, "colours"),
    ({"role": "admin"}, 400, "role"),
    ({"role": "player", "empire_name": "M", "colour": GREEN, "token": ""}, 400, "token"),
])
def test_join_bad_input(lobby, mallory, body, status, problem):
    response = client_for(mallory).post("/api/lobby/join/", {"token": lobby.invite_token, **body}, format="json")
    assert response.status_code == status and problem in response.json()["detail"]
    assert not lobby.memberships.filter(user=mallory).exists()


def test_join_a_full_campaign(lobby, django_user_model, mallory):
    dave = django_user_model.objects.create_user("dave", "dave@example.com", "pw")
    assert client_for(dave).post("/api/lobby/join/", {"token": lobby.invite_token, "empire_name": "D",
                                                      "colour": GREEN}, format="json").status_code == 201
    response = client_for(mallory).post("/api/lobby/join/", {"token": lobby.invite_token, "empire_name": "M",
                                                             "colour": COLOUR_PALETTE[3]}, format="json")
    assert response.status_code == 400 and "full" in response.json()["detail"]


def test_invite_by_email_and_join_with_its_token(lobby, alice, mallory, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(alice).post(f"/api/campaigns/{lobby.pk}/invitations/", {"email": "mallory@example.com"},
                                          format="json")
    assert response.status_code == 201 and "token" not in response.json()
    token = Invitation.objects.get().token
    assert len(mail.outbox) == 1 and token in mail.outbox[0].body
    listed = client_for(alice).get(f"/api/campaigns/{lobby.pk}/invitations/").json()["results"]
    assert [(i["email"], i["accepted_by"]) for i in listed] == [("mallory@example.com", None)]
    response = client_for(mallory).post("/api/lobby/join/", {"token": token, "role": "observer"}, format="json")
    assert response.status_code == 201
    listed = client_for(alice).get(f"/api/campaigns/{lobby.pk}/invitations/").json()["results"]
    assert listed[0]["accepted_by"] == "mallory"


def test_invite_bad_email(lobby, alice):
    response = client_for(alice).post(f"/api/campaigns/{lobby.pk}/invitations/", {"email": "nope"}, format="json")
    assert response.status_code == 400 and "email" in response.json()["detail"]
    response = client_for(alice).post(f"/api/campaigns/{lobby.pk}/invitations/", {"email": "bob@example.com"},
                                      format="json")
    assert response.status_code == 400 and "already belongs" in response.json()["detail"]
    assert not Invitation.objects.exists()


def test_invite_link_switch(lobby, alice, mallory):
    client = client_for(alice)
    old = lobby.invite_token
    response = client.put(f"/api/campaigns/{lobby.pk}/invite-link/", {"enabled": False}, format="json")
    assert response.json() == {"enabled": False, "listed": False, "invite_token": None, "invite_url": None}
    response = client_for(mallory).post("/api/lobby/join/", {"token": old, "role": "observer"}, format="json")
    assert response.status_code == 404
    response = client.put(f"/api/campaigns/{lobby.pk}/invite-link/", {"enabled": True}, format="json")
    new = response.json()["invite_token"]
    assert new and new != old
    assert client.put(f"/api/campaigns/{lobby.pk}/invite-link/", {}, format="json").status_code == 400


def test_add_moderator_bad_input(lobby, alice):
    client = client_for(alice)
    for body, problem in [({"username": "nobody"}, "no user"), ({"username": "bob"}, "player"), ({}, "username")]:
        response = client.post(f"/api/campaigns/{lobby.pk}/moderators/", body, format="json")
        assert response.status_code == 400 and problem in response.json()["detail"]


def test_start(lobby, alice):
    response = client_for(alice).post(f"/api/campaigns/{lobby.pk}/start/")
    assert response.status_code == 200 and response.json()["status"] == "active"
    assert lobby.empires.count() == 3 and lobby.empires.filter(is_bot=True).count() == 1
    # The campaign is no longer in the lobby list; a second start is refused.
    assert client_for(alice).get("/api/lobby/").json()["results"] == []
    response = client_for(alice).post(f"/api/campaigns/{lobby.pk}/start/")
    assert response.status_code == 400 and "already started" in response.json()["detail"]
    # Members can no longer be removed.
    response = client_for(alice).delete(f"/api/campaigns/{lobby.pk}/players/{_member(lobby, 'bob')}/")
    assert response.status_code == 400 and "started" in response.json()["detail"]


def test_start_with_no_player(alice):
    campaign = eh_actions.create_lobby(moderator=alice, name="Empty", width=12, height=12, seats=2, seed="e")
    response = client_for(alice).post(f"/api/campaigns/{campaign.pk}/start/")
    assert response.status_code == 400 and "human player" in response.json()["detail"]


def test_remove_unknown_member(lobby, alice, mallory):
    other = eh_actions.create_lobby(moderator=mallory, name="Other", width=12, height=12, seats=2, seed="o")
    # A membership of another campaign is not found through this one.
    response = client_for(alice).delete(f"/api/campaigns/{lobby.pk}/players/{_member(other, 'mallory')}/")
    assert response.status_code == 404
    assert other.memberships.exists()


def test_schema_lists_the_lobby_endpoints(alice):
    response = client_for(alice).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in ["/api/lobby/", "/api/lobby/join/", "/api/campaigns/{campaign_id}/players/",
                 "/api/campaigns/{campaign_id}/start/", "/api/token/"]:
        assert path in paths


def test_players_of_a_campaign_made_outside_the_lobby(small_campaign, alice, bob, mallory):
    # small_campaign's seats were given to bob and carol directly (no lobby memberships).
    data = client_for(bob).get(f"/api/campaigns/{small_campaign.pk}/players/").json()
    assert data["count"] == 3
    assert [(m["username"], m["role"], m["seat"]) for m in data["results"]] == [
        ("alice", "moderator", None), ("bob", "player", 1), ("carol", "player", 2)]
    assert client_for(mallory).get(f"/api/campaigns/{small_campaign.pk}/players/").status_code == 404
