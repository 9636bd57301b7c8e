"""Races of issue 14 on PostgreSQL, with real concurrent HTTP requests: threads against the live
test server, each request served by its own server thread on its own database connection.

1. "Process now" names the turn it processes: ten simultaneous requests for turn 1 process one
   turn; the other nine get 409 naming the current turn.
2. Players marking ready at once while the turn task runs never deadlock: every request gets a
   2xx, the ready marks are stored, and the turn is processed once (docs/online-play.md,
   "Locking order").

Skipped on SQLite (it serialises every write, so these races cannot happen there) and required
in the PostgreSQL pass (REQUIRE_SERVICES=1), as tests/eventhorizon/test_concurrency_pg.py.
"""

import json
import threading
import urllib.error
import urllib.request

import pytest
from django.db import connection, transaction

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.actions import roll_back_turn
from campaign.models import AuditEntry, Campaign, Turn, TurnOrders
from tests.eventhorizon.test_concurrency_pg import (  # noqa: F401
    _postgresql_only,
    _tasks_in_process,
    build_orders,
    in_threads,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def post(live_server, key: str, path: str, body: dict) -> tuple[int, dict]:
    """One real HTTP request to the live server, authenticated by an API token's key (made before
    the threads start, so the race is only the requests')."""
    request = urllib.request.Request(
        f"{live_server.url}{path}", data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Token {key}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        content = exc.read()
        try:
            return exc.code, json.loads(content)
        except ValueError:
            return exc.code, {"raw": content[:500].decode(errors="replace")}


def turns(campaign) -> list[tuple[int, str]]:
    """The campaign's turns after its set-up round (turn 0, closed by the fixture)."""
    return list(Turn.objects.filter(campaign=campaign, number__gte=1).order_by("number")
                .values_list("number", "status"))


# --- 1. process now, ten times at once ------------------------------------------------------------


def test_ten_simultaneous_process_now_requests_for_turn_1_process_one_turn(live_server, small_campaign, alice):
    for empire in small_campaign.empires.all():  # standing orders build every turn: nobody is eliminated
        eh_actions.submit_orders(empire_id=empire.pk, raw=build_orders(empire))
    path = f"/api/campaigns/{small_campaign.pk}/process/"
    key = actions.create_api_token(user=alice)[1]
    results = in_threads([lambda: post(live_server, key, path, {"turn": 1})] * 10)
    assert [value for outcome, value in results if outcome == "error"] == []
    statuses = sorted(status for _, (status, _) in results)
    assert statuses == [200] + [409] * 9, [value for _, value in results]
    [done] = [body for _, (status, body) in results if status == 200]
    assert done["processed"] == 1
    for _, (status, body) in results:
        if status == 409:  # each refusal names the turn asked for and the current one
            assert "turn 1" in body["detail"] and "turn 2" in body["detail"], body
    assert Campaign.objects.get(pk=small_campaign.pk).turn == 2
    assert turns(small_campaign) == [(1, Turn.Status.DONE), (2, Turn.Status.OPEN)]
    assert AuditEntry.objects.filter(campaign=small_campaign, action="process_now").count() == 1


# --- 2. ready, 2 players x 5 at once, the turn task running meanwhile -------------------------


@pytest.mark.parametrize("round_", range(3))
def test_two_players_marking_ready_five_times_at_once_never_deadlock(live_server, small_campaign, bob, carol, round_):
    path = f"/api/campaigns/{small_campaign.pk}/ready/"
    for empire in small_campaign.empires.all():  # both build, so nobody is eliminated and turn 2 opens
        eh_actions.submit_orders(empire_id=empire.pk, raw=build_orders(empire))
    # Tasks run in the request that enqueues them (_tasks_in_process): the last player to be ready
    # starts processing turn 1 while the other requests are still marking ready.
    keys = {user.pk: actions.create_api_token(user=user)[1] for user in (bob, carol)}
    calls = [
        lambda k=keys[user.pk]: post(live_server, k, path, {"ready": True, "turn": 1})
        for user in (bob, carol) * 5
    ]
    results = in_threads(calls)
    assert [value for outcome, value in results if outcome == "error"] == []
    answers = [value for _, value in results]
    assert all(200 <= status < 300 for status, _ in answers), answers
    assert all(body["ready"] is True and body["turn"] == 1 for _, body in answers), answers
    # Both ready marks are stored, and turn 1 was processed once: no turn 2 ready marks.
    marks = TurnOrders.objects.filter(turn__campaign=small_campaign, turn__number=1)
    assert sorted(marks.values_list("empire__seat", "ready")) == [(1, True), (2, True)]
    assert turns(small_campaign) == [(1, Turn.Status.DONE), (2, Turn.Status.OPEN)]
    assert not TurnOrders.objects.filter(turn__campaign=small_campaign, turn__number=2).exists()


# --- 2, deterministically: mark_ready against a transaction holding the campaign row ------------


def _waiting_on_a_lock(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return row is not None and row[0] == "Lock"


def test_mark_ready_waits_for_the_campaign_row_before_locking_the_turn(small_campaign):
    """The interleaving that deadlocked: the turn task holds the campaign row (process_turn's
    first lock) while a player's ready mark starts; the task then claims the turn row. With one
    locking order the ready mark waits for the campaign row without holding the turn row, so the
    task goes on, and the ready mark is then refused as late (409), not a deadlock."""
    empire = small_campaign.empires.get(seat=1)
    holding, go_on = threading.Event(), threading.Event()
    ready_pid = {}

    def turn_task():
        with transaction.atomic():
            Campaign.objects.select_for_update().get(pk=small_campaign.pk)  # process_turn's first lock
            holding.set()
            assert go_on.wait(60)
            claimed = Turn.objects.filter(campaign_id=small_campaign.pk, number=1, status=Turn.Status.OPEN).update(
                status=Turn.Status.PROCESSING)  # its second: the turn row
            Turn.objects.filter(campaign_id=small_campaign.pk, number=1).update(status=Turn.Status.DONE)
            Campaign.objects.filter(pk=small_campaign.pk).update(turn=2)
            Turn.objects.create(campaign_id=small_campaign.pk, number=2)
        return claimed

    def ready():
        assert holding.wait(60)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            ready_pid["pid"] = cursor.fetchone()[0]
        try:
            return eh_actions.mark_ready(empire.pk, True, turn_number=1).ready
        except actions.TurnClosed as exc:
            return f"refused: {exc}"

    def release_when_ready_waits():
        assert holding.wait(60)
        for _ in range(600):
            if "pid" in ready_pid and _waiting_on_a_lock(ready_pid["pid"]):
                break
            threading.Event().wait(0.05)
        else:
            go_on.set()
            raise AssertionError("the ready mark never waited for a lock")
        go_on.set()
        return True

    results = in_threads([turn_task, ready, release_when_ready_waits])
    assert [value for outcome, value in results if outcome == "error"] == []
    assert results[0][1] == 1  # the task claimed the turn
    assert results[1][1] == ("refused: cannot mark ready for turn 1: it has been processed already; "
                             "the current turn is turn 2 (taking orders)")
    assert not TurnOrders.objects.filter(empire=empire, turn__number__gte=1).exists()


# --- every locking query locks one table ------------------------------------------------------


def test_no_locking_query_joins_another_table(small_campaign, alice, bob):
    """Locking order (campaign/locks.py): a SELECT … FOR UPDATE with a join locks the joined
    row too (Turn orders by "campaign": the campaign row, out of order). Every locking query of
    the turn flow either reads one table or names it (FOR UPDATE OF)."""
    from django.test.utils import CaptureQueriesContext

    from tactical.battles.actions import set_battle_preference

    seat1 = small_campaign.empires.get(seat=1)
    with CaptureQueriesContext(connection) as queries:
        eh_actions.submit_orders(empire_id=seat1.pk, raw=build_orders(seat1))
        eh_actions.submit_orders(empire_id=seat1.pk, raw={}, ready=True)
        eh_actions.mark_ready(seat1.pk, False, turn_number=1)
        actions.pause_campaign(campaign_id=small_campaign.pk, user=alice)
        actions.extend_deadline(campaign_id=small_campaign.pk, user=alice, hours=2)
        actions.resume_campaign(campaign_id=small_campaign.pk, user=alice)
        small_campaign.empires.filter(seat=2).update(is_bot=True, auto_bot=True)
        eh_actions.take_back_seat(small_campaign.empires.get(seat=2).pk)
        set_battle_preference(empire_id=seat1.pk, user=bob, preference=seat1.battle_preference)
        actions.process_now(campaign_id=small_campaign.pk, user=alice, turn_number=1)
        roll_back_turn(campaign_id=small_campaign.pk, user=alice, turn_number=1)
        actions.substitute_player(campaign_id=small_campaign.pk, user=alice, seat=2, username="")
    locking = [q["sql"] for q in queries.captured_queries if "FOR UPDATE" in q["sql"]]
    assert len(locking) >= 10
    joined = [sql for sql in locking if " JOIN " in sql and "FOR UPDATE OF" not in sql]
    assert joined == []
