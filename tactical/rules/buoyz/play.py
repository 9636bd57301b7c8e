"""Online play of Buoyz 'N Da 'Hood (pure Python): the ``PlayRules`` hooks ``tactical/play/``
calls for a battle whose ruleset is ``"buoyz"`` (issue 17 item 2, first part).

**The setup** (``Battle.setup``; ``setup_for`` writes one from two fleets of SDs)::

    {"attacker": 1, "defender": 2, "table": [72, 48], "turn_cap": 40,
     "sides": {"1": {"name": "…", "colour": "#cc3333", "ships": [{"sd": "constitution"}, …]},
               "2": {…, "ships": [{"sd": "war_talon", "x": 30, "y": 40, "heading": 180, "cloaked": true},
                                  {"sd": "b_rel", "lurking": [1, 1]}]}},
     "objects": [{"kind": "planet", "x": 36, "y": 24, "radius": 3}]}

With more than two sides (3.0, rulings BZ83-BZ89) ``"seats": [1, 2, 3]`` lists every seat in
order (the attacker and defender among them; by default just those two) and ``sides`` has one
entry per seat; each seat lines up on its own edge (BZ87) and sees its own fog of war.

Ships are SDs of the catalogue by key (``sds.CATALOGUE``) or whole SDs as JSON (a custom design,
held to T'Corr's limits: ``sd_from_json``), numbered 1, 2, … in order (the
attacker's first) and lined up by ``deploy.deploy`` (ruling BZ4) unless a ship gives its own
``x``, ``y``, ``heading`` (and ``cloaked``, for an SD with a cloaking device: it starts the
battle cloaked; or ``lurking``, the 2' square [column, row] it lurks in unseen: 10.2, BZ53).

**The state** is ``PlayState``: the engine's ``BattleState`` and the battle's log, each event
tagged with the sides that may read it. **Fog of war** (10.2, 10.3): an enemy ship that is
lurking, or cloaked and not detected, is left out of the board, the ship rows and the JSON a side receives,
and every event naming it (its moves, its mines, …) is its own side's only, as is any legal
action that would point at it. Declaring the cloak is seen by both sides (its counter leaves the
table); where it goes then is not.

**The action JSON** (``to_json`` / ``from_json``)::

    {"type": "begin"}                                    (taken by itself: nobody decides it)
    {"type": "special", "ship": 3, "action": "evasive", "target": null}
    {"type": "move", "ship": 3, "before": 0, "turn": 1, "after": 4.5, "turn_end": 0,
     "lower_shields": false, "lay_mine": false, "sweep": false, "orbit": null, "web": false}
    {"type": "fire", "ship": 3, "shots": [["main0", 7, 4], ["secondary", 8, 2]], "board": null}
    {"type": "detect", "ship": 3}
    {"type": "fly", "flight": 2, "to": [30.5, 12], "attack": 7, "cap": false, "loiter": false, "home": false}
    {"type": "reveal", "ship": 3, "at": [20, 30], "heading": 90}     {"type": "lurk", "ship": 3}
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tactical.rules.play import PlayRules, Step, Viewer, action_type, whole_number

from . import actions as A
from . import board, plans
from .deploy import deploy, lurk
from .doctrine import doctrine_action
from .engine import (
    TURN_RULE,
    allowance,
    apply,
    check,
    legal_actions,
    outcome,
    system_dice,
    systems,
    turning,
)
from .geometry import ARCS
from .sds import CATALOGUE, SD, SDError, ShipClass, Weapon, validate_sd
from .state import (
    AC_MOVEMENT,
    ATTACK,
    DEFAULT_TABLE,
    DEFAULT_TURN_CAP,
    INITIATIVE,
    MAX_SIDES,
    MOVEMENT,
    BattleState,
    Celestial,
    IllegalActionError,
    Ship,
    new_battle,
)

FORMAT_RULE = "action format (tactical/rules/buoyz/play.py)"
SETUP_RULE = "000 2.2 Pre-Game"
MAX_SHOTS = 20
MAX_INCHES = 200.0
MAX_SHIPS = 60
OBJECT_KINDS = ("planet", "moon", "asteroids", "nebula")
PHASE_NAMES = {INITIATIVE: "initiative", MOVEMENT: "movement", AC_MOVEMENT: "AC movement", ATTACK: "attack"}


class ActionFormatError(IllegalActionError):
    def __init__(self, message: str):
        super().__init__(FORMAT_RULE, message)


class SetupError(IllegalActionError):
    def __init__(self, message: str):
        super().__init__(SETUP_RULE, message)


@dataclass(frozen=True)
class PlayEvent:
    """An engine event with who may read it: ``sides`` None for every side."""

    kind: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)
    sides: tuple[int, ...] | None = None

    @property
    def public(self) -> bool:
        return self.sides is None


@dataclass(frozen=True)
class PlayState:
    battle: BattleState
    log: tuple[PlayEvent, ...] = ()


# --- the setup -------------------------------------------------------------------------------

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


# --- a custom SD in the setup ---------------------------------------------------------------------
# A ship entry's "sd" is a catalogue key or a whole SD as JSON (a player's custom design, 000 1.5):
#   {"key": "excelsior", "ship_class": "CA", "name": "CA USS 'Excelsior'", "speed": 7, "turning": 3,
#    "target_size": 2, "shields": [5, 5, 5, 5], "hull": 9, "crippled_at": 4, "command": 2, "ac": 0,
#    "ac_capacity": 0, "special_abilities": ["Warp", …], "main": [[3, "Phaser"], [2, "Photon Torp", "Fwd"]],
#    "secondary": 4, "close_defence": 3, "periods": [3, 6], "notes": "…"}
# Every field but "notes" is needed; the SD is held to T'Corr's limits (``validate_sd``).

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


# --- the codec -------------------------------------------------------------------------------

_FIELDS = {
    "begin": set(), "special": {"ship", "action", "target"}, "detect": {"ship"},
    "move": {"ship", "before", "turn", "after", "turn_end", "lower_shields", "lay_mine", "sweep", "orbit", "web"},
    "fire": {"ship", "shots", "board"}, "fly": {"flight", "to", "attack", "cap", "loiter", "home"},
    "reveal": {"ship", "at", "heading"}, "lurk": {"ship"},
}
ACTION_TYPES = tuple(sorted(_FIELDS))


def to_json(action: A.Action) -> dict[str, Any]:
    if isinstance(action, A.Begin):
        return {"type": "begin"}
    if isinstance(action, A.Special):
        return {"type": "special", "ship": action.ship, "action": action.action, "target": action.target}
    if isinstance(action, A.Move):
        return {"type": "move", "ship": action.ship, "before": action.before, "turn": action.turn,
                "after": action.after, "turn_end": action.turn_end, "lower_shields": action.lower_shields,
                "lay_mine": action.lay_mine, "sweep": action.sweep, "orbit": action.orbit, "web": action.web}
    if isinstance(action, A.Fire):
        return {"type": "fire", "ship": action.ship, "shots": [list(s) for s in action.shots], "board": action.board}
    if isinstance(action, A.Detect):
        return {"type": "detect", "ship": action.ship}
    if isinstance(action, A.FlyAC):
        return {"type": "fly", "flight": action.flight, "to": list(action.to), "attack": action.attack,
                "cap": action.cap, "loiter": action.loiter, "home": action.home}
    if isinstance(action, A.Reveal):
        return {"type": "reveal", "ship": action.ship, "at": list(action.at), "heading": action.heading}
    if isinstance(action, A.Lurk):
        return {"type": "lurk", "ship": action.ship}
    raise ActionFormatError(f"{action!r} is not a Buoyz action")


def _int(data: Mapping, name: str, kind: str, *, optional: bool = False) -> int | None:
    value = data.get(name)
    if value is None and optional:
        return None
    number = whole_number(value)
    if number is None:
        raise ActionFormatError(f"{name!r} of a {kind} action must be a whole number, not {value!r}"[:300])
    return number


def _inches(data: Mapping, name: str, kind: str) -> float:
    value = data.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or abs(value) > MAX_INCHES:
        raise ActionFormatError(f"{name!r} of a {kind} action must be inches (a number), not {value!r}")
    return float(value)


def _flag(data: Mapping, name: str) -> bool:
    value = data.get(name, False)
    if not isinstance(value, bool):
        raise ActionFormatError(f"{name!r} must be true or false, not {value!r}")
    return value


def _point(data: Mapping, name: str, kind: str) -> tuple[float, float]:
    value = data.get(name)
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ActionFormatError(f"{name!r} of a {kind} action is [x, y] in inches")
    return (_inches({"x": value[0]}, "x", kind), _inches({"y": value[1]}, "y", kind))


def from_json(data: Any) -> A.Action:
    """Read one action; ``ActionFormatError`` (an ``IllegalActionError``) says what is wrong."""
    kind = action_type(data, _FIELDS, ActionFormatError)
    if kind == "begin":
        return A.Begin()
    if kind == "fly":
        return A.FlyAC(_int(data, "flight", kind), _point(data, "to", kind), _int(data, "attack", kind, optional=True),
                       _flag(data, "cap"), _flag(data, "loiter"), _flag(data, "home"))
    ship = _int(data, "ship", kind)
    if kind == "detect":
        return A.Detect(ship)
    if kind == "lurk":
        return A.Lurk(ship)
    if kind == "reveal":
        return A.Reveal(ship, _point(data, "at", kind), _inches(data, "heading", kind) % 360.0)
    if kind == "special":
        action = data.get("action")
        if action not in A.SPECIAL_ACTIONS:
            raise ActionFormatError(f"unknown Special Action {action!r}; one of: {', '.join(A.SPECIAL_ACTIONS)}")
        return A.Special(ship, action, _int(data, "target", kind, optional=True))
    if kind == "move":
        return A.Move(ship, _inches(data, "before", kind), _int({"t": data.get("turn", 0)}, "t", kind),
                      _inches(data, "after", kind), _int({"t": data.get("turn_end", 0)}, "t", kind),
                      _flag(data, "lower_shields"), _flag(data, "lay_mine"), _flag(data, "sweep"),
                      _int(data, "orbit", kind, optional=True), _flag(data, "web"))
    shots = data.get("shots", [])
    if not isinstance(shots, (list, tuple)) or len(shots) > MAX_SHOTS:
        raise ActionFormatError(f"'shots' is a list of at most {MAX_SHOTS} [weapon, target, dice]")
    out = []
    for shot in shots:
        if not isinstance(shot, (list, tuple)) or len(shot) != 3 or not isinstance(shot[0], str):
            raise ActionFormatError(f"a shot is [weapon, target, dice], not {shot!r}")
        out.append((shot[0], _int({"t": shot[1]}, "t", kind), _int({"d": shot[2]}, "d", kind)))
    return A.Fire(ship, tuple(out), _int(data, "board", kind, optional=True))


def _turn_words(points: int) -> str:
    return f"turn {abs(points)} to {'starboard' if points > 0 else 'port'}"


def describe(data: Mapping) -> str:
    """A short English label of an action's JSON."""
    action = from_json(data)
    if isinstance(action, A.Begin):
        return "The battle begins: initiative is rolled"
    if isinstance(action, A.Special):
        return f"Ship {action.ship} attempts {action.action.replace('_', ' ')}" + (
            f" on ship {action.target}" if action.target is not None else "")
    if isinstance(action, A.Move):
        parts = []
        if action.before:
            parts.append(f'{action.before:g}" ahead')
        if action.turn:
            parts.append(_turn_words(action.turn))
        if action.after:
            parts.append(f'{action.after:g}" ahead')
        if action.turn_end:
            parts.append(_turn_words(action.turn_end))
        if action.orbit is not None:
            parts.append(f"orbit object {action.orbit}")
        extra = [w for w, on in (("shields lowered", action.lower_shields), ("laying a mine", action.lay_mine),
                                 ("sweeping", action.sweep), ("spinning a web", action.web)) if on]
        return f"Ship {action.ship}: " + (", then ".join(parts) or "stay put") + (f" ({', '.join(extra)})" if extra else "")
    if isinstance(action, A.Fire):
        if not action.shots and action.board is None:
            return f"Ship {action.ship} holds its fire"
        text = f"Ship {action.ship} fires " + ", ".join(f"{w} ({d} dice) at {t}" for w, t, d in action.shots)
        return text + (f"; boards ship {action.board}" if action.board is not None else "")
    if isinstance(action, A.Detect):
        return f"Ship {action.ship} searches for cloaked ships"
    if isinstance(action, A.Lurk):
        return f"Ship {action.ship} stays lurking"
    if isinstance(action, A.Reveal):
        return f"Ship {action.ship} is revealed at ({action.at[0]:g}, {action.at[1]:g}) heading {action.heading:g}"
    return (f"AC {action.flight} flies to ({action.to[0]:g}, {action.to[1]:g})"
            + (f", attacking {action.attack}" if action.attack is not None else "") + (" on CAP" if action.cap else "")
            + (" to loiter" if action.loiter else "") + (" home" if action.home else ""))


