"""Verifiable dice: a deterministic, documented stream of die faces from a secret seed.

Pure Python (standard library only). The stream is described in ``docs/dice.md``; in short:

* block ``i`` (``i = 0, 1, 2 …``) is ``HMAC-SHA256(key=seed, msg=b"sector-command/dice/v1" +
  i as 8 big-endian bytes)``; the stream is the concatenation of the blocks, read as unsigned
  32-bit big-endian words (eight words per block). Word ``w`` of the stream is word ``w % 8`` of
  block ``w // 8``.
* A die of ``s`` sides takes the next word ``u``; if ``u >= 2**32 - (2**32 % s)`` the word is
  rejected (so every face is exactly equally likely) and the next word is taken; otherwise the
  face is ``u % s + 1``.
* Rolls consume words in the order they are made. Each logged roll records the stream offset
  (word index) where it began, so anyone holding the seed can recompute it.

Engines never create dice themselves: a ``Dice`` object is passed into every step that rolls.
Tests inject faces with ``FixedDice``.

A roll made for one empire (its income, its fleet's particle-cloud roll, a battle it fights) is
made through ``concerning(dice, seat, …)``: the call site says whose roll it is, the roll carries
those seats (``Roll.concerns``) into the log, and fog of war withholds it from everyone else
until the campaign ends (docs/dice.md "Who sees which roll"). A roll made through plain dice is
public (map generation, initiative, the victory condition).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

DOMAIN = b"sector-command/dice/v1"
WORD_BYTES = 4
WORDS_PER_BLOCK = 32 // WORD_BYTES
WORD_SPACE = 1 << 32
SEED_BYTES = 32  # 256 bits, comfortably above the 128-bit floor
MAX_DICE_PER_ROLL = 100_000
MAX_SIDES = 1_000_000

_EXPRESSION = re.compile(r"^\s*(\d+)\s*[dD]\s*(\d+)\s*$")


class DiceError(ValueError):
    """A roll that cannot be made (bad expression, fixed faces exhausted or out of range)."""


PUBLIC: tuple[int, ...] = ()  # a roll that concerns no empire in particular: everyone sees it


@dataclass(frozen=True)
class Roll:
    """One roll of ``count`` dice of ``sides`` sides, made for ``purpose`` (a rule book section).
    ``concerns``: the seats of the empires it was rolled for, in order; empty for a public roll."""

    count: int
    sides: int
    faces: tuple[int, ...]
    purpose: str
    concerns: tuple[int, ...] = PUBLIC

    @property
    def total(self) -> int:
        return sum(self.faces)

    @property
    def expression(self) -> str:
        return f"{self.count}d{self.sides}"


@dataclass(frozen=True)
class LoggedRoll:
    """A roll together with where in the stream it started and how many words it used."""

    roll: Roll
    offset: int
    words: int


class Dice(Protocol):
    """What rules engines need: ``roll(count, sides, purpose) -> Roll``."""

    def roll(self, count: int, sides: int, purpose: str) -> Roll: ...


def seats_of(seats: Iterable[int | None]) -> tuple[int, ...]:
    """Seats in order, each once, ``None`` (no empire: a neutral world) left out."""
    return tuple(sorted({int(s) for s in seats if s is not None}))


class _Concerning:
    """``concerning()``'s dice: rolls through ``base``, marked as concerning ``seats``."""

    def __init__(self, base, seats: tuple[int, ...]):
        self._base = base
        self.concerns = seats

    def roll(self, count: int, sides: int, purpose: str) -> Roll:
        roll_for = getattr(self._base, "roll_for", None)
        if roll_for is None:  # dice that log nothing (FixedDice, replay dice): nobody to tell
            return self._base.roll(count, sides, purpose)
        return roll_for(self.concerns, count, sides, purpose)


def concerning(dice: Dice, *seats: int | None) -> Dice:
    """The same dice, every roll made through them marked as concerning ``seats`` (an empire's
    income, its fleet's movement, a battle's two sides). The logging dice (``SeededDice``, the
    campaign's ``CampaignDice``) record the seats with the roll; other dice just roll. Nesting
    adds seats: ``concerning(concerning(d, 1), 2)`` concerns seats 1 and 2."""
    if isinstance(dice, _Concerning):
        return _Concerning(dice._base, seats_of((*dice.concerns, *seats)))
    return _Concerning(dice, seats_of(seats))


def new_seed() -> bytes:
    """A fresh secret campaign seed (256 bits from the OS's CSPRNG)."""
    return secrets.token_bytes(SEED_BYTES)


