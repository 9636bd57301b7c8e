"""Mail retention (issue 24 item 12): no order secret is stored (masked at store time, its hash
kept), dropped mail is kept without its body, raw mail is emptied after MAIL_RAW_RETENTION_DAYS
(beat's purge_raw and ``manage.py purgemail``)."""

from __future__ import annotations

import base64
import io
import quopri
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from campaign.mail import message, tasks
from campaign.mail.models import InboundMessage

from .conftest import eml
from .test_orders_by_mail import seats, send, stored  # noqa: F401 - fixtures


def _encoded(raw: bytes, cte: str) -> bytes:
    head, _, body = raw.partition(b"\r\n\r\n")
    body = base64.encodebytes(body) if cte == "base64" else quopri.encodestring(body)
    return head + f"\r\nContent-Transfer-Encoding: {cte}".encode() + b"\r\n\r\n" + body.replace(b"\n", b"\r\n")


@pytest.mark.parametrize("cte", ["8bit", "base64", "quoted-printable"])
def test_no_order_secret_is_stored_and_the_orders_still_count(ingest, seats, cte):  # noqa: F811
    c, s = seats
    empire, secret = s[1]
    raw = eml("orders.eml", sender="bob@example.com", mid="o@example.com", campaign=c.pk, seat=1, secret=secret,
              turn=1, lines="LOSSES cheapest")
    ingest(raw if cte == "8bit" else _encoded(raw, cte))
    row = InboundMessage.objects.get()
    assert row.status == "done" and row.outcome == "accepted for turn 1" and stored(empire) is not None
    kept = bytes(row.raw)
    text, _ = message.body_text(message.parse(kept))
    assert secret.encode() not in kept and secret not in text and f"#SECTOR {c.pk} 1 ******** TURN 1" in text
    assert "old-key" not in text  # the quoted header's key is masked too
    assert row.secret_hash and secret not in row.secret_hash
    # The reply carries the turn key the player answers with; the stored copy of it does not.
    [reply] = mail.outbox
    assert "#SECTOR" in reply.body and "********" in row.reply_body
    key_line = next(line for line in reply.body.splitlines() if line.startswith("#SECTOR"))
    assert key_line.split()[3] not in row.reply_body


def test_a_dropped_message_is_kept_without_its_body(ingest, bob):
    ingest(eml("bulk.eml"))
    row = InboundMessage.objects.get()
    assert row.status == "dropped" and bytes(row.raw).endswith(b"\r\n\r\n")
    assert message.parse(bytes(row.raw)).get_payload() == ""


def test_raw_mail_is_emptied_after_the_retention(ingest, bob, settings):
    settings.MAIL_RAW_RETENTION_DAYS = 30
    ingest(eml("no_orders.eml", mid="old@example.com"))
    ingest(eml("no_orders.eml", mid="new@example.com"))
    InboundMessage.objects.filter(message_id="<old@example.com>").update(
        received_at=timezone.now() - timedelta(days=31)
    )
    assert tasks.purge_raw() == 1  # beat's daily task
    old, new = InboundMessage.objects.order_by("received_at")
    assert bytes(old.raw) == b"" and old.reply_body == "" and old.outcome and old.sender == "bob@example.com"
    assert bytes(new.raw) and new.reply_body
    out = io.StringIO()
    call_command("purgemail", "--days", "1", stdout=out)  # nothing a day old yet
    assert "0 stored message(s) emptied" in out.getvalue()
    with pytest.raises(CommandError, match="at least 1"):
        call_command("purgemail", "--days", "0")


def test_retention_zero_keeps_raw_mail(ingest, bob, settings):
    settings.MAIL_RAW_RETENTION_DAYS = 0
    ingest(eml("no_orders.eml", mid="old@example.com"))
    InboundMessage.objects.update(received_at=timezone.now() - timedelta(days=400))
    assert tasks.purge_raw() == 0 and bytes(InboundMessage.objects.get().raw)
