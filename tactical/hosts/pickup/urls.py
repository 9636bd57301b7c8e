"""URL routes of pickup battles: the pages under /battles/ and the API under /api/pickup/ (see
tactical/urls.py)."""

from django.urls import path

from tactical.hosts.pickup import api, views

urlpatterns = [
    path("battles/", views.pickup_list, name="pickup-list"),
    path("battles/new/", views.pickup_new, name="pickup-new"),
    path("battles/pickup/<int:pickup_id>/", views.pickup_detail, name="pickup-detail"),
    path("battles/pickup/<int:pickup_id>/fleet/", views.pickup_fleet, name="pickup-fleet"),
    path("battles/pickup/<int:pickup_id>/invite/", views.pickup_invite, name="pickup-invite"),
    path("battles/pickup/<int:pickup_id>/cancel/", views.pickup_cancel, name="pickup-cancel"),
    path("battles/pickup/<int:pickup_id>/seats/<int:seat>/computer/", views.pickup_seat_computer,
         name="pickup-seat-computer"),
    path("battles/pickup/<int:pickup_id>/leave/", views.pickup_leave, name="pickup-leave"),
    path("battles/pickup/host/<int:campaign_id>/", views.pickup_host, name="pickup-host"),
    path("battles/join/<str:token>/", views.pickup_join, name="pickup-join"),
    path("battles/designs/<slug:ruleset>/", views.design_list, name="pickup-designs"),
    path("battles/designs/<slug:ruleset>/<int:design_id>/delete/", views.design_delete, name="pickup-design-delete"),
    path("api/pickup/designs/<slug:ruleset>/", api.DesignList.as_view(), name="api-pickup-designs"),
    path("api/pickup/designs/<slug:ruleset>/<int:design_id>/", api.DesignDetail.as_view(),
         name="api-pickup-design"),
    path("api/pickup/", api.PickupList.as_view(), name="api-pickup-list"),
    path("api/pickup/accept/", api.PickupAccept.as_view(), name="api-pickup-accept"),
    path("api/pickup/<int:pickup_id>/", api.PickupDetail.as_view(), name="api-pickup"),
    path("api/pickup/<int:pickup_id>/invite/", api.PickupInvite.as_view(), name="api-pickup-invite"),
    path("api/pickup/<int:pickup_id>/fleet/", api.PickupFleet.as_view(), name="api-pickup-fleet"),
    path("api/pickup/<int:pickup_id>/cancel/", api.PickupCancel.as_view(), name="api-pickup-cancel"),
    path("api/pickup/<int:pickup_id>/seats/<int:seat>/computer/", api.PickupSeatComputer.as_view(),
         name="api-pickup-seat-computer"),
    path("api/pickup/<int:pickup_id>/leave/", api.PickupLeave.as_view(), name="api-pickup-leave"),
]
