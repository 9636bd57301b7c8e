"""Issue 13 item 12: the OpenAPI schema documents the real body of ``PUT campaigns/{id}/orders/``
(docs/orders.md, with an example) instead of ``{"additionalProp1": "string"}``, and the
battle-preference endpoint docs/battles.md promises exists (thin over
``tactical.battles.actions.set_battle_preference``; ruling C17): your own empire only, an outsider or a
moderator without an empire gets 404, bad input is a 400 naming it and changes nothing.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    c = APIClient()
    if user is not None:
        c.force_authenticate(user)
    return c


@pytest.fixture
def schema(alice):
    response = client_for(alice).get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return response.json()


def _resolve(schema, node):
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def test_orders_put_body_is_documented(schema):
    put = schema["paths"]["/api/campaigns/{campaign_id}/orders/"]["put"]
    body = put["requestBody"]["content"]["application/json"]
    top = _resolve(schema, body["schema"])
    assert top.get("type") == "object" and "additionalProperties" not in top
    assert set(top["properties"]) == {"orders", "ready"} and top["required"] == ["orders"]
    orders = _resolve(schema, top["properties"]["orders"])
    assert set(orders["properties"]) == {"purchases", "split", "merge", "moves", "standing"}
    move = _resolve(schema, orders["properties"]["moves"]["items"])
    assert set(move["properties"]) == {"fleet", "path"}
    standing = _resolve(schema, orders["properties"]["standing"])
    assert set(_resolve(schema, standing["properties"]["loss_order"])["enum"]) == {"cheapest", "costliest"}
    split = _resolve(schema, orders["properties"]["split"]["items"])
    assert "as" in split["properties"]
    example = next(iter(body["examples"].values()))["value"]
    assert example["orders"]["moves"][0] == {"fleet": 3, "path": [[4, 4], [5, 4], [6, 5]]}
    assert set(put["responses"]) >= {"200", "400", "404", "409"}
    ok = _resolve(schema, put["responses"]["200"]["content"]["application/json"]["schema"])
    # setup: the set-up round (003 Set Up); warnings: docs/rulings.md W1 (issue 13 items 1 and 16)
    assert set(ok["properties"]) == {"turn", "setup", "revision", "ready", "preview", "warnings", "bp_left"}


def test_only_the_orders_endpoints_are_documented_as_orders(schema):
    """The orders body is documented where orders are taken, and nowhere else (the notification
    preferences' PUT once carried it by a copy of the decorator)."""
    carrying = sorted(
        f"{method.upper()} {path}" for path, ops in schema["paths"].items() for method, op in ops.items()
        if "docs/orders.md" in op.get("description", ""))
    assert all("/orders/" in where for where in carrying), carrying
    put = schema["paths"]["/api/campaigns/{campaign_id}/notifications/"]["put"]
    assert "notify_turn" in put["description"]


def test_the_documented_shapes_are_accepted(schema, small_campaign, bob):
    """The schema's shapes are the engine's: the example's standing orders are taken as they are."""
    example = next(iter(schema["paths"]["/api/campaigns/{campaign_id}/orders/"]["put"]["requestBody"]
                        ["content"]["application/json"]["examples"].values()))["value"]
    standing = example["orders"]["standing"]
    standing = {**standing, "invasion": [o for o in standing["invasion"] if "fleet" not in o and "hex" not in o]}
    r = client_for(bob).put(f"/api/campaigns/{small_campaign.pk}/orders/",
                            {"orders": {"standing": standing}, "ready": True}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["ready"] is True


def test_battle_preference_endpoint_is_in_the_schema(schema):
    path = schema["paths"]["/api/campaigns/{campaign_id}/battle-preference/"]
    assert set(path) >= {"get", "put"}
    body = _resolve(schema, path["put"]["requestBody"]["content"]["application/json"]["schema"])
    prop = body["properties"]["preference"]
    enums = set().union(*(_resolve(schema, option).get("enum", []) for option in prop.get("oneOf", [prop])))
    assert enums >= {"", "auto", "tactical", "tabletop"}


def url(campaign) -> str:
    return f"/api/campaigns/{campaign.pk}/battle-preference/"


def test_battle_preference_get_and_put(small_campaign, bob):
    r = client_for(bob).get(url(small_campaign))
    assert r.status_code == 200
    assert r.json()["preference"] == "" and r.json()["battle_requests"] == small_campaign.battle_requests
    r = client_for(bob).put(url(small_campaign), {"preference": "tactical"}, format="json")
    assert r.status_code == 200 and r.json()["preference"] == "tactical"
    assert small_campaign.empires.get(seat=1).battle_preference == "tactical"


def test_battle_preference_sets_only_your_own(small_campaign, bob, carol):
    client_for(bob).put(url(small_campaign), {"preference": "tabletop"}, format="json")
    # carol sets hers; there is no way to name bob's empire, and bob's stays as he set it.
    r = client_for(carol).put(url(small_campaign), {"preference": "auto", "seat": 1, "empire": 1}, format="json")
    assert r.status_code == 200
    assert small_campaign.empires.get(seat=1).battle_preference == "tabletop"
    assert small_campaign.empires.get(seat=2).battle_preference == "auto"


def test_battle_preference_outsiders_get_404(small_campaign, alice, mallory):
    for user in (mallory, alice):  # alice moderates but has no empire
        assert client_for(user).get(url(small_campaign)).status_code == 404
        assert client_for(user).put(url(small_campaign), {"preference": "auto"}, format="json").status_code == 404
    r = client_for(None).put(url(small_campaign), {"preference": "auto"}, format="json")
    assert r.status_code in (401, 403)
    assert set(small_campaign.empires.values_list("battle_preference", flat=True)) == {""}


@pytest.mark.parametrize("body,message", [
    ({"preference": "chess"}, "battle preference must be one of"),
    ({"preference": 3}, "'preference' must be text"),
    ({}, 'send {"preference"'),
])
def test_battle_preference_bad_input_changes_nothing(small_campaign, bob, body, message):
    r = client_for(bob).put(url(small_campaign), body, format="json")
    assert r.status_code == 400 and message in r.json()["detail"]
    assert small_campaign.empires.get(seat=1).battle_preference == ""


def test_battle_preference_refused_when_nobody_may_ask(small_campaign, bob):  # ruling C17
    small_campaign.battle_requests = "nobody"
    small_campaign.save(update_fields=["battle_requests"])
    r = client_for(bob).put(url(small_campaign), {"preference": "tabletop"}, format="json")
    assert r.status_code == 400 and "does not let players ask" in r.json()["detail"]
    assert small_campaign.empires.get(seat=1).battle_preference == ""
