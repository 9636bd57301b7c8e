"""The Print&Play battle as frozen values (pure Python): ships, terrain, the turn, set-up.

Positions are inches on the mat (``tactical.rules.geometry.inches``: ``(x, y)``, heading 0 up the
mat, clockwise). A ship's tile is read as a disc 1" across (ruling PP10): two ships touch when
their centres are 1" apart. Refusals are ``IllegalActionError("001 <section>: …")``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tactical.rules import kit
from tactical.rules.geometry import inches as geo
from tactical.rules.kit import DiceBag, Event, IllegalActionError, evolve

from .dashboards import ROSTER, SIDES, Dashboard, from_json

BOOK = "001"
MATS = {"3x3": (36.0, 36.0), "4x4": (48.0, 48.0), "3x6": (72.0, 36.0), "4x6": (72.0, 48.0)}  # 001 Deployment
ZONE = 8.0  # 001 Deployment: zones 8" from the mat's edge
TILE = 1.0  # ruling PP10: centres 1" apart touch
CLOAK_RANGE = 8.0  # 001 Cloaking Device
NEBULA_RANGE = 4.0  # 001 Nebula
ROUND_CAP = 12  # ruling PP18
SIDE_CENTRES = {"fore": 0.0, "starboard": 90.0, "aft": 180.0, "port": 270.0}
MOUNT_CENTRE = {"F": 0.0, "S": 90.0, "A": 180.0, "P": 270.0}
SPECIALS = {  # ruling PP8: each faction's special order, and what it replaces (A, M, ATT)
    "Federation": ("picard", "M", "Picard's Manoeuvre"),
    "Klingons": ("qapla", "ATT", "Qapla'!"),
    "Romulans": ("surge", "A", "Singularity Surge"),
    "Dominion": ("attack_run", "M", "Jem'Hadar Attack Run"),
    "Borg": ("adapt", "A", "Adaptation"),
}


def refuse(section: str, message: str) -> IllegalActionError:
    return IllegalActionError(f"{BOOK} {section}", message)


@dataclass(frozen=True)
class Mount:
    """One mount of a weapon line: a "P/S" line is two mounts (ruling PP4)."""

    line: int
    letter: str  # F, A, P, S
    qty: int


_MOUNTS: dict[int, tuple[Dashboard, tuple[Mount, ...]]] = {}


def mounts_of(dash: Dashboard) -> tuple[Mount, ...]:
    """The mounts of a dashboard's weapon lines, in line order (cached per dashboard)."""
    found = _MOUNTS.get(id(dash))
    if found is not None and found[0] is dash:
        return found[1]
    out = []
    for i, w in enumerate(dash.weapons):
        letters = w.mount.split("/")
        for letter in letters:
            out.append(Mount(i, letter, w.qty // len(letters)))
    if len(_MOUNTS) > 5000:
        _MOUNTS.clear()
    _MOUNTS[id(dash)] = (dash, tuple(out))
    return tuple(out)


@dataclass(frozen=True)
class Terrain:
    id: int
    kind: str  # "asteroids" or "nebula"
    at: tuple[float, float]
    radius: float
    nebula: int = 0  # 001 Nebula: the d6 type
    sensor_penalty: int = 0  # types 3 and 4: the -1D3 rolled when the nebula is placed (ruling PP15)

    def holds(self, pos) -> bool:
        return geo.distance(pos, self.at) <= self.radius + geo.EPSILON


@dataclass(frozen=True)
class Ship:
    id: int
    side: int
    dash: Dashboard
    pos: tuple[float, float]
    heading: float
    shields: tuple[int, int, int, int]
    hull: int
    ablative: int
    emergency: int
    wps: int
    sensors: int
    ecm: int
    impulse: int
    torpedoes: tuple[str, ...]  # per mount: "" ready, "red" fired, "green" loading (001 Tokens)
    cloaked: bool = False
    power: str = ""  # "", "red", "green" (001 Tokens)
    activated: bool = False
    surge: int = 0  # Singularity Surge: WPS until the end of the round
    crits: int = 0

    @property
    def alive(self) -> bool:
        return self.hull > 0

    @property
    def name(self) -> str:
        return f"{self.dash.name} #{self.id}"

    def shield(self, side: str) -> int:
        return self.shields[SIDES.index(side)]


def new_ship(ship_id: int, side: int, dash: Dashboard, pos, heading: float) -> Ship:
    return Ship(ship_id, side, dash, (float(pos[0]), float(pos[1])), geo.norm(heading), tuple(dash.shields),
                dash.hull, dash.ablative, dash.emergency, dash.wps, dash.sensors, dash.ecm, dash.impulse,
                tuple("" for _ in mounts_of(dash)))


@dataclass(frozen=True)
class State:
    ships: tuple[Ship, ...]
    sides: tuple[int, ...]
    mat: tuple[float, float]
    terrain: tuple[Terrain, ...] = ()
    round: int = 1
    mode: str = "initiative"  # two sides: initiative (2 dice); more: the dice bag (001 Initiative)
    bag: DiceBag = DiceBag()
    order: tuple[int, ...] = ()  # two sides: this round's order, the winner first
    turn_of: int = 0  # two sides: index into ``order`` of the side to activate next
    drawn: int | None = None  # the side whose die was drawn, to choose a ship
    active: int | None = None  # the ship activating
    stage: str = "start"  # start (round not begun), choose, action, move, attack
    specials: tuple[int, ...] = ()  # sides that gave their special order this round (ruling PP8)
    reroll: int = 0  # re-rolls the active ship holds (de-cloaking, 001 Cloaking Device)
    round_cap: int = ROUND_CAP
    names: tuple[tuple[int, str], ...] = ()
    log: tuple[Event, ...] = ()

    def ship(self, ship_id: int) -> Ship | None:
        for s in self.ships:
            if s.id == ship_id:
                return s
        return None

    def living(self, side: int | None = None) -> list[Ship]:
        if side is None:
            return [s for s in self.ships if s.hull > 0]
        return [s for s in self.ships if s.hull > 0 and s.side == side]

    def with_ship(self, ship: Ship) -> State:
        return evolve(self, ships=tuple(ship if s.id == ship.id else s for s in self.ships))

    def side_name(self, side: int) -> str:
        return dict(self.names).get(side) or f"Side {side}"


# --- who may see a ship (ruling PP7) ------------------------------------------------------------

def hidden_from(state: State, ship: Ship, side: int | None) -> bool:
    """A cloaked ship farther than 8" from every ship of ``side`` is hidden from ``side`` (it
    could not be targeted anyway, 001 Cloaking Device; ruling PP7)."""
    if side is None or ship.side == side or not ship.cloaked or not ship.alive:
        return False
    return all(geo.distance(ship.pos, o.pos) > CLOAK_RANGE + geo.EPSILON for o in state.living(side))


def seen_by(state: State, ship: Ship) -> tuple[int, ...]:
    return tuple(side for side in state.sides if not hidden_from(state, ship, side))


def tagged(state: State, who: Ship, kind: str, text: str, **data: Any) -> Event:
    """An event about ``ship``: public unless the ship is hidden from a side after the step."""
    sides = seen_by(state, who)
    if len(sides) == len(state.sides):
        return kit.public(kind, text, **data)
    return kit.private(kind, text, sides, **data)


# --- terrain -----------------------------------------------------------------------------------

def terrain_at(state: State, pos, kind: str) -> list[Terrain]:
    return [t for t in state.terrain if t.kind == kind and t.holds(pos)]


def in_asteroids(state: State, ship: Ship) -> bool:
    return bool(terrain_at(state, ship.pos, "asteroids"))


def nebula_of(state: State, ship: Ship) -> Terrain | None:
    found = terrain_at(state, ship.pos, "nebula")
    return found[0] if found else None


# --- set-up -----------------------------------------------------------------------------------

def order_by_dice(sides, dice, purpose: str) -> tuple[int, ...]:
    """001 Initiative (two players), 001 Deployment: each side rolls 2 dice, the highest first,
    ties re-rolled among the tied sides (ruling PP12 for more than two)."""
    groups = [tuple(sides)]
    out: list[int] = []
    while groups:
        group = groups.pop(0)
        if len(group) == 1:
            out.append(group[0])
            continue
        totals = {side: sum(kit.d6(dice, f"{purpose}: side {side}", 2)) for side in group}
        ranked = sorted(set(totals.values()), reverse=True)
        groups = [tuple(s for s in group if totals[s] == t) for t in ranked] + groups
    return tuple(out)


def zones(mat, count: int) -> list[tuple[tuple[float, float], tuple[float, float], float]]:
    """The deployment zones (001 Deployment, 8" from an edge; ruling PP13): each a line through
    the middle of the zone, from one end to the other, and the heading across the mat from it."""
    w, h = mat
    mid = ZONE / 2
    south, north = ((4.0, mid), (w - 4, mid), 0.0), ((4.0, h - mid), (w - 4, h - mid), 180.0)
    west, east = ((mid, 12.0), (mid, h - 12), 90.0), ((w - mid, 12.0), (w - mid, h - 12), 270.0)
    if count <= 2:
        return [south, north][:count]
    if count <= 4:
        return [south, north, west, east][:count]
    halves = [((4.0, mid), (w / 2 - 2, mid), 0.0), ((w / 2 + 2, h - mid), (w - 4, h - mid), 180.0),
              ((w / 2 + 2, mid), (w - 4, mid), 0.0), ((4.0, h - mid), (w / 2 - 2, h - mid), 180.0)]
    return (halves + [west, east])[:count]


def dashboard_of(spec) -> Dashboard:
    """A ship of a set-up: a roster key, a dashboard's JSON, or a stored ship ``{"dash": …}``."""
    if isinstance(spec, Mapping) and "dash" in spec:
        spec = spec["dash"]
    if isinstance(spec, Dashboard):
        return spec
    if isinstance(spec, str):
        if spec not in ROSTER:
            raise refuse("Dashboards", f"no ship {spec!r} in the roster")
        return ROSTER[spec]
    return from_json(spec)


def terrain_from(raw, dice) -> tuple[Terrain, ...]:
    out = []
    for i, t in enumerate(raw or (), start=1):
        kind = t["kind"]
        nebula = int(t.get("nebula") or 0)
        if kind == "nebula" and not nebula:
            nebula = kit.d6(dice, f"001 Nebula: the type of nebula {i}")[0]
        penalty = int(t.get("sensor_penalty") or 0)
        if kind == "nebula" and nebula in (3, 4) and not penalty:
            penalty = kit.d3(dice, f"001 Nebula: the sensors penalty of nebula {i}")[0]
        out.append(Terrain(i, kind, (float(t["at"][0]), float(t["at"][1])), float(t["radius"]), nebula, penalty))
    return tuple(out)


def deploy(setup: Mapping[str, Any], dice) -> State:
    """A battle from its set-up: ``{"mat": "4x6", "sides": {"1": {"name", "ships": [roster key or
    dashboard JSON, …]}, …}, "terrain": [{"kind", "at", "radius"}, …]}``. The sides roll for
    deployment (001 Deployment): the winner takes the first zone, and so on (ruling PP13); ships
    stand in a line along their zone's middle, 3" apart, facing the mat's centre."""
    mat = MATS[setup.get("mat", "4x6")] if isinstance(setup.get("mat", "4x6"), str) else tuple(setup["mat"])
    sides_raw = setup["sides"]
    sides = tuple(sorted(int(k) for k in sides_raw))
    order = order_by_dice(sides, dice, "001 Deployment: initiative for deployment")
    lines = zones(mat, len(sides))
    first_id, number = {}, 0
    for side in sides:  # ship ids by seat, whatever the zones
        first_id[side] = number + 1
        number += len(sides_raw[str(side)]["ships"])
    ships = []
    for zone_index, side in enumerate(order):
        fleet = sides_raw[str(side)]["ships"]
        (ax, ay), (bx, by), heading = lines[zone_index]
        n = len(fleet)
        for i, spec in enumerate(fleet):
            f = (i + 1) / (n + 1)
            pos = (round(ax + (bx - ax) * f, 4), round(ay + (by - ay) * f, 4))
            ships.append(new_ship(first_id[side] + i, side, dashboard_of(spec), pos, heading))
    ships.sort(key=lambda s: s.id)
    terrain = terrain_from(setup.get("terrain"), dice)
    names = tuple((s, str(sides_raw[str(s)].get("name") or f"Side {s}")) for s in sides)
    mode = "initiative" if len(sides) == 2 else "bag"
    text = "Deployment: " + ", ".join(f"side {s} takes zone {i + 1}" for i, s in enumerate(order)) + "."
    return State(tuple(ships), sides, mat, terrain, mode=mode, names=names,
                 round_cap=int(setup.get("round_cap", ROUND_CAP)),
                 log=(kit.public("deploy", text, order=list(order)),))


__all__ = ["BOOK", "MATS", "Mount", "SIDE_CENTRES", "SPECIALS", "Ship", "State", "Terrain", "deploy",
           "hidden_from", "mounts_of", "new_ship", "order_by_dice", "refuse", "tagged", "zones"]
