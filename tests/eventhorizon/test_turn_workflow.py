"""Ready, deadlines, missed turns and processing on the next request (RULINGS "Simultaneous
orders", "Missed deadline (NMR)"; docs/online-play.md "Turn workflow")."""

from datetime import timedelta

import pytest
from django.core import mail
from django.core.cache import cache
from django.utils import timezone

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.middleware import CACHE_KEY
from campaign.models import Empire, Turn, TurnOrders

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]


def seat(campaign, n) -> Empire:
    return campaign.empires.get(seat=n)


def process(campaign):
    eh_actions.process_turn(campaign_id=campaign.pk)
    campaign.refresh_from_db()


@pytest.fixture
def started(small_campaign):
    """Turn 1 processed with both players' orders (each built a corvette, so nobody is
    eliminated for having no ships: 003 Purpose of the Campaign); turn 2 is open."""
    for empire in small_campaign.empires.all():
        dock = empire.structures.get(resource="dockyard").number
        eh_actions.submit_orders(empire_id=empire.pk, raw={"purchases": [
            {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": dock}]})
    process(small_campaign)
    assert small_campaign.turn == 2 and not small_campaign.empires.filter(missed_turns__gt=0).exists()
    return small_campaign


# --- ready ------------------------------------------------------------------------------------

def test_the_last_player_ready_processes_the_turn_at_once(small_campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        eh_actions.mark_ready(seat(small_campaign, 1).pk, True)
    assert callbacks == []  # carol is not ready yet
    small_campaign.refresh_from_db()
    assert small_campaign.turn == 1
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        eh_actions.mark_ready(seat(small_campaign, 2).pk, True)
    assert callbacks  # enqueued on commit; eager mode runs it then
    small_campaign.refresh_from_db()
    assert small_campaign.turn == 2
    assert Turn.objects.get(campaign=small_campaign, number=1).status == Turn.Status.DONE


def test_saving_orders_as_ready_counts_too(small_campaign, django_capture_on_commit_callbacks):
    eh_actions.mark_ready(seat(small_campaign, 2).pk, True)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        eh_actions.submit_orders(empire_id=seat(small_campaign, 1).pk, raw={}, ready=True)
    assert callbacks
    small_campaign.refresh_from_db()
    assert small_campaign.turn == 2


def test_bots_do_not_wait_for_ready(small_campaign, django_capture_on_commit_callbacks):
    seat(small_campaign, 2).__class__.objects.filter(pk=seat(small_campaign, 2).pk).update(is_bot=True)
    with django_capture_on_commit_callbacks(execute=True):
        eh_actions.mark_ready(seat(small_campaign, 1).pk, True)
    small_campaign.refresh_from_db()
    assert small_campaign.turn == 2
    # The computer wrote its orders when the turn was processed.
    assert TurnOrders.objects.filter(empire__seat=2, turn__number=1, ready=True).exists()


def test_a_paused_campaign_waits_even_when_everyone_is_ready(small_campaign, django_capture_on_commit_callbacks):
    small_campaign.__class__.objects.filter(pk=small_campaign.pk).update(paused=True)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        eh_actions.mark_ready(seat(small_campaign, 1).pk, True)
        eh_actions.mark_ready(seat(small_campaign, 2).pk, True)
    assert callbacks == []


def test_un_ready_is_allowed_until_processing(small_campaign):
    empire = seat(small_campaign, 1)
    eh_actions.submit_orders(empire_id=empire.pk, raw={"standing": {"loss_order": "costliest"}})
    row = eh_actions.mark_ready(empire.pk, True)
    assert row.ready and row.orders == {"standing": {"loss_order": "costliest"}}  # the orders stay
    assert not eh_actions.mark_ready(empire.pk, False).ready
    Turn.objects.filter(campaign=small_campaign).update(status=Turn.Status.PROCESSING)
    with pytest.raises(actions.TurnClosed):
        eh_actions.mark_ready(empire.pk, True)


def test_not_ready_without_orders_stores_nothing(small_campaign):
    # Storing a row would count as orders sent (docs/rulings.md TW2).
    row = eh_actions.mark_ready(seat(small_campaign, 1).pk, False)
    assert not row.ready and row.pk is None
    assert not TurnOrders.objects.filter(turn__number__gt=0).exists()  # set-up orders (turn 0) aside


def test_a_computer_seat_cannot_mark_ready(small_campaign):
    Empire.objects.filter(pk=seat(small_campaign, 1).pk).update(is_bot=True, auto_bot=True)
    with pytest.raises(actions.ActionError, match="take it back"):
        eh_actions.mark_ready(seat(small_campaign, 1).pk, True)
    assert not TurnOrders.objects.filter(turn__number__gt=0).exists()  # set-up orders (turn 0) aside


# --- deadlines --------------------------------------------------------------------------------

def test_each_new_turn_gets_a_deadline_turn_hours_ahead(started):
    started.__class__.objects.filter(pk=started.pk).update(turn_hours=24)
    before = timezone.now()
    process(started)
    deadline = Turn.objects.get(campaign=started, number=3).deadline
    assert before + timedelta(hours=24) <= deadline <= timezone.now() + timedelta(hours=24)


def test_no_deadline_when_turn_hours_is_zero(started):
    assert Turn.objects.get(campaign=started, number=2).deadline is not None  # 72 hours by default
    started.__class__.objects.filter(pk=started.pk).update(turn_hours=0)
    process(started)
    assert Turn.objects.get(campaign=started, number=3).deadline is None


# --- missed turns -----------------------------------------------------------------------------

def test_missed_turns_count_and_orders_reset_the_count(started):  # RULINGS "Missed deadline (NMR)"
    eh_actions.submit_orders(empire_id=seat(started, 1).pk, raw={})
    process(started)
    assert (seat(started, 1).missed_turns, seat(started, 2).missed_turns) == (0, 1)
    process(started)
    assert (seat(started, 1).missed_turns, seat(started, 2).missed_turns) == (1, 2)
    eh_actions.submit_orders(empire_id=seat(started, 2).pk, raw={})
    process(started)
    assert (seat(started, 1).missed_turns, seat(started, 2).missed_turns) == (2, 0)


def test_after_the_limit_the_computer_plays_the_seat_and_the_player_is_told(
        started, carol, django_capture_on_commit_callbacks):
    started.__class__.objects.filter(pk=started.pk).update(missed_turn_limit=2)
    for _ in range(2):
        eh_actions.submit_orders(empire_id=seat(started, 1).pk, raw={})
        with django_capture_on_commit_callbacks(execute=True):
            process(started)
    carols = seat(started, 2)
    assert carols.is_bot and carols.auto_bot and carols.missed_turns == 2
    assert not seat(started, 1).is_bot
    assert [m.to for m in mail.outbox if "computer now plays" in m.subject] == [[carol.email]]
    # From now on the computer writes the seat's orders when the turn is processed.
    eh_actions.submit_orders(empire_id=seat(started, 1).pk, raw={})
    process(started)
    bot_row = TurnOrders.objects.get(empire=carols, turn__number=4)
    assert bot_row.ready
    assert seat(started, 2).missed_turns == 2  # a computer seat is not counted


def test_a_limit_of_zero_never_hands_a_seat_to_the_computer(started):
    started.__class__.objects.filter(pk=started.pk).update(missed_turn_limit=0)
    for _ in range(4):
        process(started)
    assert not started.empires.filter(is_bot=True).exists()
    assert seat(started, 1).missed_turns == 4 and seat(started, 2).missed_turns == 4


def test_taking_the_seat_back(small_campaign):
    carols = seat(small_campaign, 2)
    Empire.objects.filter(pk=carols.pk).update(is_bot=True, auto_bot=True, missed_turns=3)
    eh_actions.write_bot_orders(campaign_id=small_campaign.pk)  # the computer had written this turn's orders
    empire = eh_actions.take_back_seat(carols.pk)
    assert (empire.is_bot, empire.auto_bot, empire.missed_turns) == (False, False, 0)
    row = TurnOrders.objects.get(empire=carols, turn__number=1)
    assert not row.ready  # a draft for the player, not a decision
    with pytest.raises(actions.ActionError, match="not being played by the computer"):
        eh_actions.take_back_seat(carols.pk)


def test_taking_the_seat_back_withdraws_the_turns_everyone_ready_mark(small_campaign):
    """Bob ready with Carol's seat on the computer: the turn is noted everyone-ready. Carol taking
    her seat back makes a human seat that is not ready, so the mark must go (the due sweep reads
    it; a stale one names a turn that is not due)."""
    carols = seat(small_campaign, 2)
    Empire.objects.filter(pk=carols.pk).update(is_bot=True, auto_bot=True, missed_turns=3)
    eh_actions.mark_ready(seat(small_campaign, 1).pk, True, turn_number=1)  # its task waits for a commit
    turn = Turn.objects.get(campaign=small_campaign, number=1)
    assert turn.everyone_ready
    eh_actions.take_back_seat(carols.pk)
    turn.refresh_from_db()
    assert turn.status == Turn.Status.OPEN and not turn.everyone_ready
    assert eh_actions.due_turns() == []


def test_a_seat_the_moderator_gave_the_computer_cannot_be_taken_back(small_campaign):
    Empire.objects.filter(pk=seat(small_campaign, 2).pk).update(is_bot=True, auto_bot=False)
    with pytest.raises(actions.ActionError):
        eh_actions.take_back_seat(seat(small_campaign, 2).pk)
    assert seat(small_campaign, 2).is_bot


# --- processing on the next request -----------------------------------------------------------

def test_a_request_processes_a_past_deadline_turn_without_a_broker(
        small_campaign, client, settings, django_capture_on_commit_callbacks):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    cache.delete(CACHE_KEY)
    Turn.objects.filter(campaign=small_campaign).update(deadline=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert client.get("/healthz").status_code == 200
    assert callbacks
    small_campaign.refresh_from_db()
    assert small_campaign.turn == 2
    # At most once per interval: the next past-deadline turn waits for the next sweep.
    Turn.objects.filter(campaign=small_campaign, number=2).update(deadline=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        client.get("/healthz")
    assert callbacks == []
    cache.delete(CACHE_KEY)


def test_with_a_broker_requests_leave_due_turns_to_beat(small_campaign, client, settings,
                                                       django_capture_on_commit_callbacks):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    cache.delete(CACHE_KEY)
    Turn.objects.filter(campaign=small_campaign).update(deadline=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        client.get("/healthz")
    assert callbacks == []
    small_campaign.refresh_from_db()
    assert small_campaign.turn == 1


def test_a_failing_turn_does_not_break_the_request(small_campaign, client, settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    cache.delete(CACHE_KEY)

    def boom(now=None):
        raise RuntimeError("broken turn")

    monkeypatch.setattr(actions, "enqueue_due_steps", boom)
    assert client.get("/healthz").status_code == 200
    cache.delete(CACHE_KEY)


def test_each_server_process_asks_the_shared_cache_at_most_once_per_interval(settings, monkeypatch, db):
    from django.http import HttpResponse
    from django.test import RequestFactory

    from campaign import middleware

    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 30
    sweeps, now = [], [1000.0]
    monkeypatch.setattr(actions, "enqueue_due_steps", lambda: sweeps.append(now[0]))
    monkeypatch.setattr(middleware.time, "monotonic", lambda: now[0])
    added = []
    real_add = cache.add
    monkeypatch.setattr(middleware.cache, "add", lambda *a, **k: added.append(a[0]) or real_add(*a, **k))
    handler = middleware.ProcessDueTurnsMiddleware(lambda request: HttpResponse("ok"))
    request = RequestFactory().get("/")
    cache.delete(CACHE_KEY)
    handler(request).close()
    assert sweeps == [1000.0] and len(added) == 1
    cache.delete(CACHE_KEY)  # another process's sweep window ended, but this process waits its turn
    now[0] += 10
    handler(request).close()
    handler(request).close()
    assert sweeps == [1000.0] and len(added) == 1  # no cache round trip at all
    now[0] += 21
    handler(request).close()
    assert sweeps == [1000.0, 1031.0] and len(added) == 2
    cache.delete(CACHE_KEY)


def test_the_sweep_on_a_request_runs_after_the_response_not_before_it(settings, monkeypatch, db):
    """Issue 33: the embedded default never makes a visitor pay for the sweep. The page is
    built and handed back first; the sweep runs when the server closes the response."""
    from django.http import HttpResponse
    from django.test import RequestFactory

    from campaign import middleware

    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 30
    order = []
    monkeypatch.setattr(actions, "enqueue_due_steps", lambda: order.append("sweep"))
    handler = middleware.ProcessDueTurnsMiddleware(lambda request: order.append("page") or HttpResponse("ok"))
    cache.delete(CACHE_KEY)
    response = handler(RequestFactory().get("/"))
    assert order == ["page"]  # the visitor has his page and the sweep has not run
    response.close()  # what the server does once the response is sent
    assert order == ["page", "sweep"]
    cache.delete(CACHE_KEY)
