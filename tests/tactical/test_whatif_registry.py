"""What-if through the registry (issue 27 item 5): a rule book registers its one-battle trial
(``ResolverRecord.trial``, ``tactical.rules.kit.trial.Trial``) and ``tactical.whatif.pool``
fights any kind by its key. The CAM and Event Horizon what-ifs are two instances of it and give
the same tallies for the same seeds as the per-book loops they replaced."""

from __future__ import annotations

import pytest

from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS
from tactical.rules import registry
from tactical.rules.eventhorizon import trials as eh
from tactical.whatif import books as whatif_books
from tactical.whatif import camtrials, pool
from tests.tactical.test_whatif_cam import A_FLEET, B_FLEET

SIDES = [{"key": "a", "ships": [{"design": SAMPLE_DESIGNS[i].to_dict()} for i in (0, 1)]},
         {"key": "b", "ships": [{"design": SAMPLE_DESIGNS[i].to_dict()} for i in (2, 3)]}]


def _old_eh(seed, n):  # the loop pool.play_trials ran before the registry
    fleets = eh.fleets_from_sides(SIDES)
    tally = eh.Tally(ships={side: len(fleets[side]) for side in eh.SIDES})
    for i in range(n):
        tally.add(eh.play_trial(fleets, seed, i))
    return tally.result()


def _old_cam(job, seed, n):
    tally = camtrials.CamTally()
    for i in range(n):
        tally.add(camtrials.play_cam_trial(job, seed, i))
    return tally.result()


def test_both_books_register_their_what_if():
    keys = {r.trial.key for r in registry.RESOLVERS.values() if r.trial is not None}
    assert {"eventhorizon", "buoyz"} <= keys
    with pytest.raises(ValueError, match="no rule book"):
        pool.trial_of("no such kind")


def test_event_horizon_tallies_are_the_same_through_the_registry():
    assert pool.play_run("eventhorizon", {"sides": SIDES}, "registry", 6).result() == _old_eh("registry", 6)
    assert pool.play_trials(SIDES, "registry", 6).result() == _old_eh("registry", 6)


def test_cam_tallies_are_the_same_through_the_registry():
    job = camtrials.catalogue_job(2, 60, {"a": A_FLEET, "b": B_FLEET})
    assert pool.play_run("buoyz", job, "registry", 4).result() == _old_cam(job, "registry", 4)


def test_event_horizon_battles_in_worker_processes_add_up_as_in_one():
    n = pool.PARALLEL_MIN_TRIALS + 1
    assert pool.play_run("eventhorizon", {"sides": SIDES}, "spread", n, processes=2).result() == _old_eh("spread", n)


@pytest.mark.django_db
def test_books_with_their_own_what_if_form_are_listed_and_sent_there(client, bob):
    from django.urls import reverse

    from tactical.whatif import books

    offered = {b["name"]: b for b in books.offered()}
    assert offered["eventhorizon"]["url"] == reverse("whatif-new") and not offered["eventhorizon"]["generic"]
    assert offered["buoyz"]["url"] == reverse("whatif-cam-new") and offered["buoyz"]["title"] == "Buoyz (CAM)"
    client.force_login(bob)
    for book, form in (("eventhorizon", "whatif-new"), ("buoyz", "whatif-cam-new")):
        response = client.get(reverse("whatif-book-new", kwargs={"book": book}))
        assert response.status_code == 302 and response["Location"] == reverse(form)
    assert client.get(reverse("whatif-book-new", kwargs={"book": "nosuch"})).status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("name", [b["name"] for b in whatif_books.offered() if b["generic"]])
def test_every_book_on_the_generic_what_if_runs_from_its_pickup_fleets(name, bob, django_capture_on_commit_callbacks,
                                                                       eager_tasks):
    """A book on the generic what-if pages (a Trial and a FleetBook, no pages of its own): as many
    forces as its pickup battles take (two, or up to six), each its fleet book's computer buys within
    its default points, run to win counts, battle by battle the same as its Trial fights the pickup
    setup the run stored."""
    from campaign.rules.dice import SeededDice, derive_seed
    from tactical.models import WhatIfRun

    books = whatif_books
    _, fleets = books.generic_book(name)
    offers, points = fleets.offers(bob), fleets.default_points
    forces = {str(seat): [o.key for o in fleets.computer_fleet(offers, points, SeededDice(derive_seed(f"wi/{seat}")))]
              for seat in range(1, books.side_counts(fleets)[-1] + 1)}
    with django_capture_on_commit_callbacks(execute=True):
        run = books.start_book_what_if(user=bob, book=name, params={"points": points, "trials": 3, "seed": "every",
                                                                    "forces": forces})
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.DONE, run.error
    assert sum(run.result["wins"].values()) == 3 and set(run.result["wins"]) >= {*forces, "draw"}
    assert {k: v for k, v in run.result.items() if k != "seconds"} == \
        pool.play_run(run.params["ruleset"], run.params["job"], "every", 3).result()
