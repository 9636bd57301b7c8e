"""What a CAM step's passed deadline does (rulings CAM50 – CAM56), reached through the layer
record by the platform's sweeps, and the reminders before it. Dice from the fixture's fixed seed."""

from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from campaign import actions as platform
from campaign import layers
from campaign.cam import actions, adapters
from campaign.cam.actions import deadlines
from campaign.cam.models import CamCampaign, CamPlayer, CamScenario, CamShip
from campaign.models import AuditEntry, Campaign, DiceRoll, Membership, SentNotification
from campaign.rules.cam import scenario as sc
from campaign.rules.cam import ships as sh
from campaign.rules.cam import standing

from .conftest import make_cam, ship_numbers


def due(c, hours=1):
    """The open step's deadline passed ``hours`` ago."""
    when = timezone.now() - timedelta(hours=hours)
    CamCampaign.objects.filter(pk=c.pk).update(deadline=when)
    return when


def sweep(c, capture):
    with capture(execute=True):
        return deadlines.process_due_step(campaign_id=c.pk)


def cam_of(c):
    return CamCampaign.objects.get(pk=c.pk)


def deadline_audits(c):
    return list(AuditEntry.objects.filter(campaign=c, action="cam_deadline").order_by("id"))


def current(c):
    return CamScenario.objects.filter(cam_id=c.pk).exclude(stage="scored").order_by("-number").first()


# --- each step ------------------------------------------------------------------------------------


def test_setup_deadline_starts_the_rubber_with_the_fleets_entered(db, alice, bob, carol,
                                                                  django_capture_on_commit_callbacks):
    c = make_cam(alice, bob, carol, start=False)
    assert not cam_of(c).started
    due(c)
    mail.outbox.clear()
    assert sweep(c, django_capture_on_commit_callbacks) == "acted"
    cam = cam_of(c)
    assert cam.started and cam.step == 1 and cam.deadline > timezone.now()
    assert CamShip.objects.filter(player__cam=cam).count() == 15  # both rosters written (CAM 4.0)
    [entry] = deadline_audits(c)
    assert entry.user is None and "ruling CAM50" in entry.note
    assert {m.to[0] for m in mail.outbox} == {"bob@example.com", "carol@example.com"}
    assert all("deadline of step 0 passed" in m.subject for m in mail.outbox)


def test_setup_deadline_without_a_fleet_waits_for_the_moderator_once_per_deadline(
        db, alice, bob, carol, django_capture_on_commit_callbacks):
    c = make_cam(alice, bob, carol, start=False)
    CamPlayer.objects.filter(cam_id=c.pk, seat=2).update(starting_fleet=[])
    when = due(c)
    mail.outbox.clear()
    assert sweep(c, django_capture_on_commit_callbacks) == "waits"
    cam = cam_of(c)
    assert not cam.started and cam.step == 0 and cam.deadline_done == cam.deadline == when
    assert [m.to[0] for m in mail.outbox] == ["alice@example.com"]
    assert "Carol's Raiders (seat 2) entered no starting fleet" in mail.outbox[0].body
    assert c.pk not in deadlines.due_steps()
    assert sweep(c, django_capture_on_commit_callbacks) is None  # handled: nothing twice
    assert len(mail.outbox) == 1 and len(deadline_audits(c)) == 1
    # The moderator extends the deadline and it passes again: handled again.
    due(c, hours=0.5)
    assert sweep(c, django_capture_on_commit_callbacks) == "waits"
    assert len(mail.outbox) == 2 and len(deadline_audits(c)) == 2


def test_generate_deadline_generates_the_scenario(cam_campaign, django_capture_on_commit_callbacks):
    c = cam_campaign
    step, rolls = cam_of(c).step, DiceRoll.objects.filter(campaign=c).count()
    due(c)
    assert sweep(c, django_capture_on_commit_callbacks) == "acted"
    row = current(c)
    assert row.number == 1 and row.stage == "forces" and row.nature_roll is not None
    assert cam_of(c).step == step + 1
    assert DiceRoll.objects.filter(campaign=c, purpose__contains="CAM 2.1").exists()
    assert DiceRoll.objects.filter(campaign=c).count() > rolls


