"""The dice log page of a campaign of any layer, fog of war applied (docs/dice.md)."""

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render

from campaign.access import visible_campaigns
from campaign.dice import log_reader, shown_rows


@login_required
def dice_log(request, campaign_id: int):
    # Fog of war (docs/rulings.md FW7, C21): a roll made for other empires shows only its place
    # in the chain until the campaign ends.
    campaign = get_object_or_404(visible_campaigns(request.user), pk=campaign_id)
    page = Paginator(campaign.dice_rolls.order_by("seq"), 50).get_page(request.GET.get("page"))
    reader = log_reader(campaign, request.user)
    rows = shown_rows(page, reader)
    names = dict(campaign.empires.values_list("seat", "name"))
    for row in rows:
        row["for_names"] = ["you" if seat == reader.seat else names.get(seat, f"seat {seat}")
                            for seat in row["concerns"] or ()]
    return render(request, "campaign/dice.html", {"campaign": campaign, "page": page, "rows": rows, "reader": reader})
