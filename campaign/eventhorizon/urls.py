"""Event Horizon's pages (included from config/urls.py at the site's root)."""

from django.urls import path

from campaign.eventhorizon.views import campaigns, orders, textorders

urlpatterns = [
    path("designs/", campaigns.design_library, name="design-library"),
    path("campaigns/<int:campaign_id>/", campaigns.campaign_detail, name="campaign-detail"),
    path("campaigns/<int:campaign_id>/map.svg", campaigns.campaign_map_svg, name="campaign-map-svg"),
    # turn workflow (orders)
    path("campaigns/<int:campaign_id>/orders/", orders.order_page, name="campaign-orders"),
    path("campaigns/<int:campaign_id>/orders/text/", textorders.paste_orders, name="campaign-orders-text"),
    path("campaigns/<int:campaign_id>/orders/secret/", textorders.order_secret, name="campaign-order-secret"),
    path("campaigns/<int:campaign_id>/orders/ready/", orders.ready_toggle, name="campaign-ready"),
    path("campaigns/<int:campaign_id>/take-back/", orders.take_back, name="campaign-take-back"),
    path("campaigns/<int:campaign_id>/designs/new/", orders.design_ship, name="campaign-design-new"),
    # map, history, reports
    path("campaigns/<int:campaign_id>/map/", campaigns.campaign_map, name="campaign-map"),
    path("campaigns/<int:campaign_id>/chart.svg", campaigns.campaign_chart_svg, name="campaign-chart-svg"),
    path("campaigns/<int:campaign_id>/reports/", campaigns.campaign_reports, name="campaign-reports"),
    path("campaigns/<int:campaign_id>/reports/<int:turn>/", campaigns.campaign_report, name="campaign-report"),
]
