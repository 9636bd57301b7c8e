"""Orders in ``format=flowed`` (issue 24 item 14; RFC 3676, Thunderbird's default): soft-broken lines
are joined again before the orders are read; the orders template keeps its notes within 72
characters; a second #SECTOR block is ignored and the reply says so (docs/orders.md, orders as text)."""

from __future__ import annotations

import pytest
from django.core import mail

from campaign.eventhorizon.actions.textorders import orders_template
from campaign.mail import message
from campaign.mail.models import InboundMessage

from .test_orders_by_mail import seats, stored  # noqa: F401 - fixtures

NOTE = ("# A note that goes on for quite a while, so that the mail program breaks it over two lines "
        "when it sends it as flowed text, as Thunderbird does")


def flowed(lines: list[str], delsp: bool) -> str:
    """What a flowed writer sends: each line over 72 characters soft-broken after a space (with
    DelSp=yes, a space added before the break, which the reader deletes)."""
    out = []
    for line in lines:
        while len(line) > 72:
            cut = line.rindex(" ", 0, 72) + 1
            out.append(line[:cut] + (" " if delsp else ""))
            line = line[cut:]
        out.append(line)
    return "\r\n".join(out) + "\r\n"


def mail_of(c, secret, body: str, *, delsp: bool, mid: str) -> bytes:
    params = "; format=flowed" + ("; delsp=yes" if delsp else "")
    head = (f"From: Bob <bob@example.com>\r\nTo: orders@sector.example.org\r\nSubject: orders\r\n"
            f"Message-ID: <{mid}>\r\nContent-Type: text/plain; charset=utf-8{params}\r\n"
            "Content-Transfer-Encoding: 8bit\r\n\r\n")
    return (head + body).encode()


@pytest.mark.parametrize("delsp", [False, True], ids=["delsp-no", "delsp-yes"])
def test_flowed_orders_are_read_as_the_player_wrote_them(ingest, seats, delsp):  # noqa: F811
    c, s = seats
    empire, secret = s[1]
    lines = [f"#SECTOR {c.pk} 1 {secret} TURN 1", NOTE, "LOSSES cheapest", "#END", "", "-- ", "Bob",
             "> " + NOTE[2:]]
    body = flowed(lines, delsp)
    assert any(line.endswith(" ") and line != "-- " for line in body.split("\r\n"))  # it really was broken
    ingest(mail_of(c, secret, body, delsp=delsp, mid=f"flowed-{delsp}@example.com"))
    row = InboundMessage.objects.get()
    assert row.outcome == "accepted for turn 1" and stored(empire) is not None
    assert "ACCEPTED" in mail.outbox[0].body


def test_unflow():
    text = "one two \r\nthree\r\n>> quoted \r\n>> on\r\n> other\r\n -- \r\n--  \r\nend"
    assert message.unflow(text) == "one two three\n>> quoted on\n> other\n-- \n--  end"
    assert message.unflow("split  \r\nhere\r\n", delsp=True) == "split here\n"


def test_the_orders_template_keeps_its_notes_within_72_characters(seats):  # noqa: F811
    c, s = seats
    empire, _ = s[1]
    template = orders_template(empire, c.turn)
    notes = [line for line in template.splitlines() if line.startswith("#")]
    assert notes and all(len(line) <= 72 for line in notes), [line for line in notes if len(line) > 72]


def test_a_second_sector_block_is_ignored_and_the_reply_says_so(ingest, seats):  # noqa: F811
    c, s = seats
    _, secret = s[1]
    body = (f"#SECTOR {c.pk} 1 {secret} TURN 1\r\nLOSSES cheapest\r\n#END\r\n\r\n"
            f"#SECTOR {c.pk} 1 {secret} TURN 1\r\nINITIATIVE second\r\n#END\r\n")
    ingest(mail_of(c, secret, body, delsp=False, mid="two@example.com"))
    [reply] = mail.outbox
    assert "ACCEPTED" in reply.body and "IGNORED" in reply.body and "line(s) 5" in reply.body
