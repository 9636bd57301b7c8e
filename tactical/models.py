"""Battles handed off by the campaign turn (issue 5, "Battles") and what-if runs.

A ``Battle`` is created by the campaign turn for every hex where fleets must fight and the
battle is not auto-resolved at once (docs/battles.md). It keeps what was on the table when the
battle began (``setup``), how it is being settled (``mode``), and once settled the campaign-level
result that is applied back (``result``). The turn completes when its last battle is resolved.

An embedded (tactical) battle is event-sourced: ``BattleStep`` rows hold every card drawn and
every action taken, in order; the state is rebuilt by replaying them with the dice the log holds
(phase ``battle <id>`` of the campaign dice log), which gives the replay page for free.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Battle(models.Model):
    class Mode(models.TextChoices):
        AUTO = "auto", "Auto-resolve (003 Alternative to a Tactical Battle)"
        TACTICAL = "tactical", "Embedded tactical battle, played online"
        TABLETOP = "tabletop", "Fought on a real tabletop"

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for the result"
        DEPLOYING = "deploying", "The fleets are being deployed"
        PLAYING = "playing", "Being played online"
        ENTERED = "entered", "Result entered: waiting for the other side to confirm"
        DISPUTED = "disputed", "Result disputed: the moderator settles it"
        RESOLVED = "resolved", "Resolved"

    class How(models.TextChoices):
        AUTO = "auto", "Auto-resolved"
        DEADLINE = "deadline", "Auto-resolved at the battle deadline"
        TACTICAL = "tactical", "Fought online"
        TABLETOP = "tabletop", "Entered and confirmed"
        UNCONFIRMED = "unconfirmed", "Entered, not disputed by the deadline"
        MODERATOR = "moderator", "Settled by the moderator"

    campaign = models.ForeignKey("campaign.Campaign", on_delete=models.CASCADE, related_name="battles")
    turn = models.PositiveIntegerField()
    index = models.PositiveSmallIntegerField(
        help_text="Order among the turn's battles (they are applied in this order)."
    )
    x = models.IntegerField()
    y = models.IntegerField()
    attacker = models.PositiveSmallIntegerField(help_text="The invading empire's seat.")
    defender = models.PositiveSmallIntegerField(help_text="The defending empire's seat.")
    aewa = models.BooleanField(default=False, help_text="The defender has an AEWA in the hex (003 AEWA).")
    mode = models.CharField(max_length=10, choices=Mode.choices)
    ruleset = models.CharField(
        max_length=32, default="eventhorizon",
        help_text="The tactical rule book it is fought under (a name in tactical/rules/registry.py).",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    deadline = models.DateTimeField(
        null=True, blank=True, help_text="After this the battle is settled without the players."
    )
    activation_deadline = models.DateTimeField(
        null=True, blank=True, help_text="Embedded battles: the doctrine plays the acting side after this.",
    )
    setup = models.JSONField(help_text="Sides, ships with their damage, the hex's terrain and defences.")
    doctrine_sides = models.JSONField(
        default=list, blank=True, help_text="Seats whose fleet the computer doctrine plays."
    )
    proposal = models.JSONField(null=True, blank=True, help_text="A tabletop result entered and not yet confirmed.")
    proposed_by = models.PositiveSmallIntegerField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True, help_text="The result applied to the campaign.")
    resolved_how = models.CharField(max_length=12, choices=How.choices, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "turn", "index"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "turn", "index"], name="battle_unique_index"),
        ]
        indexes = [
            models.Index(fields=["status", "deadline"], name="battle_due"),
            # The due sweep's two questions (tactical/battles/hooks.py), on the unsettled battles
            # only, not every battle ever fought (issue 33: checked with EXPLAIN on PostgreSQL).
            models.Index(fields=["deadline"], condition=~models.Q(status__in=["resolved", "disputed"]),
                         name="battle_open_deadline"),
            models.Index(fields=["activation_deadline"], name="battle_activation_due",
                         condition=models.Q(status__in=["playing", "deploying"])),
        ]

    def __str__(self) -> str:
        return f"Battle {self.pk} at ({self.x}, {self.y}), turn {self.turn}"

    @property
    def hex(self) -> tuple[int, int]:
        return (self.x, self.y)

    @property
    def seats(self) -> tuple[int, ...]:
        """Every side's seat, the attacker's first: (attacker, defender), or — a battle of more
        than two sides (a Buoyz pickup battle, rulings BZ83, PK6) — the setup's ``seats``."""
        listed = (self.setup or {}).get("seats") if isinstance(self.setup, dict) and "cam" not in self.setup else None
        if (isinstance(listed, list) and len(listed) > 2 and all(isinstance(s, int) for s in listed)
                and {self.attacker, self.defender} <= set(listed)):
            return tuple(listed)
        return (self.attacker, self.defender)

    @property
    def layer_setup(self) -> dict:
        """The battle as its campaign layer set it up (Event Horizon: docs/battles.md "Setup"). A
        battle fought on another rule book (issue 31) keeps it under ``setup["layer_setup"]``
        beside the book's own setup, the converted ships (tactical/rules/<book>/convert.py)."""
        setup = self.setup if isinstance(self.setup, dict) else {}
        return setup.get("layer_setup") or setup

    @property
    def converted(self) -> bool:
        """Fought on another rule book than its campaign layer's own (issue 31)."""
        return isinstance(self.setup, dict) and "layer_setup" in self.setup

    @property
    def resolved(self) -> bool:
        return self.status == self.Status.RESOLVED

    @property
    def dice_phase(self) -> str:
        return f"battle {self.pk}"


