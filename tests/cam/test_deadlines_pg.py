"""Two due-work sweeps at once on PostgreSQL act once on a CAM step past its deadline (the campaign
row lock, then the step's new or handled deadline; campaign/cam/actions/deadlines.py). Skipped on
SQLite (it serialises every write) and required in the PostgreSQL pass (REQUIRE_SERVICES=1)."""

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from campaign.cam import actions
from campaign.cam.actions import deadlines
from campaign.cam.models import CamCampaign, CamPlayer, CamScenario
from campaign.dice import log_entries
from campaign.models import AuditEntry, DiceRoll
from campaign.rules import dicelog
from tests.eventhorizon.test_concurrency_pg import _postgresql_only, _tasks_in_process, in_threads  # noqa: F401

from .conftest import make_cam

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def past(campaign):
    CamCampaign.objects.filter(pk=campaign.pk).update(deadline=timezone.now() - timedelta(minutes=5))


@pytest.mark.parametrize("round_", range(2))
def test_four_sweeps_at_once_choose_the_forces_and_roll_the_table_once(alice, bob, carol, round_):
    c = make_cam(alice, bob, carol)
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    past(c)
    rolls = DiceRoll.objects.filter(campaign=c).count()
    results = in_threads([lambda: deadlines.process_due_step(campaign_id=c.pk)] * 4)
    assert [v for outcome, v in results if outcome == "error"] == []
    assert sorted(str(v) for _, v in results) == ["None", "None", "None", "acted"]
    row = CamScenario.objects.get(cam_id=c.pk, number=1)
    assert row.stage == "fighting" and set(row.selections) == {"1", "2"}
    assert AuditEntry.objects.filter(campaign=c, action="cam_deadline").count() == 1
    table_rolls = DiceRoll.objects.filter(campaign=c, phase="cam-table").count()
    assert table_rolls >= 2 and DiceRoll.objects.filter(campaign=c).count() == rolls + table_rolls
    c.refresh_from_db()
    assert dicelog.verify(bytes.fromhex(c.dice_seed), c.seed_hash, log_entries(c)) is None
    seqs = list(DiceRoll.objects.filter(campaign=c).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))  # one sweep's rolls, no gap or double


def test_two_sweeps_at_once_tell_the_moderator_once(alice, bob, carol):
    c = make_cam(alice, bob, carol, start=False)
    CamPlayer.objects.filter(cam_id=c.pk, seat=1).update(starting_fleet=[])
    past(c)
    mail.outbox.clear()
    results = in_threads([lambda: deadlines.process_due_step(campaign_id=c.pk)] * 2)
    assert sorted(str(v) for _, v in results) == ["None", "waits"]
    assert [m.to[0] for m in mail.outbox] == ["alice@example.com"]
    assert AuditEntry.objects.filter(campaign=c, action="cam_deadline").count() == 1
