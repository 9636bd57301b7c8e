"""Print&Play online play's hooks (pure): owners, fog of war (ruling PP7), the board's shields per
side, the stored automatic step and its replay, the labels."""

from __future__ import annotations

import pytest

from campaign.rules.dice import FixedDice, SeededDice, derive_seed
from tactical.rules.kit import IllegalActionError, evolve
from tactical.rules.play import Viewer
from tactical.rules.printplay import RULES, engine
from tactical.rules.printplay.actions import Activate, Attack, Move
from tactical.rules.printplay.dashboards import ROSTER
from tactical.rules.printplay.state import State, new_ship


def table(cloaked_at=(10, 30)):
    ships = (new_ship(1, 1, ROSTER["constitution"], (10, 10), 0), new_ship(2, 2, ROSTER["k_tinga"], (10, 16), 180),
             evolve(new_ship(3, 3, ROSTER["b_rel"], cloaked_at, 0), cloaked=True))
    return State(ships, (1, 2, 3), (72.0, 48.0), mode="bag", stage="attack", active=1)


def test_a_cloaked_ship_far_from_a_sides_ships_is_hidden_from_that_side_only():
    state = table()
    for seat, sees in ((1, False), (2, False), (3, True)):
        view = Viewer(seat=seat, fog_side=seat)
        ids = [s["id"] for s in RULES.state_json(state, view)["ships"]]
        assert (3 in ids) is sees
        assert ('id="ship-3"' in RULES.page_context(state, view)["svg"]) is sees
    near = table(cloaked_at=(10, 22))  # within 8" of the K'tinga (side 2), not of the Constitution
    assert 3 in [s["id"] for s in RULES.state_json(near, Viewer(seat=2, fog_side=2))["ships"]]
    assert 3 not in [s["id"] for s in RULES.state_json(near, Viewer(seat=1, fog_side=1))["ships"]]


def test_naming_a_hidden_ship_is_refused_as_a_ship_that_is_not_there():
    state = table()
    with pytest.raises(IllegalActionError) as hidden:
        engine.check(state, Attack(1, ((0, 3, "aft"),)))
    with pytest.raises(IllegalActionError) as absent:
        engine.check(state, Attack(1, ((0, 7, "aft"),)))
    assert str(hidden.value).replace("3", "N") == str(absent.value).replace("7", "N")


def test_only_the_owner_acts():
    state = table()
    RULES.check_owner(state, Attack(1, ((0, 2, "fore"),)), 1)
    with pytest.raises(IllegalActionError, match="not yours"):
        RULES.check_owner(state, Attack(1, ((0, 2, "fore"),)), 2)
    drawn = evolve(state, stage="choose", active=None, drawn=2)
    with pytest.raises(IllegalActionError, match="not your die"):
        RULES.check_owner(drawn, Activate(2), 1)
    assert RULES.legal_json(state, 2) == {} and "1" in RULES.legal_json(state, 1)


def test_the_board_draws_four_shields_on_each_ship():
    svg = RULES.page_context(table(), Viewer(seat=1, fog_side=1))["svg"]
    assert svg.count('class="pp-shield"') == 8  # two ships seen, four sides each
    low = evolve(table(), ships=(evolve(table().ships[0], shields=(0, 20, 20, 20)),) + table().ships[1:])
    assert 'data-side="fore" d=' in RULES.page_context(low, Viewer(seat=1, fog_side=1))["svg"]


def test_the_automatic_step_is_stored_and_replayed():
    state = State((new_ship(1, 1, ROSTER["b_rel"], (10, 10), 0), new_ship(2, 2, ROSTER["b_rel"], (30, 30), 0),
                   new_ship(3, 3, ROSTER["b_rel"], (50, 10), 0)), (1, 2, 3), (72.0, 48.0), mode="bag")
    step, data = RULES.automatic_step(state, FixedDice([3, 2]))
    assert data == {"type": "advance"} and step.state.drawn == 1
    again = RULES.replay_step(state, data, FixedDice([3, 2]))
    assert again.state == step.state
    assert "die is drawn" in RULES.describe(data)
    assert RULES.describe(RULES.action_json(Move(1, 4, 45))) == 'Move turn +45°, 4"'


def test_the_move_list_and_the_mat_dots_offer_the_same_moves():
    state = evolve(table(), stage="move")
    ctx = RULES.page_context(state, Viewer(seat=1, fog_side=1, can_act=True))
    assert ctx["pp_moves"] and not ctx["pp_buttons"]
    listed = {m["json"] for m in ctx["pp_moves"]}
    import html
    import re
    dots = [html.unescape(m) for m in re.findall(r'data-move="([^"]*)"', ctx["svg"])]
    assert dots and set(dots) <= listed


def test_a_seeded_battle_is_summarised():
    from tactical.rules.printplay.book import BOOK

    dice = SeededDice(derive_seed("pp summary"))
    end = BOOK.simulate(BOOK.new_battle(BOOK.sample_setup(__import__("random").Random(3)), dice), dice)
    result = RULES.result(end)
    assert result["over"] and "round(s)" in RULES.summary(result, {1: "A", 2: "B"})
