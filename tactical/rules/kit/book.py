"""One shape for every rule book: the ``RuleBook`` protocol and the ``Book`` base (pure Python).

Every tactical rule book answers the same questions with the same signatures, whatever its
engine's own functions look like; the registry (``tactical.rules.registry``) holds one
``RuleBook`` per book (``ResolverRecord.book``) and ``tests/tactical/test_rulebook_contract.py``
checks every registered one. The engine's state and actions are opaque values: only passed back.

============================  ===============================================================
``new_battle(setup, dice)``   the battle set up from its stored set-up JSON (= ``deploy``)
``acting_side(state)``        whose decision it is (None: nobody — take ``automatic_step`` —
                              or the battle is over)
``automatic_step(st, dice)``  the step the rules take by themselves (a card drawn) → Resolution
``legal_actions(state)``      every action ``apply`` accepts now, for the acting side
``check(state, action)``      raise ``IllegalActionError`` if ``apply`` would refuse it; rolls
                              nothing
``apply(state, action, dice)`` → ``Resolution(state, events)``; a refusal rolls nothing and
                              changes nothing
``doctrine_action(state)``    the computer's choice for the acting side, never refused
                              (``kit.doctrine.fallback``)
``is_over(state)``
``outcome(state)``            the one result JSON (``battle_result``)
``to_json(action)`` / ``from_json(data)``  the codec (``from_json`` refuses bad JSON with
                              ``IllegalActionError``)
``check_owner(st, act, seat)`` refuse an action that is not ``seat``'s to take
``simulate(state, dice)``     the battle played out by the doctrine (``kit.doctrine.play_out``)
============================  ===============================================================

``Book`` implements the protocol over a book's online-play hooks (``play``, a
``tactical.rules.play.PlayRules``) and leaves three methods to the book: ``legal_actions``,
``check`` and ``choose`` (its doctrine's raw choice). The contract test's hidden-unit clause
also asks the book to ``plant_hidden(state, seat)``: copies of ``state`` with one more unit
that ``seat`` cannot see (an enemy ship under its stealth field, a cloaked ship lurking), and
``probe_actions(state, seat)``: actions (JSON) ``seat`` might try, including ones naming
squares and ids where a hidden unit could be. A book with no hidden units returns ``()``
from ``plant_hidden`` and says so in its docstring.

``battle_result(winner, ships, over=True, **extra)``: the result JSON every book returns —
``{"winner": side | None, "holder": the same (the key campaign battle results have always
used; kept so stored results stay readable), "over": bool, "ships": [{"ship", "side", "fate",
…}], …the book's own extra keys}``. ``result_winner(result)`` reads the winner of any stored
result, old (``holder`` only, or ``winner`` only) or new.

The registry's other per-book records (what-if and pickup) are in ``tactical.rules.registry``:
``ResolverRecord.fleets`` (the ships a player may buy) and ``ResolverRecord.trial`` (one
what-if battle).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from .doctrine import fallback, play_out
from .errors import IllegalActionError
from .events import Resolution


@runtime_checkable
class RuleBook(Protocol):
    key: str
    title: str
    rule_book: str
    illegal: type[IllegalActionError]

    def new_battle(self, setup: Mapping[str, Any], dice: Any) -> Any: ...
    def acting_side(self, state: Any) -> int | None: ...
    def automatic_step(self, state: Any, dice: Any) -> Resolution: ...
    def legal_actions(self, state: Any) -> tuple[Any, ...]: ...
    def check(self, state: Any, action: Any) -> None: ...
    def apply(self, state: Any, action: Any, dice: Any) -> Resolution: ...
    def doctrine_action(self, state: Any) -> Any: ...
    def is_over(self, state: Any) -> bool: ...
    def outcome(self, state: Any) -> dict[str, Any]: ...
    def to_json(self, action: Any) -> dict[str, Any]: ...
    def from_json(self, data: Any) -> Any: ...
    def check_owner(self, state: Any, action: Any, seat: int) -> None: ...
    def simulate(self, state: Any, dice: Any) -> Any: ...


def battle_result(winner: int | None, ships: Sequence[Mapping[str, Any]], over: bool = True,
                  **extra: Any) -> dict[str, Any]:
    return {"winner": winner, "holder": winner, "over": over, "ships": [dict(s) for s in ships], **extra}


def result_winner(result: Mapping[str, Any]) -> int | None:
    """The winning side of a stored result, whichever key it was stored under."""
    if "winner" in result:
        return result["winner"]
    return result.get("holder")


class Book:
    """A ``RuleBook`` over a book's ``PlayRules`` (``play``). Subclasses set ``key``, ``title``,
    ``rule_book``, ``play`` and implement ``legal_actions``, ``check`` and ``choose``."""

    key = ""
    title = ""
    rule_book = ""
    play: Any = None  # tactical.rules.play.PlayRules
    max_steps: int | None = None  # the simulate loop's safety stop (None: the book always ends)

    @property
    def illegal(self) -> type[IllegalActionError]:
        return self.play.illegal

    # --- what the book implements ------------------------------------------------------------

    def legal_actions(self, state: Any) -> tuple[Any, ...]:
        raise NotImplementedError

    def check(self, state: Any, action: Any) -> None:
        raise NotImplementedError

    def choose(self, state: Any) -> Any:
        """The doctrine's own choice for the acting side (may be refused: see ``instead``)."""
        raise NotImplementedError

    def instead(self, state: Any) -> Any:
        """What the doctrine does when the engine refuses its choice: the first legal action."""
        return self.legal_actions(state)[0]

    def result(self, state: Any) -> dict[str, Any]:
        """The book's own result JSON (``play.result``), normalised by ``outcome``."""
        return self.play.result(state)

    def sample_setup(self, rng: Any) -> dict[str, Any]:
        """A small battle's set-up, drawn with ``rng`` (a ``random.Random`` the caller seeds;
        rule books never import ``random``): the contract test's and the benches' battles."""
        raise NotImplementedError

    def snapshot(self, state: Any) -> Any:
        """A value equal for equal states, comparable with ``==`` and ``repr`` (the contract
        test's "changes nothing" and "the same state"); the state itself by default."""
        return state

    def plant_hidden(self, state: Any, seat: int) -> Iterable[Any]:
        """Copies of ``state`` with one more unit hidden from ``seat`` (the contract test)."""
        return ()

    def probe_actions(self, state: Any, seat: int) -> Iterable[dict[str, Any]]:
        """Action JSON ``seat`` might try (the contract test's refusal probes)."""
        return ()

    # --- the protocol, from the hooks --------------------------------------------------------

    def new_battle(self, setup: Mapping[str, Any], dice: Any) -> Any:
        return self.play.initial_state(setup, dice)

    def acting_side(self, state: Any) -> int | None:
        return self.play.acting_side(state)

    def is_over(self, state: Any) -> bool:
        return self.play.is_over(state)

    def automatic_step(self, state: Any, dice: Any) -> Any:
        return self.play.automatic_step(state, dice)[0]

    def apply(self, state: Any, action: Any, dice: Any) -> Any:
        return self.play.apply(state, action, dice)

    def doctrine_action(self, state: Any) -> Any:
        return fallback(state, self.choose(state), check=self.check, instead=self.instead)

    def outcome(self, state: Any) -> dict[str, Any]:
        raw = dict(self.result(state))
        winner = result_winner(raw)
        raw.setdefault("over", self.is_over(state))
        return battle_result(winner, raw.pop("ships", ()), raw.pop("over"),
                             **{k: v for k, v in raw.items() if k not in ("winner", "holder")})

    def to_json(self, action: Any) -> dict[str, Any]:
        return self.play.action_json(action)

    def from_json(self, data: Any) -> Any:
        return self.play.parse_action(data)

    def check_owner(self, state: Any, action: Any, seat: int) -> None:
        self.play.check_owner(state, action, seat)

    def simulate(self, state: Any, dice: Any) -> Any:
        return play_out(state, dice, over=self.is_over, acting=self.acting_side, automatic=self.automatic_step,
                        choose=self.doctrine_action, apply=self.apply, instead=self.instead,
                        max_steps=self.max_steps)


__all__ = ["Book", "RuleBook", "battle_result", "result_winner"]
