"""CAM 4.2 between scenarios: repairs, the optional 2D6 survival roll, replacement points and rolls."""

from __future__ import annotations

from dataclasses import replace

import pytest

from campaign.rules.cam.factions import faction, other_power
from campaign.rules.cam.replacements import ReplacementError, ReplacementRequest, between_scenarios
from campaign.rules.cam.state import ScenarioRecord, ShipStatus
from campaign.rules.dice import FixedDice
from tests.rules.cam.builders import campaign_of

# seat 1 ids 1-6: BB, CA, DD, TP, BB0 (size 0), CA0 (size 0); seat 2 ids 7-8: BB, DD
FLEET_1 = ["t_bb", "t_ca", "t_dd", "t_tp", "t_bb0", "t_ca0"]


def _after(statuses=None, *, f1=None, starting_points=200, scenarios=5, survival_roll=False, rp=0):
    """A campaign just after scenario 1, with ship statuses {id: status} set (destroyed_in=1)."""
    camp = campaign_of(FLEET_1, ["t_bb", "t_dd"], period=3, starting_points=starting_points, scenarios=scenarios,
                       survival_roll=survival_roll, factions=(f1 or faction("UFP"), faction("Klingons")))
    for seat in camp.seats:
        player = camp.player(seat)
        ships = tuple(replace(s, status=ShipStatus(statuses[s.id]),
                              destroyed_in=1 if statuses[s.id] == "destroyed" else None)
                      if s.id in (statuses or {}) else s for s in player.ships)
        camp = camp.with_player(replace(player, ships=ships, replacement_points=rp))
    record = ScenarioRecord(1, "open_battle", None, None, {}, {}, {})
    return replace(camp, history=(record,))


def test_needs_a_scenario_first():  # 000 CAM 4.2 "after each separate Scenario"
    camp = campaign_of(FLEET_1, ["t_bb"], period=3, starting_points=200)
    with pytest.raises(ReplacementError, match="no scenario"):
        between_scenarios(camp, FixedDice([]))


@pytest.mark.parametrize("face, status", [(1, ShipStatus.UNAVAILABLE), (3, ShipStatus.UNAVAILABLE),
                                          (4, ShipStatus.READY), (6, ShipStatus.READY)])
def test_crippled_repaired_on_4_plus(face, status):  # 000 CAM 4.2 "repaired on a 4+ - otherwise … unavailable"
    camp = _after({2: "crippled"})
    dice = FixedDice([face])
    result = between_scenarios(camp, dice)
    assert result.campaign.player(1).ship(2).status is status
    assert dice.rolls[0].purpose == "000 CAM 4.2 Replacing Losses Between Scenarios: crippled ship repaired on 4+"


def test_unavailable_rolls_again_next_time():  # 000 CAM 4.2 "Roll for all after each separate Scenario" (ruling CAM12)
    camp = _after({2: "unavailable", 8: "crippled"})
    dice = FixedDice([5, 2])
    result = between_scenarios(camp, dice).campaign
    assert result.player(1).ship(2).status is ShipStatus.READY
    assert result.player(2).ship(8).status is ShipStatus.UNAVAILABLE


def test_replacement_points_accrue_10_percent_and_hoard():  # 000 CAM 4.2; RULINGS "Replacement points"
    camp = _after(starting_points=205, rp=7)
    result = between_scenarios(camp, FixedDice([]))
    assert result.campaign.player(1).replacement_points == 7 + 21  # 20.5 rounds up (000 1.1)
    assert result.campaign.player(2).replacement_points == 28
    again = between_scenarios(replace(result.campaign, history=result.campaign.history * 2), FixedDice([]))
    assert again.campaign.player(1).replacement_points == 49


def test_step_runs_once_per_scenario_and_not_after_the_last():  # 000 CAM 4.1/4.2 (ruling CAM21)
    camp = between_scenarios(_after(), FixedDice([])).campaign
    with pytest.raises(ReplacementError, match="already made"):
        between_scenarios(camp, FixedDice([]))
    with pytest.raises(ReplacementError, match="over"):
        between_scenarios(_after(scenarios=1), FixedDice([]))


