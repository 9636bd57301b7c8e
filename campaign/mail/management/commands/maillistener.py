"""Run the loopback LMTP/SMTP listener until interrupted (docs/mail.md)."""

from __future__ import annotations

import signal
import threading

from django.core.management.base import BaseCommand, CommandError

from campaign.mail.listener import MailController, is_loopback


class Command(BaseCommand):
    help = "Listen for mail on a loopback address (LMTP or SMTP) and store every message received."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="a loopback address (default 127.0.0.1)")
        parser.add_argument("--port", type=int, default=8024, help="default 8024")
        parser.add_argument("--lmtp", action="store_true", help="speak LMTP (RFC 2033) instead of SMTP")

    def handle(self, *args, **options):
        host, port = options["host"], options["port"]
        if not is_loopback(host):
            raise CommandError(f"--host must be a loopback address (127.0.0.1, ::1, localhost), not {host!r}: "
                               "the listener takes mail without authentication")
        if not 0 < port < 65536:
            raise CommandError(f"--port must be between 1 and 65535, not {port}")
        controller = MailController(host=host, port=port, lmtp=options["lmtp"])
        try:
            controller.start()
        except (OSError, RuntimeError) as exc:
            raise CommandError(f"cannot listen on {host}:{port}: {exc}") from None
        self.stdout.write(f"listening ({'LMTP' if options['lmtp'] else 'SMTP'}) on {host}:{port}; Ctrl-C stops")
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            stop.wait()
        except KeyboardInterrupt:
            pass
        finally:
            controller.stop()
