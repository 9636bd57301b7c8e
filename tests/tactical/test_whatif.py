"""What-if runs (issue 5, item 6): K doctrine battles between two fleets beside the auto-resolve
exact odds. Rulings WI1–WI4 in docs/rulings.md; fog of war FW2/FW8; 003 "Alternative to a
Tactical Battle" for the odds."""

from __future__ import annotations

import pytest
from django.db import connection
from django.urls import reverse

from campaign.eventhorizon.adapters import load_state
from campaign.eventhorizon.models import Design, Fleet, Ship
from campaign.rules.eventhorizon import fog
from campaign.rules.eventhorizon.autoresolve import Side, odds
from tactical.models import WhatIfRun
from tactical.rules.eventhorizon import trials as eh_trials  # the battle a run fights
from tactical.whatif import runs as whatif
from tests.dbsessions import other_sessions

pytestmark = pytest.mark.django_db


def library(ship_type: str) -> Design:
    return Design.objects.get(campaign__isnull=True, ship_type=ship_type)


def free(*rows, trials=6, seed="fixed-seed", **extra):
    """A request with fleet A built from ``rows`` and fleet B one Sultan-class destroyer."""
    return {"trials": trials, "seed": seed,
            "a": {"ships": [{"design": library(t).pk, "count": n} for t, n in rows]},
            "b": {"ships": [{"design": library("destroyer").pk, "count": 1}]}, **extra}


def start_and_run(user, params):
    run = whatif.start_what_if(user=user, params=params)
    return whatif.run_what_if(run.pk)


# --- refusals: a clear message, nothing created ------------------------------------------------


@pytest.mark.parametrize(("change", "message"), [
    ({"trials": 0}, "trials must be 1 to 2000, not 0"),
    ({"trials": 2001}, "trials must be 1 to 2000, not 2001"),
    ({"trials": "many"}, "trials must be a whole number"),
    ({"trials": True}, "trials must be a whole number"),
    ({"b": None}, "fleet B is missing"),
    ({"b": {}}, "fleet B: pick a campaign fleet or build one freely, not neither"),
    ({"a": {"fleet": 1}}, "fleet A: a fleet number needs a campaign"),
    ({"colour": "red"}, "unknown field(s): colour"),
    ({"seed": "x" * 65}, "seed must be a text of 1 to 64 characters"),
    ({"campaign": 999999}, "campaign 999999 is not one of your campaigns"),
])
def test_start_refuses_a_bad_request_and_creates_nothing(bob, change, message):
    with pytest.raises(whatif.WhatIfError, match=message.replace("(", r"\(").replace(")", r"\)")):
        whatif.start_what_if(user=bob, params={**free(("frigate", 1)), **change})
    assert not WhatIfRun.objects.exists()


def test_start_refuses_fleets_outside_one_to_thirty_ships(bob):
    with pytest.raises(whatif.WhatIfError, match="fleet A must have 1 to 30 ships, not 31"):
        whatif.start_what_if(user=bob, params=free(("frigate", 20), ("corvette", 11)))
    with pytest.raises(whatif.WhatIfError, match="fleet A, row 1: the count must be 1 to 30, not 0"):
        whatif.start_what_if(user=bob, params=free(("frigate", 0)))
    with pytest.raises(whatif.WhatIfError, match="fleet A: give at least one row"):
        whatif.start_what_if(user=bob, params={**free(("frigate", 1)), "a": {"ships": "lots"}})
    assert not WhatIfRun.objects.exists()


def test_start_refuses_a_design_outside_the_library(bob, small_campaign):
    carol_empire = small_campaign.empires.get(seat=2)
    secret = Design.objects.create(
        campaign=small_campaign,
        empire=carol_empire,
        name="Carol's Blade",
        ship_type="frigate",
        bp=30,
        spec={**library("frigate").spec, "name": "Carol's Blade"},
    )
    params = free(("frigate", 1))
    params["a"]["ships"][0]["design"] = secret.pk
    # WI3: another empire's design is not bob's to build, with or without the campaign.
    with pytest.raises(whatif.WhatIfError, match=f"design {secret.pk} is not in the starter library$"):
        whatif.start_what_if(user=bob, params=params)
    with pytest.raises(whatif.WhatIfError, match=f"design {secret.pk} is not in the starter library or your campaign"):
        whatif.start_what_if(user=bob, params={**params, "campaign": small_campaign.pk})
    assert not WhatIfRun.objects.exists()


