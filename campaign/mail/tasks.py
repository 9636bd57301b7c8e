"""Celery tasks of mail in (names ``campaign.mail.tasks.*``): thin, idempotent, ids only."""

from celery import shared_task

from campaign.tasks import RETRY

from . import actions


@shared_task(acks_late=True, ignore_result=True, **RETRY)
def process_message(message_pk: int) -> str:
    """Process one stored message; a second delivery finds it claimed or done."""
    return actions.process(message_pk)


@shared_task(acks_late=True, ignore_result=True)
def process_pending() -> int:
    """Beat's sweep: queue stored messages no task processed."""
    return actions.requeue_pending()


@shared_task(acks_late=True, ignore_result=True, **RETRY)
def poll_imap() -> int:
    """Beat's poll of the IMAP mailbox (MAIL_IMAP_*): store every unseen message."""
    from . import imap

    return imap.poll()


@shared_task(acks_late=True, ignore_result=True)
def purge_raw() -> int:
    """Beat's daily purge of raw mail older than MAIL_RAW_RETENTION_DAYS."""
    return actions.purge_raw()
