"""The refusal every rule book raises (pure Python, standard library only).

``IllegalActionError(rule, message)``: an action (or a set-up, or a placement) the rules do not
allow now. ``rule`` names the rule book's section broken (``"003 Movement"``, ``"000 5.10"``,
``"docs/rulings.md TC23"``), ``message`` says why in words a player understands. Raising it
promises the caller two things the contract test (``tests/tactical/test_rulebook_contract.py``)
checks for every registered book: no die was rolled, and the state it was tried on is unchanged
(every engine value is frozen). A message must never depend on what the acting side cannot see
(a hidden unit is refused exactly as a unit that is not there).

A book may subclass it for its own kinds of refusal (a codec's format error, a set-up error);
``except IllegalActionError`` catches them all.
"""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action the rules do not allow now; ``rule`` names the rule book section broken."""

    def __init__(self, rule: str, message: str):
        self.rule = rule
        self.message = message
        super().__init__(f"{rule}: {message}")


__all__ = ["IllegalActionError"]
