"""Property tests of the Event Horizon turn pipeline over random campaigns (issue "Done when"):
BP never negative, ships neither appear nor vanish except by build, battle or neutral-world
loss, no fleet passes a black hole, processing is deterministic for a given seed and orders
regardless of submission order, and BP move only by spending and income.

Each example is a whole campaign (tests/rules/eventhorizon/random_campaign.py): a rolled map of 8–16 cells a
side (square or hex), 2–4 empires set up as campaign creation does, sometimes with fleets
already out, played for 3–8 turns with orders from the computer player and/or random valid
orders (random standing orders, purchases, splits, merges and moves, each checked by
validate_orders), every turn resolved by resolve_turn with SeededDice. The examples are
derandomized and no example database is used, so every run checks the same campaigns.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from campaign.rules.dice import FixedDice, SeededDice
from campaign.rules.eventhorizon.economy import NO_DAMAGE
from campaign.rules.eventhorizon.mapgen import MapError, Terrain
from campaign.rules.eventhorizon.orders import NO_ORDERS, is_jump
from campaign.rules.eventhorizon.state import BuildState, CampaignState
from campaign.rules.eventhorizon.turn import resolve_turn
from tests.rules.eventhorizon.eh_builders import DESIGNS, build_state
from tests.rules.eventhorizon.random_campaign import DESIGN_NAMES, CampaignSpec, TurnRecord, play

PROPERTY = settings(max_examples=60, deadline=None, derandomize=True, database=None, print_blob=False,
                    suppress_health_check=[HealthCheck.too_slow])

CAMPAIGNS = st.builds(
    CampaignSpec,
    seed=st.binary(min_size=16, max_size=16),
    grid=st.sampled_from(["square", "hex"]),
    width=st.integers(8, 16),
    height=st.integers(8, 16),
    players=st.integers(2, 4),
    turns=st.integers(3, 8),
    fleets_out=st.integers(0, 3),
    choices=st.integers(0, 2**32 - 1),
    bots=st.tuples(*[st.booleans()] * 4),
)


def played(spec: CampaignSpec) -> tuple[CampaignState, list[TurnRecord]]:
    try:
        return play(spec)
    except MapError:
        reject()  # no map with enough reachable planets for these players: not a campaign


def of_kind(record: TurnRecord, kind: str):
    return [e for e in record.resolution.events if e.kind == kind]


def resolve_again(record: TurnRecord, orders) -> object:
    before = record.before
    return resolve_turn(before, orders, SeededDice(record.dice_seed), {s: DESIGN_NAMES for s in before.active_seats()})


# --- invariants of one state ------------------------------------------------------------------

def check_fleets(state: CampaignState, where: str) -> None:
    """Every ship is in exactly one fleet, of its owner; no empty fleet; ids unique; fleets on
    the map and not in a black hole; only empires still in the game have ships."""
    ships = state.ship_index()
    assert len(ships) == len(state.ships), f"{where}: duplicate ship ids"
    fleet_ids = [f.id for f in state.fleets]
    assert len(set(fleet_ids)) == len(fleet_ids), f"{where}: duplicate fleet ids {sorted(fleet_ids)}"
    seen: Counter = Counter()
    for fleet in state.fleets:
        assert fleet.ships, f"{where}: fleet {fleet.id} is empty"
        assert state.grid.in_bounds(fleet.coord), f"{where}: fleet {fleet.id} is off the map at {fleet.coord}"
        assert state.terrain_at(fleet.coord) is not Terrain.BLACK_HOLE, (
            f"{where}: fleet {fleet.id} is in the black hole at {fleet.coord}")
        for sid in fleet.ships:
            seen[sid] += 1
            assert sid in ships, f"{where}: fleet {fleet.id} lists ship {sid}, which does not exist"
            assert ships[sid].owner == fleet.owner, (
                f"{where}: ship {sid} of empire {ships[sid].owner} is in fleet {fleet.id} of empire {fleet.owner}")
    for sid in ships:
        assert seen[sid] == 1, f"{where}: ship {sid} is in {seen[sid]} fleets"
    active = set(state.active_seats())
    assert all(s.owner in active for s in state.ships), f"{where}: an eliminated empire still has ships"


# --- properties ---------------------------------------------------------------------------------

@PROPERTY
@given(CAMPAIGNS)
def test_bp_never_negative(spec):
    start, records = played(spec)
    assert all(e.bp >= 0 for e in start.empires)
    for record in records:
        for empire in record.resolution.state.empires:
            assert empire.bp >= 0, f"turn {record.before.turn}: empire {empire.seat} has {empire.bp} BP"


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
@PROPERTY
@given(CAMPAIGNS)
def test_bp_change_is_spending_plus_income(spec):
    """BP after a turn = BP before − what the purchases cost + the income rolled; what is spent
    is what the preview of the (validated) orders said; the total is the sum of the worlds."""
    _, records = played(spec)
    for record in records:
        before, after = record.before, record.resolution.state
        turn = before.turn
        assert not of_kind(record, "spending_refused"), f"turn {turn}: orders validated on this state were refused"
        spent: Counter = Counter()
        for e in of_kind(record, "purchase"):
            (seat,) = e.seats
            spent[seat] += e.data["cost"]
        income: Counter = Counter()
        for e in of_kind(record, "income_total"):
            (seat,) = e.seats
            assert seat not in income, f"turn {turn}: two income totals for empire {seat}"
            income[seat] = e.data["bp"]
        worlds: Counter = Counter()
        for e in of_kind(record, "world_income"):
            (seat,) = e.seats
            worlds[seat] += e.data["bp"]
        assert +income == +worlds, f"turn {turn}: income totals {dict(income)} but worlds {dict(worlds)}"
        if after.finished:
            assert not income, f"turn {turn}: income rolled in the turn the campaign ended"
        for seat in income:
            assert not after.empire(seat).eliminated, f"turn {turn}: eliminated empire {seat} has income"
        for seat, preview in record.previews.items():
            assert spent[seat] == preview, f"turn {turn}: empire {seat} paid {spent[seat]} BP, preview said {preview}"
        for old in before.empires:
            new = after.empire(old.seat)
            assert new.bp == old.bp - spent[old.seat] + income[old.seat], (
                f"turn {turn}: empire {old.seat}: {old.bp} BP - {spent[old.seat]} spent + {income[old.seat]} "
                f"income should be {old.bp - spent[old.seat] + income[old.seat]}, not {new.bp}")


@PROPERTY
@given(CAMPAIGNS)
def test_ships_appear_only_by_building_and_vanish_only_by_battle_or_neutral_worlds(spec):
    _, records = played(spec)
    for record in records:
        before, after = record.before, record.resolution.state
        turn = before.turn
        old, new = before.ship_index(), after.ship_index()
        built = [e.data["ship"] for e in of_kind(record, "ship_completed")]
        lost: list[int] = []
        for e in of_kind(record, "battle"):
            lost += e.data["losses"]["attacker"] + e.data["losses"]["defender"] + e.data["destroyed_retreating"]
        lost += [e.data["ship_lost"] for e in of_kind(record, "neutral_attacks")]
        assert len(set(lost)) == len(lost), f"turn {turn}: a ship is destroyed twice: {sorted(lost)}"
        assert set(lost) <= set(old), f"turn {turn}: destroyed ships {sorted(set(lost) - set(old))} did not exist"
        survivors = set(old) - set(lost)
        assert len(set(built)) == len(built) and not set(built) & survivors, (
            f"turn {turn}: built ship ids {built} clash with ships in play {sorted(survivors)}")
        expected = survivors | set(built)
        assert set(new) == expected, (
            f"turn {turn}: ships that vanished unaccounted {sorted(expected - set(new))}, "
            f"appeared unaccounted {sorted(set(new) - expected)}")
        assert len(new) == len(old) + len(built) - len(lost)
        # A ship keeps its owner, design, name and crew; damage goes only by a paid repair.
        repaired = {p["repair"] for seat, o in record.orders.items() for p in o.purchases if "repair" in p}
        for sid in survivors:
            a, b = old[sid], new[sid]
            assert (a.owner, a.design, a.name, a.hero_crew) == (b.owner, b.design, b.name, b.hero_crew), (
                f"turn {turn}: ship {sid} changed from {a} to {b}")
            if a.damage != b.damage:
                assert b.damage == NO_DAMAGE and sid in repaired, (
                    f"turn {turn}: ship {sid} damage {a.damage} -> {b.damage}"
                )
        for e in of_kind(record, "ship_completed"):
            ship, fleet = new[e.data["ship"]], after.fleet(e.data["fleet"])
            assert (ship.owner,) == e.seats and fleet is not None and fleet.ships == (ship.id,), (
                f"turn {turn}: completed ship {ship.id} is not a new fleet of one of its builder")


@PROPERTY
@given(CAMPAIGNS)
def test_new_ships_and_fleets_take_ids_unused_this_turn(spec):
    """A ship completed this turn gets an id no ship had at the start of the turn (and its new
    fleet an id no fleet had), so one id never names two ships in a turn's events."""
    _, records = played(spec)
    for record in records:
        ships = {s.id for s in record.before.ships}
        fleets = {f.id for f in record.before.fleets}
        for e in of_kind(record, "ship_completed"):
            assert e.data["ship"] not in ships, (
                f"turn {record.before.turn}: new ship {e.data['ship']} reuses the id of ship "
                f"{record.before.ship_index()[e.data['ship']]}")
            assert e.data["fleet"] not in fleets, (
                f"turn {record.before.turn}: new fleet {e.data['fleet']} reuses the id of fleet "
                f"{record.before.fleet(e.data['fleet'])}")


