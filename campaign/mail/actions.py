"""Every change the mail-in pipeline makes: store a raw message, process a stored one.

``ingest`` stores first (duplicates by Message-ID are ignored) and queues the processing task when
its transaction commits; ``process`` claims a stored message (its row locked for the transaction:
of two workers given the same message, one does the work), screens it (machines, loops, the per-sender rate
limit), routes it (``routing.py``) and records the reply on the message row in the same
transaction as the action it called, so a message is answered at most once and a retry after a
failure changes nothing twice.

Locks: ``process`` holds the message's row while a route's action takes the campaign locks in
the documented order (``campaign/locks.py``). The message row is outside that order and safe to
hold first: nothing else locks a message row, and no transaction holding campaign locks ever asks
for one, so no wait can go round in a circle.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, InterfaceError, transaction
from django.db.models import Q
from django.utils import timezone

from . import addresses, message, outgoing, routing
from .models import InboundMessage

logger = logging.getLogger(__name__)

Status = InboundMessage.Status

UNKNOWN_SENDER = (
    "This address takes orders and replies from the players of Sector Command campaigns, sent from\n"
    "the address their account is registered with. Your message was not read.\n\n"
    "This is an automatic answer; an address gets at most one a day.\n"
)
HTML_ONLY = (
    "Your message has only an HTML part, and this address reads plain text: please send it again\n"
    "as plain text (most mail programs have \"plain text\" in their format menu), or attach your\n"
    "orders as a .txt file. Nothing has been changed.\n"
)
NO_TEXT = "Your message holds no text to read. Nothing has been changed.\n"
NOT_UNDERSTOOD = (
    "Your message has no #SECTOR header line, so it was not read as orders. Orders start with\n"
    "\"#SECTOR <campaign> <seat> <order secret> TURN <n>\" and end with \"#END\": reply to your\n"
    "turn report, edit the orders template in it and send it back. Nothing has been changed.\n"
)


def accepted_at(moment, now=None):
    """When the site's mail system accepted a message, as the way in knows it (the LMTP
    transaction, the IMAP INTERNALDATE, the topmost Received: of the site's MTA), kept within
    sense: never later than now, never more than MAIL_RECEIVED_MAX_AGE seconds before it. None:
    now (the store's clock)."""
    now = now or timezone.now()
    if moment is None or timezone.is_naive(moment):
        return now
    return max(min(moment, now), now - timedelta(seconds=settings.MAIL_RECEIVED_MAX_AGE))


def ingest(raw: bytes, *, via: str, envelope_recipients=None, received_at=None,
           envelope_sender: str | None = None) -> tuple[InboundMessage, bool]:
    """Store one raw message (``message.Unparsable`` if it is not one) and queue its processing
    on commit. Returns the row and whether it is new: a Message-ID seen before is ignored.
    ``received_at``: when the site's mail system accepted it (the way in's: the LMTP transaction,
    the IMAP INTERNALDATE), else — or, outside IMAP, with MAIL_TRUST_RECEIVED_HEADER, before it —
    the topmost Received: field's date, else now; kept within sense by ``accepted_at``.
    ``envelope_sender``: the SMTP MAIL FROM if the way in knows it ("" for the null sender)."""
    msg = message.parse(raw)
    mid, sender, subject = message.message_id(msg, raw), message.sender(msg), message.subject(msg)
    secret_hash = _secret_hash(msg)
    stored = message.redact(raw, msg)  # last: it may rewrite msg's parts
    if settings.MAIL_TRUST_RECEIVED_HEADER and via != InboundMessage.Via.IMAP:
        received_at = message.received_time(msg) or received_at
    now = timezone.now()
    # Parsed before the transaction: input that is no message is refused without the database.
    with transaction.atomic():
        row, created = InboundMessage.objects.get_or_create(
            message_id=mid,
            defaults={
                "raw": stored,
                "secret_hash": secret_hash,
                "received_at": accepted_at(received_at, now),
                "via": via,
                "sender": sender,
                "recipients": [a.lower() for a in envelope_recipients or []],
                "subject": subject,
                "envelope_sender": None
                if envelope_sender is None
                else envelope_sender.strip().strip("<>").lower()[:254],
                "next_attempt_at": now + FIRST_TRY_GRACE,
            },
        )
        if created:
            transaction.on_commit(lambda pk=row.pk: enqueue(pk), robust=True)
    return row, created


FIRST_TRY_GRACE = timedelta(minutes=1)


def _secret_hash(msg) -> str:
    """The hash of the secret the orders header gives (what the store keeps instead of it)."""
    text, _ = message.body_text(msg)
    return routing.orders_hook("header_secret_hash")(text) if text and routing.has_orders_header(text) else ""


def _in_line() -> bool:
    """No broker (the embedded default): tasks run in the caller's process."""
    return bool(getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False))


