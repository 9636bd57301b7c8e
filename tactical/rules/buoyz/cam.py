"""CAM scenarios fought on the engine (rule book ``seeds/000_…`` CAM 3.0, 3.1; pure Python).

``deploy_cam(campaign, battle)`` sets a CAM scenario's ships on the table along the edges CAM 2.3
gave each seat and links every ship to its CAM unit. From then on the engine keeps the CAM record
(``campaign.rules.cam.breakcontact.BattleState``) itself, through the very functions the tabletop
entry uses: after every End Phase it records what the turn destroyed, crippled or took off the
table (``record_damage``) and makes CAM 3.0 step 1 (``end_of_turn``: the break-contact checks);
a side under a 'break contact' order may only make retreat moves (CAM 3.1 a; ruling BZ28); once
all table contact is broken the battle is over and ``scoring.score_scenario`` tallies it (CAM 3.0
step 2), so the result handed to the campaign is exactly what a tabletop entry would give.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from campaign.rules.cam import breakcontact as bc
from campaign.rules.cam.scenario import TableNature
from campaign.rules.cam.scoring import ScenarioScore, score_scenario
from campaign.rules.cam.ships import SD, ShipClass, Weapon, validate_sd
from campaign.rules.cam.state import CamCampaign
from campaign.rules.dice import Dice
from tactical.rules import kit

from .deploy import lurk
from .geometry import EPSILON, advance, norm, turn_degrees
from .sds import has
from .state import (
    ACTIVE,
    BOMBER,
    CAPTURED,
    DEFAULT_TABLE,
    DESTROYED,
    FIGHTER,
    FLIGHT_LEFT,
    FLYING,
    LEFT,
    LOST,
    LURKING,
    SHUTTLE,
    BattleState,
    Celestial,
    Flight,
    IllegalActionError,
    Minefield,
    Orders,
    Ship,
    new_battle,
    new_ship,
)

RETREAT_RULE = "000 CAM 3.1 'Break Contact' (a) retreat"
LURK_RULE = "000 CAM 3.1 'Break Contact' (b) cloak capable ships lurk"
SORTIE_RULE = "000 CAM 3.1 'Break Contact' (c) AC sortie until the last ship has left"
EXTRAS_RULE = "000 CAM 2.2 Scenario Point Level (extra AC counters, bases, minefields)"
# The compass heading that points at each table edge (0 = up the table, "north").
EDGE_HEADING = {"north": 0.0, "east": 90.0, "south": 180.0, "west": 270.0}
RETREAT_CONE = 45.0  # ruling BZ28: "toward their side" is within 45 degrees of straight at it
EDGE_GAP, SPACING = 6.0, 6.0


@dataclass(frozen=True)
class CamLink:
    """The CAM record of the battle and which engine ship is which CAM unit."""

    battle: bc.BattleState
    units: tuple[tuple[int, int, str], ...]  # (ship id, seat, unit uid)
    recorded: frozenset[tuple[int, str]] = frozenset()  # (ship id, "destroyed"/"crippled"/"left")
    score: ScenarioScore | None = None
    flights: tuple[tuple[int, int, str], ...] = ()  # (flight id, seat, unit uid) of the extra AC counters
    recorded_ac: frozenset[str] = frozenset()  # extra AC counter uids recorded destroyed or left

    def edge(self, seat: int) -> str:
        return self.battle.scenario.edges.get(seat) or ("south" if seat == self.battle.scenario.seats[0] else "north")

    def breaking(self, seat: int) -> bool:
        return self.battle.ordered_to_break(seat)

    def break_level(self, seat: int) -> int:
        """The seat's 'Break Contact' points level (CAM 2.3, CAM 3.1 condition 1)."""
        return self.battle.scenario.break_levels[seat]

    def losses(self, seat: int) -> int:
        """Points of the seat's force destroyed so far (CAM 3.0 step 1)."""
        return self.battle.losses(seat)