class BattleStep(models.Model):
    """One step of an embedded battle: an automatic step (Event Horizon: a card drawn, ``action``
    {"type": "draw"}) or an action taken by a side, as its rule book's codec writes it
    (``PlayRules.action_json``)."""

    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="steps")
    seq = models.PositiveIntegerField()
    side = models.PositiveSmallIntegerField(null=True, blank=True)
    action = models.JSONField()
    by_doctrine = models.BooleanField(default=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["battle", "seq"]
        constraints = [models.UniqueConstraint(fields=["battle", "seq"], name="battlestep_unique_seq")]

    def __str__(self) -> str:
        return f"Step {self.seq} of battle {self.battle_id}"


class BattleLogEntry(models.Model):
    """The battle's log: created, mode asked for, result entered, confirmed, disputed, settled,
    resolved; who did it and when."""

    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="log")
    kind = models.CharField(max_length=20)
    text = models.TextField()
    data = models.JSONField(default=dict, blank=True)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["battle", "created_at", "id"]

    def __str__(self) -> str:
        return f"{self.kind} in battle {self.battle_id}"


class WhatIfRun(models.Model):
    """K simulated doctrine-against-doctrine battles between two fleets, run in the background,
    beside the auto-resolve exact odds for the same fleets."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="what_ifs")
    campaign = models.ForeignKey("campaign.Campaign", null=True, blank=True, on_delete=models.CASCADE,
                                 related_name="what_ifs")
    params = models.JSONField(help_text="The two fleets, the table and the number of battles.")
    trials = models.PositiveIntegerField()
    done = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Who is playing it (a random token per runner, set by the conditional UPDATE that claims the
    # run) and when it last showed progress: a run is "still running" while its heartbeat is
    # fresh, so a restart or a second delivery never plays it twice (tactical/whatif/runs.py).
    claim = models.CharField(max_length=32, blank=True, default="")
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"What-if {self.pk} ({self.done}/{self.trials})"


class WhatIfChunk(models.Model):
    """The battles ``start`` … ``stop``-1 of a what-if run, fought by one Celery chunk task when a
    broker is configured (tactical/whatif/chunks.py): their results as JSON, in index order. One
    row per chunk and claim (a chunk delivered twice counts once); the chunk that completes the
    run adds them all up in index order, stores the run's result and deletes the rows."""

    run = models.ForeignKey(WhatIfRun, on_delete=models.CASCADE, related_name="chunks")
    claim = models.CharField(max_length=32)
    start = models.PositiveIntegerField()
    stop = models.PositiveIntegerField()
    results = models.JSONField()
    started_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "claim", "start"], name="whatif_chunk_once")]


