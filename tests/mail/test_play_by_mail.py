"""Done-when of issue 18: a whole 2-player campaign runs three turns with bob by mail only —
replying to each turn report email with its orders template edited — and carol on the web; the
result equals the same orders given through the API."""

from __future__ import annotations

import json

import pytest
from django.core import mail
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import adapters
from campaign.eventhorizon.exchange import export_campaign
from campaign.mail.models import InboundMessage
from campaign.models import AuditEntry, Campaign
from campaign.rules.eventhorizon.bots import bot_orders
from campaign.rules.eventhorizon.orders import orders_to_json
from campaign.rules.eventhorizon.textorders import format_orders, parse_text
from tests.eventhorizon.setup_round import finish_setup

TURNS = 3


def new_campaign(alice, bob, carol) -> Campaign:
    campaign = eh_actions.create_campaign(name="Inbox Reach", grid="hex", width=14, height=14, players=2,
                                       seed="play-by-mail", moderator=alice)
    campaign.empires.filter(seat=1).update(user=bob, name="Bob's Realm")
    campaign.empires.filter(seat=2).update(user=carol, name="Carol's Combine")
    return campaign


def computer_orders(campaign: Campaign) -> dict[int, dict]:
    """What each seat orders this turn: the computer player's choice, the same for both campaigns."""
    state = adapters.load_state(campaign)
    names = adapters.design_names_by_seat(campaign)
    return {seat: orders_to_json(bot_orders(state, seat, names[seat])) for seat in (1, 2)}


def latest_report(campaign: Campaign, to: str, number: int):
    reports = [m for m in mail.outbox if m.to == [to] and "has been processed" in m.subject
               and f"#SECTOR {campaign.pk} " in m.body]
    assert reports, f"no turn report email to {to}"
    report = reports[-1]
    label = "the set-up round" if number == 0 else f"turn {number}"
    assert label in report.subject, report.subject
    return report


def reply_with_edited_template(report, orders: dict) -> bytes:
    """bob's answer: the report's orders template with its order lines replaced by his orders and
    READY, above the report quoted as a mail program quotes it."""
    body = report.body
    block = body[body.index("#SECTOR"):body.index("#END") + len("#END")]
    header_line = block.splitlines()[0]
    parsed = parse_text(block)
    assert parsed.header is not None, block
    edited = format_orders(orders, header=parsed.header, ready=True)
    assert edited.splitlines()[0] == header_line  # the header as the template gave it
    quoted = "\n".join("> " + line if line else ">" for line in body.splitlines())
    text = f"Here you go.\n\n{edited}\n\nOn Wed, 25 Nov 2026, Sector Command wrote:\n{quoted}\n"
    message_id = report.extra_headers.get("Message-ID", "<report@sector.example.org>")
    raw = (f"From: Bob <bob@example.com>\nTo: {report.reply_to[0]}\nSubject: Re: {report.subject}\n"
           f"Message-ID: <reply-{abs(hash(text))}@example.com>\nIn-Reply-To: {message_id}\n"
           "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n" + text)
    return raw.replace("\n", "\r\n").encode("utf-8")


@pytest.mark.django_db
def test_three_turns_with_one_player_by_mail_equal_the_same_orders_through_the_api(
        ingest, alice, bob, carol, client, django_capture_on_commit_callbacks):
    by_mail, by_api = new_campaign(alice, bob, carol), new_campaign(alice, bob, carol)
    with django_capture_on_commit_callbacks(execute=True):
        finish_setup(by_mail)  # the set-up round: its report email carries turn 1's template
        finish_setup(by_api)
    api = APIClient()
    for _ in range(TURNS):
        by_mail.refresh_from_db()
        by_api.refresh_from_db()
        number = by_mail.turn
        assert by_api.turn == number
        orders = computer_orders(by_mail)
        assert orders == computer_orders(by_api)  # the same position in both

        # By mail: bob answers his report email (Reply-To: the orders address) with the template edited.
        report = latest_report(by_mail, "bob@example.com", number - 1)
        assert report.reply_to == ["orders@sector.example.org"]
        ingest(reply_with_edited_template(report, orders[1]))
        answer = mail.outbox[-1]
        assert answer.to == ["bob@example.com"] and "ACCEPTED" in answer.body, answer.body
        # On the web: carol's orders page.
        client.force_login(carol)
        with django_capture_on_commit_callbacks(execute=True):
            page = client.post(reverse("campaign-orders", args=[by_mail.pk]),
                               {"orders": json.dumps(orders[2]), "ready": "on", "turn": number})
        assert page.status_code == 302, page.content.decode()[:2000]

        # Through the API, both players, the same orders.
        for user, seat in ((bob, 1), (carol, 2)):
            api.force_authenticate(user)
            with django_capture_on_commit_callbacks(execute=True):
                answer = api.put(f"/api/campaigns/{by_api.pk}/orders/",
                                 {"orders": orders[seat], "ready": True, "turn": number}, format="json")
            assert answer.status_code == 200, answer.content

        by_mail.refresh_from_db()
        by_api.refresh_from_db()
        assert by_mail.turn == by_api.turn == number + 1  # both turns were processed

    # bob never used the web or the API in the mail campaign: every set of his came by mail.
    mailed = AuditEntry.objects.filter(campaign=by_mail, action="text_orders")
    assert mailed.count() == TURNS and all(e.after["via"] == "mail" and e.after["accepted"] for e in mailed)
    assert InboundMessage.objects.filter(route="orders", outcome__startswith="accepted").count() == TURNS
    assert export_campaign(by_mail) == export_campaign(by_api)
