"""A deadline reminder carries the player's orders as text with what he has saved so far: sent
back with READY it marks him ready by mail, and sent back unchanged it changes nothing
(docs/orders.md "Orders as text"; docs/mail.md)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from rest_framework.test import APIClient

from campaign import actions
from campaign.models import Turn, TurnOrders

pytestmark = pytest.mark.django_db

SAVED = {"standing": {"invasion": [], "loss_order": "costliest", "initiative": "last"}}


def _reply(reminder, block: str) -> bytes:
    raw = (f"From: Bob <bob@example.com>\nTo: {reminder.reply_to[0]}\nSubject: Re: {reminder.subject}\n"
           f"Message-ID: <reminder-reply-{abs(hash(block))}@example.com>\n"
           "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
           f"Here.\n\n{block}\n")
    return raw.replace("\n", "\r\n").encode("utf-8")


def test_a_reminder_carries_the_saved_orders_and_answering_it_with_ready_marks_ready(
        ingest, small_campaign, bob, django_capture_on_commit_callbacks):
    c = small_campaign
    turn = Turn.objects.get(campaign=c, number=1)
    turn.deadline = turn.opened_at + timedelta(hours=72)
    turn.save(update_fields=["deadline"])
    api = APIClient()
    api.force_authenticate(bob)
    saved = api.put(f"/api/campaigns/{c.pk}/orders/", {"orders": SAVED, "ready": False, "turn": 1},
                    format="json")
    assert saved.status_code == 200, saved.content
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert actions.send_deadline_reminders(now=turn.deadline - timedelta(hours=23)) == 2
    (reminder,) = [m for m in mail.outbox if m.to == ["bob@example.com"]]
    assert reminder.reply_to == ["orders@sector.example.org"]
    body = reminder.body
    block = body[body.index("#SECTOR"):body.index("#END") + len("#END")]
    # saved on the web
    assert f"#SECTOR {c.pk} " in block and "LOSSES costliest" in block and "INITIATIVE last" in block
    html = reminder.alternatives[0][0]
    assert "LOSSES costliest" in html
    row = TurnOrders.objects.get(turn=turn, empire__seat=1)

    # Sent back unchanged: accepted, nothing changed, still not ready.
    ingest(_reply(reminder, block))
    assert "ACCEPTED" in mail.outbox[-1].body, mail.outbox[-1].body
    row.refresh_from_db()
    assert (row.orders, row.ready) == (SAVED, False)

    # With READY: bob is ready by mail.
    ingest(_reply(reminder, block.replace("NOT READY", "READY")))
    assert "ACCEPTED" in mail.outbox[-1].body, mail.outbox[-1].body
    row.refresh_from_db()
    assert row.ready and row.orders == SAVED


def test_no_orders_block_for_a_computer_seat_or_without_a_seat(small_campaign, django_capture_on_commit_callbacks):
    from campaign.eventhorizon.notify import reminder_email
    from campaign.notifications import REMINDER_24H, Recipient

    turn = Turn.objects.get(campaign=small_campaign, number=1)
    turn.deadline = turn.opened_at + timedelta(hours=72)
    moderator = small_campaign.moderator
    message = reminder_email(
        small_campaign,
        turn,
        Recipient(user=moderator, role="moderator", empire=None, membership=None),
        REMINDER_24H,
        turn.deadline - timedelta(hours=23),
    )
    assert "#SECTOR" not in message.body
