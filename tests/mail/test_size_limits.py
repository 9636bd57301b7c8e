"""Mail resources (issue 24 item 13): ``ingestmail`` reads at most MAIL_MAX_BYTES + 1 bytes of a
message into memory, and the IMAP poller asks a message's RFC822.SIZE before fetching it."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaign.mail.models import InboundMessage

from .conftest import eml


class HugeInput:
    """A standard input of ``size`` bytes made on demand, remembering the largest read it was
    asked for (``read()`` with no size: the whole input, held in memory at once)."""

    def __init__(self, head: bytes, size: int):
        self.head, self.size, self.pos, self.largest_request = head, size, 0, 0

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            n = self.size - self.pos
        self.largest_request = max(self.largest_request, n)
        n = min(n, self.size - self.pos)
        chunk = self.head[self.pos:self.pos + n] if self.pos < len(self.head) else b""
        chunk += b"x" * (n - len(chunk))
        self.pos += n
        return chunk


def test_ingestmail_reads_no_more_than_the_limit_plus_one(db, settings):
    settings.MAIL_MAX_BYTES = 10_000
    raw = HugeInput(eml("no_orders.eml", mid="huge@example.com"), 5_000_000)
    with pytest.raises(CommandError) as info:
        call_command("ingestmail", stdin=raw)
    assert info.value.returncode == 65 and "MAIL_MAX_BYTES" in str(info.value)
    # Never the whole input at once: the message up to the limit + 1, the rest read and dropped in
    # small pieces (the MTA's pipe is drained, so it sees a clean exit, not a broken pipe).
    assert raw.largest_request <= max(10_001, 64 * 1024) and raw.pos == raw.size
    assert InboundMessage.objects.count() == 0