@pytest.mark.parametrize("faces, survived", [([6, 6], True), ([6, 5], False), ([1, 1], False)])
def test_optional_survival_roll(faces, survived):  # 000 5.7 sidebar "2D6 … On a '12'"; RULINGS option
    camp = _after({3: "destroyed"}, survival_roll=True)
    dice = FixedDice(faces)
    ship = between_scenarios(camp, dice).campaign.player(1).ship(3)
    assert (ship.status is ShipStatus.READY) is survived  # ruling CAM22: ready for the next game
    assert dice.rolls[0].count == 2 and dice.rolls[0].purpose.startswith("000 5.7 sidebar")


def test_survival_roll_off_by_default_and_only_for_this_scenario():  # RULINGS: option, default off
    assert between_scenarios(_after({3: "destroyed"}), FixedDice([])).campaign.player(1).ship(3).status \
        is ShipStatus.DESTROYED
    camp = _after({3: "destroyed"}, survival_roll=True)
    old = camp.with_player(replace(camp.player(1), ships=tuple(
        replace(s, destroyed_in=0) if s.id == 3 else s for s in camp.player(1).ships)))
    assert between_scenarios(old, FixedDice([])).campaign.player(1).ship(3).status is ShipStatus.DESTROYED


@pytest.mark.parametrize("wealth, lost, sd, face, modifier, delivered", [  # 000 CAM 4.2, the three tables
    ("rich", 1, "t_bb", 3, 1, True), ("rich", 1, "t_bb", 2, 1, False),
    ("moderate", 1, "t_bc", 4, 0, True), ("moderate", 1, "t_cv", 3, 0, False),
    ("variable", 1, "t_bb", 5, -1, True), ("variable", 1, "t_bb", 4, -1, False),
    ("poor", 1, "t_bb", 6, -2, True), ("poor", 1, "t_bb", 5, -2, False),
    ("rich", 2, "t_ca", 2, 2, True), ("rich", 2, "t_cl", 1, 2, False),
    ("moderate", 2, "t_cve", 3, 1, True), ("moderate", 2, "t_ca", 2, 1, False),
    ("variable", 2, "t_ca", 4, 0, True), ("variable", 2, "t_ca", 3, 0, False),
    ("poor", 2, "t_ca", 6, -2, True), ("poor", 2, "t_ca", 5, -2, False),
    ("rich", 3, "t_dd", 1, 3, True),
    ("moderate", 3, "t_dd", 2, 2, True), ("moderate", 3, "t_dd", 1, 2, False),
    ("variable", 3, "t_dd", 5, -1, True), ("variable", 3, "t_dd", 4, -1, False),
    ("poor", 3, "t_dd", 4, 0, True), ("poor", 3, "t_dd", 3, 0, False),
    ("rich", 4, "t_tp", 1, 3, True),
])
def test_replacement_rolls(wealth, lost, sd, face, modifier, delivered):  # 000 CAM 4.2
    camp = _after({lost: "destroyed"}, f1=other_power("Orions", wealth), rp=30)
    dice = FixedDice([face])
    result = between_scenarios(camp, dice, {1: [ReplacementRequest(lost, sd, "New")]})
    player = result.campaign.player(1)
    cost = camp.catalogue[sd].points
    event = [e for e in result.events if e.kind == "replacement"][0]
    assert event.data["modifier"] == modifier and event.data["delivered"] is delivered
    assert "Limitation" in dice.rolls[0].purpose or "Flexibility" in dice.rolls[0].purpose
    if delivered:
        assert player.replacement_points == 30 + 20 - cost
        new = player.ships[-1]
        assert (new.id, new.sd, new.name, new.status) == (9, sd, "New", ShipStatus.READY)
        assert player.ship(lost).replaced_by == 9 and result.campaign.next_ship_id == 10
    else:  # RULINGS: a failed replacement roll keeps the points
        assert player.replacement_points == 50 and len(player.ships) == 6
        assert player.ship(lost).replaced_by is None


@pytest.mark.parametrize("lost, sd, face, delivered", [  # 000 CAM 4.2 "-1 … size class 0" (ruling CAM23)
    (5, "t_bb0", 3, False), (5, "t_bb0", 4, True), (1, "t_bb0", 3, False), (6, "t_ca0", 2, False),
    (6, "t_ca0", 3, True),
])
def test_size_class_0_minus_1(lost, sd, face, delivered):  # 000 CAM 4.2
    camp = _after({lost: "destroyed"}, rp=40)  # UFP: rich, capital +1, medium +2
    result = between_scenarios(camp, FixedDice([face]), {1: [ReplacementRequest(lost, sd)]})
    event = [e for e in result.events if e.kind == "replacement"][0]
    assert event.data["delivered"] is delivered
    assert event.data["modifier"] == (0 if sd == "t_bb0" else 1)


