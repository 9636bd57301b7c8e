"""``manage.py ingestmail``: the store, the screening and the replies (issue 18 items 2 and 3)."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone

from campaign.mail import actions
from campaign.mail.models import InboundMessage

from .conftest import eml


def test_html_only_gets_a_polite_refusal_at_the_registered_address(ingest, bob):
    out = ingest(eml("html_only.eml"))
    row = InboundMessage.objects.get()
    assert "stored" in out and row.status == "done" and row.route == "html"
    assert row.message_id == "<html-only-1@example.com>" and row.via == "stdin" and row.sender == "bob@example.com"
    assert bytes(row.raw).startswith(b"From: Bob")
    [reply] = mail.outbox
    assert reply.to == ["bob@example.com"] and "plain text" in reply.body
    message = reply.message()
    assert message["Auto-Submitted"] == "auto-replied" and message["In-Reply-To"] == "<html-only-1@example.com>"
    assert message["X-Loop"] == "orders@sector.example.org"


@pytest.mark.parametrize("name, why", [
    ("loop_x_loop.eml", "X-Loop"), ("auto_reply.eml", "Auto-Submitted"), ("bounce.eml", "mailer-daemon"),
    ("bulk.eml", "Precedence: bulk"),
])
def test_machines_and_loops_are_dropped_without_an_answer(ingest, bob, name, why):
    ingest(eml(name))
    row = InboundMessage.objects.get()
    assert row.status == "dropped" and why.lower() in row.outcome.lower()
    assert mail.outbox == [] and row.reply_to == ""


def test_our_own_reply_fed_back_in_is_dropped(ingest, bob):
    ingest(eml("no_orders.eml", mid="first@example.com"))
    [reply] = mail.outbox
    ingest(reply.message().as_bytes())  # an auto-forward of our answer comes back
    assert InboundMessage.objects.order_by("pk").last().status == "dropped"
    assert len(mail.outbox) == 1


def test_duplicate_message_id_is_stored_and_answered_once(ingest, bob):
    raw = eml("no_orders.eml", mid="same@example.com")
    ingest(raw)
    out = ingest(raw)
    assert "duplicate Message-ID ignored" in out
    assert InboundMessage.objects.count() == 1 and len(mail.outbox) == 1
    assert "#SECTOR" in mail.outbox[0].body


def test_a_message_without_message_id_is_keyed_by_its_bytes(ingest, bob):
    raw = eml("no_orders.eml", mid="x@example.com").replace(b"Message-ID: <x@example.com>\r\n", b"")
    ingest(raw)
    ingest(raw)
    row = InboundMessage.objects.get()
    assert row.message_id.endswith("@sha256.invalid>")


@pytest.mark.parametrize("raw", [b"", b"   \n\n", b"just some words\nand more\n", b"\x00\x01binary"])
def test_unparsable_input_is_a_clear_error_for_the_mta(db, raw):
    with pytest.raises(CommandError) as info:
        call_command("ingestmail", stdin=io.BytesIO(raw))
    assert info.value.returncode == 65 and "not an email" in str(info.value)
    assert InboundMessage.objects.count() == 0


def test_a_message_over_the_size_limit_is_refused(db, settings):
    settings.MAIL_MAX_BYTES = 200
    with pytest.raises(CommandError) as info:
        call_command("ingestmail", stdin=io.BytesIO(eml("no_orders.eml", mid="big@example.com") + b"x" * 300))
    assert info.value.returncode == 65 and "MAIL_MAX_BYTES" in str(info.value)


def test_database_failure_is_a_temporary_failure_for_the_mta(db):
    with connection.cursor() as cursor:  # the store is gone (rolled back after the test)
        cursor.execute(f"DROP TABLE {connection.ops.quote_name(InboundMessage._meta.db_table)}")
    with pytest.raises(CommandError) as info:
        call_command("ingestmail", stdin=io.BytesIO(eml("no_orders.eml", mid="t@example.com")))
    assert info.value.returncode == 75 and "try again later" in str(info.value)


def test_unknown_sender_gets_one_short_refusal_without_its_text(ingest):
    ingest(eml("stranger.eml", sender="stranger@elsewhere.example", mid="s1@elsewhere.example"))
    ingest(eml("stranger.eml", sender="stranger@elsewhere.example", mid="s2@elsewhere.example"))
    [refusal] = mail.outbox
    assert refusal.to == ["stranger@elsewhere.example"]
    # Nothing of the message travels on (not the subject either): the site is no relay.
    assert "spam.example" not in refusal.body + refusal.subject and "watches" not in refusal.subject
    kinds = list(InboundMessage.objects.order_by("pk").values_list("reply_kind", flat=True))
    assert kinds == ["refusal", ""]


def test_no_refusal_to_the_sites_own_domain(ingest):
    ingest(eml("stranger.eml", sender="someone@sector.example.org", mid="own@x"))
    assert mail.outbox == [] and InboundMessage.objects.get().status == "done"


def test_unknown_refusals_can_be_switched_off(ingest, settings):
    settings.MAIL_UNKNOWN_REFUSAL_SECONDS = 0
    ingest(eml("stranger.eml", sender="stranger@elsewhere.example", mid="s1@elsewhere.example"))
    assert mail.outbox == []


def test_rate_limit_per_sender(ingest, bob, carol, settings):
    settings.MAIL_RATE_LIMIT = 2
    for n in range(3):
        ingest(eml("no_orders.eml", mid=f"r{n}@example.com"))
    ingest(eml("no_orders.eml", mid="c@example.com").replace(b"bob@example.com", b"carol@example.com"))
    statuses = list(InboundMessage.objects.order_by("pk").values_list("sender", "status"))
    assert statuses == [("bob@example.com", "done")] * 2 + [("bob@example.com", "dropped"),
                                                             ("carol@example.com", "done")]
    assert [m.to for m in mail.outbox] == [["bob@example.com"]] * 2 + [["carol@example.com"]]


def test_pending_messages_are_processed_by_the_sweep(db, eager_tasks, django_capture_on_commit_callbacks, bob):
    # Stored, but the tasks were lost (no on-commit run here); one just now, left to its own task.
    actions.ingest(eml("no_orders.eml", mid="lost@example.com"), via="imap")
    actions.ingest(eml("no_orders.eml", mid="lost2@example.com"), via="imap")
    InboundMessage.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))  # stored a minute ago
    actions.ingest(eml("no_orders.eml", mid="now@example.com"), via="imap")
    with django_capture_on_commit_callbacks(execute=True):
        assert actions.requeue_pending() == 2
    assert InboundMessage.objects.get(message_id="<now@example.com>").status == "received"
    InboundMessage.objects.filter(message_id="<now@example.com>").delete()
    assert set(InboundMessage.objects.values_list("status", flat=True)) == {"done"}
    assert len(mail.outbox) == 2
    assert actions.process(InboundMessage.objects.first().pk) == "done"  # a second delivery: nothing
    assert len(mail.outbox) == 2


def test_every_email_the_site_sends_carries_our_x_loop(db, settings):
    from django.core.mail import EmailMessage, send_mail

    settings.MAIL_LOOP_TAG = "loop@sector.example.org"
    send_mail("s", "b", None, ["x@example.com"])
    EmailMessage("s", "b", to=["y@example.com"]).send()
    assert [m.message()["X-Loop"] for m in mail.outbox] == ["loop@sector.example.org"] * 2


@pytest.mark.parametrize("enabled", [True, False])
def test_turn_reports_say_where_orders_go_once_mail_reaches_the_site(
        small_campaign_in_setup, settings, eager_tasks, django_capture_on_commit_callbacks, enabled):
    from tests.eventhorizon.setup_round import finish_setup

    settings.MAIL_IN_ENABLED = enabled
    settings.MAIL_ORDERS_ADDRESS = "orders@sector.example.org"
    with django_capture_on_commit_callbacks(execute=True):
        finish_setup(small_campaign_in_setup)
    reports = [m for m in mail.outbox if "has been processed" in m.subject]
    assert {tuple(m.to) for m in reports} >= {("bob@example.com",), ("carol@example.com",)}
    assert all(m.reply_to == (["orders@sector.example.org"] if enabled else []) for m in reports)
    assert all(m.message()["X-Loop"] for m in reports)


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
def test_exit_status_of_the_real_command_is_what_an_mta_expects(tmp_path):
    """Run as an MTA runs it (a process, the message on standard input): 65 for input that is no
    message, 75 when the database cannot take it now (here: a database file that cannot be opened)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path}/no-such-dir/db.sqlite3",
           "CELERY_BROKER_URL": "", "DJANGO_SETTINGS_MODULE": "config.settings"}

    def run(raw: bytes) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "manage.py", "ingestmail"], input=raw, cwd=root, env=env,
                              capture_output=True, timeout=120)

    garbage = run(b"hello\n")
    assert garbage.returncode == 65 and b"not an email" in garbage.stderr
    later = run(eml("no_orders.eml", mid="tempfail@example.com"))
    assert later.returncode == 75 and b"try again later" in later.stderr


def test_auto_submitted_no_is_a_person(ingest, bob):
    raw = eml("no_orders.eml", mid="person@example.com").replace(
        b"Subject: hello", b"Auto-Submitted: no\r\nSubject: hello"
    )
    ingest(raw)
    assert InboundMessage.objects.get().status == "done" and len(mail.outbox) == 1
