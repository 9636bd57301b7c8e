"""The shapes of the API's success answers, as the OpenAPI schema (drf-spectacular, /api/schema/)
declares them: a 2xx declared as a bare ``{"type": "object"}`` (or a map of anything) tells a
client generator nothing of it. Each operation declared since is checked against its real answer
(tests/openapi_check.py), and the walk below lists those still free-form: the list may only shrink.
"""

from __future__ import annotations

import pytest

from tests.openapi_check import api, mismatch, openapi, path_of, sent

pytestmark = pytest.mark.django_db

# Still free-form (the 2xx of these declares no properties). Declare one, then take it off; a new
# free-form answer, or a declared one gone free-form again, fails the walk.
STILL_FREE_FORM = {
    "GET /api/campaigns/{campaign_id}/export/ 200",
    "GET /api/schema/ 200",  # an OpenAPI document: its shape is OpenAPI's own
}

DECLARED = {  # declared since the list above was taken: these must stay declared
    "GET /api/campaigns/{campaign_id}/map/ 200",
    "GET /api/campaigns/{campaign_id}/reports/{turn}/ 200",
    "POST /api/campaigns/{campaign_id}/orders/preview/ 200",
    "GET /api/campaigns/{campaign_id}/battles/ 200", "GET /api/battles/{battle_id}/ 200",
    "POST /api/battles/{battle_id}/result/ 200", "POST /api/battles/{battle_id}/confirm/ 200",
    "POST /api/battles/{battle_id}/dispute/ 200", "POST /api/battles/{battle_id}/settle/ 200",
    "POST /api/battles/{battle_id}/mode/ 200",
    "GET /api/what-if/ 200", "POST /api/what-if/ 201", "GET /api/what-if/{run_id}/ 200",
    "POST /api/what-if/book/{book}/ 201", "POST /api/what-if/converted/ 201",
    "GET /api/campaigns/{campaign_id}/fleets/ 200", "GET /api/campaigns/{campaign_id}/visible-fleets/ 200",
    "GET /api/campaigns/{campaign_id}/history/ 200",
    "GET /api/campaigns/{campaign_id}/notifications/ 200", "PUT /api/campaigns/{campaign_id}/notifications/ 200",
    "POST /api/campaigns/{campaign_id}/take-back/ 200",
    "GET /api/battles/{battle_id}/state/ 200", "POST /api/battles/{battle_id}/action/ 200",
    "POST /api/battles/{battle_id}/deploy/ 200", "POST /api/battles/{battle_id}/doctrine/ 200",
    "GET /api/away/ 200", "POST /api/away/ 201", "POST /api/away/{absence_id}/end/ 200", "POST /api/calendar/ 201",
    "GET /api/campaigns/{campaign_id}/away/ 200", "PUT /api/campaigns/{campaign_id}/away/ 200",
    "GET /api/campaigns/{campaign_id}/options/ 200", "PATCH /api/campaigns/{campaign_id}/options/ 200",
    "POST /api/campaigns/{campaign_id}/substitute/ 200",
    "GET /api/campaigns/{campaign_id}/webhooks/ 200", "POST /api/campaigns/{campaign_id}/webhooks/ 201",
    "GET /api/pickup/designs/{ruleset}/ 200", "POST /api/pickup/designs/{ruleset}/ 201",
}


def _resolve(node: dict) -> dict:
    schemas = openapi()["components"]["schemas"]
    while isinstance(node, dict) and "$ref" in node:
        node = schemas[node["$ref"].rsplit("/", 1)[1]]
    return node


def _free_form(node: dict) -> bool:
    """Whether the schema ``node`` says nothing of an answer's shape: an object (or no type at all)
    without properties whose other keys may be anything; a list of those; or any alternative so."""
    node = _resolve(node)
    if node.get("type") == "array":
        return _free_form(node.get("items", {}))
    for either in ("allOf", "oneOf", "anyOf"):
        if either in node:
            return any(_free_form(n) for n in node[either])
    if node.get("type", "object") != "object" or node.get("properties"):
        return False
    return node.get("additionalProperties", True) in (True, {})


def _free_form_answers() -> set[str]:
    found = set()
    for path, operations in openapi()["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if status.startswith("2") and any(_free_form(media.get("schema", {}))
                                                  for media in (response.get("content") or {}).values()):
                    found.add(f"{method.upper()} {path} {status}")
    return found


