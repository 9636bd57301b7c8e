from django.urls import path

from . import api

urlpatterns = [
    path("away/", api.AbsencesView.as_view(), name="api-away"),
    path("away/<int:absence_id>/end/", api.EndAbsenceView.as_view(), name="api-away-end"),
    path("campaigns/<int:campaign_id>/away/", api.CampaignAwayView.as_view(), name="api-campaign-away"),
    path("campaigns/<int:campaign_id>/webhooks/", api.WebhooksView.as_view(), name="api-webhooks"),
    path("campaigns/<int:campaign_id>/webhooks/<int:webhook_id>/", api.WebhookView.as_view(), name="api-webhook"),
    path("calendar/", api.CalendarView.as_view(), name="api-calendar"),
]
