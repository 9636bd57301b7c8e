"""The Buoyz doctrine: plays either side with legal actions only, and battles end (issue 16)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from campaign.rules.dice import FixedDice, SeededDice, derive_seed
from tactical.rules import registry
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz.deploy import deploy
from tactical.rules.buoyz.doctrine import choose_fire, choose_move, doctrine_action, simulate
from tactical.rules.buoyz.engine import apply, check, outcome
from tactical.rules.buoyz.sds import CATALOGUE, random_fleet
from tactical.rules.buoyz.state import new_battle, new_ship


@pytest.mark.parametrize("seed", range(20))
def test_doctrine_battles_end_with_a_result(seed):
    """Random CAM-legal 60-point fleets of a random period (CAM 2.2), doctrine against doctrine."""
    rng = random.Random(seed)
    period = rng.randint(1, 6)
    state = deploy({1: random_fleet(rng, period, 60), 2: random_fleet(rng, period, 60)})
    dice = SeededDice(derive_seed(f"buoyz-doctrine-{seed}"))
    steps = 0
    while not state.over:
        action = doctrine_action(state)
        check(state, action)  # the doctrine never makes an illegal action
        state = apply(state, action, dice).state
        steps += 1
        assert steps < 20_000
    result = outcome(state)
    alive = {s.side for s in state.ships if s.active}
    assert result.winner is None or alive == {result.winner}
    assert result.ending in ("field held", "mutual destruction")  # never undecided at the cap (BZ60, BZ61)
    assert (result.winner is None) == (result.ending == "mutual destruction")


def test_doctrine_focuses_fire_on_the_weakest_target_in_arc():
    """Each weapon system fires at the eligible enemy with the least hull left."""
    c = CATALOGUE
    state = new_battle([new_ship(1, 1, c["galaxy"], (10, 10)), new_ship(2, 2, c["d7"], (10, 13), 180),
                        new_ship(3, 2, c["b_rel"], (12, 11), 180)])
    from dataclasses import replace

    state = replace(state, phase="attack", turn=1, initiative=1, first=1, acting=1)
    fire = choose_fire(state, state.ship(1))
    # the torpedoes (fore and aft arcs) cannot reach the B'Rel on the starboard beam
    assert fire.shots == (("main0", 3, 6), ("main1", 2, 2), ("secondary", 3, 3))
    check(state, fire)


def test_doctrine_closes_on_the_enemy():
    c = CATALOGUE
    state = deploy({1: [c["constitution"]], 2: [c["d7"]]})
    state = apply(state, A.Begin(), SeededDice(derive_seed("close"))).state
    mover = state.ship(next(s.id for s in state.active_ships(state.acting)))
    enemy = state.active_ships(state.other(mover.side))[0]
    from tactical.rules.buoyz.geometry import distance

    before = distance(mover.pos, enemy.pos)
    dice = SeededDice(derive_seed("c2"))
    first = doctrine_action(state)
    assert first == A.Special(mover.id, "flank_speed")  # far from any enemy: Flank Speed first
    state = apply(state, first, dice).state
    state = apply(state, doctrine_action(state), dice).state
    assert state.ship(mover.id).moved
    assert distance(state.ship(mover.id).pos, enemy.pos) < before - 5


def test_registered_as_buoyz_and_resolves_a_battle():
    record = registry.find_resolver("buoyz")
    assert record.name == "buoyz" and "Buoyz" in record.title
    state = deploy({1: [CATALOGUE["constitution"]], 2: [CATALOGUE["d7"]]})
    result = record.resolve(state, SeededDice(derive_seed("registry")))
    assert result.over
    end = simulate(state, SeededDice(derive_seed("registry")))
    assert outcome(end) == result


@pytest.mark.parametrize("seed", range(4))
def test_doctrine_plays_squadrons_legally(seed):
    """11.1: squadrons nominated together and kept in formation; the battle still ends."""
    from tactical.rules.buoyz.state import Orders

    c = CATALOGUE
    fleet = [c["constitution"], c["constitution"], c["firecat"], c["kobayashi_maru"]]
    state = deploy({1: fleet, 2: [c["d7"], c["d7"], c["war_talon"]]},
                   orders={1: Orders(squadrons=((1, 2, 3),)), 2: Orders(squadrons=((5, 6),))})
    dice = SeededDice(derive_seed(f"squadron-{seed}"))
    while not state.over:
        action = doctrine_action(state)
        check(state, action)
        state = apply(state, action, dice).state
    assert state.over


# --- how battles end (rulings BZ60, BZ61) ---------------------------------------------------------

def _moving(ships, side=1):
    state = new_battle(ships)
    return replace(state, phase="movement", turn=1, initiative=side, first=side, acting=side)


def _bench_battle(name: str, points: int = 60):
    """The battle ``bench/buoyz.py`` plays for a named seed."""
    rng = random.Random(name)
    period = rng.randint(1, 6)
    state = deploy({1: random_fleet(rng, period, points), 2: random_fleet(rng, period, points)})
    return state, SeededDice(derive_seed(name))


@pytest.mark.parametrize("name", ["bench-buoyz-60-639", "bench-buoyz-60-872", "bench-buoyz-60-999"])
def test_battles_that_used_to_reach_the_turn_cap_now_end_with_a_winner(name):
    """These three reached the 40-turn cap undecided: ships left with nothing to hurt the enemy
    with (spent one-shot torpedoes, unarmed transports) closed on it and sat there. Now a side
    that can no longer hurt the enemy leaves the table (11.7; ruling BZ60), and a ship with
    nothing left to fight with rams or self-destructs when that costs the enemy more (7.2), so
    one side holds the field."""
    state, dice = _bench_battle(name)
    while not state.over:
        action = doctrine_action(state)
        check(state, action)
        state = apply(state, action, dice).state
    result = outcome(state)
    assert result.ending == "field held" and result.winner is not None
    assert state.turn < state.turn_cap


def test_a_side_that_cannot_hurt_the_enemy_withdraws_off_the_nearest_edge():
    from tactical.rules.buoyz.doctrine import can_hurt, withdrawing

    c = CATALOGUE
    state = _moving([new_ship(1, 1, c["kobayashi_maru"], (36, 5), 180),  # an unarmed transport
                     new_ship(2, 2, c["d7"], (36, 30), 180)])
    assert not can_hurt(state, 1) and can_hurt(state, 2)
    assert withdrawing(state, 1) and not withdrawing(state, 2)
    assert doctrine_action(state) == A.Special(1, "flank_speed")  # to get away faster (then Maximum Warp)
    state = apply(state, A.Special(1, "flank_speed"), FixedDice([1])).state  # fails: it still moves
    move = doctrine_action(state)
    state = apply(state, move, FixedDice([])).state
    assert state.ship(1).pos == (36.0, 2.0)  # its whole move toward the south edge, the nearest
    state = replace(state, ships=(replace(state.ship(1), moved=False),) + state.ships[1:], acting=1)
    state = apply(state, choose_move(state, state.ship(1)), FixedDice([])).state
    assert state.ship(1).status == "left"  # off the table: it has left the battle (11.7)


def test_when_neither_side_can_hurt_the_other_the_weaker_leaves():
    from tactical.rules.buoyz.doctrine import withdrawing

    c = CATALOGUE
    state = deploy({1: [c["kobayashi_maru"]], 2: [c["kobayashi_maru"], c["kobayashi_maru"]]})
    assert withdrawing(state, 1) and not withdrawing(state, 2)


def test_a_spent_one_shot_ship_can_no_longer_hurt_but_a_carrier_with_bombers_can():
    from tactical.rules.buoyz.doctrine import can_hurt

    c = CATALOGUE
    state = deploy({1: [c["runabouts"]], 2: [c["valkyrie"]]})
    assert can_hurt(state, 1)
    spent = replace(state, ships=(replace(state.ship(1), spent=("main0",)),) + state.ships[1:])
    assert not can_hurt(spent, 1)
    assert can_hurt(state, 2)  # the Valkyrie's bombers rearm aboard it (8.3)


def test_both_sides_destroyed_is_mutual_destruction():
    """Ruling BZ61: no ship of either side left on the table is a defined end, mutual
    destruction: nobody holds the field (no winner). Here side 1's last ship, crippled with one
    hull point left, self-destructs beside side 2's last, also crippled (7.2, 11.6)."""
    c = CATALOGUE
    state = _moving([new_ship(1, 1, c["constitution"], (30, 30)), new_ship(2, 2, c["d7"], (30.8, 30), 180)])
    state = replace(state, ships=tuple(replace(s, hull=1, crippled=True) for s in state.ships))
    assert doctrine_action(state) != A.Special(1, "self_destruct")  # the doctrine keeps its last ship
    action = A.Special(1, "self_destruct")
    # Command check 6; the explosion's 1D6: 1 hit; its damage die 6 goes through the shields
    res = apply(state, action, FixedDice([6, 1, 6]))
    end = res.state
    assert end.over and not end.active_ships()
    result = outcome(end)
    assert result.ending == "mutual destruction" and result.winner is None
    assert "Mutual destruction" in res.events[-1].text


