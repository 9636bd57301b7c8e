"""Turn processing by Celery: idempotent tasks, due turns, and a real worker on Redis."""

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.core import mail
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from campaign import tasks
from campaign.eventhorizon import actions as eh_actions
from campaign.models import Campaign, SentNotification, Turn, TurnOrders
from tests.conftest import REQUIRE_SERVICES

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.django_db
def test_turn_task_delivered_twice_processes_once(small_campaign):
    assert tasks.process_turn.apply(args=(small_campaign.pk, 1)).get() is True
    assert tasks.process_turn.apply(args=(small_campaign.pk, 1)).get() is False
    assert Turn.objects.filter(campaign=small_campaign, number=1, status=Turn.Status.DONE).count() == 1


@pytest.mark.django_db
def test_a_turn_is_due_when_every_player_is_ready_or_the_deadline_passed(small_campaign):
    assert eh_actions.due_turns() == []
    for empire in small_campaign.empires.all():
        eh_actions.submit_orders(empire_id=empire.pk, raw={}, ready=True)
    assert [t.number for t in eh_actions.due_turns()] == [1]
    TurnOrders.objects.filter(empire__seat=2).update(ready=False)
    assert eh_actions.due_turns() == []
    Turn.objects.filter(campaign=small_campaign).update(deadline=timezone.now() - timedelta(minutes=1))
    assert [t.number for t in eh_actions.due_turns()] == [1]


@pytest.mark.django_db
def test_bots_count_as_ready(small_campaign):
    small_campaign.empires.filter(seat=2).update(is_bot=True)
    eh_actions.submit_orders(empire_id=small_campaign.empires.get(seat=1).pk, raw={}, ready=True)
    assert [t.number for t in eh_actions.due_turns()] == [1]


@pytest.mark.django_db
def test_processdue_processes_due_turns_without_a_broker(small_campaign, django_capture_on_commit_callbacks):
    if settings.CELERY_BROKER_URL:
        pytest.skip("with a broker the turn is queued for a worker (see the worker test)")
    Turn.objects.filter(campaign=small_campaign).update(deadline=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        call_command("processdue")
    # The task is enqueued only once the transaction commits.
    assert len(callbacks) == 1 and Campaign.objects.get(pk=small_campaign.pk).turn == 1
    with django_capture_on_commit_callbacks(execute=True) as more:
        callbacks[0]()
    small_campaign.refresh_from_db()
    assert small_campaign.turn == 2
    # Processing queued the turn emails on its own commit, and they went out once.
    assert len(more) == 2
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.com", "bob@example.com", "carol@example.com"]


def test_celery_is_configured_for_late_acks_prefetch_one_and_one_schedule():
    from config.celery import app

    assert app.conf.task_acks_late is True
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.task_serializer == "json"
    for name in ("process_turn", "process_due", "send_turn_notifications", "send_deadline_reminders",
                 "notify_battle_decision", "purge_unconfirmed_accounts"):
        task = getattr(tasks, name)
        assert task.acks_late is True, name
        assert task.name == f"campaign.tasks.{name}"
    scheduled = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert scheduled == {"campaign.tasks.process_due", "campaign.tasks.send_deadline_reminders",
                         "tactical.tasks.settle_due_battles", "tactical.tasks.play_due_activations",
                         "campaign.mail.tasks.process_pending", "campaign.mail.tasks.purge_raw",
                         "campaign.tasks.purge_unconfirmed_accounts",
                         "campaign.groups.tasks.sweep"}  # mail-imap-poll only with MAIL_IMAP_HOST
    app.loader.import_default_modules()
    assert scheduled <= set(app.tasks)


@pytest.mark.django_db
def test_tasks_take_ids_and_are_retried_on_database_errors(small_campaign, monkeypatch):
    from celery.exceptions import Retry
    from django.db import OperationalError

    calls = []

    def deadlocked(**kwargs):
        calls.append(kwargs)
        raise OperationalError("deadlock detected")

    monkeypatch.setattr(eh_actions, "process_turn", deadlocked)
    # The action's transaction rolled back whole, so the task is retried (with back-off).
    with pytest.raises(Retry):
        tasks.process_turn.apply(args=(small_campaign.pk, 1))
    assert calls == [{"campaign_id": small_campaign.pk, "turn_number": 1}]
    for name in ("process_turn", "send_turn_notifications", "send_deadline_reminders", "notify_battle_decision"):
        assert OperationalError in getattr(tasks, name).autoretry_for, name


def start_worker(tmp_path, *extra):
    """A real Celery worker on the machine's Redis, with the test database and a file-based
    email backend (an in-memory outbox is not shared between processes)."""
    from config.celery import app

    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    env = {**os.environ, "DATABASE_URL": f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
           "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend", "EMAIL_FILE_PATH": str(tmp_path)}
    app.control.purge()  # nothing left over from an earlier run
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "warning", "--without-heartbeat",
         "--without-gossip", "--without-mingle", *extra],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )


