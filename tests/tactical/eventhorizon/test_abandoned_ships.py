"""Issue 13 item 11: an abandoned ship in an embedded battle showed as alive ("Hull 1/5" on the
board, "active" in the replay). Ruling TC20 (003 "Shuttle Craft"): an abandoned ship is lost and
becomes its crew's shuttlecraft (hull 1) in its square. The board, the play page, the replay and
the state API now say so.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from django.test import Client
from django.urls import reverse

from tactical.play import embedded
from tactical.rules.eventhorizon import board as boardsvg
from tactical.rules.eventhorizon.state import SHUTTLE_HULL, SHUTTLE_MOVE, evolve
from tests.tactical.play_support import make_battle

pytestmark = pytest.mark.django_db

SHIP = 21  # carol's Sultan (play_support.setup_json)


def abandon(state, ship_id=SHIP):
    """The state with ``ship_id`` abandoned as the engine leaves it (engine._to_shuttle)."""
    ships = tuple(
        evolve(s, shuttle=True, hull=SHUTTLE_HULL, movement=SHUTTLE_MOVE, weapons=(), force_fields=(0, 0, 0, 0),
               generators=(False,) * 4, boarding_parties=0, fate="hull strength reduced to 0")
        if s.id == ship_id else s for s in state.ships)
    return evolve(state, ships=ships)


@pytest.fixture
def battle(small_campaign, monkeypatch):
    battle = make_battle(small_campaign)
    real_current, real_states = embedded.current_state, embedded.states
    monkeypatch.setattr(embedded, "current_state", lambda b: abandon(real_current(b)))

    def states(b, upto=None):
        frames = real_states(b, upto=upto)
        return frames[:-1] + [replace(frames[-1], state=abandon(frames[-1].state))]

    monkeypatch.setattr(embedded, "states", states)
    return battle


def test_board_draws_an_abandoned_ship_as_its_crews_shuttle(battle):
    svg = boardsvg.render(embedded.current_state(battle))
    group = re.search(rf'<g class="ship[^"]*" data-ship="{SHIP}"[^>]*>.*?</g>', svg, re.S).group(0)
    assert 'data-condition="abandoned"' in group and "shuttle" in group
    assert "Hull 1/" not in group  # it used to read "Hull 1/5": the ship's hull, alive
    assert "abandoned (hull strength reduced to 0): the crew are in a shuttlecraft" in group
    assert ">S</text>" in group


def test_pages_and_api_do_not_show_an_abandoned_ship_alive(battle, bob):
    c = Client()
    c.force_login(bob)
    play = c.get(reverse("battle-play", args=[battle.pk])).content.decode()
    row = re.search(rf"<tr><td>.*?{SHIP} Bastion.*?</tr>", play, re.S).group(0)
    assert "abandoned (hull strength reduced to 0)" in row and "lost" in row
    assert f"{SHUTTLE_HULL}/{battle.setup['sides']['2']['ships'][0]['design']['hull']}" not in row
    replay = c.get(reverse("battle-replay", args=[battle.pk])).content.decode()
    row = re.search(rf"<tr><td>{SHIP} Bastion.*?</tr>", replay, re.S).group(0)
    assert "abandoned" in row and ">active<" not in row
    state = c.get(reverse("api-battle-state", args=[battle.pk])).json()
    ship = next(s for s in state["ships"] if s["id"] == SHIP)
    assert ship["condition"] == "abandoned" and ship["max_hull"] == SHUTTLE_HULL and ship["shuttle"]


def test_condition_of_ships(battle):
    state = embedded.current_state(battle)
    alive = next(s for s in state.ships if s.id != SHIP)
    assert boardsvg.condition(alive) == ("in_play", "in play")
    assert boardsvg.condition(evolve(alive, status="destroyed", fate="engine core breach")) == (
        "destroyed", "destroyed (engine core breach)")
    shuttle = next(s for s in state.ships if s.id == SHIP)
    assert boardsvg.condition(evolve(shuttle, status="warped_out"))[0] == "abandoned"
    assert boardsvg.condition(evolve(shuttle, status="destroyed", fate="shuttle destroyed")) == (
        "destroyed", "abandoned; the crew's shuttlecraft was lost")
