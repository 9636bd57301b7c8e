from django.urls import path

from . import views

urlpatterns = [
    path("away/", views.my_absences, name="away-mine"),
    path("away/<int:absence_id>/end/", views.end_absence, name="away-end"),
    path("campaigns/<int:campaign_id>/away/", views.campaign_away, name="campaign-away"),
    path("campaigns/<int:campaign_id>/away/policy/", views.set_policy, name="campaign-away-policy"),
    path("campaigns/<int:campaign_id>/webhooks/", views.webhooks_page, name="campaign-webhooks"),
    path("calendar/", views.calendar_page, name="calendar"),
    path("calendar/<str:secret>.ics", views.calendar_feed, name="calendar-feed"),
]
