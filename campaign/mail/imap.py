"""The IMAP poller (Celery beat, ``MAIL_IMAP_*``; ``manage.py pollmail`` from cron).

Connection: always TLS — implicit (``MAIL_IMAP_SSL=1``, port 993) or STARTTLS (``0``, port 143) —
with the server's certificate verified (``ssl.create_default_context``: the system's CAs, or
``MAIL_IMAP_CAFILE``). A server that offers no STARTTLS is refused before the password is sent,
unless ``MAIL_IMAP_PLAIN_LOOPBACK`` says the server is on this host and the host is a loopback
address.

Messages are tracked by UID (``models.ImapCursor``: the folder's UIDVALIDITY and the last UID
stored), not by ``\\Seen``: a person opening the mailbox hides nothing. For each new UID the poller
asks RFC822.SIZE and INTERNALDATE first: a message over MAIL_MAX_BYTES is never fetched (it is
flagged ``\\Seen`` and left for a person); the rest are fetched with ``BODY.PEEK[]``, stored with
the INTERNALDATE as ``received_at`` (when the mailbox took the message), and only then flagged
``\\Seen`` (or deleted, MAIL_IMAP_DELETE) and the cursor moved — a failure in between leaves the
UID for the next poll, and the store ignores a Message-ID it already holds.
"""

from __future__ import annotations

import imaplib
import logging
import re
import ssl
from datetime import datetime

from django.conf import settings

from . import actions
from .listener import is_loopback
from .message import Unparsable
from .models import ImapCursor

logger = logging.getLogger(__name__)


class InsecureConnection(imaplib.IMAP4.error):
    """The poller will not send the password over this connection."""


def tls_context() -> ssl.SSLContext:
    """Certificates verified, host name checked: the system's CAs, or MAIL_IMAP_CAFILE's."""
    return ssl.create_default_context(cafile=settings.MAIL_IMAP_CAFILE or None)


def plain_allowed(host: str) -> bool:
    """A login without TLS: only when the setting says so AND the host is a loopback address
    (the password never leaves the machine)."""
    if not settings.MAIL_IMAP_PLAIN_LOOPBACK:
        return False
    if not is_loopback(host):
        raise InsecureConnection(f"MAIL_IMAP_PLAIN_LOOPBACK allows a login without TLS to a loopback address only, "
                                 f"not to {host!r}")
    return True


def connect() -> imaplib.IMAP4:
    host, implicit = settings.MAIL_IMAP_HOST, settings.MAIL_IMAP_SSL
    port = settings.MAIL_IMAP_PORT or (993 if implicit else 143)
    if implicit:
        conn = imaplib.IMAP4_SSL(host, port, ssl_context=tls_context(), timeout=60)
    else:
        plain = plain_allowed(host)
        conn = imaplib.IMAP4(host, port, timeout=60)
        if not plain:
            if "STARTTLS" not in conn.capabilities:
                conn.shutdown()
                raise InsecureConnection(
                    f"{host}:{port} offers no STARTTLS: the password is not sent in clear "
                    "(use MAIL_IMAP_SSL=1, or MAIL_IMAP_PLAIN_LOOPBACK=1 for a server on loopback)"
                )
            conn.starttls(ssl_context=tls_context())
    try:
        conn.login(settings.MAIL_IMAP_USER, settings.MAIL_IMAP_PASSWORD)
    except BaseException:
        conn.shutdown()
        raise
    return conn


def _check(typ: str, data, doing: str) -> None:
    if typ != "OK":
        raise imaplib.IMAP4.error(f"IMAP {doing} failed: {typ} {data!r}")


_SIZE = re.compile(rb"RFC822\.SIZE (\d+)", re.IGNORECASE)
_INTERNALDATE = re.compile(rb'INTERNALDATE "([^"]+)"', re.IGNORECASE)
_MONTHS = {m: n for n, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                       "dec"), 1)}


def internaldate(value: bytes | str) -> datetime | None:
    """An IMAP date-time (``" 1-Jan-2026 13:10:10 +0100"``) as an aware datetime, None if it is
    not one (read without the locale, unlike ``strptime``'s ``%b``)."""
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    match = re.fullmatch(r"\s*(\d{1,2})-([A-Za-z]{3})-(\d{4}) (\d\d):(\d\d):(\d\d) ([+-]\d{4})\s*", value)
    if match is None or match[2].lower() not in _MONTHS:
        return None
    day, _, year, hour, minute, second, zone = match.groups()
    try:
        return datetime.strptime(
            f"{year}-{_MONTHS[match[2].lower()]:02d}-{int(day):02d} {hour}:{minute}:{second} {zone}",
            "%Y-%m-%d %H:%M:%S %z",
        )
    except ValueError:
        return None


