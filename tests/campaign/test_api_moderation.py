"""The REST API's moderation endpoints: a permission matrix for each (moderator, player, other
player, outsider, anonymous), bad input, and the audit log's pagination and opening at the end."""

import pytest
from rest_framework.test import APIClient

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.actions import turns as turn_actions
from campaign.models import AuditEntry, Campaign, Turn

pytestmark = pytest.mark.django_db

ANYONE_BUT_MODERATORS = {"bob": 403, "carol": 403, "mallory": 404, None: 403}


def pause(campaign, alice):
    actions.pause_campaign(campaign_id=campaign.pk, user=alice)


def nothing(campaign, alice):
    pass


# (method, path, body, prepare, expected): alice moderates, bob (seat 1) and carol (seat 2) play,
# mallory is an outsider, None is anonymous.
ENDPOINTS = [
    ("post", "pause/", None, nothing, {"alice": 200, **ANYONE_BUT_MODERATORS}),
    ("post", "resume/", None, pause, {"alice": 200, **ANYONE_BUT_MODERATORS}),
    ("post", "extend/", {"hours": 5}, nothing, {"alice": 200, **ANYONE_BUT_MODERATORS}),
    ("post", "process/", {"turn": 2}, nothing, {"alice": 200, **ANYONE_BUT_MODERATORS}),
    ("post", "rollback/", {"turn": 1}, nothing, {"alice": 200, **ANYONE_BUT_MODERATORS}),
    ("post", "substitute/", {"seat": 2, "username": ""}, nothing, {"alice": 200, **ANYONE_BUT_MODERATORS}),
    ("get", "audit/", None, pause, {"alice": 200, **ANYONE_BUT_MODERATORS}),
]


