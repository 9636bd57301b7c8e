"""Read one RFC 5322 message on standard input and store it (what an MTA pipe, procmail or
fetchmail's ``mda`` runs). Exit status as a mail system expects (sysexits.h): 0 stored (or a
duplicate, ignored) and — without a broker — processed, 65 (EX_DATAERR) not a message, 75
(EX_TEMPFAIL) a transient failure: the database could not store it, or (without a broker) stored
it but could not process it — the MTA keeps the message and delivers it again later, and that
delivery processes what is stored (the duplicate is not stored twice)."""

from __future__ import annotations

import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, InterfaceError

from campaign.mail import actions
from campaign.mail.message import Unparsable

EX_DATAERR = 65
EX_TEMPFAIL = 75
DRAIN_CHUNK = 64 * 1024


def read_bounded(stream, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``stream`` (one more than allowed is enough to know the
    message is too large, and it is then refused with a clear error by ``message.parse``); the
    rest is read and dropped in small pieces, so the MTA writing into the pipe sees it all taken
    (no broken pipe) and memory never holds more than the limit."""
    raw = stream.read(limit + 1)
    if isinstance(raw, str):
        raw = raw.encode("utf-8", errors="surrogateescape")
    if len(raw) > limit:
        while stream.read(DRAIN_CHUNK):
            pass
    return raw


class Command(BaseCommand):
    help = "Store one email read from standard input (an MTA pipe) and process it."
    stealth_options = ("stdin",)

    def add_arguments(self, parser):
        parser.add_argument(
            "--recipient",
            action="append",
            default=[],
            help="an envelope recipient (e.g. procmail's $RECIPIENT, Postfix's ${recipient}); repeatable",
        )
        parser.add_argument("--sender", default=None,
                            help="the envelope sender (Postfix pipe(8)'s ${sender}; empty for a bounce, which is "
                                 "stored and dropped without an answer)")

    def handle(self, *args, **options):
        stdin = options.get("stdin") or sys.stdin
        raw = read_bounded(stdin.buffer if hasattr(stdin, "buffer") else stdin, settings.MAIL_MAX_BYTES)
        try:
            row, created = actions.ingest(raw, via="stdin", envelope_recipients=options["recipient"],
                                          envelope_sender=options["sender"])
        except Unparsable as exc:
            raise CommandError(f"not an email: {exc}", returncode=EX_DATAERR) from None
        except (DatabaseError, InterfaceError) as exc:
            # The database is down or locked: the MTA keeps the message and delivers it again.
            raise CommandError(f"could not store the message now, try again later: {exc}",
                               returncode=EX_TEMPFAIL) from None
        try:
            row.refresh_from_db()
            if row.status == row.Status.RECEIVED and actions._in_line():
                # Without a broker the message is processed here and now (a redelivery of one
                # stored before but never processed is processed now too).
                actions.process(row.pk)
                row.refresh_from_db()
        except (DatabaseError, InterfaceError) as exc:
            # Stored, but not processed: 75 makes the MTA deliver it again later, and that
            # delivery processes it (or the due-work sweep does first; it is processed once).
            raise CommandError(f"{row.message_id}: stored, but it could not be processed now, try again later: {exc}",
                               returncode=EX_TEMPFAIL) from None
        if options["verbosity"] >= 1:
            what = "stored" if created else "already stored (duplicate Message-ID ignored)"
            self.stdout.write(f"{row.message_id}: {what}; {row.status}"
                              + (f" ({row.outcome})" if row.outcome else ""))
