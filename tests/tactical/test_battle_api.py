"""Battle API (issue 5, "Tabletop result entry"): the permission matrix (attacker's player,
defender's player, moderator, another player of the campaign, an outsider, anonymous), bad input
answered 4xx with a message naming the problem and changing nothing, and the full flows.

Rules: 003 "Result of a Tactical Battle", 003 "Alternative to a Tactical Battle"; rulings
C15–C20 (docs/rulings.md).
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from campaign.eventhorizon.models import Ship
from campaign.models import Membership, Turn
from tactical.models import Battle
from tests.tactical.battle_support import contact_turn

pytestmark = pytest.mark.django_db


@pytest.fixture
def dave(django_user_model):
    return django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")


@pytest.fixture
def battle(small_campaign, dave):
    contact_turn(small_campaign, "tabletop")
    Membership.objects.create(campaign=small_campaign, user=dave, role=Membership.Role.PLAYER)
    return Battle.objects.get(campaign=small_campaign)


@pytest.fixture
def users(alice, bob, carol, dave, mallory):
    return {"alice": alice, "bob": bob, "carol": carol, "dave": dave, "mallory": mallory, None: None}


def api(user) -> APIClient:
    c = APIClient()
    if user is not None:
        c.force_authenticate(user)
    return c


def ship_ids(battle):
    return (battle.setup["sides"][str(battle.attacker)]["ships"][0]["id"],
            battle.setup["sides"][str(battle.defender)]["ships"][0]["id"])


def good_result(battle) -> dict:
    """The defender's ship destroyed; the attacker's carries 2 hull and a laser bank lost."""
    a, d = ship_ids(battle)
    return {"holder": battle.attacker, "ships": [
        {"ship": a, "fate": "survived", "damage": {"hull": 2, "weapons": ["laser_bank"]}},
        {"ship": d, "fate": "destroyed"},
    ]}


def snapshot(battle):
    b = Battle.objects.get(pk=battle.pk)
    return (b.status, b.mode, b.proposal, b.proposed_by, b.result, b.resolved_how,
            list(b.log.values_list("id", "kind")))


# alice moderates; bob attacks (seat 1); carol defends (seat 2); dave plays in the campaign but
# not in this battle; mallory is an outsider; None is anonymous (403, as the rest of the API).
READS = {"alice": 200, "bob": 200, "carol": 200, "dave": 404, "mallory": 404, None: 403}


@pytest.mark.parametrize("who, expected", list(READS.items()))
def test_get_battle(battle, users, who, expected):
    r = api(users[who]).get(f"/api/battles/{battle.pk}/")
    assert r.status_code == expected, r.content
    if expected == 200:
        body = r.json()
        assert body["status"] == "waiting" and body["mode"] == "tabletop"
        assert body["setup"]["sides"]["1"]["ships"][0]["design"]["hull"] == 5
        assert [e["kind"] for e in body["log"]] == ["created"]
        assert body["your_seat"] == {"alice": None, "bob": 1, "carol": 2}[who]
    elif expected == 404:
        assert "no battle" in r.json()["detail"]


@pytest.mark.parametrize("who, expected, count", [
    ("alice", 200, 1), ("bob", 200, 1), ("carol", 200, 1), ("dave", 200, 0), ("mallory", 404, None),
    (None, 403, None),
])
def test_list_battles(battle, small_campaign, users, who, expected, count):
    r = api(users[who]).get(f"/api/campaigns/{small_campaign.pk}/battles/")
    assert r.status_code == expected
    if count is not None:
        assert len(r.json()["results"]) == count
        if count:
            assert r.json()["results"][0]["id"] == battle.pk


@pytest.mark.parametrize("who, expected", [
    ("bob", 200), ("carol", 200), ("alice", 403), ("dave", 404), ("mallory", 404), (None, 403),
])
def test_enter_result_matrix(battle, users, who, expected):
    before = snapshot(battle)
    r = api(users[who]).post(f"/api/battles/{battle.pk}/result/", good_result(battle), format="json")
    assert r.status_code == expected, r.content
    battle.refresh_from_db()
    if expected == 200:
        assert battle.status == "entered" and battle.proposed_by == {"bob": 1, "carol": 2}[who]
        assert r.json()["proposal"]["holder"] == battle.attacker
    else:
        assert snapshot(battle) == before
        if who is not None:
            assert r.json()["detail"]


@pytest.mark.parametrize("path, body", [
    ("settle/", {"auto": True}), ("mode/", {"mode": "auto"}),
])
@pytest.mark.parametrize("who, expected", [
    ("bob", 403), ("carol", 403), ("dave", 404), ("mallory", 404), (None, 403), ("alice", 200),
])
def test_moderator_only_matrix(battle, users, path, body, who, expected):
    before = snapshot(battle)
    r = api(users[who]).post(f"/api/battles/{battle.pk}/{path}", body, format="json")
    assert r.status_code == expected, r.content
    if expected == 200:
        assert r.json()["status"] == "resolved" and r.json()["resolved_how"] == "moderator"
    else:
        assert snapshot(battle) == before
    if expected == 403 and who is not None:
        assert "only the campaign's moderator" in r.json()["detail"]


@pytest.mark.parametrize("who, expected", [
    ("carol", 200), ("bob", 403), ("alice", 403), ("dave", 404), ("mallory", 404), (None, 403),
])
def test_confirm_and_dispute_matrix(battle, users, bob, who, expected):
    api(bob).post(f"/api/battles/{battle.pk}/result/", good_result(battle), format="json")
    before = snapshot(battle)
    r = api(users[who]).post(f"/api/battles/{battle.pk}/dispute/", {"reason": "not what happened"}, format="json")
    assert r.status_code == expected, r.content
    if expected == 200:
        assert r.json()["status"] == "disputed"
    else:
        assert snapshot(battle) == before
    before_confirm = snapshot(battle)
    if expected != 200:
        r = api(users[who]).post(f"/api/battles/{battle.pk}/confirm/", format="json")
        assert r.status_code == expected
        assert snapshot(battle) == before_confirm


def _ships(result):
    return result["ships"]


@pytest.mark.parametrize("case, body, message", [
    ("unknown ship", lambda b, a, d: {"holder": b.attacker, "ships": [
        {"ship": a, "fate": "survived"}, {"ship": d, "fate": "destroyed"}, {"ship": 999, "fate": "destroyed"}]},
     "ship 999 was not in the battle"),
    ("missing ship", lambda b, a, d: {"holder": b.attacker, "ships": [{"ship": a, "fate": "survived"}]},
     "the result leaves out ship(s)"),
    ("ship twice", lambda b, a, d: {"holder": b.attacker, "ships": [
        {"ship": a, "fate": "survived"}, {"ship": a, "fate": "survived"}, {"ship": d, "fate": "destroyed"}]},
     "is listed twice"),
    ("damage larger than the design", lambda b, a, d: {"holder": b.attacker, "ships": [
        {"ship": a, "fate": "survived", "damage": {"engine": 10}}, {"ship": d, "fate": "destroyed"}]},
     "10 engine points lost of 9"),
    ("weapon not fitted", lambda b, a, d: {"holder": b.attacker, "ships": [
        {"ship": a, "fate": "survived", "damage": {"weapons": ["emp_cannon"]}}, {"ship": d, "fate": "destroyed"}]},
     "1 EMP Cannon lost of 0"),
    ("holder with no ship left", lambda b, a, d: {"holder": b.defender, "ships": [
        {"ship": a, "fate": "survived"}, {"ship": d, "fate": "destroyed"}]},
     "has no ship left in the hex to hold it"),
    ("unknown fate", lambda b, a, d: {"holder": None, "ships": [
        {"ship": a, "fate": "vanished"}, {"ship": d, "fate": "destroyed"}]},
     "fate must be one of"),
    ("captured by itself", lambda b, a, d: {"holder": None, "ships": [
        {"ship": a, "fate": "captured", "captured_by": b.attacker}, {"ship": d, "fate": "survived"}]},
     "can only be captured by the other side"),
    ("unknown damage field", lambda b, a, d: {"holder": None, "ships": [
        {"ship": a, "fate": "survived", "damage": {"shields": 1}}, {"ship": d, "fate": "survived"}]},
     "unknown damage field(s) shields"),
    ("not an object", lambda b, a, d: [1, 2], "send a JSON object"),
    ("no ships", lambda b, a, d: {"holder": None}, "'ships' must be a list"),
])
def test_bad_results_are_refused_and_change_nothing(battle, bob, case, body, message):
    a, d = ship_ids(battle)
    before = snapshot(battle)
    r = api(bob).post(f"/api/battles/{battle.pk}/result/", body(battle, a, d), format="json")
    assert r.status_code == 400, r.content
    assert message in r.json()["detail"]
    assert snapshot(battle) == before


def test_bad_requests_name_the_problem(battle, alice, bob, carol):
    before = snapshot(battle)
    r = api(carol).post(f"/api/battles/{battle.pk}/confirm/", format="json")
    assert r.status_code == 400 and "no entered result waiting to be confirmed" in r.json()["detail"]
    r = api(alice).post(f"/api/battles/{battle.pk}/settle/", {}, format="json")
    assert r.status_code == 400 and "nothing has been entered" in r.json()["detail"]
    r = api(alice).post(f"/api/battles/{battle.pk}/settle/", {"auto": "yes"}, format="json")
    assert r.status_code == 400 and "'auto' must be true or false" in r.json()["detail"]
    r = api(alice).post(f"/api/battles/{battle.pk}/settle/", {"auto": True, "result": good_result(battle)},
                        format="json")
    assert r.status_code == 400 and "not both" in r.json()["detail"]
    r = api(alice).post(f"/api/battles/{battle.pk}/settle/", {"results": {}}, format="json")
    assert r.status_code == 400 and "unknown field(s) results" in r.json()["detail"]
    r = api(alice).post(f"/api/battles/{battle.pk}/mode/", {"mode": "chess"}, format="json")
    assert r.status_code == 400 and "mode must be one of" in r.json()["detail"]
    r = api(alice).post(f"/api/battles/{battle.pk}/mode/", {}, format="json")
    assert r.status_code == 400 and "'mode' must be one of" in r.json()["detail"]
    r = api(alice).post(f"/api/battles/{battle.pk}/mode/", {"mode": "tabletop"}, format="json")
    assert r.status_code == 400 and "already fought on a real tabletop" in r.json()["detail"]
    assert snapshot(battle) == before
    # Disputes: a reason is needed; your own entry cannot be disputed or confirmed by you.
    api(bob).post(f"/api/battles/{battle.pk}/result/", good_result(battle), format="json")
    before = snapshot(battle)
    r = api(carol).post(f"/api/battles/{battle.pk}/dispute/", {"reason": ""}, format="json")
    assert r.status_code == 400 and "say what is wrong" in r.json()["detail"]
    r = api(carol).post(f"/api/battles/{battle.pk}/dispute/", {"reason": 7}, format="json")
    assert r.status_code == 400 and "'reason' must be text" in r.json()["detail"]
    r = api(bob).post(f"/api/battles/{battle.pk}/confirm/", format="json")
    assert r.status_code == 403 and "the other side must confirm" in r.json()["detail"]
    r = api(alice).post(f"/api/battles/{battle.pk}/settle/", {"result": {"holder": None, "ships": []}},
                        format="json")
    assert r.status_code == 400 and "leaves out ship(s)" in r.json()["detail"]
    assert snapshot(battle) == before
    assert api(None).post(f"/api/battles/{battle.pk}/confirm/", format="json").status_code == 403
    assert api(bob).post("/api/battles/99999/confirm/", format="json").status_code == 404


def _turn_completed(small_campaign, battle, turn_number):
    a, d = ship_ids(battle)
    assert Turn.objects.get(campaign=small_campaign, number=turn_number).status == Turn.Status.DONE
    small_campaign.refresh_from_db()
    assert small_campaign.turn == turn_number + 1
    assert Turn.objects.filter(campaign=small_campaign, number=turn_number + 1, status=Turn.Status.OPEN).exists()
    assert not Ship.objects.filter(campaign=small_campaign, number=d).exists()
    damage = Ship.objects.get(campaign=small_campaign, number=a).damage
    assert damage["hull"] == 2 and damage["weapons"] == ["laser_bank"]


def test_enter_dispute_settle_flow(battle, small_campaign, alice, bob, carol):
    turn_number = battle.turn
    a, d = ship_ids(battle)
    wrong = {"holder": battle.attacker, "ships": [{"ship": a, "fate": "survived"}, {"ship": d, "fate": "destroyed"}]}
    assert api(bob).post(f"/api/battles/{battle.pk}/result/", {"result": wrong}, format="json").status_code == 200
    r = api(carol).post(f"/api/battles/{battle.pk}/dispute/", {"reason": "you lost 2 hull and a laser"}, format="json")
    assert r.status_code == 200 and r.json()["status"] == "disputed"
    r = api(alice).post(f"/api/battles/{battle.pk}/settle/", {"result": good_result(battle), "note": "photos"},
                        format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["status"] == "resolved" and body["resolved_how"] == "moderator"
    assert [e["kind"] for e in body["log"]] == ["created", "entered", "disputed", "resolved"]
    assert body["log"][1]["user"] == "bob" and body["log"][2]["user"] == "carol" and body["log"][3]["user"] == "alice"
    _turn_completed(small_campaign, battle, turn_number)
    # Settled is settled.
    r = api(alice).post(f"/api/battles/{battle.pk}/settle/", {"auto": True}, format="json")
    assert r.status_code == 400 and "already resolved" in r.json()["detail"]


def test_enter_confirm_flow(battle, small_campaign, bob, carol):
    turn_number = battle.turn
    assert api(carol).post(f"/api/battles/{battle.pk}/result/", good_result(battle), format="json").status_code == 200
    r = api(bob).post(f"/api/battles/{battle.pk}/confirm/", format="json")
    assert r.status_code == 200 and r.json()["resolved_how"] == "tabletop"
    assert r.json()["result"]["holder"] == battle.attacker
    _turn_completed(small_campaign, battle, turn_number)
