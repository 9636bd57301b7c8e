"""The battle page (/battles/<id>/) of pickup battles on the newer rule books. The hostile-input
probe found it answering 500 to a plain GET by a player of the battle: My Trek V's setup lists its
ships by design name (not the objects Event Horizon's and Buoyz's do), and Star Sectors' result
counts a ship's damage as a number (not Event Horizon's damage object)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tactical.hosts.pickup.books import book
from tactical.models import Battle

pytestmark = pytest.mark.django_db


def _api(user) -> APIClient:
    c = APIClient()
    c.force_login(user)
    return c


def _battle_against_the_computer(user, ruleset: str, points: int) -> Battle:
    created = _api(user).post("/api/pickup/", {"ruleset": ruleset, "points": points, "opponent": "computer"},
                              format="json")
    assert created.status_code == 201, created.content
    cheapest = min(book(ruleset).offers(user), key=lambda o: o.points)
    done = _api(user).post(f"/api/pickup/{created.json()['id']}/fleet/", {"ships": [cheapest.key]}, format="json")
    assert done.status_code == 200 and done.json()["battle"], done.content
    return Battle.objects.get(pk=done.json()["battle"])


def test_a_my_trek_battles_page_lists_its_ships_by_design_name(client, bob):
    battle = _battle_against_the_computer(bob, "mytrek", 100)
    assert all(isinstance(s, str) for s in battle.setup["sides"]["1"]["ships"])  # the shape that broke it
    client.force_login(bob)
    page = client.get(reverse("battle-detail", args=[battle.pk]))
    assert page.status_code == 200
    assert battle.setup["sides"]["1"]["ships"][0] in page.content.decode()


def test_a_star_sectors_result_with_damage_as_a_number_is_shown(client, bob):
    battle = _battle_against_the_computer(bob, "starsectors", 100)
    # A Star Sectors result as the engine writes it (ship, side, card, fate, damage: hits taken).
    battle.result = {"winner": 2, "over": True, "ships": [
        {"ship": 1, "side": 1, "card": battle.setup["sides"]["1"]["ships"][0]["card"], "fate": "withdrew",
         "damage": 3}]}
    battle.status = Battle.Status.RESOLVED
    battle.save(update_fields=["result", "status"])
    client.force_login(bob)
    page = client.get(reverse("battle-detail", args=[battle.pk]))
    assert page.status_code == 200
    assert "3 damage" in page.content.decode()
