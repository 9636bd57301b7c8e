"""The Star Sectors board (issue 28 item 6; tactical/rules/starsectors/board.py): the marks it offers
are the legal orders and nothing else, the arc and reach follow IV.D/IV.E, and fog holds — a
cloaked enemy the seat cannot see changes nothing on its board, its marks or its order buttons,
even one sitting in the hex its ship is about to move into (moving there is legal: the mover
learns "something" is there only by moving, rulings SS7/SS8)."""

from __future__ import annotations

import html
import json
import random
import re

import pytest

from campaign.rules.dice import SeededDice, derive_seed
from tactical.rules.geometry import hex as hx
from tactical.rules.kit import evolve
from tactical.rules.play import Viewer
from tactical.rules.starsectors import BOOK, RULES
from tactical.rules.starsectors import actions as A
from tactical.rules.starsectors import core as C
from tactical.rules.starsectors.board import arc_cells, board_svg
from tactical.rules.starsectors.book import PLANTED_ID
from tactical.rules.starsectors.cards import ROSTER
from tactical.rules.starsectors.fleets import sample_setup
from tactical.rules.starsectors.state import Tile


def _acting(seed: int, steps: int = 4):
    """A seeded 25-point battle after a few doctrine steps, its acting ship free to move forward."""
    rng = random.Random(seed)
    dice = SeededDice(derive_seed(f"board/{seed}"))
    state = BOOK.new_battle(sample_setup(rng, 25, max_ships=4), dice)
    for n in range(60):
        if n >= steps and state.active is not None and A.Move(state.active, "forward") in BOOK.legal_actions(state):
            return state
        state = BOOK.apply(state, BOOK.doctrine_action(state), dice).state
    raise AssertionError("no state with a forward move")


def _seen_by(state, seat):
    viewer = Viewer(seat=seat, fog_side=seat, can_act=True)
    ctx = RULES.page_context(state, viewer)
    return {"svg": ctx["svg"], "groups": ctx["ss_groups"], "ships": ctx["ss_ships"],
            "selected": ctx["ss_selected"], "active": ctx["ss_active"], "legal": RULES.legal_json(state, seat)}


def _marks(svg: str) -> list[dict]:
    return [json.loads(html.unescape(m)) for m in re.findall(r'data-action="([^"]+)"', svg)]


@pytest.mark.parametrize("seed", [1, 2])
def test_every_mark_on_the_board_is_a_legal_order_of_the_acting_seat(seed):
    state = _acting(seed)
    seat = state.side
    answer = _seen_by(state, seat)
    legal = [a for acts in answer["legal"].values() for a in acts]
    marks = _marks(answer["svg"])
    assert marks and all(m in legal for m in marks)
    assert any(m["type"] == "move" for m in marks)
    buttons = [json.loads(b["json"]) for g in answer["groups"] for sec in g["sections"] for b in sec["items"]]
    assert all(b in legal for b in buttons) and {json.dumps(a) for a in legal} == (
        {json.dumps(b) for b in buttons} | {g["end"] for g in answer["groups"] if g["end"]})
    # the other seat is offered nothing
    other = next(s for s in state.sides if s != seat)
    assert _marks(_seen_by(state, other)["svg"]) == [] and _seen_by(state, other)["groups"] == []


def test_a_planted_cloaked_enemy_changes_nothing_the_seat_is_shown():
    state = _acting(1)
    seat = state.side
    planted = next(iter(BOOK.plant_hidden(state, seat)))
    assert f'data-ship="{PLANTED_ID}"' in board_svg(planted, None)  # it is there, seen by everyone's eyes
    assert f'data-ship="{PLANTED_ID}"' in board_svg(planted, planted.ship(PLANTED_ID).side)  # and its own side's
    assert _seen_by(planted, seat) == _seen_by(state, seat)


def test_a_cloaked_enemy_in_the_hex_ahead_gives_nothing_away():
    state = _acting(2)
    seat = state.side
    svg = _seen_by(state, seat)["svg"]
    ship = state.ship(int(re.search(r'data-selected="(\d+)"', svg).group(1)))
    ahead = hx.step(ship.pos, ship.facing)
    assert state.grid.in_bounds(ahead) and ahead not in state.occupied and ahead not in state.terrain
    assert not C.star_adjacent(state, ahead)
    enemy = next(s for s in state.ships if s.side != seat)
    ghost = evolve(enemy, id=PLANTED_ID, pos=ahead, facing=0, cloaked=True, done=True, t_phase="",
                   card=evolve(enemy.card, hull=1))
    hidden = evolve(state, ships=state.ships + (ghost,))
    assert f'data-ship="{PLANTED_ID}"' in board_svg(hidden, None)
    forward = {"type": "move", "ship": ship.id, "kind": "forward"}
    assert forward in _marks(_seen_by(hidden, seat)["svg"])  # still offered: moving there is how one finds out
    assert _seen_by(hidden, seat) == _seen_by(state, seat)


