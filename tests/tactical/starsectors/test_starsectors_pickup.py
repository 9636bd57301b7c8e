"""Star Sectors in pickup battles (issue 28 item 7): offered on /battles/new/, a battle against the
computer built from the house roster, handed to the doctrine and played to its end, the play page
serving the SVG board; and what-if runs with win rates through the registry's Trial."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import available, book
from tactical.models import Battle, PickupBattle
from tactical.play import actions as play
from tactical.whatif import pool

SS = "starsectors"


def test_offered_for_pickup_battles_with_the_house_roster():
    assert SS in [name for name, _, _ in available()]
    offers = book(SS).offers(None)
    assert offers and all("house card" in o.detail for o in offers)


@pytest.mark.django_db
def test_a_battle_against_the_computer_plays_to_its_end(bob, client):
    pickup = actions.create_pickup(user=bob, ruleset=SS, points=15, opponent="computer")
    cheapest = min(book(SS).offers(bob), key=lambda o: o.points)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[cheapest.key] * 3)
    pickup.refresh_from_db()
    client.force_login(bob)
    page = client.get(reverse("battle-play", args=[pickup.battle_id]))
    assert page.status_code == 200 and b"ss-board" in page.content
    play.hand_to_doctrine(battle_id=pickup.battle_id, user=bob)
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.OVER
    assert pickup.battle.status == Battle.Status.RESOLVED


def test_what_if_runs_give_win_rates_and_repeat():
    job = {"points": 15}
    first = pool.play_run(SS, job, "ss what-if", 6).result()
    assert first["trials"] == 6 and sum(first["wins"].values()) == 6 and first["win_rates"]
    assert first == pool.play_run(SS, job, "ss what-if", 6).result()