def test_a_campaign_fleet_is_a_fleet_the_player_can_see(small_campaign_without_fleets, bob, carol, alice, mallory):
    """FW2/FW8: a player picks only fleets he detects; the same words for hidden and missing."""
    small_campaign = small_campaign_without_fleets  # the test places every fleet itself
    bob_empire, carol_empire = small_campaign.empires.get(seat=1), small_campaign.empires.get(seat=2)
    sword = library("frigate")
    carol_design = Design.objects.create(campaign=small_campaign, empire=carol_empire, name="Carol's Blade",
                                         ship_type="frigate", bp=30,
                                         spec={**sword.spec, "name": "Carol's Blade"})
    state = load_state(small_campaign)
    seen_by_bob = fog.detected_cells(state, 1, small_campaign.detection_range)
    near = next(iter(sorted(seen_by_bob)))
    far = next((x, y) for y in range(small_campaign.height) for x in range(small_campaign.width)
               if (x, y) not in seen_by_bob and max(abs(x - near[0]), abs(y - near[1])) > 4)
    f1 = Fleet.objects.create(campaign=small_campaign, owner=bob_empire, number=1, x=near[0], y=near[1])
    Ship.objects.create(campaign=small_campaign, owner=bob_empire, number=1, design=sword, fleet=f1, hero_crew=True,
                        damage={"hull": 2}, name="Lucky")
    f2 = Fleet.objects.create(campaign=small_campaign, owner=carol_empire, number=2, x=near[0], y=near[1])
    Ship.objects.create(campaign=small_campaign, owner=carol_empire, number=2, design=carol_design, fleet=f2,
                        hero_crew=True, damage={"hull": 1})
    f3 = Fleet.objects.create(campaign=small_campaign, owner=carol_empire, number=3, x=far[0], y=far[1])
    Ship.objects.create(campaign=small_campaign, owner=carol_empire, number=3, design=sword, fleet=f3)

    base = {"campaign": small_campaign.pk, "trials": 2, "seed": "s"}
    run = whatif.start_what_if(user=bob, params={**base, "a": {"fleet": 1}, "b": {"fleet": 2}})
    a, b = run.params["sides"]
    assert a["own"] and a["ships"][0]["hero_crew"] and a["ships"][0]["damage"]["hull"] == 2
    assert a["ships"][0]["bp"] == 30 + 30  # WI1 / RULINGS "Auto-resolve odds": a hero crew adds 30 BP
    # WI2: carol's ship is seen as a Frigate only: the library Frigate stands in, undamaged, no hero.
    assert not b["own"]
    assert b["ships"][0] == {**b["ships"][0], "design_id": sword.pk, "stand_in": True, "hero_crew": False, "damage": {}}
    assert "Carol's Blade" not in str(run.params)

    with pytest.raises(whatif.WhatIfError, match="fleet B: fleet 3 is not a fleet you can see"):
        whatif.start_what_if(user=bob, params={**base, "a": {"fleet": 1}, "b": {"fleet": 3}})
    with pytest.raises(whatif.WhatIfError, match="fleet B: fleet 99 is not a fleet you can see"):
        whatif.start_what_if(user=bob, params={**base, "a": {"fleet": 1}, "b": {"fleet": 99}})
    with pytest.raises(whatif.WhatIfError, match=f"campaign {small_campaign.pk} is not one of your campaigns"):
        whatif.start_what_if(user=mallory, params={**base, "a": {"fleet": 1}, "b": {"fleet": 2}})
    assert WhatIfRun.objects.count() == 1

    # The moderator sees everything: carol's real design, damage and hero crew.
    run = whatif.start_what_if(user=alice, params={**base, "a": {"fleet": 3}, "b": {"fleet": 2}})
    b = run.params["sides"][1]["ships"][0]
    assert (b["design_name"], b["hero_crew"], b["damage"]["hull"], b["stand_in"]) == ("Carol's Blade", True, 1, False)
    # ... and may build free fleets from any of the campaign's designs (WI3).
    run = whatif.start_what_if(user=alice, params={**base, "a": {"ships": [{"design": carol_design.pk, "count": 2}]},
                                                   "b": {"fleet": 1}})
    assert [s["design_name"] for s in run.params["sides"][0]["ships"]] == ["Carol's Blade"] * 2
    # A what-if rolls no campaign dice (WI1).
    rolls = small_campaign.dice_rolls.count()
    assert whatif.run_what_if(run.pk).status == WhatIfRun.Status.DONE
    assert small_campaign.dice_rolls.count() == rolls


