"""Spending BP and saving designs through the actions (003 Use of BP in a Campaign,
003 Star Ship Design Rules): purchases are orders, checked on submission as a whole and in
order; a refused list names the first failing item and changes nothing."""

import pytest

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.models import BuildOrder, Design, Structure
from campaign.models import Empire, TurnOrders
from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS

pytestmark = pytest.mark.django_db


@pytest.fixture
def empire(small_campaign):
    """Seat 1 at turn 1 with 240 BP banked (its set-up purchase aside: these tests spend a turn's BP)."""
    from campaign import versioning

    small_campaign.empires.filter(seat=1).update(bp=240)
    versioning.bump(small_campaign.pk)  # a queryset update sends no signal (campaign/versioning.py)
    return small_campaign.empires.get(seat=1)


def home_of(empire):
    home = empire.home_worlds.get()
    return [home.x, home.y]


def dockyard_of(empire):
    return Structure.objects.get(owner=empire, resource="dockyard").number


def snapshot(empire):
    empire.refresh_from_db()
    return (empire.bp, list(empire.technologies), Structure.objects.count(), BuildOrder.objects.count(),
            list(TurnOrders.objects.values_list("orders", "revision")))


def spend(empire, purchases):
    """Submit purchases as the empire's orders; returns the spending preview."""
    _, preview = eh_actions.submit_orders(empire_id=empire.pk, raw={"purchases": purchases})
    return preview.spending


