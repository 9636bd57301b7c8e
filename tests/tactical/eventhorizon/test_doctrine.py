"""The computer doctrine (tactical/rules/eventhorizon/doctrine.py): it closes to its best range,
focuses fire, regenerates, evades when weak, warps out when outmatched or in a shuttle, and
``simulate`` always ends and is deterministic per seed."""

from __future__ import annotations

import pytest

from campaign.rules.dice import SeededDice, derive_seed
from campaign.rules.eventhorizon.designs import GALIOT, SAMPLE_DESIGNS, SAN_MARCO, SULTAN, SWORD
from tactical.rules.eventhorizon import (
    Activate,
    CampaignShip,
    Fire,
    Move,
    Regenerate,
    WarpOut,
    deploy,
    doctrine_action,
    is_over,
    outcome,
    simulate,
)
from tactical.rules.eventhorizon.geometry import distance
from tests.tactical.eventhorizon.case_loader import load_battle


def _battle(seed: str, n: int = 4, cap: int = 540):
    fleets = {1: [CampaignShip(i, SAMPLE_DESIGNS[i % 4]) for i in range(1, n + 1)],
              2: [CampaignShip(100 + i, SAMPLE_DESIGNS[(i + 1) % 4]) for i in range(1, n + 1)]}
    dice = SeededDice(derive_seed(seed))
    return deploy(fleets, dice, invader=2, card_cap=cap), dice


@pytest.mark.parametrize("seed", [f"doctrine-{i}" for i in range(12)])
def test_doctrine_battles_always_end(seed):  # ruling TC23: the card cap
    state, dice = _battle(seed)
    end = simulate(state, dice, strict=True)
    assert is_over(end)
    result = outcome(end)
    assert result.holder in (1, 2, None)
    assert (result.holder is None) == (len({s.side for s in end.ships if s.in_play and not s.shuttle}) != 1)


def test_same_seed_same_battle():
    a_state, a_dice = _battle("same")
    b_state, b_dice = _battle("same")
    a = simulate(a_state, a_dice, strict=True)
    b = simulate(b_state, b_dice, strict=True)
    assert [e.text for e in a.log] == [e.text for e in b.log]
    assert outcome(a) == outcome(b)
    c_state, c_dice = _battle("other")
    assert [e.text for e in simulate(c_state, c_dice).log] != [e.text for e in a.log]


def test_max_cards_caps_the_battle():
    state, dice = _battle("cap")
    end = simulate(state, dice, max_cards=3)
    assert end.cards_drawn == 3 and is_over(end) and outcome(end).capped


def test_weaponless_sides_still_end():
    from campaign.rules.eventhorizon.designs import Design
    tramp = Design(name="Tramp", ship_type="tramp_freighter", hull=5, engine=5, cargo=5)
    dice = SeededDice(derive_seed("tramps"))
    state = deploy({1: [CampaignShip(1, tramp)], 2: [CampaignShip(2, tramp)]}, dice, invader=2)
    end = simulate(state, dice, strict=True)
    assert is_over(end)


def _activated(ships, **kw):
    return load_battle(dict({"activate": 1, "size": [12, 12], "ships": ships}, **kw))


def test_doctrine_closes_to_close_range_with_lasers():
    state = _activated([{"id": 1, "side": 1, "design": "laser_boat", "at": "5,10"},
                        {"id": 2, "side": 2, "design": "hulk", "at": "5,2", "facing": "S"}])
    action = doctrine_action(state, 1)
    assert isinstance(action, Move)
    from tactical.rules.eventhorizon import apply
    after = apply(state, action, SeededDice(derive_seed("m"))).state
    assert distance(after.ship(1).pos, (5, 2)) == 4  # 8 squares away, 4 moved straight at it


def test_doctrine_stands_off_with_missiles():
    state = _activated([{"id": 1, "side": 1, "design": "missile_boat", "at": "5,8"},
                        {"id": 2, "side": 2, "design": "laser_boat", "at": "5,2", "facing": "S"}])
    from tactical.rules.eventhorizon import apply
    after = apply(state, doctrine_action(state, 1), SeededDice(derive_seed("m"))).state
    assert distance(after.ship(1).pos, (5, 2)) == 3  # outside the lasers' close range


def test_doctrine_closes_in_with_short_range_weapons_on_a_target_that_can_close():
    # Ruling TC30 (003 Ranges, Weapon Damage and Range, Movement): the Sultan's particle accelerators
    # fire at close range only; a Galiot (engine 9) closes the two squares from long range itself when
    # next activated, so standing off at 3 would only keep the accelerators silent: it closes in.
    from tactical.rules.eventhorizon import apply
    ships = [{"id": 1, "side": 1, "design": "sultan", "at": "5,9"},
             {"id": 2, "side": 2, "design": "galiot", "at": "5,2", "facing": "S"}]
    after = apply(_activated(ships), doctrine_action(_activated(ships), 1), SeededDice(derive_seed("m"))).state
    assert distance(after.ship(1).pos, (5, 2)) == 1
    # A Galiot whose engines are down to 1 cannot close from 3: the Sultan stands off with its missiles.
    ships[1]["set"] = {"movement": 1}
    after = apply(_activated(ships), doctrine_action(_activated(ships), 1), SeededDice(derive_seed("m"))).state
    assert distance(after.ship(1).pos, (5, 2)) == 3