@pytest.fixture
def processed(small_campaign, alice):
    """Turn 1 processed by the moderator (each seat built a corvette), turn 2 open."""
    for empire in small_campaign.empires.all():
        dock = empire.structures.get(resource="dockyard").number
        eh_actions.submit_orders(empire_id=empire.pk, raw={"purchases": [
            {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": dock}]})
    actions.process_now(campaign_id=small_campaign.pk, user=alice)
    small_campaign.refresh_from_db()
    return small_campaign


def client_for(user):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def call(user, method, path, campaign, body=None):
    url = f"/api/campaigns/{campaign.pk}/{path}"
    return (
        getattr(client_for(user), method)(url, body, format="json")
        if method == "post"
        else client_for(user).get(url)
    )


@pytest.mark.parametrize("method,path,body,prepare,expected", ENDPOINTS, ids=[f"{m} {p}" for m, p, *_ in ENDPOINTS])
@pytest.mark.parametrize("who", ["alice", "bob", "carol", "mallory", None])
def test_permission_matrix(processed, alice, mallory, django_user_model, method, path, body, prepare, expected, who):
    prepare(processed, alice)
    user = django_user_model.objects.get(username=who) if who else None
    entries = AuditEntry.objects.count()
    response = call(user, method, path, processed, body)
    assert response.status_code == expected[who], response.content
    if who != "alice":
        assert AuditEntry.objects.count() == entries  # refused: nothing written, nothing recorded
        assert "detail" in response.json()


def test_token_authentication(processed, alice):
    _, key = actions.create_api_token(user=alice)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.post(f"/api/campaigns/{processed.pk}/pause/").json()["paused"] is True


def test_pause_resume_extend_answers(processed, alice):
    body = call(alice, "post", "pause/", processed).json()
    assert body["paused"] and body["turn"] == 2 and body["seconds_left_when_resumed"] > 0
    body = call(alice, "post", "extend/", processed, {"hours": 2}).json()
    assert body["paused"]
    body = call(alice, "post", "resume/", processed).json()
    assert not body["paused"] and body["deadline"]


def test_rollback_answers_and_reopens_the_turn(processed, alice):
    body = call(alice, "post", "rollback/", processed, {"turn": 1}).json()
    assert body["rolled_back"] == 1 and body["turn"] == 1 and body["turn_status"] == "open" and body["paused"]
    assert not Turn.objects.filter(campaign=processed, number=2).exists()


@pytest.mark.parametrize("path,body,field,message", [
    ("extend/", {"hours": "soon"}, "hours", "whole number"),
    ("extend/", {"hours": 0}, "detail", "from 1 to"),
    ("extend/", ["hours"], "detail", "JSON object"),
    ("rollback/", {"turn": "last"}, "turn", "number of the turn"),
    ("rollback/", {}, "turn", "number of the turn to roll back"),
    ("rollback/", None, "turn", "number of the turn to roll back"),
    ("process/", None, "turn", "number of the turn to process"),
    ("process/", {"turn": "2"}, "turn", "number of the turn to process"),
    ("process/", {"turn": True}, "turn", "number of the turn to process"),
    ("substitute/", {"seat": "two", "username": ""}, "seat", "seat number"),
    ("substitute/", {"seat": 2}, "username", "username"),
    ("substitute/", {"seat": 2, "username": "nobody-here"}, "detail", "no user called"),
    ("substitute/", {"seat": 9, "username": ""}, "detail", "no seat 9"),
    ("substitute/", {"seat": 2, "username": "", "old_player": "exile"}, "detail", "observer or is removed"),
    ("resume/", None, "detail", "not paused"),
])
def test_bad_input_is_a_400_naming_the_problem(processed, alice, path, body, field, message):
    before = (AuditEntry.objects.count(), Campaign.objects.get(pk=processed.pk).turn)
    response = call(alice, "post", path, processed, body)
    assert response.status_code == 400, response.content
    assert message in str(response.json()[field])
    assert (AuditEntry.objects.count(), Campaign.objects.get(pk=processed.pk).turn) == before


def test_process_when_no_turn_is_open_is_a_409(processed, alice):
    Campaign.objects.filter(pk=processed.pk).update(status=Campaign.Status.FINISHED)
    response = call(alice, "post", "process/", processed, {"turn": 2})
    assert response.status_code == 409
    assert response.json()["detail"] == "cannot process turn 2: it is not open; the campaign has finished (last turn 2)"


@pytest.mark.parametrize(
    "path,body,message",
    [
        (
            "process/",
            {"turn": 1},
            "cannot process turn 1: it has been processed already; the current turn is turn 2 (taking orders)",
        ),
        (
            "process/",
            {"turn": 3},
            "cannot process turn 3: there is no such turn yet; the current turn is turn 2 (taking orders)",
        ),
        (
            "rollback/",
            {"turn": 7},
            "only the last processed turn (1) can be rolled back, not turn 7; the current turn is 2",
        ),
    ],
)
def test_a_do_it_now_request_for_another_turn_is_a_409_naming_the_current_turn(processed, alice, path, body, message):
    """Issue 14: a repeated (or stale) request names a turn that has moved on; nothing changes."""
    before = (AuditEntry.objects.count(), list(Turn.objects.filter(campaign=processed).values_list("number", "status")))
    response = call(alice, "post", path, processed, body)
    assert response.status_code == 409 and response.json()["detail"] == message
    assert (
        AuditEntry.objects.count(),
        list(Turn.objects.filter(campaign=processed).values_list("number", "status")),
    ) == before


def test_process_now_twice_processes_once(processed, alice):
    first = call(alice, "post", "process/", processed, {"turn": 2})
    assert first.status_code == 200 and first.json() == {"processed": 2, "next_turn": 3}
    again = call(alice, "post", "process/", processed, {"turn": 2})
    assert again.status_code == 409 and "turn 3" in again.json()["detail"]
    assert Campaign.objects.get(pk=processed.pk).turn == 3


def test_audit_log_is_paginated_newest_first(processed, alice):
    from django.conf import settings

    size = settings.REST_FRAMEWORK["PAGE_SIZE"]
    for hours in range(1, size + 1):
        actions.extend_deadline(campaign_id=processed.pk, user=alice, hours=hours)
    first = call(alice, "get", "audit/", processed).json()
    assert first["count"] == size + 1 and first["next"] and len(first["results"]) == size
    newest = first["results"][0]
    assert newest["action"] == "extend" and newest["note"] == f"+{size} h" and newest["user"] == "alice"
    assert first["results"][-1]["at"] <= newest["at"]
    last = client_for(alice).get(first["next"]).json()
    assert [e["action"] for e in last["results"]] == ["process_now"]


def test_audit_log_opens_to_players_when_the_campaign_ends(processed, alice, bob, mallory):
    actions.pause_campaign(campaign_id=processed.pk, user=alice)
    response = call(bob, "get", "audit/", processed)
    assert response.status_code == 403 and "opens when the campaign ends" in response.json()["detail"]
    Campaign.objects.filter(pk=processed.pk).update(status=Campaign.Status.FINISHED)
    actions_seen = [e["action"] for e in call(bob, "get", "audit/", processed).json()["results"]]
    assert actions_seen == ["pause", "process_now"]
    assert call(mallory, "get", "audit/", processed).status_code == 404


def test_a_failure_to_send_the_turn_emails_does_not_fail_the_processed_turn(
        processed, alice, monkeypatch, django_capture_on_commit_callbacks):
    # The turn is committed before its emails are queued: if queueing fails (a broker down, a
    # locked database in eager mode) the moderator still gets the processed turn, not a 500.
    def down(campaign_id, turn_number):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(turn_actions, "enqueue_turn_notifications", down)
    with django_capture_on_commit_callbacks(execute=True):
        response = call(alice, "post", "process/", processed, {"turn": 2})
    assert response.status_code == 200, response.content
    processed.refresh_from_db()
    assert processed.turn == 3 and Turn.objects.get(campaign=processed, number=2).status == Turn.Status.DONE
