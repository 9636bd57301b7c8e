"""The pickup battles' refusals are the answers their OpenAPI schema declares: the hostile probe of
/api/schema/ found their 400, 403, 409, 410 and 429 (``{"detail", "problems"}``) declared nowhere.
Each answer is checked against the schema's response for its status (tests/openapi_check.py)."""

from __future__ import annotations

import pytest

from tactical.hosts.pickup import actions
from tests.openapi_check import check, path_of

from .test_pickup_wait import BZ, EH, api, fleet, started, three_sided, two_sided

pytestmark = pytest.mark.django_db


def sent(user, method: str, url: str, status: int, body=None):
    response = getattr(api(user), method)(url, body or {}, format="json")
    assert response.status_code == status, response.content
    check(response, method, path_of(url))


def test_every_refusal_of_a_pickup_battle_is_declared(bob, carol, mallory, settings):
    sent(bob, "post", "/api/pickup/", 400, {"ruleset": EH, "points": "many", "opponent": "computer"})
    sent(bob, "post", "/api/pickup/", 400, {"ruleset": "nonesuch", "points": 40, "opponent": "computer"})
    pickup = two_sided(bob, carol)
    base = f"/api/pickup/{pickup.pk}/"
    sent(carol, "post", base + "cancel/", 403)
    sent(carol, "post", base + "seats/2/computer/", 403)
    sent(bob, "post", base + "seats/1/computer/", 400)
    sent(carol, "post", base + "fleet/", 400, {"ships": ["nonesuch"]})
    sent(carol, "post", base + "fleet/", 200, {"ships": fleet(carol, EH)})
    sent(carol, "post", base + "fleet/", 409, {"ships": fleet(carol, EH)})  # once only
    sent(bob, "post", base + "seats/2/computer/", 409)
    sent(bob, "post", base + "invite/", 409, {"email": "dave@example.com"})  # seat 2 is taken
    sent(mallory, "post", "/api/pickup/accept/", 409, {"token": pickup.invite_token})  # full
    sent(mallory, "post", "/api/pickup/accept/", 404, {"token": "nonesuch"})
    sent(bob, "post", base + "cancel/", 200)
    sent(bob, "post", base + "cancel/", 409)
    sent(mallory, "post", "/api/pickup/accept/", 410, {"token": pickup.invite_token})  # called off
    waiting = three_sided(bob, carol)
    sent(bob, "post", f"/api/pickup/{waiting.pk}/leave/", 409)  # the creator cancels instead
    sent(carol, "post", f"/api/pickup/{waiting.pk}/leave/", 204)
    fought = started(bob, mallory)
    sent(bob, "post", f"/api/pickup/{fought.pk}/cancel/", 409)
    settings.PICKUP_CREATE_LIMIT = 3  # three made this hour already
    sent(bob, "post", "/api/pickup/", 429, {"ruleset": BZ, "points": 40, "opponent": "link"})
    assert actions.TooMany.status == 429


def test_a_refused_design_is_declared(bob):
    sent(bob, "get", "/api/pickup/designs/nonesuch/", 404)
    sent(bob, "post", "/api/pickup/designs/printplay/", 400, {"name": ""})
    sent(bob, "delete", "/api/pickup/designs/printplay/987654/", 404)
