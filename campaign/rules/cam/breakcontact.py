"""Ending a CAM scenario game (pure Python): CAM 3.0 and CAM 3.1 'Break Contact'.

The tactical game itself is played elsewhere (at a table or by a tactical resolver); this module
keeps the campaign-relevant record of a battle in progress — which units are destroyed, crippled
or have left the table, which sides have been ordered to break contact — and makes the End Phase
checks:

* ``start_battle(campaign, scenario)`` — a ``BattleState`` once the table is set up;
* ``record_damage(battle, seat, destroyed=…, crippled=…, left=…)`` — what the turn did;
* ``conditions_met(battle, seat)`` — which of CAM 3.1's three conditions hold;
* ``break_contact_check(battle, seat, dice)`` — one side's d6 (with its faction's modifier);
* ``end_of_turn(battle, dice)`` — CAM 3.0 step 1 for both sides, then the next turn.

Rule book ``seeds/000_…`` CAM 3.0, 3.1 (and footnote 1); ``RULINGS.md`` "CAM campaign supplement"
(Break contact modifiers); rulings CAM… in ``docs/rulings.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from types import MappingProxyType

from campaign.rules.dice import Dice

from .factions import Faction
from .scenario import Force, Scenario, ScenarioError, Unit
from .ships import ShipClass
from .state import CamCampaign, Event

END_RULE = "000 CAM 3.0 Ending A Scenario Game"
BREAK_RULE = "000 CAM 3.1 'Break Contact' Scenario Ending"
AVOID_SCORE = 6  # "If the player rolls a '6', the player avoids the 'break contact'"

LOSSES = 1  # condition 1: cumulative losses >= the BC points level
CAPITALS = 2  # condition 2: more than half the capital ships destroyed or crippled
CARRIERS_ONLY = 3  # condition 3: the only capital ships left on the table are CV (or CVE)
CONDITION_TEXT = MappingProxyType({
    LOSSES: "cumulative losses equal to or greater than the 'Break Contact' points level",
    CAPITALS: "more than half of the capital ships (BB, CV, BC) destroyed or crippled",
    CARRIERS_ONLY: "the only capital ships remaining on the table are CV (or CVE)",
})


class BattleError(ValueError):
    """A battle record that cannot be: an unknown unit, a destroyed unit damaged again, …"""


class UnitState(str, Enum):
    ON_TABLE = "on_table"
    DESTROYED = "destroyed"
    LEFT = "left"  # has retreated off the table (CAM 3.1 a, e)


@dataclass(frozen=True)
class UnitStatus:
    state: UnitState = UnitState.ON_TABLE
    crippled: bool = False


@dataclass(frozen=True)
class BattleState:
    """A scenario being fought. ``turn`` is the turn now being played (its End Phase comes next);
    ``broken`` maps each seat to the turn at whose end it was ordered to break contact."""

    scenario: Scenario
    factions: Mapping[int, Faction]
    status: Mapping[int, Mapping[str, UnitStatus]]
    turn: int = 1
    broken: Mapping[int, int | None] = field(default_factory=dict)
    autoresolved: bool = False

    def force(self, seat: int) -> Force:
        return self.scenario.forces[seat]

    def unit_status(self, seat: int, uid: str) -> UnitStatus:
        return self.status[seat][uid]

    def units_where(self, seat: int, test) -> list[Unit]:
        return [u for u in self.force(seat).units if test(u, self.status[seat][u.uid])]

    def losses(self, seat: int) -> int:
        """Points of ``seat``'s force destroyed so far ('points loss' scoring, CAM 3.0)."""
        return sum(u.points for u in self.units_where(seat, lambda u, s: s.state is UnitState.DESTROYED))

    def on_table(self, seat: int) -> list[Unit]:
        return self.units_where(seat, lambda u, s: s.state is UnitState.ON_TABLE)

    def ordered_to_break(self, seat: int) -> bool:
        return self.broken.get(seat) is not None

    @property
    def contact_broken(self) -> bool:
        """CAM 3.0 step 2: some side was ordered to break contact, and every side so ordered has
        left the table (its ships gone or destroyed; ruling CAM15: bases and minefields stay)."""
        breaking = [s for s in self.scenario.seats if self.ordered_to_break(s)]
        if not breaking:
            return False
        return all(not [u for u in self.on_table(s) if u.kind in ("ship", "ac")] for s in breaking)


