"""The lobby: a moderator creates a campaign (no map yet), invites by link and by email, players
join with an empire name, faction and colour, the moderator adds co-moderators, removes members and
starts the campaign (003 "Creating a Map" and "Set Up": the map is rolled then, for every seat)."""

from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.models import MapCell
from campaign.models import COLOUR_PALETTE, Campaign, DiceRoll, Empire, Invitation, Membership, Turn

pytestmark = pytest.mark.django_db

RED, BLUE, GREEN = COLOUR_PALETTE[0], COLOUR_PALETTE[1], COLOUR_PALETTE[2]

FORM = {
    "name": "Orion Reach", "grid": "hex", "width": 14, "height": 12, "seats": 3, "turn_hours": 48,
    "battle_mode": "auto", "fog_of_war": "on", "detection_range": 3, "missed_turn_limit": 2,
    "battle_requests": "both", "battle_hours": 36, "activation_hours": 12, "deployment": "hand",
    "option_economy_types": "on", "seed": "lobby-seed",
}


@pytest.fixture
def lobby(alice):
    """A 3-seat lobby moderated by alice; nobody has joined."""
    return eh_actions.create_lobby(moderator=alice, name="Lobby Sector", grid="hex", width=14, height=12, seats=3,
                                seed="lobby-1", turn_hours=48)


@pytest.fixture
def joined(lobby, bob, carol):
    """bob joins first (red), carol second (blue)."""
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="Bob's Realm", faction="Terran",
                          colour=RED)
    actions.join_campaign(user=carol, token=lobby.invite_token, empire_name="Carol's Combine", colour=BLUE)
    return lobby


def _join_data(**overrides):
    return {"role": "player", "empire_name": "Mallory's Marauders", "faction": "Pirates", "colour": GREEN, **overrides}


# --- creating a campaign in the lobby ------------------------------------------------------------


def test_create_page_renders_with_defaults(client, alice):
    client.force_login(alice)
    response = client.get(reverse("lobby-create"))
    assert response.status_code == 200
    form = response.context["form"]
    assert form["seats"].initial == 4 and form["turn_hours"].initial == 72 and form["fog_of_war"].initial is True
    assert b"Planetary economy types" in response.content


def test_create_stores_a_lobby_without_a_map(client, alice):
    client.force_login(alice)
    response = client.post(reverse("lobby-create"), FORM)
    campaign = Campaign.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("lobby-detail", args=[campaign.pk])
    assert campaign.status == Campaign.Status.SETUP and campaign.moderator == alice
    assert (campaign.name, campaign.grid, campaign.width, campaign.height, campaign.seats) == ("Orion Reach", "hex",
                                                                                               14, 12, 3)
    assert (campaign.turn_hours, campaign.battle_mode, campaign.fog_of_war, campaign.detection_range,
            campaign.missed_turn_limit) == (48, "auto", True, 3, 2)
    assert (campaign.battle_requests, campaign.battle_hours, campaign.activation_hours) == ("both", 36, 12)
    assert campaign.deployment == Campaign.Deployment.HAND
    assert campaign.options == {"economy_types": True, "steered_drift": False}
    assert len(campaign.invite_token) == 43
    assert not MapCell.objects.exists() and not Empire.objects.exists() and not Turn.objects.exists()
    assert not DiceRoll.objects.exists()
    assert campaign.memberships.get().role == Membership.Role.MODERATOR
    assert campaign.memberships.get().user == alice


def test_create_with_options_off(client, alice):
    client.force_login(alice)
    data = {k: v for k, v in FORM.items() if k not in ("fog_of_war", "option_economy_types")}
    client.post(reverse("lobby-create"), {**data, "turn_hours": 0})
    campaign = Campaign.objects.get()
    assert (
        campaign.fog_of_war is False
        and campaign.options == {"economy_types": False, "steered_drift": False}
        and campaign.turn_hours == 0
    )


@pytest.mark.parametrize("field, value", [
    ("name", ""), ("seats", 1), ("seats", 9), ("width", 0), ("width", 251), ("grid", "triangle"),
    ("turn_hours", -1), ("detection_range", 51), ("missed_turn_limit", -2), ("battle_mode", "duel"),
    ("seed", "x" * 201), ("battle_requests", "anyone"), ("battle_hours", -1), ("activation_hours", 24 * 31),
    ("deployment", "by-feet"),
])
def test_create_refuses_bad_input_and_writes_nothing(client, alice, field, value):
    client.force_login(alice)
    response = client.post(reverse("lobby-create"), {**FORM, field: value})
    assert response.status_code == 200
    assert field in response.context["form"].errors
    assert b"errorlist" in response.content
    assert not Campaign.objects.exists() and not Membership.objects.exists()


