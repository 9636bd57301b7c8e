"""The home page: "My campaigns" and the open campaigns looking for players (issue 13 item 24)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.models import Campaign, Turn
from tactical.models import Battle

pytestmark = pytest.mark.django_db


def _rows(client, user):
    client.force_login(user)
    response = client.get(reverse("home"))
    assert response.status_code == 200
    return response, {row.campaign.pk: row for row in response.context["rows"]}


def _open_turn(campaign, hours=30):
    turn, _ = Turn.objects.get_or_create(campaign=campaign, number=campaign.turn)
    turn.deadline = timezone.now() + timedelta(hours=hours)
    turn.status = Turn.Status.OPEN
    turn.save()
    return turn


def test_home_shows_turn_deadline_and_my_order_status(client, small_campaign, bob, carol):
    turn = _open_turn(small_campaign)
    bob_empire = small_campaign.empires.get(seat=1)

    response, rows = _rows(client, bob)
    row = rows[small_campaign.pk]
    assert row.role == "player" and row.empire == bob_empire
    assert row.turn == turn and row.deadline == turn.deadline and row.orders == "none"
    html = response.content.decode()
    # The deadline is written as a machine-readable time that static/localtime.js shows in the
    # reader's own time zone (UTC without scripts).
    assert f'datetime="{turn.deadline.isoformat()}"' in html.replace("+00:00", "+00:00")
    assert "localtime.js" in html and "none yet" in html

    eh_actions.submit_orders(empire_id=bob_empire.pk, raw={})
    assert _rows(client, bob)[1][small_campaign.pk].orders == "saved"
    eh_actions.mark_ready(bob_empire.pk, True)
    row = _rows(client, bob)[1][small_campaign.pk]
    assert row.orders == "ready"
    # Who is ready: bob is, carol is not.
    assert [(m.name, m.ready) for m in row.ready] == [("Bob's Realm", True), ("Carol's Combine", False)]


def test_who_is_ready_follows_the_campaign_setting(client, small_campaign, alice, bob):
    _open_turn(small_campaign)
    Campaign.objects.filter(pk=small_campaign.pk).update(show_ready=False)
    response, rows = _rows(client, bob)
    assert rows[small_campaign.pk].ready is None
    assert "Carol&#x27;s Combine" not in response.content.decode()
    # The moderator always sees it.
    assert [m.name for m in _rows(client, alice)[1][small_campaign.pk].ready] == ["Bob's Realm", "Carol's Combine"]


def test_battles_waiting_for_me_are_listed(client, small_campaign, alice, bob, carol):
    _open_turn(small_campaign)
    common = dict(campaign=small_campaign, turn=small_campaign.turn, x=3, y=4, mode=Battle.Mode.TABLETOP, setup={})
    mine = Battle.objects.create(index=0, attacker=1, defender=2, **common)
    Battle.objects.create(index=1, attacker=1, defender=2, status=Battle.Status.RESOLVED, **common)
    disputed = Battle.objects.create(index=2, attacker=2, defender=1, status=Battle.Status.DISPUTED, **common)

    response, rows = _rows(client, bob)
    assert rows[small_campaign.pk].battles == [mine, disputed]
    assert reverse("battle-detail", args=[mine.pk]) in response.content.decode()
    # The moderator is waited for by the disputed one only.
    assert _rows(client, alice)[1][small_campaign.pk].battles == [disputed]


def test_home_lists_only_my_campaigns_in_a_fixed_number_of_queries(
        client, small_campaign, alice, bob, mallory, django_assert_max_num_queries):
    _open_turn(small_campaign)
    assert _rows(client, mallory)[1] == {}
    client.force_login(bob)
    # 10 for the cards, 1 to count them (a page at a time, issue 33), 3 for their unread press
    # (campaign/press/visibility.py: unread_by_campaign).
    with django_assert_max_num_queries(14) as one:
        client.get(reverse("home"))
    for n in range(3):
        other = eh_actions.create_campaign(name=f"More {n}", grid="hex", width=12, height=12, players=2,
                                        seed=f"more-{n}", moderator=alice)
        other.empires.filter(seat=1).update(user=bob)
        _open_turn(other)
    with django_assert_max_num_queries(len(one.captured_queries)):
        response = client.get(reverse("home"))
    assert len(response.context["rows"]) == 4


def test_a_finished_campaign_names_its_winner(client, small_campaign, bob):
    winner = small_campaign.empires.get(seat=2)
    Campaign.objects.filter(pk=small_campaign.pk).update(status=Campaign.Status.FINISHED, winner=winner)
    response, rows = _rows(client, bob)
    assert rows[small_campaign.pk].winner == "Carol's Combine"
    assert "Carol&#x27;s Combine</strong> won" in response.content.decode()


@pytest.fixture
def lobby(alice):
    return eh_actions.create_lobby(moderator=alice, name="Open Sector", grid="hex", width=14, height=12, seats=2,
                                seed="open-1", turn_hours=48)


def test_open_campaigns_are_the_listed_ones_with_free_seats(client, lobby, alice, bob, carol, mallory):
    response, _ = _rows(client, mallory)
    assert list(response.context["open_campaigns"]) == []

    actions.set_listing(campaign_id=lobby.pk, user=alice, listed=True)
    response, _ = _rows(client, mallory)
    assert list(response.context["open_campaigns"]) == [lobby]
    assert reverse("lobby-join", args=[lobby.invite_token]) in response.content.decode()

    # Members do not see it as open to them; a full campaign is not listed.
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="Bob's Realm", colour="#d62728")
    assert list(_rows(client, bob)[0].context["open_campaigns"]) == []
    actions.join_campaign(user=carol, token=lobby.invite_token, empire_name="Carol's", colour="#1f77b4")
    assert list(_rows(client, mallory)[0].context["open_campaigns"]) == []


def test_switching_the_link_off_unlists(lobby, alice):
    actions.set_listing(campaign_id=lobby.pk, user=alice, listed=True)
    actions.set_invite_link(campaign_id=lobby.pk, user=alice, enabled=False)
    lobby.refresh_from_db()
    assert not lobby.listed and lobby.invite_token == ""
    # Listing again switches the link back on: a listed campaign is joined through it.
    actions.set_listing(campaign_id=lobby.pk, user=alice, listed=True)
    lobby.refresh_from_db()
    assert lobby.listed and lobby.invite_token


def test_only_moderators_list_and_only_in_the_lobby(client, lobby, alice, bob):
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="Bob's Realm", colour="#d62728")
    with pytest.raises(actions.ActionError):
        actions.set_listing(campaign_id=lobby.pk, user=bob, listed=True)
    client.force_login(bob)
    client.post(reverse("lobby-link", args=[lobby.pk]), {"op": "list"})
    lobby.refresh_from_db()
    assert not lobby.listed

    client.force_login(alice)
    response = client.post(reverse("lobby-link", args=[lobby.pk]), {"op": "list"}, follow=True)
    lobby.refresh_from_db()
    assert lobby.listed and "listed among the open campaigns" in response.content.decode()


def test_listing_through_the_api(client, lobby, alice):
    client.force_login(alice)
    url = reverse("api-invite-link", args=[lobby.pk])
    response = client.put(url, {"enabled": True, "listed": True}, content_type="application/json")
    assert response.status_code == 200 and response.json()["listed"] is True
    response = client.put(url, {"enabled": True, "listed": "maybe"}, content_type="application/json")
    assert response.status_code == 400 and "listed" in response.json()["errors"]
    lobby.refresh_from_db()
    assert lobby.listed
    assert client.get(reverse("api-lobby-detail", args=[lobby.pk])).json()["listed"] is True


def test_lobby_form_takes_listing_and_ready_settings(client, alice):
    client.force_login(alice)
    data = {"name": "Listed Reach", "grid": "hex", "width": 14, "height": 12, "seats": 3, "turn_hours": 48,
            "battle_mode": "auto", "fog_of_war": "on", "detection_range": 2, "missed_turn_limit": 3,
            "battle_requests": "either", "battle_hours": 48, "activation_hours": 24, "deployment": "automatic",
            "option_economy_types": "on", "listed": "on"}
    response = client.post(reverse("lobby-create"), data)
    assert response.status_code == 302, response.context["form"].errors
    created = Campaign.objects.get(name="Listed Reach")
    assert created.listed and not created.show_ready
