"""A Buoyz 'N Da 'Hood battle as frozen values (rule book ``seeds/000_…``; pure Python).

A ``Ship`` carries its SD (the CAM catalogue's own value, ``sds.py``) and what the battle did
to it: hull left, crippling (5.7), critical hits (5.8), lost special abilities, this turn's
movement and fire. A ``BattleState`` holds the table, the ships, the torpedo counters in flight
(5.9), the phase of the turn (2.2), whose nomination it is and each side's standing orders
(``RULINGS.md`` "Online play model").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from campaign.rules.cam.ships import SD, validate_sd
from tactical.rules.kit import Event as KitEvent
from tactical.rules.kit import IllegalActionError, evolve

from .geometry import Point
from .sds import weapon_systems

# Ship status.
ACTIVE, DESTROYED, LEFT = "active", "destroyed", "left"  # LEFT: left the table (11.7)
CAPTURED = "captured"  # 11.4: taken in a boarding action
TRANSIT = "transit"  # 11.3: in transit between two tables (cannot be attacked; it emerges on ``emerge``)
LURKING = "lurking"  # 10.2: a cloaked ship lurking unseen in a 2' square zone (not on the table)

# Phases of a turn (2.1, 2.2); OVER once the battle has ended.
INITIATIVE, MOVEMENT, ATTACK, END, OVER = "initiative", "movement", "attack", "end", "over"
AC_MOVEMENT = "ac_movement"  # 2.2 Movement Phase 4): AC counters move by type after the ships

# Attack craft (8.2) and where a flight is.
FIGHTER, BOMBER, SHUTTLE = "fighter", "bomber", "shuttle"
AC_TYPES = (SHUTTLE, BOMBER, FIGHTER)  # 4.2 "The order is always Shuttles, Bombers, then finally Fighters"
ABOARD, FLYING, LOST = "aboard", "flying", "lost"
FLIGHT_LEFT = "left"  # CAM 3.1 (c), (e): left the table with its side's last retreating ship

# Critical effects that Damage Control can repair (5.8 1-3; 6.2).
ARMAMENT, MOTIVE, SHIELDS = "armament", "motive", "shields"
CRITS = (ARMAMENT, MOTIVE, SHIELDS)

DEFAULT_TABLE = (72.0, 48.0)  # ruling BZ4: a 6' x 4' table
DEFAULT_TURN_CAP = 40  # ruling BZ17: a battle still going after 40 turns ends undecided
MAX_SIDES = 6  # ruling BZ83: two to six sides fight a battle
SIDES_RULE = "000 3.0 Initiative Phase"  # "If there are more that two 'sides' to a game"


# The refusal (``rule``: the 000 section) and the battle log's event are the kit's; an event's
# fog-of-war tags (``sides``/``public``) are set by the engine where it makes each event (``engine.core._Ctx``).
Event = KitEvent


@dataclass(frozen=True)
class Ship:
    id: int
    side: int
    sd: SD
    pos: Point
    heading: float
    hull: int
    status: str = ACTIVE
    crippled: bool = False
    crits: tuple[int, int, int] = (0, 0, 0)  # armament, motive, shields (5.8; cumulative)
    lost: tuple[str, ...] = ()  # special abilities lost (5.7 (3), 5.8 (6))
    vital_lost: tuple[str, ...] = ()  # those lost to Vital hits (Red Alert may restore them, 7.2)
    spent: tuple[str, ...] = ()  # one-shot weapon systems used (7.3 *One-Shot)
    mines: int = 0  # notional mines carried (5.10: up to 6; then no torpedoes)
    flagship: bool = False
    cloaked: bool = False  # 10.2
    tractor: tuple[int, str] | None = None  # (ship held, "hold" / "tow" / "pull") by this ship's beam (7.2)
    held: bool = False  # held in place by a tractor beam (7.2)
    hyperspace: bool = False  # 11.8: in hyperspace until the next Initiative Phase
    landed: bool = False  # 7.3 Landing: on a planet or moon (9.0)
    burnt: bool = False  # 7.3 Orion engine doubling used: all moves halved for the rest of the game
    overwatch: bool = False  # 7.2 'Use The Force, Luke!': may still negate an enemy Special Action this turn
    exchanged: tuple[int, ...] = ()  # ships it exchanged fire with in earlier turns (7.3 Borg Adaption)
    engaged: tuple[int, ...] = ()  # ships it exchanged fire with this turn
    detected: bool = False  # 10.3 'Detected' marker (removed in the End Phase)
    # this turn
    moved: bool = False
    fired: bool = False
    fired_keys: tuple[str, ...] = ()  # the weapon systems fired this turn (7.2 Point Defence)
    moved_inches: float = 0.0  # forward distance moved this turn (5.5 fast moving target)
    special: str = ""  # the Special Action that succeeded this turn (7.2)
    special_tried: str = ""  # the Special Action attempted this turn (pass or fail)
    extra_specials: tuple[str, ...] = ()  # 7.2 "I Don't Believe In The No Win Scenario…": two more
    extra_tries: int = 0  # Special Actions still to roll for after a successful No Win Scenario
    shields_lowered: bool = False  # 2.2 Movement Phase 2): "It may then lower shields"
    sweeping: bool = False  # swept mines this turn (5.10): it may not shoot
    searched: bool = False  # made its 10.3 detection roll this turn
    zone: tuple[int, int] | None = None  # 10.2: the 2' square (column, row) a lurking ship lurks in
    weaving: bool = False  # 7.3 Tholian Web: moved this turn spinning a web (a partner may join it)
    hyper_lurk: bool = False  # 11.8: lurking stationary in hyperspace this turn (it does not drop out)
    emerge: int = 0  # 11.3: the turn a ship in transit emerges on its new table

    @property
    def active(self) -> bool:
        return self.status == ACTIVE

    def uses(self, special: str) -> bool:
        """Whether ``special`` succeeded for this ship this turn (7.2)."""
        return self.special == special or special in self.extra_specials

    @property
    def abilities(self) -> tuple[str, ...]:
        if not self.lost:
            return self.sd.special_abilities
        lost = list(self.lost)
        out = []
        for a in self.sd.special_abilities:
            if a in lost:
                lost.remove(a)
            else:
                out.append(a)
        return tuple(out)

    def crit(self, kind: str) -> int:
        return self.crits[{ARMAMENT: 0, MOTIVE: 1, SHIELDS: 2}[kind]]

    @property
    def name(self) -> str:
        return self.sd.name


@dataclass(frozen=True)
class Torpedo:
    """A torpedo counter placed by its target (5.9), resolved in the End Phase."""

    shooter: int
    side: int
    target: int
    kind: str
    launched_from: Point
    range_inches: int
    from_ac: bool = False


@dataclass(frozen=True)
class Flight:
    """One AC counter (1.6, 8.x). ``carrier`` is the ship it flies from; ``attack`` the ship (a
    bomber's or shuttle's run) or enemy flight (a fighter's dogfight) it declared this turn;
    ``armed`` False once it has discharged its warload or dogfought (8.1: one-shot until
    rearmed, 8.3); ``rearm`` complete turns aboard still needed; ``locked`` in a drawn dogfight
    (8.6: it may not move, the dogfight continues)."""

    id: int
    side: int
    carrier: int
    kind: str
    dogfight: int
    torpedo: str = "photon"
    status: str = ABOARD
    pos: Point | None = None
    armed: bool = True
    rearm: int = 0
    moved: bool = False
    attack: int | None = None
    locked: bool = False
    cap: bool = False  # 4.2, 8.6: flying Combat Air Patrol this turn
    offtable: bool = False  # 8.1, 8.3: flies from an off-table base (``carrier`` is 0), two turns' flight away
    patrol: bool = False  # 8.2: a shuttle loitering as a patrol counter (3.0); it never initiates combat

    @property
    def flying(self) -> bool:
        return self.status == FLYING

    @property
    def speed(self) -> float:
        """4.2: 5\" with dogfight value 0, 8\" with 1, 10\" with 2."""
        return {0: 5.0, 1: 8.0}.get(self.dogfight, 10.0)


PLANET, MOON, ASTEROIDS, NEBULA = "planet", "moon", "asteroids", "nebula"


@dataclass(frozen=True)
class Celestial:
    """A celestial object on the table (9.0): a planet or moon (mass: blocks sensors), an asteroid
    field or a nebula (inhibits them), as a disc (ruling BZ41)."""

    id: int
    kind: str
    centre: Point
    radius: float


@dataclass(frozen=True)
class Minefield:
    """A minefield (5.10): ``length`` across ``heading``, ``width`` along it, centred on ``centre``;
    ``rows`` counts toward the roll of every ship moving through it. A laid 'notional mine' is
    1" by ½" and one row (ruling BZ33)."""

    id: int
    side: int | None
    centre: Point
    heading: float
    length: float = 1.0
    width: float = 0.5
    rows: int = 1


@dataclass(frozen=True)
class Web:
    """A Tholian web (7.3): a continuous energy field from ``a`` to ``b`` that cannot be moved
    through, anchored to the ships (ids) or objects (``-id`` of a ``Celestial``) in ``anchors``
    (ruling BZ54)."""

    id: int
    side: int
    a: Point
    b: Point
    anchors: tuple[int, int]


@dataclass(frozen=True)
class Orders:
    """A side's standing orders (``RULINGS.md`` "Live decisions become standing orders").

    ``move_first``/``fire_first``: when this side holds initiative, whether it nominates the
    first ship to move / fire (2.1: "decide whether to move a ship first, or force his opponent
    to do so"; default: move second, fire first — ruling BZ9). ``vital_fire``: what a Vital
    Fire without doubles counts as (5.8 (5): 1, 2 or 6; 0 = the engine's default, ruling BZ13).
    ``ability_loss``: special abilities in the order this side gives them up (5.8 (6)).
    ``repair_order``: the order Damage Control picks critical effects (6.2). ``play_order``:
    with more than two sides, the order the other sides play in when this side holds initiative
    (3.0 "the Initiative holder decides the order of play"; sides not listed follow in
    descending initiative total, ruling BZ85); ``move_first``/``fire_first``/``ac_first`` then
    say whether the holder plays first or last in that order."""

    move_first: bool = False
    fire_first: bool = True
    vital_fire: int = 0
    ability_loss: tuple[str, ...] = ()
    repair_order: tuple[str, ...] = (ARMAMENT, MOTIVE, SHIELDS)
    ac_first: bool = False  # 4.2: holding initiative, move its AC counters first
    launch: bool = True  # 8.3: carriers launch their armed flights in the End Phase
    squadrons: tuple[tuple[int, ...], ...] = ()  # 11.1: organised before the game, up to six ships each
    negate: tuple[str, ...] = ("ramming", "self_destruct", "maximum_warp", "ecm", "evasive", "tractor_hold",
                               "tractor_tow", "tractor_pull", "cloak_hunter", "no_win")  # 7.2 overwatch targets
    play_order: tuple[int, ...] = ()  # 3.0: holding initiative, the order the other sides play in (BZ85)


@dataclass(frozen=True)
class BattleState:
    sides: tuple[int, ...]  # two to six (ruling BZ83); every other side is an enemy
    ships: tuple[Ship, ...]
    table: tuple[float, float] = DEFAULT_TABLE
    turn: int = 0
    phase: str = INITIATIVE
    initiative: int | None = None  # the side holding initiative this turn
    first: int | None = None  # the side nominating first in this phase
    acting: int | None = None  # the side to nominate now
    nominated: int | None = None  # a ship that attempted a Special Action and must now move
    squadron_next: tuple[int, ...] = ()  # 11.1: the rest of a squadron still to move or fire now
    torpedoes: tuple[Torpedo, ...] = ()
    minefields: tuple[Minefield, ...] = ()
    objects: tuple[Celestial, ...] = ()
    flights: tuple[Flight, ...] = ()
    boardings: tuple[tuple[int, int], ...] = ()  # (boarder, target) declared this turn (11.4)
    ac_slot: int = 0  # which (type, side) of the AC movement (4.2) is moving
    orders: tuple[Orders, ...] = (Orders(), Orders())  # one for each side, in ``sides`` order
    turn_cap: int = DEFAULT_TURN_CAP
    winner: int | None = None
    cam: Any = None  # a cam.CamLink when a CAM scenario is fought on the engine (CAM 3.0, 3.1)
    webs: tuple[Web, ...] = ()  # 7.3 Tholian webs
    rotation: bool = False  # 11.5: planets' bases and moons turn 1/2" a turn (an option, ruling BZ58)
    edges: tuple[str, ...] = ()  # each side's own table edge (default: the first side south, the other north)
    tables: int = 1  # 11.3: tables in a row, west to east, each ``table`` in size (ruling BZ82)
    play: tuple[int, ...] = ()  # 3.0: this turn's order of play, the Initiative holder first (BZ85)

    def ship(self, ship_id: int) -> Ship:
        for s in self.ships:
            if s.id == ship_id:
                return s
        raise no_such_ship(ship_id)

    def flight(self, flight_id: int) -> Flight:
        for f in self.flights:
            if f.id == flight_id:
                return f
        raise IllegalActionError("000 8.0", f"there is no AC flight {flight_id} in this battle")

    def orders_of(self, side: int) -> Orders:
        return self.orders[self.sides.index(side)]

    def other(self, side: int) -> int:
        """The opponent of ``side`` in a battle of exactly two sides."""
        if len(self.sides) != 2:
            raise ValueError(f"side {side} has {len(self.sides) - 1} enemy sides, not one: use enemies()")
        return self.sides[1] if side == self.sides[0] else self.sides[0]

    def enemies(self, side: int) -> tuple[int, ...]:
        """Every other side of the battle: all are hostile, there are no alliances (ruling BZ83)."""
        return tuple(s for s in self.sides if s != side)

    def enemy_ships(self, side: int) -> tuple[Ship, ...]:
        """The active ships of every enemy of ``side`` (``active_ships`` of them all, in ship order)."""
        return tuple([s for s in self.ships if s.status == ACTIVE and s.side != side])

    def order_of_play(self) -> tuple[int, ...]:
        """This turn's order of play (3.0, ruling BZ85): the Initiative holder, then the other
        sides in the order it chose; before the first initiative, ``sides``."""
        if self.play:
            return self.play
        if self.initiative is None:
            return self.sides
        return (self.initiative, *self.enemies(self.initiative))

    def active_ships(self, side: int | None = None) -> tuple[Ship, ...]:
        if side is None:
            return tuple([s for s in self.ships if s.status == ACTIVE])
        return tuple([s for s in self.ships if s.status == ACTIVE and s.side == side])

    @property
    def pitch(self) -> float:
        """11.3 (ruling BZ82): table k's west edge is at x = k × pitch; the gap between tables is
        over 1,000" (no sensor, weapon or move reaches across it) and the pitch a whole number
        of 2' squares (10.2)."""
        return table_pitch(self.table)

    def table_rect(self, k: int) -> tuple[float, float, float, float]:
        """Table ``k``'s (x0, y0, x1, y1) (11.3; k counts from 0, west to east)."""
        x0 = k * self.pitch if self.tables > 1 else 0.0
        return (x0, 0.0, x0 + float(self.table[0]), float(self.table[1]))

    def home_table(self, pos: Point) -> int:
        """The table ``pos`` is on, or (off every table) the one it is nearest: its edges are the
        ones that count for a ship or flight there (11.3, ruling BZ92)."""
        k = self.table_of(pos)
        if k is not None:
            return k
        if self.tables < 2:
            return 0
        w = self.table[0]
        return min(range(self.tables), key=lambda t: abs(pos[0] - (t * self.pitch + w / 2)))

    def table_of(self, pos: Point) -> int | None:
        """The table ``pos`` lies on (11.3), or None when it is off every table."""
        w, h = self.table
        if not -1e-6 <= pos[1] <= h + 1e-6:
            return None
        k = int(math.floor((pos[0] + 1e-6) / self.pitch)) if self.tables > 1 else 0
        if not 0 <= k < self.tables:
            return None
        x = pos[0] - k * self.pitch
        return k if -1e-6 <= x <= w + 1e-6 else None

    def zone_at(self, pos: Point) -> tuple[int, int]:
        """10.2: the 2' square (column, row) holding ``pos``; columns count on across the tables
        of 11.3 (each table's first column is its west edge)."""
        k = self.table_of(pos) or 0
        w, h = self.table
        first = int(round(k * self.pitch / 24.0))
        col = min(max(0, int((pos[0] - k * self.pitch) // 24.0)), max(1, math.ceil(w / 24.0 - 1e-9)) - 1)
        row = min(max(0, int(pos[1] // 24.0)), max(1, math.ceil(h / 24.0 - 1e-9)) - 1)
        return (first + col, row)

    def zone_rect(self, zone: tuple[int, int]) -> tuple[float, float, float, float] | None:
        """The square's (x0, y0, x1, y1) on the table (cut by the table's edges), or None."""
        w, h = self.table
        per = int(round(self.pitch / 24.0))
        k, col = divmod(int(zone[0]), per)
        row = int(zone[1])
        x_origin = k * self.pitch
        x0, y0 = x_origin + col * 24.0, row * 24.0
        if not (0 <= k < self.tables and x0 < x_origin + w - 1e-9 and 0 <= row and y0 < h - 1e-9 and col >= 0):
            return None
        return (x0, y0, min(x_origin + w, x0 + 24.0), min(float(h), y0 + 24.0))

    def lurking(self, side: int | None = None) -> tuple[Ship, ...]:
        """10.2: ships lurking unseen (not on the table; neither attacked nor attacking)."""
        return tuple(s for s in self.ships if s.status == LURKING and (side is None or s.side == side))

    def edge(self, side: int) -> str:
        """The side's own table edge: its CAM 2.3 edge, else ``edges``, else south for the first
        side and north for the second (as ``deploy`` sets them up, ruling BZ4), then west, east,
        south and north for a third to sixth side (ruling BZ87)."""
        if self.cam is not None:
            return self.cam.edge(side)
        i = self.sides.index(side)
        if len(self.edges) > i:
            return self.edges[i]
        return SIDE_EDGES[i % len(SIDE_EDGES)]

    @property
    def over(self) -> bool:
        return self.phase == OVER


def no_such_ship(ship_id: object) -> IllegalActionError:
    """The refusal for a ship that is not in the battle, and for one the acting side cannot see
    (ruling BZP2: the same words)."""
    return IllegalActionError("000 1.5", f"there is no ship {ship_id} in this battle")


def table_pitch(table: tuple[float, float]) -> float:
    """11.3 (ruling BZ82): the distance from one table's west edge to the next one's."""
    return float(math.ceil((table[0] + 1000.0) / 24.0) * 24)


# Ruling BZ87: each side's own edge in ``sides`` order (sides 5 and 6 share the long edges).
SIDE_EDGES = ("south", "north", "west", "east", "south", "north")


def with_ship(state: BattleState, ship: Ship) -> BattleState:
    return evolve(state, ships=tuple(ship if s.id == ship.id else s for s in state.ships))


MINE_RULE = "000 5.10 Mines"
MAX_MINES = 6  # 5.10 "Each carries up to 6 notional mines"


def mine_load_problem(sd: SD, mines: object) -> str | None:
    """5.10: a ship carries 0 to 6 notional mines, and "If mines are carried no torpedoes can be
    carried" (ruling BZ98: an SD with a torpedo system carries no mines)."""
    if not isinstance(mines, int) or isinstance(mines, bool) or not 0 <= mines <= MAX_MINES:
        return f"a ship carries 0 to {MAX_MINES} notional mines, not {mines!r}"
    if mines and any(w.torpedo for w in weapon_systems(sd)):
        return (f"{sd.name} carries torpedoes: if mines are carried no torpedoes can be carried "
                f"({', '.join(w.name for w in weapon_systems(sd) if w.torpedo)})")
    return None


def new_ship(ship_id: int, side: int, sd: SD, pos: Point, heading: float = 0.0, **kw: Any) -> Ship:
    """A ship fresh from its SD; the SD must keep T'Corr's limits (1.5; ``SDError`` otherwise)
    and its mines 5.10's (``IllegalActionError``)."""
    validate_sd(sd)
    why = mine_load_problem(sd, kw.get("mines", 0))
    if why:
        raise IllegalActionError(MINE_RULE, why)
    return Ship(id=ship_id, side=side, sd=sd, pos=(float(pos[0]), float(pos[1])), heading=float(heading) % 360.0,
                hull=sd.hull, **kw)


def new_battle(ships: tuple[Ship, ...] | list[Ship], sides: tuple[int, ...] | None = None,
               table: tuple[float, float] = DEFAULT_TABLE, orders: tuple[Orders, ...] | None = None,
               turn_cap: int = DEFAULT_TURN_CAP) -> BattleState:
    """A battle before its first Initiative Phase. Each side's flagship (3.0) is the ship marked
    ``flagship``, else its dearest by CAM points, first listed on a tie (ruling BZ8)."""
    ships = tuple(ships)
    if sides is None:
        sides = tuple(dict.fromkeys(s.side for s in ships))  # type: ignore[assignment]
    if not 2 <= len(sides) <= MAX_SIDES or len(set(sides)) != len(sides):
        raise IllegalActionError(SIDES_RULE, f"a battle has two to {MAX_SIDES} different sides (ruling BZ83), "
                                 f"not {list(sides)}")
    orders = tuple(orders) if orders is not None else tuple(Orders() for _ in sides)
    if len(orders) != len(sides):
        raise IllegalActionError(SIDES_RULE, f"one standing orders for each of the {len(sides)} sides, "
                                 f"not {len(orders)}")
    ids = [s.id for s in ships]
    if len(set(ids)) != len(ids):
        raise IllegalActionError("000 1.5", "two ships share an id")
    out = []
    for side in sides:
        mine = [s for s in ships if s.side == side]
        if not any(s.flagship for s in mine) and mine:
            best = max(mine, key=lambda s: (s.sd.points, -ships.index(s)))
            mine = [replace(s, flagship=True) if s is best else s for s in mine]
        out.extend(mine)
    for side, side_orders in zip(sides, orders):
        order = tuple(side_orders.play_order)
        if len(set(order)) != len(order) or any(o == side or o not in sides for o in order):
            raise IllegalActionError(SIDES_RULE, f"side {side}'s order of play {list(order)} lists each other "
                                     "side of the battle at most once")
        seen: set[int] = set()
        for squadron in side_orders.squadrons:
            if not 2 <= len(squadron) <= 6:
                raise IllegalActionError("000 11.1 Squadrons", f"a squadron has two to six ships, not {len(squadron)}")
            for sid in squadron:
                owner = next((s.side for s in ships if s.id == sid), None)
                if owner != side or sid in seen:
                    raise IllegalActionError("000 11.1 Squadrons", f"ship {sid} cannot be in side {side}'s squadron "
                                             f"{list(squadron)}")
                seen.add(sid)
    stray = [s.id for s in ships if s.side not in sides]
    if stray:
        raise IllegalActionError("000 2.1", f"ship(s) {stray} belong to no side of this battle")
    out.sort(key=lambda s: ids.index(s.id))
    return BattleState(sides=tuple(sides), ships=tuple(out), table=table,  # type: ignore[arg-type]
                       orders=orders, turn_cap=turn_cap, flights=carried_flights(out))


def carried_flights(ships) -> tuple[Flight, ...]:
    """Ruling BZ34: an SD's AC flights start aboard, half fighters (rounded up) and half bombers
    with photon torpedoes; fighters of an SD first available in Period 5 or later have dogfight
    value 2 (24th century), earlier ones 1 (8.2)."""
    out = []
    for ship in ships:
        n = ship.sd.ac
        fighters = (n + 1) // 2
        for i in range(n):
            kind = FIGHTER if i < fighters else BOMBER
            value = (2 if ship.sd.periods[0] >= 5 else 1) if kind == FIGHTER else 0
            out.append(Flight(len(out) + 1, ship.side, ship.id, kind, value))
    return tuple(out)


__all__ = [
    "MAX_SIDES",
    "SIDE_EDGES",
    "ACTIVE",
    "CAPTURED",
    "LURKING",
    "TRANSIT",
    "Web",
    "DESTROYED",
    "LEFT",
    "INITIATIVE",
    "MOVEMENT",
    "ATTACK",
    "END",
    "OVER",
    "ARMAMENT",
    "MOTIVE",
    "SHIELDS",
    "BattleState",
    "Event",
    "IllegalActionError",
    "Celestial",
    "Flight",
    "Minefield",
    "Orders",
    "Ship",
    "Torpedo",
    "evolve",
    "new_battle",
    "new_ship",
    "table_pitch",
    "with_ship",
]