@dataclass(frozen=True)
class BreakCheck:
    """One side's CAM 3.1 check. ``roll`` is None when no condition held (no check is made) or
    the side already has its break order. ``ordered`` says the 'break contact' order is issued."""

    seat: int
    turn: int
    conditions: tuple[int, ...]
    roll: int | None
    modifier: int
    score: int | None
    ordered: bool
    battle: BattleState
    events: tuple[Event, ...]


@dataclass(frozen=True)
class Resolution:
    battle: BattleState
    events: tuple[Event, ...]


def start_battle(campaign: CamCampaign, scenario: Scenario) -> BattleState:
    """A battle record for ``scenario``, every unit on the table and undamaged."""
    if not scenario.table_set:
        raise ScenarioError(f"{END_RULE}: set up the table (000 CAM 2.3) before the battle starts")
    factions = {seat: campaign.player(seat).faction for seat in scenario.seats}
    status = {seat: MappingProxyType({u.uid: UnitStatus() for u in scenario.forces[seat].units})
              for seat in scenario.seats}
    return BattleState(scenario=scenario, factions=MappingProxyType(factions), status=MappingProxyType(status),
                       broken=MappingProxyType({seat: None for seat in scenario.seats}))


def record_damage(battle: BattleState, seat: int, *, destroyed: Iterable[str] = (), crippled: Iterable[str] = (),
                  left: Iterable[str] = ()) -> BattleState:
    """What happened to ``seat``'s units this turn (unit uids). A destroyed unit can have nothing
    more happen to it; a unit that left the table cannot be attacked (CAM 3.1 e); only ships with
    a Crippled figure can be crippled (5.7); bases and minefields cannot leave the table."""
    if seat not in battle.status:
        raise BattleError(f"{END_RULE}: seat {seat!r} is not in this battle")
    if battle.contact_broken:
        raise BattleError(f"{END_RULE}: all table contact has been broken; the scenario is over")
    current = dict(battle.status[seat])
    changes = [(uid, "destroyed") for uid in destroyed] + [(uid, "crippled") for uid in crippled] + \
              [(uid, "left") for uid in left]
    force = battle.force(seat)
    for uid, what in changes:
        if uid not in current:
            raise BattleError(f"{END_RULE}: seat {seat} has no unit {uid!r}")
        now = current[uid]
        unit = force.unit(uid)
        if now.state is not UnitState.ON_TABLE:
            raise BattleError(f"{BREAK_RULE}: {unit.name} ({uid}) is already {now.state.value.replace('_', ' ')}")
        if what == "destroyed":
            current[uid] = replace(now, state=UnitState.DESTROYED)
        elif what == "crippled":
            if not unit.can_cripple:
                raise BattleError(f"000 5.7 Crippled Ships: {unit.name} ({uid}) can never be crippled")
            if now.crippled:
                raise BattleError(f"000 5.7 Crippled Ships: {unit.name} ({uid}) is already crippled")
            current[uid] = replace(now, crippled=True)
        else:
            if unit.kind in ("base", "minefield"):
                raise BattleError(f"{BREAK_RULE}: a {unit.kind} cannot leave the table")
            current[uid] = replace(now, state=UnitState.LEFT)
    status = dict(battle.status)
    status[seat] = MappingProxyType(current)
    return replace(battle, status=MappingProxyType(status))


