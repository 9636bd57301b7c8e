"""POST /api/campaigns/{id}/orders/text/ answers as its OpenAPI schema declares, for every status it
gives: the schemathesis probe of /api/schema/ found its 400 body ({"text": why}, or the input layer's
{"detail": why}) apart from the declared ``TextOrdersResult``, and its 403 and 404 not declared.
Each answer is checked against the schema's response for its status (tests/openapi_check.py)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from campaign.eventhorizon import actions as eh_actions
from campaign.models import Empire
from tests.openapi_check import check

pytestmark = pytest.mark.django_db

PATH = "/api/campaigns/{campaign_id}/orders/text/"


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def sent(response, method: str, status: int, path: str = PATH) -> dict:
    assert response.status_code == status, response.content
    check(response, method, path)
    return response.json()


def test_every_answer_of_orders_as_text_is_one_its_schema_declares(small_campaign, alice, bob, mallory):
    c = small_campaign
    url = f"/api/campaigns/{c.pk}/orders/text/"
    seat = Empire.objects.get(campaign=c, user=bob)
    secret = eh_actions.rotate_order_secret(empire_id=seat.pk, user=bob)
    header = f"#SECTOR {c.pk} {seat.seat} {secret} TURN {c.turn}"
    bob_api = api(bob)
    # 400: the checker's answer, every line with its rule
    assert sent(bob_api.post(url, f"{header}\nFLY away\n#END\n", content_type="text/plain"), "post",
                400)["reason"] == "lines"
    assert sent(bob_api.post(url, "no header at all", content_type="text/plain"), "post", 400)["accepted"] is False
    # 400 before the text is read as orders: not text, or a header naming another seat
    assert "text" in sent(bob_api.post(url, {"text": 5}, format="json"), "post", 400)
    other = f"#SECTOR {c.pk} 2 {secret} TURN {c.turn}\nREADY\n#END\n"
    assert "text" in sent(bob_api.post(url, other, content_type="text/plain"), "post", 400)
    # 400 from the input layer, as on every endpoint: text no request may hold
    assert "NUL" in sent(bob_api.post(url, {"text": "a\x00b"}, format="json"), "post", 400)["detail"]
    # 409: the header names a turn that is not open
    assert sent(bob_api.post(url, f"{header[:-1]}7\nREADY\n#END\n", content_type="text/plain"), "post",
                409)["reason"] == "turn"
    # 200: accepted
    assert sent(bob_api.post(url, f"{header}\nREADY\n#END\n", content_type="text/plain"), "post", 200)["accepted"]
    sent(bob_api.get(url), "get", 200)
    # 403: the moderator has no seat to write orders for; 404: an outsider
    for method in ("get", "post"):
        sent(getattr(api(alice), method)(url, {"text": header}, format="json"), method, 403)
        sent(getattr(api(mallory), method)(url, {"text": header}, format="json"), method, 404)


def test_the_order_secrets_answers_are_declared(small_campaign, alice, bob):
    url = f"/api/campaigns/{small_campaign.pk}/order-secret/"
    path = "/api/campaigns/{campaign_id}/order-secret/"
    for method in ("get", "post"):
        sent(getattr(api(bob), method)(url), method, 200, path)
        sent(getattr(api(alice), method)(url), method, 403, path)  # the moderator has no seat