def test_the_success_answers_still_free_form_are_the_listed_ones():
    found = _free_form_answers()
    assert not found & DECLARED, f"declared, now free-form again: {sorted(found & DECLARED)}"
    assert not found - STILL_FREE_FORM, f"free-form and not listed (declare them): {sorted(found - STILL_FREE_FORM)}"
    assert not STILL_FREE_FORM - found, f"declared now, take off the list: {sorted(STILL_FREE_FORM - found)}"


def test_the_walk_sees_a_free_form_answer():
    assert _free_form({"type": "object"}) and _free_form({"type": "object", "additionalProperties": {}})
    assert _free_form({"type": "array", "items": {"type": "object", "additionalProperties": True}})
    assert not _free_form({"type": "object", "properties": {"turn": {"type": "integer"}}})
    assert not _free_form({"type": "object", "additionalProperties": {"type": "string"}})


def _answers_as_declared(response, method: str, url: str) -> dict:
    """The body, after checking it against its declaration, and that the declaration is no
    free-form object: each of its keys declared required is refused when left out."""
    body = sent(response, method, url, 200)
    path = path_of(url)
    assert mismatch(method, path, 200, {}) is not None, f"{method.upper()} {path}: takes {{}}"
    required = [key for key in body if mismatch(method, path, 200, {k: v for k, v in body.items() if k != key})]
    assert required, f"{method.upper()} {path}: no key of {sorted(body)} is required"
    return body


def test_the_map_answers_as_declared(small_campaign, alice, bob):
    url = f"/api/campaigns/{small_campaign.pk}/map/"
    mine = _answers_as_declared(api(bob).get(url), "get", url)
    assert mine["fleets"] and any("ship_list" in f for f in mine["fleets"])
    full = _answers_as_declared(api(alice).get(url), "get", url)
    assert all("ship_list" in f for f in full["fleets"])
    assert _answers_as_declared(api(bob).get(f"{url}?turn=1"), "get", url)["turn"] == 1
    path = path_of(url)
    assert mismatch("get", path, 200, {**mine, "turn": "one"}) is not None
    assert mismatch("get", path, 200, {**mine, "worlds": [{**mine["worlds"][0], "owner": "bob"}]}) is not None
    assert mismatch("get", path, 200, {**mine, "worlds": [{**mine["worlds"][0], "owner": None}]}) is None


def test_the_report_answers_as_declared(small_campaign, alice, bob):
    url = f"/api/campaigns/{small_campaign.pk}/reports/0/"
    mine = _answers_as_declared(api(bob).get(url), "get", url)
    assert mine["seat"] == 1 and mine["sections"]
    full = _answers_as_declared(api(alice).get(url), "get", url)
    assert full["seat"] is None
    assert mismatch("get", path_of(url), 200, {**mine, "sections": [{"step": "setup"}]}) is not None


def test_the_orders_preview_answers_as_declared(small_campaign, bob):
    from campaign.eventhorizon.models import Fleet
    from tests.eventhorizon.test_api_orders import long_walk

    fleet = Fleet.objects.filter(campaign=small_campaign, owner__seat=1).order_by("number").first()
    url = f"/api/campaigns/{small_campaign.pk}/orders/preview/"
    orders = {"moves": [{"fleet": fleet.number, "path": long_walk(small_campaign, fleet, 1)}]}
    body = _answers_as_declared(api(bob).post(url, {"orders": orders}, format="json"), "post", url)
    assert body["moves"] and body["options"]["resources"]
    empty = _answers_as_declared(api(bob).post(url, {"orders": {}}, format="json"), "post", url)
    assert mismatch("post", path_of(url), 200, {**empty, "moves": [{"fleet": 1}]}) is not None


@pytest.fixture
def battle(small_campaign):
    from tactical.models import Battle
    from tests.tactical.battle_support import contact_turn

    contact_turn(small_campaign, "tabletop")
    return Battle.objects.get(campaign=small_campaign)


def _result(battle) -> dict:
    from tests.tactical.test_battle_api import good_result

    return good_result(battle)


