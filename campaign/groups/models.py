"""Where groups live (issue 32, docs/groups.md): away dates, the deadline calendar feed and a
campaign's outgoing webhooks. A platform app (app label ``groups``): it reaches a campaign's
layer only through its record (``campaign/layers.py``) and names no layer."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AwayMode(models.TextChoices):
    EXTEND = "extend", "Deadlines that fall inside the absence move to its end (up to a limit)"
    STANDING = "standing", "The seat keeps its standing orders; turns missed while away do not count"
    COMPUTER = "computer", "The computer plays the seat while its player is away"
    SUBSTITUTE = "substitute", "A named substitute is asked to play the seat"


class AwayPolicy(models.Model):
    """What a campaign does when one of its players is away (no row: the defaults)."""

    campaign = models.OneToOneField("campaign.Campaign", on_delete=models.CASCADE, related_name="away_policy")
    mode = models.CharField(max_length=12, choices=AwayMode.choices, default=AwayMode.EXTEND)
    limit_hours = models.PositiveIntegerField(default=168, help_text="the most one absence extends a deadline")
    substitute = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")


class Absence(models.Model):
    """A player's away period, for one campaign or (``campaign`` None) for all of his campaigns.
    Only he and the campaign's moderators read the note; other players see only that the seat is
    away and until when."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="absences")
    campaign = models.ForeignKey("campaign.Campaign", null=True, blank=True, on_delete=models.CASCADE,
                                 related_name="absences")
    starts = models.DateTimeField()
    ends = models.DateTimeField()
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True, help_text="the player came back early or cancelled")

    class Meta:
        indexes = [models.Index(fields=["ends"])]
        ordering = ["starts", "pk"]


class AwayEffect(models.Model):
    """One thing an absence did to one campaign, kept to be undone when its player returns early
    (each is in the campaign's audit log too)."""

    absence = models.ForeignKey(Absence, on_delete=models.CASCADE, related_name="effects")
    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveIntegerField()
    kind = models.CharField(max_length=12, choices=AwayMode.choices)
    step = models.IntegerField(default=0, help_text="the turn or step whose deadline moved (extend)")
    before = models.JSONField(default=dict)
    after = models.JSONField(default=dict)
    applied_at = models.DateTimeField()
    undone_at = models.DateTimeField(null=True, blank=True)
    undo_note = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["absence", "campaign", "kind", "step", "seat"],
                                               name="groups_one_effect_per_step")]


class CalendarFeed(models.Model):
    """A user's private iCalendar feed: the secret is shown once; only its hash is kept."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_feed")
    secret_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_read_at = models.DateTimeField(null=True, blank=True)


class WebhookEvent(models.TextChoices):
    TURN = "turn", "Turn processed (public summary)"
    DEADLINE_24H = "deadline_24h", "Deadline in 24 hours"
    DEADLINE_1H = "deadline_1h", "Deadline in 1 hour"
    BATTLE = "battle", "Battle waiting"
    ANNOUNCEMENT = "announcement", "Press announcement"
    ENDED = "ended", "Campaign ended"


class Webhook(models.Model):
    class Preset(models.TextChoices):
        JSON = "json", "Plain JSON"
        DISCORD = "discord", "Discord"
        SLACK = "slack", "Slack"
        MATRIX = "matrix", "Matrix (hookshot)"

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    preset = models.CharField(max_length=10, choices=Preset.choices, default=Preset.JSON)
    events = models.JSONField(default=list)
    secret = models.CharField(max_length=64, help_text="the HMAC key of the signature header")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    active = models.BooleanField(default=True)
    failing_since = models.DateTimeField(null=True, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=200, blank=True)
    seen = models.JSONField(default=dict, help_text="what the event sweep has announced already")


class WebhookDelivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Given up"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=16, choices=WebhookEvent.choices)
    key = models.CharField(max_length=120, help_text="one delivery per webhook and key (idempotent)")
    body = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_code = models.IntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField()
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    next_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["webhook", "key"], name="groups_one_delivery_per_key")]
        indexes = [models.Index(fields=["status", "next_at"])]
        ordering = ["-pk"]
