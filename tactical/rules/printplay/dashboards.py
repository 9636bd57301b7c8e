"""Print&Play dashboards (``seeds/001_…`` "Dashboards"), the dashboard designer and the house
roster (pure Python).

A ``Dashboard`` is one printed ship card: class, type, points, shields per side with the boosted
maximum in brackets, hull, impulse, sensors, WPS, ECM, ablative armour, emergency power,
abilities, and its weapons (quantity, hit, damage, range, arc, extras). The book prints one
dashboard (the Constitution, ``source="book"``); every other ship is the site's (``source="site"``,
ruling PP2), built with the designer (``design``/``validate``) so its points follow one formula
(``points_for``, ruling PP3).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tactical.rules.kit import IllegalActionError

RULE = "001 Dashboards"
SIDES = ("fore", "aft", "port", "starboard")
SIDE_LETTER = {"fore": "F", "aft": "A", "port": "P", "starboard": "S"}
FACTIONS = ("Federation", "Klingons", "Romulans", "Dominion", "Borg")
# 001 Collisions' table (escort: ruling PP11, as a frigate)
TYPE_DICE = {"frigate": 1, "escort": 1, "destroyer": 2, "light cruiser": 3, "heavy cruiser": 4, "battleship": 5}
TYPES = tuple(TYPE_DICE)
ABILITIES = ("cloak", "fast turn", "ablative armour", "regenerative ablative armour", "regenerate")
KINDS = ("beam", "cannon", "torpedo")  # 001 Attack: beams are absorbed in part, cannons and torpedoes whole
MOUNTS = {"F": (0.0,), "A": (180.0,), "P": (270.0,), "S": (90.0,), "P/S": (270.0, 90.0), "F/A": (0.0, 180.0)}
WIDTHS = (90, 180, 270, 360)


class DashboardError(IllegalActionError):
    """A dashboard the designer refuses (``rule`` names the section; ``field`` the dashboard's
    field at fault, as ``to_json`` names it: "hull", "shields.port", "weapons.0.hit"; "" for the whole)."""

    def __init__(self, rule: str, message: str, field: str = ""):
        super().__init__(rule, message)
        self.field = field


@dataclass(frozen=True)
class Weapon:
    """One line of a dashboard's weapons. ``mount``: where it sits (F, A, P, S; "P/S" is one
    mount each side, the quantity split between them, ruling PP4); ``arc`` the width of its arc
    in degrees centred on the mount; ``hit`` the "+N" column; ``minus_shields`` the "−N vs
    shields" extra; ``burst`` the "Burst N" extra (dice per weapon, ruling PP5)."""

    name: str
    mount: str
    qty: int
    hit: int
    dmg: int
    range: int
    arc: int
    kind: str = "beam"
    minus_shields: int = 0
    burst: int = 1

    @property
    def secondary(self) -> bool:
        """001 Secondary Weapons: ballistic weapons (torpedoes)."""
        return self.kind == "torpedo"

    def extra(self) -> str:
        bits = []
        if self.minus_shields:
            bits.append(f"-{self.minus_shields} vs shields")
        if self.burst > 1:
            bits.append(f"Burst {self.burst}")
        return ", ".join(bits)

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Dashboard:
    key: str
    name: str
    faction: str
    type: str
    points: int
    shields: tuple[int, int, int, int]  # fore, aft, port, starboard
    shield_max: int  # the bracket: what any side may be boosted to
    hull: int
    impulse: int
    sensors: int = 0
    wps: int = 0
    ecm: int = 0
    ablative: int = 0
    emergency: int = 0
    abilities: tuple[str, ...] = ()
    weapons: tuple[Weapon, ...] = ()
    source: str = "site"
    notes: str = field(default="", compare=False)

    def has(self, ability: str) -> bool:
        return ability in self.abilities

    def to_json(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k != "weapons"}
        out["shields"] = list(self.shields)
        out["abilities"] = list(self.abilities)
        out["weapons"] = [w.to_json() for w in self.weapons]
        return out


