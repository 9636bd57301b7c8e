"""Nothing stuck, orders timed by receipt (issue 25 items 3 and 5): a stored message a database
error left unprocessed is processed by the next due-work sweep (with back-off) and ``ingestmail``
says 75; the listener keeps the envelope sender; ``received_at`` is when the site's mail system
accepted a message, and orders accepted before a deadline but stored after it count as on time
(docs/rulings.md ML1)."""

from __future__ import annotations

import smtplib
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone

from campaign.eventhorizon.actions.turns import due_turns
from campaign.mail import actions
from campaign.mail.listener import MailController
from campaign.mail.models import InboundMessage
from campaign.models import Turn

from .conftest import eml
from .test_orders_by_mail import seats, stored  # noqa: F401 - fixtures
from .test_ways_in import free_port, mail_settings  # noqa: F401 - fixtures


@contextmanager
def table_away(name: str):
    """The table renamed for a while (inside the test's transaction, rolled back after it): a
    database error for whatever reads it, a real one from the real database."""
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {qn(name)} RENAME TO {qn(name + '_away')}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER TABLE {qn(name + '_away')} RENAME TO {qn(name)}")


@contextmanager
def clock(moment):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(timezone, "now", lambda: moment)
        yield


def test_a_message_a_database_error_left_unprocessed_is_processed_by_the_next_sweep(
        ingest, bob, django_capture_on_commit_callbacks):
    # Storing needs only the mail table; processing reads the accounts: that is what fails here.
    with table_away("auth_user"), pytest.raises(CommandError) as info:
        ingest(eml("no_orders.eml", mid="stuck@example.com"))
    assert info.value.returncode == 75 and "stored, but it could not be processed now" in str(info.value)
    row = InboundMessage.objects.get()
    assert row.status == "received" and row.attempts >= 1 and mail.outbox == []
    call_command("processdue")  # at once: the back-off has not passed
    row.refresh_from_db()
    assert row.status == "received"
    with clock(row.next_attempt_at + timedelta(seconds=1)), django_capture_on_commit_callbacks(execute=True):
        call_command("processdue")
    row.refresh_from_db()
    assert row.status == "done" and [m.to for m in mail.outbox] == [["bob@example.com"]]
    call_command("processdue")
    assert len(mail.outbox) == 1  # processed once


def test_a_redelivery_of_a_stored_unprocessed_message_processes_it(ingest, bob):
    raw = eml("no_orders.eml", mid="again@example.com")
    with table_away("auth_user"), pytest.raises(CommandError):
        ingest(raw)
    out = ingest(raw)  # the MTA delivers it again after the 75
    assert "already stored" in out and "done" in out
    assert InboundMessage.objects.get().status == "done" and len(mail.outbox) == 1


def test_retries_end_as_failed_after_the_limit(ingest, bob, settings):
    settings.MAIL_RETRY_LIMIT = 2
    with table_away("auth_user"):
        with pytest.raises(CommandError):
            ingest(eml("no_orders.eml", mid="never@example.com"))
        row = InboundMessage.objects.get()
        with clock(row.next_attempt_at + timedelta(hours=2)):
            actions.requeue_pending()
    row.refresh_from_db()
    assert row.status == "failed" and "gave up after 2 attempts" in row.outcome


@pytest.fixture
def late_turn(seats, settings, eager_tasks):  # noqa: F811
    """Turn 1 of the seats' campaign, its deadline five minutes ago, not processed yet."""
    c, s = seats
    settings.MAIL_IN_ENABLED, settings.MAIL_DOMAIN = True, "sector.example.org"
    settings.MAIL_ORDERS_ADDRESS = settings.MAIL_LOOP_TAG = "orders@sector.example.org"
    deadline = timezone.now().replace(microsecond=0) - timedelta(minutes=5)
    Turn.objects.filter(campaign=c, number=1).update(deadline=deadline)
    return c, s, deadline


def orders_mail(c, secret, accepted) -> bytes:
    received = f"Received: from mail.example.com by mx.sector.example.org (Postfix) with ESMTPS id 4F1; " \
               f"{accepted.strftime('%a, %d %b %Y %H:%M:%S +0000')}\r\n"
    return received.encode() + eml("orders.eml", sender="bob@example.com", mid="late@example.com", campaign=c.pk,
                                   seat=1, secret=secret, turn=1, lines="LOSSES cheapest")


def test_orders_accepted_before_the_deadline_but_stored_after_it_count_as_on_time(
        late_turn, settings, django_capture_on_commit_callbacks):
    """ML1: the mail system accepted the orders a minute before the deadline; a database outage
    kept them out of the store until after it. The due-work sweep processes them before the turn."""
    c, s, deadline = late_turn
    settings.MAIL_TRUST_RECEIVED_HEADER = True
    empire, secret = s[1]
    row, _ = actions.ingest(orders_mail(c, secret, deadline - timedelta(minutes=1)), via="stdin")
    assert row.received_at == deadline - timedelta(minutes=1)  # not the store's clock
    assert due_turns() == []  # the turn waits for mail accepted by its deadline
    with clock(timezone.now() + timedelta(minutes=2)), django_capture_on_commit_callbacks(execute=True):
        call_command("processdue")
    row.refresh_from_db()
    assert row.status == "done" and row.outcome == "accepted for turn 1"
    orders = stored(empire) or empire.turnorders_set.get(turn__number=1)
    assert orders.received_at == deadline - timedelta(minutes=1)
    c.refresh_from_db()
    assert c.turn == 2  # and the turn was processed after them, with them


def test_without_a_trusted_received_header_the_store_clock_counts(late_turn):
    c, s, deadline = late_turn
    row, _ = actions.ingest(orders_mail(c, s[1][1], deadline - timedelta(minutes=1)), via="stdin")
    assert row.received_at > deadline
    assert due_turns() != []  # nothing the mail system accepted by the deadline is waiting


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_listener_keeps_the_envelope_sender_and_drops_a_bounce(mail_settings, bob):  # noqa: F811
    port = free_port()
    controller = MailController(host="127.0.0.1", port=port, lmtp=True)
    controller.start()
    try:
        with smtplib.LMTP("127.0.0.1", port, timeout=30) as client:
            before = timezone.now()
            client.sendmail("", ["orders@sector.example.org"], eml("no_orders.eml", mid="bounce@example.com"))
            client.sendmail(
                "bob@example.com", ["orders@sector.example.org"], eml("no_orders.eml", mid="bob@example.com")
            )
    finally:
        controller.stop()
    bounce, person = InboundMessage.objects.order_by("pk")
    assert bounce.envelope_sender == "" and bounce.status == "dropped" and "null envelope sender" in bounce.outcome
    assert person.envelope_sender == "bob@example.com" and person.status == "done"
    assert before <= bounce.received_at <= person.received_at  # the LMTP transactions' time
    assert [m.to for m in mail.outbox] == [["bob@example.com"]]  # the bounce got no answer


def test_ingestmail_takes_the_envelope_sender(ingest, bob):
    ingest(eml("no_orders.eml", mid="b@example.com"), "--sender", "")
    row = InboundMessage.objects.get()
    assert row.envelope_sender == "" and row.status == "dropped" and mail.outbox == []
