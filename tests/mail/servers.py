"""Private instances of Debian's Postfix and Dovecot for tests/mail/test_real_servers.py, built
from the repository's own snippet files (``deploy/``, the ones docs/mail.md shows) with only
paths, ports, the user and the domain changed (``render``). Nothing under /etc is touched: each
instance has its own configuration directory, queue, sockets, log and loopback ports, and is
stopped afterwards.

The base configuration is what Debian's installer writes for "Local only" (loopback only, no
relay host, nothing delivered outside: mail for other domains bounces) plus a virtual mailbox
domain, ``players.test``, whose Maildirs the test reads the site's answers from.
"""

from __future__ import annotations

import email
import email.policy
import os
import pwd
import shutil
import socket
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
DOMAIN = "sector.test"
PLAYERS_DOMAIN = "players.test"
MAILBOXES = ("alice", "bob", "carol", "admin")
PROGRAMS = ("/usr/sbin/postfix", "/usr/sbin/postmap", "/usr/sbin/postalias", "/usr/sbin/postqueue",
            "/usr/lib/dovecot/imap", "/usr/lib/dovecot/lmtp",
            "/usr/sbin/dovecot", "/usr/bin/doveadm", "/usr/bin/openssl")


def missing_programs() -> list[str]:
    return [p for p in PROGRAMS if not os.access(p, os.X_OK)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def render(name: str, replacements: dict[str, str]) -> str:
    """The snippet file ``deploy/<name>`` with each key replaced; every key must occur in it, so a
    snippet that changes under the test makes it fail rather than test something else."""
    text = (DEPLOY / name).read_text(encoding="utf-8")
    for old, new in replacements.items():
        assert old in text, f"deploy/{name} no longer contains {old!r}"
        text = text.replace(old, new)
    return text


def run(*args, check=True, daemon=False, timeout=60, **kwargs) -> subprocess.CompletedProcess:
    """Run a program and wait for it (``timeout`` seconds at most). ``daemon``: it leaves a server
    behind that keeps standard output open, so its output goes to a file instead of a pipe we
    would wait on."""
    if daemon:
        with open(f"/tmp/sector-mailtest-{os.getpid()}.out", "w+") as out:
            result = subprocess.run([str(a) for a in args], stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, text=True, timeout=timeout, **kwargs)
            out.seek(0)
            result.stdout, result.stderr = out.read(), ""
        os.unlink(out.name)
    else:
        result = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args))} failed ({result.returncode}):\n"
                             f"{result.stdout}\n{result.stderr}")
    return result


def wait_for(what: str, predicate, timeout: float = 30.0, log=None):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}" + (f"\n--- log ---\n{log()}" if log else ""))
        time.sleep(0.2)


def _wait_port(port: int, timeout: float = 20.0) -> None:
    def answers():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return False
    wait_for(f"127.0.0.1:{port}", answers, timeout)


# Debian's master.cf services, nothing chrooted (the queue is a temporary directory without
# Debian's copy of /etc inside), and "unreachable": where mail for any other domain goes, to
# bounce (exit 67, EX_NOUSER) after Postfix accepted it, as a remote server's refusal would.
MASTER_CF = """\
{smtp} inet n - n - - smtpd
pickup    unix  n - n 60   1 pickup
cleanup   unix  n - n -    0 cleanup
qmgr      unix  n - n 300  1 qmgr
tlsmgr    unix  - - n 1000? 1 tlsmgr
rewrite   unix  - - n -    - trivial-rewrite
bounce    unix  - - n -    0 bounce
defer     unix  - - n -    0 bounce
trace     unix  - - n -    0 bounce
verify    unix  - - n -    1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n -    - proxymap
proxywrite unix - - n -    1 proxymap
smtp      unix  - - n -    - smtp
relay     unix  - - n -    - smtp
showq     unix  n - n -    - showq
error     unix  - - n -    - error
retry     unix  - - n -    - error
discard   unix  - - n -    - discard
local     unix  - n n -    - local
virtual   unix  - n n -    - virtual
lmtp      unix  - - n -    - lmtp
anvil     unix  - - n -    1 anvil
scache    unix  - - n -    1 scache
postlog   unix-dgram n - n - 1 postlogd
unreachable unix - n n -   - pipe
  flags=q user=nobody argv=/bin/sh -c {{ echo "5.1.1 no such mailbox here"; exit 67 }}
"""

