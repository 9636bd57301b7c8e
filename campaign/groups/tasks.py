"""Celery tasks of the groups app (names ``campaign.groups.tasks.*``): thin shells over
``away``, ``events`` and ``webhooks``. Without a broker (``CELERY_TASK_ALWAYS_EAGER``) a task runs
in-process and does not retry itself: the request sweep (``campaign/middleware.py``) calls
``sweep`` and ``webhooks.retry_due`` picks up the waiting deliveries."""

from celery import shared_task
from django.db import OperationalError

from . import away, events, webhooks

RETRY = {"autoretry_for": (OperationalError,), "retry_backoff": True, "retry_backoff_max": 300, "max_retries": 5}


@shared_task(bind=True, acks_late=True, ignore_result=True, max_retries=None)
def deliver_webhook(self, delivery_id: int) -> bool:
    """Post one delivery; on a failure retry after its back-off (30 s doubling to an hour) until
    it is delivered or its webhook has failed for a day and is disabled."""
    delay = webhooks.attempt(delivery_id)
    if delay is not None and not self.request.is_eager:
        raise self.retry(countdown=delay)
    return delay is None


@shared_task(acks_late=True, ignore_result=True, **RETRY)
def sweep() -> int:
    """Beat's minute: away dates' effects (before the due-turn sweep acts on a deadline), the
    webhooks' events, deliveries waiting for their retry."""
    return sweep_now()


def sweep_now(now=None) -> int:
    return away.apply_absences(now=now) + events.sweep_events(now=now) + webhooks.retry_due(now=now)
