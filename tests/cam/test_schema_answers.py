"""The CAM API answers as its OpenAPI schema declares, for every status it really gives (the
schemathesis probe of /api/schema/ found the scenarios, rosters and SDs lists declared as one
object, POSTs that create declared 200 where they answer 201, and their 400, 403, 404 and 409 not
declared). Each answer below, valid or refused, is checked against the schema's response for its
status (tests/openapi_check.py)."""

from __future__ import annotations

import pytest

from campaign import actions as platform
from campaign.cam import actions, online
from tests.openapi_check import api, sent

from .conftest import ship_numbers

pytestmark = pytest.mark.django_db

C = "/api/cam/campaigns/{campaign_id}/"
S = C + "scenarios/{number}/"
SD = {"key": "excelsior", "ship_class": "CA", "name": "CA USS 'Excelsior'", "speed": 7, "turning": 3,
      "target_size": 2, "shields": [4, 4, 4, 4], "hull": 9, "crippled_at": 5, "period_first": 2,
      "period_last": 5, "main": [[4, "Phaser", ""]]}


def test_the_lists_and_the_catalogue_are_what_the_schema_declares(cam_campaign, alice, bob, carol):
    c = cam_campaign
    base = f"/api/cam/campaigns/{c.pk}/"
    actions.add_custom_sd(campaign_id=c.pk, user=alice, fields=SD)  # a custom SD: speed and notes of its own
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    for user in (alice, bob, carol):  # the moderator sees both forces, a player his own
        assert sent(api(user).get(base + "scenarios/"), "get", C + "scenarios/", 200)
        sent(api(user).get(base + "scenarios/1/"), "get", S, 200)
        assert sent(api(user).get(base + "sds/"), "get", C + "sds/", 200)
        assert sent(api(user).get(base + "rosters/"), "get", C + "rosters/", 200)
        sent(api(user).get(base), "get", C, 200)
        assert sent(api(user).get("/api/cam/campaigns/"), "get", "/api/cam/campaigns/", 200)
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    sent(api(carol).post(base + "scenarios/1/table/"), "post", S + "table/", 200)
    sent(api(carol).post(base + "scenarios/1/turns/", {"destroyed": [f"ship:{ship_numbers(c, 2)[0]}"]},
                         format="json"), "post", S + "turns/", 200)
    sent(api(bob).post(base + "scenarios/1/turns/", {}, format="json"), "post", S + "turns/", 200)
    assert sent(api(bob).get(base + "scenarios/1/break-contact/"), "get", S + "break-contact/", 200)["must_check"]
    sent(api(alice).post(base + "scenarios/1/autoresolve/"), "post", S + "autoresolve/", 200)
    for user in (alice, bob, carol):
        sent(api(user).get(base + "scenarios/1/"), "get", S, 200)
        assert sent(api(user).get(base + "standings/"), "get", C + "standings/", 200)["scenarios"]
        sent(api(user).get(base + "rosters/"), "get", C + "rosters/", 200)
    sent(api(bob).post(base + "between/", {"requests": []}, format="json"), "post", C + "between/", 200)


def test_a_scenario_fought_online_is_what_the_schema_declares(cam_campaign, alice, bob, carol):
    c = cam_campaign
    base = f"/api/cam/campaigns/{c.pk}/"
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    sent(api(alice).put(base + "scenarios/1/mode/", {"mode": "online"}, format="json"), "put", S + "mode/", 200)
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    actions.roll_table(campaign_id=c.pk, user=bob)
    assert online.battle_summary(c.cam.scenario_rows.get(number=1)) is not None
    for user in (alice, bob, carol):
        assert sent(api(user).get(base + "scenarios/1/"), "get", S, 200)["online"]
        sent(api(user).get(base + "scenarios/"), "get", C + "scenarios/", 200)


def test_what_creates_answers_201_as_declared(db, alice, bob, carol):
    created = sent(api(alice).post("/api/cam/campaigns/", {
        "name": "API rubber", "period": 2, "starting_points": 100, "players": [
            {"username": "bob", "faction": "UFP"}, {"username": "carol", "faction": "Klingons"}]}, format="json"),
        "post", "/api/cam/campaigns/", 201)
    base = f"/api/cam/campaigns/{created['id']}/"
    sent(api(alice).post(base + "sds/", SD, format="json"), "post", C + "sds/", 201)
    sent(api(bob).put(base + "fleet/", {"fleet": ["constitution", "excelsior"]}, format="json"), "put",
         C + "fleet/", 200)
    sent(api(carol).put(base + "fleet/", {"fleet": ["d7"]}, format="json"), "put", C + "fleet/", 200)
    sent(api(alice).post(base + "start/"), "post", C + "start/", 200)
    sent(api(bob).post(base + "scenarios/", {}, format="json"), "post", C + "scenarios/", 201)


