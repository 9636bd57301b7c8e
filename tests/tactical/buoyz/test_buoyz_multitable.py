"""11.3 Using Multi-Tables: deploying on any table and each table's own edges (rulings BZ82,
BZ90-BZ92); CAM 2.3 / 3.1 (a) on another table than the first."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from campaign.rules.cam.scenario import Table, TableNature
from campaign.rules.dice import FixedDice, SeededDice, derive_seed
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz.cam import RETREAT_RULE, deploy_cam
from tactical.rules.buoyz.deploy import deploy
from tactical.rules.buoyz.doctrine import choose_move, doctrine_action
from tactical.rules.buoyz.engine import apply, check, legal_actions, outcome
from tactical.rules.buoyz.sds import CATALOGUE
from tactical.rules.buoyz.state import IllegalActionError
from tests.rules.cam.builders import battle_with, campaign_of

C = CATALOGUE
MULTI = "000 11.3 Using Multi-Tables"
FLEET_1 = ["constitution", "constitution", "firecat"]  # seat 1 (UFP): roster ids 1-3
FLEET_2 = ["d7", "d7", "war_talon"]  # seat 2 (Klingons): roster ids 4-6


# --- deploy (ruling BZ90) ------------------------------------------------------------------------

def test_deploy_puts_each_side_on_its_own_edge_of_the_table_it_is_given():
    """000 11.3: fleets on any of the tables; each side lines up on its own edge of each table
    it has ships on (ruling BZ90); by default the first ("main", CAM 2.3) table."""
    one = deploy({1: [C["constitution"], C["d7"]], 2: [C["d7"]]}, tables=2)
    assert all(one.table_of(s.pos) == 0 for s in one.ships)
    state = deploy({1: [C["constitution"], C["d7"]], 2: [C["d7"]]}, tables=3, table_of={2: 3})
    pitch = state.pitch
    assert [(s.id, s.side, state.table_of(s.pos)) for s in state.ships] == [(1, 1, 0), (2, 1, 0), (3, 2, 2)]
    assert state.ship(3).pos == (36.0 + 2 * pitch, 42.0) and state.ship(3).heading == 180.0
    assert [s.pos for s in state.ships[:2]] == [s.pos for s in one.ships[:2]]
    split = deploy({1: [C["constitution"], C["d7"], C["d7"]], 2: [C["d7"]]}, tables=2, table_of={1: [2, 1, 2]})
    assert [(s.id, state.table_of(s.pos)) for s in split.ships] == [(1, 1), (2, 0), (3, 1), (4, 0)]
    # each table's line is centred on that table, as a fleet of its size alone would be
    assert split.ship(1).pos == (33.0 + pitch, 6.0) and split.ship(3).pos == (39.0 + pitch, 6.0)
    assert split.ship(2).pos == (36.0, 6.0)


@pytest.mark.parametrize("kwargs, message", [
    ({"tables": 2, "table_of": {2: 3}}, "there is no table 3"),
    ({"tables": 2, "table_of": {2: 0}}, "there is no table 0"),
    ({"tables": 2, "table_of": {2: True}}, "by its number"),
    ({"tables": 2, "table_of": {2: "2"}}, "by its number"),
    ({"tables": 2, "table_of": {1: [1]}}, "2 ship(s) but 1 table number"),
    ({"tables": 2, "table_of": {7: 1}}, "side(s) [7]"),
    ({"table_of": {2: 2}}, "there is no table 2"),
    ({"tables": 0}, "tables must be 1 or more"),
])
def test_deploy_refuses_a_table_that_does_not_exist(kwargs, message):
    with pytest.raises(IllegalActionError) as exc:
        deploy({1: [C["constitution"], C["d7"]], 2: [C["d7"]]}, **kwargs)
    assert exc.value.rule == MULTI and message in str(exc.value)


# --- deploy_cam (ruling BZ91) --------------------------------------------------------------------

def _cam_two_tables(extras=None, second=TableNature.OPEN_SPACE):
    camp = campaign_of(FLEET_1, FLEET_2, period=2, points_level=60)
    battle = battle_with(camp, {1: [1, 2, 3], 2: [4, 5, 6]}, **({"extras": extras} if extras else {}))
    two = replace(battle, scenario=replace(battle.scenario, tables=(Table(1, 1, TableNature.OPEN_SPACE),
                                                                    Table(3, 3, second))))
    return camp, two


def test_deploy_cam_puts_units_on_the_table_given():
    """000 11.3, CAM 2.3: a seat's units on table 2 line up along its own CAM 2.3 edge of table 2;
    its bases by table 2's planet, its minefields and extra AC counters on table 2 too (BZ91)."""
    camp, battle = _cam_two_tables(extras={1: {"extra_ac": 1, "bases": (8,), "minefields": (3,)}},
                                   second=TableNature.TERRESTRIAL_PLANET)
    state = deploy_cam(camp, battle, dice=FixedDice([25, 13]),
                       table_of={"ship:2": 2, "ship:5": 2, "ship:6": 2, "base:1": 2, "ac:1": 2, "minefield:1": 2})
    pitch = state.pitch
    where = {uid: (state.ship(sid).pos, state.table_of(state.ship(sid).pos)) for sid, _s, uid in state.cam.units}
    assert where["ship:1"] == ((33.0, 6.0), 0) and where["ship:3"] == ((39.0, 6.0), 0)
    assert where["ship:2"] == ((36.0 + pitch, 6.0), 1)
    assert where["ship:4"] == ((36.0, 42.0), 0)
    assert where["ship:5"] == ((33.0 + pitch, 42.0), 1) and where["ship:6"] == ((39.0 + pitch, 42.0), 1)
    planet = state.objects[0]
    assert state.table_of(planet.centre) == 1 and planet.centre == (36.0 + pitch, 24.0)
    assert where["base:1"] == ((36.0 + pitch, 20.5), 1)  # ½" off table 2's planet, toward its south edge
    assert [m.centre for m in state.minefields] == [(36.0 + pitch, 20.0)]
    assert [f.pos for f in state.flights if f.offtable] == [(36.0 + pitch, 2.0)]