# --- running -------------------------------------------------------------------------------------


def test_a_fixed_seed_gives_the_same_results(bob):
    first = start_and_run(bob, free(("frigate", 1), ("corvette", 1), trials=8, seed="repeat me"))
    second = start_and_run(bob, free(("frigate", 1), ("corvette", 1), trials=8, seed="repeat me"))
    strip = lambda r: {k: v for k, v in r.items() if k != "seconds"}  # noqa: E731
    assert first.status == second.status == WhatIfRun.Status.DONE
    assert strip(first.result) == strip(second.result)
    # Battle i rolls from its own stream: the same battle in a longer run comes out the same.
    fleets = whatif.fleets_from_params(first.params)
    assert whatif.play_trial(fleets, "repeat me", 3) == whatif.play_trial(fleets, "repeat me", 3)
    # ... and different battles of a run roll differently.
    assert len({whatif.play_trial(fleets, "repeat me", i).cards for i in range(6)}) > 1


def test_a_random_seed_is_stored_so_the_run_can_be_repeated(bob):
    run = start_and_run(bob, free(("frigate", 1), seed=None, trials=3))
    assert len(run.params["seed"]) == 32
    again = start_and_run(bob, free(("frigate", 1), seed=run.params["seed"], trials=3))
    assert again.result["wins"] == run.result["wins"] and again.result["survivors"] == run.result["survivors"]


def test_results_add_up(bob):
    run = start_and_run(bob, free(("frigate", 2), ("corvette", 1), trials=12))
    r = run.result
    assert run.done == run.trials == r["trials"] == 12 and run.finished_at is not None
    assert r["wins"]["a"] + r["wins"]["b"] + r["draws"] == 12
    assert sum(r["win_rate"].values()) == pytest.approx(1.0)
    for side, ships in (("a", 3), ("b", 1)):
        assert sum(r["survivors"][side]) == 12 and len(r["survivors"][side]) == ships + 1
        assert sum(r["mean_fates"][side].values()) == pytest.approx(ships)
        lost = r["mean_fates"][side]["destroyed"] + r["mean_fates"][side]["captured"]
        assert r["mean_ships_lost"][side] == pytest.approx(lost)
        assert 0 <= r["mean_bp_lost"][side] <= (95 if side == "a" else 35)
    assert r["capped"] <= r["draws"]


def test_results_sit_beside_the_auto_resolve_exact_odds(bob):
    """003 Alternative to a Tactical Battle: the same fleets as the rule sees them."""
    run = start_and_run(bob, free(("star_cruiser", 1), ("frigate", 1), trials=2))
    expected = odds(Side(bp=70, has_star_cruiser=True, ships=2), Side(bp=35, has_destroyer=True, ships=1))
    o = run.result["odds"]
    assert o["bp"] == {"a": 70, "b": 35}
    assert o["dice"] == {"a": expected.a_dice, "b": expected.b_dice} == {"a": 3, "b": 1}  # 2:1, +1 Star Cruiser
    assert o["win"] == {"a": expected.p_a_wins, "b": expected.p_b_wins}
    assert o["expected_losses"] == {"a": expected.expected_a_losses, "b": expected.expected_b_losses}
    assert o["win"]["a"] + o["win"]["b"] == pytest.approx(1.0)


