"""The API token endpoints answer as their OpenAPI schema declares (the hostile probe's 400 and 429
of POST /api/token/, the 404 of revoking a token one does not have, were not declared). Each answer
is checked against the schema's response for its status (tests/openapi_check.py)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from campaign import accounts
from tests.campaign.test_accounts import clock  # noqa: F401 - the throttle's clock
from tests.openapi_check import check

pytestmark = pytest.mark.django_db


def sent(response, method: str, path: str, status: int):
    assert response.status_code == status, response.content
    check(response, method, path)


def test_the_token_endpoints_answers_are_declared(bob, clock):  # noqa: F811
    api = APIClient()
    sent(api.post("/api/token/", {"username": "bob"}, format="json"), "post", "/api/token/", 400)
    for _ in range(accounts.LOGIN_FAILURE_LIMIT):
        sent(api.post("/api/token/", {"username": "bob", "password": "wrong"}, format="json"), "post",
             "/api/token/", 400)
    sent(api.post("/api/token/", {"username": "bob", "password": "pw-bob"}, format="json"), "post", "/api/token/",
         429)
    mine = APIClient()
    mine.force_authenticate(bob)
    sent(mine.delete("/api/account/token/"), "delete", "/api/account/token/", 404)  # he has none
    sent(mine.post("/api/account/tokens/", {"name": ["x"]}, format="json"), "post", "/api/account/tokens/", 400)
    sent(mine.post("/api/account/tokens/", {"name": "laptop"}, format="json"), "post", "/api/account/tokens/", 201)
    sent(mine.get("/api/account/tokens/"), "get", "/api/account/tokens/", 200)
    sent(mine.delete("/api/account/token/"), "delete", "/api/account/token/", 204)
