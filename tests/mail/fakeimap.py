"""A minimal IMAP4rev1 server on loopback for the poller's test: the commands imaplib sends for
a poll (CAPABILITY, LOGIN, SELECT, UID SEARCH UNSEEN, UID FETCH BODY.PEEK[], UID STORE +FLAGS,
EXPUNGE, CLOSE, LOGOUT, NOOP) over a list of messages held in memory, one folder."""

from __future__ import annotations

import re
import socketserver
import threading
from dataclasses import dataclass, field


@dataclass
class Stored:
    uid: int
    raw: bytes
    flags: set[str] = field(default_factory=set)


class Mailbox:
    def __init__(self, user: str, password: str, folder: str = "INBOX"):
        self.user, self.password, self.folder = user, password, folder
        self.messages: list[Stored] = []
        self.next_uid = 100
        self.commands: list[str] = []
        self.lock = threading.Lock()

    def add(self, raw: bytes, *flags: str) -> None:
        with self.lock:
            self.next_uid += 1
            self.messages.append(Stored(self.next_uid, raw, set(flags)))


def _words(line: str) -> list[str]:
    return [w[1:-1] if w.startswith('"') and w.endswith('"') else w for w in re.findall(r'"[^"]*"|\(.*?\)|\S+', line)]


class _Handler(socketserver.StreamRequestHandler):
    def send(self, text: str | bytes) -> None:
        self.wfile.write(text if isinstance(text, bytes) else text.encode())

    def handle(self):
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
                if command == "CAPABILITY":
                    self.send(f"* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n{tag} OK CAPABILITY completed\r\n")
                elif command == "NOOP":
                    self.send(f"{tag} OK NOOP completed\r\n")
                elif command == "LOGOUT":
                    self.send(f"* BYE logging out\r\n{tag} OK LOGOUT completed\r\n")
                    return
                elif command == "LOGIN":
                    authed = args == [box.user, box.password]
                    self.send(f"{tag} OK LOGIN completed\r\n" if authed else f"{tag} NO [AUTHENTICATIONFAILED] no\r\n")
                elif not authed:
                    self.send(f"{tag} BAD log in first\r\n")
                elif command == "SELECT":
                    selected = args[0] == box.folder
                    if selected:
                        self.send(f"* {len(box.messages)} EXISTS\r\n* 0 RECENT\r\n* OK [UIDVALIDITY 7] ok\r\n"
                                  f"{tag} OK [READ-WRITE] SELECT completed\r\n")
                    else:
                        self.send(f"{tag} NO no such folder\r\n")
                elif not selected:
                    self.send(f"{tag} BAD select a folder first\r\n")
                elif command == "UID SEARCH" and [a.upper() for a in args] == ["UNSEEN"]:
                    uids = " ".join(str(m.uid) for m in box.messages if "\\Seen" not in m.flags)
                    self.send(f"* SEARCH {uids}\r\n{tag} OK SEARCH completed\r\n")
                elif command == "UID FETCH" and args[1].upper() == "(BODY.PEEK[])":
                    for seq, m in enumerate(box.messages, 1):
                        if str(m.uid) == args[0]:
                            self.send(f"* {seq} FETCH (UID {m.uid} BODY[] {{{len(m.raw)}}}\r\n".encode() + m.raw + b")\r\n")
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

    def __init__(self, mailbox: Mailbox):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mailbox = mailbox
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
