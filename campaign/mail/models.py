"""The store of incoming mail: one row per message, written before anything else happens."""

from __future__ import annotations

from django.db import models


class InboundMessage(models.Model):
    class Via(models.TextChoices):
        STDIN = "stdin", "manage.py ingestmail"
        IMAP = "imap", "IMAP poll"
        LMTP = "lmtp", "LMTP listener"
        SMTP = "smtp", "SMTP listener"

    class Status(models.TextChoices):
        RECEIVED = "received", "received, not processed yet"
        DONE = "done", "processed"
        DROPPED = "dropped", "dropped (auto-reply, bounce, loop or rate limit)"
        FAILED = "failed", "processing failed"

    # The Message-ID header as sent (angle brackets included); one made from the bytes' SHA-256
    # when the message has none or an over-long one, so a repeated delivery is still one row.
    message_id = models.CharField(max_length=255, unique=True)
    # As received, but every order secret masked (docs/mail.md "Retention"); only the header block
    # of a dropped message; emptied MAIL_RAW_RETENTION_DAYS after receipt.
    raw = models.BinaryField()
    # The hash of the secret of the orders header (the secret itself is masked in ``raw``).
    secret_hash = models.CharField(max_length=80, blank=True)
    # When the site's mail system accepted the message (docs/mail.md "When a message was received"):
    # the LMTP/SMTP transaction, the IMAP INTERNALDATE, the topmost Received: of the site's own MTA
    # (MAIL_TRUST_RECEIVED_HEADER), else the store's clock. Orders count by it, never by Date:.
    received_at = models.DateTimeField(db_index=True)
    via = models.CharField(max_length=8, choices=Via.choices)
    # The From: address, lower case ("" if there is none): unverified, it is where answers go only
    # when it is an account's address.
    sender = models.CharField(max_length=254, blank=True, db_index=True)
    # Envelope recipients when the way in knows them (the listener), else empty.
    recipients = models.JSONField(default=list, blank=True)
    # The envelope sender (SMTP MAIL FROM) when the way in knows it (the listener, ingestmail
    # --sender): None unknown, "" the null sender <> of a bounce (dropped without an answer).
    envelope_sender = models.CharField(max_length=254, null=True, blank=True)
    subject = models.CharField(max_length=255, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.RECEIVED, db_index=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    # Processing that hit a database error is tried again by the due-work sweeps from this time
    # on, with back-off (MAIL_RETRY_SECONDS doubled per attempt); set a minute after the store
    # for the first try, so that a sweep leaves a fresh message to its own task.
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Which route took it ("orders", "press", "cam", …) and what came of it, for the admin.
    route = models.CharField(max_length=16, blank=True)
    outcome = models.TextField(blank=True)
    # What the rate limit counts this message under (docs/mail.md "Limits"): "seat:<campaign>.<seat>"
    # (the right order secret), "addr:<signed reply address>", "from:<address>" (a From: the
    # site's MTA verified, MAIL_AUTHSERV_ID) or "unverified:<From: address>"; "" before screening.
    rate_key = models.CharField(max_length=300, blank=True)
    # The player told that someone sent orders for her seat with a wrong secret (capped per address).
    notice_to = models.CharField(max_length=254, blank=True)
    # The reply the site sent: "reply" (to the account of a verified message), "notice" (an answer
    # to an account for unverified mail: capped per address), "refusal" (the short refusal to an
    # unknown sender).
    reply_to = models.CharField(max_length=254, blank=True)
    reply_kind = models.CharField(max_length=16, blank=True)
    reply_body = models.TextField(blank=True)

    class Meta:
        ordering = ["received_at", "pk"]
        indexes = [models.Index(fields=["sender", "received_at"], name="mail_sender_received"),
                   models.Index(fields=["rate_key", "received_at"], name="mail_ratekey_received"),
                   models.Index(fields=["notice_to", "received_at"], name="mail_notice_received"),
                   models.Index(fields=["reply_to", "reply_kind", "received_at"], name="mail_reply_received"),
                   # The due sweep's stored mail not processed yet, not every message kept (issue 33).
                   models.Index(fields=["received_at"], condition=models.Q(status="received"),
                                name="mail_waiting")]

    def __str__(self) -> str:
        return f"{self.message_id} from {self.sender or '?'} ({self.status})"


class ImapCursor(models.Model):
    """Where the IMAP poller got to in one mailbox: the folder's UIDVALIDITY and the highest UID
    stored. Messages are fetched by UID above it, never by ``\\Seen`` — a person reading the mailbox
    (which flags what they open) hides nothing from the poller. A new UIDVALIDITY (the folder was
    rebuilt) starts again from the first UID; the store ignores Message-IDs it already holds."""

    mailbox = models.CharField(max_length=255, unique=True)  # user@host:port/folder
    uidvalidity = models.BigIntegerField()
    last_uid = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.mailbox}: UIDVALIDITY {self.uidvalidity}, last UID {self.last_uid}"
