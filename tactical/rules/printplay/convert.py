"""Event Horizon battles and CAM scenarios fought on Star Trek Print&Play (issue 31; pure Python;
rulings XC19–XC30 in docs/rulings.md).

Two converters, registered as anybook's are (``registry.ConverterRecord``): ``eventhorizon →
printplay`` (``eh_to_book``/``eh_result_back``) and ``cam → printplay`` (``cam_to_book``/
``cam_result_back``; the CAM side of a scenario is ``eventhorizon.convert.cam_setup``'s JSON and
the result back is the dict ``apply_to_cam`` (tactical/hosts/cam/converted.py) records). Each layer ship (an
Event Horizon ship, a CAM unit) becomes **one** Print&Play dashboard (``001 Dashboards``), built
with the book's own designer (``dashboards.design``) so that it is legal and priced by the
site's points formula (ruling PP3).

The point systems (XC19): the ships both the CAM catalogue and the Print&Play roster print
(Constitution, B'rel, Borg Cube) fix the rate: their Print&Play points over their CAM points
(``PP_PER_CAM``, 317 / 55 = 5.8), so one BP (a fifth of a CAM point, XC10) is worth 1.15
Print&Play points and a 300 BP fleet becomes about 345 points of dashboards. The dashboards are
built from the ship's own numbers (hull, engine or speed, shields, weapons by their dice), with
scale factors (``HULL_PER_EH`` …) chosen so that the sample designs and the catalogue come out at
that rate on the whole (``tests/tactical/convert/test_printplay_converters.py`` holds them to it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from campaign.rules.cam.ships import SD, STARTER_CATALOGUE, ShipClass
from campaign.rules.eventhorizon.designs import WEAPONS, Design, ShipType
from campaign.rules.eventhorizon.economy import NO_DAMAGE, Damage
from tactical.rules.kit import layers

from . import dashboards as dash_mod
from .dashboards import ROSTER, Dashboard, Weapon
from .play import setup_for

LAYER_EH, LAYER_CAM, BOOK = "eventhorizon", "cam", "printplay"
RULING_EH = "site rulings XC19–XC25 (Event Horizon ships on Print&Play)"
RULING_CAM = "site rulings XC19, XC26–XC30 (CAM units on Print&Play)"
FACTION = "Federation"  # XC20: every converted ship gives Picard's Manoeuvre (PP8), both sides alike

# XC19: the rate, from the ships both books print.
SHARED = ("constitution", "b_rel", "borg_cube")
PP_PER_CAM = sum(ROSTER[k].points for k in SHARED) / sum(STARTER_CATALOGUE[k].points for k in SHARED)
PP_PER_BP = PP_PER_CAM / 5  # XC10: one CAM point = 5 BP

# XC20: Event Horizon's numbers on a dashboard.
HULL_PER_EH = 2  # one Event Horizon hull point = 2 Print&Play hull
EH_TYPE = {ShipType.PATROL_CRAFT: "escort", ShipType.CORVETTE: "frigate", ShipType.FRIGATE: "destroyer",
           ShipType.DESTROYER: "light cruiser", ShipType.STAR_CRUISER: "heavy cruiser",
           ShipType.SPACE_STATION: "battleship", ShipType.TRAMP_FREIGHTER: "frigate",
           ShipType.BULK_CARRIER: "destroyer", ShipType.STAR_LIFTER: "light cruiser"}
# Print&Play's sides are fore, aft, port, starboard; ruling TC25 loses aft, port, starboard, fore.
GENERATOR_LOSS_SIDES = (1, 2, 3, 0)
# XC21: weapons. 003 "Arcs of fire are irrelevant": arc 360°, mounted fore. A force field absorbs
# a hit whole (003 Force Fields: no excess), as Print&Play's shields take a cannon: every Event
# Horizon weapon is a cannon; the lock on's 4+ is Hit +4; damage points × SCALE (003 "Weapon
# Damage and Range"); short range (1 square) 6", long (2-3 squares) 12".
SCALE = HULL_PER_EH
EH_WEAPONS = {"emp_cannon": ("EMP Cannon", 3, 8), "particle_accelerator": ("Particle Accelerator", 2, 8),
              "laser_bank": ("Laser Bank", 1, 8), "guided_missile_bay": ("Guided Missile", 3, 8),
              "fighter_bay": ("Fighter", 1, 8)}  # name, damage points, range
LOCK_ON = 4
FF_SHIELDS = 4  # XC20: shields per BP of force field generator
FIGHTERS = ("Fighter strike", 5, 2, 12)  # XC27: a CAM AC flight (Hit, Dmg, Range): a cannon
POINT_DEFENCE = Weapon("Point defence (F)", "F", 1, 6, 1, 4, 360)  # XC24: an unarmed ship's one primary

# XC26: CAM's numbers on a dashboard.
HULL_PER_CAM = 3
SHIELD_PER_CAM = 4
CAM_TYPE = {ShipClass.DE: "escort", ShipClass.DD: "frigate", ShipClass.CL: "destroyer", ShipClass.CA: "heavy cruiser",
            ShipClass.BC: "heavy cruiser", ShipClass.CVE: "light cruiser", ShipClass.TP: "frigate"}
CAM_FORE, CAM_PORT, CAM_STARBOARD, CAM_AFT = range(4)


def _shield_dash(per_side: Sequence[int], improved: int = 0) -> tuple[tuple[int, int, int, int], int]:
    sides = tuple(min(60, max(0, s)) for s in per_side)
    top = max(sides) if sides else 0
    return sides, min(80, max(top, round(top * 1.5) + improved))  # type: ignore[return-value]


def _design(key, name, type_, shields, bracket, hull, impulse, weapons, notes, **rest) -> Dashboard:
    """The book's designer (PP2): a legal dashboard priced by PP3; the notes kept on it (XC24)."""
    made = dash_mod.design(key[:40], name[:40] or "Ship", rest.pop("faction", FACTION), type_, list(shields), bracket,
                           max(1, min(120, hull)), max(1, min(8, impulse)), weapons, **rest)
    return Dashboard(**{**made.__dict__, "notes": " ".join(notes)[:2000]})


