"""SDs (000 1.5), T'Corr's limits, CAM 2.2 points costs, the starter catalogue and its periods."""

from __future__ import annotations

from dataclasses import replace

import pytest

from campaign.rules.cam.ships import (
    CLASS_GROUP,
    CLASS_POINTS,
    SD,
    STARTER_CATALOGUE,
    SDError,
    ShipClass,
    SizeGroup,
    Weapon,
    make_catalogue,
    validate_sd,
)

BASE = SD("probe", ShipClass.CA, "CA test", 6, 3, 3, (3, 3, 3, 3), 7, 3, command=2,
          special_abilities=("Warp",), main=(Weapon(4, "Phaser"),), secondary=1, close_defence=1)


@pytest.mark.parametrize("cls, points", [  # 000 CAM 2.2 points costs, one row each
    (ShipClass.BB, 20), (ShipClass.CV, 20), (ShipClass.BC, 15), (ShipClass.CVE, 15), (ShipClass.CA, 10),
    (ShipClass.CL, 7), (ShipClass.DD, 5), (ShipClass.DE, 3), (ShipClass.RB, 3), (ShipClass.TP, 2),
    (ShipClass.SS, 3),  # ruling CAM3
])
def test_points_cost_per_class(cls, points):  # 000 CAM 2.2
    assert CLASS_POINTS[cls] == points
    assert replace(BASE, ship_class=cls).points == points


def test_size_class_0_adds_20():  # 000 CAM 2.2 "Each ship Size Class 0 +20 points to its cost"
    assert replace(BASE, target_size=0).points == 30
    assert replace(BASE, target_size=1).points == 10
    assert STARTER_CATALOGUE["borg_cube"].points == 40  # BB 20 + size 0


@pytest.mark.parametrize("cls, group", [  # 000 CAM 4.2 groups; CAM 3.1 capital ships
    (ShipClass.BB, SizeGroup.CAPITAL), (ShipClass.CV, SizeGroup.CAPITAL), (ShipClass.BC, SizeGroup.CAPITAL),
    (ShipClass.CA, SizeGroup.MEDIUM), (ShipClass.CL, SizeGroup.MEDIUM), (ShipClass.CVE, SizeGroup.MEDIUM),
    (ShipClass.DD, SizeGroup.SMALL), (ShipClass.DE, SizeGroup.SMALL), (ShipClass.SS, SizeGroup.SMALL),
    (ShipClass.TP, SizeGroup.SMALL), (ShipClass.RB, SizeGroup.SMALL),
])
def test_size_groups(cls, group):  # 000 CAM 4.2
    assert CLASS_GROUP[cls] is group


@pytest.mark.parametrize("change, at_limit", [  # 000 1.5 T'Corr's limits: the limit passes …
    ({"speed": 10}, True), ({"turning": 4}, True), ({"target_size": 0}, True), ({"target_size": 5, "turning": 5}, True),
    ({"shields": (6, 6, 6, 6)}, True), ({"hull": 30, "crippled_at": 10}, True), ({"command": 1}, True),
    ({"command": 3}, True), ({"ac": 10}, True), ({"special_abilities": tuple("abcdefgh")}, True),
    ({"main": (Weapon(10, "Phaser"),)}, True), ({"secondary": 10}, True), ({"close_defence": 10}, True),
    # … one past it fails
    ({"speed": 11}, False), ({"turning": 5}, False), ({"target_size": 5, "turning": 6}, False),
    ({"target_size": -1}, False), ({"target_size": 6}, False), ({"shields": (7, 3, 3, 3)}, False),
    ({"shields": (3, 3, 3, 7)}, False), ({"hull": 31}, False), ({"command": 0}, False), ({"command": 4}, False),
    ({"ac": 11}, False), ({"ac": 9, "ac_capacity": 2}, False), ({"special_abilities": tuple("abcdefghi")}, False),
    ({"main": (Weapon(6, "Phaser"), Weapon(5, "Torp"))}, False), ({"secondary": 11}, False),
    ({"close_defence": 11}, False),
])
def test_tcorr_limits(change, at_limit):  # 000 1.5 Sub-Commander T'Corr's limits
    sd = replace(BASE, **change)
    if at_limit:
        assert validate_sd(sd) is sd
    else:
        with pytest.raises(SDError) as err:
            validate_sd(sd)
        assert "1.5" in str(err.value)


