"""Mail in through real mail servers (issue 25, items 1 and 2): Debian's Postfix and Dovecot, set
up with exactly the snippet files of ``deploy/`` that docs/mail.md shows (only paths, ports, the
user and the domain changed: ``servers.render``), carry real mail to the site by each way in —

- the pipe: Postfix's ``pipe(8)`` service from deploy/postfix/master.cf, run as the site's user,
  through deploy/sector-ingest;
- LMTP: ``manage.py maillistener --lmtp`` started exactly as deploy/systemd/… says;
- IMAP: Dovecot from deploy/dovecot/sector.conf, polled by the line of deploy/cron/sector-pollmail;

— and the site's answers are read from the players' real mailboxes. The site is deployed as it
would be: its own database (a file owned by its user on SQLite, its own database on PostgreSQL,
whichever the test run uses), an environment file only its user can read, no broker (tasks run
in-process in the mail command), Django sending through the same Postfix.

Root is needed (a system user for the site, servers on loopback ports). Without the programs, or
not as root, the tests are skipped with the reason, except in CI (CI=true), where they fail.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import shlex
import shutil
import signal
import smtplib
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from . import servers
from .conftest import eml
from .servers import DEPLOY, DOMAIN, REPO, Dovecot, Postfix, render, run, wait_for

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
SITE_USER = "sectormail"
IMAP_PASSWORD = "poll the orders box"
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}  # what a pipe, a unit or cron starts with



def real_servers(test):
    """A test that runs the servers: marked ``mailservers``, and ``slow`` (not in ``make test-fast``)."""
    return pytest.mark.slow(pytest.mark.mailservers(test))


def site_has(setting: str) -> bool:
    """Whether the site has this setting (the IMAP TLS and Received: settings of issue 25 items
    4 and 5 arrive separately; with them the test checks more)."""
    from django.conf import settings

    return hasattr(settings, setting)


def _unavailable() -> str | None:
    missing = servers.missing_programs()
    if missing:
        return ("the real-servers mail tests need Debian's postfix and dovecot-imapd, dovecot-lmtpd "
                f"(missing: {', '.join(missing)}; .ci/run installs them)")
    if os.geteuid() != 0:
        return "the real-servers mail tests run as root (they add a system user and start servers)"
    return None


def _site_user() -> None:
    if run("getent", "passwd", SITE_USER, check=False).returncode != 0:
        run("useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
            "--shell", "/usr/sbin/nologin", SITE_USER)


class Deployment:
    """The site as a deployer sets it up, with the mail servers around it."""

    def __init__(self, root: Path):
        self.root = root
        self.site = root / "site"
        self.site.mkdir(mode=0o700)
        shutil.chown(self.site, SITE_USER, SITE_USER)
        self.env_file = self.site / "env"
        self.database = SiteDatabase(self.site)
        self.dovecot = Dovecot(root, site_user=SITE_USER, password=IMAP_PASSWORD)
        self.postfix = Postfix(root, site_user=SITE_USER, env_file=self.env_file)
        settings = {
            "SECRET_KEY": "real-servers-test-key-not-a-secret", "DEBUG": "0",
            "DATABASE_URL": self.database.url,
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(self.postfix.port),
            "DEFAULT_FROM_EMAIL": '"Sector Command <noreply@sector.test>"',
            "SITE_URL": "https://sector.test", "MAIL_IN_ENABLED": "1", "MAIL_DOMAIN": DOMAIN,
            "MAIL_IMAP_HOST": "127.0.0.1", "MAIL_IMAP_PORT": str(self.dovecot.imap_port),
            "MAIL_IMAP_USER": "orders", "MAIL_IMAP_PASSWORD": f'"{IMAP_PASSWORD}"', "MAIL_IMAP_SSL": "0",
            # STARTTLS on port 143, verified against the CA the test made (where the site has it)
            "MAIL_IMAP_CAFILE": str(self.dovecot.ca),
            # the pipe: received_at from the Received: header Postfix adds (where the site has it)
            "MAIL_TRUST_RECEIVED_HEADER": "1",
        }
        if not (REPO / ".venv" / "bin" / "python").exists():
            settings["SECTOR_PYTHON"] = sys.executable
        self.env_file.write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
        shutil.chown(self.env_file, "root", SITE_USER)  # as docs/mail.md says: root:sector, 640
        os.chmod(self.env_file, 0o640)

    def start(self) -> None:
        self.dovecot.start()
        self.postfix.start()
        self.players = json.loads(self.as_site("tests/mail/realsite.py", "setup").stdout)
        self.revision = 0  # of bob's orders for the turn: each set accepted adds one

    def stop(self) -> None:
        self.postfix.stop()
        self.dovecot.stop()
        self.database.drop()

    def as_site(self, *args, check=True) -> subprocess.CompletedProcess:
        """``python args…`` in the checkout as the site's user, with its environment file loaded."""
        script = 'set -a; . "$0"; set +a; exec "${SECTOR_PYTHON:-.venv/bin/python}" "$@"'
        # generous: the set-up migrates a database and plays a turn, on a machine that may be busy
        return run("/bin/sh", "-c", script, self.env_file, *args, check=check, cwd=REPO, env=ENV,
                   user=SITE_USER, group=SITE_USER, extra_groups=[], timeout=600)

    def state(self) -> dict:
        return json.loads(self.as_site("tests/mail/realsite.py", "state").stdout)

    @staticmethod
    def messages(state: dict, message_id: str) -> list[dict]:
        return [m for m in state["messages"] if m["message_id"] == f"<{message_id}>"]

    def send(self, sender: str, recipient: str, raw: bytes) -> None:
        with smtplib.SMTP("127.0.0.1", self.postfix.port, timeout=30) as smtp:
            assert smtp.sendmail(sender, [recipient], raw) == {}

    def send_orders(self, mid: str, lines: str = "LOSSES cheapest") -> None:
        p = self.players
        self.send("bob@players.test", f"orders@{DOMAIN}",
                  eml("orders.eml", sender="bob@players.test", mid=mid, campaign=p["campaign"],
                      seat=p["seat"], secret=p["secret"], turn=p["turn"], lines=lines))

    def send_press_reply(self, mid: str, text: str) -> str:
        """carol answers bob's press email: to its signed Reply-To, press+<conversation>.<seat>.<sig>@."""
        [press] = self.postfix.wait_for_mail("carol", lambda m: "press from" in m["subject"], "bob's press email")
        address = press["Reply-To"].addresses[0].addr_spec
        assert address.startswith("press+") and address.endswith(f"@{DOMAIN}")
        raw = eml("press_reply.eml", sender="carol@players.test", to=address, mid=mid)
        self.send("carol@players.test", address, raw.replace(b"Agreed: you take the north.", text.encode()))
        return address

    def wait_for_answer(self, mid: str, subject: str) -> list:
        """bob's mailbox: the site's answer to the message ``mid`` (In-Reply-To)."""
        return self.postfix.wait_for_mail(
            "bob", lambda m: m["In-Reply-To"] == f"<{mid}>" and subject in m["subject"], f"the answer to {mid}")

    def check_way_in(self, way: str, via: str, then=None) -> None:
        """Orders from bob, a press reply from carol and a bounce through ``way``; bob gets the two
        answers, the bounce is dropped unanswered.
        ``then``: what makes the site fetch them, once the mail system has them (a poll)."""
        self.send_orders(
            f"{way}-orders@players.test",
            lines=f"LOSSES cheapest\nINITIATIVE {'first' if way != 'lmtp' else 'last'}",
        )
        address = self.send_press_reply(f"{way}-press@players.test", f"Agreed, by {way}: you take the north.")
        # a bounce: the null envelope sender (MAIL FROM:<>) is all that says so
        self.send("", f"orders@{DOMAIN}", eml("no_orders.eml", mid=f"{way}-bounce@players.test").replace(
            b"bob@example.com", b"bob@players.test"))
        self.drain()
        if then:
            then()
        [answer] = self.wait_for_answer(f"{way}-orders@players.test", "accepted")
        assert answer["Auto-Submitted"] == "auto-replied" and answer["X-Loop"]
        assert "ACCEPTED" in answer.get_content()
        # the press reply is posted, and bob (the other seat of the conversation) gets it by mail
        self.postfix.wait_for_mail("bob", lambda m: f"Agreed, by {way}" in m.get_body(("plain",)).get_content(),
                                   f"carol's press reply by {way}")
        state = self.state()
        self.revision += 1
        assert state["orders_revision"] == self.revision
        assert f"Agreed, by {way}: you take the north." in state["press"]
        [orders] = self.messages(state, f"{way}-orders@players.test")
        [press] = self.messages(state, f"{way}-press@players.test")
        assert (orders["via"], orders["status"], orders["route"]) == (via, "done", "orders"), orders
        assert (press["via"], press["status"], press["route"]) == (via, "done", "press"), press
        assert press["outcome"] == "press message posted"
        [bounce] = self.messages(state, f"{way}-bounce@players.test")
        assert (bounce["via"], bounce["status"]) == (via, "dropped"), bounce
        assert not [m for m in self.postfix.mailbox("bob") if m["In-Reply-To"] == f"<{way}-bounce@players.test>"]
        if via != "imap":
            assert press["recipients"] == [address]

    def drain(self) -> None:
        """Wait until Postfix's queue is empty (every message handed on, none deferred)."""
        wait_for("Postfix's queue to empty", lambda: not self.postfix.queue_ids(), 120, self.postfix.logtext)