@pytest.mark.parametrize("table_of, message", [
    ({"ship:2": 3}, "there is no table 3"),
    ({"ship:2": 0}, "there is no table 0"),
    ({"ship:9": 2}, "no unit(s) ['ship:9']"),
    ({"ship:6": 1}, "lurks in square [45, 0], on table 2, not table 1"),
])
def test_deploy_cam_refuses_a_table_that_does_not_exist(table_of, message):
    camp, battle = _cam_two_tables()
    with pytest.raises(IllegalActionError) as exc:
        deploy_cam(camp, battle, table_of=table_of, lurking={"ship:6": (45, 0)})
    assert exc.value.rule == MULTI and message in str(exc.value)


# --- CAM 3.1 (a) on table 2 (ruling BZ92) --------------------------------------------------------

def _ordered_to_break(state, seat):
    link = state.cam
    battle = replace(link.battle, broken=MappingProxyType({**link.battle.broken, seat: 1}))
    return replace(state, cam=replace(link, battle=battle))


def _breaking_on_table_2():
    camp, battle = _cam_two_tables()
    state = deploy_cam(camp, battle, table_of={"ship:1": 2, "ship:4": 2})
    state = apply(state, A.Begin(), FixedDice([1, 1, 6, 6])).state  # seat 2 wins; seat 1 moves first
    state = _ordered_to_break(state, 2)
    return apply(state, A.Move(2, after=6), FixedDice([])).state  # seat 1 (not breaking) moves freely


