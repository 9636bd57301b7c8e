"""Races of CAM scenarios fought online, on PostgreSQL (row locks between real connections):
four due-work sweeps at once play a late side once; a player deciding while the sweep runs never
stores two steps under one number, and the battle still replays. Skipped on SQLite, required in
the PostgreSQL pass (REQUIRE_SERVICES=1), as tests/eventhorizon/test_concurrency_pg.py."""

from datetime import timedelta

import pytest
from django.utils import timezone

from campaign.cam import online
from tactical.hosts.cam import scenarios as tcam
from tactical.models import Battle
from tactical.rules.buoyz import doctrine_action
from tactical.rules.buoyz import play as codec
from tests.eventhorizon.test_concurrency_pg import _postgresql_only, _tasks_in_process, in_threads  # noqa: F401

from .conftest import make_cam
from .test_online import _begin, _row

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def _late(alice, bob, carol):
    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol)
    battle = Battle.objects.get(campaign=c)
    Battle.objects.filter(pk=battle.pk).update(activation_deadline=timezone.now() - timedelta(minutes=1))
    return c, battle


def test_four_sweeps_at_once_play_a_late_side_once(alice, bob, carol):
    c, battle = _late(alice, bob, carol)
    now = timezone.now()
    results = in_threads([lambda: tcam.play_due(now)] * 4)
    assert all(kind == "ok" for kind, _ in results), results
    assert sum(value for _, value in results) == 1
    assert battle.log.filter(kind="activation_late").count() == 1
    seqs = list(battle.steps.values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


def test_a_decision_and_the_sweep_at_once(alice, bob, carol):
    c, battle = _late(alice, bob, carol)
    seat = battle.setup["deciding"]["seat"]
    move = codec.to_json(doctrine_action(tcam.current_state(battle, _row(c))))
    user = {1: bob, 2: carol}[seat]
    results = in_threads([
        lambda: online.act(campaign_id=c.pk, user=user, number=1, action=move),
        lambda: tcam.play_due(timezone.now()),
    ])
    # One of them decided that decision; the other either went on after it or found it made.
    assert any(kind == "ok" for kind, _ in results), results
    assert all(kind == "ok" or isinstance(value, online.CamActionError) for kind, value in results), results
    seqs = list(battle.steps.values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    tcam._CACHE.clear()
    tcam.current_state(Battle.objects.get(pk=battle.pk), _row(c))  # replays from the log