def test_mutual_destruction_in_a_cam_scenario_is_scored_on_points_left():
    """Ruling BZ61: a CAM scenario ending in mutual destruction is a forced end (CAM15), scored
    by CAM 3.1's own tally: each side's force less its points destroyed, +50 when not ordered to
    break contact; here both lose everything, so it is a draw."""
    from campaign.rules.cam.scoring import score_scenario
    from tactical.rules.buoyz.cam import deploy_cam
    from tests.rules.cam.builders import battle_with, campaign_of

    camp = campaign_of(["constitution"], ["d7"], period=2, points_level=200)
    battle = battle_with(camp, {1: [1], 2: [2]})
    state = deploy_cam(camp, battle)
    a, b = state.ships
    state = replace(state, ships=(replace(a, pos=(30.0, 30.0), hull=1, crippled=True),
                                  replace(b, pos=(30.8, 30.0), hull=1, crippled=True)),
                    phase="movement", turn=1, initiative=a.side, first=a.side, acting=a.side)
    end = apply(state, A.Special(a.id, "self_destruct"), FixedDice([6, 1, 6])).state
    result = outcome(end)
    assert result.ending == "mutual destruction"
    assert result.cam_score == score_scenario(result.cam_battle, force_end=True)
    assert all(side.points_left == 0 and side.total == 50 for side in result.cam_score.sides.values())
    assert result.winner is None and result.cam_score.winner is None