def test_a_retreat_on_table_2_is_measured_by_table_2s_edges():
    """000 CAM 3.1 (a) "retreat towards their side of the table … may not move laterally, nor
    towards the enemy side" on table 2: by table 2's own edges (ruling BZ92)."""
    state = _breaking_on_table_2()
    ship = state.ship(4)  # seat 2's D7 on table 2, on its north edge, bow south
    assert state.table_of(ship.pos) == 1 and ship.pos[1] == 42.0
    for bad, why in ((A.Move(4, after=1), "laterally or toward the enemy"),
                     (A.Move(4, turn=2), "turns its full 3 point")):
        with pytest.raises(IllegalActionError, match=why) as exc:
            apply(state, bad, FixedDice([]))
        assert exc.value.rule == RETREAT_RULE
    # facing north, 2" from table 2's north edge: it runs its whole move off that edge and has left
    north = replace(state, ships=tuple(replace(s, heading=0.0, pos=(s.pos[0], 46.0)) if s.id == 4 else s
                                       for s in state.ships))
    with pytest.raises(IllegalActionError, match="laterally or toward the enemy"):
        apply(north, A.Move(4, turn=-3, after=3), FixedDice([]))  # west along table 2: lateral
    res = apply(north, A.Move(4, after=6), FixedDice([]))
    assert res.state.ship(4).status == "left"
    move = next(e for e in res.events if e.kind == "move")
    assert move.data["left"] and not move.data["transit"]


def test_the_doctrine_retreats_on_table_2_as_it_would_on_table_1():
    """The doctrine's retreat (BZ28) chooses on table 2 the very move it chooses on table 1 from
    the same place on its table: straight for its own edge of that table (ruling BZ92)."""
    state = _breaking_on_table_2()
    pitch = state.pitch
    turned = replace(state.ship(4), heading=30.0, pos=(50.0 + pitch, 30.0))
    on_2 = replace(state, ships=tuple(turned if s.id == 4 else s for s in state.ships))
    on_1 = replace(state, ships=tuple(replace(turned, pos=(50.0, 30.0)) if s.id == 4 else s for s in state.ships))
    move_2, move_1 = choose_move(on_2, on_2.ship(4)), choose_move(on_1, on_1.ship(4))
    assert move_2 == move_1 and move_2.before + move_2.after == 6.0  # its whole move, toward the north edge
    assert move_2 in legal_actions(on_2)
    after = apply(on_2, move_2, FixedDice([])).state
    assert after.ship(4).pos[1] > 30.0 + 5 and after.table_of(after.ship(4).pos) == 1


def test_the_doctrine_withdraws_off_the_nearest_edge_of_its_own_table():
    """11.7, ruling BZ60: a side that cannot hurt the enemy runs for the nearest edge of the table
    it is on (ruling BZ92)."""
    from tactical.rules.buoyz.state import MOVEMENT, new_battle, new_ship

    ships = [new_ship(1, 1, C["kobayashi_maru"], (1080.0 + 66.0, 24.0), 0.0),  # unarmed, on table 2
             new_ship(2, 2, C["d7"], (1080.0 + 20.0, 30.0), 180.0)]
    state = replace(new_battle(ships), tables=2, phase=MOVEMENT, turn=1, initiative=2, first=1, acting=1)
    move = choose_move(state, state.ship(1))
    after = apply(state, move, FixedDice([])).state
    assert after.ship(1).pos[0] > 1080.0 + 66.0  # east, toward table 2's east edge (the nearest)


def test_an_off_table_base_flight_goes_home_by_its_edge_of_its_own_table():
    """8.3 (BZ80) on table 2: its side's own edge of table 2, not of the first table (BZ92)."""
    camp, battle = _cam_two_tables(extras={1: {"extra_ac": 1, "bases": (8,)}})
    state = deploy_cam(camp, battle, table_of={"ac:1": 2})
    f = next(f for f in state.flights if f.offtable)
    assert f.pos == (36.0 + state.pitch, 2.0)
    from tactical.rules.buoyz.engine import edge_point
    assert edge_point(state, 1, f.pos) == (36.0 + state.pitch, 0.0)
    assert edge_point(state, 2, f.pos) == (36.0 + state.pitch, 48.0)
    assert edge_point(state, 1, (30.0, 10.0)) == (30.0, 0.0)


# --- the doctrine on split fleets (fixed seeds) ---------------------------------------------------

