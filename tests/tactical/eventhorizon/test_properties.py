"""Property tests over random battles (hypothesis): random fleets of the rule book's sample
designs (some with hero crews or advanced components), random anomalies, played by random legal
actions and by the doctrine with seeded dice. After every step: never two ships in a square
(planet squares excepted), force fields never below 0 or above strength, the deck and the
discard pile always hold the 54 cards, hull never above the design's, refused actions change
nothing. The examples are derandomized, so every run checks the same battles."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.rules.dice import SeededDice, derive_seed
from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS
from tactical.rules.eventhorizon import (
    Battlefield,
    CampaignShip,
    Planet,
    apply,
    deploy,
    doctrine_action,
    draw_card,
    is_over,
    legal_actions,
)
from tactical.rules.eventhorizon.cards import full_deck
from tactical.rules.eventhorizon.state import ACTIVE, PLANET

TERRAIN = ("sun", "cloud", "black_hole", "planet")


def check_invariants(state) -> None:
    squares = Counter(s.pos for s in state.ships if s.status == ACTIVE and state.field.terrain.get(s.pos) != PLANET)
    assert all(n == 1 for n in squares.values()), f"two ships in a square: {squares.most_common(2)}"
    for s in state.ships:
        for arc, value in enumerate(s.force_fields):
            assert 0 <= value <= s.ff_strength, (s.id, s.force_fields)
            if not s.generators[arc]:
                assert value == 0
        assert s.hull <= (1 if s.shuttle else s.design.hull)
        assert s.movement <= s.design.engine or s.shuttle
        assert 0 <= s.boarding_parties <= s.design.boarding_parties
        if s.status == ACTIVE:
            assert state.field.terrain.get(s.pos) not in ("sun", "black_hole")
    assert Counter(state.deck + state.discard) == Counter(full_deck())
    if state.activation is not None:
        assert state.activation.ship in {s.id for s in state.ships if s.side == state.acting_side}


@st.composite
def battles(draw):
    seed = draw(st.integers(0, 10**6))
    n1, n2 = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    picks = draw(st.lists(st.integers(0, 3), min_size=n1 + n2, max_size=n1 + n2))
    heroes = draw(st.lists(st.booleans(), min_size=n1 + n2, max_size=n1 + n2))
    size = draw(st.integers(8, 12))
    cells = draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(3, size - 4), st.sampled_from(TERRAIN)),
                          max_size=6))
    terrain = {(x, y): kind for x, y, kind in cells}
    planets = tuple(Planet(id=f"p{i}", squares=(c,), owner=1 + i % 2, defences=bool(i % 3))
                    for i, c in enumerate(c for c, k in sorted(terrain.items()) if k == "planet"))
    ships = [CampaignShip(i + 1, SAMPLE_DESIGNS[p], hero_crew=h) for i, (p, h) in enumerate(zip(picks, heroes))]
    fleets = {1: ships[:n1], 2: ships[n1:]}
    dice = SeededDice(derive_seed(f"prop-{seed}"))
    state = deploy(fleets, dice, invader=2, battlefield=Battlefield(size, size, terrain), planets=planets,
                   card_cap=60)
    return state, dice, random.Random(seed)


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(battles())
def test_random_legal_play_keeps_the_invariants(battle):
    state, dice, rng = battle
    check_invariants(state)
    for _ in range(250):
        if is_over(state):
            break
        if state.acting_side is None:
            state = draw_card(state, dice).state
        else:
            ship = state.activation.ship if state.activation else rng.choice(
                [s.id for s in state.ships if s.side == state.acting_side and s.in_play])
            options = legal_actions(state, ship)
            assert options
            # Prefer doing something over ending, so fights happen.
            busy = [a for a in options if type(a).__name__ not in ("EndActivation", "Pass")]
            action = rng.choice(busy) if busy and rng.random() < 0.8 else rng.choice(options)
            state = apply(state, action, dice).state
        check_invariants(state)


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(battles())
def test_doctrine_play_keeps_the_invariants_and_ends(battle):
    state, dice, _ = battle
    steps = 0
    while not is_over(state):
        if state.acting_side is None:
            state = draw_card(state, dice).state
        else:
            state = apply(state, doctrine_action(state, state.acting_side, dice), dice).state
        check_invariants(state)
        steps += 1
        assert steps < 60 * 5 * 6, "a capped battle must end"
    assert state.cards_drawn <= 60


@settings(max_examples=20, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(battles(), st.integers(0, 10**6))
def test_refused_actions_change_nothing(battle, pick):
    from tactical.rules.eventhorizon import actions as A
    from tactical.rules.eventhorizon.state import IllegalActionError
    state, dice, rng = battle
    state = draw_card(state, dice).state
    ids = [s.id for s in state.ships]
    wild = [
        A.Activate(rng.choice(ids)),
        A.Move(rng.choice(ids), ("F", "F")),
        A.Fire(rng.choice(ids), (("laser_bank", rng.choice(ids)),)),
        A.Teleport(rng.choice(ids), rng.choice(ids)),
        A.Pass(3),
        A.EndActivation(rng.choice(ids)),
        A.Scan(rng.choice(ids), 999),
    ]
    action = wild[pick % len(wild)]
    before = replace(state)
    try:
        apply(state, action, dice)
    except IllegalActionError as exc:
        assert exc.rule.startswith(("003", "docs")) and exc.message
    assert state == before
