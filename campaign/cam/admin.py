from django.contrib import admin

from .models import CamCampaign, CamPlayer, CamScenario, CamSD, CamShip


@admin.register(CamCampaign)
class CamCampaignAdmin(admin.ModelAdmin):
    list_display = ("campaign", "period", "scenarios", "points_level", "started", "replacements_done")


@admin.register(CamPlayer)
class CamPlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "cam", "seat", "user", "faction", "wealth", "temper", "campaign_points")


@admin.register(CamShip)
class CamShipAdmin(admin.ModelAdmin):
    list_display = ("number", "name", "sd", "player", "status")
    list_filter = ("status",)


@admin.register(CamScenario)
class CamScenarioAdmin(admin.ModelAdmin):
    list_display = ("cam", "number", "nature", "stage")


@admin.register(CamSD)
class CamSDAdmin(admin.ModelAdmin):
    list_display = ("key", "name", "ship_class", "cam")
