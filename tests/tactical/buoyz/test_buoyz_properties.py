"""Properties of the Buoyz engine over random battles (hypothesis, derandomized): random fleets
of the book's SDs played by random legal actions mixed with the doctrine, seeded dice.

After every step: every action ``legal_actions`` lists passes ``check`` (the gate ``apply``
refuses with), hull/crits stay in bounds, nothing moves farther than its allowance, and a
refused action changes nothing and rolls nothing. Replaying the recorded actions over the
logged dice rebuilds the same final state."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.rules.cam.ships import SD, ShipClass, Weapon, validate_sd
from campaign.rules.dice import FixedDice, SeededDice, derive_seed
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz.deploy import deploy
from tactical.rules.buoyz.doctrine import doctrine_action
from tactical.rules.buoyz.engine import allowance, apply, check, legal_actions
from tactical.rules.buoyz.geometry import distance, segments_cross, zone_of
from tactical.rules.buoyz.sds import CATALOGUE
from tactical.rules.buoyz.state import MOVEMENT, Celestial, Flight, IllegalActionError
from tactical.rules.replay import LoggedDie, ReplayDice

KEYS = sorted(CATALOGUE)
fleets = st.lists(st.sampled_from(KEYS), min_size=1, max_size=3)  # the Valkyrie brings 8 AC flights


def _invariants(state) -> None:
    for s in state.ships:
        assert 0 <= s.hull <= s.sd.hull
        assert all(c >= 0 for c in s.crits)
        assert s.status in ("active", "destroyed", "left", "captured", "lurking", "transit")
        assert s.hull > 0 or s.status == "destroyed"
        assert set(s.lost) <= set(s.sd.special_abilities)
    if state.phase == "over":
        assert legal_actions(state) == []
        alive = {s.side for s in state.ships if s.active}
        assert state.winner is None or alive == {state.winner}


def _refusals(state, rng) -> list:
    """Actions that must be refused now."""
    out: list = [A.Begin()] if state.turn else []
    enemy = [s for s in state.ships if s.active and s.side != state.acting]
    if enemy:
        out.append(A.Move(enemy[0].id, after=1.0))
        out.append(A.Fire(enemy[0].id))
    mine = [s for s in state.ships if s.active and s.side == state.acting]
    if mine and state.phase == MOVEMENT and state.nominated is None:
        s = rng.choice(mine)
        if not s.moved:
            out.append(A.Move(s.id, after=allowance(s) + 0.5))
            out.append(A.Move(s.id, turn=(s.sd.turning or 0) + 3))
            if not s.hyperspace:
                out.append(A.Lurk(s.id))  # 10.2: once on the table it never lurks again
            out.append(A.Move(s.id, orbit=999))  # 9.0: no such planet or moon
    lurkers = [s for s in state.ships if s.status == "lurking"]
    if lurkers:
        out.append(A.Reveal(lurkers[0].id, (-5.0, -5.0)))  # 10.2: only within its square (and on the table)
    return out


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(a=fleets, b=fleets, seed=st.integers(0, 10_000), rng=st.randoms(use_true_random=False),
       doctrine_share=st.sampled_from([0.0, 0.5, 0.9]))
def test_random_play_keeps_every_property_and_replays(a, b, seed, rng, doctrine_share):
    start = deploy({1: [CATALOGUE[k] for k in a], 2: [CATALOGUE[k] for k in b]}, turn_cap=6)
    _play(start, seed, rng, doctrine_share)


THOLIAN = validate_sd(SD(key="tholian", ship_class=ShipClass.CL, name="CL Tholian Web Spinner", speed=5, turning=3,
                         target_size=4, shields=(2, 2, 2, 2), hull=3, crippled_at=1,
                         special_abilities=("Web", "Warp", "Impulse"), main=(Weapon(2, "Phaser"),)))
RAIDER = validate_sd(SD(key="raider", ship_class=ShipClass.CL, name="CL Raider", speed=6, turning=3, target_size=3,
                        shields=(3, 3, 3, 3), hull=4, crippled_at=2, special_abilities=("Hyperspace", "Impulse"),
                        main=(Weapon(2, "Turbolaser"),)))
featured = st.lists(st.sampled_from(KEYS + ["tholian", "tholian", "raider", "war_talon", "b_rel"]), min_size=1,
                    max_size=3)


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(a=featured, b=featured, seed=st.integers(0, 10_000), rng=st.randoms(use_true_random=False),
       doctrine_share=st.sampled_from([0.0, 0.5, 0.9]), lurk=st.booleans(), tables=st.sampled_from([1, 2]))
def test_lurking_orbits_webs_and_off_table_ac_keep_every_property(a, b, seed, rng, doctrine_share, lurk, tables):
    """The same properties with the rules of 7.3 (webs), 8.2/8.3 (loitering shuttles, off-table
    bases), 9.0 (orbits), 10.2 (lurking), 11.3 (multi-tables), 11.5 (rotation) and 11.8 (hyperspace
    lurking) in play."""
    sds = {"tholian": THOLIAN, "raider": RAIDER}
    start = deploy({1: [sds.get(k) or CATALOGUE[k] for k in a], 2: [sds.get(k) or CATALOGUE[k] for k in b]},
                   turn_cap=6)
    ships = tuple(replace(s, status="lurking", zone=zone_of(s.pos, *start.table), cloaked=True)
                  if lurk and "Cloak" in s.sd.special_abilities else s for s in start.ships)
    n = len(start.flights)
    extra = (Flight(n + 1, 1, 0, "bomber", 0, status="flying", pos=(30.0, 2.0), offtable=True),
             Flight(n + 2, 2, 0, "shuttle", 0, status="flying", pos=(40.0, 46.0), offtable=True))
    objects = (Celestial(1, "planet", (36.0, 24.0), 3.0), Celestial(2, "moon", (44.0, 24.0), 1.0),
               Celestial(3, "asteroids", (16.0, 24.0), 3.0))
    start = replace(start, ships=ships, flights=start.flights + extra, objects=objects, rotation=True, tables=tables)
    _play(start, seed, rng, doctrine_share)


def _play(start, seed, rng, doctrine_share) -> None:
    dice = SeededDice(derive_seed(f"buoyz-props-{seed}"))
    state, steps = start, []
    for _ in range(400):
        if state.over:
            break
        legal = legal_actions(state)
        assert legal, "a battle that is not over always has a legal action"
        for action in legal:
            check(state, action)  # every listed action is accepted (raises otherwise)
        for bad in _refusals(state, rng):
            try:
                apply(state, bad, FixedDice([]))
            except IllegalActionError:
                pass
            else:
                raise AssertionError(f"{bad} was accepted")
        action = doctrine_action(state) if rng.random() < doctrine_share else rng.choice(legal)
        before = state
        state = apply(state, action, dice).state
        if isinstance(action, A.Move):
            old, new = before.ship(action.ship), state.ship(action.ship)
            assert new.status == "transit" or distance(old.pos, new.pos) <= allowance(old) + 1e-3
            assert new.status != "active" or new.moved_inches <= allowance(old) + 1e-6
            assert not any(segments_cross(old.pos, new.pos, w.a, w.b) for w in before.webs if action.orbit is None
                           and not action.turn)  # 7.3: webs cannot be moved through
        if isinstance(action, A.FlyAC):
            old_f = before.flight(action.flight)
            assert not any(segments_cross(old_f.pos, action.to, w.a, w.b) for w in before.webs)
            assert distance(old_f.pos, action.to) <= old_f.speed + 1e-3  # a CAP may then intercept (BZ40)
        steps.append(action)
        _invariants(state)
    # replay the history over the logged dice
    logged = [LoggedDie(r.roll.count, r.roll.sides, r.roll.purpose, r.roll.faces) for r in dice.log]
    replay = ReplayDice(logged)
    again = start
    for action in steps:
        again = apply(again, action, replay).state
    replay.finish()
    assert again == state


def test_refused_action_changes_nothing():
    start = deploy({1: [CATALOGUE["constitution"]], 2: [CATALOGUE["d7"]]})
    state = apply(start, A.Begin(), FixedDice([6, 6, 1, 1])).state
    mover = state.active_ships(state.acting)[0]
    dice = FixedDice([])
    for bad in (A.Move(mover.id, after=99.0), A.Move(mover.id, before=-1.0), A.Move(mover.id, turn=9),
                A.Fire(mover.id), A.Special(mover.id, "warp_ten"), A.Move(999)):
        snapshot = replace(state)
        try:
            apply(state, bad, dice)
        except IllegalActionError:
            pass
        else:
            raise AssertionError(bad)
        assert state == snapshot
    assert dice.rolls == []
