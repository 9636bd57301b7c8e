"""Event Horizon battles and CAM scenarios fought on Star Sectors (issue 31; pure Python; rulings
XC41–XC51 in docs/rulings.md).

Two converters, registered as the other books' are (``registry.ConverterRecord``):
``eventhorizon → starsectors`` and ``cam → starsectors``. Each layer ship (an Event Horizon ship,
a CAM unit) becomes **one** Star Sectors profile card (a CAM hull past the longest card: several,
XC51) (004 II: CF, DF, MF, SS, cargo, nacelles, cloaking devices, advanced weapon banks, targeting
diagram, hull length) priced by the book's own
rule (004 III: CF + 1 per cloaking device, advanced weapon bank and extra engineering phase; a
command crew 4 more, VII.B). The card is the ship **as it stands**: the damage it carries is
already off its factors (XC43, XC47), as a damaged card's hits would be (IV.F, IV.G). What the card
cannot hold is written in the setup's ``converted`` notes (printed on the card) and comes back as
it went (XC45, XC48).

The rate (XC41): the factors come from each ship's own numbers, so its price is III's;
``SS_PER_BP`` / ``SS_PER_CAM`` are what the sample designs and the CAM catalogue come to (≈ 0.18 per
BP, ≈ 0.50 per CAM point; the tests hold every sample design within ½–2× and every catalogue SD
within ⅓–3× of them).
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

from .cards import COMMAND_CREW_COST, Card, card_from_json
from .cards import design as make_card

LAYER_EH, LAYER_CAM, BOOK = "eventhorizon", "cam", "starsectors"
RULING_EH = "site rulings XC41–XC45 (Event Horizon ships on Star Sectors)"
RULING_CAM = "site rulings XC41, XC46–XC51 (CAM units on Star Sectors)"

# XC42: Event Horizon's numbers on the card.
# A guided missile bay is its PTL bank only (VI.B: no die), not CF as well.
EH_POINTS = {"laser_bank": 1, "particle_accelerator": 2, "emp_cannon": 3, "guided_missile_bay": 0, "fighter_bay": 0.5}
EH_BANKS = {"guided_missile_bay": "PTL", "emp_cannon": "DC"}  # VI.B: fired without a die roll
NO_FIELD_DF = 2  # a ship with no force field generator
LONG = {ShipType.DESTROYER: 2, ShipType.STAR_CRUISER: 2, ShipType.BULK_CARRIER: 2, ShipType.STAR_LIFTER: 2,
        ShipType.SPACE_STATION: 3}  # hull length in hexes (ruling SS4); the rest 1
MAX_BANKS = 6  # ruling SS4


def _clamp(v: int, low: int, high: int) -> int:
    return max(low, min(high, v))


def _cf(points: int) -> int:
    """XC42: CF from the damage points of the weapon systems (0: no weapons, CF 0)."""
    return 0 if points <= 0 else min(12, 2 + math.ceil(points / 2))


# --- Event Horizon ships (XC42–XC45) ----------------------------------------------------------


def _weapons_left(design: EHDesign, damage: Damage) -> dict[str, int]:
    left = dict(design.weapon_counts)
    for key in damage.weapons:
        left[key] = max(0, left.get(key, 0) - 1)
    return left


def eh_card(design: EHDesign, damage: Damage = NO_DAMAGE, *, key: str = "eh", name: str = "") -> Card:
    """XC42, XC43: the Star Sectors card of an Event Horizon ship as it stands. CF = 2 + half the
    damage points of its working weapon systems (laser 1, particle accelerator 2, EMP cannon 3,
    fighter bay ½; rounded up, at most 12); a guided missile bay is a PTL bank, an EMP cannon also a
    DC bank (at most six); DF = 2 × force field − 6 (+1 improved, −1 per lost generator; no
    generator: 2); MF = engine left ÷ 2 (at least 1; a station 0); SS = hull left; every armed ship
    fires all round (003 "Arcs of fire are irrelevant"); two nacelles (a station none); hull 1–3
    hexes by type. A stealth field has no equivalent short of a cloaking device (XC43)."""
    left = _weapons_left(design, damage)
    cf = _cf(math.ceil(sum(EH_POINTS.get(k, 0) * n for k, n in left.items())))
    banks: list[str] = []
    for k in ("guided_missile_bay", "emp_cannon"):
        banks += [EH_BANKS[k]] * left.get(k, 0)
    banks = banks[:MAX_BANKS] if cf else []
    if design.force_field is None:
        df = NO_FIELD_DF
    else:
        df = 2 * design.force_field - 6 + design.improved_force_fields - damage.force_field_generators
    station = design.ship_type is ShipType.SPACE_STATION
    mf = 0 if station else max(1, (design.engine - damage.engine) // 2)
    return make_card(
        key, (name or design.name)[:40], "Event Horizon", cf=cf, df=_clamp(df, 1, 12), mf=min(12, mf),
        ss=_clamp(design.hull - damage.hull, 1, 40), cargo=min(20, design.cargo), nacelles=0 if station else 2,
        banks=tuple(banks), arc="all" if cf else "none", hull=LONG.get(design.ship_type, 1))


def eh_notes(design: EHDesign, damage: Damage, hero_crew: bool, card: Card) -> list[str]:
    """XC45: what the card cannot hold, said on the card."""
    notes = [f"Event Horizon {design.ship_type.label} '{design.name}' ({design.bp} BP): "
             f"{card.points} Star Sectors points (004 III)."]
    if damage.any:
        notes.append("Carries its damage: the card is the ship as it stands (XC43).")
    if hero_crew:
        notes.append(f"Hero crew: a command crew (004 VII.B, {COMMAND_CREW_COST} points; XC44).")
    if design.stealth_field:
        notes.append("Stealth field" + (" (inoperable)" if damage.stealth else "")
                     + ": no Star Sectors equivalent short of a cloaking device, which cannot fire (VI.A);"
                     " carried without effect, comes back as it went (XC43).")
    if sum(design.weapon_counts.get(k, 0) for k in EH_BANKS) > MAX_BANKS:
        notes.append(f"Only {MAX_BANKS} advanced weapon banks on a card (ruling SS4); the rest are in its CF.")
    for flag, text in (
        (design.nanobot_skin, "Nanobot skin"),
        (design.ai_supercomputer, "AI Supercomputer"),
        (design.core_containment_capacitor, "Core Containment Capacitor"),
        (design.weapon_counts.get("planetary_bombardment_array", 0) > 0, "Planetary Bombardment Array"),
        (design.boarding_parties > damage.boarding_parties, "boarding parties"),
        (design.cargo > 0, "cargo (the card's Cargo factor, no mines or crystals bought)"),
    ):
        if flag:
            notes.append(f"{text}: no Star Sectors equivalent; carried without effect, comes back as it went (XC45).")
    return notes


def eh_entry(ship: Mapping[str, Any]) -> dict:
    """One Event Horizon ship as a converted set-up entry: the card, the command crew (a hero
    crew, XC44) and its notes."""
    design, damage = EHDesign.from_dict(ship["design"]), Damage.from_json(ship.get("damage"))
    hero = bool(ship.get("hero_crew"))
    card = eh_card(design, damage, key=f"eh-{ship.get('id', 0)}", name=ship.get("name") or design.name)
    return {"card": card.to_json(), "crew": hero, "notes": eh_notes(design, damage, hero, card)}


def _terrain(width: int, height: int, world: bool, cloud: bool) -> list[dict]:
    """XC45/XC49: a world (a planet or gas giant fought over) is a planet in the map's middle
    (VII.A Planets); a particle cloud or nebulae a Mutara nebula there (VII.A; the planet three
    rows up when both)."""
    mid = [width // 2, height // 2]
    out = []
    if cloud:
        out.append({"kind": "mutara", "at": mid})
    if world:
        out.append({"kind": "planet", "at": [mid[0], max(1, mid[1] - 3)] if cloud else mid})
    return out


def by_worth(entry: Mapping[str, Any]) -> int:
    """XC41: a side's cards stand in the order of their worth, the cheapest first (its points, III,
    and a command crew's 4, VII.B; ties in the layer's order): that order deploys them from the middle
    of the side's first row outward (III, ruling SS22), the escorts in the middle, and gives the first
    ship's turn, so it is the fleet's, not the order the campaign happens to list its ships in."""
    return card_from_json(entry["card"]).points + (COMMAND_CREW_COST if entry.get("crew") else 0)


def _setup(entries: dict[int, list[dict]], names: dict[int, str], attacker: int, defender: int,
           terrain: Sequence[Mapping[str, Any]] = ()) -> dict:
    """The stored set-up (``setup.new_battle``): a 16 × 12 map (taller for more ships: each side
    deploys along its first row, 004 III), no points limit (XC41), the ships' entries."""
    most = max([len(v) for v in entries.values()] + [1])
    height = _clamp(most + 2, 12, 40)
    sides = {str(seat): {"name": names[seat],
                         "ships": [{"card": e["card"], "crew": bool(e.get("crew"))} for e in entries[seat]]}
             for seat in entries}
    return {"width": 16, "height": height, "points": 0, "sides": sides, "attacker": attacker,
            "defender": defender, "terrain": [dict(t) for t in terrain]}