class PickupBattle(models.Model):
    """A battle without a campaign (issue 17 item 4; docs/battles.md "Pickup battles"): a rule
    book, a points total and two fleets bought to it, fought online like an embedded battle.

    The battle needs what every online battle has — a dice stream with its hash-chained log, seats
    with their players, an activation deadline — and those belong to a ``campaign.Campaign`` row;
    so a pickup battle is hosted by a campaign row of the ``"pickup"`` layer
    (tactical/hosts/pickup/layer.py: no platform feature, no map, no turns) with one ``Empire`` row per
    seat. Seat 1 is the creator's (the attacker), seat 2 the opponent's; a Buoyz battle of more
    sides (``sides`` 3 to 6, ruling PK6) has seats 3… too, each held by its ``Empire`` row (its
    player, or ``is_bot`` for the computer)."""

    class Status(models.TextChoices):
        INVITING = "inviting", "Waiting for the opponent to accept"
        BUILDING = "building", "Building the fleets"
        PLAYING = "playing", "Being played online"
        OVER = "over", "Over"
        CANCELLED = "cancelled", "Cancelled by its creator"

    campaign = models.OneToOneField("campaign.Campaign", on_delete=models.CASCADE, related_name="pickup")
    ruleset = models.CharField(max_length=32, help_text="A rule book with online play (tactical/rules/registry.py).")
    points = models.PositiveIntegerField(help_text="Each fleet's points total (Event Horizon: BP).")
    creator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pickups_created")
    opponent = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="pickups_joined")
    computer = models.BooleanField(default=False, help_text="The computer doctrine builds and plays seat 2.")
    sides = models.PositiveSmallIntegerField(
        default=2, help_text="Seats in the battle: 2, or up to 6 under Buoyz (PK6)."
    )
    invite_token = models.CharField(max_length=64, blank=True, default="", db_index=True)
    invite_email = models.EmailField(blank=True, default="")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.INVITING)
    fleets = models.JSONField(default=dict, blank=True,
                              help_text="Seat -> the ships bought ([{key, name, points}]), once submitted.")
    battle = models.OneToOneField(Battle, null=True, blank=True, on_delete=models.SET_NULL, related_name="pickup")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Pickup battle {self.pk} ({self.ruleset}, {self.points})"

    def seat_of(self, user) -> int | None:
        if not getattr(user, "is_authenticated", False):
            return None
        if user.pk == self.creator_id:
            return 1
        if self.opponent_id is not None and user.pk == self.opponent_id:
            return 2
        if self.sides <= 2:
            return None
        if getattr(self, "seat_user_id", None) == user.pk:  # annotated by ``visible_pickups``
            return self.my_seat
        from campaign.models import Empire

        return (Empire.objects.filter(campaign_id=self.campaign_id, user=user, seat__gt=2)
                .values_list("seat", flat=True).first())


class PlayerDesign(models.Model):
    """A ship a player designed himself for his pickup battles under a rule book with a designer
    (Print&Play's dashboards: tactical/hosts/pickup/designs.py). ``data`` is the design as the rule
    book stores it (``dashboards.Dashboard.to_json``), checked and priced by the book's designer
    when saved and again when offered; ``points`` is the designer's price."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ship_designs")
    ruleset = models.CharField(max_length=32)
    name = models.CharField(max_length=40)
    points = models.PositiveIntegerField()
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ruleset", "points", "name", "id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.ruleset}, {self.points} points, {self.owner_id})"
