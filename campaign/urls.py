from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("designs/", views.design_library, name="design-library"),
    path("campaigns/<int:campaign_id>/", views.campaign_detail, name="campaign-detail"),
    path("campaigns/<int:campaign_id>/map.svg", views.campaign_map_svg, name="campaign-map-svg"),
    path("campaigns/<int:campaign_id>/dice/", views.dice_log, name="campaign-dice"),
    path("healthz", views.healthz, name="healthz"),
    # lobby
    # turn workflow (orders)
    # moderation
    # map, history, reports
    # notifications
]
