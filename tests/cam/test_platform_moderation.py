"""A CAM rubber moderated through the platform's moderation (issue 15): the deadline of each
step, pause, resume, extend, and the roll-back of a scenario step from its snapshot — the same
actions, pages and API as Event Horizon's, each audited."""

from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from campaign import actions
from campaign.cam import actions as cam_actions
from campaign.cam.models import CamCampaign, CamScenario, CamSnapshot
from campaign.models import AuditEntry, Campaign, DiceRoll

from .conftest import ship_numbers

pytestmark = pytest.mark.django_db


def cam_of(campaign) -> CamCampaign:
    return CamCampaign.objects.get(pk=campaign.pk)


def rows(campaign):
    """The CAM state a roll-back must give back exactly."""
    cam = cam_of(campaign)
    return (
        list(cam.players.order_by("seat").values()),
        [list(p.ships.order_by("number").values()) for p in cam.players.order_by("seat")],
        list(CamScenario.objects.filter(cam=cam).order_by("number").values()),
        list(DiceRoll.objects.filter(campaign=campaign).order_by("seq").values_list("seq", "hash")),
        Campaign.objects.filter(pk=campaign.pk).values("dice_offset", "status", "turn").get(),
        (cam.next_ship_id, cam.replacements_done, cam.started, cam.step),
    )


def entries(campaign, action):
    return list(AuditEntry.objects.filter(campaign=campaign, action=action).order_by("id"))


def test_every_step_gets_a_deadline_and_a_snapshot(cam_campaign, alice):
    cam = cam_of(cam_campaign)
    assert cam.step == 1 and cam.deadline is not None  # the start opened step 1
    assert list(cam.snapshots.values_list("step", "label")) == [(0, "the rubber started (CAM 4.0)")]
    before = timezone.now()
    cam_actions.generate_scenario(campaign_id=cam_campaign.pk, user=alice)
    cam = cam_of(cam_campaign)
    assert cam.step == 2
    hours = timedelta(hours=cam_campaign.turn_hours)
    assert before + hours <= cam.deadline <= timezone.now() + hours
    assert cam.snapshots.order_by("-step").first().label == "scenario 1 generated (CAM 2.1)"


def test_a_refused_step_leaves_no_snapshot(cam_campaign, bob):
    before = rows(cam_campaign), CamSnapshot.objects.count()
    with pytest.raises(cam_actions.NotAllowed):
        cam_actions.generate_scenario(campaign_id=cam_campaign.pk, user=bob, nature="open_battle")
    with pytest.raises(cam_actions.CamActionError):
        cam_actions.roll_table(campaign_id=cam_campaign.pk, user=bob)
    assert (rows(cam_campaign), CamSnapshot.objects.count()) == before


def test_pause_resume_and_extend_move_the_step_deadline(cam_campaign, alice):
    now = timezone.now()
    CamCampaign.objects.filter(pk=cam_campaign.pk).update(deadline=now + timedelta(hours=5))
    actions.pause_campaign(campaign_id=cam_campaign.pk, user=alice, now=now)
    cam_campaign.refresh_from_db()
    assert cam_campaign.paused and cam_campaign.paused_remaining == timedelta(hours=5)
    [paused] = entries(cam_campaign, "pause")
    assert paused.target.startswith("step 1 (") and paused.after["seconds_left"] == 5 * 3600
    actions.extend_deadline(campaign_id=cam_campaign.pk, user=alice, hours=2, now=now)
    cam_campaign.refresh_from_db()
    assert cam_campaign.paused_remaining == timedelta(hours=7)
    later = now + timedelta(days=3)
    actions.resume_campaign(campaign_id=cam_campaign.pk, user=alice, now=later)
    assert cam_of(cam_campaign).deadline == later + timedelta(hours=7)
    step = actions.extend_deadline(campaign_id=cam_campaign.pk, user=alice, hours=24, now=later)
    assert step.deadline == later + timedelta(hours=31) == cam_of(cam_campaign).deadline
    assert [e.action for e in AuditEntry.objects.filter(campaign=cam_campaign).exclude(action__startswith="cam_")
            .order_by("id")] == ["pause", "extend", "resume", "extend"]