# --- the doctrine's other behaviours (issue 16 item 6) --------------------------------------------

def test_a_spent_ship_rams_a_dearer_enemy_within_2_inches():
    c = CATALOGUE
    state = _moving([new_ship(1, 1, c["runabouts"], (30, 30)), new_ship(2, 2, c["galaxy"], (30, 31.5), 180),
                     new_ship(3, 1, c["galaxy"], (10, 10))])
    state = replace(state, ships=(replace(state.ship(1), spent=("main0",)),) + state.ships[1:])
    action = doctrine_action(state)
    assert action == A.Special(1, "ramming", 2)
    check(state, action)
    alone = replace(state, ships=state.ships[:2] + (replace(state.ship(3), status="destroyed", hull=0),))
    assert doctrine_action(alone) != action  # never its side's last ship


def test_a_doomed_ship_self_destructs_among_dearer_enemies():
    """7.2 Self-Destruct!, 11.6: each ship within 1\" takes 1D6 hits."""
    c = CATALOGUE
    state = _moving([new_ship(1, 1, c["constitution"], (30, 30)), new_ship(2, 2, c["d7"], (30.8, 30), 180),
                     new_ship(3, 1, c["constitution"], (10, 10))])
    state = replace(state, ships=(replace(state.ship(1), hull=1, crippled=True),
                                  replace(state.ship(2), crippled=True, hull=2), state.ship(3)))
    action = doctrine_action(state)
    assert action == A.Special(1, "self_destruct")  # a crippled D7 cannot be rammed to more effect
    check(state, action)