# --- fog of war ------------------------------------------------------------------------------

def hidden_ships(state: BattleState, viewer_side: int | None) -> set[int]:
    """The ships ``viewer_side`` may not see (None: none)."""
    return {s.id for s in state.ships if board.hidden_from(s, viewer_side)}


def _names_ship(event, ship: Ship) -> bool:
    for key in ("ship", "shooter", "target", "boarder", "towed"):
        if event.data.get(key) == ship.id:
            return True
    return f"({ship.id})" in event.text


def tag_events(events, after: BattleState) -> tuple[PlayEvent, ...]:
    """Each event with the sides that may read it: one naming a ship still lurking, or cloaked
    and not detected, after the step is that ship's side's only (the declaration of the cloak
    itself is seen by every side)."""
    cloaked = [s for s in after.ships if any(board.hidden_from(s, v) for v in after.enemies(s.side))]
    out = []
    for e in events:
        sides = None
        if not (e.kind == "special" and e.data.get("action") == "cloak"):
            owners = {s.side for s in cloaked if _names_ship(e, s)}
            if owners:
                sides = tuple(sorted(owners))
        out.append(PlayEvent(e.kind, e.text, dict(e.data), sides))
    return tuple(out)


def _points_at(action, hidden: set[int], state: BattleState) -> bool:
    """Whether a listed action would give a hidden ship away (its id, or a course toward it)."""
    for name in ("target", "attack", "board"):
        if getattr(action, name, None) in hidden:
            return True
    if isinstance(action, A.Fire) and any(t in hidden for _, t, _ in action.shots):
        return True
    if isinstance(action, A.FlyAC):
        f = state.flight(action.flight)
        if f.pos is None or action.to == f.pos:
            return False
        dx, dy = action.to[0] - f.pos[0], action.to[1] - f.pos[1]
        for s in state.ships:
            if s.id in hidden:
                ex, ey = s.pos[0] - f.pos[0], s.pos[1] - f.pos[1]
                if abs(dx * ey - dy * ex) < 1e-3 * max(1.0, math.hypot(ex, ey)) and dx * ex + dy * ey > 0:
                    return True
    return False


