"""Event Horizon victory and elimination (seeds/003 "Purpose of the Campaign (Victory Conditions)",
"Trade Routes"; RULINGS.md "Victory condition", "Trade routes"; rulings V1-V14 in victory.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaign.rules.dice import DiceError, FixedDice
from campaign.rules.eventhorizon import victory
from campaign.rules.eventhorizon.economy import Resource
from campaign.rules.eventhorizon.state import BuildState, StructureState
from campaign.rules.eventhorizon.victory import (
    LAND_GRAB,
    OPEN_BATTLE,
    POWER_PROJECTION,
    PURPOSES,
    REGIME_CHANGE,
    TOTAL_ANNIHILATION,
    TRADE_WAR,
    VictoryStatus,
    check,
    condition_met,
    roll_purpose,
    status,
)
from tests.rules.eventhorizon.eh_builders import DESIGNS, build_state

NO_DICE = FixedDice([])  # check never rolls: any roll would raise


def owner(state, coord, seat):
    """The world at ``coord`` now belongs to ``seat`` (a capture)."""
    return replace(state, worlds=tuple(replace(w, owner=seat) if w.coord == coord else w for w in state.worlds))


def counters(state, seat, **against):
    """Set ``seat``'s Trade War counters: counters(state, 1, v2=3) -> three turns against seat 2."""
    pairs = tuple(sorted((int(k[1:]), n) for k, n in against.items()))
    return state.with_empire(replace(state.empire(seat), trade_war=pairs))


def add_structure(state, seat, resource, coord):
    s = StructureState(id=state.next_id("structure"), owner=seat, resource=Resource(resource), coord=coord)
    return replace(state, structures=state.structures + (s,))


def won(state):
    new, events = check(state, NO_DICE)
    return new.winner if new.finished else None


# --- the roll and the table -----------------------------------------------------------------

@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_roll_purpose_each_face(face):  # 003 Purpose of the Campaign: "Roll at the start of each campaign"
    dice = FixedDice([face])
    assert roll_purpose(dice) == face
    (roll,) = dice.rolls
    assert (roll.count, roll.sides, roll.purpose) == (1, 6, "003 Purpose of the Campaign")
    assert dice.remaining() == []


def test_roll_purpose_is_one_d6():  # 003 Purpose of the Campaign (RULINGS "Victory condition": rolled once)
    with pytest.raises(DiceError):
        roll_purpose(FixedDice([7]))


def test_purpose_table_rows():  # 003 Purpose of the Campaign (Victory Conditions)
    assert [(n, p.name) for n, p in PURPOSES.items()] == [
        (6, "Total Annihilation"), (5, "Trade War"), (4, "Regime Change"), (3, "Open Battle"),
        (2, "Power Projection"), (1, "Land Grab")]
    assert PURPOSES[6].text == "Every enemy planet must be captured."
    assert "three consecutive campaign turns" in PURPOSES[5].text
    assert PURPOSES[4].text == "The enemy home world must be captured."
    assert PURPOSES[3].text == "The enemy's fleets must be destroyed."
    assert PURPOSES[2].text == "Every enemy owned dockyard, wormhole, enriched planet and star gate must be captured."
    assert PURPOSES[1].text == "Every enemy and neutral colony must be captured."
    assert all(p.number == n for n, p in PURPOSES.items())


def test_a_corrupt_purpose_is_refused():  # 003 Purpose of the Campaign (V1)
    state = build_state("1 . 2", fleets=[(1, (0, 0), ["galiot"]), (2, (2, 0), ["galiot"])], purpose=7)
    with pytest.raises(ValueError, match="1 to 6"):
        check(state, NO_DICE)


# --- 6 Total Annihilation ------------------------------------------------------------------------

def annihilation(picture="1 a B 2"):
    return build_state(picture, fleets=[(1, (0, 0), ["galiot"]), (2, (3, 0), ["galiot"])], purpose=TOTAL_ANNIHILATION)


def test_total_annihilation_met():  # 003 Purpose of the Campaign: 6 Total Annihilation (V6)
    state = owner(annihilation(), (3, 0), 1)  # seat 2's home world taken; its colony does not count
    new, events = check(state, NO_DICE)
    assert (new.winner, new.finished) == (1, True)
    (event,) = events
    assert (event.step, event.kind, event.public, event.seats) == ("victory", "campaign_won", True, (1,))
    assert event.data["condition"] == "total_annihilation"
    assert "6 Total Annihilation" in event.text


