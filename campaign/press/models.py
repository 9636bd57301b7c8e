"""Press rows. A conversation is one set of participants in one campaign: the moderator's
announcements, the public channel to every seat, or a private set of seats (the sender among
them). Messages name their sender by seat and the name the others know it by, never by account
(fog of war: docs/press.md)."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from campaign.models import Campaign

MAX_TEXT = 5000


class Conversation(models.Model):
    class Kind(models.TextChoices):
        ANNOUNCEMENTS = "announcements", "Moderator's announcements"
        ALL = "all", "Everyone"
        SEATS = "seats", "Private"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="press_conversations")
    kind = models.CharField(max_length=14, choices=Kind.choices)
    key = models.CharField(
        max_length=200, help_text="'announcements', 'all', or the participants' seats joined by commas ('1,3').")
    created_at = models.DateTimeField(default=timezone.now)
    last_message_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        # By ids, not by the foreign keys (which would join their tables' own orderings).
        ordering = ["campaign_id", "-last_message_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="press_conversation_unique_key")]

    def __str__(self) -> str:
        return f"Press {self.key} of {self.campaign_id}"

    @property
    def seat_numbers(self) -> list[int]:
        return [int(s) for s in self.key.split(",")] if self.kind == self.Kind.SEATS else []


class Participant(models.Model):
    """A seat in a private conversation (public ones include every seat)."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="participants")
    seat = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["conversation_id", "seat"]
        constraints = [models.UniqueConstraint(fields=["conversation", "seat"], name="press_participant_unique_seat")]

    def __str__(self) -> str:
        return f"seat {self.seat} in {self.conversation_id}"


class PressMessage(models.Model):
    class Via(models.TextChoices):
        WEB = "web", "Web"
        API = "api", "API"
        MAIL = "mail", "Mail"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="press_messages")
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    sender_seat = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Empty: the moderator.")
    sender_name = models.CharField(max_length=80, help_text="As the recipients know the sender, when it was written.")
    announcement = models.BooleanField(default=False)
    text = models.TextField()
    turn = models.PositiveIntegerField(help_text="The campaign's turn when it was written.")
    via = models.CharField(max_length=4, choices=Via.choices, default=Via.WEB)
    moderator_may_read = models.BooleanField(
        default=True, help_text="A private message written while the campaign let its moderator read private press.")
    # Who wrote it, for the site's own records: never shown or sent to anyone (fog of war).
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    mail_key = models.CharField(max_length=64, null=True, blank=True, unique=True, editable=False,
                                help_text="A mailed reply's digest: the same mail processed twice posts once.")

    class Meta:
        ordering = ["conversation_id", "created_at", "id"]
        indexes = [models.Index(fields=["conversation", "id"], name="press_message_conv_id")]

    def __str__(self) -> str:
        return f"{self.sender_name}: {self.text[:40]}"


class ReadMark(models.Model):
    """How far a user has read a conversation (for unread counts)."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="read_marks")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    last_read = models.PositiveBigIntegerField(default=0, help_text="Id of the last message read.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["conversation", "user"], name="press_readmark_unique_user")]

    def __str__(self) -> str:
        return f"{self.user_id} read {self.conversation_id} to {self.last_read}"