def _shown(value: Any) -> str:
    """A refused value as the error shows it (a huge number is not spelled out: its digits may be many)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** 12:
        return "a number that large"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _a_name(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip()) and len(value) <= 40 and value.isprintable()


def _whole(value: Any, what: str, low: int, high: int, field: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise DashboardError(RULE, f"{what} must be a whole number from {low} to {high}, not {_shown(value)}", field)
    return value


def weapon_points(w: Weapon) -> int:
    """Ruling PP3: a weapon line is worth qty × dice × damage × (7 − hit) × range ÷ 48, arcs
    wider than 90° a quarter more per 90°, secondaries half (every second turn)."""
    value = w.qty * w.burst * max(w.dmg, 1) * (7 - w.hit) * w.range / 48
    value *= 1 + (w.arc - 90) / 360
    if w.secondary:
        value /= 2
    return round(value)


def points_for(d: Dashboard) -> int:
    """Ruling PP3, the site's points formula (the book prints no formula)."""
    value = (d.hull + sum(d.shields) / 4 + d.shield_max / 8 + d.impulse * 2 + (d.sensors + d.ecm) * 4
             + max(d.wps, 0) * 3 + d.ablative / 2 + d.emergency)
    value += 8 * len([a for a in d.abilities if a != "ablative armour"])
    return max(1, round(value + sum(weapon_points(w) for w in d.weapons)))


def validate_weapon(w: Weapon) -> Weapon:
    if not _a_name(w.name):
        raise DashboardError(RULE, f"a weapon needs a name of 1 to 40 printable characters, not {_shown(w.name)}",
                             "name")
    if w.mount not in MOUNTS:
        raise DashboardError(RULE, f"{w.name}: the mount must be one of {', '.join(MOUNTS)}, not {w.mount!r}",
                             "mount")
    if w.kind not in KINDS:
        raise DashboardError(RULE, f"{w.name}: the kind must be one of {', '.join(KINDS)}, not {w.kind!r}", "kind")
    _whole(w.qty, f"{w.name}: Qty", 1, 12, "qty")
    _whole(w.hit, f"{w.name}: Hit", 2, 6, "hit")
    _whole(w.dmg, f"{w.name}: Dmg", 1, 12, "dmg")
    _whole(w.range, f"{w.name}: Range (inches)", 1, 24, "range")
    if w.arc not in WIDTHS:
        raise DashboardError(RULE, f"{w.name}: the arc must be one of {WIDTHS} degrees, not {w.arc!r}", "arc")
    _whole(w.minus_shields, f"{w.name}: '-N vs shields'", 0, 6, "minus_shields")
    _whole(w.burst, f"{w.name}: Burst", 1, 6, "burst")
    if w.mount in ("P/S", "F/A") and w.qty % 2:
        raise DashboardError(RULE, f"{w.name}: a {w.mount} line splits its quantity between two mounts "
                             "(ruling PP4): an even Qty", "qty")
    return w


def validate(d: Dashboard) -> Dashboard:
    """The designer's checks (ruling PP2): every field of the printed dashboard within bounds."""
    if not _a_name(d.name):
        raise DashboardError(RULE, f"the class needs a name of 1 to 40 printable characters, not {_shown(d.name)}",
                             "name")
    if d.faction not in FACTIONS:
        raise DashboardError(RULE, f"the faction must be one of {', '.join(FACTIONS)}, not {d.faction!r}",
                             "faction")
    if d.type not in TYPES:
        raise DashboardError(RULE, f"the type must be one of {', '.join(TYPES)}, not {d.type!r}", "type")
    if len(d.shields) != 4:
        raise DashboardError(RULE, "shields are four numbers: fore, aft, port, starboard", "shields")
    for side, value in zip(SIDES, d.shields):
        _whole(value, f"the {side} shields", 0, 60, f"shields.{side}")
    _whole(d.shield_max, "the shields' boosted maximum (in brackets)", max(d.shields), 80, "shield_max")
    _whole(d.hull, "Hull", 1, 120, "hull")
    _whole(d.impulse, "Impulse", 1, 8, "impulse")
    for name in ("sensors", "wps", "ecm"):
        _whole(getattr(d, name), name.upper() if name != "sensors" else "Sensors", -3, 3, name)
    _whole(d.ablative, "Ablative", 0, 40, "ablative")
    _whole(d.emergency, "Emergency power", 0, 10, "emergency")
    unknown = [a for a in d.abilities if a not in ABILITIES]
    if unknown:
        raise DashboardError(RULE, f"unknown abilities {unknown}; one of: {', '.join(ABILITIES)}", "abilities")
    armour = [a for a in d.abilities if a in ("ablative armour", "regenerative ablative armour")]
    if armour and d.ablative <= 0:
        raise DashboardError(RULE, "ablative armour needs an Ablative value above 0", "ablative")
    if d.ablative and not armour:
        raise DashboardError(RULE, "an Ablative value needs the ablative armour ability (001 Ship Abilities)",
                             "abilities")
    if not d.weapons:
        raise DashboardError(RULE, "every ship has primary weapons (001 Dashboards, Weapons)", "weapons")
    if not any(not w.secondary for w in d.weapons):
        raise DashboardError(RULE, "every ship has at least one primary weapon (phasers, disruptors)", "weapons")
    for i, w in enumerate(d.weapons):
        try:
            validate_weapon(w)
        except DashboardError as exc:
            raise DashboardError(RULE, exc.message, f"weapons.{i}.{exc.field}".rstrip(".")) from None
    return d


