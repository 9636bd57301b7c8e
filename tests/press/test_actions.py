"""Press actions (campaign/press/actions.py): posting, replying, announcements, options, read
marks, and what is refused."""

from urllib.parse import urlsplit

import pytest
from django.core import mail

from campaign.actions.errors import ActionError, NotAllowed, NotFound
from campaign.models import AuditEntry, SentNotification
from campaign.press import actions, visibility
from campaign.press.models import Conversation, PressMessage

pytestmark = pytest.mark.django_db


def test_post_to_one_seat_makes_a_private_conversation_of_the_two(press_campaign, bob, carol,
                                                                    django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        message = actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="  Hello, Carol.  ")
    conversation = message.conversation
    assert conversation.kind == Conversation.Kind.SEATS and conversation.seat_numbers == [1, 2]
    assert (message.sender_seat, message.sender_name, message.text) == (1, "Bob's Realm", "Hello, Carol.")
    assert message.turn == press_campaign.turn and not message.announcement
    assert [m.to for m in mail.outbox] == [[carol.email]]


def test_the_same_participants_share_one_conversation_whoever_writes(press_campaign, bob, carol, dave):
    first = actions.post(campaign_id=press_campaign.pk, user=bob, to=[2, 3], text="Alliance?")
    second = actions.post(campaign_id=press_campaign.pk, user=dave, to=[1, 2], text="Yes.")
    third = actions.reply(campaign_id=press_campaign.pk, conversation_id=first.conversation_id, user=carol,
                          text="Maybe.")
    assert first.conversation_id == second.conversation_id == third.conversation_id
    assert Conversation.objects.get(pk=first.conversation_id).seat_numbers == [1, 2, 3]
    assert actions.post(campaign_id=press_campaign.pk, user=bob, to=[3], text="Just us").conversation_id \
        != first.conversation_id


def test_post_to_all_and_the_moderators_announcement(press_campaign, alice, bob, carol, dave,
                                                     django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        public = actions.post(campaign_id=press_campaign.pk, user=bob, to="all", text="Peace!")
    assert public.conversation.kind == Conversation.Kind.ALL
    assert sorted(m.to[0] for m in mail.outbox) == [carol.email, dave.email]
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        note = actions.post(campaign_id=press_campaign.pk, user=alice, to=None, text="Deadline moved.",
                            announcement=True)
    assert note.announcement and note.sender_seat is None and note.sender_name == "Moderator"
    assert note.conversation.kind == Conversation.Kind.ANNOUNCEMENTS
    assert sorted(m.to[0] for m in mail.outbox) == [bob.email, carol.email, dave.email]
    assert all("announcement from the moderator" in m.subject and not m.reply_to for m in mail.outbox)


@pytest.mark.parametrize(("who", "kwargs", "error", "refusal"), [
    ("bob", {"to": [1]}, ActionError, "at least one other seat"),
    ("bob", {"to": [9]}, ActionError, "no seat 9"),
    ("bob", {"to": []}, ActionError, "list of seat numbers"),
    ("bob", {"to": ["2"]}, ActionError, "seat numbers"),
    ("bob", {"to": [True]}, ActionError, "seat numbers"),
    ("bob", {"to": [2], "text": "   "}, ActionError, "empty"),
    ("bob", {"to": [2], "text": "x" * 5001}, ActionError, "at most 5000"),
    ("bob", {"to": [2], "text": "a\x00b"}, ActionError, "NUL"),
    ("bob", {"to": None, "announcement": True}, NotAllowed, "only the campaign's moderators"),
    ("alice", {"to": [1]}, NotAllowed, "only players write press"),
    ("erin", {"to": "all"}, NotAllowed, "only players write press"),
    ("mallory", {"to": "all"}, NotFound, "no such campaign"),
])
def test_refused_posts_change_nothing(press_campaign, request, who, kwargs, error, refusal):
    kwargs = {"text": "hello", **kwargs}
    with pytest.raises(error, match=refusal):
        actions.post(campaign_id=press_campaign.pk, user=request.getfixturevalue(who), **kwargs)
    assert not PressMessage.objects.exists() and not Conversation.objects.exists()
    assert not SentNotification.objects.exists()


def test_only_the_conversations_seats_reply_in_it(press_campaign, alice, bob, carol, dave):
    private = actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="psst")
    for outsider in (dave, alice):
        with pytest.raises(NotFound):
            actions.reply(campaign_id=press_campaign.pk, conversation_id=private.conversation_id, user=outsider,
                          text="I heard that")
    note = actions.post(campaign_id=press_campaign.pk, user=alice, to=None, text="Hi all", announcement=True)
    with pytest.raises(NotAllowed, match="only the moderators write announcements"):
        actions.reply(campaign_id=press_campaign.pk, conversation_id=note.conversation_id, user=bob, text="Thanks")
    assert PressMessage.objects.count() == 2