def test_an_armed_healthy_ship_does_not_ram():
    c = CATALOGUE
    state = _moving([new_ship(1, 1, c["runabouts"], (30, 30)), new_ship(2, 2, c["galaxy"], (30, 31.5), 180)])
    assert not (isinstance(doctrine_action(state), A.Special) and doctrine_action(state).action == "ramming")


def test_a_crippled_ship_under_the_guns_goes_dark_while_its_side_fights_on():
    c = CATALOGUE
    state = _moving([new_ship(1, 1, c["constitution"], (30, 10)), new_ship(2, 1, c["constitution"], (40, 10)),
                     new_ship(3, 2, c["d7"], (30, 20), 180)])
    state = replace(state, ships=(replace(state.ship(1), crippled=True, hull=3),) + state.ships[1:])
    action = doctrine_action(state)
    assert action == A.Special(1, "ecm")
    check(state, action)
    alone = replace(state, ships=(state.ship(1), replace(state.ship(2), status="destroyed", hull=0), state.ship(3)))
    assert doctrine_action(alone) != A.Special(1, "ecm")  # its side's last fighter fights on


def test_red_alert_for_a_ship_with_critical_effects_to_repair():
    c = CATALOGUE
    state = _moving([new_ship(1, 1, c["constitution"], (30, 10)), new_ship(2, 2, c["d7"], (30, 22), 180)])
    state = replace(state, ships=(replace(state.ship(1), crits=(1, 0, 0)), state.ship(2)))
    assert doctrine_action(state) == A.Special(1, "red_alert")


def test_a_war_talon_lays_its_pursuit_mine_with_an_enemy_astern():
    """7.3 Romulan Pursuit Mine (5.10, ruling BZ33): laid behind it as it runs from a pursuer
    (here it has nothing left to fight with and leaves the table)."""
    c = CATALOGUE
    state = _moving([new_ship(1, 1, c["war_talon"], (36, 8), 180, spent=("main0", "main1", "secondary")),
                     new_ship(2, 2, c["d7"], (36, 14), 180)])
    move = choose_move(state, state.ship(1))
    assert move.lay_mine and move.turn == 0 and move.after == 2  # all of its Impulse move (BZ16)
    after = apply(state, move, FixedDice([])).state
    assert len(after.minefields) == 1 and "pursuit_mine" in after.ship(1).spent


def test_the_doctrine_steers_round_a_minefield():
    """5.10: a path through a minefield rolls for a mine hit; closing on a far enemy, the
    doctrine goes round one rather than through it."""
    from tactical.rules.buoyz.engine import _end_of
    from tactical.rules.buoyz.geometry import advance, norm, segment_crosses_rect, turn_degrees
    from tactical.rules.buoyz.state import Minefield

    c = CATALOGUE
    state = _moving([new_ship(1, 1, c["d7"], (30, 10)), new_ship(2, 2, c["constitution"], (30, 40), 180)])
    plain = choose_move(state, state.ship(1))
    assert plain.turn == 0 and plain.after == 6  # straight at the enemy
    field = Minefield(1, 2, (30.0, 13.0), 0.0, length=3.0, width=1.0)
    mined = replace(state, minefields=(field,))
    move = choose_move(mined, mined.ship(1))
    check(mined, move)
    ship = mined.ship(1)
    mid = advance(ship.pos, ship.heading, move.before)
    legs = [(ship.pos, mid), (mid, _end_of(ship, move))]
    assert norm(turn_degrees(move.turn)) != 0.0
    assert not any(segment_crosses_rect(a, b, field.centre, field.heading, field.length, field.width)
                   for a, b in legs if a != b)


