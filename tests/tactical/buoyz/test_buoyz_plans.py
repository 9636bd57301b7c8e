"""What the Buoyz play page promises before a nomination (tactical/rules/buoyz/plans.py): each
legal move's path, distance and turning as the engine then moves the ship; each weapon's
eligible targets with the dice it rolls and the score it needs, as the engine then rolls; the
fire form read back into the action JSON, split fire included (000 4.1, 5.2, 5.4, 5.5)."""

from __future__ import annotations

import json
import math

import pytest

from campaign.rules.dice import SeededDice
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz import plans
from tactical.rules.buoyz import play as bp
from tactical.rules.buoyz.engine import apply, check, legal_actions, system_dice, systems, turning
from tactical.rules.buoyz.state import AC_MOVEMENT, ATTACK, MOVEMENT, IllegalActionError


def close_battle(seed: bytes = b"buoyz plans test seed"):
    """Bob's Constitution (1) and Carol's D7 (2), 4" apart and facing each other, after the
    first Initiative Phase."""
    setup = bp.setup_for({1: ["constitution"], 2: ["d7"]}, turn_cap=3)
    setup["sides"]["1"]["ships"][0].update({"x": 30, "y": 20, "heading": 0})
    setup["sides"]["2"]["ships"][0].update({"x": 31, "y": 24, "heading": 180})
    state = bp.initial_state(setup).battle
    dice = SeededDice(seed)
    return apply(state, A.Begin(), dice).state, dice


def test_every_listed_moves_path_ends_where_the_engine_puts_the_ship():
    state, dice = close_battle()
    assert state.phase == MOVEMENT
    moves = [a for a in legal_actions(state) if isinstance(a, A.Move)]
    plan = plans.move_plans(state, moves)
    ship = state.ship(moves[0].ship)
    entry = plan[ship.id]
    assert entry["turning"] == turning(ship) and entry["allowance"] > 0
    assert len(entry["moves"]) == len([m for m in moves if m.ship == ship.id])
    for move, path in zip([m for m in moves if m.ship == ship.id], entry["moves"]):
        after = apply(state, move, SeededDice(b"buoyz plans move dice")).state.ship(ship.id)
        end = path["points"][-1]
        assert math.isclose(end[0], after.pos[0], abs_tol=1e-3) and math.isclose(end[1], after.pos[1], abs_tol=1e-3)
        assert math.isclose(path["heading"] % 360, after.heading % 360, abs_tol=1e-3)
        assert path["turned"] == abs(move.turn) + abs(move.turn_end)
        assert 0 <= path["used"] <= entry["allowance"] + 1e-9
        assert math.isclose(path["used"] + path["left"], entry["allowance"], abs_tol=1e-3)
        # a move that turns has its turning point on the path
        assert len(path["points"]) == 1 + (move.before > 0) + (move.after > 0)


def _to_attack(state, dice):
    while state.phase != ATTACK:
        stay = next(a for a in legal_actions(state) if isinstance(a, A.Move) and not (a.before or a.after or a.turn))
        state = apply(state, stay, dice).state
    return state


def test_the_fire_plan_lists_each_eligible_target_with_the_dice_the_engine_rolls():
    state, dice = close_battle()
    state = _to_attack(state, dice)
    shooter = state.ship(next(a.ship for a in legal_actions(state) if isinstance(a, A.Fire)))
    plan = plans.fire_plan(state, shooter.id)
    assert plan["weapons"], "ships 4\" apart facing each other have something in arc and range"
    listed = {(w["key"], t["target"]) for w in plan["weapons"] for t in w["targets"]}
    for system in systems(shooter):
        for enemy in state.active_ships(state.other(shooter.side)):
            in_plan = (system.key, enemy.id) in listed
            shot = A.Fire(shooter.id, ((system.key, enemy.id, max(1, system_dice(shooter, system))),))
            result = apply(state, shot, SeededDice(b"buoyz plans fire dice y"))
            lost = any(e.kind == "shot_lost" for e in result.events)
            assert in_plan == (not lost and system_dice(shooter, system) > 0)
    beam = next(w for w in plan["weapons"] if not w["torpedo"] and w["targets"])
    target = beam["targets"][0]
    assert target["dice"] == beam["dice"] and 2 <= target["needs"] <= 6
    result = apply(
        state,
        A.Fire(shooter.id, ((beam["key"], target["target"], target["dice"]),)),
        SeededDice(b"buoyz plans fire dice z"),
    )
    attack = next(e for e in result.events if e.kind == "attack")
    assert len(attack.data["faces"]) == target["dice"] and attack.data["modifier"] == target["modifier"]


