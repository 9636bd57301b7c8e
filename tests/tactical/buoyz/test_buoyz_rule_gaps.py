"""Issue 24 items 16-21: Buoyz 'N Da 'Hood rules the engine missed, beside their rule cases in
cases/28_rule_gaps.json (rulings BZ95-BZ98; BZ37, BZ42 reconciled). Pure: no database."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tactical.rules import registry
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz import play as bp
from tactical.rules.buoyz.engine import check, fire_options, fly_options, launch_rate, legal_actions
from tactical.rules.buoyz.sds import CATALOGUE
from tactical.rules.buoyz.state import MAX_MINES, Flight, IllegalActionError, new_battle, new_ship

RULES = registry.find_play("buoyz")
C = CATALOGUE


def _at(state, phase, side=1):
    return replace(state, phase=phase, turn=1, initiative=side, first=side, acting=side)


# --- 7.2 ECM! (ruling BZ95) ------------------------------------------------------------------

def _ecm_position(phase: str, *, cloaked: bool = False):
    """The Constitution (1) ½\" from a B'Rel (2) with its shields down that went dark (ECM)."""
    brel = new_ship(2, 2, C["b_rel"], (10, 10.4), 180, special="ecm", shields_lowered=True, cloaked=cloaked)
    return _at(new_battle([new_ship(1, 1, C["constitution"], (10, 10)), brel]), phase)


def test_ecm_no_ram_tractor_or_boarding_is_listed():
    """000 7.2 ECM!: "No attacks on this ship may be made at all that turn"."""
    moving = legal_actions(_ecm_position("movement"))
    assert not [a for a in moving if isinstance(a, A.Special) and a.target == 2]
    assert not [a for a in fire_options(_ecm_position("attack"), _ecm_position("attack").ship(1)) if a.board == 2]
    without = replace(
        _ecm_position("attack"), ships=tuple(replace(s, special="") for s in _ecm_position("attack").ships)
    )
    assert [a for a in fire_options(without, without.ship(1)) if a.board == 2]  # the boarding ECM forbids


def test_ecm_no_attack_craft_run_is_listed():
    """000 7.2 ECM!, 8.4: a bomber may close on a ship under ECM but declares no run on it."""
    state = _at(new_battle([new_ship(1, 1, C["valkyrie"], (30, 10)),
                            new_ship(3, 2, C["d7"], (30, 30), 180, special="ecm")]), "ac_movement")
    bomber = Flight(2, 1, 1, "bomber", 0, status="flying", pos=(30.0, 24.0))
    state = replace(state, flights=(bomber,), ac_slot=3)
    assert all(a.attack is None for a in fly_options(state, bomber))
    with pytest.raises(IllegalActionError, match="ECM"):
        check(state, A.FlyAC(2, (30.0, 28.5), 3))


def test_a_ship_under_ecm_fires_no_close_defence():
    """000 7.2 ECM!: "It may not fire" - not its Close Defence at attack craft or torpedoes either
    (ruling BZ95); without the counter the same ship's Close Defence counts."""
    from tactical.rules.buoyz.engine.torpedoes import _aegis_points

    dark = _ecm_position("attack").ship(2)
    assert _aegis_points(dark) == 0
    assert _aegis_points(replace(dark, special="")) > 0


def _answer(ps, action, seat: int) -> str:
    try:
        RULES.check_owner(ps, action, seat)
        check(ps.battle, action)
    except IllegalActionError as exc:
        return str(exc)
    return "accepted"


@pytest.mark.parametrize("phase, action", [
    ("movement", A.Special(1, "ramming", 2)), ("movement", A.Special(1, "tractor_hold", 2)),
    ("attack", A.Fire(1, (), board=2)), ("attack", A.Fire(1, (("main0", 2, 1),)))])
def test_an_ecm_refusal_never_tells_of_a_ship_the_side_cannot_see(phase, action):
    """Issue 24 item 2's property, for the new refusals: the answer to side 1 about a cloaked,
    undetected ship is the same whether or not it went dark (ruling BZP2)."""
    hidden_dark = bp.PlayState(_ecm_position(phase, cloaked=True))
    hidden_lit = bp.PlayState(replace(hidden_dark.battle, ships=tuple(
        replace(s, special="") for s in hidden_dark.battle.ships)))
    assert _answer(hidden_dark, action, 1) == _answer(hidden_lit, action, 1)
    assert RULES.legal_json(hidden_dark, 1) == RULES.legal_json(hidden_lit, 1)


# --- 5.8 (1) with 8.3 (ruling BZ96) ----------------------------------------------------------

@pytest.mark.parametrize("flights, crits, rate", [(8, 0, 2), (8, 1, 1), (10, 1, 1), (20, 1, 2), (20, 2, 1),
                                                  (30, 1, 3), (2, 0, 1), (2, 3, 1)])
def test_a_critical_armament_halves_the_launch_rate(flights, crits, rate):
    """5.8 (1) "Halve all firing factors / launch rates (if carrier)", half and half again,
    rounded once (BZ5), at least one (BZ37)."""
    ship = new_ship(1, 1, C["valkyrie"], (0, 0), crits=(crits, 0, 0))
    assert launch_rate(ship, flights) == rate


# --- 7.2 Maximum Warp!, 7.3 Pursuit Mines ------------------------------------------------------

def test_a_cloaked_ship_is_offered_no_maximum_warp():
    state = _at(new_battle([new_ship(1, 1, C["b_rel"], (10, 10), special="flank_speed", cloaked=True),
                            new_ship(2, 2, C["d7"], (40, 40), 180)]), "movement")
    state = replace(state, nominated=1)
    assert A.Special(1, "maximum_warp") not in legal_actions(state)
    lit = replace(state, ships=(replace(state.ship(1), cloaked=False), state.ship(2)))
    assert A.Special(1, "maximum_warp") in legal_actions(lit)


def test_pursuit_mines_need_size_3_or_larger():
    """7.3 "a Romulan ship of Class 3 size or larger" (ruling BZ97): a Size 4 with the ability
    lays none; Size 3 does."""
    small = replace(C["war_talon"], key="small_talon", target_size=4)
    state = _at(new_battle([new_ship(1, 1, small, (10, 10)), new_ship(2, 1, C["war_talon"], (20, 10)),
                            new_ship(9, 2, C["d7"], (60, 40), 180)]), "movement")
    laying = [a for a in legal_actions(state) if isinstance(a, A.Move) and a.lay_mine]
    assert laying and {a.ship for a in laying} == {2}


# --- 5.10 Mines (ruling BZ98) ------------------------------------------------------------------

def test_a_ship_carries_at_most_six_mines():
    layer = replace(C["kobayashi_maru"], key="layer")  # no torpedoes
    assert new_ship(1, 1, layer, (0, 0), mines=MAX_MINES).mines == 6
    for bad in (7, -1, 2.5, True):
        with pytest.raises(IllegalActionError, match="0 to 6 notional mines"):
            new_ship(1, 1, layer, (0, 0), mines=bad)


def test_a_ship_with_torpedoes_carries_no_mines():
    """5.10 "If mines are carried no torpedoes can be carried"."""
    with pytest.raises(IllegalActionError, match="no torpedoes can be carried") as exc:
        new_ship(1, 1, C["d7"], (0, 0), mines=1)
    assert exc.value.rule == "000 5.10 Mines"
    assert new_ship(1, 1, C["d7"], (0, 0)).mines == 0
