"""What a converter reads of a campaign layer's battle (pure Python): the Event Horizon battle
setup a converter turns into its book's setup, and the ship map it leaves under ``converted``
for the result to come back (docs/architecture.md, "How to add a rule book", step 15)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def eh_seats(eh_setup: Mapping[str, Any]) -> tuple[int, int]:
    """(attacker, defender) of an Event Horizon battle setup."""
    return int(eh_setup["attacker"]), int(eh_setup["defender"])


def eh_side(eh_setup: Mapping[str, Any], seat: int) -> Mapping[str, Any]:
    """Seat ``seat``'s side of an Event Horizon battle setup (empty if it has none)."""
    return (eh_setup.get("sides") or {}).get(str(seat)) or {}


def eh_ships(eh_setup: Mapping[str, Any]) -> dict[int, tuple[int, Mapping[str, Any]]]:
    """Every ship of the battle's two sides by its Event Horizon id: (seat, the ship's JSON)."""
    return {int(s["id"]): (seat, s) for seat in eh_seats(eh_setup)
            for s in eh_side(eh_setup, seat).get("ships") or []}


def converted_ships(book_setup: Mapping[str, Any]) -> dict[int, int]:
    """The book's ship id → the Event Horizon ship id, as the converter recorded it under
    ``converted["ships"]``."""
    return {int(k): int(v) for k, v in (book_setup.get("converted") or {}).get("ships", {}).items()}


def eh_entries(eh_setup: Mapping[str, Any], entry: Callable[[Mapping[str, Any]], dict],
               order: Callable[[dict], Any] | None = None):
    """Each side's ships as the book's entries (``entry(ship)``, a dict with its ``"notes"``), in
    seat order (within a side the layer's order, or sorted by ``order(entry)``, ties in the layer's
    order), numbered 1, 2, … across both sides as the book's ``new_battle`` numbers them.
    Returns (entries by seat, names by seat, book id → Event Horizon id, book id → notes), ids as
    strings (JSON keys)."""
    entries, names, mapping, notes, n = {}, {}, {}, {}, 0
    for seat in sorted(eh_seats(eh_setup)):
        side = eh_side(eh_setup, seat)
        pairs = [(s, entry(s)) for s in side.get("ships") or []]
        if order is not None:
            pairs.sort(key=lambda p: order(p[1]))
        ships = [s for s, _ in pairs]
        entries[seat] = [e for _, e in pairs]
        names[seat] = side.get("name") or f"Empire {seat}"
        for s, e in zip(ships, entries[seat], strict=True):
            n += 1
            mapping[str(n)] = int(s["id"])
            notes[str(n)] = e["notes"]
    return entries, names, mapping, notes
