"""The setup of a Buoyz 'N Da 'Hood battle played online (``Battle.setup``; its format is in the
package's docstring): ``setup_for`` writes one from fleets of SDs, ``initial_state`` reads one
(``SetupError`` names what is wrong), a custom SD travels as JSON (``sd_to_json`` /
``sd_from_json``, held to T'Corr's limits).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .. import board
from ..deploy import deploy, lurk
from ..sds import CATALOGUE, SD, SDError, ShipClass, Weapon, validate_sd
from ..state import DEFAULT_TABLE, DEFAULT_TURN_CAP, MAX_SIDES, Celestial, IllegalActionError, new_battle
from .fog import PlayState

SETUP_RULE = "000 2.2 Pre-Game"
MAX_SHIPS = 60
OBJECT_KINDS = ("planet", "moon", "asteroids", "nebula")


class SetupError(IllegalActionError):
    def __init__(self, message: str):
        super().__init__(SETUP_RULE, message)


def setup_for(fleets: Mapping[int, Sequence], *, names: Mapping[int, str] | None = None,
              colours: Mapping[int, str] | None = None, attacker: int | None = None,
              table: tuple[float, float] = DEFAULT_TABLE, turn_cap: int = DEFAULT_TURN_CAP,
              objects: Sequence[Mapping] = ()) -> dict:
    """A battle setup from two to six fleets of SDs (``SD`` values or catalogue keys), the
    attacker first unless ``attacker`` says (the second seat defends)."""
    seats = list(fleets)
    if not 2 <= len(seats) <= MAX_SIDES:
        raise SetupError(f"a battle needs two to {MAX_SIDES} fleets (ruling BZ83), not {len(seats)}")
    if attacker is not None:
        seats.sort(key=lambda s: s != attacker)
    names = dict(names or {})
    colours = {seat: board.DEFAULT_COLOURS[i] for i, seat in enumerate(seats)} | dict(colours or {})
    sides = {}
    for seat in seats:
        ships = [{"sd": sd if isinstance(sd, str) else sd_entry(sd)} for sd in fleets[seat]]
        sides[str(seat)] = {"name": names.get(seat, f"Side {seat}"), "ships": ships}
        if seat in colours:
            sides[str(seat)]["colour"] = colours[seat]
    setup = {"attacker": seats[0], "defender": seats[1], "table": list(table), "turn_cap": turn_cap,
             "sides": sides, "objects": [dict(o) for o in objects]}
    if len(seats) > 2:
        setup["seats"] = seats
    return setup


SD_INTS = ("speed", "turning", "target_size", "hull", "crippled_at", "command", "ac", "ac_capacity", "secondary",
           "close_defence")
SD_FIELDS = ("key", "ship_class", "name", *SD_INTS, "shields", "special_abilities", "main", "periods")
MAX_SD_TEXT = 120


def sd_to_json(sd: SD) -> dict[str, Any]:
    """An SD as a setup entry's JSON (every field)."""
    return {"key": sd.key, "ship_class": getattr(sd.ship_class, "value", sd.ship_class), "name": sd.name,
            **{f: getattr(sd, f) for f in SD_INTS}, "shields": list(sd.shields),
            "special_abilities": list(sd.special_abilities), "main": [[w.count, w.name, w.arc] for w in sd.main],
            "periods": list(sd.periods), "notes": sd.notes}


def sd_entry(sd: SD) -> str | dict[str, Any]:
    """The catalogue key of a catalogue SD, else the whole SD."""
    return sd.key if CATALOGUE.get(sd.key) == sd else sd_to_json(sd)


def _sd_text(value, what: str, name: str, *, limit: int = MAX_SD_TEXT) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise SetupError(f"SD {name!r}: {what} must be text of at most {limit} characters, not {value!r}")
    return value


def _sd_int(value, what: str, name: str) -> int | None:
    if value is None and what in ("speed", "turning"):
        return None  # "N/A": a space station or 'shore' base (1.5)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SetupError(f"SD {name!r}: {what} must be a whole number, not {value!r}")
    return value


def sd_from_json(data: Any) -> SD:
    """A whole SD from a setup entry, held to 1.5 and T'Corr's limits; ``SetupError`` names the
    field or the limit broken."""
    if not isinstance(data, Mapping):
        raise SetupError(f"an SD is a catalogue key or a whole SD (a JSON object), not {data!r}")
    name = data.get("key") if isinstance(data.get("key"), str) else "?"
    missing = [f for f in SD_FIELDS if f not in data]
    if missing:
        raise SetupError(f"SD {name!r} has no {', '.join(missing)} (000 1.5: a custom SD gives every field)")
    unknown = sorted(str(k) for k in set(data) - set(SD_FIELDS) - {"notes"})
    if unknown:
        raise SetupError(f"SD {name!r}: SDs have no field(s) {', '.join(unknown)}")
    key = _sd_text(data["key"], "the key", name, limit=40)
    try:
        ship_class = ShipClass(data["ship_class"])
    except (ValueError, TypeError):
        raise SetupError(f"SD {key!r}: unknown ship class {data['ship_class']!r} "
                         f"(one of {', '.join(c.value for c in ShipClass)})") from None
    ints = {f: _sd_int(data[f], f, key) for f in SD_INTS}
    lists = {}
    for f, size in (("shields", 4), ("periods", 2)):
        value = data[f]
        if not isinstance(value, (list, tuple)) or len(value) != size:
            raise SetupError(f"SD {key!r}: {f} is a list of {size} whole numbers, not {value!r}")
        lists[f] = tuple(_sd_int(v, f, key) for v in value)
    abilities = data["special_abilities"]
    if not isinstance(abilities, (list, tuple)) or len(abilities) > 50:
        raise SetupError(f"SD {key!r}: special_abilities is a list of names")
    main = data["main"]
    if not isinstance(main, (list, tuple)) or len(main) > 50:
        raise SetupError(f"SD {key!r}: main is a list of [count, name, arc] weapon lines")
    weapons = []
    for line in main:
        if not isinstance(line, (list, tuple)) or len(line) not in (2, 3):
            raise SetupError(f"SD {key!r}: a main weapon line is [count, name, arc], not {line!r}")
        weapons.append(Weapon(_sd_int(line[0], "a main weapon's count", key),
                              _sd_text(line[1], "a weapon's name", key),
                              _sd_text(line[2] if len(line) == 3 else "", "a weapon's arc", key)))
    sd = SD(key=key, ship_class=ship_class, name=_sd_text(data["name"], "the name", key), **ints,
            shields=lists["shields"], special_abilities=tuple(_sd_text(a, "a special ability", key) for a in abilities),
            main=tuple(weapons), periods=lists["periods"],
            notes=_sd_text(data.get("notes", ""), "the notes", key, limit=2000))
    try:
        return validate_sd(sd)
    except SDError as exc:
        raise SetupError(str(exc)) from None


