"""Battles of more than two sides (000 3.0 "If there are more that two 'sides' to a game, the
Initiative holder decides the order of play"; 2.1; rulings BZ83-BZ89): the state, the order of
play, deployment on each side's own edge, the doctrine, and properties over random 3- and 4-sided
battles. The rule cases are in cases/26_multiple_sides.json."""

from __future__ import annotations

import random
from dataclasses import replace
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.rules.dice import FixedDice, SeededDice, derive_seed
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz import board
from tactical.rules.buoyz.cam import deploy_cam
from tactical.rules.buoyz.deploy import deploy
from tactical.rules.buoyz.doctrine import doctrine_action, withdrawing
from tactical.rules.buoyz.engine import (
    _ac_slots,
    allowance,
    apply,
    check,
    legal_actions,
    outcome,
    phase_order,
)
from tactical.rules.buoyz.engine.core import _Ctx
from tactical.rules.buoyz.geometry import bearing, distance
from tactical.rules.buoyz.play import RULES, SetupError, hidden_ships, setup_for, side_actions
from tactical.rules.buoyz.sds import CATALOGUE, random_fleet
from tactical.rules.buoyz.state import (
    AC_TYPES,
    IllegalActionError,
    Orders,
    new_battle,
    new_ship,
    with_ship,
)
from tactical.rules.play import Viewer
from tests.tactical.buoyz.test_buoyz_properties import KEYS, _invariants, _play

C = CATALOGUE


def _three(orders=None):
    return deploy({1: [C["constitution"]], 2: [C["d7"]], 3: [C["b_rel"]]}, orders=orders)


# --- the state ----------------------------------------------------------------------------------

def test_every_other_side_is_an_enemy():
    state = _three()
    assert state.sides == (1, 2, 3) and len(state.orders) == 3
    assert state.enemies(2) == (1, 3)
    assert [s.side for s in state.enemy_ships(1)] == [2, 3]
    with pytest.raises(ValueError, match="enemies"):
        state.other(1)  # only meaningful for exactly two sides
    two = deploy({1: [C["constitution"]], 2: [C["d7"]]})
    assert two.other(1) == 2 and two.enemies(1) == (2,)


@pytest.mark.parametrize("sides", [(1,), (1, 2, 3, 4, 5, 6, 7), (1, 1)])
def test_a_battle_has_two_to_six_different_sides(sides):
    ships = [new_ship(i + 1, side, C["d7"], (6.0 * i + 6, 10.0)) for i, side in enumerate(sides)]
    with pytest.raises(IllegalActionError, match="3.0 .*two to 6 different sides"):
        new_battle(ships, sides=sides)


def test_standing_orders_one_per_side_and_a_sound_order_of_play():
    ships = [new_ship(i, i, C["d7"], (6.0 * i, 10.0)) for i in (1, 2, 3)]
    with pytest.raises(IllegalActionError, match="one standing orders for each of the 3 sides"):
        new_battle(ships, orders=(Orders(), Orders()))
    for bad in ((1, 2), (2, 2), (4,)):
        with pytest.raises(IllegalActionError, match="order of play"):
            new_battle(ships, orders=(Orders(play_order=bad), Orders(), Orders()))
    assert new_battle(ships, orders=(Orders(play_order=(3, 2)), Orders(), Orders())).orders[0].play_order == (3, 2)


def test_deploy_refuses_one_fleet_or_seven():
    with pytest.raises(IllegalActionError, match="two to 6 fleets"):
        deploy({1: [C["d7"]]})
    with pytest.raises(IllegalActionError, match="two to 6 fleets"):
        deploy({i: [C["d7"]] for i in range(1, 8)})


def test_a_cam_scenario_stays_two_sided():
    battle = SimpleNamespace(scenario=SimpleNamespace(seats=(1, 2, 3)))
    with pytest.raises(IllegalActionError, match="CAM 3.0.*two sides"):
        deploy_cam(None, battle)


# --- deployment (ruling BZ87) --------------------------------------------------------------------

@pytest.mark.parametrize("count", [3, 4, 5, 6])
def test_each_side_lines_up_on_its_own_edge_facing_the_middle(count):
    rng = random.Random(count)
    fleets = {side: random_fleet(rng, 4, 60) for side in range(1, count + 1)}
    state = deploy(fleets)
    w, h = state.table
    edges = [state.edge(side) for side in state.sides]
    assert edges == ["south", "north", "west", "east", "south", "north"][:count]
    for ship in state.ships:
        x, y = ship.pos
        assert 0 < x < w and 0 < y < h
        gap = {"south": y, "north": h - y, "west": x, "east": w - x}[state.edge(ship.side)]
        assert 6 <= gap <= 12, f"ship {ship.id} of side {ship.side} is {gap}\" from its edge"
        assert abs((bearing(ship.pos, (w / 2, h / 2)) - ship.heading + 180) % 360 - 180) < 90  # bow inward
    for a in state.ships:
        for b in state.ships:
            assert a.id == b.id or distance(a.pos, b.pos) >= 1, (a.id, b.id)
    if count >= 5:  # the long edges are shared: the first and fifth sides on the south edge's halves
        xs = {side: [s.pos[0] for s in state.ships if s.side == side] for side in state.sides}
        assert max(xs[1]) < w / 2 < min(xs[5])
    if count == 6:
        assert max(xs[6]) < w / 2 < min(xs[2])