def side_actions(state: BattleState, side: int) -> list[A.Action]:
    """``side``'s legal actions now, less any that would point at a ship it cannot see."""
    if state.acting != side:
        return []
    hidden = hidden_ships(state, side)
    return [a for a in legal_actions(state) if not (hidden and _points_at(a, hidden, state))]


# --- the rows the pages and the API show ------------------------------------------------------

def ship_rows(state: BattleState, viewer: Viewer) -> list[dict]:
    hidden = hidden_ships(state, viewer.fog_side)
    rows = []
    for s in state.ships:
        if s.id in hidden:
            continue
        rows.append({
            "id": s.id, "side": s.side, "side_name": viewer.names.get(s.side, s.side), "name": s.name,
            "class": s.sd.ship_class.value, "sd": s.sd.key, "status": s.status,
            "pos": [s.pos[0], s.pos[1]], "heading": s.heading, "hull": s.hull, "max_hull": s.sd.hull,
            "crippled": s.crippled, "crits": dict(zip(("armament", "motive", "shields"), s.crits)),
            "shields": dict(zip(ARCS, s.sd.shields)), "speed": s.sd.speed, "allowance": allowance(s),
            "turning": turning(s), "cloaked": s.cloaked, "detected": s.detected, "flagship": s.flagship,
            "moved": s.moved, "fired": s.fired, "special": s.special, "mine": s.side == viewer.seat,
            "colour": viewer.colours.get(s.side, "#999"), "zone": list(s.zone) if s.zone else None,
            "weapons": [{"key": w.key, "name": w.name, "dice": system_dice(s, w), "arcs": sorted(w.arcs),
                         "range": w.range, "torpedo": w.torpedo} for w in systems(s)],
        })
    return rows


