"""Pages. Thin: look up what the user may see, call an action or a query, render."""

from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Count
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from . import adapters, mapsvg
from .access import visible_campaigns
from .models import TERRAIN_CHOICES, Campaign, Design
from .rules.eventhorizon.designs import validate_design


def _campaign_for(request, campaign_id: int) -> Campaign:
    # An outsider gets 404, never a hint that the campaign exists.
    return get_object_or_404(visible_campaigns(request.user), pk=campaign_id)


def home(request):
    campaigns = (
        visible_campaigns(request.user)
        .annotate(players=Count("empires", distinct=True))
        .select_related("moderator")
    )
    return render(request, "campaign/home.html", {"campaigns": campaigns})


@login_required
def campaign_detail(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    empires = campaign.empires.annotate(
        world_count=Count("worlds", distinct=True), ship_count=Count("ships", distinct=True)
    )
    labels = dict(TERRAIN_CHOICES)
    terrain_counts = {
        labels[t]: n
        for t, n in campaign.cells.values_list("terrain").annotate(n=Count("id")).values_list("terrain", "n")
    }
    context = {
        "campaign": campaign,
        "empires": empires,
        "terrain_counts": terrain_counts,
        "neutral_worlds": campaign.worlds.filter(owner__isnull=True).count(),
        "roll_count": campaign.dice_rolls.count(),
        "structures": campaign.structures.select_related("owner"),
    }
    return render(request, "campaign/detail.html", context)


@login_required
@require_GET
def campaign_map_svg(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    svg = mapsvg.render(adapters.map_state(campaign), adapters.map_overlay(campaign))
    return HttpResponse(svg, content_type="image/svg+xml")


@login_required
def dice_log(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    page = Paginator(campaign.dice_rolls.order_by("seq"), 50).get_page(request.GET.get("page"))
    return render(request, "campaign/dice.html", {"campaign": campaign, "page": page})


def design_library(request):
    designs = []
    for row in Design.objects.filter(campaign__isnull=True).order_by("bp", "name"):
        design = adapters.design_from_spec(row.spec)
        validate_design(design)
        designs.append({"row": row, "design": design})
    return render(request, "campaign/designs.html", {"designs": designs})


@require_GET
def healthz(request):
    """Liveness and readiness: the database and the cache both answer."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    cache.set("healthz", "ok", 5)
    return JsonResponse({"database": "ok", "cache": cache.get("healthz") or "unavailable"})