def test_a_hidden_ship_is_never_a_listed_target():
    state, dice = close_battle()
    state = _to_attack(state, dice)
    shooter = next(a.ship for a in legal_actions(state) if isinstance(a, A.Fire))
    enemy = state.active_ships(state.other(state.ship(shooter).side))[0].id
    plan = plans.fire_plan(state, shooter, hidden={enemy})
    assert all(t["target"] != enemy for w in plan["weapons"] for t in w["targets"])


@pytest.mark.parametrize("need, mod, face", [(4, 0, 4), (4, -1, 5), (4, -5, 6), (3, 2, 2), (5, -1, 6)])
def test_to_hit_is_the_lowest_face_that_hits(need, mod, face):
    assert plans.to_hit(need, mod) == face


def test_the_fire_form_reads_split_fire_in_page_order_and_the_engine_judges_it():
    state, dice = close_battle()
    state = _to_attack(state, dice)
    d7 = next(s for s in state.ships if s.sd.key == "d7")
    form = {"kind": ["fire"], "ship": [str(d7.id)], "dice:main0:1": ["4"], "dice:secondary:1": ["1"],
            "dice:main1:1": ["0"], "board": [""]}
    data = plans.fire_from_form(form)
    assert data == {"type": "fire", "ship": d7.id, "shots": [["main0", 1, 4], ["secondary", 1, 1]], "board": None}
    assert bp.RULES.form_action("fire", form) == data
    assert bp.RULES.form_action("move", form) is None
    if state.acting != d7.side:
        waive = next(a for a in legal_actions(state) if isinstance(a, A.Fire) and not a.shots)
        state = apply(state, waive, dice).state
    check(state, bp.from_json(data))  # part of the secondary's dice: accepted
    # A main weapon fires at one target: the engine refuses it split, naming 5.2.
    with pytest.raises(IllegalActionError) as exc:
        check(state, bp.from_json({"type": "fire", "ship": d7.id, "shots": [["main0", 1, 2], ["main0", 1, 2]]}))
    assert "split" in exc.value.message


@pytest.mark.parametrize("form, words", [
    ({"ship": [""]}, "names no ship"),
    ({"ship": ["2"], "dice:main0:1": ["lots"]}, "number of dice"),
    ({"ship": ["2"], "dice:main0:1": ["500"]}, "number of dice"),
    ({"ship": ["2"], "dice:main0": ["1"]}, "weapon and target"),
    ({"ship": ["2"], "board": ["x"]}, "board"),
])
def test_a_fire_form_that_says_nothing_usable_is_refused(form, words):
    with pytest.raises(IllegalActionError) as exc:
        plans.fire_from_form(form)
    assert words in exc.value.message and exc.value.rule == plans.FIRE_FORM_RULE


def test_the_board_plan_points_at_each_moves_place_in_the_list_and_draws_its_path():
    state, _dice = close_battle()
    plan = bp.board_plan(state, state.acting)
    ship = plan["ships"][0]
    group = next(g for g in bp._choice_groups(state, state.acting) if g["ship"] == ship["ship"])
    assert sorted(m["i"] for m in ship["moves"]) == list(range(len(group["moves"])))  # no orbit here
    start = state.ship(ship["ship"]).pos
    assert ship["px"] == [round(v, 1) for v in bp.board.frame_point(state, start)]
    for m in ship["moves"]:
        action = bp.from_json(json.loads(group["moves"][m["i"]]["json"]))
        after = apply(state, action, SeededDice(b"buoyz plans move dice")).state.ship(ship["ship"])
        end = [round(v, 1) for v in bp.board.frame_point(state, after.pos)]
        assert all(abs(a - b) <= 0.11 for a, b in zip(m["px"][-1], end))
        assert m["turned"] == abs(action.turn) + abs(action.turn_end)
        assert m.get("lay_mine", False) == action.lay_mine


