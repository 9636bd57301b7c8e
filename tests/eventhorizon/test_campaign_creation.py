"""Creating an Event Horizon campaign: map, worlds, home worlds, 240 BP and dockyards (003)."""

import pytest

from campaign import actions
from campaign.dice import log_entries
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.adapters import map_state
from campaign.eventhorizon.models import MapCell, Structure, World
from campaign.models import Campaign, DiceRoll, Empire
from campaign.rules import dicelog
from campaign.rules.dice import derive_seed, seed_hash

pytestmark = pytest.mark.django_db


def make(**kw):
    args = {"name": "Sector", "grid": "hex", "width": 20, "height": 16, "players": 4, "seed": "s1"}
    args.update(kw)
    return eh_actions.create_campaign(**args)


def test_create_campaign_stores_every_cell_and_world():  # 003 Creating a Map
    campaign = make()
    assert MapCell.objects.filter(campaign=campaign).count() == 20 * 16
    gmap = map_state(campaign)
    planets, colonies = set(gmap.planets()), set(gmap.colonies())
    worlds = {(w.x, w.y): w for w in World.objects.filter(campaign=campaign)}
    assert set(worlds) == planets | colonies
    assert all(worlds[c].kind == "planet" and worlds[c].economy for c in planets)
    assert all(worlds[c].kind == "colony" and not worlds[c].economy for c in colonies)


def test_create_campaign_sets_up_each_player():  # 003 Set Up
    campaign = make(players=3)
    empires = list(campaign.empires.order_by("seat"))
    assert [e.seat for e in empires] == [1, 2, 3]
    for empire in empires:
        assert empire.bp == 240
        home = World.objects.get(owner=empire)
        assert home.home_of == empire and home.kind == "planet"
        dockyard = Structure.objects.get(owner=empire)
        assert (dockyard.resource, dockyard.x, dockyard.y) == ("dockyard", home.x, home.y)
    # "At the start of the campaign all other planets and colonies are considered neutral."
    assert World.objects.filter(campaign=campaign, owner__isnull=True).count() == campaign.worlds.count() - 3


def test_home_worlds_come_from_the_map_engine_in_seat_order():  # 003 Set Up
    campaign = make(players=4)
    gmap = map_state(campaign)
    homes = [
        (w.x, w.y)
        for w in World.objects.filter(campaign=campaign, home_of__isnull=False).order_by("home_of__seat")
    ]
    assert tuple(homes) == gmap.home_worlds


def test_same_seed_gives_the_same_campaign():  # 003 Creating a Map (deterministic from the seed)
    a, b = make(seed="same"), make(seed="same")
    assert map_state(a).terrain == map_state(b).terrain
    assert map_state(a).home_worlds == map_state(b).home_worlds
    assert a.seed_hash == b.seed_hash == seed_hash(derive_seed("same"))
    assert make(seed="other").seed_hash != a.seed_hash


def test_without_a_seed_each_campaign_gets_a_fresh_secret_seed():
    a, b = make(seed=None), make(seed=None)
    assert a.dice_seed != b.dice_seed and len(bytes.fromhex(a.dice_seed)) * 8 >= 128


def test_map_rolls_are_logged_one_per_row_and_verify():  # 003 Creating a Map; docs/dice.md
    campaign = make(width=20, height=16)
    rolls = list(DiceRoll.objects.filter(campaign=campaign).order_by("seq"))
    terrain_rolls = [r for r in rolls if r.purpose == "003 Creating a Map"]
    assert len(terrain_rolls) == 16 and all(r.expression == "20d20" for r in terrain_rolls)
    assert all(r.turn == 0 and r.phase == "setup" for r in rolls)
    assert {r.purpose for r in rolls} == {
        "003 Creating a Map",
        "003 Planetary Economy Type",
        "003 Purpose of the Campaign",
    }
    # 003 Purpose of the Campaign: rolled once, at the start, after the map.
    assert rolls[-1].purpose == "003 Purpose of the Campaign" and campaign.purpose == rolls[-1].total
    assert rolls[0].prev_hash == campaign.seed_hash
    assert all(later.prev_hash == earlier.hash for earlier, later in zip(rolls, rolls[1:]))
    assert dicelog.verify(bytes.fromhex(campaign.dice_seed), campaign.seed_hash, log_entries(campaign)) is None
    campaign.refresh_from_db()
    assert campaign.dice_offset == rolls[-1].offset + rolls[-1].words


def test_economy_types_option_off_rolls_no_types():  # RULINGS.md: Planet economy type (option)
    campaign = make(options={"economy_types": False})
    assert not World.objects.filter(campaign=campaign).exclude(economy="").exists()
    assert not DiceRoll.objects.filter(campaign=campaign, purpose="003 Planetary Economy Type").exists()
    assert DiceRoll.objects.filter(campaign=campaign, purpose="003 Purpose of the Campaign").count() == 1


@pytest.mark.parametrize(
    "kw,message",
    [
        ({"players": 1}, "2 to 8 players"),
        ({"players": 9}, "2 to 8 players"),
        ({"width": 0}, "0"),
        ({"height": 251}, "251"),
        ({"grid": "triangle"}, "triangle"),
        ({"name": "  "}, "name"),
        ({"width": 2, "height": 2, "players": 8}, "players need"),
        ({"options": {"fog": True}}, "unknown campaign option"),
    ],
)
def test_create_campaign_refuses_bad_input_and_changes_nothing(kw, message):
    with pytest.raises(actions.ActionError, match=message):
        make(**kw)
    assert Campaign.objects.count() == 0
    assert MapCell.objects.count() == Empire.objects.count() == DiceRoll.objects.count() == 0
