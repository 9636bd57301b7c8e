"""Event Horizon's campaign pages: the campaign, the map and its SVG, reports, the empire chart,
the design library. Thin: look up what the user may see, call an action or a query, render.

Everything a page shows of a campaign's contents goes through ``campaign/eventhorizon/visibility.py``
(fog of war) or ``campaign/eventhorizon/reports.py`` (reports, fogged the same way)."""

import hashlib
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.db.models import Count
from django.http import Http404, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.views.decorators.http import require_GET

from campaign import layers, lookups
from campaign.access import visible_campaigns
from campaign.eventhorizon.models import TERRAIN_CHOICES, Design
from campaign.memo import Memo
from campaign.models import Campaign, Turn
from campaign.press import unread as press_unread
from campaign.rules.eventhorizon.designs import validate_design
from campaign.rules.grid import make_grid

from .. import adapters, charts, mapsvg, visibility
from ..reports import ReportError, campaign_outcome, report_context, report_for


def _campaign_for(request, campaign_id: int) -> Campaign:
    # An outsider gets 404, never a hint that the campaign exists. A CAM campaign has no map,
    # turns or reports of this kind: its pages are campaign/cam (the dice log is shared).
    return get_object_or_404(visible_campaigns(request.user).filter(layer__in=layers.having("orders")), pk=campaign_id)


def _int_param(request, name: str) -> int | None:
    """An optional whole-number query parameter; anything else is a 404 naming the problem."""
    raw = request.GET.get(name)
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except ValueError:
        raise Http404(f"'{name}' must be a whole number") from None


def _seat_param(request, campaign: Campaign, viewer: visibility.Viewer) -> int | None:
    """A moderator may look through a seat's eyes (``?seat=N``); anyone else's ``seat`` is ignored."""
    seat = _int_param(request, "seat")
    if seat is None or not viewer.is_moderator:
        return None
    if not campaign.empires.filter(seat=seat).exists():
        raise Http404(f"this campaign has no seat {seat}")
    return seat


@login_required
def campaign_detail(request, campaign_id: int):
    other = visible_campaigns(request.user).exclude(layer__in=layers.having("orders")).filter(pk=campaign_id).first()
    if other is not None:  # a campaign of another layer: its own page (campaign/layers.py)
        return redirect(layers.of(other).detail_url, campaign_id)
    campaign = _campaign_for(request, campaign_id)
    if campaign.status == Campaign.Status.SETUP:
        # No map before the start: a campaign in the lobby is shown by its lobby page.
        return redirect("lobby-detail", campaign.pk)
    viewer = visibility.viewer_for(request.user, campaign)
    labels = dict(TERRAIN_CHOICES)
    terrain_counts = {
        labels[t]: n
        for t, n in campaign.cells.values_list("terrain").annotate(n=Count("id")).values_list("terrain", "n")
    }
    context = {
        "campaign": campaign,
        "viewer": viewer,
        "empires": visibility.empire_rows(campaign, viewer),
        "terrain_counts": terrain_counts,
        "neutral_worlds": campaign.worlds.filter(owner__isnull=True).count(),
        "roll_count": campaign.dice_rolls.count(),
        "structures": visibility.visible_structures(campaign, viewer),
        "done_turns": list(
            campaign.turns.filter(status=Turn.Status.DONE)
            .order_by("-number")
            .values_list("number", flat=True)[:10]
        ),
        "rolled_back": _rolled_back(campaign),
        "outcome": campaign_outcome(campaign),
        "map_aspect": "{:.0f} / {:.0f}".format(
            *mapsvg.picture_size(make_grid(campaign.grid, campaign.width, campaign.height))
        ),
    }
    return render(request, "campaign/detail.html", context)


def _rolled_back(campaign: Campaign):
    """The roll-back that reopened the current turn, while it is open again (issue 13 item 17):
    the campaign page tells everyone, as the email did."""
    entry = campaign.audit_entries.filter(action="roll_back").order_by("-at", "-id").first()
    if entry is None or entry.target != f"turn {campaign.turn}":
        return None
    if not campaign.turns.filter(number=campaign.turn, status=Turn.Status.OPEN).exists():
        return None
    return entry