# --- Event Horizon ships (XC20–XC25) ----------------------------------------------------------

def _eh_weapons(design: Design, damage: Damage, notes: list[str]) -> list[Weapon]:
    left = dict(design.weapon_counts)
    for key in damage.weapons:
        left[key] = left.get(key, 0) - 1
    out = []
    for key, (name, points, rng) in EH_WEAPONS.items():
        if left.get(key, 0) > 0:
            out.append(Weapon(f"{name} (F)", "F", min(12, left[key]), LOCK_ON, SCALE * (1 + points) // 2, rng, 360,
                              "cannon"))
    if left.get("planetary_bombardment_array", 0) > 0:
        notes.append("Planetary Bombardment Array: no Print&Play equivalent against ships; carried, fires at "
                     "nothing and comes back intact (XC24).")
    if not any(not w.secondary for w in out):
        out.insert(0, POINT_DEFENCE)
        notes.append("No beam weapon left: a Point defence line, the least the designer takes (001 Dashboards: "
                     "every ship has a primary weapon), comes back as nothing (XC24).")
    return out


def dashboard_for_eh(design: Design, damage: Damage = NO_DAMAGE, *, hero_crew: bool = False, key: str = "eh",
                     name: str = "") -> Dashboard:
    """XC20–XC24: the Print&Play dashboard of an Event Horizon ship as it enters the battle: its
    design with the damage it carries, its hero crew as Sensors +1."""
    notes = [f"Event Horizon {design.ship_type.label} '{design.name}' ({design.bp} BP)."]
    extra = 1 if design.core_containment_capacitor else 0
    if extra:
        notes.append("Core Containment Capacitor: +3 Hull, the first lost (XC24).")
    hull = (design.hull - damage.hull + extra) * HULL_PER_EH
    station = design.ship_type is ShipType.SPACE_STATION
    impulse = 1 if station else max(1, min(8, design.engine - 1 - damage.engine))  # XC20: engine 9 = 8"
    if design.force_field is None:
        per_side = [0, 0, 0, 0]
    else:
        per_side = [(design.force_field - 3) * FF_SHIELDS] * 4  # XC20: by the generator's BP (FF 4 = 1 … 8 = 5)
        for side in GENERATOR_LOSS_SIDES[:damage.force_field_generators]:
            per_side[side] = 0
    shields, bracket = _shield_dash(per_side if design.force_field is not None else [0, 0, 0, 0])
    if design.force_field is not None:
        bracket = bracket + (FF_SHIELDS if design.improved_force_fields else 0)
    abilities = []
    if design.stealth_field:
        if damage.stealth:
            notes.append("Stealth field generator inoperable (carried damage): no cloak (XC22).")
        else:
            notes.append("Stealth field: cloak (XC22).")
            abilities.append("cloak")  # XC22: 001 Cloaking Device
    if design.nanobot_skin:
        abilities.append("regenerate")  # XC22: a hull that regenerates (001 Regenerate)
    sensors = (1 if hero_crew else 0) + (1 if design.ai_supercomputer else 0)  # XC22, XC23
    if hero_crew:
        notes.append("Hero crew: Sensors +1, ECM +1, WPS +1 (XC23: 30 BP, 003 Military Academy).")
    if design.ai_supercomputer:
        notes.append("AI Supercomputer: Sensors +1 (XC22).")
    parties = design.boarding_parties - damage.boarding_parties
    if parties > 0:
        notes.append(f"{parties} boarding part{'y' if parties == 1 else 'ies'}: Print&Play has no boarding; "
                     "carried, come back intact (XC24).")
    if design.cargo:
        notes.append(f"Cargo {design.cargo} BP: carried, no effect in battle (XC24).")
    weapons = _eh_weapons(design, damage, notes)
    return _design(key, name or design.name, EH_TYPE[design.ship_type], shields, bracket, hull, impulse, weapons,
                   notes, abilities=tuple(abilities), sensors=min(3, sensors), ecm=1 if hero_crew else 0,
                   wps=1 if hero_crew else 0)


