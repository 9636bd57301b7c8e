"""Factions: CAM 4.2 wealth classes and modifiers, CAM 3.1 break-contact modifiers."""

from __future__ import annotations

import pytest

from campaign.rules.cam.factions import PRESETS, FactionError, Temper, Wealth, faction, other_power
from campaign.rules.cam.ships import SizeGroup


@pytest.mark.parametrize("name, wealth", [  # 000 CAM 4.2 wealth lists
    ("UFP", Wealth.RICH), ("Klingons", Wealth.RICH), ("Romulans", Wealth.RICH),
    ("Gorns", Wealth.MODERATE), ("Kzinti", Wealth.MODERATE), ("Cardassians", Wealth.MODERATE),
    ("Borg", Wealth.VARIABLE), ("Dominion", Wealth.VARIABLE), ("Tholian", Wealth.VARIABLE),
    ("Bajorans", Wealth.POOR), ("Kazon", Wealth.POOR),
])
def test_preset_wealth(name, wealth):  # 000 CAM 4.2
    assert faction(name).wealth is wealth


@pytest.mark.parametrize("name, modifier", [  # 000 CAM 3.1 "Klingons, Dominion and Borg ADD 1; Romulans DEDUCT 1"
    ("Klingons", 1), ("Dominion", 1), ("Borg", 1), ("Romulans", -1), ("UFP", 0), ("Gorns", 0), ("Kazon", 0),
    ("Tholian", 0),
])
def test_break_modifiers(name, modifier):  # 000 CAM 3.1
    assert faction(name).break_modifier == modifier


@pytest.mark.parametrize("group, wealth, modifier", [  # 000 CAM 4.2, every row of the three tables
    (SizeGroup.CAPITAL, Wealth.RICH, 1), (SizeGroup.CAPITAL, Wealth.MODERATE, 0),
    (SizeGroup.CAPITAL, Wealth.VARIABLE, -1), (SizeGroup.CAPITAL, Wealth.POOR, -2),
    (SizeGroup.MEDIUM, Wealth.RICH, 2), (SizeGroup.MEDIUM, Wealth.MODERATE, 1),
    (SizeGroup.MEDIUM, Wealth.VARIABLE, 0), (SizeGroup.MEDIUM, Wealth.POOR, -2),
    (SizeGroup.SMALL, Wealth.RICH, 3), (SizeGroup.SMALL, Wealth.MODERATE, 2),
    (SizeGroup.SMALL, Wealth.VARIABLE, -1), (SizeGroup.SMALL, Wealth.POOR, 0),
])
def test_replacement_modifiers(group, wealth, modifier):  # 000 CAM 4.2
    assert other_power("Orions", wealth).replacement_modifier(group) == modifier


@pytest.mark.parametrize("name, temper, modifier", [  # 000 CAM 3.1 footnote 1
    ("Galactic Empire", Temper.AGGRESSIVE, 1), ("Cylons", Temper.AGGRESSIVE, 1), ("Daleks", Temper.AGGRESSIVE, 1),
    ("Rebel Alliance", Temper.CAUTIOUS, -1), ("Children of Kobol", Temper.CAUTIOUS, -1),
    ("Orions", Temper.NEUTRAL, 0),
])
def test_other_verse_tempers(name, temper, modifier):  # 000 CAM 3.1 footnote 1
    power = other_power(name, "moderate")
    assert power.temper is temper and power.break_modifier == modifier and not power.preset


def test_other_power_best_fit_is_chosen():  # 000 CAM 4.2 "Other powers: Best fit from above" (ruling CAM4)
    assert other_power("Orions", "poor", "aggressive").break_modifier == 1
    assert other_power("  cylons ", Wealth.RICH, Temper.CAUTIOUS).temper is Temper.CAUTIOUS
    with pytest.raises(FactionError, match="wealth"):
        other_power("Orions", "filthy rich")
    with pytest.raises(FactionError, match="temper"):
        other_power("Orions", "rich", "grumpy")
    with pytest.raises(FactionError, match="classed by the rule book"):
        other_power("klingons", "poor")
    with pytest.raises(FactionError, match="name"):
        other_power(" ", "poor")


def test_faction_lookup():  # 000 CAM 4.2
    assert faction(" ufp ") is PRESETS["UFP"]
    with pytest.raises(FactionError, match="other_power"):
        faction("Orions")
