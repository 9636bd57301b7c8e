"""Who may see and do what in a campaign. Every page, API view, report and email asks here.

Roles (Membership.role): the moderator (the creator, plus any co-moderators), players (one empire
each) and observers. A site-admin (staff) account has only the roles it holds like anyone else:
it reaches other campaigns through the Django admin (``/admin/``, audited; docs/rulings.md MO8).
An outsider sees nothing: look-ups scoped by ``visible_campaigns`` answer 404, never a hint that
the campaign exists.
"""

from __future__ import annotations

from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce

from .models import Campaign, Empire, Membership


def visible_campaigns(user):
    """Campaigns a user may look at: ones they moderate, play in or observe.

    The three ways in are indexed look-ups on the user's own rows (``moderator_id``; his seats'
    and memberships' ``campaign_id`` as ``IN`` subqueries), with no join and no DISTINCT, so the
    cost follows the user's campaigns, not the site's (issue 33)."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    return Campaign.objects.filter(
        Q(moderator=user)
        | Q(pk__in=Empire.objects.filter(user=user).values("campaign_id"))
        | Q(pk__in=Membership.objects.filter(user=user).values("campaign_id"))
    )


def seats_taken():
    """The number of a campaign's seats (``Empire`` rows), as an annotation: a subquery, not a
    join with GROUP BY, so the count of a paginated list of campaigns leaves it out and counts
    the campaigns alone (issue 33: the join made that count cost every seat of every campaign
    the user is in)."""
    seats = (Empire.objects.filter(campaign=OuterRef("pk")).order_by().values("campaign")
             .annotate(n=Count("pk")))
    return Coalesce(Subquery(seats.values("n")), 0)


def role_of(user, campaign: Campaign) -> str | None:
    """'moderator', 'player', 'observer' or None (an outsider)."""
    if not user.is_authenticated:
        return None
    if campaign.moderator_id == user.pk:
        return Membership.Role.MODERATOR
    roles = set(campaign.memberships.filter(user=user).values_list("role", flat=True))
    if Membership.Role.MODERATOR in roles:
        return Membership.Role.MODERATOR
    if Membership.Role.PLAYER in roles or campaign.empires.filter(user=user).exists():
        return Membership.Role.PLAYER
    if Membership.Role.OBSERVER in roles:
        return Membership.Role.OBSERVER
    return None


def is_moderator(user, campaign: Campaign) -> bool:
    return role_of(user, campaign) == Membership.Role.MODERATOR


def empire_seats(user, campaign_ids) -> dict[int, set[int]]:
    """Campaign id -> the seats of the empires ``user`` plays in these campaigns (one query): the
    ``user_seats`` of the layers whose seats are ``Empire`` rows (campaign/layers.py)."""
    found: dict[int, set[int]] = {}
    for campaign_id, seat in Empire.objects.filter(user=user, campaign_id__in=campaign_ids).values_list(
            "campaign_id", "seat"):
        found.setdefault(campaign_id, set()).add(seat)
    return found


def empire_of(user, campaign: Campaign) -> Empire | None:
    """The empire a user plays in this campaign, if any."""
    if not user.is_authenticated:
        return None
    return campaign.empires.filter(user=user).first()
