"""Event Horizon Initiative and Movement Phases (seeds/003 "Campaign Turn Sequence", "Campaign
Movement", "Creating a Map": Particle Cloud / Black Hole / Worm Hole, "Invading Enemy Hexes",
"Star Gate"; RULINGS.md "Particle clouds", "Invasion", "Star gates", "Missed deadline")."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.rules.dice import FixedDice, SeededDice
from campaign.rules.eventhorizon.mapgen import Terrain
from campaign.rules.eventhorizon.movement import (
    CLOUD_RULE,
    DRIFT_RULE,
    INITIATIVE_RULE,
    Contact,
    move_fleets,
    roll_initiative,
)
from campaign.rules.eventhorizon.orders import (
    NO_ORDERS,
    Merge,
    Move,
    OrderError,
    Orders,
    Split,
    fleet_speed,
    is_jump,
    validate_orders,
)
from campaign.rules.eventhorizon.state import StandingOrders
from tests.rules.eventhorizon.eh_builders import build_state

EMPTY_3 = """
. . . . . . .
. . . . . . .
. . . . . . .
"""


def moves(seat_moves: dict[int, list[Move]], **extra) -> dict[int, Orders]:
    return {seat: Orders(moves=tuple(ms), **extra) for seat, ms in seat_moves.items()}


def step(a, *cells):
    return Move(a, tuple(cells))


def coord_of(state, fleet_id):
    return state.fleet(fleet_id).coord


def kinds(events, kind):
    return [e for e in events if e.kind == kind]


def with_standing(state, seat, initiative):
    return state.with_empire(replace(state.empire(seat), standing=StandingOrders(initiative=initiative)))


# --- Initiative Phase ---------------------------------------------------------------------------

def test_biggest_bp_total_gets_plus_one_only():  # 003 Campaign Turn Sequence: Initiative Phase
    state = build_state(EMPTY_3, seats=3, bp={1: 40, 2: 120, 3: 80})
    dice = FixedDice([6, 4, 3])
    order, events = roll_initiative(state, {}, dice)
    rolls = kinds(events, "initiative_roll")
    assert [(e.data["seat"], e.data["faces"], e.data["modifier"], e.data["score"]) for e in rolls] == [
        (1, [6], 0, 6), (2, [4], 1, 5), (3, [3], 0, 3)]
    assert order == (1, 2, 3)
    assert dice.remaining() == []


def test_plus_one_decides_the_order():  # 003 Campaign Turn Sequence: Initiative Phase
    state = build_state(EMPTY_3, seats=3, bp={1: 40, 2: 120, 3: 80})
    dice = FixedDice([5, 5, 3])  # seat 2: 5 + 1 = 6 beats seat 1's 5
    order, events = roll_initiative(state, {}, dice)
    assert order == (2, 1, 3)
    assert [r.purpose for r in dice.rolls] == [INITIATIVE_RULE] * 3
    final = kinds(events, "initiative_order")[0]
    assert final.public and final.data["order"] == [2, 1, 3] and final.data["bonus"] == 2
    assert all(e.public and e.step == "initiative" for e in events)


def test_shared_biggest_bp_total_gets_no_bonus():  # 003 Initiative Phase (ruling I1)
    state = build_state(EMPTY_3, seats=3, bp={1: 120, 2: 120, 3: 10})
    order, events = roll_initiative(state, {}, FixedDice([4, 3, 5]))
    assert order == (3, 1, 2)
    assert [e.data["modifier"] for e in kinds(events, "initiative_roll")] == [0, 0, 0]
    assert kinds(events, "initiative_order")[0].data["bonus"] is None


def test_bp_total_is_banked_bp_in_the_state():  # 003 Initiative Phase (ruling I1: after spending)
    state = build_state(EMPTY_3, seats=2, bp={1: 200, 2: 100})
    state = state.with_empire(replace(state.empire(1), bp=20))  # seat 1 spent most of it
    _, events = roll_initiative(state, {}, FixedDice([3, 3, 1, 2]))
    first = kinds(events, "initiative_roll")[:2]
    assert [e.data["modifier"] for e in first] == [0, 1]


def test_ties_reroll_among_tied_seats_only():  # 003 Initiative Phase: "Re-roll ties"
    state = build_state(EMPTY_3, seats=3)
    dice = FixedDice([5, 2, 5, 1, 6])  # seats 1 and 3 tie on 5; only they re-roll
    order, events = roll_initiative(state, {}, dice)
    assert order == (3, 1, 2)
    assert dice.remaining() == []
    rerolls = [e for e in kinds(events, "initiative_roll") if e.data["round"] == 2]
    assert [e.data["seat"] for e in rerolls] == [1, 3]


def test_repeated_ties_and_ties_lower_down():  # 003 Initiative Phase: "Re-roll ties"
    state = build_state(EMPTY_3, seats=4)
    # 6 3 3 1: seats 2 and 3 tie for second, tie again (4 4), then seat 3 wins 5 to 1
    dice = FixedDice([6, 3, 3, 1, 4, 4, 1, 5])
    order, events = roll_initiative(state, {}, dice)
    assert order == (1, 3, 2, 4)
    assert dice.remaining() == []
    assert [e.data["round"] for e in kinds(events, "initiative_roll")] == [1, 1, 1, 1, 2, 2, 3, 3]


def test_bonus_on_reroll_breaks_tie():  # 003 Initiative Phase (ruling I2)
    state = build_state(EMPTY_3, seats=2, bp={1: 50, 2: 0})
    dice = FixedDice([3, 4, 2, 2])  # 4 v 4 tie; re-roll 2+1 = 3 beats 2
    order, _ = roll_initiative(state, {}, dice)
    assert order == (1, 2)
    assert dice.remaining() == []


def test_winner_moves_first_by_default():  # 003 Initiative Phase: "decides whether to move first or last"
    state = build_state(EMPTY_3, seats=3)
    order, events = roll_initiative(state, {}, FixedDice([2, 6, 4]))
    assert order == (2, 3, 1)
    assert kinds(events, "initiative_order")[0].data["choice"] == "first"


def test_winner_moves_last_by_standing_order():  # 003 Initiative Phase; RULINGS "Live decisions"
    state = with_standing(build_state(EMPTY_3, seats=3), 2, "last")
    order, events = roll_initiative(state, {}, FixedDice([2, 6, 4]))
    assert order == (3, 1, 2)
    final = kinds(events, "initiative_order")[0]
    assert final.data["winner"] == 2 and final.data["choice"] == "last"


def test_standing_order_in_orders_overrides():  # 003 Initiative Phase; RULINGS "Live decisions"
    state = build_state(EMPTY_3, seats=3)
    orders = {2: Orders(standing=StandingOrders(initiative="last"))}
    order, _ = roll_initiative(state, orders, FixedDice([2, 6, 4]))
    assert order == (3, 1, 2)


def test_loser_standing_order_is_ignored():  # 003 Initiative Phase: only the winner decides
    state = with_standing(build_state(EMPTY_3, seats=3), 1, "last")
    order, _ = roll_initiative(state, {}, FixedDice([2, 6, 4]))
    assert order == (2, 3, 1)


def test_eliminated_empires_do_not_roll():  # 003 Initiative Phase; RULINGS "Victory condition"
    state = build_state(EMPTY_3, seats=3, bp={1: 0, 2: 0, 3: 500})
    state = state.with_empire(replace(state.empire(3), eliminated=True))
    dice = FixedDice([1, 2])
    order, events = roll_initiative(state, {}, dice)
    assert order == (2, 1)
    assert dice.remaining() == []
    assert all(e.data["modifier"] == 0 for e in kinds(events, "initiative_roll"))


def test_single_empire_needs_no_roll():  # 003 Initiative Phase (ruling I3)
    state = build_state(EMPTY_3, seats=2)
    state = state.with_empire(replace(state.empire(2), eliminated=True))
    order, _ = roll_initiative(state, {}, FixedDice([]))
    assert order == (1,)


# --- Campaign Movement ------------------------------------------------------------------------

def test_fleet_moves_its_path():  # 003 Campaign Movement
    state = build_state(EMPTY_3, fleets=[(1, (0, 1), ["galiot"]), (2, (6, 2), ["galiot"])])
    orders = moves({1: [step(1, (1, 1), (2, 0), (3, 0))]})
    new, events, contacts = move_fleets(state, orders, (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (3, 0)
    assert coord_of(new, 2) == (6, 2)
    assert contacts == ()
    route = kinds(events, "route")[0]
    assert route.data["route"] == [[0, 1], [1, 1], [2, 0], [3, 0]]
    assert route.data["spent"] == 3 and route.data["speed"] == 5
    assert route.seats == (1,) and route.step == "movement"


def test_fleet_speed_is_the_slowest_ship():  # 003 Campaign Movement: "speed of the slowest vessel"
    state = build_state(EMPTY_3, fleets=[(1, (0, 0), ["galiot"]), (1, (0, 1), ["san_marco"]),
                                         (1, (0, 2), ["galiot", "san_marco"])])
    assert fleet_speed(state, state.fleet(1).ships) == 5  # engine 9 -> 5
    assert fleet_speed(state, state.fleet(2).ships) == 4  # engine 8 -> 4
    assert fleet_speed(state, state.fleet(3).ships) == 4
    path = tuple((x, 2) for x in range(1, 6))
    new, events, _ = move_fleets(state, {1: Orders(moves=(Move(1, tuple((x, 0) for x in range(1, 6))),
                                                          Move(3, path)))}, (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (5, 0)
    assert coord_of(new, 3) == (4, 2)  # the fifth step is beyond the San Marco's 4
    stopped = kinds(events, "move_stopped")[0]
    assert stopped.data["reason"] == "no_movement_left"


def test_wormhole_jump_costs_nothing():  # 003 Creating a Map: Worm Hole
    state = build_state("""
        W . . . . . .
        . . . . . . .
        . . . . . . W
    """, fleets=[(1, (1, 0), ["san_marco"])])
    assert is_jump(state, (0, 0), (6, 2))
    path = ((0, 0), (6, 2), (5, 2), (4, 2), (3, 2))  # 1 + 0 + 3 = 4 moves
    new, events, _ = move_fleets(state, moves({1: [Move(1, path)]}), (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (3, 2)
    assert kinds(events, "route")[0].data["spent"] == 4


def test_star_gate_jump():  # 003 Use of BP in a Campaign: Star Gate ("in the same manner as a wormhole")
    state = build_state(EMPTY_3, fleets=[(1, (0, 0), ["san_marco"])],
                        structures=[(1, "star_gate", (1, 0)), (1, "star_gate", (6, 2))])
    path = ((1, 0), (6, 2), (5, 1), (4, 0), (3, 0))
    new, events, contacts = move_fleets(state, moves({1: [Move(1, path)]}), (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (3, 0)
    assert contacts == ()
    assert kinds(events, "route")[0].data["spent"] == 4


def test_black_hole_in_path_stops_before_it():  # 003 Creating a Map: Black Hole
    state = build_state("""
        . . @ . . . .
        . . . . . . .
        . . . . . . .
    """, fleets=[(1, (0, 0), ["galiot"])])
    new, events, _ = move_fleets(state, moves({1: [step(1, (1, 0), (2, 0), (3, 0))]}), (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (1, 0)
    assert kinds(events, "move_stopped")[0].data["reason"] == "black_hole"


# --- Particle clouds --------------------------------------------------------------------------

CLOUD = """
. . . @ .
. . ~ . .
. . . . .
"""


def test_particle_cloud_passed_on_three_plus():  # 003 Creating a Map: Particle Cloud ("3+ on 1d6")
    state = build_state(CLOUD, fleets=[(1, (0, 1), ["san_marco"])])
    dice = FixedDice([3])
    new, events, _ = move_fleets(state, moves({1: [step(1, (1, 1), (2, 1), (3, 1))]}), (1, 2), dice)
    assert coord_of(new, 1) == (3, 1)
    assert [(r.purpose, r.sides) for r in dice.rolls] == [(CLOUD_RULE, 6)]
    roll = kinds(events, "cloud_roll")[0]
    assert roll.data["faces"] == [3] and roll.data["passed"]


def test_particle_cloud_failure_drifts_two_points():  # 003 Particle Cloud; RULINGS "Particle clouds"
    state = build_state(CLOUD, fleets=[(1, (0, 1), ["san_marco"])])
    # Enters the cloud with 2 of 4 moves left, rolls 2: loses its path and drifts twice.
    # From (2,1) the passable neighbours in reading order are (1,0) (2,0) (1,1) (3,1) (1,2) (2,2)
    # (3,2) — the black hole at (3,0) is left out — so 1d7; face 2 is (2,0). From (2,0):
    # (1,0) (1,1) (2,1) (3,1), 1d4; face 3 is (2,1), back into the cloud, with no new cloud roll.
    dice = FixedDice([2, 2, 3])
    new, events, contacts = move_fleets(state, moves({1: [step(1, (1, 1), (2, 1), (3, 1))]}), (1, 2), dice)
    assert [(r.purpose, r.sides, r.faces) for r in dice.rolls] == [
        (CLOUD_RULE, 6, (2,)), (DRIFT_RULE, 7, (2,)), (DRIFT_RULE, 4, (3,))]
    assert coord_of(new, 1) == (2, 1)
    drifts = kinds(events, "drift")
    assert [(d.data["from"], d.data["to"]) for d in drifts] == [([2, 1], [2, 0]), ([2, 0], [2, 1])]
    assert drifts[0].data["choices"] == [[1, 0], [2, 0], [1, 1], [3, 1], [1, 2], [2, 2], [3, 2]]
    assert kinds(events, "route")[0].data["route"] == [[0, 1], [1, 1], [2, 1], [2, 0], [2, 1]]
    assert not kinds(events, "cloud_roll")[0].data["passed"]
    assert contacts == ()


def test_particle_cloud_failure_on_one_drifts_every_point_left():  # 003 Particle Cloud
    state = build_state(CLOUD, fleets=[(1, (1, 1), ["galiot"])])
    dice = FixedDice([1, 7, 1, 1, 1])  # enters with 4 left: four drifts
    new, events, _ = move_fleets(state, moves({1: [step(1, (2, 1), (3, 1))]}), (1, 2), dice)
    assert len(kinds(events, "drift")) == 4
    assert dice.remaining() == []
    # (2,1) -> (3,2) -> (2,1) -> (1,0) -> (0,0)
    assert coord_of(new, 1) == (0, 0)


def test_no_cloud_roll_without_movement_left():  # 003 Particle Cloud (ruling P1)
    state = build_state(CLOUD, fleets=[(1, (0, 1), ["bomber"])])  # engine 3 -> 2 moves
    new, events, _ = move_fleets(state, moves({1: [step(1, (1, 1), (2, 1))]}), (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (2, 1)
    assert kinds(events, "cloud_roll") == []


def test_fleet_starting_in_a_cloud_does_not_roll():  # 003 Particle Cloud (ruling P1)
    state = build_state(CLOUD, fleets=[(1, (2, 1), ["galiot"])])
    new, _, _ = move_fleets(state, moves({1: [step(1, (3, 1), (4, 1))]}), (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (4, 1)


def test_drift_into_enemy_hex_stops_with_contact():  # 003 Particle Cloud; Invading Enemy Hexes
    state = build_state(CLOUD, fleets=[(1, (0, 1), ["san_marco"]), (2, (1, 0), ["galiot"])])
    dice = FixedDice([2, 1])  # drift face 1: (1,0), where seat 2's fleet waits
    new, events, contacts = move_fleets(state, moves({1: [step(1, (1, 1), (2, 1), (3, 1))]}), (1, 2), dice)
    assert coord_of(new, 1) == (1, 0)
    assert contacts == (Contact(hex=(1, 0), invader_seat=1, invader_fleet_id=1, defenders=(2,)),)
    assert dice.remaining() == []


# --- Invading enemy hexes -----------------------------------------------------------------------

def test_entering_enemy_fleet_hex_stops_and_records_contact():  # 003 Invading Enemy Hexes
    state = build_state(EMPTY_3, fleets=[(1, (0, 1), ["galiot"]), (2, (2, 1), ["san_marco"])])
    new, events, contacts = move_fleets(state, moves({1: [step(1, (1, 1), (2, 1), (3, 1))]}), (1, 2),
                                        FixedDice([]))
    assert coord_of(new, 1) == (2, 1)
    assert contacts == (Contact((2, 1), 1, 1, (2,)),)
    contact = kinds(events, "contact")[0]
    assert contact.seats == (1, 2) and contact.data["defenders"] == [2]
    assert (contacts[0].invader, contacts[0].invader_fleet) == (1, 1)  # conflict.ContactLike names


def test_entering_enemy_world_stops():  # 003 Invading Enemy Hexes ("one of your planets, colonies")
    state = build_state("""
        . . b . B . .
        . . . . . . .
        . . . . . . .
    """, fleets=[(1, (0, 0), ["galiot"])])
    new, _, contacts = move_fleets(state, moves({1: [step(1, (1, 0), (2, 0), (3, 0))]}), (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (2, 0)
    assert contacts == (Contact((2, 0), 1, 1, (2,)),)


def test_entering_enemy_star_gate_stops():  # 003 Invading Enemy Hexes ("star gates"); RULINGS "Star gates"
    state = build_state(EMPTY_3, fleets=[(1, (0, 0), ["galiot"])], structures=[(2, "star_gate", (2, 0))])
    new, _, contacts = move_fleets(state, moves({1: [step(1, (1, 0), (2, 0), (3, 0))]}), (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (2, 0)
    assert contacts == (Contact((2, 0), 1, 1, (2,)),)


def test_jump_into_guarded_gate_is_contact():  # 003 Star Gate: "If a gate is guarded"; RULINGS "Star gates"
    state = build_state(EMPTY_3, fleets=[(1, (0, 0), ["galiot"]), (2, (6, 2), ["sword"])],
                        structures=[(1, "star_gate", (1, 0)), (1, "star_gate", (6, 2))])
    new, _, contacts = move_fleets(state, moves({1: [step(1, (1, 0), (6, 2), (5, 2))]}), (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (6, 2)
    assert contacts == (Contact((6, 2), 1, 1, (2,)),)


# 003 Star Gate: "a tactical battle must be fought ... before it can be used" (ruling V4)
def test_no_jump_out_of_a_guarded_gate():
    state = build_state(EMPTY_3, fleets=[(1, (1, 0), ["galiot"]), (2, (1, 0), ["sword"])],
                        structures=[(1, "star_gate", (1, 0)), (1, "star_gate", (6, 2))])
    new, events, contacts = move_fleets(state, moves({1: [step(1, (6, 2))]}), (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (1, 0)
    assert kinds(events, "move_stopped")[0].data["reason"] == "guarded"
    assert contacts == ()


def test_several_defenders_in_one_hex():  # 003 Invading Enemy Hexes
    state = build_state(EMPTY_3, seats=3, fleets=[(1, (0, 0), ["galiot"]), (3, (1, 0), ["sword"])],
                        structures=[(2, "star_gate", (1, 0))])
    _, events, contacts = move_fleets(state, moves({1: [step(1, (1, 0))]}), (1, 2, 3), FixedDice([]))
    assert contacts == (Contact((1, 0), 1, 1, (2, 3)),)
    assert kinds(events, "contact")[0].seats == (1, 2, 3)


def test_neutral_world_does_not_stop():  # 003 Neutral Planets/Colonies; RULINGS "Neutral planets"
    state = build_state("""
        . O o . . . .
        . . . . . . .
        . . . . . . .
    """, fleets=[(1, (0, 0), ["galiot"])])
    new, _, contacts = move_fleets(state, moves({1: [step(1, (1, 0), (2, 0), (3, 0))]}), (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (3, 0)
    assert contacts == ()


def test_own_world_and_fleet_do_not_stop():  # 003 Invading Enemy Hexes: only enemy hexes
    state = build_state("""
        . a . . . . .
        . . . . . . .
        . . . . . . .
    """, fleets=[(1, (0, 0), ["galiot"]), (1, (2, 0), ["sword"])])
    new, _, contacts = move_fleets(state, moves({1: [step(1, (1, 0), (2, 0), (3, 0))]}), (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (3, 0)
    assert contacts == ()


def test_eliminated_empires_fleet_does_not_stop():  # 003 Invading Enemy Hexes (ruling V3: active empires)
    state = build_state(EMPTY_3, fleets=[(1, (0, 0), ["galiot"]), (2, (1, 0), ["sword"])])
    state = state.with_empire(replace(state.empire(2), eliminated=True))
    new, _, contacts = move_fleets(state, moves({1: [step(1, (1, 0), (2, 0))]}), (1,), FixedDice([]))
    assert coord_of(new, 1) == (2, 0)
    assert contacts == ()


def test_initiative_matters_second_mover_stopped():  # 003 Movement Phase: "In order of initiative"
    state = build_state(EMPTY_3, fleets=[(1, (3, 0), ["galiot"]), (2, (1, 2), ["galiot"])])
    orders = moves({1: [step(1, (3, 1))], 2: [step(2, (2, 1), (3, 1), (4, 1), (5, 1))]})
    new, _, contacts = move_fleets(state, orders, (1, 2), FixedDice([]))
    assert coord_of(new, 1) == (3, 1)
    assert coord_of(new, 2) == (3, 1)  # stopped by seat 1's fleet, which got there first
    assert contacts == (Contact((3, 1), 2, 2, (1,)),)
    # With seat 2 first, it is long gone when seat 1 arrives.
    new, _, contacts = move_fleets(state, orders, (2, 1), FixedDice([]))
    assert coord_of(new, 2) == (5, 1) and coord_of(new, 1) == (3, 1)
    assert contacts == ()


def test_contacts_in_the_order_they_happened():  # 003 Movement Phase
    state = build_state(EMPTY_3, fleets=[(1, (0, 0), ["galiot"]), (1, (0, 2), ["galiot"]),
                                         (2, (2, 0), ["sword"]), (2, (2, 2), ["sword"])])
    orders = moves({1: [step(2, (1, 2), (2, 2)), step(1, (1, 0), (2, 0))]})
    _, _, contacts = move_fleets(state, orders, (2, 1), FixedDice([]))
    assert [c.invader_fleet_id for c in contacts] == [2, 1]


def test_same_owner_fleets_in_one_hex_stay_separate():  # 003 Campaign Movement (merging is an order)
    state = build_state(EMPTY_3, fleets=[(1, (0, 0), ["galiot"]), (1, (2, 0), ["sword"])])
    new, _, _ = move_fleets(state, moves({1: [step(1, (1, 0), (2, 0))]}), (1, 2), FixedDice([]))
    assert [f.id for f in new.fleets_at((2, 0))] == [1, 2]


# --- Splits and merges ------------------------------------------------------------------------

def test_split_then_move_split_off_fleet_by_label():  # 003 Campaign Movement ("Two or more ships constitute a fleet")
    state = build_state(EMPTY_3, fleets=[(1, (0, 1), ["san_marco", "galiot"]), (2, (6, 2), ["sword"])])
    orders = {1: Orders(splits=(Split(fleet=1, ships=(2,), label="raiders"),),
                        moves=(Move("raiders", ((1, 1), (2, 1), (3, 1), (4, 1), (5, 1))),))}
    validate_orders(state, 1, orders[1], {})
    new, events, _ = move_fleets(state, orders, (1, 2), FixedDice([]))
    assert new.fleet(1).ships == (1,) and new.fleet(1).coord == (0, 1)
    assert new.fleet(3).ships == (2,) and new.fleet(3).coord == (5, 1)  # the galiot alone moves 5
    split = kinds(events, "split")[0]
    assert split.data["fleet"] == 3 and split.data["label"] == "raiders"


def test_merge_then_move_at_slowest_speed():  # 003 Campaign Movement: "speed of the slowest vessel"
    state = build_state(EMPTY_3, fleets=[(1, (0, 1), ["galiot"]), (1, (0, 1), ["san_marco"])])
    path = tuple((x, 1) for x in range(1, 6))
    orders = {1: Orders(merges=(Merge(fleets=(1, 2)),), moves=(Move(1, path[:4]),))}
    validate_orders(state, 1, orders[1], {})
    new, events, _ = move_fleets(state, orders, (1, 2), FixedDice([]))
    assert len(new.fleets) == 1
    assert new.fleet(1).ships == (1, 2) and new.fleet(1).coord == (4, 1)
    assert kinds(events, "merge")[0].data["fleets"] == [1, 2]


def test_regroup_that_no_longer_fits_drops_the_seats_fleet_orders():  # 003 Campaign Movement (ruling V1)
    state = build_state(EMPTY_3, fleets=[(1, (0, 1), ["galiot", "sword"]), (2, (6, 2), ["sword"])])
    orders = {1: Orders(splits=(Split(fleet=1, ships=(9,), label="x"),), moves=(Move(1, ((1, 1),)),)),
              2: Orders(moves=(Move(2, ((5, 2),)),))}
    with pytest.raises(OrderError):
        validate_orders(state, 1, orders[1], {})
    new, events, _ = move_fleets(state, orders, (1, 2), FixedDice([]))
    assert new.fleet(1) == state.fleet(1)
    assert coord_of(new, 2) == (5, 2)
    assert kinds(events, "orders_dropped")[0].seats == (1,)


def test_no_orders_seat_holds_position():  # RULINGS "Missed deadline (NMR)": fleets hold
    state = build_state(EMPTY_3, fleets=[(1, (0, 1), ["galiot"]), (2, (6, 2), ["sword"]), (2, (5, 0), ["galiot"])])
    new, events, contacts = move_fleets(state, {1: Orders(moves=(Move(1, ((1, 1),)),))}, (2, 1), FixedDice([]))
    assert new.fleet(2) == state.fleet(2) and new.fleet(3) == state.fleet(3)
    new2, _, _ = move_fleets(state, {1: Orders(moves=(Move(1, ((1, 1),)),)), 2: NO_ORDERS}, (2, 1), FixedDice([]))
    assert new2 == new
    assert all(e.seats == (1,) for e in events) and contacts == ()


def test_unknown_fleet_move_is_skipped():  # 003 Campaign Movement
    state = build_state(EMPTY_3, fleets=[(1, (0, 1), ["galiot"]), (2, (6, 2), ["sword"])])
    orders = {1: Orders(moves=(Move(2, ((5, 2),)), Move(1, ((1, 1),)), Move(1, ((2, 1),))))}
    new, events, _ = move_fleets(state, orders, (1, 2), FixedDice([]))
    assert coord_of(new, 2) == (6, 2) and coord_of(new, 1) == (1, 1)
    assert len(kinds(events, "move_skipped")) == 2


def test_hex_map_movement_and_drift():  # 003 Creating a Map: "Using hexes or squares"
    state = build_state("""
        . . . .
        . ~ . .
        . . . .
    """, grid="hex", fleets=[(1, (0, 1), ["galiot"])])
    # (1,1) is on an odd row: neighbours (1,0) (2,0) (0,1) (2,1) (1,2) (2,2) in reading order.
    dice = FixedDice([1, 6, 1, 1, 1])
    new, events, _ = move_fleets(state, moves({1: [step(1, (1, 1), (2, 1))]}), (1, 2), dice)
    drifts = kinds(events, "drift")
    assert drifts[0].data["choices"] == [[1, 0], [2, 0], [0, 1], [2, 1], [1, 2], [2, 2]]
    assert drifts[0].data["to"] == [2, 2]
    assert len(drifts) == 4 and dice.remaining() == []


def test_same_dice_same_result():  # RULINGS "Dice" (deterministic resolution)
    state = build_state(CLOUD, seats=3, bp={1: 10, 2: 30, 3: 20},
                        fleets=[(1, (0, 1), ["galiot"]), (2, (4, 2), ["sword"]), (3, (0, 0), ["san_marco"])])
    orders = moves({1: [step(1, (1, 1), (2, 1), (3, 1))], 2: [step(2, (3, 2), (2, 1), (1, 1))],
                    3: [step(3, (1, 0), (2, 1))]})

    def run():
        dice = SeededDice(b"movement-determinism-seed-0001")
        order, ev1 = roll_initiative(state, orders, dice)
        new, ev2, contacts = move_fleets(state, orders, order, dice)
        return order, ev1, new, ev2, contacts, [(r.roll, r.offset) for r in dice.log]

    assert run() == run()


# --- Property: nothing is lost, nothing ends in a black hole ------------------------------------

SHIP_KEYS = ["galiot", "san_marco", "sword", "bomber", "tramp"]


@st.composite
def scenarios(draw):
    width = draw(st.integers(3, 6))
    height = draw(st.integers(3, 5))
    grid = draw(st.sampled_from(["square", "hex"]))
    cells = draw(st.lists(st.sampled_from(list(".....@~~WO")), min_size=width * height, max_size=width * height))
    rows = ["".join(cells[y * width:(y + 1) * width]) for y in range(height)]
    free = [(x, y) for y in range(height) for x in range(width) if rows[y][x] != "@"]
    if not free:
        rows[0] = "." + rows[0][1:]
        free = [(0, 0)]
    seats = draw(st.integers(2, 3))
    fleets = draw(st.lists(st.tuples(st.integers(1, seats), st.sampled_from(free),
                                     st.lists(st.sampled_from(SHIP_KEYS), min_size=1, max_size=3)),
                           min_size=1, max_size=5))
    gates = draw(
        st.lists(
            st.tuples(st.integers(1, seats), st.sampled_from(free)), max_size=3, unique_by=lambda g: g[1]
        )
    )
    state = build_state("\n".join(rows), grid=grid, seats=seats, fleets=[(s, c, k) for s, c, k in fleets],
                        structures=[(s, "star_gate", c) for s, c in gates],
                        bp={s: draw(st.integers(0, 3)) * 10 for s in range(1, seats + 1)})
    orders = {}
    for seat in range(1, seats + 1):
        own = [f for f in state.fleets if f.owner == seat]
        splits, merges, movers = [], [], []
        for f in own:
            if len(f.ships) > 1 and draw(st.booleans()):
                label = f"s{f.id}"
                splits.append(Split(fleet=f.id, ships=f.ships[:1], label=label))
                movers.append((label, f.coord, f.ships[:1]))
                movers.append((f.id, f.coord, f.ships[1:]))
            else:
                movers.append((f.id, f.coord, f.ships))
        by_hex: dict = {}
        for f in own:
            if not any(s.fleet == f.id for s in splits):
                by_hex.setdefault(f.coord, []).append(f.id)
        for ids in by_hex.values():
            if len(ids) > 1 and draw(st.booleans()):
                merges.append(Merge(fleets=tuple(ids)))
                merged_ships = tuple(s for m in movers if m[0] in ids for s in m[2])
                movers = [m for m in movers if m[0] not in ids[1:]]
                movers = [(m[0], m[1], merged_ships) if m[0] == ids[0] else m for m in movers]
        move_list = []
        for fid, start, ships in movers:
            if not draw(st.booleans()):
                continue
            speed = fleet_speed(state, ships)
            here, steps, path = start, 0, []
            for _ in range(draw(st.integers(1, 6))):
                options = [n for n in state.grid.neighbours(here) if state.terrain_at(n) is not Terrain.BLACK_HOLE]
                if steps >= speed:
                    options = []
                options += [c for c in state.grid.cells() if is_jump(state, here, c)]
                if not options:
                    break
                nxt = draw(st.sampled_from(options))
                steps += 0 if is_jump(state, here, nxt) else 1
                path.append(nxt)
                here = nxt
            if path:
                move_list.append(Move(fid, tuple(path)))
        candidate = Orders(splits=tuple(splits), merges=tuple(merges), moves=tuple(move_list))
        validate_orders(state, seat, candidate, {})  # the generator only builds valid orders
        orders[seat] = candidate
    seed = draw(st.binary(min_size=16, max_size=16))
    return state, orders, seed


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(scenarios())
def test_property_no_black_holes_ships_conserved(scenario):  # 003 Creating a Map: Black Hole; Campaign Movement
    state, orders, seed = scenario
    dice = SeededDice(seed)
    order, _ = roll_initiative(state, orders, dice)
    assert sorted(order) == sorted(state.active_seats())
    new, events, contacts = move_fleets(state, orders, order, dice)
    assert not kinds(events, "orders_dropped") and not kinds(events, "move_skipped")
    for fleet in new.fleets:
        assert new.terrain_at(fleet.coord) is not Terrain.BLACK_HOLE
        assert fleet.ships
        ships = new.ship_index()
        assert all(ships[s].owner == fleet.owner for s in fleet.ships)
    placed = [s for f in new.fleets for s in f.ships]
    assert sorted(placed) == sorted(s.id for s in state.ships)  # every ship in exactly one fleet
    assert len(placed) == len(state.ships)
    for contact in contacts:
        fleet = new.fleet(contact.invader_fleet_id)
        assert fleet.coord == contact.hex and contact.invader_seat not in contact.defenders and contact.defenders


# --- Issue 13 item 4: the nearest opponent's standing drift order (ruling P2) -----------------

def _steered(state, orders_by_seat, option=True):
    from campaign.rules.eventhorizon.state import DriftOrder

    for seat, (mode, target) in orders_by_seat.items():
        state = state.with_empire(replace(state.empire(seat), standing=StandingOrders(drift=DriftOrder(mode, target))))
    return replace(state, options={"steered_drift": option})


def test_issue13_item4_p2_nearest_opponent_steers_the_drift_toward_its_hex():
    """003 Creating a Map: Particle Cloud ("Failure means that the opponent moves the ship/fleet
    for the rest of its remaining movement"); RULINGS "Particle clouds" option; ruling P2."""
    state = _steered(build_state(CLOUD, fleets=[(1, (0, 1), ["san_marco"]), (2, (4, 2), ["galiot"])]),
                     {2: ("toward", (0, 2))})
    dice = FixedDice([2])  # the cloud roll fails with 2 moves left; steered steps roll nothing
    new, events, contacts = move_fleets(state, moves({1: [step(1, (1, 1), (2, 1), (3, 1))]}), (1, 2), dice)
    assert dice.remaining() == [] and [r.purpose for r in dice.rolls] == [CLOUD_RULE]
    # from (2,1): (1,1) and (1,2) are both 1 from (0,2); (1,1) comes first in reading order
    drifts = kinds(events, "drift")
    assert [(d.data["from"], d.data["to"], d.data["steered_by"]) for d in drifts] == [
        ([2, 1], [1, 1], 2), ([1, 1], [0, 2], 2)]
    assert drifts[0].seats == (1, 2) and drifts[0].data["order"] == {"toward": [0, 2]}
    assert coord_of(new, 1) == (0, 2) and contacts == ()


def test_issue13_item4_p2_option_off_drift_stays_random():  # RULINGS "Particle clouds" (option, default off)
    state = _steered(build_state(CLOUD, fleets=[(1, (0, 1), ["san_marco"]), (2, (4, 2), ["galiot"])]),
                     {2: ("toward", (0, 2))}, option=False)
    dice = FixedDice([2, 2, 3])  # as test_particle_cloud_failure_drifts_two_points
    new, events, _ = move_fleets(state, moves({1: [step(1, (1, 1), (2, 1), (3, 1))]}), (1, 2), dice)
    assert coord_of(new, 1) == (2, 1) and dice.remaining() == []
    assert all("steered_by" not in d.data for d in kinds(events, "drift"))


def test_issue13_item4_p2_opponent_without_a_drift_order_leaves_it_random():  # ruling P2
    state = replace(build_state(CLOUD, fleets=[(1, (0, 1), ["san_marco"]), (2, (4, 2), ["galiot"])]),
                    options={"steered_drift": True})
    dice = FixedDice([2, 2, 3])
    new, _, _ = move_fleets(state, moves({1: [step(1, (1, 1), (2, 1), (3, 1))]}), (1, 2), dice)
    assert coord_of(new, 1) == (2, 1) and dice.remaining() == []


def test_issue13_item4_p2_the_nearest_opponent_steers_ties_to_the_lowest_seat():  # ruling P2
    fleets = [(1, (0, 1), ["san_marco"]), (2, (4, 2), ["galiot"]), (3, (0, 0), ["galiot"])]
    orders = {2: ("toward", (0, 2)), 3: ("away_from", (0, 2))}
    # seats 2 and 3 are both 2 steps from the cloud at (2,1): seat 2 steers
    state = _steered(build_state(CLOUD, seats=3, fleets=fleets), orders)
    new, events, _ = move_fleets(state, moves({1: [step(1, (1, 1), (2, 1), (3, 1))]}), (1, 2, 3), FixedDice([2]))
    assert {d.data["steered_by"] for d in kinds(events, "drift")} == {2}
    # seat 3 one step away (3,2): seat 3 steers away from (0,2): (3,1), then (4,0) (4 from (0,2))
    fleets[2] = (3, (3, 2), ["galiot"])
    state = _steered(build_state(CLOUD, seats=3, fleets=fleets), orders)
    new, events, _ = move_fleets(state, moves({1: [step(1, (1, 1), (2, 1), (3, 1))]}), (1, 2, 3), FixedDice([2]))
    assert [(d.data["to"], d.data["steered_by"]) for d in kinds(events, "drift")] == [([3, 1], 3), ([4, 0], 3)]
    assert coord_of(new, 1) == (4, 0)


def test_issue13_item4_p2_drift_ends_when_no_neighbour_is_nearer():  # ruling P2
    state = _steered(build_state(CLOUD, fleets=[(1, (0, 1), ["san_marco"]), (2, (4, 2), ["galiot"])]),
                     {2: ("toward", (2, 1))})  # the cloud hex itself
    new, events, _ = move_fleets(state, moves({1: [step(1, (1, 1), (2, 1), (3, 1))]}), (1, 2), FixedDice([2]))
    assert coord_of(new, 1) == (2, 1)
    assert [(d.data["from"], d.data["to"]) for d in kinds(events, "drift")] == [([2, 1], [2, 1])]


def test_issue13_item4_p2_steered_into_an_enemy_hex_stops_with_contact():  # ruling P2; Invading Enemy Hexes
    state = _steered(build_state(CLOUD, fleets=[(1, (0, 1), ["san_marco"]), (2, (1, 1), ["galiot"])]),
                     {2: ("toward", (0, 2))})
    new, _, contacts = move_fleets(state, moves({1: [step(1, (1, 0), (2, 1), (3, 1))]}), (1, 2), FixedDice([2]))
    assert coord_of(new, 1) == (1, 1)
    assert contacts == (Contact(hex=(1, 1), invader_seat=1, invader_fleet_id=1, defenders=(2,)),)
