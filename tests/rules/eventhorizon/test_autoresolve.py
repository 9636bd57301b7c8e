"""Dice alternative to a tactical battle (seeds/003 "Optional Campaign Rules", "Alternative to a
Tactical Battle"; RULINGS.md "Auto-resolve odds"). Pure rules: no database."""

from __future__ import annotations

import itertools
import math
import random
import time
from fractions import Fraction

import pytest

from campaign.rules.dice import DiceError, FixedDice, SeededDice
from campaign.rules.eventhorizon.autoresolve import (
    PURPOSE,
    AutoResult,
    Side,
    _round_counts,
    compare,
    dice_counts,
    face_counts,
    odds,
    resolve,
)

SECTION = "003 Alternative to a Tactical Battle"


def counts(a: Side, b: Side) -> tuple[int, int]:
    a_dice, b_dice, _ = dice_counts(a, b)
    return a_dice, b_dice


# --- Dice counts: the odds ratio ---------------------------------------------------------------


def test_three_to_one_rolls_three_dice():  # 003 Alternative to a Tactical Battle (the book's example)
    a_dice, b_dice, notes = dice_counts(Side(180), Side(60))
    assert (a_dice, b_dice) == (3, 1)
    assert "3 to 1" in notes[0] and SECTION in notes[0]


def test_the_stronger_side_may_be_b():  # 003 Alternative to a Tactical Battle
    assert counts(Side(60), Side(180)) == (1, 3)


def test_equal_bp_rolls_one_die_each():  # 003 Alternative to a Tactical Battle
    assert counts(Side(75), Side(75)) == (1, 1)


@pytest.mark.parametrize(
    "strong,weak,dice",
    [
        (150, 60, 3),  # 2.5 -> 3: a half rounds up (RULINGS)
        (249, 100, 2),  # 2.49 -> 2
        (251, 100, 3),  # 2.51 -> 3
        (140, 100, 1),  # 1.4 -> 1
        (149, 100, 1),  # 1.49 -> 1: below 1.5 rounds down to the floor of 1
        (150, 100, 2),  # 1.5 -> 2
        (101, 100, 1),
        (3000, 20, 150),
        (7, 2, 4),  # 3.5 -> 4
    ],
)
def test_ratio_rounds_to_nearest_half_up(strong, weak, dice):  # 003 Alternative to a Tactical Battle
    assert counts(Side(strong), Side(weak)) == (dice, 1)
    assert counts(Side(weak), Side(strong)) == (1, dice)


def test_rounding_note_names_the_ruling():  # RULINGS.md Auto-resolve odds
    _, _, notes = dice_counts(Side(150), Side(60))
    assert "rounded to 3" in notes[0] and "half rounds up" in notes[0]


# --- Dice counts: force multipliers ----------------------------------------------------------


def test_star_cruiser_against_none_adds_a_die():  # 003 Alternative to a Tactical Battle: Force Multipliers
    a_dice, b_dice, notes = dice_counts(Side(100, has_star_cruiser=True), Side(100))
    assert (a_dice, b_dice) == (2, 1)
    assert any("Star Cruiser" in note and "Force Multipliers" in note for note in notes)


def test_star_cruisers_on_both_sides_add_nothing():  # 003 ...: Force Multipliers
    assert counts(Side(100, has_star_cruiser=True), Side(100, has_star_cruiser=True)) == (1, 1)


def test_destroyer_against_no_destroyer_or_cruiser_adds_a_die():  # 003 ...: Force Multipliers
    assert counts(Side(100), Side(100, has_destroyer=True)) == (1, 2)


def test_destroyer_against_enemy_destroyer_adds_nothing():  # 003 ...: Force Multipliers
    assert counts(Side(100, has_destroyer=True), Side(100, has_destroyer=True)) == (1, 1)


def test_destroyer_against_enemy_cruiser_adds_nothing_for_the_destroyer():  # 003 ...: Force Multipliers
    # The cruiser side still gets its own die: the destroyer fleet has no Star Cruiser.
    assert counts(Side(100, has_destroyer=True), Side(100, has_star_cruiser=True)) == (1, 2)


def test_cruiser_and_destroyer_against_nothing_add_two_dice():  # 003 ...: Force Multipliers
    assert counts(Side(180, has_star_cruiser=True, has_destroyer=True), Side(60)) == (5, 1)


def test_planetary_defences_give_their_owner_a_die():  # 003 ...: Force Multipliers
    a_dice, b_dice, notes = dice_counts(Side(180), Side(60, has_defences=True))
    assert (a_dice, b_dice) == (3, 2)
    assert any("planetary defences" in note for note in notes)


def test_only_one_side_can_own_the_defences():  # 003 ...: Force Multipliers
    with pytest.raises(ValueError, match="only one side"):
        dice_counts(Side(10, has_defences=True), Side(10, has_defences=True))


