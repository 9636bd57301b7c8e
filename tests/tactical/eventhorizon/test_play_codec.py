"""Actions as JSON (tactical/rules/eventhorizon/play/codec.py) and the replay dice
(tactical/rules/replay.py). Rule book 003 "The Turn Sequence" lists the actions."""

from __future__ import annotations

import json

import pytest

from campaign.rules.dice import FixedDice, SeededDice, derive_seed
from campaign.rules.eventhorizon.designs import GALIOT, SULTAN
from tactical.rules.eventhorizon import CampaignShip, IllegalActionError, deploy, simulate
from tactical.rules.eventhorizon import actions as A
from tactical.rules.eventhorizon.play.codec import (
    ACTION_TYPES,
    ActionFormatError,
    describe,
    from_json,
    to_json,
)
from tactical.rules.replay import LoggedDie, ReplayDice, ReplayMismatch

EVERY_ACTION = [
    A.Activate(3), A.Activate(3, evasive=True), A.Activate(3, evasive=False),
    A.RestorePower(3), A.Regenerate(3), A.Scan(3, 7),
    A.Move(3, ("F", "FL", "R")), A.Move(3, ("F",), into_black_hole=True),
    A.WarpOut(3), A.Land(3), A.Launch(3),
    A.Fire(3, (("laser_bank", 7), ("guided_missile_bay", 8))), A.Fire(3, (("planetary_bombardment_array", "world"),)),
    A.Teleport(3, 7), A.EngageStealth(3), A.DisengageStealth(3), A.EndActivation(3), A.Pass(1),
]


@pytest.mark.parametrize("action", EVERY_ACTION, ids=repr)
def test_round_trip_every_action_type(action):  # 003 The Turn Sequence
    data = to_json(action)
    assert from_json(json.loads(json.dumps(data))) == action
    assert describe(action)


def test_every_type_is_covered():
    assert {to_json(a)["type"] for a in EVERY_ACTION} == set(ACTION_TYPES)


def test_lenient_forms():
    assert from_json({"type": "move", "ship": "3", "path": "f, fl r"}) == A.Move(3, ("F", "FL", "R"))
    assert from_json({"type": "fire", "ship": 3, "shots": [{"weapon": "laser_bank", "target": "7"}]}) == \
        A.Fire(3, (("laser_bank", 7),))


@pytest.mark.parametrize("data, words", [
    ([1, 2], "JSON object"),
    ({"type": "jump", "ship": 1}, "unknown action type 'jump'"),
    ({"type": "move", "ship": 1}, "needs a 'path'"),
    ({"type": "move", "ship": 1, "path": ["B"]}, "unknown move 'B'"),
    ({"type": "move", "ship": True, "path": ["F"]}, "whole number"),
    ({"type": "scan", "ship": 1}, "needs 'target'"),
    ({"type": "fire", "ship": 1, "shots": [["death_ray", 2]]}, "unknown weapon 'death_ray'"),
    ({"type": "fire", "ship": 1, "shots": []}, "needs 'shots'"),
    ({"type": "activate", "ship": 1, "evasive": "yes"}, "'evasive' must be"),
    ({"type": "pass"}, "needs 'side'"),
    ({"type": "end_activation", "ship": 1, "colour": "red"}, "no field(s) colour"),
])
def test_bad_json_is_refused_naming_the_problem(data, words):
    with pytest.raises(ActionFormatError) as info:
        from_json(data)
    assert words in info.value.message
    assert isinstance(info.value, IllegalActionError) and isinstance(info.value, ValueError)


def _logged(rolls) -> list[LoggedDie]:
    return [LoggedDie(r.count, r.sides, r.purpose, r.faces) for r in rolls]


def test_replay_dice_reproduce_a_whole_battle():  # the dice log replays a battle exactly
    fleets = {
        1: [CampaignShip(1, GALIOT), CampaignShip(2, SULTAN)],
        2: [CampaignShip(3, SULTAN), CampaignShip(4, GALIOT)],
    }
    live = SeededDice(derive_seed("replay"))
    end = simulate(deploy(fleets, live, invader=1), live)
    replay = ReplayDice(_logged(entry.roll for entry in live.log))
    again = simulate(deploy(fleets, replay, invader=1), replay)
    replay.finish()
    assert again.ships == end.ships and [e.text for e in again.log] == [e.text for e in end.log]


def test_replay_dice_refuse_a_mismatch_loudly():
    dice = ReplayDice([LoggedDie(1, 6, "003 Lock On", (4,)), LoggedDie(2, 6, "003 Hit Locations", (3, 5))])
    with pytest.raises(ReplayMismatch, match="holds 1d6 \\(003 Lock On\\)"):
        dice.roll(1, 6, "003 Force Fields")  # another purpose
    assert dice.roll(1, 6, "003 Lock On").faces == (4,)
    with pytest.raises(ReplayMismatch, match="asked for 3d6"):
        dice.roll(3, 6, "003 Hit Locations")  # another count
    with pytest.raises(ReplayMismatch, match="left|did not use"):
        dice.finish()
    assert dice.roll(2, 6, "003 Hit Locations").faces == (3, 5)
    with pytest.raises(ReplayMismatch, match="holds only 2"):
        dice.roll(1, 6, "003 Lock On")  # past the end of the log
    dice.finish()


def test_replay_dice_from_the_log_text():
    die = LoggedDie.from_log("2d6", "p", [1, 6])
    assert (die.count, die.sides, die.faces) == (2, 6, (1, 6))
    with pytest.raises(ReplayMismatch, match="not 1d6"):
        ReplayDice([LoggedDie(1, 6, "p", (7,))]).roll(1, 6, "p")
    assert FixedDice([1]).roll(1, 6, "x").faces == (1,)
