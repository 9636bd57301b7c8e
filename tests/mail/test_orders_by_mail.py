"""Orders by mail (issue 18 items 2–4): ``.eml`` files through ``ingestmail`` to the text order
checker; the database and the reply (to the seat's registered address) are checked."""

from __future__ import annotations

import pytest
from django.core import mail

from campaign.eventhorizon.actions.textorders import rotate_order_secret
from campaign.mail.models import InboundMessage
from campaign.models import TurnOrders

from .conftest import eml


@pytest.fixture
def seats(small_campaign, bob, carol):
    """small_campaign at turn 1 with an order secret for each seat."""
    c = small_campaign
    bob_empire, carol_empire = c.empires.get(seat=1), c.empires.get(seat=2)
    return c, {1: (bob_empire, rotate_order_secret(empire_id=bob_empire.pk, user=bob)),
               2: (carol_empire, rotate_order_secret(empire_id=carol_empire.pk, user=carol))}


def send(
    ingest,
    c,
    *,
    seat=1,
    secret,
    sender="bob@example.com",
    mid="o1@example.com",
    turn=None,
    lines="LOSSES cheapest",
):
    return ingest(eml("orders.eml", sender=sender, mid=mid, campaign=c.pk, seat=seat, secret=secret,
                      turn=c.turn if turn is None else turn, lines=lines))


def stored(empire):
    return TurnOrders.objects.filter(empire=empire, turn__number=empire.campaign.turn).first()


def test_accepted_orders_are_stored_and_echoed_to_the_registered_address(ingest, seats):
    c, s = seats
    empire, secret = s[1]
    send(ingest, c, secret=secret, lines="LOSSES cheapest\nINITIATIVE first")
    row = stored(empire)
    assert row is not None and row.revision == 1
    message = InboundMessage.objects.get()
    assert message.route == "orders" and message.outcome == "accepted for turn 1"
    assert row.received_at == message.received_at  # the site's clock, not the Date: of 2001
    [reply] = mail.outbox
    assert reply.to == ["bob@example.com"] and "accepted" in reply.subject
    assert "ACCEPTED" in reply.body and "INITIATIVE first" in reply.body and "Deadline" in reply.body


def test_partly_refused_set_is_refused_whole_and_the_stored_set_stays(ingest, seats):
    c, s = seats
    empire, secret = s[1]
    send(ingest, c, secret=secret, mid="first@example.com")
    before = stored(empire).orders
    send(ingest, c, secret=secret, mid="second@example.com", lines="INITIATIVE first\nFLY AWAY NOW")
    row = stored(empire)
    assert row.revision == 1 and row.orders == before
    reply = mail.outbox[-1]
    assert reply.to == ["bob@example.com"] and "REFUSED" in reply.body
    assert "ok      INITIATIVE first" in reply.body and "REFUSED FLY AWAY NOW" in reply.body
    assert InboundMessage.objects.order_by("pk").last().outcome.startswith("refused for turn 1")


def test_wrong_secret_changes_nothing_and_the_player_sees_why(ingest, seats):
    c, s = seats
    empire, _ = s[1]
    send(ingest, c, secret="not-the-secret")
    assert stored(empire) is None
    [reply] = mail.outbox
    assert reply.to == ["bob@example.com"] and "REFUSED" in reply.body and "order secret" in reply.body


def test_wrong_turn_is_refused_with_the_turn_number(ingest, seats):
    c, s = seats
    empire, secret = s[1]
    send(ingest, c, secret=secret, turn=0)
    assert stored(empire) is None
    [reply] = mail.outbox
    assert "REFUSED" in reply.body and "turn 0" in reply.body.lower()
    assert "turn 0" in InboundMessage.objects.get().outcome


def test_forged_sender_with_the_right_secret_is_answered_at_the_registered_address(ingest, seats):
    c, s = seats
    empire, secret = s[1]
    send(ingest, c, secret=secret, sender="mallory@evil.example")
    assert stored(empire) is not None  # the secret is what authenticates, so the owner must see it
    assert [m.to for m in mail.outbox] == [["bob@example.com"]]  # not the From:, not the Reply-To:


def test_forged_sender_with_a_wrong_secret_gets_the_strangers_refusal_and_the_owner_a_bare_notice(ingest, seats):
    c, s = seats
    empire, _ = s[1]
    send(ingest, c, secret="guess", sender="mallory@evil.example", lines="LOSSES cheapest\nVISIT http://spam.example")
    assert stored(empire) is None
    notice, refusal = sorted(mail.outbox, key=lambda m: m.to)
    assert notice.to == ["bob@example.com"] and "another address" in notice.body
    assert "spam.example" not in notice.body  # none of the stranger's text is carried
    # The stranger gets what he would get for a seat that does not exist (issue 24 item 11).
    assert refusal.to == ["mallory@evil.example"] and "was not read" in refusal.body


def test_another_players_seat_cannot_be_ordered_with_ones_own_secret(ingest, seats):
    c, s = seats
    carol_empire, _ = s[2]
    _, bob_secret = s[1]
    send(ingest, c, seat=2, secret=bob_secret)
    assert stored(carol_empire) is None
    # carol is told; bob gets the refusal he would get for a seat that does not exist
    assert sorted(m.to for m in mail.outbox) == [["bob@example.com"], ["carol@example.com"]]


def test_orders_in_a_txt_attachment_of_an_html_mail(ingest, seats):
    c, s = seats
    empire, secret = s[1]
    ingest(eml("orders_attachment.eml", campaign=c.pk, secret=secret, turn=c.turn))
    assert stored(empire) is not None
    assert "ACCEPTED" in mail.outbox[0].body


def test_a_repeated_mail_is_one_revision(ingest, seats):
    c, s = seats
    empire, secret = s[1]
    send(ingest, c, secret=secret)
    send(ingest, c, secret=secret)
    assert stored(empire).revision == 1 and len(mail.outbox) == 1
