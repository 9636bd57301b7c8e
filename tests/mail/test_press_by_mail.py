"""Press by mail: a reply to a press email goes through ``ingestmail`` into its conversation
(``campaign.press.actions.receive_mail_reply``, which checks the signed address and the sender)."""

from __future__ import annotations

import pytest
from django.core import mail

from campaign.mail.models import InboundMessage
from campaign.press import actions
from campaign.press.models import PressMessage
from tests.press.conftest import dave, erin, press_campaign  # noqa: F401 - fixtures

from .conftest import eml


@pytest.fixture
def private(ingest, press_campaign, bob, django_capture_on_commit_callbacks):  # noqa: F811
    with django_capture_on_commit_callbacks(execute=True):
        message = actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="Shall we split the Rim?")
    (email,) = mail.outbox
    mail.outbox.clear()
    return message, email


def test_a_reply_by_mail_is_posted_in_the_conversation(private, ingest, carol):
    message, email = private
    ingest(eml("press_reply.eml", sender="carol@example.com", to=email.reply_to[0], mid="p1@example.com"))
    posted = PressMessage.objects.filter(conversation_id=message.conversation_id).order_by("pk").last()
    assert posted.pk != message.pk and posted.text == "Agreed: you take the north."
    row = InboundMessage.objects.get()
    assert row.route == "press" and row.outcome == "press message posted"
    assert all(m.to != ["carol@example.com"] or "not posted" not in m.subject for m in mail.outbox)


def test_a_forged_press_reply_posts_nothing(private, ingest, mallory):
    message, email = private
    ingest(eml("press_reply.eml", sender="mallory@example.com", to=email.reply_to[0], mid="p2@example.com"))
    assert PressMessage.objects.filter(conversation_id=message.conversation_id).count() == 1
    row = InboundMessage.objects.get()
    assert row.route == "press" and "registered address" in row.outcome
    [reply] = mail.outbox  # mallory has an account: told at her registered address, no one else
    assert reply.to == ["mallory@example.com"] and "not posted" in reply.subject
