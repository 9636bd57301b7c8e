"""What a step did: its events, with fog of war decided where each is made (pure Python).

``Event(kind, text, data={}, sides=(), public=True)``
    One line of the battle log. ``kind`` is a short machine word (``"move"``, ``"fire"``),
    ``text`` the English line, ``data`` the JSON-able facts behind it. Fog of war is set by the
    engine *where the event is made*, never guessed later from its text: ``public`` events are
    seen by every side; a private one (``public=False``) by the ``sides`` listed only (a ship's
    hidden movement under its stealth field: ``Event("move", …, sides=(ship.side,),
    public=False)``). ``private(kind, text, sides, **data)`` and ``public(kind, text, **data)``
    build them.
``visible_to(event, side)``
    Whether ``side`` may read it (``side`` None: the moderator, or anyone after the battle).
``visible(events, side)``
    The events of ``events`` that ``side`` may read, in order.
``Resolution(state, events)``
    What ``apply``/an automatic step returns: the state after the step and the events it made.
``EventLog``
    Collects a step's events while it resolves (``log.add(kind, text, sides=(), public=True,
    **data)``), then ``log.resolution(state)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    """Something that happened, for the battle log. ``sides`` see it; ``public`` events are
    seen by everyone."""

    kind: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)
    sides: tuple[int, ...] = ()
    public: bool = True


def public(kind: str, text: str, **data: Any) -> Event:
    return Event(kind, text, data)


def private(kind: str, text: str, sides: Iterable[int], **data: Any) -> Event:
    """An event only ``sides`` may read."""
    return Event(kind, text, data, tuple(sides), False)


def visible_to(event: Event, side: int | None) -> bool:
    return side is None or event.public or side in event.sides


def visible(events: Iterable[Event], side: int | None) -> list[Event]:
    return [e for e in events if visible_to(e, side)]


@dataclass(frozen=True)
class Resolution:
    """One step resolved: the state after it and the events it made."""

    state: Any
    events: tuple[Event, ...] = ()


class EventLog:
    """A step's events as it resolves them."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def add(self, kind: str, text: str, sides: tuple[int, ...] = (), public: bool = True, **data: Any) -> None:
        self.events.append(Event(kind, text, data, tuple(sides), public))

    def resolution(self, state: Any) -> Resolution:
        return Resolution(state, tuple(self.events))


__all__ = ["Event", "EventLog", "Resolution", "private", "public", "visible", "visible_to"]