def seed_hash(seed: bytes) -> str:
    """The public commitment to a seed: hex SHA-256 of its bytes."""
    return hashlib.sha256(seed).hexdigest()


def parse_expression(expression: str) -> tuple[int, int]:
    """``"3d6"`` -> ``(3, 6)``; raises DiceError naming the problem."""
    match = _EXPRESSION.match(expression or "")
    if not match:
        raise DiceError(f"'{expression}' is not a dice expression like 3d6")
    count, sides = int(match.group(1)), int(match.group(2))
    _check(count, sides)
    return count, sides


def _check(count: int, sides: int) -> None:
    if not 1 <= count <= MAX_DICE_PER_ROLL:
        raise DiceError(f"a roll needs 1 to {MAX_DICE_PER_ROLL} dice, not {count}")
    if not 2 <= sides <= MAX_SIDES:
        raise DiceError(f"a die needs 2 to {MAX_SIDES} sides, not {sides}")


def _block(seed: bytes, index: int) -> bytes:
    return hmac.new(seed, DOMAIN + index.to_bytes(8, "big"), hashlib.sha256).digest()


class DiceStream:
    """Reads words from the HMAC stream of one seed, starting at ``offset``."""

    def __init__(self, seed: bytes, offset: int = 0):
        if len(seed) < 16:
            raise DiceError("a dice seed must be at least 128 bits (16 bytes)")
        if offset < 0:
            raise DiceError("a stream offset cannot be negative")
        self._seed = seed
        self.offset = offset
        self._cached_block = -1
        self._words: tuple[int, ...] = ()

    def _word(self) -> int:
        block, index = divmod(self.offset, WORDS_PER_BLOCK)
        if block != self._cached_block:
            digest = _block(self._seed, block)
            self._words = tuple(
                int.from_bytes(digest[i : i + WORD_BYTES], "big") for i in range(0, 32, WORD_BYTES)
            )
            self._cached_block = block
        self.offset += 1
        return self._words[index]

    def faces(self, count: int, sides: int) -> tuple[int, ...]:
        _check(count, sides)
        limit = WORD_SPACE - (WORD_SPACE % sides)
        out = []
        while len(out) < count:
            word = self._word()
            if word < limit:  # rejection sampling keeps every face equally likely
                out.append(word % sides + 1)
        return tuple(out)


@dataclass
class SeededDice:
    """The campaign dice service's pure core: rolls from the seed's stream and remembers them.

    ``log`` holds every roll made through this object, in order, with its stream offset; the
    Django adapter persists them into the hash-chained dice log.
    """

    seed: bytes
    offset: int = 0
    log: list[LoggedRoll] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stream = DiceStream(self.seed, self.offset)

    def roll(self, count: int, sides: int, purpose: str) -> Roll:
        return self.roll_for(PUBLIC, count, sides, purpose)

    def roll_for(self, concerns: tuple[int, ...], count: int, sides: int, purpose: str) -> Roll:
        """A roll concerning the empires of ``concerns`` (seats; empty: public)."""
        start = self._stream.offset
        faces = self._stream.faces(count, sides)
        self.offset = self._stream.offset
        roll = Roll(count=count, sides=sides, faces=faces, purpose=purpose, concerns=seats_of(concerns))
        self.log.append(LoggedRoll(roll=roll, offset=start, words=self.offset - start))
        return roll


class FixedDice:
    """Dice for tests: returns the injected faces in order and records every roll.

    A face outside ``1..sides`` or running out of faces raises DiceError, so a test that
    rolls more (or other) dice than it meant to fails loudly.
    """

    def __init__(self, faces: Iterable[int]):
        self._faces: Iterator[int] = iter(faces)
        self.rolls: list[Roll] = []

    def roll(self, count: int, sides: int, purpose: str) -> Roll:
        _check(count, sides)
        out = []
        for _ in range(count):
            try:
                face = next(self._faces)
            except StopIteration:
                raise DiceError(f"fixed dice ran out rolling {count}d{sides} for {purpose}") from None
            if not 1 <= face <= sides:
                raise DiceError(f"fixed face {face} cannot come up on a d{sides} ({purpose})")
            out.append(face)
        roll = Roll(count=count, sides=sides, faces=tuple(out), purpose=purpose)
        self.rolls.append(roll)
        return roll

    def remaining(self) -> list[int]:
        return list(self._faces)


def derive_seed(text: str) -> bytes:
    """A reproducible seed from a text (``newcampaign --seed S``): SHA-256 of a domain tag and S.

    Only as secret as the text itself; without ``--seed`` campaigns use ``new_seed()``.
    """
    return hashlib.sha256(b"sector-command/seed/v1:" + text.encode("utf-8")).digest()