def test_two_fleets_deploy_as_before():
    state = deploy({1: [C["constitution"], C["d7"]], 2: [C["b_rel"]]})
    assert [(s.pos, s.heading) for s in state.ships] == [((33.0, 6.0), 0.0), ((39.0, 6.0), 0.0), ((36.0, 42.0), 180.0)]


# --- the order of play (3.0, rulings BZ84, BZ85) -------------------------------------------------

def test_the_order_of_play_and_the_holders_place_in_each_phase():
    state = _three({2: Orders(play_order=(1,), move_first=False, fire_first=True, ac_first=True)})
    # side 2 wins 12; side 3 rolls 9, side 1 2: by total side 3 would come next, but side 2 chose side 1.
    state = apply(state, A.Begin(), FixedDice([1, 1, 6, 6, 4, 5])).state
    assert state.initiative == 2 and state.order_of_play() == (2, 1, 3)
    assert phase_order(state, True) == (2, 1, 3) and phase_order(state, False) == (1, 3, 2)
    assert state.phase == "movement" and state.first == 1 and state.acting == 1  # the holder moves last
    assert [side for kind, side in _ac_slots(state) if kind == AC_TYPES[0]] == [2, 1, 3]  # ac_first: holder first
    assert len(_ac_slots(state)) == 3 * len(AC_TYPES)


def test_initiative_every_modifier_counts_for_every_side():
    state = deploy({1: [C["constitution"]], 2: [C["war_talon"]], 3: [C["kobayashi_maru"], C["runabouts"]]})
    res = apply(state, A.Begin(), FixedDice([3, 3, 3, 3, 3, 2, 6, 6, 1, 1]))
    data = next(e.data for e in res.events if e.kind == "initiative")
    # the War Talon's cloak +1; civilian shipping -1, patrol counters +2, a flagship with Advanced Sensors +1
    assert data["modifiers"] == {1: 0, 2: 1, 3: 2}
    assert data["totals"] == {1: 6, 2: 13, 3: 4}  # 2 and 3 tied at 7: only they rolled again
    assert [e.data["sides"] for e in res.events if e.kind == "initiative_tie"] == [[2, 3]]


# --- the doctrine (rulings BZ88) ---------------------------------------------------------------

def test_the_doctrine_fires_at_the_weakest_target_of_any_enemy_side():
    state = deploy({1: [C["constitution"]], 2: [C["d7"]], 3: [C["d7"]]})
    me, d2, d3 = state.ships
    state = with_ship(state, replace(me, pos=(36.0, 20.0)))
    state = with_ship(state, replace(d2, pos=(33.0, 24.0)))
    state = with_ship(state, replace(d3, pos=(39.0, 24.0), hull=2))  # side 3's D7 is the weaker target
    state = replace(state, phase="attack", turn=1, initiative=1, first=1, acting=1)
    action = doctrine_action(state)
    assert isinstance(action, A.Fire) and {t for _, t, _ in action.shots} == {3}


def test_only_the_weakest_of_three_sides_that_cannot_hurt_anybody_withdraws():
    unarmed = C["kobayashi_maru"]
    state = deploy({1: [unarmed], 2: [unarmed, unarmed], 3: [unarmed, unarmed]})
    assert withdrawing(state, 1) and not withdrawing(state, 2) and not withdrawing(state, 3)
    state = deploy({1: [unarmed], 2: [C["d7"]], 3: [unarmed]})
    assert withdrawing(state, 1) and withdrawing(state, 3) and not withdrawing(state, 2)


# --- properties over random battles ------------------------------------------------------------

fleets = st.lists(st.sampled_from(KEYS), min_size=1, max_size=2)


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(a=fleets, b=fleets, c=fleets, seed=st.integers(0, 10_000), rng=st.randoms(use_true_random=False),
       doctrine_share=st.sampled_from([0.0, 0.5, 0.9]))
