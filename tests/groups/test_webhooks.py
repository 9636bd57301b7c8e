"""A campaign's own channel (issue 32 item 3, docs/groups.md): webhooks delivered to a real
loopback HTTP receiver (a thread running ``http.server``): signed with an HMAC of the body,
retried on a 500 with back-off, disabled after a day of failures (the clock injected), and never
carrying private press or hidden fleets (markers planted in both, looked for in every delivery)."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core import mail
from django.utils import timezone

from campaign import actions
from campaign.eventhorizon.models import Ship
from campaign.groups import events, tasks, webhooks
from campaign.groups.models import Webhook, WebhookDelivery
from campaign.models import AuditEntry, Turn
from campaign.press import actions as press

PRIVATE_MARKER = "ZEBRA-PRIVATE-7731"
FLEET_MARKER = "ZEBRA-FLEET-4410"


class Receiver:
    """A loopback HTTP server answering each POST with the next of ``codes`` (then 200)."""

    def __init__(self):
        self.codes: list[int] = []
        self.received: list[tuple[dict, bytes]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                code = outer.codes.pop(0) if outer.codes else 200
                self.send_response(code)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(settings):
    settings.GROUPS_WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on loopback
    r = Receiver()
    yield r
    r.close()


def _hook(campaign, moderator, url, events_=("turn", "announcement", "deadline_24h", "deadline_1h", "battle",
                                              "ended"), preset="json"):
    return webhooks.add_webhook(campaign_id=campaign.pk, user=moderator, url=url, preset=preset, events=list(events_))


def _signed(hook: Webhook, headers: dict, body: bytes) -> bool:
    expected = "sha256=" + hmac.new(hook.secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(headers.get(webhooks.SIGNATURE_HEADER.lower(), ""), expected)


def test_an_announcement_is_delivered_signed(small_campaign, alice, receiver, django_capture_on_commit_callbacks):
    hook = _hook(small_campaign, alice, receiver.url)
    press.post(campaign_id=small_campaign.pk, user=alice, to="all", text="Turn 2 runs a day late.", announcement=True)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep_now() >= 1
    (headers, body), = receiver.received
    assert _signed(hook, headers, body)
    assert not _signed(hook, headers, body + b" ")  # the signature covers the body
    payload = json.loads(body)
    assert payload["event"] == "announcement" and "Turn 2 runs a day late." in payload["text"]
    assert payload["campaign"] == {"id": small_campaign.pk, "name": small_campaign.name,
                                   "url": payload["campaign"]["url"]}
    assert headers["x-sector-command-event"] == "announcement"
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_code) == ("delivered", 1, 200)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep_now() == 0  # announced once
    assert len(receiver.received) == 1


def test_a_500_is_retried_with_back_off_until_it_is_delivered(small_campaign, alice, receiver,
                                                                django_capture_on_commit_callbacks):
    hook = _hook(small_campaign, alice, receiver.url, events_=["announcement"])
    receiver.codes = [500, 500, 503]
    press.post(campaign_id=small_campaign.pk, user=alice, to="all", text="Hello", announcement=True)
    t0 = timezone.now()
    events.sweep_events(now=t0)
    delivery = WebhookDelivery.objects.get()
    delays = [webhooks.attempt(delivery.pk, now=t0)]
    delays.append(webhooks.attempt(delivery.pk, now=t0 + timedelta(seconds=delays[-1])))
    delays.append(webhooks.attempt(delivery.pk, now=t0 + timedelta(seconds=90)))
    assert delays == [30, 60, 120]  # back-off doubles
    delivery.refresh_from_db()
    assert (delivery.status, delivery.last_code, delivery.next_at) == ("pending", 503, t0 + timedelta(seconds=210))
    hook.refresh_from_db()
    assert hook.failing_since == t0
    assert webhooks.attempt(delivery.pk, now=t0 + timedelta(seconds=210)) is None
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("delivered", 4)
    hook.refresh_from_db()
    assert hook.failing_since is None and hook.active
    bodies = {body for _, body in receiver.received}
    assert len(receiver.received) == 4 and len(bodies) == 1
    assert all(_signed(hook, h, b) for h, b in receiver.received)
    assert webhooks.retry_delay(20) == webhooks.MAX_RETRY_SECONDS


def test_the_celery_task_retries_itself_with_the_back_off_when_a_broker_runs_it(small_campaign, alice, receiver,
                                                                                 monkeypatch):
    _hook(small_campaign, alice, receiver.url, events_=["announcement"])
    receiver.codes = [500]
    press.post(campaign_id=small_campaign.pk, user=alice, to="all", text="Hello", announcement=True)
    events.sweep_events()
    delivery = WebhookDelivery.objects.get()
    asked = []

    class Retry(Exception):
        pass

    def retry(countdown=None, **kwargs):
        asked.append(countdown)
        return Retry()

    monkeypatch.setattr(tasks.deliver_webhook, "retry", retry)
    tasks.deliver_webhook.push_request(is_eager=False)
    try:
        with pytest.raises(Retry):
            tasks.deliver_webhook(delivery.pk)
        assert asked == [30]
        assert tasks.deliver_webhook(delivery.pk) is True  # the retry: 200
    finally:
        tasks.deliver_webhook.pop_request()
    delivery.refresh_from_db()
    assert delivery.status == "delivered"


def test_a_day_of_failures_disables_the_webhook_and_tells_the_moderator(small_campaign, alice, receiver,
                                                                         django_capture_on_commit_callbacks):
    hook = _hook(small_campaign, alice, receiver.url, events_=["announcement"])
    receiver.codes = [500] * 100
    press.post(campaign_id=small_campaign.pk, user=alice, to="all", text="Hello", announcement=True)
    t0 = timezone.now()
    events.sweep_events(now=t0)
    delivery = WebhookDelivery.objects.get()
    at, tries = t0, 0
    with django_capture_on_commit_callbacks(execute=True):
        while (delay := webhooks.attempt(delivery.pk, now=at)) is not None:
            tries += 1
            at += timedelta(seconds=delay)
            assert tries < 60
    assert at - t0 >= webhooks.FAIL_DISABLE_AFTER
    hook.refresh_from_db()
    delivery.refresh_from_db()
    assert not hook.active and hook.disabled_at == at and "failing since" in hook.disabled_reason
    assert delivery.status == "failed"
    assert len(receiver.received) == tries + 1  # every try reached the receiver; none after
    assert AuditEntry.objects.filter(campaign=small_campaign, action="webhook_disabled").count() == 1
    assert any("alice@example.com" in m.to and "webhook" in m.body for m in mail.outbox)
    # a disabled webhook gets nothing more, and a delivery already queued is not posted
    press.post(campaign_id=small_campaign.pk, user=alice, to="all", text="Again", announcement=True)
    assert events.sweep_events(now=at) == 0
    assert webhooks.attempt(delivery.pk, now=at + timedelta(hours=1)) is None
    assert len(receiver.received) == tries + 1
    webhooks.enable_webhook(campaign_id=small_campaign.pk, user=alice, webhook_id=hook.pk)
    hook.refresh_from_db()
    assert hook.active and hook.failing_since is None


def test_nothing_private_is_ever_sent(small_campaign, alice, bob, carol, receiver, django_capture_on_commit_callbacks,
                                     monkeypatch):
    """The planted-marker check: a private press message and carol's hidden fleet's ships carry
    markers; every event fires (announcement, deadline warnings, turn processed) in every preset
    and no delivery carries a marker."""
    monkeypatch.setattr(webhooks, "RATE_PER_MINUTE", 1000)  # every post now, none held back
    campaign = small_campaign
    hooks = [_hook(campaign, alice, receiver.url, preset=preset) for preset in ("json", "discord", "slack", "matrix")]
    press.post(campaign_id=campaign.pk, user=bob, to=[2], text=f"Secret pact {PRIVATE_MARKER}")
    press.post(campaign_id=campaign.pk, user=bob, to="all", text="Public greetings")
    Ship.objects.filter(campaign=campaign, owner__seat=2).update(name=FLEET_MARKER)
    assert Ship.objects.filter(name=FLEET_MARKER).exists()
    campaign.show_ready = True
    campaign.save(update_fields=["show_ready"])
    Turn.objects.filter(campaign=campaign, number=campaign.turn).update(deadline=timezone.now() + timedelta(minutes=30))
    with django_capture_on_commit_callbacks(execute=True):
        press.post(campaign_id=campaign.pk, user=alice, to="all", text="Mind the Rim.", announcement=True)
        tasks.sweep_now()
        actions.process_now(campaign_id=campaign.pk, user=alice)
        tasks.sweep_now()
    kinds = {json.loads(b)["event"] for _, b in receiver.received if b"\"event\"" in b}
    assert {"announcement", "deadline_24h", "deadline_1h", "turn"} <= kinds
    assert len(receiver.received) == len(WebhookDelivery.objects.all()) >= 4 * len(hooks)
    not_ready = next(json.loads(b)["text"] for _, b in receiver.received if b"deadline_1h" in b and b"\"event\"" in b)
    assert "Not ready yet: Bob's Realm, Carol's Combine" in not_ready  # public seat names only
    for _headers, body in receiver.received:
        text = body.decode()
        assert PRIVATE_MARKER not in text and FLEET_MARKER not in text
        assert "Secret pact" not in text and "Public greetings" not in text  # no press between players at all
    for delivery in WebhookDelivery.objects.all():
        assert PRIVATE_MARKER not in delivery.body and FLEET_MARKER not in delivery.body
    discord = next(json.loads(b) for _, b in receiver.received if b"content" in b)
    assert set(discord) == {"content", "allowed_mentions"}


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/hook", "http://localhost:8000/hook", "http://10.1.2.3/hook", "http://192.168.0.10/",
    "http://169.254.169.254/latest/meta-data/", "http://[::1]/hook", "http://0.0.0.0/",
    "ftp://example.com/hook", "http://user:pw@example.com/", "not a url",
])
def test_private_and_odd_addresses_are_refused_and_nothing_is_made(small_campaign, alice, url, settings):
    settings.GROUPS_WEBHOOK_ALLOW_PRIVATE = False
    with pytest.raises(webhooks.UnsafeAddress):
        _hook(small_campaign, alice, url)
    assert not Webhook.objects.exists()


def test_a_private_address_is_refused_again_at_delivery_once_the_setting_is_off(small_campaign, alice, receiver,
                                                                                settings):
    _hook(small_campaign, alice, receiver.url, events_=["announcement"])
    press.post(campaign_id=small_campaign.pk, user=alice, to="all", text="Hello", announcement=True)
    events.sweep_events()
    settings.GROUPS_WEBHOOK_ALLOW_PRIVATE = False
    delivery = WebhookDelivery.objects.get()
    assert webhooks.attempt(delivery.pk) == 30
    delivery.refresh_from_db()
    assert "private network" in delivery.last_error and receiver.received == []


def test_only_moderators_manage_webhooks_pages_and_api(small_campaign, alice, bob, mallory, client, receiver):
    from django.urls import reverse

    from campaign.actions.errors import NotAllowed, NotFound

    with pytest.raises(NotAllowed):
        _hook(small_campaign, bob, receiver.url)
    with pytest.raises(NotFound):
        _hook(small_campaign, mallory, receiver.url)
    client.force_login(bob)
    assert client.get(reverse("campaign-webhooks", args=[small_campaign.pk])).status_code == 404
    assert client.get(reverse("api-webhooks", args=[small_campaign.pk])).status_code == 403
    client.force_login(mallory)
    assert client.get(reverse("api-webhooks", args=[small_campaign.pk])).status_code == 404
    client.force_login(alice)
    made = client.post(reverse("api-webhooks", args=[small_campaign.pk]),
                       {"url": receiver.url, "preset": "slack", "events": ["turn"]}, content_type="application/json")
    assert made.status_code == 201 and made.json()["secret"]
    bad = client.post(reverse("api-webhooks", args=[small_campaign.pk]),
                      {"url": receiver.url, "events": ["gossip"]}, content_type="application/json")
    assert bad.status_code == 400
    page = client.post(reverse("campaign-webhooks", args=[small_campaign.pk]),
                       {"url": receiver.url, "preset": "discord", "events": ["ended"]})
    assert page.status_code == 302
    assert "Discord" in client.get(reverse("campaign-webhooks", args=[small_campaign.pk])).content.decode()
    gone = client.delete(reverse("api-webhook", args=[small_campaign.pk, made.json()["id"]]))
    assert gone.status_code == 204 and Webhook.objects.count() == 1
    assert AuditEntry.objects.filter(action__startswith="webhook_").count() == 3


def test_the_rate_limit_holds_posts_back(small_campaign, alice, receiver, monkeypatch):
    monkeypatch.setattr(webhooks, "RATE_PER_MINUTE", 2)
    _hook(small_campaign, alice, receiver.url, events_=["announcement"])
    for n in range(3):
        press.post(campaign_id=small_campaign.pk, user=alice, to="all", text=f"News {n}", announcement=True)
    now = timezone.now()
    events.sweep_events(now=now)
    results = [
        webhooks.attempt(pk, now=now)
        for pk in WebhookDelivery.objects.order_by("pk").values_list("pk", flat=True)
    ]
    assert results == [None, None, 60] and len(receiver.received) == 2
    assert webhooks.attempt(WebhookDelivery.objects.order_by("pk").last().pk, now=now + timedelta(seconds=61)) is None
    assert len(receiver.received) == 3


def test_a_waiting_battle_and_the_end_are_announced_once_without_sides(small_campaign, alice, receiver,
                                                                        django_capture_on_commit_callbacks):
    from tests.tactical.play_support import make_battle

    _hook(small_campaign, alice, receiver.url, events_=["battle", "ended"])
    battle = make_battle(small_campaign, start=False)
    with django_capture_on_commit_callbacks(execute=True):
        tasks.sweep_now()
        tasks.sweep_now()
    (_, body), = receiver.received
    payload = json.loads(body)
    assert payload["event"] == "battle" and payload["text"].endswith("a battle waits for its players.")
    names = [e.name for e in small_campaign.empires.filter(seat__in=[battle.attacker, battle.defender])]
    assert not any(name in payload["text"] for name in names)
    small_campaign.status = "finished"
    small_campaign.save(update_fields=["status"])
    with django_capture_on_commit_callbacks(execute=True):
        tasks.sweep_now()
        tasks.sweep_now()
    assert [json.loads(b)["event"] for _, b in receiver.received] == ["battle", "ended"]


def test_the_panel_shows_each_webhooks_state_and_last_post(small_campaign, alice, receiver, client,
                                                          django_capture_on_commit_callbacks):
    from django.urls import reverse

    _hook(small_campaign, alice, receiver.url, events_=["announcement"])
    receiver.codes = [500]
    press.post(campaign_id=small_campaign.pk, user=alice, to="all", text="Hello", announcement=True)
    with django_capture_on_commit_callbacks(execute=True):
        tasks.sweep_now()
    client.force_login(alice)
    card = client.get(reverse("moderation-panel", args=[small_campaign.pk])).content.decode()
    assert 'id="webhook-states"' in card and "waiting (HTTP 500)" in card
    assert len(receiver.received) == 1  # the new delivery was posted once, by its own task


def test_without_a_broker_the_sweep_retries_a_failed_delivery_when_its_time_comes(
        small_campaign, alice, receiver, django_capture_on_commit_callbacks):
    _hook(small_campaign, alice, receiver.url, events_=["announcement"])
    receiver.codes = [500]
    press.post(campaign_id=small_campaign.pk, user=alice, to="all", text="Hello", announcement=True)
    t0 = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        tasks.sweep_now(t0)
    assert len(receiver.received) == 1
    assert webhooks.retry_due(now=t0 + timedelta(seconds=10)) == 0  # not yet: 30 s
    assert webhooks.retry_due(now=t0 + timedelta(seconds=31)) == 1
    assert len(receiver.received) == 2 and WebhookDelivery.objects.get().status == "delivered"
