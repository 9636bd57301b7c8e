from django.urls import path

from . import lobby_views, moderation_views, notification_views, order_views, text_order_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("designs/", views.design_library, name="design-library"),
    path("campaigns/<int:campaign_id>/", views.campaign_detail, name="campaign-detail"),
    path("campaigns/<int:campaign_id>/map.svg", views.campaign_map_svg, name="campaign-map-svg"),
    path("campaigns/<int:campaign_id>/dice/", views.dice_log, name="campaign-dice"),
    path("healthz", views.healthz, name="healthz"),
    # lobby
    path("lobby/", lobby_views.lobby_list, name="lobby-list"),
    path("lobby/new/", lobby_views.lobby_create, name="lobby-create"),
    path("lobby/<int:campaign_id>/", lobby_views.lobby_detail, name="lobby-detail"),
    path("lobby/<int:campaign_id>/invite/", lobby_views.lobby_invite, name="lobby-invite"),
    path("lobby/<int:campaign_id>/link/", lobby_views.lobby_link, name="lobby-link"),
    path("lobby/<int:campaign_id>/moderators/", lobby_views.lobby_add_moderator, name="lobby-add-moderator"),
    path("lobby/<int:campaign_id>/members/<int:membership_id>/remove/", lobby_views.lobby_remove_member,
         name="lobby-remove-member"),
    path("lobby/<int:campaign_id>/start/", lobby_views.lobby_start, name="lobby-start"),
    path("join/<str:token>/", lobby_views.join, name="lobby-join"),
    # turn workflow (orders)
    path("campaigns/<int:campaign_id>/orders/", order_views.order_page, name="campaign-orders"),
    path("campaigns/<int:campaign_id>/orders/text/", text_order_views.paste_orders, name="campaign-orders-text"),
    path("campaigns/<int:campaign_id>/orders/secret/", text_order_views.order_secret, name="campaign-order-secret"),
    path("campaigns/<int:campaign_id>/orders/ready/", order_views.ready_toggle, name="campaign-ready"),
    path("campaigns/<int:campaign_id>/take-back/", order_views.take_back, name="campaign-take-back"),
    path("campaigns/<int:campaign_id>/designs/new/", order_views.design_ship, name="campaign-design-new"),
    # moderation
    path("campaigns/<int:campaign_id>/moderate/", moderation_views.panel, name="moderation-panel"),
    path("campaigns/<int:campaign_id>/moderate/pause/", moderation_views.pause, name="moderation-pause"),
    path("campaigns/<int:campaign_id>/moderate/resume/", moderation_views.resume, name="moderation-resume"),
    path("campaigns/<int:campaign_id>/moderate/extend/", moderation_views.extend, name="moderation-extend"),
    path("campaigns/<int:campaign_id>/moderate/process/", moderation_views.process, name="moderation-process"),
    path("campaigns/<int:campaign_id>/moderate/options/", moderation_views.set_options, name="moderation-options"),
    path("campaigns/<int:campaign_id>/moderate/rollback/", moderation_views.roll_back, name="moderation-rollback"),
    path("campaigns/<int:campaign_id>/moderate/substitute/", moderation_views.substitute, name="moderation-substitute"),
    path("campaigns/<int:campaign_id>/moderate/moderators/", moderation_views.add_moderator,
         name="moderation-add-moderator"),
    path("campaigns/<int:campaign_id>/audit/", moderation_views.audit_log, name="moderation-audit"),
    # map, history, reports
    path("campaigns/<int:campaign_id>/map/", views.campaign_map, name="campaign-map"),
    path("campaigns/<int:campaign_id>/chart.svg", views.campaign_chart_svg, name="campaign-chart-svg"),
    path("campaigns/<int:campaign_id>/reports/", views.campaign_reports, name="campaign-reports"),
    path("campaigns/<int:campaign_id>/reports/<int:turn>/", views.campaign_report, name="campaign-report"),
    # notifications
    path("campaigns/<int:campaign_id>/notifications/", notification_views.preferences, name="notification-preferences"),
    path("notifications/unsubscribe/<str:token>/", notification_views.unsubscribe, name="notification-unsubscribe"),
]
