"""The refusals that come before a view, declared where the API sends them (campaign/api/schema.py,
``declare_refusals``): 400 from the input filter (campaign/sanitise.py) or an operation's own checks,
401 for a refused token, 403 for a caller with no credentials or the wrong role. Real answers are
checked against the schema's response for their status (tests/openapi_check.py); the hostile bodies
of every endpoint that takes one are checked in tests/campaign/test_hostile_input.py."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.openapi_check import api, check, mismatch, openapi, path_of

pytestmark = pytest.mark.django_db

NOBODYS = {"ruleset": "nonesuch", "book": "nonesuch"}  # parameters that name a thing rather than number it
DEEP = "[" * 100 + "]" * 100
HOSTILE = {  # body as sent → what the refusal names
    json.dumps({"note": "x\x00y"}): "NUL character",
    json.dumps({"note": "x\ud800y"}): "lone surrogate",
    json.dumps({"n": 10**30}): "outside",
    DEEP: "nested more than 64 levels deep",
}
NOT_JSON = '{"note": '


def _operations(keep):
    for path, operations in openapi()["paths"].items():
        for method, operation in operations.items():
            if keep(operation.get("security") or []):
                yield method, path


def _needs_login(security) -> bool:
    return bool(security) and {} not in security


def _takes_a_token(security) -> bool:
    return any("tokenAuth" in scheme for scheme in security)


def _url(path: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: NOBODYS.get(m.group(1), "987654"), path)


def _call(client, method, url, body=None, **extra):
    if method == "get":
        return client.get(url, **extra)
    return getattr(client, method)(url, body if body is not None else "{}", content_type="application/json", **extra)


# --- the schema: every operation declares them -----------------------------------------------------


def test_every_operation_declares_the_refusals_that_come_before_its_view():
    """400 everywhere (the input filter reads every query string and body), 401 wherever a token
    is read, 403 wherever a login is needed; each with a body that takes the ``{"detail": "…"}``
    those refusals send."""
    missing, unfit = [], []
    for path, operations in openapi()["paths"].items():
        for method, operation in operations.items():
            security = operation.get("security") or []
            wanted = ["400"] + ["401"] * _takes_a_token(security) + ["403"] * _needs_login(security)
            for status in wanted:
                if status not in operation["responses"]:
                    missing.append(f"{method.upper()} {path} {status}")
                elif problem := mismatch(method, path, int(status), {"detail": "Refused: body: contains a NUL."}):
                    unfit.append(problem)
    assert not missing, missing
    assert not unfit, unfit


def test_the_refusals_are_declared_where_they_apply():
    """The operations the API serves without a login or a token declare no 401 or 403 of their own."""
    paths = openapi()["paths"]
    assert "401" not in paths["/api/token/"]["post"]["responses"]  # it reads no token: no authentication
    assert "403" not in paths["/api/token/"]["post"]["responses"]
    assert "403" not in paths["/api/schema/"]["get"]["responses"]  # open to all, but a sent token is read
    assert "401" in paths["/api/schema/"]["get"]["responses"]
    assert paths["/api/away/"]["get"]["responses"]["401"]["headers"]["WWW-Authenticate"]


# --- real answers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path"), sorted(_operations(_needs_login)))
def test_an_anonymous_call_answers_the_403_it_declares(method, path):
    response = _call(APIClient(), method, _url(path))
    assert response.status_code == 403, (method, path, response.status_code, response.content[:300])
    assert response.json() == {"detail": "Authentication credentials were not provided."}
    check(response, method, path)


@pytest.mark.parametrize(("method", "path"), sorted(_operations(_takes_a_token)))
def test_a_refused_token_answers_the_401_it_declares(method, path):
    response = _call(APIClient(), method, _url(path), HTTP_AUTHORIZATION="Token nonesuch")
    assert response.status_code == 401, (method, path, response.status_code, response.content[:300])
    assert response["WWW-Authenticate"] == "Token"
    check(response, method, path)


@pytest.fixture
def tabletop_battle(small_campaign):
    from tactical.models import Battle
    from tests.tactical.battle_support import contact_turn

    contact_turn(small_campaign, "tabletop")
    return Battle.objects.get(campaign=small_campaign)


@pytest.fixture
def sample(small_campaign, tabletop_battle, alice, bob, carol):
    """(who, method, url) of the endpoints the last session found without a 400: away dates,
    press, what-if, tabletop entry, the calendar — and the orders preview, whose own 400 did not
    take the input filter's body."""
    from campaign.groups import away
    from campaign.press import actions as press

    eh = small_campaign.pk
    absence = away.declare_absence(user=bob, starts=timezone.now() + timedelta(days=1),
                                   ends=timezone.now() + timedelta(days=2))
    conversation = press.post(campaign_id=eh, user=bob, to=[2], text="hello").conversation.public_id
    battle = tabletop_battle.pk
    return [
        (bob, "post", "/api/away/"),
        (bob, "post", f"/api/away/{absence.pk}/end/"),
        (alice, "put", f"/api/campaigns/{eh}/away/"),
        (bob, "post", f"/api/campaigns/{eh}/press/"),
        (bob, "post", f"/api/campaigns/{eh}/press/{conversation}/"),
        (alice, "patch", f"/api/campaigns/{eh}/press/options/"),
        (bob, "post", "/api/what-if/"),
        (bob, "post", "/api/what-if/cam/"),
        (bob, "post", "/api/what-if/book/mytrek/"),
        (bob, "post", "/api/what-if/converted/"),
        (bob, "post", f"/api/battles/{battle}/result/"),
        (carol, "post", f"/api/battles/{battle}/dispute/"),
        (alice, "post", f"/api/battles/{battle}/settle/"),
        (alice, "post", f"/api/battles/{battle}/mode/"),
        (bob, "post", "/api/calendar/"),
        (bob, "delete", "/api/calendar/"),
        (bob, "post", f"/api/campaigns/{eh}/orders/preview/"),
    ]