def test_the_battles_answer_as_declared(small_campaign, battle, alice, bob, carol):
    listed = f"/api/campaigns/{small_campaign.pk}/battles/"
    assert _answers_as_declared(api(bob).get(listed), "get", listed)["results"]
    url = f"/api/battles/{battle.pk}/"
    assert _answers_as_declared(api(bob).get(url), "get", url)["your_seat"] == battle.attacker
    assert _answers_as_declared(api(alice).get(url), "get", url)["your_seat"] is None
    entered = _answers_as_declared(api(bob).post(f"{url}result/", _result(battle), format="json"),
                                   "post", f"{url}result/")
    assert entered["status"] == "entered" and entered["proposal"]
    disputed = _answers_as_declared(api(carol).post(f"{url}dispute/", {"reason": "no"}, format="json"),
                                    "post", f"{url}dispute/")
    assert disputed["status"] == "disputed" and disputed["log"]
    settled = _answers_as_declared(api(alice).post(f"{url}settle/", {}, format="json"), "post", f"{url}settle/")
    assert settled["status"] == "resolved" and settled["resolved_how"] and settled["resolved_at"]
    path = path_of(url)
    assert mismatch("get", path, 200, {**settled, "status": "won"}) is not None
    assert mismatch("get", path, 200, {**settled, "log": [{"kind": "entered"}]}) is not None


def test_a_confirmed_battle_answers_as_declared(battle, bob, carol):
    url = f"/api/battles/{battle.pk}/"
    api(bob).post(f"{url}result/", _result(battle), format="json")
    confirmed = _answers_as_declared(api(carol).post(f"{url}confirm/"), "post", f"{url}confirm/")
    assert confirmed["status"] == "resolved" and confirmed["result"]


def test_a_battles_new_mode_answers_as_declared(battle, alice):
    url = f"/api/battles/{battle.pk}/mode/"
    assert _answers_as_declared(api(alice).post(url, {"mode": "auto"}, format="json"), "post", url)["id"] == battle.pk


def test_an_event_horizon_what_if_answers_as_declared(bob):
    from tactical.whatif import runs as whatif
    from tests.tactical.test_whatif_schema import request

    started = sent(api(bob).post("/api/what-if/", request(), format="json"), "post", "/api/what-if/", 201)
    assert mismatch("post", "/api/what-if/", 201, {}) is not None
    assert started["status"] == "queued" and started["result"] is None and started["fleets"]
    whatif.run_what_if(started["id"])
    url = f"/api/what-if/{started['id']}/"
    done = _answers_as_declared(api(bob).get(url), "get", url)
    assert done["status"] == "done" and done["result"] and done["finished_at"]
    listed = _answers_as_declared(api(bob).get("/api/what-if/"), "get", "/api/what-if/")
    assert [run["id"] for run in listed["results"]] == [started["id"]]
    assert mismatch("get", "/api/what-if/", 200, {"results": [{"id": 1}]}) is not None


def test_a_rule_books_what_if_answers_as_declared(bob, django_capture_on_commit_callbacks, eager_tasks):
    from campaign.rules.dice import SeededDice, derive_seed
    from tactical.whatif import books

    name = next(b["name"] for b in books.offered() if b["generic"])
    _, fleets = books.generic_book(name)
    offers, points = fleets.offers(bob), fleets.default_points
    forces = {str(seat): [o.key for o in fleets.computer_fleet(offers, points, SeededDice(derive_seed(f"wi/{seat}")))]
              for seat in (1, 2)}
    url = f"/api/what-if/book/{name}/"
    with django_capture_on_commit_callbacks(execute=True):
        response = api(bob).post(url, {"points": points, "trials": 2, "seed": "shape", "forces": forces},
                                 format="json")
    started = sent(response, "post", url, 201)
    assert mismatch("post", path_of(url), 201, {}) is not None
    done = _answers_as_declared(api(bob).get(f"/api/what-if/{started['id']}/"), "get", f"/api/what-if/{started['id']}/")
    assert done["status"] == "done" and done["win_rates"] and done["book"] == name


def test_a_converted_what_if_answers_as_declared(small_campaign, alice, bob, settings, eager_tasks,
                                                 django_capture_on_commit_callbacks):
    from campaign import actions as platform
    from tactical.models import Battle
    from tests.tactical.battle_support import contact_turn

    settings.WHATIF_IN_BACKGROUND, settings.WHATIF_PROCESSES = False, 1
    platform.set_campaign_option(campaign_id=small_campaign.pk, user=alice, key="battle_book", value="mytrek")
    contact_turn(small_campaign, "tactical", ships_per_side=1)
    url = "/api/what-if/converted/"
    with django_capture_on_commit_callbacks(execute=True):
        response = api(bob).post(url, {"battle": Battle.objects.get().pk, "trials": 2, "seed": "shape"}, format="json")
    started = sent(response, "post", url, 201)
    assert mismatch("post", url, 201, {}) is not None
    done = _answers_as_declared(api(bob).get(f"/api/what-if/{started['id']}/"), "get", f"/api/what-if/{started['id']}/")
    assert done["status"] == "done" and done["kind"] and done["win_rates"]


