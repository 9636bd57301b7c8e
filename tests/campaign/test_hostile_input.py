"""Hostile input (issue 14, item 5): one sanitising layer (campaign/sanitise.py) for every JSON
body, form post and query string. Deep nesting, NUL, lone surrogates, NaN and numbers beyond the
database's integer range are a 400 naming the problem, never a 500, and change nothing.

Run on SQLite and PostgreSQL (PostgreSQL is where a NUL in text broke)."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.apps import apps
from django.urls import URLResolver, get_resolver, reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign import sanitise
from campaign.models import Campaign, Membership
from tests.openapi_check import check, path_of

pytestmark = pytest.mark.django_db

DEEP = "[" * 50_000 + "]" * 50_000
TEXT, NUMBER = object(), object()
KINDS = {
    # kind: (text, number, what the refusal names)
    "nul": ("x\x00y", 1, "NUL character"),
    "surrogate": ("x\ud800y", 1, "lone surrogate"),
    "huge": ("ok", 10**30, "outside"),
    "big": ("ok", 2**31, "outside"),
    "nan": ("ok", float("nan"), "NaN is not a JSON number"),
}

# Every API endpoint that takes a body: (url name, method, who sends it, kwargs, body template).
# TEXT and NUMBER mark where the hostile value goes: in the free text or whole number that
# endpoint stores or looks up.
ENDPOINTS = [
    ("api-token", "post", None, "", {"username": TEXT, "password": TEXT, "n": NUMBER}),
    ("api-my-token", "post", "bob", "", {"note": TEXT, "n": NUMBER}),
    ("api-my-tokens", "post", "bob", "", {"name": TEXT, "n": NUMBER}),
    ("api-my-token-detail", "delete", "bob", "token", {"note": TEXT, "n": NUMBER}),
    ("api-cam-campaigns", "post", "alice", "", {"name": TEXT, "period": NUMBER, "starting_points": 100,
                                                "players": [{"username": TEXT, "name": TEXT, "fleet": []}]}),
    ("api-cam-start", "post", "alice", "cam", {"seed": TEXT, "x": NUMBER}),
    ("api-cam-fleet", "put", "bob", "cam", {"fleet": [TEXT], "seat": NUMBER}),
    ("api-cam-sds", "post", "bob", "cam", {"sds": [{"name": TEXT, "ships": [NUMBER]}]}),
    ("api-cam-scenarios", "post", "alice", "cam", {"nature": TEXT, "defender": NUMBER}),
    ("api-cam-forces", "put", "bob", "scenario", {"ships": [NUMBER], "edge_choice": TEXT}),
    ("api-cam-table", "post", "bob", "scenario", {"table": TEXT, "seat": NUMBER}),
    ("api-cam-turns", "post", "bob", "scenario", {"note": TEXT, "turn": NUMBER}),
    ("api-cam-end", "post", "bob", "scenario", {"destroyed": [NUMBER], "note": TEXT}),
    ("api-cam-confirm", "post", "carol", "scenario", {"note": TEXT, "seat": NUMBER}),
    ("api-cam-reject", "post", "carol", "scenario", {"reason": TEXT, "seat": NUMBER}),
    ("api-cam-autoresolve", "post", "alice", "scenario", {"note": TEXT, "seat": NUMBER}),
    ("api-cam-between", "post", "bob", "cam", {"requests": [{"kind": TEXT, "ship": NUMBER}]}),
    ("api-cam-mode", "put", "alice", "scenario", {"mode": TEXT, "seat": NUMBER}),
    ("api-cam-tables", "put", "bob", "scenario", {"tables": {"ship:1": NUMBER, "ship:2": TEXT}, "seat": NUMBER}),
    ("api-cam-act", "post", "bob", "scenario", {"action": {"type": TEXT, "ship": NUMBER}, "seat": NUMBER}),
    ("api-cam-doctrine", "post", "bob", "scenario", {"on": True, "note": TEXT, "seat": NUMBER}),
    ("api-cam-settle", "post", "alice", "scenario", {"how": TEXT, "seat": NUMBER}),
    ("api-orders", "put", "bob", "eh", {"orders": {"builds": [{"name": TEXT, "dockyard": NUMBER}]}}),
    ("api-orders-preview", "post", "bob", "eh", {"orders": {"builds": [{"name": TEXT, "dockyard": NUMBER}]}}),
    ("api-process", "post", "alice", "eh", {"turn": NUMBER, "note": TEXT}),
    ("api-lobby", "post", "alice", "", {"name": TEXT, "width": NUMBER, "height": 12, "seats": 2}),
    ("api-lobby-join", "post", "mallory", "", {"token": TEXT, "empire_name": TEXT, "seat": NUMBER}),
    ("api-player", "delete", "alice", "member", {"reason": TEXT, "seat": NUMBER}),
    ("api-moderators", "post", "alice", "lobby", {"username": TEXT, "seat": NUMBER}),
    ("api-invitations", "post", "alice", "lobby", {"email": TEXT, "seat": NUMBER}),
    ("api-invite-link", "put", "alice", "lobby", {"enabled": True, "note": TEXT, "n": NUMBER}),
    ("api-start", "post", "alice", "lobby", {"seed": TEXT, "seats": NUMBER}),
    ("api-orders-text", "post", "bob", "eh", {"text": TEXT, "n": NUMBER}),
    ("api-order-secret", "post", "bob", "eh", {"note": TEXT, "n": NUMBER}),
    ("api-ready", "post", "bob", "eh", {"ready": True, "note": TEXT, "turn": NUMBER}),
    ("api-take-back", "post", "bob", "eh", {"note": TEXT, "seat": NUMBER}),
    ("api-pause", "post", "alice", "eh", {"note": TEXT, "hours": NUMBER}),
    ("api-resume", "post", "alice", "eh", {"note": TEXT, "hours": NUMBER}),
    ("api-options", "patch", "alice", "eh", {"steered_drift": TEXT, "n": NUMBER}),
    ("api-extend", "post", "alice", "eh", {"hours": NUMBER, "note": TEXT}),
    ("api-rollback", "post", "alice", "eh", {"turn": NUMBER, "note": TEXT}),
    ("api-substitute", "post", "alice", "eh", {"seat": NUMBER, "username": TEXT}),
    ("api-notifications", "put", "bob", "eh", {"turn_processed": True, "email": TEXT, "n": NUMBER}),
    ("api-press", "post", "bob", "eh", {"to": [2, NUMBER], "text": TEXT}),
    ("api-press-conversation", "post", "bob", "press", {"text": TEXT, "n": NUMBER}),
    ("api-press-options", "patch", "alice", "eh", {"press": TEXT, "n": NUMBER}),
    ("api-battle-preference", "put", "bob", "eh", {"mode": TEXT, "n": NUMBER}),
    ("api-battle-result", "post", "bob", "battle", {"result": {"winner": NUMBER, "note": TEXT}}),
    ("api-battle-confirm", "post", "carol", "battle", {"note": TEXT, "n": NUMBER}),
    ("api-battle-dispute", "post", "carol", "battle", {"reason": TEXT, "n": NUMBER}),
    ("api-battle-settle", "post", "alice", "battle", {"note": TEXT, "result": {"winner": NUMBER}}),
    ("api-battle-mode", "post", "alice", "battle", {"mode": TEXT, "n": NUMBER}),
    ("api-battle-action", "post", "bob", "battle", {"type": TEXT, "ship": NUMBER}),
    ("api-battle-deploy", "post", "bob", "battle", {"placements": [{"ship": NUMBER, "facing": TEXT}]}),
    ("api-battle-doctrine", "post", "bob", "battle", {"on": True, "note": TEXT, "n": NUMBER}),
    ("api-pickup-list", "post", "bob", "", {"ruleset": TEXT, "points": NUMBER, "opponent": "computer",
                                           "sides": NUMBER, "others": [TEXT]}),
    ("api-pickup-invite", "post", "bob", "pickup", {"email": TEXT, "n": NUMBER}),
    ("api-pickup-accept", "post", "mallory", "", {"token": TEXT, "n": NUMBER}),
    ("api-pickup-fleet", "post", "bob", "pickup", {"ships": [TEXT], "n": NUMBER}),
    ("api-pickup-cancel", "post", "bob", "pickup", {"note": TEXT, "n": NUMBER}),
    ("api-pickup-seat-computer", "post", "bob", "pickup-seat", {"note": TEXT, "seat": NUMBER}),
    ("api-pickup-leave", "post", "bob", "pickup", {"note": TEXT, "n": NUMBER}),
    ("api-pickup-designs", "post", "bob", "designer", {"name": TEXT, "size": "A", "max_hyper": NUMBER, "fields": 5,
                                                       "dice": 5}),
    ("api-pickup-designs", "post", "bob", "designer-starsectors", {"name": TEXT, "power": TEXT, "cf": NUMBER, "df": 6,
                                                                   "mf": 3, "ss": NUMBER, "banks": [TEXT]}),
    ("api-pickup-design", "delete", "bob", "design", {"note": TEXT, "n": NUMBER}),
    ("api-whatif-list", "post", "bob", "", {"seed": TEXT, "trials": NUMBER,
                                            "a": {"ships": [{"design": 1, "count": 1}]},
                                            "b": {"ships": [{"design": 1, "count": 1}]}}),
    ("api-whatif-book", "post", "bob", "whatif-book", {"seed": TEXT, "trials": NUMBER, "points": 400,
                                                       "forces": {"1": [TEXT], "2": ["scout"]}}),
    ("api-away", "post", "bob", "", {"starts": TEXT, "ends": TEXT, "note": TEXT, "campaign": NUMBER}),
    ("api-away-end", "post", "bob", "absence", {"note": TEXT, "n": NUMBER}),
    ("api-campaign-away", "put", "alice", "eh", {"mode": TEXT, "limit_hours": NUMBER}),
    ("api-webhooks", "post", "alice", "eh", {"url": TEXT, "events": [TEXT], "n": NUMBER}),
    ("api-webhook", "delete", "alice", "webhook", {"note": TEXT, "n": NUMBER}),
    ("api-calendar", "post", "bob", "", {"note": TEXT, "n": NUMBER}),
    ("api-whatif-cam", "post", "bob", "", {"seed": TEXT, "trials": NUMBER, "period": 2, "points": 60,
                                           "a": {"sds": [TEXT]}, "b": {"sds": ["d7"]}}),
    ("api-whatif-converted", "post", "bob", "", {"seed": TEXT, "trials": NUMBER, "campaign": NUMBER, "scenario": 1}),
]
# One id per entry: an endpoint listed twice (the designer API of two rule books) is told apart by its book.
ENDPOINT_IDS = [e[0] + (f"-{e[3]}" if e[3].startswith("designer-") else "") for e in ENDPOINTS]


def _fill(template, text, number):
    if template is TEXT:
        return text
    if template is NUMBER:
        return number
    if isinstance(template, dict):
        return {k: _fill(v, text, number) for k, v in template.items()}
    if isinstance(template, list):
        return [_fill(v, text, number) for v in template]
    return template


def fingerprint() -> str:
    """Every row of every model the site writes (sessions aside)."""
    digest = hashlib.sha256()
    for model in apps.get_models():
        if model._meta.app_label in ("sessions", "admin", "contenttypes"):
            continue
        rows = list(model.objects.order_by("pk").values_list())
        digest.update(f"{model._meta.label}:{rows!r}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@pytest.fixture
def world(small_campaign, alice, bob, carol, mallory, settings):
    """The objects the endpoints act on, built only when an endpoint needs them."""
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 0  # no turn processed behind the test's back
    users = {"alice": alice, "bob": bob, "carol": carol, "mallory": mallory}

    def ids(kind: str) -> dict:
        if kind == "eh":
            return {"campaign_id": small_campaign.pk}
        if kind in ("lobby", "member"):
            from campaign import actions
            from campaign.eventhorizon import actions as eh_actions

            lobby = eh_actions.create_lobby(moderator=alice, name="Lobby", width=12, height=12, seats=2)
            if kind == "lobby":
                return {"campaign_id": lobby.pk}
            membership = Membership.objects.create(campaign=lobby, user=bob, role=Membership.Role.PLAYER)
            return {"campaign_id": lobby.pk, "membership_id": membership.pk}
        if kind in ("cam", "scenario"):
            from campaign.cam import actions as cam_actions
            from tests.cam.conftest import make_cam

            cam = make_cam(alice, bob, carol)
            if kind == "cam":
                return {"campaign_id": cam.pk}
            cam_actions.generate_scenario(campaign_id=cam.pk, user=alice, nature="open_battle")
            return {"campaign_id": cam.pk, "number": 1}
        if kind == "press":
            from campaign.press import actions as press

            message = press.post(campaign_id=small_campaign.pk, user=bob, to=[2], text="hello")
            return {"campaign_id": small_campaign.pk, "conversation_id": message.conversation_id}
        if kind in ("pickup", "pickup-seat"):
            from tactical.hosts.pickup import actions as pickup

            made = {"pickup_id": pickup.create_pickup(user=bob, ruleset="eventhorizon", points=200,
                                                      opponent="link").pk}
            return {**made, "seat": 2} if kind == "pickup-seat" else made
        if kind == "whatif-book":  # issue 27: the generic what-if of a rule book (My Trek V here)
            return {"book": "mytrek"}
        if kind == "designer":  # a player's own ship designs (My Trek V's designer)
            return {"ruleset": "mytrek"}
        if kind == "designer-starsectors":  # Star Sectors' card designer (issue 28)
            return {"ruleset": "starsectors"}
        if kind == "design":
            from tactical.models import PlayerDesign

            return {"ruleset": "mytrek", "design_id": PlayerDesign.objects.create(
                owner=bob, ruleset="mytrek", name="Scout", points=20,
                data={"name": "Scout", "size": "E", "max_hyper": 2, "fields": 1, "dice": 2}).pk}
        if kind == "token":
            from campaign import actions
            from campaign.eventhorizon import actions as eh_actions

            return {"token_id": actions.create_api_token(user=bob)[0].pk}
        if kind == "absence":  # issue 32: away dates
            from datetime import timedelta

            from django.utils import timezone

            from campaign.groups import away

            return {"absence_id": away.declare_absence(user=bob, starts=timezone.now() + timedelta(days=1),
                                                       ends=timezone.now() + timedelta(days=2)).pk}
        if kind == "webhook":
            from campaign.groups.models import Webhook

            return {"campaign_id": small_campaign.pk, "webhook_id": Webhook.objects.create(
                campaign=small_campaign, url="https://example.com/hook", events=["turn"], secret="s").pk}
        if kind == "battle":
            from tests.tactical.play_support import make_battle

            return {"battle_id": make_battle(small_campaign).pk}
        return {}

    return users, ids


def _send(client, method, url, body: str):
    return getattr(client, method)(url, data=body, content_type="application/json")


def test_every_api_endpoint_that_takes_a_body_is_listed():
    """A new endpoint must join ENDPOINTS (and so these tests)."""
    def walk(resolver):
        for p in resolver.url_patterns:
            if isinstance(p, URLResolver):
                yield from walk(p)
            else:
                yield p

    takes_body = {p.name for p in walk(get_resolver()) if getattr(p.callback, "cls", None) is not None
                  and any(hasattr(p.callback.cls, m) for m in ("post", "put", "patch", "delete"))}
    assert takes_body == {name for name, *_ in ENDPOINTS}


def test_every_api_view_parses_with_the_sanitising_parsers():
    def walk(resolver):
        for p in resolver.url_patterns:
            if isinstance(p, URLResolver):
                yield from walk(p)
            else:
                yield p

    for p in walk(get_resolver()):
        cls = getattr(p.callback, "cls", None)
        if cls is None:
            continue
        parsers = cls().get_parsers()
        assert parsers and all(type(x).__module__ == "campaign.sanitise" for x in parsers), (p.name, parsers)


@pytest.mark.parametrize(("name", "method", "who", "needs", "template"), ENDPOINTS, ids=ENDPOINT_IDS)
def test_hostile_json_is_a_400_naming_the_problem_and_changes_nothing(client, world, name, method, who, needs,
                                                                       template):
    users, ids = world
    url = reverse(name, kwargs=ids(needs))
    if who:
        client.force_login(users[who])
    before = fingerprint()
    response = _send(client, method, url, DEEP)
    assert response.status_code == 400, (name, "deep", response.content[:300])
    assert "nested more than 64 levels deep" in response.json()["detail"]
    check(response, method, path_of(url))  # the 400 its operation declares (campaign/api/schema.py)
    for kind, (text, number, named) in KINDS.items():
        body = json.dumps(_fill(template, text, number))
        response = _send(client, method, url, body)
        assert response.status_code == 400, (name, kind, response.content[:300])
        assert named in response.json()["detail"], (name, kind, response.json())
        check(response, method, path_of(url))
    assert fingerprint() == before


@pytest.mark.parametrize(("name", "method", "who", "needs", "template"), ENDPOINTS, ids=ENDPOINT_IDS)
def test_the_parsers_alone_keep_hostile_json_from_a_500(client, world, settings, name, method, who, needs, template):
    """Without the middleware (a view called some other way), DRF's default parsers still refuse."""
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if m != "campaign.sanitise.InputSanityMiddleware"]
    users, ids = world
    url = reverse(name, kwargs=ids(needs))
    if who:
        client.force_login(users[who])
    client.raise_request_exception = False
    for kind, (text, number, _named) in {"deep": (None, None, None), **KINDS}.items():
        body = DEEP if kind == "deep" else json.dumps(_fill(template, text, number))
        response = _send(client, method, url, body)
        assert response.status_code < 500, (name, kind, response.content[:300])