def test_create_refuses_a_map_too_small_for_its_seats(client, alice):
    # 003 "Set Up": every player needs a home planet; a 3x3 map cannot hold 8 (rulings M5).
    client.force_login(alice)
    response = client.post(reverse("lobby-create"), {**FORM, "width": 3, "height": 3, "seats": 8})
    assert response.status_code == 200
    errors = response.context["form"].non_field_errors()
    assert errors and "planet" in str(errors)
    assert not Campaign.objects.exists()


def test_create_needs_login(client):
    response = client.get(reverse("lobby-create"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.post(reverse("lobby-create"), FORM)
    assert not Campaign.objects.exists()


def test_create_lobby_action_validates(alice):
    bad = [
        {"battle_mode": "duel"}, {"fog_of_war": "yes"}, {"detection_range": True}, {"turn_hours": 9000},
        {"options": {"economy_types": "on"}}, {"options": {"drift": True}}, {"seats": 1}, {"width": 0},
        {"name": "  "}, {"seed": 5}, {"battle_requests": "anyone"}, {"battle_hours": -5}, {"activation_hours": "x"},
    ]
    for overrides in bad:
        kwargs = {"moderator": alice, "name": "X", "width": 12, "height": 12, "seats": 2, **overrides}
        with pytest.raises(actions.ActionError):
            eh_actions.create_lobby(**kwargs)
    assert not Campaign.objects.exists()


# --- the lobby page and list -------------------------------------------------------------------


def test_lobby_page_for_members_only(client, joined, alice, bob, mallory):
    url = reverse("lobby-detail", args=[joined.pk])
    assert client.get(url).status_code == 302  # anonymous: to the log-in page
    client.force_login(mallory)
    assert client.get(url).status_code == 404
    client.force_login(bob)
    response = client.get(url)
    assert response.status_code == 200
    assert b"Bob&#x27;s Realm" in response.content and b"Carol&#x27;s Combine" in response.content
    assert joined.invite_token.encode() not in response.content  # the link is the moderators'
    assert b"Start the campaign" not in response.content
    client.force_login(alice)
    response = client.get(url)
    assert joined.invite_token.encode() in response.content and b"Start the campaign" in response.content


def test_lobby_list_and_home(client, joined, bob, mallory, django_capture_on_commit_callbacks):
    client.force_login(bob)
    response = client.get(reverse("lobby-list"))
    assert response.status_code == 200 and list(response.context["lobbies"]) == [joined]
    assert b"Create campaign" in client.get(reverse("home")).content

    with django_capture_on_commit_callbacks(execute=True):
        actions.invite_by_email(campaign_id=joined.pk, user=joined.moderator, email="mallory@example.com")
    client.force_login(mallory)
    response = client.get(reverse("lobby-list"))
    assert list(response.context["lobbies"]) == []
    assert [i.campaign for i in response.context["invitations"]] == [joined]
    # The list names the campaign but never shows the invitation's secret.
    assert Invitation.objects.get().token.encode() not in response.content


def test_campaign_page_of_a_lobby_redirects_to_the_lobby(client, joined, bob):
    client.force_login(bob)
    response = client.get(reverse("campaign-detail", args=[joined.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("lobby-detail", args=[joined.pk])


# --- invitations and joining ---------------------------------------------------------------------


def test_join_by_link(client, lobby, bob):
    url = reverse("lobby-join", args=[lobby.invite_token])
    client.force_login(bob)
    response = client.get(url)
    assert response.status_code == 200 and b"Lobby Sector" in response.content
    response = client.post(url, _join_data(empire_name="Bob's Realm", faction="Terran", colour=RED))
    assert response.status_code == 302 and response["Location"] == reverse("lobby-detail", args=[lobby.pk])
    m = lobby.memberships.get(user=bob)
    assert (m.role, m.empire_name, m.faction, m.colour) == ("player", "Bob's Realm", "Terran", RED)
    # Opening the link again leads to the lobby.
    assert client.get(url)["Location"] == reverse("lobby-detail", args=[lobby.pk])


def test_join_as_observer(client, lobby, bob):
    client.force_login(bob)
    client.post(reverse("lobby-join", args=[lobby.invite_token]), {"role": "observer"})
    m = lobby.memberships.get(user=bob)
    assert (m.role, m.empire_name, m.colour) == ("observer", "", "")


def test_join_needs_login(client, lobby):
    url = reverse("lobby-join", args=[lobby.invite_token])
    response = client.get(url)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_outsider_without_a_valid_token_gets_404(client, lobby, mallory):
    client.force_login(mallory)
    assert client.get(reverse("lobby-join", args=["not-a-token"])).status_code == 404
    assert client.post(reverse("lobby-join", args=["not-a-token"]), _join_data()).status_code == 404
    assert client.get(reverse("lobby-detail", args=[lobby.pk])).status_code == 404
    assert not lobby.memberships.filter(user=mallory).exists()


def test_link_off_and_regenerated(client, lobby, alice, bob, carol):
    old = lobby.invite_token
    client.force_login(alice)
    client.post(reverse("lobby-link", args=[lobby.pk]), {"op": "disable"})
    lobby.refresh_from_db()
    assert lobby.invite_token == ""
    client.force_login(bob)
    assert client.get(reverse("lobby-join", args=[old])).status_code == 404

    client.force_login(alice)
    client.post(reverse("lobby-link", args=[lobby.pk]), {"op": "enable"})
    client.post(reverse("lobby-link", args=[lobby.pk]), {"op": "regenerate"})
    lobby.refresh_from_db()
    assert lobby.invite_token and lobby.invite_token != old
    client.force_login(bob)
    assert client.get(reverse("lobby-join", args=[old])).status_code == 404
    assert client.get(reverse("lobby-join", args=[lobby.invite_token])).status_code == 200

    client.force_login(carol)  # not a member: 404 on the link switch
    assert client.post(reverse("lobby-link", args=[lobby.pk]), {"op": "disable"}).status_code == 404


def test_only_moderators_change_the_link(client, joined, bob):
    client.force_login(bob)
    assert client.post(reverse("lobby-link", args=[joined.pk]), {"op": "disable"}).status_code == 403
    joined.refresh_from_db()
    assert joined.invite_token


def test_invite_by_email(client, lobby, alice, carol, django_capture_on_commit_callbacks):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("lobby-invite", args=[lobby.pk]), {"email": "Carol@Example.com"})
    assert response.status_code == 302
    invitation = Invitation.objects.get()
    assert invitation.email == "Carol@example.com" and invitation.invited_by == alice
    assert len(invitation.token) == 43 and invitation.token != lobby.invite_token
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["Carol@example.com"] and "Lobby Sector" in message.subject
    assert f"/join/{invitation.token}/" in message.body

    # The emailed link works even with the campaign's link off, once.
    actions.set_invite_link(campaign_id=lobby.pk, user=alice, enabled=False)
    client.force_login(carol)
    response = client.post(reverse("lobby-join", args=[invitation.token]), _join_data(colour=BLUE))
    assert response.status_code == 302
    invitation.refresh_from_db()
    assert invitation.accepted_by == carol and invitation.accepted_at is not None
    assert lobby.memberships.get(user=carol).role == "player"


def test_an_emailed_invitation_is_only_for_the_account_with_its_address(client, lobby, alice, bob, carol):
    """Issue 14 item 7: an emailed invitation forwarded to (or read by) another account does not
    let that account join; the campaign's shareable link stays open to anyone who has it."""
    from rest_framework.test import APIClient

    invitation = actions.invite_by_email(campaign_id=lobby.pk, user=alice, email="Carol@Example.com")
    client.force_login(bob)
    url = reverse("lobby-join", args=[invitation.token])
    for response in (client.get(url), client.post(url, _join_data(colour=RED))):
        assert response.status_code == 403
        page = response.content.decode()
        assert "You are logged in as bob" in page and "emailed to C…@example.com" in page
        assert "Carol@example.com" not in page and "<button" not in page.split("<main>", 1)[1]
    api = APIClient()
    api.force_authenticate(bob)
    response = api.post("/api/lobby/join/", {"token": invitation.token, **_join_data(colour=RED)}, format="json")
    assert response.status_code == 403 and "is for the account with that address" in response.json()["detail"]
    with pytest.raises(actions.NotAllowed):
        actions.join_campaign(user=bob, token=invitation.token, role="observer")
    assert not lobby.memberships.filter(user=bob).exists()
    invitation.refresh_from_db()
    assert invitation.accepted_at is None
    # The invited address's account joins with it (case ignored); bob can use the shared link.
    actions.join_campaign(user=carol, token=invitation.token, empire_name="C", colour=BLUE)
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="B", colour=RED)
    assert set(lobby.memberships.values_list("user__username", flat=True)) == {"alice", "bob", "carol"}


def test_an_emailed_invitation_works_once(lobby, alice, bob, carol, django_capture_on_commit_callbacks):
    invitation = actions.invite_by_email(campaign_id=lobby.pk, user=alice, email="carol@example.com")
    actions.join_campaign(user=carol, token=invitation.token, empire_name="C", colour=BLUE)
    with pytest.raises(actions.NotFound):
        actions.join_campaign(user=bob, token=invitation.token, empire_name="B", colour=RED)


def test_invite_again_resends_the_same_link(lobby, alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = actions.invite_by_email(campaign_id=lobby.pk, user=alice, email="dave@example.com")
        second = actions.invite_by_email(campaign_id=lobby.pk, user=alice, email="DAVE@example.com")
    assert first.pk == second.pk and Invitation.objects.count() == 1
    assert len(mail.outbox) == 2 and all(first.token in m.body for m in mail.outbox)


def test_invite_refusals(client, joined, alice, bob, django_capture_on_commit_callbacks):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("lobby-invite", args=[joined.pk]), {"email": "not an email"})
        assert response.status_code == 200 and response.context["invite_form"].errors
        response = client.post(reverse("lobby-invite", args=[joined.pk]), {"email": "bob@example.com"})
        assert "already belongs" in str(response.context["invite_form"].errors)
    client.force_login(bob)
    assert client.post(reverse("lobby-invite", args=[joined.pk]), {"email": "x@example.com"}).status_code == 403
    assert not Invitation.objects.exists() and mail.outbox == []


def test_full_campaign_refuses_players_but_takes_observers(client, alice, bob, carol, mallory):
    lobby = eh_actions.create_lobby(moderator=alice, name="Duel", width=12, height=12, seats=2, seed="duel")
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="B", colour=RED)
    actions.join_campaign(user=carol, token=lobby.invite_token, empire_name="C", colour=BLUE)
    client.force_login(mallory)
    response = client.get(reverse("lobby-join", args=[lobby.invite_token]))
    assert response.context["full"] and b"observer" in response.content
    response = client.post(reverse("lobby-join", args=[lobby.invite_token]), _join_data())
    assert response.status_code == 200
    assert "full" in str(response.context["form"].non_field_errors())
    assert not lobby.memberships.filter(user=mallory).exists()
    client.post(reverse("lobby-join", args=[lobby.invite_token]), {"role": "observer"})
    assert lobby.memberships.get(user=mallory).role == "observer"


def test_duplicate_colour_refused(joined, mallory):
    with pytest.raises(actions.ActionError, match="colour"):
        actions.join_campaign(user=mallory, token=joined.invite_token, empire_name="M", colour=RED.upper())
    assert not joined.memberships.filter(user=mallory).exists()


def test_join_page_offers_only_free_colours(client, joined, mallory):
    client.force_login(mallory)
    response = client.get(reverse("lobby-join", args=[joined.invite_token]))
    offered = [value for value, _ in response.context["form"].fields["colour"].choices]
    assert RED not in offered and BLUE not in offered and GREEN in offered
    # A colour taken meanwhile is refused by the form too.
    response = client.post(reverse("lobby-join", args=[joined.invite_token]), _join_data(colour=RED))
    assert "colour" in response.context["form"].errors


@pytest.mark.parametrize("overrides, problem", [
    ({"empire_name": ""}, "name"), ({"empire_name": "bob's realm"}, "called"), ({"colour": "#123456"}, "colours"),
    ({"role": "moderator"}, "observer"), ({"faction": "x" * 81}, "80"),
])
def test_join_action_refusals(joined, mallory, overrides, problem):
    kwargs = {"user": mallory, "token": joined.invite_token, "empire_name": "M", "colour": GREEN, **overrides}
    with pytest.raises(actions.ActionError, match=problem):
        actions.join_campaign(**kwargs)
    assert not joined.memberships.filter(user=mallory).exists()


def test_members_cannot_join_twice(joined, alice, bob):
    for user in (alice, bob):
        with pytest.raises(actions.ActionError, match="already in this campaign"):
            actions.join_campaign(user=user, token=joined.invite_token, empire_name="Again", colour=GREEN)


# --- moderators and members ----------------------------------------------------------------------


def test_add_co_moderator(client, joined, alice, carol, mallory):
    client.force_login(alice)
    response = client.post(reverse("lobby-add-moderator", args=[joined.pk]), {"username": "mallory"})
    assert response.status_code == 302
    assert joined.memberships.get(user=mallory).role == "moderator"
    # The co-moderator can do what moderators do.
    client.force_login(mallory)
    assert joined.invite_token.encode() in client.get(reverse("lobby-detail", args=[joined.pk])).content
    actions.set_invite_link(campaign_id=joined.pk, user=mallory, enabled=True, regenerate=True)


def test_add_co_moderator_refusals(client, joined, alice, bob, carol, mallory):
    client.force_login(alice)
    for username, problem in [("nobody", "no user"), ("bob", "player"), ("alice", "already a moderator")]:
        response = client.post(reverse("lobby-add-moderator", args=[joined.pk]), {"username": username})
        assert response.status_code == 200
        assert problem in str(response.context["moderator_form"].errors)
    client.force_login(bob)
    assert client.post(reverse("lobby-add-moderator", args=[joined.pk]), {"username": "mallory"}).status_code == 403
    client.force_login(mallory)
    assert client.post(reverse("lobby-add-moderator", args=[joined.pk]), {"username": "mallory"}).status_code == 404
    assert joined.memberships.filter(role="moderator").count() == 1


def test_observer_promoted_to_moderator(joined, alice, mallory):
    actions.join_campaign(user=mallory, token=joined.invite_token, role="observer")
    actions.add_moderator(campaign_id=joined.pk, user=alice, username="mallory")
    assert joined.memberships.get(user=mallory).role == "moderator"


def test_remove_member_before_start(client, joined, alice, bob, carol):
    bob_m = joined.memberships.get(user=bob)
    client.force_login(carol)  # another player: 403
    assert client.post(reverse("lobby-remove-member", args=[joined.pk, bob_m.pk])).status_code == 403
    client.force_login(alice)
    response = client.post(reverse("lobby-remove-member", args=[joined.pk, bob_m.pk]))
    assert response.status_code == 302
    assert not joined.memberships.filter(user=bob).exists()
    # The creator stays.
    alice_m = joined.memberships.get(user=alice)
    client.post(reverse("lobby-remove-member", args=[joined.pk, alice_m.pk]))
    assert joined.memberships.filter(user=alice).exists()


def test_a_player_can_leave(client, joined, carol):
    client.force_login(carol)
    m = joined.memberships.get(user=carol)
    response = client.post(reverse("lobby-remove-member", args=[joined.pk, m.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("lobby-list")
    assert not joined.memberships.filter(user=carol).exists()


def test_no_removal_after_start(joined, alice, bob):
    actions.start_campaign(campaign_id=joined.pk, user=alice)
    with pytest.raises(actions.ActionError, match="started"):
        actions.remove_member(campaign_id=joined.pk, user=alice, membership_id=joined.memberships.get(user=bob).pk)


# --- starting ------------------------------------------------------------------------------------


def test_start_rolls_the_map_and_seats_the_players(client, joined, alice, bob, carol):
    before = timezone.now()
    client.force_login(alice)
    response = client.post(reverse("lobby-start", args=[joined.pk]), {"confirm": "yes"})
    assert response.status_code == 302 and response["Location"] == reverse("campaign-detail", args=[joined.pk])
    joined.refresh_from_db()
    # The set-up round (turn 0) opens first (003 "Set Up"; issue 13 item 1).
    assert joined.status == Campaign.Status.ACTIVE and joined.turn == 0 and joined.purpose
    # 003 "Creating a Map": every cell rolled; "Set Up": a home world, 240 BP and a dockyard per seat.
    assert MapCell.objects.filter(campaign=joined).count() == 14 * 12
    empires = list(joined.empires.order_by("seat"))
    assert [e.seat for e in empires] == [1, 2, 3]
    assert all(e.bp == 240 and e.home_worlds.count() == 1 and e.structures.filter(resource="dockyard").count() == 1
               for e in empires)
    # Seats in join order, with the names, factions and colours chosen.
    assert (empires[0].user, empires[0].name, empires[0].faction, empires[0].colour, empires[0].is_bot) == (
        bob, "Bob's Realm", "Terran", RED, False)
    assert (empires[1].user, empires[1].name, empires[1].colour, empires[1].is_bot) == (
        carol, "Carol's Combine", BLUE, False)
    # The open seat is a computer player with a colour of its own.
    assert empires[2].is_bot and empires[2].user is None and empires[2].colour not in (RED, BLUE)
    assert joined.memberships.get(user=bob).empire == empires[0]
    assert joined.memberships.get(user=carol).empire == empires[1]
    # The set-up round is open with its deadline setup_hours (default 72) from now; turn 1 follows it.
    turn = Turn.objects.get(campaign=joined)
    assert turn.number == 0 and turn.status == Turn.Status.OPEN
    assert before + timedelta(hours=72) <= turn.deadline <= timezone.now() + timedelta(hours=72)
    assert DiceRoll.objects.filter(campaign=joined, phase="setup").exists()
    # Now the campaign page shows it.
    client.force_login(bob)
    assert client.get(reverse("campaign-detail", args=[joined.pk])).status_code == 200


def test_start_rolls_the_map_the_lobby_checked(alice, bob):
    """The trial roll at creation and the start's roll come from the same seed and offset."""
    lobby = eh_actions.create_lobby(moderator=alice, name="Same", width=12, height=12, seats=2, seed="same-seed")
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="B", colour=RED)
    actions.start_campaign(campaign_id=lobby.pk, user=alice)
    direct = eh_actions.create_campaign(name="Direct", width=12, height=12, players=2, seed="same-seed")

    def rows(c):
        return list(MapCell.objects.filter(campaign=c).order_by("y", "x").values_list("terrain", flat=True))

    assert rows(lobby) == rows(direct)
    homes = lambda c: list(c.empires.order_by("seat").values_list("home_worlds__x", "home_worlds__y"))  # noqa: E731
    assert homes(lobby) == homes(direct)


def test_start_without_deadline(alice, bob):
    lobby = eh_actions.create_lobby(moderator=alice, name="Slow", width=12, height=12, seats=2, seed="slow",
                                    turn_hours=0, setup_hours=0)
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="B", colour=RED)
    actions.start_campaign(campaign_id=lobby.pk, user=alice)
    assert Turn.objects.get(campaign=lobby).deadline is None  # the set-up round
    eh_actions.process_turn(campaign_id=lobby.pk)
    assert Turn.objects.get(campaign=lobby, number=1).deadline is None


def test_start_refusals(client, lobby, alice, bob, carol, mallory):
    client.force_login(alice)
    response = client.post(reverse("lobby-start", args=[lobby.pk]), {"confirm": "yes"}, follow=True)
    assert b"at least one human player" in response.content
    lobby.refresh_from_db()
    assert lobby.status == Campaign.Status.SETUP and not MapCell.objects.exists()

    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="B", colour=RED)
    client.force_login(bob)
    assert client.post(reverse("lobby-start", args=[lobby.pk])).status_code == 403
    client.force_login(mallory)
    assert client.post(reverse("lobby-start", args=[lobby.pk])).status_code == 404
    lobby.refresh_from_db()
    assert lobby.status == Campaign.Status.SETUP and not Empire.objects.exists()

    actions.start_campaign(campaign_id=lobby.pk, user=alice)
    cells = MapCell.objects.count()
    rolls = DiceRoll.objects.count()
    with pytest.raises(actions.ActionError, match="already started"):
        actions.start_campaign(campaign_id=lobby.pk, user=alice)
    assert MapCell.objects.count() == cells and DiceRoll.objects.count() == rolls
    assert Turn.objects.filter(campaign=lobby).count() == 1


def test_no_joining_after_start(joined, alice, mallory):
    actions.start_campaign(campaign_id=joined.pk, user=alice)
    with pytest.raises(actions.ActionError, match="already started"):
        actions.join_campaign(user=mallory, token=joined.invite_token, role="observer")


def test_co_moderator_can_start(joined, alice, mallory):
    actions.add_moderator(campaign_id=joined.pk, user=alice, username="mallory")
    actions.start_campaign(campaign_id=joined.pk, user=mallory)
    joined.refresh_from_db()
    assert joined.status == Campaign.Status.ACTIVE


def test_a_full_lobby_starts_with_no_bots(alice, bob, carol):
    lobby = eh_actions.create_lobby(moderator=alice, name="Duel", width=12, height=12, seats=2, seed="duel")
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="B", colour=RED)
    actions.join_campaign(user=carol, token=lobby.invite_token, empire_name="C", colour=BLUE)
    actions.start_campaign(campaign_id=lobby.pk, user=alice)
    assert not lobby.empires.filter(is_bot=True).exists()


def test_bot_names_never_clash_with_a_players(alice, bob):
    lobby = eh_actions.create_lobby(moderator=alice, name="Names", width=12, height=12, seats=2, seed="names")
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="Empire 2", colour=RED)
    actions.start_campaign(campaign_id=lobby.pk, user=alice)
    assert list(lobby.empires.order_by("seat").values_list("name", flat=True)) == ["Empire 2", "Computer empire 2"]