def test_press_off_stops_players_but_not_announcements(press_campaign, alice, bob):
    actions.set_press_options(campaign_id=press_campaign.pk, user=alice, press=False)
    with pytest.raises(ActionError, match="press is off"):
        actions.post(campaign_id=press_campaign.pk, user=bob, to="all", text="hello?")
    actions.post(campaign_id=press_campaign.pk, user=alice, to=None, text="Quiet, please.", announcement=True)
    actions.set_press_options(campaign_id=press_campaign.pk, user=alice, press=True)
    actions.post(campaign_id=press_campaign.pk, user=bob, to="all", text="hello!")
    assert list(PressMessage.objects.values_list("text", flat=True).order_by("id")) == ["Quiet, please.", "hello!"]


def test_options_are_the_moderators_audited_and_checked(press_campaign, alice, bob):
    with pytest.raises(NotAllowed):
        actions.set_press_options(campaign_id=press_campaign.pk, user=bob, press=False)
    with pytest.raises(ActionError, match="true or false"):
        actions.set_press_options(campaign_id=press_campaign.pk, user=alice, press="no")
    press_campaign.refresh_from_db()
    assert visibility.press_on(press_campaign) and not visibility.moderator_reads(press_campaign)
    actions.set_press_options(campaign_id=press_campaign.pk, user=alice, moderator_reads=True)
    press_campaign.refresh_from_db()
    assert visibility.moderator_reads(press_campaign)
    entry = AuditEntry.objects.get(campaign=press_campaign, action="set_option")
    assert (entry.before, entry.after, entry.user) == ({"press_moderator_reads": False},
                                                       {"press_moderator_reads": True}, alice)
    actions.set_press_options(campaign_id=press_campaign.pk, user=alice, moderator_reads=True)  # no change
    assert AuditEntry.objects.filter(campaign=press_campaign, action="set_option").count() == 1


def test_press_waits_for_the_lobby_to_start(db, alice, bob):
    from campaign.eventhorizon import actions as eh_actions

    lobby = eh_actions.create_lobby(moderator=alice, name="Lobby", width=12, height=12, seats=2)
    with pytest.raises(ActionError, match="press opens when the campaign starts"):
        actions.post(campaign_id=lobby.pk, user=alice, to=None, text="Welcome", announcement=True)


def test_read_marks_count_unread_and_only_move_forward(press_campaign, bob, carol):
    first = actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="one")
    second = actions.reply(campaign_id=press_campaign.pk, conversation_id=first.conversation_id, user=bob, text="two")
    carol_reads = visibility.reader(press_campaign, carol)
    assert visibility.unread_counts(carol_reads) == {first.conversation_id: 2}
    assert visibility.unread_counts(visibility.reader(press_campaign, bob)) == {}  # his own
    actions.mark_read(campaign_id=press_campaign.pk, conversation_id=first.conversation_id, user=carol,
                      up_to=second.number)
    actions.mark_read(campaign_id=press_campaign.pk, conversation_id=first.conversation_id, user=carol,
                      up_to=first.number)
    assert visibility.unread_counts(carol_reads) == {}
    actions.reply(campaign_id=press_campaign.pk, conversation_id=first.conversation_id, user=bob, text="three")
    assert visibility.unread_counts(carol_reads) == {first.conversation_id: 1}


def test_notify_press_off_means_no_email(press_campaign, bob, carol, dave, django_capture_on_commit_callbacks):
    from campaign import actions as platform

    platform.set_notification_preferences(campaign_id=press_campaign.pk, user=carol, notify_press=False)
    with django_capture_on_commit_callbacks(execute=True):
        actions.post(campaign_id=press_campaign.pk, user=bob, to="all", text="Hello")
    assert [m.to for m in mail.outbox] == [[dave.email]]


