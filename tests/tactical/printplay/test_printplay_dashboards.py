"""001 Dashboards: the book's printed dashboard, the dashboard designer and the house roster
(rulings PP2-PP5)."""

from __future__ import annotations

import pytest

from tactical.rules.printplay.dashboards import (
    FACTIONS,
    ROSTER,
    DashboardError,
    Weapon,
    design,
    from_json,
    points_for,
    validate,
)
from tactical.rules.printplay.state import mounts_of


def test_the_books_dashboard_is_the_constitution_as_printed():
    """001 Dashboards: shields 20 (30), impulse 6, hull 30, the five weapon lines."""
    c = ROSTER["constitution"]
    assert c.source == "book" and c.faction == "Federation"
    assert (c.shields, c.shield_max, c.impulse, c.hull) == ((20, 20, 20, 20), 30, 6, 30)
    rows = [(w.name, w.qty, w.hit, w.dmg, w.range, w.arc, w.extra()) for w in c.weapons]
    assert rows == [("Phaser (F)", 5, 3, 2, 12, 270, ""), ("Phaser (P/S)", 2, 3, 2, 12, 90, ""),
                    ("Phaser (A)", 2, 3, 2, 12, 90, ""),
                    ("Photon Torpedos (F)", 1, 4, 5, 8, 90, "-2 vs shields, Burst 5"),
                    ("Photon Torpedos (A)", 1, 4, 5, 8, 90, "-2 vs shields, Burst 3")]
    # ruling PP4: the P/S line is a port mount and a starboard mount, one phaser each
    assert [(m.letter, m.qty) for m in mounts_of(c)] == [("F", 5), ("P", 1), ("S", 1), ("A", 2), ("F", 1), ("A", 1)]


def test_the_house_roster_has_every_faction_frigate_or_escort_to_battleship():
    """001 Intro: the Federation, Klingons, Romulans, Dominion and the Borg (ruling PP2)."""
    for faction in FACTIONS:
        types = {d.type for d in ROSTER.values() if d.faction == faction}
        assert types & {"frigate", "escort"} and "battleship" in types, faction
    assert all(d.source == "site" for k, d in ROSTER.items() if k != "constitution")
    assert all(validate(d) is d and d.points == points_for(d) for d in ROSTER.values())


def test_points_grow_with_what_a_ship_carries():
    """Ruling PP3: the site's points formula."""
    base = dict(key="x", name="X", faction="Borg", type="frigate", shields=8, shield_max=12, hull=10, impulse=6,
                weapons=[Weapon("Beam (F)", "F", 2, 3, 2, 10, 180)])
    small = design(**base)
    assert design(**{**base, "hull": 20}).points > small.points
    assert design(**{**base, "weapons": [Weapon("Beam (F)", "F", 4, 3, 2, 10, 180)]}).points > small.points
    assert design(**base, abilities=("cloak",)).points > small.points


@pytest.mark.parametrize("change, words", [
    ({"type": "dreadnought"}, "the type must be one of"),
    ({"faction": "Ferengi"}, "the faction must be one of"),
    ({"impulse": 9}, "Impulse must be a whole number from 1 to 8"),
    ({"shield_max": 4}, "boosted maximum"),
    ({"weapons": []}, "primary weapons"),
    ({"weapons": [Weapon("Torp (F)", "F", 1, 4, 5, 8, 90, "torpedo")]}, "at least one primary"),
    ({"weapons": [Weapon("Beam (P/S)", "P/S", 3, 3, 2, 10, 90)]}, "even Qty"),
    ({"weapons": [Weapon("Beam (F)", "F", 1, 3, 2, 10, 120)]}, "the arc must be one of"),
    ({"abilities": ("warp drive",)}, "unknown abilities"),
    ({"abilities": ("ablative armour",)}, "Ablative value above 0"),
])
def test_the_designer_refuses_a_dashboard_naming_the_field(change, words):
    base = dict(key="x", name="X", faction="Borg", type="frigate", shields=8, shield_max=12, hull=10, impulse=6,
                weapons=[Weapon("Beam (F)", "F", 2, 3, 2, 10, 180)])
    with pytest.raises(DashboardError, match=words) as err:
        design(**{**base, **change})
    assert err.value.rule == "001 Dashboards"


def test_a_dashboard_survives_json_and_is_checked_again():
    for d in ROSTER.values():
        assert from_json(d.to_json()) == d
    raw = ROSTER["b_rel"].to_json()
    raw["hull"] = 0
    with pytest.raises(DashboardError, match="Hull"):
        from_json(raw)