def test_setupdemo_makes_the_demo_players_members():
    import io

    from django.core.management import call_command

    call_command("setupdemo", stdout=io.StringIO())
    campaign = Campaign.objects.get(name="Demo Sector")
    members = {(m.user.username, m.role, m.empire.seat if m.empire else None)
               for m in campaign.memberships.select_related("user", "empire")}
    assert members == {("moderator", "moderator", None), ("player1", "player", 1), ("player2", "player", 2)}


# --- races (PostgreSQL: real row locks between connections) ----------------------------------------


def _in_threads(functions):
    import threading

    from django.db import connections

    barrier = threading.Barrier(len(functions))
    results = [None] * len(functions)

    def run(i, function):
        try:
            barrier.wait(timeout=30)
            results[i] = ("ok", function())
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            results[i] = ("error", exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, f), daemon=True) for i, f in enumerate(functions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return results


@pytest.fixture
def _postgresql_only():
    from django.db import connection

    from tests.conftest import REQUIRE_SERVICES

    if connection.vendor != "postgresql":
        if REQUIRE_SERVICES:
            pytest.fail("REQUIRE_SERVICES=1 but the database is not PostgreSQL")
        pytest.skip("needs PostgreSQL (row locks between real connections); SQLite serialises all writes")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_racing_joins_never_overfill_seats_or_share_a_colour(_postgresql_only, alice, django_user_model):
    lobby = eh_actions.create_lobby(moderator=alice, name="Race", width=12, height=12, seats=2, seed="race")
    users = [django_user_model.objects.create_user(f"racer{i}", f"racer{i}@example.com", "pw") for i in range(6)]
    # Six players want two seats; two of them want the same colour.
    colours = [RED, RED, BLUE, GREEN, COLOUR_PALETTE[3], COLOUR_PALETTE[4]]
    results = _in_threads([
        (lambda u=u, c=c: actions.join_campaign(user=u, token=lobby.invite_token, empire_name=u.username, colour=c))
        for u, c in zip(users, colours, strict=True)
    ])
    joined = [r for r in results if r[0] == "ok"]
    refused = [r[1] for r in results if r[0] == "error"]
    assert len(joined) == 2 and all(isinstance(e, actions.ActionError) for e in refused)
    players = lobby.memberships.filter(role="player")
    assert players.count() == 2 and len(set(players.values_list("colour", flat=True))) == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_racing_starts_start_once(_postgresql_only, alice, bob):
    lobby = eh_actions.create_lobby(moderator=alice, name="Race", width=12, height=12, seats=2, seed="race")
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="B", colour=RED)
    results = _in_threads([lambda: actions.start_campaign(campaign_id=lobby.pk, user=alice)] * 4)
    assert sum(r[0] == "ok" for r in results) == 1
    assert all(isinstance(r[1], actions.ActionError) for r in results if r[0] == "error")
    assert lobby.empires.count() == 2 and Turn.objects.filter(campaign=lobby).count() == 1