def _access(request, campaign_id: int) -> lookups.CampaignAccess:
    """The campaign, the caller's role and empire in one query; 404 as ``_campaign_for``."""
    found = lookups.campaign_access(request.user, campaign_id)
    if found is None or found.campaign.layer not in layers.having("orders"):
        raise Http404("No campaign matches the given query.")
    return found


def _as_seat(request, found: lookups.CampaignAccess, viewer: visibility.Viewer):
    """(seat asked for with ``?seat=N`` or None, the eyes the map is drawn for)."""
    as_seat = _seat_param(request, found.campaign, viewer)
    if as_seat is None:
        return None, viewer
    return as_seat, visibility.viewer_from(found.role, found.empire.seat if found.empire else None,
                                           found.campaign, as_seat=as_seat)


@login_required
@require_GET
def campaign_map_svg(request, campaign_id: int):
    """The map as the caller may see it: ``?turn=N`` the start of turn N, ``?interactive=1``
    clickable cells and fleets, ``?seat=N`` (moderator) a seat's view. Sent with an ETag and
    ``no-cache``: a browser asks again each time and gets a 304 while the picture it holds is
    still the one it may see (the map page fetches it this way)."""
    found = _access(request, campaign_id)
    campaign = found.campaign
    viewer = visibility.viewer_from(found.role, found.empire.seat if found.empire else None, campaign)
    turn = _int_param(request, "turn")
    interactive = request.GET.get("interactive") in ("1", "true", "yes")
    as_seat, eyes = _as_seat(request, found, viewer)
    key = visibility.map_cache_key(campaign, eyes, turn, interactive=interactive)
    try:
        svg = visibility.cached_svg(campaign, eyes, key, turn, interactive=interactive)
    except visibility.HistoryUnavailable as exc:
        raise Http404(str(exc)) from None
    etag = visibility.map_etag(svg)
    # Django's own If-None-Match handling: a weak validator (W/"…", as proxies rewrite it) matches too.
    response = get_conditional_response(request, etag=etag) or HttpResponse(svg, content_type="image/svg+xml")
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Cookie, Authorization"
    return response


# The map page is kept whole in the cache for each user, campaign row and query: what it shows
# changes only with a turn, an edit (the state version moves) or the user's standing. The one
# per-request parts, the CSRF token of the log-out form, the Content-Security-Policy nonce of
# its <style> elements and the menu's unread press count, are put in on the way out.
MAP_PAGE_CSRF = "__sector-command-csrf-token__"
MAP_PAGE_NONCE = "__sector-command-csp-nonce__"
MAP_PAGE_PRESS = "__sector-command-press-badge__"
MAP_PAGES = Memo(256, max_total=16_000_000)  # a key names everything its page shows: never stale


def _map_page_key(request, found: lookups.CampaignAccess) -> str:
    user, campaign = request.user, found.campaign
    row = tuple(getattr(campaign, f.attname) for f in campaign._meta.concrete_fields)
    parts = (user.pk, user.username, user.is_staff, found.role, found.empire.pk if found.empire else None,
             row, request.GET.get("turn"), request.GET.get("seat"))
    return "sc-map-page:1:" + hashlib.sha256(repr(parts).encode()).hexdigest()


@login_required
@require_GET
def campaign_map(request, campaign_id: int):
    """The map page: the whole map with zoom and pan, hover details, legend, history by turn.
    The picture itself comes from ``campaign_map_svg`` (fetched by static/map.js, revalidated
    by its ETag), so the page stays small and each map is rendered once per change."""
    found = _access(request, campaign_id)
    # A page with messages to show (say, after a redirect) is made fresh and not kept.
    keep = len(messages.get_messages(request)) == 0
    key = _map_page_key(request, found) if keep else None
    # This process's memo first (no round trip), then the shared cache, then a fresh render.
    html = (MAP_PAGES.get(key) or cache.get(key)) if keep else None
    if html is None:
        html = render_to_string("campaign/map.html", {**_map_context(request, found), "csrf_token": MAP_PAGE_CSRF,
                                                      "csp_nonce": MAP_PAGE_NONCE, "press_badge": MAP_PAGE_PRESS},
                                request)
        if keep:
            cache.set(key, html, visibility.MAP_CACHE_SECONDS)
    if keep:
        MAP_PAGES.put(key, html)
    return HttpResponse(html.replace(MAP_PAGE_CSRF, get_token(request))
                        .replace(MAP_PAGE_NONCE, getattr(request, "csp_nonce", ""))
                        .replace(MAP_PAGE_PRESS, str(press_unread.MenuBadge(request.user))))


