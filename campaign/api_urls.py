from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from . import api, api_lobby, moderation_api, text_order_api, token_api

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script from a URL, not inline (Content-Security-Policy).
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/swagger_ui.html"),
         name="api-docs"),
    # your own API token (campaign/token_api.py)
    path("account/token/", token_api.MyToken.as_view(), name="api-my-token"),
    path("campaigns/", api.CampaignList.as_view(), name="api-campaigns"),
    path("campaigns/<int:campaign_id>/", api.CampaignDetail.as_view(), name="api-campaign"),
    path("campaigns/<int:campaign_id>/map/", api.CampaignMap.as_view(), name="api-map"),
    path("campaigns/<int:campaign_id>/orders/", api.OrdersView.as_view(), name="api-orders"),
    path("campaigns/<int:campaign_id>/reports/<int:turn>/", api.ReportView.as_view(), name="api-report"),
    path("campaigns/<int:campaign_id>/dice/", api.DiceLog.as_view(), name="api-dice"),
    path("campaigns/<int:campaign_id>/process/", api.ProcessNow.as_view(), name="api-process"),
    # lobby
    path("lobby/", api_lobby.LobbyList.as_view(), name="api-lobby"),
    path("lobby/join/", api_lobby.Join.as_view(), name="api-lobby-join"),
    path("lobby/<int:campaign_id>/", api_lobby.LobbyDetail.as_view(), name="api-lobby-detail"),
    path("campaigns/<int:campaign_id>/players/", api_lobby.Players.as_view(), name="api-players"),
    path("campaigns/<int:campaign_id>/players/<int:membership_id>/", api_lobby.PlayerDetail.as_view(),
         name="api-player"),
    path("campaigns/<int:campaign_id>/moderators/", api_lobby.Moderators.as_view(), name="api-moderators"),
    path("campaigns/<int:campaign_id>/invitations/", api_lobby.Invitations.as_view(), name="api-invitations"),
    path("campaigns/<int:campaign_id>/invite-link/", api_lobby.InviteLink.as_view(), name="api-invite-link"),
    path("campaigns/<int:campaign_id>/start/", api_lobby.Start.as_view(), name="api-start"),
    # turn workflow (orders)
    path("campaigns/<int:campaign_id>/orders/preview/", api.OrdersPreview.as_view(), name="api-orders-preview"),
    path("campaigns/<int:campaign_id>/ready/", api.ReadyView.as_view(), name="api-ready"),
    # orders as text (campaign/text_order_api.py)
    path("campaigns/<int:campaign_id>/orders/text/", text_order_api.TextOrdersView.as_view(), name="api-orders-text"),
    path("campaigns/<int:campaign_id>/order-secret/", text_order_api.OrderSecretView.as_view(),
         name="api-order-secret"),
    path("campaigns/<int:campaign_id>/fleets/", api.FleetsView.as_view(), name="api-fleets"),
    path("campaigns/<int:campaign_id>/take-back/", api.TakeBackSeat.as_view(), name="api-take-back"),
    # moderation
    path("campaigns/<int:campaign_id>/pause/", moderation_api.Pause.as_view(), name="api-pause"),
    path("campaigns/<int:campaign_id>/options/", moderation_api.Options.as_view(), name="api-options"),
    path("campaigns/<int:campaign_id>/resume/", moderation_api.Resume.as_view(), name="api-resume"),
    path("campaigns/<int:campaign_id>/extend/", moderation_api.Extend.as_view(), name="api-extend"),
    path("campaigns/<int:campaign_id>/rollback/", moderation_api.RollBack.as_view(), name="api-rollback"),
    path("campaigns/<int:campaign_id>/substitute/", moderation_api.Substitute.as_view(), name="api-substitute"),
    path("campaigns/<int:campaign_id>/audit/", moderation_api.AuditLog.as_view(), name="api-audit"),
    # map, history, reports
    path("campaigns/<int:campaign_id>/visible-fleets/", api.VisibleFleets.as_view(), name="api-visible-fleets"),
    path("campaigns/<int:campaign_id>/history/", api.EmpireHistory.as_view(), name="api-history"),
    # notifications
    path("campaigns/<int:campaign_id>/notifications/", api.NotificationPreferences.as_view(),
         name="api-notifications"),
]