def test_hostile_bodies_answer_the_400_their_operation_declares(sample, settings):
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 0
    for who, method, url in sample:
        for body, named in HOSTILE.items():
            response = _call(api(who), method, url, body)
            assert response.status_code == 400, (method, url, named, response.content[:300])
            assert named in response.json()["detail"], (method, url, response.json())
            check(response, method, path_of(url))


def test_a_hostile_query_string_answers_the_400_its_operation_declares(small_campaign, bob):
    for method, url in (("get", "/api/away/"), ("get", f"/api/campaigns/{small_campaign.pk}/away/"),
                        ("get", f"/api/campaigns/{small_campaign.pk}/press/"), ("get", "/api/what-if/"),
                        ("delete", "/api/calendar/"), ("get", "/api/schema/")):
        response = _call(api(bob), method, f"{url}?note=x%00y")
        assert response.status_code == 400, (method, url, response.content[:300])
        assert "query field 'note'" in response.json()["detail"]
        check(response, method, path_of(url))


def test_the_operations_own_refusals_answer_the_400_they_declare(small_campaign, tabletop_battle, alice, bob,
                                                                 settings):
    """What an operation's own checks refuse (its serializer, its action), with no 400 of its own
    declared before: the field named, or "detail"."""
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 0
    eh, battle = small_campaign.pk, tabletop_battle.pk
    cases = [
        (bob, "post", "/api/away/", {"starts": "soon", "ends": "later"}, "starts"),
        (bob, "post", "/api/away/", {"starts": "2030-01-02T00:00:00Z", "ends": "2030-01-01T00:00:00Z"}, "detail"),
        (alice, "put", f"/api/campaigns/{eh}/away/", {"limit_hours": 5}, "mode"),
        (bob, "post", f"/api/campaigns/{eh}/press/", {"to": "nobody", "text": "hi"}, "detail"),
        (bob, "post", f"/api/campaigns/{eh}/press/", {"to": "all"}, "text"),
        (alice, "patch", f"/api/campaigns/{eh}/press/options/", {"press": "maybe"}, "press"),
        (bob, "post", "/api/what-if/", {"trials": "many"}, "detail"),
        (bob, "post", "/api/what-if/book/mytrek/", {"trials": "many"}, "detail"),
        (bob, "post", f"/api/battles/{battle}/result/", [1, 2], "detail"),
        (alice, "post", f"/api/battles/{battle}/mode/", {"mode": "chess"}, "detail"),
        (bob, "get", f"/api/campaigns/{eh}/map/?turn=x", None, "turn"),
        (bob, "get", f"/api/campaigns/{eh}/reports/1/?seat=x", None, "seat"),
    ]
    # Not JSON: the parser's refusal, when the operation reads its body.
    cases += [(who, method, url, NOT_JSON, "detail") for who, method, url in (
        (bob, "post", "/api/away/"), (alice, "put", f"/api/campaigns/{eh}/away/"),
        (bob, "post", f"/api/campaigns/{eh}/press/"), (bob, "post", "/api/what-if/"),
        (bob, "post", "/api/what-if/cam/"), (bob, "post", f"/api/battles/{battle}/result/"),
        (bob, "post", f"/api/campaigns/{eh}/orders/preview/"))]
    for who, method, url, body, field in cases:
        response = _call(api(who), method, url, body if body is NOT_JSON else json.dumps(body))
        assert response.status_code == 400, (method, url, body, response.content[:300])
        assert field in response.json(), (method, url, response.json())
        check(response, method, path_of(url))


def test_a_wrong_role_answers_the_403_its_operation_declares(small_campaign, tabletop_battle, bob, carol):
    """A player at a moderator's operation: refused by the operation itself, with the body the
    schema now declares for its 403."""
    eh, battle = small_campaign.pk, tabletop_battle.pk
    for who, method, url, body in ((bob, "put", f"/api/campaigns/{eh}/away/", {"mode": "extend"}),
                                   (bob, "patch", f"/api/campaigns/{eh}/press/options/", {"press": False}),
                                   (carol, "post", f"/api/battles/{battle}/settle/", {"auto": True})):
        response = _call(api(who), method, url, json.dumps(body))
        assert response.status_code == 403, (method, url, response.content[:300])
        check(response, method, path_of(url))