def eh_to_book(eh_setup: Mapping[str, Any]) -> dict:
    """The Star Sectors setup of an Event Horizon battle: which ship is which Event Horizon ship
    under ``converted`` (ship ids are given side by side in seat order, as ``new_battle`` numbers
    them)."""
    attacker, defender = layers.eh_seats(eh_setup)
    entries, names, mapping, notes = layers.eh_entries(eh_setup, eh_entry, by_worth)
    most = max([len(v) for v in entries.values()] + [1])
    terrain = _terrain(16, _clamp(most + 2, 12, 40), bool(eh_setup.get("world")),
                       eh_setup.get("terrain") == "particle_cloud")
    setup = _setup(entries, names, attacker, defender, terrain)
    setup["converted"] = {"layer": LAYER_EH, "book": BOOK, "ruling": RULING_EH, "ships": mapping, "notes": notes}
    return setup


def _lose_weapons(design: EHDesign, before: Damage, count: int) -> tuple[str, ...]:
    return layers.lose_costliest(design.weapon_counts, before.weapons, count, lambda k: WEAPONS[k].bp,
                                 spared=("planetary_bombardment_array",))


def eh_carried(design: EHDesign, before: Damage, card: Card, hits: int) -> Damage:
    """XC45: what a survivor carries back. SS = hull left, so each hit it ends with is one hull
    point (never the last); every three hits one weapon system (the costliest left) and one force
    field generator; an MF lowered by its shield (IV.G) two engine points per MF lost (never the
    last)."""
    hits = max(0, int(hits))
    systems = hits // 3
    lost_mf = max(0, card.mf - max(0, card.ss - hits))
    return replace(
        before,
        hull=min(design.hull - 1, before.hull + hits),
        engine=min(max(before.engine, design.engine - 1), before.engine + 2 * lost_mf),
        force_field_generators=min(4, before.force_field_generators + systems) if design.force_field else 0,
        weapons=_lose_weapons(design, before, systems),
    )