def test_total_annihilation_one_enemy_planet_left():  # 003 Purpose of the Campaign: 6 Total Annihilation
    state = owner(annihilation("1 b B 2"), (3, 0), 1)
    new, events = check(state, NO_DICE)
    assert (new.winner, new.finished, events) == (None, False, ())


def test_total_annihilation_needs_a_planet_of_ones_own():  # 003 Purpose of the Campaign: 6 Total Annihilation (V6)
    state = owner(owner(annihilation("1 . . 2"), (0, 0), None), (3, 0), None)  # both lost their home world
    assert not condition_met(state, 1) and not condition_met(state, 2)


def test_total_annihilation_every_other_empire():  # 003 Purpose of the Campaign: 6 Total Annihilation (V5)
    state = build_state("1 . 2 . 3", purpose=TOTAL_ANNIHILATION,
                        fleets=[(1, (0, 0), ["galiot"]), (2, (2, 0), ["galiot"]), (3, (4, 0), ["galiot"])])
    state = owner(state, (2, 0), 1)
    assert won(state) is None  # seat 3 still owns a planet
    assert won(owner(state, (4, 0), 1)) == 1


# --- 5 Trade War ---------------------------------------------------------------------------------

def trade_war(seats=2):
    picture = "1 . a . 2" if seats == 2 else "1 . a . 2 . 3"
    fleets = [(s, (2 * (s - 1) + (2 if s > 1 else 0), 0), ["galiot"]) for s in range(1, seats + 1)]
    return build_state(picture, fleets=fleets, purpose=TRADE_WAR)


def test_trade_war_three_turns_met():  # 003 Purpose of the Campaign: 5 Trade War (T8, V7)
    new, events = check(counters(trade_war(), 1, v2=3), NO_DICE)
    assert (new.winner, events[-1].data["condition"]) == (1, "trade_war")


def test_trade_war_two_turns_misses():  # 003 Purpose of the Campaign: 5 Trade War ("three consecutive")
    assert won(counters(trade_war(), 1, v2=2)) is None


# 003 Purpose of the Campaign: 5 Trade War (V7: counters as of last turn)
def test_trade_war_reads_last_turns_counters():
    # Seat 1's fleet sits on seat 2's only home route now, but the counter says 2: no win yet;
    # check() does not count this turn (turn.trade_step does, after it).
    state = build_state("2 . b", fleets=[(1, (1, 0), ["galiot", "galiot"]), (2, (2, 0), ["galiot"]),
                                         (1, (1, 0), ["galiot"])], purpose=TRADE_WAR, seats=2)
    assert won(counters(state, 1, v2=2)) is None


def test_trade_war_against_every_enemy():  # 003 Purpose of the Campaign: 5 Trade War (V5)
    state = counters(trade_war(3), 1, v2=3, v3=2)
    assert won(state) is None
    assert won(counters(state, 1, v2=3, v3=5)) == 1


# --- 4 Regime Change -----------------------------------------------------------------------------

def regime(picture="1 . 2 . 3"):
    seats = sum(ch.isdigit() for ch in picture)
    fleets = [(s, (2 * (s - 1), 0), ["galiot"]) for s in range(1, seats + 1)]
    return build_state(picture, fleets=fleets, purpose=REGIME_CHANGE)


def test_regime_change_met():  # 003 Purpose of the Campaign: 4 Regime Change (V8)
    state = owner(regime("1 . 2"), (2, 0), 1)
    new, events = check(state, NO_DICE)
    assert (new.winner, events[-1].data["condition"]) == (1, "regime_change")
    assert not new.empire(2).eliminated  # losing a home world does not eliminate


def test_regime_change_home_world_not_taken():  # 003 Purpose of the Campaign: 4 Regime Change
    state = regime("1 b 2")
    state = owner(state, (1, 0), 1)  # a planet, but not the home world
    assert won(state) is None


def test_regime_change_every_enemy_home_world():  # 003 Purpose of the Campaign: 4 Regime Change (V5, V8)
    state = owner(regime(), (2, 0), 1)
    assert won(state) is None  # seat 3's home world is still its own
    assert won(owner(state, (4, 0), 2)) is None  # taken, but by seat 2, not seat 1
    assert won(owner(state, (4, 0), 1)) == 1


# --- 3 Open Battle -------------------------------------------------------------------------------

