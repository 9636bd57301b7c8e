"""CAM 3.0 / 3.1: who must check, the d6 with faction modifiers, the order and its effects."""

from __future__ import annotations

import pytest

from campaign.rules.cam.breakcontact import (
    CAPITALS,
    CARRIERS_ONLY,
    LOSSES,
    BattleError,
    break_contact_check,
    conditions_met,
    end_of_turn,
    record_damage,
    start_battle,
)
from campaign.rules.cam.factions import faction, other_power
from campaign.rules.cam.scenario import ScenarioError
from campaign.rules.dice import FixedDice
from tests.rules.cam.builders import battle_with, campaign_of, scenario_with

# seat 1 ids 1-6: BB 20, BC 15, CV 20, CA 10, DD 5, DE 3; seat 2 ids 7-12 the same
FLEET = ["t_bb", "t_bc", "t_cv", "t_ca", "t_dd", "t_de"]


def _battle(fleet_1=(1, 2, 3, 4, 5, 6), fleet_2=(7, 8, 9, 10, 11, 12), factions=None, points_level=100, **kw):
    camp = campaign_of(FLEET, FLEET, period=3, points_level=points_level, factions=factions)
    return battle_with(camp, {1: fleet_1, 2: fleet_2}, **kw)


def test_battle_needs_the_table():  # 000 CAM 2.3 before CAM 3.0
    camp = campaign_of(FLEET, FLEET, period=3, points_level=100)
    with pytest.raises(ScenarioError, match="2.3"):
        start_battle(camp, scenario_with(camp, {1: [1], 2: [7]}))


def test_no_condition_no_check():  # 000 CAM 3.1 "when any one of the following three conditions is met"
    battle = _battle()
    dice = FixedDice([])
    check = break_contact_check(battle, 1, dice)
    assert check.conditions == () and check.roll is None and not check.ordered and dice.rolls == []


# --- condition 1: losses >= BC level (73 points -> level 29) ---------------------------------

def test_condition_1_losses_at_level():  # 000 CAM 3.1 condition 1 "equal to or greater than"
    battle = _battle()
    assert battle.scenario.break_levels[1] == 29
    almost = record_damage(battle, 1, destroyed=["ship:4", "ship:6", "ship:5"])  # 18
    assert LOSSES not in conditions_met(almost, 1)
    at = record_damage(almost, 1, destroyed=["ship:2"])  # 33 >= 29
    assert conditions_met(at, 1) == (LOSSES,)
    just = _battle(fleet_1=(4, 5, 6), fleet_2=(7,))  # 18 points: level 7
    assert just.scenario.break_levels[1] == 7
    assert LOSSES not in conditions_met(record_damage(just, 1, destroyed=["ship:5"]), 1)  # 5 < 7
    assert LOSSES in conditions_met(record_damage(just, 1, destroyed=["ship:4"]), 1)  # 10 >= 7


def test_crippled_ships_are_not_losses():  # 000 CAM 3.0 'points loss' counts destroyed points (ruling CAM15)
    battle = record_damage(_battle(), 1, crippled=["ship:1", "ship:4"])
    assert battle.losses(1) == 0


# --- condition 2: more than half the capital ships destroyed or crippled -----------------------

def test_condition_2_more_than_half_capitals():  # 000 CAM 3.1 condition 2
    battle = _battle()  # capitals: BB, BC, CV
    one = record_damage(battle, 1, crippled=["ship:1"])
    assert CAPITALS not in conditions_met(one, 1)
    two = record_damage(one, 1, destroyed=["ship:2"])
    assert CAPITALS in conditions_met(two, 1)


def test_condition_2_exactly_half_is_not_enough():  # 000 CAM 3.1 "more than half"
    battle = _battle(fleet_1=(1, 2, 5), fleet_2=(7,))
    assert CAPITALS not in conditions_met(record_damage(battle, 1, crippled=["ship:1"]), 1)
    assert CAPITALS in conditions_met(record_damage(battle, 1, crippled=["ship:1", "ship:2"]), 1)


def test_condition_2_cve_and_ca_are_not_capital_ships():  # 000 CAM 3.1 "(i.e. BB, CV and/or BC)"
    battle = _battle(fleet_1=(4, 5, 6), fleet_2=(7,))
    assert conditions_met(record_damage(battle, 1, crippled=["ship:4"]), 1) == ()


