"""Scoring a CAM scenario and a campaign (pure Python): CAM 3.1's points left and victory scale,
CAM 4.3 campaign points, and the standings across a rubber (CAM 4.1).

* ``score_scenario(battle)`` — the winner, the victory scale and each side's CPs;
* ``record_scenario(campaign, battle, score)`` — the campaign after the scenario: roster ship
  states (destroyed / crippled), CPs and the history (the CAM 4.2 rolls come after, in
  ``replacements.between_scenarios``);
* ``standings(campaign)`` — CP totals and the leader (or the campaign winner once finished).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import Enum
from types import MappingProxyType

from .breakcontact import BattleState, UnitState
from .state import CamCampaign, Event, ScenarioRecord, ShipStatus

VICTORY_RULE = "000 CAM 3.1 'Break Contact' Scenario Ending (points left; victory scale)"
CP_RULE = "000 CAM 4.3 Campaign Scoring"
LENGTH_RULE = "000 CAM 4.1 Length Of Campaigns"
NOT_BROKEN_BONUS = 50  # "Add 50 points to this total if not also forced to 'break contact'."
CP_BROKE_FIRST = 3  # "Player forces his enemy to break contact first"
CP_PER_TEN = 1  # "Each full 10 points of enemy destroyed"
CP_NOT_BROKEN = 2  # "Add 2 CPs if player was not also obliged to break contact."


class ScoringError(ValueError):
    pass


class Victory(str, Enum):
    MINOR = "minor"  # less than 2-1 in points left
    MAJOR = "major"  # at least 2-1 but less than 3-1
    DECISIVE = "decisive"  # 3-1 or better


def victory_level(winner_total: int, loser_total: int) -> Victory:
    """CAM 3.1 scale on the two totals (ruling CAM18: bonus included; a loser with nothing left
    is a decisive defeat). Exact integer comparisons."""
    if winner_total <= loser_total:
        raise ScoringError(f"{VICTORY_RULE}: the winner needs more points left ({winner_total} vs {loser_total})")
    if winner_total >= 3 * loser_total:
        return Victory.DECISIVE
    if winner_total >= 2 * loser_total:
        return Victory.MAJOR
    return Victory.MINOR


@dataclass(frozen=True)
class SideScore:
    seat: int
    force_points: int
    lost: int  # own points destroyed
    points_left: int
    bonus: int  # +50 if not forced to break contact
    total: int
    broke_contact: int | None  # turn of the break order
    campaign_points: int
    cp_breakdown: Mapping[str, int]


@dataclass(frozen=True)
class ScenarioScore:
    scenario: int
    sides: Mapping[int, SideScore]
    winner: int | None  # None: a draw (ruling CAM18)
    victory: Victory | None
    events: tuple[Event, ...]


def score_scenario(battle: BattleState, *, force_end: bool = False) -> ScenarioScore:
    """CAM 3.0 step 2 and CAM 3.1: tally once all table contact has been broken (or, with
    ``force_end``, when the moderator ends the game: ruling CAM15). Points left are the force's
    points less those destroyed (crippled ships count in full); +50 for a side not forced to break
    contact; the higher total wins on the victory scale; CAM 4.3 CPs for each side."""
    if not (battle.contact_broken or force_end):
        raise ScoringError(f"{VICTORY_RULE}: table contact has not been broken yet; play on or end the "
                           "game by the moderator's decision")
    seats = battle.scenario.seats
    sides: dict[int, SideScore] = {}
    for seat in seats:
        enemy = seats[1] if seat == seats[0] else seats[0]
        force_points = battle.force(seat).points
        lost = battle.losses(seat)
        broke = battle.broken.get(seat)
        enemy_broke = battle.broken.get(enemy)
        bonus = NOT_BROKEN_BONUS if broke is None else 0
        # "forces his enemy to break contact first": the enemy's order came on an earlier turn than
        # ours, or we never had one (ruling CAM19: the same turn is nobody's "first").
        first = enemy_broke is not None and (broke is None or enemy_broke < broke)
        breakdown = {
            "enemy_broke_first": CP_BROKE_FIRST if first else 0,
            "enemy_destroyed": CP_PER_TEN * (battle.losses(enemy) // 10),
            "not_broken": CP_NOT_BROKEN if broke is None else 0,
        }
        sides[seat] = SideScore(seat=seat, force_points=force_points, lost=lost, points_left=force_points - lost,
                                bonus=bonus, total=force_points - lost + bonus, broke_contact=broke,
                                campaign_points=sum(breakdown.values()),
                                cp_breakdown=MappingProxyType(breakdown))
    a, b = (sides[s] for s in seats)
    if a.total == b.total:
        winner, victory = None, None
        text = f"Scenario {battle.scenario.number}: a draw, {a.total} points left each ({VICTORY_RULE})."
    else:
        win, lose = (a, b) if a.total > b.total else (b, a)
        winner, victory = win.seat, victory_level(win.total, lose.total)
        text = (f"Scenario {battle.scenario.number}: seat {win.seat} wins a {victory.value} victory, {win.total} "
                f"points left to {lose.total} ({VICTORY_RULE}).")
    events = [Event("scoring", "result", seats, text,
                    {"winner": winner, "victory": victory.value if victory else None,
                     "totals": {str(s.seat): s.total for s in (a, b)}})]
    for side in (a, b):
        parts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in side.cp_breakdown.items() if v)
        events.append(Event("scoring", "campaign_points", (side.seat,),
                            f"Seat {side.seat} gains {side.campaign_points} CPs ({parts or 'none'}; {CP_RULE}).",
                            {"seat": side.seat, "cps": side.campaign_points, "breakdown": dict(side.cp_breakdown),
                             "points_left": side.points_left, "bonus": side.bonus}))
    return ScenarioScore(scenario=battle.scenario.number, sides=MappingProxyType(sides), winner=winner,
                         victory=victory, events=tuple(events))


@dataclass(frozen=True)
class Resolution:
    campaign: CamCampaign
    events: tuple[Event, ...]


def record_scenario(campaign: CamCampaign, battle: BattleState, score: ScenarioScore) -> Resolution:
    """The campaign after ``battle``: roster ships destroyed in it are destroyed (with the
    scenario number), surviving crippled ones wait for their CAM 4.2 repair roll; CPs added; the
    scenario joins the history."""
    scenario = battle.scenario
    if scenario.number != campaign.scenarios_played + 1:
        raise ScoringError(f"{LENGTH_RULE}: scenario {scenario.number} is not the campaign's next scenario "
                           f"({campaign.scenarios_played + 1})")
    if score.scenario != scenario.number:
        raise ScoringError(f"{CP_RULE}: the score is for scenario {score.scenario}, not {scenario.number}")
    events: list[Event] = []
    for seat in scenario.seats:
        player = campaign.player(seat)
        fate: dict[int, ShipStatus] = {}
        for unit in battle.force(seat).units:
            if unit.kind != "ship":
                continue
            status = battle.status[seat][unit.uid]
            if status.state is UnitState.DESTROYED:
                fate[unit.ship_id] = ShipStatus.DESTROYED
            elif status.crippled:
                fate[unit.ship_id] = ShipStatus.CRIPPLED
        ships = tuple(
            replace(s, status=fate[s.id], destroyed_in=scenario.number if fate[s.id] is ShipStatus.DESTROYED else None)
            if s.id in fate else s for s in player.ships)
        for ship_id, status in fate.items():
            events.append(Event("scoring", f"ship_{status.value}", (seat,),
                                f"{player.ship(ship_id).name} is {status.value} after scenario {scenario.number}.",
                                {"seat": seat, "ship": ship_id}))
        campaign = campaign.with_player(replace(
            player, ships=ships, campaign_points=player.campaign_points + score.sides[seat].campaign_points))
    record = ScenarioRecord(
        number=scenario.number, nature=scenario.nature.value, winner=score.winner,
        victory=score.victory.value if score.victory else None,
        campaign_points=MappingProxyType({s: score.sides[s].campaign_points for s in scenario.seats}),
        points_left=MappingProxyType({s: score.sides[s].total for s in scenario.seats}),
        broke_contact=MappingProxyType({s: score.sides[s].broke_contact for s in scenario.seats}))
    campaign = replace(campaign, history=campaign.history + (record,))
    return Resolution(campaign, tuple(events) + score.events)


@dataclass(frozen=True)
class Standing:
    seat: int
    name: str
    campaign_points: int
    scenario_wins: int
    victories: Mapping[str, int]


@dataclass(frozen=True)
class Standings:
    table: tuple[Standing, ...]  # most CPs first; ties in seat order
    leader: int | None  # None while tied on CPs
    finished: bool
    winner: int | None  # the leader once the rubber is over (None: a drawn campaign)


def cp_leader(points: Mapping[int, int]) -> int | None:
    """The seat with the most campaign points (CAM 4.3), None while tied (ruling CAM20: equal CPs
    is a drawn campaign); the campaign's winner once the rubber is over."""
    ranked = sorted(points.items(), key=lambda item: (-item[1], item[0]))
    if not ranked:
        return None
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None
    return ranked[0][0]


def standings(campaign: CamCampaign) -> Standings:
    """CAM 4.1/4.3: the campaign is scored on the CPs of its scenarios (ruling CAM20: equal CPs
    is a drawn campaign; scenario wins are shown, not used to break the tie)."""
    rows = []
    for player in campaign.players:
        wins = [r for r in campaign.history if r.winner == player.seat]
        victories = {v.value: sum(1 for r in wins if r.victory == v.value) for v in Victory}
        rows.append(Standing(seat=player.seat, name=player.name, campaign_points=player.campaign_points,
                             scenario_wins=len(wins), victories=MappingProxyType(victories)))
    rows.sort(key=lambda r: -r.campaign_points)
    leader = cp_leader({r.seat: r.campaign_points for r in rows})
    finished = campaign.finished
    return Standings(table=tuple(rows), leader=leader, finished=finished, winner=leader if finished else None)