def test_the_token_endpoint_refuses_without_a_login_even_without_the_middleware(client, settings, bob):
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if m != "campaign.sanitise.InputSanityMiddleware"]
    response = client.post("/api/token/", DEEP, content_type="application/json")
    assert response.status_code == 400 and "nested more than 64" in response.json()["detail"]
    response = client.post("/api/token/", json.dumps({"username": "bob\x00", "password": "pw-bob"}),
                           content_type="application/json")
    assert response.status_code == 400 and "body.username: contains a NUL" in response.json()["detail"]
    response = client.post("/api/token/", {"username": "bob\x00", "password": "pw-bob"})  # a form body
    assert response.status_code == 400 and "NUL" in response.json()["detail"]


def test_a_body_over_the_size_limit_is_refused(client, settings, bob):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    client.force_login(bob)
    response = client.post("/api/what-if/", json.dumps({"seed": "x" * 2000}), content_type="application/json")
    assert response.status_code == 400 and "body: is larger than 1000 bytes" in response.json()["detail"]
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if m != "campaign.sanitise.InputSanityMiddleware"]
    response = client.post("/api/what-if/", json.dumps({"seed": "x" * 2000}), content_type="application/json")
    assert response.status_code == 400 and "body: is larger than 1000 bytes" in response.json()["detail"]