def test_open_battle_met():  # 003 Purpose of the Campaign: 3 Open Battle (V9)
    state = build_state("1 . 2", fleets=[(1, (0, 0), ["galiot"])], purpose=OPEN_BATTLE)
    new, events = check(state, NO_DICE)
    assert [e.kind for e in events] == ["empire_eliminated", "campaign_won"]
    assert (new.winner, events[-1].data["condition"]) == (1, "open_battle")
    assert "3 Open Battle" in events[-1].text


def test_open_battle_a_lone_ship_survives():  # 003 Purpose of the Campaign: 3 Open Battle (V9: fleets means ships)
    state = build_state("1 . 2", fleets=[(1, (0, 0), ["galiot", "galiot"]), (2, (1, 0), ["galiot"])],
                        purpose=OPEN_BATTLE)
    assert won(state) is None


# --- 2 Power Projection --------------------------------------------------------------------------

def projection(picture="1 . W . 2", captured=True):
    """Seat 2's home world and its dockyard taken by seat 1 (so seat 1 holds two dockyards)."""
    state = build_state(picture, fleets=[(1, (0, 0), ["galiot"]), (2, (1, 0), ["galiot"])], purpose=POWER_PROJECTION)
    if captured:
        home = next(w.coord for w in state.worlds if w.home_of == 2)
        state = owner(state, home, 1)
        state = replace(state, structures=tuple(replace(s, owner=1) if s.coord == home else s
                                                for s in state.structures))
    return state


def test_power_projection_met():  # 003 Purpose of the Campaign: 2 Power Projection (V10)
    new, events = check(projection(), NO_DICE)
    assert (new.winner, events[-1].data["condition"]) == (1, "power_projection")


def test_power_projection_enemy_dockyard_left():  # 003 Purpose of the Campaign: 2 Power Projection
    assert won(projection(captured=False)) is None


def test_power_projection_enemy_wormhole():  # 003 Purpose of the Campaign: 2 Power Projection (V10 worm holes)
    state = projection()
    at_wormhole = replace(state, fleets=(state.fleets[0], replace(state.fleets[1], coord=(2, 0))))
    assert won(at_wormhole) is None  # seat 2's lone ship holds the worm hole
    both = replace(at_wormhole, fleets=(replace(state.fleets[0], coord=(2, 0)), at_wormhole.fleets[1]))
    assert won(both) == 1  # seat 1 is there too: seat 2 no longer holds it alone


def test_power_projection_enemy_enriched_planet():  # 003 Purpose of the Campaign: 2 Power Projection (V10)
    state = projection("1 . b B 2")
    assert won(state) == 1  # a planet without enrichment is not a Power Projection target
    assert won(add_structure(state, 2, "enrichment", (2, 0))) is None
    assert won(add_structure(state, 2, "enrichment", (3, 0))) == 1  # an enriched colony does not count


def test_power_projection_enemy_star_gate():  # 003 Purpose of the Campaign: 2 Power Projection
    assert won(add_structure(projection(), 2, "star_gate", (1, 0))) is None


def test_power_projection_needs_something_captured():  # 003 Purpose of the Campaign: 2 Power Projection (V10)
    state = build_state("1 . . 2", fleets=[(1, (0, 0), ["galiot"]), (2, (3, 0), ["galiot"])],
                        purpose=POWER_PROJECTION, dockyards=False)
    assert won(state) is None  # nobody holds any of the four kinds
    assert won(add_structure(state, 1, "star_gate", (1, 0))) == 1


# --- 1 Land Grab ---------------------------------------------------------------------------------

def land_grab(picture):
    return build_state(picture, fleets=[(1, (0, 0), ["galiot"]), (2, (4, 0), ["galiot"])], purpose=LAND_GRAB)


def test_land_grab_met():  # 003 Purpose of the Campaign: 1 Land Grab (V11)
    new, events = check(land_grab("1 A A b 2"), NO_DICE)
    assert (new.winner, events[-1].data["condition"]) == (1, "land_grab")


def test_land_grab_neutral_colony_left():  # 003 Purpose of the Campaign: 1 Land Grab ("enemy and neutral")
    assert won(land_grab("1 A o . 2")) is None


def test_land_grab_enemy_colony_left():  # 003 Purpose of the Campaign: 1 Land Grab
    assert won(land_grab("1 A B . 2")) is None


def test_land_grab_map_without_colonies():  # 003 Purpose of the Campaign: 1 Land Grab (V11)
    state = land_grab("1 . O . 2")
    assert won(state) is None
    assert "no colonies" in status(state, 1).progress


