"""Results of battles fought as tactical or tabletop games, applied to the campaign (pure).

003 "Result of a Tactical Battle": "If you win a tactical battle the hex it was fought in belongs
to you. If it contains enemy resources (including partially built star ships in a dockyard) they
become yours as well. If you lose a tactical battle what remains of your fleet must retreat one
full map move." Rulings C15–C18 in docs/rulings.md; the turn split (resolve_turn with
``fought_as_game`` and complete_turn) in docs/battles.md.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from campaign.rules.dice import FixedDice, SeededDice, derive_seed
from campaign.rules.eventhorizon import turn as turn_engine
from campaign.rules.eventhorizon.conflict import (
    Battle,
    BattleResult,
    ResultError,
    ShipResult,
    apply_battle_result,
    battle_is_fought,
    check_battle_result,
    fight_battles,
)
from campaign.rules.eventhorizon.economy import Damage, Resource
from campaign.rules.eventhorizon.orders import parse_orders
from tests.rules.eventhorizon.eh_builders import build_state
from tests.rules.eventhorizon.test_conflict import battle_state, fleet_at, world

AT = (3, 0)


def ships_of(state, seat):
    return sorted(s.id for s in state.ships if s.owner == seat)


def two_on_two():
    """Seat 1 (ships 1, 2: swords) has invaded seat 2's planet at (3, 0) (ships 3, 4: galiots);
    seat 2 has a dockyard there."""
    state, battles = battle_state(["sword", "sword"], ["galiot", "galiot"], structures=[(2, "dockyard", AT)])
    return state, battles[0]


def result(holder, **fates):
    ships = []
    for key, value in fates.items():
        ship = int(key[1:])
        if isinstance(value, tuple):
            fate, extra = value
        else:
            fate, extra = value, {}
        ships.append(ShipResult(ship=ship, fate=fate, **extra))
    return BattleResult(holder=holder, ships=tuple(ships), how="tabletop")


def test_winner_takes_the_hex_and_its_resources_loser_retreats():  # 003 Result of a Tactical Battle
    state, battle = two_on_two()
    r = result(1, s1="survived", s2="destroyed", s3="destroyed",
               s4=("survived", {"damage": Damage(hull=2, weapons=("laser_bank",))}))
    new, events = apply_battle_result(state, battle, r)
    assert ships_of(new, 1) == [1] and ships_of(new, 2) == [4]
    assert world(new, AT).owner == 1
    assert {s.owner for s in new.structures_at(AT)} == {1}  # "they become yours as well"
    assert fleet_at(new, 2) == (0, 0)  # the loser retreats to its home world
    assert next(s for s in new.ships if s.id == 4).damage == Damage(hull=2, weapons=("laser_bank",))
    (event,) = events
    assert event.kind == "battle" and event.data["winner"] == 1 and event.data["how"] == "tabletop"
    assert event.data["losses"] == {"attacker": [2], "defender": [3]}
    assert "empire 1 holds the field" in event.text


def test_defender_holds_and_the_attacker_retreats():  # 003 Result of a Tactical Battle
    state, battle = two_on_two()
    r = result(2, s1="survived", s2="survived", s3="survived", s4="destroyed")
    new, events = apply_battle_result(state, battle, r)
    assert world(new, AT).owner == 2
    assert fleet_at(new, 1) != AT and fleet_at(new, 2) == AT
    assert events[0].data["retreats"][0]["fleet"] == 1


def test_captured_ship_joins_the_captor_in_a_new_fleet():  # 003 Boarding Parties; ruling C16
    state, battle = two_on_two()
    r = result(1, s1="survived", s2="survived", s3=("captured", {"captured_by": 1, "damage": Damage(hull=1)}),
               s4="destroyed")
    new, events = apply_battle_result(state, battle, r)
    prize = next(s for s in new.ships if s.id == 3)
    assert prize.owner == 1 and prize.damage == Damage(hull=1)
    fleet = next(f for f in new.fleets if 3 in f.ships)
    assert fleet.owner == 1 and fleet.coord == AT and fleet.id not in (1, 2)
    assert fleet.id >= state.next_id("fleet")  # ids are never reused
    assert events[0].data["captured"] == {"1": [3]}


def test_a_captor_that_loses_retreats_with_its_prize():  # ruling C16
    state, battle = two_on_two()
    r = result(2, s1=("captured", {"captured_by": 2}), s2="destroyed", s3="survived", s4="survived")
    new, _ = apply_battle_result(state, battle, r)
    prize = next(s for s in new.ships if s.id == 1)
    assert prize.owner == 2
    assert fleet_at(new, next(f.id for f in new.fleets if 1 in f.ships)) == AT  # the holder stays
    assert ships_of(new, 1) == []


def test_warped_out_ships_stay_with_their_side_and_retreat_if_it_lost():  # 003 Warp Out; ruling C16
    state, battle = two_on_two()
    r = result(2, s1="warped_out", s2="destroyed", s3="survived", s4="survived")
    new, _ = apply_battle_result(state, battle, r)
    assert ships_of(new, 1) == [1]
    assert fleet_at(new, 1) != AT  # it retreats with what remains of its fleet


def test_no_holder_means_the_invasion_failed():  # ruling C15 (card cap: both still on the table)
    state, battle = two_on_two()
    r = BattleResult(holder=None, ships=tuple(ShipResult(i, "survived") for i in (1, 2, 3, 4)))
    new, events = apply_battle_result(state, battle, r)
    assert world(new, AT).owner == 2 and fleet_at(new, 2) == AT and fleet_at(new, 1) != AT
    assert "neither side holds the field" in events[0].text


def test_everything_destroyed_leaves_the_world_as_it_was():  # ruling C15
    state, battle = two_on_two()
    r = BattleResult(holder=None, ships=tuple(ShipResult(i, "destroyed") for i in (1, 2, 3, 4)))
    new, _ = apply_battle_result(state, battle, r)
    assert new.ships == () and world(new, AT).owner == 2


BAD = [
    (
        "unknown ship",
        BattleResult(1, tuple(ShipResult(i, "survived") for i in (1, 2, 3, 4, 99))),
        "ship 99 was not in the battle",
    ),
    (
        "missing ship",
        BattleResult(1, tuple(ShipResult(i, "survived") for i in (1, 2, 3))),
        "leaves out ship(s) 4",
    ),
    ("twice", BattleResult(1, tuple(ShipResult(i, "survived") for i in (1, 1, 2, 3, 4))), "listed twice"),
    (
        "bad fate",
        BattleResult(1, (ShipResult(1, "sunk"),) + tuple(ShipResult(i, "survived") for i in (2, 3, 4))),
        "fate must be one of",
    ),
    (
        "own captor",
        BattleResult(
            1,
            (ShipResult(1, "captured", captured_by=1),) + tuple(ShipResult(i, "survived") for i in (2, 3, 4)),
        ),
        "other side",
    ),
    (
        "captor not captured",
        BattleResult(
            1,
            (ShipResult(1, "survived", captured_by=2),) + tuple(ShipResult(i, "survived") for i in (2, 3, 4)),
        ),
        "has no captor",
    ),
    (
        "too much damage",
        BattleResult(
            1,
            (ShipResult(1, "survived", damage=Damage(engine=99)),)
            + tuple(ShipResult(i, "survived") for i in (2, 3, 4)),
        ),
        "engine points lost",
    ),
    (
        "all hull lost",
        BattleResult(
            1,
            (ShipResult(3, "survived", damage=Damage(hull=5)),)
            + tuple(ShipResult(i, "survived") for i in (1, 2, 4)),
        ),
        "enter it as destroyed",
    ),
    (
        "holder not a side",
        BattleResult(5, tuple(ShipResult(i, "survived") for i in (1, 2, 3, 4))),
        "must be empire 1 or 2",
    ),
    (
        "holder with no ships",
        BattleResult(
            2,
            tuple(ShipResult(i, "destroyed") for i in (3, 4))
            + tuple(ShipResult(i, "survived") for i in (1, 2)),
        ),
        "no ship left",
    ),
]


@pytest.mark.parametrize("name,bad,message", BAD, ids=[b[0] for b in BAD])
def test_results_that_do_not_fit_are_refused_with_the_reason(name, bad, message):  # 003 Result of a Tactical Battle
    state, battle = two_on_two()
    with pytest.raises(ResultError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_battle_result(state, battle, bad)
    with pytest.raises(ResultError):
        apply_battle_result(state, battle, bad)


def test_fight_battles_applies_given_results_and_auto_resolves_the_rest():  # 003 Alternative to a Tactical Battle
    picture = "2 . . b . . . 1 . . c"
    state = build_state(picture, fleets=[(1, (3, 0), ["sword"]), (2, (3, 0), ["galiot"]),
                                         (1, (10, 0), ["sword"]), (3, (10, 0), ["galiot"])], seats=3)
    battles = [Battle((3, 0), 1, 2), Battle((10, 0), 1, 3)]
    given = {0: BattleResult(1, (ShipResult(1, "survived"), ShipResult(2, "destroyed")))}
    new, events = fight_battles(state, battles, None, FixedDice([5, 3]), given)
    assert [e.data.get("how") for e in events] == ["tactical", "auto"]  # the second was auto-resolved (BR1)
    assert events[1].data["rule"] == "003 Alternative to a Tactical Battle"
    assert world(new, (3, 0)).owner == 1


def test_battle_is_fought_only_with_something_on_both_sides():  # ruling C12
    state, battle = two_on_two()
    assert battle_is_fought(state, battle)
    no_defenders, _ = battle_state(["sword"], [])
    assert not battle_is_fought(no_defenders, Battle(AT, 1, 2))
    with_defences, _ = battle_state(["sword"], [], structures=[(2, Resource.PLANETARY_DEFENCES.value, AT)])
    assert battle_is_fought(with_defences, Battle(AT, 1, 2))


def contact_state():
    """Seat 1's fleet next to seat 2's fleet at (3, 0), ordered into it."""
    picture = "2 . . b . . . 1"
    state = build_state(picture, fleets=[(1, (4, 0), ["sword", "sword"]), (2, (3, 0), ["galiot"])])
    orders = {1: parse_orders({"moves": [{"fleet": 1, "path": [[3, 0]]}]})}
    return state, orders


def test_a_turn_split_at_its_battles_ends_as_the_whole_turn_would():  # 003 Campaign Turn Sequence
    state, orders = contact_state()
    whole = turn_engine.resolve_turn(state, orders, SeededDice(seed=derive_seed("split"), offset=0))
    dice = SeededDice(seed=derive_seed("split"), offset=0)
    first = turn_engine.resolve_turn(state, orders, dice, fought_as_game=lambda s, b: True)
    assert first.pending == (Battle((3, 0), 1, 2, False),)
    assert first.state.turn == state.turn  # stopped before the battles: the turn is not over
    rest = turn_engine.complete_turn(first.state, first.pending, {}, dice)
    assert rest.state == whole.state
    assert first.events + rest.events == whole.events


def test_a_turn_not_fought_as_a_game_runs_through():  # 003 Campaign Turn Sequence
    state, orders = contact_state()
    res = turn_engine.resolve_turn(
        state, orders, SeededDice(seed=derive_seed("x"), offset=0), fought_as_game=lambda s, b: False
    )
    assert res.pending == () and res.state.turn == state.turn + 1


def test_the_result_of_a_game_is_applied_when_the_turn_completes():  # 003 Result of a Tactical Battle
    state, orders = contact_state()
    dice = SeededDice(seed=derive_seed("game"), offset=0)
    first = turn_engine.resolve_turn(state, orders, dice, fought_as_game=lambda s, b: True)
    ids = {s.owner: [] for s in first.state.ships}
    for s in first.state.ships:
        ids[s.owner].append(s.id)
    r = BattleResult(holder=1, ships=tuple(ShipResult(i, "survived") for i in ids[1])
                     + tuple(ShipResult(i, "destroyed") for i in ids[2]))
    rest = turn_engine.complete_turn(first.state, first.pending, {0: r}, dice)
    assert world(rest.state, (3, 0)).owner == 1
    assert ships_of(rest.state, 2) == []
    assert rest.state.turn == state.turn + 1


def test_damage_carried_survives_the_rest_of_the_turn():  # 003 Dockyard: damage until repaired
    state, orders = contact_state()
    dice = SeededDice(seed=derive_seed("dmg"), offset=0)
    first = turn_engine.resolve_turn(state, orders, dice, fought_as_game=lambda s, b: True)
    r = BattleResult(holder=2, ships=(ShipResult(1, "survived", damage=Damage(hull=1)), ShipResult(2, "destroyed"),
                                      ShipResult(3, "survived")))
    rest = turn_engine.complete_turn(first.state, first.pending, {0: r}, dice)
    assert next(s for s in rest.state.ships if s.id == 1).damage == Damage(hull=1)
    assert replace(rest.state).turn == state.turn + 1