# --- Dice counts: bad and zero BP ------------------------------------------------------------


def test_negative_bp_is_refused():  # 003 Alternative to a Tactical Battle
    with pytest.raises(ValueError, match="cannot be negative"):
        Side(-1)


def test_both_zero_bp_is_refused():  # 003 Alternative to a Tactical Battle
    with pytest.raises(ValueError, match="both fleets have 0 BP"):
        dice_counts(Side(0), Side(0))
    with pytest.raises(ValueError, match="both fleets have 0 BP"):
        odds(Side(0), Side(0))


def test_zero_bp_side_rolls_nothing_and_loses():  # ruling: zero BP (docs/rulings.md)
    assert counts(Side(0), Side(40)) == (0, 1)
    result = resolve(Side(0, ships=0), Side(40, ships=1), FixedDice([1]))
    assert result.winner == "b" and result.a_faces == () and result.b_faces == (1,)
    chances = odds(Side(40), Side(0))
    assert chances.p_a_wins_exact == 1 and chances.expected_b_losses_exact == Fraction(1, 6)


def test_zero_bp_defences_fight_alone_with_one_die():  # ruling: zero BP; Force Multipliers
    assert counts(Side(0, has_defences=True), Side(40)) == (1, 1)
    # A full tie is a draw the bigger BP total (the fleet) wins.
    result = resolve(Side(0, has_defences=True), Side(40), FixedDice([4, 4]))
    assert result.winner == "b" and result.drawn_on_faces and result.a_losses == 1


def test_zero_bp_fleet_cannot_hold_a_cruiser():
    with pytest.raises(ValueError, match="cannot have 0 BP"):
        Side(0, has_star_cruiser=True)


def test_non_integer_bp_is_refused():
    with pytest.raises(TypeError, match="whole number"):
        Side(2.5)  # type: ignore[arg-type]


# --- Comparing faces -------------------------------------------------------------------------


def test_face_counts_are_six_first():  # 003 Alternative to a Tactical Battle
    assert face_counts([6, 6, 1, 3]) == (2, 0, 0, 1, 0, 1)


@pytest.mark.parametrize(
    "a_faces,b_faces,expected",
    [
        ((6, 1, 1), (6,), 1),  # 6s tie 1-1, then 5s..2s tie at 0; A has more 1s
        ((6, 6), (6, 5), 1),  # most 6s wins
        ((5, 5, 1), (6,), -1),  # one 6 beats any number of 5s
        ((5, 1, 1), (4, 4, 4), 1),  # no 6s: most 5s wins
        ((4, 4), (5,), -1),
        ((3, 3, 2), (3, 3, 1), 1),  # ties down to 3s, then 2s
        ((2,), (2,), 0),  # every face ties
        ((6, 3), (3, 6), 0),  # order does not matter
        ((), (1,), -1),  # no dice cannot beat any roll
    ],
)
def test_face_by_face_comparison(a_faces, b_faces, expected):  # RULINGS.md Auto-resolve odds
    assert compare(a_faces, b_faces) == expected
    assert compare(b_faces, a_faces) == -expected


# --- Resolve ---------------------------------------------------------------------------------


def test_resolve_rolls_a_then_b_for_the_section():  # 003 Alternative to a Tactical Battle
    dice = FixedDice([6, 2, 3, 6])
    result = resolve(Side(180, ships=4), Side(60, ships=2), dice)
    assert [(roll.count, roll.purpose) for roll in dice.rolls] == [(3, PURPOSE), (1, PURPOSE)]
    assert PURPOSE == SECTION
    assert (result.a_faces, result.b_faces) == ((6, 2, 3), (6,))
    # 6s tie 1-1, no 5s or 4s, A has a 3: A wins; each side's 6 costs the other a ship.
    assert result.winner == "a" and (result.a_losses, result.b_losses) == (1, 1)
    assert not result.drawn_on_faces and len(result.rolls) == 1
    assert any("wins on 3s" in note for note in result.notes)


def test_each_six_destroys_a_ship_even_for_the_winner():  # 003 Alternative to a Tactical Battle
    result = resolve(Side(180, ships=5), Side(60, ships=5), FixedDice([6, 6, 6, 1]))
    assert result.winner == "a" and (result.a_losses, result.b_losses) == (0, 3)


def test_loser_without_sixes_may_still_win_on_fives():  # 003 Alternative to a Tactical Battle
    result = resolve(Side(180, ships=3), Side(60, ships=3), FixedDice([4, 4, 1, 5]))
    assert result.winner == "b" and (result.a_losses, result.b_losses) == (0, 0)


