"""Turn processing by Celery: idempotent tasks, due turns, and a real worker on Redis."""

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from campaign import actions, tasks
from campaign.models import Campaign, Turn, TurnOrders
from tests.conftest import REQUIRE_SERVICES

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_turn_task_delivered_twice_processes_once(small_campaign):
    assert tasks.process_turn.apply(args=(small_campaign.pk, 1)).get() is True
    assert tasks.process_turn.apply(args=(small_campaign.pk, 1)).get() is False
    assert Turn.objects.filter(campaign=small_campaign, status=Turn.Status.DONE).count() == 1


@pytest.mark.django_db
def test_a_turn_is_due_when_every_player_is_ready_or_the_deadline_passed(small_campaign):
    assert actions.due_turns() == []
    for empire in small_campaign.empires.all():
        actions.submit_orders(empire_id=empire.pk, raw={}, ready=True)
    assert [t.number for t in actions.due_turns()] == [1]
    TurnOrders.objects.filter(empire__seat=2).update(ready=False)
    assert actions.due_turns() == []
    Turn.objects.filter(campaign=small_campaign).update(deadline=timezone.now() - timedelta(minutes=1))
    assert [t.number for t in actions.due_turns()] == [1]


@pytest.mark.django_db
def test_bots_count_as_ready(small_campaign):
    small_campaign.empires.filter(seat=2).update(is_bot=True)
    actions.submit_orders(empire_id=small_campaign.empires.get(seat=1).pk, raw={}, ready=True)
    assert [t.number for t in actions.due_turns()] == [1]


@pytest.mark.django_db
def test_processdue_processes_due_turns_without_a_broker(small_campaign, django_capture_on_commit_callbacks):
    if settings.CELERY_BROKER_URL:
        pytest.skip("with a broker the turn is queued for a worker (see the worker test)")
    Turn.objects.filter(campaign=small_campaign).update(deadline=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        call_command("processdue")
    assert len(callbacks) == 1  # the task is enqueued only once the transaction commits
    small_campaign.refresh_from_db()
    assert small_campaign.turn == 2


@pytest.mark.skipif(not REQUIRE_SERVICES, reason="only in the PostgreSQL + Redis CI pass")
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_processes_a_queued_turn(alice):
    campaign = actions.create_campaign(name="Worker", grid="hex", width=12, height=12, players=2, seed="w")
    db = settings.DATABASES["default"]
    env = {**os.environ, "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--loglevel", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        tasks.process_turn.delay(campaign.pk, 1)
        tasks.process_turn.delay(campaign.pk, 1)  # delivered twice: processed once
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if Campaign.objects.get(pk=campaign.pk).turn == 2:
                break
            time.sleep(0.5)
        time.sleep(1)  # let the duplicate run too
        assert Campaign.objects.get(pk=campaign.pk).turn == 2
        assert Turn.objects.filter(campaign=campaign, status=Turn.Status.DONE).count() == 1
        assert connection.vendor == "postgresql"
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