def _line(edge: str, count: int, table: tuple[float, float]) -> list[tuple[tuple[float, float], float]]:
    """Positions and headings along ``edge``, bows toward the far edge (ruling BZ4)."""
    w, h = table
    length = w if edge in ("north", "south") else h
    per_row = max(1, int((length - 2 * EDGE_GAP) // SPACING) + 1)
    out = []
    for i in range(count):
        row, col = divmod(i, per_row)
        n = min(per_row, count - row * per_row)
        along = length / 2 + (col - (n - 1) / 2) * SPACING
        depth = EDGE_GAP + row * SPACING
        if edge == "south":
            out.append(((along, depth), 0.0))
        elif edge == "north":
            out.append(((along, h - depth), 180.0))
        elif edge == "west":
            out.append(((depth, along), 90.0))
        else:
            out.append(((w - depth, along), 270.0))
    return out


TABLE_RULE = "000 CAM 2.3 Establishing The General Nature Of The Gaming Table"
# Ruling BZ49: the planet templates were lost; a terrestrial planet is a disc of 3" radius, a gas
# giant 4", a moon 1"; a 12" square nebula cloud is a disc of 6" radius.
PLANET_RADIUS, GIANT_RADIUS, MOON_RADIUS, NEBULA_RADIUS = 3.0, 4.0, 1.0, 6.0
CLEAR_OF_EDGES = 12  # objects are placed at least 12" in from every edge, clear of the deployment lines


def _random_point(dice: Dice, table: tuple[float, float], what: str) -> tuple[float, float]:
    w, h = (int(v) for v in table)
    x = CLEAR_OF_EDGES - 1 + kit.one(dice, w - 2 * CLEAR_OF_EDGES + 1, f"{TABLE_RULE}: {what} x")
    y = CLEAR_OF_EDGES - 1 + kit.one(dice, h - 2 * CLEAR_OF_EDGES + 1, f"{TABLE_RULE}: {what} y")
    return (float(x), float(y))


def table_objects(
    battle: bc.BattleState, dice: Dice, table: tuple[float, float] = DEFAULT_TABLE
) -> tuple[Celestial, ...]:
    """CAM 2.3's table nature placed "at random on the playing area" with the dice (ruling BZ49):
    a terrestrial planet, a gas giant with its moons around it, or two nebula clouds."""
    out: list[Celestial] = []
    pitch = replace(BattleState(sides=(1, 2), ships=(), table=table), tables=2).pitch
    for k, spec in enumerate(battle.scenario.tables):  # 11.3: "roll for each table separately" (BZ82)
        placed = _one_table(spec.nature, spec.moons, dice, table, len(out), f" (table {k + 1})" if k else "")
        out.extend(replace(o, centre=(round(o.centre[0] + k * pitch, 4), o.centre[1])) for o in placed)
    return tuple(out)


def _one_table(nature, moons, dice: Dice, table, first: int, label: str) -> list[Celestial]:
    out: list[Celestial] = []
    if nature is TableNature.TERRESTRIAL_PLANET:
        out.append(Celestial(first + 1, "planet", _random_point(dice, table, "planet" + label), PLANET_RADIUS))
    elif nature is TableNature.GAS_GIANT:
        centre = _random_point(dice, table, "gas giant" + label)
        out.append(Celestial(first + 1, "planet", centre, GIANT_RADIUS))
        for i in range(moons or 0):
            bearing_deg = 30 * kit.one(dice, 12, f"{TABLE_RULE}: moon {i + 1} bearing{label}")
            reach = GIANT_RADIUS + 1 + kit.one(dice, 3, f"{TABLE_RULE}: moon {i + 1} distance{label}")
            out.append(Celestial(first + 2 + i, "moon", advance(centre, bearing_deg, reach), MOON_RADIUS))
    elif nature is TableNature.NEBULAE:
        for i in range(2):
            out.append(Celestial(first + 1 + i, "nebula", _random_point(dice, table, f"nebula {i + 1}{label}"),
                                 NEBULA_RADIUS))
    return out


BASE_RULE = "000 11.2 'Shore' Batteries And Bases"
MINEFIELD_SIDE = 12.0  # CAM 2.2 "Each Minefield 12\" Square"
MINEFIELD_DEPTH = 20.0  # ruling BZ56: a pre-set minefield is centred 20" in from its owner's edge
BASE_DEPTH, AC_DEPTH, AC_SPACING = 12.0, 2.0, 3.0


def base_sd(points: int) -> SD:
    """Ruling BZ56: CAM 2.2's "Planetary Battery / Base" (1D6 + 5 points) fights as a ship of
    its own SD (11.2): Speed and Turning N/A, Target Size 2, Shields 4 all round, Hull equal to
    its points and never Crippled, Command 2, Phaser Banks of a third of its points (at least
    2 dice, 360°), Secondary 2 and Close Defence 2; all periods."""
    hull = max(2, min(30, int(points)))
    return validate_sd(SD(key=f"cam_base_{hull}", ship_class=ShipClass.DE, name="Planetary Battery / Base",
                          speed=None, turning=None, target_size=2, shields=(4, 4, 4, 4), hull=hull, crippled_at=0,
                          command=2, main=(Weapon(max(2, hull // 3), "Phaser Banks"),), secondary=2, close_defence=2))


def _inward(edge: str, table: tuple[float, float], along: float, depth: float) -> tuple[float, float]:
    w, h = table
    return {"south": (along, depth), "north": (along, h - depth), "west": (depth, along),
            "east": (w - depth, along)}[edge]


def _spread(count: int, length: float, spacing: float) -> list[float]:
    return [length / 2 + (i - (count - 1) / 2) * spacing for i in range(count)]


def _base_places(edge: str, count: int, table, objects) -> list[tuple[tuple[float, float], float]]:
    """Ruling BZ56: bases stand ½\" off the planet (when the table has one) on the side facing
    their own edge, 30 degrees apart; else 12" in from their own edge, 6" apart."""
    heading_in = (EDGE_HEADING[edge] + 180.0) % 360.0
    planet = next((o for o in objects if o.kind == "planet"), None)
    out = []
    if planet is not None:
        for off in _spread(count, 0.0, 30.0):
            pos = advance(planet.centre, EDGE_HEADING[edge] + off, planet.radius + 0.5)
            out.append((pos, heading_in))
        return out
    length = table[0] if edge in ("north", "south") else table[1]
    return [(_inward(edge, table, a, BASE_DEPTH), heading_in) for a in _spread(count, length, SPACING)]


MULTI_RULE = "000 11.3 Using Multi-Tables"


def _unit_tables(battle: bc.BattleState, tables: int, table_of: Mapping[str, int] | None,
                 lurking: Mapping[str, Any], grid: BattleState) -> dict[str, int]:
    """11.3 (ruling BZ91): each unit's table (index from 0); the first table unless ``table_of``
    names another. A lurking ship's table is its 2' square's (10.2, BZ53)."""
    from .deploy import table_number

    units = {u.uid: u for seat in battle.scenario.seats for u in battle.force(seat).units}
    table_of = dict(table_of or {})
    stray = sorted(uid for uid in table_of if uid not in units)
    if stray:
        raise IllegalActionError(MULTI_RULE, f"no unit(s) {stray} in this scenario to deploy")
    out = {uid: table_number(table_of.get(uid, 1), tables, uid) for uid in units}
    for uid, zone in lurking.items():
        if uid not in table_of or not (isinstance(zone, (tuple, list)) and len(zone) == 2):
            continue
        rect = grid.zone_rect(tuple(zone))
        if rect is not None and grid.table_of((rect[0], rect[1])) != out[uid]:
            raise IllegalActionError(MULTI_RULE, f"{uid} lurks in square {list(zone)}, on table "
                                     f"{grid.table_of((rect[0], rect[1])) + 1}, not table {out[uid] + 1}")
    return out


def deal_tables(battle: bc.BattleState) -> dict[str, int]:
    """Ruling BZ94: the tables of a CAM scenario fought online with more than one gaming table
    (11.3, CAM35): each seat deals its ships over the tables in the order of its force — its first
    ship on table 1 (the "main" table of CAM 2.3), its second on table 2, … and round again — so
    both fleets meet on every table both have a ship for; its bases, minefields and extra AC counters stay on the main
    table. Unit uid → table number, for ``deploy_cam(table_of=…)``; empty on a single table."""
    tables = len(battle.scenario.tables)
    if tables < 2:
        return {}
    out: dict[str, int] = {}
    for seat in battle.scenario.seats:
        ships = [u for u in battle.force(seat).units if u.kind == "ship"]
        out.update({u.uid: i % tables + 1 for i, u in enumerate(ships)})
    return out


def _unit_ship(campaign: CamCampaign, seat: int, unit, ship_id: int, places: Mapping[str, tuple],
               lurking: dict[str, tuple[int, int]], lurk_ids: dict[int, tuple[int, int]],
               table: tuple[float, float]) -> Ship:
    """The ship of a CAM ship unit (``deploy_cam``): at its place in its side's line, or, when it
    starts lurking (10.2), at the table's centre with its 2' square moved from ``lurking`` to
    ``lurk_ids``."""
    roster = campaign.player(seat).ship(unit.ship_id)
    if roster is None:
        raise ValueError(f"seat {seat} has no roster ship {unit.ship_id} for unit {unit.uid}")
    sd = campaign.sd_of(roster)
    if unit.uid in lurking:
        if not has(sd.special_abilities, "Cloak"):
            raise ValueError(f"{unit.uid} ({sd.name}) has no cloaking device and cannot lurk (000 10.2)")
        lurk_ids[ship_id] = tuple(lurking.pop(unit.uid))
        return new_ship(ship_id, seat, sd, (table[0] / 2, table[1] / 2), 0.0)
    pos, heading = places[unit.uid]
    return new_ship(ship_id, seat, sd, pos, heading)


def deploy_cam(campaign: CamCampaign, battle: bc.BattleState, table: tuple[float, float] = DEFAULT_TABLE,
               orders: Mapping[int, Orders] | None = None, turn_cap: int | None = None,
               dice: Dice | None = None, *, extra_ac_kinds: Mapping[int, tuple[str, ...]] | None = None,
               lurking: Mapping[str, tuple[int, int]] | None = None, rotation: bool = False,
               table_of: Mapping[str, int] | None = None) -> BattleState:
    """A CAM scenario on the engine's table (CAM 2.2, 2.3; rulings BZ4, BZ29, BZ49, BZ56).

    * Each seat's ships in line abreast along its CAM 2.3 edge, each linked to its CAM unit.
    * Its Planetary Batteries / Bases as ships of ``base_sd`` (linked to their ``base:`` units):
      by the table's planet if it has one, else 12" in from its edge.
    * Its pre-set minefields, 12" square, centred 20" in from its edge, side by side.
    * Its extra AC counters flying 2" in from its edge, from an off-table base (8.1, 8.3): of the
      kinds ``extra_ac_kinds[seat]`` lists (``fighter``/``bomber``/``shuttle``), by default
      fighter, bomber, fighter, …; fighters have dogfight value 2 from Period 5 on, else 1 (8.2).
    * With ``dice``, the CAM 2.3 table nature placed at random (``table_objects``, BZ49).
    * ``lurking`` (unit uid → 2' square (column, row)): cloak-capable ships that start lurking
      (10.2) instead of on their edge.
    * ``rotation``: 11.5 planetary / base rotation (an option, ruling BZ58).
    * ``table_of`` (unit uid → table number, 1 = the first, "main", table; 11.3, ruling BZ91):
      with multi-tables, the table a unit deploys on (by default the first); each seat lines up
      along its own CAM 2.3 edge of every table it has units on.

    Backward compatible: everything after ``dice`` is keyword-only and optional. Every unit of
    the scenario is on the table; the CAM record follows it (``sync``)."""
    seats = battle.scenario.seats
    if len(seats) != 2:  # ruling BZ89: CAM 3.1's scoring is attacker against defender
        raise IllegalActionError(
            "000 CAM 3.0", f"a CAM scenario is fought by two sides, not {len(seats)} (ruling BZ89)"
        )
    link_units: list[tuple[int, int, str]] = []
    ships: list[Ship] = []
    next_id = 1
    probe = CamLink(battle, ())
    n_tables = max(1, len(battle.scenario.tables))
    grid = replace(BattleState(sides=seats, ships=(), table=table), tables=n_tables)
    objects = table_objects(battle, dice, table) if dice is not None else ()
    lurking = dict(lurking or {})
    lurk_ids: dict[int, tuple[int, int]] = {}
    where = _unit_tables(battle, n_tables, table_of, lurking, grid)

    def shift(k: int, pos: tuple[float, float]) -> tuple[float, float]:
        return (round(pos[0] + k * grid.pitch, 4), pos[1]) if k else pos

    def objects_on(k: int) -> tuple[Celestial, ...]:  # table k's objects, in its own inches
        return tuple(replace(o, centre=(round(o.centre[0] - k * grid.pitch, 4), o.centre[1]))
                     for o in objects if grid.table_of(o.centre) == k)

    for seat in seats:
        units = [u for u in battle.force(seat).units if u.kind == "ship"]
        places: dict[str, tuple[tuple[float, float], float]] = {}
        for k in range(n_tables):  # 11.3: a line along its edge of each table it has ships on
            here = [u for u in units if u.uid not in lurking and where[u.uid] == k]
            for unit, (pos, heading) in zip(here, _line(probe.edge(seat), len(here), table)):
                places[unit.uid] = (shift(k, pos), heading)
        for unit in units:
            ships.append(_unit_ship(campaign, seat, unit, next_id, places, lurking, lurk_ids, table))
            link_units.append((next_id, seat, unit.uid))
            next_id += 1
        bases = [u for u in battle.force(seat).units if u.kind == "base"]
        for k in range(n_tables):
            here = [u for u in bases if where[u.uid] == k]
            for unit, (pos, heading) in zip(here, _base_places(probe.edge(seat), len(here), table, objects_on(k))):
                ships.append(new_ship(next_id, seat, base_sd(unit.points), shift(k, pos), heading))
                link_units.append((next_id, seat, unit.uid))
                next_id += 1
    if lurking:
        raise ValueError(f"no ship unit(s) {sorted(lurking)} to lurk")
    o = orders or {}
    kwargs = {} if turn_cap is None else {"turn_cap": turn_cap}
    state = new_battle(ships, sides=seats, table=table, orders=(o.get(seats[0], Orders()), o.get(seats[1], Orders())),
                       **kwargs)
    flights = list(state.flights)
    link_flights: list[tuple[int, int, str]] = []
    minefields: list[Minefield] = []
    period = campaign.settings.period
    for seat in seats:
        edge = probe.edge(seat)
        length = table[0] if edge in ("north", "south") else table[1]
        extra = [u for u in battle.force(seat).units if u.kind == "ac"]
        kinds = tuple((extra_ac_kinds or {}).get(seat, ()))
        for k in range(n_tables):
            here = [(i, u) for i, u in enumerate(extra) if where[u.uid] == k]
            for (i, unit), along in zip(here, _spread(len(here), length, AC_SPACING)):
                kind = kinds[i] if i < len(kinds) else (FIGHTER if i % 2 == 0 else BOMBER)
                if kind not in (FIGHTER, BOMBER, SHUTTLE):
                    raise ValueError(f"an extra AC counter is a fighter, bomber or shuttle, not {kind!r} (000 8.2)")
                value = (2 if period >= 5 else 1) if kind == FIGHTER else 0
                fid = len(flights) + 1
                flights.append(Flight(fid, seat, 0, kind, value, status=FLYING,
                                      pos=shift(k, _inward(edge, table, along, AC_DEPTH)), offtable=True))
                link_flights.append((fid, seat, unit.uid))
        fields = [u for u in battle.force(seat).units if u.kind == "minefield"]
        for k in range(n_tables):
            here = [u for u in fields if where[u.uid] == k]
            for _unit, along in zip(here, _spread(len(here), length, MINEFIELD_SIDE)):
                minefields.append(Minefield(len(minefields) + 1, seat,
                                            shift(k, _inward(edge, table, along, MINEFIELD_DEPTH)),
                                            EDGE_HEADING[edge], MINEFIELD_SIDE, MINEFIELD_SIDE, 1))
    state = replace(state, cam=CamLink(battle, tuple(link_units), flights=tuple(link_flights)), objects=objects,
                    flights=tuple(flights), minefields=tuple(minefields), rotation=rotation, tables=n_tables)
    try:
        return lurk(state, lurk_ids)
    except IllegalActionError as exc:
        raise ValueError(f"{exc} (no 2' square on a {table[0]:g}\" x {table[1]:g}\" table)") from exc


def breaking(state: BattleState, side: int) -> bool:
    return state.cam is not None and state.cam.breaking(side)


def retreat_heading(state: BattleState, side: int) -> float:
    return EDGE_HEADING[state.cam.edge(side)]


def _off(heading: float, target: float) -> float:
    return abs((heading - target + 180.0) % 360.0 - 180.0)


def retreat_problem(state: BattleState, ship: Ship, move: Any) -> str | None:
    """Why ``move`` is not a retreat as CAM 3.1 (a) demands (ruling BZ28), or None. Every inch
    moved is within 45 degrees of straight at the side's own edge; no turn takes the bow further
    from it; the ship moves its whole remaining move ("at maximum speed") once its bow is within
    45 degrees, and until then turns its full Turning toward the edge."""
    from .engine import allowance, turning

    allow = allowance(ship)
    if allow <= EPSILON:
        return None  # dead in space or a station: it cannot retreat
    r = retreat_heading(state, ship.side)
    h0 = ship.heading
    h1 = norm(h0 + turn_degrees(move.turn))
    h2 = norm(h1 + turn_degrees(move.turn_end))
    cone = RETREAT_CONE + EPSILON
    if move.before > EPSILON and _off(h0, r) > cone:
        return f"a ship breaking contact may not move laterally or toward the enemy (its bow is {_off(h0, r):g} " \
               f"degrees off its own {state.cam.edge(ship.side)} edge)"
    if move.after > EPSILON and _off(h1, r) > cone:
        return f"a ship breaking contact may not move laterally or toward the enemy (after its turn its bow is " \
               f"{_off(h1, r):g} degrees off its own {state.cam.edge(ship.side)} edge)"
    if _off(h2, r) > max(_off(h0, r), RETREAT_CONE) + EPSILON or _off(h1, r) > max(_off(h0, r), RETREAT_CONE) + EPSILON:
        return "a ship breaking contact may not turn away from its own edge"
    points = abs(move.turn) + abs(move.turn_end)
    room = max(0.0, allow - points)
    forward = move.before + move.after
    if _off(h1, r) <= cone:
        if forward < room - 1e-3:
            return f"a ship breaking contact retreats at maximum speed: {room:g}\" after its turn, not {forward:g}\""
    elif abs(move.turn) != turning(ship) or forward > EPSILON:
        return f"a ship breaking contact that cannot yet face its own edge turns its full {turning(ship)} point(s) " \
               "toward it"
    return None


def sync(state: BattleState) -> BattleState:
    """Record in the CAM battle what has happened to the linked ships since the last record."""
    link = state.cam
    recorded = set(link.recorded)
    battle = link.battle
    by_seat: dict[int, dict[str, list[str]]] = {}
    for ship_id, seat, uid in link.units:
        ship = state.ship(ship_id)
        facts = []
        if ship.crippled and ship.status not in (DESTROYED, CAPTURED) and (ship_id, "crippled") not in recorded \
                and battle.force(seat).unit(uid).can_cripple:
            facts.append("crippled")
        if ship.status in (DESTROYED, CAPTURED) and (ship_id, "destroyed") not in recorded:
            facts.append("destroyed")
        if (ship.status == LEFT or (ship.status == LURKING and link.breaking(seat))) \
                and (ship_id, "left") not in recorded:
            facts.append("left")  # CAM 3.1 (c): a ship "reverted to 'lurking'" has gone like one that left
        for fact in facts:
            by_seat.setdefault(seat, {"destroyed": [], "crippled": [], "left": []})[fact].append(uid)
            recorded.add((ship_id, fact))
    recorded_ac = set(link.recorded_ac)
    for flight_id, seat, uid in link.flights:  # the extra AC counters (ruling BZ56)
        f = state.flight(flight_id)
        fact = "destroyed" if f.status == LOST else "left" if f.status == FLIGHT_LEFT else None
        if fact and uid not in recorded_ac:
            by_seat.setdefault(seat, {"destroyed": [], "crippled": [], "left": []})[fact].append(uid)
            recorded_ac.add(uid)
    linked = {uid for _f, _s, uid in link.flights}
    # AC counters with no engine counterpart (ruling BZ29) leave with the last ship.
    for seat in battle.scenario.seats:
        if not any(state.ship(sid).status == ACTIVE for sid, s, _ in link.units if s == seat):
            ac = [u.uid for u in battle.on_table(seat) if u.kind == "ac" and u.uid not in linked]
            if ac:
                by_seat.setdefault(seat, {"destroyed": [], "crippled": [], "left": []})["left"].extend(ac)
    # Sides not ordered to break contact first: the record refuses anything once all contact is
    # broken, and the breaking side's last ship leaving is what breaks it.
    for seat in sorted(by_seat, key=lambda s: (battle.ordered_to_break(s), s)):
        battle = bc.record_damage(battle, seat, **by_seat[seat])
    return replace(state, cam=replace(link, battle=battle, recorded=frozenset(recorded),
                                      recorded_ac=frozenset(recorded_ac)))


def cloak_capable(ship: Ship) -> bool:
    """CAM 3.1 (b) "cloak capable": a ship with the Cloak ability whose cloak works (not Crippled,
    no Critical Shields: 5.7 (5), 5.8 (3))."""
    return has(ship.abilities, "Cloak") and not ship.crippled and ship.crit("shields") == 0


def start_lurking(state: BattleState, seat: int, log) -> BattleState:
    """CAM 3.1 (b) (ruling BZ52): when the break-contact order is issued, every cloak-capable ship
    of the side still on the table (and not in hyperspace) starts lurking at once, in the 2'
    square it is in; it has broken contact (the CAM record counts it as gone) and stays lurking
    for the rest of the scenario. A tractor beam it holds is released."""
    for ship in state.ships:
        if ship.side != seat or not ship.active or ship.hyperspace or not cloak_capable(ship):
            continue
        if ship.tractor is not None:
            held = state.ship(ship.tractor[0])
            state = replace(state, ships=tuple(replace(x, held=False) if x.id == held.id else x for x in state.ships))
        lurker = replace(ship, status=LURKING, zone=state.zone_at(ship.pos), cloaked=True, detected=False,
                         tractor=None, landed=False)
        state = replace(state, ships=tuple(lurker if x.id == ship.id else x for x in state.ships))
        log.note("lurk", f"{ship.name} ({ship.id}) cloaks and lurks: it breaks contact ({LURK_RULE})",
                {"ship": ship.id, "zone": list(lurker.zone)})
    return state


def ac_follow(state: BattleState, log) -> BattleState:
    """CAM 3.1 (c), (e) (ruling BZ52): a side breaking contact sorties AC normally until its last
    ship has left the table, been destroyed or reverted to lurking; then its AC leave with it."""
    flights = list(state.flights)
    for seat in state.sides:
        if not state.cam.breaking(seat) or any(s.sd.speed is not None for s in state.active_ships(seat)):
            continue  # a base (Speed N/A) never leaves: CAM ruling CAM15
        for i, f in enumerate(flights):
            if f.side == seat and f.status not in (LOST, FLIGHT_LEFT):
                flights[i] = replace(f, status=FLIGHT_LEFT, pos=None, attack=None, locked=False, cap=False)
                log.note("ac_left", f"Side {seat}'s {f.kind} flight {f.id} leaves with its fleet ({SORTIE_RULE})",
                        {"flight": f.id})
    return replace(state, flights=tuple(flights))


def end_phase(state: BattleState, log) -> BattleState:
    """CAM 3.0 step 1 after the engine's End Phase: record the turn and roll every check."""
    state = sync(ac_follow(state, log))
    link = state.cam
    if link.battle.contact_broken:
        return state
    before = {seat for seat in state.sides if link.breaking(seat)}
    res = bc.end_of_turn(link.battle, log.dice)
    for e in res.events:
        log.note("cam", e.text, dict(e.data))
    state = replace(state, cam=replace(link, battle=res.battle))
    ordered = [seat for seat in state.sides if state.cam.breaking(seat) and seat not in before]
    for seat in ordered:
        state = start_lurking(state, seat, log)
    if ordered:
        state = sync(ac_follow(state, log))
    return state


def finish(state: BattleState, log) -> tuple[BattleState, int | None]:
    """CAM 3.0 step 2: tally (forced when the battle ends without all contact broken: a side
    wiped out, or the turn cap; CAM ruling CAM15)."""
    state = sync(state)
    link = state.cam
    score = score_scenario(link.battle, force_end=not link.battle.contact_broken)
    for e in score.events:
        log.note("cam_score", e.text, dict(e.data))
    state = replace(state, cam=replace(link, score=score))
    return state, score.winner


__all__ = [
    "CamLink",
    "EDGE_HEADING",
    "breaking",
    "deal_tables",
    "deploy_cam",
    "end_phase",
    "finish",
    "retreat_problem",
    "sync",
]
