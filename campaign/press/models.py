"""Press rows. A conversation is one set of participants in one campaign: the moderator's
announcements, the public channel to every seat, or a private set of seats (the sender among
them). Messages name their sender by seat and the name the others know it by, never by account
(fog of war: docs/press.md)."""

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

from campaign.models import Campaign

MAX_TEXT = 5000

# Conversation public ids: random 12-digit numbers (reply addresses take numbers of up to 12
# digits: campaign/mail/addresses.py), far above any primary key, so that a conversation made
# before public ids (whose reply addresses carry its primary key) is told apart by the number alone.
PUBLIC_ID_MIN = 10**11
PUBLIC_ID_MAX = 10**12


def new_public_id() -> int:
    """A random public id for a new conversation (unique: ``Conversation.objects.create`` keeps
    drawing on the rare clash, see ``ConversationManager``)."""
    return PUBLIC_ID_MIN + secrets.randbelow(PUBLIC_ID_MAX - PUBLIC_ID_MIN)


class ConversationManager(models.Manager):
    def create(self, **kwargs):
        if "public_id" not in kwargs:
            public_id = new_public_id()
            while Conversation.objects.filter(public_id=public_id).exists():
                public_id = new_public_id()
            kwargs["public_id"] = public_id
        return super().create(**kwargs)


class Conversation(models.Model):
    class Kind(models.TextChoices):
        ANNOUNCEMENTS = "announcements", "Moderator's announcements"
        ALL = "all", "Everyone"
        SEATS = "seats", "Private"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="press_conversations")
    # What pages, the API, reply addresses and mail headers call the conversation: random, so it
    # tells nobody how many conversations the site holds or when others began theirs (issue 24).
    public_id = models.BigIntegerField(unique=True, editable=False)
    legacy_reply_address = models.BooleanField(
        default=False, editable=False,
        help_text="Made before public ids: reply addresses already sent name its primary key, and still work.")
    kind = models.CharField(max_length=14, choices=Kind.choices)
    key = models.CharField(
        max_length=200, help_text="'announcements', 'all', or the participants' seats joined by commas ('1,3').")
    created_at = models.DateTimeField(default=timezone.now)
    last_message_at = models.DateTimeField(null=True, blank=True)

    objects = ConversationManager()

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
    # Its id as shown: 1, 2, 3… within its conversation (whose readers see all of it), assigned
    # under the campaign row's lock; never the site-wide primary key (issue 24).
    number = models.PositiveIntegerField()
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
        ordering = ["conversation_id", "created_at", "number"]
        constraints = [models.UniqueConstraint(fields=["conversation", "number"], name="press_message_unique_number")]

    def __str__(self) -> str:
        return f"{self.sender_name}: {self.text[:40]}"


class ReadMark(models.Model):
    """How far a user has read a conversation (for unread counts)."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="read_marks")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    last_read = models.PositiveBigIntegerField(
        default=0, help_text="Number of the last message read (PressMessage.number)."
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["conversation", "user"], name="press_readmark_unique_user")]

    def __str__(self) -> str:
        return f"{self.user_id} read {self.conversation_id} to {self.last_read}"
