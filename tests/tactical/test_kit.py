"""The rule-book kit (tactical/rules/kit/, issue 27 item 1): dice for any die, the dice bag,
events with fog-of-war tags, evolve, the doctrine's fallback and the simulate loop."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from campaign.rules.dice import FixedDice, SeededDice
from tactical.rules import kit
from tactical.rules.kit import IllegalActionError


class Counting:
    def __init__(self, dice):
        self.dice, self.rolls = dice, []

    def roll(self, count, sides, purpose):
        r = self.dice.roll(count, sides, purpose)
        self.rolls.append((count, sides, purpose, r.faces))
        return r


def test_roll_any_die():
    dice = Counting(SeededDice(b"kit-test-seed-0123456789"))
    assert all(1 <= f <= 12 for f in kit.d12(dice, "x", 5)) and len(kit.d12(dice, "x", 3)) == 3
    assert all(1 <= f <= 20 for f in kit.roll(dice, 4, 20, "x"))
    assert [r[1] for r in dice.rolls] == [12, 12, 20]


def test_d3_is_a_halved_d6_logged_as_the_d6():
    dice = Counting(FixedDice([1, 2, 3, 4, 5, 6]))
    assert kit.d3(dice, "a d3", 6) == (1, 1, 2, 2, 3, 3)
    assert dice.rolls[0][:2] == (6, 6)


def test_dice_bag_draws_each_item_once_in_one_shuffles_order():
    dice = Counting(SeededDice(b"bag-test-seed-0123456789"))
    bag = kit.DiceBag.filled(["red", "blue", "green", "white"], dice, "Print&Play: the bag")
    drawn = []
    while len(bag):
        item, bag = bag.draw()
        drawn.append(item)
    assert sorted(drawn) == ["blue", "green", "red", "white"]
    assert len(dice.rolls) == 3  # one shuffle: a die per position but the first
    with pytest.raises(LookupError):
        bag.draw()


def test_shuffle_is_the_decks():
    from tactical.rules.eventhorizon.cards import SHUFFLE_PURPOSE, full_deck, shuffle

    assert shuffle(full_deck(), SeededDice(b"deck-test-seed-0123456789")) == kit.shuffle(
        full_deck(), SeededDice(b"deck-test-seed-0123456789"), SHUFFLE_PURPOSE
    )


def test_events_carry_their_fog_of_war():
    seen = kit.public("fire", "Ship 1 fires.")
    hidden = kit.private("move", "Ship 2 moves.", sides=(2,))
    assert kit.visible([seen, hidden], 1) == [seen]
    assert kit.visible([seen, hidden], 2) == [seen, hidden]
    assert kit.visible([seen, hidden], None) == [seen, hidden]


@dataclass(frozen=True)
class _Value:
    a: int
    b: tuple = ()


@dataclass(frozen=True)
class _Cached:
    ships: tuple
    other: int = 0

    @property
    def count(self):
        out = self.__dict__.get("_count")
        if out is None:
            out = self.__dict__["_count"] = len(self.ships)
        return out


_Cached._cached_from = {"ships": ("_count",)}


def test_evolve_copies_and_drops_what_a_change_invalidates():
    v = kit.evolve(_Value(1, (2,)), a=3)
    assert v == _Value(3, (2,))
    with pytest.raises(TypeError):
        kit.evolve(v, c=1)
    c = _Cached((1, 2))
    assert c.count == 2
    assert kit.evolve(c, other=1).__dict__.get("_count") == 2  # kept: ships unchanged
    assert kit.evolve(c, ships=(1,)).count == 1  # dropped and computed again


def test_fallback_replaces_a_refused_choice():
    def check(state, action):
        if action == "bad":
            raise IllegalActionError("rule", "no")
    assert kit.fallback(0, "good", check=check, instead=lambda s: "safe") == "good"
    assert kit.fallback(0, "bad", check=check, instead=lambda s: "safe") == "safe"
    assert kit.fallback(0, None, check=check, instead=lambda s: "safe") == "safe"


def test_play_out_takes_automatic_steps_and_falls_back():
    # A counter: nobody acts on odd numbers (the rules add 1); side 1 adds 2 but "3" is refused.
    def apply(state, action, dice):
        if action == 3:
            raise IllegalActionError("r", "three")
        return kit.Resolution(state + action)
    end = kit.play_out(0, None, over=lambda s: s >= 10, acting=lambda s: None if s % 2 else 1,
                       automatic=lambda s, d: kit.Resolution(s + 1), choose=lambda s: 3 if s == 4 else 2,
                       apply=apply, instead=lambda s: 1)
    assert end == 10
    with pytest.raises(IllegalActionError):
        kit.play_out(4, None, over=lambda s: s >= 10, choose=lambda s: 3, apply=apply, strict=True)
    with pytest.raises(RuntimeError):
        kit.play_out(0, None, over=lambda s: False, choose=lambda s: 1, apply=apply, max_steps=5)


def test_play_rules_defaults_refuse():
    """Issue 27 item 3: a book that says nothing about owners or fog gets refusals, not an open
    door: check_owner refuses, untagged events are hidden from every side."""
    from tactical.rules.play import PlayRules

    class Silent(PlayRules):
        name = "silent"

    class Open(PlayRules):
        name = "open"
        anyone_acts = True
        no_fog = True

    untagged = type("E", (), {"kind": "k", "text": "t"})()
    private = kit.private("move", "hidden", sides=(2,))
    with pytest.raises(IllegalActionError, match="whose actions are whose"):
        Silent().check_owner(None, object(), 1)
    assert Silent().visible_events([untagged, private, kit.public("a", "b")], 1) == [kit.public("a", "b")]
    assert Silent().visible_events([private], 2) == [private]
    assert Silent().visible_events([untagged], None) == [untagged]
    Open().check_owner(None, object(), 1)
    assert Open().visible_events([untagged, private], 1) == [untagged, private]


# --- the codec helper (kit/codec.py): every book's first checks and field readers, one wording ----

class _ToyFormatError(kit.FormatError):
    RULE = "toy format"


def test_codec_fields_read_and_refuse_in_the_books_own_error():
    read = kit.Fields(_ToyFormatError)
    fields = {"fire": {"ship", "target", "evasive"}}
    assert read.kind({"type": "fire", "ship": 1}, fields) == "fire"
    for bad, words in (([], "an action is a JSON object"), ({"type": "jump"}, "unknown action type 'jump'"),
                       ({"type": "fire", "colour": 1}, "a fire action has no field(s) colour")):
        with pytest.raises(_ToyFormatError, match=re.escape(words)) as caught:
            read.kind(bad, fields)
        assert caught.value.rule == "toy format" and isinstance(caught.value, kit.IllegalActionError)
    assert read.whole({"ship": "12"}, "ship", "fire") == 12
    assert read.whole({}, "target", "fire", optional=True) is None
    with pytest.raises(_ToyFormatError, match="'ship' of a fire action must be a whole number, not True"):
        read.whole({"ship": True}, "ship", "fire")
    with pytest.raises(_ToyFormatError, match="a fire action needs 'ship'"):
        read.whole({}, "ship", "fire", required=True)
    assert read.flag({}, "evasive") is False and read.flag({"evasive": True}, "evasive") is True
    assert read.flag({}, "evasive", default=None, nullable=True) is None
    with pytest.raises(_ToyFormatError, match="'evasive' must be true or false, not 1"):
        read.flag({"evasive": 1}, "evasive")
    with pytest.raises(_ToyFormatError, match="'evasive' must be true, false or null, not 'x'"):
        read.flag({"evasive": "x"}, "evasive", nullable=True)


def test_both_books_codecs_refuse_through_the_kit():
    from tactical.rules.buoyz.play import codec as bz
    from tactical.rules.eventhorizon.play import codec as eh

    for codec, bad in ((bz, {"type": "move", "ship": 1, "sweep": "yes"}),
                       (eh, {"type": "activate", "ship": 1, "evasive": "yes"})):
        assert issubclass(codec.ActionFormatError, kit.FormatError)
        with pytest.raises(codec.ActionFormatError, match="must be true") as caught:
            codec.from_json(bad)
        assert caught.value.rule == codec.FORMAT_RULE