def test_a_refusal_names_the_path_to_the_bad_value(client, small_campaign, bob):
    client.force_login(bob)
    body = {"orders": {"builds": [{"name": "ok"}, {"name": "Swift\x00"}]}}
    response = client.put(f"/api/campaigns/{small_campaign.pk}/orders/", json.dumps(body),
                          content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "Refused: body.orders.builds[1].name: contains a NUL character (\\u0000), which text may not hold.")


# --- forms and query strings ----------------------------------------------------------------------


def _form_cases(small_campaign):
    eh = small_campaign.pk
    return [
        ("bob", reverse("whatif-new"), {"seed": "s\x00", "trials": "5"}),
        ("bob", reverse("campaign-orders", args=[eh]), {"orders": "{}", "ready": "x\x00"}),
        ("bob", reverse("campaign-orders-text", args=[eh]), {"text": "#SECTOR 1 1 x\x00 TURN 1\n#END"}),
        ("alice", reverse("moderation-substitute", args=[eh]), {"seat": "1", "username": "carol\x00"}),
        ("alice", reverse("lobby-create"), {"name": "Lobby\x00", "width": "12", "height": "12", "seats": "2"}),
        ("alice", reverse("cam-create"), {"name": "Rubber\x00", "period": "2", "starting_points": "100"}),
        ("alice", reverse("lobby-create") + "?layer=cam", {"name": "Rubber\x00", "period": "2",
                                                             "starting_points": "100", "step_hours": "48"}),
        (None, reverse("login"), {"username": "bob\x00", "password": "pw-bob"}),
        (None, reverse("signup"), {"username": "neo\x00", "email": "neo@example.com", "password1": "x",
                                   "password2": "x"}),
    ]


