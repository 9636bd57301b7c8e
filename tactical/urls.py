"""Pages and API routes of the tactical app: battles (lifecycle, tabletop entry, embedded play,
replay), pickup battles and what-if runs. Each area keeps its own URL module."""

from django.urls import include, path

urlpatterns = [
    path("", include("tactical.hosts.pickup.urls")),
    path("", include("tactical.battles.urls")),
    path("", include("tactical.play.urls")),
    path("", include("tactical.whatif.urls")),
]
