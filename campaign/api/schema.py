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
- ``declare_refusals``, a post-processing hook after it: the refusals that come before any view
  runs, declared on every operation they can reach (an operation's own declaration of the status
  is kept, and widened when it would not take the answer's body):

  * 400 on every operation: the input filter (campaign/sanitise.py, a middleware before the
    authentication) refuses a NUL, a lone surrogate, JSON nested too deep or a number beyond the
    database's range in the query string or the body of any request, ``{"detail": "Refused: …"}``;
    a body that is not JSON is ``{"detail": "JSON parse error - …"}``; an operation's own checks
    name the field, ``{"field": "…"}`` or ``{"field": ["…"]}`` (``BadInput``);
  * 401 on every operation that takes a token: a token refused (unknown, revoked, expired, its
    user inactive), ``{"detail": "…"}`` with ``WWW-Authenticate: Token``
    (campaign/api/authentication.py);
  * 403 on every operation that needs a login: a caller with no credentials at all gets
    ``{"detail": "Authentication credentials were not provided."}`` (the session convention,
    not 401), and a session without its CSRF token, or a caller whose role does not allow the
    action, a 403 ``{"detail": "…"}`` too;
  * 415 on every operation that takes a body (a ``requestBody``): a body in a Content-Type that
    none of its parsers reads (DRF's ``UnsupportedMediaType``, raised when the view reads
    ``request.data``), ``{"detail": "Unsupported media type \"text/plain\" in request."}``; the
    Content-Types it reads are its ``requestBody``'s. An operation that takes no body never reads
    one, so never answers 415.

  405 is not declared: it answers a method the address does not serve (``{"detail": "Method
  \"PUT\" not allowed."}``, with ``Allow`` naming the methods it does), that is a method that is
  no operation of the schema, and OpenAPI declares answers per operation only. No view answers
  405 to a method it serves; the schema's methods are exactly each address's ``Allow``
  (tests/campaign/test_schema_refusals.py), which is what a client or a probe reads of it.
"""

from __future__ import annotations

import jsonschema
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


def _detail_answer(description: str) -> dict:
    """An answer's body that is ``{"detail": "…"}`` and nothing else of note."""
    return {"type": "object", "description": description, "properties": {"detail": {"type": "string"}},
            "required": ["detail"]}


INPUT_REFUSED = _detail_answer(
    "Input refused before any view read it (campaign/sanitise.py): a NUL or a lone surrogate in "
    "text, JSON nested more than 64 levels, NaN or a number outside the database's integer range, a "
    "body over the size limit, in the query string or the body, or a body that is not JSON. "
    "\"detail\" names where and what."
)

BAD_INPUT = {
    "type": "object",
    "description": "Bad input. Refused before any view read it (campaign/sanitise.py: a NUL or a lone surrogate in "
                   "text, JSON nested more than 64 levels, NaN or a number outside the database's integer range, a "
                   "body over the size limit, in the query string or the body; or a body that is not JSON): "
                   "{\"detail\": \"Refused: <where>: <why>.\"}. Refused by the operation's own checks: each field "
                   "refused → why, {\"field\": \"…\"} or {\"field\": [\"…\"]} (\"detail\" when it is no one field).",
    "properties": {"detail": {"type": "string"}},
    "additionalProperties": {},
    "minProperties": 1,
}

NOT_AUTHENTICATED = _detail_answer(
    "The token sent is refused: unknown, revoked, unused for API_TOKEN_IDLE_DAYS, or its user is "
    "inactive. The answer carries \"WWW-Authenticate: Token\"."
)

FORBIDDEN = _detail_answer(
    "Not for you: no credentials at all (\"Authentication credentials were not provided.\"), a "
    "session without its CSRF token, or a role that may not do this. \"detail\" says which."
)

UNSUPPORTED_MEDIA_TYPE = _detail_answer(
    "The body came in a Content-Type this operation does not read (it reads those its request "
    "body lists). \"detail\" names the type sent."
)

TOKEN_SCHEME = "tokenAuth"  # drf-spectacular's name for LeanTokenAuthentication (a TokenAuthentication)
_REFUSAL_BODY = {"detail": "Refused: body: contains a NUL character (\\u0000), which text may not hold."}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _admits(schema: dict, components: dict, body) -> bool:
    """Whether ``body`` is valid against ``schema`` (an OpenAPI schema object; ``$ref`` into
    ``components``). The bodies tried are plain ``{"detail": "…"}``: OpenAPI 3.0's ``nullable``,
    which JSON Schema does not read, cannot change the verdict."""
    return jsonschema.Draft202012Validator({"allOf": [schema], "components": components}).is_valid(body)


def _media_types(responses: dict) -> list[str]:
    """The media types a refusal may come in: JSON (the input filter's, and most views'), and
    those the operation's answers come in, as DRF renders a refusal with the renderer the request
    negotiated (``/api/schema/``: YAML unless JSON is asked for)."""
    found = ["application/json"]
    for status, response in responses.items():
        if status.startswith("2"):
            found += [media for media in (response.get("content") or {}) if media not in found]
    return found


def _declare(responses: dict, status: str, description: str, component: str, components: dict,
             media_types: list[str], **extra) -> None:
    """Declare ``status`` as a ``{"detail": "…"}`` answer (the schema ``component``) in each of
    ``media_types``, or, when the operation declares the status already with a body that would not
    take ``{"detail": "…"}``, widen that body to either."""
    declared = responses.setdefault(status, {"description": description})
    content = declared.setdefault("content", {})
    for media_type in media_types:
        media = content.setdefault(media_type, {})
        schema = media.get("schema")
        if schema is None:
            media["schema"] = _ref(component)
        elif not _admits(schema, components, _REFUSAL_BODY):
            media["schema"] = {"anyOf": [schema, _ref(component)]}
            declared["description"] = declared.get("description") or description
    for key, value in extra.items():
        declared.setdefault(key, value)


def _status_order(status: str) -> tuple[int, str]:
    return (1, status) if not status.isdigit() else (0, status)


def declare_refusals(result, generator, request, public):
    components = result.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas.update(BadInput=BAD_INPUT, InputRefused=INPUT_REFUSED, NotAuthenticated=NOT_AUTHENTICATED,
                   Forbidden=FORBIDDEN, UnsupportedMediaType=UNSUPPORTED_MEDIA_TYPE)
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            security = operation.get("security") or []
            media_types = _media_types(responses)
            # An operation's own 400 names what its checks refuse: the input filter's answer is
            # added where it would not fit; elsewhere BadInput holds both.
            _declare(responses, "400", "Bad input: refused by the input filter or the operation's checks.",
                     "InputRefused" if "400" in responses else "BadInput", components, media_types)
            if any(TOKEN_SCHEME in scheme for scheme in security):
                _declare(responses, "401", "A token was sent and refused.", "NotAuthenticated", components,
                         media_types,
                         headers={"WWW-Authenticate": {"schema": {"type": "string"},
                                                       "description": "Token: the scheme to authenticate with."}})
            if security and {} not in security:
                _declare(responses, "403", "No credentials, or not for your role.", "Forbidden", components,
                         media_types)
            if "requestBody" in operation:
                _declare(responses, "415", "The body's Content-Type is none this operation reads.",
                         "UnsupportedMediaType", components, media_types)
            operation["responses"] = dict(sorted(responses.items(), key=lambda item: _status_order(item[0])))
    return result
