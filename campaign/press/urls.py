from django.urls import path

from . import views

urlpatterns = [
    path("press/", views.index, name="press-index"),
    path("campaigns/<int:campaign_id>/press/", views.conversations, name="press"),
    path("campaigns/<int:campaign_id>/press/options/", views.options, name="press-options"),
    path("campaigns/<int:campaign_id>/press/<int:conversation_id>/", views.conversation, name="press-conversation"),
]