def enqueue(pk: int) -> None:
    """Process a stored message: its task with a broker; in-line without one — where a database
    error is left to the due-work sweep's back-off (``retry_due``), not to the eager task's
    immediate retries."""
    if _in_line():
        try:
            process(pk)
        except (DatabaseError, InterfaceError):
            logger.warning("processing incoming mail %s hit a database error; the due-work sweep tries again", pk)
        return
    from . import tasks

    tasks.process_message.delay(pk)


def _backoff(attempts: int) -> timedelta:
    return timedelta(seconds=min(settings.MAIL_RETRY_SECONDS * 2 ** max(attempts - 1, 0), 3600))


def _attempt_failed(pk: int, exc: Exception) -> None:
    """Note a processing attempt a database error rolled back: the next one after the back-off,
    or ``failed`` after MAIL_RETRY_LIMIT of them. Its own short transaction; if the database
    cannot take even that, the message stays as it was and the next sweep finds it due."""
    try:
        with transaction.atomic():
            row = InboundMessage.objects.filter(pk=pk, status=Status.RECEIVED).first()
            if row is None:
                return
            row.attempts += 1
            row.next_attempt_at = timezone.now() + _backoff(row.attempts)
            fields = ["attempts", "next_attempt_at"]
            if row.attempts >= max(settings.MAIL_RETRY_LIMIT, 1):
                row.status, row.processed_at = Status.FAILED, timezone.now()
                row.outcome = f"gave up after {row.attempts} attempts: {type(exc).__name__}: {exc}"[:2000]
                fields += ["status", "processed_at", "outcome"]
            row.save(update_fields=fields)
    except (DatabaseError, InterfaceError):
        pass


def process(pk: int) -> str:
    """Process one stored message once. Returns its status afterwards."""
    try:
        with transaction.atomic():
            # The claim: the row stays locked until this transaction ends, and a second worker
            # given the same message skips it (SKIP LOCKED) instead of waiting. A worker that dies
            # rolls everything back, the row is unlocked and still "received": processing it
            # again is safe. (SQLite takes no row locks; it runs one writing transaction at a time.)
            row = (InboundMessage.objects.select_for_update(skip_locked=True, of=("self",))
                   .filter(pk=pk, status=Status.RECEIVED).first())
            if row is None:
                return InboundMessage.objects.filter(pk=pk).values_list("status", flat=True).first() or "missing"
            return _process(row)
    except (DatabaseError, InterfaceError) as exc:
        # A lock timeout, a lost connection, a table missing mid-deploy rolled everything back: the
        # task is retried (with a broker, for OperationalError), and the due-work sweep tries again
        # after the back-off; MAIL_RETRY_LIMIT bounds what a lasting error costs.
        _attempt_failed(pk, exc)
        raise
    except Exception as exc:
        logger.exception("processing incoming mail %s failed", pk)
        InboundMessage.objects.filter(pk=pk, status=Status.RECEIVED).update(
            status=Status.FAILED, processed_at=timezone.now(), outcome=f"{type(exc).__name__}: {exc}"[:2000])
        return Status.FAILED


def due_messages(now=None):
    """Stored messages still waiting to be processed whose next try is due: a task lost, a worker
    that died mid-way, processing a database error rolled back (after its back-off)."""
    now = now or timezone.now()
    return (
        InboundMessage.objects.filter(status=Status.RECEIVED)
        .filter(
            Q(next_attempt_at__lte=now)
            | Q(next_attempt_at__isnull=True, received_at__lt=now - FIRST_TRY_GRACE)
        )
        .order_by("received_at", "pk")
    )


def requeue_pending(now=None) -> int:
    """The sweep (beat's ``process_pending``; ``processdue`` and the in-process sweep without a
    broker): process again every due message (``due_messages``), oldest receipt first — with a
    broker as tasks, without one here and now. Returns how many."""
    pks = list(due_messages(now).values_list("pk", flat=True)[:500])
    for pk in pks:
        enqueue(pk)
    return len(pks)