def _selected(state: BattleState, viewer: Viewer) -> int | None:
    """The ship the board highlights: the one nominated now if the viewer may see it, else the
    first of the viewer's ships still to act."""
    hidden = hidden_ships(state, viewer.fog_side)
    if state.nominated is not None and state.nominated not in hidden:
        return state.nominated
    if state.acting is not None and state.acting == viewer.seat:
        for a in side_actions(state, viewer.seat):
            if hasattr(a, "ship"):
                return a.ship
    return None


def _fly_category(a: A.FlyAC) -> str:
    """Which control of an AC counter's choices an AC move belongs to (4.2, 8.x)."""
    if a.cap:
        return "Combat Air Patrol"
    if a.loiter or a.home:
        return "Loiter or go home"
    if a.attack is not None:
        return "Attack runs and dogfights"
    return "Fly"


def _special_label(a: A.Special) -> str:
    return {"cloak": "Cloak (10.2)", "decloak": "Decloak (10.2)"}.get(a.action, "")


def _list_order(a) -> tuple:
    """The order of a ship's choices on the page: moves first, straight ahead and farthest first."""
    if isinstance(a, A.Move):
        return (0, abs(a.turn) + abs(a.turn_end), -(a.before + a.after), a.lay_mine or a.sweep or a.web)
    return (1,)


