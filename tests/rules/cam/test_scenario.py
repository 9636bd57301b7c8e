"""CAM 2.1 – 2.3: scenario nature, points level, force selection, the table, edges and BC level."""

from __future__ import annotations

import pytest

from campaign.rules.cam.factions import faction
from campaign.rules.cam.scenario import (
    ForceSelection,
    ForceSelectionError,
    Nature,
    ScenarioError,
    TableNature,
    generate_scenario,
    roll_extra_cost,
    select_forces,
    set_up_table,
    validate_forces,
)
from campaign.rules.cam.state import (
    CampaignSetupError,
    CamSettings,
    StartingPlayer,
    StartingShip,
    new_campaign,
)
from campaign.rules.dice import FixedDice
from tests.rules.cam.builders import CATALOGUE, campaign_of, scenario_with

# Seat 1: BB 20, CV 20, CA 10, CL 7, DD 5, DE 3, TP 2, TP 2, SS 3, CVE 15 (ids 1-10); seat 2 the same (11-20)
FLEET = ["t_bb", "t_cv", "t_ca", "t_cl", "t_dd", "t_de", "t_tp", "t_tp", "t_ss", "t_cve"]


@pytest.fixture
def campaign():
    return campaign_of(FLEET, FLEET, starting_points=200, period=3)


@pytest.mark.parametrize("face, nature", [  # 000 CAM 2.1 nature table, every face
    (1, Nature.PLANETARY_DISPUTE), (2, Nature.PLANETARY_DISPUTE), (3, Nature.OPEN_BATTLE),
    (4, Nature.OPEN_BATTLE), (5, Nature.OPEN_BATTLE), (6, Nature.CONVOY),
])
def test_nature_roll(campaign, face, nature):  # 000 CAM 2.1
    faces = [face] + ([4, 2] if nature is not Nature.OPEN_BATTLE else [])
    dice = FixedDice(faces)
    result = generate_scenario(campaign, dice)
    assert result.scenario.nature is nature and result.scenario.nature_roll == face
    assert dice.rolls[0].purpose.startswith("000 CAM 2.1")
    assert not dice.remaining()
    if nature is Nature.OPEN_BATTLE:
        assert result.scenario.defender is None and result.scenario.attacker is None
    else:  # ruling CAM6: d6 roll-off, the higher defends
        assert (result.scenario.defender, result.scenario.attacker) == (1, 2)


def test_defender_roll_off_ties_reroll(campaign):  # 000 CAM 2.1 (rulings CAM6, CAM7)
    dice = FixedDice([6, 3, 3, 1, 5])
    scenario = generate_scenario(campaign, dice).scenario
    assert scenario.defender == 2 and not dice.remaining()
    assert [r.purpose for r in dice.rolls[1:]] == ["000 CAM 2.1 (ruling CAM6: who defends)"] * 4


def test_nature_chosen_beforehand_rolls_nothing(campaign):  # 000 CAM 4.1 "chosen beforehand"
    result = generate_scenario(campaign, FixedDice([]), nature="convoy", defender=2)
    assert result.scenario.nature is Nature.CONVOY and result.scenario.nature_roll is None
    assert result.scenario.defender == 2
    with pytest.raises(ScenarioError, match="unknown nature"):
        generate_scenario(campaign, FixedDice([]), nature="skirmish")
    with pytest.raises(ScenarioError, match="seat 7"):
        generate_scenario(campaign, FixedDice([]), nature="convoy", defender=7)


def test_points_level_defaults_to_60(campaign):  # 000 CAM 2.2 "We recommend 60 points"
    assert generate_scenario(campaign, FixedDice([4])).scenario.points_level == 60
    other = campaign_of(FLEET, FLEET, period=3, points_level=45)
    assert generate_scenario(other, FixedDice([4])).scenario.points_level == 45


def _select(campaign, scenario, seat, ships, **kw):
    return validate_forces(campaign, scenario, ForceSelection(seat, tuple(ships), **kw))


def test_force_priced_by_cam_2_2(campaign):  # 000 CAM 2.2 points costs
    scenario = generate_scenario(campaign, FixedDice([4])).scenario
    force = _select(campaign, scenario, 1, [1, 3, 4, 5, 6, 7], extra_ac=1, bases=(8,), minefields=(2,))
    # BB 20 + CA 10 + CL 7 + DD 5 + DE 3 + TP 2 + AC 3 + base 8 + minefield 2
    assert force.points == 60
    assert [u.uid for u in force.units] == ["ship:1", "ship:3", "ship:4", "ship:5", "ship:6", "ship:7",
                                            "base:1", "minefield:1", "ac:1"]


