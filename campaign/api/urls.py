from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from . import exports, lobby, moderation, token

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script from a URL, not inline (Content-Security-Policy).
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/swagger_ui.html"),
         name="api-docs"),
    # your own API token (campaign/api/token.py)
    path("account/token/", token.MyToken.as_view(), name="api-my-token"),
    path("account/tokens/", token.MyTokens.as_view(), name="api-my-tokens"),
    path("account/tokens/<int:token_id>/", token.MyTokenDetail.as_view(), name="api-my-token-detail"),
    # lobby
    path("lobby/", lobby.LobbyList.as_view(), name="api-lobby"),
    path("lobby/join/", lobby.Join.as_view(), name="api-lobby-join"),
    path("lobby/<int:campaign_id>/", lobby.LobbyDetail.as_view(), name="api-lobby-detail"),
    path("campaigns/<int:campaign_id>/players/", lobby.Players.as_view(), name="api-players"),
    path("campaigns/<int:campaign_id>/players/<int:membership_id>/", lobby.PlayerDetail.as_view(),
         name="api-player"),
    path("campaigns/<int:campaign_id>/moderators/", lobby.Moderators.as_view(), name="api-moderators"),
    path("campaigns/<int:campaign_id>/invitations/", lobby.Invitations.as_view(), name="api-invitations"),
    path("campaigns/<int:campaign_id>/invite-link/", lobby.InviteLink.as_view(), name="api-invite-link"),
    path("campaigns/<int:campaign_id>/start/", lobby.Start.as_view(), name="api-start"),
    # moderation
    path("campaigns/<int:campaign_id>/pause/", moderation.Pause.as_view(), name="api-pause"),
    path("campaigns/<int:campaign_id>/options/", moderation.Options.as_view(), name="api-options"),
    path("campaigns/<int:campaign_id>/resume/", moderation.Resume.as_view(), name="api-resume"),
    path("campaigns/<int:campaign_id>/extend/", moderation.Extend.as_view(), name="api-extend"),
    path("campaigns/<int:campaign_id>/rollback/", moderation.RollBack.as_view(), name="api-rollback"),
    path("campaigns/<int:campaign_id>/substitute/", moderation.Substitute.as_view(), name="api-substitute"),
    path("campaigns/<int:campaign_id>/audit/", moderation.AuditLog.as_view(), name="api-audit"),
    # the campaign as JSON (moderators; players once it has ended): campaign/exports.py
    path("campaigns/<int:campaign_id>/export/", exports.Export.as_view(), name="api-export"),
]