def test_a_minesweeper_sweeps_a_field_across_its_path():
    from tactical.rules.buoyz.state import Minefield

    c = CATALOGUE
    sweeper = replace(c["kobayashi_maru"], key="sweeper", special_abilities=("Minesweeper",))
    state = _moving([new_ship(1, 1, sweeper, (30, 10)), new_ship(2, 1, c["d7"], (40, 10)),
                     new_ship(3, 2, c["constitution"], (30, 40), 180)])
    walls = tuple(Minefield(i, 2, (30.0 + dx, 11.0), 0.0, length=1.0, width=0.5)
                  for i, dx in enumerate((-3, -2, -1, 0, 1, 2, 3)))  # a wide field across its bow
    mined = replace(state, minefields=walls)
    move = choose_move(mined, mined.ship(1))
    check(mined, move)
    assert move.sweep and move.before + move.after == 2
    after = apply(mined, move, FixedDice([])).state
    assert len(after.minefields) < len(walls)


def test_fast_pose_scoring_decides_as_the_plain_geometry():
    """choose_move's inline scorer gives exactly what ``geometry`` gives (poses, ranges rounded
    as 1.1, Template 1 arcs on and near the quadrant boundaries)."""
    from tactical.rules.buoyz.doctrine import _bearing_dice, _best_move, _pose
    from tactical.rules.buoyz.engine import ship_moves
    from tactical.rules.buoyz.geometry import advance, arcs_of, distance, inches

    def plain(state, ship, options, weapons, near):
        def score(m):
            pos, h = _pose(ship, m)
            w, hgt = state.table
            if not (0 <= pos[0] <= w and 0 <= pos[1] <= hgt):
                return (-1e9, -m.before - m.after)
            dice = sum(weight for e in near for arcs, rng, weight in weapons
                       if inches(pos, e.pos) <= rng and arcs_of(pos, h, e.pos) & arcs)
            nearest = min((distance(pos, e.pos) for e in near), default=None)
            edge = min(pos[0], pos[1], w - pos[0], hgt - pos[1])
            return (dice * 10 - (nearest or 0.0) - (5.0 if edge < 3 else 0.0), -m.before - m.after)
        return max((m for m in options if not m.lay_mine and not m.sweep), key=score)

    rng = random.Random(16)
    keys = sorted(CATALOGUE)
    for _ in range(150):
        me = new_ship(1, 1, CATALOGUE[rng.choice(keys)], (rng.uniform(5, 67), rng.uniform(5, 43)),
                      rng.choice([0, 45, 90, 135, 180, 225, 270, 315, rng.uniform(0, 360)]))
        enemies = []
        for i in range(rng.randint(1, 4)):
            d, b = rng.choice([rng.uniform(0.5, 14), 4.5, 6.5, 8.5]), rng.choice([45.0, 135.0, rng.uniform(0, 360)])
            enemies.append(new_ship(2 + i, 2, CATALOGUE[rng.choice(keys)], advance(me.pos, me.heading + b, d)))
        state = new_battle([me, *enemies])
        options = ship_moves(state, me)
        weapons = _bearing_dice(me, enemies)
        assert _best_move(state, me, options, weapons, enemies) == plain(state, me, options, weapons, enemies)


def test_a_cloak_capable_ship_cloaks_to_leave_the_table_under_the_guns():
    """10.2; CAM 3.1 (b): a ship leaving the table (ruling BZ60) cloaks when an armed enemy
    could reach it, and moves on cloaked (at half speed) without uncloaking."""
    c = CATALOGUE
    state = _moving([new_ship(1, 1, c["war_talon"], (36, 8), 180, spent=("main0", "main1", "secondary")),
                     new_ship(2, 2, c["d7"], (36, 14), 180)])
    action = doctrine_action(state)
    assert action == A.Special(1, "cloak")
    state = apply(state, action, FixedDice([])).state
    move = doctrine_action(state)
    assert isinstance(move, A.Move)
    state = apply(state, move, FixedDice([])).state
    assert state.ship(1).cloaked and state.ship(1).pos[1] == 7.0  # half of its 2" Impulse move


