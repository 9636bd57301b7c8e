"""A CAM scenario's forces as printable record sheets (issue 31 item 4): on the table's rule book
(Buoyz 'N Da 'Hood's SDs, the layer's own) or converted to any other book with a converter for
the CAM layer (``?book=``), one page per ship. The forces are shown once the table is set (CAM
2.3: until then each player's choice stays hidden from the other), to the campaign's players and
moderators only (anyone else: 404)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse

from campaign.access import visible_campaigns
from campaign.cam import adapters
from campaign.cam.models import LAYER, CamScenario, CamShip
from tactical.rules import registry
from tactical.rules.buoyz.play.setup import entry_sd, setup_for
from tactical.rules.eventhorizon import convert as eh_convert


def scenario_setup(campaign, number: int) -> dict:
    """The layer's side of scenario ``number`` (``eventhorizon.convert.cam_setup``); Http404 if
    its table is not set yet."""
    cam = campaign.cam
    row = CamScenario.objects.filter(cam=cam, number=number).first()
    if row is None or row.battle is None:
        raise Http404(f"scenario {number} has no table set yet: its forces are not printed before it is")
    battle = adapters.battle_state(row, adapters.campaign_state(cam))
    roster = dict(CamShip.objects.filter(player__cam=cam).values_list("number", "sd"))
    names = {p.seat: p.name for p in cam.players.all()}
    return eh_convert.cam_setup(battle, adapters.catalogue(cam), roster, names)


def sheets_html(cam_setup: dict, book: str, nonce: str = "", back: tuple[str, str] | None = None) -> str:
    """The sheets on ``book``: Buoyz (the layer's own) straight from the SDs, another through
    its converter; ``back`` (address, words) links back to the scenario on screen. ValueError
    for a book that cannot print the layer's forces."""
    converter = registry.find_converter(LAYER, book)
    if converter is not None:
        return converter.sheets(converter.to_book(cam_setup), nonce=nonce, back=back)
    fleets = {int(seat): [entry_sd(u["sd"]) for u in side["units"] if u.get("sd")]
              for seat, side in cam_setup["sides"].items()}
    names = {int(seat): side["name"] for seat, side in cam_setup["sides"].items()}
    return registry.record_sheets(book, setup_for(fleets, names=names), nonce=nonce, back=back)


@login_required
def scenario_sheets(request, campaign_id: int, number: int):
    campaign = get_object_or_404(visible_campaigns(request.user).filter(layer=LAYER).select_related("cam"),
                                 pk=campaign_id)
    book = request.GET.get("book") or registry.OWN_BOOK[LAYER]
    if book not in registry.books_for(LAYER):
        raise Http404(f"no record sheets on the rule book {book!r} for a CAM scenario")
    back = (reverse("cam-scenario", args=[campaign.pk, number]), f"Back to scenario {number}")
    html = sheets_html(scenario_setup(campaign, number), book, getattr(request, "csp_nonce", ""), back)
    return HttpResponse(html)
