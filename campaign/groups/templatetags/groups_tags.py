"""``{% away_card campaign %}``: the moderators' card of away players on the moderation panel and
the lobby page (campaign/groups/, issue 32); ``{% away_badge campaign %}``: a link to the
campaign's away page naming how many seats are away, for any member."""

from django import template

from .. import away

register = template.Library()


@register.inclusion_tag("groups/_away_card.html")
def away_card(campaign):
    """The moderators' card: the absences with their notes, the away policy, and each webhook's
    state with its last delivery (the log's newest line; the whole log is on the webhooks page)."""
    from ..models import Webhook

    hooks = list(Webhook.objects.filter(campaign=campaign).order_by("pk"))
    for hook in hooks:
        hook.last = hook.deliveries.order_by("-pk").first()
    return {"campaign": campaign, "rows": away.moderator_view(campaign), "mode": away.mode_for(campaign),
            "hooks": hooks}


@register.inclusion_tag("groups/_away_badge.html")
def away_badge(campaign):
    return {"campaign": campaign, "count": len(away.away_now(campaign))}
