"""My Trek V's battle as frozen values (pure Python): ship designs, ships, the battle, actions.

A ``Design`` is what the "Assembling a Fleet" table prices (size, top Hyper speed, force field
type, weapon dice, the special weapons and abilities). A ``Ship`` is one on the grid: where it is
and faces, its hull, its three systems' factors (III = 3 … off-line = 0, 002 System Damage) and
this turn's Phase Zero orders. ``Battle`` is the whole table: the turn, the phase (0 = Phase
Zero), the step waiting for orders (``"zero"``, ``"move"``, ``"attack"``) and the secret orders
committed so far in it (``pending``), revealed together when every side has given them (ruling
MT17).
"""

from __future__ import annotations

from dataclasses import dataclass

from tactical.rules.kit import Event, IllegalActionError, evolve

from . import tables as T


@dataclass(frozen=True)
class Design:
    name: str
    size: str = "C"
    max_hyper: int = 5  # 0: sub-light only
    fields: int = 3  # force field type 0 (none) … 5 (V)
    dice: int = 4  # weapon dice at full power (the "Max. Damage" column)
    aft: bool = False
    invisibility: bool = False
    torpedoes: bool = False
    missiles: bool = False

    @property
    def top_speed(self) -> int:
        return T.FULL + self.max_hyper

    @property
    def hull(self) -> int:
        return T.HULL_POINTS[self.size]

    def points(self) -> int:
        return (
            T.size_points(self.size)
            + T.speed_points(self.max_hyper)
            + T.field_points(self.fields)
            + T.weapon_points(self.dice)
            + sum(T.SPECIALS[k] for k in T.SPECIALS if getattr(self, k))
        )


class DesignError(IllegalActionError):
    """A design the "Assembling a Fleet" table cannot price; ``problems`` maps each field at fault
    (``name``, ``size``, ``max_hyper``, ``fields``, ``dice``, a flag, or ``""`` for the whole design)
    to what is wrong with it, in the order of the design's fields."""

    def __init__(self, problems: dict[str, str]):
        self.problems = dict(problems)
        super().__init__(T.FLEET, "; ".join(f"{k}: {v}" if k else v for k, v in self.problems.items()))

    @property
    def field(self) -> str:
        return next(iter(self.problems), "")


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def design_problems(d: Design) -> dict[str, str]:
    """Every field of ``d`` the points table (002 Assembling a Fleet) cannot price, with the reason."""
    problems = {}
    name = d.name
    if not (isinstance(name, str) and name.strip() and len(name) <= 40 and name.isprintable()):
        problems["name"] = "a name is 1 to 40 printable characters"
    if d.size not in T.SIZES:
        problems["size"] = f"the size is one of {', '.join(T.SIZES)}"
    if not (_whole(d.max_hyper) and 0 <= d.max_hyper <= 10):
        problems["max_hyper"] = "the top speed is sub-light (0) or Hyper 1-10"
    if not (_whole(d.fields) and d.fields in T.FIELD_TYPES):
        problems["fields"] = "force fields are type 0 (none) to 5 (V)"
    if not (_whole(d.dice) and d.dice in T.WEAPON_DICE):
        problems["dice"] = f"weapons roll one of {', '.join(f'{n}d6' for n in sorted(T.WEAPON_DICE))}"
    for flag in T.SPECIALS:
        if not isinstance(getattr(d, flag), bool):
            problems[flag] = "yes or no (true or false)"
    return problems


def check_design(d: Design) -> Design:
    """Refuse a design the points table cannot price (002 Assembling a Fleet), every field named."""
    problems = design_problems(d)
    if problems:
        raise DesignError(problems)
    return d


@dataclass(frozen=True)
class Power:
    """Phase Zero's power points (002 Phase Zero 1)."""

    engines: int = 0
    fields: int = 0
    weapons: int = 0
    tractor: int = 0
    invisibility: int = 0

    @property
    def total(self) -> int:
        return self.engines + self.fields + self.weapons + self.tractor + self.invisibility


