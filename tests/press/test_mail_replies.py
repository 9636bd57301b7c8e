"""Press by mail: the signed reply address, and ``receive_mail_reply`` (the function the inbound
mail pipeline calls for a mail to a press address)."""

from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail

from campaign.press import actions, replies
from campaign.press.actions import PressReplyResult
from campaign.press.models import PressMessage

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _mail_in(settings):
    """Press emails offer an answer by mail only while the site takes mail (issue 23 item 10)."""
    settings.MAIL_IN_ENABLED = True


@pytest.fixture
def private(press_campaign, bob, django_capture_on_commit_callbacks):
    """bob writes to carol; the email carol receives (its Reply-To is hers to answer with)."""
    with django_capture_on_commit_callbacks(execute=True):
        message = actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="Shall we split the Rim?")
    (email,) = mail.outbox
    return message, email


def reply(to, sender="carol@example.com", text="Agreed.", at=NOW):
    return actions.receive_mail_reply(to_address=to, sender_email=sender, text=text, received_at=at)


def test_the_email_carries_a_signed_reply_address_for_the_recipients_seat(private, settings):
    message, email = private
    (address,) = email.reply_to
    assert (
        address
        == f"press+{message.conversation.public_id}.2.{replies.signature(message.conversation.public_id, 2)}"
        f"@{settings.MAIL_DOMAIN}"
    )
    assert replies.read_reply_address(f"Carol <{address.upper()}>") == (message.conversation.public_id, 2)
    assert "Shall we split the Rim?" in email.body and "Bob's Realm" in email.body


def test_a_reply_from_the_seats_address_is_posted_in_the_conversation(private, bob,
                                                                      django_capture_on_commit_callbacks):
    message, email = private
    mail.outbox.clear()
    text = ("Agreed: you take the north.\n\nOn Tue, Bob's Realm wrote:\n> Shall we split the Rim?\n>\n"
            "-- \nCarol, Combine Chancellor\n")
    with django_capture_on_commit_callbacks(execute=True):
        result = reply(f"Sector Command <{email.reply_to[0]}>", sender="Carol <CAROL@example.com>", text=text)
    assert isinstance(result, PressReplyResult) and result.ok and result.error is None
    posted = result.message
    assert (posted.conversation_id, posted.sender_seat, posted.via) == (message.conversation_id, 2, "mail")
    assert posted.text == "Agreed: you take the north." and posted.created_at == NOW
    assert [m.to for m in mail.outbox] == [[bob.email]]  # and bob hears of it


def test_the_same_mail_processed_twice_posts_once(private):
    _, email = private
    first, second = reply(email.reply_to[0]), reply(email.reply_to[0])
    assert first.ok and second.ok and first.message.pk == second.message.pk
    assert PressMessage.objects.filter(via="mail").count() == 1
    assert reply(email.reply_to[0], at=NOW + timedelta(minutes=1)).message.pk != first.message.pk


@pytest.mark.parametrize("forge", [
    lambda a: a.replace(".2.", ".1."),                                 # another seat, same signature
    lambda a: a.replace("press+", "press+1"),                          # another conversation
    lambda a: a[:a.index("@") - 1] + ("0" if a[a.index("@") - 1] != "0" else "1") + a[a.index("@"):],
    lambda a: a.split(".")[0] + "." + a.split(".")[1] + "@" + a.split("@")[1],  # no signature
    lambda a: a.split("@")[0] + "@elsewhere.example",                  # another domain
    lambda a: "press@" + a.split("@")[1],
])
def test_a_forged_or_changed_address_is_refused(private, forge):
    _, email = private
    result = reply(forge(email.reply_to[0]))
    assert not result.ok and result.message is None and "address" in result.error
    assert PressMessage.objects.count() == 1


def test_a_reply_from_another_sender_is_refused(private, dave):
    _, email = private
    for sender in ("dave@example.com", "bob@example.com", "carol@example.com.evil", ""):
        result = reply(email.reply_to[0], sender=sender)
        assert not result.ok and "registered address of seat 2" in result.error
    assert PressMessage.objects.count() == 1


def test_a_seat_given_to_another_player_no_longer_answers_from_the_old_address(private, press_campaign, dave):
    _, email = private
    press_campaign.empires.filter(seat=2).update(user=dave)
    assert not reply(email.reply_to[0]).ok
    assert reply(email.reply_to[0], sender="dave@example.com").ok


def test_press_off_and_empty_replies_are_refused(private, press_campaign, alice):
    _, email = private
    result = reply(email.reply_to[0], text="> Shall we split the Rim?\n-- \nCarol")
    assert not result.ok and "empty" in result.error
    actions.set_press_options(campaign_id=press_campaign.pk, user=alice, press=False)
    result = reply(email.reply_to[0])
    assert not result.ok and "press is off" in result.error
    assert PressMessage.objects.count() == 1


