"""Issue 13, "Confusing today": what players and moderators trip over (items 13, 14, 15, 17, 18,
21, 22). Each test names its item."""

import json
import re

import pytest
from rest_framework.test import APIClient

from campaign.models import Structure

pytestmark = pytest.mark.django_db


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def page_data(response) -> dict:
    found = re.search(r'<script id="order-data" type="application/json">(.*?)</script>', response.content.decode(), re.S)
    assert found
    return json.loads(found.group(1))


# --- item 14: order forms offer only what can be ordered; the preview lists every problem -------

def test_item14_preview_api_lists_every_problem(small_campaign, bob):  # 003 Use of BP in a Campaign
    bad = {"purchases": [{"build": "No Such Design", "dockyard": 1}, {"buy": "aewa", "at": [0, 0]}],
           "moves": [{"fleet": 999, "path": [[0, 0]]}]}
    response = api(bob).post(f"/api/campaigns/{small_campaign.pk}/orders/preview/", {"orders": bad}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert [p["where"] for p in body["problems"]] == ["purchases[0]", "purchases[1]", "moves[0].fleet"]
    assert all(p["rule"] and p["message"] for p in body["problems"])
    assert "No Such Design" in body["orders"] and "fleet 999" in body["orders"]
    assert "resources" in body["options"]


def test_item14_put_orders_refuses_with_every_problem_and_stores_nothing(small_campaign, bob):
    bad = {"moves": [{"fleet": 998, "path": [[0, 0]]}, {"fleet": 999, "path": [[0, 0]]}]}
    response = api(bob).put(f"/api/campaigns/{small_campaign.pk}/orders/", {"orders": bad}, format="json")
    assert response.status_code == 400
    assert len(response.json()["problems"]) == 2
    assert not small_campaign.turns.get(number=small_campaign.turn).orders.exists()


def test_item14_the_plain_form_shows_every_problem(small_campaign, client, bob):
    client.force_login(bob)
    text = json.dumps({"moves": [{"fleet": 998, "path": [[0, 0]]}, {"fleet": 999, "path": [[0, 0]]}]})
    response = client.post(f"/campaigns/{small_campaign.pk}/orders/", {"orders": text})
    errors = response.context["form"].errors["orders"]
    assert len(errors) == 2 and "fleet 998" in errors[0] and "fleet 999" in errors[1]


def test_item14_the_order_page_says_what_cannot_be_bought_and_why(small_campaign, client, bob):
    client.force_login(bob)
    data = page_data(client.get(f"/campaigns/{small_campaign.pk}/orders/"))
    resources = data["options"]["resources"]
    assert resources["aewa"]["ok"] is False and resources["aewa"]["reason"] == "requires planetary defences"
    assert resources["planetary_defences"]["ok"] is True
    home = next(w for w in data["worlds"] if w["home"])
    assert resources["planetary_defences"]["worlds"][f"{home['x']},{home['y']}"] == ""
    assert set(data["options"]["dockyards"]) == {str(d["id"]) for d in data["dockyards"]}
    # With defences listed first, the same world cannot take a second resource this turn.
    preview = api(bob).post(f"/api/campaigns/{small_campaign.pk}/orders/preview/",
                            {"orders": {"purchases": [{"buy": "planetary_defences", "at": [home["x"], home["y"]]}]}},
                            format="json").json()
    assert preview["options"]["resources"]["aewa"]["reason"].startswith("only one resource")


def test_item14_a_busy_dockyard_is_not_offered(small_campaign, client, bob):  # 003 Star Ship Build Times
    from campaign import actions

    dockyard = Structure.objects.get(campaign=small_campaign, owner__seat=1, resource="dockyard")
    data = page_data((client.force_login(bob), client.get(f"/campaigns/{small_campaign.pk}/orders/"))[1])
    design = max(data["designs"], key=lambda d: d["build_time"])
    assert design["build_time"] > 1  # the ship stays on the stocks into the next turn
    assert data["options"]["dockyards"][str(dockyard.number)] == ""
    actions.submit_orders(empire_id=small_campaign.empires.get(seat=1).pk,
                          raw={"purchases": [{"build": design["name"], "dockyard": dockyard.number}]})
    small_campaign.empires.filter(seat=2).update(is_bot=True)
    actions.process_turn(campaign_id=small_campaign.pk)
    data = page_data(client.get(f"/campaigns/{small_campaign.pk}/orders/"))
    assert "still building" in data["options"]["dockyards"][str(dockyard.number)]
