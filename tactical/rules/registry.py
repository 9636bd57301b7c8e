"""The registry of tactical resolvers (pure Python).

Every rule book becomes a tactical ruleset behind one resolver interface; each registers a small
record here under its name (``RESOLVERS["eventhorizon"]``). No resolver is registered yet: the
embedded Event Horizon engine and the auto-resolve odds system arrive with their own issues.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ResolverRecord:
    name: str
    title: str
    rule_book: str
    resolve: Callable[..., Any]


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
