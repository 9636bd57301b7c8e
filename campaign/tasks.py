"""Celery tasks: thin wrappers that take ids and call one action (pretix style)."""

from celery import shared_task

from . import actions


@shared_task(acks_late=True, ignore_result=True)
def process_turn(campaign_id: int, turn_number: int) -> bool:
    """Process one campaign turn. Safe to deliver twice: the action claims the turn, so a
    second delivery (or a racing worker) finds it done and does nothing."""
    return actions.process_turn(campaign_id=campaign_id, turn_number=turn_number) is not None


@shared_task(ignore_result=True)
def process_due() -> int:
    """Beat's periodic sweep: enqueue every turn that is due (all players ready, or past its
    deadline)."""
    return actions.enqueue_due_turns()
