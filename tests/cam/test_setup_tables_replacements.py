"""Issue 13 item 5: CAM set-up on the site — the CAM 2.3 edge roll's input (a side with forces
or bases already on the table rolls 1D6), multi-table games (CAM 2.3, 11.3), the CAM 4.2
replacement share held to "no more than 10%" unless marked a house rule, and the last turn's
End Phase (CAM 3.0, ruling CAM27)."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.cam import actions
from campaign.cam.models import CamCampaign
from campaign.models import Campaign, DiceRoll

from .conftest import make_cam, ship_numbers
from .test_actions import refused


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def edge_dice(row):
    return next(e for e in row.events if e["kind"] == "edges")["data"]["dice"]


def test_issue13_item5_cam23_forces_already_on_table_roll_1d6(cam_campaign, alice, bob, carol):
    """000 CAM 2.3 "If a player has forces or bases already on the main table, he merely rolls 1
    D6": a player says so with his force (no base needed); the other rolls 2D6 (ruling CAM33)."""
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="planetary_dispute")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:2], on_table=True)
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    row = actions.roll_table(campaign_id=c.pk, user=carol)
    assert edge_dice(row) == {"1": 1, "2": 2}
    assert row.forces["1"]["on_table"] is True and row.forces["2"]["on_table"] is False


def test_issue13_item5_cam23_on_table_by_api_and_page(cam_campaign, alice, bob, carol, client):
    """000 CAM 2.3: the forces form and the API take "already on the main table"; a bad value
    is refused and changes nothing."""
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    url = f"/api/cam/campaigns/{c.pk}/scenarios/1/forces/"
    response = api(carol).put(url, {"ships": ship_numbers(c, 2)[:2], "on_table": "yes"}, format="json")
    assert response.status_code == 400 and "already on the table" in response.json()["detail"]
    response = api(carol).put(url, {"ships": ship_numbers(c, 2)[:2], "on_table": True}, format="json")
    assert response.status_code == 200, response.content
    client.force_login(bob)
    page = client.get(reverse("cam-scenario", args=[c.pk, 1])).content.decode()
    assert 'name="on_table"' in page
    client.post(reverse("cam-forces", args=[c.pk, 1]), {"ships": ship_numbers(c, 1)[:2]})
    row = actions.roll_table(campaign_id=c.pk, user=bob)
    assert edge_dice(row) == {"1": 2, "2": 1}


def test_issue13_item5_cam23_multi_tables(db, alice, bob, carol, client):
    """000 CAM 2.3 "If using multi-tables (see 11.3. of main rules) roll for each table
    separately": the campaign's number of tables is set at creation and each table is rolled
    and shown."""
    c = make_cam(alice, bob, carol, tables=3)
    assert c.cam.tables == 3
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:2])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    row = actions.roll_table(campaign_id=c.pk, user=bob)
    assert len(row.tables) == 3
    assert DiceRoll.objects.filter(campaign=c, purpose__contains="CAM 2.3").count() >= 3 + 2
    client.force_login(bob)
    page = client.get(reverse("cam-scenario", args=[c.pk, 1])).content.decode()
    assert "Table 1:" in page and "Table 3:" in page
    assert api(bob).get(f"/api/cam/campaigns/{c.pk}/").json()["settings"]["tables"] == 3


def test_issue13_item5_multi_tables_on_the_create_form_and_api(db, alice, bob, carol, client):  # 000 CAM 2.3
    data = {"name": "Two tables", "period": 2, "starting_points": 100, "scenarios": 5, "points_level": 60,
            "break_percent": 40, "replacement_percent": 10, "battle_mode": "tabletop", "tables": 2,
            "p1_username": "bob", "p1_faction": "UFP", "p1_fleet": "constitution",
            "p2_username": "carol", "p2_faction": "Klingons", "p2_fleet": "d7"}
    client.force_login(alice)
    assert client.post(reverse("cam-create"), data).status_code == 302
    assert CamCampaign.objects.get(campaign__name="Two tables").tables == 2
    response = client.post(reverse("cam-create"), {**data, "tables": 9})
    assert response.status_code == 200 and "tables" in response.context["form"].errors
    body = {"name": "API tables", "period": 2, "starting_points": 100, "tables": 0,
            "players": [{"username": "bob", "faction": "UFP"}, {"username": "carol", "faction": "Klingons"}]}
    response = api(alice).post("/api/cam/campaigns/", body, format="json")
    assert response.status_code == 400 and "number of tables" in response.json()["detail"]


