"""Event Horizon battles and CAM scenarios fought on My Trek V (issue 31; pure Python; rulings
XC31–XC40 in docs/rulings.md).

Two converters, registered as anybook's and xcpp's are (``registry.ConverterRecord``):
``eventhorizon → mytrek`` and ``cam → mytrek``. Each layer ship (an Event Horizon ship, a CAM
unit) becomes **one** My Trek V design priced by the book's own table (002 "Assembling a Fleet":
size, top Hyper speed, force fields, weapon dice, aft weapons, invisibility device, torpedoes,
missiles) and a ship on the grid carrying its damage as hull left and system factors (002 Hull
Damage, System Damage). What the design cannot hold is written in the setup's ``converted``
notes (printed on the ship log) and comes back as it went (XC38).

The rate (XC31): the row a ship takes in each column of the table is chosen from its own numbers,
so the price is the table's; ``MT_PER_BP`` / ``MT_PER_CAM`` are what the sample designs and the
CAM catalogue come to (the tests hold every conversion within ½–2× of them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from campaign.rules.cam.ships import STARTER_CATALOGUE
from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS, WEAPONS, ShipType
from campaign.rules.eventhorizon.designs import Design as EHDesign
from campaign.rules.eventhorizon.economy import NO_DAMAGE, Damage
from tactical.rules.kit import layers

from . import tables as T
from .fleets import design_json
from .state import Design

LAYER_EH, LAYER_CAM, BOOK = "eventhorizon", "cam", "mytrek"
RULING_EH = "site rulings XC31–XC35 (Event Horizon ships on My Trek V)"
RULING_CAM = "site rulings XC31, XC36–XC40 (CAM units on My Trek V)"
FULL = T.MAX_PER_SYSTEM  # a system at III (002 System Damage)

# XC32: Event Horizon's numbers in the table's columns.
EH_SIZE = ((12, "A"), (9, "B"), (7, "C"), (5, "D"), (0, "E"))  # hull at least → size
DICE_BY_POINTS = ((12, 9), (9, 5), (7, 4), (5, 3), (3, 2), (0, 1))  # damage points at least → dice
EH_POINTS = {
    "laser_bank": 1,
    "particle_accelerator": 2,
    "emp_cannon": 3,
    "guided_missile_bay": 3,
    "fighter_bay": 1,
}
# XC32: a fighter bay is also the ship's missiles (002 Special Weapons, priced on their own): it
# counts half in the weapon dice, as CAM's AC flights do (XC36).
EH_HALF = frozenset({"fighter_bay"})
# XC32 (changed): the force field type in proportion to the generator's strength, 8 (the strongest 003
# allows) = V (the strongest 002 prices): 4, 5 = III; 6, 7 = IV; 8 = V (rounded half up).
FF_TYPES, FF_STRONGEST = 5, 8
# XC36: CAM's numbers.
CAM_SHIELD_LESS = 1  # force field type = the mean of the four shields less 1 (000 5.6: a shield of 1 stops nothing)
CAM_SIZE = ((20, "A"), (10, "B"), (6, "C"), (3, "D"), (2, "E"), (0, "F"))
CAM_DICE = ((10, 9), (8, 5), (6, 4), (4, 3), (2, 2), (0, 1))  # attack dice at least → weapon dice


def _row(table, value: int):
    return next(out for low, out in table if value >= low)


def _up(dice: int) -> int:
    """The next row up of the Max. Damage column (XC34: a hero crew)."""
    i = T.WEAPON_DICE.index(dice)
    return T.WEAPON_DICE[max(0, i - 1)]


def eh_weapon_value(counts: Mapping[str, int]) -> int:
    """XC32: the mean of a design's weapon systems and their damage points (003 Hit Locations:
    every hit past a force field rolls on the chart, a hull hit costs the weapon's damage
    points and the rest a system whatever they are), rounded half up; a fighter bay counts
    half (it is also the ship's missiles)."""
    systems = points = 0.0
    for key, n in counts.items():
        if key in EH_POINTS:
            share = n / 2 if key in EH_HALF else n
            systems += share
            points += share * EH_POINTS[key]
    return math.floor((systems + points) / 2 + 0.5)


def eh_field_type(strength: int) -> int:
    """XC32: 002's force field type of a generator of 003 strength ``strength`` (4-8), in proportion:
    the grid's field is type x power, where 003's strength is what each generator absorbs, so the
    type keeps the strengths' ratios (7 : 5 becomes IV : III, where strength - 3 made it IV : II)."""
    return math.floor(strength * FF_TYPES / FF_STRONGEST + 0.5)


def _factor(lost: float) -> int:
    """A system's factor from the share of it lost (002 System Damage: III … off-line)."""
    return max(0, FULL - round(FULL * min(1.0, lost)))


# --- Event Horizon ships (XC32–XC35) ----------------------------------------------------------


def eh_design(
    design: EHDesign, damage: Damage = NO_DAMAGE, *, hero_crew: bool = False, name: str = ""
) -> Design:
    """XC32–XC34: the My Trek V design of an Event Horizon ship: size by hull, top Hyper =
    engine (a station sub-light), force field type in proportion to the generator's strength
    (``eh_field_type``; +1 improved), weapon dice by
    the mean of its weapon systems and their damage points (``eh_weapon_value``), every armed
    ship aft weapons (003 "Arcs of fire are irrelevant"), guided missiles torpedoes, fighters
    missiles, a working stealth field the invisibility device (XC33); a hero crew one row up
    the Max. Damage column and one force field type up (XC34)."""
    counts = dict(design.weapon_counts)
    points = sum(EH_POINTS.get(k, 0) * n for k, n in counts.items())
    dice = _row(DICE_BY_POINTS, eh_weapon_value(counts))
    station = design.ship_type is ShipType.SPACE_STATION
    fields = (
        0
        if design.force_field is None
        else max(1, min(5, eh_field_type(design.force_field) + (1 if design.improved_force_fields else 0)))
    )
    if hero_crew:  # XC34: 003 Lock On and Force Fields (a hero crew's +1 and regeneration on 4+)
        dice = _up(dice)
        fields = min(5, fields + 1) if fields else 0
    return Design(
        (name or design.name)[:40],
        _row(EH_SIZE, design.hull),
        0 if station else max(1, min(10, design.engine)),
        fields,
        dice,
        aft=points > 0,
        invisibility=bool(design.stealth_field and not damage.stealth),  # XC33: 002's own device
        torpedoes=counts.get("guided_missile_bay", 0) > 0,
        missiles=counts.get("fighter_bay", 0) > 0,
    )


def eh_notes(design: EHDesign, damage: Damage, hero_crew: bool) -> list[str]:
    """XC35: what the design cannot hold, said on the ship log."""
    notes = [f"Event Horizon {design.ship_type.label} '{design.name}' ({design.bp} BP)."]
    if hero_crew:
        notes.append("Hero crew: weapon dice one row up the Max. Damage column, force fields one type up (XC34).")
    if design.stealth_field and not damage.stealth:
        notes.append("Stealth field: the invisibility device (XC33).")
    if design.stealth_field and damage.stealth:
        notes.append("Stealth field inoperable (carried damage): no invisibility device (XC33).")
    for flag, text in (
        (design.nanobot_skin, "Nanobot skin"),
        (design.ai_supercomputer, "AI Supercomputer"),
        (design.core_containment_capacitor, "Core Containment Capacitor"),
        (design.weapon_counts.get("planetary_bombardment_array", 0) > 0, "Planetary Bombardment Array"),
        (design.boarding_parties > damage.boarding_parties, "boarding parties"),
        (design.cargo > 0, "cargo"),
    ):
        if flag:
            notes.append(
                f"{text}: no My Trek V equivalent; carried without effect, comes back as it went (XC35)."
            )
    return notes


def eh_entry(ship: Mapping[str, Any]) -> dict:
    """XC33: one Event Horizon ship as a converted set-up entry: its design and the damage it
    carries as hull left (in proportion) and system factors (engine, generators, weapons lost)."""
    design, damage = EHDesign.from_dict(ship["design"]), Damage.from_json(ship.get("damage"))
    mt = eh_design(
        design, damage, hero_crew=bool(ship.get("hero_crew")), name=ship.get("name") or design.name
    )
    systems = max(1, design.weapon_systems)
    return {
        "design": design_json(mt),
        "name": mt.name,
        "hull": max(1, math.ceil(mt.hull * (design.hull - damage.hull) / max(1, design.hull))),
        "engines": _factor(damage.engine / max(1, design.engine)),
        "fields": _factor(damage.force_field_generators / 4),
        "weapons": _factor(len(damage.weapons) / systems),
        "notes": eh_notes(design, damage, bool(ship.get("hero_crew"))),
    }


def _setup(entries: dict[int, list[dict]], names: dict[int, str], attacker: int, defender: int) -> dict:
    most = max([len(v) for v in entries.values()] + [1])
    sides = {
        str(seat): {
            "name": names[seat],
            "ships": [{k: v for k, v in e.items() if k != "notes"} for e in entries[seat]],
        }
        for seat in entries
    }
    return {
        "sides": sides,
        "width": 24,
        "height": max(16, 2 * most + 2),
        "max_ships": max(6, most),
        "attacker": attacker,
        "defender": defender,
    }


def eh_to_book(eh_setup: Mapping[str, Any]) -> dict:
    """The My Trek V setup of an Event Horizon battle (XC33): the grid (taller for more than
    six ships a side, XC31), which My Trek V ship is which Event Horizon ship under ``converted``
    (ship ids are given side 1 first, in order, as ``fleets.new_battle`` numbers them)."""
    attacker, defender = layers.eh_seats(eh_setup)
    entries, names, mapping, notes = layers.eh_entries(eh_setup, eh_entry)
    setup = _setup(entries, names, attacker, defender)
    setup["converted"] = {
        "layer": LAYER_EH,
        "book": BOOK,
        "ruling": RULING_EH,
        "ships": mapping,
        "notes": notes,
    }
    return setup


def _lose_weapons(design: EHDesign, before: Damage, count: int) -> tuple[str, ...]:
    return layers.lose_costliest(design.weapon_counts, before.weapons, count, lambda k: WEAPONS[k].bp,
                                 spared=("planetary_bombardment_array",))


def eh_carried(design: EHDesign, before: Damage, fate: Mapping[str, Any], full_hull: int) -> Damage:
    """XC35: what a survivor carries back: its hull lost in proportion (rounded up, never the
    last point), engine, generators and weapon systems by the share of the factor lost (never
    less than it carried in)."""
    hull = min(
        design.hull - 1, math.ceil(design.hull * (full_hull - int(fate.get("hull", full_hull))) / full_hull)
    )
    engines, fields, weapons = (list(fate.get("systems") or [FULL] * 3) + [FULL] * 3)[:3]
    lost_weapons = round(design.weapon_systems * (FULL - int(weapons)) / FULL) - len(before.weapons)
    return replace(
        before,
        hull=max(before.hull, hull),
        engine=max(before.engine, min(design.engine - 1, round(design.engine * (FULL - engines) / FULL))),
        force_field_generators=max(before.force_field_generators, round(4 * (FULL - fields) / FULL))
        if design.force_field
        else 0,
        weapons=_lose_weapons(design, before, lost_weapons),
    )


def eh_result_back(
    eh_setup: Mapping[str, Any], book_setup: Mapping[str, Any], result: Mapping[str, Any]
) -> dict:
    """XC35: the My Trek V result as the Event Horizon result: destroyed stays destroyed (002
    Hull Damage); the rest survived with the damage they carry (``eh_carried``). My Trek V has
    no capture and no leaving the board. The winner holds the field (and the hex's world) if a
    ship of his survived."""

    def survivor(fate: Mapping[str, Any], seat: int, ship: Mapping[str, Any]) -> layers.Survived:
        design, before = EHDesign.from_dict(ship["design"]), Damage.from_json(ship.get("damage"))
        full = T.HULL_POINTS[_row(EH_SIZE, design.hull)]
        return layers.Survived("survived", eh_carried(design, before, fate, full).to_json(), holds=seat)

    return layers.eh_result(eh_setup, book_setup, result, book=BOOK, survivor=survivor, damage=Damage)


def eh_fleet(ships) -> list[dict]:
    """The converted entries of Event Horizon ships (``CampaignShip`` or what-if ``TrialShip``)."""
    return [eh_entry(layers.eh_ship_json(s, i)) for i, s in enumerate(ships, 1)]


# --- CAM units (XC36–XC40) --------------------------------------------------------------------


def _has(sd, name: str) -> bool:
    return any(a.lower() == name.lower() for a in sd.special_abilities)


def _torpedo(name: str) -> bool:
    low = name.lower()
    return "torp" in low or "rocket" in low


HANDLED = {"cloak", "carrier", "warp", "impulse", "agile", "shield drain", "fire cloaked"}


def cam_attack(sd) -> int:
    """XC36: a CAM ship's attack dice in the table's sense: its main lines, half its secondary
    battery, and half its drones and AC flights (they are also its missiles), rounded down."""
    drones = sum(w.count for w in sd.main if "drone" in w.name.lower())
    return math.floor(sd.main_dice - drones / 2 + sd.secondary / 2 + sd.ac / 2)


def sd_design(sd, *, name: str = "") -> Design:
    """XC36: the My Trek V design of a CAM roster ship: size by hull, top Hyper = Speed (a
    station sub-light), force field type = the mean of its four shields less one (0–V), Cloak
    the invisibility device, weapon dice by ``cam_attack`` (one row up for Shield Drain and for
    Fire cloaked), a torpedo line torpedoes, drones or AC missiles, a secondary battery or Agile
    aft weapons."""
    dice = _row(CAM_DICE, cam_attack(sd))
    for ability in ("Shield Drain", "Fire cloaked"):
        if _has(sd, ability):
            dice = _up(dice)
    return Design(
        (name or sd.name)[:40],
        _row(CAM_SIZE, sd.hull),
        0 if sd.speed is None else max(1, min(10, sd.speed)),
        max(0, min(5, sum(sd.shields) // len(sd.shields) - CAM_SHIELD_LESS)),
        dice,
        aft=sd.secondary > 0 or _has(sd, "Agile"),
        invisibility=_has(sd, "Cloak"),
        torpedoes=any(_torpedo(w.name) for w in sd.main),
        missiles=sd.ac > 0 or any("drone" in w.name.lower() for w in sd.main),
    )


AC_DESIGN = Design("Attack craft flight", "E", 6, 0, 2, missiles=True)  # XC39
BASE_DESIGN = Design("Planetary Battery", "B", 0, 3, 5, aft=True, torpedoes=True)  # XC39


def unit_entry(unit: Mapping[str, Any]) -> dict | None:
    """XC36–XC39: one CAM unit as a converted set-up entry (a minefield none: not on the grid).
    Crippled (5.7): hull at its crippled line's share, every system at II, no invisibility."""
    from tactical.rules.buoyz.play.setup import sd_from_json

    kind = unit.get("kind")
    if kind == "minefield":
        return None
    if kind in ("ac", "base"):
        d = AC_DESIGN if kind == "ac" else BASE_DESIGN
        return {
            "design": design_json(d),
            "name": unit.get("name") or d.name,
            "hull": d.hull,
            "engines": FULL,
            "fields": FULL,
            "weapons": FULL,
            "notes": [f"CAM {kind} counter as a {d.name} (XC39)."],
        }
    sd = sd_from_json(unit["sd"])
    d = sd_design(sd, name=unit.get("name") or sd.name)
    notes = [f"CAM {sd.ship_class.value} '{sd.name}' ({sd.points} CAM points)."]
    hull, factor = d.hull, FULL
    if unit.get("crippled"):
        d = replace(d, invisibility=False)
        hull = max(1, math.ceil(d.hull * (sd.crippled_at or max(1, sd.hull // 2)) / sd.hull))
        factor = FULL - 1
        notes.append("Crippled (5.7): hull at its crippled line, every system at II, no cloak (XC37).")
    other = [a for a in sd.special_abilities if a.lower() not in HANDLED]
    if other:
        notes.append(
            f"No My Trek V equivalent, carried without effect in this battle: {', '.join(other)} (XC38)."
        )
    return {
        "design": design_json(d),
        "name": d.name,
        "hull": hull,
        "engines": factor,
        "fields": factor,
        "weapons": factor,
        "notes": notes,
    }


def cam_to_book(cam: Mapping[str, Any]) -> dict:
    """XC39: the My Trek V setup of a CAM scenario; which ship is which unit under ``converted``."""
    attacker, defender = int(cam["attacker"]), int(cam["defender"])
    entries, names, units, notes, n = {}, {}, {}, {}, 0
    for seat in sorted((attacker, defender)):
        side = (cam.get("sides") or {}).get(str(seat)) or {}
        entries[seat] = []
        for unit in side.get("units") or []:
            entry = unit_entry(unit)
            if entry is None:
                continue
            n += 1
            entries[seat].append(entry)
            units[str(n)] = [seat, unit["uid"]]
            notes[str(n)] = entry["notes"]
        names[seat] = side.get("name") or f"Seat {seat}"
    setup = _setup(entries, names, attacker, defender)
    setup["converted"] = {
        "layer": LAYER_CAM,
        "book": BOOK,
        "ruling": RULING_CAM,
        "units": units,
        "notes": notes,
    }
    return setup


def cam_result_back(cam: Mapping[str, Any], book_setup: Mapping[str, Any], result: Mapping[str, Any]) -> dict:
    """XC40: the My Trek V result as the CAM result: destroyed stays destroyed; a survivor at
    half its size's hull or less is crippled (5.7; not twice). The winner wins; the other side
    breaks contact (``apply_to_cam`` (tactical/hosts/cam/converted.py) records it)."""
    crippled_in = layers.cam_crippled(cam)
    sizes = {}
    n = 0
    for seat in sorted(int(k) for k in (book_setup.get("sides") or {})):
        for e in book_setup["sides"][str(seat)]["ships"]:
            n += 1
            sizes[n] = T.HULL_POINTS[e["design"]["size"]]
    marks = []
    for ship, (seat, uid) in layers.cam_fates(book_setup, result):
        if ship["fate"] == "destroyed":
            marks.append(("destroyed", seat, uid))
        elif 2 * int(ship.get("hull", 0)) <= sizes[int(ship["ship"])] and (seat, uid) not in crippled_in:
            marks.append(("crippled", seat, uid))
    return layers.cam_result(result, marks, book=BOOK)


def cam_fleet(units: Sequence[Mapping[str, Any]]) -> list[dict]:
    return [e for e in (unit_entry(u) for u in units) if e is not None]


def sheets(book_setup: Mapping[str, Any], **kwargs) -> str:
    from .sheets import record_sheets

    return record_sheets(book_setup, **kwargs)


# XC31: the rate, what the table makes of each layer's own ships (Event Horizon's sample designs,
# CAM's catalogue): My Trek V points per BP and per CAM point.
MT_PER_BP = sum(eh_design(d).points() for d in SAMPLE_DESIGNS) / sum(d.bp for d in SAMPLE_DESIGNS)
MT_PER_CAM = sum(sd_design(sd).points() for sd in STARTER_CATALOGUE.values()) / sum(
    sd.points for sd in STARTER_CATALOGUE.values()
)


def _register() -> None:
    from tactical.rules import registry

    for layer, to_book, back, fleet, rulings in (
        (LAYER_EH, eh_to_book, eh_result_back, eh_fleet, "XC31-XC35"),
        (LAYER_CAM, cam_to_book, cam_result_back, cam_fleet, "XC31, XC36-XC40"),
    ):
        if (layer, BOOK) not in registry.CONVERTERS:
            registry.register_converter(
                registry.ConverterRecord(
                    layer=layer,
                    book=BOOK,
                    to_book=to_book,
                    result_back=back,
                    sheets=sheets,
                    fleet=fleet,
                    rulings=rulings,
                )
            )


__all__ = [
    "AC_DESIGN",
    "BASE_DESIGN",
    "MT_PER_BP",
    "MT_PER_CAM",
    "cam_fleet",
    "cam_result_back",
    "cam_to_book",
    "eh_carried",
    "eh_design",
    "eh_entry",
    "eh_fleet",
    "eh_result_back",
    "eh_to_book",
    "sd_design",
    "sheets",
    "unit_entry",
]

_register()