@PROPERTY
@given(CAMPAIGNS)
def test_ids_are_never_reused_in_a_campaign(spec):
    """docs/rulings.md S4: ship, fleet and structure numbers are campaign-wide and never reused,
    even after the one holding the highest number is gone (in an earlier turn, too)."""
    start, records = played(spec)
    ever = {"ship": {s.id for s in start.ships}, "fleet": {f.id for f in start.fleets},
            "structure": {s.id for s in start.structures}}
    for record in records:
        before, after, turn = record.before, record.resolution.state, record.before.turn
        new = {
            "ship": [e.data["ship"] for e in of_kind(record, "ship_completed")],
            # Fleets made this turn: split off, or around a completed ship (either may be gone
            # again by the end of the turn, so the events name them).
            "fleet": [e.data["fleet"] for e in of_kind(record, "split")]
            + [e.data["fleet"] for e in of_kind(record, "ship_completed")],
            "structure": [s.id for s in after.structures if s.id not in {x.id for x in before.structures}],
        }
        now = {"ship": {s.id for s in after.ships}, "fleet": {f.id for f in after.fleets},
               "structure": {s.id for s in after.structures}}
        for kind, ids in new.items():
            assert len(set(ids)) == len(ids), f"turn {turn}: two new {kind}s numbered alike: {sorted(ids)}"
            reused = sorted(set(ids) & ever[kind])
            assert not reused, f"turn {turn}: new {kind} id(s) {reused} were used earlier in the campaign"
            unexplained = sorted(now[kind] - ever[kind] - set(ids))
            assert not unexplained, f"turn {turn}: {kind} id(s) {unexplained} appeared without being made"
            ever[kind] |= set(ids) | now[kind]