def _ship_dash(ship: Mapping[str, Any]) -> Dashboard:
    design, damage = Design.from_dict(ship["design"]), Damage.from_json(ship.get("damage"))
    return dashboard_for_eh(design, damage, hero_crew=bool(ship.get("hero_crew")), key=f"eh-{ship['id']}",
                            name=ship.get("name") or design.name)


def _terrain(cloud: bool) -> list[dict]:
    """XC25/XC29: a particle cloud or nebulae is a nebula 6" across in the mat's middle (001
    Nebula, its type rolled); Print&Play has no planets: a world is off the mat (held by the side
    holding the field)."""
    return [{"kind": "nebula", "at": [36.0, 24.0], "radius": 6.0}] if cloud else []


def eh_to_book(eh_setup: Mapping[str, Any]) -> dict:
    """The Print&Play setup of an Event Horizon battle (XC25): a 4' × 6' mat, the two fleets'
    dashboards, which Print&Play ship is which Event Horizon ship under ``converted``."""
    attacker, defender = int(eh_setup["attacker"]), int(eh_setup["defender"])
    sides = eh_setup.get("sides") or {}
    fleets, names, ids = {}, {}, {}
    for seat in sorted((attacker, defender)):
        side = sides.get(str(seat)) or {}
        pairs = sorted(((_ship_dash(s), int(s["id"])) for s in side.get("ships") or []), key=lambda p: p[0].points)
        fleets[seat] = [d.to_json() for d, _ in pairs]  # XC25: the cheapest first
        names[seat] = side.get("name") or f"Empire {seat}"
        ids[seat] = [i for _, i in pairs]
    setup = setup_for(fleets, names=names, mat="4x6", terrain=_terrain(eh_setup.get("terrain") == "particle_cloud"))
    setup["attacker"], setup["defender"] = attacker, defender
    mapping = {}
    for seat in sorted((attacker, defender)):
        for entry, layer_id in zip(setup["sides"][str(seat)]["ships"], ids[seat]):
            entry["layer_ship"] = layer_id
            mapping[str(entry["id"])] = layer_id
    setup["converted"] = {"layer": LAYER_EH, "book": BOOK, "ruling": RULING_EH, "ships": mapping}
    return setup


def _lose_weapons(design: Design, before: Damage, count: int) -> tuple[str, ...]:
    return layers.lose_costliest(design.weapon_counts, before.weapons, count, lambda k: WEAPONS[k].bp,
                                 spared=("planetary_bombardment_array",))


