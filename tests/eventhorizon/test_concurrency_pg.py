"""Races on PostgreSQL, with real threads each on its own database connection: concurrent order
submissions lose no update, a turn task delivered ten times at once processes one turn and sends
one set of emails, and orders arriving while a turn is processed are in it or refused (409).

SQLite serialises every write to the whole database file, so these races cannot happen there:
the tests are skipped on SQLite and required in the PostgreSQL pass (REQUIRE_SERVICES=1).
"""

import threading
import time

import pytest
from django.core import mail
from django.db import connection, connections
from rest_framework.test import APIClient

from campaign import actions, tasks
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.actions import turns as turn_actions
from campaign.models import Campaign, SentNotification, Turn, TurnOrders
from campaign.rules.eventhorizon import turn as turn_engine
from campaign.rules.eventhorizon.orders import parse_orders
from tests.conftest import REQUIRE_SERVICES

# serialized_rollback: the starter design library (a data migration) survives the flushes.
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

CORVETTE = "Cyber-Corsair Galiot Class Corvette"


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        if REQUIRE_SERVICES:
            pytest.fail(f"REQUIRE_SERVICES=1 but the database is {connection.vendor}: set DATABASE_URL=postgres://…")
        pytest.skip("needs PostgreSQL (row locks between real connections); SQLite serialises all writes. "
                    "Run with DATABASE_URL=postgres://… (the CI's second pass does)")


