"""A CAM scenario fought on the Buoyz engine (000 CAM 3.0, 3.1; rulings BZ28, BZ29): ships set up
on the CAM 2.3 edges, the break-contact checks made by CAM's own functions after every End Phase,
retreat moves enforced, and the result scored exactly as the tabletop entry scores it."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from campaign.rules.cam.breakcontact import UnitState, record_damage
from campaign.rules.cam.scoring import record_scenario, score_scenario
from campaign.rules.dice import FixedDice, SeededDice, derive_seed
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz.cam import RETREAT_RULE, deploy_cam, retreat_problem
from tactical.rules.buoyz.doctrine import doctrine_action, simulate
from tactical.rules.buoyz.engine import apply, check, legal_actions, outcome
from tactical.rules.buoyz.state import IllegalActionError
from tests.rules.cam.builders import battle_with, campaign_of

FLEET_1 = ["constitution", "constitution", "firecat"]  # seat 1 (UFP): roster ids 1-3
FLEET_2 = ["d7", "d7", "war_talon"]  # seat 2 (Klingons): roster ids 4-6


def _cam(points_level=50):
    camp = campaign_of(FLEET_1, FLEET_2, period=2, points_level=points_level)
    battle = battle_with(camp, {1: [1, 2, 3], 2: [4, 5, 6]})
    return camp, battle


def test_deploy_on_the_cam_edges_and_link_every_ship():
    camp, battle = _cam()
    assert dict(battle.scenario.edges) == {1: "south", 2: "north"}
    state = deploy_cam(camp, battle)
    seat_1 = state.active_ships(1)
    seat_2 = state.active_ships(2)
    assert [s.sd.key for s in seat_1] == FLEET_1 and [s.sd.key for s in seat_2] == FLEET_2
    assert all(s.pos[1] == 6.0 and s.heading == 0.0 for s in seat_1)
    assert all(s.pos[1] == 42.0 and s.heading == 180.0 for s in seat_2)
    assert [uid for _sid, _seat, uid in state.cam.units] == [u.uid for s in (1, 2) for u in battle.force(s).units]


def _ordered_to_break(state, seat):
    link = state.cam
    battle = replace(link.battle, broken=MappingProxyType({**link.battle.broken, seat: 1}))
    return replace(state, cam=replace(link, battle=battle))


def test_a_side_breaking_contact_may_only_retreat():
    """000 CAM 3.1 (a): toward their side at maximum speed, never laterally nor toward the enemy
    (ruling BZ28)."""
    camp, battle = _cam()
    state = deploy_cam(camp, battle)
    state = apply(state, A.Begin(), FixedDice([1, 1, 6, 6])).state  # seat 2 wins; seat 1 moves first
    state = _ordered_to_break(state, 2)
    state = apply(state, A.Move(1, after=6), FixedDice([])).state  # seat 1 is not breaking: free
    # ship 4 is at the north edge, bow south (180 degrees off its own edge)
    for bad, why in ((A.Move(4, after=1), "laterally or toward the enemy"),
                     (A.Move(4, turn=2), "turns its full 3 point"),
                     (A.Move(4), "turns its full 3 point")):
        with pytest.raises(IllegalActionError, match=why) as exc:
            apply(state, bad, FixedDice([]))
        assert exc.value.rule == RETREAT_RULE
    moves = [a for a in legal_actions(state) if isinstance(a, A.Move) and a.ship == 4]
    assert moves and all(abs(m.turn) == 3 and m.before == m.after == 0 for m in moves)
    state = apply(state, A.Move(4, turn=-3), FixedDice([])).state  # 105 degrees to port: bow 75 off
    assert state.ship(4).heading == 75.0
    # facing its edge it must run at full speed, and may not run lateral
    turned = replace(state.ship(5), heading=0.0)
    assert retreat_problem(state, turned, A.Move(5, after=6)) is None
    assert "maximum speed" in retreat_problem(state, turned, A.Move(5, after=5))
    assert "turn away" in retreat_problem(state, turned, A.Move(5, before=3, turn=3))


def test_leaving_by_its_own_edge_breaks_contact_and_cam_scores_it():
    """000 CAM 3.0 step 2: when every side ordered to break contact has left the table, the
    points are tallied (+50 for the side not forced to break) by CAM's own scoring."""
    camp, battle = _cam()
    state = deploy_cam(camp, battle)
    state = apply(state, A.Begin(), FixedDice([1, 1, 6, 6])).state
    state = _ordered_to_break(state, 2)
    dice = SeededDice(derive_seed("cam-leave"))
    while not state.over:
        action = doctrine_action(state)
        check(state, action)
        state = apply(state, action, dice).state
    result = outcome(state)
    cam_battle = result.cam_battle
    assert cam_battle.contact_broken
    assert result.cam_score == score_scenario(cam_battle)
    assert result.winner == result.cam_score.winner
    for ship_id, seat, uid in state.cam.units:
        ship, status = state.ship(ship_id), cam_battle.status[seat][uid]
        expect = {
            "active": UnitState.ON_TABLE,
            "left": UnitState.LEFT,
            "lurking": UnitState.LEFT,
            "destroyed": UnitState.DESTROYED,
        }[ship.status]
        assert status.state is expect
    assert all(state.ship(sid).status != "active" for sid, seat, _ in state.cam.units if seat == 2)


