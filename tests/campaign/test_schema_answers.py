"""Answers as the OpenAPI schema describes them, where the schemathesis probe of /api/schema/
found them apart (ST108): a running campaign's ``seed`` is null, and GET /api/cam/campaigns/
answers a list."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def _schema(client) -> dict:
    return client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()


def _ok(schema: dict, path: str) -> dict:
    node = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def test_a_running_campaigns_seed_is_declared_nullable(small_campaign, alice):
    client = APIClient()
    client.force_login(alice)
    answer = client.get(f"/api/campaigns/{small_campaign.pk}/").json()
    assert answer["seed"] is None
    assert _ok(_schema(client), "/api/campaigns/{campaign_id}/")["properties"]["seed"].get("nullable") is True


def test_the_cam_campaign_list_is_declared_a_list(alice):
    client = APIClient()
    client.force_login(alice)
    assert client.get("/api/cam/campaigns/").json() == []
    assert _ok(_schema(client), "/api/cam/campaigns/")["type"] == "array"
