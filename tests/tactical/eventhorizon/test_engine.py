"""Unit tests of the tactical engine's pieces that are not one rule case: the deck, the angle
locator chart, the hit ordering ruling, deployment from campaign fleets (AEWA), refusals that
change nothing, legal_actions agreeing with apply, and the registry."""

from __future__ import annotations

from collections import Counter

import pytest

from campaign.rules.dice import FixedDice, SeededDice, derive_seed
from campaign.rules.eventhorizon.designs import GALIOT, SAMPLE_DESIGNS, SAN_MARCO, SULTAN, SWORD
from campaign.rules.eventhorizon.economy import Damage, repair_cost
from tactical.rules import registry
from tactical.rules.eventhorizon import (
    Activate,
    Battlefield,
    CampaignShip,
    EndActivation,
    IllegalActionError,
    Move,
    Placement,
    apply,
    check,
    deploy,
    draw_card,
    legal_actions,
    outcome,
)
from tactical.rules.eventhorizon.cards import DECK_SIZE, Card, full_deck, shuffle, suit_owner
from tactical.rules.eventhorizon.engine import best_hit_order
from tactical.rules.eventhorizon.geometry import AFT, FORWARD, PORT, STARBOARD, arc_of, squares_between
from tactical.rules.eventhorizon.state import evolve


def test_deck_has_54_cards_with_two_jokers():  # 003 The Turn Sequence: do not remove the jokers
    deck = full_deck()
    assert len(deck) == DECK_SIZE == 54
    assert sum(c.is_joker for c in deck) == 2
    assert len(set(deck) - {Card(0, "X")}) == 52


def test_dac_activations():  # 003 The Turn Sequence: Decisive Action Cards
    assert [Card.parse(t).activations for t in ("2H", "10S", "JH", "QD", "KC", "AS", "Joker")] == [1, 1, 2, 3, 4, 5, 0]
    assert [Card.parse(t).is_dac for t in ("10S", "JH", "AS")] == [False, True, True]


def test_bad_card_refused():
    with pytest.raises(ValueError, match="not a playing card"):
        Card.parse("1Z")


def test_shuffle_is_a_permutation_and_uses_the_dice():  # 003 The Turn Sequence: well-shuffled cards (TC1)
    dice = SeededDice(derive_seed("deck"))
    deck = shuffle(full_deck(), dice)
    assert Counter(deck) == Counter(full_deck())
    assert deck != full_deck()
    assert len(dice.log) == 53 and all(r.roll.purpose == "003 The Turn Sequence: shuffle the deck" for r in dice.log)
    assert [r.roll.sides for r in dice.log] == list(range(54, 1, -1))
    assert shuffle(full_deck(), SeededDice(derive_seed("deck"))) == deck


def test_red_and_black_and_suits():  # 003 The Turn Sequence
    assert suit_owner((7, 9), Card.parse("5H")) == 7
    assert suit_owner((7, 9), Card.parse("5C")) == 9
    assert [suit_owner((1, 2, 3, 4), Card.parse(f"5{s}")) for s in "HCDS"] == [1, 2, 3, 4]


CHART = ["FFFFFFF", "PFFFFFS", "PPFFFSS", "PPP^SSS", "PPAAASS", "PAAAAAS", "AAAAAAA"]
LETTER = {"F": FORWARD, "S": STARBOARD, "A": AFT, "P": PORT}


@pytest.mark.parametrize("facing", [0, 1, 2, 3])
def test_angle_locator_matches_the_printed_chart_for_every_facing(facing):  # 003 Angle Locator
    # Rotate each chart square into the target's facing and read the arc back.
    centre = (10, 10)
    for row, line in enumerate(CHART):
        for col, letter in enumerate(line):
            if letter == "^":
                continue
            ahead, right = 3 - row, col - 3
            fx, fy = ((0, -1), (1, 0), (0, 1), (-1, 0))[facing]
            sx, sy = -fy, fx
            other = (centre[0] + ahead * fx + right * sx, centre[1] + ahead * fy + right * sy)
            assert arc_of(centre, facing, other) == LETTER[letter], (facing, row, col)


def test_lines_of_fire():  # 003 Spatial Anomalies (TC8)
    assert squares_between((0, 0), (3, 0)) == (((1, 0),), ((2, 0),))
    assert squares_between((1, 5), (3, 4)) == (((2, 4), (2, 5)),)
    assert squares_between((0, 0), (1, 1)) == ()


def test_best_hit_order_zeroes_the_field_first():  # 003 Force Fields (TC17)
    assert best_hit_order(3, [1, 3]) == [1, 0]  # missile takes the field to 0, laser goes through
    assert best_hit_order(4, [3, 1, 1]) == [0, 1, 2]  # 3 + 1 exactly; the last laser through
    assert best_hit_order(0, [1, 3, 2]) == [1, 2, 0]
    assert best_hit_order(9, [1, 1]) == [0, 1]


def _fleets():
    return {
        1: [CampaignShip(1, SAN_MARCO), CampaignShip(2, SWORD, hero_crew=True)],
        2: [CampaignShip(11, SULTAN, Damage(hull=3, weapons=("guided_missile_bay",))), CampaignShip(12, GALIOT)],
    }