def test_a_nul_in_any_form_field_is_a_400_page_naming_the_field(client, small_campaign, alice, bob, settings):
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 0
    for who, url, data in _form_cases(small_campaign):
        client.logout()
        if who:
            client.force_login({"alice": alice, "bob": bob}[who])
        before = fingerprint()
        response = client.post(url, data)
        assert response.status_code == 400, (url, response.status_code)
        page = response.content.decode()
        assert 'id="refused"' in page and "contains a NUL character" in page, url
        field = next(k for k, v in data.items() if "\x00" in v)
        assert f"form field &#x27;{field}&#x27;" in page, url
        assert fingerprint() == before, url


def test_a_nul_in_a_query_string_is_refused(client, small_campaign, bob):
    client.force_login(bob)
    response = client.get(f"/api/campaigns/{small_campaign.pk}/map/", {"turn": "1\x00"})
    assert response.status_code == 400 and "query field 'turn'" in response.json()["detail"]
    check(response, "get", "/api/campaigns/{campaign_id}/map/")
    response = client.get(f"/campaigns/{small_campaign.pk}/", {"turn": "\x00"})
    assert response.status_code == 400 and 'id="refused"' in response.content.decode()


@pytest.mark.parametrize(("text", "named"), [
    (DEEP, "nested more than 64 levels deep"),
    ('{"builds": [{"name": "Swift\\u0000"}]}', "orders.builds[0].name: contains a NUL character"),
    ('{"builds": [{"name": "Swift\\ud800"}]}', "orders.builds[0].name: contains a lone surrogate (\\ud800)"),
    ('{"builds": [{"dockyard": 1000000000000000000000000000000}]}', "is outside"),
    ('{"builds": [{"dockyard": NaN}]}', "NaN is not a JSON number"),
])
def test_the_orders_text_area_refuses_hostile_json_with_a_form_error(client, small_campaign, bob, text, named):
    """The orders page's JSON text area is JSON typed into a form: read by sanitise.loads."""
    client.force_login(bob)
    before = fingerprint()
    response = client.post(reverse("campaign-orders", args=[small_campaign.pk]), {"orders": text})
    assert response.status_code == 200  # the page again, with the form's error
    assert named in response.content.decode().replace("&#x27;", "'")
    assert fingerprint() == before


