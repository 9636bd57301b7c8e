"""Type confusion (issue 14's "bad input gets a clear error and changes nothing"): every API
endpoint that takes a body (test_hostile_input.ENDPOINTS) is sent a plausible body with one field
at a time replaced by a value of the wrong type: a number as text, a list, an object, true, a
fraction, null, a negative or zero number, text where a list or object belongs. Whatever the
endpoint makes of it, it never answers 500; a refusal (4xx) is JSON that says something and
changes no row (test_hostile_input.fingerprint). An answer of 2xx may change rows (a field it
ignores, or "1" read as 1): each substitution runs in a savepoint rolled back after it.

The HTML forms that take ids or numbers get the same treatment (form fields are text, so the wrong
types are text that is no number, a negative or fraction, an id nobody has, empty, repeated).

Run on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest
from django.db import connection, transaction
from django.urls import reverse

from tests.campaign import test_hostile_input as hostile
from tests.campaign.test_hostile_input import ENDPOINTS, _fill, _send, fingerprint

world = hostile.world  # the same fixture: the objects each endpoint acts on

pytestmark = pytest.mark.django_db

# The wrong-typed values put in place of each field (and of each item one level in); text longer
# than any column (PostgreSQL refuses it where SQLite stores it).
WRONG = ["x", "1", "²", "", "x" * 3000, [1], ["x"], [], {"a": 1}, {}, True, False, 1.5, None, -1, 0, 99999]
WRONG_INSIDE = ["x", "²", [1], {"a": 1}, True, 1.5, None, -1]  # one level in: fewer, to keep the run short

# A plausible body per endpoint, with the fields it reads: the hostile test's template (its TEXT
# and NUMBER filled in) unless named here.
BODIES = {
    "api-token": {"username": "bob", "password": "pw-bob"},
    "api-cam-campaigns": {"name": "Rubber", "period": 2, "starting_points": 100, "scenarios": 3,
                          "points_level": 60, "break_percent": 40, "replacement_percent": 10,
                          "survival_roll": False, "battle_mode": "tabletop", "seed": "s", "tables": 1,
                          "replacement_house_rule": False,
                          "players": [{"username": "bob", "name": "Bob", "faction": "UFP", "wealth": "average",
                                       "temper": "average", "fleet": ["constitution", {"sd": "firecat", "name": "F"}]},
                                      {"username": "carol", "name": "Carol", "faction": "Klingons", "fleet": ["d7"]}]},
    "api-cam-start": {},
    "api-cam-fleet": {"fleet": ["d7", "d7"], "seat": 1},
    "api-cam-sds": {"key": "zz1", "ship_class": "CA", "name": "Custom", "speed": 8, "turning": 2, "target_size": 4,
                    "shields": [3, 3, 3, 2], "hull": 8, "crippled_at": 4, "command": 2, "ac": 0, "ac_capacity": 0,
                    "special_abilities": [], "main": [[4, "Phaser", ""]], "secondary": 0, "close_defence": 0,
                    "period_first": 1, "period_last": 6, "notes": ""},
    "api-cam-scenarios": {"nature": "open_battle", "defender": 1},
    "api-cam-forces": {"ships": [1], "extra_ac": 0, "bases": 0, "minefields": 0, "edge_choice": "north",
                       "seat": 1, "on_table": False},
    "api-cam-table": {},
    "api-cam-turns": {"destroyed": ["ship:1"], "crippled": ["ship:2"], "left": ["ac:1"], "seat": 1},
    "api-cam-between": {"requests": [{"kind": "replace", "ship": 1}], "ready": True, "seat": 1},
    "api-cam-mode": {"mode": "online"},
    "api-cam-tables": {"tables": {"ship:1": 1}, "seat": 1},
    "api-cam-act": {"action": {"type": "move", "ship": 1, "after": 6}, "seat": 1},
    "api-cam-doctrine": {"on": True, "seat": 1},
    "api-cam-settle": {"how": "doctrine"},
    "api-orders": {"orders": {"purchases": [{"world": 1, "kind": "ship", "count": 1}], "moves": [
        {"fleet": 1, "path": [[1, 1]]}]}, "ready": False, "turn": 1},
    "api-orders-preview": {"orders": {"purchases": [{"world": 1, "kind": "ship", "count": 1}], "moves": [
        {"fleet": 1, "path": [[1, 1]]}]}},
    "api-process": {"turn": 1},
    "api-lobby": {"name": "Lobby", "grid": "hex", "width": 12, "height": 12, "seats": 2, "options": {},
                  "turn_hours": 72, "setup_hours": 72, "battle_mode": "auto", "battle_requests": "either",
                  "battle_hours": 48, "activation_hours": 24, "fog_of_war": True, "detection_range": 2,
                  "missed_turn_limit": 3, "seed": "s", "listed": False, "show_ready": True, "layer": "eventhorizon"},
    "api-lobby-join": {"token": "nope", "role": "player", "empire_name": "M", "faction": "", "colour": "#112233"},
    "api-player": {},
    "api-moderators": {"username": "carol"},
    "api-invitations": {"email": "x@example.com"},
    "api-invite-link": {"enabled": True, "regenerate": False, "listed": False},
    "api-start": {"seed": "s"},
    "api-orders-text": {"text": "#SECTOR 1 1 x TURN 1\n#END"},
    "api-order-secret": {},
    "api-ready": {"ready": True, "turn": 1},
    "api-take-back": {"seat": 1},
    "api-pause": {},
    "api-resume": {},
    "api-options": {"steered_drift": True},
    "api-extend": {"hours": 2},
    "api-rollback": {"turn": 1},
    "api-substitute": {"seat": 2, "username": "mallory", "old_player": "observer"},
    "api-notifications": {"notify_turn": True, "notify_reminders": True, "notify_battles": False, "notify_press": True},
    "api-press": {"to": [2], "text": "hello", "announcement": False},
    "api-press-conversation": {"text": "hello"},
    "api-press-options": {"press": True, "moderator_reads": False},
    "api-battle-preference": {"preference": "auto"},
    "api-battle-result": lambda kwargs: {"result": _good_result(kwargs["battle_id"])},
    "api-battle-confirm": {},
    "api-battle-dispute": {"reason": "no"},
    "api-battle-settle": lambda kwargs: {"note": "n", "auto": False, "result": _good_result(kwargs["battle_id"])},
    "api-battle-mode": {"mode": "auto"},
    "api-battle-action": {"action": {"type": "move", "ship": 1, "path": ["F"]}},
    "api-battle-deploy": {"placements": [{"ship": 21, "x": 5, "y": 14, "facing": "N"},
                                         {"ship": 22, "x": 6, "y": 14, "facing": "N"}], "automatic": False},
    "api-battle-doctrine": {"on": True},
    "api-pickup-list": {"ruleset": "eventhorizon", "points": 200, "opponent": "computer", "email": "",
                        "activation_hours": 24},
    "api-pickup-invite": {"email": "x@example.com"},
    "api-pickup-accept": {"token": "nope"},
    "api-pickup-fleet": {"ships": ["scout"]},
    "api-whatif-list": {"seed": "s", "trials": 2, "a": {"ships": [{"design": 1, "count": 1}]},
                        "b": {"ships": [{"design": 1, "count": 1}]}},
    "api-whatif-cam": {"seed": "s", "trials": 2, "period": 2, "points": 60, "a": {"sds": ["d7"]},
                       "b": {"sds": ["d7"]}},
}


# Where an endpoint refuses the hostile test's objects for their state before it reads a field
# (the campaign has started, the scenario is not fought online, …): (who, what it acts on), so the
# wrong-typed field reaches the code that reads it.
DEEPER = {
    "api-cam-fleet": ("alice", "cam-setup"),
    "api-cam-sds": ("alice", "cam"),
    "api-cam-forces": ("alice", "cam-forces-online"),
    "api-cam-tables": ("alice", "cam-tables"),
    "api-cam-turns": ("alice", "cam-fighting"),
    "api-cam-end": ("bob", "cam-fighting"),
    "api-cam-confirm": ("carol", "cam-ended"),
    "api-cam-reject": ("carol", "cam-ended"),
    "api-cam-autoresolve": ("alice", "cam-fighting"),
    "api-cam-act": ("alice", "cam-online"),
    "api-cam-doctrine": ("alice", "cam-online"),
    "api-cam-settle": ("alice", "cam-online"),
    "api-cam-between": ("alice", "cam-between"),
    "api-cam-mode": ("alice", "scenario"),
    "api-battle-deploy": ("carol", "battle-deploying"),
    "api-battle-result": ("bob", "battle-tabletop"),
    "api-battle-settle": ("alice", "battle-tabletop"),
    "api-battle-confirm": ("carol", "battle-entered"),
    "api-battle-dispute": ("carol", "battle-entered"),
}


def _good_result(battle_id: int) -> dict:
    """tests/tactical/test_battle_api.py's result: the defender's ship destroyed."""
    from tactical.models import Battle

    battle = Battle.objects.get(pk=battle_id)
    a, d = (battle.setup["sides"][str(side)]["ships"][0]["id"] for side in (battle.attacker, battle.defender))
    return {"holder": battle.attacker, "ships": [
        {"ship": a, "fate": "survived", "damage": {"hull": 2, "weapons": ["laser_bank"]}},
        {"ship": d, "fate": "destroyed"}]}


@pytest.fixture
def deeper(world, small_campaign, alice, bob, carol):
    """world's objects, and CAM scenarios at the stages the DEEPER endpoints act in."""
    users, ids = world

    def more(kind: str) -> dict:
        if kind in ("battle-tabletop", "battle-entered"):  # a battle fought on the table top
            from tactical.battles import actions as battles
            from tactical.models import Battle
            from tests.tactical.battle_support import contact_turn

            contact_turn(small_campaign, "tabletop")
            battle = Battle.objects.get(campaign=small_campaign)
            if kind == "battle-entered":
                battles.enter_result(battle_id=battle.pk, user=bob, result=_good_result(battle.pk))
            return {"battle_id": battle.pk}
        if kind == "battle-deploying":  # deployment by hand: the defender (carol, seat 2) places first
            from campaign.models import Campaign
            from tactical.play import actions as play
            from tests.tactical.play_support import make_battle

            small_campaign.deployment = Campaign.Deployment.HAND
            small_campaign.save(update_fields=["deployment"])
            battle = make_battle(small_campaign, start=False)
            play.begin(battle)
            return {"battle_id": battle.pk}
        if not kind.startswith("cam-"):
            return ids(kind)
        from campaign.cam import actions, online
        from tests.cam.conftest import make_cam, ship_numbers

        c = make_cam(alice, bob, carol, start=kind != "cam-setup", tables=2)
        if kind != "cam-setup":
            actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
            mode = {"cam-fighting": "tabletop", "cam-ended": "tabletop", "cam-between": "auto"}.get(kind, "online")
            if mode != "tabletop":
                online.set_mode(campaign_id=c.pk, user=alice, number=1, mode=mode)
            if kind != "cam-forces-online":
                actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
            if kind not in ("cam-forces-online", "cam-tables"):
                actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
                actions.roll_table(campaign_id=c.pk, user=bob)
            if kind == "cam-ended":
                actions.propose_end(campaign_id=c.pk, user=bob)
        return {"campaign_id": c.pk} if kind in ("cam-setup", "cam-between") else {"campaign_id": c.pk, "number": 1}

    return users, more