def test_forces_deadline_chooses_the_missing_force_and_rolls_the_table(
        cam_campaign, alice, bob, django_capture_on_commit_callbacks):
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    due(c)
    assert sweep(c, django_capture_on_commit_callbacks) == "acted"
    row = current(c)
    assert row.stage == "fighting" and row.tables  # CAM 2.3 made
    assert row.selections["1"]["ships"] == ship_numbers(c, 1)[:3]  # bob's own force stands
    chosen = row.selections["2"]["ships"]
    sds = dict(CamShip.objects.filter(player__cam_id=c.pk, player__seat=2).values_list("number", "sd"))
    points = {n: sh.STARTER_CATALOGUE[sd].points for n, sd in sds.items()}
    total = sum(points[n] for n in chosen)
    assert total <= 60 and row.selections["2"]["bases"] == [] and not row.selections["2"]["on_table"]
    # The most expensive ships first: none left out would still fit, and each left out costs no more
    # than the cheapest taken.
    left_out = [n for n in points if n not in chosen]
    assert all(total + points[n] > 60 for n in left_out)
    assert all(points[n] <= min(points[m] for m in chosen) for n in left_out)
    assert DiceRoll.objects.filter(campaign=c, purpose__contains=sc.TABLE_RULE).exists()
    assert "ruling CAM52" in deadline_audits(c)[0].note


def test_standing_force_keeps_the_convoy_proportions(cam_campaign, alice):
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="convoy", defender=1)
    state = adapters.campaign_state(cam_of(c))
    scenario = adapters.scenario_state(current(c))
    for seat in (1, 2):
        selection = standing.standing_force(state, scenario, seat)
        force = sc.validate_forces(state, scenario, selection)  # raises if CAM 2.2 refuses it
        classes = [u.ship_class for u in force.units]
        if seat == 1:  # the defender brings his merchant ships
            assert classes.count(sh.ShipClass.TP) == 2
        else:  # the attacker's capital ships (D7 BCs) cannot keep the 20% cap: only CL or smaller
            assert set(classes) == {sh.ShipClass.CL}


def test_forces_deadline_without_a_possible_force_waits_for_the_moderator(
        cam_campaign, alice, django_capture_on_commit_callbacks):
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    CamShip.objects.filter(player__cam_id=c.pk, player__seat=2).update(status="unavailable")
    rolls = DiceRoll.objects.filter(campaign=c).count()
    due(c)
    mail.outbox.clear()
    assert sweep(c, django_capture_on_commit_callbacks) == "waits"
    row = current(c)
    assert row.stage == "forces" and row.selections == {}  # nothing chosen for seat 1 either
    assert DiceRoll.objects.filter(campaign=c).count() == rolls
    assert [m.to[0] for m in mail.outbox] == ["alice@example.com"]


def fighting(c, alice, bob, carol):
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    actions.roll_table(campaign_id=c.pk, user=bob)


def test_game_turn_deadline_in_a_tabletop_campaign_waits_for_the_moderator(
        cam_campaign, alice, bob, carol, django_capture_on_commit_callbacks):
    c = cam_campaign
    fighting(c, alice, bob, carol)
    actions.enter_turn(campaign_id=c.pk, user=bob)
    due(c)
    mail.outbox.clear()
    assert sweep(c, django_capture_on_commit_callbacks) == "waits"
    row = current(c)
    assert row.stage == "fighting" and list(row.turn_entries) == ["1"]
    [message] = mail.outbox
    assert message.to == ["alice@example.com"] and "Carol's Raiders (seat 2) has not entered" in message.body


def test_game_turn_deadline_in_an_auto_resolve_campaign_auto_resolves(
        db, alice, bob, carol, django_capture_on_commit_callbacks):
    c = make_cam(alice, bob, carol, battle_mode="auto")
    fighting(c, alice, bob, carol)
    due(c)
    assert sweep(c, django_capture_on_commit_callbacks) == "acted"
    row = CamScenario.objects.get(cam_id=c.pk, number=1)
    assert row.stage == "scored" and row.score is not None
    assert DiceRoll.objects.filter(campaign=c, phase="cam-autoresolve").exists()