@pytest.fixture(autouse=True)
def _tasks_in_process():
    """Run tasks in the calling thread even when a broker is configured: the test counts the
    emails its own threads send."""
    from config.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def in_threads(functions, timeout=120):
    """Run each function in its own thread, all released at once; returns ("ok", value) or
    ("error", exception) for each. Every thread closes its database connection."""
    barrier = threading.Barrier(len(functions))
    results = [None] * len(functions)

    def run(i, function):
        try:
            barrier.wait(timeout=30)
            results[i] = ("ok", function())
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            results[i] = ("error", exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, f), daemon=True) for i, f in enumerate(functions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(t.is_alive() for t in threads), "a thread hung (a lock never released?)"
    return results


def build_orders(empire) -> dict:
    dock = empire.structures.get(resource="dockyard").number
    return {"purchases": [{"build": CORVETTE, "dockyard": dock}]}


# --- 50 concurrent submissions ----------------------------------------------------------------


def test_fifty_concurrent_submissions_lose_no_update(small_campaign, bob):
    empire = small_campaign.empires.get(seat=1)
    eh_actions.submit_orders(empire_id=empire.pk, raw={})  # revision 1
    # Fifty different order sets: each names a different hex in a standing invasion order.
    variants = [{"standing": {"invasion": [{"hex": [i % 12, i // 12], "response": "retreat"}]}} for i in range(50)]

    def by_action(raw):
        row, _ = eh_actions.submit_orders(empire_id=empire.pk, raw=raw)
        return row.revision, raw

    def by_api(raw):
        client = APIClient()
        client.force_authenticate(bob)
        response = client.put(f"/api/campaigns/{small_campaign.pk}/orders/", {"orders": raw}, format="json")
        assert response.status_code == 200, (response.status_code, response.content[:300])
        return response.json()["revision"], raw

    functions = [
        (lambda r=raw: by_api(r)) if i % 3 == 0 else (lambda r=raw: by_action(r))
        for i, raw in enumerate(variants)
    ]
    results = in_threads(functions)
    errors = [value for outcome, value in results if outcome == "error"]
    assert errors == []
    successes = [value for _, value in results]
    revisions = sorted(revision for revision, _ in successes)
    # Each submission was applied on top of the one before: revisions 2..51, none lost or doubled.
    assert revisions == list(range(2, 52))
    row = TurnOrders.objects.get(turn__campaign=small_campaign, turn__number=1, empire=empire)
    assert row.revision == 1 + len(successes) == 51
    latest = max(successes, key=lambda s: s[0])
    assert row.orders == latest[1]
    assert sum(1 for i in range(50) if i % 3 == 0) == 17  # some went through the API


# --- a turn task delivered ten times at once -------------------------------------------------


def test_a_turn_task_triggered_ten_times_at_once_processes_one_turn_and_sends_one_set_of_emails(small_campaign):
    mail.outbox.clear()  # the set-up round's emails (the fixture closed it)
    for empire in small_campaign.empires.all():  # both build, so nobody is eliminated
        eh_actions.submit_orders(empire_id=empire.pk, raw=build_orders(empire))
    results = in_threads([lambda: tasks.process_turn.apply(args=(small_campaign.pk, 1)).result] * 10)
    assert [value for outcome, value in results if outcome == "error"] == []
    assert sorted(value for _, value in results) == [False] * 9 + [True]
    assert Campaign.objects.get(pk=small_campaign.pk).turn == 2
    assert list(Turn.objects.filter(campaign=small_campaign).values_list("number", "status")) == [
        (0, Turn.Status.DONE), (1, Turn.Status.DONE), (2, Turn.Status.OPEN)]
    # One email per recipient: the moderator and both players.
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.com", "bob@example.com", "carol@example.com"]
    assert SentNotification.objects.filter(campaign=small_campaign, turn=1).count() == 3


def test_the_turn_email_task_delivered_ten_times_at_once_sends_one_set(small_campaign, monkeypatch):
    monkeypatch.setattr(turn_actions, "enqueue_turn_notifications", lambda *args: None)  # process without emails
    mail.outbox.clear()  # the set-up round's emails (the fixture closed it)
    for empire in small_campaign.empires.all():
        eh_actions.submit_orders(empire_id=empire.pk, raw=build_orders(empire))
    assert eh_actions.process_turn(campaign_id=small_campaign.pk) is not None
    assert mail.outbox == []
    results = in_threads([lambda: tasks.send_turn_notifications.apply(args=(small_campaign.pk, 1)).result] * 10)
    assert [value for outcome, value in results if outcome == "error"] == []
    assert sorted(value for _, value in results) == [0] * 9 + [3]
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.com", "bob@example.com", "carol@example.com"]
    assert SentNotification.objects.filter(campaign=small_campaign, turn=1).count() == 3


# --- orders while the turn is processed -------------------------------------------------------


def test_orders_submitted_while_the_turn_processes_are_refused_with_409(small_campaign, bob, carol, monkeypatch):
    bob_empire, carol_empire = small_campaign.empires.get(seat=1), small_campaign.empires.get(seat=2)
    before, carols = build_orders(bob_empire), build_orders(carol_empire)
    eh_actions.submit_orders(empire_id=bob_empire.pk, raw=before)  # stored before the claim
    processing, release = threading.Event(), threading.Event()
    seen = {}
    real = turn_engine.resolve_turn

    def held_open(state, orders, dice, names, **kwargs):
        seen.update(orders)
        processing.set()
        assert release.wait(60)
        return real(state, orders, dice, names, **kwargs)

    monkeypatch.setattr(turn_engine, "resolve_turn", held_open)
    outcome = {}

    def process():
        try:
            outcome["turn"] = eh_actions.process_turn(campaign_id=small_campaign.pk)
        finally:
            connections.close_all()

    def submit_by_action():
        try:
            eh_actions.submit_orders(empire_id=carol_empire.pk, raw=carols)
            outcome["action"] = "stored"
        except actions.TurnClosed as exc:
            outcome["action"] = f"refused: {exc}"
        finally:
            outcome["action_at"] = time.monotonic()
            connections.close_all()

    def submit_by_api():
        try:
            client = APIClient()
            client.force_authenticate(bob)
            response = client.put(f"/api/campaigns/{small_campaign.pk}/orders/", {"orders": {}}, format="json")
            outcome["api"] = response.status_code
        finally:
            outcome["api_at"] = time.monotonic()
            connections.close_all()

    processor = threading.Thread(target=process, daemon=True)
    processor.start()
    assert processing.wait(60), "processing never reached the turn engine"
    submitters = [threading.Thread(target=f, daemon=True) for f in (submit_by_action, submit_by_api)]
    for thread in submitters:
        thread.start()
    time.sleep(1.5)
    released_at = time.monotonic()
    release.set()
    for thread in [processor, *submitters]:
        thread.join(60)
        assert not thread.is_alive()
    assert outcome["turn"] is not None and outcome["turn"].number == 1
    # Both submissions were refused (HTTP 409): they waited on the claimed turn's row lock (or
    # saw it was no longer open), never slipping in beside the processing.
    assert outcome["action"].startswith("refused: turn 1 is not taking orders")
    assert outcome["api"] == 409
    waited = outcome["action_at"] >= released_at and outcome["api_at"] >= released_at
    assert waited  # today's submit_orders blocks on the turn row until processing commits
    # The orders stored before the claim are the ones processed, and nothing changed them since.
    assert seen.get(1) == parse_orders(before)
    assert seen.get(2) != parse_orders(carols)
    turn1 = TurnOrders.objects.filter(turn__campaign=small_campaign, turn__number=1)
    assert list(turn1.values_list("empire__seat", "orders", "revision")) == [(1, before, 1)]
    assert not TurnOrders.objects.filter(turn__campaign=small_campaign, turn__number=2).exists()
    spending = [e for e in Turn.objects.get(campaign=small_campaign, number=1).events if e["step"] == "spending"]
    assert any(1 in e["seats"] for e in spending) and not any(2 in e["seats"] for e in spending)


@pytest.mark.parametrize("round_", range(3))
def test_an_order_racing_the_claim_is_either_processed_or_refused(small_campaign, bob, monkeypatch, round_):
    empire = small_campaign.empires.get(seat=1)
    seen = {}
    real = turn_engine.resolve_turn

    def recording(state, orders, dice, names, **kwargs):
        seen.update(orders)
        return real(state, orders, dice, names, **kwargs)

    monkeypatch.setattr(turn_engine, "resolve_turn", recording)
    raw = build_orders(empire)

    def submit():
        client = APIClient()
        client.force_authenticate(bob)
        response = client.put(f"/api/campaigns/{small_campaign.pk}/orders/", {"orders": raw}, format="json")
        return response.status_code, response.content[:2000]

    results = in_threads([submit, lambda: eh_actions.process_turn(campaign_id=small_campaign.pk)])
    assert [value for outcome, value in results if outcome == "error"] == []
    status, content = results[0][1]
    assert status in (200, 409), content
    if status == 200:  # stored before the claim: it is in the processed turn
        assert seen.get(1) == parse_orders(raw)
    else:  # refused: the turn ran without it
        assert 1 not in seen or seen[1] != parse_orders(raw)
        assert not TurnOrders.objects.filter(empire=empire, turn__number=1).exists()
