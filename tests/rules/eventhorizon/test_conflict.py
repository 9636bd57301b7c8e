"""Event Horizon conflict: invasions, neutral worlds, battles (seeds/003 "Ideas for a Military
Campaign": Invading Enemy Hexes, Result of a Tactical Battle, Neutral Planets/Colonies, Use of BP
in a Campaign, Alternative to a Tactical Battle; RULINGS.md "Invasion", "Neutral planets",
"Auto-resolve odds"; rulings C1–C14 in docs/rulings.md). Pure rules: no database."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.rules.dice import DiceError, FixedDice, SeededDice
from campaign.rules.eventhorizon.conflict import (
    NEUTRAL_LOSS_PURPOSE,
    NEUTRAL_PURPOSE,
    Battle,
    choose_losses,
    fight_battles,
    neutral_world_rolls,
    resolve_invasions,
    ships_in_hex,
)
from campaign.rules.eventhorizon.economy import Resource
from campaign.rules.eventhorizon.state import (
    FIGHT,
    RETREAT,
    BuildState,
    CampaignState,
    InvasionOrder,
    StandingOrders,
)
from campaign.rules.grid import Coord
from tests.rules.eventhorizon.eh_builders import DESIGNS, build_state


@dataclass(frozen=True)
class Contact:
    """Stand-in for movement.Contact (same fields)."""

    hex: Coord
    invader: int
    invader_fleet: int
    defenders: tuple[int, ...]


# --- helpers -----------------------------------------------------------------------------------------


def standing(state: CampaignState, seat: int, **kw) -> CampaignState:
    empire = state.empire(seat)
    return state.with_empire(replace(empire, standing=replace(empire.standing, **kw)))


def retreat_orders(state: CampaignState, seat: int, *orders: InvasionOrder) -> CampaignState:
    return standing(state, seat, invasion=tuple(orders))


def world(state: CampaignState, c: Coord):
    return state.world_at(c)


def fleet_at(state: CampaignState, fleet_id: int) -> Coord | None:
    f = state.fleet(fleet_id)
    return None if f is None else f.coord


def with_build(state: CampaignState, dockyard: int, owner: int, design: str = "galiot") -> CampaignState:
    return replace(state, builds=state.builds + (BuildState(dockyard=dockyard, owner=owner,
                                                             design=DESIGNS[design], turns_left=2),))


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def check_consistent(state: CampaignState) -> None:
    """Every ship in exactly one fleet of its owner; no empty fleets; no fleet lists a missing ship."""
    seen: dict[int, int] = {}
    ships = state.ship_index()
    for f in state.fleets:
        assert f.ships, f"fleet {f.id} is empty"
        for sid in f.ships:
            assert sid not in seen, f"ship {sid} in fleets {seen[sid]} and {f.id}"
            seen[sid] = f.id
            assert sid in ships and ships[sid].owner == f.owner
    assert set(seen) == set(ships)
    assert len({f.id for f in state.fleets}) == len(state.fleets)


# --- neutral worlds ------------------------------------------------------------------------------------

NEUTRAL = "1 . O"  # seat 1's home at (0, 0), a neutral planet at (2, 0)


@pytest.mark.parametrize("face", [5, 6])
def test_neutral_roll_5_or_6_joins(face):  # 003 Neutral Planets/Colonies: 5–6 declares its support
    state = build_state(NEUTRAL, fleets=[(1, (2, 0), ["galiot", "sword"])])
    dice = FixedDice([face])
    state, events = neutral_world_rolls(state, dice)
    assert world(state, (2, 0)).owner == 1
    assert kinds(events) == ["neutral_joined"]
    assert events[0].data["faces"] == [face] and events[0].data["score"] == face
    assert [r.purpose for r in dice.rolls] == [NEUTRAL_PURPOSE]
    assert len(state.ships) == 2


@pytest.mark.parametrize("face", [3, 4])
def test_neutral_roll_3_or_4_stays_neutral(face):  # 003 Neutral Planets/Colonies: 3–4 reasserts neutrality
    state = build_state(NEUTRAL, fleets=[(1, (2, 0), ["galiot", "sword"])])
    new, events = neutral_world_rolls(state, FixedDice([face]))
    assert world(new, (2, 0)).owner is None
    assert kinds(events) == ["neutral_stays"]
    assert new.ships == state.ships and new.fleets == state.fleets


@pytest.mark.parametrize("face", [1, 2])
@pytest.mark.parametrize("pick,lost", [(1, 1), (2, 2), (3, 3)])
# 003 Neutral Planets/Colonies; RULINGS "Neutral planets"
def test_neutral_roll_1_or_2_destroys_a_random_ship(face, pick, lost):
    state = build_state(NEUTRAL, fleets=[(1, (2, 0), ["galiot", "sword", "sultan"])])
    dice = FixedDice([face, pick])
    state, events = neutral_world_rolls(state, dice)
    assert world(state, (2, 0)).owner is None
    assert [(r.count, r.sides, r.purpose) for r in dice.rolls] == [
        (1, 6, NEUTRAL_PURPOSE),
        (1, 3, NEUTRAL_LOSS_PURPOSE),
    ]
    assert lost not in {s.id for s in state.ships}
    assert state.fleet(1).ships == tuple(s for s in (1, 2, 3) if s != lost)
    assert events[0].kind == "neutral_attacks"
    assert events[0].data["ship_lost"] == lost and events[0].data["loss_faces"] == [pick]
    check_consistent(state)


def test_diplomatic_corps_turns_4_into_5():  # 003 Neutral Planets/Colonies; Use of BP: Diplomatic Corps
    state = build_state(NEUTRAL, fleets=[(1, (2, 0), ["galiot"])],
                        structures=[(1, "diplomatic_corps", (0, 0))])
    state, events = neutral_world_rolls(state, FixedDice([4]))
    assert world(state, (2, 0)).owner == 1
    assert events[0].data["raw"] == 4 and events[0].data["score"] == 5
    assert events[0].data["modifiers"] == [["Diplomatic Corps", 1]]


def test_another_empires_diplomatic_corps_does_not_help():  # 003 Neutral Planets/Colonies: "in your empire"
    state = build_state("1 . O . 2", fleets=[(1, (2, 0), ["galiot"])],
                        structures=[(2, "diplomatic_corps", (4, 0))])
    state, _ = neutral_world_rolls(state, FixedDice([4]))
    assert world(state, (2, 0)).owner is None


def test_bombardment_array_turns_4_into_5():  # 003 Neutral Planets/Colonies: +1 for a PBA
    state = build_state(NEUTRAL, fleets=[(1, (2, 0), ["galiot", "bomber"])])
    state, events = neutral_world_rolls(state, FixedDice([4]))
    assert world(state, (2, 0)).owner == 1
    assert events[0].data["modifiers"] == [["Planetary Bombardment Array", 1]]


def test_destroyed_bombardment_array_gives_no_bonus():  # 003 Neutral Planets/Colonies (ruling C9)
    from campaign.rules.eventhorizon.economy import Damage

    state = build_state(NEUTRAL, fleets=[(1, (2, 0), ["bomber"])])
    state = replace(state, ships=tuple(replace(s, damage=Damage(weapons=("planetary_bombardment_array",)))
                                       for s in state.ships))
    state, _ = neutral_world_rolls(state, FixedDice([4]))
    assert world(state, (2, 0)).owner is None


def test_both_modifiers_add_two():  # 003 Neutral Planets/Colonies: both +1s
    state = build_state(NEUTRAL, fleets=[(1, (2, 0), ["bomber"])],
                        structures=[(1, "diplomatic_corps", (0, 0))])
    state, events = neutral_world_rolls(state, FixedDice([3]))
    assert world(state, (2, 0)).owner == 1
    assert events[0].data["score"] == 5


def test_modified_raw_2_is_a_3_and_stays_neutral():  # 003 Neutral Planets/Colonies: "Add +1 to the die score"
    state = build_state(NEUTRAL, fleets=[(1, (2, 0), ["bomber", "galiot"])])
    dice = FixedDice([2])
    new, events = neutral_world_rolls(state, dice)
    assert kinds(events) == ["neutral_stays"] and events[0].data["score"] == 3
    assert len(new.ships) == 2 and len(dice.rolls) == 1


def test_modified_raw_1_still_loses_a_ship():  # 003 Neutral Planets/Colonies: 1 + 1 = 2
    state = build_state(NEUTRAL, fleets=[(1, (2, 0), ["bomber", "galiot"])])
    new, events = neutral_world_rolls(state, FixedDice([1, 2]))
    assert events[0].data["score"] == 2 and events[0].data["ship_lost"] == 2
    assert [s.id for s in new.ships] == [1]


def test_joined_world_is_not_rolled_again_next_turn():  # 003 Neutral Planets/Colonies: "no further rolls"
    state = build_state(NEUTRAL, fleets=[(1, (2, 0), ["galiot"])])
    state, _ = neutral_world_rolls(state, FixedDice([6]))
    state = replace(state, turn=state.turn + 1)
    dice = FixedDice([])  # any roll would raise
    state2, events = neutral_world_rolls(state, dice)
    assert events == () and dice.rolls == [] and state2 == state


def test_second_fleet_does_not_roll_after_the_world_joins():  # 003 Neutral Planets/Colonies: "no further rolls"
    state = build_state(NEUTRAL, fleets=[(1, (2, 0), ["galiot"]), (1, (2, 0), ["sword"])])
    dice = FixedDice([5])
    state, events = neutral_world_rolls(state, dice)
    assert len(dice.rolls) == 1 and events[0].data["fleet"] == 1


def test_each_fleet_rolls_in_fleet_id_order():  # 003 Neutral Planets/Colonies: "Whenever a fleet is in a hex"
    state = build_state(NEUTRAL, fleets=[(1, (2, 0), ["galiot"]), (1, (2, 0), ["sword"])])
    state, events = neutral_world_rolls(state, FixedDice([3, 6]))
    assert [e.data["fleet"] for e in events] == [1, 2]
    assert kinds(events) == ["neutral_stays", "neutral_joined"]


def test_lone_ship_rolls_too_and_is_lost_without_a_pick():  # 003 Neutral Planets/Colonies; RULINGS "a lone ship"
    state = build_state("1 . o", fleets=[(1, (2, 0), ["galiot"])])
    dice = FixedDice([1])
    state, events = neutral_world_rolls(state, dice)
    assert len(dice.rolls) == 1  # one ship: nothing to choose between
    assert state.ships == () and state.fleets == ()
    assert events[0].data["fleet_destroyed"] is True


def test_lone_ship_joins_a_colony():  # 003 Neutral Planets/Colonies (colonies too)
    state = build_state("1 . o", fleets=[(1, (2, 0), ["tramp"])])
    state, _ = neutral_world_rolls(state, FixedDice([6]))
    assert world(state, (2, 0)).owner == 1


def test_contested_hex_makes_no_neutral_rolls():  # 003 Neutral Planets/Colonies (ruling C10)
    state = build_state("1 . O . 2", fleets=[(1, (2, 0), ["galiot"]), (2, (2, 0), ["galiot"])])
    dice = FixedDice([])
    new, events = neutral_world_rolls(state, dice)
    assert events == () and new == state


def test_owned_and_empty_hexes_make_no_rolls():  # 003 Neutral Planets/Colonies: only neutral worlds
    state = build_state("1 . b . 2", fleets=[(1, (2, 0), ["galiot"]), (1, (1, 0), ["galiot"]), (1, (0, 0), ["galiot"])])
    dice = FixedDice([])
    _, events = neutral_world_rolls(state, dice)
    assert events == ()


# --- invasions --------------------------------------------------------------------------------------------

# Seat 2 home at (0, 0), seat 2's planet at (3, 0), seat 1 home at (7, 0).
LINE = "2 . . b . . . 1"


def invaded(*, defenders=("galiot",), attackers=("san_marco",), structures=(), picture=LINE, at=(3, 0)):
    """Seat 1's fleet (id 1) has entered ``at``; seat 2's fleet (id 2) is there (if any ships)."""
    fleets = [(1, at, list(attackers))]
    if defenders:
        fleets.append((2, at, list(defenders)))
    state = build_state(picture, fleets=fleets, structures=list(structures))
    return state, [Contact(hex=at, invader=1, invader_fleet=1, defenders=(2,))]


def test_default_order_fights():  # 003 Invading Enemy Hexes: Option 1; RULINGS "Invasion" (fight is the default)
    state, contacts = invaded()
    new, events, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert battles == (Battle(hex=(3, 0), attacker=1, defender=2, aewa=False),)
    assert new == state
    assert kinds(events) == ["battle_joined"]


def test_retreat_moves_fleet_and_abandons_world_with_structures_and_builds():  # 003 Invading Enemy Hexes: Option 2
    state, contacts = invaded(structures=[(2, "dockyard", (3, 0)), (2, "planetary_defences", (3, 0))])
    dock = next(s.id for s in state.structures if s.coord == (3, 0) and s.resource is Resource.DOCKYARD)
    state = with_build(state, dock, 2)
    state = retreat_orders(state, 2, InvasionOrder(response=RETREAT))
    new, events, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert battles == ()
    assert fleet_at(new, 2) == (0, 0)  # the nearest world seat 2 owns, 3 steps away (galiot moves 5)
    assert world(new, (3, 0)).owner == 1
    assert {s.owner for s in new.structures_at((3, 0))} == {1}
    assert new.builds[0].owner == 1
    assert world(new, (0, 0)).owner == 2 and {s.owner for s in new.structures_at((0, 0))} == {2}
    assert kinds(events) == ["retreat", "hex_captured"]
    assert events[1].data["capture"]["builds"] == [{"dockyard": dock, "design": DESIGNS["galiot"], "turns_left": 2}]


# 003 Invading Enemy Hexes; RULINGS "Invasion"
def test_retreat_goes_to_the_nearest_friendly_world_ties_by_reading_order():
    picture = """
    . . b . .
    . . . . .
    2 . . . b
    . . . . .
    . . b . .
    """
    state = build_state(picture, fleets=[(1, (2, 2), ["san_marco"]), (2, (2, 2), ["galiot"])], seats=2)
    state = retreat_orders(state, 2, InvasionOrder(response=RETREAT))
    new, _, _ = resolve_invasions(state, [Contact((2, 2), 1, 1, (2,))], FixedDice([]))
    assert fleet_at(new, 2) == (2, 0)  # (2,0), (0,2), (4,2), (2,4) are all 2 away: top row first


def test_retreat_avoids_worlds_held_by_an_enemy_fleet():  # 003 Invading Enemy Hexes: "nearest friendly hex" (ruling C3)
    state = build_state("2 . . b . b . 1", fleets=[(1, (3, 0), ["san_marco"]), (2, (3, 0), ["galiot"]),
                                                   (1, (5, 0), ["galiot"])])
    state = retreat_orders(state, 2, InvasionOrder(response=RETREAT))
    new, _, _ = resolve_invasions(state, [Contact((3, 0), 1, 1, (2,))], FixedDice([]))
    assert fleet_at(new, 2) == (0, 0)  # (5,0) is nearer but seat 1 has a fleet there


# 003 Invading Enemy Hexes: "Retreat up to one full map move"; RULINGS "or to the hex your order names"
def test_retreat_to_is_honoured():
    state, contacts = invaded()
    state = retreat_orders(state, 2, InvasionOrder(response=RETREAT, hex=(3, 0), retreat_to=(5, 0)))
    new, events, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert fleet_at(new, 2) == (5, 0) and battles == ()
    assert events[0].data["ordered_to"] == [5, 0]
    assert world(new, (3, 0)).owner == 1


# 003 Invading Enemy Hexes: "up to one full map move" (ruling C2)
def test_retreat_to_out_of_reach_falls_back_to_nearest_world():
    picture = "2 . . b . . . . . . . 1"
    state = build_state(picture, fleets=[(1, (3, 0), ["san_marco"]), (2, (3, 0), ["sword"])])
    # 7 away, sword moves 4
    state = retreat_orders(state, 2, InvasionOrder(response=RETREAT, fleet=2, retreat_to=(10, 0)))
    new, _, _ = resolve_invasions(state, [Contact((3, 0), 1, 1, (2,))], FixedDice([]))
    assert fleet_at(new, 2) == (0, 0)


def test_fleet_order_beats_hex_order():  # RULINGS "Invasion": per fleet, then per hex, then default
    state, contacts = invaded()
    state = retreat_orders(state, 2, InvasionOrder(response=RETREAT, hex=(3, 0)),
                           InvasionOrder(response=FIGHT, fleet=2))
    new, _, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert fleet_at(new, 2) == (3, 0)
    assert len(battles) == 1


def test_retreat_with_nowhere_in_reach_stands_and_fights():  # 003 Invading Enemy Hexes (ruling C2)
    picture = "2 . . . . . b . 1"
    state = build_state(picture, fleets=[(1, (6, 0), ["san_marco"]), (2, (6, 0), ["bomber"])])  # bomber moves 2
    state = retreat_orders(state, 2, InvasionOrder(response=RETREAT))
    new, events, battles = resolve_invasions(state, [Contact((6, 0), 1, 1, (2,))], FixedDice([]))
    assert fleet_at(new, 2) == (6, 0)
    assert kinds(events) == ["retreat_impossible", "battle_joined"]
    assert battles == (Battle((6, 0), 1, 2, False),)


def test_retreat_from_open_space_leaves_nothing_to_capture():  # 003 Invading Enemy Hexes
    state, contacts = invaded(at=(2, 0))
    state = retreat_orders(state, 2, InvasionOrder(response=RETREAT))
    new, events, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert fleet_at(new, 2) == (3, 0)  # its planet next door
    assert battles == () and kinds(events) == ["retreat"]


def test_undefended_world_is_captured_without_battle():  # 003 Invading Enemy Hexes (ruling C5)
    state, contacts = invaded(defenders=(), structures=[(2, "dockyard", (3, 0))])
    new, events, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert battles == ()
    assert world(new, (3, 0)).owner == 1 and {s.owner for s in new.structures_at((3, 0))} == {1}
    assert kinds(events) == ["hex_captured"]


def test_undefended_star_gate_in_open_space_is_captured():  # 003 Invading Enemy Hexes: "star gates"
    state, contacts = invaded(defenders=(), at=(2, 0), structures=[(2, "star_gate", (2, 0))])
    new, _, _ = resolve_invasions(state, contacts, FixedDice([]))
    assert [s.owner for s in new.structures_at((2, 0))] == [1]


def test_planetary_defences_alone_give_battle_when_ordered_to_fight():  # Use of BP: Planetary Defences (ruling C7)
    state, contacts = invaded(defenders=(), structures=[(2, "planetary_defences", (3, 0))])
    new, events, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert battles == (Battle((3, 0), 1, 2, False),)
    assert world(new, (3, 0)).owner == 2
    assert events[0].data["defences_only"] is True


def test_fleet_retreats_but_defences_fight():  # Use of BP: Planetary Defences (ruling C7)
    state, contacts = invaded(structures=[(2, "planetary_defences", (3, 0))])
    state = retreat_orders(state, 2, InvasionOrder(response=RETREAT, fleet=2))
    new, events, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert fleet_at(new, 2) == (0, 0)
    assert battles == (Battle((3, 0), 1, 2, False),)


def test_aewa_is_flagged_on_the_battle():  # Use of BP: Advanced Early Warning Array
    state, contacts = invaded(structures=[(2, "planetary_defences", (3, 0)), (2, "aewa", (3, 0))])
    _, events, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert battles == (Battle((3, 0), 1, 2, aewa=True),)
    assert events[0].data["aewa"] is True


def test_aewa_owned_by_someone_else_is_not_flagged():  # Use of BP: AEWA ("in a hex containing an AEWA" of yours)
    state, contacts = invaded(structures=[(1, "aewa", (3, 0))])
    _, _, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert battles[0].aewa is False


def test_hold_out_garrison_delays_capture_one_turn():  # Use of BP: Hold Out Garrison
    garrisoned = [(2, "planetary_defences", (3, 0)), (2, "hold_out_garrison", (3, 0)), (2, "dockyard", (3, 0))]
    state, contacts = invaded(defenders=(), structures=garrisoned)
    state = retreat_orders(state, 2, InvasionOrder(response=RETREAT, hex=(3, 0)))
    state, events, battles = resolve_invasions(state, contacts, FixedDice([]))
    w = world(state, (3, 0))
    assert (w.owner, w.held_out_by, w.held_out_until) == (2, 1, 2) and battles == ()
    assert kinds(events) == ["hold_out"]
    assert {s.owner for s in state.structures_at((3, 0))} == {2}
    # A second contact the same turn answers nothing more.
    state, events, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert events == () and battles == ()
    # Next turn, the invader still there: the world and its resources change hands.
    state = replace(state, turn=2)
    state, events, _ = resolve_invasions(state, [], FixedDice([]))
    w = world(state, (3, 0))
    assert (w.owner, w.held_out_by, w.held_out_until) == (1, None, None)
    assert {s.owner for s in state.structures_at((3, 0))} == {1}
    assert kinds(events) == ["hold_out_ended"]


def test_hold_out_lapses_if_the_invader_leaves():  # Use of BP: Hold Out Garrison (ruling C6)
    garrisoned = [(2, "planetary_defences", (3, 0)), (2, "hold_out_garrison", (3, 0))]
    state, contacts = invaded(defenders=(), structures=garrisoned)
    state = retreat_orders(state, 2, InvasionOrder(response=RETREAT))
    state, _, _ = resolve_invasions(state, contacts, FixedDice([]))
    state = replace(state, turn=2, fleets=tuple(replace(f, coord=(4, 0)) for f in state.fleets))
    state, events, _ = resolve_invasions(state, [], FixedDice([]))
    w = world(state, (3, 0))
    assert (w.owner, w.held_out_by, w.held_out_until) == (2, None, None)
    assert kinds(events) == ["hold_out_lapsed"]


def test_hold_out_lapses_if_the_owner_returns():  # Use of BP: Hold Out Garrison (ruling C6)
    garrisoned = [(2, "planetary_defences", (3, 0)), (2, "hold_out_garrison", (3, 0))]
    state, contacts = invaded(structures=garrisoned)
    state = retreat_orders(state, 2, InvasionOrder(response=RETREAT))
    state, _, _ = resolve_invasions(state, contacts, FixedDice([]))
    assert fleet_at(state, 2) == (0, 0) and world(state, (3, 0)).held_out_by == 1
    state = replace(state, turn=2, fleets=tuple(replace(f, coord=(3, 0)) for f in state.fleets))
    state, events, _ = resolve_invasions(state, [], FixedDice([]))
    assert world(state, (3, 0)).owner == 2 and kinds(events) == ["hold_out_lapsed"]


def test_garrison_does_not_act_when_the_world_fights():  # Use of BP: Hold Out Garrison ("without a fight")
    garrisoned = [(2, "planetary_defences", (3, 0)), (2, "hold_out_garrison", (3, 0))]
    state, contacts = invaded(defenders=(), structures=garrisoned)
    new, _, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert len(battles) == 1 and world(new, (3, 0)).held_out_by is None


def test_one_battle_per_attacker_in_contact_order():  # 003 Invading Enemy Hexes (ruling C8)
    picture = "2 . . b . . . 1 . 3"
    state = build_state(picture, fleets=[(1, (3, 0), ["galiot"]), (2, (3, 0), ["galiot"]),
                                         (3, (3, 0), ["sword"]), (1, (3, 0), ["sword"])])
    contacts = [Contact((3, 0), 3, 3, (2,)), Contact((3, 0), 1, 1, (2,)), Contact((3, 0), 1, 4, (2,))]
    _, _, battles = resolve_invasions(state, contacts, FixedDice([]))
    assert battles == (Battle((3, 0), 3, 2, False), Battle((3, 0), 1, 2, False))


def test_ships_in_hex():  # helper
    state = build_state(
        LINE, fleets=[(1, (3, 0), ["galiot"]), (2, (3, 0), ["sword"]), (1, (3, 0), ["sultan", "bomber"])]
    )
    assert [s.id for s in ships_in_hex(state, (3, 0), 1)] == [1, 3, 4]
    assert [s.id for s in ships_in_hex(state, (3, 0), 2)] == [2]
    assert ships_in_hex(state, (0, 0), 1) == ()


# --- battles -------------------------------------------------------------------------------------------


def battle_state(attackers, defenders, structures=(), picture=LINE, at=(3, 0)):
    state, _ = invaded(attackers=attackers, defenders=defenders, structures=structures, picture=picture, at=at)
    return state, [Battle(at, 1, 2, False)]


def test_attacker_wins_captures_world_structures_builds_and_defender_retreats():  # 003 Result of a Tactical Battle
    # 60 BP against 50 BP: 1.2 to 1 rounds to 1 die each; A 5 beats B 3, no 6s.
    state, battles = battle_state(["sword", "sword"], ["galiot", "galiot"],
                                  structures=[(2, "dockyard", (3, 0)), (2, "research_facility", (3, 0))])
    facility = next(s for s in state.structures if s.resource is Resource.RESEARCH_FACILITY)
    from campaign.rules.eventhorizon.designs import Technology

    state = replace(state, structures=tuple(replace(s, technology=Technology.NANOBOT_SKIN) if s is facility else s
                                            for s in state.structures))
    dock = next(s.id for s in state.structures if s.coord == (3, 0) and s.resource is Resource.DOCKYARD)
    state = with_build(state, dock, 2)
    dice = FixedDice([5, 3])
    new, events = fight_battles(state, battles, None, dice)
    assert world(new, (3, 0)).owner == 1
    assert {s.owner for s in new.structures_at((3, 0))} == {1}
    assert new.builds[0].owner == 1
    assert Technology.NANOBOT_SKIN in new.empire(1).technologies
    assert fleet_at(new, 2) == (0, 0) and fleet_at(new, 1) == (3, 0)
    (event,) = events
    assert event.kind == "battle" and event.seats == (1, 2) and event.public is False
    assert event.data["winner"] == 1
    assert event.data["dice"] == {"attacker": 1, "defender": 1}
    assert event.data["rolls"] == [{"attacker": [5], "defender": [3]}]
    assert event.data["retreats"] == [{"fleet": 2, "to": [0, 0], "ships": [3, 4], "why": "to its nearest world"}]
    assert event.data["capture"]["world"] == [3, 0]
    assert event.data["notes"]


def test_defender_wins_keeps_everything_and_attacker_retreats():  # 003 Result of a Tactical Battle
    state, battles = battle_state(["galiot"], ["galiot"], structures=[(2, "dockyard", (3, 0))])
    new, events = fight_battles(state, battles, None, FixedDice([2, 4]))
    assert world(new, (3, 0)).owner == 2 and {s.owner for s in new.structures_at((3, 0))} == {2}
    assert fleet_at(new, 1) == (7, 0)  # seat 1's home, 4 steps away; the galiot moves 5
    assert fleet_at(new, 2) == (3, 0)
    assert events[0].data["winner"] == 2 and events[0].data["capture"] is None


def test_loser_out_of_reach_retreats_toward_its_nearest_world():  # 003 Result of a Tactical Battle (ruling C11)
    picture = "1 . . . . . . . . . b"
    state = build_state(picture, fleets=[(1, (8, 0), ["sword"]), (2, (8, 0), ["sword"])])
    new, events = fight_battles(state, [Battle((8, 0), 1, 2, False)], None, FixedDice([1, 4]))
    assert fleet_at(new, 1) == (4, 0)  # four of the eight steps home
    assert events[0].data["retreats"][0]["why"] == "toward its nearest world"


def test_loser_with_no_world_retreats_one_full_move_away():  # 003 Result of a Tactical Battle (ruling C11)
    picture = ". . . . . . . . 2"
    state = build_state(picture, fleets=[(1, (4, 0), ["sword"]), (2, (4, 0), ["sword"])], seats=2)
    new, _ = fight_battles(state, [Battle((4, 0), 1, 2, False)], None, FixedDice([1, 4]))
    assert fleet_at(new, 1) == (0, 0)  # 4 steps, the farthest it can go; (8,0) also 4 but later in reading order


def test_loser_boxed_in_is_destroyed():  # 003 Result of a Tactical Battle (ruling C11)
    picture = """
    @ @ @ .
    @ . @ .
    @ @ @ 2
    """
    state = build_state(picture, fleets=[(1, (1, 1), ["sword"]), (2, (1, 1), ["sword", "sword"])], seats=2)
    # 30 against 60: A 1d6, B 2d6; B wins without a 6 and A has nowhere to retreat.
    new, events = fight_battles(state, [Battle((1, 1), 1, 2, False)], None, FixedDice([1, 4, 4]))
    assert ships_in_hex(new, (1, 1), 1) == () and new.fleet(1) is None
    assert events[0].data["destroyed_retreating"] == [1]
    check_consistent(new)


def test_retreat_never_enters_enemy_fleets():  # 003 Result of a Tactical Battle (ruling C11; module docstring)
    picture = "2 . . . b . 1"
    state = build_state(picture, fleets=[(1, (4, 0), ["sword"]), (2, (4, 0), ["sword"]), (2, (5, 0), ["galiot"])])
    new, _ = fight_battles(state, [Battle((4, 0), 1, 2, False)], None, FixedDice([1, 4]))
    # Home at (6,0) is behind seat 2's fleet at (5,0) on a one-row map: no way through.
    assert fleet_at(new, 1) == (0, 0)


def test_planetary_defences_add_a_die():  # 003 Alternative to a Tactical Battle: Force Multipliers
    state, battles = battle_state(["galiot"], ["galiot"], structures=[(2, "planetary_defences", (3, 0))])
    dice = FixedDice([6, 6, 5])
    new, events = fight_battles(state, battles, None, dice)
    assert [r.count for r in dice.rolls] == [1, 2]
    assert events[0].data["dice"] == {"attacker": 1, "defender": 2}
    assert events[0].data["sides"]["defender"]["defences"] is True


def test_planetary_defences_fight_alone():  # Use of BP: Planetary Defences; ruling A2 (0-BP side)
    state, battles = battle_state(["galiot"], [], structures=[(2, "planetary_defences", (3, 0))])
    dice = FixedDice([5, 6])
    new, events = fight_battles(state, battles, None, dice)
    assert events[0].data["dice"] == {"attacker": 1, "defender": 1}
    assert events[0].data["winner"] == 2 and events[0].data["losses"]["attacker"] == [1]
    assert new.fleet(1) is None and world(new, (3, 0)).owner == 2


# Use of BP: Planetary Defences; 003 Result of a Tactical Battle
def test_planetary_defences_alone_beaten_lose_the_world():
    state, battles = battle_state(["galiot"], [], structures=[(2, "planetary_defences", (3, 0))])
    new, events = fight_battles(state, battles, None, FixedDice([6, 3]))
    assert events[0].data["losses"] == {"attacker": [], "defender": []}
    assert world(new, (3, 0)).owner == 1
    assert [s.owner for s in new.structures_at((3, 0))] == [1]


@pytest.mark.parametrize("order,lost", [("cheapest", [3]), ("costliest", [1])])
def test_losses_follow_the_loss_order(order, lost):  # RULINGS "Auto-resolve odds": standing loss order
    # Attacker: San Marco 40, Sword 30, Galiot 25 = 95 BP; defender: 4 galiots = 100 BP.
    state, battles = battle_state(["san_marco", "sword", "galiot"], ["galiot"] * 4)
    state = standing(state, 1, loss_order=order)
    # 95 against 100 is 1 die each, +1 for A's Star Cruiser: A [5, 5], B [6] - B wins with a 6.
    new, events = fight_battles(state, battles, None, FixedDice([5, 5, 6]))
    assert events[0].data["losses"]["attacker"] == lost
    assert lost[0] not in {s.id for s in new.ships}


def test_costliest_counts_hero_crews():  # RULINGS "Auto-resolve odds": hero crews in BP
    state, _ = battle_state(["galiot", "san_marco", "sword"], ["galiot"])
    state = replace(state, ships=tuple(replace(s, hero_crew=True) if s.id == 3 else s for s in state.ships))
    ships = ships_in_hex(state, (3, 0), 1)
    assert choose_losses(state, ships, 2, "costliest") == (3, 2)  # sword 30+30 = 60, then San Marco 40
    assert choose_losses(state, ships, 2, "cheapest") == (1, 2)


def test_losses_are_capped_at_the_ships_present():  # ruling A6: losses capped
    # 3 galiots (75 BP) against 1 (25 BP): 3 dice to 1; three 6s, one ship to lose.
    state, battles = battle_state(["galiot"] * 3, ["galiot"])
    new, events = fight_battles(state, battles, None, FixedDice([6, 6, 6, 1]))
    assert events[0].data["losses"] == {"attacker": [], "defender": [4]}
    assert new.fleet(2) is None and world(new, (3, 0)).owner == 1
    check_consistent(new)


def test_attacker_destroyed_while_winning_captures_nothing():  # 003 Result of a Tactical Battle (ruling C12)
    # San Marco 40 against a galiot 25: 1.6 rounds to 2 dice, +1 for the Star Cruiser = 3 to 1.
    # A [6, 6, 1] beats B [6] on 6s, but B's 6 destroys the only attacking ship.
    state, battles = battle_state(["san_marco"], ["galiot"])
    new, events = fight_battles(state, battles, None, FixedDice([6, 6, 1, 6]))
    assert events[0].data["winner"] == 1
    assert events[0].data["losses"] == {"attacker": [1], "defender": [2]}
    assert new.fleets == () and world(new, (3, 0)).owner == 2 and events[0].data["capture"] is None


def test_skipped_when_attacker_has_no_ships():  # 003 Alternative to a Tactical Battle (ruling C12)
    state, battles = battle_state(["galiot"], ["galiot"])
    state = replace(state, fleets=tuple(f for f in state.fleets if f.owner != 1),
                    ships=tuple(s for s in state.ships if s.owner != 1))
    dice = FixedDice([])
    new, events = fight_battles(state, battles, None, dice)
    assert new == state and kinds(events) == ["battle_skipped"]


def test_skipped_when_defender_is_gone_attacker_takes_the_world():  # 003 Invading Enemy Hexes (ruling C12)
    state, battles = battle_state(["galiot"], [])
    new, events = fight_battles(state, battles, None, FixedDice([]))
    assert world(new, (3, 0)).owner == 1
    assert kinds(events) == ["battle_skipped"] and events[0].data["capture"]["world"] == [3, 0]


def test_second_battle_in_the_hex_is_skipped_after_the_first_ends_it():  # ruling C8/C12
    picture = "2 . . b . . . 1 . 3"
    state = build_state(picture, fleets=[(1, (3, 0), ["san_marco"]), (2, (3, 0), ["galiot"]), (3, (3, 0), ["sword"])])
    battles = [Battle((3, 0), 1, 2, False), Battle((3, 0), 3, 2, False)]
    # 40 vs 25: 1.6 -> 2 dice, +1 Star Cruiser. A [6, 1, 1] beats B [2]; the galiot is destroyed.
    new, events = fight_battles(state, battles, None, FixedDice([6, 1, 1, 2]))
    assert kinds(events) == ["battle", "battle_skipped"]
    assert world(new, (3, 0)).owner == 1  # seat 1 took it; seat 3's battle against seat 2 has no one to fight


# 003 Alternative to a Tactical Battle: Force Multipliers
def test_star_cruiser_and_destroyer_multipliers_reach_autoresolve():
    # San Marco (40) + Sultan (35) = 75 vs 3 galiots 75: 1 die each, +1 cruiser, +1 destroyer.
    state, battles = battle_state(["san_marco", "sultan"], ["galiot"] * 3)
    dice = FixedDice([1, 1, 1, 6])
    _, events = fight_battles(state, battles, None, dice)
    assert events[0].data["dice"] == {"attacker": 3, "defender": 1}
    assert events[0].data["sides"]["attacker"]["star_cruiser"] and events[0].data["sides"]["attacker"]["destroyer"]


def test_dice_run_out_loudly():  # dice are passed in and every roll is checked
    state, battles = battle_state(["galiot"], ["galiot"])
    with pytest.raises(DiceError):
        fight_battles(state, battles, None, FixedDice([]))


# --- properties ------------------------------------------------------------------------------------

PROPERTY_PICTURE = """
2 . O . b . .
. ~ . @ . o .
. b . . O . 1
W . o . . a W
"""
CELLS = [(x, y) for y in range(4) for x in range(7) if (x, y) != (3, 1)]
KEYS = sorted(DESIGNS)
STRUCTS = ["planetary_defences", "hold_out_garrison", "aewa", "dockyard", "star_gate", "diplomatic_corps"]


@st.composite
def scenarios(draw):
    fleets = draw(st.lists(st.tuples(st.integers(1, 3), st.sampled_from(CELLS),
                                     st.lists(st.sampled_from(KEYS), min_size=1, max_size=4)),
                           min_size=1, max_size=8))
    structures = draw(st.lists(st.tuples(st.integers(1, 3), st.sampled_from(STRUCTS), st.sampled_from(CELLS)),
                               max_size=6))
    # Structures are bought at one's own worlds and captured with the hex, so a hex's structures
    # all have one owner (003 Use of BP; Result of a Tactical Battle): the first owner drawn keeps it.
    cell_owner: dict = {}
    structures = [s for s in structures if cell_owner.setdefault(s[2], s[0]) == s[0]]
    state = build_state(PROPERTY_PICTURE, seats=3, fleets=fleets, structures=structures)
    for seat in (1, 2, 3):
        orders = draw(st.lists(st.builds(
            InvasionOrder,
            response=st.sampled_from([FIGHT, RETREAT]),
            hex=st.none() | st.sampled_from(CELLS),
            retreat_to=st.none() | st.sampled_from(CELLS),
        ), max_size=3))
        state = state.with_empire(replace(state.empire(seat), standing=StandingOrders(
            invasion=tuple(orders), loss_order=draw(st.sampled_from(["cheapest", "costliest"])))))
    seed = draw(st.binary(min_size=16, max_size=16))
    return state, seed


def contacts_for(state: CampaignState) -> list[Contact]:
    out = []
    for f in sorted(state.fleets, key=lambda f: f.id):
        others = {g.owner for g in state.fleets_at(f.coord) if g.owner != f.owner}
        w = state.world_at(f.coord)
        if w is not None and w.owner not in (None, f.owner):
            others.add(w.owner)
        others |= {s.owner for s in state.structures_at(f.coord) if s.owner != f.owner}
        if others:
            out.append(Contact(f.coord, f.owner, f.id, tuple(sorted(others))))
    return out


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
# 003 Invading Enemy Hexes; Neutral Planets; Result of a Tactical Battle
def test_conflict_only_ever_removes_ships(scenario):
    state, seed = scenario
    dice = SeededDice(seed)
    check_consistent(state)
    before = {s.id for s in state.ships}
    state1, _, battles = resolve_invasions(state, contacts_for(state), dice)
    check_consistent(state1)
    assert {s.id for s in state1.ships} == before  # invasions move ships, never destroy them
    state2, _ = neutral_world_rolls(state1, dice)
    check_consistent(state2)
    assert {s.id for s in state2.ships} <= before and len(state1.ships) - len(state2.ships) <= len(state1.fleets)
    state3, events = fight_battles(state2, battles, None, dice)
    check_consistent(state3)
    assert {s.id for s in state3.ships} <= {s.id for s in state2.ships}
    for f in state3.fleets:
        assert state3.terrain_at(f.coord).value != "black_hole"
    lost = [sid for e in events if e.kind == "battle"
            for sid in e.data["losses"]["attacker"] + e.data["losses"]["defender"] + e.data["destroyed_retreating"]]
    assert len(lost) == len(set(lost)) == len(state2.ships) - len(state3.ships)
    assert {s.id for s in state3.ships} == {s.id for s in state2.ships} - set(lost)


def test_issue13_item3_no_retreat_through_a_gate_off_the_map():
    """003 Star Gate; ruling E11 and C2/C3: a star gate stored off the map (before E11 such an
    order was accepted) leads nowhere, so a retreat never leaves the map through it."""
    from campaign.rules.eventhorizon.conflict import defeat_retreat, invasion_retreat
    from campaign.rules.eventhorizon.state import InvasionOrder

    state = build_state(LINE, fleets=[(1, (0, 0), ["galiot"])],
                        structures=[(1, "star_gate", (1, 0)), (1, "star_gate", (999, 999))])
    fleet = state.fleet(1)
    target = invasion_retreat(state, fleet, InvasionOrder(response=RETREAT, retreat_to=(999, 999)))
    assert target is None or state.grid.in_bounds(target)
    to, _ = defeat_retreat(state, fleet)
    assert to is None or state.grid.in_bounds(to)