def design(key: str, name: str, faction: str, type: str, shields, shield_max: int, hull: int, impulse: int,
           weapons, source: str = "site", **rest) -> Dashboard:
    """The dashboard designer: a validated dashboard whose points are ``points_for``'s."""
    sh = tuple(shields) if isinstance(shields, (list, tuple)) else (shields,) * 4
    d = Dashboard(key=key, name=name, faction=faction, type=type, points=0, shields=sh, shield_max=shield_max,
                  hull=hull, impulse=impulse, weapons=tuple(weapons), source=source,
                  abilities=tuple(rest.pop("abilities", ())), **rest)
    validate(d)
    return Dashboard(**{**d.__dict__, "points": points_for(d)})


def weapon_from_json(raw: Mapping[str, Any]) -> Weapon:
    if not isinstance(raw, Mapping):
        raise DashboardError(RULE, "a weapon is an object")
    known = {"name", "mount", "qty", "hit", "dmg", "range", "arc", "kind", "minus_shields", "burst"}
    if set(raw) - known or not {"name", "mount", "qty", "hit", "dmg", "range", "arc"} <= set(raw):
        raise DashboardError(RULE, f"a weapon has the fields {sorted(known)}")
    return validate_weapon(Weapon(**raw))


def from_json(raw: Mapping[str, Any]) -> Dashboard:
    """A dashboard as stored (``to_json``), checked again by the designer."""
    if not isinstance(raw, Mapping):
        raise DashboardError(RULE, "a dashboard is an object")
    data = dict(raw)
    try:
        data["shields"] = tuple(data["shields"])
        data["abilities"] = tuple(data.get("abilities", ()))
        data["weapons"] = tuple(weapon_from_json(w) for w in data.get("weapons", ()))
        d = Dashboard(**data)
    except (KeyError, TypeError) as exc:
        raise DashboardError(RULE, f"not a dashboard: {exc}") from None
    return validate(d)


# --- the roster -------------------------------------------------------------------------------

def _w(name, mount, qty, hit, dmg, rng, arc, kind="beam", minus=0, burst=1):
    return Weapon(name, mount, qty, hit, dmg, rng, arc, kind, minus, burst)


def _phasers(front, side, aft, dmg=2, rng=12, name="Phaser"):
    out = [_w(f"{name} (F)", "F", front, 3, dmg, rng, 270)]
    if side:
        out.append(_w(f"{name} (P/S)", "P/S", side, 3, dmg, rng, 90))
    if aft:
        out.append(_w(f"{name} (A)", "A", aft, 3, dmg, rng, 90))
    return out


def _torps(name, fore_burst, aft_burst=0, dmg=5, hit=4, minus=2, rng=8):
    out = [_w(f"{name} (F)", "F", 1, hit, dmg, rng, 90, "torpedo", minus, fore_burst)]
    if aft_burst:
        out.append(_w(f"{name} (A)", "A", 1, hit, dmg, rng, 90, "torpedo", minus, aft_burst))
    return out