@dataclass(frozen=True)
class Ship:
    id: int
    side: int
    design: Design
    x: int
    y: int
    facing: int  # 0 N, 1 E, 2 S, 3 W
    hull: int
    name: str = ""
    engines: int = 3  # system factors: 3 = III … 0 = off-line
    fields: int = 3
    weapons: int = 3
    power: Power = Power()
    speed: int = 0
    destruct: bool = False
    invisible: bool = False
    held: bool = False  # in a tractor beam until the next Phase Zero (ruling MT8)
    torpedo_used: bool = False
    missile_used: bool = False
    removed: bool = False
    plot: str = ""  # an invisible ship's moves for the turn, one letter per move phase (ruling MT11)

    @property
    def pos(self) -> tuple[int, int]:
        return (self.x, self.y)

    @property
    def alive(self) -> bool:
        return self.hull > 0 and not self.removed

    def factor(self, system: str) -> int:
        return getattr(self, system)

    def energy(self, system: str) -> int:
        """Power in a system now: what Phase Zero gave it, capped by its factor (002 System Damage)."""
        return min(getattr(self.power, system), self.factor(system))

    @property
    def field_value(self) -> int:
        """The force field's value (ruling MT5): its type times the power in it."""
        return self.design.fields * self.energy("fields")

    @property
    def label(self) -> str:
        return f"{self.name or 'Ship'} ({self.id})"


@dataclass(frozen=True)
class Battle:
    ships: tuple[Ship, ...]
    width: int = 24
    height: int = 16
    turn: int = 1
    phase: int = 0
    step: str = "zero"
    pending: tuple = ()  # the orders committed in this step: (ship id, action), secret until revealed
    turn_cap: int = 10
    over: bool = False
    winner: int | None = None
    sides: tuple[int, ...] = (1, 2)
    log: tuple[Event, ...] = ()

    # ``engine.acting_sides`` keeps its answer in the instance dict; a copy that changes any of
    # these fields drops it (``kit.evolve``).
    _cached_from = {name: ("_acting",) for name in ("ships", "step", "phase", "pending", "over", "sides")}

    def ship(self, ship_id: int) -> Ship | None:
        return next((s for s in self.ships if s.id == ship_id), None)

    def ordered(self) -> frozenset[int]:
        return frozenset(sid for sid, _ in self.pending)

    def replace_ships(self, changed: dict[int, Ship]) -> Battle:
        return evolve(self, ships=tuple(changed.get(s.id, s) for s in self.ships))


# --- the actions (one per ship and step) ------------------------------------------------------


@dataclass(frozen=True)
class Orders:
    """Phase Zero's written orders for one ship (002 Phase Zero 1-3)."""

    ship: int
    engines: int = 0
    fields: int = 0
    weapons: int = 0
    tractor: int = 0
    invisibility: int = 0
    speed: int = 0
    destruct: bool = False
    repair: str = ""  # "", "engines", "fields" or "weapons" (002 System Damage)
    plot: str = ""  # with the invisibility device on: its moves this turn, F/L/R/H each (ruling MT11)

    @property
    def power(self) -> Power:
        return Power(self.engines, self.fields, self.weapons, self.tractor, self.invisibility)


@dataclass(frozen=True)
class Move:
    """A move phase: ``F`` one space forward, ``L``/``R`` a 90° turn, ``H`` hold (002 Combat Phases)."""

    ship: int
    how: str = "F"


@dataclass(frozen=True)
class Attack:
    """An attack phase: ``weapon`` (``beams``, ``torpedo``, ``missile``, ``tractor``) at ``target``
    (0: no attack), at a ``system`` or the ship as a whole (``""``)."""

    ship: int
    target: int = 0
    weapon: str = "beams"
    system: str = ""


MOVES = ("F", "L", "R", "H")
WEAPONS = ("beams", "torpedo", "missile", "tractor")