def test_the_arc_and_reach_follow_iv_d_and_iv_e():
    state = _acting(1)
    ship = next(s for s in state.ships if s.card.hull == 1 and s.alive)
    for key, arc in (("fed-frigate", "front"), ("rom-bird", "bow"), ("tho-webship", "all")):
        card = ROSTER[key]
        assert card.arc == arc
        s = evolve(ship, card=card, facing=hx.E, damage=0)
        st = state.with_ship(s)
        cells = {c: r for c, r, _ in arc_cells(st, s)}
        cf = C.cf(st, s)
        assert cells and max(cells.values()) <= cf  # the reach: CF − (range − 1) ≥ 1
        assert all(C.in_arc(st, s, c) for c in cells)
        ahead = hx.step(s.pos, s.facing)
        if st.grid.in_bounds(ahead):
            assert cells.get(ahead) == 1
        astern = hx.step(s.pos, s.facing + 3)
        assert (astern in cells) == (arc == "all") or not st.grid.in_bounds(astern)


def test_a_move_and_a_warp_jump_to_the_same_hex_are_one_mark_offering_both():
    state = _acting(1)
    ship = state.ship(state.active)
    card = ROSTER["fed-cruiser"]
    charged = state.with_ship(evolve(ship, card=card, warp=1, damage=0, banks=(False,) * len(card.banks),
                                     t_mf=0, t_forward=False, t_turned=False))
    legal = BOOK.legal_actions(charged)
    assert A.Warp(ship.id, 1) in legal and A.Move(ship.id, "forward") in legal
    svg = _seen_by(charged, charged.side)["svg"]
    ahead = hx.step(ship.pos, ship.facing)
    forward = json.dumps({"type": "move", "ship": ship.id, "kind": "forward"}, separators=(",", ":"))
    mark = re.search(r'<polygon class="ss-go" data-kind="move" data-action="' + re.escape(html.escape(forward))
                     + r'" data-label="[^"]*" data-alts="([^"]+)"', svg)
    assert mark, svg[:200]
    alts = [a["action"] for a in json.loads(html.unescape(mark.group(1)))]
    assert alts[0] == json.loads(forward) and {"type": "warp", "ship": ship.id, "hexes": 1, "reverse": False} in alts
    assert ahead not in charged.occupied


def test_terrain_in_the_line_of_fire_is_drawn_blocked():
    state = _acting(1)
    ship = evolve(state.ship(state.active), card=ROSTER["fed-cruiser"], damage=0)  # front arc, CF 6
    ship = evolve(ship, pos=(3, 4), facing=hx.E)
    clear = evolve(state.with_ship(ship), tiles=())
    rock = hx.step(ship.pos, hx.E)
    beyond = hx.step(rock, hx.E)
    rocky = evolve(clear, tiles=(Tile(99, "asteroid", (rock,)),))
    before = {c: why for c, _, why in arc_cells(clear, ship)}
    after = {c: why for c, _, why in arc_cells(rocky, ship)}
    assert before[beyond] == "" and "asteroid" in after[beyond]
    assert 'class="ss-blocked"' in board_svg(rocky, ship.side, selected=ship.id)


def test_the_other_sides_cloaked_ship_taking_its_turn_is_not_named_nor_its_arc_drawn():
    state = _acting(1)
    mover = state.ship(state.active)
    other = next(s for s in state.sides if s != mover.side)
    shown = _seen_by(state, other)
    assert shown["selected"] == mover.id and f'g class="ss-arc" data-for="{mover.id}"' in shown["svg"]
    cloaked = state.with_ship(evolve(mover, cloaked=True))
    hidden = _seen_by(cloaked, other)
    assert hidden["selected"] is None and hidden["active"] is None
    assert f'data-ship="{mover.id}"' not in hidden["svg"] and "ss-arc" not in hidden["svg"]
    assert "data-selected" not in hidden["svg"] and all(r["id"] != mover.id for r in hidden["ships"])
