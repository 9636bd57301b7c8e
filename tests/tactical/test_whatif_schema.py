"""The what-if API's "start a run" operations answer as their schema declares (tests/openapi_check.py):
201 with the run — declared 200 before —, and ``refused``'s 404 and 429 (``runs.http_status``)."""

from __future__ import annotations

import pytest

from campaign.eventhorizon.models import Design
from tests.openapi_check import api, sent

pytestmark = pytest.mark.django_db


def request(trials=4):
    corvette = Design.objects.filter(campaign__isnull=True, ship_type="corvette").first()
    destroyer = Design.objects.filter(campaign__isnull=True, ship_type="destroyer").first()
    return {"trials": trials, "seed": "schema", "a": {"ships": [{"design": corvette.pk, "count": 1}]},
            "b": {"ships": [{"design": destroyer.pk, "count": 1}]}}


def test_a_run_started_answers_the_201_it_declares(bob):
    run = sent(api(bob).post("/api/what-if/", request(), format="json"), "post", "/api/what-if/", 201)
    assert run["status"] == "queued" and run["trials"] == 4


def test_a_run_over_the_limit_answers_the_429_it_declares(bob, settings):
    settings.WHATIF_RUNS_AT_ONCE = 1
    sent(api(bob).post("/api/what-if/", request(), format="json"), "post", "/api/what-if/", 201)
    refusal = sent(api(bob).post("/api/what-if/", request(), format="json"), "post", "/api/what-if/", 429)
    assert "WHATIF_RUNS_AT_ONCE" in refusal["detail"]
    refusal = sent(api(bob).post("/api/what-if/cam/", {"period": 2, "points": 60, "trials": 10,
                                                      "a": {"sds": ["constitution"]}, "b": {"sds": ["d7"]}},
                                 format="json"), "post", "/api/what-if/cam/", 429)
    assert "WHATIF_RUNS_AT_ONCE" in refusal["detail"]


def test_a_battle_you_cannot_see_answers_the_404_it_declares(bob):
    refusal = sent(api(bob).post("/api/what-if/converted/", {"battle": 987654}, format="json"),
                   "post", "/api/what-if/converted/", 404)
    assert "battle 987654 is not one you can see" in refusal["detail"]
