"""Event Horizon's rows in the Django admin, audited like the platform's (``AuditedAdmin``:
every save and deletion goes through ``actions.admin_edit``)."""

from django.contrib import admin

from campaign.admin import AuditedAdmin

from .models import BuildOrder, Design, Fleet, MapCell, Ship, Structure, World


@admin.register(MapCell)
class MapCellAdmin(AuditedAdmin):
    list_display = ["campaign", "x", "y", "terrain"]
    list_filter = ["terrain"]
    list_select_related = ["campaign"]
    # The map never changes once rolled (processes cache it: adapters.cached_map_state).
    readonly_fields = ["campaign", "x", "y", "terrain"]


@admin.register(World)
class WorldAdmin(AuditedAdmin):
    list_display = ["campaign", "x", "y", "kind", "economy", "owner", "home_of"]
    list_filter = ["kind", "economy"]
    list_select_related = ["campaign", "owner"]
    # Where a world is, what it is and whose home it is are rolled with the map and cached with
    # it (adapters.cached_neutral_worlds); owners and hold-outs stay editable.
    readonly_fields = ["campaign", "x", "y", "kind", "economy", "home_of"]


@admin.register(Structure)
class StructureAdmin(AuditedAdmin):
    list_display = ["campaign", "number", "resource", "owner", "x", "y", "technology", "built_turn"]
    list_filter = ["resource"]
    list_select_related = ["campaign", "owner"]


@admin.register(Design)
class DesignAdmin(AuditedAdmin):
    list_display = ["name", "ship_type", "bp", "campaign", "empire"]
    list_filter = ["ship_type"]
    search_fields = ["name"]


@admin.register(Ship)
class ShipAdmin(AuditedAdmin):
    list_display = ["campaign", "number", "name", "owner", "design", "fleet", "hero_crew"]
    list_select_related = ["campaign", "owner", "design", "fleet"]


@admin.register(Fleet)
class FleetAdmin(AuditedAdmin):
    list_display = ["campaign", "number", "owner", "x", "y"]
    list_select_related = ["campaign", "owner"]


@admin.register(BuildOrder)
class BuildOrderAdmin(AuditedAdmin):
    list_display = ["campaign", "owner", "dockyard", "design", "turns_remaining"]
    list_select_related = ["campaign", "owner", "dockyard", "design"]
