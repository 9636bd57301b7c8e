"""Who may read which press (fog of war for press: docs/press.md).

- A player reads the announcements, the public channel, and the private conversations their
  seat takes part in — nothing else, whatever the URL, API call or email.
- An observer reads the announcements and the public channel.
- A moderator reads the announcements and the public channel, and private messages only if they
  were written while the campaign's ``press_moderator_reads`` option was on (the option does not
  open what was written under the promise of privacy). A moderator who also plays a seat reads
  that seat's conversations as its player does.
- An outsider reads nothing: every look-up answers 404.

Every queryset here starts from the conversations the user may read.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce

from ..access import role_of, visible_campaigns
from ..models import Campaign, Membership
from . import seats as seat_registry
from .models import Conversation, PressMessage, ReadMark

PRESS_OPTION = "press"
MODERATOR_READS_OPTION = "press_moderator_reads"
DEFAULTS = {PRESS_OPTION: True, MODERATOR_READS_OPTION: False}


def press_on(campaign: Campaign) -> bool:
    return bool(campaign.option(PRESS_OPTION, DEFAULTS[PRESS_OPTION]))


def moderator_reads(campaign: Campaign) -> bool:
    return bool(campaign.option(MODERATOR_READS_OPTION, DEFAULTS[MODERATOR_READS_OPTION]))


@dataclass(frozen=True)
class Reader:
    """One user in one campaign, as press sees them."""

    campaign: Campaign
    user: object
    role: str | None
    seats: tuple  # the Seat records this user plays
    all_seats: tuple

    @property
    def is_moderator(self) -> bool:
        return self.role == Membership.Role.MODERATOR

    @property
    def seat(self):
        """The seat this user writes as (the lowest, should they hold more than one)."""
        return self.seats[0] if self.seats else None

    @property
    def seat_numbers(self) -> set[int]:
        return {s.number for s in self.seats}

    def seat_named(self, number: int):
        return next((s for s in self.all_seats if s.number == number), None)

    def can_write(self) -> bool:
        return self.seat is not None

    def can_announce(self) -> bool:
        return self.is_moderator


def reader(campaign: Campaign, user) -> Reader:
    all_seats = tuple(seat_registry.seats_of(campaign))
    return Reader(campaign, user, role_of(user, campaign),
                  tuple(seat_registry.seats_of_user(campaign, user, list(all_seats))), all_seats)


def campaign_for(user, campaign_id: int) -> Campaign | None:
    """The campaign if the user may see it (any layer), else None: callers answer 404."""
    return visible_campaigns(user).filter(pk=campaign_id).first()


def _message_filter(r: Reader, prefix: str = "") -> Q:
    """The messages ``r`` may read (``prefix`` reaches PressMessage from another model)."""
    p = prefix
    public = Q(**{f"{p}conversation__kind__in": [Conversation.Kind.ANNOUNCEMENTS, Conversation.Kind.ALL]})
    allowed = public | Q(**{f"{p}conversation__participants__seat__in": sorted(r.seat_numbers)})
    if r.is_moderator:
        allowed |= Q(**{f"{p}moderator_may_read": True})
    return allowed


def conversations(r: Reader):
    """The conversations ``r`` may open: the public two, their own seats' private ones, and for a
    moderator the private ones holding a message they may read. No outsider gets here."""
    if r.role is None:
        return Conversation.objects.none()
    mine = Q(kind__in=[Conversation.Kind.ANNOUNCEMENTS, Conversation.Kind.ALL]) | Q(
        participants__seat__in=sorted(r.seat_numbers))
    if r.is_moderator:
        mine |= Q(messages__moderator_may_read=True)
    ids = Conversation.objects.filter(campaign=r.campaign).filter(mine).values("pk")
    return Conversation.objects.filter(pk__in=ids)


def messages(r: Reader, conversation: Conversation):
    """The messages of ``conversation`` that ``r`` may read, oldest first."""
    base = PressMessage.objects.filter(conversation=conversation)
    if r.role is None:
        return base.none()
    if conversation.kind != Conversation.Kind.SEATS or r.seat_numbers & set(conversation.seat_numbers):
        return base.order_by("created_at", "number")
    if r.is_moderator:
        return base.filter(moderator_may_read=True).order_by("created_at", "number")
    return base.none()


def _unread(user, allowed: Q):
    """The messages matching ``allowed`` after the user's read mark of their conversation that the
    user did not write."""
    mark = ReadMark.objects.filter(conversation=OuterRef("conversation"), user=user).values("last_read")[:1]
    return (PressMessage.objects.filter(allowed).exclude(author=user)
            .annotate(read_to=Coalesce(Subquery(mark, output_field=IntegerField()), Value(0)))
            .filter(number__gt=F("read_to")))


def unread_counts(r: Reader) -> dict[int, int]:
    """Conversation id -> messages after the user's read mark that they may read and did not
    write (one query)."""
    if r.role is None:
        return {}
    rows = (_unread(r.user, Q(campaign=r.campaign) & _message_filter(r))
            .values("conversation").annotate(n=Count("id", distinct=True)).order_by())
    return {row["conversation"]: row["n"] for row in rows}


def press_campaigns(user):
    """The running or finished campaigns the user takes part in (staff as anyone else: ruling MO8)."""
    if not getattr(user, "is_authenticated", False):
        return Campaign.objects.none()
    return visible_campaigns(user).exclude(status=Campaign.Status.SETUP)  # indexed, no DISTINCT (issue 33)


def unread_by_campaign(user, only=None) -> dict[int, int]:
    """Campaign id -> unread messages, over every campaign of ``press_campaigns`` (those of the ids
    ``only``, when given: a page of the home page's), in a fixed number of queries (the campaigns,
    the moderator memberships, each layer's seats, the count): the same messages as
    ``unread_counts`` of each campaign's reader."""
    co_moderator = Membership.objects.filter(campaign=OuterRef("pk"), user=user, role=Membership.Role.MODERATOR)
    mine = press_campaigns(user) if only is None else press_campaigns(user).filter(pk__in=list(only))
    campaigns = list(mine.only("pk", "layer", "moderator_id").annotate(co_moderates=Exists(co_moderator)))
    if not campaigns:
        return {}
    ids = [c.pk for c in campaigns]
    # Staff are no moderators here (ruling MO8): they count what their own role lets them read.
    moderated = {c.pk for c in campaigns if c.moderator_id == user.pk or c.co_moderates}
    allowed = Q(conversation__kind__in=[Conversation.Kind.ANNOUNCEMENTS, Conversation.Kind.ALL])
    if moderated:
        allowed |= Q(campaign_id__in=sorted(moderated), moderator_may_read=True)
    # One term per seat number held (a handful), not per campaign: the campaigns where the user
    # holds seat N, and a participant of seat N (issue 33: a term per seat held anywhere made the
    # query's building grow with the user's campaigns).
    by_number: dict[int, list[int]] = {}
    for campaign_id, numbers in seat_registry.seat_numbers_of_user(user, campaigns).items():
        for number in numbers:
            by_number.setdefault(number, []).append(campaign_id)
    for number, campaign_ids in sorted(by_number.items()):
        allowed |= Q(campaign_id__in=sorted(campaign_ids), conversation__participants__seat=number)
    rows = (_unread(user, Q(campaign_id__in=ids) & allowed)
            .values("campaign").annotate(n=Count("id", distinct=True)).order_by())
    return {row["campaign"]: row["n"] for row in rows}
