"""Orders as text on the web: the "paste orders" page beside the orders page, and the page of
the seat's order secret (docs/orders.md, "Orders as text"). Thin: the one checker
(``eh_actions.submit_text_orders``) does the work, as it does for the API and mail.
"""
from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache

from campaign.eventhorizon import actions as eh_actions
from campaign.models import Turn, TurnOrders
from campaign.rules.eventhorizon.textorders import parse_text

from ..order_text import orders_template
from .orders import _campaign_for, _player


class PasteForm(forms.Form):
    text = forms.CharField(
        label="Orders as text", max_length=eh_actions.MAX_TEXT_CHARS, strip=False,
        widget=forms.Textarea(attrs={"rows": 18, "spellcheck": "false", "class": "mono paste-orders",
                                     "autocapitalize": "off", "autocomplete": "off"}),
        help_text="From #SECTOR to #END, one order a line; text before the header and lines quoted with '>' "
                  "are ignored.",
    )


def header_refusal(text: str, campaign, empire) -> str | None:
    """On the web and the API the header must name the caller's own seat in this campaign (mail
    has no caller but the secret)."""
    header = parse_text(text).header
    if header is not None and (header.campaign != campaign.pk or header.seat != empire.seat):
        return (f"the header names campaign {header.campaign} seat {header.seat}, but this page is for "
                f"campaign {campaign.pk} seat {empire.seat}")
    return None


@login_required
@never_cache
def paste_orders(request, campaign_id: int):
    campaign = _campaign_for(request, campaign_id)
    empire = _player(request, campaign)
    result = None
    if request.method == "POST":
        form = PasteForm(request.POST)
        if form.is_valid():
            text = form.cleaned_data["text"]
            refusal = header_refusal(text, campaign, empire)
            if refusal:
                form.add_error("text", refusal)
            else:
                result = eh_actions.submit_text_orders(text, received_at=timezone.now(), via="web")
                if result.accepted:
                    form = PasteForm(initial={"text": result.stored_text})
    else:
        row = TurnOrders.objects.filter(empire=empire, turn__campaign=campaign, turn__number=campaign.turn).first()
        form = PasteForm(initial={"text": orders_template(empire, campaign.turn, row=row)})
    turn = Turn.objects.filter(campaign=campaign, number=campaign.turn).first()
    return render(request, "orders/paste.html", {
        "campaign": campaign, "empire": empire, "form": form, "result": result, "turn": turn,
        "open": turn is not None and turn.status == Turn.Status.OPEN,
        "secret_made": eh_actions.order_secret_made(empire),
    })


@login_required
@never_cache
def order_secret(request, campaign_id: int):
    """The seat's order secret: when it was made, and a button that makes a new one, shown once."""
    campaign = _campaign_for(request, campaign_id)
    empire = _player(request, campaign)
    secret = None
    if request.method == "POST":
        secret = eh_actions.rotate_order_secret(empire_id=empire.pk, user=request.user)
    return render(request, "orders/secret.html", {
        "campaign": campaign, "empire": empire, "secret": secret, "made": eh_actions.order_secret_made(empire),
        "example": f"#SECTOR {campaign.pk} {empire.seat} {secret or '<your order secret>'} TURN {campaign.turn}",
    })