def _attributes(parts) -> bytes:
    return b" ".join(p[0] if isinstance(p, tuple) else p for p in parts if isinstance(p, (bytes, tuple)))


def _cursor(conn: imaplib.IMAP4, port: int) -> ImapCursor:
    typ, data = conn.response("UIDVALIDITY")
    uidvalidity = int(data[0]) if data and data[0] else 0
    key = f"{settings.MAIL_IMAP_USER}@{settings.MAIL_IMAP_HOST}:{port}/{settings.MAIL_IMAP_FOLDER}"[:255]
    cursor, created = ImapCursor.objects.get_or_create(mailbox=key, defaults={"uidvalidity": uidvalidity})
    if not created and cursor.uidvalidity != uidvalidity:
        logger.warning("IMAP %s: UIDVALIDITY changed (%s to %s): reading the folder from its first UID again",
                       key, cursor.uidvalidity, uidvalidity)
        cursor.uidvalidity, cursor.last_uid = uidvalidity, 0
        cursor.save(update_fields=["uidvalidity", "last_uid", "updated_at"])
    return cursor


def poll() -> int:
    """Store every message of the folder above the last UID stored; returns how many were new."""
    if not settings.MAIL_IMAP_HOST:
        return 0
    conn = connect()
    port = settings.MAIL_IMAP_PORT or (993 if settings.MAIL_IMAP_SSL else 143)
    new = 0
    try:
        _check(*conn.select(settings.MAIL_IMAP_FOLDER), f"SELECT {settings.MAIL_IMAP_FOLDER}")
        cursor = _cursor(conn, port)
        # "n:*" always names the highest UID, even one below n: what is not above the cursor is skipped.
        typ, data = conn.uid("SEARCH", f"UID {cursor.last_uid + 1}:*")
        _check(typ, data, "SEARCH UID")
        uids = sorted(u for u in (int(x) for x in (data[0] or b"").split()) if u > cursor.last_uid)
        flag = "(\\Deleted)" if settings.MAIL_IMAP_DELETE else "(\\Seen)"
        for uid in uids:
            new += _take(conn, uid, flag)
            cursor.last_uid = uid
            cursor.save(update_fields=["last_uid", "updated_at"])
        if settings.MAIL_IMAP_DELETE:
            conn.expunge()
        conn.close()
    finally:
        try:
            conn.logout()
        except (OSError, imaplib.IMAP4.error):
            pass
    return new


def _take(conn: imaplib.IMAP4, uid: int, flag: str) -> int:
    """Store one message (1 if it was new). Its size is asked first: one over MAIL_MAX_BYTES is
    never fetched."""
    typ, parts = conn.uid("FETCH", str(uid), "(RFC822.SIZE INTERNALDATE)")
    _check(typ, parts, f"FETCH {uid} RFC822.SIZE")
    attrs = _attributes(parts)
    size = _SIZE.search(attrs)
    if size is None:
        return 0  # no such UID any more (expunged meanwhile)
    if int(size[1]) > settings.MAIL_MAX_BYTES:
        logger.warning("IMAP message %s is %s bytes, over MAIL_MAX_BYTES (%s): not fetched; flagged \\Seen and left "
                       "there", uid, size[1], settings.MAIL_MAX_BYTES)
        conn.uid("STORE", str(uid), "+FLAGS", "(\\Seen)")
        return 0
    date = _INTERNALDATE.search(attrs)
    typ, parts = conn.uid("FETCH", str(uid), "(BODY.PEEK[])")
    _check(typ, parts, f"FETCH {uid} BODY.PEEK[]")
    raw = next((p[1] for p in parts if isinstance(p, tuple)), None)
    if raw is None:
        return 0
    try:
        _, created = actions.ingest(raw, via="imap", received_at=internaldate(date[1]) if date else None)
    except Unparsable as exc:
        # Not a message: leave it in the folder for a person.
        logger.warning("IMAP message %s is not an email (%s); flagged \\Seen and left there", uid, exc)
        conn.uid("STORE", str(uid), "+FLAGS", "(\\Seen)")
        return 0
    conn.uid("STORE", str(uid), "+FLAGS", flag)
    return int(created)