@pytest.mark.parametrize("change, words", [  # 000 1.5 fields, 5.7 crippled figure, periods
    ({"name": " "}, "needs a name"), ({"key": ""}, "catalogue key"), ({"speed": None}, "N/A"),
    ({"crippled_at": 7}, "Crippled"), ({"hull": 0, "crippled_at": 0}, "Hull"), ({"periods": (0, 3)}, "first period"),
    ({"periods": (4, 3)}, "last period"), ({"periods": (1, 7)}, "last period"), ({"command": True}, "whole number"),
    ({"shields": (3, 3, 3)}, "aft"),
])
def test_sd_field_errors(change, words):  # 000 1.5
    with pytest.raises(SDError, match=words):
        validate_sd(replace(BASE, **change))


def test_station_has_no_speed_or_turning():  # 000 1.5 "N/A if space station or 'shore' base"
    assert validate_sd(replace(BASE, speed=None, turning=None)).speed is None


def test_patrol_craft_can_be_never_crippled():  # 000 5.7 "Patrol and some small craft can never be 'Crippled'"
    assert STARTER_CATALOGUE["runabouts"].crippled_at == 0


@pytest.mark.parametrize("key, cls, periods", [  # 000 1.5 the sample SDs and their periods (ruling CAM1)
    ("constitution", ShipClass.CA, (2, 2)), ("d7", ShipClass.BC, (2, 2)), ("war_talon", ShipClass.CL, (1, 2)),
    ("b_rel", ShipClass.DD, (3, 6)), ("l42", ShipClass.DE, (3, 6)), ("galaxy", ShipClass.CA, (5, 6)),
    ("valkyrie", ShipClass.CV, (5, 6)), ("kobayashi_maru", ShipClass.TP, (1, 6)), ("borg_cube", ShipClass.BB, (5, 6)),
    ("firecat", ShipClass.CA, (2, 6)), ("runabouts", ShipClass.RB, (1, 6)),
])
def test_starter_catalogue(key, cls, periods):  # 000 1.5
    sd = STARTER_CATALOGUE[key]
    assert (sd.ship_class, sd.periods) == (cls, periods)
    assert sd.available_in(periods[0]) and sd.available_in(periods[1])
    assert not sd.available_in(periods[0] - 1) and not sd.available_in(periods[1] + 1)
    assert validate_sd(sd) is sd


def test_book_sds_as_printed():  # 000 1.5 (spot checks of the printed values)
    d7 = STARTER_CATALOGUE["d7"]
    assert d7.shields == (4, 4, 4, 2) and (d7.hull, d7.crippled_at) == (6, 3) and d7.main_dice == 7
    cube = STARTER_CATALOGUE["borg_cube"]
    assert (cube.hull, cube.target_size, len(cube.special_abilities)) == (30, 0, 8)
    assert STARTER_CATALOGUE["valkyrie"].ac == 8 and STARTER_CATALOGUE["galaxy"].ac_capacity == 2
    assert STARTER_CATALOGUE["l42"].turning == 5  # ruling CAM2: size 5 may turn 5


def test_catalogue_refuses_duplicate_keys_and_bad_sds():  # 000 1.5
    with pytest.raises(SDError, match="share"):
        make_catalogue(replace(BASE, key="d7"))
    with pytest.raises(SDError):
        make_catalogue(replace(BASE, hull=40))
    assert "probe" in make_catalogue(BASE)
    assert "probe" not in STARTER_CATALOGUE