@pytest.mark.parametrize("seed", range(4))
def test_doctrine_cam_battles_end_and_hand_the_tabletop_result_to_the_campaign(seed):
    """The engine's CAM record is built by ``record_damage``/``end_of_turn`` exactly as the
    tabletop entry builds it; ``record_scenario`` accepts its score (CAM 4.3)."""
    camp, battle = _cam(points_level=50)
    state = deploy_cam(camp, battle)
    end = simulate(state, SeededDice(derive_seed(f"cam-doctrine-{seed}")))
    result = outcome(end)
    assert end.over and result.cam_score is not None
    forced = not result.cam_battle.contact_broken
    assert result.cam_score == score_scenario(result.cam_battle, force_end=forced)
    # the same facts typed in at the tabletop give the same score
    typed = battle
    for seat in battle.scenario.seats:
        facts = {"destroyed": [], "crippled": [], "left": []}
        for ship_id, s, uid in end.cam.units:
            ship = end.ship(ship_id)
            if s != seat:
                continue
            if ship.status == "destroyed":
                facts["destroyed"].append(uid)
            elif ship.status in ("left", "lurking"):  # CAM 3.1 (b), (c): a lurker has gone
                facts["left"].append(uid)
            if ship.crippled and ship.status != "destroyed":
                facts["crippled"].append(uid)
        typed = record_damage(typed, seat, **facts)
    typed = replace(typed, broken=result.cam_battle.broken, turn=result.cam_battle.turn)
    assert score_scenario(typed, force_end=forced) == result.cam_score
    record_scenario(camp, result.cam_battle, result.cam_score)


def test_last_retreat_and_other_losses_recorded_in_one_end_phase():
    """Regression: the breaking side's last ship leaving breaks all contact (CAM 3.0), and the
    CAM record refuses anything after that; the other side's losses of the same turn must be
    recorded first (they were refused with a BattleError)."""
    from tactical.rules.buoyz.cam import sync

    camp, battle = _cam()
    state = _ordered_to_break(deploy_cam(camp, battle), 1)
    ships = tuple(replace(s, status="left") if s.side == 1 else
                  replace(s, status="destroyed", hull=0) if s.id == 4 else s for s in state.ships)
    state = sync(replace(state, ships=ships))
    assert state.cam.battle.contact_broken
    assert state.cam.battle.status[2]["ship:4"].state is UnitState.DESTROYED


@pytest.mark.parametrize("seed", range(8))
def test_random_cam_scenarios_end_scored_and_recorded(seed):
    """Random fleets of the book's SDs of a random period, as CAM scenarios on the engine: every
    one ends (contact broken, or forced), raises nothing and hands the campaign its score."""
    import random

    from campaign.rules.cam.ships import STARTER_CATALOGUE

    rng = random.Random(seed)
    period = rng.randint(1, 6)
    pool = [k for k, sd in STARTER_CATALOGUE.items() if sd.available_in(period)]
    f1 = [rng.choice(pool) for _ in range(rng.randint(1, 4))]
    f2 = [rng.choice(pool) for _ in range(rng.randint(1, 4))]
    camp = campaign_of(f1, f2, period=period, points_level=200)
    battle = battle_with(camp, {1: list(range(1, len(f1) + 1)), 2: list(range(len(f1) + 1, len(f1) + len(f2) + 1))})
    state = deploy_cam(camp, battle)
    dice = SeededDice(derive_seed(f"cam-random-{seed}"))
    while not state.over:
        action = doctrine_action(state)
        check(state, action)
        state = apply(state, action, dice).state
    result = outcome(state)
    assert result.cam_score == score_scenario(result.cam_battle, force_end=not result.cam_battle.contact_broken)
    record_scenario(camp, result.cam_battle, result.cam_score)