# --- elimination and the last empire standing ----------------------------------------------------

def three_empires(**kw):
    return build_state("1 a . 2 B . 3", **kw)


# 003 Purpose of the Campaign: "a player loses if he finishes a campaign turn with no ships"
def test_no_ships_eliminates():
    state = three_empires(fleets=[(1, (0, 0), ["galiot"]), (3, (6, 0), ["galiot"])],
                          structures=[(2, "planetary_defences", (3, 0))])
    state = counters(counters(state, 1, v2=2, v3=1), 2, v1=1)
    new, events = check(state, NO_DICE)
    assert new.active_seats() == (1, 3) and new.empire(2).eliminated
    assert not new.finished and new.winner is None  # purpose not rolled, two empires left
    (event,) = events
    assert (event.step, event.kind, event.public, event.seats) == ("victory", "empire_eliminated", True, (2,))
    assert "no ships" in event.text and event.data["worlds_released"] == [[3, 0], [4, 0]]
    # V4: its worlds are neutral, its resources gone, Trade War counters against it dropped.
    assert {w.coord: w.owner for w in new.worlds if w.coord in {(3, 0), (4, 0)}} == {(3, 0): None, (4, 0): None}
    assert new.world_at((3, 0)).home_of == 2
    assert not [s for s in new.structures if s.owner == 2]
    assert new.empire(1).trade_war == ((3, 1),) and new.empire(2).trade_war == ()


def test_ships_on_the_stocks_do_not_count_as_ships():  # 003 Purpose of the Campaign: "no ships" (V3)
    # Revisited with the set-up round (issue 13 item 1): a ship on the stocks is not a ship yet
    # (003 Result of a Tactical Battle: "partially built star ships"), and every empire now starts
    # turn 1 with the fleet it bought in the set-up round.
    state = three_empires(fleets=[(1, (0, 0), ["galiot"]), (3, (6, 0), ["galiot"])])
    dock = next(s.id for s in state.structures if s.owner == 2)
    building = replace(state, builds=(BuildState(dockyard=dock, owner=2, design=DESIGNS["sword"], turns_left=2),))
    new, _ = check(building, NO_DICE)
    assert new.empire(2).eliminated and not [b for b in new.builds if b.owner == 2]
    new, _ = check(state, NO_DICE)  # nothing in play and nothing on the stocks: lost
    assert new.empire(2).eliminated


def test_lone_ship_and_no_worlds_survives():  # 003 Purpose of the Campaign: "no ships" (V3: worlds do not matter)
    state = owner(three_empires(fleets=[(1, (0, 0), ["galiot"]), (2, (2, 0), ["galiot"]), (3, (6, 0), ["galiot"])]),
                  (3, 0), 1)
    state = owner(state, (4, 0), 1)
    new, events = check(state, NO_DICE)
    assert (new.active_seats(), events) == ((1, 2, 3), ())


def test_last_empire_standing_wins():  # 003 Purpose of the Campaign: "a player loses …" (V12)
    for purpose in (None, TOTAL_ANNIHILATION, LAND_GRAB):
        state = build_state("1 . 2", fleets=[(1, (0, 0), ["galiot"])], purpose=purpose)
        new, events = check(state, NO_DICE)
        assert (new.winner, new.finished) == (1, True)
        assert events[-1].data["condition"] == "last_standing"
        assert "last empire standing" in events[-1].text


def test_elimination_comes_before_the_purpose():  # 003 Purpose of the Campaign: "Regardless of the rolled purpose" (V3)
    state = owner(build_state("1 . 2", fleets=[(2, (2, 0), ["galiot"])], purpose=REGIME_CHANGE), (2, 0), 1)
    assert condition_met(state, 1)
    new, _ = check(state, NO_DICE)
    assert new.empire(1).eliminated and new.winner == 2


def test_everyone_without_ships_no_winner():  # 003 Purpose of the Campaign: "a player loses …" (V12)
    new, events = check(build_state("1 . 2", purpose=REGIME_CHANGE), NO_DICE)
    assert (new.finished, new.winner, new.active_seats()) == (True, None, ())
    assert [e.kind for e in events] == ["empire_eliminated", "empire_eliminated", "campaign_drawn"]


def test_lost_empires_star_gates_stay():  # 003 Purpose of the Campaign; Star Gate (V4)
    state = three_empires(fleets=[(1, (0, 0), ["galiot"]), (3, (6, 0), ["galiot"])],
                          structures=[(2, "star_gate", (5, 0))])
    new, _ = check(state, NO_DICE)
    assert [(s.owner, s.resource.value) for s in new.structures if s.owner == 2] == [(2, "star_gate")]