def test_draw_goes_to_bigger_bp_with_one_more_loss():  # 003 Alternative to a Tactical Battle
    # Force multipliers give both sides 2d6 while the BP totals differ (ratio 10/9 -> 1 die each).
    a, b = Side(100, has_star_cruiser=True, ships=3), Side(90, has_defences=True, ships=3)
    assert counts(a, b) == (2, 2)
    result = resolve(a, b, FixedDice([6, 2, 2, 6]))
    assert result.drawn_on_faces and result.winner == "a"
    assert (result.a_losses, result.b_losses) == (1, 2)  # B's 6; A's 6 plus one for the draw
    assert any("draw" in note for note in result.notes)


def test_draw_won_by_b_when_b_is_bigger():  # 003 Alternative to a Tactical Battle
    result = resolve(Side(90, ships=2), Side(100, ships=2), FixedDice([3, 3]))
    assert result.drawn_on_faces and result.winner == "b" and (result.a_losses, result.b_losses) == (1, 0)


def test_equal_bp_full_tie_rolls_again_and_voids_the_round():  # RULINGS.md Auto-resolve odds
    dice = FixedDice([6, 6, 2, 6])
    result = resolve(Side(80, ships=3), Side(80, ships=3), dice)
    assert len(dice.rolls) == 4 and dice.remaining() == []
    assert result.rolls == (((6,), (6,)), ((2,), (6,)))
    assert (result.a_faces, result.b_faces) == ((2,), (6,))
    assert result.winner == "b" and not result.drawn_on_faces
    assert (result.a_losses, result.b_losses) == (1, 0)  # the tied round's 6s destroyed nothing
    assert any("void" in note for note in result.notes)


def test_fixed_dice_running_out_fails_loudly():
    with pytest.raises(DiceError):
        resolve(Side(80), Side(80), FixedDice([3, 3]))


def test_losses_are_capped_at_ships():  # 003 Alternative to a Tactical Battle
    result = resolve(Side(600, ships=9), Side(100, ships=2), FixedDice([6, 6, 6, 6, 6, 6, 1]))
    assert result.b_losses == 2 and result.a_losses == 0
    assert any("only 2 ship" in note for note in result.notes)
    uncapped = resolve(Side(600), Side(100), FixedDice([6, 6, 6, 6, 6, 6, 1]))
    assert uncapped.b_losses == 6


def test_result_is_frozen():
    result = resolve(Side(10), Side(10), FixedDice([1, 2]))
    assert isinstance(result, AutoResult)
    with pytest.raises(AttributeError):
        result.winner = "a"  # type: ignore[misc]


# --- Exact odds against brute force ------------------------------------------------------------


def brute_force(a: Side, b: Side) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """(P(A wins), P(B wins), E[A losses], E[B losses]) by enumerating every roll of one round.

    Written independently of the module's DP: equal-BP full ties are dropped (re-rolled), which
    conditions the deciding round on not tying.
    """
    a_dice, b_dice, _ = dice_counts(a, b)
    weight = p_a = p_b = loss_a = loss_b = Fraction(0)
    for faces in itertools.product(range(1, 7), repeat=a_dice + b_dice):
        a_faces, b_faces = faces[:a_dice], faces[a_dice:]
        key_a = [a_faces.count(v) for v in (6, 5, 4, 3, 2, 1)]
        key_b = [b_faces.count(v) for v in (6, 5, 4, 3, 2, 1)]
        a_extra = b_extra = 0
        if key_a > key_b:
            won_a = True
        elif key_b > key_a:
            won_a = False
        elif a.bp == b.bp:
            continue  # void round
        else:
            won_a = a.bp > b.bp
            b_extra, a_extra = (1, 0) if won_a else (0, 1)
        weight += 1
        p_a += won_a
        p_b += not won_a
        loss_a += b_faces.count(6) + a_extra
        loss_b += a_faces.count(6) + b_extra
    return p_a / weight, p_b / weight, loss_a / weight, loss_b / weight


MATCHUPS = [
    pytest.param(Side(50), Side(50), id="1v1-equal-bp"),
    pytest.param(Side(50), Side(49), id="1v1-draw-to-a"),
    pytest.param(Side(100), Side(50), id="2v1"),
    pytest.param(Side(150), Side(50), id="3v1"),
    pytest.param(Side(50), Side(150), id="1v3"),
    pytest.param(Side(50, has_star_cruiser=True), Side(50, has_destroyer=True), id="2v2-equal-bp"),
    pytest.param(Side(50, has_star_cruiser=True), Side(60, has_destroyer=True), id="2v2-draw-to-b"),
    pytest.param(Side(100, has_destroyer=True), Side(60, has_defences=True), id="3v2"),
    pytest.param(Side(0, has_defences=True), Side(30), id="defences-alone"),
]


