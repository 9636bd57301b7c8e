"""Statistical checks of Star Sectors' dice against the book's 12d probabilities, with fixed seeds.

Each check plays one order many times from the same position (the state is frozen, so the trials are
independent) with one seeded stream of dice, and compares the share seen with the book's
probability. The bound is 4.5 standard errors of a binomial share (a fair engine fails it about
once in 150,000 seeds; an engine off by a face, 1/12 ≈ 0.083, is outside it at these trial
counts); the order of play's faces get a chi-square test at the 0.1% point. With fixed seeds
every run gives the same counts, so the test never flickers.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from campaign.rules.dice import SeededDice, derive_seed
from tactical.rules.starsectors import actions as A
from tactical.rules.starsectors.sequence import apply
from tactical.rules.starsectors.setup import order_of_play
from tests.tactical.starsectors.case_loader import load_battle

CHI2_001 = {1: 10.83, 2: 13.82, 11: 31.26}  # chi-square at the 0.1% point, by degrees of freedom


def _within(seen: int, n: int, p: float, what: str) -> None:
    bound = 4.5 * math.sqrt(p * (1 - p) / n)
    share = seen / n
    assert abs(share - p) <= bound, f"{what}: {seen}/{n} = {share:.4f}, the book gives {p:.4f} (± {bound:.4f})"


def _card(cf: int, df: int, arc: str = "front") -> dict:
    return {"key": f"c{cf}d{df}{arc}", "name": "Test", "cf": cf, "df": df, "mf": 3, "ss": 12, "arc": arc}


def _trials(battle: dict, action, n: int, seed: str) -> Counter:
    """Event kinds over ``n`` resolutions of ``action`` from the same position."""
    state = load_battle(battle)
    dice = SeededDice(derive_seed(seed))
    kinds: Counter = Counter()
    for _ in range(n):
        for e in apply(state, action, dice).events:
            kinds[e.kind] += 1
    return kinds


def _duel(firer: dict, target: dict, at=(4, 4), facing=0, firer_set=None, target_set=None) -> dict:
    ships = [{"id": 1, "side": 1, "card": firer, "at": [3, 4], "facing": facing, "set": firer_set or {}},
             {"id": 2, "side": 2, "card": target, "at": list(at), "facing": 3, "set": target_set or {}}]
    return {"ships": ships}


@pytest.mark.parametrize("name, cf, at, facing, arc, p", [
    # IV.E point blank: two 12d, on target when either shows the CF or less
    ("point blank, CF 3", 3, (4, 4), 0, "front", 1 - (1 - 3 / 12) ** 2),
    ("point blank, CF 6", 6, (4, 4), 0, "front", 1 - (1 - 6 / 12) ** 2),
    # IV.E: −1 CF for each hex after the first, one die
    ("two hexes, CF 5 → 4", 5, (5, 4), 0, "front", 4 / 12),
    ("four hexes, CF 5 → 2", 5, (7, 4), 0, "front", 2 / 12),
    # IV.E aft (ruling SS18): one 12d at −1 CF (a 360° diagram, the target astern)
    ("aft, CF 4 → 3, one die", 4, (2, 4), 0, "all", 3 / 12),
])
def test_iv_e_attack_rolls_hit_as_often_as_the_12d_says(name, cf, at, facing, arc, p):
    n = 1500
    kinds = _trials(_duel(_card(cf, 6, arc), _card(3, 0), at=at, facing=facing), A.Attack(1, 2), n,
                    f"stats IV.E {name}")
    assert kinds["attack"] == n
    assert kinds["roll"] + kinds["miss"] == n
    _within(kinds["roll"], n, p, f"004 IV.E attack, {name}")


@pytest.mark.parametrize("name, df, target_set, p", [
    # IV.E: the defender rolls one 12d against its DF: on or below, the shield holds
    ("DF 6", 6, {}, 6 / 12),
    ("DF 9", 9, {}, 9 / 12),
    ("DF 4", 4, {}, 4 / 12),
    # VII.B command crew's command order: two dice, the better one
    ("DF 4 under a command order", 4, {"crew": True, "crew_option": "command"}, 1 - (1 - 4 / 12) ** 2),
])
def test_iv_e_defence_rolls_hold_as_often_as_the_12d_says(name, df, target_set, p):
    n = 1500  # CF 12 never misses: every attack comes to the defence roll
    kinds = _trials(_duel(_card(12, 6), _card(3, df), target_set=target_set), A.Attack(1, 2), n,
                    f"stats IV.E defence {name}")
    assert kinds["roll"] == n and kinds["miss"] == 0
    assert kinds["defended"] + kinds["defence"] == n
    _within(kinds["defended"], n, p, f"004 IV.E defence, {name}")


def test_iv_f_hits_per_point_blank_attack_follow_both_rolls():
    # IV.E and IV.F: a point-blank CF 3 attack on DF 6 does one hit with (1 − (9/12)²) · (6/12)
    n = 2000
    kinds = _trials(_duel(_card(3, 6), _card(3, 6)), A.Attack(1, 2), n, "stats IV.F damage")
    p = (1 - (1 - 3 / 12) ** 2) * (1 - 6 / 12)
    _within(kinds["hit"], n, p, "004 IV.F hits per point-blank attack")


def test_vi_b_a_bank_hits_unless_the_defence_roll_holds():
    # VI.B: a bank fires with no die for the attacker; only the defender's DF roll stops it
    n = 1500
    battle = _duel({**_card(4, 6), "banks": ["PC"]}, _card(3, 5))
    kinds = _trials(battle, A.Attack(1, 2, roll=False, banks=(0,)), n, "stats VI.B bank")
    assert kinds["bank"] == n and kinds["roll"] + kinds["miss"] == 0
    _within(kinds["hit"], n, 1 - 5 / 12, "004 VI.B bank hits")


@pytest.mark.parametrize("sides", [2, 3])
def test_iii_the_set_up_roll_puts_each_side_first_as_often(sides):
    # III: each player rolls one 12d, the highest goes first; ties roll again (ruling SS1)
    n = 3000
    dice = SeededDice(derive_seed(f"stats III order {sides}"))
    first: Counter = Counter()
    faces: Counter = Counter()
    for _ in range(n):
        order, rolls = order_of_play(list(range(1, sides + 1)), dice)
        first[order[0]] += 1
        faces.update(rolls.values())
        assert sorted(order) == list(range(1, sides + 1))
        top = max(rolls.values())
        assert rolls[order[0]] == top  # the winner of the roll goes first (a tie: of the re-roll)
    for side in range(1, sides + 1):
        _within(first[side], n, 1 / sides, f"004 III side {side} first")
    chi2 = sum((first[s] - n / sides) ** 2 / (n / sides) for s in range(1, sides + 1))
    assert chi2 < CHI2_001[sides - 1], f"004 III: who goes first is uneven (chi-square {chi2:.1f})"
    total = sum(faces.values())
    chi2_faces = sum((faces[f] - total / 12) ** 2 / (total / 12) for f in range(1, 13))
    assert chi2_faces < CHI2_001[11], f"004 III: the 12d's faces are uneven (chi-square {chi2_faces:.1f})"
