"""Email notifications: turn reports, deadline reminders, battle decisions; preferences,
unsubscribe links, and each email sent once (SentNotification)."""

from datetime import timedelta

import pytest
from django.core import mail, signing
from django.test import Client
from django.utils import timezone

from campaign import actions, notifications, tasks
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import notify
from campaign.eventhorizon.actions import roll_back_turn
from campaign.models import Campaign, Membership, SentNotification, Turn, TurnOrders

pytestmark = pytest.mark.django_db

SECRET_SHIP = "Nightshade Whisper"


@pytest.fixture(autouse=True)
def _tasks_in_process():
    """The turn email task runs in this process even when a broker is configured (the PostgreSQL
    + Redis pass), so the in-memory outbox sees it; tests/campaign/test_tasks.py covers a real worker."""
    from config.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def by_recipient(outbox=None):
    return {m.to[0].split("@")[0]: m for m in (outbox if outbox is not None else mail.outbox)}


def html_of(message):
    [(html, mimetype)] = message.alternatives
    assert mimetype == "text/html"
    return html


@pytest.fixture
def processed(small_campaign, django_capture_on_commit_callbacks):
    """Turn 1 processed with the emails sent: carol built a corvette named SECRET_SHIP (a
    purchase is private to her seat, 003 Use of BP in a Campaign), bob built an unnamed one."""
    for empire in small_campaign.empires.all():
        dock = empire.structures.get(resource="dockyard").number
        build = {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": dock}
        if empire.seat == 2:
            build["name"] = SECRET_SHIP
        eh_actions.submit_orders(empire_id=empire.pk, raw={"purchases": [build]})
    with django_capture_on_commit_callbacks(execute=True):
        assert eh_actions.process_turn(campaign_id=small_campaign.pk) is not None
    small_campaign.refresh_from_db()
    return small_campaign


# --- turn processed --------------------------------------------------------------------------


def test_turn_processed_emails_every_player_and_the_moderator(processed):
    mails = by_recipient()
    assert sorted(mails) == ["alice", "bob", "carol"]
    for message in mails.values():
        assert "Test Sector" in message.subject and "turn 1" in message.subject
        assert "Turn 1 of Test Sector has been processed" in message.body
        assert "Turn 2 is open for orders" in message.body
        assert "has been processed" in html_of(message)
    assert "Bob's Realm" in mails["bob"].body
    assert "Carol's Combine" in mails["carol"].body
    assert "full report" in mails["alice"].body


def test_turn_email_has_text_and_html_and_an_unsubscribe_link(processed):
    message = by_recipient()["bob"]
    html = html_of(message)
    assert "<html" in html and "<html" not in message.body
    link = message.extra_headers["List-Unsubscribe"].strip("<>")
    assert "/notifications/unsubscribe/" in link
    assert link in message.body and link in html
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_a_players_turn_email_shows_nothing_of_other_empires(processed):
    # Fog of war (issue 4 item 5): carol's private purchase reaches her and the moderator only.
    mails = by_recipient()
    assert SECRET_SHIP in mails["carol"].body and SECRET_SHIP in html_of(mails["carol"])
    assert SECRET_SHIP in mails["alice"].body
    assert SECRET_SHIP not in mails["bob"].body and SECRET_SHIP not in html_of(mails["bob"])
    # The moderator's full report lists every seat's treasury; a player's lists only their own.
    carol_bp = processed.empires.get(seat=2).bp
    assert f"Carol's Combine (seat 2): {carol_bp} BP" in mails["alice"].body  # by name (issue 13 item 15)
    assert "(seat 2)" not in mails["bob"].body and f"{carol_bp} BP banked" not in mails["bob"].body


def test_turn_emails_are_sent_once_however_often_the_task_runs(processed):
    assert len(mail.outbox) == 3
    for _ in range(3):
        assert tasks.send_turn_notifications.apply(args=(processed.pk, 1)).get() == 0
    assert len(mail.outbox) == 3
    assert SentNotification.objects.filter(campaign=processed, kind__startswith="turn:", turn=1).count() == 3


def test_a_turn_rolled_back_and_processed_again_is_reported_again(processed, alice, django_capture_on_commit_callbacks):
    assert len(mail.outbox) == 3
    with django_capture_on_commit_callbacks(execute=True):
        roll_back_turn(campaign_id=processed.pk, user=alice)
    # Rolled back: a queued email task for the undone processing finds nothing to report.
    with django_capture_on_commit_callbacks(execute=True):
        assert actions.send_turn_notifications(campaign_id=processed.pk, turn_number=1) == 0
    with django_capture_on_commit_callbacks(execute=True):
        assert actions.process_now(campaign_id=processed.pk, user=alice) is not None
    # The players were told of the roll-back (issue 13 item 17), then get the turn's report again.
    rolled = [m for m in mail.outbox[3:] if "rolled back" in m.subject]
    assert sorted(m.to[0].split("@")[0] for m in rolled) == ["bob", "carol"]
    again = [m for m in mail.outbox[3:] if "has been processed" in m.subject]
    assert sorted(m.to[0].split("@")[0] for m in again) == ["alice", "bob", "carol"]


def test_turn_emails_respect_each_members_preference(small_campaign, bob, alice, django_capture_on_commit_callbacks):
    actions.set_notification_preferences(campaign_id=small_campaign.pk, user=bob, notify_turn=False)
    actions.set_notification_preferences(campaign_id=small_campaign.pk, user=alice, notify_reminders=False)
    with django_capture_on_commit_callbacks(execute=True):
        eh_actions.process_turn(campaign_id=small_campaign.pk)
    # carol has no Membership row (campaign made by create_campaign): everything is on for her.
    assert not Membership.objects.filter(campaign=small_campaign, user__username="carol").exists()
    assert sorted(by_recipient()) == ["alice", "carol"]


def test_observers_get_the_public_report(small_campaign, django_user_model, django_capture_on_commit_callbacks):
    dave = django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")
    Membership.objects.create(campaign=small_campaign, user=dave, role=Membership.Role.OBSERVER)
    for empire in small_campaign.empires.all():  # both build, so nobody is eliminated
        dock = empire.structures.get(resource="dockyard").number
        eh_actions.submit_orders(
            empire_id=empire.pk,
            raw={
                "purchases": [
                    {
                        "build": "Cyber-Corsair Galiot Class Corvette",
                        "dockyard": dock,
                        "name": f"{SECRET_SHIP} {empire.seat}",
                    }
                ]
            },
        )
    with django_capture_on_commit_callbacks(execute=True):
        eh_actions.process_turn(campaign_id=small_campaign.pk)
    assert Campaign.objects.get(pk=small_campaign.pk).status == Campaign.Status.ACTIVE
    message = by_recipient()["dave"]
    assert "observer" in message.body and SECRET_SHIP not in message.body


def test_no_turn_email_for_a_turn_not_processed(small_campaign):
    assert actions.send_turn_notifications(campaign_id=small_campaign.pk, turn_number=1) == 0
    assert actions.send_turn_notifications(campaign_id=10**6, turn_number=1) == 0
    assert mail.outbox == []


def test_a_user_without_an_email_address_gets_nothing(small_campaign, bob, django_capture_on_commit_callbacks):
    bob.email = ""
    bob.save()
    with django_capture_on_commit_callbacks(execute=True):
        eh_actions.process_turn(campaign_id=small_campaign.pk)
    assert sorted(by_recipient()) == ["alice", "carol"]


def test_emails_go_only_when_the_transaction_commits(small_campaign, django_capture_on_commit_callbacks):
    eh_actions.process_turn(campaign_id=small_campaign.pk)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert actions.send_turn_notifications(campaign_id=small_campaign.pk, turn_number=1) == 3
    assert mail.outbox == [] and len(callbacks) == 1
    callbacks[0]()
    assert len(mail.outbox) == 3


# --- deadline reminders --------------------------------------------------------------------


@pytest.fixture
def deadline(small_campaign):
    """Turn 1 opened just now with a 72-hour deadline."""
    turn = Turn.objects.get(campaign=small_campaign, number=1)
    turn.deadline = turn.opened_at + timedelta(hours=72)
    turn.save(update_fields=["deadline"])
    return turn.deadline


def remind(now, capture):
    with capture(execute=True):
        return actions.send_deadline_reminders(now=now)


def test_reminders_24h_and_1h_before_the_deadline_once_each(
    small_campaign, deadline, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    assert remind(deadline - timedelta(hours=30), capture) == 0  # not yet
    assert remind(deadline - timedelta(hours=23, minutes=55), capture) == 2
    assert sorted(by_recipient()) == ["bob", "carol"]  # players only, not the moderator
    message = by_recipient()["bob"]
    assert "within 24 hours" in message.subject and "turn 1" in message.subject
    assert "not marked your orders ready" in message.body and "within 24 hours" in html_of(message)
    assert remind(deadline - timedelta(hours=12), capture) == 0  # sent once
    assert remind(deadline - timedelta(minutes=55), capture) == 2
    assert "within 1 hour" in mail.outbox[-1].subject
    assert remind(deadline - timedelta(minutes=10), capture) == 0
    assert remind(deadline + timedelta(minutes=1), capture) == 0  # past the deadline: nothing
    assert len(mail.outbox) == 4
    kinds = sorted(k.split(":")[0] for k in SentNotification.objects.values_list("kind", flat=True))
    assert kinds == ["reminder_1h"] * 2 + ["reminder_24h"] * 2


def test_no_reminder_to_players_who_are_ready(small_campaign, deadline, django_capture_on_commit_callbacks):
    eh_actions.submit_orders(empire_id=small_campaign.empires.get(seat=2).pk, raw={}, ready=True)
    eh_actions.submit_orders(empire_id=small_campaign.empires.get(seat=1).pk, raw={}, ready=False)
    assert remind(deadline - timedelta(hours=2), django_capture_on_commit_callbacks) == 1
    assert list(by_recipient()) == ["bob"]


def test_no_reminder_while_the_campaign_is_paused(small_campaign, deadline, django_capture_on_commit_callbacks):
    Campaign.objects.filter(pk=small_campaign.pk).update(paused=True)
    assert remind(deadline - timedelta(hours=2), django_capture_on_commit_callbacks) == 0
    assert remind(deadline - timedelta(minutes=30), django_capture_on_commit_callbacks) == 0
    assert mail.outbox == []


def test_no_reminder_to_computer_players_or_those_who_opted_out(small_campaign, deadline, carol,
                                                               django_capture_on_commit_callbacks):
    small_campaign.empires.filter(seat=1).update(is_bot=True)
    actions.set_notification_preferences(campaign_id=small_campaign.pk, user=carol, notify_reminders=False)
    assert remind(deadline - timedelta(hours=2), django_capture_on_commit_callbacks) == 0


def test_a_reminder_inside_the_turns_own_window_is_skipped(small_campaign, django_capture_on_commit_callbacks):
    # A 12-hour turn: players learned the deadline 12 hours before it, so no "24 hours" email;
    # the one-hour reminder still comes.
    turn = Turn.objects.get(campaign=small_campaign, number=1)
    turn.deadline = turn.opened_at + timedelta(hours=12)
    turn.save(update_fields=["deadline"])
    assert remind(turn.deadline - timedelta(hours=11), django_capture_on_commit_callbacks) == 0
    assert remind(turn.deadline - timedelta(minutes=50), django_capture_on_commit_callbacks) == 2


def test_an_extended_deadline_is_reminded_again(small_campaign, deadline, django_capture_on_commit_callbacks):
    assert remind(deadline - timedelta(minutes=30), django_capture_on_commit_callbacks) == 2
    later = deadline + timedelta(hours=48)
    Turn.objects.filter(campaign=small_campaign, number=1).update(deadline=later)
    assert remind(later - timedelta(minutes=30), django_capture_on_commit_callbacks) == 2


def test_the_reminder_sweep_is_on_the_beat_schedule(settings):
    tasks_scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "campaign.tasks.send_deadline_reminders" in tasks_scheduled
    assert "campaign.tasks.process_due" in tasks_scheduled


# --- battle decisions ------------------------------------------------------------------------


def test_battle_decision_email_goes_to_that_seats_player_once(small_campaign, django_capture_on_commit_callbacks):
    text = "Your fleet 3 is engaged at (4, 5): choose fight or retreat before the deadline."
    with django_capture_on_commit_callbacks(execute=True):
        assert notifications.notify_battle_decision(small_campaign.pk, 1, 2, text) == 1
        assert notifications.notify_battle_decision(small_campaign.pk, 1, 2, text) == 0
    [message] = mail.outbox
    assert message.to == ["carol@example.com"]
    assert "battle needs your decision" in message.subject
    assert text in message.body and "fight or retreat" in html_of(message)
    with django_capture_on_commit_callbacks(execute=True):
        assert notifications.notify_battle_decision(small_campaign.pk, 1, 2, "A second battle at (7, 7).") == 1
    assert len(mail.outbox) == 2


def test_battle_decision_inside_another_transaction_waits_for_its_commit(small_campaign,
                                                                          django_capture_on_commit_callbacks):
    from django.db import transaction

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        with transaction.atomic():
            notifications.notify_battle_decision(small_campaign.pk, 1, 1, "Battle at (2, 2).")
            assert mail.outbox == []
    assert len(callbacks) == 1 and mail.outbox == []


def test_battle_decision_respects_the_preference_and_refuses_bad_input(small_campaign, bob,
                                                                      django_capture_on_commit_callbacks):
    actions.set_notification_preferences(campaign_id=small_campaign.pk, user=bob, notify_battles=False)
    with django_capture_on_commit_callbacks(execute=True):
        assert notifications.notify_battle_decision(small_campaign.pk, 1, 1, "Battle at (2, 2).") == 0
    assert mail.outbox == []
    with pytest.raises(actions.ActionError, match="no seat 9"):
        notifications.notify_battle_decision(small_campaign.pk, 1, 9, "Battle")
    with pytest.raises(actions.ActionError, match="needs a text"):
        notifications.notify_battle_decision(small_campaign.pk, 1, 1, "  ")
    assert not SentNotification.objects.exists()


def test_no_battle_email_to_a_computer_seat(small_campaign, django_capture_on_commit_callbacks):
    small_campaign.empires.filter(seat=1).update(is_bot=True)
    with django_capture_on_commit_callbacks(execute=True):
        assert notifications.notify_battle_decision(small_campaign.pk, 1, 1, "Battle at (2, 2).") == 0


# --- preferences and unsubscribe -------------------------------------------------------------


def test_preferences_are_checked(small_campaign, bob, mallory):
    with pytest.raises(actions.ActionError, match="unknown notification preference"):
        actions.set_notification_preferences(campaign_id=small_campaign.pk, user=bob, notify_everything=False)
    with pytest.raises(actions.ActionError, match="true or false"):
        actions.set_notification_preferences(campaign_id=small_campaign.pk, user=bob, notify_turn="no")
    with pytest.raises(actions.ActionError, match="not in this campaign"):
        actions.set_notification_preferences(campaign_id=small_campaign.pk, user=mallory, notify_turn=False)
    assert not Membership.objects.filter(user__in=[bob, mallory]).exists()


def test_a_players_membership_is_made_on_first_change(small_campaign, bob):
    membership = actions.set_notification_preferences(campaign_id=small_campaign.pk, user=bob, notify_turn=False)
    assert membership.role == Membership.Role.PLAYER and membership.empire.seat == 1
    assert (membership.notify_turn, membership.notify_reminders, membership.notify_battles) == (False, True, True)


def unsubscribe_link(message) -> str:
    return message.extra_headers["List-Unsubscribe"].strip("<>").split("127.0.0.1:8000", 1)[1]


def test_unsubscribe_link_switches_that_kind_off_without_logging_in(processed, bob):
    link = unsubscribe_link(by_recipient()["bob"])
    client = Client(enforce_csrf_checks=True)  # mail clients' one-click POST has no CSRF token
    page = client.get(link)
    assert page.status_code == 200 and b"Unsubscribe" in page.content
    assert not Membership.objects.filter(user=bob).exists()  # a GET changes nothing
    done = client.post(link)
    assert done.status_code == 200 and b"no longer receive" in done.content
    membership = Membership.objects.get(campaign=processed, user=bob)
    assert (membership.notify_turn, membership.notify_reminders, membership.notify_battles) == (False, True, True)
    assert client.post(link).status_code == 200  # following it again is harmless


def test_reminder_and_battle_links_switch_off_their_own_kind(small_campaign, deadline, carol,
                                                            django_capture_on_commit_callbacks):
    remind(deadline - timedelta(minutes=30), django_capture_on_commit_callbacks)
    Client().post(unsubscribe_link(by_recipient()["carol"]))
    with django_capture_on_commit_callbacks(execute=True):
        notifications.notify_battle_decision(small_campaign.pk, 1, 2, "Battle at (2, 2).")
    Client().post(unsubscribe_link(mail.outbox[-1]))
    membership = Membership.objects.get(campaign=small_campaign, user=carol)
    assert (membership.notify_turn, membership.notify_reminders, membership.notify_battles) == (True, False, False)


def test_unsubscribe_links_are_tamper_proof(processed, bob, carol):
    link = unsubscribe_link(by_recipient()["bob"])
    token = link.rstrip("/").rsplit("/", 1)[1]
    forged = signing.dumps({"u": carol.pk, "c": processed.pk, "p": "turn"}, salt="some-other-salt")
    payload, rest = token.split(":", 1)
    swapped = signing.dumps({"u": carol.pk, "c": processed.pk, "p": "turn"}, salt=notifications.UNSUBSCRIBE_SALT)
    spliced = swapped.split(":", 1)[0] + ":" + rest  # carol's payload with bob's signature
    for bad in [token[:-2] + ("AA" if token[-2:] != "AA" else "BB"), forged, spliced, "nonsense"]:
        response = Client().post(f"/notifications/unsubscribe/{bad}/")
        assert response.status_code == 400 and b"not valid" in response.content
        assert Client().get(f"/notifications/unsubscribe/{bad}/").status_code == 400
    assert not Membership.objects.filter(user__in=[bob, carol]).exists()


def test_unsubscribe_link_of_someone_who_left_the_campaign_changes_nothing(small_campaign, bob):
    token = notifications.unsubscribe_token(bob.pk, small_campaign.pk, "turn")
    small_campaign.empires.filter(user=bob).update(user=None)
    response = Client().post(f"/notifications/unsubscribe/{token}/")
    assert response.status_code == 400 and b"not in this campaign" in response.content
    assert not Membership.objects.filter(user=bob).exists()


# --- the preferences page --------------------------------------------------------------------


@pytest.mark.parametrize("who,expected", [("alice", 200), ("bob", 200), ("carol", 200), ("mallory", 404), (None, 302)])
def test_preferences_page_permissions(small_campaign, mallory, django_user_model, who, expected):
    client = Client()
    if who:
        client.force_login(django_user_model.objects.get(username=who))
    url = f"/campaigns/{small_campaign.pk}/notifications/"
    response = client.get(url)
    assert response.status_code == expected
    if who is None:
        assert "/accounts/login/" in response["Location"]
    posted = client.post(url, {"notify_turn": "on"})
    assert posted.status_code == (302 if expected == 200 else expected)


def test_preferences_page_saves_the_choices(small_campaign, bob):
    client = Client()
    client.force_login(bob)
    url = f"/campaigns/{small_campaign.pk}/notifications/"
    page = client.get(url)
    assert b"Deadline reminders" in page.content and b"checked" in page.content
    response = client.post(url, {"notify_reminders": "on"}, follow=True)
    assert b"saved" in response.content
    membership = Membership.objects.get(campaign=small_campaign, user=bob)
    assert (membership.notify_turn, membership.notify_reminders, membership.notify_battles) == (False, True, False)
    # Another member's choices are their own.
    assert not Membership.objects.filter(campaign=small_campaign, user__username="carol").exists()


def test_ready_players_and_bots_are_told_apart_in_reminders(
    small_campaign, deadline, django_capture_on_commit_callbacks
):
    # A seat the computer took over after missed turns gets no reminder.
    small_campaign.empires.filter(seat=2).update(auto_bot=True)
    assert remind(deadline - timedelta(minutes=30), django_capture_on_commit_callbacks) == 1
    assert list(by_recipient()) == ["bob"]
    assert not TurnOrders.objects.filter(turn__number__gt=0).exists()  # set-up orders (turn 0) aside


def test_deadline_reminders_task_sweeps(small_campaign, deadline, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(timezone, "now", lambda: deadline - timedelta(minutes=20))
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.send_deadline_reminders.apply().get() == 2


# --- answering by mail only when the site takes mail (issue 23 items 10 and 22) ----------------


def _title(html: str) -> str:
    return html.split("<title>")[1].split("</title>")[0]


@pytest.fixture
def processed_with_mail_in(settings, small_campaign, django_capture_on_commit_callbacks):
    settings.MAIL_IN_ENABLED = True
    settings.MAIL_ORDERS_ADDRESS = "orders@sector.example.org"
    with django_capture_on_commit_callbacks(execute=True):
        eh_actions.process_turn(campaign_id=small_campaign.pk)
    return small_campaign


def test_without_mail_in_no_email_offers_an_answer_by_mail(processed, settings):
    """The demo takes no mail (MAIL_IN_ENABLED off): a turn email says nothing of answering it,
    carries no orders block and no Reply-To; its HTML title is the title only."""
    assert settings.MAIL_IN_ENABLED is False
    message = by_recipient()["bob"]
    html = html_of(message)
    assert "answer this email" not in message.body.lower() and "answer this email" not in html.lower()
    assert "#SECTOR" not in message.body and "#SECTOR" not in html
    assert message.reply_to == []
    assert _title(html) == "Turn 1 of Test Sector"


def test_with_mail_in_the_turn_email_offers_it_and_replies_go_to_the_orders_address(processed_with_mail_in):
    message = by_recipient()["bob"]
    html = html_of(message)
    assert "Or answer this email" in message.body and "Or answer this email" in html
    assert "#SECTOR" in message.body and "#SECTOR" in html
    assert message.reply_to == ["orders@sector.example.org"]
    assert _title(html) == "Turn 1 of Test Sector"  # not the paragraph and the orders block (item 22)


def test_reminders_offer_an_answer_by_mail_only_with_mail_in(small_campaign, settings):
    turn = Turn.objects.get(campaign=small_campaign, number=small_campaign.turn)
    now = timezone.now()
    turn.deadline = now + timedelta(minutes=50)
    turn.save(update_fields=["deadline"])
    bob_seat = small_campaign.empires.get(seat=1)
    recipient = notifications.Recipient(bob_seat.user, Membership.Role.PLAYER, bob_seat, None)
    off = notify.reminder_email(small_campaign, turn, recipient, notifications.REMINDER_1H, now)
    assert "answer this email" not in off.body.lower() and "#SECTOR" not in off.body and not off.reply_to
    settings.MAIL_IN_ENABLED = True
    on = notify.reminder_email(small_campaign, turn, recipient, notifications.REMINDER_1H, now)
    assert "Or answer this email" in on.body and "#SECTOR" in on.body
    assert on.reply_to == [settings.MAIL_ORDERS_ADDRESS]