def test_the_battle_page_refuses_a_deep_action(client, small_campaign, bob):
    from tests.tactical.play_support import make_battle

    battle = make_battle(small_campaign)
    client.force_login(bob)
    before = fingerprint()
    response = client.post(reverse("battle-play", args=[battle.pk]), {"action": DEEP}, follow=True)
    assert response.status_code == 200
    assert "nested more than 64 levels deep" in response.content.decode()
    assert fingerprint() == before


# --- the rules themselves (pure) -----------------------------------------------------------------


def test_loads_accepts_ordinary_json_and_paired_surrogates():
    assert sanitise.loads('{"a": [1, 2.5, "\\ud83d\\ude80", null, true], "b": {"c": -2147483648}}') == {
        "a": [1, 2.5, "\U0001f680", None, True], "b": {"c": -2147483648}}
    nested = "[" * 64 + "]" * 64
    sanitise.loads(nested)
    with pytest.raises(sanitise.HostileInput, match="nested more than 64"):
        sanitise.loads("[" * 65 + "]" * 65)


@pytest.mark.parametrize(("text", "message"), [
    ('{"\\u0000": 1}', "body: a key contains a NUL character"),
    ('[1, 2, "\\udfff"]', "body[2]: contains a lone surrogate (\\udfff)"),
    ("1e400", "body: the number is outside"),
    ("-Infinity", "body: -Infinity is not a JSON number"),
    ('{"n": 2147483648}', "body.n: the number is outside"),
    ('{"n": ' + "9" * 5000 + "}", "body: 99999999999999999999… is outside"),
    ('{"a b": "\\u0000"}', 'body["a b"]: contains a NUL'),
])
def test_loads_names_the_problem(text, message):
    with pytest.raises(sanitise.HostileInput) as caught:
        sanitise.loads(text)
    assert str(caught.value).startswith(message)


