"""A paused CAM rubber holds its steps as a paused Event Horizon campaign holds its turns (ruling
CAM60, after MO1): the players' inputs are taken and stored but no step is made on them; a
player's action that is nothing but making a step is refused (409) and changes nothing; the
moderator's resume makes every step completed meanwhile at once, exactly once; the moderator's
own actions (roll back, settle, acting for a seat) keep working while paused."""

import pytest
from django.urls import reverse

from campaign import actions as platform
from campaign.cam import actions, online
from campaign.cam.actions.battle import held_confirmation
from campaign.cam.models import CamCampaign, CamPlayer, CamScenario, CamShip, CamSnapshot
from campaign.models import AuditEntry, Campaign, DiceRoll
from tactical.hosts.cam import scenarios as tcam
from tactical.models import Battle
from tactical.rules.buoyz import doctrine_action
from tactical.rules.buoyz import play as codec

from .conftest import ship_numbers
from .test_actions import fight_to_forces

pytestmark = pytest.mark.django_db


def _cam(c) -> CamCampaign:
    return CamCampaign.objects.get(pk=c.pk)


def _row(c, number=1) -> CamScenario:
    return CamScenario.objects.get(cam=c.cam, number=number)


def moved(c):
    """What making a step changes: the step count and snapshots, the dice log, the scenarios'
    stage, battle and score, the rosters and the CAM 4.2 counter."""
    cam = _cam(c)
    return (
        cam.step, CamSnapshot.objects.filter(cam=cam).count(), cam.replacements_done,
        DiceRoll.objects.filter(campaign=c).count(),
        list(CamScenario.objects.filter(cam=cam).order_by("number").values_list("number", "stage", "battle", "score")),
        list(CamShip.objects.filter(player__cam=cam).order_by("number").values_list("number", "status")),
        Campaign.objects.filter(pk=c.pk).values_list("status", "turn").get(),
    )


def everything(c):
    """Every row a refused action must leave as it was."""
    cam = _cam(c)
    return (moved(c), list(CamPlayer.objects.filter(cam=cam).order_by("seat").values()),
            list(CamScenario.objects.filter(cam=cam).order_by("number").values()),
            AuditEntry.objects.filter(campaign=c).count())


def pause(c, alice):
    platform.pause_campaign(campaign_id=c.pk, user=alice)


def resume_twice(c, alice):
    """The moderator's resume, and a second click on it: refused, nothing made again."""
    platform.resume_campaign(campaign_id=c.pk, user=alice)
    after = everything(c)
    with pytest.raises(platform.ActionError, match="not paused"):
        platform.resume_campaign(campaign_id=c.pk, user=alice)
    assert everything(c) == after


def step_advanced_once(c, before_step):
    cam = _cam(c)
    assert cam.step == before_step + 1
    assert CamSnapshot.objects.filter(cam=cam).order_by("-step").values_list("step", flat=True)[0] == before_step
    [made] = AuditEntry.objects.filter(campaign=c, action="cam_resume_step")
    assert made.user is None and "CAM60" in made.note and made.before["step"] == before_step
    return made


def refused_while_paused(c, fn, **kwargs):
    before = everything(c)
    with pytest.raises(actions.Paused) as info:
        fn(campaign_id=c.pk, **kwargs)
    assert info.value.http_status == 409 and "the campaign is paused" in str(info.value)
    assert everything(c) == before


def to_confirming(c, alice, bob, carol):
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    fight_to_forces(c, bob, carol)
    actions.enter_turn(campaign_id=c.pk, user=bob)
    actions.enter_turn(campaign_id=c.pk, user=carol)
    return actions.propose_end(campaign_id=c.pk, user=carol)  # bob confirms


# --- each step kind -------------------------------------------------------------------------------