MAIN_CF = """\
compatibility_level = 3.6
config_directory = {conf}
queue_directory = {queue}
data_directory = {data}
maillog_file = {log}
maillog_file_prefixes = {log}
myhostname = mail.{domain}
mydomain = {domain}
myorigin = $mydomain
mydestination = {domain}, localhost
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
relayhost =
default_transport = unreachable
relay_transport = unreachable
smtpd_relay_restrictions = permit_mynetworks defer_unauth_destination
alias_maps = hash:{conf}/aliases
alias_database = hash:{conf}/aliases
virtual_mailbox_domains = {players}
virtual_mailbox_base = {vmail}
virtual_mailbox_maps = hash:{conf}/vmailbox
virtual_uid_maps = static:{uid}
virtual_gid_maps = static:{gid}
biff = no
smtputf8_enable = no
queue_run_delay = 1h
minimal_backoff_time = 1h
maximal_backoff_time = 1h
"""


class Postfix:
    """A Postfix instance under ``root``: SMTP on a free loopback port, the site's lines of
    deploy/postfix/ added to its main.cf, master.cf and aliases."""

    def __init__(self, root: Path, *, site_user: str, env_file: Path):
        self.root = root
        entry = pwd.getpwnam(site_user)
        uid, gid = entry.pw_uid, entry.pw_gid
        self.conf, self.queue, self.data = root / "postfix", root / "spool", root / "postfix-data"
        self.log, self.vmail = root / "maillog", root / "vmail"
        self.port = free_port()
        for d in (self.conf, self.data, self.vmail):
            d.mkdir(parents=True)
        self.queue.mkdir(mode=0o755)
        shutil.chown(self.data, "postfix")
        shutil.chown(self.vmail, uid, gid)
        site_main = render("postfix/main.cf", {"/etc/postfix/": f"{self.conf}/"})
        (self.conf / "main.cf").write_text(MAIN_CF.format(
            conf=self.conf, queue=self.queue, data=self.data, log=self.log, domain=DOMAIN,
            players=PLAYERS_DOMAIN, vmail=self.vmail, uid=uid, gid=gid) + site_main)
        (self.conf / "master.cf").write_text(
            MASTER_CF.format(smtp=f"127.0.0.1:{self.port}")
            + render("postfix/master.cf", {"user=sector ": f"user={site_user} ",
                                          "/etc/sectorcommand/env": str(env_file),
                                          "/srv/sectorcommand": str(REPO)}))
        (self.conf / "aliases").write_text(
            "postmaster: root\nroot: admin@players.test\n"
            + render("postfix/aliases", {"admin@example.org": f"admin@{PLAYERS_DOMAIN}"}))
        (self.conf / "vmailbox").write_text(
            "".join(f"{name}@{PLAYERS_DOMAIN} {name}/\n" for name in MAILBOXES))
        run("/usr/sbin/postalias", "-c", self.conf, f"hash:{self.conf}/aliases")
        run("/usr/sbin/postmap", "-c", self.conf, f"hash:{self.conf}/vmailbox")
        self.use("pipe")

    def postfix(self, *args, check=True):
        return run("/usr/sbin/postfix", "-c", self.conf, *args, check=check, daemon=True)

    def use(self, way: str, port: int | None = None) -> None:
        """Put deploy/postfix/sector_transport.<way> in place (and postmap it, as the docs say);
        ``port``: where the LMTP server of that way listens."""
        table = self.conf / "sector_transport"
        replacements = {"sector.example.org": DOMAIN}
        if way != "pipe":
            default = {"lmtp": "127.0.0.1:8024", "imap": "127.0.0.1:24"}[way]
            replacements[default] = f"127.0.0.1:{port}"
        table.write_text(render(f"postfix/sector_transport.{way}", replacements))
        run("/usr/sbin/postmap", "-c", self.conf, f"hash:{table}")
        if (self.queue / "pid" / "master.pid").exists():
            self.postfix("reload")

    def start(self) -> None:
        self.postfix("start")
        _wait_port(self.port)

    def stop(self) -> None:
        self.postfix("stop", check=False)

    def flush(self) -> None:
        run("/usr/sbin/postqueue", "-c", self.conf, "-f")

    def queue_ids(self) -> list[str]:
        out = run("/usr/sbin/postqueue", "-c", self.conf, "-j").stdout
        return [line for line in out.splitlines() if line.strip()]

    def logtext(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else "(no log)"

    def mailbox(self, name: str) -> list[email.message.EmailMessage]:
        """The messages delivered to ``name@players.test`` so far, oldest first."""
        new = self.vmail / name / "new"
        files = sorted(new.iterdir(), key=lambda p: p.stat().st_mtime_ns) if new.is_dir() else []
        return [email.message_from_bytes(p.read_bytes(), policy=email.policy.default) for p in files]

    def wait_for_mail(self, name: str, predicate, what: str, timeout: float = 120.0):
        def found():
            return [m for m in self.mailbox(name) if predicate(m)]
        return wait_for(f"{what} in {name}'s mailbox", found, timeout, self.logtext)


class Dovecot:
    """A Dovecot instance from deploy/dovecot/sector.conf (IMAP and LMTP on free loopback ports),
    with a certificate signed by a CA made here, so the site can verify it."""

    def __init__(self, root: Path, *, site_user: str, password: str):
        self.root = root / "dovecot"
        self.root.mkdir()
        self.base, self.mail_home, self.log = self.root / "run", self.root / "sectorcommand", self.root / "dovecot.log"
        self.mail_home.mkdir()
        shutil.chown(self.mail_home, site_user, site_user)
        self.imap_port, self.lmtp_port = free_port(), free_port()
        self.ca = self.root / "ca.crt"
        self._certificates()
        hashed = run("/usr/bin/openssl", "passwd", "-6", password).stdout.strip()
        passwd = self.root / "sector.passwd"
        passwd.write_text(f"orders:{{SHA512-CRYPT}}{hashed}\n")
        self.conf = self.root / "dovecot.conf"
        instance = (
            f"base_dir = {self.base}/\nstate_dir = {self.root}/state\ninstance_name = sector-test-{os.getpid()}\n"
            f"log_path = {self.log}\n"
        )
        self.conf.write_text(instance + render("dovecot/sector.conf", {
            "uid=sector gid=sector": f"uid={site_user} gid={site_user}",
            "/var/mail/sectorcommand": str(self.mail_home),
            "/etc/dovecot/sector.passwd": str(passwd),
            "/etc/dovecot/private/sector.crt": str(self.root / "server.crt"),
            "/etc/dovecot/private/sector.key": str(self.root / "server.key"),
            "port = 143": f"port = {self.imap_port}", "port = 24": f"port = {self.lmtp_port}"}))

    def _certificates(self) -> None:
        r = self.root
        run("/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=Sector test CA", "-keyout", r / "ca.key", "-out", self.ca)
        run("/usr/bin/openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
            "-keyout", r / "server.key", "-out", r / "server.csr")
        (r / "san.ext").write_text("subjectAltName = DNS:localhost, IP:127.0.0.1\n")
        run("/usr/bin/openssl", "x509", "-req", "-in", r / "server.csr", "-CA", self.ca, "-CAkey", r / "ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", r / "san.ext", "-out", r / "server.crt")
        os.chmod(self.ca, 0o644)

    def start(self) -> None:
        run("/usr/sbin/dovecot", "-c", self.conf, daemon=True)
        _wait_port(self.imap_port)
        _wait_port(self.lmtp_port)

    def stop(self) -> None:
        run("/usr/bin/doveadm", "-c", self.conf, "stop", check=False)

    def logtext(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else "(no log)"
