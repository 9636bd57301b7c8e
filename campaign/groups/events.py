"""The webhooks' events, found by a sweep (beat's ``groups-sweep`` every minute; without a broker
the request sweep, ``campaign/middleware.py``): each webhook keeps what it has announced
(``Webhook.seen``) and the sweep compares it with the campaign as its layer's record describes it
(``current_step``, ``not_ready``) and with the moderator's announcements. So every layer's turns
and steps are announced without the platform or a layer calling in, and a webhook added today
announces nothing of the past (``initial_seen``).

Only public words are built here: the campaign's name, step labels and deadlines, the names of
seats not ready when the campaign shows ready marks, an announcement's text.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from campaign import battles, layers
from campaign.models import Campaign

from . import webhooks
from .models import Webhook, WebhookEvent

WINDOWS = ((WebhookEvent.DEADLINE_24H, timedelta(hours=24), "24 hours"),
           (WebhookEvent.DEADLINE_1H, timedelta(hours=1), "1 hour"))


def _last_announcement(campaign: Campaign) -> int:
    from campaign.press.models import Conversation, PressMessage

    return PressMessage.objects.filter(campaign=campaign, announcement=True,
                                       conversation__kind=Conversation.Kind.ANNOUNCEMENTS) \
        .order_by("-pk").values_list("pk", flat=True).first() or 0


def _battles(campaign: Campaign) -> set[int]:
    seats = layers.of(campaign).seats
    found: set[int] = set()
    for seat in (seats(campaign) if seats else []):
        for rows in battles.handler().unresolved_battles({campaign.pk: seat.number}, []).values():
            found.update(b.pk for b in rows)
    return found


def initial_seen(campaign: Campaign) -> dict:
    step = layers.of(campaign).current_step(campaign)
    return {"step": step.number, "status": campaign.status, "announcement": _last_announcement(campaign),
            "battles": sorted(_battles(campaign))}


def _when(value) -> str:
    return f"{value:%a %d %b %H:%M} UTC"


def _campaign_events(campaign: Campaign, seen: dict, now) -> tuple[list[tuple[str, str, str]], dict]:
    """(event, key, text) to send and the new ``seen``."""
    layer = layers.of(campaign)
    step = layer.current_step(campaign)
    out: list[tuple[str, str, str]] = []
    new = dict(seen)
    if step.number != seen.get("step") and campaign.status != Campaign.Status.SETUP:
        deadline = f" Next deadline: {_when(step.deadline)}." if step.open and step.deadline else ""
        out.append((WebhookEvent.TURN, f"{step.number}",
                    f"{campaign.name}: the last turn has been processed; now {step.label}.{deadline}"))
        new["step"] = step.number
    if campaign.status == Campaign.Status.FINISHED and seen.get("status") != campaign.status:
        out.append((WebhookEvent.ENDED, "ended", f"{campaign.name} has ended."))
    new["status"] = campaign.status
    if campaign.status == Campaign.Status.ACTIVE and not campaign.paused and step.open and step.deadline:
        for event, window, words in WINDOWS:
            if now < step.deadline <= now + window:
                waiting = ""
                if campaign.show_ready and layer.not_ready is not None:
                    names = layer.not_ready(campaign)
                    waiting = f" Not ready yet: {', '.join(names)}." if names else " Everyone is ready."
                out.append((event, f"{step.number}:{step.deadline.isoformat()}",
                            f"{campaign.name}: {step.label} deadline in {words} ({_when(step.deadline)}).{waiting}"))
    last = _last_announcement(campaign)
    if last > seen.get("announcement", 0):
        from campaign.press.models import Conversation, PressMessage

        for pk, text in PressMessage.objects.filter(
                campaign=campaign, announcement=True, conversation__kind=Conversation.Kind.ANNOUNCEMENTS,
                pk__gt=seen.get("announcement", 0)).order_by("pk").values_list("pk", "text")[:10]:
            out.append((WebhookEvent.ANNOUNCEMENT, f"{pk}",
                        f"{campaign.name}: announcement from the moderator: {text[:1500]}"))
        new["announcement"] = last
    if campaign.status == Campaign.Status.ACTIVE:
        current = _battles(campaign)
        for pk in sorted(current - set(seen.get("battles", []))):
            out.append((WebhookEvent.BATTLE, f"{pk}", f"{campaign.name}: a battle waits for its players."))
        new["battles"] = sorted(current)
    return out, new


def sweep_events(*, now=None) -> int:
    """Announce what happened since the last sweep to every active webhook. Returns the
    deliveries queued."""
    now = now or timezone.now()
    queued = 0
    campaign_ids = Webhook.objects.filter(active=True).values_list("campaign_id", flat=True).distinct()
    for campaign in Campaign.objects.filter(pk__in=list(campaign_ids)).order_by("pk"):
        with transaction.atomic():
            hooks = list(Webhook.objects.select_for_update().filter(campaign=campaign, active=True))
            for hook in hooks:
                seen = hook.seen or initial_seen(campaign)
                events, new = _campaign_events(campaign, seen, now)
                for event, key, text in events:
                    queued += webhooks.emit_one(hook, event, text, key=key, now=now)
                if new != hook.seen:
                    Webhook.objects.filter(pk=hook.pk).update(seen=new)
    return queued
