"""Setting up a CAM scenario (pure Python): CAM 2.1 nature, CAM 2.2 points and force selection,
CAM 2.3 the gaming table, the table edges and the 'Break Contact' points level.

Rule book ``seeds/000_…`` appendix "Campaign Supplement"; ``RULINGS.md`` "CAM campaign supplement"
(the +2 table roll for a planetary dispute: 7 = terrestrial planet, 8 = gas giant); further
rulings in ``docs/rulings.md`` ("CAM campaign layer", ids CAM…).

Steps, each one entry point:

* ``generate_scenario(campaign, dice)`` — CAM 2.1 nature roll (or a nature chosen beforehand,
  CAM 4.1), the points level (CAM 2.2) and, for a planetary dispute or convoy, who defends;
* ``roll_extra_cost(kind, dice)`` — the rolled price of a Planetary Battery / Base or Minefield;
* ``validate_forces(campaign, scenario, selection)`` / ``select_forces(...)`` — CAM 2.2;
* ``set_up_table(campaign, scenario, dice)`` — CAM 2.3 table nature(s), edges, BC levels.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from types import MappingProxyType

from campaign.rules.dice import Dice, Roll

from .ships import (
    BASE_COST_DICE,
    CARRIERS,
    CL_OR_SMALLER,
    EXTRA_AC_POINTS,
    MINEFIELD_COST_DICE,
    ShipClass,
)
from .state import CamCampaign, Event, ShipStatus, percent_of

NATURE_RULE = "000 CAM 2.1 Establish Time Period And Nature"
POINTS_RULE = "000 CAM 2.2 Scenario Point Level"
TABLE_RULE = "000 CAM 2.3 Establishing The General Nature Of The Gaming Table"
DEFENDER_RULING = "000 CAM 2.1 (ruling CAM6: who defends)"
EDGE_PURPOSE = f"{TABLE_RULE}: table edges"
MOONS_PURPOSE = f"{TABLE_RULE}: gas giant moons (1 XD6+1)"
MAX_ROLL_OFFS = 1000


class Nature(str, Enum):
    PLANETARY_DISPUTE = "planetary_dispute"
    OPEN_BATTLE = "open_battle"
    CONVOY = "convoy"


# CAM 2.1: "1-2 Planetary Dispute, 3-5 Open Battle, 6 Convoy Battle"
NATURE_TABLE: Mapping[int, Nature] = MappingProxyType({
    1: Nature.PLANETARY_DISPUTE, 2: Nature.PLANETARY_DISPUTE,
    3: Nature.OPEN_BATTLE, 4: Nature.OPEN_BATTLE, 5: Nature.OPEN_BATTLE,
    6: Nature.CONVOY,
})
NEEDS_DEFENDER = frozenset({Nature.PLANETARY_DISPUTE, Nature.CONVOY})


class TableNature(str, Enum):
    OPEN_SPACE = "open_space"
    TERRESTRIAL_PLANET = "terrestrial_planet"
    GAS_GIANT = "gas_giant"
    NEBULAE = "nebulae"


# CAM 2.3: "1, 2 open space; 3, 4 one 'terrestrial' type planet; 5 one gas giant with 1 XD6+1
# moons; 6 two nebula clouds of 12" square". "Add 2 … if … 'planetary dispute'": RULINGS.md reads
# 7 as a terrestrial planet and 8 as a gas giant.
TABLE_NATURE: Mapping[int, TableNature] = MappingProxyType({
    1: TableNature.OPEN_SPACE, 2: TableNature.OPEN_SPACE,
    3: TableNature.TERRESTRIAL_PLANET, 4: TableNature.TERRESTRIAL_PLANET,
    5: TableNature.GAS_GIANT,
    6: TableNature.NEBULAE,
    7: TableNature.TERRESTRIAL_PLANET,
    8: TableNature.GAS_GIANT,
})
PLANETARY_DISPUTE_TABLE_BONUS = 2
NEBULA_CLOUDS = 2

EDGES = ("north", "east", "south", "west")
OPPOSITE = MappingProxyType({"north": "south", "south": "north", "east": "west", "west": "east"})
DEFAULT_EDGE = "south"  # ruling CAM8: the roll-off winner's standing choice when none is given


class ScenarioError(ValueError):
    """A scenario step asked for out of order or with bad input; names the CAM section."""


class ForceSelectionError(ValueError):
    """A force that CAM 2.2 (or the campaign's roster) does not allow. ``reason`` is a short code
    (``over_points``, ``convoy_merchants``, ``convoy_capital``, ``convoy_light``, ``destroyed``,
    ``unavailable``, ``crippled``, ``wrong_period``, ``unknown_ship``, ``duplicate_ship``,
    ``empty``, ``bad_extra``, ``ac_without_carrier``, ``locked``); the message names the rule."""

    def __init__(self, reason: str, message: str):
        self.reason = reason
        super().__init__(message)


@dataclass(frozen=True)
class ForceSelection:
    """What a player brings to a scenario: roster ship ids, extra AC counters, and the rolled
    prices of any Planetary Batteries / Bases and Minefields (``roll_extra_cost``)."""

    seat: int
    ships: tuple[int, ...] = ()
    extra_ac: int = 0
    bases: tuple[int, ...] = ()
    minefields: tuple[int, ...] = ()
    # CAM 2.3 "If a player has forces or bases already on the main table, he merely rolls 1 D6":
    # the player says his force is already there (ruling CAM33); a base counts by itself.
    on_table: bool = False


@dataclass(frozen=True)
class Unit:
    """One priced item of a force. ``uid`` is ``ship:<roster id>``, ``ac:<n>``, ``base:<n>`` or
    ``minefield:<n>``. ``ship_class`` is None for AC counters, bases and minefields."""

    uid: str
    kind: str  # "ship" | "ac" | "base" | "minefield"
    points: int
    name: str
    ship_class: ShipClass | None = None
    ship_id: int | None = None
    size_class_0: bool = False
    can_cripple: bool = False  # 5.7: a ship whose SD has a Crippled figure (patrol craft never are)

    @property
    def capital(self) -> bool:
        return self.ship_class is not None and self.ship_class in (ShipClass.BB, ShipClass.CV, ShipClass.BC)

    @property
    def carrier(self) -> bool:
        return self.ship_class in CARRIERS

    @property
    def cl_or_smaller(self) -> bool:
        """CAM 2.2 convoy: "CL or smaller" — ships of those classes and extra AC counters."""
        return self.kind == "ac" or (self.ship_class is not None and self.ship_class in CL_OR_SMALLER)


@dataclass(frozen=True)
class Force:
    seat: int
    units: tuple[Unit, ...]
    on_table: bool = False  # declared "already on the main table" (CAM 2.3, ruling CAM33)

    @property
    def already_on_table(self) -> bool:
        """CAM 2.3 "forces or bases already on the main table": declared, or a Planetary
        Battery / Base in the force (ruling CAM8)."""
        return self.on_table or any(u.kind == "base" for u in self.units)

    @property
    def points(self) -> int:
        return sum(u.points for u in self.units)

    def points_where(self, test) -> int:
        return sum(u.points for u in self.units if test(u))

    def unit(self, uid: str) -> Unit:
        for u in self.units:
            if u.uid == uid:
                return u
        raise KeyError(uid)


@dataclass(frozen=True)
class Table:
    """One gaming table (CAM 2.3): the die face, the score after the +2, and what it holds."""

    roll: int
    score: int
    nature: TableNature
    moons: int | None = None
    nebula_clouds: int = 0


@dataclass(frozen=True)
class Scenario:
    number: int
    nature: Nature
    points_level: int
    break_percent: int
    seats: tuple[int, int]
    defender: int | None = None
    nature_roll: int | None = None  # None when the nature was chosen beforehand (CAM 4.1)
    forces: Mapping[int, Force] = field(default_factory=dict)
    tables: tuple[Table, ...] = ()
    edges: Mapping[int, str] = field(default_factory=dict)
    edge_rolls: tuple[Mapping[int, int], ...] = ()
    break_levels: Mapping[int, int] = field(default_factory=dict)

    @property
    def attacker(self) -> int | None:
        if self.defender is None:
            return None
        return self.seats[1] if self.defender == self.seats[0] else self.seats[0]

    @property
    def table_set(self) -> bool:
        return bool(self.tables)


@dataclass(frozen=True)
class SetupResult:
    scenario: Scenario
    events: tuple[Event, ...]


# --- CAM 2.1 -----------------------------------------------------------------------------------

def roll_nature(dice: Dice) -> tuple[int, Nature]:
    """CAM 2.1: one d6 on the nature table."""
    face = dice.roll(1, 6, NATURE_RULE).faces[0]
    return face, NATURE_TABLE[face]


def _roll_off(dice: Dice, seats: tuple[int, int], purpose: str, counts: Mapping[int, int] | None = None
              ) -> tuple[int, list[dict[int, int]]]:
    """Each seat rolls (``counts`` d6, default 1) in seat order; the higher total wins; a tie
    re-rolls both (ruling CAM7). Returns the winner and every round's totals."""
    rounds: list[dict[int, int]] = []
    for _ in range(MAX_ROLL_OFFS):
        totals = {seat: dice.roll((counts or {}).get(seat, 1), 6, purpose).total for seat in seats}
        rounds.append(totals)
        a, b = seats
        if totals[a] != totals[b]:
            return (a if totals[a] > totals[b] else b), rounds
    raise RuntimeError(f"{purpose}: {MAX_ROLL_OFFS} tied roll-offs; the dice cannot be fair")


def generate_scenario(campaign: CamCampaign, dice: Dice, *, nature: Nature | str | None = None,
                      defender: int | None = None) -> SetupResult:
    """The next scenario of ``campaign``: CAM 2.1 nature (rolled unless chosen beforehand, CAM
    4.1), CAM 2.2 points level, the campaign's break percentage (CAM 2.3), and — for a planetary
    dispute or convoy — the defender (given, or a d6 roll-off: ruling CAM6)."""
    if campaign.finished:
        raise ScenarioError(f"000 CAM 4.1: all {campaign.settings.scenarios} scenarios have been played")
    if campaign.awaiting_replacements:
        raise ScenarioError(f"000 CAM 4.2: make the between-scenarios step for scenario "
                            f"{campaign.scenarios_played} first (\"Roll for all after each separate Scenario\")")
    seats = campaign.seats
    if defender is not None and defender not in seats:
        raise ScenarioError(f"{DEFENDER_RULING}: seat {defender!r} is not in this campaign")
    events: list[Event] = []
    number = campaign.scenarios_played + 1
    if nature is None:
        face, chosen = roll_nature(dice)
        events.append(Event("scenario", "nature", seats, f"Scenario {number}: nature roll {face}: "
                            f"{chosen.value.replace('_', ' ')} ({NATURE_RULE}).",
                            {"scenario": number, "roll": face, "nature": chosen.value}))
    else:
        try:
            chosen = Nature(nature)
        except ValueError:
            raise ScenarioError(f"{NATURE_RULE}: unknown nature {nature!r}; one of "
                                f"{[n.value for n in Nature]}") from None
        face = None
        events.append(Event("scenario", "nature", seats, f"Scenario {number}: {chosen.value.replace('_', ' ')}, "
                            "chosen beforehand (000 CAM 4.1).", {"scenario": number, "roll": None,
                                                                 "nature": chosen.value}))
    if chosen in NEEDS_DEFENDER:
        if defender is None:
            defender, rounds = _roll_off(dice, seats, DEFENDER_RULING)
            events.append(Event("scenario", "defender", seats, f"Seat {defender} defends after a d6 roll-off "
                                f"({DEFENDER_RULING}).", {"defender": defender,
                                                          "rolls": [dict(r) for r in rounds]}))
        else:
            events.append(Event("scenario", "defender", seats, f"Seat {defender} defends (agreed).",
                                {"defender": defender, "rolls": []}))
    else:
        defender = None
    scenario = Scenario(number=number, nature=chosen, points_level=campaign.settings.points_level,
                        break_percent=campaign.settings.break_percent, seats=seats, defender=defender,
                        nature_roll=face)
    return SetupResult(scenario, tuple(events))


# --- CAM 2.2 -----------------------------------------------------------------------------------

def roll_extra_cost(kind: str, dice: Dice) -> int:
    """The price of one Planetary Battery / Base (1D6 + 5) or Minefield 12" square (1 XD6),
    rolled once when the player adds it (ruling CAM9); the selection then carries the price."""
    if kind == "base":
        count, sides, plus = BASE_COST_DICE
        purpose = f"{POINTS_RULE}: Planetary Battery / Base cost (1D6 + 5)"
    elif kind == "minefield":
        count, sides, plus = MINEFIELD_COST_DICE
        purpose = f"{POINTS_RULE}: Minefield 12\" square cost (1 XD6)"
    else:
        raise ScenarioError(f"{POINTS_RULE}: only a 'base' or a 'minefield' has a rolled cost, not {kind!r}")
    return dice.roll(count, sides, purpose).total + plus


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate_forces(campaign: CamCampaign, scenario: Scenario, selection: ForceSelection) -> Force:
    """Price ``selection`` by CAM 2.2 and check it; returns the ``Force`` or raises
    ``ForceSelectionError`` naming the reason. Checks: the seat plays; every ship is the player's,
    listed once, ready (not destroyed, unavailable or waiting for repair) and available in the
    campaign's Period (1.5); rolled prices in range; extra AC counters only with a unit that
    carries AC (ruling CAM10); the total within the points level; for a convoy battle the
    defender's and attacker's proportions (ruling CAM11: by points of the force selected)."""
    seat = selection.seat
    if seat not in scenario.seats:
        raise ForceSelectionError("unknown_seat", f"{POINTS_RULE}: seat {seat!r} is not in scenario {scenario.number}")
    player = campaign.player(seat)
    units: list[Unit] = []
    seen: set[int] = set()
    for ship_id in selection.ships:
        ship = player.ship(ship_id) if _whole(ship_id) else None
        if ship is None:
            raise ForceSelectionError("unknown_ship", f"{POINTS_RULE}: {player.name} has no ship {ship_id!r}")
        if ship_id in seen:
            raise ForceSelectionError("duplicate_ship", f"{POINTS_RULE}: ship {ship_id} ({ship.name}) is listed twice")
        seen.add(ship_id)
        if ship.status is ShipStatus.DESTROYED:
            raise ForceSelectionError("destroyed", f"000 CAM 4.2: {ship.name} (ship {ship_id}) was destroyed"
                                      f"{f' in scenario {ship.destroyed_in}' if ship.destroyed_in else ''}")
        if ship.status is ShipStatus.UNAVAILABLE:
            raise ForceSelectionError("unavailable", f"000 CAM 4.2: {ship.name} (ship {ship_id}) is unavailable: "
                                      "it failed its repair roll")
        if ship.status is ShipStatus.CRIPPLED:
            raise ForceSelectionError("crippled", f"000 CAM 4.2: {ship.name} (ship {ship_id}) is crippled and "
                                      "has not yet rolled for repair")
        sd = campaign.sd_of(ship)
        if not sd.available_in(campaign.settings.period):
            raise ForceSelectionError(
                "wrong_period", f"000 1.5 / CAM 2.1: {ship.name} ({sd.name}) is available in periods "
                f"{sd.periods[0]}-{sd.periods[1]}, not in the campaign's Period {campaign.settings.period}")
        units.append(Unit(uid=f"ship:{ship_id}", kind="ship", points=sd.points, name=ship.name,
                          ship_class=sd.ship_class, ship_id=ship_id, size_class_0=sd.size_class_0,
                          can_cripple=sd.crippled_at > 0))
    if not _whole(selection.extra_ac) or selection.extra_ac < 0:
        raise ForceSelectionError("bad_extra", f"{POINTS_RULE}: extra AC counters must be a whole number "
                                  f"0 or more, not {selection.extra_ac!r}")
    for kind, costs, (count, sides, plus) in (("base", selection.bases, BASE_COST_DICE),
                                               ("minefield", selection.minefields, MINEFIELD_COST_DICE)):
        for i, cost in enumerate(costs, start=1):
            low, high = count + plus, count * sides + plus
            if not _whole(cost) or not low <= cost <= high:
                raise ForceSelectionError("bad_extra", f"{POINTS_RULE}: a {kind}'s rolled cost is {low} to "
                                          f"{high}, not {cost!r}")
            units.append(Unit(uid=f"{kind}:{i}", kind=kind, points=cost,
                              name="Planetary Battery / Base" if kind == "base" else 'Minefield 12" square'))
    if selection.extra_ac:
        carries_ac = selection.bases or any(
            campaign.sd_of(player.ship(u.ship_id)).ac + campaign.sd_of(player.ship(u.ship_id)).ac_capacity > 0
            for u in units if u.kind == "ship")
        if not carries_ac:
            raise ForceSelectionError("ac_without_carrier", f"{POINTS_RULE} (ruling CAM10): extra AC counters need "
                                      "a selected ship that carries AC or a Planetary Base")
        for i in range(1, selection.extra_ac + 1):
            units.append(Unit(uid=f"ac:{i}", kind="ac", points=EXTRA_AC_POINTS, name="extra AC counter"))
    if not isinstance(selection.on_table, bool):
        raise ForceSelectionError("bad_extra", f"{TABLE_RULE}: 'already on the table' is true or false, "
                                  f"not {selection.on_table!r}")
    force = Force(seat=seat, units=tuple(units), on_table=selection.on_table)
    if not any(u.kind == "ship" for u in units):
        raise ForceSelectionError("empty", f"{POINTS_RULE}: a force needs at least one ship")
    if force.points > scenario.points_level:
        raise ForceSelectionError(
            "over_points", f"{POINTS_RULE}: {player.name}'s force costs {force.points} points, over the "
            f"scenario's {scenario.points_level} by {force.points - scenario.points_level}")
    if scenario.nature is Nature.CONVOY:
        _check_convoy(force, seat == scenario.defender, player.name)
    return force


def _check_convoy(force: Force, defending: bool, name: str) -> None:
    total = force.points
    capital = force.points_where(lambda u: u.capital)
    if 5 * capital > total:  # "no more than 20% capital ships" (both sides)
        raise ForceSelectionError(
            "convoy_capital", f"{POINTS_RULE} convoy: {name}'s capital ships cost {capital} of {total} points, "
            f"more than 20%")
    if defending:
        merchants = force.points_where(lambda u: u.ship_class is ShipClass.TP)
        if 10 * merchants < total:  # "at least 10% of the defender's points must be merchant ships"
            raise ForceSelectionError(
                "convoy_merchants", f"{POINTS_RULE} convoy: the defender {name}'s merchant ships cost "
                f"{merchants} of {total} points, less than 10%")
    else:
        light = force.points_where(lambda u: u.cl_or_smaller)
        if 10 * light < 8 * total:  # "at least 80% of the attacker's fleet must be CL or smaller"
            raise ForceSelectionError(
                "convoy_light", f"{POINTS_RULE} convoy: the attacker {name}'s CL-or-smaller ships cost {light} "
                f"of {total} points, less than 80%")


def select_forces(campaign: CamCampaign, scenario: Scenario, selection: ForceSelection) -> Scenario:
    """``scenario`` with ``selection``'s force (replacing an earlier one of the same seat) and its
    'Break Contact' points level. Forces are locked once the table is set up."""
    if scenario.table_set:
        raise ForceSelectionError("locked", f"{TABLE_RULE}: forces are chosen before the table is rolled "
                                  "(\"Having already selected your period and fleet\")")
    if scenario.number != campaign.scenarios_played + 1:
        raise ScenarioError(f"000 CAM 4.1: scenario {scenario.number} is not the campaign's next scenario")
    force = validate_forces(campaign, scenario, selection)
    forces = dict(scenario.forces)
    forces[selection.seat] = force
    levels = dict(scenario.break_levels)
    levels[selection.seat] = break_level(force.points, scenario.break_percent)
    return replace(scenario, forces=MappingProxyType(forces), break_levels=MappingProxyType(levels))


def break_level(force_points: int, percent: int) -> int:
    """CAM 2.3: the 'Break Contact' points level, ``percent`` % (40) of the fleet's points,
    rounded by 1.1 (ruling CAM13)."""
    return percent_of(force_points, percent)


# --- CAM 2.3 -----------------------------------------------------------------------------------

def roll_table(dice: Dice, nature: Nature) -> tuple[Table, list[Roll]]:
    """One table's nature (and a gas giant's moons)."""
    rolls = [dice.roll(1, 6, TABLE_RULE)]
    face = rolls[0].faces[0]
    score = face + (PLANETARY_DISPUTE_TABLE_BONUS if nature is Nature.PLANETARY_DISPUTE else 0)
    kind = TABLE_NATURE[score]
    moons = None
    if kind is TableNature.GAS_GIANT:
        rolls.append(dice.roll(1, 6, MOONS_PURPOSE))
        moons = rolls[-1].total + 1
    return Table(roll=face, score=score, nature=kind, moons=moons,
                 nebula_clouds=NEBULA_CLOUDS if kind is TableNature.NEBULAE else 0), rolls


def set_up_table(campaign: CamCampaign, scenario: Scenario, dice: Dice, *,
                 edge_choice: Mapping[int, str] | None = None,
                 already_on_table: Iterable[int] | None = None) -> SetupResult:
    """CAM 2.3 after both forces are chosen: each table's nature (1d6, +2 for a planetary dispute;
    one roll per table with multi-tables), then the table edges: each player rolls 2d6, or 1d6 if
    he has forces or bases already on the table (by default: his force includes a Planetary
    Battery / Base or he declared it there with his force, rulings CAM8, CAM33); the higher total takes the
    edge his standing ``edge_choice``
    names (default south), the other the opposite edge; ties re-roll (ruling CAM7)."""
    if scenario.table_set:
        raise ScenarioError(f"{TABLE_RULE}: the table of scenario {scenario.number} is already set up")
    missing = [s for s in scenario.seats if s not in scenario.forces]
    if missing:
        raise ScenarioError(f"{TABLE_RULE}: \"Having already selected your period and fleet\": seat(s) "
                            f"{missing} have chosen no force")
    choice = dict(edge_choice or {})
    for seat, edge in choice.items():
        if seat not in scenario.seats or edge not in EDGES:
            raise ScenarioError(f"{TABLE_RULE}: edge choice {seat!r}: {edge!r} (edges: {', '.join(EDGES)})")
    if already_on_table is None:
        on_table = {s for s in scenario.seats if scenario.forces[s].already_on_table}
    else:
        on_table = set(already_on_table)
        if not on_table <= set(scenario.seats):
            raise ScenarioError(f"{TABLE_RULE}: seats {sorted(on_table - set(scenario.seats))} do not play")
    events: list[Event] = []
    tables = []
    for i in range(campaign.settings.tables):
        table, _ = roll_table(dice, scenario.nature)
        tables.append(table)
        bonus = " +2 for a planetary dispute" if table.score != table.roll else ""
        what = table.nature.value.replace("_", " ")
        if table.moons is not None:
            what += f" with {table.moons} moons"
        events.append(Event("scenario", "table", scenario.seats,
                            f"Table {i + 1}: rolled {table.roll}{bonus} = {table.score}: {what} ({TABLE_RULE}).",
                            {"table": i + 1, "roll": table.roll, "score": table.score, "nature": table.nature.value,
                             "moons": table.moons, "nebula_clouds": table.nebula_clouds}))
    counts = {s: (1 if s in on_table else 2) for s in scenario.seats}
    winner, rounds = _roll_off(dice, scenario.seats, EDGE_PURPOSE, counts)
    loser = scenario.seats[1] if winner == scenario.seats[0] else scenario.seats[0]
    edge = choice.get(winner, DEFAULT_EDGE)
    edges = {winner: edge, loser: OPPOSITE[edge]}
    events.append(Event("scenario", "edges", scenario.seats,
                        f"Seat {winner} wins the edge roll and takes the {edge} edge; seat {loser} the "
                        f"{OPPOSITE[edge]} ({TABLE_RULE}).",
                        {"dice": {str(s): counts[s] for s in scenario.seats}, "rolls": [dict(r) for r in rounds],
                         "winner": winner, "edges": dict(edges)}))
    for seat in scenario.seats:
        events.append(Event("scenario", "break_level", (seat,),
                            f"Seat {seat}: 'Break Contact' level {scenario.break_levels[seat]} points "
                            f"({scenario.break_percent}% of {scenario.forces[seat].points}; {TABLE_RULE}).",
                            {"seat": seat, "level": scenario.break_levels[seat],
                             "force_points": scenario.forces[seat].points}))
    new = replace(scenario, tables=tuple(tables), edges=MappingProxyType(edges),
                  edge_rolls=tuple(MappingProxyType(r) for r in rounds))
    return SetupResult(new, tuple(events))