def test_held_out_world_passes_to_invader():  # 003 Hold Out Garrison; Result of a Tactical Battle (V4)
    state = three_empires(fleets=[(1, (0, 0), ["galiot"]), (3, (4, 0), ["galiot"])],
                          structures=[(2, "planetary_defences", (4, 0))])
    state = replace(state, worlds=tuple(replace(w, held_out_by=3, held_out_until=2) if w.coord == (4, 0) else w
                                        for w in state.worlds))
    new, events = check(state, NO_DICE)
    held = new.world_at((4, 0))
    assert (held.owner, held.held_out_by, held.held_out_until) == (3, None, None)
    assert [s.owner for s in new.structures_at((4, 0))] == [3]
    assert new.world_at((3, 0)).owner is None
    assert "passes to Empire 3" in events[0].text
    gone = replace(state, fleets=state.fleets[:1], ships=state.ships[:1])  # the invader has left
    assert check(gone, NO_DICE)[0].world_at((4, 0)).owner is None


def test_hold_out_against_a_lost_invader_ends():  # 003 Hold Out Garrison (V4)
    state = three_empires(fleets=[(1, (0, 0), ["galiot"]), (3, (6, 0), ["galiot"])])
    state = replace(state, worlds=tuple(replace(w, held_out_by=2, held_out_until=2) if w.coord == (1, 0) else w
                                        for w in state.worlds))
    held = check(state, NO_DICE)[0].world_at((1, 0))
    assert (held.owner, held.held_out_by, held.held_out_until) == (1, None, None)


# --- ties, the finished campaign, the unrolled purpose -------------------------------------------

@pytest.mark.parametrize("fleets, picture, winner", [
    ([(1, (0, 0), ["galiot"]), (2, (2, 0), ["sword"])], "1 . 2", 2),                # more BP of ships
    ([(1, (0, 0), ["galiot"]), (2, (2, 0), ["galiot"])], "1 . 2 b", 2),             # same BP, more worlds
    ([(1, (0, 0), ["galiot"]), (2, (2, 0), ["galiot"])], "1 . 2 a b", 1),           # all equal: lowest seat
])
def test_tie_break(fleets, picture, winner):  # 003 Purpose of the Campaign (V13)
    state = build_state(picture, fleets=fleets, purpose=TRADE_WAR)
    state = counters(counters(state, 1, v2=3), 2, v1=4)
    new, events = check(state, NO_DICE)
    assert new.winner == winner
    assert events[-1].data["contenders"] == [1, 2] and "tie-break" in events[-1].text


def test_hero_crew_counts_in_the_tie_break():  # 003 Purpose of the Campaign (V13; RULINGS "Auto-resolve odds")
    state = build_state("1 . 2", fleets=[(1, (0, 0), ["galiot"]), (2, (2, 0), ["galiot"])], purpose=TRADE_WAR)
    state = replace(state, ships=(replace(state.ships[0], hero_crew=True), state.ships[1]))
    assert won(counters(counters(state, 1, v2=3), 2, v1=3)) == 1
    assert victory.fleet_bp(state, 1) == 55


def test_finished_campaign_is_left_alone():  # 003 Purpose of the Campaign (V2, V14)
    state = replace(build_state("1 . 2", purpose=OPEN_BATTLE), finished=True, winner=1)
    assert check(state, NO_DICE) == (state, ())


def test_unrolled_purpose_skips_conditions():  # 003 Purpose of the Campaign (V1)
    state = owner(build_state("1 . 2", fleets=[(1, (0, 0), ["galiot"]), (2, (2, 0), ["galiot"])]), (2, 0), 1)
    assert check(state, NO_DICE) == (state, ())
    assert status(state, 1) == VictoryStatus(1, None, "Not yet rolled", "",
                                             "The purpose of the campaign has not been rolled yet.")
    assert status(state, 1).lines == ("The purpose of the campaign has not been rolled yet.",)


def test_one_seat_sandbox_never_ends():  # 003 Purpose of the Campaign (V12: needs two or more empires)
    state = build_state("1 A", seats=1, fleets=[(1, (0, 0), ["galiot"])], purpose=LAND_GRAB)
    assert check(state, NO_DICE) == (state, ())