def _roster() -> dict[str, Dashboard]:
    ships = [
        # The book's one printed dashboard (001 Dashboards): the Constitution.
        design("constitution", "Constitution", "Federation", "heavy cruiser", 20, 30, 30, 6,
               _phasers(5, 2, 2) + _torps("Photon Torpedos", 5, 3), source="book", emergency=2),
        design("miranda", "Miranda", "Federation", "light cruiser", 14, 20, 20, 6,
               _phasers(3, 2, 1) + _torps("Photon Torpedos", 3), emergency=1),
        design("saber", "Saber", "Federation", "escort", 8, 12, 10, 8, _phasers(2, 0, 1), sensors=1),
        design("defiant", "Defiant", "Federation", "destroyer", 12, 18, 16, 7,
               [_w("Pulse Phaser Cannon (F)", "F", 4, 3, 3, 10, 90, "cannon")] + _torps("Quantum Torpedos", 3),
               abilities=("ablative armour",), ablative=6, emergency=1),
        design("sovereign", "Sovereign", "Federation", "battleship", 28, 40, 44, 5,
               _phasers(6, 4, 3, dmg=3) + _torps("Quantum Torpedos", 5, 3, dmg=6), sensors=1, emergency=3),
        design("b_rel", "B'rel", "Klingons", "frigate", 8, 12, 10, 8,
               [_w("Disruptor Cannon (F)", "F", 2, 3, 3, 10, 90, "cannon")] + _torps("Photon Torpedos", 1),
               abilities=("cloak",)),
        design("k_vort", "K'Vort", "Klingons", "destroyer", 12, 16, 16, 7,
               [_w("Disruptor Cannon (F)", "F", 3, 3, 3, 10, 90, "cannon"), _w("Disruptor (A)", "A", 1, 3, 2, 10, 90)]
               + _torps("Photon Torpedos", 2), abilities=("cloak",)),
        design("k_tinga", "K'tinga", "Klingons", "light cruiser", 16, 22, 24, 6,
               [_w("Disruptor (F)", "F", 4, 3, 2, 12, 180), _w("Disruptor (P/S)", "P/S", 2, 3, 2, 12, 90)]
               + _torps("Photon Torpedos", 3, 1), emergency=1),
        design("vor_cha", "Vor'cha", "Klingons", "heavy cruiser", 20, 28, 32, 6,
               [_w("Disruptor (F)", "F", 5, 3, 3, 12, 180), _w("Disruptor (P/S)", "P/S", 2, 3, 2, 12, 90),
                _w("Disruptor (A)", "A", 2, 3, 2, 12, 90)] + _torps("Photon Torpedos", 4, 2), emergency=2),
        design("negh_var", "Negh'Var", "Klingons", "battleship", 26, 36, 46, 5,
               [_w("Disruptor (F)", "F", 6, 3, 3, 12, 270), _w("Disruptor (P/S)", "P/S", 4, 3, 3, 12, 90),
                _w("Disruptor (A)", "A", 3, 3, 2, 12, 90)] + _torps("Photon Torpedos", 5, 3), emergency=3),
        design("talon", "Talon", "Romulans", "frigate", 8, 12, 10, 8,
               [_w("Disruptor (F)", "F", 2, 3, 2, 10, 180)], abilities=("cloak", "fast turn"), ecm=1),
        design("valdore", "Valdore", "Romulans", "destroyer", 12, 16, 16, 7,
               [_w("Disruptor (F)", "F", 3, 3, 2, 12, 180)] + _torps("Plasma Torpedo", 2, dmg=6, minus=0),
               abilities=("cloak",)),
        design("griffin", "Griffin", "Romulans", "light cruiser", 16, 22, 22, 6,
               [_w("Disruptor (F)", "F", 4, 3, 2, 12, 180), _w("Disruptor (A)", "A", 2, 3, 2, 12, 90)]
               + _torps("Plasma Torpedo", 3, dmg=6, minus=0), abilities=("cloak",)),
        design("d_deridex", "D'deridex", "Romulans", "heavy cruiser", 22, 30, 36, 5,
               [_w("Disruptor (F)", "F", 5, 3, 3, 12, 270), _w("Disruptor (P/S)", "P/S", 2, 3, 2, 12, 90)]
               + _torps("Plasma Torpedo", 4, 2, dmg=6, minus=0), abilities=("cloak",), emergency=2),
        design("scimitar", "Scimitar", "Romulans", "battleship", 28, 40, 44, 5,
               [_w("Disruptor (F)", "F", 6, 3, 3, 12, 270), _w("Disruptor (P/S)", "P/S", 4, 3, 3, 12, 90),
                _w("Disruptor (A)", "A", 2, 3, 3, 12, 90)] + _torps("Thalaron Torpedo", 5, 3, dmg=6),
               abilities=("cloak", "ablative armour"), ablative=8, emergency=3),
        design("jem_hadar_fighter", "Jem'Hadar Fighter", "Dominion", "frigate", 8, 12, 10, 8,
               [_w("Polaron Beam (F)", "F", 2, 3, 2, 12, 180)], abilities=("fast turn",), sensors=1),
        design("jem_hadar_destroyer", "Jem'Hadar Destroyer", "Dominion", "destroyer", 12, 16, 16, 7,
               [_w("Polaron Beam (F)", "F", 3, 3, 2, 12, 180)] + _torps("Polaron Torpedo", 2), sensors=1),
        design("jem_hadar_cruiser", "Jem'Hadar Cruiser", "Dominion", "light cruiser", 16, 22, 24, 6,
               [_w("Polaron Beam (F)", "F", 4, 3, 2, 12, 270), _w("Polaron Beam (A)", "A", 2, 3, 2, 12, 90)]
               + _torps("Polaron Torpedo", 3), sensors=1, emergency=1),
        design("jem_hadar_battlecruiser", "Jem'Hadar Battlecruiser", "Dominion", "heavy cruiser", 22, 30, 34, 6,
               [_w("Polaron Beam (F)", "F", 5, 3, 3, 12, 270), _w("Polaron Beam (P/S)", "P/S", 2, 3, 2, 12, 90),
                _w("Polaron Beam (A)", "A", 2, 3, 2, 12, 90)] + _torps("Polaron Torpedo", 4, 2),
               sensors=1, emergency=2),
        design("jem_hadar_battleship", "Jem'Hadar Battleship", "Dominion", "battleship", 28, 38, 46, 5,
               [_w("Polaron Beam (F)", "F", 6, 3, 3, 12, 270), _w("Polaron Beam (P/S)", "P/S", 4, 3, 3, 12, 90),
                _w("Polaron Beam (A)", "A", 3, 3, 3, 12, 90)] + _torps("Polaron Torpedo", 5, 3),
               sensors=1, emergency=3),
        design("borg_probe", "Borg Probe", "Borg", "frigate", 8, 12, 14, 6,
               [_w("Cutting Beam (F)", "F", 2, 3, 2, 10, 360)], abilities=("regenerate",)),
        design("borg_interceptor", "Borg Interceptor", "Borg", "escort", 8, 10, 12, 8,
               [_w("Cutting Beam (F)", "F", 2, 3, 2, 10, 180)], abilities=("regenerate",)),
        design("borg_sphere", "Borg Sphere", "Borg", "light cruiser", 16, 24, 26, 5,
               [_w("Cutting Beam (F)", "F", 4, 3, 2, 12, 360)] + _torps("Borg Torpedo", 2),
               abilities=("regenerate", "regenerative ablative armour"), ablative=6),
        design("borg_diamond", "Borg Tactical Diamond", "Borg", "heavy cruiser", 20, 30, 36, 5,
               [_w("Cutting Beam (F)", "F", 5, 3, 3, 12, 360)] + _torps("Borg Torpedo", 3),
               abilities=("regenerate",), sensors=1),
        design("borg_cube", "Borg Cube", "Borg", "battleship", 30, 44, 60, 4,
               [_w("Cutting Beam (F)", "F", 6, 3, 3, 12, 360), _w("Tractor Beam (F)", "F", 2, 3, 2, 6, 360)]
               + _torps("Borg Torpedo", 4), abilities=("regenerate", "regenerative ablative armour"), ablative=10),
    ]
    return {d.key: d for d in ships}


ROSTER: dict[str, Dashboard] = _roster()

__all__ = ["ABILITIES", "Dashboard", "DashboardError", "FACTIONS", "ROSTER", "SIDES", "TYPES", "TYPE_DICE",
           "Weapon", "design", "from_json", "points_for", "validate"]
