from django.contrib import admin

from .models import (
    BuildOrder,
    Campaign,
    Design,
    DiceRoll,
    Empire,
    Fleet,
    MapCell,
    Ship,
    Structure,
    Turn,
    TurnOrders,
    World,
)


class EmpireInline(admin.TabularInline):
    model = Empire
    extra = 0
    fields = ["seat", "name", "colour", "user", "is_bot", "bp", "technologies"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "grid", "width", "height", "status", "turn", "created_at"]
    list_filter = ["status", "grid"]
    search_fields = ["name"]
    readonly_fields = ["layer", "seed_hash", "dice_offset", "created_at"]
    inlines = [EmpireInline]


@admin.register(Empire)
class EmpireAdmin(admin.ModelAdmin):
    list_display = ["name", "campaign", "seat", "user", "bp", "is_bot"]
    list_filter = ["campaign"]
    search_fields = ["name"]


@admin.register(MapCell)
class MapCellAdmin(admin.ModelAdmin):
    list_display = ["campaign", "x", "y", "terrain"]
    list_filter = ["terrain"]
    list_select_related = ["campaign"]


@admin.register(World)
class WorldAdmin(admin.ModelAdmin):
    list_display = ["campaign", "x", "y", "kind", "economy", "owner", "home_of"]
    list_filter = ["kind", "economy"]
    list_select_related = ["campaign", "owner"]


@admin.register(Structure)
class StructureAdmin(admin.ModelAdmin):
    list_display = ["campaign", "number", "resource", "owner", "x", "y", "technology", "built_turn"]
    list_filter = ["resource"]
    list_select_related = ["campaign", "owner"]


@admin.register(Design)
class DesignAdmin(admin.ModelAdmin):
    list_display = ["name", "ship_type", "bp", "campaign", "empire"]
    list_filter = ["ship_type"]
    search_fields = ["name"]


@admin.register(Ship)
class ShipAdmin(admin.ModelAdmin):
    list_display = ["campaign", "number", "name", "owner", "design", "fleet", "hero_crew"]
    list_select_related = ["campaign", "owner", "design", "fleet"]


@admin.register(Fleet)
class FleetAdmin(admin.ModelAdmin):
    list_display = ["campaign", "number", "owner", "x", "y"]
    list_select_related = ["campaign", "owner"]


class TurnOrdersInline(admin.TabularInline):
    model = TurnOrders
    extra = 0
    fields = ["empire", "ready", "revision", "orders"]


@admin.register(Turn)
class TurnAdmin(admin.ModelAdmin):
    list_display = ["campaign", "number", "status", "deadline", "processed_at"]
    list_filter = ["status"]
    list_select_related = ["campaign"]
    inlines = [TurnOrdersInline]


@admin.register(BuildOrder)
class BuildOrderAdmin(admin.ModelAdmin):
    list_display = ["campaign", "owner", "dockyard", "design", "turns_remaining"]
    list_select_related = ["campaign", "owner", "dockyard", "design"]


@admin.register(DiceRoll)
class DiceRollAdmin(admin.ModelAdmin):
    """Read-only: the dice log is append-only."""

    list_display = ["campaign", "seq", "turn", "phase", "purpose", "expression", "total"]
    list_filter = ["phase"]
    list_select_related = ["campaign"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
