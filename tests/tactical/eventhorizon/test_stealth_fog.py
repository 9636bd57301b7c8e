"""Issue 24 item 2: a refusal, legal-action list or preview never depends on what the acting
side cannot see (003 Stealth Fields: "Ships that engage their stealth field are removed from
the table"; 003 Movement: "No more than one ship may occupy a square"; ruling TC29). The
general property, for every rule book, is the hidden-unit clause of test_rulebook_contract.py."""

from __future__ import annotations

import pytest

from campaign.rules.dice import FixedDice, SeededDice, derive_seed
from campaign.rules.eventhorizon.designs import SAN_MARCO, SWORD
from tactical.rules.eventhorizon import Activate, CampaignShip, IllegalActionError, Move, apply, check, deploy
from tactical.rules.eventhorizon.engine import legal_actions
from tactical.rules.eventhorizon.play import RULES
from tactical.rules.eventhorizon.state import evolve


def _battle(stealth: bool):
    """Ship 1 (side 1) at (7, 9) facing S (down the table, +y); enemy ship 11 at (7, 11), its
    stealth field engaged or not, and enemy ship 12 far off; side 1 has activated ship 1."""
    fleets = {1: [CampaignShip(1, SWORD)], 2: [CampaignShip(11, SAN_MARCO), CampaignShip(12, SAN_MARCO)]}
    state = deploy(fleets, SeededDice(derive_seed("stealth fog")))
    where = {1: dict(pos=(7, 9), facing=2), 11: dict(pos=(7, 11), stealth_engaged=stealth), 12: dict(pos=(15, 0))}
    ships = tuple(evolve(s, **where[s.id]) for s in state.ships)
    state = evolve(state, ships=ships, acting_side=1, activations_left=1)
    return apply(state, Activate(1), FixedDice([])).state


INTO = Move(1, ("F", "F"))  # (7, 9) -> (7, 10) -> (7, 11), facing S


def test_moving_into_a_visible_ship_is_refused():
    with pytest.raises(IllegalActionError, match=r"occupied square \(7, 11\)"):
        check(_battle(stealth=False), INTO)


def test_moving_into_a_hidden_ship_is_not_refused_and_stops_short():
    state = _battle(stealth=True)
    check(state, INTO)  # was: "moving into an occupied square (7, 11) (ship 11)"
    assert INTO in legal_actions(state, 1)
    res = apply(state, INTO, FixedDice([]))
    assert res.state.ship(1).pos == (7, 10) and res.state.ship(11).pos == (7, 11)
    assert res.state.ship(11).stealth_engaged  # it stays hidden
    blocked = [e for e in res.events if e.kind == "move_blocked"]
    assert blocked and not blocked[0].public and set(blocked[0].sides) == {1, 2}


def test_the_same_answers_with_and_without_the_hidden_ship():
    seen = _battle(stealth=True)
    empty = evolve(seen, ships=tuple(s for s in seen.ships if s.id != 11) + (evolve(seen.ship(11), pos=(0, 0)),))
    assert RULES.legal_json(seen, 1)["1"] == [j for j in RULES.legal_json(empty, 1)["1"]]

    def refusal(state, data):
        try:
            action = RULES.parse_action(data)
            RULES.check_owner(state, action, 1)
            check(state, action)
        except IllegalActionError as exc:
            return str(exc)
        return "accepted"
    for data in ({"type": "scan", "ship": 1, "target": 11}, {"type": "teleport", "ship": 1, "target": 11},
                 {"type": "fire", "ship": 1, "shots": [["laser_bank", 11]]}, {"type": "activate", "ship": 11}):
        gone = evolve(seen, ships=tuple(s for s in seen.ships if s.id != 11))
        assert refusal(seen, data) == refusal(gone, data) == "003 The Turn Sequence: there is no ship 11 in this battle"


def test_a_ship_still_sees_its_own_stealthed_ship():
    state = _battle(stealth=True)
    own = evolve(state, ships=tuple(evolve(s, side=1) if s.id == 11 else s for s in state.ships))
    with pytest.raises(IllegalActionError, match="occupied square"):
        check(own, INTO)