def test_progress_moves_every_ten_battles_and_reaches_trials(bob, monkeypatch):
    run = whatif.start_what_if(user=bob, params=free(("corvette", 1), trials=25))
    seen = []
    real = whatif.play_trial

    def spy(fleets, seed, index):
        seen.append(WhatIfRun.objects.get(pk=run.pk).done)
        return real(fleets, seed, index)

    monkeypatch.setattr(eh_trials, "play_trial", spy)
    whatif.run_what_if(run.pk, clock=lambda: 0.0)
    assert seen == [0] * 10 + [10] * 10 + [20] * 5
    run.refresh_from_db()
    assert (run.status, run.done) == (WhatIfRun.Status.DONE, 25)


def test_a_slow_battle_reports_progress_at_once(bob, monkeypatch):
    run = whatif.start_what_if(user=bob, params=free(("corvette", 1), trials=3))
    ticks = iter(range(0, 100, 2))  # every battle "takes" two seconds
    seen = []
    real = whatif.play_trial
    monkeypatch.setattr(eh_trials, "play_trial",
                        lambda *a: seen.append(WhatIfRun.objects.get(pk=run.pk).done) or real(*a))
    whatif.run_what_if(run.pk, clock=lambda: next(ticks))
    assert seen == [0, 1, 2]


def test_a_done_run_is_not_run_again(bob, monkeypatch):
    run = start_and_run(bob, free(("corvette", 1), trials=2))
    monkeypatch.setattr(eh_trials, "play_trial", lambda *a: pytest.fail("a done run was played again"))
    assert whatif.run_what_if(run.pk).result == run.result
    assert whatif.run_what_if(987654) is None


def test_a_failure_is_stored(bob, monkeypatch):
    run = whatif.start_what_if(user=bob, params=free(("corvette", 1), trials=2))

    def boom(*args):
        raise RuntimeError("the engine broke")

    monkeypatch.setattr(eh_trials, "play_trial", boom)
    whatif.run_what_if(run.pk)
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.FAILED and run.error == "RuntimeError: the engine broke"
    assert run.result is None and run.finished_at is not None


def test_the_task_runs_the_action_after_commit(bob, eager_tasks, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = whatif.start_what_if(user=bob, params=free(("corvette", 1), trials=2))
    assert len(callbacks) == 1 and WhatIfRun.objects.get(pk=run.pk).status == WhatIfRun.Status.QUEUED
    callbacks[0]()
    assert WhatIfRun.objects.get(pk=run.pk).status == WhatIfRun.Status.DONE


# --- pages ---------------------------------------------------------------------------------------


def test_pages_need_a_login(client):
    for url in (reverse("whatif-list"), reverse("whatif-new"), "/what-if/1/", "/what-if/1/progress.json"):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_new_page_offers_designs_and_visible_fleets(client, bob, small_campaign_without_fleets):
    small_campaign = small_campaign_without_fleets  # the test places its own fleet
    bob_empire = small_campaign.empires.get(seat=1)
    f = Fleet.objects.create(campaign=small_campaign, owner=bob_empire, number=7, x=1, y=1)
    Ship.objects.create(campaign=small_campaign, owner=bob_empire, number=1, design=library("frigate"), fleet=f)
    client.force_login(bob)
    page = client.get(reverse("whatif-new")).content.decode()
    assert "Knights of G.O.D Sword Class Frigate" in page and 'name="a_fleet"' not in page
    page = client.get(reverse("whatif-new") + f"?campaign={small_campaign.pk}").content.decode()
    assert 'name="a_fleet"' in page and "Fleet 7 — Bob&#x27;s Realm (yours) — 1 Frigate" in page
    assert client.get(reverse("whatif-new") + "?campaign=999999").status_code == 404


def test_the_form_runs_a_what_if_and_shows_the_results(client, bob, eager_tasks, django_capture_on_commit_callbacks):
    client.force_login(bob)
    data = {"trials": "4", "seed": "page", "a_design_1": library("frigate").pk, "a_count_1": "2",
            "b_design_1": library("destroyer").pk, "b_design_2": library("corvette").pk, "b_count_2": "1"}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("whatif-new"), data)
    run = WhatIfRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("whatif-detail", args=[run.pk])
    assert run.status == WhatIfRun.Status.DONE and [len(s["ships"]) for s in run.params["sides"]] == [2, 2]
    page = client.get(response["Location"]).content.decode()
    assert "Auto-resolve: chance to win (exact)" in page and "<svg" in page and "<progress" not in page
    assert "2 × Knights of G.O.D Sword Class Frigate" in page
    assert "http-equiv=\"refresh\"" not in page


