"""Press in the REST API: list, post, read, reply, options; 404 for outsiders; the OpenAPI
schema documents the real bodies."""

from datetime import timedelta

import pytest
from django.db.models import F
from rest_framework.test import APIClient

from campaign.press.models import PressMessage

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def url(campaign, *rest):
    return f"/api/campaigns/{campaign.pk}/press/" + "".join(f"{r}/" for r in rest)


def test_post_list_read_and_reply(press_campaign, bob, carol):
    response = api(bob).post(url(press_campaign), {"to": [2], "text": "Shall we?"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["sender_seat"], body["sender_name"], body["via"], body["announcement"]) == (1, "Bob's Realm", "api",
                                                                                              False)
    listing = api(carol).get(url(press_campaign)).json()
    assert listing["you"] == {"seat": 2, "may_write": True, "may_announce": False}
    assert listing["press"] is True and listing["moderator_reads"] is False
    assert [s["name"] for s in listing["seats"]] == ["Bob's Realm", "Carol's Combine", "Dave's Dominion"]
    (conversation,) = listing["conversations"]
    assert (conversation["kind"], conversation["seats"], conversation["unread"]) == ("seats", [1, 2], 1)
    thread = api(carol).get(url(press_campaign, conversation["id"])).json()
    assert [m["text"] for m in thread["messages"]] == ["Shall we?"] and thread["may_write"] is True
    assert api(carol).get(url(press_campaign)).json()["conversations"][0]["unread"] == 0
    answer = api(carol).post(url(press_campaign, conversation["id"]), {"text": "We shall."}, format="json")
    assert answer.status_code == 201 and answer.json()["sender_seat"] == 2


@pytest.mark.parametrize(("who", "body", "code", "named"), [
    ("bob", {"text": "no recipients"}, 400, "name the recipients"),
    ("bob", {"to": [2], "text": ""}, 400, "text"),
    ("bob", {"to": [2], "text": "x", "colour": "red"}, 400, "unknown field(s): colour"),
    ("bob", {"to": [7], "text": "x"}, 400, "no seat 7"),
    ("bob", {"to": "everyone", "text": "x"}, 400, "list of seat numbers"),
    ("bob", {"announcement": True, "text": "x"}, 403, "only the campaign's moderators"),
    ("alice", {"announcement": True, "to": "all", "text": "x"}, 400, "leave out 'to'"),
    ("alice", {"to": [1], "text": "x"}, 403, "only players write press"),
    ("erin", {"to": "all", "text": "x"}, 403, "only players write press"),
    ("mallory", {"to": "all", "text": "x"}, 404, "no such campaign"),
])
def test_bad_posts_are_refused_and_change_nothing(press_campaign, request, who, body, code, named):
    response = api(request.getfixturevalue(who)).post(url(press_campaign), body, format="json")
    assert response.status_code == code and named in response.content.decode(), response.content
    assert not PressMessage.objects.exists()


def test_the_moderator_announces_and_sets_options(press_campaign, alice, bob):
    assert api(alice).post(url(press_campaign), {"announcement": True, "text": "Hello all"},
                           format="json").status_code == 201
    assert api(bob).patch(url(press_campaign, "options"), {"press": False}, format="json").status_code == 403
    response = api(alice).patch(url(press_campaign, "options"), {"press": False, "moderator_reads": True},
                                format="json")
    assert response.json() == {"press": False, "moderator_reads": True}
    assert api(bob).get(url(press_campaign, "options")).json() == {"press": False, "moderator_reads": True}
    refused = api(bob).post(url(press_campaign), {"to": "all", "text": "x"}, format="json")
    assert refused.status_code == 400 and "press is off" in refused.json()["detail"]
    assert api(alice).patch(url(press_campaign, "options"), {"press": "maybe"}, format="json").status_code == 400


@pytest.mark.parametrize("value", [0, 1, "1", "0", "yes", "on", "True"])
def test_press_options_take_true_or_false_only(press_campaign, alice, value):
    # Issue 24 item 15: 0 and "1" were read as booleans and switched the option.
    before = api(alice).get(url(press_campaign, "options")).json()
    response = api(alice).patch(url(press_campaign, "options"), {"press": value, "moderator_reads": value},
                                format="json")
    assert response.status_code == 400, response.content
    assert "true or false" in str(response.json())
    assert api(alice).get(url(press_campaign, "options")).json() == before


def test_press_options_from_a_form_post_read_true_and_false(press_campaign, alice):
    response = api(alice).patch(url(press_campaign, "options"), {"press": "false", "moderator_reads": "true"})
    assert response.json() == {"press": False, "moderator_reads": True}


def test_outsiders_get_404(press_campaign, bob, mallory):
    conversation = api(bob).post(url(press_campaign), {"to": "all", "text": "x"}, format="json").json()["conversation"]
    for path in (url(press_campaign), url(press_campaign, conversation), url(press_campaign, "options")):
        assert api(mallory).get(path).status_code == 404
    assert api(mallory).post(url(press_campaign, conversation), {"text": "x"}, format="json").status_code == 404
    assert APIClient().get(url(press_campaign)).status_code in (401, 403)


def test_the_schema_documents_the_press_bodies(alice):
    schema = api(alice).get("/api/schema/", {"format": "json"}).json()

    def resolve(node):
        while "$ref" in node:
            node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
        return node

    post = schema["paths"]["/api/campaigns/{campaign_id}/press/"]["post"]
    body = resolve(post["requestBody"]["content"]["application/json"]["schema"])
    assert {"to", "text", "announcement"} <= set(body["properties"]) and "text" in body["required"]
    assert post["requestBody"]["content"]["application/json"]["examples"]
    assert set(resolve(post["responses"]["201"]["content"]["application/json"]["schema"])["properties"]) >= {
        "sender_seat", "sender_name", "text", "conversation"}
    reply = schema["paths"]["/api/campaigns/{campaign_id}/press/{conversation_id}/"]
    assert "text" in resolve(reply["post"]["requestBody"]["content"]["application/json"]["schema"])["properties"]
    assert "messages" in resolve(reply["get"]["responses"]["200"]["content"]["application/json"]["schema"])[
        "properties"]
    options = schema["paths"]["/api/campaigns/{campaign_id}/press/options/"]["patch"]
    assert set(resolve(options["requestBody"]["content"]["application/json"]["schema"])["properties"]) == {
        "press", "moderator_reads"}


def test_posting_over_the_rate_limit_is_429_naming_the_limit_and_posts_nothing(press_campaign, bob, carol, settings):
    """A flood of press is everyone's inbox: one person writes at most PRESS_RATE_LIMIT messages
    in a campaign in PRESS_RATE_WINDOW seconds, by every way in together; the others still write."""
    settings.PRESS_RATE_LIMIT, settings.PRESS_RATE_WINDOW = 3, 3600
    for n in range(2):
        assert api(bob).post(url(press_campaign), {"to": [2], "text": f"one {n}"}, format="json").status_code == 201
    conversation = PressMessage.objects.get(text="one 0").conversation.public_id
    assert api(bob).post(url(press_campaign, conversation), {"text": "three"}, format="json").status_code == 201
    before = PressMessage.objects.count()
    refused = api(bob).post(url(press_campaign), {"to": "all", "text": "four"}, format="json")
    assert refused.status_code == 429, refused.content
    assert "3 press messages" in refused.json()["detail"] and int(refused["Retry-After"]) > 3000
    assert api(bob).post(url(press_campaign, conversation), {"text": "four"}, format="json").status_code == 429
    assert PressMessage.objects.count() == before
    assert (
        api(carol)
        .post(url(press_campaign, conversation), {"text": "carol writes"}, format="json")
        .status_code
        == 201
    )
    # An hour on, the oldest has aged out of the window.
    PressMessage.objects.filter(author=bob).update(created_at=F("created_at") - timedelta(hours=1, minutes=1))
    assert api(bob).post(url(press_campaign), {"to": "all", "text": "later"}, format="json").status_code == 201
    settings.PRESS_RATE_LIMIT = 0
    for n in range(5):
        assert (
            api(bob)
            .post(url(press_campaign), {"to": [3], "text": f"unlimited {n}"}, format="json")
            .status_code
            == 201
        )
