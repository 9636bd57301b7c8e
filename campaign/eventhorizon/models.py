"""Event Horizon's rows (issue 26): the map, worlds, structures, designs, fleets, ships, build
orders and the order secrets of orders as text. They hang off the platform's ``Campaign`` and its
seats (``Empire``), and keep the table names they had in the platform app (``Meta.db_table``:
``campaign_<model>``), so moving them (migrations ``eventhorizon/0001`` and ``campaign/0015``,
``SeparateDatabaseAndState``) copied no data. ``adapters.py`` converts them to the engine's state."""

from django.conf import settings
from django.db import models

from campaign.models import Campaign, Empire

TERRAIN_CHOICES = [
    ("black_hole", "Black hole"),
    ("empty", "Empty space"),
    ("particle_cloud", "Particle cloud"),
    ("planet", "Planet"),
    ("colony", "Colony"),
    ("wormhole", "Worm hole"),
]
WORLD_KIND_CHOICES = [("planet", "Planet"), ("colony", "Colony")]
ECONOMY_CHOICES = [
    ("industrial", "Industrial"),
    ("commercial", "Commercial"),
    ("agricultural", "Agricultural"),
]
RESOURCE_CHOICES = [
    ("diplomatic_corps", "Diplomatic Corps"),
    ("planetary_defences", "Planetary Defences"),
    ("hold_out_garrison", "Hold Out Garrison"),
    ("aewa", "Advanced Early Warning Array"),
    ("dockyard", "Dockyard"),
    ("military_academy", "Military Academy"),
    ("merchants_guild", "Merchants Guild"),
    ("enrichment", "Enrichment"),
    ("stabilised_economy", "Stabilised Economy"),
    ("research_facility", "Research Facility"),
    ("star_gate", "Star Gate"),
]


class MapCell(models.Model):
    # No index of its own: the unique (campaign, y, x) below serves look-ups by campaign and reads
    # the map in its order (rows, then columns) without a sort (issue 33).
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="cells", db_index=False)
    x = models.PositiveSmallIntegerField()
    y = models.PositiveSmallIntegerField()
    terrain = models.CharField(max_length=16, choices=TERRAIN_CHOICES)

    class Meta:
        db_table = "campaign_mapcell"  # kept from the platform app (issue 26: no data copied)
        ordering = ["campaign", "y", "x"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "y", "x"], name="mapcell_unique_cell")
        ]

    def __str__(self) -> str:
        return f"({self.x},{self.y}) {self.terrain}"


class World(models.Model):
    """A planet or colony; owner None means neutral."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="worlds")
    x = models.PositiveSmallIntegerField()
    y = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, choices=WORLD_KIND_CHOICES)
    economy = models.CharField(max_length=15, choices=ECONOMY_CHOICES, blank=True, default="")
    owner = models.ForeignKey(
        Empire, null=True, blank=True, on_delete=models.SET_NULL, related_name="worlds"
    )
    # Whose home world this is, whoever owns it now (a captured home world stays one).
    home_of = models.ForeignKey(
        Empire, null=True, blank=True, on_delete=models.SET_NULL, related_name="home_worlds"
    )
    held_out_by = models.ForeignKey(
        Empire, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="An invader kept out for a turn by a hold-out garrison.",
    )
    held_out_until = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        db_table = "campaign_world"  # kept from the platform app (issue 26: no data copied)
        ordering = ["campaign", "y", "x"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "x", "y"], name="world_unique_xy")
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} at ({self.x},{self.y})"


class Structure(models.Model):
    """A resource bought with BP ("Use of BP in a Campaign"), placed at a hex."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="structures")
    owner = models.ForeignKey(Empire, on_delete=models.CASCADE, related_name="structures")
    number = models.PositiveIntegerField(help_text="Per-campaign number; builds name dockyards by it.")
    resource = models.CharField(max_length=20, choices=RESOURCE_CHOICES)
    x = models.PositiveSmallIntegerField()
    y = models.PositiveSmallIntegerField()
    technology = models.CharField(max_length=32, blank=True, default="")
    built_turn = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "campaign_structure"  # kept from the platform app (issue 26: no data copied)
        ordering = ["campaign", "number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="structure_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.get_resource_display()} #{self.number} at ({self.x},{self.y})"


