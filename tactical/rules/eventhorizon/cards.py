"""The turn sequence's deck of cards: 54 cards, Decisive Action Cards, jokers, shuffling.

Rule book ``seeds/003_…``, "The Turn Sequence". Pure Python. Shuffling is a Fisher–Yates shuffle
driven by the injected dice (one ``1dN`` per swap, purpose ``SHUFFLE_PURPOSE``), so the same seed
gives the same deck (RULINGS.md "Dice": every roll is logged).
"""

from __future__ import annotations

from dataclasses import dataclass

from campaign.rules.dice import Dice
from tactical.rules.kit import shuffle as kit_shuffle

TURN_RULE = "003 The Turn Sequence"
SHUFFLE_PURPOSE = "003 The Turn Sequence: shuffle the deck"

HEARTS, DIAMONDS, CLUBS, SPADES, JOKER = "H", "D", "C", "S", "X"
SUITS = (HEARTS, DIAMONDS, CLUBS, SPADES)
RED_SUITS = frozenset({HEARTS, DIAMONDS})
BLACK_SUITS = frozenset({CLUBS, SPADES})
# Ruling TC2: with three or four fleets the suits go to the fleets in this order (colours
# alternate, so a 2-fleet game and a 4-fleet game agree on who is "red").
SUIT_ORDER = (HEARTS, CLUBS, DIAMONDS, SPADES)

JACK, QUEEN, KING, ACE = 11, 12, 13, 14
RANK_NAMES = {JACK: "J", QUEEN: "Q", KING: "K", ACE: "A"}
# "Picture cards and aces are Decisive Action Cards": J=2, Q=3, K=4, A=5 ships.
DAC_ACTIVATIONS = {JACK: 2, QUEEN: 3, KING: 4, ACE: 5}
DECK_SIZE = 54


@dataclass(frozen=True)
class Card:
    """A playing card: ``rank`` 2–14 (11 J … 14 A), or 0 for a joker (suit ``"X"``)."""

    rank: int
    suit: str

    @property
    def is_joker(self) -> bool:
        return self.suit == JOKER

    @property
    def is_dac(self) -> bool:
        """A Decisive Action Card (picture card or ace)."""
        return self.rank in DAC_ACTIVATIONS

    @property
    def activations(self) -> int:
        """Ships the drawn side may activate: 1, or 2–5 for a DAC, 0 for a joker."""
        if self.is_joker:
            return 0
        return DAC_ACTIVATIONS.get(self.rank, 1)

    @property
    def colour(self) -> str | None:
        if self.suit in RED_SUITS:
            return "red"
        if self.suit in BLACK_SUITS:
            return "black"
        return None

    @property
    def label(self) -> str:
        if self.is_joker:
            return "Joker"
        return f"{RANK_NAMES.get(self.rank, str(self.rank))}{self.suit}"

    def to_json(self) -> str:
        return self.label

    @classmethod
    def parse(cls, text: str) -> Card:
        """``"QH"``, ``"10S"``, ``"Joker"`` -> Card (for rule cases)."""
        if text.lower() in ("joker", "x"):
            return cls(0, JOKER)
        rank_text, suit = text[:-1].upper(), text[-1].upper()
        names = {v: k for k, v in RANK_NAMES.items()}
        rank = names.get(rank_text) or (int(rank_text) if rank_text.isdigit() else 0)
        if suit not in SUITS or not 2 <= rank <= ACE:
            raise ValueError(f"{TURN_RULE}: {text!r} is not a playing card (e.g. 'QH', '10S', 'Joker')")
        return cls(rank, suit)


def full_deck() -> tuple[Card, ...]:
    """The 54 cards in a fixed order: suits H D C S, ranks 2..A, then two jokers."""
    cards = [Card(rank, suit) for suit in SUITS for rank in range(2, ACE + 1)]
    cards += [Card(0, JOKER), Card(0, JOKER)]
    return tuple(cards)


def shuffle(cards: tuple[Card, ...], dice: Dice) -> tuple[Card, ...]:
    """Fisher–Yates with the injected dice (``tactical.rules.kit.shuffle``)."""
    return kit_shuffle(cards, dice, SHUFFLE_PURPOSE)


def suit_owner(sides: tuple[int, ...], card: Card) -> int | None:
    """Which fleet a card activates: red/black for two fleets, a suit each for three or four
    (ruling TC2: an unallocated suit, with three fleets, activates nobody)."""
    if card.is_joker:
        return None
    if len(sides) <= 2:
        if card.suit in RED_SUITS:
            return sides[0]
        return sides[1] if len(sides) > 1 else None
    for side, suit in zip(sides, SUIT_ORDER):
        if suit == card.suit:
            return side
    return None