def test_the_fleets_answer_as_declared(small_campaign, alice, bob):
    url = f"/api/campaigns/{small_campaign.pk}/fleets/"
    mine = _answers_as_declared(api(bob).get(url), "get", url)
    assert mine["results"] and {f["owner"] for f in mine["results"]} == {1}
    assert {f["owner"] for f in _answers_as_declared(api(alice).get(url), "get", url)["results"]} == {1, 2}
    ship = mine["results"][0]["ships"][0]
    assert mismatch("get", path_of(url), 200, {**mine, "results": [{**mine["results"][0], "ships": [
        {**ship, "damage": {}}]}]}) is not None
    seen = f"/api/campaigns/{small_campaign.pk}/visible-fleets/"
    assert _answers_as_declared(api(bob).get(seen), "get", seen)["fleets"]
    assert _answers_as_declared(api(bob).get(f"{seen}?turn=1"), "get", seen)["turn"] == 1


def test_the_history_answers_as_declared(small_campaign, alice, bob):
    url = f"/api/campaigns/{small_campaign.pk}/history/"
    mine = _answers_as_declared(api(bob).get(url), "get", url)
    assert [e["seat"] for e in mine["empires"]] == [1] and mine["turns"]
    assert len(_answers_as_declared(api(alice).get(url), "get", url)["empires"]) == 2


def test_the_notification_preferences_answer_as_declared(small_campaign, bob):
    url = f"/api/campaigns/{small_campaign.pk}/notifications/"
    _answers_as_declared(api(bob).get(url), "get", url)
    changed = api(bob).put(url, {"notify_press": False}, format="json")
    assert changed.status_code == 200, changed.content
    assert _answers_as_declared(changed, "put", url)["notify_press"] is False


def test_a_seat_taken_back_answers_as_declared(small_campaign, bob):
    small_campaign.empires.filter(seat=1).update(is_bot=True, auto_bot=True)
    url = f"/api/campaigns/{small_campaign.pk}/take-back/"
    taken = _answers_as_declared(api(bob).post(url), "post", url)
    assert taken == {**taken, "seat": 1, "is_bot": False}


def test_an_embedded_battles_state_answers_as_declared(small_campaign, alice, bob, carol, monkeypatch):
    from tactical.models import Battle
    from tactical.play import embedded
    from tests.tactical.play_support import make_battle, patch_record_result

    patch_record_result(monkeypatch)
    battle = make_battle(small_campaign)
    url = f"/api/battles/{battle.pk}/state/"
    for who in (alice, bob, carol):
        state = _answers_as_declared(api(who).get(url), "get", url)
        assert state["started"] and "events" in state
    path = path_of(url)
    assert mismatch("get", path, 200, {**state, "sides": [{"seat": 1}]}) is not None
    mover = next(user for user in (bob, carol) if api(user).get(url).json()["your_turn"])
    seat = 1 if mover == bob else 2
    battle = Battle.objects.get(pk=battle.pk)
    rules = embedded.rules_for(battle)
    action = rules.action_json(rules.doctrine_action(embedded.current_state(battle), seat))
    acted = f"/api/battles/{battle.pk}/action/"
    assert _answers_as_declared(api(mover).post(acted, action, format="json"), "post", acted)["steps"] >= 1
    doctrine = f"/api/battles/{battle.pk}/doctrine/"
    handed = _answers_as_declared(api(bob).post(doctrine, {"on": True}, format="json"), "post", doctrine)
    assert 1 in handed["doctrine_sides"]


def test_a_battle_deployed_by_hand_answers_as_declared(small_campaign, bob, carol, monkeypatch):
    from campaign.models import Campaign
    from tactical.play import actions as play
    from tests.tactical.play_support import make_battle, patch_record_result

    patch_record_result(monkeypatch)
    small_campaign.deployment = Campaign.Deployment.HAND
    small_campaign.save(update_fields=["deployment"])
    battle = make_battle(small_campaign, start=False)
    play.begin(battle)
    url = f"/api/battles/{battle.pk}/state/"
    waiting = _answers_as_declared(api(bob).get(url), "get", url)
    assert waiting["started"] is False and waiting["status"] == "deploying" and "deployment" in waiting
    deploy = f"/api/battles/{battle.pk}/deploy/"
    for who in (carol, bob):
        placed = _answers_as_declared(api(who).post(deploy, {"automatic": True}, format="json"), "post", deploy)
    assert placed["status"] == "playing"


