"""Auto-resolving a CAM battle with the Event Horizon odds system on CAM points (ruling CAM26)."""

from __future__ import annotations

import pytest

from campaign.rules.cam.autoresolve import autoresolve_battle, autoresolve_sides
from campaign.rules.cam.breakcontact import BattleError, UnitState, record_damage
from campaign.rules.cam.scoring import score_scenario
from campaign.rules.dice import FixedDice
from campaign.rules.eventhorizon.autoresolve import Side, dice_counts
from tests.rules.cam.builders import battle_with, campaign_of

FLEET = ["t_bb", "t_ca", "t_cl", "t_dd", "t_de", "t_tp"]  # ids 1-6 and 7-12: 20, 10, 7, 5, 3, 2


def _battle(ships_1, ships_2, **kw):
    camp = campaign_of(FLEET, FLEET, period=3, points_level=100)
    return battle_with(camp, {1: ships_1, 2: ships_2}, **kw)


def test_sides_are_cam_points_on_the_table():  # 003 Alternative to a Tactical Battle on CAM points
    battle = _battle([1, 2, 3, 4, 5], [8, 12])  # 45 against 12
    assert autoresolve_sides(battle) == (Side(bp=45, ships=5), Side(bp=12, ships=2))
    assert dice_counts(*autoresolve_sides(battle))[:2] == (4, 1)  # 3.75 -> 4 dice
    hurt = record_damage(battle, 1, destroyed=["ship:1"], left=["ship:5"])
    assert autoresolve_sides(hurt)[0] == Side(bp=22, ships=3)


def test_bases_are_planetary_defences():  # 003 Force Multipliers: planetary defences (ruling CAM26)
    battle = _battle([2], [8], nature="planetary_dispute", defender=1, extras={1: {"bases": (8,), "minefields": (3,)}})
    a, b = autoresolve_sides(battle)
    assert a == Side(bp=13, has_defences=True, ships=2) and b == Side(bp=10, ships=1)  # CA 10 + minefield 3
    both = _battle([2], [8], extras={1: {"bases": (8,)}, 2: {"bases": (6,)}})
    assert autoresolve_sides(both) == (Side(bp=18, ships=2), Side(bp=16, ships=2))


def test_autoresolve_applies_losses_and_break():  # 003 Alternative to a Tactical Battle; 000 CAM 3.1
    battle = _battle([1, 2, 3, 4, 5], [8, 11, 12])  # 45 against 15: 3d6 against 1d6
    dice = FixedDice([6, 6, 1, 6])
    result = autoresolve_battle(battle, dice)
    new = result.battle
    assert [r.purpose for r in dice.rolls] == ["003 Alternative to a Tactical Battle"] * 2
    # seat 1 wins (two 6s to one): seat 2 loses its two cheapest (TP 2, DE 3); seat 1 its cheapest (DE 3)
    assert new.unit_status(2, "ship:12").state is UnitState.DESTROYED
    assert new.unit_status(2, "ship:11").state is UnitState.DESTROYED
    assert new.unit_status(2, "ship:8").state is UnitState.LEFT
    assert new.unit_status(1, "ship:5").state is UnitState.DESTROYED
    assert dict(new.broken) == {1: None, 2: 1} and new.contact_broken and new.autoresolved
    score = score_scenario(new)
    assert score.winner == 1 and score.sides[1].total == 42 + 50 and score.sides[2].total == 10


def test_autoresolve_needs_points():  # 003 (ruling A2: both sides at 0 refused)
    battle = _battle([5], [11])
    battle = record_damage(record_damage(battle, 1, left=["ship:5"]), 2, left=["ship:11"])
    with pytest.raises(BattleError):
        autoresolve_battle(battle, FixedDice([]))
