"""URL routes of battles (see tactical/urls.py): the battle list and battle pages, tabletop result
entry, the moderator's settlement, and their API under /api/."""

from django.urls import path

from tactical.battles import api as battle_api
from tactical.battles import views as battle_views
from tactical.hosts.cam import sheets as cam_sheets

urlpatterns = [
    path("campaigns/<int:campaign_id>/battles/", battle_views.battle_list, name="battle-list"),
    path(
        "campaigns/<int:campaign_id>/battle-preference/",
        battle_views.battle_preference,
        name="battle-preference",
    ),
    path("battles/<int:battle_id>/", battle_views.battle_detail, name="battle-detail"),
    path("battles/<int:battle_id>/sheets/", battle_views.battle_sheets, name="battle-sheets"),
    path(
        "cam/<int:campaign_id>/scenarios/<int:number>/sheets/",
        cam_sheets.scenario_sheets,
        name="cam-scenario-sheets",
    ),
    path("battles/<int:battle_id>/enter/", battle_views.battle_enter, name="battle-enter"),
    path("battles/<int:battle_id>/confirm/", battle_views.battle_confirm, name="battle-confirm"),
    path("battles/<int:battle_id>/dispute/", battle_views.battle_dispute, name="battle-dispute"),
    path("battles/<int:battle_id>/settle/", battle_views.battle_settle, name="battle-settle"),
    path("battles/<int:battle_id>/mode/", battle_views.battle_mode, name="battle-mode"),
    path(
        "api/campaigns/<int:campaign_id>/battles/",
        battle_api.CampaignBattles.as_view(),
        name="api-battle-list",
    ),
    path("api/battles/<int:battle_id>/", battle_api.BattleDetail.as_view(), name="api-battle"),
    path("api/battles/<int:battle_id>/result/", battle_api.EnterResult.as_view(), name="api-battle-result"),
    path(
        "api/battles/<int:battle_id>/confirm/", battle_api.ConfirmResult.as_view(), name="api-battle-confirm"
    ),
    path(
        "api/battles/<int:battle_id>/dispute/", battle_api.DisputeResult.as_view(), name="api-battle-dispute"
    ),
    path("api/battles/<int:battle_id>/settle/", battle_api.SettleBattle.as_view(), name="api-battle-settle"),
    path("api/battles/<int:battle_id>/mode/", battle_api.ChangeMode.as_view(), name="api-battle-mode"),
    path(
        "api/campaigns/<int:campaign_id>/battle-preference/",
        battle_api.BattlePreference.as_view(),
        name="api-battle-preference",
    ),
]