def stop_worker(worker):
    worker.terminate()
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()


def emails_in(path: Path) -> list[str]:
    """The To: addresses of every message the file-based backend wrote."""
    return sorted(line[4:].strip() for f in path.glob("*.log") for line in f.read_text().splitlines()
                  if line.startswith("To: "))


def wait_for(predicate, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.25)
    return predicate()


def _drop_queued_tasks():
    """Empty the broker's queue (the test's own Redis database) of tasks queued so far."""
    from config.celery import app

    app.control.purge()


@pytest.mark.skipif(not REQUIRE_SERVICES, reason="only in the PostgreSQL + Redis CI pass")
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_real_worker_processes_a_queued_turn(alice):
    from tests.eventhorizon.setup_round import finish_setup

    campaign = finish_setup(eh_actions.create_campaign(name="Worker", grid="hex", width=12, height=12, players=2,
                                                    seed="w"))
    _drop_queued_tasks()  # the set-up round's notifications: this test counts turn 1's
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
        assert Turn.objects.filter(campaign=campaign, number=1, status=Turn.Status.DONE).count() == 1
        assert connection.vendor == "postgresql"
    finally:
        stop_worker(worker)


@pytest.mark.skipif(not REQUIRE_SERVICES, reason="only in the PostgreSQL + Redis CI pass")
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_real_worker_processes_a_turn_delivered_ten_times_and_emails_everyone_once(alice, bob, carol, tmp_path):
    assert connection.vendor == "postgresql" and settings.CELERY_BROKER_URL
    campaign = eh_actions.create_campaign(name="Worker mail", grid="hex", width=12, height=12, players=2, seed="wm",
                                       moderator=alice)
    campaign.empires.filter(seat=1).update(user=bob)
    campaign.empires.filter(seat=2).update(user=carol)
    from tests.eventhorizon.setup_round import finish_setup

    finish_setup(campaign)  # the set-up round: each buys a fleet
    _drop_queued_tasks()  # its notifications: this test counts turn 1's
    for empire in campaign.empires.all():
        dock = empire.structures.get(resource="dockyard").number
        eh_actions.submit_orders(empire_id=empire.pk, raw={"purchases": [
            {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": dock}]})
    # Two worker processes (prefork), the turn task queued ten times: one turn, one set of emails.
    worker = start_worker(tmp_path, "--pool", "prefork", "--concurrency", "2")
    try:
        for _ in range(10):
            tasks.process_turn.delay(campaign.pk, 1)
        expected = ["alice@example.com", "bob@example.com", "carol@example.com"]
        assert wait_for(lambda: emails_in(tmp_path) == expected), (emails_in(tmp_path), worker.poll())
        # The reminders and the notification task again, delivered twice more: still one set.
        tasks.send_turn_notifications.delay(campaign.pk, 1)
        tasks.send_turn_notifications.delay(campaign.pk, 1)
        time.sleep(3)
        assert emails_in(tmp_path) == expected
        assert SentNotification.objects.filter(campaign=campaign, turn=1).count() == 3
        assert Campaign.objects.get(pk=campaign.pk).turn == 2
        assert Turn.objects.filter(campaign=campaign, number=1, status=Turn.Status.DONE).count() == 1
        assert Turn.objects.filter(campaign=campaign).count() == 3  # the set-up round, turns 1 and 2
        bob_mail = next(f.read_text() for f in tmp_path.glob("*.log") if "To: bob@example.com" in f.read_text())
        assert "text/html" in bob_mail and "Turn 1 of Worker mail has been processed" in bob_mail
    finally:
        stop_worker(worker)
