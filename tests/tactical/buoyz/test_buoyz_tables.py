"""The Buoyz engine's table (000 1.1, 1.2, 4.1) and Ship Descriptions (1.5, 1.6): pure tests."""

from __future__ import annotations

from dataclasses import replace

import pytest

from campaign.rules.cam import ships as cam_ships
from tactical.rules.buoyz import sds
from tactical.rules.buoyz.geometry import (
    AFT,
    FORE,
    PORT,
    STARBOARD,
    advance,
    arcs_of,
    halve,
    inches,
    round_half_up,
    turn_degrees,
)


@pytest.mark.parametrize("value, expected", [(0.49, 0), (0.5, 1), (1.5, 2), (2.5, 3), (2.4999, 2), (6.4, 6), (6.5, 7)])
def test_fractions_half_and_above_round_up(value, expected):
    """000 1.1 Fractions: ½ and above always round up, less than a half always round down."""
    assert round_half_up(value) == expected


@pytest.mark.parametrize("value, times, expected", [(4, 1, 2), (4, 2, 1), (3, 1, 2), (1, 1, 1), (3, 2, 1), (6, 0, 6),
                                                    (5, 1, 3), (0, 3, 0)])
def test_halving_rounds_once_at_the_end(value, times, expected):
    """000 5.7 / 5.8 'half and half again', rounded as 1.1 (ruling BZ5)."""
    assert halve(value, times) == expected


def test_ranges_measured_singularity_to_singularity_and_rounded():
    """000 1.1 (measure from the 'singularity'), ruling BZ1: whole inches, half up."""
    assert inches((0, 0), (3, 4)) == 5
    assert inches((0, 0), (0, 6.49)) == 6
    assert inches((0, 0), (0, 6.5)) == 7


@pytest.mark.parametrize("other, arcs", [
    ((0, 5), {FORE}), ((5, 0), {STARBOARD}), ((0, -5), {AFT}), ((-5, 0), {PORT}),
    ((5, 5), {FORE, STARBOARD}), ((-5, -5), {AFT, PORT}), ((1, 5), {FORE}), ((5, -1), {STARBOARD}),
])
def test_template_1_quadrants(other, arcs):
    """000 1.2 Arcs, Template 1 (ruling BZ2: 90-degree quadrants, a boundary is in both)."""
    assert arcs_of((0, 0), 0.0, other) == arcs


def test_arcs_turn_with_the_ship():
    assert arcs_of((0, 0), 90.0, (5, 0)) == {FORE}
    assert arcs_of((0, 0), 90.0, (0, 5)) == {PORT}


@pytest.mark.parametrize("points, degrees", [(0, 0), (1, 45), (2, 75), (3, 105), (4, 135), (5, 165), (6, 180), (7, 180),
                                             (-1, -45), (-3, -105)])
def test_template_2_turning_points(points, degrees):
    """000 4.1 Template 2 (ruling BZ3): the first point 45 degrees, then 30 each, at most 180."""
    assert turn_degrees(points) == degrees


def test_advance_along_the_heading():
    assert advance((10, 10), 0, 6) == (10, 16)
    assert advance((10, 10), 90, 2) == (12, 10)
    assert advance((10, 10), 180, 1) == (10, 9)


# --- Ship Descriptions: one source with CAM -------------------------------------------------

PRINTED = {  # 000 1.5 and 1.6, as printed: speed, turning, size, shields (f, p, s, a), hull/crippled, command, AC
    "constitution": (6, 3, 3, (3, 3, 3, 3), 7, 3, 2, 0),
    "d7": (6, 3, 3, (4, 4, 4, 2), 6, 3, 2, 0),
    "war_talon": (3, 3, 3, (3, 3, 3, 3), 3, 1, 2, 0),
    "b_rel": (7, 4, 4, (2, 2, 2, 2), 2, 1, 2, 0),
    "l42": (7, 5, 5, (1, 1, 1, 1), 1, 0, 2, 0),
    "galaxy": (8, 2, 1, (6, 6, 6, 6), 12, 8, 2, 0),
    "valkyrie": (6, 2, 1, (5, 5, 5, 5), 14, 8, 2, 8),
    "kobayashi_maru": (3, 2, 3, (1, 1, 1, 1), 5, 4, 2, 0),
    "borg_cube": (8, 2, 0, (6, 6, 6, 6), 30, 10, 2, 0),
    "firecat": (6, 3, 3, (4, 4, 4, 4), 6, 4, 2, 0),
    "runabouts": (6, 5, 5, (0, 0, 0, 0), 1, 0, 2, 0),
}