@pytest.mark.parametrize("request_, reason", [  # 000 CAM 4.2 (rulings CAM24, CAM25)
    (ReplacementRequest(99, "t_bb"), "unknown_ship"),
    (ReplacementRequest(2, "t_ca"), "not_destroyed"),
    (ReplacementRequest(1, "t_ca"), "wrong_group"),
    (ReplacementRequest(3, "t_de"), "not_like_for_like"),
    (ReplacementRequest(1, "nope"), "unknown_sd"),
    (ReplacementRequest(1, "d7"), "wrong_period"),
    (ReplacementRequest(5, "t_bb0"), "over_points"),
])
def test_bad_requests_change_nothing(request_, reason):  # 000 CAM 4.2
    camp = _after({1: "destroyed", 3: "destroyed", 5: "destroyed", 2: "crippled"}, rp=0)
    dice = FixedDice([6, 6, 6])
    with pytest.raises(ReplacementError) as err:
        between_scenarios(camp, dice, {1: [request_]})
    assert err.value.reason == reason
    assert dice.rolls == []  # checked before any die is rolled


def test_requests_checked_together():  # 000 CAM 4.2 (ruling CAM25: all of a player's requests within the points)
    camp = _after({1: "destroyed", 3: "destroyed"}, rp=10)  # 10 + 20 = 30 on hand
    with pytest.raises(ReplacementError) as err:
        between_scenarios(camp, FixedDice([6, 6]), {1: [ReplacementRequest(1, "t_bb"), ReplacementRequest(3, "t_dd"),
                                                         ReplacementRequest(3, "t_dd")]})
    assert err.value.reason == "duplicate"
    both = between_scenarios(camp, FixedDice([6, 6]), {1: [ReplacementRequest(1, "t_bb"),
                                                            ReplacementRequest(3, "t_dd")]})
    assert both.campaign.player(1).replacement_points == 30 - 20 - 5
    camp3 = _after({1: "destroyed", 3: "destroyed", 5: "destroyed"}, rp=10)
    dice = FixedDice([6, 6, 6])
    with pytest.raises(ReplacementError) as err:  # 20 + 5 + 20 = 45 > 30
        between_scenarios(camp3, dice, {1: [ReplacementRequest(1, "t_bb"), ReplacementRequest(3, "t_dd"),
                                             ReplacementRequest(5, "t_bb")]})
    assert err.value.reason == "over_points" and "45" in str(err.value) and dice.rolls == []


def test_already_replaced_ship_cannot_be_replaced_again():  # 000 CAM 4.2
    camp = _after({3: "destroyed"}, rp=10)
    first = between_scenarios(camp, FixedDice([6]), {1: [ReplacementRequest(3, "t_dd")]}).campaign
    later = replace(first, history=first.history * 2)
    with pytest.raises(ReplacementError) as err:
        between_scenarios(later, FixedDice([6]), {1: [ReplacementRequest(3, "t_dd")]})
    assert err.value.reason == "already_replaced"


def test_order_of_the_step():  # 000 CAM 4.2 (ruling CAM21): repairs, survival, points, replacements
    camp = _after({2: "crippled", 1: "destroyed", 7: "destroyed"}, survival_roll=True, rp=0)
    dice = FixedDice([4, 6, 5, 3, 2, 2])
    result = between_scenarios(camp, dice, {1: [ReplacementRequest(1, "t_bb")]})
    assert [r.purpose.split(": ")[-1] if "CAM 4.2" in r.purpose else "5.7" for r in dice.rolls] == [
        "crippled ship repaired on 4+", "5.7", "Capital Ship Replacement Limitation (4+)", "5.7"]
    assert [e.kind for e in result.events] == [
        "repair", "survival", "replacement_points", "replacement", "survival", "replacement_points"]


def test_survivor_needs_no_replacement():  # 000 5.7 sidebar; CAM 4.2
    camp = _after({1: "destroyed"}, survival_roll=True, rp=20)
    result = between_scenarios(camp, FixedDice([6, 6]), {1: [ReplacementRequest(1, "t_bb")]})
    assert result.campaign.player(1).replacement_points == 40
    kinds = [e.kind for e in result.events if 1 in e.seats]
    assert kinds == ["survival", "replacement_points", "replacement_not_needed"]