def test_a_step_opened_while_paused_gets_its_full_time_on_resuming(cam_campaign, alice):
    actions.pause_campaign(campaign_id=cam_campaign.pk, user=alice)
    cam_actions.generate_scenario(campaign_id=cam_campaign.pk, user=alice)
    cam_campaign.refresh_from_db()
    assert cam_of(cam_campaign).deadline is None
    assert cam_campaign.paused_remaining == timedelta(hours=cam_campaign.turn_hours)


def test_moderation_refusals(cam_campaign, bob, mallory, alice):
    with pytest.raises(actions.NotAllowed):
        actions.pause_campaign(campaign_id=cam_campaign.pk, user=bob)
    with pytest.raises(actions.NotFound):
        actions.pause_campaign(campaign_id=cam_campaign.pk, user=mallory)
    with pytest.raises(actions.NotAllowed):
        actions.roll_back_step(campaign_id=cam_campaign.pk, user=bob)
    with pytest.raises(actions.NotFound):
        actions.roll_back_step(campaign_id=cam_campaign.pk, user=mallory)
    with pytest.raises(actions.ActionError, match="1 to"):
        actions.extend_deadline(campaign_id=cam_campaign.pk, user=alice, hours=0)
    assert not AuditEntry.objects.filter(campaign=cam_campaign).exclude(action="cam_start").exists()


def test_rolling_back_a_scenario_step_restores_the_rows_and_the_dice(cam_campaign, alice, bob, carol,
                                                                      django_capture_on_commit_callbacks):
    cam_actions.generate_scenario(campaign_id=cam_campaign.pk, user=alice)
    cam_actions.select_forces(campaign_id=cam_campaign.pk, user=bob, ships=ship_numbers(cam_campaign, 1)[:3])
    cam_actions.select_forces(campaign_id=cam_campaign.pk, user=carol, ships=ship_numbers(cam_campaign, 2)[:2])
    before = rows(cam_campaign)
    row = cam_actions.roll_table(campaign_id=cam_campaign.pk, user=bob)
    rolled = (row.tables, row.edges, row.break_levels, row.battle)
    assert rows(cam_campaign) != before
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        step = actions.roll_back_step(campaign_id=cam_campaign.pk, user=alice, number=2)
    assert step.number == 2 and "table rolled" in step.label
    assert rows(cam_campaign) == before  # the forces as chosen, the table not rolled, the dice log cut back
    cam_campaign.refresh_from_db()
    assert cam_campaign.paused and cam_campaign.paused_remaining == timedelta(hours=cam_campaign.turn_hours)
    [entry] = entries(cam_campaign, "roll_back")
    assert entry.user == alice and entry.target == "step 2" and entry.before["dice_rolls"]
    assert "table rolled" in entry.note and entry.after["paused"] is True
    assert sorted(m.to[0] for m in mail.outbox) == ["bob@example.com", "carol@example.com"]
    assert "step 2 rolled back" in mail.outbox[0].subject
    # Making the step again rolls the same dice.
    actions.resume_campaign(campaign_id=cam_campaign.pk, user=alice)
    again = cam_actions.roll_table(campaign_id=cam_campaign.pk, user=bob)
    assert (again.tables, again.edges, again.break_levels, again.battle) == rolled


