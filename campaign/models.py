"""Persistence for campaigns. The rules live in ``campaign/rules`` (pure Python); these models
only store state, and ``campaign/eventhorizon/adapters.py`` converts between the two."""

from django.conf import settings
from django.db import models

GRID_CHOICES = [("hex", "Hexes"), ("square", "Squares")]

COLOUR_PALETTE = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


def default_layer() -> str:
    """A new campaign's layer unless it names one: the one the lobby offers first, the first
    registered (``INSTALLED_APPS`` order, config/settings.py), so the platform names no layer as
    its default (issue 26)."""
    from . import layers

    return layers.default().key


class Campaign(models.Model):
    class Status(models.TextChoices):
        SETUP = "setup", "Lobby: waiting for players"
        ACTIVE = "active", "Active"
        FINISHED = "finished", "Finished"

    class BattleMode(models.TextChoices):
        AUTO = "auto", "Auto-resolve (003 Alternative to a Tactical Battle)"
        TACTICAL = "tactical", "Embedded tactical resolver"
        TABLETOP = "tabletop", "Fought on a real tabletop"

    name = models.CharField(max_length=120)
    layer = models.CharField(max_length=20, default=default_layer, editable=False)
    grid = models.CharField(max_length=10, choices=GRID_CHOICES, default="hex")
    width = models.PositiveSmallIntegerField()
    height = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    turn = models.PositiveIntegerField(default=1)
    options = models.JSONField(default=dict, blank=True, help_text="Rule options (see RULINGS.md).")
    # The dice seed is secret until the campaign ends; seed_hash is published from the start.
    dice_seed = models.CharField(max_length=128, editable=False)
    seed_hash = models.CharField(max_length=64, editable=False)
    dice_offset = models.PositiveBigIntegerField(
        default=0, editable=False, help_text="Next unused word of the dice stream."
    )
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="moderated_campaigns",
    )
    id_counters = models.JSONField(
        default=dict, blank=True, editable=False,
        help_text="Highest ship, fleet and structure numbers ever given (numbers are never reused).",
    )
    purpose = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The d6 of 003 Purpose of the Campaign (victory condition)."
    )
    winner = models.ForeignKey(
        "Empire", null=True, blank=True, on_delete=models.SET_NULL, related_name="won_campaigns"
    )
    # Online play (lobby, deadlines, moderation).
    seats = models.PositiveSmallIntegerField(
        default=2, help_text="Players the map is made for (2 to 8); seats nobody takes become computer players."
    )
    turn_hours = models.PositiveIntegerField(
        default=72, help_text="Hours players have to write each turn's orders (0: no deadline)."
    )
    setup_hours = models.PositiveIntegerField(
        default=72, help_text="Hours players have for the set-up round, spending their 240 BP before "
                              "turn 1 (003 Set Up; 0: no deadline).",
    )
    battle_mode = models.CharField(
        max_length=10, choices=BattleMode.choices, default=BattleMode.AUTO,
        help_text="How battles are settled unless a player asks otherwise (see who may ask).",
    )
    battle_requests = models.CharField(
        max_length=10, choices=[("nobody", "Nobody: always the campaign's mode"),
                                ("either", "Either side of a battle"),
                                ("both", "Both sides, asking for the same mode")],
        default="either",
        help_text="Who may ask for an embedded or tabletop battle instead of the campaign's mode "
                  "(a player's battle preference, set on the orders page).",
    )
    battle_hours = models.PositiveIntegerField(
        default=48, help_text="Hours to fight an embedded or tabletop battle before it is settled "
                              "without the players (auto-resolve; 0: no deadline).",
    )
    activation_hours = models.PositiveIntegerField(
        default=24, help_text="Embedded battles: hours a side has for each activation before the "
                              "computer doctrine plays it (0: no deadline).",
    )
    class Deployment(models.TextChoices):
        AUTOMATIC = "automatic", "Automatic: each fleet lines up in its zone (ruling TC24)"
        HAND = "hand", "By hand: each side places its ships in its zone, in the rule book's order"

    deployment = models.CharField(
        max_length=10, choices=Deployment.choices, default=Deployment.AUTOMATIC,
        help_text="Embedded battles: how the fleets are set on the table. By hand, the side that "
                  "deploys first (the defender; the invader against an AEWA) places its ships, then the "
                  "other, each within the activation deadline (after it: automatic).",
    )
    fog_of_war = models.BooleanField(
        default=True, help_text="Players see enemy fleets only within detection range of their own worlds and fleets."
    )
    detection_range = models.PositiveSmallIntegerField(
        default=2, help_text="Fog of war: hexes (or squares) from an own world or fleet where enemy fleets are seen."
    )
    missed_turn_limit = models.PositiveSmallIntegerField(
        default=3, help_text="After this many missed turns in a row a seat is played by the computer (0: never)."
    )
    paused = models.BooleanField(default=False, help_text="A paused campaign takes orders but no turn is processed.")
    paused_remaining = models.DurationField(
        null=True, blank=True, editable=False, help_text="Time left to the deadline when the campaign was paused."
    )
    listed = models.BooleanField(
        default=False,
        help_text="Listed on every user's home page among the open campaigns that accept players, with its "
                  "invitation link, while it is in the lobby (the moderator's choice).",
    )
    show_ready = models.BooleanField(
        default=True,
        help_text="Players see which empires have marked their orders ready (the moderator always does).",
    )
    invite_token = models.CharField(
        max_length=43, blank=True, default="", db_index=True,
        help_text="Secret of the campaign's invitation link (empty: link invitations off).",
    )
    state_version = models.PositiveBigIntegerField(
        default=0, editable=False,
        help_text="Counts writes to the campaign's game state (empires, worlds, structures, fleets, ships, "
                  "builds, designs): caches of that state are keyed by it (campaign/versioning.py).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk})"

    def save(self, *args, **kwargs):
        # state_version moves only by versioning.bump (UPDATE … + 1): saving a row read earlier
        # must never write an older count back over a newer one.
        if not self._state.adding and kwargs.get("update_fields") is None and not kwargs.get("force_insert"):
            kwargs["update_fields"] = [f.name for f in self._meta.concrete_fields
                                       if not f.primary_key and f.name != "state_version"]
        super().save(*args, **kwargs)

    @property
    def revealed_seed(self) -> str | None:
        """The seed, once the campaign has ended; None while it is running."""
        return self.dice_seed if self.status == self.Status.FINISHED else None

    def option(self, name: str, default):
        return self.options.get(name, default)


class Empire(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="empires")
    seat = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=80)
    colour = models.CharField(max_length=7, default="#888888")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="empires", db_index=False,  # (user, campaign) below serves the look-ups by user
    )
    is_bot = models.BooleanField(default=False)
    faction = models.CharField(max_length=80, blank=True, default="")
    missed_turns = models.PositiveSmallIntegerField(
        default=0, help_text="Turns in a row processed without orders from this seat's player."
    )
    auto_bot = models.BooleanField(
        default=False, help_text="Played by the computer because its player missed turns; a player can take it back."
    )
    bp = models.IntegerField(default=0, help_text="Banked build points.")
    technologies = models.JSONField(default=list, blank=True)
    eliminated = models.BooleanField(default=False)
    battle_preference = models.CharField(
        max_length=10, blank=True, default="",
        choices=[("", "The campaign's mode"), ("auto", "Auto-resolve"), ("tactical", "Embedded tactical battle"),
                 ("tabletop", "Fought on a real tabletop")],
        help_text="How this empire asks for its battles to be settled (if the campaign lets players ask).",
    )
    standing_orders = models.JSONField(default=dict, blank=True, help_text="docs/orders.md, 'standing'.")
    trade_war = models.JSONField(
        default=dict, blank=True, help_text="Victim seat -> consecutive turns its home routes were interdicted."
    )

    class Meta:
        ordering = ["campaign", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "seat"], name="empire_unique_seat"),
            models.CheckConstraint(condition=models.Q(bp__gte=0), name="empire_bp_not_negative"),
        ]
        # "My campaigns" (campaign/access.py) asks for a user's seats' campaigns: answered from the
        # index alone, without reading each seat's row (issue 33).
        indexes = [models.Index(fields=["user", "campaign"], name="empire_user_campaign")]

    def __str__(self) -> str:
        return f"{self.name} (seat {self.seat})"


