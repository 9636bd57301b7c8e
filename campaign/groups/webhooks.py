"""A campaign's own channel (issue 32 item 3, docs/groups.md): outgoing webhooks.

A moderator adds a URL with a preset (plain JSON, Discord, Slack, Matrix) and the events it
wants. The event sweep (``events.py``) finds what happened; ``emit_one`` stores one ``WebhookDelivery`` per
webhook and event key (so an event is sent once however often it is emitted) and queues
``campaign.groups.tasks.deliver_webhook`` on commit. ``attempt`` posts it, signed
(``X-Sector-Command-Signature: sha256=<HMAC-SHA256 of the body with the webhook's secret>``), and on a failure
says when to try again (30 s, doubling, at most an hour); a webhook that has failed for a whole day
(``FAIL_DISABLE_AFTER``) is disabled and the moderators are told. At most ``RATE_PER_MINUTE`` posts a minute
per campaign; more wait.

What is sent is built here from public facts only: the campaign's name, the step's label and
deadline, the seats' names (the players' public names) for "who is not ready" when the campaign
shows ready marks, an announcement's text (every member reads it). Never press between players,
never a fleet, never anything of the game state.

Addresses: http(s) only, and every address the host name resolves to must be public (not
loopback, private, link-local, multicast or reserved) unless ``GROUPS_WEBHOOK_ALLOW_PRIVATE``;
checked when the webhook is added and again before each post (the name may resolve elsewhere
later); redirects are not followed.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import socket
import urllib.error
import urllib.request
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from campaign import layers
from campaign.actions.errors import ActionError, NotFound
from campaign.models import Campaign

from .models import Webhook, WebhookDelivery, WebhookEvent

SIGNATURE_HEADER = "X-Sector-Command-Signature"
MAX_WEBHOOKS = 5
RATE_PER_MINUTE = 20
FIRST_RETRY_SECONDS = 30
MAX_RETRY_SECONDS = 3600
FAIL_DISABLE_AFTER = timedelta(days=1)
TIMEOUT_SECONDS = 10


class UnsafeAddress(ActionError):
    pass


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def check_url(url) -> str:
    """The URL if the site may post to it, else ``UnsafeAddress`` saying why."""
    if not isinstance(url, str) or not url.strip() or len(url) > 500:
        raise UnsafeAddress("give the webhook's address, an http or https URL of at most 500 characters")
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UnsafeAddress("a webhook's address is an http or https URL with a host name")
    if parts.username or parts.password:
        raise UnsafeAddress("put no user name or password in the webhook's address")
    try:
        found = socket.getaddrinfo(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80),
                                   type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, ValueError):
        raise UnsafeAddress(f"the host {parts.hostname!r} has no address") from None
    if not getattr(settings, "GROUPS_WEBHOOK_ALLOW_PRIVATE", False):
        for *_, sockaddr in found:
            address = ipaddress.ip_address(sockaddr[0].split("%", 1)[0])
            if not address.is_global or address.is_multicast:
                raise UnsafeAddress(f"{parts.hostname} is on a private network ({address}); "
                                    "this site posts only to public addresses")
    return url


def _moderated(campaign_id: int, user) -> Campaign:
    from campaign.actions.moderation import _moderated_campaign

    return _moderated_campaign(campaign_id, user, doing="manage the campaign's webhooks")


def _clean_events(events) -> list[str]:
    known = set(WebhookEvent.values)
    if not isinstance(events, (list, tuple)) or not events or not all(isinstance(e, str) for e in events):
        raise ActionError(f"choose at least one event: {', '.join(WebhookEvent.values)}")
    unknown = sorted(set(events) - known)
    if unknown:
        raise ActionError(f"unknown event(s) {', '.join(unknown)}; choose from {', '.join(WebhookEvent.values)}")
    return [e for e in WebhookEvent.values if e in events]


@transaction.atomic
def add_webhook(*, campaign_id: int, user, url, preset: str = "json", events=()) -> Webhook:
    from campaign.actions.moderation import _audit

    campaign = _moderated(campaign_id, user)
    if preset not in Webhook.Preset.values:
        raise ActionError(f"the format is one of {', '.join(Webhook.Preset.values)}, not {preset!r}")
    events = _clean_events(list(events))
    url = check_url(url)
    if campaign.webhooks.count() >= MAX_WEBHOOKS:
        raise ActionError(f"a campaign has at most {MAX_WEBHOOKS} webhooks; remove one first")
    from .events import initial_seen

    hook = Webhook.objects.create(campaign=campaign, url=url, preset=preset, events=events,
                                  secret=secrets.token_hex(32), created_by=user, seen=initial_seen(campaign))
    _audit(campaign, user, "webhook_add", f"webhook {hook.pk}", None,
           {"host": urlsplit(url).hostname, "preset": preset, "events": events})
    return hook


def _hook(campaign: Campaign, webhook_id) -> Webhook:
    hook = Webhook.objects.select_for_update().filter(pk=webhook_id, campaign=campaign).first()
    if hook is None:
        raise NotFound("no such webhook")
    return hook


@transaction.atomic
def remove_webhook(*, campaign_id: int, user, webhook_id: int) -> None:
    from campaign.actions.moderation import _audit

    campaign = _moderated(campaign_id, user)
    hook = _hook(campaign, webhook_id)
    _audit(campaign, user, "webhook_remove", f"webhook {hook.pk}", {"host": urlsplit(hook.url).hostname}, None)
    hook.delete()


@transaction.atomic
def enable_webhook(*, campaign_id: int, user, webhook_id: int) -> Webhook:
    """Switch a disabled webhook back on (its address is checked again)."""
    from campaign.actions.moderation import _audit

    campaign = _moderated(campaign_id, user)
    hook = _hook(campaign, webhook_id)
    check_url(hook.url)
    hook.active, hook.failing_since, hook.disabled_at, hook.disabled_reason = True, None, None, ""
    hook.save(update_fields=["active", "failing_since", "disabled_at", "disabled_reason"])
    _audit(campaign, user, "webhook_enable", f"webhook {hook.pk}", {"active": False}, {"active": True})
    return hook


# --- What is sent --------------------------------------------------------------------------------

def _campaign_url(campaign: Campaign) -> str:
    try:
        return settings.SITE_URL.rstrip("/") + reverse(layers.of(campaign).detail_url, args=[campaign.pk])
    except NoReverseMatch:
        return settings.SITE_URL.rstrip("/") + "/"


def body_for(hook: Webhook, event: str, campaign: Campaign, text: str, *, at) -> str:
    """The request body in the webhook's preset: ``text`` (already public) and the campaign's URL."""
    url = _campaign_url(campaign)
    line = f"{text} {url}"
    if hook.preset == Webhook.Preset.DISCORD:
        payload = {"content": line[:2000], "allowed_mentions": {"parse": []}}
    elif hook.preset == Webhook.Preset.SLACK:
        payload = {"text": line}
    elif hook.preset == Webhook.Preset.MATRIX:
        payload = {"text": line, "username": "Sector Command"}
    else:
        payload = {"event": event, "campaign": {"id": campaign.pk, "name": campaign.name, "url": url},
                   "text": text, "at": at.isoformat()}
    return json.dumps(payload, ensure_ascii=False, sort_keys=True)


def emit_one(hook: Webhook, event: str, text: str, *, key: str, now=None) -> int:
    """Queue ``text`` (public words only) to ``hook`` if it wants ``event``, once per ``key``
    (1 if queued). The task is queued when the transaction commits."""
    now = now or timezone.now()
    if not hook.active or event not in hook.events:
        return 0
    try:
        with transaction.atomic():
            delivery = WebhookDelivery.objects.create(
                webhook=hook, event=event, key=f"{event}:{key}"[:120], created_at=now, next_at=now,
                body=body_for(hook, event, hook.campaign, text, at=now))
    except IntegrityError:  # sent already
        return 0
    from . import tasks

    transaction.on_commit(lambda pk=delivery.pk: tasks.deliver_webhook.delay(pk), robust=True)
    return 1


# --- Delivery ------------------------------------------------------------------------------------

class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def post(url: str, body: bytes, headers: dict) -> int:
    """POST and return the HTTP status (an error status too); raises OSError when nothing answers."""
    opener = urllib.request.build_opener(_NoRedirect)
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with opener.open(request, timeout=TIMEOUT_SECONDS) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def retry_delay(attempts: int) -> int:
    """Seconds to wait after the ``attempts``-th failure: 30, 60, 120, … at most an hour."""
    return min(FIRST_RETRY_SECONDS * 2 ** max(attempts - 1, 0), MAX_RETRY_SECONDS)


def attempt(delivery_id: int, *, now=None) -> int | None:
    """Try one delivery now. Returns None when there is nothing more to do (delivered, given
    up, gone), else the seconds to wait before the next try. The HTTP request is made outside
    any transaction; the result is recorded under the delivery's row lock."""
    now = now or timezone.now()
    delivery = WebhookDelivery.objects.select_related("webhook", "webhook__campaign").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != WebhookDelivery.Status.PENDING:
        return None
    hook = delivery.webhook
    if not hook.active:
        with transaction.atomic():
            WebhookDelivery.objects.filter(pk=delivery.pk).update(status=WebhookDelivery.Status.FAILED,
                                                                  last_error="the webhook is disabled")
        return None
    recent = WebhookDelivery.objects.filter(webhook__campaign_id=hook.campaign_id,
                                            last_attempt_at__gt=now - timedelta(minutes=1)).count()
    if recent >= RATE_PER_MINUTE:
        with transaction.atomic():
            WebhookDelivery.objects.filter(pk=delivery.pk).update(next_at=now + timedelta(seconds=60))
        return 60
    body = delivery.body.encode()
    code, error = None, ""
    try:
        check_url(hook.url)
        code = post(hook.url, body, {
            "Content-Type": "application/json", "User-Agent": "SectorCommand-Webhook/1",
            SIGNATURE_HEADER: sign(hook.secret, body), "X-Sector-Command-Event": delivery.event,
            "X-Sector-Command-Delivery": str(delivery.pk)})
    except UnsafeAddress as exc:
        error = str(exc)
    except (OSError, ValueError) as exc:
        error = f"{type(exc).__name__}: {exc}"
    return record_attempt(delivery.pk, code, error, now)