# --- 415: a body in a Content-Type the operation does not read; 405: a method the address does not serve ----


def _takes_a_body(method, path) -> bool:
    return "requestBody" in openapi()["paths"][path][method]


def _unread_type(method, path) -> str:
    """A Content-Type the operation's parsers do not read: text/plain, or XML where it reads text."""
    return "application/xml" if "text/plain" in openapi()["paths"][path][method]["requestBody"]["content"] \
        else "text/plain"


BODY_OPERATIONS = sorted((m, p) for p, ops in openapi()["paths"].items() for m in ops if _takes_a_body(m, p))
BODILESS_WRITES = sorted((m, p) for p, ops in openapi()["paths"].items() for m in ops
                         if m in ("post", "put", "patch", "delete") and not _takes_a_body(m, p))


def test_every_operation_that_takes_a_body_declares_the_415_and_no_other_does():
    paths = openapi()["paths"]
    assert BODY_OPERATIONS and BODILESS_WRITES
    missing = [f"{m.upper()} {p}" for m, p in BODY_OPERATIONS if "415" not in paths[p][m]["responses"]]
    assert not missing, missing
    for method, path in BODY_OPERATIONS:
        assert mismatch(method, path, 415, {"detail": 'Unsupported media type "text/plain" in request.'}) is None
    assert not [(m, p) for p, ops in paths.items() for m, op in ops.items() if "415" in op["responses"]
                and not _takes_a_body(m, p)]
    # 405 answers a method that is no operation of the schema (test below): no operation declares it.
    assert not [(m, p) for p, ops in paths.items() for m, op in ops.items() if "405" in op["responses"]]


def test_a_body_the_operation_does_not_read_answers_the_415_it_declares(sample, settings):
    """Text where JSON is read (the endpoints whose views read their body at once): DRF's 415."""
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 0
    answered = 0
    for who, method, url in sample:
        path = path_of(url)
        if not _takes_a_body(method, path):
            continue  # the calendar and an absence's end read no body: they answer as without one
        response = getattr(api(who), method)(url, "hello", content_type=_unread_type(method, path))
        assert response.status_code == 415, (method, url, response.status_code, response.content[:300])
        assert response.json() == {"detail": f'Unsupported media type "{_unread_type(method, path)}" in request.'}
        check(response, method, path)
        answered += 1
    assert answered >= 10


@pytest.mark.parametrize(("method", "path"), BODY_OPERATIONS)
def test_every_body_operation_answers_an_unread_body_as_it_declares(small_campaign, alice, method, path, settings):
    """Every operation with a body, called by a moderator of a real campaign with a body it does
    not read: the 415, or a refusal it declares that comes before its view reads the body (an
    object that is not there, a role)."""
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 0
    url = re.sub(r"\{(\w+)\}", lambda m: NOBODYS.get(m.group(1), str(small_campaign.pk)), path)
    response = getattr(api(alice), method)(url, "hello", content_type=_unread_type(method, path))
    assert response.status_code in (400, 403, 404, 415), (response.status_code, response.content[:300])
    check(response, method, path)


@pytest.mark.parametrize(("method", "path"), BODILESS_WRITES)
def test_an_operation_that_takes_no_body_reads_none(small_campaign, alice, method, path, settings):
    """Why those declare no 415: a body in any Content-Type is not read, so never refused for its type."""
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 0
    url = re.sub(r"\{(\w+)\}", lambda m: NOBODYS.get(m.group(1), str(small_campaign.pk)), path)
    response = getattr(api(alice), method)(url, "<hello/>", content_type="application/xml")
    assert response.status_code != 415, response.content[:300]
    check(response, method, path)


def test_a_method_the_address_does_not_serve_answers_405_naming_the_schemas_methods(alice):
    """Why no operation declares 405: it is the answer to a method that is no operation of the
    schema; each address's ``Allow`` names exactly the methods its schema lists."""
    client = api(alice)
    for path, operations in openapi()["paths"].items():
        url = _url(path)
        for method in ("get", "post", "put", "patch", "delete"):
            if method in operations:
                continue
            response = (client.get(url, HTTP_ACCEPT="application/json") if method == "get" else getattr(
                client, method)(url, "{}", content_type="application/json", HTTP_ACCEPT="application/json"))
            assert response.status_code == 405, (method, path, response.status_code, response.content[:300])
            assert response.json() == {"detail": f'Method "{method.upper()}" not allowed.'}
            allowed = {m.strip().lower() for m in response["Allow"].split(",")} - {"head", "options"}
            assert allowed == set(operations), (path, response["Allow"])
