"""Issue 31 on My Trek V: an Event Horizon campaign whose battles are fought online on My Trek V
(rulings XC31-XC35). The option offers it, the battle is set up from the converted fleets (designs
priced by 002 "Assembling a Fleet", damage as hull and system factors), fought with simultaneous
secret orders (ruling MT17: both sides act at once, ``PlayRules.acting_sides``), handed to the
computer at its deadline, played to its end, and its result goes back to the turn as Event
Horizon's (docs/battles.md "Result"); a tabletop battle prints the ship logs."""

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


def test_a_tabletop_battle_prints_the_ship_logs(client, small_campaign, alice, bob):
    _choose_mytrek(small_campaign, alice)
    contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    client.force_login(bob)
    assert "My Trek V" in client.get(f"/battles/{battle.pk}/").content.decode()
    sheets = client.get(f"/battles/{battle.pk}/sheets/").content.decode()
    ships = sum(len(s["ships"]) for s in battle.setup["sides"].values())
    assert sheets.count('<section class="sheet">') == ships and "My Trek V ship log (002)" in sheets


def test_a_cam_tabletop_scenario_prints_its_forces_as_ship_logs(client, alice, bob, carol):  # XC36-XC39
    from campaign.cam import actions as cam_actions
    from tests.cam.conftest import make_cam, ship_numbers

    c = make_cam(alice, bob, carol)
    cam_actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    cam_actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    cam_actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    cam_actions.roll_table(campaign_id=c.pk, user=bob)
    client.force_login(bob)
    assert "?book=mytrek" in client.get(f"/cam/{c.pk}/scenarios/1/").content.decode()
    sheets = client.get(f"/cam/{c.pk}/scenarios/1/sheets/?book=mytrek").content.decode()
    assert sheets.count('<section class="sheet">') == 5 and "My Trek V ship log (002)" in sheets
