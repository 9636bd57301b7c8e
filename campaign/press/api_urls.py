from django.urls import path

from . import api

urlpatterns = [
    path("campaigns/<int:campaign_id>/press/", api.PressList.as_view(), name="api-press"),
    path("campaigns/<int:campaign_id>/press/options/", api.PressOptions.as_view(), name="api-press-options"),
    path("campaigns/<int:campaign_id>/press/<int:conversation_id>/", api.PressConversation.as_view(),
         name="api-press-conversation"),
]