@settings(max_examples=60, deadline=None)
@given(ships=st.lists(st.integers(0, 2), min_size=3, max_size=3), purpose=st.sampled_from([None, 1, 2, 3, 4, 5, 6]))
def test_eliminations_match_ships(ships, purpose):  # 003 Purpose of the Campaign: "no ships" (V3, V12)
    fleets = [(seat, (2 * (seat - 1), 0), ["galiot"] * n) for seat, n in enumerate(ships, start=1) if n]
    state = build_state("1 . 2 . 3", fleets=fleets, purpose=purpose)
    new, events = check(state, NO_DICE)
    assert {e.seat for e in new.empires if e.eliminated} == {s for s, n in enumerate(ships, start=1) if not n}
    survivors = new.active_seats()
    if len(survivors) <= 1:
        assert new.finished and new.winner == (survivors[0] if survivors else None)
    if new.finished:
        assert new.winner is None or new.winner in survivors
    assert all(e.step == "victory" and e.public for e in events)


# --- reports -------------------------------------------------------------------------------------

def test_status_total_annihilation():  # 003 Purpose of the Campaign: 6 Total Annihilation (status)
    state = build_state("1 a . 2 b . 3 c c", purpose=TOTAL_ANNIHILATION,
                        fleets=[(1, (0, 0), ["galiot"]), (2, (3, 0), ["galiot"]), (3, (6, 0), ["galiot"])])
    s = status(state, 1)
    assert (s.purpose, s.name, s.text, s.met) == (
        6,
        "Total Annihilation",
        "Every enemy planet must be captured.",
        False,
    )
    assert s.progress == "5 enemy planets still to capture (Empire 2: 2, Empire 3: 3); you own 2 planets."


def test_status_trade_war():  # 003 Purpose of the Campaign: 5 Trade War (status)
    state = counters(trade_war(3), 1, v2=2, v3=4)
    assert status(state, 1).progress.endswith("(as of the end of last turn): Empire 2: 2 of 3, Empire 3: 3 of 3.")


def test_status_regime_change():  # 003 Purpose of the Campaign: 4 Regime Change (status)
    s = status(owner(regime(), (2, 0), 1), 1)
    assert s.progress == "Enemy home worlds held: 1 of 2. Still to capture: Empire 3's at (4, 0)."
    assert s.lines == ("Purpose of the campaign: 4 Regime Change. The enemy home world must be captured.",
                       s.progress)


def test_status_open_battle():  # 003 Purpose of the Campaign: 3 Open Battle (status)
    state = build_state("1 . 2 . 3", purpose=OPEN_BATTLE, fleets=[
        (1, (0, 0), ["galiot"]), (2, (2, 0), ["galiot", "sword"]), (3, (4, 0), ["galiot"])])
    assert status(state, 1).progress == "3 enemy ships still to destroy (Empire 2: 2, Empire 3: 1)."


def test_status_power_projection():  # 003 Purpose of the Campaign: 2 Power Projection (status)
    state = replace(projection(captured=False), fleets=())
    state = add_structure(state, 2, "star_gate", (1, 0))
    assert status(state, 1).progress == ("Enemy-held: 1 dockyard, 0 wormholes, 0 enriched planets, 1 star gate "
                                         "(2 still to capture). You hold 1 of these.")
    s = status(projection(), 1)
    assert s.met and s.progress.endswith("(0 still to capture). You hold 2 of these. Condition met.")


def test_status_land_grab():  # 003 Purpose of the Campaign: 1 Land Grab (status)
    assert status(land_grab("1 A o B 2"), 1).progress == "Colonies owned: 1 of 3 (1 neutral, 1 enemy still to capture)."


def test_status_after_the_end():  # 003 Purpose of the Campaign (status: eliminated, won, lost, no winner)
    state = three_empires(fleets=[(1, (0, 0), ["galiot"]), (3, (6, 0), ["galiot"])], purpose=LAND_GRAB)
    new, _ = check(state, NO_DICE)
    assert status(new, 2).progress == "You have lost: your empire finished a campaign turn with no ships."
    over, _ = check(replace(new, fleets=new.fleets[:1], ships=new.ships[:1]), NO_DICE)
    assert status(over, 1).progress == "The campaign is over: you have won."
    assert status(over, 3).progress == "The campaign is over: Empire 1 won."
    drawn, _ = check(build_state("1 . 2", purpose=LAND_GRAB), NO_DICE)
    assert status(drawn, 1).progress == "The campaign is over: no empire was left with ships, so nobody won."
