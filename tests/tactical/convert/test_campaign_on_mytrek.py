"""Issue 31 on My Trek V: an Event Horizon campaign whose battles are fought online on My Trek V
(rulings XC31-XC35). The option offers it, the battle is set up from the converted fleets (designs
priced by 002 "Assembling a Fleet", damage as hull and system factors), fought with simultaneous
secret orders (ruling MT17: both sides act at once, ``PlayRules.acting_sides``), handed to the
computer at its deadline, played to its end, and its result goes back to the turn as Event
Horizon's (docs/battles.md "Result"); the tabletop record sheets: test_sheets_on_new_books.py."""

from __future__ import annotations

from datetime import timedelta

import pytest

from campaign import actions as campaign_actions
from campaign.eventhorizon.models import Ship
from campaign.models import Turn
from tactical.battles import actions
from tactical.models import Battle
from tactical.play import embedded
from tactical.rules.mytrek.play import RULES
from tests.tactical.battle_support import contact_turn

pytestmark = pytest.mark.django_db


def _choose_mytrek(campaign, alice):
    campaign_actions.set_campaign_option(
        campaign_id=campaign.pk, user=alice, key="battle_book", value="mytrek"
    )
    campaign.refresh_from_db()


def test_an_embedded_battle_is_fought_on_my_trek_and_the_turn_takes_it_up(small_campaign, alice):
    from campaign import battles

    assert "mytrek" in [k for k, _ in battles.handler().book_choices("eventhorizon")]
    _choose_mytrek(small_campaign, alice)
    turn = contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get()
    assert battle.ruleset == "mytrek" and battle.converted
    layer = battle.layer_setup
    assert battle.log.filter(kind="converted", text__contains="XC31-XC35").exists()
    state = embedded.current_state(battle)
    assert state.ships and battle.status == "playing"  # a My Trek V state, fought online
    assert set(RULES.acting_sides(state)) == {1, 2}  # Phase Zero: both sides write orders at once (MT17)
    assert len(state.ships) == sum(len(layer["sides"][s]["ships"]) for s in ("1", "2"))
    assert actions.settle_due_battles(now=battle.deadline + timedelta(minutes=1)) == 1
    battle.refresh_from_db()
    turn.refresh_from_db()
    assert battle.status == "resolved" and battle.resolved_how == "tactical"
    ids = {s["id"] for side in ("1", "2") for s in layer["sides"][side]["ships"]}
    assert {s["ship"] for s in battle.result["ships"]} == ids
    assert {s["fate"] for s in battle.result["ships"]} <= {"survived", "destroyed"}
    assert turn.status == Turn.Status.DONE  # the campaign took it up
    numbers = set(Ship.objects.filter(campaign=small_campaign).values_list("number", flat=True))
    destroyed = {s["ship"] for s in battle.result["ships"] if s["fate"] == "destroyed"}
    kept = {s["ship"] for s in battle.result["ships"] if s["fate"] == "survived"}
    assert not destroyed & numbers and kept <= numbers