def test_cam_campaigns_have_press_between_their_fleets(db, alice, bob, carol, django_capture_on_commit_callbacks):
    from tests.cam.conftest import make_cam

    campaign = make_cam(alice, bob, carol, start=False)
    with django_capture_on_commit_callbacks(execute=True):
        message = actions.post(campaign_id=campaign.pk, user=carol, to=[1], text="Qapla'")
    assert (message.sender_seat, message.sender_name) == (2, "Carol's Raiders")
    assert [m.to for m in mail.outbox] == [[bob.email]]
    assert "Carol's Raiders" in mail.outbox[0].subject


def test_a_press_emails_unsubscribe_link_switches_press_off(client, press_campaign, bob, carol,
                                                            django_capture_on_commit_callbacks):
    from campaign.models import Membership

    with django_capture_on_commit_callbacks(execute=True):
        actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="one")
    (email,) = mail.outbox
    link = email.extra_headers["List-Unsubscribe"].strip("<>")
    assert "press" in email.body.split("Stop emails about")[1].split(":")[0]
    assert client.post(urlsplit(link).path).status_code == 200
    assert Membership.objects.get(campaign=press_campaign, user=carol).notify_press is False
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="two")
    assert mail.outbox == []


def _first_lines(email) -> tuple[str, str]:
    html = email.alternatives[0][0] if email.alternatives else ""
    return email.body.split("\n", 1)[0], html


def test_a_press_email_names_its_addressees_not_its_sender(press_campaign, bob, carol, dave, settings,
                                                          django_capture_on_commit_callbacks):
    """Issue 23 item 5: "Bob (seat 1) writes to Bob (seat 1) and you" named the sender as an
    addressee. The sender is named once, as the writer; the addressees are the other seats of
    the conversation, the reader among them as "you"; an answer goes to everyone else in it."""
    settings.MAIL_IN_ENABLED = True
    with django_capture_on_commit_callbacks(execute=True):
        actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="Hello, Carol.")
    (email,) = mail.outbox
    text, html = _first_lines(email)
    assert text.startswith("Bob's Realm (seat 1) writes to you (")
    assert "writes to you (" in html and "writes to Bob" not in html
    assert "Reply to this email to answer Bob's Realm (seat 1):" in email.body
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        actions.post(campaign_id=press_campaign.pk, user=bob, to=[2, 3], text="Alliance?")
    by_reader = {m.to[0]: m for m in mail.outbox}
    carols, _ = _first_lines(by_reader[carol.email])
    assert carols.startswith("Bob's Realm (seat 1) writes to Dave's Dominion (seat 3) and you (")
    assert "answer Bob's Realm (seat 1) and Dave's Dominion (seat 3):" in by_reader[carol.email].body
    daves, _ = _first_lines(by_reader[dave.email])
    assert daves.startswith("Bob's Realm (seat 1) writes to Carol's Combine (seat 2) and you (")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        actions.post(campaign_id=press_campaign.pk, user=carol, to="all", text="Peace!")
    first, html = _first_lines(mail.outbox[0])
    assert first.startswith("Carol's Combine (seat 2) writes to everyone (") and "writes to everyone (" in html


def test_press_emails_offer_an_answer_by_mail_only_while_the_site_takes_mail(
        press_campaign, bob, carol, settings, django_capture_on_commit_callbacks):
    """Issue 23 item 10: without mail in (the demo) a press email said "Reply to this email" and
    carried a Reply-To nobody reads."""
    settings.MAIL_IN_ENABLED = False
    with django_capture_on_commit_callbacks(execute=True):
        actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="Hello, Carol.")
    (email,) = mail.outbox
    html = email.alternatives[0][0]
    assert email.reply_to == [] and "reply to this email" not in (email.body + html).lower()
    assert "by mail" not in email.body and "Read and write press on the web" in email.body
    mail.outbox.clear()
    settings.MAIL_IN_ENABLED = True
    with django_capture_on_commit_callbacks(execute=True):
        actions.post(campaign_id=press_campaign.pk, user=bob, to=[2], text="Again.")
    (email,) = mail.outbox
    assert email.reply_to and "Reply to this email to answer" in email.body