def entry_sd(value: Any) -> SD:
    """A setup ship entry's ``sd``: a catalogue key, or a whole SD (``sd_from_json``)."""
    if isinstance(value, str):
        if value not in CATALOGUE:
            raise SetupError(f"no SD {value!r} in the catalogue")
        return CATALOGUE[value]
    if isinstance(value, Mapping):
        return sd_from_json(value)
    raise SetupError(f"no SD {value!r} in the catalogue")


def _number(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SetupError(f"{what} must be a number, not {value!r}")
    return float(value)


def initial_state(setup: Mapping[str, Any], dice=None) -> PlayState:
    """The battle before its first Initiative Phase (nothing is rolled)."""
    try:
        attacker, defender = int(setup["attacker"]), int(setup["defender"])
        sides = setup.get("sides") or {}
        table = tuple(_number(v, "the table size") for v in setup.get("table") or DEFAULT_TABLE)
        turn_cap = int(setup.get("turn_cap") or DEFAULT_TURN_CAP)
        seats = [int(seat) for seat in setup.get("seats") or (attacker, defender)]
    except (KeyError, TypeError, ValueError) as exc:
        raise SetupError(f"the setup cannot be read: {exc}") from None
    if not 2 <= len(seats) <= MAX_SIDES or len(set(seats)) != len(seats) or not {attacker, defender} <= set(seats):
        raise SetupError(f"'seats' lists two to {MAX_SIDES} different seats, the attacker's and the defender's "
                         f"among them (ruling BZ83), not {seats}")
    if len(table) != 2 or min(table) <= 0 or max(table) > 1000:
        raise SetupError("the table is [width, height] in inches")
    entries, fleets = [], {}
    for seat in seats:
        side = sides.get(str(seat)) or sides.get(seat)
        if not isinstance(side, Mapping):
            raise SetupError(f"the setup has no side for seat {seat}")
        fleet = []
        for data in side.get("ships") or []:
            key = data.get("sd") if isinstance(data, Mapping) else data
            fleet.append(entry_sd(key))
            entries.append(data if isinstance(data, Mapping) else {})
        if not fleet:
            raise SetupError(f"side {seat} has no ships")
        fleets[seat] = fleet
    if len(entries) > MAX_SHIPS:
        raise SetupError(f"at most {MAX_SHIPS} ships")
    state = deploy(fleets, table=table, turn_cap=turn_cap)  # type: ignore[arg-type]
    ships = []
    for ship, data in zip(state.ships, entries):
        if "x" in data or "y" in data:
            pos = (_number(data.get("x"), f"ship {ship.id}'s x"), _number(data.get("y"), f"ship {ship.id}'s y"))
            ship = replace(ship, pos=pos, heading=_number(data.get("heading", ship.heading), "a heading") % 360.0)
        if data.get("cloaked"):
            if not any(a.lower() == "cloak" for a in ship.abilities):
                raise SetupError(f"ship {ship.id} ({ship.name}) has no cloaking device (10.2)")
            ship = replace(ship, cloaked=True)
        ships.append(ship)
    lurking = {}
    for ship, data in zip(ships, entries):
        zone = data.get("lurking")
        if zone is not None:
            if not isinstance(zone, (list, tuple)) or len(zone) != 2 or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in zone):
                raise SetupError(f"ship {ship.id}: 'lurking' is the 2' square [column, row] it lurks in (10.2)")
            lurking[ship.id] = tuple(zone)
    objects = []
    for i, o in enumerate(setup.get("objects") or [], 1):
        if not isinstance(o, Mapping) or o.get("kind") not in OBJECT_KINDS:
            raise SetupError(f"object {i} is one of {', '.join(OBJECT_KINDS)} with x, y and radius")
        objects.append(Celestial(i, o["kind"], (_number(o.get("x"), "x"), _number(o.get("y"), "y")),
                                 _number(o.get("radius"), "a radius")))
    battle = new_battle(ships, sides=tuple(seats), table=table, turn_cap=turn_cap)
    battle = replace(battle, objects=tuple(objects))
    try:
        battle = lurk(battle, lurking)
    except IllegalActionError as exc:
        raise SetupError(exc.message) from None
    return PlayState(battle)
