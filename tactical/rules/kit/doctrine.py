"""The computer doctrine's safety net and the loop that plays a battle out (pure Python).

``fallback(state, action, *, check, instead)``
    ``action`` if ``check(state, action)`` accepts it, else ``instead(state)``. A doctrine is a
    heuristic and may propose something the engine refuses; whoever hands its choice to
    ``apply`` (online play when a side is late, the simulate loop) passes it through here, so a
    computer side never stalls and never gets a refusal. ``instead`` must return an action the
    engine accepts whenever the battle is not over ("end this activation", "pass", the first
    legal action).
``play_out(state, dice, *, over, choose, apply, acting=None, automatic=None, instead=None,
strict=False, max_steps=None)``
    The simulate loop every book shares: until ``over(state)``, take the automatic step
    (``automatic(state, dice)``, e.g. draw a card) when ``acting(state)`` is None, else
    ``apply(state, choose(state), dice)``; when ``apply`` refuses the choice (an
    ``IllegalActionError``) apply ``instead(state)`` (``strict``: raise). ``max_steps``: raise
    ``RuntimeError`` when the battle has not ended after that many steps. ``apply`` and
    ``automatic`` return a ``Resolution`` (or anything with ``.state``). Returns the last state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import IllegalActionError


def fallback(state: Any, action: Any, *, check: Callable[[Any, Any], None],
             instead: Callable[[Any], Any]) -> Any:
    if action is not None:
        try:
            check(state, action)
            return action
        except IllegalActionError:
            pass
    return instead(state)


def play_out(state: Any, dice: Any, *, over: Callable[[Any], bool], choose: Callable[[Any], Any],
             apply: Callable[[Any, Any, Any], Any], acting: Callable[[Any], Any] | None = None,
             automatic: Callable[[Any, Any], Any] | None = None, instead: Callable[[Any], Any] | None = None,
             strict: bool = False, max_steps: int | None = None) -> Any:
    steps = 0
    while not over(state):
        if max_steps is not None and steps >= max_steps:
            raise RuntimeError(f"the battle did not end in {max_steps} steps")
        steps += 1
        if automatic is not None and acting is not None and acting(state) is None:
            state = automatic(state, dice).state
            continue
        action = choose(state)
        try:
            state = apply(state, action, dice).state
        except IllegalActionError:
            if strict or instead is None:
                raise
            state = apply(state, instead(state), dice).state
    return state


__all__ = ["fallback", "play_out"]