def _choice_groups(state: BattleState, seat: int) -> list[dict]:
    """The acting side's legal actions grouped by ship (or AC flight) for the page: its moves
    (the list, and on the board their paths: ``plans.move_plans``), its Special Actions (cloak and
    decloak among them), its fire (the listed volleys, and the fire form of ``plans.fire_plan``:
    every eligible target of every weapon with the dice to roll), an AC counter's moves by
    kind (attack run, CAP, loiter or home), and the rest (detect, lurk)."""
    groups: dict[str, dict] = {}
    legal = side_actions(state, seat)
    hidden = hidden_ships(state, seat)

    for a in sorted(legal, key=_list_order):
        if isinstance(a, A.FlyAC):
            f = state.flight(a.flight)
            key, label = f"flight {a.flight}", f"AC {a.flight} ({f.kind}{', spent' if not f.armed else ''})"
        elif isinstance(a, A.Begin):
            continue
        else:
            ship = state.ship(a.ship)
            key, label = f"ship {a.ship}", f"{ship.name} ({ship.id})"
        g = groups.setdefault(key, {"key": key, "label": label, "moves": [], "buttons": [], "specials": [],
                                    "fires": [], "fly": {}, "fire_plan": None, "ship": getattr(a, "ship", None),
                                    "flight": getattr(a, "flight", None),
                                    "flags": set()})
        entry = {"label": describe(to_json(a)), "json": json.dumps(to_json(a))}
        if isinstance(a, A.FlyAC):
            g["fly"].setdefault(_fly_category(a), []).append(entry)
        elif isinstance(a, (A.Move, A.Reveal)):
            g["moves"].append(entry)
            for flag in ("lay_mine", "sweep", "web"):
                if getattr(a, flag, False):
                    g["flags"].add(flag)
        elif isinstance(a, A.Special):
            entry["label"] = _special_label(a) or entry["label"]
            entry["cloak"] = a.action in ("cloak", "decloak")
            g["specials"].append(entry)
        elif isinstance(a, A.Fire):
            g["fires"].append(entry)
            if g["fire_plan"] is None:
                g["fire_plan"] = plans.fire_plan(state, a.ship, hidden)
                g["fire_plan"]["boardable"] = []
            if a.board is not None:
                g["fire_plan"]["boardable"].append(a.board)
        else:
            g["buttons"].append(entry)
    out = []
    for g in groups.values():
        g["fly"] = [{"name": name, "choices": choices} for name, choices in g["fly"].items()]
        g["flags"] = sorted(g["flags"])
        out.append(g)
    return out