def eh_result_back(eh_setup: Mapping[str, Any], book_setup: Mapping[str, Any], result: Mapping[str, Any]) -> dict:
    """XC45: the Star Sectors result as the Event Horizon result: destroyed stays destroyed (IV.F,
    VIII); the rest survived with the damage they carry (``eh_carried``). Star Sectors has no
    capture and no leaving the map. The winner holds the field (and the hex's world) if a ship of
    his survived."""
    cards = _cards(book_setup)

    def survivor(fate: Mapping[str, Any], seat: int, ship: Mapping[str, Any]) -> layers.Survived:
        design, before = EHDesign.from_dict(ship["design"]), Damage.from_json(ship.get("damage"))
        card = cards.get(int(fate["ship"])) or eh_card(design, before)
        carried = eh_carried(design, before, card, int(fate.get("damage", 0)))
        return layers.Survived("survived", carried.to_json(), holds=seat)

    return layers.eh_result(eh_setup, book_setup, result, book=BOOK, survivor=survivor, damage=Damage)


def _cards(book_setup: Mapping[str, Any]) -> dict[int, Card]:
    """The set-up's cards by ship id, numbered as ``new_battle`` numbers them."""
    out, n = {}, 0
    sides = book_setup.get("sides") or {}
    for seat in sorted(sides, key=int):
        for e in (sides[seat] or {}).get("ships") or []:
            n += 1
            if isinstance(e.get("card"), Mapping):
                out[n] = card_from_json(e["card"])
    return out


