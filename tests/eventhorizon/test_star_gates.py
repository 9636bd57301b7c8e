"""Issue 13 item 3: star gates only on the map (003 Use of BP in a Campaign: Star Gate, "can be
built in any hex"; 003 Creating a Map; 003 Creating a Map: Black Hole; docs/rulings.md E11).

A gate bought at [999, 999] or [-5, 0] used to be accepted, charged and stored; the preview, the
API and the order page now refuse it with the rule named, and the import refuses a document
holding one."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from campaign.eventhorizon.models import MapCell, Structure
from campaign.models import Campaign, TurnOrders

pytestmark = pytest.mark.django_db

RULE = "003 Use of BP in a Campaign: Star Gate"


@pytest.fixture
def gate_ready(small_campaign):
    """Seat 1 (bob) has a research facility on its home world (the gate's prerequisite) and BP."""
    empire = small_campaign.empires.get(seat=1)
    home = small_campaign.worlds.get(home_of=empire)
    Structure.objects.create(campaign=small_campaign, owner=empire, number=99, resource="research_facility",
                             x=home.x, y=home.y, technology="ai_supercomputer")
    empire.bp = 500
    empire.save(update_fields=["bp"])
    return small_campaign


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def gate(at):
    return {"purchases": [{"buy": "star_gate", "at": at}]}


@pytest.mark.parametrize("at", [[999, 999], [-5, 0], [12, 0]])
# 003 Star Gate; 003 Creating a Map
def test_issue13_item3_api_preview_and_put_refuse_an_off_map_gate(gate_ready, bob, at):
    url = f"/api/campaigns/{gate_ready.pk}/orders/"
    response = api(bob).post(url + "preview/", {"orders": gate(at)}, format="json")
    assert response.status_code == 400, response.content
    assert RULE in response.json()["orders"] and "off the map" in response.json()["orders"]
    response = api(bob).put(url, {"orders": gate(at)}, format="json")
    assert response.status_code == 400, response.content
    # set-up orders (turn 0) aside
    assert not TurnOrders.objects.filter(empire__campaign=gate_ready, turn__number__gt=0).exists()
    assert gate_ready.empires.get(seat=1).bp == 500


def test_issue13_item3_api_refuses_a_gate_in_a_black_hole(gate_ready, bob):  # 003 Creating a Map: Black Hole
    cell = MapCell.objects.filter(campaign=gate_ready, terrain="black_hole").first()
    if cell is None:  # the seed's map has none: make one away from every world
        cell = MapCell.objects.filter(campaign=gate_ready, terrain="empty").last()
        cell.terrain = "black_hole"
        cell.save(update_fields=["terrain"])
    response = api(bob).post(f"/api/campaigns/{gate_ready.pk}/orders/preview/",
                             {"orders": gate([cell.x, cell.y])}, format="json")
    assert response.status_code == 400, response.content
    assert "003 Creating a Map: Black Hole" in response.json()["orders"]


def test_issue13_item3_order_page_shows_the_refusal(gate_ready, bob, client):  # 003 Star Gate
    client.force_login(bob)
    response = client.post(f"/campaigns/{gate_ready.pk}/orders/", {"orders": json.dumps(gate([999, 999]))})
    error = response.context["form"].errors["orders"][0]
    assert RULE in error and "off the map" in error
    # set-up orders (turn 0) aside
    assert not TurnOrders.objects.filter(empire__campaign=gate_ready, turn__number__gt=0).exists()


@pytest.mark.parametrize("where", ["off_map", "black_hole"])
def test_issue13_item3_import_refuses_a_gate_off_the_map_or_in_a_black_hole(gate_ready, tmp_path, where):
    """docs/export-format.md; 003 Star Gate: the import holds the same rule as the orders."""
    path = tmp_path / "a.json"
    call_command("exportcampaign", str(gate_ready.pk), "--output", str(path))
    doc = json.loads(path.read_text())
    number = max(s["number"] for s in doc["structures"]) + 1
    item = {**doc["structures"][0], "number": number, "resource": "star_gate", "owner": 1, "technology": None}
    if where == "off_map":
        item["x"], item["y"] = 999, 999
        message = "off the map"
    else:
        row = doc["map"][0]
        x = next(i for i, ch in enumerate(row) if ch == ".")
        doc["map"][0] = row[:x] + "@" + row[x + 1:]
        item["x"], item["y"] = x, 0
        message = "003 Creating a Map: Black Hole"
    doc["structures"].append(item)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    before = Campaign.objects.count()
    with pytest.raises(CommandError, match=message):
        call_command("importcampaign", str(bad))
    assert Campaign.objects.count() == before
