"""The deadline calendar (issue 32 item 2, docs/groups.md): each user's private iCalendar feed
(RFC 5545) at a secret URL (``/calendar/<secret>.ics``), revocable. One event per deadline of
every campaign the user plays in or moderates (the open turn or step, through its layer's
``current_step``: turns, set-up rounds, CAM steps) and of every battle waiting for him (its
decision deadline), each with two alarms (24 h and 1 h before) and the URL of the page that acts
on it. The feed is built when it is read, so it follows extensions, pauses (a paused campaign has
no deadline: its event goes) and away dates.

The secret is shown once when made; only its SHA-256 is stored (a lost URL is replaced).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime

from django.conf import settings
from django.db import transaction
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from campaign import battles, layers
from campaign.models import Campaign

from .models import CalendarFeed

PRODID = "-//Sector Command//Deadlines//EN"
ALARMS = (("-PT24H", "in 24 hours"), ("-PT1H", "in 1 hour"))


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@transaction.atomic
def rotate_feed(*, user) -> str:
    """Make (or replace) the user's feed; returns the new secret (the old URL stops working)."""
    secret = secrets.token_urlsafe(24)
    CalendarFeed.objects.update_or_create(user=user, defaults={"secret_hash": _hash(secret)})
    return secret


@transaction.atomic
def revoke_feed(*, user) -> bool:
    return CalendarFeed.objects.filter(user=user).delete()[0] > 0


def feed_user(secret: str, *, now=None):
    """The user a secret belongs to, or None."""
    if not isinstance(secret, str) or not 16 <= len(secret) <= 64:
        return None
    feed = CalendarFeed.objects.select_related("user").filter(secret_hash=_hash(secret)).first()
    if feed is None or not feed.user.is_active:
        return None
    with transaction.atomic():
        CalendarFeed.objects.filter(pk=feed.pk).update(last_read_at=now or timezone.now())
    return feed.user


def _escape(text: str) -> str:
    return (text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
            .replace("\r\n", "\\n").replace("\n", "\\n"))


def _fold(line: str) -> list[str]:
    """RFC 5545 3.1: lines of at most 75 octets, continued with a space."""
    out, current = [], b""
    for char in line:
        encoded = char.encode()
        if len(current) + len(encoded) > (75 if not out else 74):
            out.append(current.decode())
            current = b""
        current += encoded
    out.append(current.decode())
    return [out[0]] + [" " + part for part in out[1:]]


def _stamp(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _host() -> str:
    return settings.SITE_URL.split("://", 1)[-1].split("/", 1)[0] or "sector-command"


def deadlines(user, *, now=None) -> list[dict]:
    """Every deadline the user has to meet or watch, as dicts (uid, summary, when, url, sequence)."""
    from campaign.access import visible_campaigns
    from campaign.models import Membership

    now = now or timezone.now()
    base = settings.SITE_URL.rstrip("/")
    campaigns = list(visible_campaigns(user).filter(status=Campaign.Status.ACTIVE, paused=False).exclude(
        pk__in=Membership.objects.filter(user=user, role=Membership.Role.OBSERVER).values("campaign_id")))
    events = []
    seats: dict[int, int] = {}
    for campaign in campaigns:
        layer = layers.of(campaign)
        step = layer.current_step(campaign)
        if layer.seats:
            mine = [s.number for s in layer.seats(campaign) if s.user_id == user.pk]
            if mine:
                seats[campaign.pk] = mine[0]
        if not step.open or step.deadline is None:
            continue
        acts = layer.act_url if layer.act_url and campaign.pk in seats else layer.detail_url
        try:
            url = base + reverse(acts, args=[campaign.pk])
        except NoReverseMatch:
            url = base + "/"
        events.append({"uid": f"campaign-{campaign.pk}-step-{step.number}@{_host()}",
                       "summary": f"{campaign.name}: {step.label} deadline", "when": step.deadline, "url": url,
                       "description": f"The deadline of {step.label} in {campaign.name}. Act on it here: {url}"})
    waiting = battles.handler().unresolved_battles(seats, []) if seats else {}
    names = {c.pk: c.name for c in campaigns}
    for campaign_id, rows in waiting.items():
        for battle in rows:
            when = getattr(battle, "deadline", None)
            if when is None or campaign_id not in names:
                continue
            url = base + reverse("battle-detail", args=[battle.pk])
            events.append({"uid": f"battle-{battle.pk}@{_host()}", "when": when, "url": url,
                           "summary": f"{names[campaign_id]}: battle decision deadline",
                           "description": f"A battle in {names[campaign_id]} waits for your decision: {url}"})
    return sorted(events, key=lambda e: (e["when"], e["uid"]))


def render_feed(user, *, now=None) -> str:
    """The feed as RFC 5545 text (CRLF line ends, folded lines)."""
    now = now or timezone.now()
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:{PRODID}", "CALSCALE:GREGORIAN", "METHOD:PUBLISH",
             "X-WR-CALNAME:Sector Command deadlines", "REFRESH-INTERVAL;VALUE=DURATION:PT1H"]
    for event in deadlines(user, now=now):
        when = event["when"]
        lines += ["BEGIN:VEVENT", f"UID:{event['uid']}", f"DTSTAMP:{_stamp(now)}", f"DTSTART:{_stamp(when)}",
                  f"DTEND:{_stamp(when)}", f"SEQUENCE:{int(when.timestamp()) // 60}",
                  f"SUMMARY:{_escape(event['summary'])}", f"DESCRIPTION:{_escape(event['description'])}",
                  f"URL:{event['url']}", "TRANSP:TRANSPARENT"]
        for trigger, words in ALARMS:
            lines += ["BEGIN:VALARM", "ACTION:DISPLAY", f"TRIGGER:{trigger}",
                      f"DESCRIPTION:{_escape(event['summary'] + ' ' + words)}", "END:VALARM"]
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    return "".join(part + "\r\n" for line in lines for part in _fold(line))
