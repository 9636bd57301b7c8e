"""Issue 13 item 8: a battle handed off as a game is reported with how it was settled —
auto-resolved, fought online, tabletop confirmed, tabletop settled by the moderator (or
auto-resolved by him, or at the battle deadline) — and with its real losses and the damage it
did, in the turn report (which the emails send), on the battle pages and in the API.

Before the fix a tabletop battle settled by the moderator read "(fought online)", and a battle
whose ships were only damaged read "losses 0 and 0" with no word of the damage.

Rules: 003 "Result of a Tactical Battle" (destroyed ships go, damage is carried until repaired),
003 "Alternative to a Tactical Battle"; rulings C15–C20 (docs/rulings.md).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse

from campaign.eventhorizon import reports
from campaign.models import Turn
from campaign.rules.eventhorizon import conflict
from campaign.rules.eventhorizon.economy import Damage
from tactical.battles import actions
from tactical.models import Battle
from tests.tactical.battle_support import contact_turn
from tests.tactical.test_battle_pages import client_for, destroy_defender, entry, ship_ids, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def battle(small_campaign):
    turn = contact_turn(small_campaign, "tabletop")
    assert turn.status == Turn.Status.BATTLES
    return Battle.objects.get(campaign=small_campaign)


def battle_event(campaign, number) -> dict:
    turn = Turn.objects.get(campaign=campaign, number=number)
    assert turn.status == Turn.Status.DONE
    [event] = [e for e in turn.events if e["kind"] == "battle"]
    return event


def test_tabletop_settled_by_the_moderator_is_not_reported_as_fought_online(battle, small_campaign, alice, bob):
    client_for(bob).post(reverse("battle-enter", args=[battle.pk]), destroy_defender(battle))
    r = client_for(alice).post(reverse("battle-settle", args=[battle.pk]), {"how": "entered"})
    assert r.status_code == 302
    event = battle_event(small_campaign, battle.turn)
    assert "fought online" not in event["text"]
    assert "(fought on the tabletop, settled by the moderator)" in event["text"]
    assert "losses 0 and 1 ship(s)" in event["text"]
    assert "damage taken: ship" in event["text"] and "2 hull, Laser Bank" in event["text"]
    assert event["data"]["how"] == "tabletop_moderator"
    # The report a player reads (and the turn email sends) says the same, with a line per ship.
    report = reports.render_report_text(small_campaign, battle.turn, bob)
    assert "fought on the tabletop, settled by the moderator" in report
    a, d = ship_ids(battle)
    assert f"ship {d} (defender): destroyed" in report
    assert f"ship {a} (attacker): survived; damage taken: 2 hull, Laser Bank" in report
    # The battle page and its API say how it was settled.
    page = text(client_for(bob).get(reverse("battle-detail", args=[battle.pk])))
    assert "fought on the tabletop, settled by the moderator" in page
    assert "Damage taken in the battle" in page and '<td class="taken">2 hull, Laser Bank</td>' in page
    api = client_for(bob).get(reverse("api-battle", args=[battle.pk])).json()
    assert api["settled"] == "fought on the tabletop, settled by the moderator"


def test_damage_without_losses_is_reported(battle, small_campaign, bob, carol):
    a, d = ship_ids(battle)
    client_for(bob).post(reverse("battle-enter", args=[battle.pk]),
                         entry(battle, **{f"ship_{d}_hull": 1, f"ship_{a}_engine": 1}))
    assert client_for(carol).post(reverse("battle-confirm", args=[battle.pk])).status_code == 302
    event = battle_event(small_campaign, battle.turn)
    assert "(fought on the tabletop, result confirmed)" in event["text"]
    assert "losses 0 and 0 ship(s)" in event["text"]
    assert f"ship {a} 1 engine" in event["text"] and f"ship {d} 1 hull" in event["text"]


def test_moderator_auto_resolve_is_reported_as_such(battle, small_campaign, alice):
    client_for(alice).post(reverse("battle-settle", args=[battle.pk]), {"how": "auto"})
    event = battle_event(small_campaign, battle.turn)
    assert "(auto-resolved by the moderator)" in event["text"]
    assert event["data"]["rule"] == conflict.AUTORESOLVE_RULE
    page = text(client_for(alice).get(reverse("battle-list", args=[small_campaign.pk])))
    assert "Auto-resolved by the moderator" in page


def test_deadline_auto_resolve_is_reported_as_such(battle, small_campaign):  # ruling C19
    actions.settle_due_battles(now=battle.deadline + timedelta(minutes=1))
    event = battle_event(small_campaign, battle.turn)
    assert "(auto-resolved at the battle deadline)" in event["text"]


def test_undisputed_entry_at_the_deadline_is_reported_as_such(battle, small_campaign, bob):  # ruling C19
    client_for(bob).post(reverse("battle-enter", args=[battle.pk]), destroy_defender(battle))
    actions.settle_due_battles(now=battle.deadline + timedelta(minutes=1))
    event = battle_event(small_campaign, battle.turn)
    assert "(fought on the tabletop, result not disputed by the deadline)" in event["text"]


def test_damage_taken_is_what_the_battle_added():
    before = Damage(hull=1, weapons=("laser_bank",))
    after = Damage(hull=3, weapons=("laser_bank", "laser_bank"), stealth=True)
    taken = conflict.damage_taken(before, after)
    assert taken == Damage(hull=2, weapons=("laser_bank",), stealth=True)
    assert conflict.damage_text(taken) == "2 hull, Laser Bank, stealth field"
    assert conflict.damage_text(conflict.damage_taken(after, after)) == ""