def test_over_points_refused_and_nothing_changes(campaign):  # 000 CAM 2.2 "Select a force to an agreed points total"
    scenario = generate_scenario(campaign, FixedDice([4])).scenario
    with pytest.raises(ForceSelectionError) as err:
        select_forces(campaign, scenario, ForceSelection(1, (1, 2, 3, 4, 5)))  # 62
    assert err.value.reason == "over_points" and "62" in str(err.value) and "by 2" in str(err.value)
    assert scenario.forces == {}
    assert select_forces(campaign, scenario, ForceSelection(1, (1, 2, 3, 4, 6))).forces[1].points == 60


def test_size_class_0_surcharge_counts_against_points():  # 000 CAM 2.2 "+20 points"
    camp = campaign_of(["t_bb0", "t_dd"], ["t_bb"], period=3)
    scenario = generate_scenario(camp, FixedDice([4])).scenario
    assert _select(camp, scenario, 1, [1, 2]).points == 45


@pytest.mark.parametrize("kind, faces, cost", [  # 000 CAM 2.2 "1D6 + 5", "1 XD6"
    ("base", [1], 6), ("base", [6], 11), ("minefield", [1], 1), ("minefield", [6], 6),
])
def test_rolled_costs(kind, faces, cost):  # 000 CAM 2.2 (ruling CAM9)
    dice = FixedDice(faces)
    assert roll_extra_cost(kind, dice) == cost
    assert dice.rolls[0].purpose.startswith("000 CAM 2.2")


def test_rolled_costs_must_be_possible(campaign):  # 000 CAM 2.2
    scenario = generate_scenario(campaign, FixedDice([4])).scenario
    for kw in ({"bases": (5,)}, {"bases": (12,)}, {"minefields": (0,)}, {"minefields": (7,)}, {"extra_ac": -1}):
        with pytest.raises(ForceSelectionError) as err:
            _select(campaign, scenario, 1, [5], **kw)
        assert err.value.reason == "bad_extra"
    with pytest.raises(ScenarioError):
        roll_extra_cost("planet", FixedDice([3]))


def test_extra_ac_needs_a_carrier(campaign):  # 000 CAM 2.2 "extra AC counter" (ruling CAM10)
    scenario = generate_scenario(campaign, FixedDice([4])).scenario
    with pytest.raises(ForceSelectionError) as err:
        _select(campaign, scenario, 1, [5], extra_ac=1)
    assert err.value.reason == "ac_without_carrier"
    assert _select(campaign, scenario, 1, [5], extra_ac=1, bases=(6,)).points == 14
    galaxy = campaign_of(["galaxy"], ["galaxy"], period=5)
    s5 = generate_scenario(galaxy, FixedDice([4])).scenario
    assert _select(galaxy, s5, 1, [1], extra_ac=2).points == 16  # "AC: None – capacity for 2"


@pytest.mark.parametrize("ships, reason", [
    ([99], "unknown_ship"), ([11], "unknown_ship"), ([5, 5], "duplicate_ship"), ([], "empty"),
])
def test_roster_errors(campaign, ships, reason):  # 000 CAM 2.2
    scenario = generate_scenario(campaign, FixedDice([4])).scenario
    with pytest.raises(ForceSelectionError) as err:
        _select(campaign, scenario, 1, ships)
    assert err.value.reason == reason


@pytest.mark.parametrize("status, reason", [("destroyed", "destroyed"), ("unavailable", "unavailable"),
                                            ("crippled", "crippled")])
def test_lost_ships_cannot_be_selected(campaign, status, reason):  # 000 CAM 4.2
    from dataclasses import replace

    from campaign.rules.cam.state import ShipStatus
    player = campaign.player(1)
    ships = tuple(replace(s, status=ShipStatus(status)) if s.id == 5 else s for s in player.ships)
    camp = campaign.with_player(replace(player, ships=ships))
    scenario = generate_scenario(camp, FixedDice([4])).scenario
    with pytest.raises(ForceSelectionError) as err:
        select_forces(camp, scenario, ForceSelection(1, (4, 5)))
    assert err.value.reason == reason and "ship 5" in str(err.value)


