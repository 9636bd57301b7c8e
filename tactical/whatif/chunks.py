"""A what-if run spread over Celery workers (issue 27 item 5): with a broker configured, the
runner (``runs.run_what_if``) does not fight the battles itself but cuts them into chunks of
``WHATIF_CHUNK_SIZE`` and queues one ``tactical.tasks.play_what_if_chunk`` task per chunk, so
every worker of the group — on this machine or on others — fights some of them.

* A chunk task takes ids: the run, the runner's claim token and its battles ``start`` …
  ``stop``-1. It fights them with the same per-battle seeds as the local pool (battle ``i``
  rolls from the run's seed and ``i`` only), and stores their results as one ``WhatIfChunk``
  row; a chunk of a claim that is no longer the run's (the run was restarted, or is over) does
  nothing.
* Idempotent: one row per run, claim and ``start`` (a unique constraint, written under the run
  row's lock), so a chunk delivered twice counts once.
* The chunk that completes the run adds every result up in index order — through the book's own
  runner, its battles taken from the rows (``pool.battles_from``) — so the result is the very
  one the local pool gives for the same seed, stores it and deletes the rows.
* Progress: every chunk stored moves ``done`` (battles fought so far) and the heartbeat; a
  chunk being fought refreshes the heartbeat every ``PROGRESS_SECONDS``, and stops if the claim
  was taken over.

Without a broker (the embedded default) none of this runs: ``chunk_size()`` is 0 and the runner
fights in local processes as before.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from django.db import OperationalError, transaction
from django.db.models import F, Min, Sum
from django.utils import timezone

from tactical.models import WhatIfChunk, WhatIfRun
from tactical.rules.kit.trial import Trial, load
from tactical.whatif import pool

logger = logging.getLogger(__name__)

DEFAULT_CHUNK_SIZE = 50


def chunk_size() -> int:
    """Battles per chunk task when a broker is configured (``WHATIF_CHUNK_SIZE``); 0 without a
    broker or with the setting 0: the runner fights in local processes."""
    from django.conf import settings

    if not getattr(settings, "CELERY_BROKER_URL", ""):
        return 0
    return max(0, int(getattr(settings, "WHATIF_CHUNK_SIZE", DEFAULT_CHUNK_SIZE)))


def spans(trials: int, size: int) -> list[tuple[int, int]]:
    """The chunks of a run of ``trials`` battles: ``(start, stop)``, in index order."""
    return [(start, min(start + size, trials)) for start in range(0, trials, size)]


def spread(run: WhatIfRun, claim: str, size: int) -> int:
    """Queue one chunk task per ``size`` battles of a run just claimed with ``claim`` (after
    commit); the number of chunks."""
    parts = spans(run.trials, size)
    transaction.on_commit(lambda: send(run.pk, claim, parts))
    return len(parts)


def send(run_id: int, claim: str, parts: list[tuple[int, int]]) -> None:
    """Hand the chunk tasks to the broker (a failure fails the run, as ``runs._enqueue`` does)."""
    from tactical import tasks

    try:
        for start, stop in parts:
            tasks.play_what_if_chunk.delay(run_id, claim, start, stop)
    except Exception as exc:
        logger.exception("what-if run %s: its chunks could not be queued", run_id)
        _fail(run_id, claim, f"could not be queued ({type(exc).__name__}: {exc})")


class _Job(Exception):
    def __init__(self, trial: Trial, job: Mapping[str, Any], seed: str) -> None:
        super().__init__("job")
        self.trial, self.job, self.seed = trial, job, seed


def job_of(run: WhatIfRun) -> tuple[Trial, Mapping[str, Any], str]:
    """The registry's ``Trial`` of a run and the job and seed its runner fights battles from
    (asked of the book's runner itself, stopped before it fights anything)."""
    def stop(trial, job, seed, trials, progress):
        raise _Job(trial, job, seed)

    trial = pool.trial_of(_kind(run))
    with pool.battles_from(stop):
        try:
            load(trial.runner)(run.params, run.trials, lambda done: None, 1)
        except _Job as found:
            return found.trial, found.job, found.seed
    raise RuntimeError(f"the {trial.key} what-if runner fought no battles")


def _kind(run: WhatIfRun) -> str:
    from tactical.whatif.runs import kind_of

    return kind_of(run.params)


def _fail(run_id: int, claim: str, error: str) -> None:
    WhatIfRun.objects.filter(pk=run_id, claim=claim, status=WhatIfRun.Status.RUNNING).update(
        status=WhatIfRun.Status.FAILED, error=error, finished_at=timezone.now())


def play_chunk(run_id: int, claim: str, start: int, stop: int, *,
               clock: Callable[[], float] = time.monotonic) -> str:
    """Fight battles ``start`` … ``stop``-1 of a run for the runner holding ``claim``, store
    them, and finish the run if they were the last. Returns what happened: ``"stale"`` (the
    claim is not the run's, or the run is over), ``"again"`` (this chunk was stored already),
    ``"stored"``, ``"finished"`` or ``"failed"``."""
    from tactical.whatif.runs import PROGRESS_SECONDS

    mine = WhatIfRun.objects.filter(pk=run_id, claim=claim, status=WhatIfRun.Status.RUNNING)
    run = mine.first()
    if run is None:
        return "stale"
    if WhatIfChunk.objects.filter(run_id=run_id, claim=claim, start=start).exists():
        return "again"
    started = timezone.now()
    try:
        trial, job, seed = job_of(run)
        results, last = [], clock()
        for index in range(start, stop):
            results.append(trial.encode(trial.fight(job, seed, index)))
            if clock() - last >= PROGRESS_SECONDS:
                if not mine.update(heartbeat_at=timezone.now()):
                    return "stale"  # taken over (restarted) meanwhile: its new claim fights again
                last = clock()
        return _store(run_id, claim, start, stop, results, started, trial)
    except OperationalError:
        raise  # a lock timeout or lost connection rolled back: the task retries (tactical/tasks.py)
    except Exception as exc:  # any failure ends the run visibly, as in the local runner
        logger.exception("what-if run %s: chunk %s-%s failed", run_id, start, stop)
        _fail(run_id, claim, f"{type(exc).__name__}: {exc}")
        return "failed"


@transaction.atomic
def _store(run_id: int, claim: str, start: int, stop: int, results: list[Any], started, trial: Trial) -> str:
    run = WhatIfRun.objects.select_for_update().filter(pk=run_id, claim=claim,
                                                        status=WhatIfRun.Status.RUNNING).first()
    if run is None:
        return "stale"
    _, created = WhatIfChunk.objects.get_or_create(run=run, claim=claim, start=start,
                                                   defaults={"stop": stop, "results": results, "started_at": started})
    if not created:
        return "again"
    rows = WhatIfChunk.objects.filter(run=run, claim=claim)
    totals = rows.aggregate(done=Sum(F("stop") - F("start")), first=Min("started_at"))
    now = timezone.now()
    if totals["done"] < run.trials:
        WhatIfRun.objects.filter(pk=run_id).update(done=totals["done"], heartbeat_at=now)
        return "stored"
    fought: dict[int, Any] = {}
    for row in rows.order_by("start"):
        for offset, raw in enumerate(row.results):
            fought[row.start + offset] = trial.decode(raw)

    def given(trial, job, seed, trials, progress):
        return fought

    with pool.battles_from(given):
        result = load(trial.runner)(run.params, run.trials, lambda done: None, 1)
    result["seconds"] = round((now - totals["first"]).total_seconds(), 3)
    WhatIfRun.objects.filter(pk=run_id).update(status=WhatIfRun.Status.DONE, done=run.trials, result=result,
                                               heartbeat_at=now, finished_at=now)
    WhatIfChunk.objects.filter(run=run).delete()
    return "finished"