def test_deploy_builds_ships_from_campaign_designs_and_damage():  # 003 Use of BP in a Campaign
    state = deploy(_fleets(), SeededDice(derive_seed("d")), invader=2)
    sultan = state.ship(11)
    assert sultan.hull == SULTAN.hull - 3 and sultan.weapons.count("guided_missile_bay") == 1
    assert state.ship(2).hero_crew and state.ship(1).force_fields == (8, 8, 8, 8)
    assert len(state.deck) == 54 and state.sides == (1, 2)
    assert {s.pos[1] for s in state.ships if s.side == 1} <= {0, 1}
    assert {s.pos[1] for s in state.ships if s.side == 2} <= {14, 15}


def test_aewa_makes_the_invader_deploy_first():  # 003 Use of BP in a Campaign: AEWA (TC24)
    fleets = {1: [CampaignShip(1, SAN_MARCO)], 2: [CampaignShip(11, GALIOT)]}
    mine = [Placement(1, (2, 1), "S")]
    # Without an AEWA the defender (1) deploys first and the invader lines up on it.
    plain = deploy(fleets, SeededDice(derive_seed("a")), invader=2, placements={1: mine})
    assert plain.ship(11).pos[0] == 2
    # With one, the invader goes first (centred) and the defender's automatic line centres on it.
    aewa = deploy({1: [CampaignShip(1, SAN_MARCO)], 2: [CampaignShip(11, GALIOT)]},
                  SeededDice(derive_seed("a")), invader=2, aewa=True, placements={2: [Placement(11, (13, 14), "N")]})
    assert aewa.ship(1).pos[0] == 13


def test_deploy_refusals():
    dice = SeededDice(derive_seed("r"))
    with pytest.raises(IllegalActionError, match="needs to know the invading side"):
        deploy(_fleets(), dice, aewa=True)
    with pytest.raises(IllegalActionError, match="outside side 1's deployment zone"):
        deploy(_fleets(), dice, placements={1: [Placement(1, (5, 8), "S"), Placement(2, (6, 0), "S")]})
    with pytest.raises(IllegalActionError, match="leaves ship"):
        deploy(_fleets(), dice, placements={1: [Placement(1, (5, 0), "S")]})
    with pytest.raises(IllegalActionError, match="2 to 4 fleets"):
        deploy({1: [CampaignShip(1, SAN_MARCO)]}, dice)


def test_outcome_damage_is_repairable_in_the_campaign():  # 003 Dockyard; ruling TC22
    state = deploy(_fleets(), SeededDice(derive_seed("o")), invader=2)
    hurt = evolve(state.ship(11), hull=1, weapons=(), weapons_lost=("particle_accelerator", "particle_accelerator",
                                                                  "guided_missile_bay"), generators=(False,) * 4,
                  stealth_operable=False, movement=-1)
    state = evolve(state, ships=tuple(hurt if s.id == 11 else s for s in state.ships))
    result = {s.ship: s for s in outcome(state).ships}[11]
    assert result.damage.hull == SULTAN.hull - 1 and result.damage.engine == SULTAN.engine
    assert repair_cost(SULTAN, result.damage) > 0  # the campaign accepts it as damage of this design


def test_refused_action_changes_nothing_and_rolls_nothing():
    state = deploy(_fleets(), SeededDice(derive_seed("x")), invader=2)
    dice = FixedDice([])
    before = state
    with pytest.raises(IllegalActionError, match="acting out of turn"):
        apply(state, Activate(1), dice)
    assert state is before and state == before and dice.rolls == []


def test_legal_actions_are_accepted_by_apply():
    state = deploy(_fleets(), SeededDice(derive_seed("l")), invader=2)
    dice = SeededDice(derive_seed("l2"))
    seen = 0
    for _ in range(40):
        if state.acting_side is None:
            state = draw_card(state, dice).state
            continue
        ship = next(s for s in state.ships if s.side == state.acting_side and s.in_play)
        options = legal_actions(state, ship.id)
        assert options, "the acting side must always have something legal"
        for a in options:
            check(state, a)
        seen += len(options)
        state = apply(state, options[0], dice).state
        if state.activation is not None:
            moves = [a for a in legal_actions(state, state.activation.ship) if isinstance(a, Move)]
            seen += len(moves)
            state = apply(state, EndActivation(state.activation.ship), dice).state
    assert seen > 40


def test_battlefield_refuses_bad_terrain():
    with pytest.raises(ValueError, match="unknown anomaly"):
        Battlefield(8, 8, {(1, 1): "nebula"})
    with pytest.raises(ValueError, match="off the table"):
        Battlefield(8, 8, {(9, 1): "sun"})


def test_registered_as_eventhorizon():
    record = registry.find_resolver("eventhorizon")
    assert record.rule_book.startswith("003")
    state = deploy(
        {
            1: [CampaignShip(i, d) for i, d in enumerate(SAMPLE_DESIGNS[:2], 1)],
            2: [CampaignShip(10 + i, d) for i, d in enumerate(SAMPLE_DESIGNS[2:], 1)],
        },
        SeededDice(derive_seed("reg")),
        invader=2,
    )
    result = record.resolve(state, SeededDice(derive_seed("reg2")))
    assert result.over