def _play_until(state, dice, wanted, limit=400):
    from tactical.rules.buoyz.doctrine import doctrine_action
    for _ in range(limit):
        if wanted(state) or state.over:
            return state
        state = apply(state, doctrine_action(state), dice).state
    return state


def test_the_page_groups_ac_moves_by_kind_and_labels_cloaking():
    """The page's controls (play._choice_groups): an AC counter's every listed move under one of
    its kinds (attack run, Combat Air Patrol, loiter or home, fly), a cloak-capable ship's cloak
    among its Special Actions, each listed once."""
    setup = bp.setup_for({1: ["valkyrie"], 2: ["war_talon"]}, turn_cap=6)
    setup["sides"]["2"]["ships"][0].update({"x": 36, "y": 34, "heading": 180})
    state = bp.initial_state(setup).battle
    dice = SeededDice(b"buoyz plans AC test seed")
    state = apply(state, A.Begin(), dice).state
    talon = next(s for s in state.ships if s.side == 2)
    state = _play_until(state, dice, lambda s: s.phase == MOVEMENT and s.acting == 2)
    groups = {g["key"]: g for g in bp._choice_groups(state, 2)}
    specials = groups[f"ship {talon.id}"]["specials"]
    assert any(json.loads(e["json"])["action"] == "cloak" and e["cloak"] and e["label"] == "Cloak (10.2)"
               for e in specials)
    state = _play_until(state, dice, lambda s: s.phase == AC_MOVEMENT and s.acting == 1)
    assert state.phase == AC_MOVEMENT, "the Valkyrie's AC are in the air by turn 2"
    legal = [bp.to_json(a) for a in bp.side_actions(state, 1)]
    groups = bp._choice_groups(state, 1)
    shown = [json.loads(c["json"]) for g in groups for cat in g["fly"] for c in cat["choices"]]
    assert sorted(map(json.dumps, shown)) == sorted(map(json.dumps, legal))
    for g in groups:
        for cat in g["fly"]:
            for c in cat["choices"]:
                data = json.loads(c["json"])
                assert (cat["name"] == "Combat Air Patrol") == data["cap"]
                if cat["name"] == "Attack runs and dogfights":
                    assert data["attack"] is not None
    # On the board: each AC move's destination, pointing at its kind's list and its option there.
    by_flight = {g["flight"]: g for g in groups if g["flight"] is not None}
    plan = bp.board_plan(state, 1)["flights"]
    assert plan and sum(len(f["moves"]) for f in plan) == len(legal)
    for f in plan:
        for m in f["moves"]:
            choice = json.loads(by_flight[f["flight"]]["fly"][m["c"]]["choices"][m["i"]]["json"])
            assert m["px"] == [round(v, 1) for v in bp.board.frame_point(state, choice["to"])]


def test_the_board_draws_the_other_nominable_ships_arcs_hidden_and_never_the_enemys():
    state, _dice = close_battle()
    mine = [s for s in state.ships if s.side == 1]
    enemy = next(s for s in state.ships if s.side == 2)
    svg = bp.board.render(state, viewer_side=1, selected=None, also=[mine[0].id, enemy.id])
    assert f'class="fire-arcs" data-for="{mine[0].id}" display="none"' in svg
    assert f'class="turn-template" data-for="{mine[0].id}" display="none"' in svg
    assert f'data-for="{enemy.id}"' not in svg
    shown = bp.board.render(state, viewer_side=1, selected=mine[0].id, also=[mine[0].id])
    assert shown.count(f'data-for="{mine[0].id}"') == 2 and 'display="none"' not in shown