def test_new_ship_does_not_reuse_the_id_of_a_ship_destroyed_this_turn():
    """Ids are never reused (docs/rulings.md S4): empire 2's ship 3 (the highest id, alone in
    fleet 3) is destroyed by the neutral planet at (2, 0); empire 1's Tramp completing the same
    turn must not be numbered 3. (The smallest case the property above once found.)"""
    state = build_state("1 . O . 2", fleets=[(1, (0, 0), ["galiot"]), (2, (4, 0), ["galiot"]),
                                             (2, (2, 0), ["galiot"])])
    state = replace(state, builds=(BuildState(dockyard=1, owner=1, design=DESIGNS["tramp"], turns_left=1),))
    # Initiative 6 and 1; the neutral planet rolls 1 (ship 3 destroyed); income rolls 3s.
    result = resolve_turn(state, {}, FixedDice([6, 1, 1] + [3] * 10))
    assert [e.data["ship_lost"] for e in result.events if e.kind == "neutral_attacks"] == [3]
    (built,) = [e.data for e in result.events if e.kind == "ship_completed"]
    assert built["ship"] not in {s.id for s in state.ships}, (
        f"the Tramp is numbered {built['ship']}, like the destroyed {state.ship_index()[built['ship']]}")


@PROPERTY
@given(CAMPAIGNS)
def test_every_ship_is_in_exactly_one_fleet_of_its_owner(spec):
    start, records = played(spec)
    check_fleets(start, "set up")
    for record in records:
        check_fleets(record.resolution.state, f"after turn {record.before.turn}")