def test_three_sided_random_play_keeps_every_property_and_replays(a, b, c, seed, rng, doctrine_share):
    start = deploy({1: [C[k] for k in a], 2: [C[k] for k in b], 3: [C[k] for k in c]}, turn_cap=5)
    _play(start, seed, rng, doctrine_share)


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(f=st.lists(fleets, min_size=4, max_size=6), seed=st.integers(0, 10_000), rng=st.randoms(use_true_random=False))
def test_four_to_six_sided_random_play_keeps_every_property(f, seed, rng):
    start = deploy({i + 1: [C[k] for k in keys] for i, keys in enumerate(f)}, turn_cap=4)
    _play(start, seed, rng, 0.5)


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
def test_a_hundred_three_and_four_sided_doctrine_battles_all_end():
    """Random CAM-legal 60-point fleets of a random period for three or four sides, doctrine
    against doctrine (fixed seeds): every battle ends with a side holding the field or mutual
    destruction, every doctrine action is legal, and the properties hold after every step."""
    endings = set()
    for seed in range(100):
        count = 3 + seed % 2
        rng = random.Random(f"multi-{seed}")
        period = rng.randint(1, 6)
        state = deploy({side: random_fleet(rng, period, 60) for side in range(1, count + 1)})
        dice = SeededDice(derive_seed(f"buoyz-multi-{seed}"))
        for _ in range(20_000):
            if state.over:
                break
            action = doctrine_action(state)
            check(state, action)  # the doctrine never makes an illegal action
            before = state
            state = apply(state, action, dice).state
            if isinstance(action, A.Move) and state.ship(action.ship).active:
                old, new = before.ship(action.ship), state.ship(action.ship)
                assert distance(old.pos, new.pos) <= allowance(old) + 1e-3
            _invariants(state)
        assert state.over, f"battle {seed} did not end"
        result = outcome(state)
        assert result.ending in ("field held", "mutual destruction"), (seed, result.ending)
        alive = {s.side for s in state.ships if s.active}
        assert (result.winner is None and not alive) or alive == {result.winner}
        assert legal_actions(state) == []
        endings.add((count, result.winner))
    assert {w for _, w in endings} >= {1, 2, 3}  # no side order wins every time


# --- the play layer (fog of war per viewing side) -----------------------------------------------

def test_a_three_sided_setup_plays_online_with_each_sides_own_fog_of_war():
    setup = setup_for({1: ["constitution", "b_rel"], 2: ["d7", "war_talon"], 3: ["d7", "b_rel"]}, attacker=1)
    assert setup["seats"] == [1, 2, 3] and (setup["attacker"], setup["defender"]) == (1, 2)
    for seat in ("1", "2", "3"):  # every side's second ship starts cloaked (10.2)
        setup["sides"][seat]["ships"][1]["cloaked"] = True
    state = RULES.initial_state(setup, None)
    battle = state.battle
    assert battle.sides == (1, 2, 3) and [battle.edge(s) for s in battle.sides] == ["south", "north", "west"]
    cloaked = {s.side: s.id for s in battle.ships if s.cloaked}
    assert cloaked == {1: 2, 2: 4, 3: 6}
    for seat in (1, 2, 3):
        others = {cloaked[s] for s in (1, 2, 3) if s != seat}
        assert hidden_ships(battle, seat) == others
        viewer = Viewer(seat=seat, fog_side=seat, colours={}, names={})
        svg = board.render(battle, viewer_side=seat)
        assert f'data-ship="{cloaked[seat]}"' in svg
        assert not any(f'data-ship="{sid}"' in svg for sid in others)
        assert {r["id"] for r in RULES.state_json(state, viewer)["ships"]} == {1, 2, 3, 4, 5, 6} - others
    everyone = board.render(battle, viewer_side=None)
    assert all(f'data-ship="{sid}"' in everyone for sid in range(1, 7))
    for colour in board.DEFAULT_COLOURS[:3]:  # each side its own colour
        assert colour in everyone
    # the engine tags an event about side 1's (side 3's) cloaked ship as side 1's (side 3's) only
    # where it makes it; all read the rest
    ctx = _Ctx(None)
    for sid in (2, 6):
        ctx.log("move", f"{battle.ship(sid).name} moves", ship=sid)
    ctx.log("phase", "Turn 1: movement phase")
    ctx.log("banks", "Phaser (main0) bears on a ship", ship=1, about=(6,))
    tagged = ctx.tagged(battle)
    assert [(e.public, e.sides) for e in tagged] == [(False, (1,)), (False, (3,)), (True, ()), (False, (3,))]
    assert [[e.text for e in RULES.visible_events(tagged, s)] for s in (1, 2)] == [
        [tagged[0].text, tagged[2].text], [tagged[2].text]]
    # the battle begins and each side's legal actions are its own
    state = RULES.apply(state, A.Begin(), SeededDice(derive_seed("three-online"))).state
    acting = state.battle.acting
    assert RULES.acting_side(state) == acting and side_actions(state.battle, acting)
    assert all(side_actions(state.battle, s) == [] for s in (1, 2, 3) if s != acting)


@pytest.mark.parametrize("seats", [[1, 2, 2], [1, 3], [1, 2, 3, 4, 5, 6, 7]])
def test_a_setup_refuses_unsound_seats(seats):
    setup = setup_for({1: ["d7"], 2: ["d7"]})
    setup["seats"] = seats
    setup["sides"].update({str(s): {"ships": [{"sd": "d7"}]} for s in seats})
    with pytest.raises(SetupError, match="seats"):
        RULES.initial_state(setup, None)
