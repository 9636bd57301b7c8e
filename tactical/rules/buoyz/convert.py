"""Event Horizon battles fought on Buoyz 'N Da 'Hood (issue 31; pure Python; rulings XC1–XC9 in
docs/rulings.md).

An Event Horizon campaign whose moderator chose Buoyz fights each battle of a turn on this
engine: ``to_book`` turns the battle's Event Horizon setup (tactical/battles/lifecycle.py's
``setup_for``: each side's ships with their design, the damage they carry and their hero crew)
into a Buoyz setup of custom SDs (``sd_for``), and ``result_back`` turns the Buoyz result into the
Event Horizon result the campaign turn takes (docs/battles.md "Result": each ship destroyed,
captured, warped out or survived with the damage it carries by system; the side holding the
field). Every Event Horizon component becomes something on the SD or is named in the SD's notes
by the ruling that converts it (XC7): nothing is dropped silently.

The point systems (XC1): an Event Horizon ship's worth is its ship type's BP (003 "Ship Type":
Patrol Craft 20 … Star Cruiser 40); Buoyz prices a ship by its class (000 CAM 2.2: DE 3 … BC
15). A ship type becomes the class of the same rank, so a 300 BP fleet of frigates (ten CL, 70
CAM points) meets a 300 BP fleet of destroyers (8.6 CA … ) as the Event Horizon fleets met: each
side's SDs are built from its designs' own numbers (hull, engine, force fields, weapons by BP).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from campaign.rules.cam.ships import MAX_MAIN, MAX_SECONDARY, SD, ShipClass, Weapon, validate_sd
from campaign.rules.eventhorizon.designs import WEAPONS, Design, ShipType
from campaign.rules.eventhorizon.economy import NO_DAMAGE, Damage
from tactical.rules import registry
from tactical.rules.kit import layers

from .play.setup import sd_from_json, sd_to_json, setup_for

RULING = "site rulings XC1–XC9 (Event Horizon ships on Buoyz)"
LAYER = "eventhorizon"
BOOK = "buoyz"

# XC1: ship type -> (class, target size, turning). Ranks match: the book's own SDs put a DE at
# size 5 turning 5, a DD at 4/4, a CL or CA at 3/3, a BC at 3/3, a capital ship at 1-2/2.
TYPE_CLASS: Mapping[ShipType, tuple[ShipClass, int, int]] = {
    ShipType.PATROL_CRAFT: (ShipClass.DE, 5, 5),
    ShipType.CORVETTE: (ShipClass.DD, 4, 4),
    ShipType.FRIGATE: (ShipClass.CL, 3, 3),
    ShipType.DESTROYER: (ShipClass.CA, 3, 3),
    ShipType.STAR_CRUISER: (ShipClass.BC, 2, 2),
    ShipType.SPACE_STATION: (ShipClass.CA, 1, 0),
    ShipType.TRAMP_FREIGHTER: (ShipClass.TP, 4, 3),
    ShipType.BULK_CARRIER: (ShipClass.TP, 3, 2),
    ShipType.STAR_LIFTER: (ShipClass.TP, 1, 2),
}
CARRIER_CLASS = {ShipType.STAR_CRUISER: ShipClass.CV, ShipType.DESTROYER: ShipClass.CVE,
                 ShipType.FRIGATE: ShipClass.CVE}
CARRIER_BAYS = 3  # XC4: three fighter bays or more make a carrier of its type's rank

# XC3: a weapon's attack dice are its BP (Laser Bank 1, Particle Accelerator 2, EMP Cannon 3); a
# Guided Missile Bay (4 BP) is a 2-die drone torpedo (guided, 6"); a Fighter Bay one AC flight.
BEAM_DICE = {"laser_bank": 1, "particle_accelerator": 2, "emp_cannon": 3}
BEAM_NAMES = {"laser_bank": "Laser Bank", "particle_accelerator": "Particle Accelerator", "emp_cannon": "EMP Cannon"}
MISSILE_DICE = 2
MISSILE_NAME = "Guided Missile (Drone Torp)"
# Ruling TC25's order of lost force field generators, as Buoyz shield arcs (fore, port, starboard, aft).
SHIELD_LOSS_ORDER = (3, 1, 2, 0)
# XC2 (changed): shields in proportion to the force field's strength, 8 (the strongest 003 allows) = 6
# (000 1.5: "shields '6' is a limit"): 4 = 3, 5 = 4, 6 and 7 = 5, 8 = 6 (rounded half up).
MAX_SHIELDS, FF_STRONGEST = 6, 8


def _abilities(design: Design, damage: Damage, notes: list[str]) -> list[str]:
    out = ["Warp", "Impulse"]  # XC2: every Event Horizon ship has FTL engines (7.3 Warp)
    if design.stealth_field:
        if damage.stealth:
            notes.append("Stealth field generator inoperable (carried damage): no Cloak (XC6).")
        else:
            out.append("Cloak")  # XC6: 10.0 cloaking
    if design.boarding_parties - damage.boarding_parties > 0:
        out.append("Trans")  # XC6: boarding (11.4) by transporter
        if design.boarding_parties - damage.boarding_parties >= 2:
            out.append("Marines")
    if design.nanobot_skin:
        out.append("Research")  # XC6: a hull that regenerates: double damage repairs (7.3)
    if design.ai_supercomputer:
        out.append("Advanced Sensors")  # XC6: 9.4
    bays = design.weapon_counts.get("fighter_bay", 0) - damage.weapons.count("fighter_bay")
    if bays > 0:
        out.append("Carrier")  # XC4: 8.3
    return out


def _weapons(design: Design, damage: Damage, notes: list[str]) -> tuple[tuple[Weapon, ...], int]:
    """XC3: the main weapon lines and the secondary battery (dice beyond T'Corr's 10 main)."""
    left = dict(design.weapon_counts)
    for key in damage.weapons:
        left[key] = left.get(key, 0) - 1
    lines: list[Weapon] = []
    room, secondary = MAX_MAIN, 0
    for key in ("emp_cannon", "particle_accelerator", "laser_bank"):
        count = left.get(key, 0)
        if count <= 0:
            continue
        dice = count * BEAM_DICE[key]
        main = min(dice, room)
        if main:
            lines.append(Weapon(main, f"{BEAM_NAMES[key]} x{count}"))
            room -= main
        secondary += dice - main
    missiles = left.get("guided_missile_bay", 0)
    if missiles > 0:
        dice = missiles * MISSILE_DICE
        main = min(dice, room)
        if main:
            lines.append(Weapon(main, f"{MISSILE_NAME} x{missiles}"))
            room -= main
        secondary += dice - main
    if secondary:
        notes.append(f"{secondary} attack dice beyond T'Corr's 10 main dice fire as the secondary battery (XC3).")
    if left.get("planetary_bombardment_array", 0) > 0:
        notes.append("Planetary Bombardment Array: no Buoyz equivalent against ships; it is carried, "
                     "fires at nothing in this battle and comes back intact (XC7).")
    return tuple(lines), min(secondary, MAX_SECONDARY)


def eh_shields(strength: int) -> int:
    """XC2: the Buoyz shields of an Event Horizon force field of strength ``strength`` (4-8), in
    proportion (000 5.6: a hit goes through on a D6 equal to or beating them; 003 Force Fields:
    each generator absorbs its strength). Strength - 1 made a 7 the 6 of an 8, the book's limit."""
    return math.floor(strength * MAX_SHIELDS / FF_STRONGEST + 0.5)