def test_ship_from_another_period_refused():  # 000 1.5 periods / CAM 2.1
    camp = campaign_of(["constitution"], ["d7"], period=2)
    from dataclasses import replace
    later = replace(camp, settings=replace(camp.settings, period=3))  # the d7 is Period 2 only
    scenario = generate_scenario(later, FixedDice([4])).scenario
    with pytest.raises(ForceSelectionError) as err:
        _select(later, scenario, 2, [2])
    assert err.value.reason == "wrong_period" and "Period 3" in str(err.value)


def test_new_campaign_checks_period_and_points():  # 000 CAM 4.0, 4.1, 1.5
    with pytest.raises(CampaignSetupError, match="Period 5"):
        campaign_of(["constitution"], ["galaxy"], period=5)
    with pytest.raises(CampaignSetupError, match="over by 5"):
        campaign_of(["t_bb", "t_dd"], ["t_dd"], starting_points=20, period=3)
    with pytest.raises(CampaignSetupError, match="two players"):
        new_campaign(CamSettings(period=2, starting_points=50),
                     [StartingPlayer(1, "A", faction("UFP"), (StartingShip("constitution"),))], CATALOGUE)
    with pytest.raises(CampaignSetupError, match="period"):
        CamSettings(period=7, starting_points=50).check()


# --- convoy constraints (000 CAM 2.2; ruling CAM11: shares of the force's points) -------------

def _convoy(campaign):
    return generate_scenario(campaign, FixedDice([]), nature="convoy", defender=1).scenario


def test_convoy_defender_needs_10_percent_merchants(campaign):  # 000 CAM 2.2 convoy
    scenario = _convoy(campaign)
    # CA 10 + CL 7 + TP 2 = 19: merchants 2/19 >= 10%
    assert _select(campaign, scenario, 1, [3, 4, 7]).points == 19
    with pytest.raises(ForceSelectionError) as err:  # CA 10 + CL 7 + DD 5 + TP 2 = 24: 2/24 < 10%
        _select(campaign, scenario, 1, [3, 4, 5, 7])
    assert err.value.reason == "convoy_merchants"
    assert _select(campaign, scenario, 1, [3, 4, 5, 7, 8]).points == 26  # 4/26 >= 10%
    with pytest.raises(ForceSelectionError) as err:  # CL 7 + DD 5 + DE 3: no merchants at all
        _select(campaign, scenario, 1, [4, 5, 6])
    assert err.value.reason == "convoy_merchants"
    assert _select(campaign, scenario, 1, [7, 4, 5, 9, 6]).points == 20  # TP 2 of 20: exactly 10% passes


def test_convoy_capital_ships_at_most_20_percent(campaign):  # 000 CAM 2.2 convoy, both sides
    scenario = _convoy(campaign)
    # defender BB 20 + CA 10 + CVE 15 + CL 7 + TP 2 + TP 2 = 56: capital 20/56 > 20%
    with pytest.raises(ForceSelectionError) as err:
        _select(campaign, scenario, 1, [1, 3, 10, 4, 7, 8])
    assert err.value.reason == "convoy_capital"
    # attacker BB 20 + CL 7 + DD 5 + DE 3 = 35: capital 20/35 > 20%
    with pytest.raises(ForceSelectionError) as err:
        _select(campaign, scenario, 2, [11, 14, 15, 16])
    assert err.value.reason == "convoy_capital"


