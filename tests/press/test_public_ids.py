"""Issue 24 item 4: the ids press shows a seat do not move with press it may not read. Conversation
ids are random public numbers, message ids count within their conversation; neither is a
site-wide counter from which a third seat could learn how much, and when, two others write in
private (the brief's "hidden stays hidden": ids and timing)."""

import random
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.core.cache import cache
from django.db import transaction
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.press import actions, replies
from campaign.press.models import Conversation

pytestmark = pytest.mark.django_db

START = datetime(2026, 11, 26, 9, tzinfo=UTC)
# Per request, whatever was written: the form's CSRF token and the page's CSP nonce.
CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=|csrf[_-]?token["\']?\s*[:=]\s*|nonce=)"[^"]*"', re.IGNORECASE)
# An email's unsubscribe link is signed with the wall-clock second it was made.
UNSUBSCRIBE = re.compile(r"/notifications/unsubscribe/[^/]+/")


def _dave_sees(client, dave, campaign) -> dict:
    """Everything dave (seat 3) gets: press pages, API list and detail, his emails' text and headers."""
    seen = {}
    api = APIClient()
    api.force_authenticate(dave)
    base = f"/api/campaigns/{campaign.pk}/press/"
    listing = api.get(base).json()
    seen["api list"] = listing
    client.force_login(dave)
    for name, args in (("press", [campaign.pk]), ("press-index", [])):
        seen[name] = CSRF.sub("csrf", client.get(reverse(name, args=args)).content.decode())
    for row in listing["conversations"]:
        seen[f"page {row['id']}"] = CSRF.sub("csrf", client.get(
            reverse("press-conversation", args=[campaign.pk, row["id"]])).content.decode())
        seen[f"api {row['id']}"] = api.get(f"{base}{row['id']}/").json()
    seen["api list after reading"] = api.get(base).json()
    seen["emails"] = [UNSUBSCRIBE.sub("/unsubscribe/", repr(
        (m.to, m.subject, m.body, [c for c, _ in m.alternatives], m.reply_to,
         {k: v for k, v in m.extra_headers.items() if k not in ("Date", "Message-ID")})))
        for m in mail.outbox if dave.email in m.to]
    return seen


def _play(monkeypatch, campaign, alice, bob, carol, dave, *, plant: bool) -> None:
    """Public press and dave's own private press; with ``plant``, bob and carol write to each other
    in private (by web, API and mail) between every step of it."""
    clock = {"now": START}
    monkeypatch.setattr("django.utils.timezone.now", lambda: clock["now"])
    monkeypatch.setattr("secrets.randbelow", random.Random(24).randrange)
    pk = campaign.pk
    carol_api = APIClient()
    carol_api.force_authenticate(carol)
    secret = {}

    def step(minutes, action):
        clock["now"] = START + timedelta(minutes=minutes)
        action()

    def plant_some(minutes):
        if not plant:
            return
        if not secret:
            step(minutes, lambda: secret.setdefault("c", actions.post(campaign_id=pk, user=bob, to=[2],
                                                                      text="Strike Dave.").conversation))
        conversation = secret["c"]
        step(minutes, lambda: carol_api.post(f"/api/campaigns/{pk}/press/{conversation.public_id}/",
                                             {"text": "Agreed."}, format="json"))
        step(minutes, lambda: actions.receive_mail_reply(
            to_address=replies.reply_address(conversation.public_id, 2), sender_email=carol.email,
            text="Bring cruisers.", received_at=clock["now"]))

    step(1, lambda: actions.post(campaign_id=pk, user=bob, to="all", text="Hello all."))
    step(2, lambda: actions.post(campaign_id=pk, user=alice, to=None, text="Turn 2 soon.", announcement=True))
    mine = actions.post(campaign_id=pk, user=dave, to=[1], text="Dave to Bob.").conversation
    plant_some(3)
    step(4, lambda: actions.post(campaign_id=pk, user=carol, to="all", text="Carol to all."))
    plant_some(5)
    step(6, lambda: actions.reply(campaign_id=pk, conversation_id=mine.pk, user=bob, text="Bob to Dave."))
    plant_some(7)
    step(8, lambda: actions.post(campaign_id=pk, user=bob, to="all", text="Bob again."))


def test_nothing_a_third_seat_gets_moves_with_press_between_two_others(
        client, monkeypatch, settings, press_campaign, alice, bob, carol, dave, django_capture_on_commit_callbacks):
    settings.MAIL_IN_ENABLED = True
    settings.PRESS_RATE_LIMIT = 0
    seen = []
    for plant in (True, False):
        rollback = transaction.savepoint()
        try:
            with django_capture_on_commit_callbacks(execute=True):
                _play(monkeypatch, press_campaign, alice, bob, carol, dave, plant=plant)
            seen.append(_dave_sees(client, dave, press_campaign))
        finally:
            transaction.savepoint_rollback(rollback)
            monkeypatch.undo()
            cache.clear()
            mail.outbox = []
    planted, clean = seen
    assert "Strike Dave." not in str(planted)
    assert len(planted["emails"]) == 5 and planted["api list"]["conversations"]
    for what in clean:
        assert planted[what] == clean[what], what


def test_conversation_ids_are_random_twelve_digit_numbers_and_message_ids_count_in_their_conversation(
        press_campaign, bob, carol, dave):
    first = actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="One.")
    actions.post(campaign_id=press_campaign.pk, user=carol, to="all", text="To all.")
    second = actions.reply(campaign_id=press_campaign.pk, conversation_id=first.conversation_id, user=carol,
                           text="Two.")
    other = actions.post(campaign_id=press_campaign.pk, user=dave, to=[1], text="Other.")
    assert (first.number, second.number, other.number) == (1, 2, 1)
    numbers = list(Conversation.objects.values_list("public_id", flat=True))
    assert len(set(numbers)) == 3 and all(10**11 <= n < 10**12 for n in numbers)
    assert replies.read_reply_address(replies.reply_address(first.conversation.public_id, 1)) == (
        first.conversation.public_id, 1)