# --- lurking, off-table AC, webs and multi-tables (10.2, 8.2/8.3, 7.3, 11.3) ------------------------

def _play_out(state, name: str):
    """Doctrine against doctrine to the end, every action checked; the actions made."""
    dice = SeededDice(derive_seed(name))
    made = []
    while not state.over:
        action = doctrine_action(state)
        check(state, action)
        made.append(action)
        state = apply(state, action, dice).state
        assert len(made) < 20_000
    return state, made


def test_a_lurker_stays_hidden_until_an_enemy_comes_within_its_reach_then_reveals_bearing_on_it():
    from tactical.rules.buoyz.deploy import lurk

    c = CATALOGUE
    state = deploy({1: [c["constitution"], c["b_rel"]], 2: [c["d7"]]})
    lurker = next(s for s in state.ships if s.side == 1 and s.sd.key == "b_rel")
    state = lurk(state, {lurker.id: (1, 1)})  # the square 24-48" x 24-48": the D7 starts far from it
    state = apply(state, A.Begin(), SeededDice(derive_seed("lurk"))).state
    while state.acting != 1 or state.phase != "movement":
        state = apply(state, doctrine_action(state), SeededDice(derive_seed("lurk-2"))).state
    d7 = next(s for s in state.ships if s.side == 2)
    far = replace(state, ships=tuple(replace(s, pos=(70.0, 2.0)) if s.id == d7.id else s for s in state.ships))
    actions = []
    s = far
    while s.phase == "movement" and len(actions) < 20:
        a = doctrine_action(s)
        actions.append(a)
        if isinstance(a, (A.Lurk, A.Reveal)):
            break
        s = apply(s, a, SeededDice(derive_seed("t"))).state
    assert isinstance(actions[-1], A.Lurk)  # nothing within its reach: it stays hidden
    near = replace(state, ships=tuple(replace(s, pos=(36.0, 54.0 - 8.0)) if s.id == d7.id else s
                                      for s in state.ships))
    reveal = doctrine_action(near)
    assert isinstance(reveal, A.Reveal) and reveal.ship == lurker.id
    check(near, reveal)
    x0, y0, x1, y1 = near.zone_rect((1, 1))
    assert x0 <= reveal.at[0] <= x1 and y0 <= reveal.at[1] <= y1
    from tactical.rules.buoyz.engine import systems
    from tactical.rules.buoyz.geometry import arcs_of

    d7_pos = near.ship(d7.id).pos
    arcs = arcs_of(reveal.at, reveal.heading, d7_pos)
    assert any(arcs & s.arcs for s in systems(near.ship(lurker.id)))  # placed to bring weapons to bear
    end, made = _play_out(near, "lurk-end")
    assert outcome(end).ending in ("field held", "mutual destruction")


def test_a_side_with_only_a_lurker_left_reveals_it_and_the_battle_ends():
    from tactical.rules.buoyz.deploy import lurk

    c = CATALOGUE
    state = lurk(deploy({1: [c["b_rel"]], 2: [c["d7"]]}), {1: (0, 0)})
    end, made = _play_out(state, "lurk-needed")
    assert any(isinstance(a, A.Reveal) for a in made)
    assert outcome(end).ending in ("field held", "mutual destruction")