def test_announcements_carry_no_reply_address_and_a_made_up_one_is_refused(press_campaign, alice, carol,
                                                                          django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        note = actions.post(campaign_id=press_campaign.pk, user=alice, to=None, text="Hi", announcement=True)
    assert mail.outbox and not any(m.reply_to for m in mail.outbox)
    result = reply(replies.reply_address(note.conversation.public_id, 2))
    assert not result.ok and "announcements cannot be answered by mail" in result.error


def test_a_seat_outside_a_private_conversation_cannot_use_a_signed_address_for_it(private, dave):
    message, _ = private
    # Even a validly signed address (as if the key leaked) names a seat that is not in it.
    result = reply(replies.reply_address(message.conversation.public_id, 3), sender="dave@example.com")
    assert not result.ok and "not in this conversation" in result.error


@pytest.mark.parametrize(("raw", "clean"), [
    ("Yes.\n\n> question\n", "Yes."),
    ("Yes.\nOn Mon, 1 Jan 2026, Bob wrote:\n> q\n> q2\n\nAnd no.\n", "Yes.\n\nAnd no."),
    ("Top\r\n-- \r\nsig\r\n", "Top"),
    ("Top\n--\nsig", "Top"),
    ("Top\n-----Original Message-----\nFrom: x\n", "Top"),
    ("  \n\nHello  \n\n", "Hello"),
    ("Fine.\n\nOn Tue, 25 Nov 2026 at 13:00, Sector Command <\nnoreply@localhost> wrote:\n\n> q\n", "Fine."),
    ("Fine.\nAm Dienstag schrieb Bob:\n> q\n", "Fine."),
    ("a -- b\n--not a sig", "a -- b\n--not a sig"),
])
def test_clean_reply(raw, clean):
    assert replies.clean_reply(raw) == clean


def test_is_press_address(settings):
    settings.MAIL_DOMAIN = "mail.example.org"
    assert replies.is_press_address("Sector <PRESS+1.2.abc@Mail.Example.org>")
    assert not replies.is_press_address("press+1.2.abc@elsewhere.org")
    assert not replies.is_press_address("orders@mail.example.org")
    address = replies.reply_address(5, 1)
    assert address.endswith("@mail.example.org") and replies.read_reply_address(address) == (5, 1)


def test_a_mailed_reply_over_the_rate_limit_is_refused_naming_it(private, settings):
    settings.PRESS_RATE_LIMIT = 2
    message, email = private
    (address,) = email.reply_to
    assert reply(address, text="first", at=NOW).ok
    assert reply(address, text="second", at=NOW + timedelta(minutes=1)).ok
    refused = reply(address, text="third", at=NOW + timedelta(minutes=2))
    assert not refused.ok and "2 press messages" in refused.error
    assert not PressMessage.objects.filter(text="third").exists()


def test_a_conversation_made_before_public_ids_still_answers_its_old_reply_address(private, dave):
    """Issue 24 item 4: addresses already in inboxes named the conversation's primary key; the
    migration marks those conversations, which go on answering them. A newer conversation does not
    answer to its primary key (that would make it guessable again)."""
    message, _ = private
    conversation = message.conversation
    old = replies.reply_address(conversation.pk, 2)
    refused = reply(old)
    assert not refused.ok and "no longer exists" in refused.error
    conversation.legacy_reply_address = True
    conversation.save(update_fields=["legacy_reply_address"])
    result = reply(old)
    assert result.ok, result.error
    assert result.message.conversation_id == conversation.pk and result.message.number == 2


def test_the_migration_gives_existing_press_public_ids_numbers_and_read_marks_by_number(private, bob, carol, dave):
    import importlib

    from django.apps import apps
    from django.db.models import F

    from campaign.press.models import Conversation, ReadMark

    message, _ = private
    other = actions.post(campaign_id=message.campaign_id, user=dave, to="all", text="Interleaved.")
    second = actions.reply(campaign_id=message.campaign_id, conversation_id=message.conversation_id, user=bob,
                           text="Second.")
    third = actions.reply(campaign_id=message.campaign_id, conversation_id=message.conversation_id, user=carol,
                          text="Third.")
    # As before public ids: read marks held message primary keys.
    ReadMark.objects.create(conversation_id=message.conversation_id, user=carol, last_read=second.pk)
    PressMessage.objects.update(number=F("id") + 1000)
    importlib.import_module("campaign.press.migrations.0002_public_ids").fill(apps, None)
    numbers = dict(PressMessage.objects.values_list("pk", "number"))
    assert [numbers[m.pk] for m in (message, second, third, other)] == [1, 2, 3, 1]
    assert ReadMark.objects.get(user=carol).last_read == 2
    rows = list(Conversation.objects.values_list("public_id", "legacy_reply_address"))
    assert len({p for p, _ in rows}) == 2 and all(10**11 <= p < 10**12 and legacy for p, legacy in rows)

