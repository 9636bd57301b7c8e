"""Star Sectors ship profile cards (004 II), the card designer that prices them (004 III) and the
site's house roster (pure Python).

The book prints no cards, so every card here is the site's (``house=True``), priced by III: "A
ship's combat factor determines its point value. Add one point for each cloaking device, advanced
weapon bank and each extra engineering phase" (ruling SS2). ``design(...)`` builds a card and
refuses what the book forbids, citing the section; ``price(card)`` is its points; a command crew
costs 4 more (VII.B) and is bought with the fleet, not printed on the card.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tactical.rules.kit import IllegalActionError

# 004 VI.B: the advanced weapon abbreviations; the starred three lower DF instead of damaging.
WEAPONS = {"PTL": "Plasma Torpedo Launcher", "QTL": "Quantum Torpedo Launcher", "DC": "Disrupter Cannon",
           "PC": "Phaser Cannon", "PLC": "Plasma Cannon", "PPB": "Phased Poleron Beam",
           "DWC": "Disrupter Wave Cannon", "TWC": "Tholian Web Caster", "TBP": "Tachyon Burst Projector",
           "EDT": "Energy Dampening Torpedo"}
DF_WEAPONS = frozenset({"TWC", "TBP", "EDT"})
# 004 IV.D: the four targeting diagrams (the pictures are lost: ruling SS3).
ARCS = {"none": (), "all": (0, 1, 2, 3, 4, 5), "front": (5, 0, 1), "bow": (0,)}
COMMAND_CREW_COST = 4  # 004 VII.B
MINE_COST, DILITHIUM_COST, TRILITHIUM_COST = 1, 2, 3  # 004 VII.B
MAX_HULL = 3  # ruling SS4


class CardError(IllegalActionError):
    """A card the book does not allow (``rule`` the section)."""


@dataclass(frozen=True)
class Card:
    key: str
    name: str
    power: str
    cf: int
    df: int
    mf: int
    ss: int
    cargo: int = 0
    nacelles: int = 0
    cloaks: int = 0
    banks: tuple[str, ...] = ()
    arc: str = "front"
    hull: int = 1
    extra_phases: int = 0
    house: bool = True  # the site's card, not the book's (the book prints none)

    @property
    def points(self) -> int:
        return price(self)

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "name": self.name, "power": self.power, "cf": self.cf, "df": self.df,
                "mf": self.mf, "ss": self.ss, "cargo": self.cargo, "nacelles": self.nacelles,
                "cloaks": self.cloaks, "banks": list(self.banks), "arc": self.arc, "hull": self.hull}


def price(card: Card) -> int:
    """004 III: CF, +1 per cloaking device, advanced weapon bank and extra engineering phase; at
    least 1 (ruling SS2: a ship with no combat factor is not free)."""
    return max(1, card.cf + card.cloaks + len(card.banks) + card.extra_phases)


def _whole(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise CardError("004 II", f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value


def design(key: str, name: str, power: str = "", *, cf: int, df: int, mf: int, ss: int, cargo: int = 0,
           nacelles: int = 0, cloaks: int = 0, banks: tuple[str, ...] | list[str] = (), arc: str | None = None,
           hull: int = 1, house: bool = True) -> Card:
    """A priced card, or ``CardError`` citing what the book forbids."""
    cf = _whole(cf, "CF (a number on a 12d)", 0, 12)
    df = _whole(df, "DF (a number on a 12d)", 0, 12)
    mf = _whole(mf, "MF", 0, 12)
    ss = _whole(ss, "SS", 1, 40)
    cargo = _whole(cargo, "Cargo", 0, 20)
    nacelles = _whole(nacelles, "the number of nacelles", 0, 6)
    cloaks = _whole(cloaks, "the number of cloaking devices", 0, 3)
    hull = _whole(hull, "the hull length in hexes (ruling SS4)", 1, MAX_HULL)
    banks = tuple(banks)
    unknown = [b for b in banks if b not in WEAPONS]
    if unknown:
        raise CardError("004 VI.B", f"no advanced weapon {unknown[0]!r}; one of {', '.join(WEAPONS)}")
    if len(banks) > 6:
        raise CardError("004 VI.B", "at most 6 advanced weapon banks on one card (ruling SS4)")
    if arc is None:
        arc = "none" if cf == 0 else "front"
    if arc not in ARCS:
        raise CardError("004 IV.D", f"the targeting diagram is one of {', '.join(ARCS)}, not {arc!r}")
    if (cf == 0) != (arc == "none"):
        raise CardError("004 IV.D", "a ship with no combat factor has the empty diagram, and only it")
    if cf == 0 and banks:
        raise CardError("004 IV.D", "a ship with no combat factor cannot target anything: no advanced banks")
    extra = 1 if nacelles >= 3 else 0  # 004 V.A: three or more nacelles give an extra engineering phase
    if not isinstance(key, str) or not key or not isinstance(name, str) or not name:
        raise CardError("004 II", "a card needs a key and a name")
    return Card(key, name, power, cf, df, mf, ss, cargo, nacelles, cloaks, banks, arc, hull, extra, house)


def card_from_json(data: Mapping[str, Any]) -> Card:
    if not isinstance(data, Mapping):
        raise CardError("004 II", "a card is a JSON object")
    allowed = {"key", "name", "power", "cf", "df", "mf", "ss", "cargo", "nacelles", "cloaks", "banks", "arc", "hull"}
    extra = set(data) - allowed
    if extra:
        raise CardError("004 II", f"a card has no field(s) {', '.join(sorted(extra))}")
    missing = {"key", "name", "cf", "df", "mf", "ss"} - set(data)
    if missing:
        raise CardError("004 II", f"a card needs {', '.join(sorted(missing))}")
    banks = data.get("banks", ())
    if not isinstance(banks, (list, tuple)):
        raise CardError("004 VI.B", "banks is a list of weapon abbreviations")
    return design(str(data["key"]), str(data["name"]), str(data.get("power", "")), cf=data["cf"], df=data["df"],
                  mf=data["mf"], ss=data["ss"], cargo=data.get("cargo", 0), nacelles=data.get("nacelles", 0),
                  cloaks=data.get("cloaks", 0), banks=tuple(banks), arc=data.get("arc"), hull=data.get("hull", 1))


def _house() -> dict[str, Card]:
    rows = [
        # key, name, power, cf, df, mf, ss, cargo, nacelles, cloaks, banks, arc, hull
        ("fed-scout", "Federation scout", "Federation", 2, 5, 4, 4, 1, 2, 0, (), "all", 1),
        ("fed-frigate", "Federation frigate", "Federation", 3, 6, 3, 6, 2, 2, 0, ("PC",), "front", 1),
        ("fed-cruiser", "Federation heavy cruiser", "Federation", 6, 6, 3, 10, 3, 2, 0, ("PTL", "QTL"), "front", 2),
        ("fed-dreadnought", "Federation dreadnought", "Federation", 8, 7, 2, 14, 4, 3, 0, ("QTL", "PC"), "all", 3),
        ("kli-raider", "Klingon raider", "Klingon", 3, 5, 4, 5, 1, 2, 1, ("DC",), "bow", 1),
        ("kli-battlecruiser", "Klingon battlecruiser", "Klingon", 5, 6, 3, 9, 2, 2, 1, ("DC", "DWC"), "front", 2),
        ("rom-warbird", "Romulan warbird", "Romulan", 6, 6, 2, 11, 3, 2, 1, ("PLC",), "front", 2),
        ("rom-bird", "Romulan bird-of-prey", "Romulan", 3, 5, 3, 5, 1, 1, 1, ("PTL",), "bow", 1),
        ("tho-webship", "Tholian web ship", "Tholian", 3, 6, 3, 6, 1, 0, 0, ("TWC",), "all", 1),
        ("car-hauler", "Cardassian hauler", "Cardassian", 1, 4, 2, 6, 6, 1, 0, (), "all", 1),
        ("car-galor", "Cardassian Galor", "Cardassian", 4, 6, 3, 8, 2, 2, 0, ("PPB", "EDT"), "front", 2),
        ("dom-attack", "Dominion attack ship", "Dominion", 4, 6, 4, 6, 1, 2, 0, ("TBP",), "front", 1),
        ("tender", "Fleet tender (no weapons)", "Federation", 0, 6, 3, 7, 6, 1, 0, (), "none", 1),
    ]
    out = {}
    for key, name, power, cf, df, mf, ss, cargo, nacelles, cloaks, banks, arc, hull in rows:
        out[key] = design(key, name, power, cf=cf, df=df, mf=mf, ss=ss, cargo=cargo, nacelles=nacelles,
                          cloaks=cloaks, banks=banks, arc=arc, hull=hull)
    return out


ROSTER: dict[str, Card] = _house()

__all__ = ["ARCS", "COMMAND_CREW_COST", "Card", "CardError", "DF_WEAPONS", "DILITHIUM_COST", "MINE_COST", "ROSTER",
           "TRILITHIUM_COST", "WEAPONS", "card_from_json", "design", "price"]
