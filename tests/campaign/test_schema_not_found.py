"""Every operation on an object declares the 404 it answers when there is no such object for the
caller, with the body it sends (the schemathesis probe of /api/schema/ found 404s no operation
declared). Each operation of the schema with a path parameter is called with ids nobody has."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from tests.openapi_check import check, openapi

pytestmark = pytest.mark.django_db

NOBODYS = {"ruleset": "nonesuch", "book": "nonesuch"}  # parameters that name a thing rather than number it
# bodies the endpoint checks before it looks the object up
BODIES = {"/api/pickup/{pickup_id}/fleet/": {"ships": []},
          "/api/pickup/{pickup_id}/invite/": {"email": "d@example.com"}}


def _operations():
    for path, operations in openapi()["paths"].items():
        if "{" in path:
            for method in operations:
                yield method, path


@pytest.mark.parametrize(("method", "path"), sorted(_operations()))
def test_an_operation_on_no_such_object_answers_the_404_it_declares(method, path, mallory):
    client = APIClient()
    client.force_authenticate(mallory)
    url = re.sub(r"\{(\w+)\}", lambda m: NOBODYS.get(m.group(1), "987654"), path)
    response = getattr(client, method)(url, BODIES.get(path, {}), format="json") if method != "get" else client.get(url)
    assert response.status_code == 404, (method, url, response.status_code, response.content[:300])
    check(response, method, path)
