"""A loopback LMTP/SMTP listener (``aiosmtpd``) for hosts without a local MTA: every message it
is given goes into the store (``actions.ingest``) exactly as ``manage.py ingestmail`` would.

It listens on a loopback address only: it takes mail for anyone without authentication, so it is
a door for the local mail system (Postfix ``lmtp:inet:127.0.0.1:8024``, fetchmail ``--smtphost``),
not for the internet. It relays nothing: a message is stored, never passed on.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP
from django.conf import settings
from django.db import DatabaseError, InterfaceError, close_old_connections
from django.utils import timezone

from . import actions
from .message import Unparsable

logger = logging.getLogger(__name__)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _store(raw: bytes, via: str, recipients: list[str], sender: str, accepted) -> str:
    close_old_connections()
    try:
        row, created = actions.ingest(raw, via=via, envelope_recipients=recipients, envelope_sender=sender,
                                      received_at=accepted)
        return "stored" if created else "duplicate"
    finally:
        close_old_connections()


class StoreHandler:
    """aiosmtpd handler: DATA → the store. The database work runs in a worker thread (the ORM is
    synchronous); a database failure answers 451 so the sender keeps the message and retries."""

    def __init__(self, via: str):
        self.via = via

    async def handle_DATA(self, server, session, envelope):
        accepted = timezone.now()  # the transaction's time: when the site's mail system took the message
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", errors="surrogateescape")
        try:
            # The envelope sender as given ("" for MAIL FROM:<>, a bounce: stored, dropped unanswered).
            what = await asyncio.get_running_loop().run_in_executor(
                None, _store, raw, self.via, list(envelope.rcpt_tos), envelope.mail_from or "", accepted)
            status = f"250 2.0.0 {what}"
        except Unparsable as exc:
            status = f"554 5.6.0 not an email: {exc}"
        except (DatabaseError, InterfaceError):
            logger.exception("storing a message from the %s listener failed", self.via)
            status = "451 4.3.0 could not store the message now, try again later"
        if self.via == "lmtp":
            # LMTP (RFC 2033) answers DATA once per accepted recipient.
            return "\r\n".join([status] * max(1, len(envelope.rcpt_tos)))
        return status


class MailController(Controller):
    def __init__(self, *, host: str, port: int, lmtp: bool = False):
        if not is_loopback(host):
            raise ValueError(f"the mail listener listens on a loopback address only, not {host!r}")
        self.lmtp = lmtp
        super().__init__(StoreHandler("lmtp" if lmtp else "smtp"), hostname=host, port=port,
                         data_size_limit=settings.MAIL_MAX_BYTES)

    def factory(self):
        return (LMTP if self.lmtp else SMTP)(self.handler, **self.SMTP_kwargs)
