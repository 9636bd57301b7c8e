"""A Buoyz battle setup whose ship entry carries a whole SD (a player's custom design) instead
of a catalogue key (tactical/rules/buoyz/play/setup.py ``sd_from_json``): held to 000 1.5 and
T'Corr's limits (``validate_sd``), refused with the field or limit named; catalogue keys work
as before. Pure code: no database."""

from __future__ import annotations

from dataclasses import replace

import pytest

from campaign.rules.cam.ships import MAX_HULL, STARTER_CATALOGUE
from tactical.rules.buoyz import play as bp

EXCELSIOR = replace(STARTER_CATALOGUE["constitution"], key="excelsior", name="CA USS 'Excelsior'", hull=9,
                    crippled_at=4, notes="a custom design")


def setup_with(entry, other="d7"):
    return {"attacker": 1, "defender": 2, "sides": {"1": {"name": "A", "ships": [{"sd": entry}]},
                                                    "2": {"name": "B", "ships": [{"sd": other}]}}}


def test_a_whole_sd_round_trips_and_is_played_as_it_is_given():
    data = bp.sd_to_json(EXCELSIOR)
    assert bp.sd_from_json(data) == EXCELSIOR
    state = bp.initial_state(setup_with(data))
    ship = state.battle.ships[0]
    assert ship.sd == EXCELSIOR and ship.hull == 9 and ship.name == "CA USS 'Excelsior'"
    assert state.battle.ships[1].sd == STARTER_CATALOGUE["d7"]  # the catalogue key works unchanged


def test_setup_for_writes_catalogue_sds_by_key_and_custom_ones_whole():
    setup = bp.setup_for({1: [EXCELSIOR, STARTER_CATALOGUE["d7"]], 2: ["war_talon"]})
    ships = setup["sides"]["1"]["ships"]
    assert ships[1] == {"sd": "d7"} and isinstance(ships[0]["sd"], dict) and ships[0]["sd"]["hull"] == 9
    assert setup["sides"]["2"]["ships"] == [{"sd": "war_talon"}]
    state = bp.initial_state(setup)
    assert [s.sd.key for s in state.battle.ships] == ["excelsior", "d7", "war_talon"]


def test_a_custom_sd_that_shadows_a_catalogue_key_is_still_written_whole():
    tougher = replace(STARTER_CATALOGUE["d7"], hull=12, crippled_at=5)
    entry = bp.setup_for({1: [tougher], 2: ["d7"]})["sides"]["1"]["ships"][0]["sd"]
    assert isinstance(entry, dict)
    assert bp.initial_state(bp.setup_for({1: [tougher], 2: ["d7"]})).battle.ships[0].hull == 12


@pytest.mark.parametrize("change, words", [
    ({"hull": MAX_HULL + 1}, f"T'Corr's limits: Hull {MAX_HULL + 1} is outside 1 to {MAX_HULL}"),
    ({"speed": 11}, "T'Corr's limits: Speed 11 is outside 0 to 10"),
    ({"turning": 5}, "T'Corr's limits: Turning 5 is outside 0 to 4"),
    ({"shields": [7, 1, 1, 1]}, "Shields (fore) 7 is outside 0 to 6"),
    ({"main": [[6, "Phaser"], [5, "Photon Torp", "Fwd"]]}, "Main weapons (attack dice in all) 11 is outside 0 to 10"),
    ({"special_abilities": [f"Ability {i}" for i in range(9)]}, "9 Special Abilities; the limit is 8"),
    ({"ac": 6, "ac_capacity": 5}, "AC carried plus spare capacity 11 is outside 0 to 10"),
    ({"periods": [4, 2]}, "last period 2 is outside 4 to 6"),
    ({"ship_class": "XX"}, "unknown ship class 'XX'"),
    ({"hull": "9"}, "hull must be a whole number"),
    ({"hull": True}, "hull must be a whole number"),
    ({"shields": [1, 2]}, "shields is a list of 4 whole numbers"),
    ({"main": [["three", "Phaser"]]}, "must be a whole number"),
    ({"main": "3 phasers"}, "main is a list of [count, name, arc]"),
    ({"name": ""}, "an SD needs a name"),
    ({"lasers": 3}, "SDs have no field(s) lasers"),
])
def test_a_custom_sd_breaking_the_limits_is_refused_naming_the_problem(change, words):
    data = {**bp.sd_to_json(EXCELSIOR), **change}
    with pytest.raises(bp.SetupError) as exc:
        bp.initial_state(setup_with(data))
    assert words in exc.value.message


def test_a_custom_sd_missing_a_field_is_refused_naming_it():
    data = bp.sd_to_json(EXCELSIOR)
    del data["crippled_at"], data["command"]
    del data["notes"]  # the notes may be left out
    with pytest.raises(bp.SetupError, match="has no crippled_at, command"):
        bp.sd_from_json(data)


@pytest.mark.parametrize("entry", ["enterprise_z", 7, None, ["constitution"]])
def test_an_unknown_key_or_a_value_that_is_no_sd_is_refused(entry):
    with pytest.raises(bp.SetupError, match="no SD"):
        bp.initial_state(setup_with(entry))
