"""What the OpenAPI schema (drf-spectacular, /api/schema/) says of the API's refusals, so that it
declares the answers the endpoints really give (the schemathesis probe of /api/schema/ found 404s
and 409s it did not declare).

- ``Refusal``: the body of a refusal that names only what is wrong, ``{"detail": "…"}``, for the
  endpoints to name in ``extend_schema(responses={403: Refusal, 409: Refusal, …})``.
- ``VALIDATION_ERRORS``: the body of a 400 from a serializer's ``is_valid(raise_exception=True)``,
  ``{"field": ["…"]}``.
- ``FIELD_REFUSAL``: the body of a 400 that names the field it refuses, ``{"turn": "…"}`` (or
  ``{"detail": "…"}`` when it is no one field), as DRF's ``ValidationError({field: why})`` sends it.
- ``declare_not_found``, a post-processing hook (``SPECTACULAR_SETTINGS``): every operation on an
  object, an address with a path parameter, answers 404 ``{"detail": "…"}`` when there is no such
  object for the caller — it does not exist, or the caller does not take part in its campaign (the
  README: "Every object answers 404 to non-participants"). An operation that declares its own 404
  keeps it.
"""

from __future__ import annotations

from rest_framework import serializers


class RefusalSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What is wrong, in words.")

    class Meta:
        ref_name = "Refusal"


FIELD_REFUSAL = {
    "type": "object",
    "description": "The field refused → why (\"detail\" when it is not one field).",
    "additionalProperties": {"type": "string"},
    "minProperties": 1,
}

VALIDATION_ERRORS = {
    "type": "object",
    "description": "Bad input, as DRF's serializers refuse it: each field → its problems (\"detail\": one "
                   "that is no field's).",
    "additionalProperties": {},
    "minProperties": 1,
}

NOT_FOUND = {
    "type": "object",
    "description": "No such object for you: it does not exist, or you do not take part in its campaign.",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}


def declare_not_found(result, generator, request, public):
    result.setdefault("components", {}).setdefault("schemas", {})["NotFound"] = NOT_FOUND
    for path, operations in result.get("paths", {}).items():
        if "{" not in path:
            continue
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            operation["responses"].setdefault("404", {
                "description": "No such object for you.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NotFound"}}},
            })
    return result
