"""A what-if run spread as Celery chunk tasks when a broker is configured (issue 27 item 5;
docs/whatif.md "How it runs"): the chunks, fought in any order and delivered twice, add up to
the very result the local pool gives for the same seed; progress moves chunk by chunk; a chunk
of a superseded claim does nothing; the embedded default keeps local processes."""

from __future__ import annotations

import pytest

from tactical import tasks
from tactical.models import WhatIfChunk, WhatIfRun
from tactical.whatif import cam, chunks
from tactical.whatif import runs as whatif
from tests.conftest import REQUIRE_SERVICES
from tests.tactical.test_whatif import free
from tests.tactical.test_whatif_cam import _without_time, catalogue_request

pytestmark = pytest.mark.django_db

BROKER = "redis://127.0.0.1:6379/15"  # only named: these tests never reach it but the last


@pytest.fixture
def sent(monkeypatch, settings):
    """A broker configured, chunks of 4; the chunk tasks the runner queues, collected."""
    settings.CELERY_BROKER_URL, settings.WHATIF_CHUNK_SIZE = BROKER, 4
    queued = []
    monkeypatch.setattr(chunks, "send", lambda run_id, claim, parts: queued.extend(
        (run_id, claim, start, stop) for start, stop in parts))
    return queued


def _local(run):
    """The run's result as the embedded default fights it (local processes)."""
    return _without_time(chunks.load(chunks.pool.trial_of(whatif.kind_of(run.params)).run)(
        run.params, run.trials, lambda done: None, 1))


def _spread(run, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        whatif.run_what_if(run.pk)
    run.refresh_from_db()
    return run


@pytest.mark.parametrize("kind", ["eventhorizon", "buoyz"])
def test_chunks_in_any_order_and_twice_add_up_to_the_local_result(kind, bob, sent, django_capture_on_commit_callbacks):
    if kind == "eventhorizon":
        run = whatif.start_what_if(user=bob, params=free(("frigate", 2), trials=11, seed="chunks"))
    else:
        run = cam.start_cam_what_if(user=bob, params=catalogue_request(trials=11, seed="chunks"))
    expected = _local(run)
    run = _spread(run, django_capture_on_commit_callbacks)
    assert run.status == WhatIfRun.Status.RUNNING and run.done == 0 and run.result is None
    assert [(s, e) for _, _, s, e in sent] == [(0, 4), (4, 8), (8, 11)]
    assert {c for _, c, _, _ in sent} == {run.claim}
    last, first, middle = sent[2], sent[0], sent[1]
    assert chunks.play_chunk(*last) == "stored"
    assert WhatIfRun.objects.get(pk=run.pk).done == 3  # progress: battles of the chunks done
    assert chunks.play_chunk(*last) == "again"  # delivered twice: counts once
    assert chunks.play_chunk(*first) == "stored"
    assert WhatIfRun.objects.get(pk=run.pk).done == 7
    assert chunks.play_chunk(*middle) == "finished"
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.DONE and run.done == 11, run.error
    assert _without_time(run.result) == expected
    assert run.result["seconds"] >= 0
    assert not WhatIfChunk.objects.filter(run=run).exists()
    assert chunks.play_chunk(*middle) == "stale"  # a late redelivery after the end: nothing


def test_a_chunk_of_a_superseded_claim_does_nothing(bob, sent, django_capture_on_commit_callbacks):
    run = _spread(whatif.start_what_if(user=bob, params=free(("frigate", 1), trials=6, seed="old")),
                  django_capture_on_commit_callbacks)
    WhatIfRun.objects.filter(pk=run.pk).update(claim="someone-else")  # restarted meanwhile
    assert chunks.play_chunk(*sent[0]) == "stale"
    assert not WhatIfChunk.objects.exists() and WhatIfRun.objects.get(pk=run.pk).done == 0


def test_a_failing_chunk_fails_the_run(bob, sent, monkeypatch, django_capture_on_commit_callbacks):
    from tactical.rules.eventhorizon import trials as eh

    run = _spread(
        whatif.start_what_if(user=bob, params=free(("frigate", 1), trials=6)),
        django_capture_on_commit_callbacks,
    )
    monkeypatch.setattr(eh, "play_trial", lambda *a: (_ for _ in ()).throw(RuntimeError("boom")))
    assert chunks.play_chunk(*sent[0]) == "failed"
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.FAILED and "boom" in run.error


def test_the_celery_path_executed_eagerly_gives_the_local_result(bob, settings, eager_tasks, monkeypatch,
                                                                 django_capture_on_commit_callbacks):
    settings.CELERY_BROKER_URL, settings.WHATIF_CHUNK_SIZE = BROKER, 3
    played, play = [], chunks.play_chunk
    monkeypatch.setattr(chunks, "play_chunk", lambda *a: played.append(a[2:]) or play(*a))
    with django_capture_on_commit_callbacks(execute=True):
        run = whatif.start_what_if(user=bob, params=free(("corvette", 2), trials=8, seed="eager"))
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.DONE, run.error
    assert _without_time(run.result) == _local(run)
    assert played == [(0, 3), (3, 6), (6, 8)]  # by the chunk tasks


def test_the_embedded_default_keeps_local_processes(bob, settings, monkeypatch):
    settings.CELERY_BROKER_URL, settings.WHATIF_CHUNK_SIZE = "", 4
    assert chunks.chunk_size() == 0
    monkeypatch.setattr(chunks, "spread", lambda *a: pytest.fail("no chunks without a broker"))
    run = whatif.run_what_if(whatif.start_what_if(user=bob, params=free(("frigate", 1), trials=5)).pk)
    assert run.status == WhatIfRun.Status.DONE


def test_the_chunk_task_follows_the_task_conventions():
    assert tasks.play_what_if_chunk.acks_late and tasks.play_what_if_chunk.ignore_result
    assert chunks.spans(11, 4) == [(0, 4), (4, 8), (8, 11)] and chunks.spans(8, 4) == [(0, 4), (4, 8)]


@pytest.mark.postgres
@pytest.mark.skipif(not REQUIRE_SERVICES, reason="only in the PostgreSQL + Redis CI pass")
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_real_celery_workers_fight_the_chunks(bob, tmp_path, monkeypatch):
    from tests.campaign.test_tasks import start_worker, stop_worker, wait_for

    monkeypatch.setenv("WHATIF_CHUNK_SIZE", "5")  # the worker's settings: 4 chunks of this run
    worker = start_worker(tmp_path, "--pool", "prefork", "--concurrency", "2")
    try:
        run = cam.start_cam_what_if(user=bob, params=catalogue_request(trials=17, seed="chunks-celery"))
        assert wait_for(lambda: WhatIfRun.objects.get(pk=run.pk).status in ("done", "failed"), 180), worker.poll()
    finally:
        stop_worker(worker)
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.DONE, run.error
    assert _without_time(run.result) == _local(run)