def test_a_spent_off_table_bomber_flies_home_and_a_shuttle_with_no_target_loiters():
    from tactical.rules.buoyz.doctrine import choose_fly
    from tactical.rules.buoyz.engine import fly_options
    from tactical.rules.buoyz.state import Flight

    c = CATALOGUE
    state = deploy({1: [c["constitution"]], 2: [c["d7"]]})
    spent = Flight(90, 1, 0, "bomber", 0, status="flying", pos=(30.0, 3.0), armed=False, offtable=True)
    shuttle = Flight(91, 2, 0, "shuttle", 0, status="flying", pos=(40.0, 40.0), offtable=True)
    state = replace(state, flights=state.flights + (spent, shuttle), phase="ac_movement")
    go = choose_fly(state, spent, fly_options(state, spent))
    assert go.home and go.attack is None  # 8.3: back to its base to rearm
    # with the only enemy cloaked and undetected there is no run to make: it patrols (8.2)
    hidden = replace(state, ships=tuple(replace(s, cloaked=True, detected=False) if s.side == 1 else s
                                        for s in state.ships))
    assert choose_fly(hidden, shuttle, fly_options(hidden, shuttle)).loiter
    assert not choose_fly(state, shuttle, fly_options(state, shuttle)).loiter  # a target: no loitering
    end, made = _play_out(replace(state, phase="initiative"), "ac-home")
    assert any(isinstance(a, A.FlyAC) and a.home for a in made)
    assert outcome(end).ending in ("field held", "mutual destruction")


def test_two_tholians_spin_a_web_when_an_enemy_comes_on():
    from tests.tactical.buoyz.test_buoyz_properties import THOLIAN

    c = CATALOGUE
    state = _moving([new_ship(1, 1, THOLIAN, (30, 20)), new_ship(2, 1, THOLIAN, (34, 20)),
                     new_ship(3, 2, c["d7"], (32, 32), 180)])
    first = doctrine_action(state)
    assert isinstance(first, A.Move) and first.web
    check(state, first)
    state = apply(state, first, SeededDice(derive_seed("t"))).state
    state = replace(state, acting=1)  # let side 1's second spinner move next
    second = doctrine_action(state)
    assert isinstance(second, A.Move) and second.web
    state = apply(state, second, SeededDice(derive_seed("t"))).state
    assert state.webs  # 7.3: completed between the two
    end, made = _play_out(state, "webs")
    assert outcome(end).ending in ("field held", "mutual destruction")


def test_a_ship_on_another_table_heads_for_the_enemy_through_transit():
    c = CATALOGUE
    state = deploy({1: [c["constitution"]], 2: [c["d7"]]}, tables=2)
    mine = next(s for s in state.ships if s.side == 1)
    state = replace(state, ships=tuple(replace(s, pos=(s.pos[0] + state.pitch, s.pos[1])) if s.id == mine.id else s
                                       for s in state.ships))
    assert state.table_of(state.ship(mine.id).pos) == 1
    dice = SeededDice(derive_seed("transit"))
    seen = []
    while not state.over:
        action = doctrine_action(state)
        check(state, action)
        state = apply(state, action, dice).state
        ship = state.ship(mine.id)
        seen.append((ship.status, state.table_of(ship.pos) if ship.status == "active" else None))
        assert state.turn < state.turn_cap
    assert ("transit", None) in seen  # it left its table by the edge facing the enemy's (11.3)
    assert seen.index(("active", 0)) > seen.index(("transit", None))  # and emerged on the enemy's table
    assert outcome(state).ending in ("field held", "mutual destruction")


def test_a_ship_guarding_a_base_by_a_planet_orbits_until_the_enemy_comes():
    from tactical.rules.buoyz.cam import base_sd
    from tactical.rules.buoyz.state import Celestial

    c = CATALOGUE
    base = new_ship(2, 1, base_sd(10), (30, 10))
    state = _moving([new_ship(1, 1, c["constitution"], (30, 14.5)), base, new_ship(3, 2, c["d7"], (40, 46), 180)])
    state = replace(state, objects=(Celestial(1, "planet", (30, 12), 2.0),))
    hold = choose_move(state, state.ship(1))
    assert hold.orbit == 1  # 9.0: holds its position by the base
    check(state, hold)
    near = replace(state, ships=tuple(replace(s, pos=(36.0, 24.0)) if s.id == 3 else s for s in state.ships))
    assert choose_move(near, near.ship(1)).orbit is None  # an enemy in reach: it manoeuvres to fight
    end, made = _play_out(state, "orbit")
    assert any(isinstance(a, A.Move) and a.orbit == 1 for a in made)
    assert outcome(end).ending in ("field held", "mutual destruction")
