"""My Trek V's properties (hypothesis; issue 29 item 7): random fleets and random legal orders
keep every invariant of ``tactical.rules.mytrek.properties``; a refusal rolls nothing and changes
nothing; secret orders stay secret (002 Phase Zero 1, ruling MT17: what the other side is told
is the same whatever orders were given); the doctrine never stalls and battles end (ruling MT18);
and a slow run of 100 doctrine battles from random 400-point fleets."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.rules.dice import SeededDice, derive_seed
from tactical.rules.kit import IllegalActionError
from tactical.rules.mytrek import engine as E
from tactical.rules.mytrek.play import BOOK, RULES
from tactical.rules.mytrek.properties import broken
from tactical.rules.play import Viewer
from tactical.whatif.mytrektrials import play_job

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _battle(seed: int):
    return BOOK.new_battle(BOOK.sample_setup(random.Random(seed)), None)


@SETTINGS
@given(st.integers(0, 10_000), st.lists(st.integers(0, 10_000), min_size=1, max_size=150))
def test_random_legal_orders_keep_every_property(seed, picks):
    state, dice = _battle(seed), SeededDice(derive_seed(f"prop {seed}"))
    for pick in picks:
        if state.over:
            break
        legal = E.legal_actions(state)
        assert legal, "a live battle with no legal order"
        action = legal[pick % len(legal)]
        after = E.apply(state, action, dice).state
        assert broken(state, action, after) == []
        state = after


class Counting:
    def __init__(self):
        self.rolls = 0

    def roll(self, count, sides, purpose):
        self.rolls += 1
        raise AssertionError("a refusal rolled a die")


@SETTINGS
@given(
    st.integers(0, 10_000),
    st.integers(0, 60),
    st.sampled_from(
        [
            {"type": "orders", "ship": 1, "engines": 4},
            {"type": "orders", "ship": 1, "speed": 12, "engines": 1},
            {"type": "move", "ship": 2, "how": "F"},
            {"type": "attack", "ship": 1, "target": 99},
            {"type": "attack", "ship": 1, "target": 1},
            {"type": "orders", "ship": 77},
            {"type": "move", "ship": 1, "how": "Z"},
        ]
    ),
)
def test_a_refusal_rolls_nothing_and_changes_nothing(seed, steps, probe):
    state, dice = _battle(seed), SeededDice(derive_seed(f"refuse {seed}"))
    for _ in range(steps):
        if state.over:
            break
        state = E.apply(state, BOOK.doctrine_action(state), dice).state
    before = repr(state)
    action = RULES.parse_action(probe)
    try:
        E.check(state, action)
    except IllegalActionError:
        with pytest.raises(IllegalActionError):
            E.apply(state, action, Counting())
        assert repr(state) == before


def _told(state, seat):
    viewer = Viewer(seat=seat, fog_side=seat, can_act=E.acting_side(state) == seat)
    return json.dumps(
        [
            RULES.state_json(state, viewer),
            RULES.legal_json(state, seat),
            [RULES.event_row(e, seat) for e in RULES.visible_events(RULES.events(state), seat)],
        ],
        sort_keys=True,
        default=repr,
    )


@SETTINGS
@given(st.integers(0, 10_000), st.integers(0, 10_000), st.integers(0, 10_000))
def test_side_2_is_told_nothing_of_side_1s_secret_orders(seed, a, b):
    """002 Phase Zero 1 ("writing it on a paper"), ruling MT17: two different sets of Phase Zero
    orders for side 1 leave side 2 told exactly the same."""
    start = _battle(seed)
    told = []
    for pick in (a, b):
        state = start
        while E.acting_side(state) == 1:
            legal = E.legal_actions(state)
            state = E.apply(state, legal[pick % len(legal)], None).state
        told.append(_told(state, 2))
    assert told[0] == told[1]


@pytest.mark.parametrize("seed", range(5))
def test_the_doctrine_is_always_legal_and_battles_end(seed):
    state, dice = _battle(seed), SeededDice(derive_seed(f"doctrine {seed}"))
    steps = 0
    while not state.over:
        action = BOOK.doctrine_action(state)
        E.check(state, action)
        state = E.apply(state, action, dice).state
        steps += 1
        assert steps < 20_000
    assert BOOK.outcome(state)["over"] is True


@pytest.mark.slow
def test_100_doctrine_battles_from_random_400_point_fleets():
    """Issue 29 "Done when" (the 1,000 are bench/mytrek.py's): each ends with a defined result,
    raises nothing and keeps every property."""
    from bench.mytrek import checked_battle

    for i in range(100):
        out, problems = checked_battle(i)
        assert problems == [] and out["over"] is True and out["winner"] in (1, 2, None)
        assert out["winner"] == play_job({"random": 400}, "bench mytrek", i)["winner"]


@pytest.mark.parametrize("seed", range(6))
def test_the_phase_zero_forms_starting_values_are_always_legal(seed):
    """The play page fills the Phase Zero form with ``doctrine.suggested_orders``: whatever the
    damage, each is an order ``check`` accepts, and never a self-destruct."""
    from tactical.rules.mytrek.doctrine import suggested_orders

    state, dice = _battle(seed), SeededDice(derive_seed(f"suggest {seed}"))
    seen = 0
    while not state.over:
        if state.step == "zero":
            for side in E.acting_sides(state):
                for ship in E.waiting(state, side):
                    o = suggested_orders(state, ship)
                    assert not o.destruct
                    E.check(state, o)
                    seen += 1
        state = E.apply(state, BOOK.doctrine_action(state), dice).state
    assert seen
