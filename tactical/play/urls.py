"""URL routes of embedded battles: the play and replay pages and their API (see tactical/urls.py)."""

from django.urls import path

from tactical.play import api as play_api
from tactical.play import views as play_views

urlpatterns = [
    path("battles/<int:battle_id>/play/", play_views.play_page, name="battle-play"),
    path("battles/<int:battle_id>/replay/", play_views.replay_page, name="battle-replay"),
    path("api/battles/<int:battle_id>/state/", play_api.BattleStateView.as_view(), name="api-battle-state"),
    path("api/battles/<int:battle_id>/action/", play_api.BattleActionView.as_view(), name="api-battle-action"),
    path("api/battles/<int:battle_id>/deploy/", play_api.BattleDeployView.as_view(), name="api-battle-deploy"),
    path("api/battles/<int:battle_id>/doctrine/", play_api.BattleDoctrineView.as_view(), name="api-battle-doctrine"),
]
