"""The IMAP poller (Celery beat, ``MAIL_IMAP_*``): fetch UNSEEN messages, store each, then flag
it ``\\Seen`` (or ``\\Deleted`` and expunge, with MAIL_IMAP_DELETE).

A message is flagged only after it is stored, so a failure in between leaves it unseen and the
next poll fetches it again (the store ignores its Message-ID the second time). ``BODY.PEEK[]``
fetches without setting ``\\Seen`` by itself.
"""

from __future__ import annotations

import imaplib
import logging

from django.conf import settings

from . import actions
from .message import Unparsable

logger = logging.getLogger(__name__)


def connect() -> imaplib.IMAP4:
    ssl = settings.MAIL_IMAP_SSL
    port = settings.MAIL_IMAP_PORT or (993 if ssl else 143)
    conn = (imaplib.IMAP4_SSL if ssl else imaplib.IMAP4)(settings.MAIL_IMAP_HOST, port, timeout=60)
    conn.login(settings.MAIL_IMAP_USER, settings.MAIL_IMAP_PASSWORD)
    return conn


def _check(typ: str, data, doing: str) -> None:
    if typ != "OK":
        raise imaplib.IMAP4.error(f"IMAP {doing} failed: {typ} {data!r}")


def poll() -> int:
    """Store every unseen message of the folder; returns how many were new."""
    if not settings.MAIL_IMAP_HOST:
        return 0
    conn = connect()
    new = 0
    try:
        _check(*conn.select(settings.MAIL_IMAP_FOLDER), f"SELECT {settings.MAIL_IMAP_FOLDER}")
        typ, data = conn.uid("SEARCH", "UNSEEN")
        _check(typ, data, "SEARCH UNSEEN")
        flag = "(\\Deleted)" if settings.MAIL_IMAP_DELETE else "(\\Seen)"
        for uid in (data[0] or b"").split():
            typ, parts = conn.uid("FETCH", uid, "(BODY.PEEK[])")
            _check(typ, parts, f"FETCH {uid!r}")
            raw = next((p[1] for p in parts if isinstance(p, tuple)), None)
            if raw is None:
                continue
            try:
                _, created = actions.ingest(raw, via="imap")
                new += created
            except Unparsable as exc:
                # Not a message: leave it in the folder for a person, but do not fetch it again.
                logger.warning("IMAP message %s is not an email (%s); flagged \\Seen and left there", uid, exc)
                conn.uid("STORE", uid, "+FLAGS", "(\\Seen)")
                continue
            conn.uid("STORE", uid, "+FLAGS", flag)
        if settings.MAIL_IMAP_DELETE:
            conn.expunge()
        conn.close()
    finally:
        try:
            conn.logout()
        except (OSError, imaplib.IMAP4.error):
            pass
    return new
