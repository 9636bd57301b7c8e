"""The campaign's state version (campaign/versioning.py) moves with every write to its game
state, so nothing cached under it — the map, the map page, the state orders are checked
against — outlives what it was made from (issue 4, online play)."""

import pytest
from django.test import Client

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import adapters
from campaign.eventhorizon.actions import roll_back_turn
from campaign.eventhorizon.models import Design, Fleet, Ship
from campaign.models import Campaign

pytestmark = pytest.mark.django_db


def version(campaign) -> int:
    return Campaign.objects.values_list("state_version", flat=True).get(pk=campaign.pk)


def loaded(campaign):
    campaign = Campaign.objects.get(pk=campaign.pk)
    return adapters.load_state(campaign), adapters.design_names_by_seat(campaign)


def test_every_kind_of_state_write_moves_the_version(small_campaign, alice, bob, carol, eager_tasks):
    campaign = small_campaign
    library = Design.objects.filter(campaign__isnull=True).first()

    def empire(seat):
        return campaign.empires.get(seat=seat)

    def edit_bp():
        row = empire(1)
        row.bp += 7
        actions.admin_edit(user=alice, instance=row)

    def delete_ship():
        actions.admin_edit(user=alice, instance=Ship.objects.filter(campaign=campaign).order_by("number").first(),
                           delete=True)

    def move_fleet():
        row = Fleet.objects.filter(campaign=campaign).order_by("number").first()
        row.x = (row.x + 1) % campaign.width
        actions.admin_edit(user=alice, instance=row)

    def new_design():
        spec = {**library.spec, "name": "Versioned Corvette"}
        eh_actions.save_design(spec=spec, campaign=campaign, empire=empire(1))

    def computer_turn():
        eh_actions.write_bot_orders(campaign_id=campaign.pk)
        eh_actions.process_turn(campaign_id=campaign.pk)

    steps = {
        "seat 1 handed to the computer": lambda: actions.substitute_player(
            campaign_id=campaign.pk, user=alice, seat=1, username=""),
        "seat 2 handed to the computer": lambda: actions.substitute_player(
            campaign_id=campaign.pk, user=alice, seat=2, username=""),
        "turn 1 processed": computer_turn,
        "turn 2 processed": computer_turn,
        "turn 3 processed": computer_turn,
        "moderator edits banked BP": edit_bp,
        "moderator deletes a ship": delete_ship,
        "moderator moves a fleet": move_fleet,
        "player designs a ship": new_design,
        "seat 2 handed back": lambda: actions.substitute_player(
            campaign_id=campaign.pk, user=alice, seat=2, username="carol"),
        "turn rolled back": lambda: roll_back_turn(campaign_id=campaign.pk, user=alice),
    }
    changed = []
    for name, step in steps.items():
        before, v0 = loaded(campaign), version(campaign)
        step()
        after, v1 = loaded(campaign), version(campaign)
        if after != before:
            changed.append(name)
            assert v1 > v0, f"{name} changed the state but not its version"
    # Every step above writes the state (so the check above is not vacuous).
    assert changed == list(steps)


def test_a_stale_campaign_row_saved_keeps_the_newer_version(small_campaign):
    stale = Campaign.objects.get(pk=small_campaign.pk)
    fleet_owner = small_campaign.empires.get(seat=1)
    fleet_owner.name = "Renamed"
    fleet_owner.save()  # a state write: the version moves
    moved = version(small_campaign)
    stale.name = "New name"
    stale.save()  # the row read before the write must not carry the old count back
    assert version(small_campaign) == moved
    assert Campaign.objects.get(pk=small_campaign.pk).name == "New name"


def test_orders_may_build_a_design_made_after_the_state_was_kept(small_campaign, bob):
    """The state orders are checked against is kept per process; a new design is seen at once."""
    campaign = Campaign.objects.get(pk=small_campaign.pk)
    empire = campaign.empires.get(seat=1)
    adapters.state_for_orders(campaign)  # kept
    library = Design.objects.filter(campaign__isnull=True, ship_type="corvette").first() or \
        Design.objects.filter(campaign__isnull=True).first()
    eh_actions.save_design(spec={**library.spec, "name": "Fresh Design"}, campaign=campaign, empire=empire)
    dock = empire.structures.filter(resource="dockyard").first().number
    client = Client()
    client.force_login(bob)
    response = client.post(f"/api/campaigns/{campaign.pk}/orders/preview/",
                           {"orders": {"purchases": [{"build": "Fresh Design", "dockyard": dock}]}},
                           content_type="application/json")
    assert response.status_code in (200, 400), response.content
    assert "no design" not in response.content.decode().lower()
    assert "Fresh Design" not in response.json().get("orders", "")


@pytest.mark.parametrize("lost", [1, 6])
def test_ships_lost_in_a_turn_cost_the_same_queries_however_many(small_campaign, lost, django_assert_num_queries):
    """A turn's destroyed ships go in one DELETE and one version bump: no per-row signal makes
    the queries of a turn grow with the ships lost (bench/turn.py: the same count at every size)."""
    from dataclasses import replace

    design = Design.objects.filter(campaign__isnull=True).first()
    empire = small_campaign.empires.get(seat=1)
    fleet = Fleet.objects.create(campaign=small_campaign, owner=empire, number=500, x=1, y=1)
    for n in range(8):
        Ship.objects.create(campaign=small_campaign, owner=empire, number=600 + n, design=design, fleet=fleet)
    campaign = Campaign.objects.get(pk=small_campaign.pk)
    before = adapters.load_state(campaign)
    gone = {600 + n for n in range(lost)}
    after = replace(before, ships=tuple(s for s in before.ships if s.id not in gone),
                    fleets=tuple(replace(f, ships=tuple(i for i in f.ships if i not in gone)) for f in before.fleets))
    v0 = version(campaign)
    with django_assert_num_queries(QUERIES_TO_LOSE_SHIPS):
        adapters.save_state(campaign, before, after)
    assert version(campaign) == v0 + 1
    assert set(Ship.objects.filter(campaign=campaign, number__gte=600).values_list("number", flat=True)) == \
        {600 + n for n in range(lost, 8)}


QUERIES_TO_LOSE_SHIPS = 5  # the empire look-up, fleet numbers, the bump, the DELETE, the campaign row