def test_doctrine_focuses_fire_on_the_weakest_target():
    state = _activated([{"id": 1, "side": 1, "design": "laser_boat", "at": "5,5"},
                        {"id": 2, "side": 2, "design": "hulk", "at": "5,4", "facing": "S"},
                        {"id": 3, "side": 2, "design": "hulk", "at": "6,5", "facing": "W", "set": {"hull": 2}}],
                       actions_taken=["move"])
    action = doctrine_action(state, 1)
    assert isinstance(action, Fire)
    assert {t for _, t in action.shots} == {3}


def test_doctrine_regenerates_a_downed_field():
    state = _activated(
        [
            {"id": 1, "side": 1, "design": "laser_boat", "at": "5,5", "set": {"force_fields": [0, 4, 4, 4]}},
            {"id": 2, "side": 2, "design": "hulk", "at": "5,4", "facing": "S"},
        ]
    )
    assert isinstance(doctrine_action(state, 1), Regenerate)


def test_doctrine_evades_when_weak():
    state = load_battle({"acting_side": 1, "ships": [
        {"id": 1, "side": 1, "design": "laser_boat", "at": "5,5", "set": {"hull": 2}},
        {"id": 2, "side": 2, "design": "hulk", "at": "5,2"}]})
    action = doctrine_action(state, 1)
    assert action == Activate(1, evasive=True)
    assert doctrine_action(state, 2) is None  # not side 2's card


def test_doctrine_warps_out_when_outmatched_and_in_shuttles():
    state = _activated([{"id": 1, "side": 1, "design": "laser_boat", "at": "5,5", "set": {"hull": 2}},
                        {"id": 2, "side": 2, "design": "san_marco", "at": "5,2"},
                        {"id": 3, "side": 2, "design": "san_marco", "at": "7,2"}])
    assert doctrine_action(state, 1) == WarpOut(1)
    shuttle = _activated(
        [
            {
                "id": 1,
                "side": 1,
                "design": "hulk",
                "at": "5,5",
                "set": {"shuttle": True, "hull": 1, "movement": 3},
            },
            {"id": 4, "side": 1, "design": "hulk", "at": "0,0"},
            {"id": 2, "side": 2, "design": "hulk", "at": "5,2"},
        ]
    )
    assert doctrine_action(shuttle, 1) == WarpOut(1)


def test_doctrine_plays_campaign_fleets_both_ways():
    for invader in (1, 2):
        dice = SeededDice(derive_seed(f"camp-{invader}"))
        fleets = {
            1: [CampaignShip(1, SAN_MARCO), CampaignShip(2, SWORD)],
            2: [CampaignShip(3, SULTAN), CampaignShip(4, GALIOT)],
        }
        end = simulate(deploy(fleets, dice, invader=invader, aewa=True), dice, strict=True)
        assert is_over(end)


def test_doctrine_without_sensors_closes_in_and_does_not_evade():  # 003 Lock On: manual lock at close range only
    from tactical.rules.eventhorizon import apply
    state = _activated([{"id": 1, "side": 1, "design": "missile_boat", "at": "5,8", "set": {"sensors": False}},
                        {"id": 2, "side": 2, "design": "laser_boat", "at": "5,2", "facing": "S"}])
    after = apply(state, doctrine_action(state, 1), SeededDice(derive_seed("m"))).state
    assert distance(after.ship(1).pos, (5, 2)) < 3  # with sensors it stands off at 3 (test above)
    weak = load_battle({"acting_side": 1, "ships": [
        {"id": 1, "side": 1, "design": "laser_boat", "at": "5,5", "set": {"hull": 2, "sensors": False}},
        {"id": 2, "side": 2, "design": "hulk", "at": "5,2"}]})
    assert doctrine_action(weak, 1) == Activate(1, evasive=None)  # -1 manual lock, no -1 more for evading


def test_doctrine_breaks_a_blocked_line_stalemate():  # 003 Spatial Anomalies: no shooting through a cloud
    from tactical.rules.eventhorizon import apply
    # At its preferred range 3 but a particle cloud blocks the line of fire: it moves for a shot.
    state = _activated([{"id": 1, "side": 1, "design": "missile_boat", "at": "5,8"},
                        {"id": 2, "side": 2, "design": "laser_boat", "at": "5,5", "facing": "S"}],
                       terrain={"5,6": "cloud", "5,7": "cloud"})
    action = doctrine_action(state, 1)
    assert isinstance(action, Move)
    after = apply(state, action, SeededDice(derive_seed("m"))).state
    from tactical.rules.eventhorizon.engine import shot_clear
    assert shot_clear(after, after.ship(1), (5, 5), "close" if distance(after.ship(1).pos, (5, 5)) <= 1 else "long")
