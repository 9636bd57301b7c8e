"""Star Sectors record sheets: one ship profile card per page (rule book ``seeds/004_…`` II: CF, DF,
MF, SS, Cargo; the Engine Room's chips — warp power per nacelle, advanced weapon banks, cloaking
devices, mines, dilithium, trilithium; Damage Control, one box per hit of SS with the CF, DF and MF
each hit leaves, IV.F and IV.G; the targeting diagram, IV.D; the price, III), from a battle's Star
Sectors setup, the house roster's cards and converted ships included (issue 31; their notes say
what each layer's ship became, rulings XC41–XC51). Pure: an HTML string on
``tactical.rules.kit.sheets``."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from tactical.rules.kit.sheets import boxes, document, row

from .cards import COMMAND_CREW_COST, ROSTER, WEAPONS, Card, card_from_json

DIAGRAMS = {"none": "none (no combat factor)", "all": "all round (360°)",
            "front": "front (the three forward hex sides)", "bow": "bow (straight ahead, widening with range)"}


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _card(raw: Any) -> Card:
    if isinstance(raw, str):
        return ROSTER[raw]
    return card_from_json(raw)


def _damage_track(c: Card) -> str:
    """IV.F/IV.G: one box per hit the shield takes, each with the CF/DF/MF it leaves (wrapping
    to the sheet's width, a phone's too)."""
    cells = []
    for hit in range(1, c.ss + 1):
        left = c.ss - hit
        after = (f"{max(0, c.cf - hit)}/{max(0, c.df - hit)}/{max(0, min(c.mf, left))}" if left else "destroyed")
        cells.append(f'<span><span class="box"></span> {hit}: {after}</span>')
    return ('<span class="notes">Hit: the CF/DF/MF left after it.</span><br>'
            '<span class="boxes">' + " ".join(cells) + "</span>")


def profile_card(entry: Mapping[str, Any] | str, side_name: str, notes: list[str] | None = None) -> str:
    raw = entry.get("card") if isinstance(entry, Mapping) else entry
    c = _card(raw)
    crew = bool(entry.get("crew")) if isinstance(entry, Mapping) else False
    cargo = {k: int(entry.get(k, 0)) for k in ("mines", "dilithium", "trilithium")} if isinstance(entry, Mapping) \
        else {}
    banks = ", ".join(f"{b} ({WEAPONS[b]})" for b in c.banks) or "none"
    price = f"{_n(c.points, 'point')} (004 III)" + (f" + command crew {COMMAND_CREW_COST}" if crew else "")
    room = [f"Warp power: {boxes(c.nacelles)} ({c.nacelles} nacelles)" if c.nacelles else "Warp power: none",
            f"Bank charges: {boxes(len(c.banks))}" if c.banks else "Bank charges: none",
            f"Cloaks: {boxes(c.cloaks)}" if c.cloaks else "Cloaks: none"]
    room += [f"{k.title()}: {boxes(v)}" for k, v in cargo.items() if v]
    rows = [
        row("CF / DF / MF / SS", f"<b>{c.cf}</b> / <b>{c.df}</b> / <b>{c.mf}</b> / <b>{c.ss}</b>"),
        row("Cargo / hull", f"{_n(c.cargo, 'item')} · hull {c.hull} hex{'es' if c.hull > 1 else ''} (ruling SS4)"),
        row("Targeting diagram", escape(DIAGRAMS.get(c.arc, c.arc))),
        row("Advanced weapons", escape(banks)),
        row("Price", escape(price)),
        row("Command crew", "yes: Command, Helm, Engineering, Science or Tactical each turn (VII.B)"
            if crew else "none"),
        row("Engine room", "<br>".join(room)),
        row("Damage control (IV.F)", _damage_track(c)),
    ]
    return (f'<section class="sheet"><h2>{escape(c.name)}</h2>'
            f'<p class="sub">{escape(side_name)} · Star Sectors profile card (004 II)</p>'
            f"<table>{''.join(rows)}</table>"
            + (f'<p class="notes">{escape(" ".join(notes))}</p>' if notes else "")
            + "</section>")


def record_sheets(setup: Mapping[str, Any], title: str = "Star Sectors profile cards", nonce: str = "",
                  back: tuple[str, str] | None = None) -> str:
    """One profile card per page, every ship of the setup (a roster key or a card, with its
    command crew and cargo), numbered as ``new_battle`` numbers them."""
    notes = (setup.get("converted") or {}).get("notes") or {}
    sheets, n = [], 0
    sides = setup.get("sides") or {}
    for seat in sorted(sides, key=int):
        side = sides[seat] or {}
        for entry in side.get("ships") or []:
            n += 1
            sheets.append(profile_card(entry, side.get("name") or f"Side {seat}", notes.get(str(n))))
    return document(title, sheets, "Each ship's profile card; tick a Damage Control box per hit, and the "
                    "Engine Room's chips as they are charged and spent.", nonce=nonce, back=back)


__all__ = ["profile_card", "record_sheets"]
