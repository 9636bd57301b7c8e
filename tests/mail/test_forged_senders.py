"""Forged senders (issue 24 item 11): the limits count per seat and per verified sender, so forged
mail "from" a player cannot get her real orders dropped; answers to unverified mail are capped per
address, so forged mail cannot flood her; a stranger gets the same answer whatever seat he names;
the site's MTA's Authentication-Results (RFC 8601, MAIL_AUTHSERV_ID) verifies a From:."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from campaign.mail import message
from campaign.mail.models import InboundMessage

from .conftest import eml
from .test_orders_by_mail import seats, send, stored  # noqa: F401 - fixtures

AR = "Authentication-Results: mx.sector.example.org; {results}\r\n"


def test_forged_mail_from_a_player_cannot_get_her_orders_dropped(ingest, seats, settings):  # noqa: F811
    settings.MAIL_RATE_LIMIT = 3
    c, s = seats
    empire, secret = s[1]
    for n in range(5):  # a forger "from" bob, near the deadline: no secret, or a guessed one
        send(ingest, c, secret=f"guess{n}", mid=f"forged{n}@example.com")
    send(ingest, c, secret=secret, mid="real@example.com")  # bob's real orders
    real = InboundMessage.objects.get(message_id="<real@example.com>")
    assert real.status == "done" and real.outcome == "accepted for turn 1" and stored(empire) is not None
    assert real.rate_key == f"seat:{c.pk}.1"
    forged = InboundMessage.objects.exclude(pk=real.pk).order_by("pk")
    assert [m.status for m in forged] == ["done"] * 3 + ["dropped"] * 2  # the forger's own allowance


def test_a_seat_has_its_own_allowance(ingest, seats, settings):  # noqa: F811
    settings.MAIL_RATE_LIMIT = 2
    c, s = seats
    _, secret = s[1]
    for n in range(3):
        send(ingest, c, secret=secret, mid=f"o{n}@example.com", sender=f"someone{n}@example.net")
    assert list(InboundMessage.objects.order_by("pk").values_list("status", flat=True)) == ["done", "done", "dropped"]


def test_forty_forged_senders_send_the_player_a_few_notices(ingest, seats, settings):  # noqa: F811
    settings.MAIL_NOTICE_LIMIT = 3
    c, s = seats
    for n in range(40):
        send(ingest, c, secret="guess", sender=f"forger{n}@evil{n}.example", mid=f"f{n}@evil.example")
    to_bob = [m for m in mail.outbox if m.to == ["bob@example.com"]]
    assert len(to_bob) == 3 and all("another address" in m.body for m in to_bob)
    assert InboundMessage.objects.filter(status="done").count() == 40  # each still checked and recorded


def _answers_to(address: str) -> list[tuple[str, str]]:
    return [(m.subject, m.body) for m in mail.outbox if m.to == [address]]


@pytest.mark.parametrize("stranger", ["mallory@evil.example", "carol@example.com"], ids=["no-account", "account"])
def test_a_stranger_gets_the_same_answer_whatever_seat_he_names(ingest, seats, stranger):  # noqa: F811
    c, s = seats
    send(ingest, c, seat=1, secret="guess", sender=stranger, mid="existing@x")  # bob's seat (carol: not hers)
    existing = _answers_to(stranger)
    mail.outbox.clear()
    if stranger.startswith("mallory"):
        InboundMessage.objects.update(reply_kind="")  # the once-a-day refusal as fresh as the first time
    send(ingest, c, seat=9, secret="guess", sender=stranger, mid="missing@x")  # no such seat
    # The answer echoes what he wrote (seat 9 there, seat 1 here), and nothing else differs.
    missing = [(subject, body.replace("no seat 9 ", "no seat 1 ").replace(f"#SECTOR {c.pk} 9 ", f"#SECTOR {c.pk} 1 "))
               for subject, body in _answers_to(stranger)]
    # The answers say when each mail was received: the two were sent a moment apart.
    def untimed(answers):
        return [(subject, re.sub(r"\d{1,2}:\d{2}(:\d{2})?", "HH:MM", body)) for subject, body in answers]
    assert existing and untimed(existing) == untimed(missing)
    assert c.name not in existing[0][0]  # the subject names no campaign either


def test_authentication_results_of_the_sites_mta_verify_a_from(ingest, bob, settings):
    settings.MAIL_AUTHSERV_ID = "mx.sector.example.org"
    settings.MAIL_NOTICE_LIMIT = 2
    for n in range(4):  # answered every time: a verified sender is not capped
        ingest(AR.format(results="dmarc=pass (p=reject) header.from=example.com").encode()
               + eml("no_orders.eml", mid=f"v{n}@example.com"))
    for n in range(4):  # the same From: unverified: two answers at most
        ingest(eml("no_orders.eml", mid=f"u{n}@example.com"))
    rows = InboundMessage.objects.order_by("pk")
    assert [r.rate_key for r in rows] == ["from:bob@example.com"] * 4 + ["unverified:bob@example.com"] * 4
    assert [r.reply_kind for r in rows] == ["reply"] * 4 + ["notice"] * 2 + [""] * 2
    assert len(mail.outbox) == 6


def _msg(*fields: str):
    head = "".join(f + "\r\n" for f in fields)
    return message.parse((head + "From: Bob <bob@example.com>\r\nSubject: x\r\n\r\nhi\r\n").encode())


@pytest.mark.parametrize("fields, verified", [
    (["Authentication-Results: mx.sector.example.org; dmarc=pass header.from=example.com"], True),
    (["Authentication-Results: MX.Sector.Example.Org 1; dkim=pass header.d=example.com header.s=s1"], True),
    (["Authentication-Results: mx.sector.example.org; spf=pass smtp.mailfrom=bob@example.com"], True),
    (["Authentication-Results: mx.sector.example.org; dkim=pass header.d=other.example"], False),  # not aligned
    (["Authentication-Results: mx.sector.example.org; dmarc=fail header.from=example.com"], False),
    (["Authentication-Results: mx.sector.example.org; none"], False),
    (["Authentication-Results: evil.example; dmarc=pass header.from=example.com"], False),  # not our MTA's
    (["Authentication-Results: mx.sector.example.org; dmarc=fail header.from=example.com",  # ours, on top, decides
      "Authentication-Results: mx.sector.example.org; dmarc=pass header.from=example.com"], False),
    ([], False),
])
def test_authenticated_from(fields, verified):
    assert message.authenticated_from(_msg(*fields), "mx.sector.example.org") is verified


def test_no_authserv_id_trusts_nothing():
    assert not message.authenticated_from(
        _msg("Authentication-Results: mx.sector.example.org; dmarc=pass header.from=example.com"), "")


def test_signed_reply_addresses_are_counted_under_the_address(db, settings):
    from campaign.mail import addresses, routing
    from campaign.press.replies import reply_address

    settings.MAIL_DOMAIN = "sector.example.org"
    press = reply_address(4, 2)
    cam = addresses.make("cam", 1, 2, 3)
    assert addresses.is_signed(press, **routing.scheme_for("press"))
    assert addresses.is_signed(cam, **routing.scheme_for("cam"))
    assert not addresses.is_signed(cam.replace("cam+1.", "cam+9."), **routing.scheme_for("cam"))
    assert not addresses.is_signed(press)  # press signs in its own scheme