@pytest.mark.parametrize("percent", [11, 25])
def test_issue13_item5_cam42_replacement_share_held_to_10_percent(db, alice, bob, carol, client, percent):
    """000 CAM 4.2 "'Replacements' between scenarios can 'cost' no more than 10% of the total
    points that began the campaign": more is refused unless the moderator marks it as a house
    rule (ruling CAM34)."""
    before = Campaign.objects.count()
    with pytest.raises(actions.CamActionError, match="no more than 10%"):
        make_cam(alice, bob, carol, replacement_percent=percent)
    assert Campaign.objects.count() == before
    c = make_cam(alice, bob, carol, replacement_percent=percent, replacement_house_rule=True, seed="house")
    assert c.cam.replacement_percent == percent and c.cam.replacement_house_rule
    body = {"name": "API share", "period": 2, "starting_points": 100, "replacement_percent": percent,
            "players": [{"username": "bob", "faction": "UFP"}, {"username": "carol", "faction": "Klingons"}]}
    response = api(alice).post("/api/cam/campaigns/", body, format="json")
    assert response.status_code == 400 and "house rule" in response.json()["detail"]
    response = api(alice).post("/api/cam/campaigns/", {**body, "replacement_house_rule": True}, format="json")
    assert response.status_code == 201 and response.json()["settings"]["replacement_house_rule"] is True
    client.force_login(alice)
    page = client.get(reverse("cam-detail", args=[c.pk])).content.decode()
    assert "house rule" in page


def test_issue13_item5_cam27_last_turn_still_rolls_the_other_sides_check(cam_campaign, alice, bob, carol):
    """000 CAM 3.0: "After completing an End Phase … 1) … if either player has met a condition
    for a 'Break Contact' check, roll for it 2) When all table contact has been broken, tally".
    Carol was ordered to break contact; on the turn her last ship leaves, bob loses 20 of 30
    points (condition 1): his check is still rolled (ruling CAM27)."""
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])  # three CAs, level 12
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    row = actions.roll_table(campaign_id=c.pk, user=bob)
    row.battle = {**row.battle, "broken": {"1": None, "2": 1}, "turn": 2}  # carol ordered after turn 1
    row.save(update_fields=["battle"])
    b, k = ship_numbers(c, 1), ship_numbers(c, 2)
    checks = DiceRoll.objects.filter(campaign=c, purpose__contains="CAM 3.1").count()
    actions.enter_turn(campaign_id=c.pk, user=carol, left=[f"ship:{k[0]}", f"ship:{k[1]}"])
    row = actions.enter_turn(campaign_id=c.pk, user=bob, destroyed=[f"ship:{b[0]}", f"ship:{b[1]}"])
    assert row.stage == "confirming"  # carol's side has left the table: the game is over
    assert DiceRoll.objects.filter(campaign=c, purpose__contains="CAM 3.1").count() == checks + 1
    check = [e for e in row.events if e["kind"] == "check"][-1]
    assert check["data"]["seat"] == 1 and check["data"]["turn"] == 2 and check["data"]["conditions"] == [1]
    assert (row.battle["broken"]["1"] == 2) is check["data"]["ordered"]
    # Ordered too, bob's ships are still on the table: the game ends as "a side has no ships left".
    assert row.force_end is check["data"]["ordered"]
    preview = actions.score_preview(row)
    assert preview.sides[1].bonus == (0 if check["data"]["ordered"] else 50)


def test_issue13_item5_refused_settings_change_nothing(cam_campaign, alice, bob):  # 000 CAM 2.3
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    refused(c, "already on the table", actions.select_forces, user=bob, ships=ship_numbers(c, 1)[:1], on_table=1)