_TEXTS = st.text(alphabet=st.sampled_from(["a", "\x00", "\ud800", "é"]), max_size=2)
_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**32, max_value=2**32), _TEXTS,
                    st.floats(allow_nan=True))
_VALUES = st.recursive(_LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(_TEXTS, inner, max_size=3)),
                       max_leaves=12)


@pytest.mark.django_db(False)
@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_VALUES, st.integers(min_value=0, max_value=3))
def test_the_plain_body_shortcut_passes_only_what_the_full_walk_passes(value, depth):
    """check() skips its path-keeping walk for a body _plainly_clean passes: that must never
    pass a value the walk refuses (depths, text, numbers, floats, keys)."""
    if sanitise._plainly_clean(value, depth):
        walk = sanitise._plainly_clean
        try:
            sanitise._plainly_clean = lambda *_: False
            sanitise.check(value, max_depth=depth)  # the full walk: raises if anything is wrong
        finally:
            sanitise._plainly_clean = walk


def test_campaigns_are_untouched_by_refused_requests(client, small_campaign, alice):
    """The issue's own examples: a moderator's 'process now' with a deep body does nothing."""
    client.force_login(alice)
    turn = Campaign.objects.get(pk=small_campaign.pk).turn
    response = client.post(f"/api/campaigns/{small_campaign.pk}/process/", DEEP, content_type="application/json")
    assert response.status_code == 400
    assert Campaign.objects.get(pk=small_campaign.pk).turn == turn


