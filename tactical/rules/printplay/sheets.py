"""Print&Play record sheets: one dashboard per page (rule book ``seeds/001_…`` "Dashboards":
class, type, points, shields per side with the bracket, hull, impulse, sensors, WPS, ECM,
ablative armour, emergency power, abilities and the weapons table with Qty, Hit, Dmg, Range, Arc,
Extra), from a battle's Print&Play setup (``play.setup_for``), converted ships included (issue
31; their notes say what each layer's ship became, rulings XC19–XC30). Pure: an HTML string on
``tactical.rules.kit.sheets``; the tracks are boxes to tick (shields per side, hull, ablative,
emergency power) and the tokens of 001 Tokens are listed to mark."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from tactical.rules.kit.sheets import boxes, document, row

from .dashboards import SIDES, Dashboard
from .state import dashboard_of


def _track(count: int, per_line: int = 30) -> str:
    """Boxes for a long track (hull up to 120), in lines of ``per_line`` so a page holds it."""
    out = []
    while count > 0:
        out.append(boxes(min(per_line, count)))
        count -= per_line
    return "<br>".join(out) or "none"


def _kind(w) -> str:
    """001 Attack: a cannon's or torpedo's hit is taken whole by the shields; torpedoes are secondaries."""
    return {"cannon": "cannon (absorbed whole)", "torpedo": "secondary"}.get(w.kind, "")


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def dashboard_sheet(dash: Dashboard, side_name: str, ship_name: str = "") -> str:
    shields = "<br>".join(f"{side.title()} {value}: {_track(value, 30)}" for side, value in zip(SIDES, dash.shields))
    weapons = "".join(
        f"<tr><td>{escape(w.name)}</td><td>{w.qty}</td><td>+{w.hit}</td><td>{w.dmg}</td><td>{w.range}\"</td>"
        f"<td>{w.arc}</td><td>{escape(', '.join(x for x in (w.extra(), _kind(w)) if x))}</td></tr>"
        for w in dash.weapons)
    rows = [
        row("Shields (bracket)", f"{'/'.join(str(s) for s in dash.shields)} ({dash.shield_max})<br>{shields}"),
        row(f"Hull {dash.hull}", _track(dash.hull) + '<br><span class="notes">Emergency power from 50%: '
            f'{dash.hull // 2} or less.</span>'),
        row("Impulse", f"{dash.impulse}\""),
        row("Sensors / WPS / ECM", f"{_signed(dash.sensors)} / {_signed(dash.wps)} / {_signed(dash.ecm)}"),
        row("Ablative", _track(dash.ablative) if dash.ablative else "none"),
        row("Emergency Power", boxes(dash.emergency) if dash.emergency else "none"),
        row("Ship Abilities", escape(", ".join(a.title() for a in dash.abilities) or "None")),
        row("Tokens (001 Tokens)", "Torpedo: red □ green □ · Power: red □ green □ · Activated □"),
    ]
    source = "the book's dashboard" if dash.source == "book" else "site dashboard (ruling PP2)"
    title = ship_name or dash.name
    return (f'<section class="sheet"><h2>{escape(title)}</h2>'
            f'<p class="sub">{escape(side_name)} · Class {escape(dash.name)} · {escape(dash.type)} · '
            f"{dash.points} points · {escape(dash.faction)} · Print&amp;Play {source} (001 Dashboards)</p>"
            f"<table>{''.join(rows)}</table>"
            "<table><tr><th>Weapons</th><th>Qty</th><th>Hit</th><th>Dmg</th><th>Range</th><th>Arc</th>"
            f"<th>Extra</th></tr>{weapons}</table>"
            + (f'<p class="notes">{escape(dash.notes)}</p>' if dash.notes else "") + "</section>")


def record_sheets(setup: Mapping[str, Any], title: str = "Star Trek Print&Play record sheets", nonce: str = "",
                  back: tuple[str, str] | None = None) -> str:
    """One dashboard per page, every ship of the setup (a stored ship ``{"dash": …}``, a roster
    key or a dashboard's JSON)."""
    sheets = []
    for seat, side in (setup.get("sides") or {}).items():
        for entry in side.get("ships") or []:
            name = entry.get("name", "") if isinstance(entry, Mapping) else ""
            sheets.append(dashboard_sheet(dashboard_of(entry), side.get("name") or f"Side {seat}", name))
    return document(title, sheets, "Each ship's dashboard, as the battle's rule book prints it; tick the boxes "
                    "as shields, hull, ablative armour and emergency power go.", nonce=nonce, back=back)


__all__ = ["dashboard_sheet", "record_sheets"]