@pytest.mark.parametrize("a,b", MATCHUPS)
def test_odds_match_brute_force(a, b):  # 003 Alternative to a Tactical Battle
    chances = odds(a, b)
    assert (
        chances.p_a_wins_exact,
        chances.p_b_wins_exact,
        chances.expected_a_losses_exact,
        chances.expected_b_losses_exact,
    ) == brute_force(a, b)
    assert chances.p_a_wins_exact + chances.p_b_wins_exact == 1
    assert chances.p_a_wins == float(chances.p_a_wins_exact)


@pytest.mark.parametrize("a,b", MATCHUPS)
def test_odds_are_symmetric(a, b):
    ab, ba = odds(a, b), odds(b, a)
    assert (ab.a_dice, ab.b_dice) == (ba.b_dice, ba.a_dice)
    assert ab.p_a_wins_exact == ba.p_b_wins_exact
    assert ab.expected_a_losses_exact == ba.expected_b_losses_exact


def test_one_die_each_known_values():  # hand-checked: equal BP, a 1d6 tie (1/6) is re-rolled
    chances = odds(Side(40), Side(40))
    assert chances.p_a_wins_exact == Fraction(1, 2)
    assert chances.expected_a_losses_exact == Fraction(1, 6)  # P(B rolled 6 | faces differ)
    assert chances.expected_rounds == Fraction(6, 5) and chances.p_draw == 0
    unequal = odds(Side(41), Side(40))
    assert unequal.p_draw == Fraction(1, 6)
    assert unequal.p_a_wins_exact == Fraction(5, 12) + Fraction(1, 6)
    assert unequal.expected_b_losses_exact == Fraction(1, 6) + Fraction(1, 6)


def test_odds_are_exact_and_fast_for_many_dice():  # 3000 BP vs 20 BP -> 150 dice vs 1
    started = time.perf_counter()
    big = odds(Side(3000), Side(20))
    even = odds(Side(100, has_star_cruiser=True), Side(100, has_destroyer=True))
    many = odds(Side(4000, has_star_cruiser=True), Side(100, has_destroyer=True))  # 41 v 1
    forty = _round_counts(40, 40)  # force multipliers cap equal BP at 3 v 3; test the counter directly
    assert time.perf_counter() - started < 2
    assert (big.a_dice, big.b_dice) == (150, 1)
    # B's one die k wins only if all 150 of A's dice show less than k (a k of A's ties the k,
    # then A's other dice win on lower faces).
    assert big.p_b_wins_exact == sum(Fraction(1, 6) * Fraction(k - 1, 6) ** 150 for k in range(2, 7))
    assert big.expected_b_losses_exact == 25 and big.expected_a_losses_exact == Fraction(1, 6)
    assert even.p_a_wins_exact + even.p_b_wins_exact == 1 and many.a_dice == 41
    assert forty.a_wins == forty.b_wins and forty.a_wins + forty.b_wins + forty.ties == 6**80


# --- Monte Carlo agreement ------------------------------------------------------------------


@pytest.mark.parametrize(
    "a,b",
    [
        pytest.param(Side(180, has_star_cruiser=True), Side(60, has_defences=True), id="4v2-multipliers"),
        pytest.param(
            Side(70, has_star_cruiser=True),
            Side(70, has_destroyer=True, has_defences=True),
            id="2v2-equal-bp-rerolls",
        ),
        pytest.param(Side(60, has_destroyer=True), Side(50, has_defences=True), id="2v2-draws"),
    ],
)
def test_monte_carlo_agrees_with_exact_odds(a, b):  # 003 Alternative to a Tactical Battle
    trials = 20_000
    dice = SeededDice(bytes(range(32)))
    wins = 0
    losses_a: list[int] = []
    losses_b: list[int] = []
    for _ in range(trials):
        result = resolve(a, b, dice)  # ships unknown: losses uncapped, like odds()
        wins += result.winner == "a"
        losses_a.append(result.a_losses)
        losses_b.append(result.b_losses)
    chances = odds(a, b)
    p = chances.p_a_wins
    assert abs(wins / trials - p) < 4 * math.sqrt(p * (1 - p) / trials)
    for sample, expected in ((losses_a, chances.expected_a_losses), (losses_b, chances.expected_b_losses)):
        mean = sum(sample) / trials
        spread = math.sqrt(sum((x - mean) ** 2 for x in sample) / (trials - 1))
        assert abs(mean - expected) < 4 * spread / math.sqrt(trials)


def test_monte_carlo_with_random_faces_via_fixed_dice():  # the same check through FixedDice
    rng = random.Random(1)
    a, b = Side(150), Side(60, has_destroyer=True)  # 3 v 2
    trials = 20_000
    dice = FixedDice(iter(lambda: rng.randint(1, 6), None))
    wins = sum(resolve(a, b, dice).winner == "a" for _ in range(trials))
    p = odds(a, b).p_a_wins
    assert abs(wins / trials - p) < 4 * math.sqrt(p * (1 - p) / trials)
