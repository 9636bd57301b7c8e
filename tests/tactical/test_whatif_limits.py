"""What-if runs cannot exhaust the server (issue 14, item 4): per-user limits on runs at once and
battles a day (WHATIF_RUNS_AT_ONCE, WHATIF_BATTLES_PER_DAY), refused with a message naming the
limit (API 429, form error); and a run is never played by two runners at once — a restart of a
run still heartbeating is refused, and a runner claims a run with one conditional UPDATE."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from campaign.eventhorizon.models import Design
from tactical.models import WhatIfRun
from tactical.rules.eventhorizon import trials as eh_trials  # the battle a run fights
from tactical.whatif import runs as whatif

pytestmark = pytest.mark.django_db


def request(trials=4, seed="limits"):
    corvette = Design.objects.filter(campaign__isnull=True, ship_type="corvette").first()
    destroyer = Design.objects.filter(campaign__isnull=True, ship_type="destroyer").first()
    return {"trials": trials, "seed": seed, "a": {"ships": [{"design": corvette.pk, "count": 1}]},
            "b": {"ships": [{"design": destroyer.pk, "count": 1}]}}


@pytest.fixture
def limits(settings):
    settings.WHATIF_RUNS_AT_ONCE = 2
    settings.WHATIF_BATTLES_PER_DAY = 100
    return settings


# --- limits ---------------------------------------------------------------------------------------


def test_runs_at_once_are_limited_per_user(limits, bob, carol):
    first = whatif.start_what_if(user=bob, params=request())
    whatif.start_what_if(user=bob, params=request())
    with pytest.raises(whatif.WhatIfLimitError, match=r"you have 2 what-if runs queued or running, and the limit "
                                                      r"is 2 at once \(WHATIF_RUNS_AT_ONCE\)"):
        whatif.start_what_if(user=bob, params=request())
    assert WhatIfRun.objects.filter(user=bob).count() == 2
    whatif.start_what_if(user=carol, params=request())  # another user has limits of their own
    WhatIfRun.objects.filter(pk=first.pk).update(status=WhatIfRun.Status.DONE)
    whatif.start_what_if(user=bob, params=request())  # one finished: room again


def test_battles_a_day_are_limited_per_user(limits, bob):
    limits.WHATIF_RUNS_AT_ONCE = 0  # no limit on runs at once here
    early = whatif.start_what_if(user=bob, params=request(trials=60))
    with pytest.raises(whatif.WhatIfLimitError) as caught:
        whatif.start_what_if(user=bob, params=request(trials=50))
    assert ("this run asks for 50 battles and you have started 60 in the last 24 hours; the limit is 100 battles "
            "a day (WHATIF_BATTLES_PER_DAY), so 40 are left") in str(caught.value)
    whatif.start_what_if(user=bob, params=request(trials=40))
    with pytest.raises(whatif.WhatIfLimitError):
        whatif.start_what_if(user=bob, params=request(trials=1))
    # A failed run counted too; a run started more than 24 hours ago no longer does.
    WhatIfRun.objects.filter(pk=early.pk).update(created_at=timezone.now() - timedelta(hours=25))
    whatif.start_what_if(user=bob, params=request(trials=60))
    assert WhatIfRun.objects.filter(user=bob).count() == 3


def test_zero_means_no_limit(settings, bob):
    settings.WHATIF_RUNS_AT_ONCE = 0
    settings.WHATIF_BATTLES_PER_DAY = 0
    for _ in range(4):
        whatif.start_what_if(user=bob, params=request(trials=2000))
    assert WhatIfRun.objects.filter(user=bob).count() == 4


def test_the_defaults_are_set(settings):
    from config import settings as config

    assert (config.WHATIF_RUNS_AT_ONCE, config.WHATIF_BATTLES_PER_DAY) == (2, 5000)


def test_the_api_answers_429_naming_the_limit(limits, client, bob):
    client.force_login(bob)
    for _ in range(2):
        assert client.post("/api/what-if/", request(), content_type="application/json").status_code == 201
    response = client.post("/api/what-if/", request(), content_type="application/json")
    assert response.status_code == 429
    assert "the limit is 2 at once (WHATIF_RUNS_AT_ONCE)" in response.json()["detail"]
    assert WhatIfRun.objects.count() == 2


def test_the_form_shows_the_limit_as_an_error(limits, client, bob):
    limits.WHATIF_RUNS_AT_ONCE = 0
    client.force_login(bob)
    page = client.get("/what-if/new/").content.decode()
    assert 'id="whatif-limits"' in page and "100 battles in any 24 hours" in page
    design = request()["a"]["ships"][0]["design"]
    form = {"trials": "101", "a_design_1": str(design), "a_count_1": "1", "b_design_1": str(design), "b_count_1": "1"}
    response = client.post("/what-if/new/", form)
    assert response.status_code == 400
    assert "the limit is 100 battles a day (WHATIF_BATTLES_PER_DAY)" in response.content.decode()
    assert WhatIfRun.objects.count() == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_simultaneous_starts_cannot_pass_the_limit_together(limits, bob):
    """Five starts at once with room for two: the user's row lock lets exactly two through.
    PostgreSQL only (real row locks between connections; SQLite's test database is one shared
    in-memory file that serialises every write anyway)."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: run with DATABASE_URL=postgres://…")
    limits.WHATIF_RUNS_AT_ONCE = 2
    params = request()
    barrier = threading.Barrier(5)
    outcomes = []

    def start():
        try:
            barrier.wait(10)
            whatif.start_what_if(user=bob, params=params)
            outcomes.append("ok")
        except whatif.WhatIfLimitError:
            outcomes.append("limit")
        finally:
            connection.close()

    import unittest.mock

    with unittest.mock.patch.object(whatif, "_enqueue", lambda run_id: None):
        threads = [threading.Thread(target=start) for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    assert sorted(outcomes) == ["limit"] * 3 + ["ok"] * 2
    assert WhatIfRun.objects.filter(user=bob).count() == 2


# --- one runner per run ---------------------------------------------------------------------------


def _running(run, *, seconds_ago: float, claim="other-runner"):
    WhatIfRun.objects.filter(pk=run.pk).update(status=WhatIfRun.Status.RUNNING, claim=claim, done=3,
                                               heartbeat_at=timezone.now() - timedelta(seconds=seconds_ago))


def test_a_restart_of_a_run_still_heartbeating_is_refused(bob, client, django_capture_on_commit_callbacks):
    run = whatif.start_what_if(user=bob, params=request())
    _running(run, seconds_ago=5)
    with django_capture_on_commit_callbacks() as callbacks:
        with pytest.raises(whatif.WhatIfError, match=r"still running \(its last sign of life was 5 s ago\): a "
                                                     r"restart would only play it twice"):
            whatif.restart_what_if(user=bob, run_id=run.pk)
    assert callbacks == []  # nothing queued
    client.force_login(bob)
    with django_capture_on_commit_callbacks() as callbacks:
        page = client.post(f"/what-if/{run.pk}/restart/", follow=True).content.decode()
    assert "a restart would only play it twice" in page and callbacks == []
    run.refresh_from_db()
    assert (run.status, run.claim, run.done) == (WhatIfRun.Status.RUNNING, "other-runner", 3)


def test_a_just_queued_run_is_not_restarted(bob, django_capture_on_commit_callbacks):
    run = whatif.start_what_if(user=bob, params=request())
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(whatif.WhatIfError, match="still queued"):
        whatif.restart_what_if(user=bob, run_id=run.pk)
    assert callbacks == []


def test_a_stale_run_restarts_once_even_if_asked_twice(bob, django_capture_on_commit_callbacks):
    run = whatif.start_what_if(user=bob, params=request())
    _running(run, seconds_ago=whatif.STALE_SECONDS + 30)
    with django_capture_on_commit_callbacks() as callbacks:
        whatif.restart_what_if(user=bob, run_id=run.pk)
    assert len(callbacks) == 1
    run.refresh_from_db()
    assert (run.status, run.claim, run.done) == (WhatIfRun.Status.QUEUED, "", 0)
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(whatif.WhatIfError, match="still queued"):
        whatif.restart_what_if(user=bob, run_id=run.pk)  # the second click
    assert callbacks == []


def test_a_runner_does_not_play_a_run_another_is_playing(bob, monkeypatch):
    run = whatif.start_what_if(user=bob, params=request())
    _running(run, seconds_ago=5)
    monkeypatch.setattr(whatif, "play_trials", lambda *a, **k: pytest.fail("a second runner played the run"))
    got = whatif.run_what_if(run.pk)
    assert (got.status, got.claim, got.done) == (WhatIfRun.Status.RUNNING, "other-runner", 3)


def test_a_runner_takes_over_a_run_whose_runner_died(bob):
    run = whatif.start_what_if(user=bob, params=request())
    _running(run, seconds_ago=whatif.STALE_SECONDS + 1)
    got = whatif.run_what_if(run.pk)
    assert got.status == WhatIfRun.Status.DONE and got.done == 4 and got.claim not in ("", "other-runner")


def test_a_runner_whose_claim_was_taken_over_stops_without_writing(bob, monkeypatch):
    run = whatif.start_what_if(user=bob, params=request(trials=30))
    real = whatif.play_trial
    played = []

    def trial(fleets, seed, index):
        played.append(index)
        if index == 12:  # meanwhile it was taken for dead and claimed by another runner
            WhatIfRun.objects.filter(pk=run.pk).update(claim="newer-runner", done=0)
        return real(fleets, seed, index)

    monkeypatch.setattr(eh_trials, "play_trial", trial)
    got = whatif.run_what_if(run.pk, clock=lambda: 0.0)
    assert (got.status, got.claim, got.done, got.result) == (WhatIfRun.Status.RUNNING, "newer-runner", 0, None)
    assert max(played) < 29  # it stopped at its next progress write


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_restarts_of_a_run_playing_in_a_thread_add_no_runner(settings, client, bob):
    """The issue's attack: restart a running run again and again. Without a broker the run plays
    in a thread of the server; five restarts while it plays start nothing more."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.WHATIF_IN_BACKGROUND = True
    client.force_login(bob)
    gate, started = threading.Event(), threading.Event()
    runners = []
    real = whatif.play_trials

    def held(sides, seed, trials, progress, processes=None):
        runners.append(threading.current_thread().name)
        progress(1)
        started.set()
        gate.wait(30)
        return real(sides, seed, trials, progress, processes=1)

    import unittest.mock

    with unittest.mock.patch.object(whatif, "play_trials", held):
        response = client.post("/api/what-if/", request(trials=3), content_type="application/json")
        assert response.status_code == 201
        run_id = response.json()["id"]
        assert started.wait(30)
        for _ in range(5):
            page = client.post(f"/what-if/{run_id}/restart/", follow=True).content.decode()
            assert "a restart would only play it twice" in page
        gate.set()
        for thread in [t for t in threading.enumerate() if t.name == f"what-if-{run_id}"]:
            thread.join(60)
    run = WhatIfRun.objects.get(pk=run_id)
    assert run.status == WhatIfRun.Status.DONE and len(runners) == 1


def test_the_task_looks_again_later_when_a_live_runner_holds_the_run(bob, monkeypatch):
    """A redelivery after a worker died a moment ago finds the heartbeat fresh: it does not play
    the run, and asks Celery to deliver it again once that heartbeat could have gone stale."""
    from celery.exceptions import Retry

    from tactical import tasks

    run = whatif.start_what_if(user=bob, params=request())
    _running(run, seconds_ago=5)
    queued = []
    monkeypatch.setattr(tasks.run_what_if, "apply_async", lambda *a, **k: queued.append(k) or None)
    tasks.run_what_if.push_request(is_eager=False, called_directly=False, retries=0, id="t1")
    try:
        with pytest.raises(Retry):
            tasks.run_what_if.run(run.pk)
    finally:
        tasks.run_what_if.pop_request()
    assert queued and queued[0]["countdown"] == whatif.STALE_SECONDS + 5
    WhatIfRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=2))
    assert tasks.run_what_if.run(run.pk) == WhatIfRun.Status.DONE  # stale by then: claimed and played
