"""The other ways in, end to end on loopback: the LMTP/SMTP listener (a real smtplib client →
aiosmtpd → the store → processed) and the IMAP poller against a fake IMAP4rev1 server."""

from __future__ import annotations

import smtplib
import socket

import pytest
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from campaign.mail import imap
from campaign.mail.listener import MailController
from campaign.mail.models import InboundMessage
from tests.dbsessions import other_sessions

from .conftest import eml
from .fakeimap import FakeImapServer, Mailbox


@pytest.fixture
def mail_settings(settings, eager_tasks):
    settings.MAIL_IN_ENABLED = True
    settings.MAIL_DOMAIN = "sector.example.org"
    settings.MAIL_ORDERS_ADDRESS = settings.MAIL_LOOP_TAG = "orders@sector.example.org"
    return settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("lmtp", [True, False], ids=["lmtp", "smtp"])
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_listener_end_to_end(mail_settings, bob, lmtp):
    port = free_port()
    controller = MailController(host="127.0.0.1", port=port, lmtp=lmtp)
    controller.start()
    try:
        client = (smtplib.LMTP if lmtp else smtplib.SMTP)("127.0.0.1", port, timeout=30)
        with client:
            refused = client.sendmail("bob@example.com", ["orders@sector.example.org"],
                                      eml("no_orders.eml", mid="listener@example.com"))
            assert refused == {}
            if connection.vendor == "postgresql":  # the listener's thread closed its connection
                assert other_sessions() == []
            with pytest.raises(smtplib.SMTPDataError) as info:
                client.sendmail("bob@example.com", ["orders@sector.example.org"], b"no header here\r\n")
            assert info.value.smtp_code == 554
    finally:
        controller.stop()
    row = InboundMessage.objects.get()
    assert row.via == ("lmtp" if lmtp else "smtp") and row.recipients == ["orders@sector.example.org"]
    assert row.status == "done" and row.reply_to == "bob@example.com"
    assert [m.to for m in mail.outbox] == [["bob@example.com"]]
    if connection.vendor == "postgresql":
        assert other_sessions() == []


def test_listener_refuses_a_non_loopback_address(db):
    with pytest.raises(CommandError, match="loopback"):
        call_command("maillistener", "--host", "0.0.0.0")
    with pytest.raises(ValueError, match="loopback"):
        MailController(host="192.0.2.1", port=8024)


@pytest.mark.parametrize("delete", [False, True], ids=["flag-seen", "delete"])
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_imap_poller_against_a_fake_mailbox(mail_settings, bob, delete):
    box = Mailbox("orders", "s3cret pass")
    box.add(eml("no_orders.eml", mid="imap1@example.com"))
    box.add(eml("no_orders.eml", mid="opened@example.com"), "\\Seen")  # opened by a person: still fetched (by UID)
    box.add(b"this is not an email\r\n")
    box.add(eml("html_only.eml"))
    with FakeImapServer(box) as server:
        mail_settings.MAIL_IMAP_HOST, mail_settings.MAIL_IMAP_PORT = "127.0.0.1", server.port
        mail_settings.MAIL_IMAP_SSL, mail_settings.MAIL_IMAP_USER = False, "orders"
        mail_settings.MAIL_IMAP_PLAIN_LOOPBACK = True
        mail_settings.MAIL_IMAP_PASSWORD, mail_settings.MAIL_IMAP_DELETE = "s3cret pass", delete
        assert imap.poll() == 3
        assert imap.poll() == 0  # nothing new is left
    rows = InboundMessage.objects.order_by("pk")
    assert [r.message_id for r in rows] == ["<imap1@example.com>", "<opened@example.com>", "<html-only-1@example.com>"]
    assert {r.via for r in rows} == {"imap"} and {r.status for r in rows} == {"done"}
    assert len(mail.outbox) == 3
    left = {m.raw.split(b"\r\n")[0]: m.flags for m in box.messages}
    if delete:  # stored ones expunged; the unparsable one stays for a person, seen
        assert left == {b"this is not an email": {"\\Seen"}}
    else:
        assert all("\\Seen" in flags for flags in left.values()) and len(box.messages) == 4
    assert any(c.startswith("UID FETCH") and "BODY.PEEK[]" in c for c in box.commands)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_imap_poller_with_a_wrong_password_stores_nothing(mail_settings):
    box = Mailbox("orders", "right")
    box.add(eml("no_orders.eml", mid="imap1@example.com"))
    with FakeImapServer(box) as server:
        mail_settings.MAIL_IMAP_HOST, mail_settings.MAIL_IMAP_PORT = "127.0.0.1", server.port
        mail_settings.MAIL_IMAP_SSL, mail_settings.MAIL_IMAP_USER, mail_settings.MAIL_IMAP_PASSWORD = (
            False,
            "orders",
            "wrong",
        )
        mail_settings.MAIL_IMAP_PLAIN_LOOPBACK = True
        with pytest.raises(CommandError, match="polling 127.0.0.1 failed"):
            call_command("pollmail")
    assert InboundMessage.objects.count() == 0 and box.messages[0].flags == set()
