"""A tripwire for fog of war in turn reports (ruling FW4; 003 "Fog of War" as docs/rulings.md
records it). A report event goes to every seat it names, and public events to every seat, whole
but for FW4's redactions (``fog.events_for``): the turn report page, its emails and the API pass its
``data`` through. So every key of a shared event's data is something each seat it names may know.

The keys below are those the engine shared when this test was written (2026-11-29), each looked
at and none a private figure: a battle's sides, losses, dice and retreats (redacted out of sight by
``redact_event``), a contact's fleets at the contact hex, whether a side has an early warning array
(a built resource, whose symbol every seat sees), the initiative ranking and each seat's roll, a
capture, an elimination, a win. A key not listed fails
this test until someone has judged it the same way and listed it: an engine change that puts a
private figure (a seat's BP, a fleet elsewhere) into a shared event cannot reach other seats'
reports unnoticed. Whole bot campaigns with fixed seeds (bench/botsim.py, the demo's computer
players) make the events."""

from __future__ import annotations

from collections import defaultdict

import pytest

from bench import botsim
from campaign.rules.eventhorizon.setup import resolve_setup
from campaign.rules.eventhorizon.turn import resolve_turn

SHARED_KEYS = {
    "battle": {"aewa", "attacker", "capture", "defender", "destroyed_retreating", "dice", "drawn_on_faces", "hex",
               "how", "index", "losses", "notes", "retreats", "rolls", "rule", "settled", "sides", "winner"},
    "battle_joined": {"aewa", "attacker", "defences_only", "defender", "hex", "rule"},
    "battle_skipped": {"aewa", "attacker", "capture", "defender", "hex", "index", "reason"},
    "campaign_won": {"condition", "contenders", "purpose", "rule", "tie_break", "winner"},
    "contact": {"at", "defenders", "fleet", "invader", "rule"},
    "empire_eliminated": {"condition", "rule", "seat", "worlds_handed", "worlds_released"},
    "hex_captured": {"attacker", "capture", "defender", "hex", "rule"},
    "initiative_order": {"bonus", "choice", "order", "ranking", "rule", "winner"},
    "initiative_roll": {"faces", "modifier", "round", "rule", "score", "seat"},
}

GAMES = [("1", 4, 24), ("2", 3, 20), ("3", 2, 16)]  # (seed, players, map size)


@pytest.fixture(scope="module")
def shared_events():
    """Each kind of event that went to more than one seat (or to all) in the games, with the keys
    its data held."""
    found = defaultdict(set)
    for seed, players, size in GAMES:
        state, dice = botsim.new_campaign(seed, players, size, size)
        names = {e.seat: botsim.NAMES for e in state.empires}
        orders = {seat: botsim.bot_orders(state, seat, botsim.NAMES) for seat in state.active_seats()}
        resolution = resolve_setup(state, orders, dice, names)
        events, state = list(resolution.events), botsim.as_stored(resolution.state)
        for _ in range(30):
            orders = {seat: botsim.bot_orders(state, seat, botsim.NAMES) for seat in state.active_seats()}
            resolution = resolve_turn(state, orders, dice, names)
            events += resolution.events
            state = botsim.as_stored(resolution.state)
            if state.finished:
                break
        for event in events:
            if event.public or len(event.seats) > 1:
                found[event.kind].update(event.data)
    return found


def test_the_games_make_the_shared_events_that_matter(shared_events):
    # Not a vacuous sample: battles, contacts and the initiative are among them.
    assert {"battle", "contact", "initiative_order", "initiative_roll", "hex_captured"} <= set(shared_events)


def test_every_key_of_a_shared_event_is_one_judged_fit_for_every_seat_it_names(shared_events):
    unjudged = {kind: sorted(keys - SHARED_KEYS.get(kind, set())) for kind, keys in shared_events.items()}
    unjudged = {kind: keys for kind, keys in unjudged.items() if keys}
    assert not unjudged, (
        f"shared report events carry data no one has judged fit for every seat they name: {unjudged}. "
        "Each such key reaches the reports of all the seats the event names (fog.events_for): if it "
        "may (FW4), list it in SHARED_KEYS; if not, leave it out of the event or redact it (fog.redact_event)."
    )
