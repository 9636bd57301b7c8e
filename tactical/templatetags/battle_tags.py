"""Battle snippets for other apps' pages (issue 5): the campaign page's "Battles" card, the
moderation panel's disputed battles, and the orders page's battle preference form. Each reads
only what the viewer may see (``visible_battles``)."""

from __future__ import annotations

from django import template

from campaign.access import empire_of
from campaign.models import Turn
from tactical.battles.actions import visible_battles
from tactical.battles.forms import seat_name
from tactical.models import Battle

register = template.Library()


@register.inclusion_tag("tactical/_campaign_battles.html", takes_context=True)
def campaign_battles(context, campaign):
    """The current turn's battles the viewer may see, and a banner while the turn waits for them."""
    user = context["request"].user
    turn = Turn.objects.filter(campaign=campaign, number=campaign.turn).first()
    waiting = turn is not None and turn.status == Turn.Status.BATTLES
    battles = list(visible_battles(user).filter(campaign=campaign, turn=campaign.turn).order_by("index"))
    for b in battles:
        b.side_names = (seat_name(b, b.attacker), seat_name(b, b.defender))
    return {"campaign": campaign, "waiting": waiting, "turn_number": campaign.turn, "battles": battles,
            "any": waiting or battles or visible_battles(user).filter(campaign=campaign).exists()}


@register.inclusion_tag("tactical/_disputed_battles.html", takes_context=True)
def disputed_battles(context, campaign):
    """The moderation panel's list: battles waiting for the moderator (disputed), and the rest of
    the open turn's unresolved battles."""
    user = context["request"].user
    open_ = (
        visible_battles(user)
        .filter(campaign=campaign)
        .exclude(status=Battle.Status.RESOLVED)
        .order_by("turn", "index")
    )
    rows = list(open_)
    for b in rows:
        b.side_names = (seat_name(b, b.attacker), seat_name(b, b.defender))
    return {"campaign": campaign, "disputed": [b for b in rows if b.status == Battle.Status.DISPUTED],
            "others": [b for b in rows if b.status != Battle.Status.DISPUTED]}


@register.inclusion_tag("tactical/_battle_preference.html", takes_context=True)
def battle_preference_form(context, campaign):
    """How the player asks for his battles to be settled; only if the campaign lets players ask."""
    user = context["request"].user
    empire = empire_of(user, campaign) if campaign.battle_requests != "nobody" else None
    choices = empire._meta.get_field("battle_preference").choices if empire else []
    return {"campaign": campaign, "empire": empire, "choices": choices, "csrf_token": context.get("csrf_token"),
            "requests_label": campaign.get_battle_requests_display() if empire else ""}