class SiteDatabase:
    """The deployed site's own database, on the engine this test run uses."""

    def __init__(self, site: Path):
        url = os.environ.get("DATABASE_URL", "")
        self.postgres = url.startswith(("postgres://", "postgresql://"))
        if self.postgres:
            import dj_database_url

            config = dj_database_url.parse(url)
            # One per pytest-xdist process (gw0, gw1, …), as the test databases are: this module's
            # tests may run in two processes at once, and each one's fixture drops the database.
            worker = os.environ.get("PYTEST_XDIST_WORKER", "")
            self.name = f"{config['NAME']}_mailsite" + (f"_{worker}" if worker else "")
            self.url = url.rsplit("/", 1)[0] + "/" + self.name
            self.admin = url.rsplit("/", 1)[0] + "/postgres"
            self._sql(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)', f'CREATE DATABASE "{self.name}"')
        else:
            self.path = site / "db.sqlite3"
            self.url = f"sqlite:///{self.path}"

    def _sql(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.admin, autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)

    def outage(self, down: bool) -> None:
        """Make the database unavailable to the site (or available again)."""
        if self.postgres:
            self._sql(f'ALTER DATABASE "{self.name}" WITH ALLOW_CONNECTIONS {"false" if down else "true"}')
        else:
            # the site's user may no longer open the file (root, running the test, still may)
            os.chmod(self.path, 0o000 if down else 0o600)

    def drop(self) -> None:
        if self.postgres:
            self._sql(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def deployment():
    reason = _unavailable()
    if reason:
        if IN_CI:
            pytest.fail(f"the real-servers mail tests must run in CI: {reason}", pytrace=False)
        pytest.skip(reason)
    _site_user()
    root = Path(tempfile.mkdtemp(prefix="sector-mailtest-"))
    os.chmod(root, 0o755)  # the servers' own users and the site's user go through it
    site = Deployment(root)
    try:
        site.start()
        yield site
    except BaseException:
        print(site.postfix.logtext(), site.dovecot.logtext(), sep="\n--- dovecot ---\n")
        raise
    finally:
        site.stop()
        shutil.rmtree(root, ignore_errors=True)


def test_the_docs_show_every_snippet_verbatim():
    """docs/mail.md shows each file of deploy/ whole, so what the docs say is what is tested here."""
    docs = (REPO / "docs" / "mail.md").read_text(encoding="utf-8")
    blocks = [b.strip("\n") for b in re.findall(r"```[a-z]*\n(.*?)```", docs, re.S)]
    files = sorted(p for p in DEPLOY.rglob("*") if p.is_file())
    assert files
    for path in files:
        assert path.read_text(encoding="utf-8").strip("\n") in blocks, f"docs/mail.md does not show {path}"


@real_servers
def test_the_pipe_runs_as_the_sites_user_and_answers(deployment):
    """Orders and a press reply (press+…@) through Postfix's pipe(8) service and sector-ingest."""
    deployment.postfix.use("pipe")
    deployment.check_way_in("pipe", "stdin")
    log = deployment.postfix.logtext()
    assert re.search(r"to=<press\+[0-9.]+[0-9a-f]{20}@sector\.test>, relay=sector, .*status=sent", log), log


@real_servers
def test_the_wrapper_run_by_another_user_asks_to_try_again(deployment):
    """An alias pipe runs as nobody, who cannot read the environment file: sector-ingest exits 75
    (Postfix keeps the message), never the status 2 of a shell that failed (a bounce)."""
    result = run(DEPLOY / "sector-ingest", "--env", deployment.env_file, check=False, cwd="/", env=ENV,
                 user="nobody", group="nogroup", extra_groups=[], input="Subject: x\n\nhello\n")
    assert result.returncode == 75, result
    assert f"cannot read {deployment.env_file} as nobody; try again later" in result.stderr


@real_servers
def test_a_database_outage_on_the_pipe_is_deferred_then_delivered_once(deployment):
    deployment.postfix.use("pipe")
    mid = "outage-orders@players.test"
    deployment.database.outage(True)
    try:
        deployment.send_orders(mid, lines="LOSSES cheapest\nINITIATIVE last")
        # the wrapper exits 75: Postfix keeps the message (deferred, not bounced)
        log = wait_for("the pipe's delivery to be deferred",
                       lambda: re.search(r"relay=sector, .*status=deferred \((.*)\)", deployment.postfix.logtext()),
                       40, deployment.postfix.logtext)
        assert "could not store the message now" in log[1] or "try again later" in log[1], log[0]
        assert not re.search(r"relay=sector, .*status=bounced", deployment.postfix.logtext())
        assert len(deployment.postfix.queue_ids()) == 1
    finally:
        restored = datetime.now(UTC)
        deployment.database.outage(False)
    deployment.postfix.flush()
    deployment.drain()
    [answer] = deployment.wait_for_answer(mid, "accepted")
    deployment.postfix.flush()  # once more: nothing is left to deliver twice
    deployment.drain()
    state = deployment.state()
    [row] = deployment.messages(state, mid)
    if site_has("MAIL_TRUST_RECEIVED_HEADER"):
        # timed by when Postfix accepted it (its Received: header), not when the site could store it
        assert datetime.fromisoformat(row["received_at"]) < restored, row
    deployment.revision += 1
    assert state["orders_revision"] == deployment.revision
    assert len([m for m in deployment.postfix.mailbox("bob") if m["In-Reply-To"] == f"<{mid}>"]) == 1


@real_servers
def test_the_lmtp_listener_from_the_systemd_unit_answers(deployment):
    """maillistener started exactly as deploy/systemd/sector-maillistener.service says (as its
    User=, with its EnvironmentFile= and WorkingDirectory=), Postfix handing to it over LMTP."""
    port = servers.free_port()
    unit = configparser.ConfigParser(interpolation=None)
    unit.optionxform = str
    unit.read_string(render("systemd/sector-maillistener.service", {
        "/etc/sectorcommand/env": str(deployment.env_file), "/srv/sectorcommand": str(REPO),
        "User=sector": f"User={SITE_USER}", "Group=sector": f"Group={SITE_USER}", "8024": str(port)}))
    service = unit["Service"]
    env = dict(ENV, **_environment_file(Path(service["EnvironmentFile"])))
    listener = subprocess.Popen(shlex.split(service["ExecStart"]), cwd=service["WorkingDirectory"], env=env,
                                user=service["User"], group=service["Group"], extra_groups=[],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        servers._wait_port(port, timeout=60)
        deployment.postfix.use("lmtp", port)
        deployment.check_way_in("lmtp", "lmtp")
    finally:
        listener.send_signal(signal.SIGTERM)
        out, _ = listener.communicate(timeout=30)
    assert "listening (LMTP)" in out, out


@real_servers
def test_the_imap_poll_from_cron_answers(deployment):
    """Postfix hands the site's mail to Dovecot (LMTP); the cron line's pollmail fetches it over
    IMAP as the site's user."""
    deployment.postfix.use("imap", deployment.dovecot.lmtp_port)
    cron = render("cron/sector-pollmail", {"* * * * * sector ": f"* * * * * {SITE_USER} ",
                                           "/etc/sectorcommand/env": str(deployment.env_file),
                                           "/srv/sectorcommand": str(REPO)})
    [line] = [x for x in cron.splitlines() if x.strip() and not x.startswith("#")]
    user, command = line.split(None, 6)[5:]

    def poll():
        run("/bin/sh", "-c", command, cwd="/", env=ENV, user=user, group=user, extra_groups=[], timeout=300)

    deployment.check_way_in("imap", "imap", then=poll)
    logins = re.findall(r"imap-login: Info: Login: user=<orders>, method=PLAIN, (.*)", deployment.dovecot.logtext())
    assert logins
    if site_has("MAIL_IMAP_CAFILE"):
        # STARTTLS, the certificate verified against MAIL_IMAP_CAFILE
        assert all(", TLS, session=" in line for line in logins), logins
    poll()  # a second run finds nothing new: no second answer
    deployment.drain()
    assert len([m for m in deployment.postfix.mailbox("bob") if m["In-Reply-To"] == "<imap-orders@players.test>"]) == 1


@real_servers
def test_bounces_of_the_sites_mail_reach_a_person(deployment):
    """dave's address cannot be reached: the bounce of his turn report goes to the envelope
    sender, DEFAULT_FROM_EMAIL's noreply@, which deploy/postfix/aliases sends to a person."""
    [bounce] = deployment.postfix.wait_for_mail(
        "admin", lambda m: "dave@elsewhere.test" in m.as_string() and "Undelivered" in str(m["subject"]),
        "the bounce of dave's turn report")
    assert bounce["To"] == "noreply@sector.test"


def _environment_file(path: Path) -> dict[str, str]:
    """systemd's reading of an EnvironmentFile: KEY=value lines, a value's surrounding quotes removed."""
    values = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip().strip('"')
    return values
