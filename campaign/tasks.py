"""Celery tasks: thin wrappers that take ids and call one action (pretix style).

Every task is enqueued only after the transaction that asks for it commits
(``transaction.on_commit``), is idempotent (the action claims the turn, or finds its
SentNotification rows), is acknowledged late (a worker that dies mid-task leaves it to be
delivered again: ``task_reject_on_worker_lost``) and retried with back-off when the database
answers with a lock timeout, deadlock or lost connection. Workers prefetch one task at a time;
exactly one beat process runs the schedule in ``CELERY_BEAT_SCHEDULE`` (config/settings.py).
"""

from celery import shared_task
from django.db import OperationalError

from . import actions, layers

# A database error of this kind rolled the whole transaction back: running again is safe.
RETRY = {"autoretry_for": (OperationalError,), "retry_backoff": True, "retry_backoff_max": 300, "max_retries": 5}


@shared_task(acks_late=True, ignore_result=True, **RETRY)
def process_turn(campaign_id: int, turn_number: int) -> bool:
    """Process one campaign turn, through its layer's record (``CampaignLayer.process_turn``). Safe
    to deliver twice: the action claims the turn, so a second delivery (or a racing worker) finds
    it done and does nothing."""
    from .models import Campaign

    key = Campaign.objects.filter(pk=campaign_id).values_list("layer", flat=True).first()
    layer = layers.CAMPAIGN_LAYERS.get(key) if key is not None else None
    if layer is None or layer.process_turn is None:
        return False
    return layer.process_turn(campaign_id=campaign_id, turn_number=turn_number) is not None


@shared_task(acks_late=True, ignore_result=True)
def process_due() -> int:
    """Beat's periodic sweep: enqueue every campaign layer's due step (an Event Horizon turn whose
    players are all ready or whose deadline passed; a CAM step past its deadline), through the
    layers' records."""
    return actions.enqueue_due_steps()


@shared_task(acks_late=True, ignore_result=True, **RETRY)
def process_layer_step(layer: str, campaign_id: int) -> bool:
    """A campaign layer's step past its deadline, through the layer's record. Safe to deliver
    twice: the layer's action locks the campaign row and acts once per deadline."""
    return bool(layers.process_due(layer, campaign_id))


@shared_task(acks_late=True, ignore_result=True, **RETRY)
def send_turn_notifications(campaign_id: int, turn_number: int) -> int:
    """Email the report of a processed turn to everyone who wants it; sends each email once however
    often it is delivered."""
    return actions.send_turn_notifications(campaign_id=campaign_id, turn_number=turn_number)


@shared_task(acks_late=True, ignore_result=True, **RETRY)
def send_deadline_reminders() -> int:
    """Beat's periodic sweep: remind players who are not ready 24 h and 1 h before a deadline (every
    campaign layer's steps too, through its record)."""
    return actions.send_deadline_reminders()


@shared_task(acks_late=True, ignore_result=True, **RETRY)
def purge_unconfirmed_accounts() -> int:
    """Beat's daily sweep: sign-ups never confirmed within UNCONFIRMED_ACCOUNT_DAYS are deleted."""
    from django.conf import settings
    from django.utils import timezone

    if not settings.UNCONFIRMED_ACCOUNT_DAYS:
        return 0
    return len(actions.purge_unconfirmed_accounts(now=timezone.now(), days=settings.UNCONFIRMED_ACCOUNT_DAYS))


@shared_task(acks_late=True, ignore_result=True, **RETRY)
def notify_battle_decision(campaign_id: int, turn: int, seat: int, text: str) -> int:
    """The battle-decision email, for callers that would rather queue it than send it in their
    own transaction."""
    return actions.notify_battle_decision(campaign_id=campaign_id, turn=turn, seat=seat, text=text)