def test_spend_builds_resources_and_ships_in_order(empire):  # 003 Use of BP in a Campaign
    plan = spend(empire, [
        {"buy": "planetary_defences", "at": home_of(empire)},
        {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": dockyard_of(empire), "name": "Swift"},
    ])
    assert plan.total == 40 + 25 and plan.bp_left == 240 - 65
    eh_actions.process_turn(campaign_id=empire.campaign_id)
    empire.refresh_from_db()
    defences = Structure.objects.get(owner=empire, resource="planetary_defences")
    assert [defences.x, defences.y] == home_of(empire)
    build = BuildOrder.objects.get(owner=empire)
    # 003 Star Ship Build Times: Corvette = 2, one turn of which passed in the turn it was ordered.
    assert build.name == "Swift" and build.turns_remaining == 1


def test_spend_merchants_guild_then_research_in_one_list_is_refused_on_the_same_world(empire):
    # 003 Use of BP in a Campaign: Note — one resource per planet/colony per turn.
    before = snapshot(empire)
    with pytest.raises(actions.ActionError, match=r"purchases\[1\].*one resource"):
        spend(empire, [
            {"buy": "merchants_guild", "at": home_of(empire)},
            {"buy": "research_facility", "at": home_of(empire), "technology": "stealth_field"},
        ])
    assert snapshot(empire) == before


def test_spend_refuses_an_unaffordable_list_and_changes_nothing(empire):  # 003 Use of BP in a Campaign
    before = snapshot(empire)
    with pytest.raises(actions.ActionError, match=r"purchases\[1\].*Corvette.*costs 25 BP but only 0 BP"):
        spend(empire, [
            {"buy": "merchants_guild", "at": home_of(empire)},
            {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": dockyard_of(empire)},
        ])
    assert snapshot(empire) == before


def test_spend_refuses_an_out_of_order_prerequisite(empire):  # 003 Enrichment requires a Merchants Guild
    before = snapshot(empire)
    with pytest.raises(actions.ActionError, match=r"purchases\[0\].*Merchants Guild"):
        spend(empire, [{"buy": "enrichment", "at": home_of(empire)}])
    assert snapshot(empire) == before


def test_spend_refuses_gated_design_before_research(empire):
    # RULINGS.md Research-gated components: the Sword carries a stealth field generator.
    before = snapshot(empire)
    with pytest.raises(actions.ActionError, match="Stealth Field"):
        spend(empire, [
            {"build": "Knights of G.O.D Sword Class Frigate", "dockyard": dockyard_of(empire)}
        ])
    assert snapshot(empire) == before


@pytest.mark.parametrize(
    "purchase,message",
    [
        ({"buy": "death_star", "at": [0, 0]}, "unknown resource 'death_star'"),
        ({"buy": "dockyard"}, r"purchases\[0\]\.at: .*must be an \[x, y\] pair"),
        ({"buy": "dockyard", "at": [0, 0], "colour": "red"}, "unknown field"),
        ({"build": "No Such Ship", "dockyard": 1}, "no design named 'No Such Ship'"),
        (
            {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": "one"},
            r"purchases\[0\]\.dockyard: .*must be a whole number",
        ),
        ({"repair": 1, "build": "x"}, "exactly one of"),
        ("dockyard", "must be an object"),
        ({"buy": "research_facility", "at": [0, 0], "technology": "warp_drive"}, "unknown technology"),
    ],
)
def test_spend_refuses_malformed_purchases(empire, purchase, message):
    before = snapshot(empire)
    with pytest.raises(actions.ActionError, match=message):
        spend(empire, [purchase])
    assert snapshot(empire) == before


def test_spend_refuses_a_second_build_at_a_busy_dockyard(empire):  # 003 Use of BP in a Campaign: Note
    galiot = {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": dockyard_of(empire)}
    spend(empire, [galiot])
    # The other empire builds too, or it would end the turn with no ships and lose (003 Purpose
    # of the Campaign), ending the campaign.
    other = empire.campaign.empires.get(seat=2)
    spend(other, [{**galiot, "dockyard": dockyard_of(other)}])
    eh_actions.process_turn(campaign_id=empire.campaign_id)
    before = snapshot(empire)
    with pytest.raises(actions.ActionError, match="dockyard"):
        spend(empire, [galiot])
    assert snapshot(empire) == before


def test_starter_library_holds_the_four_sample_designs(db):  # 003 Star Ship Design Rules: sample designs
    library = {d.name: d for d in Design.objects.filter(campaign__isnull=True)}
    assert {d.name for d in SAMPLE_DESIGNS} == set(library)
    for sample in SAMPLE_DESIGNS:
        assert library[sample.name].spec == sample.to_dict()
        assert library[sample.name].bp == sample.bp == sample.ship_type.bp


def test_save_design_in_a_campaign(small_campaign, empire):  # 003 Star Ship Design Rules
    spec = {"name": "Picket", "ship_type": "patrol_craft", "hull": 6, "engine": 6, "force_field": 6,
            "weapons": {"laser_bank": 5}}
    row = eh_actions.save_design(spec=spec, campaign=small_campaign, empire=empire)
    assert row.bp == 20 and row.ship_type == "patrol_craft"
    with pytest.raises(actions.ActionError, match="already exists"):
        eh_actions.save_design(spec=spec, campaign=small_campaign, empire=empire)


@pytest.mark.parametrize(
    "change,message",
    [
        ({"tractor_beam": 1}, "unknown component 'tractor_beam'"),
        ({"hull": 13}, "1 to 12"),
        ({"engine": 10}, "1 to 9"),
        ({"hull": 5}, "19 BP"),
        ({"stealth_field": True, "weapons": {"laser_bank": 0}}, "Stealth Field"),
    ],
)
def test_save_design_refuses_bad_designs(small_campaign, empire, change, message):
    spec = {"name": "Picket", "ship_type": "patrol_craft", "hull": 6, "engine": 6, "force_field": 6,
            "weapons": {"laser_bank": 5}, **change}
    with pytest.raises(actions.ActionError, match=message):
        eh_actions.save_design(spec=spec, campaign=small_campaign, empire=empire)
    assert not Design.objects.filter(campaign=small_campaign).exists()


def test_empire_bp_can_never_go_negative_in_the_database(empire):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Empire.objects.filter(pk=empire.pk).update(bp=-1)