class Design(models.Model):
    """A ship design. campaign=None: the starter library; otherwise an empire's own design."""

    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.CASCADE, related_name="designs"
    )
    empire = models.ForeignKey(
        Empire, null=True, blank=True, on_delete=models.CASCADE, related_name="designs"
    )
    name = models.CharField(max_length=80)
    ship_type = models.CharField(max_length=20)
    bp = models.PositiveSmallIntegerField()
    spec = models.JSONField(help_text="The design as documented in docs/export-format.md.")
    description = models.TextField(blank=True, default="")

    class Meta:
        db_table = "campaign_design"  # kept from the platform app (issue 26: no data copied)
        ordering = ["campaign_id", "bp", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "empire", "name"], name="design_unique_name",
                nulls_distinct=False,
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.ship_type}, {self.bp} BP)"


class Fleet(models.Model):
    """Ships that move together; a lone ship is a fleet of one."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="fleets")
    owner = models.ForeignKey(Empire, on_delete=models.CASCADE, related_name="fleets")
    number = models.PositiveIntegerField()
    x = models.PositiveSmallIntegerField()
    y = models.PositiveSmallIntegerField()

    class Meta:
        db_table = "campaign_fleet"  # kept from the platform app (issue 26: no data copied)
        ordering = ["campaign", "number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="fleet_unique_number")
        ]

    def __str__(self) -> str:
        return f"Fleet {self.number} at ({self.x},{self.y})"


class Ship(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="ships")
    owner = models.ForeignKey(Empire, on_delete=models.CASCADE, related_name="ships")
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=80, blank=True, default="")
    design = models.ForeignKey(Design, on_delete=models.PROTECT, related_name="ships")
    fleet = models.ForeignKey(Fleet, on_delete=models.CASCADE, related_name="ships")
    hero_crew = models.BooleanField(default=False)
    damage = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "campaign_ship"  # kept from the platform app (issue 26: no data copied)
        ordering = ["campaign", "number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="ship_unique_number")
        ]

    def __str__(self) -> str:
        return self.name or f"Ship {self.number}"


class BuildOrder(models.Model):
    """A ship under construction: a dockyard works on one ship at a time (docs/rulings.md)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="builds")
    owner = models.ForeignKey(Empire, on_delete=models.CASCADE, related_name="builds")
    dockyard = models.OneToOneField(Structure, on_delete=models.CASCADE, related_name="build")
    design = models.ForeignKey(Design, on_delete=models.PROTECT, related_name="builds")
    name = models.CharField(max_length=80, blank=True, default="")
    hero_crew = models.BooleanField(default=False)
    ordered_turn = models.PositiveIntegerField()
    turns_remaining = models.PositiveSmallIntegerField()

    class Meta:
        db_table = "campaign_buildorder"  # kept from the platform app (issue 26: no data copied)
        ordering = ["campaign", "dockyard__number"]

    def __str__(self) -> str:
        return f"{self.design.name} at dockyard #{self.dockyard.number} ({self.turns_remaining} to go)"


class OrderSecret(models.Model):
    """A seat's order secret, which the header of orders sent as text names (docs/orders.md,
    "Orders as text"). Separate from the password; made and rotated by the player
    (``campaign.eventhorizon.actions.rotate_order_secret``), shown once, stored only as a SHA-256 hash (the secret is
    random, 128 bits: a slow password hash adds nothing and would cost every mail ~0.3 s). Bound to
    the user it was made for: when the seat changes hands the old secret stops working."""

    empire = models.OneToOneField(Empire, on_delete=models.CASCADE, related_name="order_secret")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    secret_hash = models.CharField(max_length=80)
    created_at = models.DateTimeField()

    class Meta:
        db_table = "campaign_ordersecret"  # kept from the platform app (issue 26: no data copied)

    def __str__(self) -> str:
        return f"Order secret of {self.empire} (made {self.created_at:%Y-%m-%d %H:%M})"
