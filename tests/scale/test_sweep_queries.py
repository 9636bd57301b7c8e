"""Issue 33: the due sweep costs what is due, not what is open. An idle sweep (nothing due) is
the same handful of queries with 3 or 30 active Event Horizon campaigns and CAM rubbers; a
per-campaign query coming back makes these fail."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from campaign import middleware
from campaign.eventhorizon import actions as eh_actions
from campaign.models import Turn
from tests.cam.conftest import make_cam

IDLE_SWEEP_MAX = 12  # issue 33: "an idle sweep at x100 under 20 queries"


def add_campaigns(n, alice, bob, carol, start):
    """n Event Horizon campaigns (open set-up turn, a deadline a day off, one seat ready) and n
    CAM rubbers, through the public actions."""
    for i in range(start, start + n):
        campaign = eh_actions.create_campaign(name=f"Sector {i}", grid="hex", width=12, height=12, players=2,
                                           seed=f"scale-{i}", moderator=alice)
        campaign.empires.filter(seat=1).update(user=bob)
        campaign.empires.filter(seat=2).update(user=carol)
        Turn.objects.filter(campaign=campaign).update(deadline=timezone.now() + timedelta(days=1))
        eh_actions.submit_orders(empire_id=campaign.empires.get(seat=1).pk, raw={}, ready=True)
        make_cam(alice, bob, carol, seed=f"cam-scale-{i}")


def sweep_queries(fn):
    with CaptureQueriesContext(connection) as queries:
        fn()
    return len(queries.captured_queries)


@pytest.mark.parametrize("sweep", [middleware.sweep, lambda: call_command("processdue", stdout=open("/dev/null", "w"))],
                         ids=["on-request", "processdue"])
def test_an_idle_sweep_costs_the_same_with_3_or_30_campaigns(
    sweep, db, alice, bob, carol, django_capture_on_commit_callbacks
):
    add_campaigns(3, alice, bob, carol, 0)
    with django_capture_on_commit_callbacks() as queued:
        few = sweep_queries(sweep)
    assert queued == []  # nothing was due
    add_campaigns(27, alice, bob, carol, 3)
    with django_capture_on_commit_callbacks() as queued:
        many = sweep_queries(sweep)
    assert queued == []
    assert many == few <= IDLE_SWEEP_MAX


def test_a_sweep_never_reads_a_turn_s_json(db, alice, bob, carol):
    """A due turn is handed to its task by campaign and number: the sweep does not load the turn's
    snapshot, events or summary (a campaign at turn 53 would decode them on every sweep)."""
    add_campaigns(1, alice, bob, carol, 0)
    Turn.objects.update(deadline=timezone.now() - timedelta(seconds=1))
    with CaptureQueriesContext(connection) as captured:
        due = eh_actions.due_turns()
    assert len(due) == 1
    for q in captured.captured_queries:
        assert '"campaign_turn"."snapshot"' not in q["sql"] and '"campaign_turn"."events"' not in q["sql"]


def _ready_campaign(alice, bob, carol):
    campaign = eh_actions.create_campaign(name="Sector R", grid="hex", width=12, height=12, players=2,
                                       seed="scale-ready", moderator=alice)
    campaign.empires.filter(seat=1).update(user=bob)
    campaign.empires.filter(seat=2).update(user=carol)
    Turn.objects.filter(campaign=campaign).update(deadline=timezone.now() + timedelta(days=1))
    return campaign, campaign.empires.get(seat=1), campaign.empires.get(seat=2)


def test_everyone_ready_is_found_from_the_mark_the_ready_actions_keep(db, alice, bob, carol):
    """The sweep finds "everyone ready" from ``Turn.everyone_ready`` (kept by the order and ready
    actions), never by reading every open turn's seats: a turn made ready behind the actions' back
    is not seen, one the actions marked is, and a mark withdrawn since is checked again."""
    campaign, first, second = _ready_campaign(alice, bob, carol)
    eh_actions.submit_orders(empire_id=first.pk, raw={}, ready=True)
    turn = Turn.objects.get(campaign=campaign)
    assert not turn.everyone_ready and eh_actions.due_turns() == []
    from campaign.models import TurnOrders

    # Everyone ready, written straight to the table: the sweep does not read open turns to find it.
    TurnOrders.objects.create(turn=turn, empire=second, orders={}, ready=True)
    assert eh_actions.due_turns() == []
    TurnOrders.objects.filter(turn=turn, empire=second).update(ready=False)
    # Through the action (its turn task waits for the commit, which never comes in this test).
    eh_actions.mark_ready(second.pk, True, turn_number=turn.number)
    turn.refresh_from_db()
    assert turn.everyone_ready and [t.pk for t in eh_actions.due_turns()] == [turn.pk]
    # Withdrawn by a plain revision (no turn lock, the mark stays): checked again, not due.
    eh_actions.submit_orders(empire_id=second.pk, raw={}, ready=False)
    assert eh_actions.due_turns() == []
    eh_actions.mark_ready(second.pk, True, turn_number=turn.number)
    eh_actions.mark_ready(second.pk, False, turn_number=turn.number)  # withdrawn by the ready action
    turn.refresh_from_db()
    assert not turn.everyone_ready


def test_an_idle_sweep_reads_no_table_whole(db, alice, bob, carol):
    """Every SELECT of an idle sweep is answered from an index (SQLite's EXPLAIN QUERY PLAN): no
    "SCAN" of a table, which would read every turn, battle or rubber ever kept. Scans of a partial
    index hold only what is due or noted ready; the groups' webhooks are the site's few hooks."""
    if connection.vendor != "sqlite":
        pytest.skip("reads SQLite's query plans")
    add_campaigns(3, alice, bob, carol, 0)
    from tests.scale.counting import counted

    with counted() as sql, CaptureQueriesContext(connection) as captured:
        middleware.sweep()
    assert sql
    allowed = ("USING INDEX turn_open_everyone_ready", "SCAN groups_webhook ")
    scans = []
    with connection.cursor() as cursor:
        for q in captured.captured_queries:
            if not q["sql"].lstrip().upper().startswith("SELECT"):
                continue
            cursor.execute("EXPLAIN QUERY PLAN " + q["sql"])
            scans += [(row[-1], q["sql"][:120]) for row in cursor.fetchall()
                      if row[-1].startswith("SCAN ") and not any(a in row[-1] for a in allowed)]
    assert scans == []
