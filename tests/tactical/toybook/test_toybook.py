"""The toy rule book (issue 27 item 7): registering is all it takes to pass the rule-book
contract and be offered for pickup battles and what-if runs — no file outside its package and this test."""

from __future__ import annotations

import pytest

from campaign.rules.dice import SeededDice, derive_seed
from tactical.hosts.pickup import books
from tactical.rules import registry
from tactical.whatif import pool
from tests.tactical import test_rulebook_contract as contract
from tests.tactical import toybook


@pytest.fixture
def toy():
    toybook.register()
    yield toybook.BOOK
    toybook.unregister()


def test_it_registers_as_a_rule_book(toy):
    assert toy in registry.books()
    assert registry.find_play("toy") is toy.play


def test_it_is_offered_for_pickup_battles(toy):
    assert "toy" in [name for name, _, _ in books.available()]
    fleet = books.book("toy").check_fleet(["skiff", "skiff"], books.BOOKS["toy"].offers(None), 30)
    setup = books.book("toy").setup({1: fleet, 2: fleet[:1]}, {}, {})
    state = toy.new_battle(setup, SeededDice(derive_seed("toy")))
    assert toy.is_over(toy.simulate(state, SeededDice(derive_seed("toy"))))


def test_it_is_offered_for_what_if(toy):
    result = pool.play_run("toy", {"sides": {"1": 2, "2": 1}}, "toy seed", 12).result()
    assert result["trials"] == 12 and sum(result["wins"].values()) == 12
    assert result == pool.play_run("toy", {"sides": {"1": 2, "2": 1}}, "toy seed", 12).result()


def test_it_keeps_the_contract(toy):
    for seed in contract.SEEDS:
        t = contract.trace(toy, seed)
        contract.clause_codec(toy, t.states)
        contract.clause_doctrine(toy, t.states)
        contract.clause_refusals(toy, t.states)
        contract.clause_replay(toy, t)
        contract.clause_owner(toy, t.states)
        contract.clause_hidden(toy, t.states)
    contract.clause_ends(toy, range(5))


def test_its_hidden_skiff_would_be_caught_leaking(toy):
    t = contract.trace(toy, 1)

    def telling(state, action):  # a refusal that names the cloaked skiff
        if getattr(action, "target", None) == 99 and any(s.id == 99 for s in state.ships):
            raise toybook.IllegalActionError(toybook.RULE, "ship 99 is cloaked")
        toybook.check(state, action)
    with pytest.raises(contract.ContractError):
        contract.clause_hidden(contract.Faulty(toy, check=telling), t.states)


# --- the what-if pages: the toy book is offered and a run of it ends in win rates ------------------

@pytest.mark.django_db
def test_it_is_offered_on_the_what_if_pages(toy, client, bob):
    from django.urls import reverse

    client.force_login(bob)
    url = reverse("whatif-book-new", kwargs={"book": "toy"})
    for page in (reverse("whatif-list"), reverse("whatif-new")):
        assert f'href="{url}" data-book="toy"' in client.get(page).content.decode()
    form = client.get(url)
    assert form.status_code == 200 and "Toy skiffs (a test book)" in form.content.decode()
    assert 'value="skiff"' in form.content.decode()  # its fleet book's ship
    toybook.unregister()
    assert client.get(url).status_code == 404
    assert 'data-book="toy"' not in client.get(reverse("whatif-list")).content.decode()
    toybook.register()


@pytest.mark.django_db
def test_a_what_if_of_it_runs_to_win_rates_on_its_page(toy, client, bob, django_capture_on_commit_callbacks,
                                                        eager_tasks):
    from django.urls import reverse

    from tactical.models import WhatIfRun

    client.force_login(bob)
    data = {"points": "30", "trials": "12", "seed": "toy seed", "s1_ship_1": "skiff", "s1_count_1": "2",
            "s2_ship_1": "skiff"}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("whatif-book-new", kwargs={"book": "toy"}), data)
    run = WhatIfRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("whatif-detail", args=[run.pk])
    assert run.status == WhatIfRun.Status.DONE, run.error
    # The same battles as the pool fights from the toy's own pickup setup (two skiffs against one).
    expected = pool.play_run("toy", {"sides": {"1": 2, "2": 1}}, "toy seed", 12).result()
    assert run.params["job"] == {"sides": {"1": 2, "2": 1}}
    assert {k: v for k, v in run.result.items() if k != "seconds"} == expected
    page = client.get(response["Location"]).content.decode()
    assert 'id="whatif-book-results"' in page and "<progress" not in page
    wins = expected["wins"]
    assert f"<td>{wins['1']}</td><td>{wins['1'] / 12 * 100:.1f}%</td>" in page
    assert "2 × Skiff (10 points)" in page
    api = client.get(reverse("api-whatif", args=[run.pk])).json()
    assert api["book"] == "toy" and [r["wins"] for r in api["win_rates"]] == [wins["1"], wins["2"], wins["draw"]]
    assert "Toy skiffs (a test book)" in client.get(reverse("whatif-list")).content.decode()


@pytest.mark.django_db
def test_a_toy_what_if_over_its_limits_is_refused_and_creates_nothing(toy, client, bob):
    from django.urls import reverse

    from tactical.models import WhatIfRun

    client.force_login(bob)
    url = reverse("whatif-book-new", kwargs={"book": "toy"})
    too_many = {"points": "30", "trials": "5", "s1_ship_1": "skiff", "s1_count_1": "3", "s1_ship_2": "skiff",
                "s2_ship_1": "skiff"}
    response = client.post(url, too_many)
    assert response.status_code == 400
    assert "Side 1: at most 3 ships a side (toy), not 4; the fleet costs 40 points, over the battle&#x27;s 30 " \
           "points by 10" in response.content.decode()
    response = client.post(url, {"points": "30", "trials": "5", "s1_ship_1": "skiff"})
    assert response.status_code == 400 and "Side 2: a fleet needs at least one ship" in response.content.decode()
    assert not WhatIfRun.objects.exists()