def test_cam_table_nature_placed_at_random():
    """000 CAM 2.3: planets, moons and nebulae "placed at random on the playing area" - by the
    dice (ruling BZ49: at least 12\" from every edge; a gas giant's moons around it)."""
    from campaign.rules.cam.scenario import Table, TableNature

    camp, battle = _cam()
    assert deploy_cam(camp, battle, dice=FixedDice([])).objects == ()  # open space: nothing to place
    giant = replace(battle, scenario=replace(battle.scenario, tables=(Table(5, 5, TableNature.GAS_GIANT, moons=3),)))
    dice = FixedDice([25, 13, 3, 1, 6, 2, 12, 3])
    objects = deploy_cam(camp, giant, dice=dice).objects
    assert [(o.kind, o.centre, o.radius) for o in objects] == [
        ("planet", (36.0, 24.0), 4.0), ("moon", (42.0, 24.0), 1.0), ("moon", (36.0, 17.0), 1.0),
        ("moon", (36.0, 32.0), 1.0)]
    assert [r.expression for r in dice.rolls] == ["1d49", "1d25", "1d12", "1d3", "1d12", "1d3", "1d12", "1d3"]
    nebulae = replace(battle, scenario=replace(battle.scenario, tables=(Table(6, 6, TableNature.NEBULAE),)))
    objects = deploy_cam(camp, nebulae, dice=FixedDice([1, 1, 49, 25])).objects
    assert [(o.kind, o.centre) for o in objects] == [("nebula", (12.0, 12.0)), ("nebula", (60.0, 36.0))]


def test_deploy_cam_places_bases_minefields_and_extra_ac():
    """000 CAM 2.2 extras on the engine's table (ruling BZ56): a Planetary Battery / Base fights as
    a ship of its own SD (11.2) linked to its CAM unit, a pre-set 12\" square minefield lies 20\"
    in from its owner's edge, extra AC counters fly from an off-table base (8.1, 8.3)."""
    from campaign.rules.cam.breakcontact import UnitState
    from tactical.rules.buoyz.cam import sync

    camp = campaign_of(FLEET_1, FLEET_2, period=2, points_level=60)
    battle = battle_with(camp, {1: [1, 2, 3], 2: [4, 5, 6]},
                         extras={1: {"extra_ac": 2, "bases": (8,), "minefields": (3,)}})
    state = deploy_cam(camp, battle, extra_ac_kinds={1: ("shuttle",)})  # the second: the default (BZ56)
    base_id = next(sid for sid, seat, uid in state.cam.units if uid == "base:1")
    base = state.ship(base_id)
    assert base.side == 1 and base.sd.speed is None and base.sd.hull == 8 and base.pos == (36.0, 12.0)
    assert [(m.side, m.centre, m.length, m.width) for m in state.minefields] == [(1, (36.0, 20.0), 12.0, 12.0)]
    extra = [f for f in state.flights if f.offtable]
    assert [(f.side, f.kind, f.dogfight, f.status, f.pos) for f in extra] == [
        (1, "shuttle", 0, "flying", (34.5, 2.0)), (1, "bomber", 0, "flying", (37.5, 2.0))]
    assert [uid for _f, _s, uid in state.cam.flights] == ["ac:1", "ac:2"]
    # a lost extra AC counter and a destroyed base are recorded in the CAM battle
    lost = replace(extra[0], status="lost", pos=None)
    state = replace(state, flights=tuple(lost if f.id == lost.id else f for f in state.flights),
                    ships=tuple(replace(s, status="destroyed", hull=0) if s.id == base_id else s for s in state.ships))
    state = sync(state)
    assert state.cam.battle.status[1]["ac:1"].state is UnitState.DESTROYED
    assert state.cam.battle.status[1]["base:1"].state is UnitState.DESTROYED
    assert state.cam.battle.status[1]["ac:2"].state is UnitState.ON_TABLE


