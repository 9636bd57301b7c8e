"""An outsider's 404 on a CAM scenario's online-battle endpoints has the body the schema describes:
the schemathesis probe of /api/schema/ found the schema requiring a "reason" the 404 does not carry."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def _schema(client) -> dict:
    return client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()


def test_an_outsiders_404_on_a_cam_scenario_is_the_body_its_schema_describes(cam_campaign, mallory):
    client = APIClient()
    client.force_login(mallory)
    url = f"/api/cam/campaigns/{cam_campaign.pk}/scenarios/1/battle/"
    answer = client.get(url)
    assert answer.status_code == 404 and "detail" in answer.json()
    schema = _schema(client)
    node = schema["paths"]["/api/cam/campaigns/{campaign_id}/scenarios/{number}/battle/"]["get"]["responses"]["404"]
    node = node["content"]["application/json"]["schema"]
    node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]] if "$ref" in node else node
    assert set(node.get("required", [])) <= set(answer.json())