# --- condition 3: only CVs left (ruling CAM14) ------------------------------------------------

def test_condition_3_only_carriers_remain():  # 000 CAM 3.1 condition 3
    battle = _battle(fleet_1=(1, 3, 4, 5, 6), fleet_2=(7,))  # BB, CV, CA, DD, DE: 58 -> level 23
    gone = record_damage(battle, 1, left=["ship:1"])  # the BB leaves the table; no losses
    assert conditions_met(gone, 1) == (CARRIERS_ONLY,)
    both = record_damage(battle, 1, destroyed=["ship:1"])  # 20 < 23; 1 of 2 capitals is not "more than half"
    assert conditions_met(both, 1) == (CARRIERS_ONLY,)


def test_condition_3_needs_a_carrier_on_the_table():  # 000 CAM 3.1 condition 3
    battle = _battle(fleet_1=(1, 3, 5), fleet_2=(7,))
    assert CARRIERS_ONLY not in conditions_met(record_damage(battle, 1, left=["ship:1", "ship:3"]), 1)


def test_condition_3_cve_counts_as_a_carrier():  # 000 CAM 3.1 "CV (or CVE)"
    camp = campaign_of(["t_bc", "t_cve", "t_dd"], ["t_bb"], period=3, points_level=100)
    battle = battle_with(camp, {1: [1, 2, 3], 2: [4]})
    assert conditions_met(record_damage(battle, 1, left=["ship:1"]), 1) == (CARRIERS_ONLY,)


def test_condition_3_pure_carrier_group_does_not_test():  # 000 CAM 3.1 "only remaining" (ruling CAM14)
    battle = _battle(fleet_1=(3, 4, 5), fleet_2=(7,))
    assert conditions_met(battle, 1) == ()


def test_all_three_conditions():  # 000 CAM 3.1 "one or more conditions"
    battle = _battle(fleet_1=(1, 2, 3, 5), fleet_2=(7,))  # 60 -> 24
    hit = record_damage(battle, 1, destroyed=["ship:1", "ship:2"])
    assert conditions_met(hit, 1) == (LOSSES, CAPITALS, CARRIERS_ONLY)


# --- the roll ---------------------------------------------------------------------------------

def _hurt(factions=None):
    battle = _battle(factions=factions)
    return record_damage(battle, 1, destroyed=["ship:1", "ship:2"])  # 35 >= 29


@pytest.mark.parametrize("face, ordered", [(1, True), (2, True), (3, True), (4, True), (5, True), (6, False)])
def test_roll_1_to_5_breaks_6_avoids(face, ordered):  # 000 CAM 3.1 "rolls a 1-5 … rolls a '6'"
    battle = _hurt()
    dice = FixedDice([face])
    check = break_contact_check(battle, 1, dice)
    assert check.roll == face and check.modifier == 0 and check.ordered is ordered
    assert check.battle.ordered_to_break(1) is ordered
    assert check.battle.broken[1] == (1 if ordered else None)
    assert dice.rolls[0].purpose == "000 CAM 3.1 'Break Contact' Scenario Ending"
    assert check.events[0].data["conditions"] == [1, 2, 3]  # losses, capitals, only the CV left


@pytest.mark.parametrize("seat2, face, ordered", [  # 000 CAM 3.1 modifiers (RULINGS: Romulans -1)
    ("Klingons", 5, False), ("Klingons", 4, True), ("Dominion", 5, False), ("Borg", 5, False),
    ("Romulans", 6, True), ("Romulans", 5, True), ("Gorns", 6, False), ("Gorns", 5, True),
])
def test_faction_modifiers(seat2, face, ordered):  # 000 CAM 3.1
    battle = _battle(factions=(faction("UFP"), faction(seat2)))
    battle = record_damage(battle, 2, destroyed=["ship:7", "ship:8"])
    check = break_contact_check(battle, 2, FixedDice([face]))
    assert check.score == face + faction(seat2).break_modifier and check.ordered is ordered


@pytest.mark.parametrize("temper, face, ordered", [  # 000 CAM 3.1 footnote 1
    ("aggressive", 5, False), ("aggressive", 4, True), ("cautious", 6, True), ("neutral", 6, False),
])
def test_other_verse_modifiers(temper, face, ordered):  # 000 CAM 3.1 footnote 1
    battle = _hurt(factions=(other_power("Cylons", "moderate", temper), faction("UFP")))
    assert break_contact_check(battle, 1, FixedDice([face])).ordered is ordered


