"""What a converter reads of a campaign layer's battle and gives back (pure Python): the Event
Horizon battle setup a converter turns into its book's setup, the ship or unit map it leaves under
``converted`` for the result to come back, and the parts of the result back every book shares
(docs/architecture.md, "How to add a rule book", step 15)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
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


def eh_ship_json(ship: Any, number: int) -> dict:
    """An Event Horizon ship value (``CampaignShip``, a what-if ``TrialShip``: its ``design``,
    ``damage``, ``hero_crew`` and ``name``) as a battle setup's ship JSON with id ``number``, the
    entry a converter reads (``eh_entries``); what-if and the fairness bench build their fleets so."""
    return {"id": number, "name": ship.name or ship.design.name, "design": ship.design.to_dict(),
            "damage": ship.damage.to_json(), "hero_crew": ship.hero_crew}


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


def converted_units(book_setup: Mapping[str, Any]) -> dict[int, tuple[int, str]]:
    """The book's ship id → (seat, CAM unit uid), as a CAM converter recorded it under
    ``converted["units"]``."""
    units = (book_setup.get("converted") or {}).get("units", {})
    return {int(k): (int(v[0]), str(v[1])) for k, v in units.items()}


def cam_crippled(cam: Mapping[str, Any]) -> set[tuple[int, str]]:
    """The (seat, uid) of every CAM unit that entered the battle crippled (000 5.7: it cannot be
    crippled twice)."""
    return {(int(seat), u["uid"]) for seat, side in (cam.get("sides") or {}).items()
            for u in side.get("units") or [] if u.get("crippled")}


def cam_fates(book_setup: Mapping[str, Any], result: Mapping[str, Any]
              ) -> Iterator[tuple[Mapping[str, Any], tuple[int, str]]]:
    """Each of a book result's ships that stands for a CAM unit (``converted_units``), in the
    result's order, with the unit's (seat, uid); any other ship is passed over."""
    units = converted_units(book_setup)
    for ship in result.get("ships") or []:
        key = units.get(int(ship["ship"]))
        if key is not None:
            yield ship, key


CAM_MARKS = ("destroyed", "crippled", "left")


def cam_result(result: Mapping[str, Any], marks: Iterable[tuple[str, int, str]], *, book: str,
               first: str = "winner") -> dict:
    """The CAM result a book's battle comes back as (``tactical/hosts/cam/converted.py``
    ``apply_to_cam`` records it): for each of ``CAM_MARKS`` each seat's units (key the seat as a
    string) in the order ``marks`` gives them, ``(mark, seat, uid)``; the winner the result's
    ``first`` key names (``winner`` or ``holder``), else the other; the book and its own result."""
    out: dict[str, dict[str, list[str]]] = {k: {} for k in CAM_MARKS}
    for mark, seat, uid in marks:
        out[mark].setdefault(str(seat), []).append(uid)
    other = "holder" if first == "winner" else "winner"
    return {"winner": result.get(first, result.get(other)), **out, "book": book, "book_result": dict(result)}


def lose_costliest(fitted: Mapping[str, int], lost: Sequence[str], count: int, cost: Callable[[str], float],
                   spared: Collection[str] = ()) -> tuple[str, ...]:
    """``lost`` and ``count`` more systems of ``fitted`` (key → how many), each the costliest
    still fitted (``cost(key)``; ties in ``fitted``'s order), never one of ``spared``; fewer when
    none is left. A lost key ``fitted`` does not hold counts for nothing (rulings XC9, XC25, XC35,
    XC45: an Event Horizon armament critical or share of weapons lost, costliest first)."""
    left = dict(fitted)
    for key in lost:
        if key in left:
            left[key] -= 1
    order = sorted((k for k in left if k not in spared), key=lambda k: -cost(k))
    out = list(lost)
    for _ in range(count):
        key = next((k for k in order if left[k] > 0), None)
        if key is None:
            break
        left[key] -= 1
        out.append(key)
    return tuple(out)


@dataclass(frozen=True)
class Survived:
    """What became of an Event Horizon ship a book's battle did not destroy: its fate in the layer's
    words (``survived``, ``warped_out``, ``captured``), the damage it carries (JSON), who captured
    it, and the seat its survival keeps on the field (None: it keeps none there)."""

    fate: str
    damage: Any
    holds: int | None
    captured_by: int | None = None


def eh_result(eh_setup: Mapping[str, Any], book_setup: Mapping[str, Any], result: Mapping[str, Any], *,
              book: str, survivor: Callable[[Mapping[str, Any], int, Mapping[str, Any]], Survived],
              damage: Any) -> dict:
    """A book's result as the Event Horizon result (docs/battles.md "Result"): each of the
    result's ships mapped back (``converted_ships``; ships the setup does not know are passed
    over, each counted once), a destroyed one destroyed, any other what ``survivor(fate, seat,
    ship)`` makes of it; a ship the result does not name was never on the table and survived as
    it came (its damage JSON read and written again by ``damage``, the layer's damage type with
    ``from_json``/``to_json``: Event Horizon's ``Damage``). The winner (``winner``, else
    ``holder``) holds the field if a ship kept him there."""
    by_book, ships = converted_ships(book_setup), eh_ships(eh_setup)
    out, kept = [], set()
    for fate in result.get("ships") or []:
        eh_id = by_book.get(int(fate["ship"]))
        if eh_id is None or eh_id not in ships:
            continue
        seat, ship = ships.pop(eh_id)
        if fate["fate"] == "destroyed":
            out.append({"ship": eh_id, "fate": "destroyed", "damage": None, "captured_by": None})
            continue
        got = survivor(fate, seat, ship)
        out.append({"ship": eh_id, "fate": got.fate, "damage": got.damage, "captured_by": got.captured_by})
        if got.holds is not None:
            kept.add(got.holds)
    for eh_id, (seat, ship) in sorted(ships.items()):
        carried = damage.from_json(ship.get("damage")).to_json()
        out.append({"ship": eh_id, "fate": "survived", "damage": carried, "captured_by": None})
        kept.add(seat)
    winner = result.get("winner", result.get("holder"))
    holder = winner if winner in kept else None
    return {"holder": holder, "ships": out, "book": book, "book_result": dict(result)}
