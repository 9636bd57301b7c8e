"""Persistence for CAM campaigns (``seeds/000_…`` Campaign Supplement, CAM 1.0 – 4.3).

A CAM campaign is a ``campaign.models.Campaign`` row with ``layer="cam"`` (accounts, moderator,
memberships, dice log and audit are shared with Event Horizon) plus the rows here. The rules live
in ``campaign/rules/cam`` (pure Python); ``campaign/cam/adapters.py`` converts rows to and from
the engine's dataclasses. Nothing here knows a rule.
"""

from django.conf import settings
from django.db import models

from campaign.models import Campaign

LAYER = "cam"

WEALTH_CHOICES = [("rich", "Rich"), ("moderate", "Moderate"), ("variable", "Variable"), ("poor", "Poor")]
TEMPER_CHOICES = [("aggressive", "Aggressive (+1 to break-contact rolls)"), ("neutral", "Neither (±0)"),
                  ("cautious", "Cautious (−1 to break-contact rolls)")]
SHIP_STATUS_CHOICES = [("ready", "Ready"), ("crippled", "Crippled"), ("destroyed", "Destroyed"),
                       ("unavailable", "Unavailable")]
EDGE_CHOICES = [("north", "North"), ("east", "East"), ("south", "South"), ("west", "West")]
CLASS_CHOICES = [(c, c) for c in ("BB", "CV", "BC", "CVE", "CA", "CL", "DD", "DE", "SS", "TP", "RB")]


class ScenarioMode(models.TextChoices):
    """How a scenario's battle is fought (``campaign/cam/online.py``)."""

    TABLETOP = "tabletop", "Tabletop: the players enter each game turn"
    AUTO = "auto", "Auto-resolved as soon as the table is set"
    # Book-neutral (issue 31): the rubber's "battles fought online use" names the rule book, Buoyz
    # when unset; pages that know the rubber name it (``CamCampaign.mode_label``).
    ONLINE = "online", "Fought online on the rule book the campaign chose for online battles"


class CamCampaign(models.Model):
    """The CAM settings of one campaign (CAM 4.0, 4.1, 2.2, 2.3 and the RULINGS.md options)."""

    class BattleMode(models.TextChoices):
        TABLETOP = "tabletop", "Tabletop (miniatures): players enter each game turn"
        AUTO = "auto", "Auto-resolve allowed for players (groups without miniatures)"

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, primary_key=True, related_name="cam")
    period = models.PositiveSmallIntegerField(help_text="The Period the campaign covers, 1 to 6 (000 1.5, CAM 4.1).")
    starting_points = models.PositiveIntegerField(help_text="Points each fleet begins the campaign with (CAM 4.0).")
    scenarios = models.PositiveSmallIntegerField(
        default=5, help_text="Scenarios in the rubber (CAM 4.1; 5 recommended)."
    )
    points_level = models.PositiveIntegerField(
        default=60, help_text="Points per side in a scenario (CAM 2.2; 60 for a quick game)."
    )
    break_percent = models.PositiveSmallIntegerField(
        default=40, help_text="'Break Contact' level as a percentage of a fleet's points (CAM 2.3; 40% recommended).")
    replacement_percent = models.PositiveSmallIntegerField(
        default=10, help_text="Replacement points per scenario, % of the starting points (CAM 4.2; at most 10%).")
    replacement_house_rule = models.BooleanField(
        default=False, help_text="CAM 4.2 allows at most 10%; the moderator marks a larger share as a house rule.")
    tables = models.PositiveSmallIntegerField(
        default=1, help_text="Gaming tables per scenario (CAM 2.3, 11.3 multi-tables): each rolls its own nature.")
    survival_roll = models.BooleanField(
        default=False, help_text="000 5.7 sidebar: a destroyed ship survives on 2D6 = 12 (option, default off).")
    battle_mode = models.CharField(max_length=10, choices=BattleMode.choices, default=BattleMode.TABLETOP,
                                   help_text="Tabletop: only the moderator may auto-resolve a battle.")
    scenario_mode = models.CharField(
        max_length=10, choices=ScenarioMode.choices, default=ScenarioMode.TABLETOP,
        help_text="How each new scenario is fought (issue 23 item 13); the moderator may still switch a "
                  "scenario until its table is set.")
    started = models.BooleanField(default=False, editable=False,
                                  help_text="Set-up is over: the fleets are fixed and scenarios are fought.")
    next_ship_id = models.PositiveIntegerField(default=1, editable=False)
    replacements_done = models.PositiveSmallIntegerField(
        default=0, editable=False, help_text="The last scenario whose CAM 4.2 step has been made.")
    step = models.PositiveIntegerField(
        default=0, editable=False,
        help_text="Steps of the rubber opened so far (the start, each scenario stage, each game turn, "
                  "between scenarios); a roll-back returns to the one before.")
    deadline = models.DateTimeField(
        null=True, blank=True, help_text="When the open step is due (Campaign.turn_hours after it opened; none "
                                         "while paused or when turn_hours is 0).")
    deadline_done = models.DateTimeField(
        null=True, blank=True, editable=False,
        help_text="The passed deadline the due-work sweep has already handled by leaving the step to the "
                  "moderator (campaign/cam/actions/deadlines.py): the sweep acts once per deadline.")

    class Meta:
        # The due sweep asks for the rubbers past their deadline (actions/deadlines.py ``due_steps``):
        # an index range, not every rubber ever played (issue 33).
        indexes = [models.Index(fields=["deadline"], name="camcampaign_deadline")]

    def __str__(self) -> str:
        return f"CAM settings of {self.campaign}"

    def online_book_title(self) -> str:
        """What the rubber's scenarios fought online are fought on: "the Buoyz engine" (CAM's own,
        when the moderator chose no other book), else the chosen book's title (issue 31)."""
        from .battles import handler

        return handler().book_title(self.campaign)

    def online_book_rulings(self) -> str:
        """The house rulings its forces are converted by on that book, "" on the Buoyz engine."""
        from .battles import handler

        return handler().book_rulings(self.campaign)

    def mode_label(self, mode: str) -> str:
        """A scenario mode as this rubber's pages say it: fought online names the rule book."""
        if mode == ScenarioMode.ONLINE:
            return f"Fought online on {self.online_book_title()}"
        return str(ScenarioMode(mode).label)

    def scenario_mode_label(self) -> str:
        return self.mode_label(self.scenario_mode)


