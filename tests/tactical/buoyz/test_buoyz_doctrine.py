"""The Buoyz doctrine: plays either side with legal actions only, and battles end (issue 16)."""

from __future__ import annotations

import random

import pytest

from campaign.rules.dice import SeededDice, derive_seed
from tactical.rules import registry
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz.deploy import deploy
from tactical.rules.buoyz.doctrine import choose_fire, doctrine_action, simulate
from tactical.rules.buoyz.engine import apply, check, outcome
from tactical.rules.buoyz.sds import CATALOGUE, random_fleet
from tactical.rules.buoyz.state import new_battle, new_ship


@pytest.mark.parametrize("seed", range(20))
def test_doctrine_battles_end_with_a_result(seed):
    """Random CAM-legal 60-point fleets of a random period (CAM 2.2), doctrine against doctrine."""
    rng = random.Random(seed)
    period = rng.randint(1, 6)
    state = deploy({1: random_fleet(rng, period, 60), 2: random_fleet(rng, period, 60)})
    dice = SeededDice(derive_seed(f"buoyz-doctrine-{seed}"))
    steps = 0
    while not state.over:
        action = doctrine_action(state)
        check(state, action)  # the doctrine never makes an illegal action
        state = apply(state, action, dice).state
        steps += 1
        assert steps < 20_000
    result = outcome(state)
    alive = {s.side for s in state.ships if s.active}
    assert result.winner is None or alive == {result.winner}
    assert state.turn <= state.turn_cap


def test_doctrine_focuses_fire_on_the_weakest_target_in_arc():
    """Each weapon system fires at the eligible enemy with the least hull left."""
    c = CATALOGUE
    state = new_battle([new_ship(1, 1, c["galaxy"], (10, 10)), new_ship(2, 2, c["d7"], (10, 13), 180),
                        new_ship(3, 2, c["b_rel"], (12, 11), 180)])
    from dataclasses import replace

    state = replace(state, phase="attack", turn=1, initiative=1, first=1, acting=1)
    fire = choose_fire(state, state.ship(1))
    # the torpedoes (fore and aft arcs) cannot reach the B'Rel on the starboard beam
    assert fire.shots == (("main0", 3, 6), ("main1", 2, 2), ("secondary", 3, 3))
    check(state, fire)


def test_doctrine_closes_on_the_enemy():
    c = CATALOGUE
    state = deploy({1: [c["constitution"]], 2: [c["d7"]]})
    state = apply(state, A.Begin(), SeededDice(derive_seed("close"))).state
    mover = state.ship(next(s.id for s in state.active_ships(state.acting)))
    enemy = state.active_ships(state.other(mover.side))[0]
    from tactical.rules.buoyz.geometry import distance

    before = distance(mover.pos, enemy.pos)
    dice = SeededDice(derive_seed("c2"))
    first = doctrine_action(state)
    assert first == A.Special(mover.id, "flank_speed")  # far from any enemy: Flank Speed first
    state = apply(state, first, dice).state
    state = apply(state, doctrine_action(state), dice).state
    assert state.ship(mover.id).moved
    assert distance(state.ship(mover.id).pos, enemy.pos) < before - 5


def test_registered_as_buoyz_and_resolves_a_battle():
    record = registry.find_resolver("buoyz")
    assert record.name == "buoyz" and "Buoyz" in record.title
    state = deploy({1: [CATALOGUE["constitution"]], 2: [CATALOGUE["d7"]]})
    result = record.resolve(state, SeededDice(derive_seed("registry")))
    assert result.over
    end = simulate(state, SeededDice(derive_seed("registry")))
    assert outcome(end) == result


@pytest.mark.parametrize("seed", range(4))
def test_doctrine_plays_squadrons_legally(seed):
    """11.1: squadrons nominated together and kept in formation; the battle still ends."""
    from tactical.rules.buoyz.state import Orders

    c = CATALOGUE
    fleet = [c["constitution"], c["constitution"], c["firecat"], c["kobayashi_maru"]]
    state = deploy({1: fleet, 2: [c["d7"], c["d7"], c["war_talon"]]},
                   orders={1: Orders(squadrons=((1, 2, 3),)), 2: Orders(squadrons=((5, 6),))})
    dice = SeededDice(derive_seed(f"squadron-{seed}"))
    while not state.over:
        action = doctrine_action(state)
        check(state, action)
        state = apply(state, action, dice).state
    assert state.over
