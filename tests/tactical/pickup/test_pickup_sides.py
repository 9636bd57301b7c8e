"""Buoyz 'N Da 'Hood pickup battles of three to six sides (000 3.0; rulings BZ83, PK6, PK7;
docs/battles.md "Pickup battles"): the creator, a player who accepts the invitation link and the
computer build, start and fight one battle through the pickup and play APIs to its end, every
side seeing it through its own eyes; a fourth person cannot take a full battle; outsiders get
404; seven sides, and Event Horizon with three, are refused naming the rule book."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from campaign.models import Empire
from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import book
from tactical.models import Battle, BattleStep, PickupBattle
from tactical.play import actions as play
from tactical.play import embedded

pytestmark = pytest.mark.django_db
BZ = "buoyz"


def api(user=None) -> APIClient:
    c = APIClient()
    if user is not None:
        c.force_login(user)
    return c


def cheapest_fleet(user) -> list[str]:
    o = min(book(BZ).offers(user), key=lambda o: (o.points, o.key))
    return [o.key] * 2


@pytest.fixture
def dave(django_user_model):
    return django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")


def three_sides(bob, **extra):
    res = api(bob).post("/api/pickup/", {"ruleset": BZ, "points": 40, "opponent": "link", "sides": 3,
                                         "others": ["computer"], "activation_hours": 24, **extra}, format="json")
    assert res.status_code == 201, res.content
    return res.json()


def test_three_seats_are_made_the_computer_builds_at_once_and_the_link_fills_seat_two(bob, carol, dave, client):
    made = three_sides(bob)
    assert made["sides"] == 3 and made["status"] == "inviting" and made["you"] == 1
    assert [(s["seat"], s["player"], s["computer"], s["fleet_in"]) for s in made["seats"]] == [
        (1, "bob", False, False), (2, None, False, False), (3, None, True, True)]
    pickup = PickupBattle.objects.get(pk=made["id"])
    assert pickup.campaign.seats == 3 and pickup.invite_token
    client.force_login(carol)  # the invitation link's page, as an invited player opens it
    join = reverse("pickup-join", args=[pickup.invite_token])
    assert b"next free seat" in client.get(join).content
    assert client.post(join).status_code == 302
    pickup.refresh_from_db()
    assert pickup.opponent_id == carol.pk and pickup.status == PickupBattle.Status.BUILDING
    assert api(carol).get(f"/api/pickup/{pickup.pk}/").json()["you"] == 2
    # Full: a fourth person is refused, and nothing changes.
    res = api(dave).post("/api/pickup/accept/", {"token": pickup.invite_token}, format="json")
    assert res.status_code == 409 and "every seat" in res.json()["detail"]
    assert api(dave).get(f"/api/pickup/{pickup.pk}/").status_code == 404
    assert not Empire.objects.filter(campaign=pickup.campaign, user=dave).exists()
    # A second acceptance by carol changes nothing.
    assert api(carol).post("/api/pickup/accept/", {"token": pickup.invite_token}, format="json").json()["you"] == 2


def test_with_two_free_seats_the_first_to_accept_takes_seat_two_the_next_seat_three(bob, carol, dave, mallory):
    made = three_sides(bob, others=["link"])
    assert made["status"] == "inviting" and made["computer"] is False
    token = PickupBattle.objects.get(pk=made["id"]).invite_token
    assert api(dave).post("/api/pickup/accept/", {"token": token}, format="json").json()["you"] == 2
    assert api(dave).get(f"/api/pickup/{made['id']}/").json()["status"] == "inviting"
    third = api(carol).post("/api/pickup/accept/", {"token": token}, format="json").json()
    assert third["you"] == 3 and third["status"] == "building"
    assert api(carol).get("/api/pickup/").json()["results"][0]["you"] == 3
    built = api(carol).post(f"/api/pickup/{made['id']}/fleet/", {"ships": cheapest_fleet(carol)}, format="json")
    assert built.status_code == 200 and built.json()["fleets_submitted"] == [3] and built.json()["you"] == 3
    assert b'id="seat-3"' in api(carol).get(reverse("pickup-detail", args=[made["id"]])).content
    assert api(mallory).post("/api/pickup/accept/", {"token": token}, format="json").status_code == 409


def _play_to_the_end(players: dict, battle_id: int, hand_over_after: int = 3) -> dict:
    """Each player, when the decision is his, posts the doctrine's action through the play API;
    seat 2 hands its fleet to the computer after ``hand_over_after`` actions of its own."""
    taken = dict.fromkeys(players, 0)
    for _ in range(3000):
        moved = False
        for seat, user in players.items():
            state = api(user).get(f"/api/battles/{battle_id}/state/").json()
            if state.get("over"):
                return state
            if not state["your_turn"]:
                continue
            if seat == 2 and taken[seat] >= hand_over_after:
                res = api(user).post(f"/api/battles/{battle_id}/doctrine/", {"on": True}, format="json")
                assert res.status_code == 200 and 2 in res.json()["doctrine_sides"]
                moved = True
                continue
            battle = Battle.objects.get(pk=battle_id)
            rules = embedded.rules_for(battle)
            action = rules.doctrine_action(embedded.current_state(battle), seat)
            res = api(user).post(f"/api/battles/{battle_id}/action/", rules.action_json(action), format="json")
            assert res.status_code == 200, res.content
            taken[seat] += 1
            moved = True
        assert moved, "nobody could act"
    raise AssertionError("the battle did not end")


def test_a_three_sided_pickup_is_built_started_and_fought_to_its_end_through_the_apis(bob, carol, mallory, client):
    made = three_sides(bob)
    pickup = PickupBattle.objects.get(pk=made["id"])
    assert api(carol).post("/api/pickup/accept/", {"token": pickup.invite_token}, format="json").status_code == 200
    first = api(bob).post(f"/api/pickup/{pickup.pk}/fleet/", {"ships": cheapest_fleet(bob)}, format="json").json()
    assert first["battle"] is None and first["fleets_submitted"] == [1, 3]
    second = api(carol).post(f"/api/pickup/{pickup.pk}/fleet/", {"ships": cheapest_fleet(carol)}, format="json")
    assert second.status_code == 200 and second.json()["status"] == "playing"
    battle = Battle.objects.get(pk=second.json()["battle"])
    assert battle.seats == (1, 2, 3) and battle.doctrine_sides == [3]
    assert sorted(embedded.current_state(battle).battle.sides) == [1, 2, 3]
    # Each side's view: all three sides with their colours, and it is that seat's.
    for user, seat in ((bob, 1), (carol, 2)):
        state = api(user).get(f"/api/battles/{battle.pk}/state/").json()
        assert state["you"] == seat
        assert [(s["seat"], s["colour"], s["role"]) for s in state["sides"]] == [
            (1, actions.COLOURS[1], "attacker"), (2, actions.COLOURS[2], "defender"), (3, actions.COLOURS[3], "side")]
        assert state["sides"][2]["computer"] is True
    page = api(bob).get(reverse("battle-play", args=[battle.pk])).content.decode()
    for seat in (1, 2, 3):
        assert f'id="side-{seat}"' in page and actions.COLOURS[seat] in page
    # Outsiders see nothing of it.
    outsider = api(mallory)
    for url in (f"/api/pickup/{pickup.pk}/", f"/api/battles/{battle.pk}/state/",
                reverse("battle-play", args=[battle.pk]), reverse("battle-replay", args=[battle.pk]),
                reverse("pickup-detail", args=[pickup.pk])):
        assert outsider.get(url).status_code == 404, url
    assert outsider.post(f"/api/battles/{battle.pk}/action/", {"type": "begin"}, format="json").status_code == 404

    final = _play_to_the_end({1: bob, 2: carol}, battle.pk)
    battle.refresh_from_db()
    pickup.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and pickup.status == PickupBattle.Status.OVER
    assert final["over"] and final["result"]["how"] == "tactical"
    assert {s["side"] for s in battle.result["ships"]} == {1, 2, 3}
    assert BattleStep.objects.filter(battle=battle, side=3, by_doctrine=True).exists()
    assert BattleStep.objects.filter(battle=battle, side=2, by_doctrine=False).exists()
    assert BattleStep.objects.filter(battle=battle, side=2, by_doctrine=True).exists()
    assert BattleStep.objects.filter(battle=battle, side=1, by_doctrine=False).exists()
    # The result is shown to both players (and names the computer's side among the three).
    for user in (bob, carol):
        state = api(user).get(f"/api/battles/{battle.pk}/state/").json()
        assert state["over"] and state["result"] == battle.result
        assert b'id="battle-over"' in api(user).get(reverse("battle-play", args=[battle.pk])).content
        assert api(user).get(reverse("battle-replay", args=[battle.pk])).status_code == 200
        assert b'id="replay-link"' in api(user).get(reverse("pickup-detail", args=[pickup.pk])).content
    assert outsider.get(f"/api/battles/{battle.pk}/state/").status_code == 404


def test_a_late_seat_of_three_is_played_by_the_computer_at_its_deadline(bob, carol):
    made = three_sides(bob)
    pickup = PickupBattle.objects.get(pk=made["id"])
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=cheapest_fleet(bob))
    actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=cheapest_fleet(carol))
    battle = PickupBattle.objects.get(pk=pickup.pk).battle
    rules = embedded.rules_for(battle)
    late = rules.acting_side(embedded.current_state(battle))
    assert late in (1, 2) and battle.activation_deadline is not None
    Battle.objects.filter(pk=battle.pk).update(activation_deadline=timezone.now() - timedelta(minutes=1))
    assert play.play_due_activations() == 1
    assert battle.steps.filter(side=late, by_doctrine=True).exists()
    assert battle.log.filter(kind="activation_late", seat=late).exists()


@pytest.mark.parametrize("body, words", [
    ({"ruleset": BZ, "sides": 7}, ["2 to 6 sides", "BZ83", "not 7"]),
    ({"ruleset": BZ, "sides": 1}, ["2 to 6 sides"]),
    ({"ruleset": "eventhorizon", "sides": 3}, ["Event Horizon", "003 Quick Play", "not 3"]),
    ({"ruleset": BZ, "sides": 4, "others": ["computer"]}, ["'others'", "2 of"]),
])
def test_too_many_or_too_few_sides_are_refused_naming_the_rule(bob, body, words):
    before = PickupBattle.objects.count()
    points = 240 if body["ruleset"] == "eventhorizon" else 40
    res = api(bob).post("/api/pickup/", {"points": points, "opponent": "computer", **body}, format="json")
    assert res.status_code == 400, res.content
    for word in words:
        assert word in res.json()["detail"], (word, res.json())
    assert PickupBattle.objects.count() == before


def test_the_new_battle_page_takes_the_number_of_sides(client, bob):
    client.force_login(bob)
    res = client.post(reverse("pickup-new"), {"ruleset": BZ, "points": "40", "opponent": "computer", "sides": "4",
                                              "others": "computer", "activation_hours": "24"})
    assert res.status_code == 302, res.content
    pickup = PickupBattle.objects.get(creator=bob)
    assert pickup.sides == 4 and pickup.status == PickupBattle.Status.BUILDING and pickup.invite_token == ""
    assert sorted(pickup.fleets) == ["2", "3", "4"]
    page = client.get(reverse("pickup-detail", args=[pickup.pk])).content.decode()
    assert 'id="pickup-seats"' in page and 'id="seat-4"' in page
    res = client.post(reverse("pickup-new"), {"ruleset": "eventhorizon", "points": "240", "opponent": "computer",
                                              "sides": "3", "activation_hours": "24"})
    assert res.status_code == 400 and b"Event Horizon battles are fought by 2 sides" in res.content


def test_two_sides_stay_as_they_were(bob):
    """Default: two sides, no seats table of its own; seat 2's Empire as before."""
    res = api(bob).post("/api/pickup/", {"ruleset": BZ, "points": 40, "opponent": "computer"}, format="json").json()
    pickup = PickupBattle.objects.get(pk=res["id"])
    assert res["sides"] == 2 and pickup.campaign.seats == 2
    assert list(pickup.campaign.empires.order_by("seat").values_list("seat", "name", "is_bot")) == [
        (1, "bob's fleet", False), (2, actions.COMPUTER_NAME, True)]
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=cheapest_fleet(bob))
    battle = PickupBattle.objects.get(pk=pickup.pk).battle
    assert battle.seats == (1, 2) and "seats" not in battle.setup and battle.doctrine_sides == [2]


