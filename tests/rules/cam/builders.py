"""Small builders for the CAM rules tests: a test catalogue (the rule book's SDs plus one SD of
every class the book lacks, available in every period) and campaigns/scenarios/battles from a
few words."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from campaign.rules.cam.breakcontact import BattleState, start_battle
from campaign.rules.cam.factions import Faction, faction, other_power
from campaign.rules.cam.scenario import (
    ForceSelection,
    Nature,
    Scenario,
    generate_scenario,
    select_forces,
    set_up_table,
)
from campaign.rules.cam.ships import SD, ShipClass, make_catalogue
from campaign.rules.cam.state import CamCampaign, CamSettings, StartingPlayer, StartingShip, new_campaign
from campaign.rules.dice import FixedDice


def _sd(key: str, cls: ShipClass, size: int = 3, crippled_at: int = 1) -> SD:
    return SD(key, cls, f"{cls.value} test '{key}'", 6, 3, size, (2, 2, 2, 2), 4, crippled_at)


TEST_SDS = (
    _sd("t_bb", ShipClass.BB, size=1),
    _sd("t_bb0", ShipClass.BB, size=0),
    _sd("t_cv", ShipClass.CV, size=1),
    _sd("t_bc", ShipClass.BC, size=2),
    _sd("t_cve", ShipClass.CVE, size=2),
    _sd("t_ca", ShipClass.CA),
    _sd("t_ca0", ShipClass.CA, size=0),
    _sd("t_cl", ShipClass.CL),
    _sd("t_dd", ShipClass.DD, size=4),
    _sd("t_de", ShipClass.DE, size=5, crippled_at=0),
    _sd("t_ss", ShipClass.SS, size=5, crippled_at=0),
    _sd("t_tp", ShipClass.TP),
)
CATALOGUE = make_catalogue(*TEST_SDS)


def power(name: str, wealth: str | None = None, temper: str | None = None) -> Faction:
    return faction(name) if wealth is None else other_power(name, wealth, temper)


def campaign_of(fleet_1: Sequence[str], fleet_2: Sequence[str], *, period: int = 2, starting_points: int = 200,
                factions: tuple[Faction, Faction] | None = None, **settings) -> CamCampaign:
    """Seat 1 (UFP) and seat 2 (Klingons) with fleets given as SD keys; ids run 1, 2, …"""
    f1, f2 = factions or (faction("UFP"), faction("Klingons"))
    return new_campaign(
        CamSettings(period=period, starting_points=starting_points, **settings),
        [StartingPlayer(1, "Kirk", f1, tuple(StartingShip(k) for k in fleet_1)),
         StartingPlayer(2, "Kor", f2, tuple(StartingShip(k) for k in fleet_2))],
        catalogue=CATALOGUE)


def scenario_with(campaign: CamCampaign, ships: Mapping[int, Iterable[int]], *, nature: str = "open_battle",
                  defender: int | None = None, extras: Mapping[int, dict] | None = None) -> Scenario:
    """A scenario with a chosen nature and both forces selected (no dice)."""
    scenario = generate_scenario(campaign, FixedDice([]), nature=nature,
                                 defender=defender if Nature(nature) is not Nature.OPEN_BATTLE else None).scenario
    for seat in campaign.seats:
        scenario = select_forces(campaign, scenario, ForceSelection(seat, tuple(ships[seat]),
                                                                    **(extras or {}).get(seat, {})))
    return scenario


def battle_with(campaign: CamCampaign, ships: Mapping[int, Iterable[int]], **kw) -> BattleState:
    """A battle on open space (table 1, edge roll 6 against 1 for seat 1)."""
    scenario = scenario_with(campaign, ships, **kw)
    # table 1d6 = 1 (open space; 3 with a dispute's +2); edges: seat 1 rolls 6s, seat 2 rolls 1s
    counts = [1 if any(u.kind == "base" for u in scenario.forces[s].units) else 2 for s in campaign.seats]
    faces = [1] + [6] * counts[0] + [1] * counts[1]
    dice = FixedDice(faces)
    scenario = set_up_table(campaign, scenario, dice).scenario
    assert not dice.remaining()
    return start_battle(campaign, scenario)
