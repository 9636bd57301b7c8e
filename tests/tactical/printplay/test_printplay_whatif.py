"""A Print&Play what-if from the site (issue 30; the generic what-if pages of issue 27): the form at
/what-if/new/printplay/ buys two forces from the pickup roster — one of them with the player's own
dashboard from the designer (ruling PP23) — the run is fought and its page shows each side's wins
and win rate. The page buys as many forces as a pickup battle takes (``?sides=n``, 2 to 6)."""

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


def test_a_four_sided_what_if_is_started_from_the_page_and_bad_side_counts_are_refused(
        client, bob, django_capture_on_commit_callbacks, eager_tasks):
    """Print&Play's pickup battles take 2 to 6 sides (001 Initiative: more draw dice from a bag), so
    its what-if page offers them; a count outside a book's, on the page or the API, is refused naming
    the book's rule, and nothing is run."""
    client.force_login(bob)
    url = reverse("whatif-book-new", kwargs={"book": "printplay"})
    page = client.get(url, {"sides": 4}).content.decode()
    assert 'id="force-4"' in page and 'id="force-5"' not in page and 'name="sides" value="4"' in page
    ships = {1: "saber", 2: "vor_cha", 3: "b_rel", 4: "saber"}
    form = {"sides": 4, "points": 200, "trials": 3, "seed": "pp4",
            **{f"s{seat}_ship_1": key for seat, key in ships.items()}}
    for bad in (7, 1, "four"):
        refused = client.post(url, {**form, "sides": bad})
        assert refused.status_code == 400 and "2 to 6 sides" in refused.content.decode(), bad
    assert client.get(url, {"sides": 7}).status_code == 400
    mytrek = client.post(reverse("whatif-book-new", kwargs={"book": "mytrek"}), {**form, "sides": 4})
    assert mytrek.status_code == 400 and "My Trek V what-ifs are fought by 2 sides" in mytrek.content.decode()
    api = reverse("api-whatif-book", kwargs={"book": "printplay"})
    seven = {str(s): ["saber"] for s in range(1, 8)}
    for forces in ({"1": ["saber"]}, {"1": ["saber"], "3": ["saber"]}, seven):
        answer = client.post(api, {"points": 200, "trials": 3, "forces": forces},
                             content_type="application/json")
        assert answer.status_code == 400, forces
    assert not WhatIfRun.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(url, form)
    run = WhatIfRun.objects.get()
    assert started.status_code == 302, started.content.decode()[:3000]
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.DONE, run.error
    assert sorted(run.params["job"]["sides"]) == ["1", "2", "3", "4"] and run.params["job"]["mat"] == "4x6"
    assert set(run.result["wins"]) == {"1", "2", "3", "4", "draw"} and sum(run.result["wins"].values()) == 3
    shown = client.get(reverse("whatif-detail", args=[run.pk])).content.decode()
    assert 'id="force-4"' in shown and "<th scope=\"row\">Side 4</th>" in shown