def test_each_seat_sees_the_board_through_its_own_eyes_another_sides_cloaked_ship_hidden(bob, carol, monkeypatch):
    """Carol's War Talon starts cloaked (10.2): bob (seat 1) is not told of it by the state API,
    the play page or the replay; carol is; the computer's side is seen by both (BZP fog of war,
    per viewing side)."""
    from tactical.hosts.pickup.books import BuoyzBook

    setup = BuoyzBook.setup

    def cloaked(self, fleets, names, colours):
        out = setup(self, fleets, names, colours)
        out["sides"]["2"]["ships"] = [{"sd": "war_talon", "cloaked": True}]
        return out

    monkeypatch.setattr(BuoyzBook, "setup", cloaked)
    made = three_sides(bob)
    pickup = PickupBattle.objects.get(pk=made["id"])
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=cheapest_fleet(bob))
    actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=cheapest_fleet(carol))
    battle = PickupBattle.objects.get(pk=pickup.pk).battle
    talon = next(s.id for s in embedded.current_state(battle).battle.ships if s.side == 2)
    assert embedded.current_state(battle).battle.ship(talon).cloaked
    seen = {user.username: {s["side"] for s in api(user).get(f"/api/battles/{battle.pk}/state/").json()["ships"]}
            for user in (bob, carol)}
    assert seen == {"bob": {1, 3}, "carol": {1, 2, 3}}
    for url in (reverse("battle-play", args=[battle.pk]), reverse("battle-replay", args=[battle.pk])):
        mark = f'data-ship="{talon}"'.encode()
        assert mark not in api(bob).get(url).content, url
        assert mark in api(carol).get(url).content, url


def test_the_player_of_seat_three_sees_the_battle_page_and_its_api(bob, carol, dave, mallory):
    # Issue 24 item 7: seats 3 and above got 404 on /battles/{id}/ and /api/battles/{id}/ (only the
    # attacker's and defender's seats were looked up).
    made = three_sides(bob, others=["link"])
    pickup = PickupBattle.objects.get(pk=made["id"])
    actions.accept_pickup(token=pickup.invite_token, user=dave)
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    for user in (bob, dave, carol):
        actions.submit_fleet(pickup_id=pickup.pk, user=user, ships=cheapest_fleet(user))
    battle = PickupBattle.objects.get(pk=pickup.pk).battle
    assert battle.seats == (1, 2, 3) and Empire.objects.get(campaign=pickup.campaign, user=carol).seat == 3
    for url in (reverse("battle-detail", args=[battle.pk]), f"/api/battles/{battle.pk}/"):
        assert api(carol).get(url).status_code == 200, url
        assert api(mallory).get(url).status_code == 404, url
