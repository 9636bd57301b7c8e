"""Fog of war for press: a private conversation between bob and carol is never visible to dave
(the third player), to erin (an observer), to mallory (an outsider), nor to alice (the moderator)
while the campaign keeps private press private — on no page, in no API answer, in no email. With
``press_moderator_reads`` on, the moderator reads what is written from then on, nothing earlier."""

import pytest
from django.core import mail
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.press import actions, replies
from campaign.press.models import PressMessage

pytestmark = pytest.mark.django_db

SECRETS = ("Secret plan: we strike Dave at turn 3.", "Agreed, from the wormhole side.", "By mail: bring cruisers.")


@pytest.fixture
def secret(press_campaign, alice, bob, carol, dave, django_capture_on_commit_callbacks):
    """bob and carol plot by web, API and mail; dave, erin and alice get public press meanwhile."""
    from datetime import UTC, datetime

    with django_capture_on_commit_callbacks(execute=True):
        first = actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text=SECRETS[0])
        c = APIClient()
        c.force_authenticate(carol)
        assert c.post(f"/api/campaigns/{press_campaign.pk}/press/{first.conversation.public_id}/", {"text": SECRETS[1]},
                      format="json").status_code == 201
        result = actions.receive_mail_reply(
            to_address=replies.reply_address(first.conversation.public_id, 1), sender_email=bob.email,
            text=SECRETS[2] + "\n> " + SECRETS[1], received_at=datetime(2026, 11, 25, 12, tzinfo=UTC))
        assert result.ok, result.error
        actions.post(campaign_id=press_campaign.pk, user=dave, to="all", text="Dave says hello to all.")
        actions.post(campaign_id=press_campaign.pk, user=alice, to=None, text="Moderator here.", announcement=True)
    return first.conversation


def leaked(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


@pytest.mark.parametrize("who", ["dave", "erin", "alice", "mallory"])
def test_no_page_shows_another_seats_private_press(client, request, press_campaign, secret, who):
    client.force_login(request.getfixturevalue(who))
    pk = press_campaign.pk
    for name, args in (("press", [pk]), ("press-index", []), ("campaign-detail", [pk]), ("home", []),
                       ("notification-preferences", [pk])):
        response = client.get(reverse(name, args=args))
        body = response.content.decode()
        assert not leaked(body), (name, who)
        assert reverse("press-conversation", args=[pk, secret.public_id]) not in body, (name, who)
    assert client.get(reverse("press-conversation", args=[pk, secret.public_id])).status_code == 404
    assert client.post(reverse("press-conversation", args=[pk, secret.public_id]), {"text": "hi"}).status_code == 404
    # and no unread count hints that something was written
    if who == "dave":
        listing = client.get(reverse("press", args=[pk])).content.decode()
        menu, main = listing.split("<main>")
        assert "Carol&#x27;s Combine (seat 2) and" not in listing and main.count(" new</span>") == 1  # the announcement
        assert 'id="press-unread">1 new</span>' in menu  # the menu's count over every campaign: the same


@pytest.mark.parametrize("who", ["dave", "erin", "alice", "mallory"])
def test_no_api_answer_shows_another_seats_private_press(request, press_campaign, secret, who):
    c = APIClient()
    c.force_authenticate(request.getfixturevalue(who))
    base = f"/api/campaigns/{press_campaign.pk}/press/"
    listing = c.get(base)
    assert not leaked(listing.content.decode())
    if listing.status_code == 200:
        assert secret.public_id not in [row["id"] for row in listing.json()["conversations"]]
        assert sum(row["unread"] for row in listing.json()["conversations"]) <= 2  # the public two at most
    else:
        assert listing.status_code == 404
    for response in (
        c.get(f"{base}{secret.public_id}/"),
        c.post(f"{base}{secret.public_id}/", {"text": "x"}, format="json"),
    ):
        assert response.status_code == 404 and not leaked(response.content.decode())
    assert PressMessage.objects.filter(conversation=secret).count() == 3


def test_no_email_carries_another_seats_private_press(secret, bob, carol, dave, erin, alice):
    by_recipient = {}
    for m in mail.outbox:
        text = m.body + "".join(content for content, _ in m.alternatives) + m.subject
        by_recipient.setdefault(m.to[0], []).append(text)
    for outsider in (dave, erin, alice):
        assert not any(leaked(t) for t in by_recipient.get(outsider.email, [])), outsider
    assert any(SECRETS[0] in t for t in by_recipient[carol.email])
    assert any(SECRETS[1] in t for t in by_recipient[bob.email])
    assert any(SECRETS[2] in t for t in by_recipient[carol.email])
    # no email gives away the address of the account behind a seat
    assert not any(u.email in t for u in (bob, carol, dave) for ts in by_recipient.values() for t in ts)


def test_the_moderator_reads_private_press_only_written_while_allowed(client, press_campaign, secret, alice, bob):
    actions.set_press_options(campaign_id=press_campaign.pk, user=alice, moderator_reads=True)
    client.force_login(alice)
    assert client.get(reverse("press-conversation", args=[press_campaign.pk, secret.public_id])).status_code == 404
    actions.reply(campaign_id=press_campaign.pk, conversation_id=secret.pk, user=bob, text="Now the moderator reads.")
    thread = client.get(reverse("press-conversation", args=[press_campaign.pk, secret.public_id])).content.decode()
    assert "Now the moderator reads." in thread and not leaked(thread)
    assert 'id="reply"' not in thread  # reading is not writing
    c = APIClient()
    c.force_authenticate(alice)
    api = c.get(f"/api/campaigns/{press_campaign.pk}/press/{secret.public_id}/").json()
    assert [m["text"] for m in api["messages"]] == ["Now the moderator reads."] and api["may_write"] is False
    actions.set_press_options(campaign_id=press_campaign.pk, user=alice, moderator_reads=False)
    actions.reply(campaign_id=press_campaign.pk, conversation_id=secret.pk, user=bob, text="Private again.")
    thread = client.get(reverse("press-conversation", args=[press_campaign.pk, secret.public_id])).content.decode()
    assert "Now the moderator reads." in thread and "Private again." not in thread


def test_the_players_of_the_conversation_read_all_of_it(client, press_campaign, secret, carol):
    client.force_login(carol)
    thread = client.get(reverse("press-conversation", args=[press_campaign.pk, secret.public_id])).content.decode()
    assert leaked(thread) == list(SECRETS)