@pytest.mark.parametrize("seed, tables, where", [
    (0, 2, {1: [1, 2, 1], 2: [2, 1, 2]}),
    (1, 3, {1: [1, 3, 2], 2: 2}),
    (2, 3, {1: 1, 2: [3, 3, 1]}),
    (3, 2, {1: 2, 2: 2}),
])
def test_doctrine_battles_split_across_tables_end(seed, tables, where):
    """Fleets split across two or three tables: every doctrine action is legal, every ship is on a
    table, in transit or gone, and the battle ends (11.3, rulings BZ82, BZ90)."""
    fleet_1 = [C["constitution"], C["firecat"], C["d7"]]
    fleet_2 = [C["d7"], C["war_talon"], C["constitution"]]
    state = deploy({1: fleet_1, 2: fleet_2}, tables=tables, table_of=where, turn_cap=25)
    dice = SeededDice(derive_seed(f"multitable-{seed}"))
    steps = 0
    while not state.over:
        action = doctrine_action(state)
        check(state, action)
        state = apply(state, action, dice).state
        steps += 1
        assert steps < 20_000
        for s in state.ships:
            assert s.status != "active" or state.table_of(s.pos) is not None
            assert s.status != "transit" or state.table_of(s.pos) is not None
    assert outcome(state).ending


def test_ships_on_different_tables_that_can_never_meet_do_not_wait_for_the_turn_cap():
    """11.3 (only Warp capable ships move between tables), ruling BZ60 and BZ93: a War Talon
    (Impulse only) alone on table 1 cannot hurt a War Talon alone on table 2, nor it the first:
    neither side can hurt the other, so they leave (equal points: both) and the battle ends."""
    from tactical.rules.buoyz.doctrine import can_hurt, withdrawing

    state = deploy({1: [C["war_talon"]], 2: [C["war_talon"], C["d7"]]}, tables=2, table_of={2: [2, 1]})
    assert can_hurt(state, 1) and can_hurt(state, 2)  # the D7 (Warp) can reach table 2 too
    state = deploy({1: [C["war_talon"]], 2: [C["war_talon"]]}, tables=2, table_of={2: 2})
    assert not can_hurt(state, 1) and not can_hurt(state, 2)
    assert withdrawing(state, 1) and withdrawing(state, 2)
    dice = SeededDice(derive_seed("stranded"))
    while not state.over:
        action = doctrine_action(state)
        check(state, action)
        state = apply(state, action, dice).state
    assert state.turn < 10 and outcome(state).ending != "turn cap"


@pytest.mark.parametrize("seed", range(6))
def test_split_fleets_keep_every_property_and_replay(seed):
    """The properties of ``test_buoyz_properties`` (every listed action accepted, refusals change
    nothing, bounds, allowances, replay over the logged dice) with random fleets split at random
    over two or three tables (11.3, ruling BZ90)."""
    import random

    from tests.tactical.buoyz.test_buoyz_properties import KEYS, _play

    rng = random.Random(seed)
    tables = rng.choice([2, 3])
    fleets = {side: [C[rng.choice(KEYS)] for _ in range(rng.randint(1, 3))] for side in (1, 2)}
    where = {side: [rng.randint(1, tables) for _ in fleet] for side, fleet in fleets.items()}
    start = deploy(fleets, tables=tables, table_of=where, turn_cap=6)
    assert [start.table_of(s.pos) + 1 for s in start.ships] == where[1] + where[2]
    _play(start, seed, rng, rng.choice([0.0, 0.5, 0.9]))


def test_deal_tables_deals_each_seats_ships_over_the_tables_in_force_order():
    """Ruling BZ94 (a CAM scenario fought online with several gaming tables): ship 1 of each
    seat on table 1, ship 2 on table 2, … round again; bases, minefields, AC on the main table."""
    from tactical.rules.buoyz.cam import deal_tables

    camp, battle = _cam_two_tables(extras={1: {"extra_ac": 1, "bases": (8,)}})
    assert deal_tables(battle) == {"ship:1": 1, "ship:2": 2, "ship:3": 1, "ship:4": 1, "ship:5": 2, "ship:6": 1}
    one = replace(battle, scenario=replace(battle.scenario, tables=battle.scenario.tables[:1]))
    assert deal_tables(one) == {}
    state = deploy_cam(camp, battle, table_of=deal_tables(battle))
    assert [state.table_of(state.ship(sid).pos) for sid, _s, _u in state.cam.units] == [0, 1, 0, 0, 0, 1, 0]
