"""Fleets by points (002 Assembling a Fleet): the ship designer's price, the site's house roster,
random fleets for the benches, and the battle set up from two fleets (pure Python).

The set-up JSON ``{"sides": {"1": [design, …], "2": […]}, "width": 24, "height": 16}`` (a side may
also be ``{"name", "colour", "ships": [design, …]}``, as the site stores it), a design as
``design_json`` or a house roster name. Side 1 lines up along the left edge facing east, side 2
along the right edge facing west, two rows apart (ruling MT13).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tactical.rules.kit import IllegalActionError

from . import tables as T
from .state import Battle, Design, DesignError, Ship, check_design

MAX_SHIPS = 6  # ruling MT19
FLEET_POINTS = 400

# The site's house roster (not in the book: ruling MT19). Points from the table.
ROSTER: dict[str, Design] = {
    d.name: d
    for d in (
        Design("Dreadnought", "A", 10, 5, 5, torpedoes=True, aft=True),  # the book's 400-point example
        Design("Battlecruiser", "B", 8, 4, 5, torpedoes=True),
        Design("Raider", "B", 7, 3, 4, invisibility=True),
        Design("Cruiser", "C", 6, 3, 4, missiles=True),
        Design("Frigate", "D", 4, 2, 3, aft=True),
        Design("Scout", "E", 2, 1, 2, missiles=True),
        Design("Shuttle", "F", 0, 0, 1),
    )
}


def design_json(d: Design) -> dict[str, Any]:
    return {
        "name": d.name,
        "size": d.size,
        "max_hyper": d.max_hyper,
        "fields": d.fields,
        "dice": d.dice,
        "aft": d.aft,
        "invisibility": d.invisibility,
        "torpedoes": d.torpedoes,
        "missiles": d.missiles,
    }


DESIGN_FIELDS = (
    "name",
    "size",
    "max_hyper",
    "fields",
    "dice",
    "aft",
    "invisibility",
    "torpedoes",
    "missiles",
)


def design_from(data: Any) -> Design:
    """A design from its JSON (``design_json``) or a house roster name, checked field by field
    (``DesignError`` names every field at fault: the designer page shows each at its field)."""
    if isinstance(data, str):
        if data not in ROSTER:
            raise IllegalActionError(T.FLEET, f"no design {data[:40]!r} in the roster")
        return ROSTER[data]
    if not isinstance(data, Mapping):
        raise DesignError({"": "a design is a name or an object of its fields"})
    unknown = sorted(str(k)[:20] for k in set(data) - set(DESIGN_FIELDS))
    if unknown:
        raise DesignError(
            {unknown[0]: f"a design has no field(s) {unknown} (its fields: {', '.join(DESIGN_FIELDS)})"}
        )
    defaults = {"name": "Ship", "size": "", "max_hyper": -1, "fields": -1, "dice": -1}
    given = {k: data.get(k, defaults.get(k, False)) for k in DESIGN_FIELDS}
    return check_design(Design(**given))


def fleet_points(designs) -> int:
    return sum(d.points() for d in designs)


def check_fleet(designs, points: int = FLEET_POINTS) -> None:
    if not designs:
        raise IllegalActionError(T.FLEET, "a fleet needs at least one ship")
    if len(designs) > MAX_SHIPS:
        raise IllegalActionError(f"{T.FLEET} (ruling MT19)", f"a fleet has at most {MAX_SHIPS} ships")
    total = fleet_points(designs)
    if total > points:
        raise IllegalActionError(T.FLEET, f"the fleet costs {total} points, more than {points}")


def random_design(rng, budget: int) -> Design | None:
    """A design drawn with ``rng`` costing at most ``budget`` (None when nothing fits)."""
    for _ in range(40):
        d = Design(
            "Ship",
            rng.choice(T.SIZES),
            rng.choice(range(0, 11)),
            rng.choice(T.FIELD_TYPES),
            rng.choice(T.WEAPON_DICE),
            rng.random() < 0.2,
            rng.random() < 0.2,
            rng.random() < 0.2,
            rng.random() < 0.2,
        )
        if d.size == "F" and d.max_hyper:
            continue
        if d.points() <= budget:
            return d
    return None


def random_fleet(rng, points: int = FLEET_POINTS) -> list[Design]:
    """Random designs spending at most ``points`` (at least one ship; at most ``MAX_SHIPS``)."""
    out: list[Design] = []
    left = points
    while len(out) < MAX_SHIPS:
        d = random_design(rng, left if out else min(left, points))
        if d is None or (out and rng.random() < 0.25):
            break
        out.append(Design(f"{d.size}-{len(out) + 1}", *list(design_json(d).values())[1:]))
        left -= d.points()
    return out or [ROSTER["Shuttle"]]


def _carried(ship: Ship, entry: Mapping[str, Any]) -> Ship:
    """A converted ship's carried state (issue 31, rulings XC31…): ``{"design", "name", "hull",
    "engines", "fields", "weapons"}``: its hull left and its systems' factors (002 System Damage)."""
    from dataclasses import replace

    def whole(key: str, top: int, default: int) -> int:
        try:
            return max(0, min(top, int(entry.get(key, default))))
        except (TypeError, ValueError):
            raise IllegalActionError(T.FLEET, f"a ship's {key} is a whole number") from None

    top = T.MAX_PER_SYSTEM
    return replace(
        ship,
        hull=max(1, whole("hull", ship.hull, ship.hull)),
        name=str(entry.get("name") or ship.name)[:40],
        engines=whole("engines", top, top),
        fields=whole("fields", top, top),
        weapons=whole("weapons", top, top),
    )


def new_battle(setup: Mapping[str, Any]) -> Battle:
    """The battle from its set-up JSON; raises ``IllegalActionError`` for a bad one."""
    width, height = int(setup.get("width", 24)), int(setup.get("height", 16))
    sides = setup.get("sides")
    if not isinstance(sides, Mapping) or not sides:
        raise IllegalActionError(T.FLEET, "a set-up names each side's fleet")
    ships, n = [], 0
    order = sorted(int(k) for k in sides)
    for i, side in enumerate(order):
        given = sides[str(side)]
        if isinstance(given, Mapping):  # the site's form: {"name", "colour", "ships": [...]}
            given = given.get("ships") or []
        if not isinstance(given, list):
            raise IllegalActionError(T.FLEET, "a fleet is a list of designs")
        converted = bool(setup.get("converted"))
        fleet = [design_from(d["design"] if converted and isinstance(d, Mapping) and "design" in d else d)
                 for d in given]
        cap = max(MAX_SHIPS, int(setup.get("max_ships", MAX_SHIPS))) if converted else MAX_SHIPS
        if len(fleet) > cap:
            raise IllegalActionError(f"{T.FLEET} (ruling MT19)", f"a fleet has at most {MAX_SHIPS} ships")
        x, facing = (1, 1) if i % 2 == 0 else (width - 2, 3)
        top = (height - 2 * (len(fleet) - 1)) // 2
        for j, d in enumerate(fleet):
            n += 1
            ship = Ship(n, side, d, x, min(height - 1, max(0, top + 2 * j)), facing, d.hull, name=d.name)
            if converted and isinstance(given[j], Mapping) and "design" in given[j]:
                ship = _carried(ship, given[j])
            ships.append(ship)
    return Battle(
        tuple(ships), width=width, height=height, sides=tuple(order), turn_cap=int(setup.get("turn_cap", 10))
    )