def conditions_met(battle: BattleState, seat: int) -> tuple[int, ...]:
    """CAM 3.1's three conditions that hold for ``seat`` now, in order (1, 2, 3)."""
    scenario = battle.scenario
    met = []
    if battle.losses(seat) >= scenario.break_levels[seat]:
        met.append(LOSSES)
    capitals = battle.units_where(seat, lambda u, s: u.capital)
    hurt = [u for u in capitals if battle.status[seat][u.uid].state is UnitState.DESTROYED
            or battle.status[seat][u.uid].crippled]
    if capitals and 2 * len(hurt) > len(capitals):
        met.append(CAPITALS)
    # Ruling CAM14: condition 3 needs a BB or BC in the fleet at the start, none of them left on
    # the table, and a CV or CVE still on it ("only remaining": a pure carrier group never tests
    # on this count).
    battle_line = [u for u in battle.force(seat).units if u.ship_class in (ShipClass.BB, ShipClass.BC)]
    remaining = battle.on_table(seat)
    if (battle_line and not any(u.ship_class in (ShipClass.BB, ShipClass.BC) for u in remaining)
            and any(u.carrier for u in remaining)):
        met.append(CARRIERS_ONLY)
    return tuple(met)


def break_contact_check(battle: BattleState, seat: int, dice: Dice) -> BreakCheck:
    """CAM 3.1 for one side at the end of ``battle.turn``: if a condition holds and the side has
    no break order yet, roll a d6 plus its faction's modifier (Klingons, Dominion, Borg +1;
    Romulans −1; other powers +1 Aggressive / −1 Cautious). 1–5: the 'break contact' order is
    issued; 6 (or more, ruling CAM16): the side plays on and tests again next turn."""
    if seat not in battle.status:
        raise BattleError(f"{BREAK_RULE}: seat {seat!r} is not in this battle")
    faction = battle.factions[seat]
    modifier = faction.break_modifier
    if battle.ordered_to_break(seat):
        return BreakCheck(seat, battle.turn, (), None, modifier, None, True, battle, ())
    met = conditions_met(battle, seat)
    if not met:
        return BreakCheck(seat, battle.turn, (), None, modifier, None, False, battle, ())
    face = dice.roll(1, 6, BREAK_RULE).faces[0]
    score = face + modifier
    ordered = score < AVOID_SCORE
    reasons = "; ".join(f"{n}) {CONDITION_TEXT[n]}" for n in met)
    mod_text = f" {modifier:+d} ({faction.name})" if modifier else ""
    if ordered:
        new = replace(battle, broken=MappingProxyType({**battle.broken, seat: battle.turn}))
        text = (f"Seat {seat} must check at the end of turn {battle.turn} ({reasons}): rolled {face}{mod_text} = "
                f"{score}: the 'break contact' order is issued ({BREAK_RULE}).")
    else:
        new = battle
        text = (f"Seat {seat} must check at the end of turn {battle.turn} ({reasons}): rolled {face}{mod_text} = "
                f"{score}: avoids the 'break contact', plays normally next turn and tests again ({BREAK_RULE}).")
    event = Event("break_contact", "check", (seat,), text,
                  {"seat": seat, "turn": battle.turn, "conditions": list(met), "roll": face, "modifier": modifier,
                   "score": score, "ordered": ordered, "losses": battle.losses(seat),
                   "break_level": battle.scenario.break_levels[seat]})
    return BreakCheck(seat, battle.turn, met, face, modifier, score, ordered, new, (event,))


def end_of_turn(battle: BattleState, dice: Dice) -> Resolution:
    """CAM 3.0 step 1 after an End Phase: update the points-loss score and make every required
    check (seats in campaign order); then the next turn begins. Step 2 (tally) is
    ``scoring.score_scenario`` once ``battle.contact_broken``.

    Step 1 comes before step 2, so the End Phase of the turn in which all contact is broken (the
    last turn) still rolls for a side that met a condition and has no order yet: failing it, that
    side too was "forced to 'break contact'" (no +50, no +2 CPs; ruling CAM27). The caller makes
    it once, for the turn just completed."""
    events: list[Event] = [Event("break_contact", "losses", battle.scenario.seats,
                                 f"End of turn {battle.turn}: losses " + ", ".join(
                                     f"seat {s} {battle.losses(s)} of {battle.force(s).points} points"
                                     for s in battle.scenario.seats) + f" ({END_RULE}).",
                                 {"turn": battle.turn,
                                  "losses": {str(s): battle.losses(s) for s in battle.scenario.seats}})]
    for seat in battle.scenario.seats:
        check = break_contact_check(battle, seat, dice)
        battle = check.battle
        events.extend(check.events)
    return Resolution(replace(battle, turn=battle.turn + 1), tuple(events))
