"""URL routes of what-if runs (see tactical/urls.py): the pages and /api/what-if/."""

from django.urls import path

from tactical.whatif import api as whatif_api
from tactical.whatif import book_views, cam_api, cam_views, converted
from tactical.whatif import views as whatif_views

urlpatterns = [
    path("what-if/", whatif_views.whatif_list, name="whatif-list"),
    path("what-if/new/", whatif_views.whatif_new, name="whatif-new"),
    path("what-if/cam/new/", cam_views.whatif_cam_new, name="whatif-cam-new"),
    path("what-if/converted/new/", converted.whatif_converted_new, name="whatif-converted-new"),
    path("what-if/new/<slug:book>/", book_views.whatif_book_new, name="whatif-book-new"),
    path("what-if/<int:run_id>/", whatif_views.whatif_detail, name="whatif-detail"),
    path("what-if/<int:run_id>/progress.json", whatif_views.whatif_progress, name="whatif-progress"),
    path("what-if/<int:run_id>/restart/", whatif_views.whatif_restart, name="whatif-restart"),
    path("api/what-if/", whatif_api.WhatIfList.as_view(), name="api-whatif-list"),
    path("api/what-if/cam/", cam_api.CamWhatIfCreate.as_view(), name="api-whatif-cam"),
    path("api/what-if/converted/", whatif_api.ConvertedWhatIfCreate.as_view(), name="api-whatif-converted"),
    path("api/what-if/book/<slug:book>/", whatif_api.BookWhatIfCreate.as_view(), name="api-whatif-book"),
    path("api/what-if/cam/<int:run_id>/", cam_api.CamWhatIfDetail.as_view(), name="api-whatif-cam-detail"),
    path("api/what-if/<int:run_id>/", whatif_api.WhatIfDetail.as_view(), name="api-whatif"),
]
