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


# The designer's fields (004 II: what a profile card prints), in the order the page shows them.
DESIGN_FIELDS = ("name", "power", "cf", "df", "mf", "ss", "cargo", "nacelles", "cloaks", "banks", "arc", "hull")
# field: (low, high, what it is, the section); the site's bounds where the book gives none (rulings SS4, SS30).
BOUNDS = {
    "cf": (0, 12, "CF (a number on a 12d)", "004 II"),
    "df": (0, 12, "DF (a number on a 12d)", "004 II"),
    "mf": (0, 12, "MF", "004 II, ruling SS30"),
    "ss": (1, 40, "SS", "004 II, ruling SS30"),
    "cargo": (0, 20, "Cargo", "004 II, ruling SS30"),
    "nacelles": (0, 6, "the number of nacelles", "004 IV.B, ruling SS4"),
    "cloaks": (0, 3, "the number of cloaking devices", "004 VI.A, ruling SS4"),
    "hull": (1, MAX_HULL, "the hull length in hexes", "004 II, ruling SS4"),
}
MAX_BANKS = 6  # ruling SS4
MAX_NAME, MAX_POWER = 40, 24  # ruling SS30


class CardError(IllegalActionError):
    """A card the book does not allow (``rule`` the section of the first fault). ``problems`` maps
    every field at fault (``DESIGN_FIELDS``, or ``""`` for the whole card) to ``(section, message)``,
    in the order of the fields: the designer page shows each at its field."""

    def __init__(self, rule: str, message: str, problems: Mapping[str, tuple[str, str]] | None = None):
        super().__init__(rule, message)
        self.problems = dict(problems or {"": (rule, message)})

    @property
    def field(self) -> str:
        return next(iter(self.problems), "")


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
    house: bool = True  # the site's card, not the book's (the book prints none); False: a player's own

    @property
    def points(self) -> int:
        return price(self)

    def to_json(self) -> dict[str, Any]:
        out = {"key": self.key, "name": self.name, "power": self.power, "cf": self.cf, "df": self.df,
               "mf": self.mf, "ss": self.ss, "cargo": self.cargo, "nacelles": self.nacelles,
               "cloaks": self.cloaks, "banks": list(self.banks), "arc": self.arc, "hull": self.hull}
        if not self.house:
            out["house"] = False
        return out


def price(card: Card) -> int:
    """004 III: CF, +1 per cloaking device, advanced weapon bank and extra engineering phase; at
    least 1 (ruling SS2: a ship with no combat factor is not free)."""
    return max(1, card.cf + card.cloaks + len(card.banks) + card.extra_phases)


