"""Races of a paused CAM rubber's resume, on PostgreSQL (row locks between real connections): the
two players completing a step while the moderator resumes, and two resumes at once, make the step
exactly once (ruling CAM60). Skipped on SQLite, required in the PostgreSQL pass
(REQUIRE_SERVICES=1), as tests/cam/test_online_pg.py."""

import pytest

from campaign import actions as platform
from campaign.cam import actions
from campaign.cam.models import CamCampaign, CamPlayer, CamScenario, CamSnapshot
from campaign.models import Campaign, DiceRoll
from tests.eventhorizon.test_concurrency_pg import _postgresql_only, _tasks_in_process, in_threads  # noqa: F401

from .conftest import make_cam, ship_numbers
from .test_actions import fight_to_forces

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def _fighting(alice, bob, carol):
    c = make_cam(alice, bob, carol)
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    fight_to_forces(c, bob, carol)
    platform.pause_campaign(campaign_id=c.pk, user=alice)
    return c, CamCampaign.objects.get(pk=c.pk).step


def _one_end_phase(c, step):
    cam = CamCampaign.objects.get(pk=c.pk)
    row = CamScenario.objects.get(cam=cam, number=1)
    assert cam.step == step + 1 and CamSnapshot.objects.filter(cam=cam, step=step).count() == 1
    assert row.battle["turn"] == 2 and row.turn_entries == {}
    assert not Campaign.objects.get(pk=c.pk).paused


def test_both_players_complete_a_game_turn_while_the_moderator_resumes(alice, bob, carol):
    c, step = _fighting(alice, bob, carol)
    k = ship_numbers(c, 2)
    results = in_threads([
        lambda: actions.enter_turn(campaign_id=c.pk, user=bob),
        lambda: actions.enter_turn(campaign_id=c.pk, user=carol, destroyed=[f"ship:{k[0]}"]),
        lambda: platform.resume_campaign(campaign_id=c.pk, user=alice),
    ])
    assert all(kind == "ok" for kind, _ in results), results
    _one_end_phase(c, step)  # whichever came last made it: the resume or the second entry
    assert DiceRoll.objects.filter(campaign=c, purpose__contains="CAM 3.1").count() == 1


def test_two_resumes_at_once_make_a_completed_step_once(alice, bob, carol):
    c, step = _fighting(alice, bob, carol)
    actions.enter_turn(campaign_id=c.pk, user=bob)
    actions.enter_turn(campaign_id=c.pk, user=carol)
    results = in_threads([lambda: platform.resume_campaign(campaign_id=c.pk, user=alice)] * 2)
    kinds = sorted(kind for kind, _ in results)
    assert kinds == ["error", "ok"], results
    assert "not paused" in str(next(v for k, v in results if k == "error"))
    _one_end_phase(c, step)


def test_both_players_ready_between_scenarios_while_the_moderator_resumes(alice, bob, carol):
    c, _ = _fighting(alice, bob, carol)
    platform.resume_campaign(campaign_id=c.pk, user=alice)
    actions.propose_end(campaign_id=c.pk, user=carol)
    actions.confirm_result(campaign_id=c.pk, user=bob)
    platform.pause_campaign(campaign_id=c.pk, user=alice)
    step = CamCampaign.objects.get(pk=c.pk).step
    results = in_threads([
        lambda: actions.submit_replacements(campaign_id=c.pk, user=bob),
        lambda: actions.submit_replacements(campaign_id=c.pk, user=carol),
        lambda: platform.resume_campaign(campaign_id=c.pk, user=alice),
    ])
    assert all(kind == "ok" for kind, _ in results), results
    cam = CamCampaign.objects.get(pk=c.pk)
    assert cam.replacements_done == 1 and cam.step == step + 1
    assert CamSnapshot.objects.filter(cam=cam, step=step).count() == 1
    assert not CamPlayer.objects.filter(cam=cam, between_ready=True).exists()
