"""Moderation (issue 4): pause, resume, extend, process now, substitute players, the moderator's
panel and the audit log page. Roll-back has its own file (test_rollback.py)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from campaign import actions
from campaign.access import role_of
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.actions import orders as order_actions
from campaign.models import AuditEntry, Campaign, Membership, Turn, TurnOrders

pytestmark = pytest.mark.django_db


@pytest.fixture
def dave(django_user_model):
    return django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")


def open_turn(campaign):
    return Turn.objects.get(campaign=campaign, number=Campaign.objects.get(pk=campaign.pk).turn)


def set_deadline(campaign, when):
    Turn.objects.filter(campaign=campaign, number=campaign.turn).update(deadline=when)


def fresh(campaign):
    return Campaign.objects.get(pk=campaign.pk)


def entries(campaign, action):
    return list(AuditEntry.objects.filter(campaign=campaign, action=action))


# --- pause and resume (RULINGS "Missed deadline (NMR)": the moderator can pause the campaign) ---

def test_pause_keeps_the_time_left_and_processes_nothing(small_campaign, alice):
    now = timezone.now()
    set_deadline(small_campaign, now + timedelta(hours=10))
    actions.pause_campaign(campaign_id=small_campaign.pk, user=alice, now=now)
    campaign = fresh(small_campaign)
    assert campaign.paused and campaign.paused_remaining == timedelta(hours=10)
    assert open_turn(campaign).deadline == now + timedelta(hours=10)  # nothing else cleared
    # Neither the deadline passing nor the turn task processes a paused campaign.
    assert eh_actions.due_turns(now + timedelta(days=3)) == []
    assert eh_actions.process_turn(campaign_id=campaign.pk) is None
    assert open_turn(campaign).status == Turn.Status.OPEN
    [entry] = entries(campaign, "pause")
    assert entry.user == alice and entry.after == {"paused": True, "seconds_left": 36000}


def test_orders_are_still_taken_while_paused(small_campaign, alice, bob):
    actions.pause_campaign(campaign_id=small_campaign.pk, user=alice)
    row, _ = eh_actions.submit_orders(empire_id=small_campaign.empires.get(seat=1).pk, raw={}, ready=True)
    assert row.ready


def test_everyone_ready_while_paused_waits_for_the_resume(small_campaign, alice):
    actions.pause_campaign(campaign_id=small_campaign.pk, user=alice)
    for empire in small_campaign.empires.all():
        eh_actions.submit_orders(empire_id=empire.pk, raw={}, ready=True)
    assert fresh(small_campaign).turn == 1
    assert eh_actions.due_turns() == []
    actions.resume_campaign(campaign_id=small_campaign.pk, user=alice)
    # With no broker the turn task runs when the resume commits (django_db wraps the test in a
    # transaction, so the sweep finds it due instead).
    assert [t.number for t in eh_actions.due_turns()] == [1]


def test_resume_gives_back_the_time_that_was_left(small_campaign, alice):
    t0 = timezone.now()
    set_deadline(small_campaign, t0 + timedelta(hours=10))
    actions.pause_campaign(campaign_id=small_campaign.pk, user=alice, now=t0)
    later = t0 + timedelta(days=3)
    actions.resume_campaign(campaign_id=small_campaign.pk, user=alice, now=later)
    campaign = fresh(small_campaign)
    assert not campaign.paused and campaign.paused_remaining is None
    assert open_turn(campaign).deadline == later + timedelta(hours=10)
    assert len(entries(campaign, "resume")) == 1


def test_resume_without_a_deadline_leaves_none(small_campaign, alice):
    set_deadline(small_campaign, None)
    actions.pause_campaign(campaign_id=small_campaign.pk, user=alice)
    actions.resume_campaign(campaign_id=small_campaign.pk, user=alice)
    assert open_turn(small_campaign).deadline is None


def test_pause_and_resume_refusals(small_campaign, alice, bob, mallory):
    with pytest.raises(actions.NotAllowed, match="moderators"):
        actions.pause_campaign(campaign_id=small_campaign.pk, user=bob)
    with pytest.raises(actions.NotFound):
        actions.pause_campaign(campaign_id=small_campaign.pk, user=mallory)
    with pytest.raises(actions.ActionError, match="not paused"):
        actions.resume_campaign(campaign_id=small_campaign.pk, user=alice)
    actions.pause_campaign(campaign_id=small_campaign.pk, user=alice)
    with pytest.raises(actions.ActionError, match="already paused"):
        actions.pause_campaign(campaign_id=small_campaign.pk, user=alice)
    Campaign.objects.filter(pk=small_campaign.pk).update(status=Campaign.Status.FINISHED, paused=False)
    with pytest.raises(actions.ActionError, match="only a running campaign"):
        actions.pause_campaign(campaign_id=small_campaign.pk, user=alice)
    assert len(entries(small_campaign, "pause")) == 1


# --- extending the deadline ---

def test_extend_moves_the_deadline(small_campaign, alice):
    now = timezone.now()
    set_deadline(small_campaign, now + timedelta(hours=5))
    turn = actions.extend_deadline(campaign_id=small_campaign.pk, user=alice, hours=24, now=now)
    assert turn.deadline == now + timedelta(hours=29)
    [entry] = entries(small_campaign, "extend")
    assert entry.note == "+24 h" and entry.before["deadline"] and entry.after["deadline"]


def test_extend_a_passed_or_missing_deadline_counts_from_now(small_campaign, alice):
    now = timezone.now()
    set_deadline(small_campaign, now - timedelta(hours=5))
    assert actions.extend_deadline(
        campaign_id=small_campaign.pk, user=alice, hours=2, now=now
    ).deadline == now + timedelta(hours=2)
    set_deadline(small_campaign, None)
    assert actions.extend_deadline(
        campaign_id=small_campaign.pk, user=alice, hours=3, now=now
    ).deadline == now + timedelta(hours=3)


def test_extend_while_paused_adds_to_the_time_kept(small_campaign, alice):
    now = timezone.now()
    set_deadline(small_campaign, now + timedelta(hours=1))
    actions.pause_campaign(campaign_id=small_campaign.pk, user=alice, now=now)
    actions.extend_deadline(campaign_id=small_campaign.pk, user=alice, hours=12, now=now)
    assert fresh(small_campaign).paused_remaining == timedelta(hours=13)
    assert open_turn(small_campaign).deadline == now + timedelta(hours=1)


@pytest.mark.parametrize("hours", [0, -3, actions.MAX_EXTENSION_HOURS + 1, "24", 2.5, True, None])
def test_extend_refuses_bad_hours_and_changes_nothing(small_campaign, alice, hours):
    before = open_turn(small_campaign).deadline
    with pytest.raises(actions.ActionError, match="hours from 1 to"):
        actions.extend_deadline(campaign_id=small_campaign.pk, user=alice, hours=hours)
    assert open_turn(small_campaign).deadline == before and not entries(small_campaign, "extend")


def test_extend_refused_without_an_open_turn(small_campaign, alice):
    Turn.objects.filter(campaign=small_campaign).update(status=Turn.Status.DONE)
    with pytest.raises(actions.ActionError, match="no turn is open"):
        actions.extend_deadline(campaign_id=small_campaign.pk, user=alice, hours=1)


# --- process now ---

def test_process_now_processes_and_records(small_campaign, alice):
    eh_actions.submit_orders(empire_id=small_campaign.empires.get(seat=1).pk, raw={}, ready=True)
    turn = actions.process_now(campaign_id=small_campaign.pk, user=alice)
    assert turn.number == 1 and turn.status == Turn.Status.DONE
    assert Turn.objects.get(pk=turn.pk).snapshot["turn"] == 1  # kept for a roll-back
    [entry] = entries(small_campaign, "process_now")
    assert entry.before["ready_seats"] == [1] and entry.after["turn"] == fresh(small_campaign).turn


def test_process_now_ends_a_pause(small_campaign, alice):
    actions.pause_campaign(campaign_id=small_campaign.pk, user=alice)
    actions.process_now(campaign_id=small_campaign.pk, user=alice)
    campaign = fresh(small_campaign)
    assert not campaign.paused and Turn.objects.get(campaign=campaign, number=1).status == Turn.Status.DONE


def test_process_now_refused_when_no_turn_is_open(small_campaign, alice, bob):
    with pytest.raises(actions.NotAllowed):
        actions.process_now(campaign_id=small_campaign.pk, user=bob)
    Campaign.objects.filter(pk=small_campaign.pk).update(status=Campaign.Status.FINISHED)
    with pytest.raises(actions.TurnClosed):
        actions.process_now(campaign_id=small_campaign.pk, user=alice)
    assert not entries(small_campaign, "process_now")


def test_process_now_names_its_turn_and_a_repeat_changes_nothing(small_campaign, alice):
    """Issue 14: the request names the turn, so a double click or a retry processes it once."""
    for empire in small_campaign.empires.all():  # both build: nobody is eliminated, turn 2 opens
        dock = empire.structures.get(resource="dockyard").number
        eh_actions.submit_orders(empire_id=empire.pk, raw={"purchases": [
            {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": dock}]})
    assert actions.process_now(campaign_id=small_campaign.pk, user=alice, turn_number=1).number == 1
    with pytest.raises(actions.StaleTurn, match=r"cannot process turn 1: it has been processed already; "
                                                r"the current turn is turn 2 \(taking orders\)"):
        actions.process_now(campaign_id=small_campaign.pk, user=alice, turn_number=1)
    with pytest.raises(
        actions.StaleTurn,
        match="cannot process turn 3: there is no such turn yet; the current turn is turn 2",
    ):
        actions.process_now(campaign_id=small_campaign.pk, user=alice, turn_number=3)
    assert fresh(small_campaign).turn == 2 and len(entries(small_campaign, "process_now")) == 1
    assert open_turn(small_campaign).number == 2


def test_the_panel_form_posted_twice_processes_one_turn(small_campaign, alice):
    for empire in small_campaign.empires.all():
        eh_actions.submit_orders(empire_id=empire.pk, raw={}, ready=False)
    client = client_for(alice)
    base = f"/campaigns/{small_campaign.pk}/moderate/"
    page = client.get(base).content.decode()
    assert 'name="turn" value="1"' in page and 'name="anyway"' in page and "required" in page
    assert client.post(base + "process/", {"turn": 1, "anyway": "1"}).status_code == 302
    turn_after = fresh(small_campaign).turn
    again = client.post(base + "process/", {"turn": 1, "anyway": "1"})
    assert again.status_code == 409
    assert "cannot process turn 1: it has been processed already" in again.content.decode()
    assert fresh(small_campaign).turn == turn_after and len(entries(small_campaign, "process_now")) == 1


def test_the_panel_processes_without_asking_when_everyone_is_ready(small_campaign, alice, monkeypatch):
    monkeypatch.setattr(order_actions, "_enqueue_if_all_ready", lambda turn: False)  # keep the turn open
    for empire in small_campaign.empires.all():
        eh_actions.mark_ready(empire.pk, True)
    client = client_for(alice)
    base = f"/campaigns/{small_campaign.pk}/moderate/"
    assert 'name="anyway"' not in client.get(base).content.decode()
    assert client.post(base + "process/", {"turn": 1}).status_code == 302
    assert Turn.objects.get(campaign=small_campaign, number=1).status == Turn.Status.DONE


# --- substitute players (RULINGS "Missed deadline": hand a position to another player) ---

def test_substitute_hands_the_seat_over(small_campaign, alice, bob, dave):
    empire = small_campaign.empires.get(seat=1)
    Membership.objects.create(campaign=small_campaign, user=bob, role="player", empire=empire)
    eh_actions.submit_orders(empire_id=empire.pk, raw={"standing": {"loss_order": "costliest"}}, ready=True)
    actions.substitute_player(campaign_id=small_campaign.pk, user=alice, seat=1, username="dave")
    empire.refresh_from_db()
    assert empire.user == dave and not empire.is_bot
    assert role_of(bob, small_campaign) == "observer" and role_of(dave, small_campaign) == "player"
    assert Membership.objects.get(campaign=small_campaign, user=dave).empire == empire
    assert Membership.objects.get(campaign=small_campaign, user=bob).empire is None
    orders = TurnOrders.objects.get(empire=empire, turn__number=1)
    assert orders.orders == {"standing": {"loss_order": "costliest"}} and not orders.ready  # the newcomer decides
    [entry] = entries(small_campaign, "substitute")
    assert entry.before["user"] == "bob" and entry.after["user"] == "dave" and "observer" in entry.note


def test_substitute_can_remove_the_old_player(small_campaign, alice, bob, dave):
    actions.substitute_player(campaign_id=small_campaign.pk, user=alice, seat=1, username="dave", old_player="remove")
    assert role_of(bob, small_campaign) is None


def test_a_person_takes_a_computer_seat(small_campaign, alice, carol, mallory):
    small_campaign.empires.filter(seat=2).update(user=None, is_bot=True, auto_bot=False, missed_turns=4)
    actions.substitute_player(campaign_id=small_campaign.pk, user=alice, seat=2, username=" mallory ")
    empire = small_campaign.empires.get(seat=2)
    assert empire.user == mallory and not empire.is_bot and empire.missed_turns == 0
    assert role_of(mallory, small_campaign) == "player"


def test_a_seat_handed_to_the_computer(small_campaign, alice, carol):
    actions.substitute_player(campaign_id=small_campaign.pk, user=alice, seat=2, username="")
    empire = small_campaign.empires.get(seat=2)
    assert empire.user is None and empire.is_bot
    assert role_of(carol, small_campaign) == "observer"


def test_substituting_a_seat_notes_the_turns_everyone_ready_mark_again(small_campaign, alice, dave):
    """Bob ready, Carol not: her seat handed to the computer leaves every human seat ready, so the
    turn is due at once (the due sweep reads ``Turn.everyone_ready``); handed on to Dave, who has
    not marked ready, it is not due any more."""
    eh_actions.mark_ready(small_campaign.empires.get(seat=1).pk, True, turn_number=1)
    turn = Turn.objects.get(campaign=small_campaign, number=1)
    assert not turn.everyone_ready and eh_actions.due_turns() == []
    actions.substitute_player(campaign_id=small_campaign.pk, user=alice, seat=2, username="")
    turn.refresh_from_db()
    assert turn.everyone_ready and [t.pk for t in eh_actions.due_turns()] == [turn.pk]
    actions.substitute_player(campaign_id=small_campaign.pk, user=alice, seat=2, username="dave")
    turn.refresh_from_db()
    assert not turn.everyone_ready and eh_actions.due_turns() == []


@pytest.mark.parametrize("seat,username,old_player,message", [
    (9, "dave", "observer", "no seat 9"),
    (1, "nobody-here", "observer", "no user called"),
    (1, "bob", "observer", "already plays seat 1"),
    (1, "carol", "observer", "already plays another seat"),
    (1, "alice", "observer", "moderator cannot also play"),
    (1, "dave", "banish", "observer or is removed"),
    ("1", "dave", "observer", "a seat is a number"),
])
def test_substitute_refusals_change_nothing(small_campaign, alice, dave, seat, username, old_player, message):
    before = list(small_campaign.empires.order_by("seat").values_list("user_id", "is_bot"))
    with pytest.raises(actions.ActionError, match=message):
        actions.substitute_player(campaign_id=small_campaign.pk, user=alice, seat=seat, username=username,
                                  old_player=old_player)
    assert list(small_campaign.empires.order_by("seat").values_list("user_id", "is_bot")) == before
    assert not Membership.objects.filter(user=dave).exists() and not entries(small_campaign, "substitute")


def test_substitute_refused_outside_a_running_campaign(small_campaign, alice, bob):
    with pytest.raises(actions.NotAllowed):
        actions.substitute_player(campaign_id=small_campaign.pk, user=bob, seat=2, username="")
    Campaign.objects.filter(pk=small_campaign.pk).update(status=Campaign.Status.FINISHED)
    with pytest.raises(actions.ActionError, match="only while the campaign runs"):
        actions.substitute_player(campaign_id=small_campaign.pk, user=alice, seat=2, username="")


# --- pages ---

def client_for(user, **kwargs):
    client = Client(**kwargs)
    if user is not None:
        client.force_login(user)
    return client


PAGES = ["/campaigns/{id}/moderate/", "/campaigns/{id}/moderate/rollback/"]
POSTS = ["pause", "resume", "extend", "process", "rollback", "substitute", "moderators"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_are_for_moderators_only(small_campaign, alice, bob, mallory, path):
    eh_actions.process_turn(campaign_id=small_campaign.pk)
    url = path.format(id=small_campaign.pk)
    assert client_for(alice).get(url).status_code == 200
    assert client_for(bob).get(url).status_code == 403
    assert client_for(mallory).get(url).status_code == 404
    assert client_for(None).get(url)["Location"].startswith("/accounts/login/")


@pytest.mark.parametrize("name", POSTS)
def test_every_button_refuses_players_and_outsiders(small_campaign, alice, bob, carol, mallory, name):
    url = f"/campaigns/{small_campaign.pk}/moderate/{name}/"
    data = {"hours": 5, "seat": 2, "username": "", "old_player": "observer", "turn": 1}
    before = (fresh(small_campaign).paused, AuditEntry.objects.count())
    assert client_for(bob).post(url, data).status_code == 403
    assert client_for(carol).post(url, data).status_code == 403
    assert client_for(mallory).post(url, data).status_code == 404
    assert client_for(None).post(url, data).status_code == 302
    assert (fresh(small_campaign).paused, AuditEntry.objects.count()) == before
    # And the moderator's form needs its CSRF token.
    assert client_for(alice, enforce_csrf_checks=True).post(url, data).status_code == 403


def test_panel_shows_who_is_ready_but_not_their_orders(small_campaign, alice):
    eh_actions.submit_orders(empire_id=small_campaign.empires.get(seat=1).pk,
                          raw={"standing": {"loss_order": "costliest"}}, ready=True)
    page = client_for(alice).get(f"/campaigns/{small_campaign.pk}/moderate/").content.decode()
    assert "Bob&#x27;s Realm" in page and "<strong>ready</strong>" in page and "not yet" in page
    assert "costliest" not in page


def test_panel_buttons_work(small_campaign, alice, dave):
    client = client_for(alice)
    base = f"/campaigns/{small_campaign.pk}/moderate/"
    assert client.get(base + "pause/").status_code == 405
    response = client.post(base + "pause/")
    assert response.status_code == 302 and fresh(small_campaign).paused
    assert "paused" in client.get(base).content.decode()
    assert client.post(base + "extend/", {"hours": 6}).status_code == 302
    assert fresh(small_campaign).paused_remaining is not None
    assert client.post(base + "resume/").status_code == 302 and not fresh(small_campaign).paused
    assert (
        client.post(
            base + "substitute/", {"seat": 1, "username": "dave", "old_player": "observer"}
        ).status_code
        == 302
    )
    assert small_campaign.empires.get(seat=1).user == dave
    assert (
        client.post(base + "process/", {"turn": 1, "anyway": "1"}).status_code == 302
        and fresh(small_campaign).turn == 2
    )
    confirm = client.get(base + "rollback/").content.decode()
    assert "Roll back turn 1" in confirm and 'name="turn" value="1"' in confirm
    assert client.post(base + "rollback/", {"turn": 1}).status_code == 302
    assert fresh(small_campaign).turn == 1 and fresh(small_campaign).paused
    assert client.post(base + "moderators/", {"username": "nobody-here"}).status_code == 400
    actions_done = set(AuditEntry.objects.filter(campaign=small_campaign).values_list("action", flat=True))
    assert actions_done == {"pause", "extend", "resume", "substitute", "process_now", "roll_back"}


@pytest.mark.parametrize(
    "path,data,message",
    [
        ("extend/", {"hours": 0}, "greater than or equal to 1"),
        ("extend/", {"hours": "soon"}, "Enter a whole number"),
        ("substitute/", {"seat": 1, "username": "nobody-here", "old_player": "observer"}, "no user called"),
        ("substitute/", {"seat": 7, "username": "dave", "old_player": "observer"}, "Select a valid choice"),
        ("resume/", {}, "not paused"),
        ("rollback/", {}, "incomplete"),
        ("process/", {}, "did not say which turn"),
        ("process/", {"turn": "one"}, "did not say which turn"),
        (
            "process/",
            {"turn": 1},
            "not every player is ready for turn 1 (not ready: Bob&#x27;s Realm, Carol&#x27;s Combine)",
        ),
        ("moderators/", {"username": ""}, "required"),
    ],
)
def test_bad_input_comes_back_as_an_error_on_the_panel(small_campaign, alice, dave, path, data, message):
    response = client_for(alice).post(f"/campaigns/{small_campaign.pk}/moderate/{path}", data)
    assert response.status_code == 400 and message in response.content.decode()
    assert not AuditEntry.objects.filter(campaign=small_campaign).exists()


def test_add_co_moderator_from_the_panel(small_campaign, alice, dave):
    response = client_for(alice).post(f"/campaigns/{small_campaign.pk}/moderate/moderators/", {"username": "dave"})
    assert response.status_code == 302 and role_of(dave, small_campaign) == "moderator"
    assert client_for(dave).get(f"/campaigns/{small_campaign.pk}/moderate/").status_code == 200


# --- the audit log page ---

def test_audit_log_page_access(small_campaign, alice, bob, carol, mallory):
    actions.pause_campaign(campaign_id=small_campaign.pk, user=alice)
    url = f"/campaigns/{small_campaign.pk}/audit/"
    page = client_for(alice).get(url)
    assert page.status_code == 200 and "Paused" in page.content.decode()
    closed = client_for(bob).get(url)
    assert closed.status_code == 403 and "opens when the campaign ends" in closed.content.decode()
    Membership.objects.create(campaign=small_campaign, user=mallory, role="observer")
    assert client_for(mallory).get(url).status_code == 403
    Membership.objects.filter(user=mallory).delete()
    assert client_for(mallory).get(url).status_code == 404
    assert client_for(None).get(url).status_code == 302
    Campaign.objects.filter(pk=small_campaign.pk).update(status=Campaign.Status.FINISHED)
    assert client_for(bob).get(url).status_code == 200 and client_for(carol).get(url).status_code == 200
    assert client_for(mallory).get(url).status_code == 404


def test_campaign_page_links_the_panel_for_moderators_only(small_campaign, alice, bob):
    url = f"/campaigns/{small_campaign.pk}/"
    assert f"/campaigns/{small_campaign.pk}/moderate/" in client_for(alice).get(url).content.decode()
    page = client_for(bob).get(url).content.decode()
    assert "/moderate/" not in page and "/audit/" not in page


def test_seat_holder_without_membership_cannot_become_moderator(small_campaign, alice, carol):  # ruling L4
    # small_campaign seats carol directly on her empire (no Membership row), as newcampaign does.
    from campaign import actions
    from campaign.access import is_moderator

    with pytest.raises(actions.ActionError, match="plays in this campaign"):
        actions.add_moderator(campaign_id=small_campaign.pk, user=alice, username="carol")
    assert not is_moderator(carol, small_campaign)


def test_nothing_to_roll_back_in_the_setup_round(small_campaign_in_setup, alice):
    # 003 Set Up: the set-up round is the first thing processed; before it, nothing can be undone.
    # (This was the panel's bad-input case ("rollback/", {"turn": 1}) before the set-up round:
    # small_campaign has processed the set-up round, so it has something to roll back.)
    response = client_for(alice).post(f"/campaigns/{small_campaign_in_setup.pk}/moderate/rollback/", {"turn": 0})
    assert response.status_code == 400 and "nothing to roll back" in response.content.decode()
    assert not AuditEntry.objects.filter(campaign=small_campaign_in_setup).exists()