def eh_fleet(ships) -> list[dict]:
    """The converted entries of Event Horizon ships (``CampaignShip`` or what-if ``TrialShip``)."""
    return sorted((eh_entry(layers.eh_ship_json(s, i)) for i, s in enumerate(ships, 1)), key=by_worth)


# --- CAM units (XC46–XC51) --------------------------------------------------------------------


def _has(sd, name: str) -> bool:
    return any(a.lower() == name.lower() for a in sd.special_abilities)


def _bank(weapon_name: str) -> str | None:
    """XC46: a heavy torpedo line's advanced weapon bank (VI.B's names): photon QTL, plasma PTL;
    any other line (disruptor and drone torpedoes, phasers) none: its dice are in the CF."""
    low = weapon_name.lower()
    if "photon" in low:
        return "QTL"
    if "plasma" in low:
        return "PTL"
    return None


HANDLED = {"cloak", "carrier", "warp", "impulse", "adaption", "shield drain"}


def sd_card(sd, *, key: str = "cam", name: str = "", crippled: bool = False) -> Card:
    """XC46, XC47: the card of a CAM roster ship. CF = its attack dice (main + secondary ÷ 2 + AC
    flights ÷ 4, at most 12); a photon torpedo line a QTL bank, a plasma line a PTL bank, Shield
    Drain a TBP bank; DF = 2 + best shield (+1 Adaption); MF = Speed ÷ 2 (at least 1; a station 0);
    SS = hull + best shield (IV.F: the hits are to the shield); Cloak a cloaking device (VI.A); Warp
    two nacelles (IV.B), none without; hull 3 hexes from hull 20, 2 from 10. Crippled (5.7): SS at its
    crippled line + best shield, CF, DF and MF halved (rounded up), no cloak."""
    attack = sd.main_dice + sd.secondary // 2 + sd.ac // 4
    cf = min(12, attack)
    banks = [b for b in (_bank(w.name) for w in sd.main) if b]
    if _has(sd, "Shield Drain"):
        banks.append("TBP")  # XC46: its hits lower the target's DF (VI.B), as Shield Drain its shields
    banks = banks[:MAX_BANKS] if cf else []
    df = 2 + max(sd.shields) + _has(sd, "Adaption")
    mf = 0 if sd.speed is None else max(1, sd.speed // 2)
    shield = max(sd.shields)  # IV.F: "the hits a ship takes … are actually to the … force field shield"
    ss = _clamp(sd.hull + shield, 1, 40)
    cloaks = 1 if _has(sd, "Cloak") else 0
    if crippled:
        ss = _clamp((sd.crippled_at or sd.hull // 2) + shield, 1, ss)
        cf, df, mf, cloaks = math.ceil(cf / 2), math.ceil(df / 2), math.ceil(mf / 2), 0
        banks = banks if cf else []
    return make_card(key, (name or sd.name)[:40], "CAM", cf=cf, df=_clamp(df, 1, 12), mf=min(12, mf), ss=ss,
                  nacelles=2 if _has(sd, "Warp") and mf else 0, cloaks=cloaks, banks=tuple(banks),
                  arc="all" if cf else "none", hull=3 if sd.hull >= LONGEST_HULL else 2 if sd.hull >= 10 else 1)


# XC49: the counters.
AC_CARD = make_card("cam-ac", "Attack craft flight", "CAM", cf=2, df=4, mf=5, ss=2, arc="all")
BASE_CARD = make_card("cam-base", "Planetary Battery", "CAM", cf=6, df=6, mf=0, ss=16, banks=("PTL",), arc="all")


LONGEST_HULL = 20  # XC46: a hull of 20 or more is the longest card, 3 hexes (ruling SS4's cap)


def sections(sd, card: Card) -> int:
    """XC51: how many cards a CAM ship fights as. A hull that fills the longest card (XC46: 3 hexes
    from hull 20, SS4's cap) fights as as many whole cards as its worth at the rate holds (CAM points
    × ``SS_PER_CAM``, III's price of the catalogue), when that is two or more: III prices only the CF
    and devices, and past the longest card a bigger hull is only SS, which IV.F makes no stronger
    (the Borg Cube: one card of 10 points for a worth of 20). Any other ship is one card (the
    Valkyrie's shortfall is its attack craft, in its CF by XC46)."""
    if sd.hull < LONGEST_HULL or not card.points:
        return 1
    return max(1, math.floor(sd.points * SS_PER_CAM / card.points + 1e-9))


def unit_entries(unit: Mapping[str, Any], number: int = 0) -> list[dict]:
    """XC46–XC49, XC51: one CAM unit as converted set-up entries (a minefield none: not on the map);
    ``line`` the SS (summed over its sections, XC51) at or below which it comes back crippled (XC50)."""
    from tactical.rules.buoyz.play.setup import sd_from_json

    kind = unit.get("kind")
    if kind == "minefield":
        return []
    if kind in ("ac", "base"):
        c = AC_CARD if kind == "ac" else BASE_CARD
        c = replace(c, key=f"{c.key}-{number}", name=(unit.get("name") or c.name)[:40])
        return [{"card": c.to_json(), "crew": False, "line": c.ss // 2,
                 "notes": [f"CAM {kind} counter as a card: {c.name} (XC49)."]}]
    sd = sd_from_json(unit["sd"])
    crippled = bool(unit.get("crippled"))
    name = unit.get("name") or sd.name
    card = sd_card(sd, key=f"cam-{number}", name=name, crippled=crippled)
    n = sections(sd, sd_card(sd))
    notes = [f"CAM {sd.ship_class.value} '{sd.name}' ({sd.points} CAM points): "
             f"{card.points * n} Star Sectors points (004 III)."]
    if crippled:
        notes.append("Crippled (5.7): SS at its crippled line, CF, DF and MF halved, no cloak (XC47).")
    if _has(sd, "Carrier") or sd.ac:
        notes.append("Attack craft: half its flights in its CF (XC46).")
    other = [a for a in sd.special_abilities if a.lower() not in HANDLED]
    if other:
        notes.append(f"No Star Sectors equivalent, carried without effect in this battle: {', '.join(other)} (XC48).")
    line = 0 if crippled or not sd.crippled_at else min(card.ss - 1, sd.crippled_at + max(sd.shields))
    if n == 1:
        return [{"card": card.to_json(), "crew": False, "line": line, "notes": notes}]
    notes.append(f"Fights as {n} sections of one hull, each a card, the SS shared; destroyed when every "
                 "section is (XC51).")
    ss = [card.ss // n + (1 if i < card.ss % n else 0) for i in range(n)]
    hull = math.ceil(sd.hull / n)
    return [{"card": replace(card, key=f"{card.key}-{i + 1}", name=f"{name[:34]} ({i + 1}/{n})", ss=max(1, s),
                             hull=3 if hull >= LONGEST_HULL else 2 if hull >= 10 else 1).to_json(),
             "crew": False, "line": line, "notes": notes} for i, s in enumerate(ss)]


def unit_entry(unit: Mapping[str, Any], number: int = 0) -> dict | None:
    """The first of ``unit_entries`` (a ship of one card: its card)."""
    entries = unit_entries(unit, number)
    return entries[0] if entries else None


def cam_to_book(cam: Mapping[str, Any]) -> dict:
    """XC49: the Star Sectors setup of a CAM scenario; which ship is which unit under ``converted``."""
    attacker, defender = int(cam["attacker"]), int(cam["defender"])
    entries, names, units, notes, lines, n, made = {}, {}, {}, {}, {}, 0, 0
    for seat in sorted((attacker, defender)):
        side = (cam.get("sides") or {}).get(str(seat)) or {}
        entries[seat] = []
        pairs = [(u, unit_entries(u, made + i)) for i, u in enumerate(side.get("units") or [], 1)]
        made += len(pairs)
        for unit, entry in sorted(((u, e) for u, es in pairs for e in es), key=lambda p: by_worth(p[1])):
            n += 1
            entries[seat].append(entry)
            units[str(n)] = [seat, unit["uid"]]
            notes[str(n)] = entry["notes"]
            lines[str(n)] = entry["line"]
        names[seat] = side.get("name") or f"Seat {seat}"
    most = max([len(v) for v in entries.values()] + [1])
    nature = cam.get("nature")
    terrain = _terrain(16, _clamp(most + 2, 12, 40), nature in ("terrestrial_planet", "gas_giant"),
                       nature == "nebulae")
    setup = _setup(entries, names, attacker, defender, terrain)
    setup["converted"] = {"layer": LAYER_CAM, "book": BOOK, "ruling": RULING_CAM, "units": units, "notes": notes,
                          "crippled_at": lines}
    return setup


def cam_result_back(cam: Mapping[str, Any], book_setup: Mapping[str, Any], result: Mapping[str, Any]) -> dict:
    """XC50: the Star Sectors result as the CAM result: destroyed stays destroyed; a survivor whose
    SS left (SS − hits) is at or below its crippled line is crippled (5.7; not twice). The winner
    wins; the other side breaks contact (``tactical.hosts.cam.converted.apply_to_cam`` records it)."""
    converted = book_setup.get("converted") or {}
    lines = {int(k): int(v) for k, v in converted.get("crippled_at", {}).items()}
    cards = _cards(book_setup)
    hulls: dict[tuple[int, str], list[tuple[bool, int]]] = {}  # XC51: a unit's sections, (destroyed, SS left)
    line: dict[tuple[int, str], int] = {}
    for ship, key in layers.cam_fates(book_setup, result):
        n, card = int(ship["ship"]), cards.get(int(ship["ship"]))
        if card is None:
            continue
        dead = ship["fate"] == "destroyed"
        hulls.setdefault(key, []).append((dead, 0 if dead else card.ss - int(ship.get("damage", 0))))
        line.setdefault(key, lines.get(n, 0))
    marks = []
    for (seat, uid), parts in hulls.items():
        if all(dead for dead, _ in parts):
            marks.append(("destroyed", seat, uid))
        elif line[seat, uid] > 0 and sum(left for _, left in parts) <= line[seat, uid]:
            marks.append(("crippled", seat, uid))
    return layers.cam_result(result, marks, book=BOOK)


def cam_fleet(units: Sequence[Mapping[str, Any]]) -> list[dict]:
    return sorted((e for i, u in enumerate(units, 1) for e in unit_entries(u, i)), key=by_worth)


def sheets(book_setup: Mapping[str, Any], **kwargs) -> str:
    from .sheets import record_sheets

    return record_sheets(book_setup, **kwargs)


# XC41: the rate, what III makes of each layer's own ships (Event Horizon's sample designs, CAM's
# catalogue): Star Sectors points per BP and per CAM point.
SS_PER_BP = sum(eh_card(d).points for d in SAMPLE_DESIGNS) / sum(d.bp for d in SAMPLE_DESIGNS)
SS_PER_CAM = sum(sd_card(sd).points for sd in STARTER_CATALOGUE.values()) / sum(
    sd.points for sd in STARTER_CATALOGUE.values())


def _register() -> None:
    from tactical.rules import registry

    for layer, to_book, back, fleet, rulings in (
        (LAYER_EH, eh_to_book, eh_result_back, eh_fleet, "XC41-XC45"),
        (LAYER_CAM, cam_to_book, cam_result_back, cam_fleet, "XC41, XC46-XC51"),
    ):
        if (layer, BOOK) not in registry.CONVERTERS:
            registry.register_converter(registry.ConverterRecord(
                layer=layer, book=BOOK, to_book=to_book, result_back=back, sheets=sheets, fleet=fleet,
                rulings=rulings))


__all__ = ["AC_CARD", "BASE_CARD", "SS_PER_BP", "SS_PER_CAM", "cam_fleet", "cam_result_back", "cam_to_book",
           "eh_card", "eh_carried", "eh_entry", "eh_fleet", "eh_result_back", "eh_to_book", "sd_card", "sheets",
           "sections", "unit_entries", "unit_entry"]

_register()