def _px(state: BattleState, pos) -> list[float]:
    x, y = board.frame_point(state, pos)
    return [round(x, 1), round(y, 1)]


def board_plan(state: BattleState, seat: int) -> dict:
    """What the page's script needs to pick a move on the board (``static/buoyz_board.js``):
    each of the side's ships with listed moves, its position, and each move's path in the SVG's
    pixels, the inches and turning points it uses and ``i``, its place in the ship's list on the
    page (whose option carries the action JSON and label, so they are not sent twice). An orbit
    is chosen from the list only."""
    legal = sorted((a for a in side_actions(state, seat) if isinstance(a, A.Move)), key=_list_order)
    ships = []
    for ship_id, plan in plans.move_plans(state, legal).items():
        mine = [a for a in legal if a.ship == ship_id]
        moves = []
        for i, (m, path) in enumerate(zip(mine, plan["moves"])):
            if m.orbit is not None:
                continue
            entry = {"i": i, "px": [_px(state, p) for p in path["points"]], "heading": path["heading"],
                     "used": path["used"], "left": path["left"], "turned": path["turned"], "turn": m.turn,
                     "turn_end": m.turn_end}
            entry.update({flag: True for flag in ("lay_mine", "sweep", "web") if getattr(m, flag)})
            moves.append(entry)
        if moves:
            ships.append({"ship": ship_id, "name": state.ship(ship_id).name, "px": _px(state, plan["pos"]),
                          "allowance": plan["allowance"], "turning": plan["turning"], "agile": plan["agile"],
                          "moves": moves})
    return {"scale": board.SCALE, "ships": ships, "flights": flight_plan(state, seat)}


def flight_plan(state: BattleState, seat: int) -> list[dict]:
    """The side's AC counters to move, each listed AC move's destination in the SVG's pixels and
    its place in the page's lists: ``c``, the kind's list (``_fly_category``, in the order the
    page shows them), ``i``, the option in it."""
    out: dict[int, dict] = {}
    for a in sorted(side_actions(state, seat), key=_list_order):
        if not isinstance(a, A.FlyAC):
            continue
        f = state.flight(a.flight)
        entry = out.setdefault(a.flight, {"flight": a.flight, "px": _px(state, f.pos) if f.pos else None,
                                          "kinds": [], "moves": []})
        kind = _fly_category(a)
        if kind not in entry["kinds"]:
            entry["kinds"].append(kind)
        c = entry["kinds"].index(kind)
        i = sum(1 for m in entry["moves"] if m["c"] == c)
        entry["moves"].append({"c": c, "i": i, "px": _px(state, a.to)})
    return [e for e in out.values() if e["px"] is not None]


_DECIDING = {
    INITIATIVE: "the battle begins: initiative is rolled",
    MOVEMENT: "nominate a ship to move (a Special Action first, if any)",
    AC_MOVEMENT: "move an AC counter (an attack run, Combat Air Patrol, or home)",
    ATTACK: "nominate a ship to fire",
}


