"""CAM scenarios fought on Event Horizon's tactical rules (issue 31; pure Python; rulings
XC10–XC18 in docs/rulings.md).

A CAM rubber whose moderator chose Event Horizon fights its scenarios on this engine.
``cam_setup`` writes the layer's side of a scenario as JSON from its CAM battle record (each
unit: its uid, kind, SD and whether it is crippled); ``to_book`` turns that into an Event
Horizon setup (the one ``play/setup.py``'s ``initial_state`` reads) of designs built from the
SDs (``designs_for``); ``result_back`` turns the Event Horizon result into the CAM result (per
seat the units destroyed, crippled and gone off the table, and the winner), which CAM's door
records in the CAM battle record (``tactical/hosts/cam/converted.py`` ``apply_to_cam``, the same for
every book), ready for ``campaign.rules.cam.scoring.score_scenario``.

The point systems (XC10): one CAM point (000 CAM 2.2) is worth 5 BP (003 "Ship Type"), so a
60-point CAM scenario (CAM 2.2's quick game) is a 300 BP battle. A unit becomes a squadron of
Event Horizon ships whose ship types' BP add up to 5 × its *worth* (``squadron``, ``worth``):
CAM 2.2 prices a ship by its class alone (a Galaxy and a Constitution are both 10-point CAs), so
the worth is read from the SD's own numbers and scaled so that the book's catalogue as a whole is
worth exactly its CAM points (the rate stays 1 point = 5 BP); under 20 BP a unit is one Patrol
Craft (20 BP), Event Horizon's smallest warship. Changed after the fairness table: squadrons by
CAM points flipped match-ups #3 and #8.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from campaign.rules.cam import breakcontact
from campaign.rules.cam.ships import SD, STARTER_CATALOGUE, ShipClass
from campaign.rules.eventhorizon.designs import WEAPONS, Design, ShipType, validate_design
from campaign.rules.eventhorizon.economy import NO_DAMAGE, Damage
from tactical.rules import registry
from tactical.rules.kit import layers

from .board import DEFAULT_COLOURS
from .deploy import CampaignShip

LAYER = "cam"
BOOK = "eventhorizon"
RULING = "site rulings XC10–XC18 (CAM scenarios on Event Horizon)"
BP_PER_POINT = 5  # XC10

PC, CO, FR, DS, SC = (ShipType.PATROL_CRAFT, ShipType.CORVETTE, ShipType.FRIGATE, ShipType.DESTROYER,
                      ShipType.STAR_CRUISER)


def squadron(points: int) -> tuple[ShipType, ...]:
    """XC10: the ship types of a unit of ``points`` CAM points: points × 5 BP in Star Cruisers
    (40) first, the rest in the one type that makes it up (20–35), a remainder under 20 BP as
    one Patrol Craft (rounded up: never nothing)."""
    bp = max(1, points) * BP_PER_POINT
    out: list[ShipType] = []
    while bp >= 60 or bp == 40:
        out.append(SC)
        bp -= 40
    by_bp = {t.bp: t for t in (PC, CO, FR, DS, SC)}
    if bp >= 20:
        if bp in by_bp:
            out.append(by_bp[bp])
        else:  # 45, 50, 55: two ships
            out.extend([by_bp[20], by_bp[bp - 20]] if bp - 20 in by_bp else [by_bp[25], by_bp[bp - 25]])
    elif bp > 0 or not out:
        out.append(PC)
    return tuple(out)


def _has(sd: SD, name: str) -> bool:
    return any(a.lower() == name.lower() for a in sd.special_abilities)


def _value(sd: SD) -> float:
    """XC10: an SD's fighting worth, from its own numbers (000 1.5): its durability (Hull, times
    1 + its mean shield / 3) times its firepower (main dice, half the secondary dice, AC flights,
    a quarter of the close defence dice), to the power 3/4; a Cloak (10.0) × 1.25, Fire cloaked
    (7.3) × 1.5 more."""
    durability = sd.hull * (1 + sum(sd.shields) / 4 / 3)
    firepower = sd.main_dice + 0.5 * sd.secondary + sd.ac + 0.25 * sd.close_defence
    value = (durability * max(firepower, 0.5)) ** 0.75
    if _has(sd, "Cloak"):
        value *= 1.25 * (1.5 if _has(sd, "Fire cloaked") else 1)  # 10.0: unseen, and (7.3) firing so
    return value


# XC10: CAM points per unit of worth, so that the book's own catalogue (1.5, 1.6) is worth, all
# together, exactly its CAM 2.2 points: the exchange rate stays 1 point = 5 BP on the whole.
POINTS_PER_VALUE = sum(sd.points for sd in STARTER_CATALOGUE.values()) / sum(
    _value(sd) for sd in STARTER_CATALOGUE.values())


def worth(sd: SD) -> int:
    """XC10: the CAM points an SD's squadron is built on: its worth (``_value``) at the
    catalogue's rate, rounded, at least 1."""
    return max(1, round(_value(sd) * POINTS_PER_VALUE))