@PROPERTY
@given(CAMPAIGNS)
def test_no_fleet_passes_or_ends_on_a_black_hole(spec):
    """Routes (drift included), retreats and new ships never touch a black hole; every route is
    a chain of neighbours and free jumps, no longer than the fleet's speed."""
    _, records = played(spec)
    for record in records:
        after = record.resolution.state
        turn = record.before.turn

        def passable(cell, what, after=after, turn=turn):
            cell = tuple(cell)
            assert after.grid.in_bounds(cell), f"turn {turn}: {what} leaves the map at {cell}"
            assert after.terrain_at(cell) is not Terrain.BLACK_HOLE, (
                f"turn {turn}: {what} enters the black hole at {cell}"
            )

        for e in of_kind(record, "route"):
            route = [tuple(c) for c in e.data["route"]]
            # A step between neighbours costs 1, a jump nothing; a step between two neighbouring
            # worm holes (or gates) is free when moving but costs 1 when drifting (drift never jumps).
            least = most = 0
            for a, b in zip(route, route[1:]):
                passable(b, f"fleet {e.data['fleet']} (route {route})")
                neighbours = b in after.grid.neighbours(a)
                # Star gates are only ever added (bought in the spending step, before movement),
                # so the state after the turn knows every gate the fleet could use.
                jump = is_jump(after, a, b)
                assert neighbours or jump, f"turn {turn}: fleet {e.data['fleet']} steps {a} -> {b} in {route}"
                least += 0 if jump else 1
                most += 1 if neighbours else 0
            assert least <= e.data["spent"] <= min(most, e.data["speed"]), f"turn {turn}: route {route} {dict(e.data)}"
        for e in of_kind(record, "drift"):
            passable(e.data["to"], f"fleet {e.data['fleet']} drifting")
        for e in of_kind(record, "retreat"):
            passable(e.data["to"], f"fleet {e.data['fleet']} retreating")
        for e in of_kind(record, "battle"):
            for r in e.data["retreats"]:
                if r["to"] is not None:
                    passable(r["to"], f"fleet {r['fleet']} retreating from the battle at {e.data['hex']}")
        for e in of_kind(record, "ship_completed"):
            passable(e.data["at"], f"ship {e.data['ship']} completed")
        for fleet in after.fleets:
            passable(fleet.coord, f"fleet {fleet.id}")


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
@PROPERTY
@given(CAMPAIGNS, st.randoms(use_true_random=False))
def test_resolution_is_deterministic_whatever_the_submission_order(spec, shuffler):
    """Same state, seed and orders: the same new state and events, whichever order the seats'
    orders were submitted in (the mapping's insertion order)."""
    _, records = played(spec)
    for record in records:
        items = list(record.orders.items())
        again = resolve_again(record, dict(items))
        assert again == record.resolution, f"turn {record.before.turn}: a second resolution differs"
        reversed_ = resolve_again(record, dict(reversed(items)))
        assert reversed_ == record.resolution, f"turn {record.before.turn}: reversed submission order differs"
        shuffler.shuffle(items)
        shuffled = resolve_again(record, dict(items))
        assert shuffled == record.resolution, (
            f"turn {record.before.turn}: submission order {[s for s, _ in items]} differs"
        )
        # A seat that sent nothing is the same as a seat that sent "{}" (RULINGS "Missed deadline").
        explicit = {seat: record.orders.get(seat, NO_ORDERS) for seat in reversed(record.before.active_seats())}
        assert resolve_again(record, explicit) == record.resolution, f"turn {record.before.turn}: empty orders differ"


@settings(max_examples=15, deadline=None, derandomize=True, database=None, print_blob=False,
          suppress_health_check=[HealthCheck.too_slow])
@given(CAMPAIGNS)
def test_a_whole_campaign_replays_identically(spec):
    """Setup, bots, the random players and every turn depend only on the seeds."""
    first = played(spec)
    second = play(spec)
    assert first[0] == second[0]
    assert [(r.orders, r.resolution) for r in first[1]] == [(r.orders, r.resolution) for r in second[1]]


def test_the_generator_makes_eventful_campaigns():
    """The campaigns above exercise the rules that the properties are about."""
    kinds: Counter = Counter()
    rng = random.Random(2024)
    for i in range(25):
        spec = CampaignSpec(seed=bytes([i]) * 16, grid=rng.choice(["square", "hex"]), width=rng.randint(8, 16),
                            height=rng.randint(8, 16), players=rng.randint(2, 4), turns=rng.randint(3, 8),
                            fleets_out=rng.randint(0, 3), choices=rng.getrandbits(32),
                            bots=tuple(rng.random() < 0.5 for _ in range(4)))
        for record in play(spec)[1]:
            kinds.update(e.kind for e in record.resolution.events)
    for kind in ("purchase", "ship_completed", "route", "drift", "battle", "neutral_attacks", "neutral_joined",
                 "retreat", "split", "merge", "income_total", "empire_eliminated"):
        assert kinds[kind] > 0, f"no {kind!r} event in the sample campaigns: {dict(kinds)}"