class CamSD(models.Model):
    """A custom ship description (000 1.5) of one campaign; the rule book's SDs come from the
    engine's starter catalogue and are not stored."""

    cam = models.ForeignKey(CamCampaign, on_delete=models.CASCADE, related_name="sds")
    key = models.SlugField(max_length=40, help_text="Catalogue key, e.g. 'excelsior'.")
    ship_class = models.CharField(max_length=3, choices=CLASS_CHOICES)
    name = models.CharField(max_length=120)
    speed = models.PositiveSmallIntegerField(null=True, blank=True)
    turning = models.PositiveSmallIntegerField(null=True, blank=True)
    target_size = models.PositiveSmallIntegerField()
    shields = models.JSONField(help_text="[fore, port, starboard, aft]")
    hull = models.PositiveSmallIntegerField()
    crippled_at = models.PositiveSmallIntegerField()
    command = models.PositiveSmallIntegerField(default=2)
    ac = models.PositiveSmallIntegerField(default=0)
    ac_capacity = models.PositiveSmallIntegerField(default=0)
    special_abilities = models.JSONField(default=list, blank=True)
    main = models.JSONField(default=list, blank=True, help_text="[[count, name, arc], …]")
    secondary = models.PositiveSmallIntegerField(default=0)
    close_defence = models.PositiveSmallIntegerField(default=0)
    period_first = models.PositiveSmallIntegerField()
    period_last = models.PositiveSmallIntegerField()
    notes = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["cam", "key"]
        constraints = [models.UniqueConstraint(fields=["cam", "key"], name="camsd_unique_key")]

    def __str__(self) -> str:
        return f"{self.name} ({self.key})"


class CamPlayer(models.Model):
    """One of the two players: faction (CAM 4.2 wealth class, CAM 3.1 temper), hoarded
    replacement points and campaign points."""

    cam = models.ForeignKey(CamCampaign, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="cam_seats")
    seat = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=80, help_text="The fleet's name.")
    faction = models.CharField(max_length=80)
    wealth = models.CharField(max_length=10, choices=WEALTH_CHOICES)
    temper = models.CharField(max_length=10, choices=TEMPER_CHOICES, default="neutral")
    preset = models.BooleanField(default=False, help_text="A power the rule book classes (its classes are fixed).")
    starting_fleet = models.JSONField(default=list, blank=True,
                                      help_text="Before the start: [{'sd': key, 'name': …}, …].")
    replacement_points = models.PositiveIntegerField(default=0)
    campaign_points = models.IntegerField(default=0)
    edge_choice = models.CharField(max_length=5, choices=EDGE_CHOICES, default="south",
                                   help_text="The table edge taken on winning the edge roll (CAM 2.3).")
    requests = models.JSONField(
        default=list,
        blank=True,
        help_text="Replacement requests for the next CAM 4.2 step: [{'replaces', 'sd', 'name'}].",
    )
    between_ready = models.BooleanField(default=False)

    class Meta:
        ordering = ["cam", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["cam", "seat"], name="camplayer_unique_seat"),
            models.UniqueConstraint(fields=["cam", "user"], name="camplayer_unique_user"),
        ]

    def __str__(self) -> str:
        return f"{self.name} (seat {self.seat})"


