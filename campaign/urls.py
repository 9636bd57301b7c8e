from django.urls import path

from .views import dice, exports, home, lobby, moderation, notifications

urlpatterns = [
    path("", home.home, name="home"),
    path("campaigns/<int:campaign_id>/dice/", dice.dice_log, name="campaign-dice"),
    path("healthz", home.healthz, name="healthz"),
    # lobby
    path("lobby/", lobby.lobby_list, name="lobby-list"),
    path("lobby/new/", lobby.lobby_create, name="lobby-create"),
    path("lobby/<int:campaign_id>/", lobby.lobby_detail, name="lobby-detail"),
    path("lobby/<int:campaign_id>/invite/", lobby.lobby_invite, name="lobby-invite"),
    path("lobby/<int:campaign_id>/link/", lobby.lobby_link, name="lobby-link"),
    path("lobby/<int:campaign_id>/moderators/", lobby.lobby_add_moderator, name="lobby-add-moderator"),
    path("lobby/<int:campaign_id>/members/<int:membership_id>/remove/", lobby.lobby_remove_member,
         name="lobby-remove-member"),
    path("lobby/<int:campaign_id>/start/", lobby.lobby_start, name="lobby-start"),
    path("join/<str:token>/", lobby.join, name="lobby-join"),
    # moderation
    path("campaigns/<int:campaign_id>/moderate/", moderation.panel, name="moderation-panel"),
    path("campaigns/<int:campaign_id>/moderate/pause/", moderation.pause, name="moderation-pause"),
    path("campaigns/<int:campaign_id>/moderate/resume/", moderation.resume, name="moderation-resume"),
    path("campaigns/<int:campaign_id>/moderate/extend/", moderation.extend, name="moderation-extend"),
    path("campaigns/<int:campaign_id>/moderate/process/", moderation.process, name="moderation-process"),
    path("campaigns/<int:campaign_id>/moderate/options/", moderation.set_options, name="moderation-options"),
    path("campaigns/<int:campaign_id>/moderate/rollback/", moderation.roll_back, name="moderation-rollback"),
    path("campaigns/<int:campaign_id>/moderate/substitute/", moderation.substitute, name="moderation-substitute"),
    path("campaigns/<int:campaign_id>/moderate/moderators/", moderation.add_moderator,
         name="moderation-add-moderator"),
    path("campaigns/<int:campaign_id>/audit/", moderation.audit_log, name="moderation-audit"),
    path("campaigns/<int:campaign_id>/export/", exports.export_campaign, name="campaign-export"),
    # notifications
    path("campaigns/<int:campaign_id>/notifications/", notifications.preferences, name="notification-preferences"),
    path("notifications/unsubscribe/<str:token>/", notifications.unsubscribe, name="notification-unsubscribe"),
]