def _map_context(request, found: lookups.CampaignAccess) -> dict:
    campaign = found.campaign
    viewer = visibility.viewer_from(found.role, found.empire.seat if found.empire else None, campaign)
    turn = _int_param(request, "turn")
    if turn == campaign.turn:
        turn = None
    shown = campaign.turn if turn is None else turn
    error = None
    fleets = []
    turns = visibility.past_turns(campaign)
    as_seat = None
    try:
        as_seat, eyes = _as_seat(request, found, viewer)
        fleets = visibility.visible_fleets(campaign, eyes, turn)
    except visibility.HistoryUnavailable as exc:
        error = str(exc)
    query = {"interactive": 1}
    if turn is not None:
        query["turn"] = turn
    if as_seat is not None:
        query["seat"] = as_seat
    empires = list(campaign.empires.order_by("seat"))
    names = {e.seat: e.name for e in empires}
    fleets = [{**f, "owner_name": names.get(f["owner"], f"seat {f['owner']}")} for f in fleets]
    return {
        "campaign": campaign, "viewer": viewer, "error": error,
        "svg_url": reverse("campaign-map-svg", args=[campaign.pk]) + "?" + urlencode(query),
        "shown_turn": shown, "is_current": turn is None, "turns": turns,
        "fleets": fleets, "as_seat": as_seat, "empires": empires,
    }


@login_required
@require_GET
def campaign_reports(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    viewer = visibility.viewer_for(request.user, campaign)
    # The list reads two small columns per turn, never a turn's events, summary or snapshot
    # (issue 33: at turn 53 decoding every turn's JSON was most of the page's time).
    turns = campaign.turns.filter(status=Turn.Status.DONE).order_by("-number").values("number", "processed_at")
    return render(request, "campaign/reports.html", {"campaign": campaign, "viewer": viewer, "turns": turns,
                                                     "empires": campaign.empires.order_by("seat"),
                                                     "outcome": campaign_outcome(campaign)})


@login_required
@require_GET
def campaign_report(request, campaign_id: int, turn: int):
    """A processed turn's report: a player's own (fogged), the moderator's full one or any seat's
    (``?seat=N``)."""
    campaign = _campaign_for(request, campaign_id)
    viewer = visibility.viewer_for(request.user, campaign)
    seat = _seat_param(request, campaign, viewer)
    full = request.GET.get("full") == "1"
    try:
        report = report_for(campaign, turn, request.user, as_seat=seat, full=full)
    except ReportError as exc:
        raise Http404(str(exc)) from None
    numbers = list(campaign.turns.filter(status=Turn.Status.DONE).values_list("number", flat=True))
    context = {
        **report_context(report), "campaign": campaign, "viewer": viewer, "as_seat": seat,
        "previous": max((n for n in numbers if n < turn), default=None),
        "next": min((n for n in numbers if n > turn), default=None),
        "empires": campaign.empires.order_by("seat"),
        "outcome": campaign_outcome(campaign),
    }
    return render(request, "campaign/report.html", context)


@login_required
@require_GET
def campaign_chart_svg(request, campaign_id: int):
    """BP, worlds and ships over turns for the empires the caller may follow."""
    campaign = _campaign_for(request, campaign_id)
    viewer = visibility.viewer_for(request.user, campaign)
    outcome = campaign_outcome(campaign)
    svg = charts.chart_svg(charts.history_series(campaign, viewer), winner=outcome["headline"] if outcome else None)
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Cache-Control"] = "private, no-cache"
    return response


def design_library(request):
    designs = []
    for row in Design.objects.filter(campaign__isnull=True).order_by("bp", "name"):
        design = adapters.design_from_spec(row.spec)
        validate_design(design)
        designs.append({"row": row, "design": design})
    return render(request, "campaign/designs.html", {"designs": designs})