def _whole_ok(value: Any, low: int, high: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high


def _problems(values: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Every fault of a card's values, at its field, with its section (empty: a card the book allows)."""
    out: dict[str, tuple[str, str]] = {}
    for field, (low, high, what, rule) in BOUNDS.items():
        if not _whole_ok(values[field], low, high):
            out[field] = (rule, f"{what} must be a whole number from {low} to {high}, not {values[field]!r}"[:160])
    banks = values["banks"]
    unknown = [b for b in banks if not isinstance(b, str) or b not in WEAPONS]
    if unknown:
        out["banks"] = ("004 VI.B", f"no advanced weapon {str(unknown[0])[:20]!r}; one of {', '.join(WEAPONS)}")
    elif len(banks) > MAX_BANKS:
        out["banks"] = ("004 VI.B, ruling SS4", f"at most {MAX_BANKS} advanced weapon banks on one card")
    cf, arc = values["cf"], values["arc"]
    if not isinstance(arc, str) or arc not in ARCS:
        out["arc"] = ("004 IV.D", f"the targeting diagram is one of {', '.join(ARCS)}, not {str(arc)[:20]!r}")
    elif "cf" not in out and (cf == 0) != (arc == "none"):
        out["arc"] = ("004 IV.D", "a ship with no combat factor has the empty diagram, and only it")
    if "cf" not in out and cf == 0 and banks and "banks" not in out:
        out["banks"] = ("004 IV.D", "a ship with no combat factor cannot target anything: no advanced banks")
    return {f: out[f] for f in ("", *DESIGN_FIELDS) if f in out}


def design(key: str, name: str, power: str = "", *, cf: int, df: int, mf: int, ss: int, cargo: int = 0,
           nacelles: int = 0, cloaks: int = 0, banks: tuple[str, ...] | list[str] = (), arc: str | None = None,
           hull: int = 1, house: bool = True) -> Card:
    """A priced card, or ``CardError`` citing what the book forbids (every fault at its field)."""
    banks = tuple(banks)
    if arc is None:
        arc = "none" if cf == 0 else "front"
    values = {"cf": cf, "df": df, "mf": mf, "ss": ss, "cargo": cargo, "nacelles": nacelles, "cloaks": cloaks,
              "hull": hull, "banks": banks, "arc": arc}
    problems = _problems(values)
    if not isinstance(key, str) or not key or not isinstance(name, str) or not name:
        problems = {"name": ("004 II", "a card needs a key and a name"), **problems}
    if problems:
        rule, message = next(iter(problems.values()))
        raise CardError(rule, message, problems)
    extra = 1 if nacelles >= 3 else 0  # 004 V.A: three or more nacelles give an extra engineering phase
    return Card(key, name, power, cf, df, mf, ss, cargo, nacelles, cloaks, banks, arc, hull, extra, house)


def design_from(data: Any, key: str = "own") -> Card:
    """The card designer (issue 28 item 1): a player's card from the designer's fields
    (``DESIGN_FIELDS``: the page's form or the API's JSON) as ``key``, checked field by field and
    priced by III; marked his, not the site's (``house=False``). ``CardError`` names every field at
    fault with its section (``problems``)."""
    if not isinstance(data, Mapping):
        raise CardError("004 II", f"a card is an object of its fields ({', '.join(DESIGN_FIELDS)})")
    unknown = sorted(str(k)[:20] for k in data if k not in DESIGN_FIELDS)
    if unknown:
        raise CardError("004 II", f"a card has no field(s) {', '.join(unknown)} (its fields: "
                        f"{', '.join(DESIGN_FIELDS)})")
    problems: dict[str, tuple[str, str]] = {}
    name, power = data.get("name", ""), data.get("power", "")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME or not name.isprintable():
        problems["name"] = ("004 II, ruling SS30", f"a card needs a name of 1 to {MAX_NAME} printable characters")
    if not isinstance(power, str) or len(power.strip()) > MAX_POWER or not power.isprintable():
        problems["power"] = ("004 II, ruling SS30", f"the power is at most {MAX_POWER} printable characters")
    banks = data.get("banks", [])
    if not isinstance(banks, (list, tuple)):
        problems["banks"] = ("004 VI.B", "the advanced weapon banks are a list of abbreviations")
        banks = ()
    values = {f: data.get(f, 0) for f in ("cf", "df", "mf", "ss", "cargo", "nacelles", "cloaks")}
    values.update(hull=data.get("hull", 1), banks=tuple(banks), arc=data.get("arc") or None)
    if values["arc"] is None:
        values["arc"] = "none" if values["cf"] == 0 else "front"
    for field, problem in _problems(values).items():
        problems.setdefault(field, problem)
    if problems:
        ordered = {f: problems[f] for f in ("", *DESIGN_FIELDS) if f in problems}
        rule, message = next(iter(ordered.values()))
        raise CardError(rule, message, ordered)
    return design(key, name.strip(), power.strip(), house=False, **values)


def card_from_json(data: Mapping[str, Any]) -> Card:
    if not isinstance(data, Mapping):
        raise CardError("004 II", "a card is a JSON object")
    allowed = {"key", "name", "power", "cf", "df", "mf", "ss", "cargo", "nacelles", "cloaks", "banks", "arc", "hull",
               "house"}
    extra = set(data) - allowed
    if extra:
        raise CardError("004 II", f"a card has no field(s) {', '.join(sorted(map(str, extra)))}")
    missing = {"key", "name", "cf", "df", "mf", "ss"} - set(data)
    if missing:
        raise CardError("004 II", f"a card needs {', '.join(sorted(missing))}")
    banks = data.get("banks", ())
    if not isinstance(banks, (list, tuple)):
        raise CardError("004 VI.B", "banks is a list of weapon abbreviations")
    return design(str(data["key"]), str(data["name"]), str(data.get("power", "")), cf=data["cf"], df=data["df"],
                  mf=data["mf"], ss=data["ss"], cargo=data.get("cargo", 0), nacelles=data.get("nacelles", 0),
                  cloaks=data.get("cloaks", 0), banks=tuple(banks), arc=data.get("arc"), hull=data.get("hull", 1),
                  house=data.get("house", True) is not False)


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

__all__ = ["ARCS", "BOUNDS", "COMMAND_CREW_COST", "Card", "CardError", "DESIGN_FIELDS", "DF_WEAPONS", "DILITHIUM_COST",
           "MINE_COST", "ROSTER", "TRILITHIUM_COST", "WEAPONS", "card_from_json", "design", "design_from", "price"]
