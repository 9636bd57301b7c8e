"""Dice for any rule book (pure Python, standard library only).

Engines never call ``random``: a dice object is passed into every step that rolls. It is any
object with ``roll(count, sides, purpose) -> Roll`` (``campaign.rules.dice``: ``SeededDice`` for
play, the HMAC stream of a campaign, ``FixedDice`` for rule cases, ``ReplayDice`` to replay the
log); ``Roll.faces`` is a tuple of ``count`` whole numbers 1…``sides``. ``purpose`` is logged
beside the roll: name the rule and the unit ("003 Lock On: laser bank (ship 4)").

``roll(dice, n, sides, purpose)``
    The faces of ``n`` dice of ``sides`` sides (any die: d6, d12, d20, d100…), a tuple.
``d6(dice, purpose, n=1)``, ``d12(…)``, ``d3(…)``
    The common dice. ``d3`` is rolled as a d6 halved, rounded up (1-2 → 1, 3-4 → 2, 5-6 → 3), the
    way the table rolls it, so its log shows the d6 thrown.
``one(dice, sides, purpose)``
    A single die's face, an int.
``shuffle(items, dice, purpose)``
    Fisher–Yates with the dice: for i = n-1 … 1, swap item i with item (1d(i+1) − 1). The
    Event Horizon deck is shuffled with it.
``DiceBag``
    A bag drawn from without replacement (Print&Play draws one die per ship from a bag): it is
    ``filled(items, dice, purpose)`` with one shuffle, then each ``draw()`` returns the next item
    and the bag left (a frozen value, like every engine value). ``refill`` shuffles again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol


class Roll(Protocol):
    faces: tuple[int, ...]


class Dice(Protocol):
    def roll(self, count: int, sides: int, purpose: str) -> Roll: ...


def roll(dice: Dice, n: int, sides: int, purpose: str) -> tuple[int, ...]:
    """The faces of ``n`` dice of ``sides`` sides."""
    return tuple(dice.roll(n, sides, purpose).faces)


def one(dice: Dice, sides: int, purpose: str) -> int:
    return dice.roll(1, sides, purpose).faces[0]


def d6(dice: Dice, purpose: str, n: int = 1) -> tuple[int, ...]:
    return roll(dice, n, 6, purpose)


def d12(dice: Dice, purpose: str, n: int = 1) -> tuple[int, ...]:
    return roll(dice, n, 12, purpose)


def d3(dice: Dice, purpose: str, n: int = 1) -> tuple[int, ...]:
    """``n`` d3, each a d6 halved and rounded up."""
    return tuple((f + 1) // 2 for f in roll(dice, n, 6, purpose))


def shuffle(items: Iterable[Any], dice: Dice, purpose: str) -> tuple[Any, ...]:
    """``items`` in a random order: Fisher–Yates, one die of i+1 sides per position."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = dice.roll(1, i + 1, purpose).faces[0] - 1
        out[i], out[j] = out[j], out[i]
    return tuple(out)


@dataclass(frozen=True)
class DiceBag:
    """What is left in a bag, in the order it will be drawn (fixed by one shuffle)."""

    contents: tuple[Any, ...] = ()

    @classmethod
    def filled(cls, items: Iterable[Any], dice: Dice, purpose: str) -> DiceBag:
        return cls(shuffle(items, dice, purpose))

    def refill(self, items: Iterable[Any], dice: Dice, purpose: str) -> DiceBag:
        return DiceBag.filled(items, dice, purpose)

    def __len__(self) -> int:
        return len(self.contents)

    def draw(self) -> tuple[Any, DiceBag]:
        """The next item and the bag without it; ``LookupError`` when the bag is empty."""
        if not self.contents:
            raise LookupError("the dice bag is empty")
        return self.contents[0], DiceBag(self.contents[1:])


__all__ = ["Dice", "DiceBag", "Roll", "d3", "d6", "d12", "one", "roll", "shuffle"]