@transaction.atomic
def record_attempt(delivery_id: int, code: int | None, error: str, now) -> int | None:
    """Record one post's answer (``code`` None: none came, ``error`` says why) under the
    delivery's and webhook's row locks; returns the seconds to the next try, or None."""
    delivery = WebhookDelivery.objects.select_for_update().get(pk=delivery_id)
    hook = Webhook.objects.select_for_update().get(pk=delivery.webhook_id)
    delivery.attempts += 1
    delivery.last_attempt_at, delivery.last_code, delivery.last_error = now, code, error[:200]
    if code is not None and 200 <= code < 300:
        delivery.status, delivery.next_at = WebhookDelivery.Status.DELIVERED, None
        delivery.save()
        if hook.failing_since is not None:
            hook.failing_since = None
            hook.save(update_fields=["failing_since"])
        return None
    if not delivery.last_error:
        delivery.last_error = f"HTTP {code}"
    if hook.failing_since is None:
        hook.failing_since = now
        hook.save(update_fields=["failing_since"])
    if now - hook.failing_since >= FAIL_DISABLE_AFTER:
        delivery.status, delivery.next_at = WebhookDelivery.Status.FAILED, None
        delivery.save()
        _disable(hook, now, reason=f"failing since {hook.failing_since:%Y-%m-%d %H:%M} UTC ({delivery.last_error})")
        return None
    delay = retry_delay(delivery.attempts)
    delivery.next_at = now + timedelta(seconds=delay)
    delivery.save()
    return delay


