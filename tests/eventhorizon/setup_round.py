"""Closing a campaign's set-up round in tests (003 "Set Up"; campaign/rules/eventhorizon/setup.py).

A campaign opens in its set-up round (turn 0). Tests of later turns start from turn 1 after every
seat has sent the computer's set-up purchase as its own orders (so no seat has missed the round)."""

from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import adapters
from campaign.rules.eventhorizon.bots import setup_orders
from campaign.rules.eventhorizon.orders import orders_to_json
from campaign.rules.eventhorizon.setup import SETUP_TURN


def finish_setup(campaign, *, buy: bool = True):
    """Every seat sends the computer's set-up purchase (``buy=False``: sends ``{}``, buying nothing
    and banking its 240 BP, for tests that place their own fleets); the set-up round is processed;
    turn 1 opens."""
    assert campaign.turn == SETUP_TURN, "the campaign is not in its set-up round"
    state = adapters.load_state(campaign)
    names = adapters.design_names_by_seat(campaign)
    for empire in campaign.empires.filter(eliminated=False, is_bot=False):
        raw = orders_to_json(setup_orders(state, empire.seat, names[empire.seat])) if buy else {}
        eh_actions.submit_orders(empire_id=empire.pk, raw=raw)
    eh_actions.process_turn(campaign_id=campaign.pk, turn_number=SETUP_TURN)
    campaign.refresh_from_db()
    assert campaign.turn == SETUP_TURN + 1
    return campaign