@pytest.mark.django_db
def test_the_api_starts_a_toy_what_if_and_refuses_bad_ones(toy, client, bob, django_capture_on_commit_callbacks,
                                                           eager_tasks):
    from django.urls import reverse

    from tactical.models import WhatIfRun

    client.force_login(bob)
    url = reverse("api-whatif-book", kwargs={"book": "toy"})
    body = {"points": 30, "trials": 12, "seed": "toy seed", "forces": {"1": ["skiff", "skiff"], "2": ["skiff"]}}
    with django_capture_on_commit_callbacks(execute=True):
        made = client.post(url, body, content_type="application/json")
    assert made.status_code == 201, made.content
    run = WhatIfRun.objects.get()
    assert run.status == WhatIfRun.Status.DONE and run.result["wins"] == \
        pool.play_run("toy", {"sides": {"1": 2, "2": 1}}, "toy seed", 12).result()["wins"]
    bad = client.post(url, {**body, "forces": {"1": ["galleon"], "2": ["skiff"]}}, content_type="application/json")
    assert bad.status_code == 400 and bad.json()["detail"] == "Side 1: no ship 'galleon' to buy here"
    gone = client.post(reverse("api-whatif-book", kwargs={"book": "nosuch"}), body, content_type="application/json")
    assert gone.status_code == 404 and "no rule book 'nosuch'" in gone.json()["detail"]
    assert WhatIfRun.objects.count() == 1



def test_its_what_if_battles_are_fought_in_worker_processes_too(toy):
    # The workers (python -m tactical.whatif.worker) never import this package's registration:
    # the Trial record goes to them with the job.
    n = pool.PARALLEL_MIN_TRIALS + 2
    job = {"sides": {"1": 2, "2": 2}}
    assert (
        pool.play_run("toy", job, "workers", n, processes=2).result()
        == pool.play_run("toy", job, "workers", n).result()
    )


@pytest.mark.django_db
def test_its_what_if_spread_as_celery_chunks_adds_up_to_the_local_result(toy, bob, settings, monkeypatch,
                                                                          django_capture_on_commit_callbacks):
    from tactical.models import WhatIfRun
    from tactical.whatif import books as whatif_books
    from tactical.whatif import chunks
    from tactical.whatif import runs as whatif

    settings.CELERY_BROKER_URL, settings.WHATIF_CHUNK_SIZE = "redis://127.0.0.1:6379/15", 4  # never reached
    sent = []
    monkeypatch.setattr(chunks, "send", lambda run_id, claim, parts: sent.extend(
        (run_id, claim, start, stop) for start, stop in parts))
    run = whatif_books.start_book_what_if(user=bob, book="toy", params={
        "points": 30, "trials": 10, "seed": "chunks", "forces": {"1": ["skiff"] * 2, "2": ["skiff"] * 2}})
    with django_capture_on_commit_callbacks(execute=True):
        whatif.run_what_if(run.pk)
    assert [(s, e) for _, _, s, e in sent] == [(0, 4), (4, 8), (8, 10)]
    for chunk in reversed(sent):
        chunks.play_chunk(*chunk)
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.DONE, run.error
    assert run.result["wins"] == pool.play_run("toy", run.params["job"], "chunks", 10).result()["wins"]


@pytest.mark.django_db
def test_a_running_toy_what_if_shows_its_progress(toy, client, bob, mallory):
    from django.urls import reverse

    from tactical.models import WhatIfRun
    from tactical.whatif import books as whatif_books

    run = whatif_books.start_book_what_if(user=bob, book="toy", params={  # not run: no commit here
        "points": 30, "trials": 40, "forces": {"1": ["skiff"], "2": ["skiff"]}})
    WhatIfRun.objects.filter(pk=run.pk).update(status=WhatIfRun.Status.RUNNING, done=10)
    client.force_login(bob)
    page = client.get(reverse("whatif-detail", args=[run.pk])).content.decode()
    assert '<progress id="whatif-bar" value="10" max="40"' in page and "whatif-book-results" not in page
    assert client.get(reverse("whatif-progress", args=[run.pk])).json()["percent"] == 25.0
    client.force_login(mallory)
    assert client.get(reverse("whatif-detail", args=[run.pk])).status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize(("body", "words"), [
    ([1, 2], "the request must be an object"),
    ({"forces": "skiff"}, 'give the forces as {"1": [ship key, …], "2": [ship key, …]}'),
    ({"forces": {"1": ["skiff"], "2": [3]}}, "Side 2: give a list of ship keys"),
    ({"forces": {"1": ["skiff"], "2": ["skiff"]}, "colour": "red"}, "unknown field(s): colour"),
    ({"forces": {"1": ["skiff"], "2": ["skiff"]}, "points": "lots"}, "points must be a whole number"),
    ({"forces": {"1": ["skiff"], "2": ["skiff"]}, "points": 5000}, "between 1 and 1000 points, not 5000"),
    ({"forces": {"1": ["skiff"], "2": ["skiff"]}, "trials": 0}, "trials must be 1 to 2000, not 0"),
])
def test_a_bad_toy_what_if_request_is_refused_with_a_reason(toy, client, bob, body, words):
    from django.urls import reverse

    from tactical.models import WhatIfRun

    client.force_login(bob)
    answer = client.post(reverse("api-whatif-book", kwargs={"book": "toy"}), body, content_type="application/json")
    assert answer.status_code == 400 and words in answer.json()["detail"]
    assert not WhatIfRun.objects.exists()
