"""Celery tasks of the tactical app: thin wrappers that take ids and call one action (see
campaign/tasks.py for the conventions: enqueued only after commit, late acknowledgement,
idempotent)."""

from celery import shared_task
from django.db import OperationalError

from tactical.whatif import chunks
from tactical.whatif import runs as whatif


@shared_task(bind=True, acks_late=True, ignore_result=True, max_retries=3)
def run_what_if(self, run_id: int) -> str | None:
    """Play a what-if run's battles (tactical/whatif/runs.py). Safe to deliver twice: a run already
    done is not run again, and one another runner is playing (its heartbeat fresh) is not played
    a second time. That can be a redelivery after the worker playing it died a moment ago: look
    again once its heartbeat could have gone stale, and claim it then if nobody is playing it."""
    run = whatif.run_what_if(run_id)
    if run is not None and run.status == run.Status.RUNNING and not self.request.is_eager and not chunks.chunk_size():
        raise self.retry(countdown=whatif.STALE_SECONDS + 5)
    return run.status if run is not None else None


@shared_task(acks_late=True, ignore_result=True, autoretry_for=(OperationalError,), retry_backoff=True,
             retry_backoff_max=300, max_retries=5)
def play_what_if_chunk(run_id: int, claim: str, start: int, stop: int) -> str:
    """Fight battles ``start`` … ``stop``-1 of a what-if run spread over the workers (a broker is
    configured; tactical/whatif/chunks.py) and store them; the chunk that completes the run adds
    them up in index order and stores the result. Safe to deliver twice: a chunk stored already
    counts once, and one of a claim the run no longer holds does nothing."""
    return chunks.play_chunk(run_id, claim, start, stop)


@shared_task(acks_late=True, ignore_result=True, autoretry_for=(OperationalError,), retry_backoff=True,
             retry_backoff_max=300, max_retries=5)
def play_due_activations() -> int:
    """Beat's periodic sweep (embedded battles): the computer doctrine plays every side whose
    activation deadline has passed (tactical/play/actions.py), and every CAM scenario fought online
    whose decision deadline has (tactical/hosts/cam/scenarios.py). Safe to deliver twice: a battle no longer
    late is left alone."""
    from tactical.hosts.cam import scenarios as cam
    from tactical.play import actions as play

    return play.play_due_activations() + cam.play_due()


@shared_task(acks_late=True, ignore_result=True, autoretry_for=(OperationalError,), retry_backoff=True,
             retry_backoff_max=300, max_retries=5)
def settle_due_battles() -> int:
    """Beat's periodic sweep (battle lifecycle): every battle past its battle deadline is settled
    without the players (tactical/battles/actions.py, ruling C19), which completes its turn when it was
    the last. Safe to deliver twice: a settled battle is left alone."""
    from tactical.battles import actions

    return actions.settle_due_battles()