def test_avoided_check_tests_again_next_turn():  # 000 CAM 3.1 "will have to test each turn thereafter"
    battle = _hurt()
    first = end_of_turn(battle, FixedDice([6]))
    assert first.battle.turn == 2 and not first.battle.ordered_to_break(1)
    second = end_of_turn(first.battle, FixedDice([3]))
    assert second.battle.broken[1] == 2 and second.battle.turn == 3
    third = end_of_turn(second.battle, FixedDice([]))  # already ordered: no more rolls
    assert third.battle.broken[1] == 2


def test_both_sides_can_be_ordered_the_same_turn():  # 000 CAM 3.1 "both … on the same turn"
    battle = record_damage(_hurt(), 2, destroyed=["ship:7", "ship:8"])
    dice = FixedDice([2, 4])
    result = end_of_turn(battle, dice)
    assert dict(result.battle.broken) == {1: 1, 2: 1}
    assert [e.kind for e in result.events] == ["losses", "check", "check"]


def test_contact_broken_when_breaking_side_has_left():  # 000 CAM 3.0 step 2
    battle = end_of_turn(_hurt(), FixedDice([1])).battle
    assert not battle.contact_broken
    battle = record_damage(battle, 1, left=["ship:3", "ship:4", "ship:5"])
    assert not battle.contact_broken
    battle = record_damage(battle, 1, destroyed=["ship:6"])
    assert battle.contact_broken
    # The last turn's End Phase is still made (CAM 3.0 step 1 before step 2; ruling CAM27): seat 2
    # meets no condition, so no die is rolled, and seat 1's order stands.
    last = end_of_turn(battle, FixedDice([]))
    assert last.battle.broken[1] == 1 and last.battle.broken[2] is None
    with pytest.raises(BattleError, match="broken"):
        record_damage(battle, 2, destroyed=["ship:7"])


@pytest.mark.parametrize("face, ordered", [(5, True), (6, False)])
def test_issue13_item5_last_turn_end_phase_still_checks(face, ordered):
    """000 CAM 3.0: "After completing an End Phase … 1) … if either player has met a condition
    for a 'Break Contact' check, roll for it 2) When all table contact has been broken, tally":
    on the turn seat 1's last ship leaves, seat 2 (which met condition 1 that turn) still rolls;
    failing, it too was forced to break contact (ruling CAM27)."""
    # seat 1 ordered, turn 1
    battle = end_of_turn(_hurt(factions=(faction("UFP"), faction("UFP"))), FixedDice([1])).battle
    battle = record_damage(battle, 2, destroyed=["ship:7", "ship:8"])  # 35 >= 29: condition 1
    battle = record_damage(battle, 1, left=["ship:3", "ship:4", "ship:5", "ship:6"])  # the ordered side last
    assert battle.contact_broken
    last = end_of_turn(battle, FixedDice([face]))
    assert [e.kind for e in last.events] == ["losses", "check"]
    assert last.battle.ordered_to_break(2) is ordered
    assert (last.battle.broken[2] == 2) is ordered


def test_record_damage_errors():  # 000 CAM 3.1 e), 5.7
    battle = _battle(extras={1: {"bases": (6,)}})
    with pytest.raises(BattleError, match="no unit"):
        record_damage(battle, 1, destroyed=["ship:7"])
    with pytest.raises(BattleError, match="never be crippled"):
        record_damage(battle, 1, crippled=["ship:6"])  # the DE's hull is 4/0
    gone = record_damage(battle, 1, left=["ship:5"])
    with pytest.raises(BattleError, match="already left"):
        record_damage(gone, 1, destroyed=["ship:5"])  # "may not be attacked in any way"
    with pytest.raises(BattleError, match="cannot leave"):
        record_damage(battle, 1, left=["base:1"])
    crippled = record_damage(battle, 1, crippled=["ship:4"])
    with pytest.raises(BattleError, match="already crippled"):
        record_damage(crippled, 1, crippled=["ship:4"])
    with pytest.raises(BattleError, match="seat 5"):
        record_damage(battle, 5)
    assert battle.unit_status(1, "ship:5").state.value == "on_table"  # unchanged
