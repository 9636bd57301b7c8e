"""Factions for the CAM campaign layer: wealth class (CAM 4.2) and break-contact temper (CAM 3.1).

Pure Python. Rule book ``seeds/000_…``: CAM 3.1 ("Klingons, Dominion and Borg always ADD 1 to this
score; Romulans DEDUCT 1", and footnote 1: other 'Verses +1 if 'Aggressive', −1 if 'Cautious')
and CAM 4.2 (the 'Rich' / 'Moderate' / 'Variable' / 'Poor' lists, "Other powers: Best fit from
above"). Project rulings: ``RULINGS.md`` "CAM campaign supplement"; ours in ``docs/rulings.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType

from .ships import SizeGroup

BREAK_RULE = "000 CAM 3.1 'Break Contact' Scenario Ending"
WEALTH_RULE = "000 CAM 4.2 Replacing Losses Between Scenarios"


class FactionError(ValueError):
    """A faction that cannot be set up (unknown name, missing wealth class, bad temper)."""


class Wealth(str, Enum):
    RICH = "rich"
    MODERATE = "moderate"
    VARIABLE = "variable"
    POOR = "poor"


class Temper(str, Enum):
    """CAM 3.1 footnote 1: 'Aggressive' +1, 'Cautious' −1; neither 0."""

    AGGRESSIVE = "aggressive"
    NEUTRAL = "neutral"
    CAUTIOUS = "cautious"


TEMPER_MODIFIER: Mapping[Temper, int] = MappingProxyType({
    Temper.AGGRESSIVE: +1, Temper.NEUTRAL: 0, Temper.CAUTIOUS: -1,
})

# CAM 4.2, the three tables exactly as printed ("--0" and "-0" are 0). The small-ship column
# gives 'Variable' −1 and 'Poor' 0; ruling CAM17 keeps the printed values.
REPLACEMENT_MODIFIER: Mapping[SizeGroup, Mapping[Wealth, int]] = MappingProxyType({
    SizeGroup.CAPITAL: MappingProxyType({Wealth.RICH: +1, Wealth.MODERATE: 0, Wealth.VARIABLE: -1, Wealth.POOR: -2}),
    SizeGroup.MEDIUM: MappingProxyType({Wealth.RICH: +2, Wealth.MODERATE: +1, Wealth.VARIABLE: 0, Wealth.POOR: -2}),
    SizeGroup.SMALL: MappingProxyType({Wealth.RICH: +3, Wealth.MODERATE: +2, Wealth.VARIABLE: -1, Wealth.POOR: 0}),
})


@dataclass(frozen=True)
class Faction:
    """A power: its CAM 4.2 wealth class and CAM 3.1 temper. Star Trek powers named by the rule
    book come from ``PRESETS``; others are made with ``other_power`` ("best fit")."""

    name: str
    wealth: Wealth
    temper: Temper = Temper.NEUTRAL
    preset: bool = False

    @property
    def break_modifier(self) -> int:
        """Added to the CAM 3.1 break-contact die."""
        return TEMPER_MODIFIER[self.temper]

    def replacement_modifier(self, group: SizeGroup) -> int:
        """Added to the CAM 4.2 replacement die for a ship of ``group``."""
        return REPLACEMENT_MODIFIER[group][self.wealth]


def _preset(name: str, wealth: Wealth, temper: Temper = Temper.NEUTRAL) -> Faction:
    return Faction(name=name, wealth=wealth, temper=temper, preset=True)


# CAM 4.2 wealth lists; CAM 3.1 "Klingons, Dominion and Borg always ADD 1 … Romulans DEDUCT 1".
PRESETS: Mapping[str, Faction] = MappingProxyType({f.name: f for f in (
    _preset("UFP", Wealth.RICH),
    _preset("Klingons", Wealth.RICH, Temper.AGGRESSIVE),
    _preset("Romulans", Wealth.RICH, Temper.CAUTIOUS),
    _preset("Gorns", Wealth.MODERATE),
    _preset("Kzinti", Wealth.MODERATE),
    _preset("Cardassians", Wealth.MODERATE),
    _preset("Borg", Wealth.VARIABLE, Temper.AGGRESSIVE),
    _preset("Dominion", Wealth.VARIABLE, Temper.AGGRESSIVE),
    _preset("Tholian", Wealth.VARIABLE),
    _preset("Bajorans", Wealth.POOR),
    _preset("Kazon", Wealth.POOR),
)})

# CAM 3.1 footnote 1's examples from other 'Verses (their wealth is the campaign's "best fit").
OTHER_VERSE_TEMPERS: Mapping[str, Temper] = MappingProxyType({
    "Galactic Empire": Temper.AGGRESSIVE,
    "Cylons": Temper.AGGRESSIVE,
    "Daleks": Temper.AGGRESSIVE,
    "Rebel Alliance": Temper.CAUTIOUS,
    "Children of Kobol": Temper.CAUTIOUS,
})


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


_PRESET_KEYS = {_key(name): faction for name, faction in PRESETS.items()}
_VERSE_KEYS = {_key(name): (name, temper) for name, temper in OTHER_VERSE_TEMPERS.items()}


def faction(name: str) -> Faction:
    """A preset Star Trek power by name (case and spacing ignored); raises ``FactionError``."""
    found = _PRESET_KEYS.get(_key(name or ""))
    if found is None:
        raise FactionError(
            f"{WEALTH_RULE}: {name!r} is not a power the rule book classes; use other_power(name, "
            f"wealth, temper) for a 'best fit' (known: {', '.join(PRESETS)})")
    return found


def other_power(name: str, wealth: Wealth | str, temper: Temper | str | None = None) -> Faction:
    """A power the rule book does not class: "Other powers — Best fit from above" (CAM 4.2).

    The campaign's moderator chooses the wealth class (ruling CAM4: there is no default). The
    temper defaults to footnote 1's for its named examples, else neutral. A preset power's name
    is refused: its classes are fixed by the rule book.
    """
    if not name or not name.strip():
        raise FactionError(f"{WEALTH_RULE}: a power needs a name")
    if _key(name) in _PRESET_KEYS:
        raise FactionError(f"{WEALTH_RULE}: {name!r} is classed by the rule book; use faction({name!r})")
    try:
        wealth = Wealth(wealth)
    except ValueError:
        raise FactionError(f"{WEALTH_RULE}: wealth must be one of {[w.value for w in Wealth]}, "
                           f"not {wealth!r}") from None
    if temper is None:
        temper = _VERSE_KEYS.get(_key(name), (name, Temper.NEUTRAL))[1]
    try:
        temper = Temper(temper)
    except ValueError:
        raise FactionError(f"{BREAK_RULE} footnote 1: temper must be one of {[t.value for t in Temper]}, "
                           f"not {temper!r}") from None
    return Faction(name=" ".join(name.split()), wealth=wealth, temper=temper)
