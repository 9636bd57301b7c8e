"""My Trek V record sheets: one ship log per page (rule book ``seeds/002_…``: the design as
"Assembling a Fleet" prices it — size, top Hyper speed, force field type, weapon dice, aft
weapons, invisibility device, torpedoes, missiles — the hull track with the damage levels of
"Hull Damage" and the power points each gives, the three systems' factors of "System Damage",
and a Phase Zero power table for ten turns), from a battle's My Trek V setup, converted ships
included (issue 31; their notes say what each layer's ship became, rulings XC31–XC40). Pure: an
HTML string on ``tactical.rules.kit.sheets``."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from tactical.rules.kit.sheets import boxes, document, row

from . import tables as T
from .fleets import design_from
from .state import Design

ROMAN = ("off-line", "I", "II", "III", "IV", "V")


def _hull_track(d: Design, hull: int) -> str:
    """The hull boxes in lines of 30, the lost ones struck; the damage levels' floors named."""
    gone = d.hull - hull
    lines, left, start = [], d.hull, 0
    while left > 0:
        n = min(30, left)
        lines.append(boxes(n, max(0, min(n, gone - start))))
        start += n
        left -= n
    floors = ", ".join(
        f"{lvl} from {f} ({T.LEVEL_PP[lvl]} power)" for lvl, f in zip(T.LEVELS, T.LEVEL_FLOORS[d.size])
    )
    return "<br>".join(lines) + f'<br><span class="notes">Levels: {escape(floors)}.</span>'


def _systems(entry: Mapping[str, Any]) -> str:
    out = []
    for system in T.SYSTEMS_NAMES:
        factor = int(entry.get(system, T.MAX_PER_SYSTEM)) if isinstance(entry, Mapping) else T.MAX_PER_SYSTEM
        out.append(f"{system.title()}: {boxes(T.MAX_PER_SYSTEM, T.MAX_PER_SYSTEM - factor)} {ROMAN[factor]}")
    return "<br>".join(out)


def ship_log(entry: Any, side_name: str, notes: list[str] | None = None) -> str:
    given = entry["design"] if isinstance(entry, Mapping) and "design" in entry else entry
    d = design_from(given)
    hull = int(entry.get("hull", d.hull)) if isinstance(entry, Mapping) and "design" in entry else d.hull
    name = (entry.get("name") if isinstance(entry, Mapping) else "") or d.name
    specials = [
        label
        for key, label in (
            ("aft", "Aft weapons"),
            ("invisibility", "Invisibility device"),
            ("torpedoes", "Torpedoes (one shot)"),
            ("missiles", "Missiles (one shot)"),
        )
        if getattr(d, key)
    ]
    speed = "sub-light only" if d.max_hyper == 0 else f"Hyper {d.max_hyper}"
    rows = [
        row("Size / points", f"{escape(d.size)} · {d.points()} points (002 Assembling a Fleet)"),
        row("Top speed", escape(speed)),
        row("Force fields", f"Type {ROMAN[d.fields] if d.fields else 'none'}"),
        row("Weapons", f"{d.dice}d6 at full power"),
        row("Specials", escape(", ".join(specials) or "None")),
        row(f"Hull {d.hull}", _hull_track(d, hull)),
        row("Systems (002 System Damage)", _systems(entry)),
    ]
    power = "".join(
        f"<tr><td>{t}</td><td></td><td></td><td></td><td></td><td></td></tr>" for t in range(1, 11)
    )
    return (
        f'<section class="sheet"><h2>{escape(str(name))}</h2>'
        f'<p class="sub">{escape(side_name)} · My Trek V ship log (002)</p>'
        f"<table>{''.join(rows)}</table>"
        # header cells as <td>: the kit's <th> is a 28%-wide row label, six of them overflow a phone
        "<table><tr><td><b>Turn</b></td><td><b>Eng.</b></td><td><b>Fields</b></td><td><b>Weap.</b></td>"
        f"<td><b>Tr./Inv.</b></td><td><b>Speed</b></td></tr>{power}</table>"
        + (f'<p class="notes">{escape(" ".join(notes))}</p>' if notes else "")
        + "</section>"
    )


def record_sheets(setup: Mapping[str, Any], title: str = "My Trek V ship logs", nonce: str = "",
                  back: tuple[str, str] | None = None) -> str:
    """One ship log per page, every ship of the setup (a design, a roster name or a converted
    entry ``{"design", "hull", "engines", "fields", "weapons"}``), numbered as ``new_battle`` does."""
    notes = (setup.get("converted") or {}).get("notes") or {}
    sheets, n = [], 0
    sides = setup.get("sides") or {}
    for seat in sorted(sides, key=int):
        side = sides[seat]
        ships = side.get("ships") or [] if isinstance(side, Mapping) else side
        label = side.get("name") if isinstance(side, Mapping) else None
        for entry in ships:
            n += 1
            sheets.append(ship_log(entry, label or f"Side {seat}", notes.get(str(n))))
    return document(
        title,
        sheets,
        "Each ship's log, as My Trek V's table prices it; tick the hull and system "
        "boxes as they go and write each turn's Phase Zero power.",
        nonce=nonce, back=back,
    )


__all__ = ["record_sheets", "ship_log"]
