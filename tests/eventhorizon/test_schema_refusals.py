"""The Event Horizon campaign's "do it now" endpoints, the moderation endpoints and the embedded
battle's decisions declare the refusals they really give, with their bodies: the schemathesis
probe of /api/schema/ found their 409s (a turn named that is not the open one, a decision out of
turn) and their 400s and 403s not declared, a CAM rubber's moderation state sending a
``turn_status`` null declared always a text, and the audit log's entries the site made by itself
(``user`` null) declared always naming a user. Each answer is checked against the schema's
response for its status (tests/openapi_check.py)."""

from __future__ import annotations

import pytest

from campaign.models import AuditEntry
from tests.cam.conftest import make_cam
from tests.openapi_check import api, sent
from tests.tactical.play_support import make_battle, patch_record_result

pytestmark = pytest.mark.django_db


def test_the_turns_do_it_now_endpoints_declare_what_they_refuse(small_campaign, alice, bob):
    c = small_campaign
    ready, process = f"/api/campaigns/{c.pk}/ready/", f"/api/campaigns/{c.pk}/process/"
    rollback = f"/api/campaigns/{c.pk}/rollback/"
    for url, user in ((ready, bob), (process, alice), (rollback, alice)):
        sent(api(user).post(url, {}, format="json"), "post", url, 400)  # no turn named
        sent(api(user).post(url, {"turn": 99}, format="json"), "post", url, 409)  # not the one it acts on
    sent(api(bob).post(ready, {"ready": "yes", "turn": c.turn}, format="json"), "post", ready, 400)
    sent(api(alice).post(ready, {"turn": c.turn}, format="json"), "post", ready, 403)  # no seat
    for url in (process, rollback):
        sent(api(bob).post(url, {"turn": c.turn}, format="json"), "post", url, 403)
    sent(api(bob).post(ready, {"ready": False, "turn": c.turn}, format="json"), "post", ready, 200)
    sent(api(alice).post(process, {"turn": c.turn}, format="json"), "post", process, 200)
    sent(api(alice).post(rollback, {"turn": c.turn}, format="json"), "post", rollback, 200)


def test_the_moderation_endpoints_declare_what_they_refuse(small_campaign, alice, bob):
    c = small_campaign
    base = f"/api/campaigns/{c.pk}/"
    for sub, body in (("pause/", None), ("resume/", None), ("extend/", {"hours": 1}), ("options/", {}),
                      ("substitute/", {"seat": 1, "username": ""})):
        method = "patch" if sub == "options/" else "post"
        sent(getattr(api(bob), method)(base + sub, body, format="json"), method, base + sub, 403)
    sent(api(alice).post(base + "extend/", {"hours": "a day"}, format="json"), "post", base + "extend/", 400)
    sent(api(alice).post(base + "resume/"), "post", base + "resume/", 400)  # not paused
    sent(api(alice).patch(base + "options/", {}, format="json"), "patch", base + "options/", 400)
    sent(api(alice).post(base + "substitute/", {"seat": "one"}, format="json"), "post", base + "substitute/", 400)
    sent(api(alice).post(base + "pause/"), "post", base + "pause/", 200)
    sent(api(bob).get(base + "audit/"), "get", base + "audit/", 403)  # opens when the campaign ends
    sent(api(bob).post(base + "take-back/"), "post", base + "take-back/", 400)  # the computer has not his seat
    sent(api(alice).post(base + "take-back/"), "post", base + "take-back/", 403)
    preview = base + "orders/preview/"
    sent(api(bob).post(preview, {}, format="json"), "post", preview, 400)
    assert sent(api(bob).post(preview, {"orders": {"moves": [{"fleet": 9999, "path": [[1, 1]]}]}}, format="json"),
                "post", preview, 400)["problems"]
    sent(api(alice).post(preview, {"orders": {}}, format="json"), "post", preview, 403)


def test_a_rubbers_moderation_state_and_the_sites_own_audit_entries_are_declared(alice, bob, carol):
    rubber = make_cam(alice, bob, carol)
    url = f"/api/campaigns/{rubber.pk}/pause/"
    assert sent(api(alice).post(url), "post", url, 200)["turn_status"] is None
    AuditEntry.objects.create(campaign=rubber, user=None, action="deadline", target="Step 1",
                              note="the site, by itself")
    audit = f"/api/campaigns/{rubber.pk}/audit/"
    assert any(row["user"] is None for row in sent(api(alice).get(audit), "get", audit, 200)["results"])


def test_a_decision_out_of_turn_is_the_409_declared(small_campaign, bob, carol, alice, monkeypatch):
    from tactical.play import embedded

    patch_record_result(monkeypatch)
    battle = make_battle(small_campaign)
    acting = embedded.current_state(battle).acting_side
    waiting = carol if acting == 1 else bob
    url = f"/api/battles/{battle.pk}/action/"
    sent(api(waiting).post(url, {"type": "pass", "side": 3 - acting}, format="json"), "post", url, 409)
    sent(api(alice).post(url, {"type": "pass", "side": acting}, format="json"), "post", url, 403)
    doctrine = f"/api/battles/{battle.pk}/doctrine/"
    sent(api(waiting).post(doctrine, {"on": "maybe"}, format="json"), "post", doctrine, 400)


def test_the_export_and_the_webhooks_declare_their_refusals(small_campaign, alice, bob):
    base = f"/api/campaigns/{small_campaign.pk}/"
    sent(api(bob).get(base + "export/"), "get", base + "export/", 403)  # players: once it has ended
    hooks = base + "webhooks/"
    sent(api(bob).get(hooks), "get", hooks, 403)
    sent(api(bob).post(hooks, {"url": "https://example.com/hook", "events": ["turn"]}, format="json"), "post",
         hooks, 403)
    sent(api(alice).post(hooks, {"url": "not a url", "events": []}, format="json"), "post", hooks, 400)
    sent(api(bob).delete(hooks + "1/"), "delete", hooks + "1/", 403)


def test_a_bad_notification_preference_is_the_400_declared(small_campaign, bob):
    url = f"/api/campaigns/{small_campaign.pk}/notifications/"
    sent(api(bob).put(url, {"notify_turn": "often"}, format="json"), "put", url, 400)
    sent(api(bob).put(url, ["notify_turn"], format="json"), "put", url, 400)
    sent(api(bob).put(url, {"notify_turn": False}, format="json"), "put", url, 200)
