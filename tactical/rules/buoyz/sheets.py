"""Buoyz 'N Da 'Hood record sheets: one SD per page (rule book ``seeds/000_…`` 1.5 "Ship
Descriptions (SDs)"), from a battle's Buoyz setup (``play/setup.py``), converted ships included
(issue 31). Pure: an HTML string (``tactical.rules.kit.sheets``)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from tactical.rules.kit.sheets import boxes, document, row

from .play.setup import entry_sd

ARCS = ("Fore", "Port", "Starboard", "Aft")


def sd_sheet(sd, side_name: str) -> str:
    weapons = "".join(f"<tr><td>{escape(w.name)}</td><td>{w.count}</td><td>{escape(w.arc or '360°')}</td></tr>"
                      for w in sd.main) or "<tr><td colspan=3>none</td></tr>"
    shields = " · ".join(f"{a} {v} {boxes(v)}" for a, v in zip(ARCS, sd.shields))
    rows = [
        row(
            "Speed / Turning", "N/A (station or base)" if sd.speed is None else f'{sd.speed}" / {sd.turning}'
        ),
        row("Target Size", str(sd.target_size)),
        row("Shields", shields),
        row(
            f"Hull {sd.hull}/{sd.crippled_at}",
            boxes(sd.hull, line_after=sd.hull - sd.crippled_at if sd.crippled_at else None)
            + (
                '<br><span class="notes">Crippled (5.7) when the thick line is passed.</span>'
                if sd.crippled_at
                else ""
            ),
        ),
        row("Command", str(sd.command)),
        row(
            "AC", f"{sd.ac} {boxes(sd.ac)}" + (f" (capacity {sd.ac_capacity} more)" if sd.ac_capacity else "")
        ),
        row("Special Abilities", escape(", ".join(sd.special_abilities) or "none")),
        row("Secondary / Close Defence", f"{sd.secondary} / {sd.close_defence}"),
        row("Criticals (5.8)", "Armament " + boxes(3) + " Motive " + boxes(3) + " Shields " + boxes(3)),
    ]
    return (f'<section class="sheet"><h2>{escape(sd.name)}</h2>'
            f'<p class="sub">{escape(side_name)} · {sd.ship_class.value} · {sd.points} CAM points · '
            f"Buoyz 'N Da 'Hood SD (000 1.5)</p>"
            f"<table>{''.join(rows)}</table>"
            f"<table><tr><th>Main weapon</th><th>Dice</th><th>Arc</th></tr>{weapons}</table>"
            f'<p class="notes">{escape(sd.notes)}</p></section>')


def record_sheets(setup: Mapping[str, Any], title: str = "Buoyz 'N Da 'Hood record sheets", nonce: str = "",
                  back: tuple[str, str] | None = None) -> str:
    sheets = []
    for seat, side in (setup.get("sides") or {}).items():
        for entry in side.get("ships") or []:
            sd = entry_sd(entry.get("sd") if isinstance(entry, Mapping) else entry)
            sheets.append(sd_sheet(sd, side.get("name") or f"Side {seat}"))
    return document(title, sheets, "Each ship's SD, as the battle's rule book prints it.", nonce=nonce, back=back)


__all__ = ["record_sheets", "sd_sheet"]
