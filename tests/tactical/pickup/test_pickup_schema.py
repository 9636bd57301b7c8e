"""GET /api/pickup/ answers as its schema says. The schemathesis probe of the site's own OpenAPI
schema found the schema promising a list of pickup battles where the answer is an object: the
rule books one may start a battle under and the caller's battles."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def test_the_pickup_list_answer_is_the_object_its_schema_describes(bob):
    client = APIClient()
    client.force_login(bob)
    created = client.post("/api/pickup/", {"ruleset": "buoyz", "points": 40, "opponent": "computer"}, format="json")
    assert created.status_code == 201, created.content
    answer = client.get("/api/pickup/").json()
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    declared = _resolve(schema, schema["paths"]["/api/pickup/"]["get"]["responses"]["200"]["content"]
                        ["application/json"]["schema"])
    assert declared.get("type", "object") == "object" and isinstance(answer, dict)
    assert set(declared["required"]) <= set(answer) <= set(declared["properties"])
    for key, rows in answer.items():
        prop = declared["properties"][key]
        assert prop["type"] == "array" and isinstance(rows, list) and rows
        item = _resolve(schema, prop["items"])
        for row in rows:
            assert set(item.get("required", [])) <= set(row) <= set(item["properties"]), (key, row)