def eh_carried(design: Design, before: Damage, fate: Mapping[str, Any], start_hull: int) -> Damage:
    """XC25: what a surviving ship carries back: the hull it lost (3 Print&Play hull = 1, rounded
    up; a 3C's point first), a force field generator for each side whose shields were down to 0
    at the end (it had some at the start), and per three critical hits (001 Attack: the effect
    die is 'weapons' on 3–4 and 'power' on 1–2, one in three each) a weapon system (the costliest
    left) and an engine point."""
    lost_pp = max(0, start_hull - int(fate.get("hull", start_hull)))
    lost = math.ceil(lost_pp / HULL_PER_EH) - (1 if design.core_containment_capacitor else 0)
    hull = min(design.hull - 1, before.hull + max(0, lost))
    crits = int(fate.get("crits") or 0)
    gens = before.force_field_generators
    if design.force_field is not None and fate.get("shields") is not None:
        up_at_start = 4 - before.force_field_generators
        down = sum(1 for s in fate["shields"] if int(s) <= 0)
        gens = min(4, before.force_field_generators + max(0, min(up_at_start, down - before.force_field_generators)))
    return replace(before, hull=max(before.hull, hull), engine=min(design.engine, before.engine + crits // 3),
                   weapons=_lose_weapons(design, before, crits // 3), force_field_generators=gens)


def eh_result_back(eh_setup: Mapping[str, Any], book_setup: Mapping[str, Any], result: Mapping[str, Any]) -> dict:
    """XC25: the Print&Play result as the Event Horizon result (docs/battles.md "Result"):
    destroyed stays destroyed; off the mat (ruling PP17) is warped out; the rest survived with
    the damage they carry (``eh_carried``). Print&Play has no capture. The winner holds the field
    (and the hex's world) if a ship of his survived."""

    def survivor(fate: Mapping[str, Any], seat: int, ship: Mapping[str, Any]) -> layers.Survived:
        design, before = Design.from_dict(ship["design"]), Damage.from_json(ship.get("damage"))
        damage = eh_carried(design, before, fate, _ship_dash(ship).hull).to_json()
        if fate["fate"] == "left":
            return layers.Survived("warped_out", damage, holds=None)
        return layers.Survived("survived", damage, holds=seat)

    return layers.eh_result(eh_setup, book_setup, result, book=BOOK, survivor=survivor, damage=Damage)


def eh_fleet(ships) -> list[Dashboard]:
    """The dashboards of Event Horizon ships (``CampaignShip`` or what-if ``TrialShip`` values)."""
    return sorted((dashboard_for_eh(s.design, s.damage, hero_crew=s.hero_crew, key=f"eh-{i}",
                                    name=s.name or s.design.name) for i, s in enumerate(ships, 1)),
                  key=lambda d: d.points)  # XC25: the cheapest first


# --- CAM units (XC26–XC30) --------------------------------------------------------------------

def _has(sd: SD, name: str) -> bool:
    return any(a.lower() == name.lower() for a in sd.special_abilities)


def _torpedo(name: str) -> bool:
    low = name.lower()
    return "torp" in low or "drone" in low or "rocket" in low


HANDLED = {
    "cloak",
    "fire cloaked",
    "advanced sensors",
    "agile",
    "adaption",
    "shield drain",
    "carrier",
    "warp",
    "impulse",
}


def _cam_weapons(sd: SD, half: bool) -> list[Weapon]:
    """XC27: each main line's dice as Qty (a torpedo line a torpedo, Hit 4, Dmg 5, 8", Burst 2),
    beams Hit 3, Dmg 3, 12"; the secondary battery a beam line Hit 4, Dmg 2, 8"; AC flights
    fighter strikes. Arcs 360° (a dashboard's mounts are not Buoyz's arcs)."""
    def qty(n: int) -> int:
        return min(12, max(1, (n + 1) // 2 if half else n))

    out = []
    for w in sd.main:
        label = f"{w.name[:30]} (F)"
        if _torpedo(w.name):
            plasma = "plasma" in w.name.lower()
            out.append(Weapon(label, "F", qty(w.count), 4, 5 if plasma else 4, 8, 360, "torpedo",
                              0 if plasma else 2, 2))
        else:
            out.append(Weapon(label, "F", qty(w.count), 3, 2, 12, 360))
    if sd.secondary:
        out.append(Weapon("Secondary battery (F)", "F", qty(sd.secondary), 4, 2, 8, 360))
    if sd.ac:
        out.append(Weapon(f"{FIGHTERS[0]} (F)", "F", qty((sd.ac + 1) // 2), FIGHTERS[1], FIGHTERS[2], FIGHTERS[3], 360,
                          "cannon"))
    if not any(not w.secondary for w in out):
        out.insert(0, POINT_DEFENCE)
    return out


def dashboard_for_sd(sd: SD, *, crippled: bool = False, key: str = "cam", name: str = "") -> Dashboard:
    """XC26–XC28: the dashboard of a CAM roster ship: Hull × 4, Shields × 5 per side (fore, aft,
    port, starboard; the bracket half as much again), Impulse = Speed (1–8; a station 1), its
    weapons (``_cam_weapons``); Cloak a cloak, Agile Fast Turn, Advanced Sensors, Fire cloaked and
    Command 3 Sensors +1 each, close defence ECM +1 per 3 dice (at most 2), Adaption a Borg ship.
    Crippled (5.7): its crippled hull, half its impulse, shields and weapons, no cloak."""
    notes = [f"CAM {sd.ship_class.value} '{sd.name}' ({sd.points} CAM points)."]
    hull = sd.hull * HULL_PER_CAM
    speed = 1 if sd.speed is None else max(1, min(8, sd.speed))
    per_side = [sd.shields[CAM_FORE], sd.shields[CAM_AFT], sd.shields[CAM_PORT], sd.shields[CAM_STARBOARD]]
    shields = [s * SHIELD_PER_CAM for s in per_side]
    _, bracket = _shield_dash(shields)
    abilities = []
    if _has(sd, "Cloak") and not crippled:
        abilities.append("cloak")
    if _has(sd, "Agile"):
        abilities.append("fast turn")
    sensors = sum(1 for flag in (_has(sd, "Advanced Sensors"), _has(sd, "Fire cloaked"), sd.command >= 3) if flag)
    if crippled:
        hull = max(1, (sd.crippled_at or max(1, sd.hull // 2)) * HULL_PER_CAM)
        speed = max(1, (speed + 1) // 2)
        shields = [s // 2 for s in shields]
        notes.append("Crippled (5.7): its crippled hull, half its impulse, shields and weapons, no cloak (XC28).")
    other = [a for a in sd.special_abilities if a.lower() not in HANDLED]
    if other:
        notes.append(f"No Print&Play equivalent, carried without effect in this battle: {', '.join(other)} (XC28).")
    type_ = "battleship" if sd.ship_class.value in ("BB", "CV") or sd.speed is None else \
        CAM_TYPE.get(sd.ship_class, "escort")
    weapons = _cam_weapons(sd, crippled)
    if _has(sd, "Shield Drain"):  # XC28: its hits go through halved shields (BZ24): twice the hits
        weapons = [replace(w, qty=min(12, 2 * w.qty)) for w in weapons]
        notes.append("Shield Drain: every weapon line's Qty doubled (XC28).")
    return _design(key, name or sd.name, type_, shields, max(bracket, max(shields)), hull, speed,
                   weapons, notes, abilities=tuple(abilities), sensors=min(3, sensors),
                   ecm=min(3, sd.close_defence // 3 + _has(sd, "Adaption")),
                   faction="Borg" if _has(sd, "Adaption") else FACTION)


AC_DASH = dash_mod.design("cam-ac", "Attack craft flight", FACTION, "escort", 0, 0, 4, 8,
                          [Weapon(f"{FIGHTERS[0]} (F)", "F", 2, FIGHTERS[1], FIGHTERS[2], FIGHTERS[3], 360,
                                  "cannon")], abilities=("fast turn",))
BASE_DASH = dash_mod.design("cam-base", "Planetary Battery", FACTION, "battleship", 20, 30, 48, 1,
                            [Weapon("Battery (F)", "F", 6, 3, 3, 12, 360),
                             Weapon("Battery torpedo (F)", "F", 1, 4, 5, 8, 360, "torpedo", 2, 3)])


def dashboard_for_unit(unit: Mapping[str, Any]) -> Dashboard | None:
    """XC26–XC29: one CAM unit's dashboard; an extra AC counter an "Attack craft flight", a
    Planetary Battery / Base a battery of impulse 1, a minefield none (not on the mat)."""
    from tactical.rules.buoyz.play.setup import sd_from_json

    kind = unit.get("kind")
    if kind == "minefield":
        return None
    if kind == "ac":
        return AC_DASH
    if kind == "base":
        return BASE_DASH
    sd = sd_from_json(unit["sd"])
    return dashboard_for_sd(sd, crippled=bool(unit.get("crippled")), key=f"cam-{unit['uid']}",
                            name=unit.get("name") or sd.name)


def cam_to_book(cam: Mapping[str, Any]) -> dict:
    """XC29: the Print&Play setup of a CAM scenario: a 4' × 6' mat, nebulae a nebula in its
    middle, a planet off the mat; which ship is which unit under ``converted``."""
    attacker, defender = int(cam["attacker"]), int(cam["defender"])
    fleets, names, uids = {}, {}, {}
    for seat in sorted((attacker, defender)):
        side = (cam.get("sides") or {}).get(str(seat)) or {}
        made = ((dashboard_for_unit(u), u["uid"]) for u in side.get("units") or [])
        pairs = [(d, uid) for d, uid in made if d is not None]
        pairs.sort(key=lambda p: p[0].points)  # XC29: the cheapest first
        fleets[seat], uids[seat] = [d.to_json() for d, _ in pairs], [uid for _, uid in pairs]
        names[seat] = side.get("name") or f"Seat {seat}"
    setup = setup_for(fleets, names=names, mat="4x6", terrain=_terrain(cam.get("nature") == "nebulae"))
    setup["attacker"], setup["defender"] = attacker, defender
    units = {}
    for seat in sorted((attacker, defender)):
        for entry, uid in zip(setup["sides"][str(seat)]["ships"], uids[seat]):
            entry["layer_unit"] = uid
            units[str(entry["id"])] = [seat, uid]
    setup["converted"] = {"layer": LAYER_CAM, "book": BOOK, "ruling": RULING_CAM, "units": units}
    return setup


def cam_result_back(cam: Mapping[str, Any], book_setup: Mapping[str, Any], result: Mapping[str, Any]) -> dict:
    """XC30: the Print&Play result as the CAM result: destroyed stays destroyed; a ship off the
    mat (PP17) has gone off the table; a survivor whose hull ended at or below half its
    dashboard's is crippled (5.7; not twice). The winner wins; the other side breaks contact
    (``apply_to_cam`` (tactical/hosts/cam/converted.py) records it)."""
    start = {int(e["id"]): dash_mod.from_json(e["dash"]).hull
             for side in (book_setup.get("sides") or {}).values() for e in side.get("ships") or []}
    crippled_in = layers.cam_crippled(cam)
    marks = []
    for ship, (seat, uid) in layers.cam_fates(book_setup, result):
        if ship["fate"] == "destroyed":
            marks.append(("destroyed", seat, uid))
            continue
        if 2 * int(ship.get("hull", 0)) <= start[int(ship["ship"])] and (seat, uid) not in crippled_in:
            marks.append(("crippled", seat, uid))
        if ship["fate"] == "left":
            marks.append(("left", seat, uid))
    return layers.cam_result(result, marks, book=BOOK)


def cam_fleet(units: Sequence[Mapping[str, Any]]) -> list[Dashboard]:
    """The dashboards of CAM units (``cam_setup``'s entries), for what-if and the fairness bench."""
    return sorted((d for d in (dashboard_for_unit(u) for u in units) if d is not None), key=lambda d: d.points)


def sheets(book_setup: Mapping[str, Any], **kwargs) -> str:
    from .sheets import record_sheets

    return record_sheets(book_setup, **kwargs)


__all__ = ["AC_DASH", "BASE_DASH", "PP_PER_BP", "PP_PER_CAM", "cam_fleet", "cam_result_back", "cam_to_book",
           "dashboard_for_eh", "dashboard_for_sd", "dashboard_for_unit", "eh_carried", "eh_fleet", "eh_result_back",
           "eh_to_book", "sheets"]


def _register() -> None:
    from tactical.rules import registry

    for layer, to_book, back, fleet, rulings in ((LAYER_EH, eh_to_book, eh_result_back, eh_fleet, "XC19-XC25"),
                                                 (LAYER_CAM, cam_to_book, cam_result_back, cam_fleet,
                                                  "XC19, XC26-XC30")):
        if (layer, BOOK) not in registry.CONVERTERS:
            registry.register_converter(registry.ConverterRecord(
                layer=layer, book=BOOK, to_book=to_book, result_back=back, sheets=sheets, fleet=fleet,
                rulings=rulings))


_register()