def test_every_refusal_is_declared_with_its_body(cam_campaign, alice, bob, carol, mallory):
    c = cam_campaign
    base = f"/api/cam/campaigns/{c.pk}/"
    # 400: the action refuses what was sent
    sent(api(alice).post("/api/cam/campaigns/", {"name": "x", "period": 9}, format="json"), "post",
         "/api/cam/campaigns/", 400)
    sent(api(alice).post("/api/cam/campaigns/", {"name": "x", "players": 5}, format="json"), "post",
         "/api/cam/campaigns/", 400)
    sent(api(alice).post(base + "sds/", {**SD, "hull": 31}, format="json"), "post", C + "sds/", 400)
    sent(api(alice).post(base + "start/"), "post", C + "start/", 400)  # started already
    sent(api(bob).put(base + "fleet/", {"fleet": ["constitution"]}, format="json"), "put", C + "fleet/", 400)
    sent(api(alice).post(base + "scenarios/", {"nature": "nonsense"}, format="json"), "post", C + "scenarios/", 400)
    sent(api(bob).post(base + "between/", {"requests": "x"}, format="json"), "post", C + "between/", 400)
    # 403: a player doing the moderator's part
    sent(api(bob).post(base + "sds/", SD, format="json"), "post", C + "sds/", 403)
    sent(api(bob).post(base + "start/"), "post", C + "start/", 403)
    # 404: an outsider, or a scenario that does not exist
    for method, sub, path in (("get", "", C), ("get", "sds/", C + "sds/"), ("get", "rosters/", C + "rosters/"),
                              ("get", "scenarios/", C + "scenarios/"), ("get", "standings/", C + "standings/"),
                              ("post", "start/", C + "start/"), ("put", "fleet/", C + "fleet/"),
                              ("post", "sds/", C + "sds/"), ("post", "between/", C + "between/"),
                              ("post", "scenarios/", C + "scenarios/")):
        sent(getattr(api(mallory), method)(base + sub, {}, format="json"), method, path, 404)
    for method, sub in (("get", ""), ("get", "break-contact/"), ("put", "forces/"), ("post", "table/"),
                        ("post", "turns/"), ("post", "end/"), ("post", "confirm/"), ("post", "reject/"),
                        ("post", "autoresolve/")):
        for user in (mallory, bob):  # bob: no scenario 1 yet
            sent(getattr(api(user), method)(base + "scenarios/1/" + sub, {}, format="json"), method, S + sub, 404)
    # the scenario's own refusals: 400 and 403
    sent(api(bob).post(base + "scenarios/", {}, format="json"), "post", C + "scenarios/", 201)
    sent(api(bob).put(base + "scenarios/1/forces/", {"ships": [999]}, format="json"), "put", S + "forces/", 400)
    sent(api(carol).put(base + "scenarios/1/forces/", {"ships": ship_numbers(c, 1)[:1], "seat": 1}, format="json"),
         "put", S + "forces/", 403)
    for sub in ("table/", "turns/", "end/", "confirm/", "reject/"):
        sent(api(bob).post(base + "scenarios/1/" + sub, {}, format="json"), "post", S + sub, 400)
    sent(api(bob).post(base + "scenarios/1/autoresolve/"), "post", S + "autoresolve/", 403)
    sent(api(alice).post(base + "scenarios/1/autoresolve/"), "post", S + "autoresolve/", 400)
    sent(api(bob).get(base + "standings/"), "get", C + "standings/", 200)
    # 409: the rubber is paused (ruling CAM60)
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    platform.pause_campaign(campaign_id=c.pk, user=alice)
    sent(api(bob).post(base + "scenarios/1/table/"), "post", S + "table/", 409)
    platform.resume_campaign(campaign_id=c.pk, user=alice)
    actions.roll_table(campaign_id=c.pk, user=bob)
    platform.pause_campaign(campaign_id=c.pk, user=alice)
    sent(api(bob).post(base + "scenarios/1/end/"), "post", S + "end/", 409)


def test_a_campaign_not_started_has_no_standings_and_says_so_as_declared(db, alice, bob, carol):
    from .conftest import make_cam

    c = make_cam(alice, bob, carol, start=False)
    sent(api(bob).get(f"/api/cam/campaigns/{c.pk}/standings/"), "get", C + "standings/", 404)