def test_the_form_refuses_bad_fleets_with_a_message(client, bob):
    client.force_login(bob)
    response = client.post(reverse("whatif-new"), {"trials": "5", "a_design_1": library("frigate").pk})
    assert response.status_code == 400
    assert "fleet B: pick a campaign fleet or build one freely, not neither" in response.content.decode()
    response = client.post(reverse("whatif-new"), {"trials": "5000", "a_design_1": library("frigate").pk,
                                                   "b_design_1": library("frigate").pk})
    assert response.status_code == 400 and "less than or equal to 2000" in response.content.decode()
    response = client.post(reverse("whatif-new"), {"trials": "5", "a_count_1": "3",
                                                   "b_design_1": library("frigate").pk})
    assert response.status_code == 400 and "Fleet A: a row has a count but no design." in response.content.decode()
    assert not WhatIfRun.objects.exists()


def test_a_running_run_shows_a_progress_bar(client, bob):
    run = whatif.start_what_if(user=bob, params=free(("corvette", 1), trials=40))  # not run: no commit here
    WhatIfRun.objects.filter(pk=run.pk).update(status=WhatIfRun.Status.RUNNING, done=10)
    client.force_login(bob)
    page = client.get(reverse("whatif-detail", args=[run.pk])).content.decode()
    assert '<progress id="whatif-bar" value="10" max="40"' in page
    assert '<meta http-equiv="refresh" content="2">' in page and "whatif.js" in page
    progress = client.get(reverse("whatif-progress", args=[run.pk])).json()
    assert progress == {"id": run.pk, "status": "running", "done": 10, "trials": 40, "percent": 25.0, "error": ""}


def test_a_failed_run_says_why(client, bob):
    run = whatif.start_what_if(user=bob, params=free(("corvette", 1), trials=2))
    WhatIfRun.objects.filter(pk=run.pk).update(status=WhatIfRun.Status.FAILED, error="RuntimeError: boom")
    client.force_login(bob)
    page = client.get(reverse("whatif-detail", args=[run.pk])).content.decode()
    assert "The run failed." in page and "RuntimeError: boom" in page and "<progress" not in page


def test_only_the_owner_sees_a_run(client, bob, mallory):
    run = start_and_run(bob, free(("corvette", 1), trials=1))
    client.force_login(mallory)
    assert client.get(reverse("whatif-detail", args=[run.pk])).status_code == 404
    assert client.get(reverse("whatif-progress", args=[run.pk])).status_code == 404
    assert f"What-if {run.pk}" not in client.get(reverse("whatif-list")).content.decode()
    client.force_login(bob)
    assert f"What-if {run.pk}" in client.get(reverse("whatif-list")).content.decode()


# --- API -----------------------------------------------------------------------------------------


def test_api_creates_and_reports_a_run(client, bob, eager_tasks, django_capture_on_commit_callbacks):
    client.force_login(bob)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/what-if/", free(("frigate", 1), trials=3), content_type="application/json")
    assert response.status_code == 201
    run_id = response.json()["id"]
    body = client.get(f"/api/what-if/{run_id}/").json()
    assert body["status"] == "done" and body["done"] == body["trials"] == 3
    assert body["result"]["wins"]["a"] + body["result"]["wins"]["b"] + body["result"]["draws"] == 3
    assert set(body["result"]["odds"]["win"]) == {"a", "b"} and body["seed"] == "fixed-seed"
    assert body["fleets"]["a"]["ships"][0]["design_name"] == "Knights of G.O.D Sword Class Frigate"
    assert [r["id"] for r in client.get("/api/what-if/").json()["results"]] == [run_id]


