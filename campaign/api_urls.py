from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from . import api

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("campaigns/", api.CampaignList.as_view(), name="api-campaigns"),
    path("campaigns/<int:campaign_id>/", api.CampaignDetail.as_view(), name="api-campaign"),
    path("campaigns/<int:campaign_id>/map/", api.CampaignMap.as_view(), name="api-map"),
    path("campaigns/<int:campaign_id>/orders/", api.OrdersView.as_view(), name="api-orders"),
    path("campaigns/<int:campaign_id>/reports/<int:turn>/", api.ReportView.as_view(), name="api-report"),
    path("campaigns/<int:campaign_id>/dice/", api.DiceLog.as_view(), name="api-dice"),
    path("campaigns/<int:campaign_id>/process/", api.ProcessNow.as_view(), name="api-process"),
    # lobby
    # turn workflow (orders)
    # moderation
    # map, history, reports
    # notifications
]