def test_convoy_attacker_80_percent_cl_or_smaller():  # 000 CAM 2.2 convoy
    fleet = ["t_ca", "t_cl", "t_cl", "t_cl", "t_dd", "t_dd", "t_de", "t_tp", "t_bb", "t_ss"]
    camp = campaign_of(fleet, fleet, starting_points=200, period=3)
    scenario = _convoy(camp)
    # seat 2's ids: 11 CA, 12-14 CL, 15-16 DD, 17 DE, 18 TP, 19 BB, 20 SS
    with pytest.raises(ForceSelectionError) as err:  # CA 10 + CL 7 + DD 5 + DE 3 = 25: light 15/25
        _select(camp, scenario, 2, [11, 12, 15, 17])
    assert err.value.reason == "convoy_light"
    with pytest.raises(ForceSelectionError) as err:  # CA 10 + 3 CL 21 + 2 DD 10 + DE 3 + TP 2 + SS 3 = 49: 39/49
        _select(camp, scenario, 2, [11, 12, 13, 14, 15, 16, 17, 18, 20])
    assert err.value.reason == "convoy_light"
    # 3 CL + 2 DD + DE + TP + SS = 49 - 10 = 39 light of 39 with no CA: passes
    assert _select(camp, scenario, 2, [12, 13, 14, 15, 16, 17, 18, 20]).points == 39
    # BB 20 + 80 points of light ships would be 20% capital exactly and 80% light: passes
    camp2 = campaign_of(["t_bb"] + ["t_cl"] * 10 + ["t_tp"] * 5, ["t_bb"] + ["t_cl"] * 10 + ["t_dd"] * 2,
                        starting_points=300, period=3, points_level=100)
    s2 = _convoy(camp2)
    # attacker: BB 20 + CL 70 + DD 10 = 100: capital 20% exactly, light 80% exactly
    assert _select(camp2, s2, 2, list(range(17, 30))).points == 100


def test_forces_locked_after_table_and_table_needs_forces(campaign):  # 000 CAM 2.3 "Having already selected"
    scenario = generate_scenario(campaign, FixedDice([4])).scenario
    with pytest.raises(ScenarioError, match="chosen no force"):
        set_up_table(campaign, scenario, FixedDice([1, 6, 6, 1, 1]))
    scenario = select_forces(campaign, scenario, ForceSelection(1, (3,)))
    scenario = select_forces(campaign, scenario, ForceSelection(2, (13,)))
    table = set_up_table(campaign, scenario, FixedDice([1, 6, 6, 1, 1])).scenario
    with pytest.raises(ForceSelectionError) as err:
        select_forces(campaign, table, ForceSelection(1, (4,)))
    assert err.value.reason == "locked"
    with pytest.raises(ScenarioError, match="already set up"):
        set_up_table(campaign, table, FixedDice([1, 6, 6, 1, 1]))


# --- CAM 2.3 the table -----------------------------------------------------------------------

@pytest.mark.parametrize("nature, face, score, table, moons", [  # 000 CAM 2.3 table, every face (+2: RULINGS)
    ("open_battle", 1, 1, TableNature.OPEN_SPACE, None), ("open_battle", 2, 2, TableNature.OPEN_SPACE, None),
    ("open_battle", 3, 3, TableNature.TERRESTRIAL_PLANET, None),
    ("open_battle", 4, 4, TableNature.TERRESTRIAL_PLANET, None),
    ("open_battle", 5, 5, TableNature.GAS_GIANT, 4), ("open_battle", 6, 6, TableNature.NEBULAE, None),
    ("planetary_dispute", 1, 3, TableNature.TERRESTRIAL_PLANET, None),
    ("planetary_dispute", 2, 4, TableNature.TERRESTRIAL_PLANET, None),
    ("planetary_dispute", 3, 5, TableNature.GAS_GIANT, 4), ("planetary_dispute", 4, 6, TableNature.NEBULAE, None),
    ("planetary_dispute", 5, 7, TableNature.TERRESTRIAL_PLANET, None),
    ("planetary_dispute", 6, 8, TableNature.GAS_GIANT, 4),
    ("convoy", 5, 5, TableNature.GAS_GIANT, 4),
])
def test_table_nature(campaign, nature, face, score, table, moons):  # 000 CAM 2.3; RULINGS table nature +2
    scenario = scenario_with(campaign, {1: [7, 3, 4], 2: [17, 14, 15]}, nature=nature, defender=1)
    faces = [face] + ([3] if moons else []) + [6, 6, 1, 1]
    dice = FixedDice(faces)
    result = set_up_table(campaign, scenario, dice)
    got = result.scenario.tables[0]
    assert (got.roll, got.score, got.nature, got.moons) == (face, score, table, moons)
    assert got.nebula_clouds == (2 if table is TableNature.NEBULAE else 0)
    assert not dice.remaining()
    assert dice.rolls[0].purpose == "000 CAM 2.3 Establishing The General Nature Of The Gaming Table"
    if moons:
        assert dice.rolls[1].purpose.endswith("gas giant moons (1 XD6+1)")


