"""Properties of the Print&Play engine over random battles (hypothesis, derandomized), the dice
bag's fairness, and 100 doctrine battles of two and four sides (slow).

After every step: what ``legal_actions`` lists passes ``check``; hull, shields (to the bracket),
armour, systems and tokens stay in bounds; nothing moves farther than its allowance; a refused
action rolls nothing and changes nothing. Replaying the logged dice rebuilds the same battle."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.rules.dice import SeededDice, derive_seed
from tactical.rules.kit import DiceBag, IllegalActionError
from tactical.rules.printplay import engine
from tactical.rules.printplay.book import BOOK
from tactical.rules.printplay.dashboards import ROSTER
from tactical.rules.printplay.play import setup_for
from tactical.rules.printplay.properties import broken
from tactical.rules.printplay.trials import play_job
from tactical.rules.replay import LoggedDie, ReplayDice
from tests.stats import chisquare

KEYS = sorted(ROSTER)


class Logged:
    def __init__(self, name):
        self._dice = SeededDice(derive_seed(name))
        self.log = []
        self.rolls = 0

    def roll(self, count, sides, purpose):
        r = self._dice.roll(count, sides, purpose)
        self.log.append(LoggedDie(count, sides, purpose, tuple(r.faces)))
        self.rolls += 1
        return r


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(fleets=st.lists(st.lists(st.sampled_from(KEYS), min_size=1, max_size=3), min_size=2, max_size=4),
       picks=st.lists(st.integers(0, 10_000), min_size=60, max_size=60), seed=st.integers(0, 10_000))
def test_random_play_keeps_every_property(fleets, picks, seed):
    setup = setup_for(
        {i + 1: f for i, f in enumerate(fleets)},
        mat="4x6",
        terrain=[
            {"kind": "asteroids", "at": [36, 24], "radius": 5},
            {"kind": "nebula", "at": [18, 30], "radius": 4},
        ],
    )
    dice = Logged(f"pp props {seed}")
    state = BOOK.new_battle(setup, dice)
    first = state
    steps, seen = [], []
    for i in range(400):
        if BOOK.is_over(state):
            break
        if BOOK.acting_side(state) is None:
            before, state = state, engine.advance(state, dice).state
            steps.append(None)
            continue
        legal = BOOK.legal_actions(state)
        assert legal, "an acting side with nothing to do"
        for a in legal[:: max(1, len(legal) // 8)]:
            BOOK.check(state, a)
        for other in seen[-3:]:  # an action legal elsewhere, refused here: no roll, no change
            try:
                BOOK.check(state, other)
            except IllegalActionError:
                before_rolls, snapshot = dice.rolls, repr(state)
                with pytest.raises(IllegalActionError):
                    BOOK.apply(state, other, dice)
                assert dice.rolls == before_rolls and repr(state) == snapshot
        pick = picks[i % len(picks)]
        action = BOOK.doctrine_action(state) if pick % 3 == 0 else legal[pick % len(legal)]
        seen.append(action)
        before, state = state, engine.apply(state, action, dice).state
        steps.append(action)
        assert not broken(before, state, action), broken(before, state, action)
    replay = ReplayDice(dice.log)
    again = BOOK.new_battle(setup, replay)
    assert again.ships == first.ships
    for step in steps:
        again = (engine.advance(again, replay) if step is None else engine.apply(again, step, replay)).state
    replay.finish()
    assert again == state


def test_the_dice_bag_draws_every_side_fairly_first():
    """001 Initiative: one die per ship in the bag, drawn one at a time: over 1,200 fixed-seed
    rounds with 1, 2 and 3 ships a side, each side's first draw follows its share of dice
    (chi-square, p > 0.001)."""
    first = {1: 0, 2: 0, 3: 0}
    dice = SeededDice(derive_seed("pp bag fairness"))
    for i in range(1200):
        bag = DiceBag.filled([1, 2, 2, 3, 3, 3], dice, f"bag {i}")
        first[bag.draw()[0]] += 1
    assert chisquare([first[1], first[2], first[3]], [200, 400, 600]).pvalue > 0.001


def test_a_three_plus_beam_hits_two_dice_in_three():
    """001 Attack, ruling PP1: "+3" with sensors and ECM 0 hits on 3-6; 6,000 seeded dice."""
    from tactical.rules.printplay.state import new_ship

    att = new_ship(1, 1, ROSTER["b_rel"], (10, 10), 0)
    tgt = new_ship(2, 2, ROSTER["k_tinga"], (10, 15), 180)
    from tactical.rules.printplay.state import State

    state = State((att, tgt), (1, 2), (72.0, 48.0))
    dice = SeededDice(derive_seed("pp hits"))
    hits = 0
    for _ in range(3000):
        got, _, _ = engine._roll_hits(state, att, tgt, ROSTER["b_rel"].weapons[0],
                                      dice.roll(2, 6, "x").faces, "x", dice, [0], None)
        hits += len(got)
    assert chisquare([hits, 6000 - hits], [4000, 2000]).pvalue > 0.001


@pytest.mark.slow
@pytest.mark.parametrize("sides", [2, 4])
def test_a_hundred_doctrine_battles_end_with_a_defined_result(sides):
    """Issue 30: doctrine battles of random fleets end, raise nothing and keep every property
    (the bench, bench/printplay.py, plays 1,000)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from bench.printplay import one_battle

    for seed in range(50):
        result, steps, problems = one_battle(seed, sides, check=True)
        assert not problems, problems[:3]
        assert result["over"] is True and {s["side"] for s in result["ships"]} == set(range(1, sides + 1))
    assert play_job({"random": {"sides": sides, "points": 150}}, "t", 1)["winner"] in (None, *range(1, sides + 1))


@pytest.mark.parametrize("sides", [5, 6])
def test_five_and_six_sides_deploy_in_their_own_zones_and_fight_to_the_end(sides):
    """001 Deployment (ruling PP13: the long edges' halves, then west and east), 001 Initiative (the bag)."""
    setup = setup_for({seat: ["b_rel", "saber"] for seat in range(1, sides + 1)}, mat="4x6")
    dice = SeededDice(derive_seed(f"pp {sides} sides"))
    state = BOOK.new_battle(setup, dice)
    w, h = state.mat
    for ship in state.ships:
        x, y = ship.pos
        assert min(x, w - x, y, h - y) <= 8, ship  # 8" from an edge
    zones = {side: {(round(s.pos[0] / 24), round(s.pos[1] / 24)) for s in state.living(side)} for side in state.sides}
    assert len({frozenset(z) for z in zones.values()}) == sides  # no two sides share a zone
    end = BOOK.simulate(state, dice)
    assert BOOK.is_over(end) and not broken(None, end)
    assert {s["side"] for s in BOOK.outcome(end)["ships"]} == set(range(1, sides + 1))
