"""My Trek V online (issue 29 items 5-7): offered for pickup battles from its fleet book, played on
the generic play pages with its own template (secret Phase Zero orders given by form, moves and
attacks chosen from the ship's legal orders), the other side told nothing of orders until both
are in (ruling MT17), a late side's orders given by the computer, the replay, and every die
verified once the battle is over."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from campaign.models import Campaign
from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import available, book
from tactical.models import Battle, PickupBattle
from tactical.play import actions as play

pytestmark = pytest.mark.django_db
MT = "mytrek"


def test_my_trek_is_offered_with_the_house_roster_priced_by_the_table():
    assert MT in [n for n, _, _ in available()]
    offers = {o.name: o for o in book(MT).offers(None)}
    assert offers["Dreadnought"].points == 400 and "the site's design" in offers["Dreadnought"].detail
    assert book(MT).max_ships == 6 and book(MT).default_points == 400


def _started(user, opponent="computer", ships=("cruiser", "frigate")):
    pickup = actions.create_pickup(user=user, ruleset=MT, points=400, opponent=opponent)
    actions.submit_fleet(pickup_id=pickup.pk, user=user, ships=list(ships))
    pickup.refresh_from_db()
    return pickup


def test_a_battle_against_the_computer_is_played_on_the_pages_to_its_end(client, bob):
    pickup = _started(bob)
    battle = pickup.battle
    assert battle.ruleset == MT and battle.doctrine_sides == [2]
    client.force_login(bob)
    url = reverse("battle-play", args=[battle.pk])
    page = client.get(url).content.decode()
    assert 'id="orders-form"' in page and "mytrek-board" in page and "Your orders" in page
    for _ in range(2):  # Phase Zero for both ships: engines 2, fields 3, weapons 3, at speed Hyper 2
        form = client.get(url).context["order_form"]
        assert form["step"] == "zero"
        assert (
            client.post(
                url,
                {
                    "kind": "orders",
                    "ship": form["ship"],
                    "engines": "2",
                    "fields": "3",
                    "weapons": "3",
                    "speed": "4",
                },
            ).status_code
            == 302
        )
    assert client.get(url).context["mt"]["step"] != "zero"
    state = client.get(reverse("api-battle-state", args=[battle.pk])).json()
    assert state["started"] and not state["over"]
    for _ in range(6):  # then moves and attacks, the first order offered each time
        ctx = client.get(url).context
        if ctx["over"] or not ctx["your_turn"]:
            break
        form = ctx["order_form"]
        if form["step"] == "zero":
            client.post(url, {"kind": "orders", "ship": form["ship"], "engines": "1", "speed": "2"})
        else:
            client.post(url, {"action": form["options"][0]["json"]})
    play.hand_to_doctrine(battle_id=battle.pk, user=bob)
    pickup.refresh_from_db()
    battle.refresh_from_db()
    assert pickup.status == PickupBattle.Status.OVER and battle.status == Battle.Status.RESOLVED
    assert client.get(reverse("battle-replay", args=[battle.pk])).status_code == 200
    host = Campaign.objects.get(pk=pickup.campaign_id)
    out = io.StringIO()
    call_command("verifydice", str(host.pk), stdout=out)
    assert "mismatch" not in out.getvalue().lower()


def test_a_refused_order_is_shown_and_changes_nothing(client, bob):
    pickup = _started(bob)
    client.force_login(bob)
    url = reverse("battle-play", args=[pickup.battle_id])
    steps = pickup.battle.steps.count()
    ship = client.get(url).context["order_form"]["ship"]
    response = client.post(
        url,
        {"kind": "orders", "ship": ship, "engines": "3", "fields": "3", "weapons": "3", "speed": "0"},
        follow=True,
    )
    assert "has 8 power points, not 9" in response.content.decode()
    assert pickup.battle.steps.count() == steps


def test_the_sides_give_orders_in_any_order_and_see_none_until_both_are_in(client, bob, carol):
    """002 Phase Zero 1 (orders written on paper), ruling MT17, on the generic play layer's
    ``PlayRules.acting_sides``: both sides are asked at once; carol (side 2) gives hers first; bob
    is told nothing of them (only that they are in) until his are in too, then both are revealed."""
    pickup = actions.create_pickup(user=bob, ruleset=MT, points=400, opponent="link")
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=["cruiser"])
    actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=["cruiser"])
    pickup.refresh_from_db()
    battle = pickup.battle
    client.force_login(bob)
    api_url = reverse("api-battle-state", args=[battle.pk])
    before = client.get(api_url).json()
    assert before["acting_sides"] == [1, 2] and before["your_turn"]
    client.force_login(carol)
    assert client.get(api_url).json()["your_turn"]
    play.take_action(
        battle_id=battle.pk,
        user=carol,
        action_json={
            "type": "orders",
            "ship": 2,
            "engines": 1,
            "fields": 3,
            "weapons": 3,
            "tractor": 1,
            "speed": 2,
        },
    )
    assert not client.get(api_url).json()["your_turn"]
    client.force_login(bob)
    after = client.get(api_url).json()
    assert after["acting_sides"] == [1] and after["your_turn"] and after["my_orders"] == {}
    assert "power" not in next(s for s in after["ships"] if s["id"] == 2)

    def told(d):  # everything but who is still to give orders and the step count
        return json.dumps(
            {
                k: v
                for k, v in d.items()
                if k not in ("acting_side", "acting_sides", "legal", "steps", "activation_deadline")
            },
            sort_keys=True,
        )

    assert told(after) == told(before)
    page = client.get(reverse("battle-play", args=[battle.pk])).content.decode()
    assert "orders given" not in page and "Your orders" in page
    client.force_login(carol)
    page = client.get(reverse("battle-play", args=[battle.pk])).content.decode()
    assert "orders given" in page and "Waiting for" in page  # her own order, and bob still to give his
    with pytest.raises(play.NotYourTurn):
        play.take_action(battle_id=battle.pk, user=carol, action_json={"type": "move", "ship": 2, "how": "F"})
    play.take_action(
        battle_id=battle.pk,
        user=bob,
        action_json={"type": "orders", "ship": 1, "engines": 2, "fields": 3, "weapons": 3, "speed": 5},
    )
    client.force_login(bob)
    revealed = client.get(reverse("battle-play", args=[battle.pk])).content.decode()
    assert "tractor 1" in revealed  # both in: revealed together


def test_a_late_side_gets_the_computers_orders(bob):
    from datetime import timedelta

    from django.utils import timezone

    pickup = actions.create_pickup(user=bob, ruleset=MT, points=400, opponent="computer", activation_hours=1)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=["cruiser", "frigate"])
    pickup.refresh_from_db()
    battle = pickup.battle
    assert play.play_due_activations(timezone.now() + timedelta(hours=2)) == 1
    assert battle.steps.filter(side=1, by_doctrine=True).count() == 2  # both ships' Phase Zero orders
    assert battle.log.filter(kind="activation_late", seat=1).exists()