def test_a_step_made_again_after_a_roll_back_emails_again(cam_campaign, alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        cam_actions.generate_scenario(campaign_id=cam_campaign.pk, user=alice)
    first = [m.to[0] for m in mail.outbox if "has been generated" in m.subject]
    assert first
    actions.roll_back_step(campaign_id=cam_campaign.pk, user=alice)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        cam_actions.generate_scenario(campaign_id=cam_campaign.pk, user=alice)
    assert [m.to[0] for m in mail.outbox if "has been generated" in m.subject] == first


def test_steps_roll_back_one_at_a_time_down_to_the_start(cam_campaign, alice):
    start = rows(cam_campaign)
    cam_actions.generate_scenario(campaign_id=cam_campaign.pk, user=alice)
    actions.roll_back_step(campaign_id=cam_campaign.pk, user=alice)
    assert rows(cam_campaign) == start and not CamScenario.objects.exists()
    actions.roll_back_step(campaign_id=cam_campaign.pk, user=alice)  # the start itself
    cam = cam_of(cam_campaign)
    assert not cam.started and cam.step == 0 and not cam.players.first().ships.exists()
    with pytest.raises(actions.ActionError, match="nothing to roll back"):
        actions.roll_back_step(campaign_id=cam_campaign.pk, user=alice)


def test_a_stale_step_number_is_refused_and_changes_nothing(cam_campaign, alice):
    cam_actions.generate_scenario(campaign_id=cam_campaign.pk, user=alice)
    before = rows(cam_campaign)
    with pytest.raises(actions.StaleTurn, match="only the last step \\(1"):
        actions.roll_back_step(campaign_id=cam_campaign.pk, user=alice, number=0)
    assert rows(cam_campaign) == before


def test_rolling_back_the_last_step_of_a_finished_rubber_reopens_it(db, alice, bob, carol):
    from .conftest import make_cam

    c = make_cam(alice, bob, carol, scenarios=1)
    cam_actions.generate_scenario(campaign_id=c.pk, user=alice)
    cam_actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    cam_actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    cam_actions.roll_table(campaign_id=c.pk, user=bob)
    cam_actions.autoresolve(campaign_id=c.pk, user=alice)
    c.refresh_from_db()
    assert c.status == Campaign.Status.FINISHED
    actions.roll_back_step(campaign_id=c.pk, user=alice)
    c.refresh_from_db()
    assert c.status == Campaign.Status.ACTIVE
    assert CamScenario.objects.get(cam_id=c.pk).stage == CamScenario.Stage.FIGHTING


def test_a_game_turn_rolled_back_keeps_the_first_players_entry(cam_campaign, alice, bob, carol):
    cam_actions.generate_scenario(campaign_id=cam_campaign.pk, user=alice)
    cam_actions.select_forces(campaign_id=cam_campaign.pk, user=bob, ships=ship_numbers(cam_campaign, 1)[:3])
    cam_actions.select_forces(campaign_id=cam_campaign.pk, user=carol, ships=ship_numbers(cam_campaign, 2)[:2])
    cam_actions.roll_table(campaign_id=cam_campaign.pk, user=bob)
    cam_actions.enter_turn(campaign_id=cam_campaign.pk, user=bob)
    cam_actions.enter_turn(campaign_id=cam_campaign.pk, user=carol)  # the End Phase: a new step
    actions.roll_back_step(campaign_id=cam_campaign.pk, user=alice)
    row = CamScenario.objects.get(cam_id=cam_campaign.pk)
    assert list(row.turn_entries) == ["1"] and row.battle["turn"] == 1


# --- the pages and the API -----------------------------------------------------------------------


def test_the_moderation_panel_serves_a_cam_rubber(client, cam_campaign, alice, bob, mallory):
    cam_actions.generate_scenario(campaign_id=cam_campaign.pk, user=alice)
    client.force_login(alice)
    page = client.get(reverse("moderation-panel", args=[cam_campaign.pk])).content.decode()
    assert "scenario 1: force selection" in page and "Bob&#x27;s Squadron" in page
    assert "Roll back step 1: scenario 1 generated (CAM 2.1)…" in page
    assert "moderation-process" not in page and "Substitute a player" not in page
    # issue 31: a rubber's one rule option is the book its scenarios are fought on online
    assert 'id="opt-battle_book"' in page and "steered_drift" not in page and "economy_types" not in page
    client.force_login(bob)
    assert client.get(reverse("moderation-panel", args=[cam_campaign.pk])).status_code == 403
    client.force_login(mallory)
    assert client.get(reverse("moderation-panel", args=[cam_campaign.pk])).status_code == 404


def test_pause_extend_resume_and_roll_back_through_the_pages(client, cam_campaign, alice, bob):
    cam_actions.generate_scenario(campaign_id=cam_campaign.pk, user=alice)
    client.force_login(alice)
    base = f"/campaigns/{cam_campaign.pk}/moderate/"
    assert client.post(base + "pause/").status_code == 302
    assert client.post(base + "extend/", {"hours": 5}).status_code == 302
    assert client.post(base + "resume/").status_code == 302
    confirm = client.get(base + "rollback/").content.decode()
    assert "Roll back step 1" in confirm and 'name="turn" value="1"' in confirm and "scenario 1 generated" in confirm
    response = client.post(base + "rollback/", {"turn": 1})
    assert response.status_code == 302
    assert not CamScenario.objects.exists()
    refused = client.post(base + "rollback/", {"turn": 1})
    assert refused.status_code == 409 and "only the last step (0" in refused.content.decode()
    audit = client.get(reverse("moderation-audit", args=[cam_campaign.pk])).content.decode()
    assert "Step rolled back" in audit and "Paused" in audit
    client.force_login(bob)  # players read the log once the rubber is over
    assert client.get(reverse("moderation-audit", args=[cam_campaign.pk])).status_code == 403


def test_the_moderation_api_serves_a_cam_rubber(client, cam_campaign, alice, bob, mallory):
    cam_actions.generate_scenario(campaign_id=cam_campaign.pk, user=alice)
    client.force_login(alice)
    api = f"/api/campaigns/{cam_campaign.pk}/"
    paused = client.post(api + "pause/").json()
    assert paused["paused"] is True and paused["step"] == 2 and "force selection" in paused["step_label"]
    assert client.post(api + "extend/", {"hours": 3}, content_type="application/json").status_code == 200
    assert client.post(api + "resume/").json()["deadline"]
    assert client.post(api + "rollback/", {"turn": 5}, content_type="application/json").status_code == 409
    rolled = client.post(api + "rollback/", {"turn": 1}, content_type="application/json")
    assert rolled.status_code == 200 and rolled.json()["rolled_back"] == 1 and rolled.json()["paused"] is True
    assert [e["action"] for e in client.get(api + "audit/").json()["results"]] == [
        "roll_back", "resume", "extend", "pause", "cam_start"]
    assert (
        client.post(
            api + "substitute/", {"seat": 1, "username": ""}, content_type="application/json"
        ).status_code
        == 404
    )
    client.force_login(bob)
    assert client.post(api + "pause/").status_code == 403
    client.force_login(mallory)
    assert client.post(api + "pause/").status_code == 404


def test_the_cam_page_shows_the_deadline_and_the_pause(client, cam_campaign, alice, bob):
    client.force_login(bob)
    page = client.get(reverse("cam-detail", args=[cam_campaign.pk])).content.decode()
    assert "This step is due" in page and "/moderate/" not in page
    actions.pause_campaign(campaign_id=cam_campaign.pk, user=alice)
    assert "paused" in client.get(reverse("cam-detail", args=[cam_campaign.pk])).content.decode()
    client.force_login(alice)
    assert (
        f"/campaigns/{cam_campaign.pk}/moderate/"
        in client.get(reverse("cam-detail", args=[cam_campaign.pk])).content.decode()
    )


def test_the_cam_api_shows_the_step_and_its_deadline(client, cam_campaign, alice, bob):
    client.force_login(bob)
    step = client.get(f"/api/cam/campaigns/{cam_campaign.pk}/").json()["step"]
    assert step["number"] == 1 and step["deadline"] and step["paused"] is False
    assert step["label"] == "scenario 1: to be generated (CAM 2.1)" and step["hours"] == cam_campaign.turn_hours
    actions.pause_campaign(campaign_id=cam_campaign.pk, user=alice)
    assert client.get(f"/api/cam/campaigns/{cam_campaign.pk}/").json()["step"]["paused"] is True