def test_api_refuses_bad_requests_with_a_message(client, bob):
    client.force_login(bob)
    response = client.post("/api/what-if/", {**free(("frigate", 1)), "trials": 0}, content_type="application/json")
    assert response.status_code == 400 and response.json() == {"detail": "trials must be 1 to 2000, not 0"}
    response = client.post("/api/what-if/", [1, 2], content_type="application/json")
    assert response.status_code == 400 and "must be an object" in response.json()["detail"]
    assert not WhatIfRun.objects.exists()


def test_api_hides_other_users_runs_and_refuses_anonymous(client, bob, mallory):
    run = start_and_run(bob, free(("corvette", 1), trials=1))
    assert client.get(f"/api/what-if/{run.pk}/").status_code in (401, 403)
    assert client.post("/api/what-if/", free(("frigate", 1)), content_type="application/json").status_code in (401, 403)
    client.force_login(mallory)
    assert client.get(f"/api/what-if/{run.pk}/").status_code == 404
    assert client.get("/api/what-if/").json()["results"] == []
    assert WhatIfRun.objects.count() == 1


def test_a_run_that_cannot_be_queued_fails_visibly(bob, monkeypatch, django_capture_on_commit_callbacks):
    from tactical import tasks

    def down(*args):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(tasks.run_what_if, "delay", down)
    with django_capture_on_commit_callbacks(execute=True):
        run = whatif.start_what_if(user=bob, params=free(("corvette", 1), trials=2))
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.FAILED and "broker unreachable" in run.error


def _sample_sides(n=3):
    from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS

    return [{"key": key, "ships": [{"design": SAMPLE_DESIGNS[(i + k) % 4].to_dict()} for i in range(n)]}
            for k, key in enumerate(("a", "b"))]


def test_battles_spread_over_worker_processes_add_up_exactly_as_in_one():  # ruling WI1: each battle its own seed
    sides = _sample_sides()
    seen = []
    one = whatif.play_trials(sides, "spread", 41, processes=1).result()
    two = whatif.play_trials(sides, "spread", 41, seen.append, processes=2).result()
    assert one == two and one["trials"] == 41
    assert sorted(seen) == list(range(1, 42))  # progress moved with every battle


def test_a_failing_worker_fails_the_run_loudly(monkeypatch):
    sides = _sample_sides()
    good = whatif.fleets_from_sides(sides)
    monkeypatch.setattr(whatif, "fleets_from_sides", lambda _sides: good)  # only the workers see it broken
    sides[0]["ships"][0]["design"] = {"name": "broken"}
    with pytest.raises(RuntimeError, match="worker failed"):
        whatif.play_trials(sides, "broken", 41, processes=2)


# --- without a broker: a thread of the server plays the run; an unfinished run can be restarted ----

@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_without_a_broker_a_run_plays_in_a_thread_and_the_request_returns_at_once(settings, client, bob):
    import threading

    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.WHATIF_IN_BACKGROUND = True
    client.force_login(bob)
    gate = threading.Event()
    real = whatif.run_what_if

    def held(run_id, **kwargs):  # the run waits until the request has returned
        gate.wait(30)
        return real(run_id, **kwargs)

    import unittest.mock

    with unittest.mock.patch.object(whatif, "run_what_if", held):
        response = client.post("/api/what-if/", free(("corvette", 1), trials=3), content_type="application/json")
        assert response.status_code == 201, response.content
        run = WhatIfRun.objects.get()
        assert run.status == WhatIfRun.Status.QUEUED  # the request did not play it
        thread = next(t for t in threading.enumerate() if t.name == f"what-if-{run.pk}")
        gate.set()
        thread.join(60)
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.DONE and run.done == 3 and run.result["trials"] == 3
    if connection.vendor == "postgresql":
        assert other_sessions() == []  # the thread closed its connection