class Turn(models.Model):
    """One campaign turn. The unique (campaign, number) and the status claimed with a
    conditional update make processing a turn twice process it once."""

    class Status(models.TextChoices):
        OPEN = "open", "Taking orders"
        PROCESSING = "processing", "Processing"
        BATTLES = "battles", "Waiting for its battles"
        DONE = "done", "Processed"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="turns")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.OPEN)
    deadline = models.DateTimeField(null=True, blank=True)
    opened_at = models.DateTimeField(auto_now_add=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    events = models.JSONField(default=list, blank=True, help_text="What happened, for reports.")
    summary = models.JSONField(
        default=dict, blank=True, help_text="Each empire's position after the turn, by seat."
    )
    snapshot = models.JSONField(
        null=True, blank=True, editable=False,
        help_text="The campaign's state before this turn was processed (for roll-back and map history).",
    )
    pending = models.JSONField(
        null=True, blank=True, editable=False,
        help_text="While the turn waits for its battles: the battles in order and what the rest of the turn needs.",
    )
    # Kept by the order and ready actions under the turn row's lock (Event Horizon's
    # ``_note_ready``) so that the due sweep finds "everyone ready" through an index instead of
    # reading every open turn (issue 33). A hint: the sweep checks the seats again before acting,
    # so a mark withdrawn since (a plain revision takes no lock) is never processed early.
    everyone_ready = models.BooleanField(
        default=False, editable=False,
        help_text="Every human seat was marked ready when an order or ready action last looked.",
    )

    class Meta:
        ordering = ["campaign", "number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="turn_unique_number")
        ]
        # The due sweep reads the open turns only (one per running campaign), not every turn
        # ever played (issue 33: checked with EXPLAIN on PostgreSQL, docs/storage.md).
        indexes = [models.Index(fields=["deadline"], condition=models.Q(status="open"),
                                name="turn_open_deadline"),
                   models.Index(fields=["campaign"], condition=models.Q(status="open", everyone_ready=True),
                                name="turn_open_everyone_ready")]

    def __str__(self) -> str:
        return f"Turn {self.number} of {self.campaign_id} ({self.status})"


class TurnOrders(models.Model):
    """An empire's orders for one turn (docs/orders.md), revisable until processing."""

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="orders")
    empire = models.ForeignKey(Empire, on_delete=models.CASCADE, related_name="orders")
    orders = models.JSONField(default=dict)
    ready = models.BooleanField(default=False)
    revision = models.PositiveIntegerField(default=1)
    updated_at = models.DateTimeField(auto_now=True)
    received_at = models.DateTimeField(
        null=True, blank=True,
        help_text="When the site received the stored set (a mail's receipt, not its Date:); a set received "
                  "earlier never replaces it (docs/orders.md, orders as text).",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["turn", "empire"], name="turnorders_unique_empire")
        ]

    def __str__(self) -> str:
        return f"Orders of {self.empire} for turn {self.turn.number}"


class DiceRollQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionError("the dice log is append-only")

    def delete(self):
        raise PermissionError("the dice log is append-only")


class DiceRoll(models.Model):
    """One logged roll. Append-only and hash-chained: each row carries the hash of the one
    before (the first carries the campaign's seed hash); see docs/dice.md."""

    # No index of its own: the unique (campaign, seq) below serves every look-up by campaign (issue 33).
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="dice_rolls", db_index=False)
    seq = models.PositiveIntegerField()
    turn = models.PositiveIntegerField()
    phase = models.CharField(max_length=40)
    purpose = models.CharField(max_length=120)
    expression = models.CharField(max_length=20)
    faces = models.JSONField()
    total = models.IntegerField()
    offset = models.PositiveBigIntegerField(help_text="Stream word where the roll began.")
    words = models.PositiveIntegerField(help_text="Stream words the roll used.")
    concerns = models.JSONField(
        default=list, blank=True,
        help_text="Seats of the empires the roll was made for (empty: public). Fog of war withholds "
                  "it from everyone else until the campaign ends (docs/dice.md).",
    )
    hash_version = models.PositiveSmallIntegerField(
        default=2, help_text="1: the hash covers the fields only (rows logged before salts); 2: also "
                             "the concerns and a salt drawn from the seed (docs/dice.md).",
    )
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = DiceRollQuerySet.as_manager()

    class Meta:
        ordering = ["campaign", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "seq"], name="diceroll_unique_seq")
        ]

    def __str__(self) -> str:
        return f"#{self.seq} {self.expression} = {self.total} ({self.purpose})"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise PermissionError("the dice log is append-only: a logged roll cannot be changed")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("the dice log is append-only: a logged roll cannot be deleted")