def holds_turn(deadline) -> bool:
    """Mail the site's mail system accepted by ``deadline`` that is not processed yet (stored and
    waiting for its task or its next try): a turn whose deadline that is waits for it (docs/mail.md,
    ruling ML1), so orders sent in time count even when the store or the processing was late."""
    return (
        deadline is not None
        and InboundMessage.objects.filter(status=Status.RECEIVED, received_at__lte=deadline).exists()
    )


def _finish(row: InboundMessage, status: str, outcome: str, route: str = "") -> str:
    row.status, row.outcome, row.route, row.processed_at = status, outcome[:2000], route, timezone.now()
    fields = ["status", "outcome", "route", "processed_at", "reply_to", "reply_kind", "reply_body", "rate_key",
              "notice_to"]
    if status == Status.DROPPED:
        # Kept for the admin and the limits: who, when, why — not what (docs/mail.md "Retention").
        row.raw, row.secret_hash = message.headers_of(bytes(row.raw)), ""
        fields += ["raw", "secret_hash"]
    row.save(update_fields=fields)
    return status


def _identity(msg, row: InboundMessage, incoming: routing.Incoming, *, check_seat: bool = True) -> tuple[str, bool]:
    """What the rate limit counts this message under, and whether it is verified: a signed reply
    address of the site, orders naming a seat with its right secret, a From: the site's own MTA
    authenticated (MAIL_AUTHSERV_ID); otherwise only its (forgeable) From:, counted apart, so
    forged mail "from" a player never spends her seat's allowance (docs/mail.md "Limits").
    ``check_seat`` False (no rate limit to apply): the secret is left to the checker, whose answer
    says whether it was right (``Answer.verified_key``)."""
    verified_seat = routing.orders_hook("verified_seat")

    for address in incoming.recipients:
        prefix = addresses.prefix_of(address)
        if prefix and addresses.is_signed(address, **routing.scheme_for(prefix)):
            return f"addr:{address}"[:300], True
    if check_seat and routing.has_orders_header(incoming.text):
        seat = verified_seat(incoming.text, incoming.secret_hash)
        if seat is not None:
            return f"seat:{seat[0]}.{seat[1]}", True
    if row.sender and message.authenticated_from(msg, settings.MAIL_AUTHSERV_ID):
        return f"from:{row.sender}"[:300], True
    return f"unverified:{row.sender}"[:300], False


def _over_rate_limit(row: InboundMessage) -> bool:
    limit = settings.MAIL_RATE_LIMIT
    if limit <= 0:
        return False
    earlier = InboundMessage.objects.filter(
        rate_key=row.rate_key, received_at__gt=row.received_at - timedelta(seconds=settings.MAIL_RATE_WINDOW),
        received_at__lte=row.received_at, pk__lt=row.pk)
    return earlier.count() >= limit


def _may_notify(row: InboundMessage, address: str) -> bool:
    """An answer to unverified mail (a notice of forged orders, a reply to a From: that is an
    account's): at most MAIL_NOTICE_LIMIT per address per MAIL_NOTICE_WINDOW, so forged mail
    cannot flood a player through the site."""
    limit = settings.MAIL_NOTICE_LIMIT
    if limit <= 0:
        return True
    since = row.received_at - timedelta(seconds=settings.MAIL_NOTICE_WINDOW)
    sent = (InboundMessage.objects.filter(received_at__gt=since)
            .filter(Q(reply_to=address, reply_kind="notice") | Q(notice_to=address)).exclude(pk=row.pk).count())
    return sent < limit


def _may_refuse_unknown(row: InboundMessage) -> bool:
    """The short refusal to an address that is no account's. It carries no word of the message
    (not even its subject), so a forged From: cannot make the site carry anyone's text to anyone;
    it goes once per MAIL_UNKNOWN_REFUSAL_SECONDS per address at most, never to the site's own
    domain, never to a machine (screened before)."""
    window = settings.MAIL_UNKNOWN_REFUSAL_SECONDS
    if window <= 0 or not row.sender or row.sender.rpartition("@")[2] == settings.MAIL_DOMAIN.lower():
        return False
    return not InboundMessage.objects.filter(
        reply_to=row.sender, reply_kind="refusal",
        received_at__gte=row.received_at - timedelta(seconds=window)).exclude(pk=row.pk).exists()


