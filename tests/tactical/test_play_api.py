"""The embedded-battle API and pages (tactical/play/api.py, tactical/play/views.py): who may
see and act (the two sides' players act; the moderator looks; anyone else gets 404), 400 with
the rule for an illegal action, 409 out of turn, a whole battle played through the API to its
end, and the replay page with its fog (rulings TP5, TP6). Rule book 003 "The Turn Sequence"."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.models import DiceRoll, Membership
from tactical.models import Battle, BattleStep
from tactical.play import actions as play
from tactical.play import embedded
from tactical.rules import eventhorizon as eh
from tactical.rules.eventhorizon import play as ehplay
from tactical.rules.eventhorizon.play import codec
from tests.tactical.play_support import make_battle, patch_record_result


@pytest.fixture
def record(monkeypatch):
    return patch_record_result(monkeypatch)


@pytest.fixture
def cast(small_campaign, alice, bob, carol, mallory, django_user_model):
    dave = django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")
    Membership.objects.create(campaign=small_campaign, user=dave, role=Membership.Role.PLAYER)
    erin = django_user_model.objects.create_user("erin", "erin@example.com", "pw-erin")
    Membership.objects.create(campaign=small_campaign, user=erin, role=Membership.Role.OBSERVER)
    return {"bob": bob, "carol": carol, "alice": alice, "dave": dave, "erin": erin, "mallory": mallory}


def client_for(user):
    c = APIClient()
    if user is not None:
        c.force_authenticate(user)
    return c


def _acting(battle):
    return embedded.current_state(battle).acting_side


@pytest.mark.parametrize("who, code", [("bob", 200), ("carol", 200), ("alice", 200), ("dave", 404), ("erin", 404),
                                       ("mallory", 404), (None, 403)])
def test_state_permission_matrix(small_campaign, cast, record, who, code):
    battle = make_battle(small_campaign)
    resp = client_for(cast.get(who)).get(reverse("api-battle-state", args=[battle.pk]))
    assert resp.status_code == code, resp.content
    if code == 200:
        data = resp.json()
        assert data["you"] == {"bob": 1, "carol": 2, "alice": None}[who]
        assert data["started"] and len(data["board"]["terrain"]) == 0 and data["acting_side"] in (1, 2)
        if data["your_turn"]:
            assert data["legal"] and all(
                a["type"] in ("activate", "pass") for acts in data["legal"].values() for a in acts
            )
        else:
            assert data["legal"] == {}


@pytest.mark.parametrize("who, code", [("acting", 200), ("waiting", 409), ("alice", 403), ("dave", 404),
                                       ("erin", 404), ("mallory", 404), (None, 403)])
def test_action_permission_matrix(small_campaign, cast, record, who, code):
    battle = make_battle(small_campaign)
    acting = _acting(battle)
    users = {"acting": cast["bob"] if acting == 1 else cast["carol"],
             "waiting": cast["carol"] if acting == 1 else cast["bob"]}
    user = users.get(who, cast.get(who))
    before = (BattleStep.objects.count(), DiceRoll.objects.count())
    resp = client_for(user).post(reverse("api-battle-action", args=[battle.pk]),
                                 {"type": "pass", "side": acting if who != "waiting" else 3 - acting}, format="json")
    assert resp.status_code == code, resp.content
    if code == 200:
        assert BattleStep.objects.count() > before[0]
    else:
        assert (BattleStep.objects.count(), DiceRoll.objects.count()) == before
    if code == 409:
        assert "acting out of turn" in resp.json()["detail"]


def test_illegal_action_is_400_with_rule_and_reason(small_campaign, cast, record):
    battle = make_battle(small_campaign)
    acting = _acting(battle)
    user = cast["bob"] if acting == 1 else cast["carol"]
    state = embedded.current_state(battle)
    mine = next(state.ships_of(acting)).id
    c = client_for(user)
    url = reverse("api-battle-action", args=[battle.pk])
    assert c.post(url, {"type": "activate", "ship": mine}, format="json").status_code == 200
    before = BattleStep.objects.count()
    resp = c.post(url, {"type": "move", "ship": mine, "path": ["F"] * 15}, format="json")
    assert resp.status_code == 400
    assert resp.json()["rule"] == "003 Movement" and "costs 15 points" in resp.json()["detail"]
    resp = c.post(url, {"action": {"type": "teleport", "ship": mine}}, format="json")
    assert resp.status_code == 400 and "needs 'target'" in resp.json()["detail"]
    resp = c.post(url, "not json", content_type="application/json")
    assert resp.status_code == 400
    assert BattleStep.objects.count() == before


def test_doctrine_toggle_api(small_campaign, cast, record):
    battle = make_battle(small_campaign)
    url = reverse("api-battle-doctrine", args=[battle.pk])
    assert client_for(cast["alice"]).post(url, {"on": True}, format="json").status_code == 403
    assert client_for(cast["mallory"]).post(url, {"on": True}, format="json").status_code == 404
    assert client_for(cast["bob"]).post(url, {"on": "yes"}, format="json").status_code == 400
    resp = client_for(cast["bob"]).post(url, {"on": True}, format="json")
    assert resp.status_code == 200 and resp.json()["doctrine_sides"] == [1]
    resp = client_for(cast["bob"]).post(url, {"on": False}, format="json")
    assert resp.json()["doctrine_sides"] == []


def test_whole_battle_played_through_the_api_reports_the_result(small_campaign, cast, record):
    battle = make_battle(small_campaign)
    clients = {1: client_for(cast["bob"]), 2: client_for(cast["carol"])}
    url_state = reverse("api-battle-state", args=[battle.pk])
    url_action = reverse("api-battle-action", args=[battle.pk])
    data = clients[1].get(url_state).json()
    for i in range(3000):
        if data["status"] != "playing":
            break
        side = data["acting_side"]
        if i % 10 == 0:
            mine = clients[side].get(url_state).json()
            assert mine["your_turn"] and mine["legal"]
        # the player picks what the doctrine would (every pick must be in the legal list or a split fire)
        action = ehplay.RULES.doctrine_action(embedded.current_state(Battle.objects.get(pk=battle.pk)), side)
        resp = clients[side].post(url_action, codec.to_json(action), format="json")
        assert resp.status_code == 200, resp.content
        data = resp.json()
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and len(record.calls) == 1
    assert record.calls[0]["result"]["holder"] in (1, 2, None)
    assert BattleStep.objects.filter(battle=battle, by_doctrine=True).count() == 0  # the humans played it all
    final = clients[2].get(url_state).json()
    assert final["over"] and final["result"] == record.calls[0]["result"]


# --- pages ---------------------------------------------------------------------------------

@pytest.mark.parametrize("who, code", [("bob", 200), ("carol", 200), ("alice", 200), ("dave", 404), ("mallory", 404),
                                       (None, 302)])
def test_play_and_replay_pages_permission_matrix(client, small_campaign, cast, record, who, code):
    battle = make_battle(small_campaign)
    if cast.get(who):
        client.force_login(cast[who])
    for name in ("battle-play", "battle-replay"):
        resp = client.get(reverse(name, args=[battle.pk]))
        assert resp.status_code == code
    if code == 200:
        page = client.get(reverse("battle-play", args=[battle.pk])).content.decode()
        assert "<svg" in page and f"/campaigns/{small_campaign.pk}/" in page


def test_play_page_forms_take_actions_and_show_refusals(client, small_campaign, cast, record):
    battle = make_battle(small_campaign)
    acting = _acting(battle)
    user = cast["bob"] if acting == 1 else cast["carol"]
    client.force_login(user)
    url = reverse("battle-play", args=[battle.pk])
    page = client.get(url).content.decode()
    assert 'id="your-turn"' in page and "Activate ship" in page
    state = embedded.current_state(battle)
    mine = next(state.ships_of(acting)).id
    resp = client.post(url, {"action": json.dumps(codec.to_json(eh.Activate(mine)))}, follow=True)
    assert resp.status_code == 200 and 'id="move-select"' in resp.content.decode()
    weapon = state.ship(mine).weapons[0]
    resp = client.post(url, {"kind": "fire", "ship": mine, "shot": [f"{weapon}|999", ""]}, follow=True)
    assert "Refused — 003 The Turn Sequence: there is no ship 999" in resp.content.decode()
    resp = client.post(url, {"kind": "move"}, follow=True)
    assert "choose where to move" in resp.content.decode()
    page = resp.content.decode()
    import re

    option = re.search(r'<option value="([^"]+)" data-x', page).group(1).replace("&quot;", '"')
    before = BattleStep.objects.count()
    client.post(url, {"kind": "move", "move": option})
    assert BattleStep.objects.count() == before + 1


def test_replay_page_steps_through_with_every_die_and_fog(client, small_campaign, cast, record):
    battle = make_battle(small_campaign)
    client.force_login(cast["bob"])
    url = reverse("battle-replay", args=[battle.pk])
    first = client.get(url + "?step=0").content.decode()
    assert "Set-up" in first and first.count("003 The Turn Sequence: shuffle the deck") == 53
    assert "Step 0 of" in client.get(url).content.decode()  # the replay starts at the start (issue 13 item 19)
    last = client.get(url + f"?step={battle.steps.count()}").content.decode()
    assert "A card is drawn" in last
    assert client.get(url + "?step=abc").status_code == 200
    frame = client.get(url + "?step=1&frame=1").content.decode()  # what the replay's player swaps in
    assert "<html" not in frame and 'id="replay-frame"' in frame
    assert "Step 1 of" in frame
    # fog (ruling TP6): a private event of one side is not shown to the other while the battle runs
    play.hand_to_doctrine(battle_id=battle.pk, user=cast["bob"])
    play.hand_to_doctrine(battle_id=battle.pk, user=cast["carol"])
    battle.refresh_from_db()
    frames = embedded.states(battle)
    assert sum(len(f.dice) for f in frames) == DiceRoll.objects.filter(phase=battle.dice_phase).count()
    page = client.get(url + f"?step={len(frames) - 1}").content.decode()
    assert "Step" in page


def test_replay_fog_hides_the_other_sides_private_events_while_running(client, small_campaign, cast, record,
                                                                        monkeypatch):
    from dataclasses import replace

    original = embedded.initial_state

    def close(setup, dice, rules):  # ships 11 and 21 two squares apart
        state = original(setup, dice, rules)
        where = {11: (7, 10), 21: (7, 12), 12: (14, 1), 22: (1, 14)}
        return replace(state, ships=tuple(replace(s, pos=where[s.id]) for s in state.ships))

    monkeypatch.setattr(embedded, "initial_state", close)
    battle = make_battle(small_campaign)
    me = _acting(battle)
    users = {1: cast["bob"], 2: cast["carol"]}
    mine, theirs = (11, 21) if me == 1 else (21, 11)
    play.take_action(battle_id=battle.pk, user=users[me], action_json={"type": "activate", "ship": mine})
    play.take_action(battle_id=battle.pk, user=users[me], action_json={"type": "scan", "ship": mine, "target": theirs})
    step = battle.steps.count()
    url = reverse("battle-replay", args=[battle.pk]) + f"?step={step}"
    seen = {}
    for who in ("bob", "carol", "alice"):
        client.force_login(cast[who])
        seen[who] = client.get(url).content.decode()
    scanner = "bob" if me == 1 else "carol"
    other = "carol" if me == 1 else "bob"
    assert f"Ship {mine} scans ship {theirs}" in seen[scanner]  # 003 Sensor Information: the scanning side
    assert f"Ship {mine} scans ship {theirs}" not in seen[other] and "a hidden action" in seen[other]
    assert f"Ship {mine} scans ship {theirs}" in seen["alice"]  # the moderator sees everything