def sd_for(design: Design, damage: Damage = NO_DAMAGE, *, hero_crew: bool = False, key: str = "eh",
           name: str = "") -> SD:
    """The Buoyz SD of an Event Horizon ship as it enters the battle (XC1–XC7): its design with
    the damage it carries applied, its hero crew as Command 3. Held to 1.5 and T'Corr's limits."""
    notes: list[str] = []
    ship_class, size, turning = TYPE_CLASS[design.ship_type]
    bays = design.weapon_counts.get("fighter_bay", 0) - damage.weapons.count("fighter_bay")
    if bays >= CARRIER_BAYS and design.ship_type in CARRIER_CLASS:
        ship_class = CARRIER_CLASS[design.ship_type]
    # XC2: hull and its crippled figure; a 3C is one more hull point (it negates one core breach).
    extra = 1 if design.core_containment_capacitor else 0
    if extra:
        notes.append("Core Containment Capacitor: +1 Hull, the first point of damage taken (XC7).")
    hull = design.hull - damage.hull + extra
    crippled_at = 0 if design.ship_type is ShipType.PATROL_CRAFT else min(design.hull // 2, hull - 1)
    station = design.ship_type is ShipType.SPACE_STATION
    engine_left = max(0, design.engine - damage.engine)
    speed = None if station else min(10, engine_left)
    # XC2: force field 4-8 -> shields 3-6 (+1 improved, at most 6); lost generators: their arcs 0.
    shield = (
        0
        if design.force_field is None
        else min(MAX_SHIELDS, eh_shields(design.force_field) + (1 if design.improved_force_fields else 0))
    )
    shields = [shield] * 4
    for arc in SHIELD_LOSS_ORDER[:damage.force_field_generators]:
        shields[arc] = 0
    main, secondary = _weapons(design, damage, notes)
    abilities = _abilities(design, damage, notes)
    if hero_crew:
        notes.append("Hero crew: Command 3 (XC5).")
    if design.cargo:
        notes.append(f"Cargo capacity {design.cargo} BP: carried, no effect in battle (XC7).")
    sd = SD(
        key=key[:40],
        ship_class=ship_class,
        name=(name or design.name)[:120],
        speed=speed,
        turning=None if station else turning,
        target_size=size,
        shields=tuple(shields),  # type: ignore[arg-type]
        hull=hull,
        crippled_at=max(0, crippled_at),
        command=3 if hero_crew else 2,
        ac=min(bays, 10) if bays > 0 else 0,
        special_abilities=tuple(abilities[:8]),
        main=main,
        secondary=secondary,
        close_defence=max(1, design.hull // 4),
        periods=(1, 6),
        notes=(
            f"Event Horizon {design.ship_type.label} '{design.name}' ({design.bp} BP). " + " ".join(notes)
        )[:2000],
    )
    return validate_sd(sd)


def _design(ship: Mapping[str, Any]) -> tuple[Design, Damage]:
    return Design.from_dict(ship["design"]), Damage.from_json(ship.get("damage"))


def to_book(eh_setup: Mapping[str, Any]) -> dict:
    """The Buoyz setup of an Event Horizon battle (XC8: the world of the hex as a planet in the
    middle of the table, a particle cloud as a nebula; the attacker first)."""
    attacker, defender = int(eh_setup["attacker"]), int(eh_setup["defender"])
    sides = eh_setup.get("sides") or {}
    fleets, names, colours, ids = {}, {}, {}, []
    for seat in (attacker, defender):
        side = sides.get(str(seat)) or {}
        pairs = []
        for ship in side.get("ships") or []:
            design, damage = _design(ship)
            pairs.append((sd_for(design, damage, hero_crew=bool(ship.get("hero_crew")), key=f"eh-{ship['id']}",
                                 name=ship.get("name") or design.name), int(ship["id"])))
        pairs.sort(key=lambda p: p[0].points)  # XC8: the cheapest first
        fleets[seat] = [sd for sd, _ in pairs]
        ids += [i for _, i in pairs]
        names[seat] = side.get("name") or f"Empire {seat}"
        if side.get("colour"):
            colours[seat] = side["colour"]
    objects = []
    if eh_setup.get("world"):
        objects.append({"kind": "planet", "x": 36.0, "y": 24.0, "radius": 3.0})
    if eh_setup.get("terrain") == "particle_cloud":
        objects.append({"kind": "nebula", "x": 18.0, "y": 24.0, "radius": 6.0})
    setup = setup_for(fleets, names=names, colours=colours, attacker=attacker)
    number = 0
    for seat in (attacker, defender):
        for entry in setup["sides"][str(seat)]["ships"]:
            entry["layer_ship"] = ids[number]
            number += 1
    setup["objects"] = objects
    setup["converted"] = {"layer": LAYER, "book": BOOK, "ruling": RULING,
                          "ships": {str(i + 1): sid for i, sid in enumerate(ids)}}
    return setup


def _lose_weapons(design: Design, damage: Damage, count: int) -> tuple[str, ...]:
    """XC9: an armament critical destroys one weapon system still fitted, costliest first."""
    return layers.lose_costliest(design.weapon_counts, damage.weapons, count, lambda k: WEAPONS[k].bp,
                                 spared=("planetary_bombardment_array",))


def carried(design: Design, before: Damage, *, hull_lost: int, crippled: bool, crits=(0, 0, 0),
            extra: int = 0) -> Damage:
    """XC9: what a surviving ship carries back: the hull it lost in the battle (beyond a 3C's
    point), one weapon system, engine point or force field generator per armament, motive or
    shields critical (5.8), and, crippled (5.7), half its engine left and its stealth field."""
    armament, motive, shields = (list(crits) + [0, 0, 0])[:3]
    hull = min(design.hull - 1, before.hull + max(0, hull_lost - extra))
    engine = min(design.engine, before.engine + motive)
    if crippled:
        engine = min(design.engine, engine + (design.engine - engine + 1) // 2)
    gens = before.force_field_generators
    if design.force_field is not None:
        gens = min(4, gens + shields + (2 if crippled else 0))
    return replace(before, hull=max(before.hull, hull), engine=engine, weapons=_lose_weapons(design, before, armament),
                   force_field_generators=gens, stealth=before.stealth or (crippled and design.stealth_field))


def result_back(eh_setup: Mapping[str, Any], book_setup: Mapping[str, Any], result: Mapping[str, Any]) -> dict:
    """The Buoyz result as the Event Horizon result (docs/battles.md "Result"; XC9): destroyed
    stays destroyed; captured (11.4) is captured by the other side; a ship that left the table
    (11.7) warped out; the rest survived with the damage they carry. The winner holds the field
    if a ship of his survived."""
    attacker, defender = int(eh_setup["attacker"]), int(eh_setup["defender"])

    def survivor(fate: Mapping[str, Any], seat: int, ship: Mapping[str, Any]) -> layers.Survived:
        design, before = _design(ship)
        start = design.hull - before.hull + (1 if design.core_containment_capacitor else 0)
        damage = carried(design, before, hull_lost=start - int(fate.get("hull", start)),
                         crippled=bool(fate.get("crippled")), crits=fate.get("crits") or (0, 0, 0),
                         extra=1 if design.core_containment_capacitor else 0).to_json()
        if fate["fate"] == "captured":
            other = defender if seat == attacker else attacker
            return layers.Survived("captured", damage, holds=other, captured_by=other)
        if fate["fate"] == "left":
            return layers.Survived("warped_out", damage, holds=None)
        return layers.Survived("survived", damage, holds=seat)

    return layers.eh_result(eh_setup, book_setup, result, book=BOOK, survivor=survivor, damage=Damage)


def fleet(ships) -> list[SD]:
    """The SDs of Event Horizon ships (``tactical.rules.eventhorizon.trials.TrialShip`` values or
    ``CampaignShip``), for what-if and the fairness bench."""
    return sorted((sd_for(s.design, s.damage, hero_crew=s.hero_crew, key=f"eh-{i}", name=s.name or s.design.name)
                   for i, s in enumerate(ships, 1)), key=lambda sd: sd.points)  # XC8: the cheapest first


def sheets(book_setup: Mapping[str, Any], **kwargs) -> str:
    from .sheets import record_sheets

    return record_sheets(book_setup, **kwargs)


__all__ = ["carried", "fleet", "result_back", "sd_for", "sheets", "to_book", "sd_from_json", "sd_to_json"]

if (LAYER, BOOK) not in registry.CONVERTERS:
    registry.register_converter(registry.ConverterRecord(
        layer=LAYER, book=BOOK, to_book=to_book, result_back=result_back, sheets=sheets, fleet=fleet,
        rulings="XC1-XC9"))