def _torpedo(name: str) -> bool:
    low = name.lower()
    return "torp" in low or "drone" in low or "rocket" in low


def wanted_weapons(sd: SD) -> list[str]:
    """XC12: the weapon systems an SD asks for, most wanted first: each main beam line's dice as
    EMP Cannons (3 dice), Particle Accelerators (2) and a Laser Bank (1); each torpedo line as
    Guided Missile Bays (one per 2 dice, rounded up); AC flights as Fighter Bays (one per 2);
    the secondary battery as Laser Banks (one per 2 dice)."""
    out: list[str] = []
    for w in sd.main:
        if _torpedo(w.name):
            out += ["guided_missile_bay"] * ((w.count + 1) // 2)
            continue
        emp, rest = divmod(w.count, 3)
        pa, laser = divmod(rest, 2)
        out += ["emp_cannon"] * emp + ["particle_accelerator"] * pa + ["laser_bank"] * laser
    out += ["fighter_bay"] * ((sd.ac + 1) // 2)
    out += ["laser_bank"] * (sd.secondary // 2)
    return out


def _ff_bp(ff: int | None) -> int:
    return 0 if ff is None else ff - 3  # 003: FF 4 = 1 BP … 8 = 5 BP


def design_for(sd: SD, ship_type: ShipType, *, name: str = "") -> Design:
    """XC11–XC13: one Event Horizon design of ``ship_type`` built from ``sd``: engine = Speed
    (1–9), force field = the strongest shield + 2 (4–8; shields under 2: none), Cloak → stealth
    field, Advanced Sensors → AI Supercomputer, Trans → a boarding party (Marines: two), the
    SD's weapons (``wanted_weapons``) within two fifths of the BP and 7 systems; the hull takes
    the rest (at most 12), then a faster engine, then cargo. What does not fit the ship type's
    BP is left off in the order AI, boarding parties, a weaker
    force field down to 5, a slower engine down to 5, the least wanted weapons but one, stealth,
    the rest of the force field, the last weapon (the hull keeps a quarter of the BP)."""
    budget = ship_type.bp
    station = ship_type is ShipType.SPACE_STATION
    engine = 1 if station else max(1, min(9, sd.speed or 1))
    top = max(sd.shields)
    ff: int | None = min(8, top + 2) if top >= 2 else None
    stealth, ai = _has(sd, "Cloak"), _has(sd, "Advanced Sensors")
    parties = 2 if _has(sd, "Marines") else 1 if _has(sd, "Trans") else 0
    weapons = wanted_weapons(sd)[:2 if ship_type.category.value == "freighter" else 7]
    while weapons and sum(WEAPONS[k].bp for k in weapons) > budget * 2 // 5:
        weapons.pop()
    floor = min(12, max(2, budget // 4))

    def fixed() -> int:
        return engine + _ff_bp(ff) + 5 * stealth + 5 * ai + parties + sum(WEAPONS[k].bp for k in weapons)

    while fixed() + floor > budget:
        if ai:
            ai = False
        elif parties:
            parties -= 1
        elif ff is not None and ff > 5:
            ff -= 1
        elif engine > 5:
            engine -= 1
        elif len(weapons) > 1:
            weapons.pop()
        elif stealth:
            stealth = False
        elif ff is not None:
            ff = None if ff == 4 else ff - 1
        elif weapons:
            weapons.pop()
        else:
            engine -= 1
    hull = min(12, budget - fixed())
    parties = min(parties, hull // 3)
    spare = budget - fixed() - hull
    if not station:
        faster = min(spare, 9 - engine)
        engine += faster
        spare -= faster
    counts: dict[str, int] = {}
    for k in weapons:
        counts[k] = counts.get(k, 0) + 1
    design = Design(name=(name or sd.name)[:80], ship_type=ship_type, hull=hull, engine=engine, force_field=ff,
                    weapons=counts, stealth_field=stealth, boarding_parties=parties, cargo=spare,
                    ai_supercomputer=ai)
    validate_design(design)
    return design


def crippled_damage(design: Design) -> Damage:
    """XC14 (000 5.7): a crippled ship enters with half its hull lost, its engine halved, half
    its weapon systems out (its dice halved; costliest kept), its shields halved (two force
    field generators lost) and its cloak inoperative."""
    systems = [k for k, n in design.weapons for _ in range(n)]
    systems.sort(key=lambda k: WEAPONS[k].bp)
    return Damage(hull=design.hull // 2, engine=design.engine - (design.engine + 1) // 2,
                  weapons=tuple(systems[:len(systems) // 2]),
                  force_field_generators=2 if design.force_field is not None else 0, stealth=design.stealth_field)


# --- the layer's side of a scenario ------------------------------------------------------------

def sd_json(sd: SD) -> dict:
    from tactical.rules.buoyz.play.setup import sd_to_json

    return sd_to_json(sd)


def cam_setup(battle: breakcontact.BattleState, catalogue: Mapping[str, SD], roster_sd: Mapping[int, str],
              names: Mapping[int, str], colours: Mapping[int, str] | None = None) -> dict:
    """The CAM layer's side of a scenario as JSON, from its battle record: per seat its units on
    the table (uid, kind, name, points, the SD of a ship, crippled or not); the attacker (the
    scenario's, else its first seat) first; the table's nature."""
    scenario = battle.scenario
    attacker = scenario.attacker if scenario.attacker is not None else scenario.seats[0]
    defender = scenario.seats[1] if attacker == scenario.seats[0] else scenario.seats[0]
    sides = {}
    for seat in (attacker, defender):
        units = []
        for u in battle.on_table(seat):
            entry: dict[str, Any] = {"uid": u.uid, "kind": u.kind, "name": u.name, "points": u.points,
                                     "crippled": battle.unit_status(seat, u.uid).crippled}
            if u.kind == "ship" and u.ship_id is not None:
                entry["sd"] = sd_json(catalogue[roster_sd[u.ship_id]])
            units.append(entry)
        sides[str(seat)] = {"name": names.get(seat, f"Seat {seat}"), "units": units}
        if colours and seat in colours:
            sides[str(seat)]["colour"] = colours[seat]
    nature = scenario.tables[0].nature.value if scenario.tables else "open_space"
    return {"attacker": attacker, "defender": defender, "nature": nature,
            "planet_owner": scenario.defender, "sides": sides}


BASE_DESIGN = Design(name="Planetary Battery", ship_type=ShipType.SPACE_STATION, hull=12, engine=1, force_field=6,
                     weapons={"emp_cannon": 2, "particle_accelerator": 4})
AC_DESIGN = Design(name="Attack craft flight", ship_type=ShipType.PATROL_CRAFT, hull=4, engine=9,
                   weapons={"particle_accelerator": 2, "laser_bank": 3})


def ships_for(unit: Mapping[str, Any]) -> list[tuple[Design, Damage, bool]]:
    """XC10–XC15: the Event Horizon ships of one CAM unit: (design, carried damage, hero crew).
    A ship: its squadron (``squadron``), each design built from its SD, hero crew at Command 3,
    crippled damage if crippled. An extra AC counter: one Patrol Craft flight (XC15); a
    Planetary Battery / Base: a Space Station (XC15); a minefield: none (XC16)."""
    from tactical.rules.buoyz.play.setup import sd_from_json

    kind = unit.get("kind")
    if kind == "minefield":
        return []
    if kind == "ac":
        return [(AC_DESIGN, NO_DAMAGE, False)]
    if kind == "base":
        return [(BASE_DESIGN, NO_DAMAGE, False)]
    sd = sd_from_json(unit["sd"])
    if sd.ship_class is ShipClass.TP:  # XC10: a merchant ship (2 points, 10 BP) is a Tramp Freighter (15)
        types: tuple[ShipType, ...] = (ShipType.TRAMP_FREIGHTER,)
    elif sd.speed is None:
        types = (ShipType.SPACE_STATION,) * max(1, round(sd.points * BP_PER_POINT / 30))
    else:
        types = squadron(worth(sd))
    out = []
    for i, t in enumerate(types, 1):
        design = design_for(
            sd, t, name=f"{unit.get('name') or sd.name}" + (f" ({i}/{len(types)})" if len(types) > 1 else "")
        )
        damage = crippled_damage(design) if unit.get("crippled") else NO_DAMAGE
        # XC15: Command 3 is a hero crew; so is Fire cloaked (7.3), which Event Horizon cannot
        # express: its worth is the +1 to lock on a hero crew has (003 "Lock-On"), as an ambush.
        out.append((design, damage, sd.command >= 3 or _has(sd, "Fire cloaked")))
    return out


def to_book(cam: Mapping[str, Any]) -> dict:
    """The Event Horizon setup of a CAM scenario (XC17: a terrestrial planet or gas giant as the
    planet in the middle of the table, held by the scenario's defender; nebulae as a particle
    cloud; the attacker is the invader)."""
    attacker, defender = int(cam["attacker"]), int(cam["defender"])
    sides, units, number = {}, {}, 0
    for index, seat in enumerate((attacker, defender)):
        side = (cam.get("sides") or {}).get(str(seat)) or {}
        ships = []
        for unit in side.get("units") or []:
            for design, damage, hero in ships_for(unit):
                number += 1
                ships.append({"id": number, "name": design.name, "design_id": None, "design": design.to_dict(),
                              "damage": damage.to_json(), "hero_crew": hero})
                units[str(number)] = [seat, unit["uid"]]
        # CAM sides have no colour: each its own board colour (one grey for both hid whose ship was whose)
        colour = side.get("colour") or DEFAULT_COLOURS[index % len(DEFAULT_COLOURS)]
        sides[str(seat)] = {"name": side.get("name") or f"Seat {seat}", "colour": colour, "ships": ships}
    nature = cam.get("nature")
    world = None
    if nature in ("terrestrial_planet", "gas_giant"):
        owner = cam.get("planet_owner")
        world = {"kind": nature, "owner": owner, "defences": False}
    return {"hex": [0, 0], "terrain": "particle_cloud" if nature == "nebulae" else "space", "world": world,
            "attacker": attacker, "defender": defender, "aewa": False, "sides": sides,
            "converted": {"layer": LAYER, "book": BOOK, "ruling": RULING, "units": units}}


@dataclass(frozen=True)
class CamResult:
    winner: int | None
    destroyed: Mapping[int, tuple[str, ...]]
    crippled: Mapping[int, tuple[str, ...]]
    left: Mapping[int, tuple[str, ...]]


def result_back(cam: Mapping[str, Any], book_setup: Mapping[str, Any], result: Mapping[str, Any]) -> dict:
    """XC18: the Event Horizon result as the CAM result. A unit is destroyed when every ship of
    its squadron was destroyed or captured; crippled (if it can be, 5.7) when one of them was, or
    one lost half its hull or more in the battle; gone off the table when every ship of it left
    survived by warping out. The side holding the field wins; the other (both, if neither holds
    it) is ordered to break contact."""
    hulls = {int(s["id"]): Design.from_dict(s["design"]).hull
             for side in (book_setup.get("sides") or {}).values() for s in side.get("ships") or []}
    carried = {int(s["id"]): Damage.from_json(s.get("damage"))
               for side in (book_setup.get("sides") or {}).values() for s in side.get("ships") or []}
    fates: dict[tuple[int, str], list[tuple[str, bool]]] = {}
    for ship, key in layers.cam_fates(book_setup, result):
        hurt = False
        if ship.get("damage"):
            before = carried.get(int(ship["ship"]), NO_DAMAGE).hull
            hurt = 2 * (Damage.from_json(ship["damage"]).hull - before) >= hulls[int(ship["ship"])]
        fates.setdefault(key, []).append((str(ship["fate"]), hurt))
    crippled_in = layers.cam_crippled(cam)
    marks = []
    for (seat, uid), got in sorted(fates.items()):
        lost = [f in ("destroyed", "captured") for f, _ in got]
        if all(lost):
            marks.append(("destroyed", seat, uid))
            continue
        if (any(lost) or any(h for _, h in got)) and (seat, uid) not in crippled_in:
            marks.append(("crippled", seat, uid))
        kept = [f for f, _ in got if f not in ("destroyed", "captured")]
        if kept and all(f == "warped_out" for f in kept):
            marks.append(("left", seat, uid))
    return layers.cam_result(result, marks, book=BOOK, first="holder")  # XC18: the side holding the field


def fleet(units: Sequence[Mapping[str, Any]], first_id: int = 1) -> list[CampaignShip]:
    """The Event Horizon ships of CAM units (``cam_setup``'s unit entries), for what-if and the
    fairness bench."""
    out = []
    for unit in units:
        for design, damage, hero in ships_for(unit):
            out.append(CampaignShip(first_id + len(out), design, damage, hero, design.name))
    return out


def sheets(book_setup: Mapping[str, Any], **kwargs) -> str:
    from .sheets import record_sheets

    return record_sheets(book_setup, **kwargs)


__all__ = ["AC_DESIGN", "BASE_DESIGN", "CamResult", "cam_setup", "crippled_damage", "design_for",
           "fleet", "result_back", "ships_for", "squadron", "to_book", "wanted_weapons", "ShipClass"]

if (LAYER, BOOK) not in registry.CONVERTERS:
    registry.register_converter(registry.ConverterRecord(
        layer=LAYER, book=BOOK, to_book=to_book, result_back=result_back, sheets=sheets, fleet=fleet,
        rulings="XC10-XC18"))
