"""Auto-resolving a CAM battle with the Event Horizon odds system on CAM points (issue 6).

Pure Python. The odds system is ``campaign.rules.eventhorizon.autoresolve`` (``seeds/003_…``
"Alternative to a Tactical Battle"; ``RULINGS.md`` "Auto-resolve odds"). This adapter feeds it CAM
points in place of BP (ruling CAM26):

* a side's ``bp`` is the CAM 2.2 points of its units still on the table, Planetary Batteries /
  Bases excepted: those are the side's "planetary defences" force multiplier, as in Event
  Horizon (only when the other side has none; if both have bases, they count as points);
* ``ships`` is the number of units that can be lost (ships, AC counters, bases; minefields
  cannot be "destroyed" as ships);
* there are no Star Cruiser / Destroyer multipliers in CAM.

``autoresolve_battle(battle, dice)`` then applies the result to the ``BattleState``: each loss
destroys the loser's cheapest unit first (RULINGS.md default loss order; ties by force order), the
side that loses the odds roll is ordered to break contact, and every ship of a side ordered to
break leaves the table — so the battle is ready for ``scoring.score_scenario``.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from campaign.rules.dice import Dice
from campaign.rules.eventhorizon.autoresolve import A, AutoResult, Side, resolve

from .breakcontact import BattleError, BattleState, Resolution, record_damage
from .scenario import Unit
from .state import Event

RULE = "003 Alternative to a Tactical Battle on CAM points (issue 6; ruling CAM26)"


def _losable(unit: Unit) -> bool:
    return unit.kind != "minefield"


def autoresolve_sides(battle: BattleState) -> tuple[Side, Side]:
    """The two ``autoresolve.Side`` values for ``battle``'s seats, in seat order."""
    seats = battle.scenario.seats
    on_table = {s: battle.on_table(s) for s in seats}
    has_bases = {s: any(u.kind == "base" for u in on_table[s]) for s in seats}
    sides = []
    for seat in seats:
        other = seats[1] if seat == seats[0] else seats[0]
        defences = has_bases[seat] and not has_bases[other]
        points = sum(u.points for u in on_table[seat] if not (defences and u.kind == "base"))
        ships = sum(1 for u in on_table[seat] if _losable(u))
        sides.append(Side(bp=points, has_defences=defences, ships=ships))
    return sides[0], sides[1]


def _cheapest_first(battle: BattleState, seat: int, count: int) -> list[str]:
    candidates = [u for u in battle.on_table(seat) if _losable(u)]
    order = sorted(range(len(candidates)), key=lambda i: (candidates[i].points, i))
    return [candidates[i].uid for i in order[:count]]


def autoresolve_battle(battle: BattleState, dice: Dice) -> Resolution:
    """Fight the rest of ``battle`` with the odds system (see the module docstring)."""
    if battle.contact_broken:
        raise BattleError(f"{RULE}: all table contact has already been broken")
    seats = battle.scenario.seats
    a, b = autoresolve_sides(battle)
    if a.bp == 0 and b.bp == 0:
        raise BattleError(f"{RULE}: neither side has points on the table to set against the other")
    result: AutoResult = resolve(a, b, dice)
    winner = seats[0] if result.winner == A else seats[1]
    loser = seats[1] if winner == seats[0] else seats[0]
    events = [Event("autoresolve", "odds", seats, note, {}) for note in result.notes]
    losses = {seats[0]: result.a_losses, seats[1]: result.b_losses}
    for seat in seats:
        destroyed = _cheapest_first(battle, seat, losses[seat])
        battle = record_damage(battle, seat, destroyed=destroyed)
        if destroyed:
            names = ", ".join(battle.force(seat).unit(uid).name for uid in destroyed)
            events.append(Event("autoresolve", "losses", (seat,), f"Seat {seat} loses {names} "
                                "(cheapest first).", {"seat": seat, "destroyed": destroyed}))
    broken = dict(battle.broken)
    if broken.get(loser) is None:
        broken[loser] = battle.turn
    battle = replace(battle, broken=MappingProxyType(broken), autoresolved=True)
    for seat in seats:
        if battle.ordered_to_break(seat):
            leaving = [u.uid for u in battle.on_table(seat) if u.kind in ("ship", "ac")]
            if leaving:
                battle = record_damage(battle, seat, left=leaving)
    events.append(Event("autoresolve", "result", seats,
                        f"Seat {winner} wins the odds roll; seat {loser} is ordered to break contact and leaves "
                        f"the table ({RULE}).",
                        {"winner": winner, "loser": loser, "dice": {str(seats[0]): result.a_dice,
                                                                     str(seats[1]): result.b_dice},
                         "faces": {str(seats[0]): list(result.a_faces), str(seats[1]): list(result.b_faces)}}))
    return Resolution(battle, tuple(events))
