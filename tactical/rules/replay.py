"""Dice that serve logged rolls back, in order, to replay a battle exactly (pure Python).

An embedded battle is stored as its steps; its dice are in the campaign's dice log. Replaying
the steps with ``ReplayDice`` over that log rebuilds the state. Any disagreement between what
the engine asks for and what the log holds (another count, number of sides or purpose, or more
rolls than were logged) raises ``ReplayMismatch`` at once: a replay never silently diverges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from campaign.rules.dice import DiceError, Roll


class ReplayMismatch(DiceError):
    """The engine asked for a roll the log does not hold at this point."""


@dataclass(frozen=True)
class LoggedDie:
    """One logged roll: ``count`` dice of ``sides`` sides for ``purpose`` came up ``faces``."""

    count: int
    sides: int
    purpose: str
    faces: tuple[int, ...]

    @classmethod
    def from_log(cls, expression: str, purpose: str, faces: Iterable[int]) -> LoggedDie:
        count, _, sides = expression.lower().partition("d")
        return cls(int(count), int(sides), purpose, tuple(int(f) for f in faces))


class ReplayDice:
    """The ``Dice`` protocol over a list of logged rolls. ``position`` counts the rolls served."""

    def __init__(self, rolls: Sequence[LoggedDie]):
        self._rolls = tuple(rolls)
        self.position = 0

    def roll(self, count: int, sides: int, purpose: str) -> Roll:
        if self.position >= len(self._rolls):
            raise ReplayMismatch(f"replay asked for {count}d{sides} ({purpose}) but the log holds only "
                                 f"{len(self._rolls)} roll(s)")
        logged = self._rolls[self.position]
        if (logged.count, logged.sides, logged.purpose) != (count, sides, purpose):
            raise ReplayMismatch(
                f"replay roll {self.position + 1}: the engine asked for {count}d{sides} ({purpose}) but the log "
                f"holds {logged.count}d{logged.sides} ({logged.purpose})")
        if len(logged.faces) != count or not all(1 <= f <= sides for f in logged.faces):
            raise ReplayMismatch(f"replay roll {self.position + 1}: logged faces {list(logged.faces)} are not "
                                 f"{count}d{sides}")
        self.position += 1
        return Roll(count=count, sides=sides, faces=logged.faces, purpose=purpose)

    @property
    def remaining(self) -> int:
        return len(self._rolls) - self.position

    def served(self, start: int, end: int | None = None) -> tuple[LoggedDie, ...]:
        """The rolls served between two positions (a step's dice)."""
        return self._rolls[start: self.position if end is None else end]

    def finish(self) -> None:
        """Raise if logged rolls were left unused (the steps do not account for every die)."""
        if self.remaining:
            raise ReplayMismatch(f"the log holds {self.remaining} roll(s) the replay did not use "
                                 f"(next: {self._rolls[self.position].purpose})")


__all__ = ["LoggedDie", "ReplayDice", "ReplayMismatch"]