def _disable(hook: Webhook, now, *, reason: str) -> None:
    from campaign.actions.moderation import _audit
    from campaign.actions.notifications import notify_moderators

    hook.active, hook.disabled_at, hook.disabled_reason = False, now, reason[:200]
    hook.save(update_fields=["active", "disabled_at", "disabled_reason"])
    hook.deliveries.filter(status=WebhookDelivery.Status.PENDING).update(
        status=WebhookDelivery.Status.FAILED, last_error="the webhook was disabled")
    campaign = hook.campaign
    _audit(campaign, None, "webhook_disabled", f"webhook {hook.pk}", {"active": True}, {"active": False},
           note=reason)
    host = urlsplit(hook.url).hostname
    notify_moderators(campaign_id=campaign.pk, turn=layers.of(campaign).current_step(campaign).number,
                      text=f"The webhook to {host} has failed for a day ({reason}), so it is switched off. "
                           "Switch it back on from the moderation panel once it works again.")


def retry_due(*, now=None) -> int:
    """Queue every waiting delivery whose time has come (beat's sweep; without a broker, the
    request sweep: a task run in-process does not wait for its own retry)."""
    from . import tasks

    now = now or timezone.now()
    # With a broker the task retries itself: the sweep only picks up what it lost (overdue). A
    # delivery never tried is its own task's, queued when it was made (not posted twice here).
    late = timedelta(0) if tasks.deliver_webhook.app.conf.task_always_eager else timedelta(minutes=5)
    due = list(WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING, next_at__lte=now - late)
               .filter(Q(attempts__gt=0) | Q(created_at__lte=now - timedelta(minutes=5)))
               .values_list("pk", flat=True)[:200])
    for pk in due:
        tasks.deliver_webhook.delay(pk)
    return len(due)