_JSON_TEXTS = st.one_of(
    st.builds(lambda value, indent, ascii_only: json.dumps(value, indent=indent, ensure_ascii=ascii_only),
              _VALUES, st.sampled_from([None, 0, 2]), st.booleans()),
    # Nesting near the limit, long digit runs, escapes, floats and numbers at the edges of the range.
    st.builds(lambda n, inner: "[" * n + inner + "]" * n, st.integers(min_value=0, max_value=70),
              st.sampled_from(["", "1", '"[["', '{"a": [[]]}', "2147483647", "2147483648", "-2147483648",
                               "9999999999", "999999999", "1.0", "1e400", '"\\\\"', '"\\"["', '"\\u0000"'])),
    st.text(alphabet=st.sampled_from(list('[]{}",:0123456789-. eEnulltrue\\\x00')), max_size=40),
)


@pytest.mark.django_db(False)
@settings(max_examples=600, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_JSON_TEXTS, st.integers(min_value=0, max_value=66))
def test_the_plain_text_shortcut_reads_every_text_as_the_long_way_does(text, depth):
    """loads() reads plainly clean text (_plain_loads) without the per-number hook and the walk:
    for any text, JSON or not, it must give the value, the refusal or the parse error that the
    long way (_checked_loads) gives."""
    def outcome(read):
        try:
            return "value", read()
        except sanitise.HostileInput as exc:
            return "refused", str(exc)
        except ValueError as exc:
            return "not json", type(exc).__name__

    assert outcome(lambda: sanitise.loads(text, max_depth=depth)) == \
        outcome(lambda: sanitise._checked_loads(text, "body", depth))


def test_the_plain_text_shortcut_takes_ordinary_orders():
    """The shortcut is taken for an ordinary order body (a path of many coordinates, deeper in
    brackets than the limit in all), and not for text it cannot vouch for."""
    moves = [{"fleet": i, "path": [[i, j] for j in range(4)]} for i in range(20)]
    body = json.dumps({"orders": {"moves": moves, "purchases": [{"build": "Galiot", "dockyard": 3}]}, "ready": False})
    assert body.count("[") > sanitise.MAX_DEPTH
    assert sanitise._plain_loads(body, sanitise.MAX_DEPTH) == json.loads(body)
    for text in ('{"a": "\\u00e9"}', '{"a": 1.5}', '{"a": 1234567890}', '{"a": "é"}', "[" * 65 + "]" * 65):
        assert sanitise._plain_loads(text, sanitise.MAX_DEPTH) is None, text
