"""Poll the IMAP mailbox once (what Celery beat does every MAIL_IMAP_POLL_SECONDS), e.g. from cron."""

from __future__ import annotations

import imaplib

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, InterfaceError

from campaign.mail import imap


class Command(BaseCommand):
    help = "Fetch the unseen messages of the IMAP mailbox (MAIL_IMAP_*) into the mail store."

    def handle(self, *args, **options):
        if not settings.MAIL_IMAP_HOST:
            raise CommandError("MAIL_IMAP_HOST is not set: there is no mailbox to poll")
        try:
            new = imap.poll()
        except (OSError, imaplib.IMAP4.error) as exc:
            raise CommandError(f"polling {settings.MAIL_IMAP_HOST} failed: {exc}") from None
        except (DatabaseError, InterfaceError) as exc:
            # One line, no traceback, a non-zero exit: cron mails it; the messages stay in the
            # mailbox (a message is flagged only once stored) for the next poll.
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise CommandError(f"the database is not available, nothing was taken from the mailbox "
                               f"this time: {first}") from None
        self.stdout.write(f"{new} new message(s) stored")
