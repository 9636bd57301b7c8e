"""Event Horizon's REST API (included from config/urls.py under /api/)."""

from django.urls import path

from campaign.eventhorizon.api import campaigns, textorders

urlpatterns = [
    path("campaigns/", campaigns.CampaignList.as_view(), name="api-campaigns"),
    path("campaigns/<int:campaign_id>/", campaigns.CampaignDetail.as_view(), name="api-campaign"),
    path("campaigns/<int:campaign_id>/map/", campaigns.CampaignMap.as_view(), name="api-map"),
    path("campaigns/<int:campaign_id>/orders/", campaigns.OrdersView.as_view(), name="api-orders"),
    path("campaigns/<int:campaign_id>/reports/<int:turn>/", campaigns.ReportView.as_view(), name="api-report"),
    path("campaigns/<int:campaign_id>/dice/", campaigns.DiceLog.as_view(), name="api-dice"),
    path("campaigns/<int:campaign_id>/process/", campaigns.ProcessNow.as_view(), name="api-process"),
    # turn workflow (orders)
    path("campaigns/<int:campaign_id>/orders/preview/", campaigns.OrdersPreview.as_view(), name="api-orders-preview"),
    path("campaigns/<int:campaign_id>/ready/", campaigns.ReadyView.as_view(), name="api-ready"),
    # orders as text (campaign/eventhorizon/api/textorders.py)
    path("campaigns/<int:campaign_id>/orders/text/", textorders.TextOrdersView.as_view(), name="api-orders-text"),
    path("campaigns/<int:campaign_id>/order-secret/", textorders.OrderSecretView.as_view(),
         name="api-order-secret"),
    path("campaigns/<int:campaign_id>/fleets/", campaigns.FleetsView.as_view(), name="api-fleets"),
    path("campaigns/<int:campaign_id>/take-back/", campaigns.TakeBackSeat.as_view(), name="api-take-back"),
    # map, history, reports
    path("campaigns/<int:campaign_id>/visible-fleets/", campaigns.VisibleFleets.as_view(), name="api-visible-fleets"),
    path("campaigns/<int:campaign_id>/history/", campaigns.EmpireHistory.as_view(), name="api-history"),
    # notifications
    path("campaigns/<int:campaign_id>/notifications/", campaigns.NotificationPreferences.as_view(),
         name="api-notifications"),
]
