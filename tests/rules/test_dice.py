"""The verifiable dice stream and its hash-chained log (docs/dice.md; RULINGS.md "Dice")."""

import hashlib
import hmac
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chisquare

from campaign.rules import dicelog
from campaign.rules.dice import (
    DOMAIN,
    DiceError,
    DiceStream,
    FixedDice,
    SeededDice,
    derive_seed,
    new_seed,
    parse_expression,
    seed_hash,
)

SEED = bytes(range(32))


def test_new_seed_has_at_least_128_bits():
    seeds = {new_seed() for _ in range(20)}
    assert len(seeds) == 20
    assert all(len(s) * 8 >= 128 for s in seeds)


def test_stream_follows_the_documented_construction():
    # docs/dice.md: word w is the (w % 8)-th big-endian 32-bit word of HMAC(seed, DOMAIN || w//8).
    block0 = hmac.new(SEED, DOMAIN + (0).to_bytes(8, "big"), hashlib.sha256).digest()
    words = [int.from_bytes(block0[i : i + 4], "big") for i in range(0, 32, 4)]
    expected = [w % 6 + 1 for w in words]  # no word of block 0 falls in the rejected tail here
    assert all(w < (1 << 32) - ((1 << 32) % 6) for w in words)
    assert list(DiceStream(SEED).faces(8, 6)) == expected


def test_rejection_sampling_skips_words_in_the_biased_tail(monkeypatch):
    stream = DiceStream(SEED)
    tail = (1 << 32) - ((1 << 32) % 6)
    words = iter([tail, tail + 1, 7])
    monkeypatch.setattr(stream, "_word", lambda: next(words))
    assert stream.faces(1, 6) == (7 % 6 + 1,)


def test_same_seed_same_rolls_and_offsets_resume():
    a = SeededDice(SEED)
    rolls = [a.roll(3, 6, "test").faces for _ in range(5)]
    b = SeededDice(SEED)
    assert [b.roll(3, 6, "test").faces for _ in range(5)] == rolls
    resumed = SeededDice(SEED, offset=a.log[2].offset)
    assert resumed.roll(3, 6, "test").faces == rolls[2]


def test_faces_are_uniform_on_a_d20_and_d6():
    dice = SeededDice(SEED)
    for sides in (6, 20):
        faces = dice.roll(60_000, sides, "uniformity").faces
        counts = Counter(faces)
        assert set(counts) == set(range(1, sides + 1))
        # A fair die passes this at p > 0.001 999 times in 1000; the seed is fixed, so the
        # test is deterministic.
        assert chisquare([counts[f] for f in range(1, sides + 1)]).pvalue > 0.001


@pytest.mark.parametrize("expr,parsed", [("3d6", (3, 6)), ("1D20", (1, 20)), (" 200d20 ", (200, 20))])
def test_parse_expression(expr, parsed):
    assert parse_expression(expr) == parsed


@pytest.mark.parametrize("expr", ["d6", "3d", "3d1", "0d6", "abc", "", "3d6+1"])
def test_parse_expression_refuses_bad_input(expr):
    with pytest.raises(DiceError):
        parse_expression(expr)


def test_short_seed_refused():
    with pytest.raises(DiceError, match="128 bits"):
        DiceStream(b"short")


def test_fixed_dice_gives_injected_faces_and_refuses_impossible_ones():
    dice = FixedDice([6, 1, 4])
    assert dice.roll(2, 6, "x").faces == (6, 1)
    with pytest.raises(DiceError, match="cannot come up"):
        FixedDice([7]).roll(1, 6, "x")
    with pytest.raises(DiceError, match="ran out"):
        dice.roll(2, 6, "x")


def test_derive_seed_is_stable_and_distinct():
    assert derive_seed("1") == derive_seed("1")
    assert derive_seed("1") != derive_seed("2")
    assert len(derive_seed("1")) == 32


def _log(n=6):
    dice = SeededDice(SEED)
    for i in range(n):
        dice.roll(1 + i % 3, 6 if i % 2 else 20, f"purpose {i}")
    return dicelog.chain(dice.log, seed=SEED, first_seq=1, prev_hash=seed_hash(SEED), turn=1, phase="setup")


def test_verify_accepts_an_honest_log():
    assert dicelog.verify(SEED, seed_hash(SEED), _log()) is None


def test_verify_rejects_the_wrong_seed():
    mismatch = dicelog.verify(bytes(32), seed_hash(SEED), _log())
    assert mismatch is not None and mismatch.seq is None


@pytest.mark.parametrize(
    "tamper,problem",
    [
        (lambda e: replace(e, faces=(1,) * len(e.faces)), "altered"),
        (lambda e: replace(e, total=e.total + 1), "altered"),
        (lambda e: replace(e, purpose="something else"), "altered"),
    ],
)
def test_verify_finds_the_first_altered_row(tamper, problem):
    entries = _log()
    entries[3] = tamper(entries[3])
    mismatch = dicelog.verify(SEED, seed_hash(SEED), entries)
    assert mismatch.seq == 4 and problem in mismatch.problem


def test_verify_catches_forged_faces_with_a_recomputed_chain():
    entries = _log()
    sides = 20  # roll 3 of _log() is 3d20
    forged = replace(entries[2], faces=tuple(f % sides + 1 for f in entries[2].faces))
    forged = replace(forged, total=sum(forged.faces))
    entries[2] = replace(forged, hash=dicelog.entry_hash(forged, SEED))
    mismatch = dicelog.verify(SEED, seed_hash(SEED), entries)
    assert mismatch.seq == 3 and "differ from the stream" in mismatch.problem


def test_verify_catches_a_removed_row():
    entries = _log()
    del entries[1]
    assert dicelog.verify(SEED, seed_hash(SEED), entries).seq == 3


@given(st.lists(st.tuples(st.integers(1, 5), st.sampled_from([2, 3, 6, 10, 12, 20, 100])), max_size=20))
def test_verify_accepts_any_honest_sequence(spec):
    dice = SeededDice(SEED)
    for count, sides in spec:
        roll = dice.roll(count, sides, "p")
        assert all(1 <= f <= sides for f in roll.faces)
    entries = dicelog.chain(dice.log, seed=SEED, first_seq=1, prev_hash=seed_hash(SEED), turn=0, phase="p")
    assert dicelog.verify(SEED, seed_hash(SEED), entries) is None
