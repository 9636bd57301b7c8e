"""A CAM scenario fought online played on the generic play and replay pages and the battle API
(issue 17 items 2–3): the CAM players are the sides, whose decision it is, fog of war kept for a
cloaked ship on every answer and email of the other side, the end scored by the CAM path, the
"your decision" emails and the battle report in the scenario's report email."""

import json
import re

from django.core import mail
from django.urls import reverse

from campaign.cam import online
from campaign.cam.models import CamScenario
from campaign.models import Membership
from tactical.hosts.cam import scenarios as tcam
from tactical.models import Battle
from tactical.play import embedded
from tactical.rules.buoyz import play as codec

from .conftest import make_cam
from .test_online import _begin


def _battle(c) -> Battle:
    return Battle.objects.get(campaign=c)


def _state(client, battle):
    r = client.get(f"/api/battles/{battle.pk}/state/")
    assert r.status_code == 200
    return r.json()


def _act(client, battle, action):
    return client.post(f"/api/battles/{battle.pk}/action/", data=json.dumps(action), content_type="application/json")


def test_the_cam_players_play_it_on_the_play_page_and_it_is_scored_by_the_cam_path(
        db, client, alice, bob, carol, mallory, django_capture_on_commit_callbacks):
    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    battle = _battle(c)
    for user in (mallory,):  # an outsider: 404 everywhere
        client.force_login(user)
        for name in ("battle-play", "battle-replay"):
            assert client.get(reverse(name, args=[battle.pk])).status_code == 404
        assert client.get(f"/api/battles/{battle.pk}/state/").status_code == 404
    players = {1: bob, 2: carol}
    for seat, user in players.items():
        client.force_login(user)
        state = _state(client, battle)
        assert state["you"] == seat and {s["name"] for s in state["sides"]} == {"Bob's Squadron", "Carol's Raiders"}
        page = client.get(reverse("battle-play", args=[battle.pk])).content.decode()
        assert "Scenario 1" in page and reverse("cam-scenario", args=[c.pk, 1]) in page
        assert client.get(reverse("battle-replay", args=[battle.pk])).status_code == 200
    client.force_login(alice)  # the moderator looks at the whole table but decides nothing here
    state = _state(client, battle)
    assert state["moderator"] and state["you"] is None and not state["your_turn"]
    assert client.get(reverse("battle-play", args=[battle.pk])).status_code == 200
    assert _act(client, battle, {"type": "detect", "ship": 1}).status_code == 403
    acting = _state(client, battle)["acting_side"]
    client.force_login(players[3 - acting])  # out of turn: 409, nothing stored
    steps = battle.steps.count()
    assert _act(client, battle, {"type": "detect", "ship": 1}).status_code == 409
    client.force_login(players[acting])
    state = _state(client, battle)
    assert state["your_turn"] and state["legal"]
    assert _act(client, battle, {"type": "move", "ship": 999}).status_code == 400  # the rules refuse
    assert battle.steps.count() == steps
    choice = next(iter(state["legal"].values()))[0]
    r = _act(client, battle, choice)
    assert r.status_code == 200 and battle.steps.count() > steps
    assert battle.steps.filter(user=players[acting], by_doctrine=False).exists()
    # A page form works too: the play page's "move" / "action" fields.
    acting = _state(client, battle)["acting_side"]
    client.force_login(players[acting])
    choice = next(iter(_state(client, battle)["legal"].values()))[0]
    before = battle.steps.count()
    client.post(reverse("battle-play", args=[battle.pk]), {"action": json.dumps(choice)})
    assert battle.steps.count() > before
    # Both hand their sides to the doctrine from the play page: the battle ends and the scenario
    # is scored by the CAM path (the score the battle's result carries).
    with django_capture_on_commit_callbacks(execute=True):
        for user in (bob, carol):
            client.force_login(user)
            client.post(reverse("battle-play", args=[battle.pk]), {"doctrine": "on"})
    battle.refresh_from_db()
    row = CamScenario.objects.get(cam=c.cam, number=1)
    assert battle.status == "resolved" and row.stage == CamScenario.Stage.SCORED
    assert row.score == battle.result["cam_score"]
    page = client.get(reverse("battle-play", args=[battle.pk])).content.decode()
    assert "The battle is over" in page and "scenario points" in page
    # The replay shows every step, and ?frame=1 swaps one in (the page's autoplay).
    total = battle.steps.count()
    last = client.get(reverse("battle-replay", args=[battle.pk]) + f"?step={total}")
    assert last.status_code == 200 and f"{total}" in last.content.decode()
    assert client.get(reverse("battle-replay", args=[battle.pk]) + "?step=1&frame=1").status_code == 200
    # The scenario's report email has the battle report: each side's ships, the ending, points.
    report = [m for m in mail.outbox if "scenario 1 report" in m.subject]
    assert report
    body = report[0].body
    assert "Battle report" in body and "Bob's Squadron: lost" in body and "Carol's Raiders: lost" in body
    assert "points lost" in body


def _play_until(c, battle, players, stop, limit=600):
    """Each side's decisions by the doctrine's choice, made through the generic API as its player,
    until ``stop(state)``; returns that state (None: the battle ended first)."""
    from django.test import Client

    clients = {}
    for seat, user in players.items():
        clients[seat] = Client()
        clients[seat].force_login(user)
    for _ in range(limit):
        battle.refresh_from_db()
        if battle.status != "playing":
            return None
        row = CamScenario.objects.get(cam=c.cam, number=1)
        state = tcam.current_state(battle, row)
        if stop(state):
            return state
        seat = tcam.deciding(state)
        action = tcam.doctrine_choice(state)
        r = _act(clients[seat], battle, codec.to_json(action))
        assert r.status_code == 200, r.content
    raise AssertionError("the stop condition never came")


