"""Issue 13 item 20: CAM set-up picks ships from the catalogue (000 1.5 SDs and their Periods;
CAM 4.0, 4.1) — searchable, filtered to the campaign's Period, refusing an unknown or
wrong-Period ship when it is entered (not at the start); rosters, battle tables and reports name
ships, never unit ids like ``ship:29`` (ruling CAM36)."""

import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.cam import actions
from campaign.cam.models import CamPlayer
from campaign.models import Campaign

from .conftest import BOB_FLEET, CAROL_FLEET, make_cam, ship_numbers
from .test_actions import refused


@pytest.fixture
def setup_campaign(db, alice, bob, carol):
    return make_cam(alice, bob, carol, start=False)


@pytest.mark.parametrize("fleet, message", [
    (["galaxy"], "Galaxy class) (galaxy) is available in Periods 5 to 6, not in the campaign's Period 2"),
    (["constitution", "borg_cube"], "ship 2: BB Cube 249 (borg_cube) is available in Periods 5 to 6"),
    (["enterprise_z"], "no SD 'enterprise_z'"),
])
def test_issue13_item20_wrong_period_or_unknown_ship_refused_when_entered(setup_campaign, bob, fleet, message):
    """000 1.5 SD periods; CAM 4.1 "as well as Period covered": refused at entry, nothing changes."""
    refused(setup_campaign, message, actions.set_starting_fleet, user=bob, fleet=fleet)


def test_issue13_item20_create_refuses_a_wrong_period_fleet(db, alice, bob, carol):  # 000 1.5; CAM 4.1
    with pytest.raises(actions.CamActionError, match="player 2: ship 1: .*Periods 5 to 6"):
        actions.create_cam_campaign(user=alice, name="X", period=2, starting_points=100, players=[
            {"username": "bob", "faction": "UFP", "fleet": ["constitution"]},
            {"username": "carol", "faction": "Klingons", "fleet": ["galaxy"]}])
    assert not Campaign.objects.filter(layer="cam").exists()


def test_issue13_item20_api_refuses_a_wrong_period_ship(setup_campaign, bob):  # 000 1.5
    client = APIClient()
    client.force_authenticate(bob)
    response = client.put(f"/api/cam/campaigns/{setup_campaign.pk}/fleet/", {"fleet": ["valkyrie"]}, format="json")
    assert response.status_code == 400 and "Period 2" in response.json()["detail"]
    assert CamPlayer.objects.get(cam=setup_campaign.cam, seat=1).starting_fleet[0]["sd"] == BOB_FLEET[0]


def test_issue13_item20_picker_lists_the_periods_ships_and_adds_one(setup_campaign, bob, client):
    """000 1.5: the set-up page lists the catalogue with the Period's SDs addable and the others
    hidden behind "show other Periods"; "Add" appends the ship to the fleet as typed."""
    c = setup_campaign
    client.force_login(bob)
    page = client.get(reverse("cam-detail", args=[c.pk])).content.decode()
    assert 'class="sd-search"' in page and 'class="sd-all"' in page
    assert re.search(r'<tr class="sd-row sd-other"[^>]*hidden>\s*<td>[^<]*Galaxy class', page)
    assert 'name="add_sd" value="constitution"' in page and 'value="galaxy"' not in page
    fleet = "\n".join(BOB_FLEET[:2])
    response = client.post(reverse("cam-fleet", args=[c.pk]),
                           {"seat": 1, "fleet": fleet, "add_sd": "war_talon", "add_name": "IRS Talon"})
    assert response.status_code == 302
    player = CamPlayer.objects.get(cam=c.cam, seat=1)
    assert player.starting_fleet == [{"sd": "constitution", "name": ""}, {"sd": "constitution", "name": ""},
                                     {"sd": "war_talon", "name": "IRS Talon"}]
    page = client.get(reverse("cam-detail", args=[c.pk])).content.decode()
    assert "IRS Talon — CL IRS &#x27;War Talon&#x27; (Bird of Prey) (CL, 7 pts)" in page
    # a wrong-Period "Add" (a forged request) is refused with the reason; the fleet is kept
    response = client.post(reverse("cam-fleet", args=[c.pk]), {"seat": 1, "fleet": fleet, "add_sd": "galaxy"})
    assert response.status_code == 400 and "not in the campaign&#x27;s Period 2" in response.content.decode()
    assert len(CamPlayer.objects.get(cam=c.cam, seat=1).starting_fleet) == 3


def test_issue13_item20_rosters_and_battle_name_ships_not_ids(db, alice, bob, carol, client):
    """Rosters show the SD's name, the battle tables and the turn form name each ship with its
    roster number, and an auto-resolve report names the ships lost (ruling CAM36)."""
    c = make_cam(alice, bob, carol)
    client.force_login(bob)
    page = client.get(reverse("cam-detail", args=[c.pk])).content.decode()
    assert "CA USS &#x27;Hood&#x27; (Constitution class) (CA)" in page
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:2])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    actions.roll_table(campaign_id=c.pk, user=bob)
    page = client.get(reverse("cam-scenario", args=[c.pk, 1])).content.decode()
    text = re.sub(r"<[^>]+>", " ", page)  # what is read, not attribute values
    assert not re.search(r"\bship:\d", text) and not re.search(r'aria-label="[^"]*ship:\d', page)
    first = ship_numbers(c, 1)[0]
    assert f"(#{first})" in text
    row = actions.autoresolve(campaign_id=c.pk, user=alice)
    losses = [e["text"] for e in row.events if e["kind"] == "losses" and e["step"] == "autoresolve"]
    assert losses and not any("ship:" in t for t in losses)
    assert CAROL_FLEET  # the fixture's fleets are the rule book's SDs