def _deciding(state: BattleState) -> str:
    """What the side to nominate decides now, for the page's banner."""
    if state.nominated is not None and state.phase == MOVEMENT:
        return f"ship {state.nominated} attempted its Special Action and moves now"
    if state.nominated is not None and state.phase == ATTACK:
        return f"ship {state.nominated} made its detection roll and fires now"
    return _DECIDING.get(state.phase, "")


# --- the hooks -------------------------------------------------------------------------------

class BuoyzPlay(PlayRules):
    name = "buoyz"
    illegal = IllegalActionError
    format_rule = FORMAT_RULE
    turn_rule = TURN_RULE
    play_template = "tactical/rulesets/buoyz/play.html"
    replay_ships_template = "tactical/rulesets/buoyz/_replay_ships.html"
    setup_label = "Set-up: the fleets line up on the table (2.2 Pre-Game)"
    late_text = "the computer doctrine plays its nominations until the next phase."

    def initial_state(self, setup, dice):
        return initial_state(setup, dice)

    def acting_side(self, state):
        return None if state.battle.over else state.battle.acting

    def is_over(self, state):
        return state.battle.over

    def automatic_step(self, state, dice):
        if state.battle.phase != INITIATIVE:
            raise IllegalActionError(TURN_RULE, "nobody is to nominate and the battle is not over")
        return self.apply(state, A.Begin(), dice), {"type": "begin"}

    def parse_action(self, data):
        return from_json(data)

    def action_json(self, action):
        return to_json(action)

    def describe(self, action_json, state=None):
        return describe(action_json)

    def check_owner(self, state, action, seat):
        battle = state.battle
        if isinstance(action, A.Begin):
            raise IllegalActionError(TURN_RULE, "the battle begins by itself")
        if isinstance(action, A.FlyAC):
            owner = battle.flight(action.flight).side
            what = f"AC flight {action.flight}"
        else:
            owner = board.ship_in_sight(battle, action.ship, seat).side
            what = f"ship {action.ship}"
        if owner != seat:
            raise IllegalActionError(TURN_RULE, f"{what} is not yours (it is side {owner}'s)")
        hidden = hidden_ships(battle, seat) | (A.named_ships(action) - {s.id for s in battle.ships})
        if hidden and _points_at(action, hidden, battle):
            # Ruling BZP2: a ship a side cannot see cannot be named; the same refusal as a ship
            # that is not there, so the answer gives nothing away.
            raise IllegalActionError(TURN_RULE, "there is no such target in sight")

    def apply(self, state, action, dice):
        res = apply(state.battle, action, dice)
        events = tag_events(res.events, res.state)
        return Step(PlayState(res.state, state.log + events), events)

    def doctrine_action(self, state, side):
        battle = state.battle
        action = doctrine_action(battle)
        try:
            check(battle, action)
        except IllegalActionError:
            action = legal_actions(battle)[0]
        return action

    def late_done(self, state):
        # Ruling BZP3: the doctrine makes the late side's one nomination (a Special Action and
        # the move that must follow it are one), then its player decides again.
        return state.battle.nominated is None

    def events(self, state):
        return state.log

    def hides_step(self, events, side):
        # A step with any line the side may not read is "a hidden action" to it in the replay
        # (ruling BZP1): its label would name the hidden ship.
        return any(e.sides is not None and side not in e.sides for e in events) or not self.visible_events(events, side)

    def visible_events(self, events, side):
        return [e for e in events if side is None or e.sides is None or side in e.sides]

    def result(self, state):
        o = outcome(state.battle)
        return {"winner": o.winner, "turns": o.turns, "over": o.over,
                "ships": [{"ship": f.ship, "side": f.side, "fate": f.fate, "points": f.points, "hull": f.hull,
                           "crippled": f.crippled} for f in o.ships],
                "points_destroyed": {str(k): v for k, v in o.points_destroyed.items()}}

    def summary(self, result, names):
        winner = result["winner"]
        return (f"The battle is over after {result['turns']} turn(s): "
                + (f"{names.get(winner, winner)} holds the field." if winner is not None
                   else "neither side holds the field."))

    def turn_label(self, state):
        b = state.battle
        return f"turn {b.turn}'s {PHASE_NAMES.get(b.phase, b.phase)} phase nomination"

    def your_turn_label(self, state):
        return self.turn_label(state)

    # --- pages and the API ---------------------------------------------------------------

    def legal_json(self, state, side):
        out: dict[str, list[dict]] = {}
        for a in side_actions(state.battle, side):
            key = f"flight:{a.flight}" if isinstance(a, A.FlyAC) else str(getattr(a, "ship", ""))
            out.setdefault(key, []).append(to_json(a))
        return out

    def state_json(self, state, viewer):
        b = state.battle
        hidden = hidden_ships(b, viewer.fog_side)
        own = viewer.fog_side is None or b.acting == viewer.fog_side
        return {
            "turn_number": b.turn, "phase": b.phase, "initiative": b.initiative, "turn_cap": b.turn_cap,
            "nominated": b.nominated if (own or b.nominated not in hidden) else None,
            "squadron_next": list(b.squadron_next) if own else [],
            "table": {"width": b.table[0], "height": b.table[1], "units": "inches"},
            "objects": [{"id": o.id, "kind": o.kind, "centre": list(o.centre), "radius": o.radius} for o in b.objects],
            "minefields": [{"id": m.id, "side": m.side, "centre": list(m.centre), "heading": m.heading,
                            "length": m.length, "width": m.width, "rows": m.rows} for m in b.minefields],
            "flights": [{"id": f.id, "side": f.side, "carrier": f.carrier, "kind": f.kind, "status": f.status,
                         "pos": list(f.pos) if f.pos is not None else None, "armed": f.armed, "dogfight": f.dogfight}
                        for f in b.flights if f.carrier not in hidden or f.flying],
            "torpedoes": [{"target": t.target, "kind": t.kind, "side": t.side} for t in b.torpedoes
                          if t.target not in hidden],
            "webs": [{"id": w.id, "side": w.side, "a": list(w.a), "b": list(w.b)} for w in b.webs
                     if not hidden & set(w.anchors)],
            "ships": ship_rows(b, viewer), "winner": b.winner,
        }

    def page_context(self, state, viewer):
        b = state.battle
        selected = _selected(b, viewer)
        acting = viewer.can_act and b.acting == viewer.seat
        groups = _choice_groups(b, viewer.seat) if acting else []
        return {
            "buoyz": b, "phase_name": PHASE_NAMES.get(b.phase, b.phase),
            "svg": board.render(b, viewer_side=viewer.fog_side, colours=viewer.colours, names=viewer.names,
                                selected=selected, also=[g["ship"] for g in groups if g["ship"] is not None]),
            "ships": ship_rows(b, viewer), "selected": selected,
            "groups": groups,
            "board_plan": board_plan(b, viewer.seat) if acting and b.phase in (MOVEMENT, AC_MOVEMENT) else None,
            "deciding": _deciding(b),
            "outcome": outcome(b) if b.over else None,
        }

    def form_action(self, kind, form):
        # The fire form (plans.fire_from_form): dice per weapon and target, split fire included.
        return plans.fire_from_form(form) if kind == "fire" else None

    def replay_context(self, state, action_json, viewer):
        b = state.battle
        return {"svg": board.render(b, viewer_side=viewer.fog_side, colours=viewer.colours, names=viewer.names),
                "ships": ship_rows(b, viewer),
                "note": f"Turn {b.turn}, {PHASE_NAMES.get(b.phase, b.phase)} phase" if not b.over else "Over"}


RULES = BuoyzPlay()

__all__ = ["ACTION_TYPES", "RULES", "BuoyzPlay", "PlayEvent", "PlayState", "SetupError", "describe", "from_json",
           "hidden_ships", "initial_state", "sd_entry", "sd_from_json", "sd_to_json", "setup_for", "ship_rows", "side_actions", "tag_events", "to_json"]
