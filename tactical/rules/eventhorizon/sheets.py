"""Event Horizon ship record sheets: one ship per page (rule book ``seeds/003_…`` "Star Ship
Design Rules" and the ship's tracks: hull, engine, the four force fields, weapon systems,
boarding parties), from a battle's Event Horizon setup (``play/setup.py``), converted ships
included (issue 31); damage carried is struck through. Pure: an HTML string."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from campaign.rules.eventhorizon.designs import WEAPONS, Design
from campaign.rules.eventhorizon.economy import Damage
from tactical.rules.kit.sheets import boxes, document, row

from .deploy import GENERATOR_LOSS_ORDER

ARCS = ("Forward", "Starboard", "Aft", "Port")  # the engine's arc order (geometry.ARC_NAMES)


def ship_sheet(ship: Mapping[str, Any], side_name: str) -> str:
    design = Design.from_dict(ship["design"])
    damage = Damage.from_json(ship.get("damage"))
    lost_arcs = set(GENERATOR_LOSS_ORDER[:damage.force_field_generators])
    if design.force_field is None:
        fields = "none"
    else:
        fields = "<br>".join(
            f"{a}: {design.force_field} {boxes(design.force_field, design.force_field if i in lost_arcs else 0)}"
            + (" generator lost" if i in lost_arcs else "")
            for i, a in enumerate(ARCS)
        )
    weapons = []
    for key, count in design.weapons:
        gone = damage.weapons.count(key)
        weapons.append(f"<tr><td>{escape(WEAPONS[key].label)}</td><td>{boxes(count, gone)}</td></tr>")
    extras = [
        label
        for flag, label in (
            (design.stealth_field, "Stealth field" + (" (inoperable)" if damage.stealth else "")),
            (design.improved_force_fields, "Improved force fields"),
            (design.nanobot_skin, "Nanobot skin"),
            (design.core_containment_capacitor, "Core Containment Capacitor"),
            (design.ai_supercomputer, "AI Supercomputer"),
            (bool(ship.get("hero_crew")), "Hero crew"),
        )
        if flag
    ]
    rows = [
        row("Hull", boxes(design.hull, damage.hull)),
        row("Engine (squares)", boxes(design.engine, damage.engine)),
        row("Force fields", fields),
        row("Boarding parties", boxes(design.boarding_parties, damage.boarding_parties) if design.boarding_parties
            else "none"),
        row("Systems", escape(", ".join(extras) or "none")),
        row("Cargo", f"{design.cargo} BP" if design.cargo else "none"),
    ]
    table = "".join(weapons) or "<tr><td colspan=2>none</td></tr>"
    return (f'<section class="sheet"><h2>{escape(ship.get("name") or design.name)}</h2>'
            f'<p class="sub">{escape(side_name)} · {escape(design.name)} · {design.ship_type.label} · {design.bp} BP · '
            f"Event Horizon (003 Star Ship Design Rules)</p><table>{''.join(rows)}</table>"
            f"<table><tr><th>Weapon system</th><th>Fitted (struck: destroyed)</th></tr>{table}</table></section>")


def record_sheets(setup: Mapping[str, Any], title: str = "Event Horizon record sheets", nonce: str = "",
                  back: tuple[str, str] | None = None) -> str:
    sheets = [ship_sheet(ship, side.get("name") or f"Empire {seat}")
              for seat, side in (setup.get("sides") or {}).items() for ship in side.get("ships") or []]
    return document(title, sheets, "Each ship's design and its tracks; carried damage is struck through.",
                    nonce=nonce, back=back)


__all__ = ["record_sheets", "ship_sheet"]