def test_an_unfinished_run_can_be_started_again_by_its_owner(eager_tasks, client, bob, mallory,
                                                             django_capture_on_commit_callbacks):
    run = whatif.start_what_if(user=bob, params=free(("corvette", 1), trials=2))
    # Its server stopped two minutes ago: no progress since (a run still heartbeating is not
    # restarted: tests/tactical/test_whatif_limits.py).
    from datetime import timedelta

    from django.utils import timezone

    WhatIfRun.objects.filter(pk=run.pk).update(status=WhatIfRun.Status.RUNNING, done=1, claim="dead",
                                               heartbeat_at=timezone.now() - timedelta(minutes=2))
    client.force_login(mallory)
    assert client.post(f"/what-if/{run.pk}/restart/").status_code == 404
    client.force_login(bob)
    page = client.get(f"/what-if/{run.pk}/").content.decode()
    assert 'id="whatif-restart"' in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/what-if/{run.pk}/restart/")
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == WhatIfRun.Status.DONE and run.done == 2
    response = client.post(f"/what-if/{run.pk}/restart/", follow=True)
    assert "nothing to restart" in response.content.decode()
    assert client.get(f"/what-if/{run.pk}/restart/").status_code == 405


def test_a_busy_database_skips_a_progress_report_and_the_run_goes_on(bob, monkeypatch):
    # Found by a full run on SQLite: the page's poll held the table ("database table is locked") as
    # the runner wrote its progress, and the whole run failed for a best-effort report.
    from django.db import OperationalError
    from django.db.models import QuerySet

    run = whatif.start_what_if(user=bob, params=free(("corvette", 1), trials=3))
    ticks = iter(range(0, 100, 2))  # every battle "takes" two seconds: each one reports
    real_update, refused = QuerySet.update, []

    def busy_once(self, **kwargs):
        if set(kwargs) == {"done", "heartbeat_at"} and not refused:
            refused.append(kwargs["done"])
            raise OperationalError("database table is locked: tactical_whatifrun")
        return real_update(self, **kwargs)

    monkeypatch.setattr(QuerySet, "update", busy_once)
    finished = whatif.run_what_if(run.pk, clock=lambda: next(ticks))
    assert refused == [1] and finished.status == WhatIfRun.Status.DONE and finished.done == 3


@pytest.mark.parametrize("write", ["claim", "done"])
def test_a_locked_table_delays_the_runs_own_writes_and_they_land(bob, monkeypatch, write):
    # Found by CI on SQLite: the page's poll held the table as the runner stored the result, the
    # thread died on "database table is locked" and the run stayed "running" for good. The claim
    # and the end are not best effort: they wait for the reader and land.
    from django.db import OperationalError
    from django.db.models import QuerySet

    run = whatif.start_what_if(user=bob, params=free(("corvette", 1), trials=2))
    real_update, refused = QuerySet.update, []
    wanted = {"claim": "claim", "done": "result"}[write]

    def locked_twice(self, **kwargs):
        if wanted in kwargs and len(refused) < 2:
            refused.append(write)
            raise OperationalError("database table is locked: tactical_whatifrun")
        return real_update(self, **kwargs)

    monkeypatch.setattr(QuerySet, "update", locked_twice)
    monkeypatch.setattr(whatif.time, "sleep", lambda seconds: None)
    finished = whatif.run_what_if(run.pk)
    assert refused == [write, write] and finished.status == WhatIfRun.Status.DONE and finished.done == 2


def test_any_other_database_error_in_the_runs_own_writes_is_not_retried(bob, monkeypatch):
    from django.db import OperationalError
    from django.db.models import QuerySet

    run = whatif.start_what_if(user=bob, params=free(("corvette", 1), trials=2))
    real_update, tries = QuerySet.update, []

    def gone(self, **kwargs):
        if "claim" in kwargs:
            tries.append(1)
            raise OperationalError("server closed the connection unexpectedly")
        return real_update(self, **kwargs)

    monkeypatch.setattr(QuerySet, "update", gone)
    with pytest.raises(OperationalError, match="server closed"):
        whatif.run_what_if(run.pk)
    assert tries == [1]