def test_confirmation_deadline_confirms_the_result_as_entered(
        cam_campaign, alice, bob, carol, django_capture_on_commit_callbacks):
    c = cam_campaign
    fighting(c, alice, bob, carol)
    b = ship_numbers(c, 1)
    actions.enter_turn(campaign_id=c.pk, user=bob, destroyed=[f"ship:{b[0]}"])
    actions.enter_turn(campaign_id=c.pk, user=carol)
    actions.propose_end(campaign_id=c.pk, user=carol)
    expected = actions.score_preview(current(c))
    due(c)
    assert sweep(c, django_capture_on_commit_callbacks) == "acted"
    row = CamScenario.objects.get(cam_id=c.pk, number=1)
    assert row.stage == "scored" and row.force_end
    assert row.score["winner"] == expected.winner
    assert CamShip.objects.get(player__cam_id=c.pk, number=b[0]).status == "destroyed"
    assert "confirmed as entered" in deadline_audits(c)[0].note


def test_between_deadline_rolls_with_the_requests_entered(
        cam_campaign, alice, bob, carol, django_capture_on_commit_callbacks):
    c = cam_campaign
    fighting(c, alice, bob, carol)
    b = ship_numbers(c, 1)
    actions.enter_turn(campaign_id=c.pk, user=bob, destroyed=[f"ship:{b[0]}"], crippled=[f"ship:{b[1]}"])
    actions.enter_turn(campaign_id=c.pk, user=carol)
    actions.propose_end(campaign_id=c.pk, user=carol)
    actions.confirm_result(campaign_id=c.pk, user=bob)
    # bob saved a request without marking ready; carol did nothing.
    actions.submit_replacements(campaign_id=c.pk, user=bob, ready=False,
                                requests=[{"replaces": b[0], "sd": "constitution"}])
    due(c)
    assert sweep(c, django_capture_on_commit_callbacks) == "acted"
    cam = cam_of(c)
    assert cam.replacements_done == 1
    assert DiceRoll.objects.filter(campaign=c, purpose__contains="repaired on 4+").count() == 1
    assert DiceRoll.objects.filter(campaign=c, phase="cam-between").count() == 2  # repair + bob's replacement
    assert CamShip.objects.get(player__cam_id=c.pk, number=b[1]).status in ("ready", "unavailable")
    carol_row = CamPlayer.objects.get(cam=cam, seat=2)
    assert carol_row.replacement_points == 10  # nothing asked: 10% of 100, hoarded (CAM25)
    assert "none from Carol's Raiders (seat 2)" in deadline_audits(c)[0].note


def test_a_paused_rubber_is_untouched(cam_campaign, alice, django_capture_on_commit_callbacks):
    c = cam_campaign
    due(c)
    Campaign.objects.filter(pk=c.pk).update(paused=True)
    before = (cam_of(c).step, DiceRoll.objects.filter(campaign=c).count())
    assert c.pk not in deadlines.due_steps()
    assert sweep(c, django_capture_on_commit_callbacks) is None
    assert (cam_of(c).step, DiceRoll.objects.filter(campaign=c).count()) == before
    assert deadline_audits(c) == [] and not CamScenario.objects.filter(cam_id=c.pk).exists()


def test_a_step_not_yet_due_or_without_deadline_is_untouched(cam_campaign, django_capture_on_commit_callbacks):
    c = cam_campaign
    assert sweep(c, django_capture_on_commit_callbacks) is None  # 72 hours left
    CamCampaign.objects.filter(pk=c.pk).update(deadline=None)
    assert sweep(c, django_capture_on_commit_callbacks) is None
    assert deadline_audits(c) == []


def test_a_scenario_fought_online_keeps_its_own_deadlines(cam_campaign, alice, bob, carol,
                                                          django_capture_on_commit_callbacks):
    c = cam_campaign
    fighting(c, alice, bob, carol)
    CamScenario.objects.filter(cam_id=c.pk, number=1).update(mode=CamScenario.Mode.ONLINE)  # campaign/cam/online.py
    due(c)
    mail.outbox.clear()
    assert sweep(c, django_capture_on_commit_callbacks) == "waits"
    assert current(c).stage == "fighting" and mail.outbox == []
    assert "fought online" in deadline_audits(c)[0].note


# --- through the platform --------------------------------------------------------------------------