def test_deploy_cam_base_by_the_planet_and_lurkers():
    """Ruling BZ56: with a planet on the table, bases stand ½\" off it toward their own edge;
    ``lurking`` starts cloak-capable ships lurking in a 2' square (10.2)."""
    from campaign.rules.cam.scenario import Table, TableNature

    camp = campaign_of(FLEET_1, FLEET_2, period=2, points_level=60)
    battle = battle_with(camp, {1: [1, 2, 3], 2: [4, 5, 6]}, extras={1: {"bases": (8,)}})
    planet = replace(battle, scenario=replace(battle.scenario, tables=(Table(3, 3, TableNature.TERRESTRIAL_PLANET),)))
    state = deploy_cam(camp, planet, dice=FixedDice([25, 13]), lurking={"ship:6": (1, 1)}, rotation=True)
    assert state.objects[0].centre == (36.0, 24.0) and state.rotation
    base = next(state.ship(sid) for sid, _s, uid in state.cam.units if uid == "base:1")
    assert base.pos == (36.0, 20.5)  # the planet's south side (radius 3, ½" off)
    talon = next(state.ship(sid) for sid, _s, uid in state.cam.units if uid == "ship:6")
    assert talon.status == "lurking" and talon.zone == (1, 1) and talon.cloaked
    with pytest.raises(ValueError, match="no cloaking device"):
        deploy_cam(camp, battle, lurking={"ship:4": (0, 0)})
    with pytest.raises(ValueError, match="no 2' square"):
        deploy_cam(camp, battle, lurking={"ship:6": (3, 0)})


def test_break_contact_order_sends_cloak_capable_ships_lurking():
    """000 CAM 3.1 (b) (ruling BZ52): when the order is issued, "all their cloak capable
    start/re-start 'lurking'" - at once, in their 2' square; CAM (c) counts a ship "reverted to
    'lurking'" as gone, so here (its other ships destroyed) all contact is broken."""
    from tactical.rules.buoyz import engine as E
    from tactical.rules.buoyz.cam import end_phase

    camp, battle = _cam()
    state = apply(deploy_cam(camp, battle), A.Begin(), FixedDice([1, 1, 6, 6])).state
    state = replace(state, ships=tuple(replace(s, status="destroyed", hull=0) if s.id in (4, 5) else s
                                       for s in state.ships))
    ctx = E._Ctx(FixedDice([1]))  # seat 2 (both capital ships gone) rolls 1: ordered to break contact
    state = end_phase(state, ctx)
    talon = state.ship(6)
    assert talon.status == "lurking" and talon.zone == (1, 1) and talon.cloaked
    assert any(e.kind == "lurk" and e.data["ship"] == 6 for e in ctx.events)
    assert state.cam.battle.status[2]["ship:6"].state is UnitState.LEFT
    assert state.cam.battle.contact_broken
    with pytest.raises(IllegalActionError):
        check(state, A.Reveal(6, (36.0, 36.0)))


def test_breaking_side_sorties_ac_until_its_last_ship_has_gone():
    """000 CAM 3.1 (c), (e) (ruling BZ52): a side breaking contact still flies and attacks with its
    AC while a ship of it is on the table; once the last has left, its AC leave with it."""
    from tactical.rules.buoyz import engine as E
    from tactical.rules.buoyz.cam import end_phase

    camp = campaign_of(FLEET_1, FLEET_2, period=2, points_level=60)
    battle = battle_with(camp, {1: [1, 2, 3], 2: [4, 5, 6]}, extras={2: {"extra_ac": 1, "bases": (6,)}})
    state = apply(deploy_cam(camp, battle, extra_ac_kinds={2: ("bomber",)}), A.Begin(), FixedDice([1, 1, 6, 6])).state
    state = _ordered_to_break(state, 2)
    bomber = next(f for f in state.flights if f.offtable)
    near = replace(bomber, pos=(36.0, 7.5))  # by seat 1's line
    state = replace(state, flights=tuple(near if f.id == near.id else f for f in state.flights),
                    phase="ac_movement", acting=2, ac_slot=3)
    check(state, A.FlyAC(near.id, (36.0, 7.0), attack=1))  # (c): it may still attack
    assert any(isinstance(a, A.FlyAC) and a.attack == 1 for a in legal_actions(state))
    gone = replace(state, phase="attack", ships=tuple(replace(s, status="left") if s.side == 2 and s.sd.speed else s
                                                      for s in state.ships))
    ctx = E._Ctx(FixedDice([]))
    gone = end_phase(gone, ctx)
    assert gone.flight(near.id).status == "left"
    assert gone.cam.battle.status[2]["ac:1"].state is UnitState.LEFT
    assert gone.cam.battle.contact_broken  # the base stays (CAM15) and does not hold contact


