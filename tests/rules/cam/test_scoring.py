"""CAM 3.1 points left and victory scale, CAM 4.3 campaign points, recording and standings."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from campaign.rules.cam.breakcontact import end_of_turn, record_damage
from campaign.rules.cam.scoring import (
    ScoringError,
    Victory,
    record_scenario,
    score_scenario,
    standings,
    victory_level,
)
from campaign.rules.cam.state import ShipStatus
from campaign.rules.dice import FixedDice
from tests.rules.cam.builders import battle_with, campaign_of

# seat 1 ids 1-5: BB 20, CA 10, CL 7, DD 5, DE 3 (45); seat 2 ids 6-10 the same
FLEET = ["t_bb", "t_ca", "t_cl", "t_dd", "t_de"]


def _camp(**kw):
    return campaign_of(FLEET, FLEET, period=3, **kw)


def _battle(camp=None):
    camp = camp or _camp()
    return camp, battle_with(camp, {1: [1, 2, 3, 4, 5], 2: [6, 7, 8, 9, 10]})


def _break(battle, seat, turn):
    return replace(battle, broken=MappingProxyType({**battle.broken, seat: turn}))


@pytest.mark.parametrize("winner, loser, victory", [  # 000 CAM 3.1 victory scale
    (3, 2, Victory.MINOR), (199, 100, Victory.MINOR), (200, 100, Victory.MAJOR), (299, 100, Victory.MAJOR),
    (300, 100, Victory.DECISIVE), (50, 0, Victory.DECISIVE), (1, 0, Victory.DECISIVE),
])
def test_victory_scale(winner, loser, victory):  # 000 CAM 3.1 "less than 2-1 … at least 2-1 … 3-1 or better"
    assert victory_level(winner, loser) is victory


def test_victory_needs_a_winner():  # 000 CAM 3.1
    with pytest.raises(ScoringError):
        victory_level(10, 10)


def test_scoring_waits_for_broken_contact():  # 000 CAM 3.0 step 2 "When all table contact has been broken"
    _, battle = _battle()
    with pytest.raises(ScoringError, match="not been broken"):
        score_scenario(battle)
    assert score_scenario(battle, force_end=True).winner is None  # the moderator ends it (ruling CAM15): a draw


def test_points_left_and_50_bonus():  # 000 CAM 3.1 "most points left … Add 50 points … if not also forced"
    _, battle = _battle()
    battle = record_damage(battle, 2, destroyed=["ship:6"])  # seat 2 loses the BB (20)
    battle = record_damage(battle, 1, destroyed=["ship:5"], crippled=["ship:2"])  # seat 1 loses the DE (3)
    battle = end_of_turn(battle, FixedDice([3])).battle  # seat 2: 20 >= 18 -> checks, 3: ordered
    battle = record_damage(battle, 2, left=["ship:7", "ship:8", "ship:9", "ship:10"])
    score = score_scenario(battle)
    one, two = score.sides[1], score.sides[2]
    assert (one.points_left, one.bonus, one.total) == (42, 50, 92)  # crippled CA counts in full
    assert (two.points_left, two.bonus, two.total) == (25, 0, 25)
    assert score.winner == 1 and score.victory is Victory.DECISIVE  # 92 >= 3 x 25 (ruling CAM18: bonus in)
    # CAM 4.3: seat 1 forced the break (3) + 20 destroyed (2) + not broken (2); seat 2: 3 destroyed (0)
    assert one.campaign_points == 7 and dict(one.cp_breakdown) == {
        "enemy_broke_first": 3, "enemy_destroyed": 2, "not_broken": 2}
    assert two.campaign_points == 0


@pytest.mark.parametrize("destroyed_points, cps", [(0, 0), (9, 0), (10, 1), (19, 1), (20, 2), (45, 4)])
def test_one_cp_per_full_10_destroyed(destroyed_points, cps):  # 000 CAM 4.3 "Each full 10 points"
    camp = campaign_of(["t_ca"] * 5 + ["t_tp"], ["t_dd"] * 9, period=3, points_level=100)
    battle = battle_with(camp, {1: [1, 2, 3, 4, 5, 6], 2: list(range(7, 16))})
    ids = [f"ship:{i}" for i in range(7, 16)][: destroyed_points // 5]
    battle = record_damage(battle, 2, destroyed=ids)
    score = score_scenario(battle, force_end=True)
    assert score.sides[1].cp_breakdown["enemy_destroyed"] == cps


@pytest.mark.parametrize("turn_1, turn_2, first_1, first_2", [  # 000 CAM 4.3 "break contact first" (ruling CAM19)
    (None, 2, 3, 0), (3, 2, 3, 0), (2, 3, 0, 3), (2, 2, 0, 0), (2, None, 0, 3),
])
def test_forced_break_first(turn_1, turn_2, first_1, first_2):  # 000 CAM 4.3
    _, battle = _battle()
    for seat, turn in ((1, turn_1), (2, turn_2)):
        if turn is not None:
            battle = _break(battle, seat, turn)
    score = score_scenario(battle, force_end=True)
    assert score.sides[1].cp_breakdown["enemy_broke_first"] == first_1
    assert score.sides[2].cp_breakdown["enemy_broke_first"] == first_2
    assert score.sides[1].cp_breakdown["not_broken"] == (2 if turn_1 is None else 0)  # "Add 2 CPs if … not also"
    assert score.sides[1].bonus == (50 if turn_1 is None else 0)


def test_both_broken_equal_totals_is_a_draw():  # 000 CAM 3.1 (ruling CAM18: equal totals draw)
    _, battle = _battle()
    battle = _break(_break(battle, 1, 2), 2, 2)
    score = score_scenario(battle, force_end=True)
    assert score.winner is None and score.victory is None
    assert score.sides[1].campaign_points == score.sides[2].campaign_points == 0


def test_record_scenario_updates_roster_and_cps():  # 000 CAM 4.1, 4.3
    camp, battle = _battle()
    battle = record_damage(battle, 1, destroyed=["ship:2"], crippled=["ship:1"])
    battle = record_damage(battle, 2, destroyed=["ship:6", "ship:9"])
    battle = _break(battle, 2, 1)
    score = score_scenario(battle, force_end=True)
    result = record_scenario(camp, battle, score)
    new = result.campaign
    p1, p2 = new.player(1), new.player(2)
    assert p1.ship(2).status is ShipStatus.DESTROYED and p1.ship(2).destroyed_in == 1
    assert p1.ship(1).status is ShipStatus.CRIPPLED and p1.ship(3).status is ShipStatus.READY
    assert p2.ship(6).status is ShipStatus.DESTROYED and p2.ship(9).status is ShipStatus.DESTROYED
    assert p1.campaign_points == 3 + 2 + 2 and p2.campaign_points == 1
    assert new.scenarios_played == 1 and new.history[0].winner == score.winner
    assert camp.scenarios_played == 0 and camp.player(1).ship(2).status is ShipStatus.READY  # unchanged
    with pytest.raises(ScoringError, match="next scenario"):
        record_scenario(new, battle, score)


def test_standings_over_a_rubber():  # 000 CAM 4.1 "A campaign is scored based upon … each scenario"; 4.3
    camp, battle = _battle(_camp(scenarios=1))
    battle = _break(record_damage(battle, 2, destroyed=["ship:6"]), 2, 1)
    before = standings(camp)
    assert before.leader is None and not before.finished and before.winner is None
    after = record_scenario(camp, battle, score_scenario(battle, force_end=True)).campaign
    table = standings(after)
    assert [(r.seat, r.campaign_points) for r in table.table] == [(1, 7), (2, 0)]
    assert table.table[0].scenario_wins == 1 and table.finished and table.winner == 1
