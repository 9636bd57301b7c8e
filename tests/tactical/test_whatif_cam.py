"""What-if for CAM fleets (issue 17, item 5): K Buoyz battles between two CAM forces — a CAM
scenario's as they stand (fog of war) or two fleets from the CAM catalogue — in the background,
through the what-if runner and its worker processes, beside the CAM auto-resolve odds."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaign.cam import actions as cam_actions
from campaign.models import Membership
from tactical.models import WhatIfRun
from tactical.whatif import cam, camtrials, pool
from tactical.whatif import runs as whatif
from tests.cam.conftest import make_cam, ship_numbers
from tests.conftest import REQUIRE_SERVICES

A_FLEET = ["constitution", "constitution", "firecat"]
B_FLEET = ["d7", "d7", "war_talon"]


def catalogue_request(trials=4, seed="cam-fixed", **extra):
    return {"period": 2, "points": 60, "trials": trials, "seed": seed, "a": {"sds": A_FLEET},
            "b": {"sds": B_FLEET}, **extra}


def _without_time(result):
    return {k: v for k, v in result.items() if k != "seconds"}


# --- pure: battles, tally, intervals (no database) ----------------------------------------------------


def test_a_fixed_seed_gives_the_same_battles():
    job = camtrials.catalogue_job(2, 60, {"a": A_FLEET, "b": B_FLEET})
    one = pool.play_cam_trials(job, "fixed", 6).result()
    two = pool.play_cam_trials(job, "fixed", 6).result()
    assert one == two and one["trials"] == 6
    sides = one["sides"]
    assert sides["a"]["win"]["count"] + sides["b"]["win"]["count"] + one["draw"]["count"] == 6
    assert sum(one["endings"].values()) == 6
    assert sum(sides["a"]["victories"].values()) == sides["a"]["win"]["count"]
    # Each battle is its own: battle i of another run with the same seed is the same battle.
    assert camtrials.play_cam_trial(job, "fixed", 3) == camtrials.play_cam_trial(job, "fixed", 3)


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
def test_battles_spread_over_worker_processes_add_up_exactly_as_in_one():
    job = camtrials.catalogue_job(2, 60, {"a": A_FLEET, "b": B_FLEET})
    seen = []
    one = pool.play_cam_trials(job, "spread", pool.PARALLEL_MIN_TRIALS + 1, processes=1).result()
    two = pool.play_cam_trials(job, "spread", pool.PARALLEL_MIN_TRIALS + 1, seen.append, processes=2).result()
    assert one == two
    assert sorted(seen) == list(range(1, pool.PARALLEL_MIN_TRIALS + 2))


def test_a_failing_cam_worker_fails_loudly():
    job = camtrials.catalogue_job(2, 60, {"a": A_FLEET, "b": B_FLEET})
    job["sides"][0]["ships"] = {"1": "no_such_sd"}
    with pytest.raises(RuntimeError, match="worker failed"):
        pool.play_cam_trials(job, "broken", pool.PARALLEL_MIN_TRIALS, processes=2)


@pytest.mark.parametrize(("k", "n"), [(0, 10), (10, 10), (3, 10), (50, 100), (1, 1)])
def test_wilson_intervals_hold_the_rate_and_stay_in_bounds(k, n):
    low, high = camtrials.wilson(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0
    assert high - low > 0  # never a false certainty, even at 0 or n
    if 0 < k < n:  # narrower than the whole range, and symmetric around the Wilson centre
        assert high - low < 1


def test_wilson_matches_the_textbook_value():
    low, high = camtrials.wilson(0, 10)
    assert low == 0.0 and abs(high - 0.2775) < 1e-4  # 0 of 10: [0, 27.8 %]


# --- runs from the catalogue ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_catalogue_run_is_reproducible(bob, eager_tasks, django_capture_on_commit_callbacks, settings):
    settings.WHATIF_IN_BACKGROUND = False
    results = []
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            run = cam.start_cam_what_if(user=bob, params=catalogue_request())
        run.refresh_from_db()
        assert run.status == WhatIfRun.Status.DONE, run.error
        results.append(_without_time(run.result))
    assert results[0] == results[1]
    r = results[0]
    assert r["ruleset"] == "buoyz" and r["trials"] == 4 and r["interval"].startswith("Wilson")
    assert set(r["odds"]["win"]) == {"a", "b"} and abs(r["odds"]["win"]["a"] + r["odds"]["win"]["b"] - 1) < 1e-9


@pytest.mark.django_db
@pytest.mark.parametrize(("change", "message"), [
    ({"period": 9}, "period must be 1 to 6"),
    ({"a": {"sds": ["warp_bird_9000"]}}, "'warp_bird_9000' is not an SD of the CAM catalogue"),
    ({"points": 20}, "over the 20 points level"),
    ({"b": {"sds": []}}, "fleet B: give"),
    ({"trials": 0}, "trials must be 1 to 2000"),
    ({"colour": "red"}, "unknown field(s): colour"),
])
def test_a_bad_catalogue_request_is_refused_and_creates_nothing(bob, change, message):
    with pytest.raises(whatif.WhatIfError) as caught:
        cam.start_cam_what_if(user=bob, params={**catalogue_request(), **change})
    assert message in str(caught.value)
    assert WhatIfRun.objects.count() == 0


@pytest.mark.django_db
def test_an_sd_outside_the_period_is_refused(bob):
    from campaign.rules.cam.ships import STARTER_CATALOGUE

    late = next(sd for sd in STARTER_CATALOGUE.values() if not sd.available_in(1))
    with pytest.raises(whatif.WhatIfError, match="not in Period 1"):
        cam.start_cam_what_if(user=bob, params={**catalogue_request(), "period": 1, "points": 1000,
                                                "a": {"sds": [late.key]}})


# --- limits --------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_limits_apply_to_cam_runs_too(settings, bob, client):
    settings.WHATIF_RUNS_AT_ONCE = 1
    settings.WHATIF_BATTLES_PER_DAY = 10
    cam.start_cam_what_if(user=bob, params=catalogue_request(trials=4))
    with pytest.raises(whatif.WhatIfLimitError, match=r"WHATIF_RUNS_AT_ONCE"):
        cam.start_cam_what_if(user=bob, params=catalogue_request(trials=4))
    WhatIfRun.objects.update(status=WhatIfRun.Status.DONE)
    client.force_login(bob)
    response = client.post("/api/what-if/cam/", catalogue_request(trials=7), content_type="application/json")
    assert response.status_code == 429 and "WHATIF_BATTLES_PER_DAY" in response.json()["detail"]
    # The two kinds of run share one budget: an Event Horizon run counts against it too.
    assert WhatIfRun.objects.count() == 1
    settings.WHATIF_RUNS_AT_ONCE = 0
    with pytest.raises(whatif.WhatIfLimitError, match="so 6 are left"):
        whatif.check_limits(bob, 7)


# --- a CAM scenario: fog of war ----------------------------------------------------------------------


@pytest.fixture
def rubber(db, alice, bob, carol):
    campaign = make_cam(alice, bob, carol)
    cam_actions.generate_scenario(campaign_id=campaign.pk, user=alice, nature="open_battle")
    cam_actions.select_forces(campaign_id=campaign.pk, user=bob, ships=ship_numbers(campaign, 1, "constitution")[:3])
    cam_actions.select_forces(campaign_id=campaign.pk, user=carol, ships=ship_numbers(campaign, 2)[:3])
    return campaign


def _start(client, user, campaign, **extra):
    client.force_login(user)
    body = {"campaign": campaign.pk, "scenario": 1, "trials": 3, "seed": "scenario", **extra}
    return client.post("/api/what-if/cam/", body, content_type="application/json")


@pytest.mark.django_db
def test_a_player_cannot_see_the_other_force_before_the_table_is_rolled(client, rubber, bob, alice):
    response = _start(client, bob, rubber)
    assert response.status_code == 403 and "hidden until the table is rolled" in response.json()["detail"]
    page = client.get(reverse("cam-scenario", args=[rubber.pk, 1])).content.decode()
    assert 'id="cam-whatif"' in page and "hidden until the table is rolled" in page
    assert 'id="cam-whatif-link"' not in page
    assert _start(client, alice, rubber).status_code == 201  # the moderator sees both forces
    assert WhatIfRun.objects.count() == 1


@pytest.mark.django_db
def test_outsiders_and_players_of_another_rubber_get_404(client, rubber, mallory, django_user_model, carol):
    cam_actions.roll_table(campaign_id=rubber.pk, user=carol)
    dave = django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")
    make_cam(mallory, dave, django_user_model.objects.create_user("erin", "erin@example.com", "pw"))
    for user in (mallory, dave):  # mallory moderates, dave plays another rubber
        response = _start(client, user, rubber)
        assert response.status_code == 404, response.content
        assert client.get(reverse("whatif-cam-new"), {"campaign": rubber.pk, "scenario": 1}).status_code == 404
    missing = _start(client, mallory, rubber, scenario=9)
    assert missing.status_code == 404 and missing.json()["detail"] == response.json()["detail"].replace(
        "scenario 1 ", "scenario 9 ")
    assert WhatIfRun.objects.count() == 0


@pytest.mark.django_db
def test_an_observer_may_not_run_one(client, rubber, carol, mallory):
    cam_actions.roll_table(campaign_id=rubber.pk, user=carol)
    Membership.objects.create(campaign=rubber, user=mallory, role=Membership.Role.OBSERVER)
    response = _start(client, mallory, rubber)
    assert response.status_code == 403 and "moderator and its two players" in response.json()["detail"]


@pytest.mark.django_db
def test_a_player_runs_his_scenario_as_it_stands_and_sees_it_on_the_scenario_page(
        client, rubber, bob, carol, eager_tasks, settings, django_capture_on_commit_callbacks):
    settings.WHATIF_IN_BACKGROUND = False
    cam_actions.roll_table(campaign_id=rubber.pk, user=carol)
    # Turn 1: one of carol's ships is destroyed; the what-if fights from there.
    lost = f"ship:{ship_numbers(rubber, 2)[0]}"
    cam_actions.enter_turn(campaign_id=rubber.pk, user=bob)
    cam_actions.enter_turn(campaign_id=rubber.pk, user=carol, destroyed=[lost])
    client.force_login(bob)
    page = client.get(reverse("cam-scenario", args=[rubber.pk, 1])).content.decode()
    assert 'id="cam-whatif-link"' in page and "Auto-resolve (the odds system on CAM points" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = _start(client, bob, rubber)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["ruleset"] == "buoyz" and body["scenario"] == 1 and body["campaign"] == rubber.pk
    assert [u["state"] for u in body["forces"]["b"]["units"]].count("destroyed") == 1
    run = WhatIfRun.objects.get(pk=body["id"])
    assert run.status == WhatIfRun.Status.DONE, run.error
    assert run.params["source"]["as_they_stand"] and run.params["scenario"]["turn"] == 2
    detail = client.get(f"/api/what-if/cam/{run.pk}/").json()
    assert detail["result"]["trials"] == 3 and sum(detail["result"]["endings"].values()) == 3
    # Reproducible: the same scenario and seed again give the same battles.
    with django_capture_on_commit_callbacks(execute=True):
        again = _start(client, bob, rubber).json()
    assert _without_time(WhatIfRun.objects.get(pk=again["id"]).result) == _without_time(run.result)
    page = client.get(reverse("cam-scenario", args=[rubber.pk, 1])).content.decode()
    assert 'id="cam-whatif-latest"' in page and f"What-if {again['id']}" in page
    run_page = client.get(reverse("whatif-detail", args=[run.pk])).content.decode()
    assert 'id="whatif-cam-results"' in run_page and "destroyed, not in the fight" in run_page
    listing = client.get(reverse("whatif-list")).content.decode()
    assert "Buoyz (CAM)" in listing and "scenario 1" in listing


@pytest.mark.django_db
def test_the_list_shows_runs_of_both_rule_books_and_others_get_404(client, bob, mallory):
    from campaign.eventhorizon.models import Design

    corvette = Design.objects.filter(campaign__isnull=True, ship_type="corvette").first()
    eh = whatif.start_what_if(user=bob, params={"trials": 2, "a": {"ships": [{"design": corvette.pk}]},
                                                "b": {"ships": [{"design": corvette.pk}]}})
    mine = cam.start_cam_what_if(user=bob, params=catalogue_request())
    client.force_login(bob)
    listing = client.get(reverse("whatif-list")).content.decode()
    assert "Buoyz (CAM)" in listing and "Event Horizon" in listing and "catalogue fleets" in listing
    assert client.get(f"/api/what-if/cam/{eh.pk}/").status_code == 404  # not a CAM run
    assert client.get(f"/api/what-if/{mine.pk}/").json()["ruleset"] == "buoyz"
    page = client.get(reverse("whatif-detail", args=[mine.pk])).content.decode()
    assert 'id="whatif-progress"' in page and 'id="force-a"' in page
    client.force_login(mallory)
    assert client.get(f"/api/what-if/cam/{mine.pk}/").status_code == 404
    assert client.get(reverse("whatif-detail", args=[mine.pk])).status_code == 404


@pytest.mark.django_db
def test_the_form_starts_a_catalogue_run_and_refuses_bad_fleets(client, bob):
    client.force_login(bob)
    page = client.get(reverse("whatif-cam-new"), {"period": 2}).content.decode()
    assert "<code>constitution</code>" in page  # the Period's catalogue
    bad = client.post(reverse("whatif-cam-new"), {"period": "2", "points": "60", "a_sds": "constitution",
                                                   "b_sds": "warp_bird_9000", "trials": "3"})
    assert bad.status_code == 400 and "not an SD of the CAM catalogue" in bad.content.decode()
    good = client.post(reverse("whatif-cam-new"), {"period": "2", "points": "60", "a_sds": "2 x constitution\nfirecat",
                                                    "b_sds": "d7\nd7\nwar_talon", "trials": "3"})
    run = WhatIfRun.objects.get()
    assert good.status_code == 302 and good["Location"] == reverse("whatif-detail", args=[run.pk])
    assert [sorted(side["ships"].values()) for side in run.params["sides"]] == [
        ["constitution", "constitution", "firecat"], ["d7", "d7", "war_talon"]]


@pytest.mark.django_db
def test_the_schema_documents_the_cam_bodies(alice):
    from rest_framework.test import APIClient

    c = APIClient()
    c.force_authenticate(alice)
    schema = c.get("/api/schema/", {"format": "json"}).json()
    post = schema["paths"]["/api/what-if/cam/"]["post"]
    ref = post["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert {"campaign", "scenario", "period", "points", "a", "b", "trials", "seed"} <= set(
        schema["components"]["schemas"][ref]["properties"])
    answer = post["responses"]["201"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert {"result", "forces", "status", "done"} <= set(schema["components"]["schemas"][answer]["properties"])
    assert "/api/what-if/cam/{run_id}/" in schema["paths"]


# --- PostgreSQL + Redis: a real Celery worker plays a CAM run in its worker processes ----------------


@pytest.mark.postgres
@pytest.mark.skipif(not REQUIRE_SERVICES, reason="only in the PostgreSQL + Redis CI pass")
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_real_celery_worker_plays_a_cam_run_over_worker_processes(bob, tmp_path, monkeypatch):
    from django.db import connection

    from tests.campaign.test_tasks import start_worker, stop_worker, wait_for

    assert connection.vendor == "postgresql"
    monkeypatch.setenv("WHATIF_CHUNK_SIZE", "0")  # the runner's own processes (chunks: test_whatif_chunks.py)
    trials = pool.PARALLEL_MIN_TRIALS + 1  # enough to be spread over the worker's subprocesses
    worker = start_worker(tmp_path, "--pool", "prefork", "--concurrency", "1")
    try:
        run = cam.start_cam_what_if(user=bob, params=catalogue_request(trials=trials, seed="celery"))
        assert wait_for(lambda: WhatIfRun.objects.get(pk=run.pk).status in ("done", "failed"), 180), worker.poll()
    finally:
        stop_worker(worker)
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.DONE, run.error
    job = {k: v for k, v in run.params.items() if k not in ("seed", "trials")}
    here = pool.play_cam_trials(job, "celery", trials, processes=1).result()
    assert _without_time(run.result) == {**here, "odds": run.result["odds"]}


@pytest.mark.django_db
def test_a_scenario_with_bases_and_minefields_is_fought_with_them(alice, bob, carol):
    campaign = make_cam(alice, bob, carol)
    cam_actions.generate_scenario(campaign_id=campaign.pk, user=alice, nature="open_battle")
    cam_actions.select_forces(campaign_id=campaign.pk, user=bob, ships=ship_numbers(campaign, 1, "constitution")[:2],
                              bases=1, minefields=1)
    cam_actions.select_forces(campaign_id=campaign.pk, user=carol, ships=ship_numbers(campaign, 2)[:3])
    cam_actions.roll_table(campaign_id=campaign.pk, user=carol)
    row = campaign.cam.scenario_rows.get(number=1)
    job = cam.scenario_job(campaign, row)
    assert {u["kind"] for u in job["sides"][0]["units"]} == {"ship", "base", "minefield"}
    state, _dice = camtrials.battle_state(job, "bases", 0)
    assert sum(1 for s in state.ships if s.side == 1) == 3 and len(state.minefields) == 1  # two ships and the base
    result = pool.play_cam_trials(job, "bases", 2).result()
    assert result["trials"] == 2 and sum(result["endings"].values()) == 2
    # CAM26: the base is side A's planetary defences (a force multiplier), not points.
    odds = camtrials.auto_resolve_odds(job)
    assert odds["points"]["a"] == sum(u["points"] for u in job["sides"][0]["units"] if u["kind"] != "base")