@pytest.mark.parametrize("moon_face, moons", [(1, 2), (6, 7)])
def test_gas_giant_moons(campaign, moon_face, moons):  # 000 CAM 2.3 "1 XD6+1 moons"
    scenario = scenario_with(campaign, {1: [3], 2: [13]})
    table = set_up_table(campaign, scenario, FixedDice([5, moon_face, 6, 6, 1, 1])).scenario.tables[0]
    assert table.moons == moons


def test_multi_tables_roll_separately():  # 000 CAM 2.3 "If using multi-tables … roll for each table"
    camp = campaign_of(FLEET, FLEET, period=3, tables=2)
    scenario = scenario_with(camp, {1: [3], 2: [13]})
    dice = FixedDice([6, 5, 2, 6, 6, 1, 1])
    tables = set_up_table(camp, scenario, dice).scenario.tables
    assert [t.nature for t in tables] == [TableNature.NEBULAE, TableNature.GAS_GIANT]
    assert tables[1].moons == 3 and not dice.remaining()


def test_edges_2d6_winner_chooses(campaign):  # 000 CAM 2.3 "Both players roll 2 XD6 … the enemy taking the opposite"
    scenario = scenario_with(campaign, {1: [3], 2: [13]})
    dice = FixedDice([1, 2, 3, 4, 2])
    result = set_up_table(campaign, scenario, dice, edge_choice={2: "east", 1: "north"})
    assert dict(result.scenario.edges) == {2: "east", 1: "west"}
    assert [(r.count, r.sides) for r in dice.rolls[1:]] == [(2, 6), (2, 6)]
    assert all(r.purpose.endswith("table edges") for r in dice.rolls[1:])
    default = set_up_table(campaign, scenario, FixedDice([1, 6, 6, 1, 1])).scenario
    assert dict(default.edges) == {1: "south", 2: "north"}  # ruling CAM8


def test_edges_tie_rerolls(campaign):  # 000 CAM 2.3 (ruling CAM7)
    scenario = scenario_with(campaign, {1: [3], 2: [13]})
    dice = FixedDice([1, 3, 4, 5, 2, 1, 1, 2, 2])
    result = set_up_table(campaign, scenario, dice)
    assert result.scenario.edges[2] == "south" and len(result.scenario.edge_rolls) == 2
    assert not dice.remaining()


def test_side_with_base_on_table_rolls_1d6(campaign):  # 000 CAM 2.3 "he merely rolls 1 D6" (ruling CAM8)
    scenario = scenario_with(campaign, {1: [3], 2: [13]}, nature="planetary_dispute", defender=1,
                             extras={1: {"bases": (7,)}})
    dice = FixedDice([1, 6, 3, 4])
    result = set_up_table(campaign, scenario, dice)
    assert [r.count for r in dice.rolls[1:]] == [1, 2]
    assert result.scenario.edges[2] == "south"  # 7 beats 6
    dice = FixedDice([1, 6, 6, 3, 3])  # explicit: nobody already on the table
    set_up_table(campaign, scenario, dice, already_on_table=())
    assert [r.count for r in dice.rolls[1:]] == [2, 2]


def test_bad_edge_choice(campaign):  # 000 CAM 2.3
    scenario = scenario_with(campaign, {1: [3], 2: [13]})
    with pytest.raises(ScenarioError, match="edge"):
        set_up_table(campaign, scenario, FixedDice([1, 6, 6, 1, 1]), edge_choice={1: "up"})


@pytest.mark.parametrize("points, level", [(60, 24), (25, 10), (26, 10), (29, 12), (36, 14), (3, 1)])
def test_break_level_is_40_percent_rounded(points, level):  # 000 CAM 2.3 "a 40% loss"; 1.1 fractions (ruling CAM13)
    from campaign.rules.cam.scenario import break_level
    assert break_level(points, 40) == level


def test_break_level_per_side(campaign):  # 000 CAM 2.3
    scenario = scenario_with(campaign, {1: [1, 2, 3, 4, 7], 2: [13]})  # 59 and 10
    assert dict(scenario.break_levels) == {1: 24, 2: 4}
    camp = campaign_of(FLEET, FLEET, period=3, break_percent=50)
    assert dict(scenario_with(camp, {1: [3], 2: [14]}).break_levels) == {1: 5, 2: 4}  # 3.5 rounds up