@pytest.mark.parametrize("seed", range(6))
def test_random_cam_scenarios_with_extras_end_scored_and_recorded(seed):
    """CAM scenarios with bases, pre-set minefields, extra AC counters, a table nature, lurkers and
    rotation (rulings BZ52-BZ58) fought by the doctrine: every one ends, raises nothing, and hands
    the campaign a score that the tabletop entry's functions accept."""
    import random

    from campaign.rules.cam.scenario import Table, TableNature
    from campaign.rules.cam.ships import STARTER_CATALOGUE

    rng = random.Random(f"extras-{seed}")
    period = rng.choice([2, 3, 5])
    pool = [k for k, sd in STARTER_CATALOGUE.items() if sd.available_in(period)]
    f1 = [rng.choice(pool) for _ in range(rng.randint(1, 3))]
    f2 = [rng.choice(pool) for _ in range(rng.randint(1, 3))] + (["b_rel"] if period >= 3 else ["war_talon"])
    camp = campaign_of(f1, f2, period=period, points_level=200, starting_points=400)
    extras = {1: {"bases": (rng.randint(6, 11),), "extra_ac": rng.randint(0, 2), "minefields": (rng.randint(1, 6),)},
              2: {"bases": (rng.randint(6, 11),), "extra_ac": rng.randint(0, 2)}}
    battle = battle_with(camp, {1: list(range(1, len(f1) + 1)), 2: list(range(len(f1) + 1, len(f1) + len(f2) + 1))},
                         extras=extras)
    nature = rng.choice([TableNature.TERRESTRIAL_PLANET, TableNature.GAS_GIANT, TableNature.NEBULAE])
    battle = replace(battle, scenario=replace(battle.scenario, tables=(Table(5, 5, nature, moons=2),)))
    cloaked = f"ship:{len(f1) + len(f2)}"
    state = deploy_cam(camp, battle, dice=SeededDice(derive_seed(f"extras-table-{seed}")),
                       lurking={cloaked: (rng.randint(0, 2), 1)} if rng.random() < 0.5 else None, rotation=True)
    dice = SeededDice(derive_seed(f"cam-extras-{seed}"))
    while not state.over:
        action = doctrine_action(state)
        check(state, action)
        state = apply(state, action, dice).state
    result = outcome(state)
    assert result.cam_score == score_scenario(result.cam_battle, force_end=not result.cam_battle.contact_broken)
    record_scenario(camp, result.cam_battle, result.cam_score)


def test_deploy_cam_keeps_the_scenario_edges_and_break_levels():
    """000 CAM 2.3: the edges each side advances from and the 'Break Contact' points levels are the
    scenario's; the engine's own-edge view (retreats, off-table AC) follows them."""
    camp, battle = _cam()
    east = replace(battle, scenario=replace(battle.scenario, edges=MappingProxyType({1: "east", 2: "west"})))
    state = deploy_cam(camp, east)
    assert state.edge(1) == "east" and state.edge(2) == "west"
    assert all(s.pos[0] == 66.0 and s.heading == 270.0 for s in state.active_ships(1))
    for seat in (1, 2):
        assert state.cam.break_level(seat) == battle.scenario.break_levels[seat] > 0
        assert state.cam.losses(seat) == 0


def test_deploy_cam_multi_tables_place_each_tables_nature():
    """000 CAM 2.3 "If using multi-tables (see 11.3. of main rules) roll for each table separately":
    each table's nature is placed on its own table, in table order (rulings BZ49, BZ82)."""
    from campaign.rules.cam.scenario import Table, TableNature

    camp, battle = _cam()
    two = replace(battle, scenario=replace(battle.scenario, tables=(Table(3, 3, TableNature.TERRESTRIAL_PLANET),
                                                                    Table(6, 6, TableNature.NEBULAE))))
    dice = FixedDice([25, 13, 1, 1, 49, 25])
    state = deploy_cam(camp, two, dice=dice)
    assert state.tables == 2 and state.pitch == 1080.0
    assert [(o.id, o.kind, o.centre, state.table_of(o.centre)) for o in state.objects] == [
        (1, "planet", (36.0, 24.0), 0), (2, "nebula", (1092.0, 12.0), 1), (3, "nebula", (1140.0, 36.0), 1)]
    assert "(table 2)" in dice.rolls[-1].purpose
    assert all(state.table_of(s.pos) == 0 for s in state.ships)