def test_a_game_turn_both_enter_while_paused_has_its_end_phase_on_resume(cam_campaign, alice, bob, carol):
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    fight_to_forces(c, bob, carol)
    k = ship_numbers(c, 2)
    pause(c, alice)
    before, step = moved(c), _cam(c).step
    actions.enter_turn(campaign_id=c.pk, user=carol, destroyed=[f"ship:{k[0]}"])
    actions.enter_turn(campaign_id=c.pk, user=bob)
    assert moved(c) == before  # no End Phase: no check rolled, still game turn 1
    row = _row(c)
    assert row.battle["turn"] == 1 and set(row.turn_entries) == {"1", "2"}  # both entries stored
    assert row.turn_entries["2"]["destroyed"] == [f"ship:{k[0]}"]
    resume_twice(c, alice)
    row = _row(c)
    assert row.battle["turn"] == 2 and row.turn_entries == {}
    assert DiceRoll.objects.filter(campaign=c, purpose__contains="CAM 3.1").count() == 1  # carol's check, once
    assert [e for e in row.events if e["kind"] == "check"][-1]["data"]["seat"] == 2
    made = step_advanced_once(c, step)
    assert "game turn 1's End Phase" in made.note


def test_a_result_confirmed_while_paused_is_scored_on_resume(cam_campaign, alice, bob, carol):
    c = cam_campaign
    to_confirming(c, alice, bob, carol)
    pause(c, alice)
    before, step = moved(c), _cam(c).step
    row = actions.confirm_result(campaign_id=c.pk, user=bob)
    actions.confirm_result(campaign_id=c.pk, user=bob)  # a second click keeps the one confirmation
    assert moved(c) == before and row.stage == "confirming" and row.score is None
    assert held_confirmation(_row(c)) == 1
    assert AuditEntry.objects.filter(campaign=c, action="cam_confirm_held").count() == 1
    resume_twice(c, alice)
    row = _row(c)
    assert row.stage == "scored" and row.score is not None
    step_advanced_once(c, step)
    assert CamPlayer.objects.get(cam=c.cam, seat=1).campaign_points == row.score["sides"]["1"]["campaign_points"]


def test_both_ready_between_scenarios_while_paused_makes_cam_4_2_on_resume(cam_campaign, alice, bob, carol):
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    fight_to_forces(c, bob, carol)
    b = ship_numbers(c, 1)
    actions.enter_turn(campaign_id=c.pk, user=bob, destroyed=[f"ship:{b[0]}"])
    actions.enter_turn(campaign_id=c.pk, user=carol)
    actions.propose_end(campaign_id=c.pk, user=carol)
    actions.confirm_result(campaign_id=c.pk, user=bob)
    pause(c, alice)
    before, step = moved(c), _cam(c).step
    request = [{"replaces": b[0], "sd": "constitution", "name": "USS Lexington"}]
    actions.submit_replacements(campaign_id=c.pk, user=bob, requests=request)
    actions.submit_replacements(campaign_id=c.pk, user=carol)
    assert moved(c) == before  # no repair or replacement roll yet
    players = {p.seat: p for p in CamPlayer.objects.filter(cam=c.cam)}
    assert players[1].between_ready and players[2].between_ready
    assert players[1].requests == request
    resume_twice(c, alice)
    assert _cam(c).replacements_done == 1
    assert DiceRoll.objects.filter(campaign=c, phase="cam-between").count() == 1  # bob's replacement roll
    assert not CamPlayer.objects.filter(cam=c.cam, between_ready=True).exists()
    step_advanced_once(c, step)


def test_forces_chosen_while_paused_are_kept_and_the_table_waits_for_the_resume(cam_campaign, alice, bob, carol):
    c = cam_campaign
    pause(c, alice)
    refused_while_paused(c, actions.generate_scenario, user=bob)
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")  # the moderator's own action
    assert _row(c).stage == "forces" and Campaign.objects.get(pk=c.pk).paused
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    assert set(_row(c).forces) == {"1", "2"}  # both forces stored
    refused_while_paused(c, actions.roll_table, user=bob)
    before = moved(c)
    resume_twice(c, alice)
    # Rolling the table is an action of its own (not made when the second force is chosen, paused
    # or not): the resume leaves it to the players, who roll it now.
    assert moved(c) == before and not AuditEntry.objects.filter(campaign=c, action="cam_resume_step").exists()
    assert actions.roll_table(campaign_id=c.pk, user=carol).stage == "fighting"


def test_what_only_makes_a_step_is_refused_while_paused(cam_campaign, alice, bob, carol):
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    fight_to_forces(c, bob, carol)
    CamCampaign.objects.filter(pk=c.pk).update(battle_mode="auto")
    pause(c, alice)
    refused_while_paused(c, actions.propose_end, user=bob)
    refused_while_paused(c, actions.autoresolve, user=bob)
    platform.resume_campaign(campaign_id=c.pk, user=alice)
    actions.propose_end(campaign_id=c.pk, user=carol)
    pause(c, alice)
    refused_while_paused(c, actions.reject_result, user=bob)