def test_every_printed_sd_is_in_the_one_catalogue():
    """000 1.5 / 1.6: every SD printed in the book, with its printed values, and the engine's
    catalogue IS the CAM catalogue (one source, not two)."""
    assert sds.CATALOGUE is cam_ships.STARTER_CATALOGUE
    assert set(PRINTED) == set(sds.CATALOGUE)
    for key, (speed, turning, size, shields, hull, crippled, command, ac) in PRINTED.items():
        sd = sds.CATALOGUE[key]
        assert (sd.speed, sd.turning, sd.target_size, sd.shields, sd.hull, sd.crippled_at, sd.command, sd.ac) == (
            speed, turning, size, shields, hull, crippled, command, ac), key


def test_weapon_lines_become_systems_with_arcs():
    """000 1.2 (no arc stated 360°, Fwd the fore arc, torpedoes fore and/or aft: ruling BZ7),
    5.1 (secondary 360°), 5.9 (torpedo kinds: ruling BZ6)."""
    d7 = {s.key: s for s in sds.weapon_systems(sds.CATALOGUE["d7"])}
    assert d7["main0"].torpedo == "" and d7["main0"].arcs == {FORE, PORT, STARBOARD, AFT} and d7["main0"].range == 6
    assert d7["main1"].torpedo == "disruptor" and d7["main1"].arcs == {FORE}
    assert d7["main2"].torpedo == "drone" and d7["main2"].arcs == {FORE, AFT}
    assert d7["secondary"].dice == 2 and d7["secondary"].range == 3
    talon = {s.key: s for s in sds.weapon_systems(sds.CATALOGUE["war_talon"])}
    assert talon["main1"].torpedo == "plasma" and talon["main1"].range == 8 and talon["main1"].arcs == {FORE}
    assert [s.key for s in sds.weapon_systems(sds.CATALOGUE["valkyrie"])] == ["secondary"]


def test_tcorrs_limits_refuse_a_custom_sd():
    """000 1.5 Sub-Commander T'Corr's limits apply to custom SDs (the CAM validator)."""
    base = sds.CATALOGUE["constitution"]
    sds.validate_sd(replace(base, key="custom", speed=10, hull=30))
    with pytest.raises(sds.SDError, match="Speed 11 is outside 0 to 10"):
        sds.validate_sd(replace(base, key="custom", speed=11))
    with pytest.raises(sds.SDError, match="Hull 31"):
        sds.validate_sd(replace(base, key="custom", hull=31, crippled_at=3))
    with pytest.raises(sds.SDError, match="Special Abilities"):
        sds.validate_sd(replace(base, key="custom", special_abilities=tuple(f"A{i}" for i in range(9))))
    from tactical.rules.buoyz.state import new_ship

    with pytest.raises(sds.SDError, match="Shields"):  # the engine takes no ship outside the limits
        new_ship(1, 1, replace(base, key="custom", shields=(7, 7, 7, 7)), (0, 0))


def test_saucer_separation_splits_weapons_speed_and_hull():
    """000 7.3 Federation Saucer Separation (ruling BZ47): a third of each surviving weapon
    system to the saucer (1.1 rounding), the saucer at most 2", the drive section at warp."""
    from campaign.rules.dice import FixedDice
    from tactical.rules.buoyz import actions as A
    from tactical.rules.buoyz.engine import allowance, apply
    from tactical.rules.buoyz.state import new_battle, new_ship

    c = sds.CATALOGUE
    state = new_battle([new_ship(1, 1, c["galaxy"], (10, 10)), new_ship(2, 2, c["d7"], (40, 40), 180)])
    state = replace(state, phase="movement", turn=1, initiative=1, first=1, acting=1)
    state = apply(state, A.Special(1, "saucer_separation"), FixedDice([])).state
    drive, saucer = state.ship(1), state.ship(3)
    assert [(w.name, w.count) for w in saucer.sd.main] == [("Phaser", 2), ("Photon Torp", 1)]
    assert [(w.name, w.count) for w in drive.sd.main] == [("Phaser", 4), ("Photon Torp", 1)]
    assert (saucer.sd.secondary, drive.sd.secondary, saucer.sd.close_defence, drive.sd.close_defence) == (1, 2, 2, 3)
    assert (saucer.sd.speed, drive.sd.speed, allowance(saucer), allowance(drive)) == (2, 8, 2.0, 8.0)
    assert (saucer.sd.hull, saucer.hull, drive.sd.hull, drive.hull) == (4, 4, 8, 8)
    assert saucer.sd.target_size == 2 and drive.sd.target_size == 1
