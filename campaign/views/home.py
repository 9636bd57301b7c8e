"""The home page (my campaigns, open campaigns of every layer) and the health check."""

from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from campaign import layers
from campaign.views import dashboard


def home(request):
    # "My campaigns" a page at a time (?page=N): a user in hundreds of campaigns gets the page as
    # fast as one in a single campaign (issue 33).
    rows, page = dashboard.my_campaigns_page(request.user, request.GET.get("page"))
    return render(request, "campaign/home.html", {
        "rows": rows,
        "page": page,
        "open_campaigns": dashboard.open_campaigns(request.user),
        "layers": [lay for lay in layers.all_layers() if lay.has("lobby")],
    })


@require_GET
def healthz(request):
    """Liveness and readiness: the database and the cache both answer."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    cache.set("healthz", "ok", 5)
    return JsonResponse({"database": "ok", "cache": cache.get("healthz") or "unavailable"})
