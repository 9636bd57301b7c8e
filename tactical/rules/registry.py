"""The registry of tactical resolvers (pure Python).

Every rule book becomes a tactical ruleset behind one resolver interface; each registers a small
record here under its name (``RESOLVERS["eventhorizon"]``). The embedded Event Horizon Quick Play
engine (``tactical.rules.eventhorizon``, issue 5) registers itself as ``"eventhorizon"``, the
Buoyz 'N Da 'Hood engine (``tactical.rules.buoyz``, issue 16) as ``"buoyz"``; it is
imported at the bottom of this module, so looking it up never depends on import order. Its
``resolve(state, dice, max_cards=None)`` plays a deployed battle out with the computer doctrine
and returns the outcome. The auto-resolve odds system is not a tactical resolver.

A record's ``play`` (a ``tactical.rules.play.PlayRules``) is what online play needs of the rule
book — the state from a stored setup, the state codec, legal actions, whose decision it is, the
doctrine, the result, fog of war and the board; ``tactical/play/`` reaches an engine only through
it (``find_play(name)``). None: the rule book resolves battles but has no online play.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tactical.rules.kit import RuleBook
from tactical.rules.play import PlayRules


@dataclass(frozen=True)
class ResolverRecord:
    """One rule book in the registry. ``resolve(state, dice, …)`` plays a deployed battle out
    with the doctrine; ``play`` is what online play asks of it (None: no online play); ``book``
    the ``RuleBook`` every book answers the same way (the contract test, what-if, pickup);
    ``fleets`` what a player may buy for a pickup battle (a ``tactical.hosts.pickup.books.FleetBook``;
    None: not offered) and ``trial`` its what-if battles (a ``tactical.whatif.trial.Trial``;
    None: no what-if)."""

    name: str
    title: str
    rule_book: str
    resolve: Callable[..., Any]
    play: PlayRules | None = None
    book: RuleBook | None = None
    fleets: Any = None
    trial: Any = None


RESOLVERS: dict[str, ResolverRecord] = {}


def register(record: ResolverRecord) -> ResolverRecord:
    if record.name in RESOLVERS:
        raise ValueError(f"a tactical resolver named '{record.name}' is already registered")
    RESOLVERS[record.name] = record
    return record


def find_resolver(name: str) -> ResolverRecord:
    try:
        return RESOLVERS[name]
    except KeyError:
        known = ", ".join(sorted(RESOLVERS)) or "none yet"
        raise ValueError(f"no tactical resolver named '{name}' (registered: {known})") from None


def find_play(name: str):
    """The online-play hooks of the ruleset ``name``; ValueError if it has none."""
    record = find_resolver(name)
    if record.play is None:
        raise ValueError(f"the tactical ruleset '{name}' cannot be played online")
    return record.play


def books() -> list[RuleBook]:
    """Every registered ``RuleBook``, by name."""
    return [RESOLVERS[n].book for n in sorted(RESOLVERS) if RESOLVERS[n].book is not None]


def playable() -> list[ResolverRecord]:
    """The rulesets that can be played online, by name."""
    return [RESOLVERS[n] for n in sorted(RESOLVERS) if RESOLVERS[n].play is not None]


# Built-in resolvers register themselves when imported (last: they import this module).
from tactical.rules import buoyz as _buoyz  # noqa: E402,F401
from tactical.rules import eventhorizon as _eventhorizon  # noqa: E402,F401
from tactical.rules import mytrek as _mytrek  # noqa: E402,F401
from tactical.rules import printplay as _printplay  # noqa: E402,F401