def test_the_moderator_acting_for_a_seat_while_paused_is_not_held(cam_campaign, alice, bob, carol):
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    fight_to_forces(c, bob, carol)
    pause(c, alice)
    step = _cam(c).step
    actions.enter_turn(campaign_id=c.pk, user=bob)
    row = actions.enter_turn(campaign_id=c.pk, user=alice, seat=2)  # his own action: made now
    assert row.battle["turn"] == 2 and _cam(c).step == step + 1
    assert Campaign.objects.get(pk=c.pk).paused  # and the rubber stays paused
    platform.resume_campaign(campaign_id=c.pk, user=alice)
    assert _cam(c).step == step + 1 and not AuditEntry.objects.filter(campaign=c, action="cam_resume_step").exists()


def test_the_moderator_can_roll_back_while_paused(cam_campaign, alice, bob, carol):
    c = cam_campaign
    to_confirming(c, alice, bob, carol)
    pause(c, alice)
    actions.confirm_result(campaign_id=c.pk, user=bob)  # held
    step = platform.roll_back_step(campaign_id=c.pk, user=alice)
    assert "end of the game entered" in step.label
    row = _row(c)
    assert row.stage == "fighting" and held_confirmation(row) is None  # the held confirmation went too
    assert Campaign.objects.get(pk=c.pk).paused
    platform.resume_campaign(campaign_id=c.pk, user=alice)
    assert _row(c).stage == "fighting" and not AuditEntry.objects.filter(campaign=c, action="cam_resume_step").exists()


# --- the pages and the API ------------------------------------------------------------------------


def test_api_and_pages_while_paused(cam_campaign, alice, bob, carol, client):
    c = cam_campaign
    to_confirming(c, alice, bob, carol)
    pause(c, alice)
    client.force_login(bob)
    base = f"/api/cam/campaigns/{c.pk}/scenarios/1"
    answer = client.post(f"{base}/reject/")
    assert answer.status_code == 409 and "the campaign is paused" in answer.json()["detail"]
    assert answer.json()["reason"] == "paused"
    answer = client.post(f"{base}/confirm/")
    assert answer.status_code == 200 and answer.json()["stage"] == "confirming" and answer.json()["confirmed_by"] == 1
    assert answer.json()["turn_entered"] == []
    page = client.post(reverse("cam-confirm", args=[c.pk, 1]), follow=True)
    assert "Your confirmation is kept. The campaign is paused" in page.content.decode()
    assert 'id="confirmation-held"' in page.content.decode()
    client.force_login(alice)
    assert client.post(f"/api/campaigns/{c.pk}/resume/").status_code == 200
    assert _row(c).stage == "scored"


# --- a scenario fought online -------------------------------------------------------------------


def _online_battle(c, alice, bob, carol):
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    online.set_mode(campaign_id=c.pk, user=alice, number=1, mode="online")
    fight_to_forces(c, bob, carol)
    return Battle.objects.get(campaign=c)


def battle_state(battle):
    battle.refresh_from_db()
    return (battle.status, battle.steps.count(), list(battle.doctrine_sides), battle.setup.get("deciding"),
            DiceRoll.objects.filter(campaign_id=battle.campaign_id).count(), battle.log.count())


def test_a_battle_decision_while_paused_is_refused_and_changes_nothing(cam_campaign, alice, bob, carol, client):
    c = cam_campaign
    battle = _online_battle(c, alice, bob, carol)
    seat = battle.setup["deciding"]["seat"]
    user = {1: bob, 2: carol}[seat]
    move = codec.to_json(doctrine_action(tcam.current_state(battle, _row(c))))
    pause(c, alice)
    before = battle_state(battle), everything(c)
    refused_while_paused(c, online.act, user=user, number=1, action=move)
    refused_while_paused(c, online.hand_to_doctrine, user=user, number=1, on=True)
    client.force_login(user)
    answer = client.post(
        f"/api/cam/campaigns/{c.pk}/scenarios/1/act/", {"action": move}, content_type="application/json"
    )
    assert answer.status_code == 409 and "the campaign is paused" in answer.json()["detail"]
    answer = client.post(
        reverse("api-battle-action", args=[battle.pk]), {"action": move}, content_type="application/json"
    )
    assert answer.status_code == 409 and "the campaign is paused" in answer.json()["detail"]
    assert (battle_state(battle), everything(c)) == before
    platform.resume_campaign(campaign_id=c.pk, user=alice)
    online.act(campaign_id=c.pk, user=user, number=1, action=move)
    assert Battle.objects.get(pk=battle.pk).steps.count() > before[0][1]


