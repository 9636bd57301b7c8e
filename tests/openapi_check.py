"""Check a real API answer against what the site's own OpenAPI schema (drf-spectacular, /api/schema/)
declares for its operation and status, as the schemathesis probe of /api/schema/ did (its
"undocumented status code" and "response schema conformance" checks, ST108): the status must be
declared, and the body must validate against that status's declared schema.

The schema is OpenAPI 3.0; ``jsonschema`` reads JSON Schema, so ``nullable`` is turned into a
``null`` alternative and the components are carried along so that ``$ref`` resolves.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

import jsonschema


@lru_cache(maxsize=1)
def _schema_text() -> str:
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    return OpenApiJsonRenderer().render(SchemaGenerator().get_schema(request=None, public=True)).decode()


def openapi() -> dict:
    """The site's schema as /api/schema/ serves it (generated once per test run: it depends on the
    code only)."""
    return json.loads(_schema_text())


def path_of(url: str) -> str:
    """The schema's path template that ``url`` (a concrete path, no query) falls under: of those
    it matches, the one with the fewest parameters (/api/lobby/join/ before
    /api/lobby/{campaign_id}/, …/press/options/ before …/press/{conversation_id}/)."""
    url = url.split("?", 1)[0]
    matching = [path for path in openapi()["paths"]
                if re.fullmatch(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(path)), url)]
    assert matching, f"{url} is no path of the schema"
    return min(matching, key=lambda path: path.count("{"))


def _json_schema(node):
    """OpenAPI 3.0's dialect → JSON Schema: ``nullable: true`` becomes an alternative of null."""
    if isinstance(node, list):
        return [_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: _json_schema(v) for k, v in node.items()}
    if node.pop("nullable", False):
        if isinstance(node.get("type"), str) and not any(k in node for k in ("$ref", "allOf", "oneOf", "anyOf")):
            node["type"] = [node["type"], "null"]
            if "enum" in node:
                node["enum"] = [*node["enum"], None]
        else:
            node = {"anyOf": [node, {"type": "null"}]}
    return node


def declared(method: str, path: str, status: int) -> dict | None:
    """The declared response of ``method path`` (the schema's path template) for ``status``;
    fails if the status is not declared."""
    schema = openapi()
    operation = schema["paths"][path][method.lower()]
    responses = operation["responses"]
    assert str(status) in responses or "default" in responses, (
        f"{method.upper()} {path} answered {status}, which its schema does not declare "
        f"(declared: {sorted(responses)})")
    return responses.get(str(status), responses.get("default"))


def check(response, method: str, path: str) -> None:
    """Fail unless ``response`` (a test client's) is an answer the schema declares for ``method
    path``: its status declared, its JSON body valid against that status's schema."""
    response_spec = declared(method, path, response.status_code)
    content = response_spec.get("content")
    body = response.content
    if not content:
        assert not body, f"{method.upper()} {path} {response.status_code}: declared without a body, sent {body[:200]!r}"
        return
    media = response["Content-Type"].split(";")[0].strip()
    assert media in content, f"{method.upper()} {path} {response.status_code}: sent {media}, declared {sorted(content)}"
    if media != "application/json":
        return
    problem = mismatch(method, path, response.status_code, json.loads(body))
    assert problem is None, f"{problem}; body {body[:400]!r}"


def mismatch(method: str, path: str, status: int, body) -> str | None:
    """Why the JSON value ``body`` does not match the schema ``method path`` declares for
    ``status`` (its application/json body), or None when it does; fails if the status is not declared."""
    content = declared(method, path, status).get("content") or {}
    assert "application/json" in content, f"{method.upper()} {path} {status}: no JSON body declared"
    node = dict(_json_schema(content["application/json"]["schema"]))
    node["components"] = _json_schema(openapi()["components"])
    try:
        jsonschema.Draft202012Validator(node).validate(body)
    except jsonschema.ValidationError as exc:
        return (f"{method.upper()} {path} {status}: the body does not match its declared schema: "
                f"{exc.message} at {list(exc.absolute_path)} (schema {list(exc.absolute_schema_path)})")
    return None


def api(user):
    """An API client logged in as ``user`` (the schema tests' caller)."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user)
    return client


def sent(response, method: str, url: str, status: int):
    """``response``'s body after checking its status is ``status`` and that the schema declares
    it for ``method url`` (a concrete path or the schema's own template)."""
    assert response.status_code == status, response.content
    check(response, method, path_of(url))
    return response.json() if response.content else None
