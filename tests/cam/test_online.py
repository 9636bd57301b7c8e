"""CAM scenarios fought online on the Buoyz engine (issue 17): the scenario modes, the battle row,
decision deadlines played by the doctrine, the moderator's settlement, and the result scored and
followed by the CAM 4.2 rolls exactly as the tabletop entry path gives them for the same outcome."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from campaign.cam import actions, adapters, online
from campaign.cam.models import CamPlayer, CamScenario, CamShip
from campaign.dice import log_entries, log_reader
from campaign.models import AuditEntry, Campaign, DiceRoll
from campaign.rules import dicelog
from tactical.battles.actions import settle_due_battles
from tactical.hosts.cam import scenarios as tcam
from tactical.models import Battle
from tactical.play.actions import play_due_activations
from tactical.rules.buoyz import doctrine_action
from tactical.rules.buoyz import play as codec

from .conftest import make_cam, ship_numbers
from .test_actions import snapshot


def _begin(c, alice, bob, carol, *, mode="online", bob_ships=3, carol_ships=2):
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    if mode != "tabletop":
        online.set_mode(campaign_id=c.pk, user=alice, number=1, mode=mode)
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:bob_ships])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:carol_ships])
    return actions.roll_table(campaign_id=c.pk, user=bob)


def _row(c, number=1) -> CamScenario:
    return CamScenario.objects.get(cam=c.cam, number=number)


def _sweep_until_scored(c, limit=400) -> int:
    """The due-work sweep (processdue's) with the clock moved past every decision deadline."""
    now = timezone.now()
    hours = Campaign.objects.get(pk=c.pk).activation_hours
    for sweeps in range(1, limit + 1):
        now += timedelta(hours=hours + 1)
        tcam.play_due(now)
        if _row(c).stage == CamScenario.Stage.SCORED:
            return sweeps
    raise AssertionError(f"not scored after {limit} sweeps")


def _roster(c):
    return list(CamShip.objects.filter(player__cam=c.cam).order_by("number")
                .values_list("number", "sd", "status", "destroyed_in", "replaced_by"))


def _points(c):
    return list(CamPlayer.objects.filter(cam=c.cam).order_by("seat")
                .values_list("seat", "campaign_points", "replacement_points"))


def _between(c, bob, carol, requests):
    for user, seat in ((bob, 1), (carol, 2)):
        actions.submit_replacements(campaign_id=c.pk, user=user, requests=requests.get(seat, []))


def test_left_alone_it_finishes_by_the_doctrine_and_is_scored_as_the_tabletop_entry(db, alice, bob, carol):
    # The 000 5.7 survival roll (option) is on so that CAM 4.2 rolls for every ship lost.
    fought = make_cam(alice, bob, carol, seed="online-twin", survival_roll=True)
    entered = make_cam(alice, bob, carol, seed="online-twin", survival_roll=True)
    row = _begin(fought, alice, bob, carol)
    twin = _begin(entered, alice, bob, carol, mode="tabletop")
    # The same CAM 2.3 table set both up: nature, edges, break-contact levels.
    assert (row.tables, row.edges, row.break_levels) == (twin.tables, twin.edges, twin.break_levels)
    battle = Battle.objects.get(campaign=fought)
    assert (battle.ruleset, battle.mode, battle.status, battle.turn) == ("buoyz", "tactical", "playing", 1)
    assert battle.activation_deadline is not None and not Battle.objects.filter(campaign=entered).exists()

    # Nobody decides anything: every decision deadline passes, the doctrine plays the late sides.
    sweeps = _sweep_until_scored(fought)
    battle.refresh_from_db()
    row = _row(fought)
    assert sweeps > 1 and battle.status == "resolved" and battle.resolved_how == "tactical"
    assert battle.log.filter(kind="activation_late").count() >= 2
    assert all(s.by_doctrine or s.action == {"type": "begin"} for s in battle.steps.all())
    assert row.score is not None and row.score == battle.result["cam_score"]
    record = adapters.battle_state(row, adapters.campaign_state(fought.cam))
    assert row.force_end == (not record.contact_broken)  # CAM 3.0: forced unless all contact was broken

    # Every die of the battle is in the campaign's hash-chained log, for its two seats, and the
    # battle replays from it exactly.
    rolls = DiceRoll.objects.filter(campaign=fought, phase=battle.dice_phase)
    assert rolls.exists() and all(sorted(r.concerns) == [1, 2] for r in rolls)
    fought.refresh_from_db()
    assert dicelog.verify(bytes.fromhex(fought.dice_seed), fought.seed_hash, log_entries(fought)) is None
    tcam._CACHE.clear()
    assert tcam.current_state(battle, row).over
    assert log_reader(fought, bob).seat == 1 and log_reader(fought, carol).seat == 2

    # The tabletop entry path with the same outcome: the CAM record entered and confirmed.
    twin.battle = row.battle
    twin.stage, twin.proposed_by, twin.force_end = CamScenario.Stage.CONFIRMING, 1, row.force_end
    twin.save()
    actions.confirm_result(campaign_id=entered.pk, user=carol)
    twin = _row(entered)
    assert twin.score == row.score
    assert _roster(entered) == _roster(fought) and _points(entered) == _points(fought)

    # CAM 4.2 unchanged: from the same point of the dice stream the same rolls and the same rosters.
    Campaign.objects.filter(pk=entered.pk).update(dice_offset=fought.dice_offset)
    destroyed = {seat: [{"replaces": n, "sd": sd}] for seat in (1, 2)
                 for n, sd, status, *_ in CamShip.objects.filter(player__cam=fought.cam, player__seat=seat)
                 .order_by("sd").values_list("number", "sd", "status") if status == "destroyed"}
    try:
        _between(fought, bob, carol, destroyed)
    except actions.CamActionError:  # not affordable: the rolls without requests
        destroyed = {}
        _between(fought, bob, carol, destroyed)
    _between(entered, bob, carol, destroyed)
    faces = [list(DiceRoll.objects.filter(campaign=c, phase="cam-between").order_by("seq")
                  .values_list("purpose", "faces")) for c in (fought, entered)]
    assert faces[0] and faces[0] == faces[1]
    assert _roster(entered) == _roster(fought) and _points(entered) == _points(fought)
    assert fought.cam.__class__.objects.get(pk=fought.pk).replacements_done == 1


def test_the_event_horizon_sweeps_leave_cam_battles_alone(db, alice, bob, carol):
    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    later = timezone.now() + timedelta(days=30)
    steps = Battle.objects.get(campaign=c).steps.count()
    assert play_due_activations(later) == 0 and settle_due_battles(later) == 0
    assert Battle.objects.get(campaign=c).steps.count() == steps
    assert tcam.play_due(later) == 1  # the CAM sweep does it


def test_auto_mode_is_resolved_and_scored_when_the_table_is_set(db, alice, bob, carol):
    c = make_cam(alice, bob, carol)
    row = _begin(c, alice, bob, carol, mode="auto")
    assert row.stage == CamScenario.Stage.SCORED and row.score is not None
    assert DiceRoll.objects.filter(campaign=c, phase="cam-autoresolve").exists()
    assert not Battle.objects.filter(campaign=c).exists()


def test_tabletop_entries_are_refused_online(db, alice, bob, carol):
    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    for fn, kwargs in ((actions.enter_turn, {"user": bob}), (actions.propose_end, {"user": bob}),
                       (actions.autoresolve, {"user": alice})):
        before = snapshot(c)
        with pytest.raises(online.Conflict, match="fought online"):
            fn(campaign_id=c.pk, **kwargs)
        assert snapshot(c) == before


@pytest.fixture
def api():
    return APIClient()


def _url(c, what, number=1):
    return f"/api/cam/campaigns/{c.pk}/scenarios/{number}/{what}/"


def test_mode_switch_before_the_start_and_409_after(db, api, alice, bob, carol, mallory):
    c = make_cam(alice, bob, carol)
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    api.force_login(mallory)
    assert api.put(_url(c, "mode"), {"mode": "online"}, format="json").status_code == 404
    api.force_login(bob)
    r = api.put(_url(c, "mode"), {"mode": "online"}, format="json")
    assert r.status_code == 403 and _row(c).mode == "tabletop"
    api.force_login(alice)
    assert api.put(_url(c, "mode"), {"mode": "chess"}, format="json").status_code == 400
    assert api.put(_url(c, "mode", 7), {"mode": "online"}, format="json").status_code == 404
    r = api.put(_url(c, "mode"), {"mode": "online"}, format="json")
    assert r.status_code == 200 and r.json()["mode"] == "online" and r.json()["online"] is None
    assert AuditEntry.objects.filter(campaign=c, action="cam_scenario_mode").exists()
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    actions.roll_table(campaign_id=c.pk, user=carol)
    before = snapshot(c)
    r = api.put(_url(c, "mode"), {"mode": "tabletop"}, format="json")
    assert r.status_code == 409 and r.json()["reason"] == "started" and snapshot(c) == before
    # The scenario's JSON and page show the mode and the battle.
    battle = Battle.objects.get(campaign=c)
    detail = api.get(f"/api/cam/campaigns/{c.pk}/scenarios/1/").json()
    assert detail["mode"] == "online" and detail["online"]["id"] == battle.pk
    assert api.get(_url(c, "battle")).json()["url"] == reverse("battle-detail", args=[battle.pk])
    api.force_login(bob)
    page = api.get(reverse("cam-scenario", args=[c.pk, 1]))
    html = page.content.decode()
    assert page.status_code == 200 and "Fought online on the Buoyz engine" in html
    assert f'href="{reverse("battle-play", args=[battle.pk])}"' in html and 'id="turn-form"' not in html
    # The battle's page names the scenario and leaves its settlement to the scenario page.
    page = api.get(reverse("battle-detail", args=[battle.pk])).content.decode()
    assert reverse("cam-scenario", args=[c.pk, 1]) in page and 'id="settle-auto-button"' not in page
    api.force_login(mallory)
    assert api.get(_url(c, "battle")).status_code == 404
    assert api.get(reverse("cam-scenario", args=[c.pk, 1])).status_code == 404


def test_mode_switch_on_the_page(db, alice, bob, carol, client):
    c = make_cam(alice, bob, carol)
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    client.force_login(alice)
    assert 'id="mode-form"' in client.get(reverse("cam-scenario", args=[c.pk, 1])).content.decode()
    r = client.post(reverse("cam-mode", args=[c.pk, 1]), {"mode": "online"})
    assert r.status_code == 302 and _row(c).mode == "online"
    client.force_login(bob)
    assert client.post(reverse("cam-mode", args=[c.pk, 1]), {"mode": "auto"}).status_code == 403
    assert _row(c).mode == "online"


def test_a_player_hands_his_side_to_the_doctrine_and_decides(db, api, alice, bob, carol, mallory):
    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    battle = Battle.objects.get(campaign=c)
    summary = online.battle_summary(_row(c))
    deciding, other = summary["deciding"], 3 - summary["deciding"]
    users = {1: bob, 2: carol}
    # The other side acting out of turn: 409, nothing stored.
    state = tcam.current_state(battle, _row(c))
    move = codec.to_json(doctrine_action(state))
    api.force_login(users[other])
    steps = battle.steps.count()
    r = api.post(_url(c, "act"), {"action": move}, format="json")
    assert r.status_code == 409 and battle.steps.count() == steps
    assert api.post(_url(c, "act"), {"action": {"type": "warp"}}, format="json").status_code == 400
    # The deciding player decides.
    api.force_login(users[deciding])
    r = api.post(_url(c, "act"), {"action": move}, format="json")
    assert r.status_code == 200, r.json()
    assert battle.steps.filter(by_doctrine=False, side=deciding).count() == 1
    api.force_login(mallory)
    assert api.post(_url(c, "doctrine"), {"on": True}, format="json").status_code == 404
    assert api.post(_url(c, "act"), {"action": move}, format="json").status_code == 404
    api.logout()
    assert api.post(_url(c, "act"), {"action": move}, format="json").status_code in (401, 403)
    api.force_login(bob)
    assert api.post(_url(c, "doctrine"), {"on": True, "seat": 2}, format="json").status_code == 403
    r = api.post(_url(c, "doctrine"), {"on": True}, format="json")
    assert r.status_code == 200 and r.json()["doctrine_sides"] == [1]
    assert r.json()["status"] == "resolved" or r.json()["deciding"] == 2
    if r.json()["status"] == "playing":
        # Carol hands hers over too: the doctrine plays the battle out at once and it is scored.
        api.force_login(carol)
        r = api.post(_url(c, "doctrine"), {"on": True}, format="json")
        assert r.status_code == 200 and r.json()["status"] == "resolved"
    assert _row(c).stage == CamScenario.Stage.SCORED
    assert battle.log.filter(kind="doctrine").exists()


def test_the_moderator_settles_by_doctrine(db, api, alice, bob, carol):
    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    api.force_login(bob)
    assert api.post(_url(c, "settle"), {"how": "doctrine"}, format="json").status_code == 403
    api.force_login(alice)
    assert api.post(_url(c, "settle"), {"how": "dice"}, format="json").status_code == 400
    r = api.post(_url(c, "settle"), {"how": "doctrine"}, format="json")
    assert r.status_code == 200 and r.json()["stage"] == "scored" and r.json()["online"]["status"] == "resolved"
    assert Battle.objects.get(campaign=c).resolved_how == "tactical"
    assert api.post(_url(c, "settle"), {"how": "doctrine"}, format="json").status_code == 409


def test_a_stuck_scenario_is_settled_by_auto_resolve(db, api, alice, bob, carol, mallory):
    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    battle = Battle.objects.get(campaign=c)
    # The battle's record no longer replays (a stored decision the engine refuses).
    battle.steps.create(seq=battle.steps.count() + 1, side=1, action={"type": "fire", "ship": 999})
    tcam._CACHE.clear()
    assert tcam.play_due(timezone.now() + timedelta(days=3)) == 0  # logged, the sweep goes on
    api.force_login(mallory)
    assert api.post(_url(c, "settle"), {"how": "autoresolve"}, format="json").status_code == 404
    api.force_login(alice)
    before = snapshot(c)
    r = api.post(_url(c, "settle"), {"how": "doctrine"}, format="json")
    assert r.status_code == 400 and r.json()["reason"] == "stuck" and snapshot(c) == before
    r = api.post(_url(c, "settle"), {"how": "autoresolve"}, format="json")
    assert r.status_code == 200 and r.json()["stage"] == "scored"
    battle.refresh_from_db()
    assert battle.status == "resolved" and battle.resolved_how == "moderator"
    assert AuditEntry.objects.filter(campaign=c, action="cam_settle").exists()


def test_multi_tables_are_fought_online(db, alice, bob, carol):
    """CAM 2.3 multi-tables (CAM35) on the engine's 11.3 tables (ruling BZ82)."""
    c = make_cam(alice, bob, carol, tables=2)
    row = _begin(c, alice, bob, carol)
    assert len(row.tables) == 2
    state = tcam.current_state(Battle.objects.get(campaign=c), row)
    assert state.tables == 2
    assert online.settle(campaign_id=c.pk, user=alice, number=1).stage == CamScenario.Stage.SCORED


def test_multi_table_fleets_are_dealt_over_the_tables_online(db, alice, bob, carol):
    """000 11.3 with CAM35's gaming tables, fought online (ruling BZ94): each seat's ships are
    dealt over the tables in force order, each on its own CAM 2.3 edge of its table; the
    assignment is kept on the battle row, so the table replays the same."""
    c = make_cam(alice, bob, carol, tables=3)
    row = _begin(c, alice, bob, carol, bob_ships=3, carol_ships=2)
    battle = Battle.objects.get(campaign=c)
    table_of = battle.setup["cam"]["table_of"]
    bob_units = [u for u in table_of if u.startswith("ship:")][:3]
    assert [table_of[u] for u in bob_units] == [1, 2, 3]
    assert sorted(table_of.values()) == [1, 1, 2, 2, 3]
    tcam._CACHE.clear()
    state = tcam.current_state(battle, row)
    assert state.tables == 3
    for ship_id, _seat, uid in state.cam.units:
        assert state.table_of(state.ship(ship_id).pos) == table_of[uid] - 1
    assert "dealt over them" in battle.log.get(kind="tactical_start").text
    assert online.settle(campaign_id=c.pk, user=alice, number=1).stage == CamScenario.Stage.SCORED


def test_the_event_horizon_settle_form_leaves_a_cam_battle_to_its_scenario(db, client, alice, bob, carol):
    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    battle = Battle.objects.get(campaign=c)
    client.force_login(alice)
    before = snapshot(c)
    r = client.post(reverse("battle-settle", args=[battle.pk]), {"how": "auto"})
    assert r.status_code == 400 and "scenario" in r.content.decode() and snapshot(c) == before
    assert Battle.objects.get(pk=battle.pk).status == "playing"
    client.force_login(bob)  # a CAM player sees his battle's page
    assert client.get(reverse("battle-detail", args=[battle.pk])).status_code == 200


def test_the_break_contact_checks_are_recorded_as_the_tabletop_path_records_them(db, api, alice, bob, carol):
    c = make_cam(alice, bob, carol, seed="online-twin", survival_roll=True)
    _begin(c, alice, bob, carol)
    _sweep_until_scored(c)
    row = _row(c)
    checks = [e for e in row.events if e["step"] == "break_contact" and e["kind"] == "check"]
    losses = [e for e in row.events if e["step"] == "break_contact" and e["kind"] == "losses"]
    assert losses and all(e["seats"] == [1, 2] for e in losses)
    rolled = DiceRoll.objects.filter(campaign=c, purpose__contains="CAM 3.1").count()
    assert checks and len(checks) == rolled and all(len(e["seats"]) == 1 and "roll" in e["data"] for e in checks)
    api.force_login(bob)
    assert api.get(_url(c, "break-contact")).json()["checks"] == checks


@pytest.mark.parametrize("sweep", ["processdue", "celery"])
def test_the_due_work_sweeps_play_a_late_side(db, alice, bob, carol, sweep):
    from django.core.management import call_command

    from tactical.tasks import play_due_activations as task

    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    battle = Battle.objects.get(campaign=c)
    late = battle.setup["deciding"]["seat"]
    steps = battle.steps.count()
    call_command("processdue") if sweep == "processdue" else task()  # the beat task's body, in-process
    assert Battle.objects.get(pk=battle.pk).steps.count() == steps  # not due yet
    Battle.objects.filter(pk=battle.pk).update(activation_deadline=timezone.now() - timedelta(minutes=1))
    call_command("processdue") if sweep == "processdue" else task()  # the beat task's body, in-process
    battle.refresh_from_db()
    assert battle.steps.filter(by_doctrine=True, side=late).exists()
    assert battle.log.filter(kind="activation_late", seat=late).exists()
    assert battle.status == "resolved" or battle.activation_deadline > timezone.now()


def test_a_roll_back_takes_the_battle_with_its_step(db, alice, bob, carol):
    from campaign.actions import resume_campaign
    from campaign.cam.actions.moderation import roll_back_step

    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    first = Battle.objects.get(campaign=c)
    played = first.steps.count()
    assert tcam.play_due(timezone.now() + timedelta(days=2)) == 1 and first.steps.count() > played
    # The moderator rolls back the table roll: the battle and its dice go; rolling again sets the
    # same table up on the engine afresh.
    roll_back_step(campaign_id=c.pk, user=alice)
    assert _row(c).stage == CamScenario.Stage.FORCES and not Battle.objects.filter(campaign=c).exists()
    assert not DiceRoll.objects.filter(campaign=c, phase=first.dice_phase).exists()
    # The roll-back left the rubber paused: a player rolls the table once the moderator resumes (CAM60).
    with pytest.raises(actions.Paused):
        actions.roll_table(campaign_id=c.pk, user=bob)
    resume_campaign(campaign_id=c.pk, user=alice)
    row = actions.roll_table(campaign_id=c.pk, user=bob)
    again = Battle.objects.get(campaign=c)
    assert again.pk != first.pk and again.steps.count() == played and row.mode == "online"


def test_a_rolled_back_score_reopens_the_battle_for_the_moderator(db, alice, bob, carol):
    from campaign.actions import resume_campaign
    from campaign.cam.actions.moderation import roll_back_step

    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    online.settle(campaign_id=c.pk, user=alice, number=1, how="doctrine")
    score = _row(c).score
    roll_back_step(campaign_id=c.pk, user=alice)
    battle = Battle.objects.get(campaign=c)
    assert _row(c).stage == CamScenario.Stage.FIGHTING and battle.status == "playing"
    resume_campaign(campaign_id=c.pk, user=alice)
    online.settle(campaign_id=c.pk, user=alice, number=1, how="doctrine")
    assert _row(c).stage == CamScenario.Stage.SCORED and _row(c).score == score


def test_no_decision_deadline_passes_while_the_campaign_is_paused(db, alice, bob, carol):
    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    Campaign.objects.filter(pk=c.pk).update(paused=True)
    assert tcam.play_due(timezone.now() + timedelta(days=2)) == 0
    Campaign.objects.filter(pk=c.pk).update(paused=False)
    assert tcam.play_due(timezone.now() + timedelta(days=2)) == 1


def test_the_online_endpoints_are_in_the_openapi_schema(db, client):
    import yaml

    schema = yaml.safe_load(client.get("/api/schema/").content)
    base = "/api/cam/campaigns/{campaign_id}/scenarios/{number}/"
    ops = {what: schema["paths"][base + what + "/"] for what in ("mode", "battle", "act", "doctrine", "settle")}
    assert set(ops["mode"]) >= {"put"} and set(ops["battle"]) >= {"get"}
    body = ops["mode"]["put"]["requestBody"]["content"]["application/json"]
    assert body["schema"]["$ref"].endswith("/CamScenarioMode")
    assert {"200", "403", "404", "409"} <= set(ops["mode"]["put"]["responses"])
    for what in ("act", "doctrine", "settle"):
        assert "requestBody" in ops[what]["post"] and "409" in ops[what]["post"]["responses"]
    assert schema["components"]["schemas"]["CamScenarioMode"]["properties"]["mode"]["$ref"].endswith(
        "/CamScenarioModeEnum")
    assert schema["components"]["schemas"]["CamScenarioModeEnum"]["enum"] == ["tabletop", "auto", "online"]
    assert "decision_deadline" in schema["components"]["schemas"]["CamOnlineBattle"]["properties"]
