"""My Trek V what-if from the site (issue 29 item 7): the generic what-if pages (issue 27,
``tactical/whatif/book_views.py``) buy two forces from My Trek V's fleet book — the house roster
and the player's own designs (002 Assembling a Fleet) — run K doctrine battles through its
registered ``Trial`` and show each side's win rate; a force over the points total is refused with
nothing created; another player cannot see the run."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tactical.models import WhatIfRun
from tactical.whatif import pool

pytestmark = pytest.mark.django_db
# The book's worked example (002 Assembling a Fleet): 400 points.
EXAMPLE = {
    "name": "Enterprise",
    "size": "A",
    "max_hyper": 10,
    "fields": 5,
    "dice": 5,
    "aft": True,
    "invisibility": False,
    "torpedoes": True,
    "missiles": False,
}


def test_a_my_trek_what_if_is_started_from_the_site_and_shows_win_rates(
    client, bob, carol, django_capture_on_commit_callbacks, eager_tasks
):
    own = APIClient()
    own.force_login(bob)
    design = own.post(reverse("api-pickup-designs", args=["mytrek"]), EXAMPLE, format="json").json()
    key = f"design-{design['id']}"
    client.force_login(bob)
    url = reverse("whatif-book-new", kwargs={"book": "mytrek"})
    form = client.get(url).content.decode()
    assert (
        form.count(f'value="{key}"') == 8 and 'value="battlecruiser"' in form
    )  # his design, every row of both forces
    refused = client.post(
        url,
        {"points": "400", "trials": "6", "s1_ship_1": key, "s2_ship_1": "battlecruiser", "s2_count_1": "3"},
    )
    assert (
        refused.status_code == 400 and "over" in refused.content.decode() and not WhatIfRun.objects.exists()
    )
    data = {
        "points": "400",
        "trials": "6",
        "seed": "mt what-if",
        "s1_ship_1": key,
        "s2_ship_1": "battlecruiser",
        "s2_ship_2": "cruiser",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, data)
    run = WhatIfRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("whatif-detail", args=[run.pk])
    assert run.status == WhatIfRun.Status.DONE, run.error
    assert run.params["job"]["sides"]["1"]["ships"] == [EXAMPLE]  # his design fought whole
    expected = pool.play_run("mytrek", run.params["job"], "mt what-if", 6).result()
    assert {k: v for k, v in run.result.items() if k != "seconds"} == expected
    wins = expected["wins"]
    assert sum(wins.values()) == 6
    page = client.get(response["Location"]).content.decode()
    assert (
        'id="whatif-book-results"' in page and "My Trek V" in page and "1 × Enterprise (400 points)" in page
    )
    assert f"<td>{wins['1']}</td><td>{wins['1'] / 6 * 100:.1f}%</td>" in page
    client.force_login(carol)
    assert client.get(response["Location"]).status_code == 404