def test_the_away_dates_answer_as_declared(small_campaign, alice, bob):
    from datetime import timedelta

    from django.utils import timezone

    soon = timezone.now() + timedelta(hours=1)
    body = {"starts": soon.isoformat(), "ends": (soon + timedelta(days=2)).isoformat(), "note": "sailing"}
    made = sent(api(bob).post("/api/away/", body, format="json"), "post", "/api/away/", 201)
    assert mismatch("post", "/api/away/", 201, {}) is not None and made["campaign"] is None
    listed = _answers_as_declared(api(bob).get("/api/away/"), "get", "/api/away/")
    assert [a["id"] for a in listed["absences"]] == [made["id"]]
    url = f"/api/campaigns/{small_campaign.pk}/away/"
    seen = _answers_as_declared(api(bob).get(url), "get", url)
    assert [a["seat"] for a in seen["away"]] == [1] and "absences" not in seen and "policy" not in seen
    full = _answers_as_declared(api(alice).get(url), "get", url)
    assert full["absences"][0]["note"] == "sailing" and full["policy"]
    assert mismatch("get", path_of(url), 200, {**full, "policy": {"mode": "computer"}}) is not None
    policy = _answers_as_declared(api(alice).put(url, {"mode": "computer", "limit_hours": 48}, format="json"),
                                  "put", url)
    assert policy == {"mode": "computer", "limit_hours": 48, "substitute": None}
    end = f"/api/away/{made['id']}/end/"
    assert _answers_as_declared(api(bob).post(end), "post", end)["id"] == made["id"]


def test_a_calendar_feed_answers_as_declared(bob):
    made = sent(api(bob).post("/api/calendar/"), "post", "/api/calendar/", 201)
    assert made["url"].startswith("http") and mismatch("post", "/api/calendar/", 201, {}) is not None


def test_the_rule_options_answer_as_declared(small_campaign, alice, bob):
    url = f"/api/campaigns/{small_campaign.pk}/options/"
    seen = _answers_as_declared(api(bob).get(url), "get", url)
    assert seen["options"]["steered_drift"] is False and "steered_drift" in seen["switchable"]
    changed = _answers_as_declared(api(alice).patch(url, {"steered_drift": True}, format="json"), "patch", url)
    assert changed["options"]["steered_drift"] is True
    assert mismatch("get", path_of(url), 200, {**seen, "options": {"steered_drift": "yes"}}) is not None


def test_a_seat_handed_over_answers_as_declared(small_campaign, alice):
    url = f"/api/campaigns/{small_campaign.pk}/substitute/"
    handed = _answers_as_declared(api(alice).post(url, {"seat": 2, "username": ""}, format="json"), "post", url)
    assert handed["seat"] == 2 and handed["user"] is None and handed["is_bot"] is True


def test_the_webhooks_answer_as_declared(small_campaign, alice, settings):
    from django.utils import timezone

    from campaign.groups.models import WebhookDelivery

    settings.GROUPS_WEBHOOK_ALLOW_PRIVATE = True  # a loopback address: nothing is posted here
    url = f"/api/campaigns/{small_campaign.pk}/webhooks/"
    made = sent(api(alice).post(url, {"url": "http://127.0.0.1:9/hook", "events": ["turn"]}, format="json"),
                "post", url, 201)
    assert made["secret"] and "log" not in made and mismatch("post", path_of(url), 201, {}) is not None
    WebhookDelivery.objects.create(webhook_id=made["id"], event="turn", key="t1", body="{}",
                                   created_at=timezone.now())
    listed = _answers_as_declared(api(alice).get(url), "get", url)
    assert listed["webhooks"][0]["log"][0]["status"] == "pending"


def test_your_own_designs_answer_as_declared(bob):
    url = "/api/pickup/designs/printplay/"
    made = sent(api(bob).post(url, {
        "name": "Akira", "faction": "Federation", "type": "heavy cruiser", "shields": [18, 18, 14, 14],
        "shield_max": 26, "hull": 28, "impulse": 6, "weapons": [
            {"name": "Phaser", "mount": "F", "qty": 4, "hit": 3, "dmg": 2, "range": 12, "arc": 270}]}, format="json"),
        "post", url, 201)
    assert made["key"] == f"design-{made['id']}" and mismatch("post", path_of(url), 201, {}) is not None
    listed = _answers_as_declared(api(bob).get(url), "get", url)
    assert [d["id"] for d in listed["results"]] == [made["id"]]
