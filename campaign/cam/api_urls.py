from django.urls import path

from . import api, api_online

S = "campaigns/<int:campaign_id>/scenarios/<int:number>/"
urlpatterns = [
    path("campaigns/", api.Campaigns.as_view(), name="api-cam-campaigns"),
    path("campaigns/<int:campaign_id>/", api.CampaignDetail.as_view(), name="api-cam-campaign"),
    path("campaigns/<int:campaign_id>/start/", api.Start.as_view(), name="api-cam-start"),
    path("campaigns/<int:campaign_id>/fleet/", api.Fleet.as_view(), name="api-cam-fleet"),
    path("campaigns/<int:campaign_id>/sds/", api.SDs.as_view(), name="api-cam-sds"),
    path("campaigns/<int:campaign_id>/rosters/", api.Rosters.as_view(), name="api-cam-rosters"),
    path("campaigns/<int:campaign_id>/scenarios/", api.Scenarios.as_view(), name="api-cam-scenarios"),
    path(S, api.ScenarioDetail.as_view(), name="api-cam-scenario"),
    path(S + "forces/", api.Forces.as_view(), name="api-cam-forces"),
    path(S + "table/", api.Table.as_view(), name="api-cam-table"),
    path(S + "turns/", api.Turns.as_view(), name="api-cam-turns"),
    path(S + "break-contact/", api.BreakContact.as_view(), name="api-cam-break-contact"),
    path(S + "end/", api.End.as_view(), name="api-cam-end"),
    path(S + "confirm/", api.Confirm.as_view(), name="api-cam-confirm"),
    path(S + "reject/", api.Reject.as_view(), name="api-cam-reject"),
    path(S + "autoresolve/", api.Autoresolve.as_view(), name="api-cam-autoresolve"),
    path(S + "mode/", api_online.ScenarioMode.as_view(), name="api-cam-mode"),
    path(S + "tables/", api_online.ScenarioTables.as_view(), name="api-cam-tables"),
    path(S + "battle/", api_online.ScenarioBattle.as_view(), name="api-cam-battle"),
    path(S + "act/", api_online.ScenarioAct.as_view(), name="api-cam-act"),
    path(S + "doctrine/", api_online.ScenarioDoctrine.as_view(), name="api-cam-doctrine"),
    path(S + "settle/", api_online.ScenarioSettle.as_view(), name="api-cam-settle"),
    path("campaigns/<int:campaign_id>/between/", api.Between.as_view(), name="api-cam-between"),
    path("campaigns/<int:campaign_id>/standings/", api.Standings.as_view(), name="api-cam-standings"),
]