def test_the_moderator_settles_a_battle_while_paused(cam_campaign, alice, bob, carol):
    c = cam_campaign
    _online_battle(c, alice, bob, carol)
    pause(c, alice)
    row = online.settle(campaign_id=c.pk, user=alice, number=1, how="doctrine")
    assert row.stage == "scored" and Campaign.objects.get(pk=c.pk).paused


def test_a_battle_keeps_its_decision_time_while_paused(cam_campaign, alice, bob, carol):
    from datetime import timedelta

    from django.utils import timezone

    c = cam_campaign
    battle = _online_battle(c, alice, bob, carol)
    now = timezone.now()
    Battle.objects.filter(pk=battle.pk).update(activation_deadline=now + timedelta(hours=10))
    platform.pause_campaign(campaign_id=c.pk, user=alice, now=now)
    battle.refresh_from_db()
    assert battle.activation_deadline is None and battle.setup["paused_left"] == 10 * 3600
    steps = battle.steps.count()
    assert tcam.play_due(now + timedelta(days=30)) == 0 and battle.steps.count() == steps  # no deadline passes
    later = now + timedelta(days=3)
    platform.resume_campaign(campaign_id=c.pk, user=alice, now=later)
    battle.refresh_from_db()
    assert battle.activation_deadline == later + timedelta(hours=10) and "paused_left" not in battle.setup
    assert tcam.play_due(later + timedelta(hours=9)) == 0 and tcam.play_due(later + timedelta(hours=11)) == 1


def test_the_moderator_decides_for_no_seat_in_a_battle_fought_online(cam_campaign, alice, bob, carol, client):
    # Ruling MO9 (issue 24 item 8): the CAM API refused him nothing the generic battle API refuses.
    c = cam_campaign
    battle = _online_battle(c, alice, bob, carol)
    seat = battle.setup["deciding"]["seat"]
    move = codec.to_json(doctrine_action(tcam.current_state(battle, _row(c))))
    steps = battle.steps.count()
    client.force_login(alice)
    base = f"/api/cam/campaigns/{c.pk}/scenarios/1/"
    for url, body in ((f"{base}act/", {"action": move, "seat": seat}), (f"{base}doctrine/", {"on": True, "seat": seat}),
                      (f"{base}act/", {"action": move})):
        answer = client.post(url, body, content_type="application/json")
        assert answer.status_code == 403 and "ruling MO9" in answer.json()["detail"], (url, answer.content)
    answer = client.post(f"/api/battles/{battle.pk}/action/", move, content_type="application/json")
    assert answer.status_code == 403
    battle.refresh_from_db()
    assert battle.steps.count() == steps and not battle.doctrine_sides


def test_a_completed_step_the_engine_refuses_on_resuming_waits_and_the_resume_stands(cam_campaign, alice, bob,
                                                                                     carol, monkeypatch):
    from campaign.cam.actions import battle

    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    fight_to_forces(c, bob, carol)
    pause(c, alice)
    actions.enter_turn(campaign_id=c.pk, user=bob)
    actions.enter_turn(campaign_id=c.pk, user=carol)
    before = moved(c)

    def refused(*args, **kwargs):
        battle._next_step(*args[:2], "half made")  # leaves a snapshot the savepoint must take back
        raise actions.CamActionError("000 CAM 3.0: refused on purpose")
    monkeypatch.setattr(battle, "_end_phase", refused)
    platform.resume_campaign(campaign_id=c.pk, user=alice)
    assert not Campaign.objects.get(pk=c.pk).paused and moved(c) == before
    assert set(_row(c).turn_entries) == {"1", "2"}
    [entry] = AuditEntry.objects.filter(campaign=c, action="cam_resume_step")
    assert "could not be made on resuming: 000 CAM 3.0: refused on purpose" in entry.note