def _route(incoming: routing.Incoming, kind: str) -> routing.Answer:
    if kind in ("html", "none"):
        return routing.Answer(route=kind, outcome="refused: " + ("HTML only" if kind == "html" else "no text"),
                              body=HTML_ONLY if kind == "html" else NO_TEXT,
                              user=routing.registered_user(incoming.sender),
                              subject="[Sector Command] please send plain text")
    for address in incoming.recipients:
        handler = routing.handler_for(addresses.prefix_of(address))
        if handler is not None:
            return handler(incoming, address)
    if routing.has_orders_header(incoming.text):
        return routing.orders(incoming)
    return routing.Answer(route="none", outcome="no #SECTOR header, no reply address", body=NOT_UNDERSTOOD,
                          user=routing.registered_user(incoming.sender),
                          subject="[Sector Command] your message was not read as orders")


def _process(row: InboundMessage) -> str:
    msg = message.parse(bytes(row.raw))
    machine = message.automatic(msg)
    if row.envelope_sender == "":
        machine = "the null envelope sender <> (a bounce)"
    if machine:
        return _finish(row, Status.DROPPED, f"dropped: {machine}")
    text, kind = message.body_text(msg)
    incoming = routing.Incoming(pk=row.pk, message_id=row.message_id, sender=row.sender, subject=row.subject,
                                text=text or "", recipients=tuple(message.recipients(msg, row.recipients)),
                                received_at=row.received_at, via=row.via, secret_hash=row.secret_hash)
    row.rate_key, verified = _identity(msg, row, incoming, check_seat=settings.MAIL_RATE_LIMIT > 0)
    if _over_rate_limit(row):
        return _finish(row, Status.DROPPED, f"dropped: over the rate limit of {settings.MAIL_RATE_LIMIT} "
                                            f"messages in {settings.MAIL_RATE_WINDOW} s for {row.rate_key}")
    answer = _route(incoming, kind)
    if answer.verified_key:
        row.rate_key, verified = answer.verified_key, True
    replies = []
    email = getattr(answer.user, "email", "") if answer.user is not None else ""
    if answer.body and email and (verified or _may_notify(row, email)):
        # The stored copy of the answer masks the turn key its orders template carries.
        row.reply_to, row.reply_kind = email, "reply" if verified else "notice"
        row.reply_body = message.redact_text(answer.body)
        replies.append((answer.subject or f"Re: {row.subject}", email, answer.body))
    elif answer.body and answer.user is None and _may_refuse_unknown(row):
        row.reply_to, row.reply_kind, row.reply_body = row.sender, "refusal", UNKNOWN_SENDER
        replies.append(("[Sector Command] your message was not read", row.sender, UNKNOWN_SENDER))
    notice_email = getattr(answer.notice_user, "email", "") if answer.notice_user is not None else ""
    if answer.notice_body and notice_email and _may_notify(row, notice_email):
        row.notice_to = notice_email
        replies.append((answer.notice_subject, notice_email, answer.notice_body))
    for subject, to, body in replies:
        reply = outgoing.reply(to=to, subject=subject, body=body, in_reply_to=row.message_id)
        transaction.on_commit(lambda reply=reply: _send(reply), robust=True)
    return _finish(row, Status.DONE, answer.outcome, answer.route)


def _send(reply) -> None:
    from campaign.notifications import deliver

    deliver([reply])


@transaction.atomic
def purge_raw(now=None, days: int | None = None) -> int:
    """Empty the raw bytes (and the reply text) of messages received more than ``days``
    (MAIL_RAW_RETENTION_DAYS) ago; the row stays (its Message-ID still stops a redelivery, its
    route and outcome stay for the admin; the limits still count it). A message not processed yet
    is kept. Returns how many were emptied."""
    days = settings.MAIL_RAW_RETENTION_DAYS if days is None else days
    if days <= 0:
        return 0
    cutoff = (now or timezone.now()) - timedelta(days=days)
    return (InboundMessage.objects.filter(received_at__lt=cutoff).exclude(status=Status.RECEIVED)
            .exclude(raw=b"", reply_body="").update(raw=b"", reply_body=""))