# More bodies for an endpoint that reads another shape: (id, ENDPOINTS' name, body).
MORE_BODIES = [
    ("api-lobby-cam", "api-lobby", {"layer": "cam", "name": "Rubber", "step_hours": 48, "listed": False,
                                    "period": 2, "starting_points": 100, "scenarios": 3, "points_level": 60,
                                    "break_percent": 40, "replacement_percent": 10, "tables": 1,
                                    "battle_mode": "tabletop", "seed": "s"}),
]
CASES = [(name, method, who, needs, BODIES.get(name, template)) for name, method, who, needs, template in ENDPOINTS] + [
    (name, method, who, needs, body) for _id, endpoint, body in MORE_BODIES
    for name, method, who, needs, _template in ENDPOINTS if name == endpoint]
CASE_IDS = [e[0] for e in ENDPOINTS] + [m[0] for m in MORE_BODIES]


def base_body(name: str, template, kwargs: dict) -> dict:
    """The case's body (BODIES' or MORE_BODIES'), or the hostile test's template filled in."""
    body = _fill(template, "ok", 1)
    return body(kwargs) if callable(body) else body


def _replace(body, path: tuple, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(body, dict):
        return {**body, head: _replace(body[head], rest, value)}
    return [_replace(v, rest, value) if i == head else v for i, v in enumerate(body)]


def _paths(value, path=(), depth=4):
    """Every place in a body to put a wrong value: each field, each item of a list (the fields of
    its first item only, further in), down to ``depth`` levels."""
    if depth == 0:
        return
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        return
    for key, inner in items:
        yield path + (key,), inner
        if not isinstance(value, list) or key == 0:
            yield from _paths(inner, path + (key,), depth - 1)


def substitutions(body):
    """(where, body with one value replaced) for every place ``_paths`` names: the full list at
    the top level, WRONG_INSIDE further in (an order's build, a placement, a replacement request)."""
    if not isinstance(body, dict):
        return
    for path, current in _paths(body):
        for wrong in WRONG if len(path) == 1 else WRONG_INSIDE:
            if not (wrong == current and type(wrong) is type(current)):
                where = path[0] + "".join(f"[{k!r}]" for k in path[1:])
                yield f"{where}={wrong!r}", _replace(body, path, wrong)
    for wrong in ([], "x", 1, None):  # the whole body of the wrong type
        yield f"body={wrong!r}", wrong


def test_every_endpoint_has_a_plausible_body():
    """A new endpoint gets a body here, or the hostile test's template stands in (no TEXT left)."""
    assert not set(BODIES) - {name for name, *_ in ENDPOINTS}


class _Rollback(Exception):
    pass


def _attempt(send, before: str) -> tuple[int, bytes, bool]:
    """``send()`` inside a savepoint rolled back after it: (status, content, whether a refusal left
    every row as ``before``). A 500 is caught here, not raised (the client's raise_request_exception
    is off), so one run lists every field that answered 500. The rows are compared only when the
    request wrote something (fingerprint() reads every table: too slow for thousands of requests)."""
    out, wrote = {}, []

    def watch(execute, sql, params, many, context):
        if sql.lstrip()[:6].upper() in ("INSERT", "UPDATE", "DELETE"):
            wrote.append(sql)
        return execute(sql, params, many, context)

    try:
        with transaction.atomic(), connection.execute_wrapper(watch):
            response = send()
            out["status"], out["content"] = response.status_code, response.content
            out["unchanged"] = not 400 <= response.status_code < 500 or not wrote or fingerprint() == before
            raise _Rollback
    except _Rollback:
        pass
    return out["status"], out["content"], out["unchanged"]


@pytest.mark.parametrize(("name", "method", "who", "needs", "template"), CASES, ids=CASE_IDS)
def test_a_wrong_typed_field_is_never_a_500(client, deeper, name, method, who, needs, template):
    users, ids = deeper
    who, needs = DEEPER.get(name, (who, needs))
    kwargs = ids(needs)
    url = reverse(name, kwargs=kwargs)
    if who:
        client.force_login(users[who])
    client.raise_request_exception = False
    failures, before = [], fingerprint()
    for where, body in substitutions(base_body(name, template, kwargs)):
        code, content, unchanged = _attempt(lambda body=body: _send(client, method, url, json.dumps(body)), before)
        if code >= 500:
            failures.append(f"{where}: {code}")
            continue
        if code >= 400:
            try:
                said = json.loads(content)
            except ValueError:
                failures.append(f"{where}: {code} not JSON: {content[:120]!r}")
                continue
            if not said:
                failures.append(f"{where}: {code} says nothing")
            if not unchanged:
                failures.append(f"{where}: {code} but rows changed")
    assert not failures, f"{name}: " + "; ".join(failures)


# --- HTML forms ----------------------------------------------------------------------------------

# Form fields are text: the wrong "types" are text that is no whole number, or one out of range.
WRONG_FORM = ["x", "-1", "1.5", "", "0", "99999", "9" * 25, "²", "１", " 1 ", "x" * 3000, ["1", "x"]]

# (url name, who posts, what the URL needs (world's ids), the fields it reads with plausible values)
FORMS = [
    ("campaign-orders", "bob", "eh", {"orders": '{"purchases": []}', "ready": "1", "turn": "1"}),
    ("campaign-ready", "bob", "eh", {"ready": "1", "turn": "1"}),
    ("campaign-take-back", "bob", "eh", {"seat": "1"}),
    ("campaign-design-new", "bob", "eh", {"name": "D", "hull": "1", "weapons": "1", "drive": "1"}),
    ("campaign-order-secret", "bob", "eh", {}),
    ("cam-fleet", "alice", "cam", {"seat": "1", "fleet": "d7", "add_sd": "d7", "add_name": "A"}),
    ("cam-generate", "alice", "cam", {"nature": "open_battle", "defender": "1"}),
    ("cam-between", "bob", "cam", {"replace": "1", "sd_1": "d7", "name_1": "N"}),
    ("cam-sds", "alice", "cam", {"key": "zz", "ship_class": "CA", "name": "N", "speed": "1", "turning": "1",
                                 "target_size": "1", "shields": "3,3,3,3", "hull": "4", "crippled_at": "2",
                                 "command": "2", "ac": "0", "ac_capacity": "0", "secondary": "0",
                                 "close_defence": "0", "period_first": "1", "period_last": "6", "main": "4 Phaser"}),
    ("cam-forces", "bob", "scenario", {"ships": "1", "extra_ac": "0", "bases": "0", "minefields": "0",
                                      "edge_choice": "north", "on_table": "1"}),
    ("cam-turn", "bob", "scenario", {"destroyed": "ship:1", "crippled": "ship:2", "left": "ac:1"}),
    ("cam-mode", "alice", "scenario", {"mode": "online", "seat": "1"}),
    ("cam-tables", "bob", "scenario", {"table-ship:1": "1", "seat": "1"}),
    ("cam-doctrine", "bob", "scenario", {"on": "1", "seat": "1"}),
    ("cam-settle", "alice", "scenario", {"how": "doctrine"}),
    ("cam-create", "alice", "", {"name": "R", "period": "2", "starting_points": "100", "scenarios": "3",
                                 "points_level": "60", "break_percent": "40", "replacement_percent": "10",
                                 "tables": "1", "battle_mode": "tabletop", "p1_username": "bob",
                                 "p1_faction": "Federation", "p2_username": "carol", "p2_faction": "Klingon"}),
    ("pickup-new", "bob", "", {"ruleset": "eventhorizon", "points": "200", "opponent": "computer",
                               "activation_hours": "24"}),
    ("pickup-fleet", "bob", "pickup", {"ships": "scout", "count-scout": "1"}),
    ("pickup-invite", "bob", "pickup", {"email": "x@example.com"}),
    ("pickup-cancel", "bob", "pickup", {"confirm": "yes"}),
    ("pickup-seat-computer", "bob", "pickup-seat", {"seat": "2"}),
    ("pickup-leave", "bob", "pickup", {"seat": "2"}),
    ("pickup-host", "alice", "eh", {"points": "200", "seat": "1"}),
    ("press", "bob", "eh", {"to": "2", "text": "hi"}),
    ("press-options", "alice", "eh", {"press": "on", "moderator_reads": "on"}),
    ("press-conversation", "bob", "press", {"text": "hi"}),
    ("lobby-create", "alice", "", {"name": "L", "grid": "hex", "width": "12", "height": "12", "seats": "2",
                                   "turn_hours": "72", "setup_hours": "72", "battle_hours": "48",
                                   "activation_hours": "24", "detection_range": "2", "missed_turn_limit": "3"}),
    ("lobby-invite", "alice", "lobby", {"email": "x@example.com"}),
    ("lobby-link", "alice", "lobby", {"op": "enable"}),
    ("lobby-add-moderator", "alice", "lobby", {"username": "carol"}),
    ("lobby-remove-member", "alice", "member", {"confirm": "yes"}),
    ("lobby-start", "alice", "lobby", {"confirm": "yes", "seed": "s"}),
    ("moderation-extend", "alice", "eh", {"hours": "2"}),
    ("moderation-process", "alice", "eh", {"turn": "1", "confirm": "yes"}),
    ("moderation-options", "alice", "eh", {"steered_drift": "on"}),
    ("moderation-rollback", "alice", "eh", {"turn": "0", "confirm": "yes"}),
    ("moderation-substitute", "alice", "eh", {"seat": "2", "username": "mallory", "old_player": "observer"}),
    ("moderation-add-moderator", "alice", "eh", {"username": "carol"}),
    ("notification-preferences", "bob", "eh", {"notify_turn": "on", "notify_battles": "on"}),
    ("battle-preference", "bob", "eh", {"preference": "auto"}),
    ("battle-enter", "bob", "battle", {"holder": "1", "s0-fate": "ok", "s0-hull": "1", "s0-engine": "1"}),
    ("battle-dispute", "carol", "battle", {"reason": "no"}),
    ("battle-settle", "alice", "battle", {"auto": "on", "note": "n"}),
    ("battle-mode", "alice", "battle", {"mode": "auto"}),
    ("battle-play", "carol", "battle-deploying", {"deploy": "placed", "square_21": "5,14", "facing_21": "N",
                                      "square_22": "6,14", "facing_22": "N"}),
    ("battle-play", "bob", "battle", {"action": '{"type": "move", "ship": 1, "path": ["F"]}', "doctrine": "on"}),
    ("whatif-new", "bob", "", {"seed": "s", "trials": "2", "campaign": "1", "fleet_a": "1", "fleet_b": "2"}),
    ("whatif-cam-new", "bob", "", {"seed": "s", "trials": "2", "period": "2", "points": "60", "campaign": "1",
                                   "scenario": "1", "a_sds": "2 x d7", "b_sds": "d7"}),
]


# As DEEPER: the CAM pages at the stage they act in.
FORM_DEEPER = {
    "cam-fleet": ("alice", "cam-setup"),
    "cam-forces": ("bob", "cam-forces-online"),
    "cam-turn": ("bob", "cam-fighting"),
    "cam-tables": ("bob", "cam-tables"),
    "cam-doctrine": ("bob", "cam-online"),
    "cam-settle": ("alice", "cam-online"),
    "cam-between": ("bob", "cam-between"),
}


def form_substitutions(data: dict):
    for key, value in data.items():
        for wrong in WRONG_FORM:
            if wrong != value:
                yield f"{key}={wrong!r}", {**data, key: wrong}


@pytest.mark.parametrize(("name", "who", "needs", "data"), FORMS, ids=[f"{f[0]}-{next(iter(f[3]), '')}" for f in FORMS])
def test_a_wrong_typed_form_field_is_never_a_500(client, deeper, name, who, needs, data):
    users, ids = deeper
    who, needs = FORM_DEEPER.get(name, (who, needs))
    url = reverse(name, kwargs=ids(needs))
    client.force_login(users[who])
    client.raise_request_exception = False
    failures, before = [], fingerprint()
    for where, body in form_substitutions(data):
        code, _content, unchanged = _attempt(lambda body=body: client.post(url, body), before)
        if code >= 500:
            failures.append(f"{where}: {code}")
        elif not unchanged:
            failures.append(f"{where}: {code} but rows changed")
    assert not failures, f"{name}: " + "; ".join(failures)


# --- text that str.isdigit() passes and int() refuses ----------------------------------------------


def test_whole_number_reads_ascii_digits_in_range_only():
    from campaign.sanitise import whole_number

    assert [whole_number(t) for t in ("12", " 12 ", "0", "2147483647")] == [12, 12, 0, 2147483647]
    assert [whole_number(t) for t in ("²", "①", "1.5", "x", "", "2147483648", "-3", "0x1", None, 3, ["1"])] == [
        None] * 11
    assert whole_number("-3", negative=True) == -3 and whole_number("-2147483649", negative=True) is None


@pytest.mark.parametrize("where", ["map", "visible-fleets"])
def test_a_superscript_turn_in_a_query_is_a_400(client, small_campaign, bob, where):
    client.force_login(bob)
    response = client.get(f"/api/campaigns/{small_campaign.pk}/{where}/", {"turn": "²"})
    assert response.status_code == 400 and "turn" in response.json()


def test_a_superscript_seat_in_a_report_query_is_a_400(client, small_campaign, alice):
    client.force_login(alice)
    response = client.get(f"/api/campaigns/{small_campaign.pk}/reports/1/", {"seat": "²"})
    assert response.status_code == 400 and response.json() == {"seat": "must be a seat number"}


def test_a_superscript_count_of_attack_dice_is_a_form_error(client, world, alice):
    users, ids = world
    client.force_login(alice)
    data = dict(next(d for n, _, _, d in FORMS if n == "cam-sds"), main="² Phaser")
    url = reverse("cam-sds", kwargs=ids("cam"))
    before = fingerprint()
    response = client.post(url, data)
    assert response.status_code == 400 and "start with the number of attack dice" in response.content.decode()
    assert fingerprint() == before


def test_the_cam_what_if_page_reads_a_superscript_as_no_number(client, bob):
    client.force_login(bob)
    assert client.get(reverse("whatif-cam-new"), {"period": "²"}).status_code == 200
    response = client.post(reverse("whatif-cam-new"), {"period": "2", "points": "60", "trials": "2",
                                                       "a_sds": "² x d7", "b_sds": "d7"})
    assert response.status_code < 500


@pytest.mark.parametrize(("codec", "move"), [("tactical.rules.eventhorizon.play.codec", {"path": ["F"]}),
                                             ("tactical.rules.buoyz.play", {"after": 6})])
def test_the_action_codecs_refuse_a_superscript_ship_number(codec, move):
    import importlib

    module = importlib.import_module(codec)
    with pytest.raises(module.ActionFormatError, match="'ship' of a move action must be a whole number, not '²'"):
        module.from_json({"type": "move", "ship": "²", **move})
    with pytest.raises(module.ActionFormatError, match="must be a whole number"):
        module.from_json({"type": "move", "ship": "9" * 5000, **move})


# --- ids of rows the caller may not see ------------------------------------------------------------


def _cases_of_others_rows(small_campaign, world_ids, alice, bob, carol, client):
    """(who, method, url, body): bob names carol's fleet, ships and seat, or a campaign he is not in."""
    from campaign.eventhorizon import actions as eh_actions

    client.force_login(carol)
    fleet = client.get(f"/api/campaigns/{small_campaign.pk}/fleets/").json()["results"][0]
    ship = fleet["ships"][0]["id"]
    client.logout()
    other = eh_actions.create_campaign(name="Elsewhere", grid="hex", width=12, height=12, players=2, seed="x",
                                    moderator=carol)
    cam = world_ids("cam")["campaign_id"]
    eh = small_campaign.pk
    return [
        (
            "bob",
            "put",
            f"/api/campaigns/{eh}/orders/",
            {"orders": {"moves": [{"fleet": fleet["id"], "path": [[1, 1]]}]}},
        ),
        (
            "bob",
            "put",
            f"/api/campaigns/{eh}/orders/",
            {"orders": {"split": [{"fleet": fleet["id"], "ships": [ship], "as": "x"}]}},
        ),
        (
            "bob",
            "put",
            f"/api/campaigns/{eh}/orders/",
            {"orders": {"purchases": [{"repair": ship, "dockyard": 1}]}},
        ),
        (
            "bob",
            "post",
            f"/api/campaigns/{eh}/orders/preview/",
            {"orders": {"merge": [{"fleets": [fleet["id"], 1]}]}},
        ),
        (
            "bob",
            "post",
            "/api/what-if/",
            {"campaign": eh, "trials": 2, "a": {"fleet": fleet["id"]}, "b": {"fleet": 1}},
        ),
        (
            "bob",
            "post",
            "/api/what-if/",
            {"campaign": other.pk, "trials": 2, "a": {"fleet": 1}, "b": {"fleet": 2}},
        ),
        ("bob", "post", "/api/what-if/cam/", {"campaign": cam, "scenario": 1, "trials": 2}),
        ("mallory", "post", "/api/what-if/cam/", {"campaign": cam, "scenario": 1, "trials": 2}),
        ("bob", "put", f"/api/cam/campaigns/{cam}/fleet/", {"fleet": ["d7"], "seat": 2}),
        ("bob", "post", f"/api/cam/campaigns/{cam}/between/", {"requests": [], "seat": 2}),
        ("bob", "post", f"/api/campaigns/{other.pk}/take-back/", {}),
        ("bob", "post", f"/api/campaigns/{eh}/press/", {"to": [2, 3], "text": "hi"}),
        ("bob", "post", f"/api/campaigns/{other.pk}/press/", {"to": "all", "text": "hi"}),
        ("alice", "post", f"/api/campaigns/{eh}/substitute/", {"seat": 3, "username": "mallory"}),
    ]


def test_naming_a_row_the_caller_may_not_see_is_a_4xx_that_changes_nothing(client, world, small_campaign, alice,
                                                                            bob, carol):
    users, ids = world
    client.raise_request_exception = False
    cases = _cases_of_others_rows(small_campaign, ids, alice, bob, carol, client)
    for who, method, url, body in cases:
        client.force_login(users[who])  # (a log-in writes the user's last_login)
        before = fingerprint()
        response = _send(client, method, url, json.dumps(body))
        assert 400 <= response.status_code < 500, (who, url, body, response.status_code, response.content[:300])
        assert response.json(), (url, body)
        assert fingerprint() == before, (url, body)


# --- query strings -----------------------------------------------------------------------------------

QUERY_WRONG = ["x", "-1", "1.5", "0", "99999", "9" * 25, "²", "１", ["1", "2"]]


def test_a_wrong_typed_query_parameter_is_never_a_500(client, world, small_campaign, alice):
    users, ids = world
    eh = small_campaign.pk
    battle = ids("battle")["battle_id"]
    pages = [
        (f"/campaigns/{eh}/", ("turn", "seat")), (f"/campaigns/{eh}/map/", ("turn", "seat")),
        (f"/campaigns/{eh}/map.svg", ("turn", "seat")), (f"/campaigns/{eh}/reports/", ("seat", "turn")),
        (f"/campaigns/{eh}/reports/1/", ("seat",)), (f"/campaigns/{eh}/dice/", ("page",)),
        (f"/campaigns/{eh}/audit/", ("page",)), (f"/battles/{battle}/replay/", ("step",)),
        (f"/api/campaigns/{eh}/map/", ("turn",)), (f"/api/campaigns/{eh}/visible-fleets/", ("turn",)),
        (f"/api/campaigns/{eh}/reports/1/", ("seat",)), (f"/api/campaigns/{eh}/dice/", ("page", "turn")),
        (f"/api/campaigns/{eh}/audit/", ("page",)), (f"/api/campaigns/{eh}/fleets/", ("page", "seat")),
        ("/what-if/new/", ("campaign",)), ("/what-if/cam/new/", ("campaign", "scenario", "period")),
    ]
    client.force_login(alice)  # the moderator: every ?seat= is read
    client.raise_request_exception = False
    failures = []
    for url, names in pages:
        for name in names:
            for wrong in QUERY_WRONG:
                response = client.get(url, {name: wrong})
                if response.status_code >= 500:
                    failures.append(f"{url}?{name}={wrong!r}: {response.status_code}")
    assert not failures, "; ".join(failures)


@pytest.mark.parametrize(("field", "value", "named"), [
    ("shields", [3.7, 3, 3, 2], "shields is four whole numbers"),
    ("shields", [True, 3, 3, 2], "shields is four whole numbers"),
    ("shields", "3,3,3,2", "shields is four whole numbers"),
    ("main", [[True, "Phaser"]], "main is a list of weapons"),
    ("main", [["4", "Phaser", ""]], "main is a list of weapons"),
    ("special_abilities", "cloak", "special_abilities is a list of texts"),
    ("ship_class", "XX", "ship_class is one of BB, CV"),
    ("hull", 8.5, "hull is a whole number from 0 to 32767"),
])
def test_a_custom_sd_field_of_the_wrong_shape_is_refused_not_coerced(client, world, alice, field, value, named):
    """000 1.5: the API's SD fields are stored as sent; 3.7 shields were stored and read as 3."""
    users, ids = world
    url = reverse("api-cam-sds", kwargs=ids("cam"))
    client.force_login(alice)
    before = fingerprint()
    response = _send(client, "post", url, json.dumps({**BODIES["api-cam-sds"], field: value}))
    assert response.status_code == 400 and named in response.json()["detail"], response.content[:300]
    assert fingerprint() == before


@pytest.mark.parametrize(("body", "named"), [
    ({"defender": True}, "the defender is a seat number, such as 1 or 2, not True"),
    ({"defender": "1"}, "the defender is a seat number"),
    ({"nature": 0}, "the nature is named by its key"),
    ({"nature": False}, "the nature is named by its key"),
])
def test_a_scenario_generated_with_a_wrong_typed_nature_or_defender_is_refused(client, world, alice, body, named):
    """CAM 2.1: true was read as seat 1 and 0 or false as "roll the nature"; now a 400."""
    users, ids = world
    url = reverse("api-cam-scenarios", kwargs=ids("cam"))
    client.force_login(alice)
    before = fingerprint()
    response = _send(client, "post", url, json.dumps({"nature": "planetary_dispute", "defender": 1, **body}))
    assert response.status_code == 400 and named in response.json()["detail"], response.content[:300]
    assert fingerprint() == before


@pytest.mark.parametrize("value", [True, 1.5, "²", "5.0"])
def test_a_placement_square_that_is_no_whole_number_is_refused(client, deeper, value):
    """A placement's x of true or 1.5 was read by int() as 1; "²" was a 500 on the page."""
    users, ids = deeper
    battle = ids("battle-deploying")["battle_id"]
    client.force_login(users["carol"])
    before = fingerprint()
    placements = [{"ship": 21, "x": value, "y": 14, "facing": "N"}, {"ship": 22, "x": 6, "y": 14, "facing": "N"}]
    response = _send(client, "post", f"/api/battles/{battle}/deploy/", json.dumps({"placements": placements}))
    assert response.status_code == 400 and "needs whole numbers ship, x and y" in response.json()["detail"]
    if not isinstance(value, str):
        return
    for form in ({"square_21": f"{value},14"}, {"square_²": "5,14"}):
        response = client.post(f"/battles/{battle}/play/", {"deploy": "placed", "facing_21": "N", **form},
                               follow=True)
        assert response.status_code == 200 and "choose a square for ship" in response.content.decode()
    assert fingerprint() == before


@pytest.mark.parametrize("where", ["cam-doctrine", "cam-tables"])
def test_a_seat_on_a_cam_page_that_is_no_seat_number_is_refused_not_ignored(client, deeper, where):
    """The page read seat "x" as no seat (the player's own): now the action refuses it by name."""
    users, ids = deeper
    url = reverse(where, kwargs=ids("cam-online" if where == "cam-doctrine" else "cam-tables"))
    client.force_login(users["bob"])
    before = fingerprint()
    response = client.post(url, {"seat": "x", "on": "1", "table-ship:1": "1"})
    page = response.content.decode()
    assert response.status_code == 400 and "seat is a seat number" in page and "not &#x27;x&#x27;" in page
    assert fingerprint() == before


@pytest.mark.parametrize(("field", "value", "named"), [
    ("name", [1], "name is text, not [1]"), ("name", {"a": 1}, "name is text"), ("seed", 7, "seed is text"),
    ("listed", "x", "listed is true or false, not 'x'"), ("listed", [1], "listed is true or false"),
    ("step_hours", True, "step_hours is a whole number, not True"),
    # A rule option is refused null, as the Event Horizon lobby and every import refuse it; it was read as
    # left out (the layer's own rule book).
    ("battle_book", None, "battle_book is text, not None"), ("battle_book", 7, "battle_book is text, not 7"),
])
def test_the_cam_lobby_api_refuses_a_field_of_the_wrong_json_type(client, alice, field, value, named):
    """The CAM lobby is created through its page's form: fed JSON, it read [1] as the name "[1]"
    and "x" as listed."""
    client.force_login(alice)
    body = {**dict(next(b for i, _e, b in MORE_BODIES if i == "api-lobby-cam")), field: value}
    before = fingerprint()
    response = _send(client, "post", reverse("api-lobby"), json.dumps(body))
    assert response.status_code == 400 and response.json()[field][0]["message"].startswith(named), response.json()
    assert fingerprint() == before


@pytest.mark.parametrize(("change", "named"), [
    ({"name": [1]}, "the campaign's name is text, not [1]"),
    ({"seed": []}, "the seed is text, not []"),
    ({"seed": 0}, "the seed is text, not 0"),
    ({"players": ["bob", "carol"]}, "players is a list of two objects"),
    ({"players": 2}, "players is a list of two objects"),
])
def test_a_cam_campaign_created_with_wrong_typed_fields_is_refused(client, alice, bob, carol, change, named):
    client.force_login(alice)
    before = fingerprint()
    response = _send(
        client, "post", reverse("api-cam-campaigns"), json.dumps({**BODIES["api-cam-campaigns"], **change})
    )
    assert response.status_code == 400 and named in response.json()["detail"], response.json()
    assert fingerprint() == before


@pytest.mark.parametrize("value", [[1], {"a": 1}, True, 1.5])
@pytest.mark.parametrize("key", ["name", "username"])
def test_a_cam_player_field_that_is_no_text_is_refused(client, alice, bob, carol, key, value):
    client.force_login(alice)
    body = json.loads(json.dumps(BODIES["api-cam-campaigns"]))
    body["players"][0][key] = value
    before = fingerprint()
    response = _send(client, "post", reverse("api-cam-campaigns"), json.dumps(body))
    assert response.status_code == 400 and f"player 1: {key} is text, not {value!r}" in response.json()["detail"]
    assert fingerprint() == before