def test_the_platform_sweeps_reach_the_step_through_the_layer_record(cam_campaign, eager_tasks,
                                                                      django_capture_on_commit_callbacks):
    c = cam_campaign
    assert layers.get(c.layer).process_due is deadlines.process_due_step
    due(c)
    assert (c.layer, c.pk) in layers.due_steps()
    with django_capture_on_commit_callbacks(execute=True):  # the task is queued on commit
        call_command("processdue")
    assert current(c).number == 1 and deadline_audits(c)
    assert (c.layer, c.pk) not in layers.due_steps()


def test_the_beat_task_and_the_request_sweep_reach_the_step(cam_campaign, eager_tasks, client, settings,
                                                             django_capture_on_commit_callbacks):
    from django.core.cache import cache

    from campaign import tasks

    c = cam_campaign
    due(c)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.process_due() >= 1
    assert current(c).number == 1
    # The in-process sweep (no broker) on a request does the same for the next step.
    due(c)
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 1
    cache.clear()
    with django_capture_on_commit_callbacks(execute=True):
        client.get("/")
    assert current(c).stage == "fighting"  # forces chosen for both at the deadline, table rolled
    assert current(c).number == 1


# --- reminders -------------------------------------------------------------------------------------


def test_reminders_go_to_the_players_the_step_waits_for_once(
        cam_campaign, alice, bob, carol, django_capture_on_commit_callbacks):
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    deadline = cam_of(c).deadline
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert platform.send_deadline_reminders(now=deadline - timedelta(hours=30)) == 0  # not yet
        assert platform.send_deadline_reminders(now=deadline - timedelta(hours=20)) == 2
        assert platform.send_deadline_reminders(now=deadline - timedelta(hours=19)) == 0  # once
    assert {m.to[0] for m in mail.outbox} == {"bob@example.com", "carol@example.com"}
    assert "due within 24 hours" in mail.outbox[0].subject and "ruling CAM52" in mail.outbox[0].body
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert platform.send_deadline_reminders(now=deadline - timedelta(minutes=30)) == 1
    assert [m.to[0] for m in mail.outbox] == ["carol@example.com"]
    assert "due within 1 hour" in mail.outbox[0].subject


def test_reminders_follow_preferences_and_pause(cam_campaign, alice, carol, django_capture_on_commit_callbacks):
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    Membership.objects.filter(campaign=c, user=carol).update(notify_reminders=False)
    deadline = cam_of(c).deadline
    mail.outbox.clear()
    Campaign.objects.filter(pk=c.pk).update(paused=True)
    with django_capture_on_commit_callbacks(execute=True):
        assert platform.send_deadline_reminders(now=deadline - timedelta(hours=2)) == 0
    Campaign.objects.filter(pk=c.pk).update(paused=False)
    with django_capture_on_commit_callbacks(execute=True):
        assert platform.send_deadline_reminders(now=deadline - timedelta(hours=2)) == 1
    assert [m.to[0] for m in mail.outbox] == ["bob@example.com"]
    assert SentNotification.objects.filter(campaign=c, kind__startswith="cam_rem_24h:").count() == 1


@pytest.mark.parametrize("hours, before", [(1, timedelta(minutes=30)), (24, timedelta(hours=20))])
def test_no_reminder_for_a_step_whose_whole_time_is_inside_the_window(db, alice, bob, carol, hours, before,
                                                                      django_capture_on_commit_callbacks):
    c = make_cam(alice, bob, carol)
    Campaign.objects.filter(pk=c.pk).update(turn_hours=hours)
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")  # both players chose nothing
    deadline = cam_of(c).deadline
    with django_capture_on_commit_callbacks(execute=True):
        assert platform.send_deadline_reminders(now=deadline - before) == 0


def test_the_moderation_panel_says_what_the_deadline_does_and_when_the_step_waits(
        cam_campaign, alice, client, django_capture_on_commit_callbacks):
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    client.force_login(alice)
    page = client.get(f"/campaigns/{c.pk}/moderate/").content.decode()
    assert 'id="cam-at-deadline"' in page and "ruling CAM52" in page and 'id="cam-late"' not in page
    CamShip.objects.filter(player__cam_id=c.pk, player__seat=2).update(status="unavailable")
    due(c)
    assert sweep(c, django_capture_on_commit_callbacks) == "waits"
    page = client.get(f"/campaigns/{c.pk}/moderate/").content.decode()
    assert 'id="cam-late"' in page and "no force that CAM 2.2 allows" in page
