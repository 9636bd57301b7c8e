"""A minimal IMAP4rev1 server on loopback for the poller's test: the commands imaplib sends for
a poll (CAPABILITY, STARTTLS, LOGIN, SELECT, UID SEARCH UNSEEN / UID n:*, UID FETCH (RFC822.SIZE
INTERNALDATE) and BODY.PEEK[], UID STORE +FLAGS, EXPUNGE, CLOSE, LOGOUT, NOOP) over a list of
messages held in memory, one folder. With a certificate it speaks TLS from the first byte
(``implicit=True``, IMAPS) or offers STARTTLS; ``Mailbox.logins`` records whether each LOGIN came
over TLS."""

from __future__ import annotations

import re
import socketserver
import ssl
import threading
from dataclasses import dataclass, field


@dataclass
class Stored:
    uid: int
    raw: bytes
    flags: set[str] = field(default_factory=set)
    internaldate: str = "01-Jan-2026 12:00:00 +0000"


class Mailbox:
    def __init__(self, user: str, password: str, folder: str = "INBOX"):
        self.user, self.password, self.folder = user, password, folder
        self.messages: list[Stored] = []
        self.next_uid = 100
        self.commands: list[str] = []
        self.logins: list[bool] = []  # over TLS?
        self.uidvalidity = 7
        self.lock = threading.Lock()

    def add(self, raw: bytes, *flags: str, internaldate: str = "01-Jan-2026 12:00:00 +0000") -> None:
        with self.lock:
            self.next_uid += 1
            self.messages.append(Stored(self.next_uid, raw, set(flags), internaldate))


def _words(line: str) -> list[str]:
    return [w[1:-1] if w.startswith('"') and w.endswith('"') else w for w in re.findall(r'"[^"]*"|\(.*?\)|\S+', line)]


class _Handler(socketserver.StreamRequestHandler):
    def send(self, text: str | bytes) -> None:
        self.wfile.write(text if isinstance(text, bytes) else text.encode())

    def setup(self):
        if self.server.implicit:
            self.request = self.server.tls.wrap_socket(self.request, server_side=True)
        super().setup()

    def start_tls(self):
        self.wfile.flush()
        self.request = self.server.tls.wrap_socket(self.request, server_side=True)
        self.rfile = self.request.makefile("rb")
        self.wfile = self.request.makefile("wb", buffering=0)

    def handle(self):
        try:
            self.session()
        except (ssl.SSLError, ConnectionError):
            return  # the client refused our certificate, or hung up

    def session(self):
        box: Mailbox = self.server.mailbox
        authed = selected = False
        self.send("* OK fake IMAP4rev1 ready\r\n")
        while True:
            line = self.rfile.readline()
            if not line:
                return
            words = _words(line.decode().rstrip("\r\n"))
            tag, command, args = words[0], words[1].upper(), words[2:]
            box.commands.append(" ".join([command] + (args if command != "LOGIN" else [args[0], "***"])))
            if command == "UID":
                command, args = "UID " + args[0].upper(), args[1:]
            with box.lock:
                tls = isinstance(self.request, ssl.SSLSocket)
                if command == "CAPABILITY":
                    starttls = " STARTTLS" if self.server.tls is not None and not tls else ""
                    self.send(f"* CAPABILITY IMAP4rev1 AUTH=PLAIN{starttls}\r\n{tag} OK CAPABILITY completed\r\n")
                elif command == "STARTTLS" and self.server.tls is not None and not tls:
                    self.send(f"{tag} OK begin TLS now\r\n")
                    self.start_tls()
                elif command == "NOOP":
                    self.send(f"{tag} OK NOOP completed\r\n")
                elif command == "LOGOUT":
                    self.send(f"* BYE logging out\r\n{tag} OK LOGOUT completed\r\n")
                    return
                elif command == "LOGIN":
                    box.logins.append(tls)
                    authed = args == [box.user, box.password]
                    self.send(f"{tag} OK LOGIN completed\r\n" if authed else f"{tag} NO [AUTHENTICATIONFAILED] no\r\n")
                elif not authed:
                    self.send(f"{tag} BAD log in first\r\n")
                elif command == "SELECT":
                    selected = args[0] == box.folder
                    if selected:
                        self.send(
                            f"* {len(box.messages)} EXISTS\r\n* 0 RECENT\r\n* OK [UIDVALIDITY {box.uidvalidity}] ok\r\n"
                            f"{tag} OK [READ-WRITE] SELECT completed\r\n"
                        )
                    else:
                        self.send(f"{tag} NO no such folder\r\n")
                elif not selected:
                    self.send(f"{tag} BAD select a folder first\r\n")
                elif command == "UID SEARCH" and [a.upper() for a in args] == ["UNSEEN"]:
                    uids = " ".join(str(m.uid) for m in box.messages if "\\Seen" not in m.flags)
                    self.send(f"* SEARCH {uids}\r\n{tag} OK SEARCH completed\r\n")
                elif command == "UID SEARCH" and len(args) == 2 and args[0].upper() == "UID":
                    low = int(args[1].split(":")[0])
                    found = [m.uid for m in box.messages if m.uid >= low] or [m.uid for m in box.messages[-1:]]
                    self.send(f"* SEARCH {' '.join(map(str, found))}\r\n{tag} OK SEARCH completed\r\n")
                elif command == "UID FETCH" and args[1].upper() == "(RFC822.SIZE INTERNALDATE)":
                    for seq, m in enumerate(box.messages, 1):
                        if str(m.uid) == args[0]:
                            self.send(
                                f'* {seq} FETCH (UID {m.uid} RFC822.SIZE {len(m.raw)} INTERNALDATE '
                                f'"{m.internaldate}")\r\n'
                            )
                    self.send(f"{tag} OK FETCH completed\r\n")
                elif command == "UID FETCH" and args[1].upper() == "(BODY.PEEK[])":
                    for seq, m in enumerate(box.messages, 1):
                        if str(m.uid) == args[0]:
                            self.send(
                                f"* {seq} FETCH (UID {m.uid} BODY[] {{{len(m.raw)}}}\r\n".encode()
                                + m.raw
                                + b")\r\n"
                            )
                    self.send(f"{tag} OK FETCH completed\r\n")
                elif command == "UID STORE" and args[1].upper() == "+FLAGS":
                    for seq, m in enumerate(box.messages, 1):
                        if str(m.uid) == args[0]:
                            m.flags |= set(args[2].strip("()").split())
                            self.send(f"* {seq} FETCH (UID {m.uid} FLAGS ({' '.join(sorted(m.flags))}))\r\n")
                    self.send(f"{tag} OK STORE completed\r\n")
                elif command in ("EXPUNGE", "CLOSE"):
                    for seq in range(len(box.messages), 0, -1):
                        if "\\Deleted" in box.messages[seq - 1].flags:
                            del box.messages[seq - 1]
                            if command == "EXPUNGE":
                                self.send(f"* {seq} EXPUNGE\r\n")
                    if command == "CLOSE":
                        selected = False
                    self.send(f"{tag} OK {command} completed\r\n")
                else:
                    self.send(f"{tag} BAD unknown command {command}\r\n")


class FakeImapServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, mailbox: Mailbox, *, certfile: str | None = None, keyfile: str | None = None,
                 implicit: bool = False):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mailbox, self.implicit, self.tls = mailbox, implicit, None
        if certfile:
            self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.tls.load_cert_chain(certfile, keyfile)
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self.server_address[1]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.server_close()