def test_a_cloaked_ship_is_in_no_answer_and_no_email_of_the_other_side(
        db, client, alice, bob, carol, django_capture_on_commit_callbacks):
    c = make_cam(alice, bob, carol, seed="fog-cloak")
    _begin(c, alice, bob, carol, bob_ships=3, carol_ships=4)  # carol's war talons cloak
    battle = _battle(c)
    players = {1: bob, 2: carol}
    cloaked = {}

    def carol_may_cloak(state):
        if state.acting != 2:
            return False
        for a in codec.side_actions(state, 2):
            if getattr(a, "action", None) == "cloak":
                cloaked["action"] = a
                return True
        return False

    state = _play_until(c, battle, players, carol_may_cloak)
    assert state is not None, "carol never had the chance to cloak"
    client.force_login(carol)
    mail.outbox.clear()
    assert _act(client, battle, codec.to_json(cloaked["action"])).status_code == 200
    ship_id = cloaked["action"].ship
    row = CamScenario.objects.get(cam=c.cam, number=1)
    battle.refresh_from_db()
    state = tcam.current_state(battle, row)
    ship = state.ship(ship_id)
    assert ship.cloaked and not ship.detected  # the cloak holds (a fixed seed)
    # Play on while the ship stays hidden, so that decisions pass to bob and emails go out.
    with django_capture_on_commit_callbacks(execute=True):
        _play_until(c, battle, players, lambda s: s.ship(ship_id).detected or not s.ship(ship_id).cloaked
                    or battle.steps.count() > 40, limit=80)
    battle.refresh_from_db()
    state = tcam.current_state(battle, row)
    assert state.ship(ship_id).cloaked and not state.ship(ship_id).detected and not state.over
    pos = state.ship(ship_id).pos
    client.force_login(bob)
    answer = _state(client, battle)
    assert ship_id not in {s["id"] for s in answer["ships"]}
    assert all(f"({ship_id})" not in e["text"] for e in answer["events"])
    page = client.get(reverse("battle-play", args=[battle.pk])).content.decode()
    assert f'data-ship="{ship_id}"' not in page
    hidden_frames = 0
    for frame in embedded.states(battle):  # the replay, step by step, as bob sees it
        if ship_id in codec.hidden_ships(frame.state.battle, 1):
            replay = client.get(reverse("battle-replay", args=[battle.pk]) + f"?step={frame.index}").content.decode()
            seen = "\n".join(line for line in replay.splitlines() if "declares cloak" not in line)  # both see it (10.2)
            assert f'data-ship="{ship_id}"' not in replay, frame.index
            assert f"({ship_id})" not in seen, [x for x in seen.splitlines() if f"({ship_id})" in x]
            hidden_frames += 1
    assert hidden_frames
    summary = client.get(f"/api/cam/campaigns/{c.pk}/scenarios/1/battle/").content.decode()
    assert f"{pos[0]:g}" not in summary or f"{pos[1]:g}" not in summary
    bob_mail = [m for m in mail.outbox if bob.email in m.to]
    assert bob_mail, "decisions passed to bob: he was emailed"
    for m in bob_mail:
        assert not re.search(rf"{pos[0]:g}\D+{pos[1]:g}", m.body) and f"({ship_id})" not in m.body
        assert "your decision" in m.subject


def test_your_decision_emails_follow_preferences_once_per_window_and_not_for_the_doctrine(
        db, client, alice, bob, carol, django_capture_on_commit_callbacks):
    c = make_cam(alice, bob, carol, seed="mail-window")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        _begin(c, alice, bob, carol)
    battle = _battle(c)
    row = CamScenario.objects.get(cam=c.cam, number=1)
    state = tcam.current_state(battle, row)
    first = tcam.deciding(state)
    user = {1: bob, 2: carol}[first]
    told = [m for m in mail.outbox if "your decision" in m.subject]
    assert [m.to for m in told] == [[user.email]]
    # Handing the other side to the doctrine and back does not open a new window for this one.
    other = {1: carol, 2: bob}[first]
    with django_capture_on_commit_callbacks(execute=True):
        online.hand_to_doctrine(campaign_id=c.pk, user=other, number=1, on=False)
    assert len([m for m in mail.outbox if "your decision" in m.subject]) == 1
    # bob switches battle emails off; then both sides go to the doctrine: no more decision emails.
    Membership.objects.filter(campaign=c, user=bob).update(notify_battles=False)
    mail.outbox.clear()
    client.force_login(user)
    choice = next(iter(_state(client, battle)["legal"].values()))[0]
    with django_capture_on_commit_callbacks(execute=True):
        assert _act(client, battle, choice).status_code == 200
    sent = [m for m in mail.outbox if "your decision" in m.subject]
    assert all(bob.email not in m.to for m in sent)
    online.hand_to_doctrine(campaign_id=c.pk, user=carol, number=1, on=True)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        online.hand_to_doctrine(campaign_id=c.pk, user=bob, number=1, on=True)
    assert not [m for m in mail.outbox if "your decision" in m.subject]