class CamShip(models.Model):
    """One roster ship; ``number`` is the engine's roster id (unique in the campaign)."""

    player = models.ForeignKey(CamPlayer, on_delete=models.CASCADE, related_name="ships")
    number = models.PositiveIntegerField()
    sd = models.CharField(max_length=40)
    name = models.CharField(max_length=120)
    status = models.CharField(max_length=12, choices=SHIP_STATUS_CHOICES, default="ready")
    destroyed_in = models.PositiveSmallIntegerField(null=True, blank=True)
    replaced_by = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["player", "number"]
        constraints = [models.UniqueConstraint(fields=["player", "number"], name="camship_unique_number")]

    def __str__(self) -> str:
        return f"#{self.number} {self.name} ({self.status})"


class CamScenario(models.Model):
    """One scenario of the rubber, from its CAM 2.1 roll to its CAM 4.3 score."""

    class Stage(models.TextChoices):
        FORCES = "forces", "Force selection (CAM 2.2)"
        FIGHTING = "fighting", "Being fought (CAM 3.0)"
        CONFIRMING = "confirming", "Result waiting for confirmation"
        SCORED = "scored", "Scored (CAM 3.1, 4.3)"

    Mode = ScenarioMode

    cam = models.ForeignKey(CamCampaign, on_delete=models.CASCADE, related_name="scenario_rows")
    number = models.PositiveSmallIntegerField()
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.TABLETOP,
                            help_text="How the battle is fought; the moderator may switch it until the table is set.")
    stage = models.CharField(max_length=12, choices=Stage.choices, default=Stage.FORCES)
    nature = models.CharField(max_length=20)
    nature_roll = models.PositiveSmallIntegerField(null=True, blank=True)
    defender = models.PositiveSmallIntegerField(null=True, blank=True)
    points_level = models.PositiveIntegerField()
    break_percent = models.PositiveSmallIntegerField()
    selections = models.JSONField(default=dict, blank=True, help_text="Seat -> the force selection asked for.")
    forces = models.JSONField(default=dict, blank=True, help_text="Seat -> priced units (engine Force).")
    break_levels = models.JSONField(default=dict, blank=True)
    tables = models.JSONField(default=list, blank=True)
    edges = models.JSONField(default=dict, blank=True)
    edge_rolls = models.JSONField(default=list, blank=True)
    battle = models.JSONField(null=True, blank=True, help_text="The battle record (engine BattleState).")
    turn_entries = models.JSONField(default=dict, blank=True,
                                    help_text="Seat -> this game turn's entry (destroyed, crippled, left).")
    proposed_by = models.PositiveSmallIntegerField(null=True, blank=True,
                                                   help_text="Seat that entered the result (0: the moderator).")
    force_end = models.BooleanField(default=False, help_text="Ended by the players' entry, not by broken contact.")
    score = models.JSONField(null=True, blank=True)
    events = models.JSONField(default=list, blank=True, help_text="What happened, for reports.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["cam", "number"]
        constraints = [models.UniqueConstraint(fields=["cam", "number"], name="camscenario_unique_number")]

    def __str__(self) -> str:
        return f"Scenario {self.number} of {self.cam_id} ({self.stage})"

    @property
    def nature_label(self) -> str:
        return self.nature.replace("_", " ").capitalize()

    @property
    def table_list(self) -> list[dict]:
        return [{**t, "label": t["nature"].replace("_", " ")} for t in self.tables]


class CamSnapshot(models.Model):
    """The CAM rows of one campaign as they were just before step ``step`` was closed (the
    state a roll-back returns to; campaign/cam/snapshots.py). Like ``Turn.snapshot`` for Event
    Horizon: taken inside the action that opens the next step, in its transaction."""

    cam = models.ForeignKey(CamCampaign, on_delete=models.CASCADE, related_name="snapshots")
    step = models.PositiveIntegerField()
    label = models.CharField(
        max_length=120, help_text="What opening the next step did, e.g. 'scenario 1: table rolled'."
    )
    taken_at = models.DateTimeField(auto_now_add=True)
    data = models.JSONField()

    class Meta:
        ordering = ["cam", "step"]
        constraints = [models.UniqueConstraint(fields=["cam", "step"], name="camsnapshot_unique_step")]

    def __str__(self) -> str:
        return f"CAM snapshot of {self.cam_id} before step {self.step} closed"
