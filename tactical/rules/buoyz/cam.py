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
from campaign.rules.cam.state import CamCampaign
from campaign.rules.dice import Dice

from .geometry import EPSILON, advance, norm, turn_degrees
from .state import (
    ACTIVE,
    CAPTURED,
    DEFAULT_TABLE,
    DESTROYED,
    LEFT,
    BattleState,
    Celestial,
    Orders,
    Ship,
    new_battle,
    new_ship,
)

RETREAT_RULE = "000 CAM 3.1 'Break Contact' (a) retreat"
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

    def edge(self, seat: int) -> str:
        return self.battle.scenario.edges.get(seat) or ("south" if seat == self.battle.scenario.seats[0] else "north")

    def breaking(self, seat: int) -> bool:
        return self.battle.ordered_to_break(seat)


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
    x = CLEAR_OF_EDGES - 1 + dice.roll(1, w - 2 * CLEAR_OF_EDGES + 1, f"{TABLE_RULE}: {what} x").faces[0]
    y = CLEAR_OF_EDGES - 1 + dice.roll(1, h - 2 * CLEAR_OF_EDGES + 1, f"{TABLE_RULE}: {what} y").faces[0]
    return (float(x), float(y))


def table_objects(battle: bc.BattleState, dice: Dice, table: tuple[float, float] = DEFAULT_TABLE) -> tuple[Celestial, ...]:
    """CAM 2.3's table nature placed "at random on the playing area" with the dice (ruling BZ49):
    a terrestrial planet, a gas giant with its moons around it, or two nebula clouds."""
    if not battle.scenario.tables:
        return ()
    nature = battle.scenario.tables[0].nature
    out: list[Celestial] = []
    if nature is TableNature.TERRESTRIAL_PLANET:
        out.append(Celestial(1, "planet", _random_point(dice, table, "planet"), PLANET_RADIUS))
    elif nature is TableNature.GAS_GIANT:
        centre = _random_point(dice, table, "gas giant")
        out.append(Celestial(1, "planet", centre, GIANT_RADIUS))
        for i in range(battle.scenario.tables[0].moons or 0):
            bearing_deg = 30 * dice.roll(1, 12, f"{TABLE_RULE}: moon {i + 1} bearing").faces[0]
            reach = GIANT_RADIUS + 1 + dice.roll(1, 3, f"{TABLE_RULE}: moon {i + 1} distance").faces[0]
            out.append(Celestial(2 + i, "moon", advance(centre, bearing_deg, reach), MOON_RADIUS))
    elif nature is TableNature.NEBULAE:
        for i in range(2):
            out.append(Celestial(1 + i, "nebula", _random_point(dice, table, f"nebula {i + 1}"), NEBULA_RADIUS))
    return tuple(out)


def deploy_cam(campaign: CamCampaign, battle: bc.BattleState, table: tuple[float, float] = DEFAULT_TABLE,
               orders: Mapping[int, Orders] | None = None, turn_cap: int | None = None,
               dice: Dice | None = None) -> BattleState:
    """The scenario's ships in line abreast along each seat's CAM 2.3 edge. Ruling BZ29: extra AC
    counters, bases and minefields are not on the engine's table yet (AC leave with their side's
    last ship; bases and minefields stay, CAM ruling CAM15)."""
    seats = battle.scenario.seats
    link_units: list[tuple[int, int, str]] = []
    ships: list[Ship] = []
    next_id = 1
    probe = CamLink(battle, ())
    for seat in seats:
        units = [u for u in battle.force(seat).units if u.kind == "ship"]
        places = _line(probe.edge(seat), len(units), table)
        player = campaign.player(seat)
        for unit, (pos, heading) in zip(units, places):
            roster = player.ship(unit.ship_id)
            if roster is None:
                raise ValueError(f"seat {seat} has no roster ship {unit.ship_id} for unit {unit.uid}")
            ships.append(new_ship(next_id, seat, campaign.sd_of(roster), pos, heading))
            link_units.append((next_id, seat, unit.uid))
            next_id += 1
    o = orders or {}
    kwargs = {} if turn_cap is None else {"turn_cap": turn_cap}
    state = new_battle(ships, sides=seats, table=table, orders=(o.get(seats[0], Orders()), o.get(seats[1], Orders())),
                       **kwargs)
    objects = table_objects(battle, dice, table) if dice is not None else ()
    return replace(state, cam=CamLink(battle, tuple(link_units)), objects=objects)


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

    if allowance(ship) <= EPSILON:
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
    room = max(0.0, allowance(ship) - points)
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
        if ship.status == LEFT and (ship_id, "left") not in recorded:
            facts.append("left")
        for fact in facts:
            by_seat.setdefault(seat, {"destroyed": [], "crippled": [], "left": []})[fact].append(uid)
            recorded.add((ship_id, fact))
    # AC counters have no engine counterpart yet (ruling BZ29): they leave with the last ship.
    for seat in battle.scenario.seats:
        if not any(state.ship(sid).status == ACTIVE for sid, s, _ in link.units if s == seat):
            ac = [u.uid for u in battle.on_table(seat) if u.kind == "ac"]
            if ac:
                by_seat.setdefault(seat, {"destroyed": [], "crippled": [], "left": []})["left"].extend(ac)
    # Sides not ordered to break contact first: the record refuses anything once all contact is
    # broken, and the breaking side's last ship leaving is what breaks it.
    for seat in sorted(by_seat, key=lambda s: (battle.ordered_to_break(s), s)):
        battle = bc.record_damage(battle, seat, **by_seat[seat])
    return replace(state, cam=replace(link, battle=battle, recorded=frozenset(recorded)))


def end_phase(state: BattleState, log) -> BattleState:
    """CAM 3.0 step 1 after the engine's End Phase: record the turn and roll every check."""
    state = sync(state)
    link = state.cam
    if link.battle.contact_broken:
        return state
    res = bc.end_of_turn(link.battle, log.dice)
    for e in res.events:
        log.add("cam", e.text, dict(e.data))
    return replace(state, cam=replace(link, battle=res.battle))


def finish(state: BattleState, log) -> tuple[BattleState, int | None]:
    """CAM 3.0 step 2: tally (forced when the battle ends without all contact broken: a side
    wiped out, or the turn cap; CAM ruling CAM15)."""
    state = sync(state)
    link = state.cam
    score = score_scenario(link.battle, force_end=not link.battle.contact_broken)
    for e in score.events:
        log.add("cam_score", e.text, dict(e.data))
    state = replace(state, cam=replace(link, score=score))
    return state, score.winner


__all__ = ["CamLink", "EDGE_HEADING", "breaking", "deploy_cam", "end_phase", "finish", "retreat_problem", "sync"]
