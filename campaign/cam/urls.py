from django.urls import path

from . import views, views_online

urlpatterns = [
    path("cam/", views.cam_list, name="cam-list"),
    path("cam/new/", views.cam_create, name="cam-create"),
    path("cam/<int:campaign_id>/", views.cam_detail, name="cam-detail"),
    path("cam/<int:campaign_id>/fleet/", views.cam_fleet, name="cam-fleet"),
    path("cam/<int:campaign_id>/start/", views.cam_start, name="cam-start"),
    path("cam/<int:campaign_id>/sds/", views.cam_sds, name="cam-sds"),
    path("cam/<int:campaign_id>/scenarios/new/", views.cam_generate, name="cam-generate"),
    path("cam/<int:campaign_id>/between/", views.cam_between, name="cam-between"),
    path("cam/<int:campaign_id>/between/run/", views.cam_between_run, name="cam-between-run"),
    path("cam/<int:campaign_id>/standings/", views.standings_page, name="cam-standings"),
    path("cam/<int:campaign_id>/scenarios/<int:number>/", views.scenario_page, name="cam-scenario"),
    path("cam/<int:campaign_id>/scenarios/<int:number>/forces/", views.scenario_forces, name="cam-forces"),
    path("cam/<int:campaign_id>/scenarios/<int:number>/table/", views.scenario_table, name="cam-table"),
    path("cam/<int:campaign_id>/scenarios/<int:number>/turn/", views.scenario_turn, name="cam-turn"),
    path("cam/<int:campaign_id>/scenarios/<int:number>/end/", views.scenario_end, name="cam-end"),
    path("cam/<int:campaign_id>/scenarios/<int:number>/confirm/", views.scenario_confirm, name="cam-confirm"),
    path("cam/<int:campaign_id>/scenarios/<int:number>/reject/", views.scenario_reject, name="cam-reject"),
    path("cam/<int:campaign_id>/scenarios/<int:number>/autoresolve/", views.scenario_autoresolve,
         name="cam-autoresolve"),
    path("cam/<int:campaign_id>/scenarios/<int:number>/mode/", views_online.scenario_mode, name="cam-mode"),
    path("cam/<int:campaign_id>/scenarios/<int:number>/tables/", views_online.scenario_tables, name="cam-tables"),
    path("cam/<int:campaign_id>/scenarios/<int:number>/doctrine/", views_online.scenario_doctrine,
         name="cam-doctrine"),
    path("cam/<int:campaign_id>/scenarios/<int:number>/settle/", views_online.scenario_settle, name="cam-settle"),
]
