"""Star Sectors beyond the rule cases: the card designer and its prices (004 II, III), set-up
refusals (III), the codec, hypothesis properties (no ship beyond its MF or warp factor, nothing
illegal listed as legal, a refused action changes nothing, replay gives the same state) and a
slow run of twelve seeded doctrine battles that must all end."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.rules.dice import FixedDice, SeededDice, derive_seed
from tactical.rules import registry
from tactical.rules.kit import evolve
from tactical.rules.starsectors import BOOK, codec
from tactical.rules.starsectors import actions as A
from tactical.rules.starsectors import core as C
from tactical.rules.starsectors.cards import ROSTER, CardError, design, price
from tactical.rules.starsectors.fleets import sample_setup
from tactical.rules.starsectors.sequence import _candidates, check, legal_actions
from tactical.rules.starsectors.setup import SetupError, new_battle


def test_registered_with_play_fleets_and_trial():
    record = registry.find_resolver("starsectors")
    assert record.book is BOOK and record.play is BOOK.play and record.trial.key == "starsectors"


def test_the_books_price_example_priced_by_its_rule():
    # 004 III prints "CF 6, one cloak, two advanced banks, +1 engineering phase ... is worth 12
    # points", but its rule (CF, +1 for each) gives 6 + 1 + 2 + 1 = 10: ruling SS2 prices by the rule.
    card = design("x", "Example", cf=6, df=6, mf=3, ss=10, nacelles=3, cloaks=1, banks=("PTL", "DC"))
    assert price(card) == 10 and card.extra_phases == 1


def test_every_house_card_is_priced_by_iii_and_marked_the_sites():
    for card in ROSTER.values():
        assert card.house
        assert card.points == max(1, card.cf + card.cloaks + len(card.banks) + card.extra_phases)


@pytest.mark.parametrize("kwargs, rule", [
    (dict(cf=13, df=6, mf=3, ss=5), "004 II"),
    (dict(cf=3, df=6, mf=3, ss=5, banks=("XYZ",)), "004 VI.B"),
    (dict(cf=0, df=6, mf=3, ss=5, arc="all"), "004 IV.D"),
    (dict(cf=3, df=6, mf=3, ss=5, arc="none"), "004 IV.D"),
    (dict(cf=0, df=6, mf=3, ss=5, banks=("PTL",)), "004 IV.D"),
    (dict(cf=3, df=6, mf=3, ss=0), "004 II, ruling SS30"),
])
def test_the_designer_refuses_what_the_book_forbids(kwargs, rule):
    with pytest.raises(CardError) as exc:
        design("bad", "Bad", **kwargs)
    assert exc.value.rule == rule


def _setup(ships1, points=0):
    return {"points": points, "sides": {"1": {"ships": ships1}, "2": {"ships": [{"card": "kli-raider"}]}}}


def test_set_up_refuses_a_fleet_over_its_points():
    # 004 III and VII.B: cruiser 8 + command crew 4 = 12 > 10.
    with pytest.raises(SetupError, match="costs 12 points, over 10"):
        new_battle(_setup([{"card": "fed-cruiser", "crew": True}], 10), FixedDice([1, 2]))


def test_set_up_refuses_cargo_over_the_cargo_factor():
    with pytest.raises(SetupError, match="at most 2 items of cargo"):
        new_battle(_setup([{"card": "fed-frigate", "mines": 2, "dilithium": 1}]), FixedDice([1, 2]))


def test_the_codec_refuses_bad_json():
    for bad in ({"type": "move", "ship": 1, "kind": "sideways"}, {"type": "warp", "ship": "x", "hexes": 2},
                {"type": "fly"}, [], {"type": "attack", "ship": 1, "target": 2, "banks": "0"}):
        with pytest.raises(codec.ActionFormatError):
            codec.from_json(bad)


def _states(seed: int, limit: int = 120):
    rng = random.Random(seed)
    dice = SeededDice(derive_seed(f"props/{seed}"))
    state = BOOK.new_battle(sample_setup(rng, 15, max_ships=3), dice)
    out = [state]
    while not BOOK.is_over(state) and len(out) < limit:
        state = BOOK.apply(state, BOOK.doctrine_action(state), dice).state
        out.append(state)
    return out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), pick=st.integers(0, 10_000))
def test_properties(seed, pick):
    states = _states(seed)
    state = states[pick % len(states)]
    if state.over:
        return
    legal = set(legal_actions(state))
    ship = state.ship(state.active) if state.active else None
    ships = [ship] if ship else [s for s in state.ships if s.alive and s.side == state.side and not s.done]
    for s in ships:
        for a in _candidates(state, s):
            before = repr(state)
            try:
                check(state, a)
            except BOOK.illegal:
                assert a not in legal  # nothing illegal is listed as legal
                dice = FixedDice([])
                with pytest.raises(BOOK.illegal):
                    BOOK.apply(state, a, dice)
                assert repr(state) == before and not dice.rolls  # a refusal changes and rolls nothing
                continue
            assert a in legal
            after = BOOK.apply(state, a, SeededDice(derive_seed(f"p/{seed}"))).state
            moved = after.ship(a.ship)
            if isinstance(a, A.Move) and moved.alive and not moved.t_wormhole:
                # no ship moves farther than its MF allows
                assert moved.t_mf <= C.mf(after, moved) or moved.t_mf <= C.mf(state, s)
            if isinstance(a, A.Warp) and moved.alive and not moved.t_wormhole:  # (a worm hole carries it on, VII.A)
                wf = C.warp_factor(state, state.ship(a.ship) if state.active else s)
                assert state.grid.distance(s.pos, moved.pos) <= wf


def test_replay_gives_the_same_state():
    from tactical.rules.replay import LoggedDie, ReplayDice

    class Recording:
        def __init__(self):
            self.d, self.log = SeededDice(derive_seed("replay ss")), []

        def roll(self, n, sides, purpose):
            r = self.d.roll(n, sides, purpose)
            self.log.append(LoggedDie(n, sides, purpose, tuple(r.faces)))
            return r

    setup = sample_setup(random.Random(5), 15, max_ships=3)
    rec = Recording()
    state = BOOK.new_battle(setup, rec)
    steps = []
    while not BOOK.is_over(state):
        a = BOOK.doctrine_action(state)
        steps.append(json.loads(json.dumps(BOOK.to_json(a))))
        state = BOOK.apply(state, a, rec).state
    dice = ReplayDice(rec.log)
    again = BOOK.new_battle(setup, dice)
    for s in steps:
        again = BOOK.apply(again, BOOK.from_json(s), dice).state
    assert again == state


@pytest.mark.slow
def test_seeded_battles_end_with_a_result():
    # The light version of the 1,000 checked battles (bench/starsectors.py runs those): twelve,
    # 25 and 100 points, each ending with a defined result and every property kept at every step.
    from bench.starsectors import checked_battle

    for i in range(12):
        points = 25 if i % 2 == 0 else 100
        out = checked_battle(sample_setup(random.Random(f"slow/{i}"), points), f"slow {i}")
        assert out["over"] is True and "winner" in out
        assert all(s["fate"] in ("destroyed", "withdrew", "survived") for s in out["ships"])


def test_the_doctrine_withdraws_a_fleet_outgunned_two_to_one():
    # Ruling SS24: a side of a tender and a scout facing warships gives battle for two rounds, then
    # withdraws at its first turn of the third; the other wins.
    from tactical.rules.starsectors.doctrine import withdraws

    setup = {"points": 0, "sides": {"1": {"ships": [{"card": "fed-cruiser"}, {"card": "kli-battlecruiser"}]},
                                    "2": {"ships": [{"card": "tender"}, {"card": "fed-scout"}]}}}
    dice = SeededDice(derive_seed("withdraw"))
    state = BOOK.new_battle(setup, dice)
    assert not withdraws(state, 2)
    assert withdraws(evolve(state, round=3), 2) and not withdraws(evolve(state, round=3), 1)
    end = BOOK.simulate(state, dice)
    out = BOOK.outcome(end)
    assert out["winner"] == 1 and end.round == 3
    assert {s["fate"] for s in out["ships"] if s["side"] == 2} == {"withdrew"}


def test_the_doctrine_weighs_a_fleet_by_its_points_and_the_attacks_its_shield_stands():
    # Ruling SS24: a ship's strength is its points (III: CF and banks) times the attacks on target its
    # shield can still take (SS left ÷ (12 − DF) in 12, IV.E). A CF 4 card with three PTL banks and DF 10
    # is not outgunned by a CF 9 card of DF 8 (by printed CF alone it was, 4 against 9); worn down to one
    # shield point it is.
    from tactical.rules.starsectors.doctrine import withdraws

    banks = design("b", "Banks", cf=4, df=10, mf=4, ss=10, banks=("PTL", "PTL", "PTL"), arc="all")
    gun = design("g", "Gun", cf=9, df=8, mf=4, ss=10, arc="all")
    setup = {"points": 0, "sides": {"1": {"ships": [{"card": banks.to_json()}]},
                                    "2": {"ships": [{"card": gun.to_json()}]}}}
    state = evolve(BOOK.new_battle(setup, SeededDice(derive_seed("weigh"))), round=3)
    assert not withdraws(state, 1) and not withdraws(state, 2)
    hurt = state.with_ship(evolve(state.ships[0], damage=9))
    assert withdraws(hurt, 1) and not withdraws(hurt, 2)
