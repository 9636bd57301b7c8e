"""A Print&Play what-if from the site (issue 30; the generic what-if pages of issue 27): the form at
/what-if/new/printplay/ buys two forces from the pickup roster — one of them with the player's own
dashboard from the designer (ruling PP23) — the run is fought and its page shows each side's wins
and win rate. The page buys two forces only (four-sided what-ifs run through the pool: the bench)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tactical.models import PlayerDesign, WhatIfRun
from tactical.whatif import pool
from tests.tactical.printplay.test_printplay_designer import AKIRA, api

pytestmark = pytest.mark.django_db


def test_a_print_and_play_what_if_is_started_run_and_shown_from_the_site(client, bob,
                                                                        django_capture_on_commit_callbacks,
                                                                        eager_tasks):
    mine = api(bob).post(reverse("api-pickup-designs", args=["printplay"]), AKIRA, format="json").json()
    client.force_login(bob)
    page = client.get(reverse("whatif-book-new", kwargs={"book": "printplay"}))
    assert page.status_code == 200 and f'value="{mine["key"]}"'.encode() in page.content
    form = {"points": 200, "trials": 3, "seed": "pp2",
            "s1_ship_1": mine["key"], "s1_count_1": 1, "s1_ship_2": "saber", "s1_count_2": 1,
            "s2_ship_1": "vor_cha", "s2_count_1": 1, "s2_ship_2": "b_rel", "s2_count_2": 1}
    over = client.post(reverse("whatif-book-new", kwargs={"book": "printplay"}), {**form, "s2_count_2": 8})
    assert over.status_code == 400 and not WhatIfRun.objects.exists()  # over the points: refused, nothing run
    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(reverse("whatif-book-new", kwargs={"book": "printplay"}), form)
    run = WhatIfRun.objects.get()
    assert started.status_code == 302 and started["Location"] == reverse("whatif-detail", args=[run.pk])
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.DONE, run.error
    assert sum(run.result["wins"].values()) == 3
    sides = run.params["job"]["sides"]
    assert sides["1"]["ships"][0]["name"].startswith("Akira")  # his design, as he drew it
    PlayerDesign.objects.all().delete()  # the run keeps the design it was started with
    assert {k: v for k, v in run.result.items() if k != "seconds"} == \
        pool.play_run("printplay", run.params["job"], "pp2", 3).result()
    shown = client.get(reverse("whatif-detail", args=[run.pk])).content.decode()
    assert 'id="whatif-book-results"' in shown
    for seat in ("1", "2"):
        assert f"<td>{run.result['wins'][seat]}</td>" in shown
