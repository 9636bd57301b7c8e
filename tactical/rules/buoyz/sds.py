"""Ship Descriptions for the tactical engine: ONE source with the CAM catalogue (pure Python).

The SDs printed in rule book ``seeds/000_…`` 1.5 and 1.6 (the runabout counter) are data in
``campaign.rules.cam.ships`` (``STARTER_CATALOGUE``), with T'Corr's limits enforced by
``validate_sd`` for custom SDs. The engine reads those very values; this module only reads an
SD's weapon lines the way 1.2, 5.1 and 5.9 classify them (rulings BZ6, BZ7).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from campaign.rules.cam.ships import (
    SD,
    STARTER_CATALOGUE,
    SDError,
    ShipClass,
    Weapon,
    make_catalogue,
    validate_sd,
)

from .geometry import AFT, ARCS, FORE, PORT, STARBOARD

MAIN, SECONDARY, CLOSE_DEFENCE = "main", "secondary", "close_defence"

# Ranges (5.3 "MAIN WEAPONS: 6\" SECONDARY WEAPONS: 3\""; 5.9 torpedoes 6", plasma 8", rockets 2";
# 8.5 close defence 2").
MAIN_RANGE, SECONDARY_RANGE, CLOSE_DEFENCE_RANGE = 6, 3, 2
TORPEDO_RANGE = {"photon": 6, "disruptor": 6, "drone": 6, "plasma": 8, "rocket": 2}
INTERCEPTABLE = frozenset({"drone", "plasma", "rocket"})  # 5.9 'Aegis': drones, rockets, plasma
GUIDED = frozenset({"drone", "plasma"})  # 5.9 "+1 for Plasma torpedoes and Drones"

# 7.3: abilities marked * are negative and never lost (5.7 (3), 5.8 (6)).
NEGATIVE_ABILITIES = frozenset({"1 shot only", "one-shot", "swwobs"})


@dataclass(frozen=True)
class WeaponSystem:
    """One weapon system of an SD, as the engine fires it. ``key`` names it in a Fire action:
    ``main0``, ``main1``, … in SD order, or ``secondary``. ``torpedo`` is the 5.9 kind (``""``
    for a beam); ``arcs`` the Template 1 quadrants it reaches."""

    key: str
    name: str
    dice: int
    group: str
    arcs: frozenset[str]
    torpedo: str = ""
    banks: tuple[tuple[str, int], ...] = ()  # 5.4: banks per arc when the line splits them (ruling BZ81)

    def bearing_share(self, target_arcs: frozenset[str]) -> tuple[int, int]:
        """5.4: (banks bearing on a target in ``target_arcs``, all banks); (1, 1) unsplit."""
        if not self.banks:
            return (1, 1)
        return (sum(n for arc, n in self.banks if arc in target_arcs), sum(n for _arc, n in self.banks))

    @property
    def range(self) -> int:
        if self.torpedo:
            return TORPEDO_RANGE[self.torpedo]
        return MAIN_RANGE if self.group == MAIN else SECONDARY_RANGE


def torpedo_kind(name: str) -> str:
    """Ruling BZ6: a weapon line naming a 'Torp' is a torpedo (5.1 "We lump Drones …, Plasma
    Torpedoes, Disrupter Torpedoes and Photon/Proton Torpedoes together as 'Torps'")."""
    low = name.lower()
    if "torp" not in low and "drone" not in low and "rocket" not in low:
        return ""
    for kind in ("drone", "plasma", "rocket", "disrupt"):
        if kind in low:
            return "disruptor" if kind == "disrupt" else kind
    return "photon"


_BANK = re.compile(r"(\d+)\s*(fwd|fore|f|aft|a|port|p|starboard|stbd|s)\b", re.IGNORECASE)
_BANK_ARC = {"fwd": FORE, "fore": FORE, "f": FORE, "aft": AFT, "a": AFT, "port": PORT, "p": PORT,
             "starboard": STARBOARD, "stbd": STARBOARD, "s": STARBOARD}


def weapon_banks(weapon: Weapon) -> tuple[tuple[str, int], ...]:
    """Ruling BZ81 (5.4): a weapon line whose arc gives banks per arc ("2 Fwd, 2 Aft", "2F/1A")
    splits its dice between those arcs; none of the book's SDs does."""
    banks: dict[str, int] = {}
    for count, arc in _BANK.findall(weapon.arc):
        key = _BANK_ARC[arc.lower()]
        banks[key] = banks.get(key, 0) + int(count)
    return tuple((a, banks[a]) for a in ARCS if banks.get(a)) if len(banks) >= 1 and sum(banks.values()) else ()


def weapon_arcs(weapon: Weapon, torpedo: str) -> frozenset[str]:
    """Ruling BZ7 (1.2): "Fwd"/"Fore" → the fore arc; "Aft" → the aft arc; no arc stated → 360°
    for a beam, fore and aft for a torpedo ("Torpedoes – Fore and/or Aft (generally)")."""
    low = weapon.arc.lower()
    if "fwd" in low or "fore" in low:
        return frozenset({FORE})
    if "aft" in low:
        return frozenset({AFT})
    return frozenset({FORE, AFT}) if torpedo else frozenset(ARCS)


_SYSTEMS_BY_ID: dict[int, tuple[SD, tuple[WeaponSystem, ...]]] = {}


def weapon_systems(sd: SD) -> tuple[WeaponSystem, ...]:
    """The main weapon lines in SD order, then the secondary battery (360°, 5.1). Worked out
    once for each SD value, found again by identity (hashing a whole SD costs more than the
    lookup saves) and else by value."""
    hit = _SYSTEMS_BY_ID.get(id(sd))
    if hit is not None and hit[0] is sd:
        return hit[1]
    out = _weapon_systems(sd)
    if len(_SYSTEMS_BY_ID) > 4096:
        _SYSTEMS_BY_ID.clear()
    _SYSTEMS_BY_ID[id(sd)] = (sd, out)  # the SD is kept alive with it, so its id is not reused
    return out


@lru_cache(maxsize=1024)
def _weapon_systems(sd: SD) -> tuple[WeaponSystem, ...]:
    out = []
    for i, w in enumerate(sd.main):
        kind = torpedo_kind(w.name)
        banks = weapon_banks(w)
        arcs = frozenset(a for a, _n in banks) if banks else weapon_arcs(w, kind)
        out.append(WeaponSystem(f"main{i}", w.name, w.count, MAIN, arcs, kind, banks))
    if sd.secondary:
        out.append(WeaponSystem(SECONDARY, "Secondary", sd.secondary, SECONDARY, frozenset(ARCS)))
    return tuple(out)


def has(sd_abilities: tuple[str, ...], name: str) -> bool:
    try:
        return _has(sd_abilities, name)
    except TypeError:  # a list of abilities rather than a tuple: not cached
        return _has.__wrapped__(sd_abilities, name)


@lru_cache(maxsize=4096)
def _has(sd_abilities: tuple[str, ...], name: str) -> bool:
    low = name.lower()
    return any(a.lower() == low for a in sd_abilities)


def one_shot(abilities: tuple[str, ...]) -> bool:
    return has(abilities, "1 shot only") or has(abilities, "one-shot")


CATALOGUE = STARTER_CATALOGUE


def random_fleet(rng, period: int, points: int) -> list[SD]:
    """A random CAM-legal fleet (CAM 2.2): SDs of the Period picked by ``rng`` (a
    ``random.Random`` the caller seeds: tests and benchmarks, never a game's dice) until no further
    SD fits within ``points``."""
    pool = [sd for sd in CATALOGUE.values() if sd.available_in(period)]
    out, total = [], 0
    while True:
        fits = [sd for sd in pool if total + sd.points <= points]
        if not fits:
            return out
        sd = rng.choice(fits)
        out.append(sd)
        total += sd.points

__all__ = ["CATALOGUE", "CLOSE_DEFENCE", "MAIN", "SECONDARY", "SD", "SDError", "ShipClass", "Weapon",
           "WeaponSystem", "make_catalogue", "random_fleet", "validate_sd", "weapon_systems", "torpedo_kind"]