class Membership(models.Model):
    """A person's part in a campaign: moderator, player (one empire) or observer. In the lobby a
    player's membership carries the empire name, faction and colour they chose; so does the
    creator's when he plays too ("I'll play too" on the create form, issue 23 item 9): a
    moderator who takes a seat (``Membership.seated()``)."""

    @staticmethod
    def seated(prefix: str = "") -> models.Q:
        """The members who take a seat at the start: the players, and a moderator who plays too
        (``prefix``: "memberships__" from a campaign query)."""
        return (models.Q(**{f"{prefix}role": "player"})
                | (models.Q(**{f"{prefix}role": "moderator"}) & ~models.Q(**{f"{prefix}empire_name": ""})))

    class Role(models.TextChoices):
        MODERATOR = "moderator", "Moderator"
        PLAYER = "player", "Player"
        OBSERVER = "observer", "Observer"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships",
                             db_index=False)  # (user, campaign) below serves the look-ups by user
    role = models.CharField(max_length=10, choices=Role.choices)
    empire = models.OneToOneField(
        Empire, null=True, blank=True, on_delete=models.SET_NULL, related_name="membership"
    )
    empire_name = models.CharField(max_length=80, blank=True, default="")
    faction = models.CharField(max_length=80, blank=True, default="")
    colour = models.CharField(max_length=7, blank=True, default="")
    notify_turn = models.BooleanField(default=True, help_text="Email me when a turn has been processed.")
    notify_reminders = models.BooleanField(default=True, help_text="Email me 24 h and 1 h before the deadline.")
    notify_battles = models.BooleanField(default=True, help_text="Email me when a battle needs my decision.")
    notify_press = models.BooleanField(
        default=True, help_text="Email me press sent to my seat and the moderator's announcements.")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="membership_unique_user")
        ]
        indexes = [models.Index(fields=["user", "campaign"], name="membership_user_campaign")]  # as Empire's

    def __str__(self) -> str:
        return f"{self.user} as {self.role} of {self.campaign_id}"


class Invitation(models.Model):
    """An invitation sent by email; the link carries the token."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    token = models.CharField(max_length=43, unique=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "created_at"]

    def __str__(self) -> str:
        return f"Invitation of {self.email} to {self.campaign_id}"


class AuditEntry(models.Model):
    """A moderator's change to a campaign (who, when, before, after). Players see the log once the
    campaign has ended."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="audit_entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    action = models.CharField(max_length=40)
    target = models.CharField(max_length=120, blank=True, default="", help_text="What was changed, e.g. 'Empire 3'.")
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    note = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["campaign", "at", "id"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.action} {self.target} by {self.user} at {self.at:%Y-%m-%d %H:%M}"


class SentNotification(models.Model):
    """One email of one kind about one turn to one user, recorded so that a task delivered twice
    (or ten times at once) sends it once."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sent_notifications")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=30)
    turn = models.PositiveIntegerField()
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user", "kind", "turn"], name="sentnotification_once")
        ]

    def __str__(self) -> str:
        return f"{self.kind} turn {self.turn} to {self.user}"


class ApiToken(models.Model):
    """An API key (``Authorization: Token <key>``), stored as its SHA-256 digest: the key itself is
    shown once, when it is made, and kept nowhere (campaign/apitokens.py). A user may hold several,
    each with a name; one unused for API_TOKEN_IDLE_DAYS stops working."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, default="API token")
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the key, in hex")
    prefix = models.CharField(max_length=8, help_text="the key's first characters, to tell tokens apart")
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self):
        return f"{self.name} ({self.prefix}…) of user {self.user_id}"
