"""002 Assembling a Fleet: the points table priced row by row, the book's worked 400-point
example, the house roster (ruling MT19) and fleet limits."""

from __future__ import annotations

import random

import pytest

from tactical.rules.kit import IllegalActionError
from tactical.rules.mytrek import fleets as F
from tactical.rules.mytrek.state import Design


def test_the_worked_400_point_example():
    """002 Assembling a Fleet: 'A Size A ship that can travel at Hyper10, has Type V Force Fields,
    Type III weapons, torpedoes and aft weapons, is worth 100+100+100+50+25+25=400 points'
    (ruling MT2: 'Type III weapons' are the 50-point row, 5d6)."""
    d = Design("Example", "A", 10, 5, 5, aft=True, torpedoes=True)
    assert d.points() == 400
    assert F.ROSTER["Dreadnought"].points() == 400


@pytest.mark.parametrize(
    "row,pts,size,hypers,field,dice",
    [
        (0, 100, "A", (9, 10), 5, 9),
        (1, 50, "B", (7, 8), 4, 5),
        (2, 25, "C", (5, 6), 3, 4),
        (3, 10, "D", (3, 4), 2, 3),
        (4, 5, "E", (1, 2), 1, 2),
        (5, 0, "F", (0,), 0, 1),
    ],
)
def test_every_row_of_the_points_table(row, pts, size, hypers, field, dice):
    """002 Assembling a Fleet: PTS / Size / Max. Speed / Force Fields / Max. Damage, each column alone."""
    cheap = Design("x", "F", 0, 0, 1)
    assert cheap.points() == 0
    assert Design("x", size, 0, 0, 1).points() == pts
    for h in hypers:
        assert Design("x", "F", h, 0, 1).points() == pts
    assert Design("x", "F", 0, field, 1).points() == pts
    assert Design("x", "F", 0, 0, dice).points() == pts


@pytest.mark.parametrize(
    "special,pts", [("aft", 25), ("invisibility", 25), ("torpedoes", 25), ("missiles", 10)]
)
def test_special_weapons_and_abilities(special, pts):
    """002 Assembling a Fleet: Special Weapons and Abilities."""
    assert Design("x", "F", 0, 0, 1, **{special: True}).points() == pts


def test_fleet_limits():
    with pytest.raises(IllegalActionError, match="more than 400"):
        F.check_fleet([F.ROSTER["Dreadnought"], F.ROSTER["Scout"]])
    with pytest.raises(IllegalActionError, match="at most 6"):
        F.check_fleet([F.ROSTER["Shuttle"]] * 7)
    F.check_fleet([F.ROSTER["Battlecruiser"], F.ROSTER["Raider"]])


def test_bad_designs_are_refused():
    for bad in (
        {"size": "G"},
        {"size": "A", "max_hyper": 11},
        {"size": "A", "dice": 6},
        {"size": "A", "fields": 9},
        {"size": "A", "colour": "red"},
        {"size": "A", "dice": "x"},
    ):
        with pytest.raises(IllegalActionError):
            F.design_from(bad)


def test_random_fleets_keep_to_their_points():
    rng = random.Random(4)
    for _ in range(200):
        fleet = F.random_fleet(rng)
        assert 1 <= len(fleet) <= F.MAX_SHIPS and F.fleet_points(fleet) <= 400
