"""The Buoyz play page's controls over HTTP (templates/tactical/rulesets/buoyz/play.html): the
move picker's plan on the page, the fire form with each eligible target and its dice, a fire
form posted stored as that action (split or partial fire included), and a form the rules refuse
changing nothing (000 5.2, 5.4; tactical/rules/buoyz/plans.py)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from tactical.play import embedded
from tactical.rules import registry
from tactical.rules.buoyz import play as bp
from tactical.rules.buoyz.state import ATTACK, MOVEMENT
from tests.tactical.buoyz.test_buoyz_play import buoyz_battle, client_for

RULES = registry.find_play("buoyz")
pytestmark = pytest.mark.django_db


def _setup():
    setup = bp.setup_for({1: ["constitution"], 2: ["d7"]}, names={1: "Bob's Realm", 2: "Carol's Combine"},
                         turn_cap=3)
    setup["sides"]["1"]["ships"][0].update({"x": 30, "y": 20, "heading": 0})
    setup["sides"]["2"]["ships"][0].update({"x": 31, "y": 24, "heading": 180})
    return setup


def _acting(battle):
    battle.refresh_from_db()
    state = embedded.current_state(battle)
    return state, RULES.acting_side(state)


def test_the_page_carries_the_move_plan_and_then_the_fire_form(small_campaign, bob, carol):
    battle = buoyz_battle(small_campaign, _setup())
    clients = {1: client_for(bob), 2: client_for(carol)}
    url = reverse("battle-play", args=[battle.pk])
    state, seat = _acting(battle)
    assert state.battle.phase == MOVEMENT
    page = clients[seat].get(url).content.decode()
    assert 'id="bz-plan"' in page and 'id="decision-banner"' in page and "nominate a ship to move" in page
    waiting = clients[3 - seat].get(url).content.decode()
    assert 'id="bz-plan"' not in waiting and 'id="waiting"' in waiting
    # Both ships stay put (the first listed move with no distance): then the Attack Phase.
    while state.battle.phase == MOVEMENT:
        stay = next(a for a in RULES.legal_json(state, seat).values() for a in a
                    if a["type"] == "move" and not (a["before"] or a["after"] or a["turn"]))
        assert clients[seat].post(url, {"action": json.dumps(stay)}).status_code == 302
        state, seat = _acting(battle)
    assert state.battle.phase == ATTACK
    page = clients[seat].get(url).content.decode()
    assert 'class="bz-fire-table"' in page and "hits on" in page and 'name="dice:main0:' in page
    ship = next(int(k) for k, v in RULES.legal_json(state, seat).items() if any(a["type"] == "fire" for a in v))
    enemy = next(s.id for s in state.battle.ships if s.side != seat)
    steps = battle.steps.count()
    # A form that is not a number of dice, or a shot at one's own ship (5.4): refused, nothing stored.
    for form in ({f"dice:main0:{enemy}": "lots"}, {f"dice:main0:{ship}": "2"}):
        bad = clients[seat].post(url, {"kind": "fire", "ship": str(ship), **form}, follow=True)
        assert "Refused" in bad.content.decode() and battle.steps.count() == steps
    # Part of the main battery's dice at the enemy: stored as exactly that shot.
    resp = clients[seat].post(url, {"kind": "fire", "ship": str(ship), f"dice:main0:{enemy}": "1", "board": ""})
    assert resp.status_code == 302
    assert battle.steps.count() == steps + 1
    step = battle.steps.order_by("seq").last()
    assert step.action == {"type": "fire", "ship": ship, "shots": [["main0", enemy, 1]], "board": None}
