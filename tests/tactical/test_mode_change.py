"""Issue 13 item 10: "Change mode" offered "Embedded tactical battle" to the moderator and always
refused it. The moderator is offered only the modes a battle can be switched to
(``tactical.battles.actions.modes_open_to``): a tabletop battle can be auto-resolved or played online
instead (its deck is then dealt and play begins); an embedded battle, once dealt, only
auto-resolved. Rulings C17–C20 (docs/rulings.md, "Battle modes").
"""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from campaign.models import Turn
from tactical.models import Battle
from tests.tactical.battle_support import contact_turn
from tests.tactical.test_battle_pages import client_for, destroy_defender

pytestmark = pytest.mark.django_db


def offered_modes(client, battle) -> list[str]:
    page = html.unescape(client.get(reverse("battle-detail", args=[battle.pk])).content.decode())
    select = re.search(r'<select name="mode"[^>]*>(.*?)</select>', page, re.S)
    assert select, "the moderator's page has the mode form"
    return re.findall(r'<option value="([^"]*)"', select.group(1))


def test_tabletop_battle_offers_auto_and_online_and_online_works(small_campaign, alice, bob, carol):
    contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get(campaign=small_campaign)
    assert offered_modes(client_for(alice), battle) == ["auto", "tactical"]
    client_for(bob).post(reverse("battle-enter", args=[battle.pk]), destroy_defender(battle))
    r = client_for(alice).post(reverse("battle-mode", args=[battle.pk]), {"mode": "tactical"})
    assert r.status_code == 302
    battle.refresh_from_db()
    assert battle.mode == Battle.Mode.TACTICAL
    assert battle.status == Battle.Status.PLAYING and battle.steps.exists()  # the deck is dealt
    assert battle.proposal is None and battle.proposed_by is None
    assert "from tabletop to tactical (the entered result is dropped)" in battle.log.get(kind="mode").text
    assert client_for(bob).get(reverse("battle-play", args=[battle.pk])).status_code == 200
    assert Turn.objects.get(campaign=small_campaign, number=battle.turn).status == Turn.Status.BATTLES


def test_embedded_battle_offers_only_auto(small_campaign, alice):
    contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get(campaign=small_campaign)
    assert offered_modes(client_for(alice), battle) == ["auto"]
    before = (battle.mode, battle.status, battle.steps.count())
    r = client_for(alice).post(reverse("battle-mode", args=[battle.pk]), {"mode": "tabletop"})
    assert r.status_code == 400 and "Select a valid choice" in r.content.decode()
    r = client_for(alice).post(reverse("api-battle-mode", args=[battle.pk]), {"mode": "tabletop"},
                               content_type="application/json")
    assert r.status_code == 400 and "deck is dealt" in r.json()["detail"]
    battle.refresh_from_db()
    assert (battle.mode, battle.status, battle.steps.count()) == before
    r = client_for(alice).post(reverse("battle-mode", args=[battle.pk]), {"mode": "auto"})
    assert r.status_code == 302
    battle.refresh_from_db()
    assert battle.resolved and battle.resolved_how == Battle.How.MODERATOR


def test_api_switches_a_tabletop_battle_online(small_campaign, alice, bob):
    contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get(campaign=small_campaign)
    r = client_for(bob).post(reverse("api-battle-mode", args=[battle.pk]), {"mode": "tactical"},
                             content_type="application/json")
    assert r.status_code == 403
    r = client_for(alice).post(reverse("api-battle-mode", args=[battle.pk]), {"mode": "tactical"},
                               content_type="application/json")
    assert r.status_code == 200, r.content
    battle.refresh_from_db()
    assert battle.mode == Battle.Mode.TACTICAL and battle.steps.exists()
