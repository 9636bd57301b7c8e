"""The lobby's API answers as its OpenAPI schema declares, for every status it gives: the
schemathesis probe of /api/schema/ found an invitation not yet accepted (``accepted_by`` null)
declared as always naming someone, the players list's seats given outside the lobby (``id`` null)
declared as memberships, and the refusals (400, 403, 429; 404 of a join by a wrong link) not
declared. Each answer is checked against the schema's response for its status
(tests/openapi_check.py); the permission matrix is tests/campaign/test_api_lobby.py's."""

from __future__ import annotations

import pytest

from tests.campaign.test_api_lobby import MATRIX, RED, cast, lobby  # noqa: F401 - fixtures
from tests.openapi_check import api, sent

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("who", ["moderator", "player", "other player", "outsider"])
@pytest.mark.parametrize(
    "method, path, body, expected", MATRIX, ids=[f"{m} {i}" for i, (m, *_rest) in enumerate(MATRIX)]
)
def test_every_answer_of_the_permission_matrix_is_declared(lobby, cast, django_user_model,  # noqa: F811
                                                           who, method, path, body, expected):
    django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")
    url = path(lobby)
    sent(getattr(api(cast[who]), method)(url, body, format="json"), method, url, expected[who])


def test_invitations_pending_accepted_and_refused_are_declared(lobby, alice, mallory, settings):  # noqa: F811
    url = f"/api/campaigns/{lobby.pk}/invitations/"
    sent(api(alice).post(url, {"email": "mallory@example.com"}, format="json"), "post", url, 201)
    assert sent(api(alice).get(url), "get", url, 200)["results"][0]["accepted_by"] is None
    sent(api(alice).post(url, {"email": "nope"}, format="json"), "post", url, 400)  # the serializer's
    sent(api(alice).post(url, {"email": "bob@example.com"}, format="json"), "post", url, 400)  # the action's
    token = lobby.invitations.get().token
    sent(api(mallory).post("/api/lobby/join/", {"token": token, "role": "observer"}, format="json"), "post",
         "/api/lobby/join/", 201)
    assert sent(api(alice).get(url), "get", url, 200)["results"][0]["accepted_by"] == "mallory"
    settings.INVITATION_EMAILS_PER_SENDER = 1  # one sent this hour already
    sent(api(alice).post(url, {"email": "erin@example.com"}, format="json"), "post", url, 429)


def test_join_and_create_refusals_are_declared(lobby, alice, bob, mallory):  # noqa: F811
    join = "/api/lobby/join/"
    sent(api(mallory).post(join, {"token": "no-such-link"}, format="json"), "post", join, 404)
    sent(api(mallory).post(join, {}, format="json"), "post", join, 400)
    sent(api(bob).post(join, {"token": lobby.invite_token, "empire_name": "B", "colour": RED}, format="json"),
         "post", join, 400)  # already in it
    create = "/api/lobby/"
    sent(api(alice).post(create, {"name": "x"}, format="json"), "post", create, 400)
    sent(api(alice).post(create, {"name": "x", "layer": "nonesuch"}, format="json"), "post", create, 400)
    sent(api(alice).post(create, {"name": "", "layer": "cam", "period": [1]}, format="json"), "post", create, 400)
    sent(api(alice).post(create, {"name": "", "layer": "cam"}, format="json"), "post", create, 400)
    refused = sent(api(alice).post(create, {"name": "Rubber", "layer": "cam", "battle_book": None}, format="json"),
                   "post", create, 400)  # a null rule option, in the form's own shape
    assert refused == {"battle_book": [{"message": "battle_book is text, not None", "code": "invalid"}]}
    link = f"/api/campaigns/{lobby.pk}/invite-link/"
    sent(api(alice).put(link, {"enabled": "maybe"}, format="json"), "put", link, 400)
    moderators = f"/api/campaigns/{lobby.pk}/moderators/"
    sent(api(alice).post(moderators, {"username": "nobody"}, format="json"), "post", moderators, 400)
    start = f"/api/campaigns/{lobby.pk}/start/"
    sent(api(alice).post(start), "post", start, 200)
    sent(api(alice).post(start), "post", start, 400)  # started already


def test_a_seat_given_outside_the_lobby_is_listed_as_declared(small_campaign, alice):
    url = f"/api/campaigns/{small_campaign.pk}/players/"
    rows = sent(api(alice).get(url), "get", url, 200)["results"]
    assert any(row["id"] is None for row in rows)
