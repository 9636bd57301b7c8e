"""The IMAP poller over verified TLS, tracked by UID, sizes asked first (issue 25 item 4, issue 24
item 13). Against ``fakeimap.py`` (a real IMAP4rev1 conversation over loopback, with real TLS from
a self-signed certificate made here with openssl); the real Dovecot is the integration test's."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaign.mail import imap
from campaign.mail.models import ImapCursor, InboundMessage

from .conftest import eml
from .fakeimap import FakeImapServer, Mailbox

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1 (what a careless or hostile server shows)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return str(cert), str(key)


@pytest.fixture
def imap_settings(settings, eager_tasks):
    settings.MAIL_IN_ENABLED = True
    settings.MAIL_DOMAIN = "sector.example.org"
    settings.MAIL_ORDERS_ADDRESS = settings.MAIL_LOOP_TAG = "orders@sector.example.org"
    settings.MAIL_IMAP_HOST, settings.MAIL_IMAP_USER, settings.MAIL_IMAP_PASSWORD = "127.0.0.1", "orders", "pw"
    settings.MAIL_IMAP_CAFILE, settings.MAIL_IMAP_PLAIN_LOOPBACK = "", False
    return settings


def box_with_one() -> Mailbox:
    box = Mailbox("orders", "pw")
    box.add(eml("no_orders.eml", mid="tls@example.com"))
    return box


@pytest.mark.parametrize("implicit", [True, False], ids=["imaps", "starttls"])
def test_a_self_signed_certificate_is_refused_unless_configured(imap_settings, certificate, bob, implicit):
    box = box_with_one()
    with FakeImapServer(box, certfile=certificate[0], keyfile=certificate[1], implicit=implicit) as server:
        imap_settings.MAIL_IMAP_PORT, imap_settings.MAIL_IMAP_SSL = server.port, implicit
        with pytest.raises(ssl.SSLCertVerificationError):
            imap.poll()
        assert box.logins == [] and InboundMessage.objects.count() == 0  # the password was never sent
        imap_settings.MAIL_IMAP_CAFILE = certificate[0]  # the deployer says which CA to trust
        assert imap.poll() == 1
    assert box.logins == [True] and InboundMessage.objects.get().status == "done"
    if not implicit:
        assert box.commands.index("STARTTLS") < box.commands.index("LOGIN orders ***")


def test_tls_context_verifies_by_default(imap_settings):
    context = imap.tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def test_no_starttls_offered_means_no_password_sent(imap_settings, bob):
    box = box_with_one()
    with FakeImapServer(box) as server:  # plain IMAP, no STARTTLS on offer
        imap_settings.MAIL_IMAP_PORT, imap_settings.MAIL_IMAP_SSL = server.port, False
        with pytest.raises(CommandError, match="offers no STARTTLS"):
            call_command("pollmail")
        assert box.logins == []
        imap_settings.MAIL_IMAP_PLAIN_LOOPBACK = True  # the server is on this host: allowed
        assert imap.poll() == 1
    assert box.logins == [False]


def test_plain_login_is_for_a_loopback_server_only(imap_settings):
    imap_settings.MAIL_IMAP_PLAIN_LOOPBACK, imap_settings.MAIL_IMAP_SSL = True, False
    imap_settings.MAIL_IMAP_HOST = "imap.example.com"
    with pytest.raises(imap.InsecureConnection, match="loopback"):
        imap.connect()


@pytest.fixture
def plain_box(imap_settings):
    imap_settings.MAIL_IMAP_SSL, imap_settings.MAIL_IMAP_PLAIN_LOOPBACK = False, True
    box = Mailbox("orders", "pw")
    with FakeImapServer(box) as server:
        imap_settings.MAIL_IMAP_PORT = server.port
        yield box


def test_a_message_opened_by_a_person_is_still_fetched(plain_box, bob):
    plain_box.add(eml("no_orders.eml", mid="a@example.com"))
    assert imap.poll() == 1
    plain_box.add(eml("no_orders.eml", mid="b@example.com"), "\\Seen")  # someone read it in the mailbox first
    assert imap.poll() == 1
    assert imap.poll() == 0
    assert list(InboundMessage.objects.order_by("pk").values_list("message_id", flat=True)) == [
        "<a@example.com>", "<b@example.com>"]
    cursor = ImapCursor.objects.get()
    assert cursor.last_uid == plain_box.messages[-1].uid and cursor.uidvalidity == 7
    # Only the new UIDs are fetched the second time.
    fetched = [c for c in plain_box.commands if "BODY.PEEK[]" in c]
    assert len(fetched) == 2


def test_a_new_uidvalidity_reads_the_folder_again(plain_box, bob):
    plain_box.add(eml("no_orders.eml", mid="a@example.com"))
    assert imap.poll() == 1
    plain_box.uidvalidity = 8  # the folder was rebuilt: UIDs mean something else now
    plain_box.add(eml("no_orders.eml", mid="c@example.com"))
    assert imap.poll() == 1  # a@ again (a duplicate, ignored) and c@
    assert ImapCursor.objects.get().uidvalidity == 8 and InboundMessage.objects.count() == 2


def test_the_size_is_asked_before_fetching(plain_box, imap_settings, bob):
    imap_settings.MAIL_MAX_BYTES = 2000
    plain_box.add(eml("no_orders.eml", mid="big@example.com") + b"x" * 5000)
    plain_box.add(eml("no_orders.eml", mid="small@example.com"))
    assert imap.poll() == 1
    big, small = plain_box.messages
    assert not any(c.startswith(f"UID FETCH {big.uid} (BODY.PEEK[])") for c in plain_box.commands)
    assert "\\Seen" in big.flags  # left for a person, not fetched again
    assert InboundMessage.objects.get().message_id == "<small@example.com>"


def test_received_at_is_the_internaldate(plain_box, bob):
    plain_box.add(eml("no_orders.eml", mid="a@example.com"), internaldate=" 1-Jan-2026 13:10:10 +0100")
    with pytest.MonkeyPatch.context() as mp:  # "now" is a little later: the poll ran after a backlog
        from django.utils import timezone
        mp.setattr(timezone, "now", lambda: datetime(2026, 1, 1, 12, 30, tzinfo=UTC))
        imap.poll()
    assert InboundMessage.objects.get().received_at == datetime(2026, 1, 1, 12, 10, 10, tzinfo=UTC)


@pytest.mark.parametrize("value, expected", [
    ("28-Nov-2026 13:10:10 +0000", datetime(2026, 11, 28, 13, 10, 10, tzinfo=UTC)),
    (" 1-Feb-2026 00:00:01 -0200", datetime(2026, 2, 1, 2, 0, 1, tzinfo=UTC)),
    ("32-Feb-2026 00:00:01 +0000", None), ("yesterday", None), ("01-Foo-2026 00:00:00 +0000", None),
])
def test_internaldate_is_read_without_the_locale(value, expected):
    assert imap.internaldate(value) == expected


def test_pollmail_reports_a_database_outage_in_one_line(tmp_path, bob):
    """As cron runs it: a process, the database gone (a file that cannot be opened): one line on
    standard error, no traceback, a non-zero exit, and the message left in the mailbox."""
    import os
    import sys
    from pathlib import Path

    box = Mailbox("orders", "pw")
    box.add(eml("no_orders.eml", mid="outage@example.com"))
    root = Path(__file__).resolve().parents[2]
    with FakeImapServer(box) as server:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path}/no-such-dir/db.sqlite3", "CELERY_BROKER_URL": "",
               "DJANGO_SETTINGS_MODULE": "config.settings", "MAIL_IMAP_HOST": "127.0.0.1",
               "MAIL_IMAP_PORT": str(server.port), "MAIL_IMAP_SSL": "0", "MAIL_IMAP_PLAIN_LOOPBACK": "1",
               "MAIL_IMAP_USER": "orders", "MAIL_IMAP_PASSWORD": "pw"}
        done = subprocess.run([sys.executable, "manage.py", "pollmail"], cwd=root, env=env, capture_output=True,
                              timeout=120)
    assert done.returncode != 0 and b"Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and b"database is not available" in done.stderr
    assert box.messages[0].flags == set()
