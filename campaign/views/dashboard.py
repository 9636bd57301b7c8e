"""The home page's "My campaigns": each campaign the user is in, with what he needs to act on.

Read-only: a fixed number of queries whatever the number of campaigns (tests/campaign/test_home.py counts
them), every row built from what the user may see (``access.visible_campaigns``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.core.paginator import Page, Paginator
from django.db.models import Count, F, Q

from .. import battles, layers
from ..access import seats_taken, visible_campaigns
from ..models import Campaign, Empire, Membership, Turn, TurnOrders


@dataclass
class ReadyMark:
    name: str
    ready: bool
    computer: bool


@dataclass
class CampaignRow:
    campaign: Campaign
    role: str                      # moderator / player / observer
    url: str
    layer: str                     # the layer's title: "Event Horizon", "CAM rubber"
    turn: Turn | None = None
    deadline: datetime | None = None
    empire: Empire | None = None
    orders: str = ""               # "ready", "saved", "none" (a player's orders for the open turn)
    battles: list = field(default_factory=list)   # battles waiting for this user
    ready: list[ReadyMark] | None = None            # None: hidden by the campaign's settings
    winner: str = ""
    no_winner: str = ""            # the layer's words for a finished campaign without a winner
    seat_name: str = ""            # the name of the user's seat, for a layer without empires ("Bob's Squadron")
    players: int = 0
    summary: str = ""              # the layer's line: "30×24 hex", "Period 2 · 5 scenarios"
    status: str | None = None      # the layer's status, when it says more than the campaign's ("Setting up")
    step: str = ""                 # what a campaign without turns waits for now
    press_unread: int = 0          # press messages the user has not read yet

    @property
    def taking_orders(self) -> bool:
        # A pause stops the clock, not the orders: players still write them (their layer's orders action
        # takes them), and nothing is processed until the moderator resumes (issue 23 item 19).
        return self.turn is not None and self.turn.status == Turn.Status.OPEN


def _role(user, campaign: Campaign, memberships: dict, empires: dict) -> str:
    if campaign.moderator_id == user.pk:  # the user's own roles only, staff or not (issue 23 item 3)
        return Membership.Role.MODERATOR
    roles = memberships.get(campaign.pk, set())
    if Membership.Role.MODERATOR in roles:
        return Membership.Role.MODERATOR
    if Membership.Role.PLAYER in roles or campaign.pk in empires:
        return Membership.Role.PLAYER
    return Membership.Role.OBSERVER


def _url(campaign: Campaign) -> str:
    from django.urls import reverse

    if campaign.status == Campaign.Status.SETUP:
        return reverse("lobby-detail", args=[campaign.pk])
    return reverse(layers.of(campaign).detail_url, args=[campaign.pk])


PER_PAGE = 10  # cards on one page of "My campaigns"


def _mine(user):
    return (visible_campaigns(user).select_related("moderator", "winner")
            .annotate(players=seats_taken()).order_by("-created_at", "-id"))


def my_campaigns_page(user, number=None) -> tuple[list[CampaignRow], Page]:
    """One page of ``my_campaigns`` and the page (its number, the count, the links): what the
    home page draws costs the same whatever the number of the user's campaigns (issue 33). Any
    ``number`` is taken: not a number gives the first page, one past the end the last."""
    page = Paginator(_mine(user), PER_PAGE).get_page(number)
    return _rows(user, list(page.object_list), every=not page.has_other_pages()), page


def my_campaigns(user) -> list[CampaignRow]:
    """Every campaign the user moderates, plays or observes, newest first."""
    return _rows(user, list(_mine(user)))


def _rows(user, campaigns: list[Campaign], every: bool = True) -> list[CampaignRow]:
    if not campaigns:
        return []
    ids = [c.pk for c in campaigns]
    memberships: dict[int, set] = {}
    for campaign_id, role in Membership.objects.filter(user=user, campaign_id__in=ids).values_list(
        "campaign_id", "role"
    ):
        memberships.setdefault(campaign_id, set()).add(role)
    mine = {e.campaign_id: e for e in Empire.objects.filter(user=user, campaign_id__in=ids)}
    turns = {t.campaign_id: t for t in Turn.objects.filter(campaign_id__in=ids, number=F("campaign__turn"))}
    orders = {(o.turn_id, o.empire_id): o.ready
              for o in TurnOrders.objects.filter(turn__in=list(turns.values())).only("turn_id", "empire_id", "ready")}
    seats: dict[int, list[Empire]] = {}
    for empire in Empire.objects.filter(campaign_id__in=ids).order_by("seat"):
        seats.setdefault(empire.campaign_id, []).append(empire)

    facts = layers.home_facts(campaigns)
    rows = []
    for campaign in campaigns:
        role = _role(user, campaign, memberships, mine)
        layer = layers.of(campaign)
        fact = facts[campaign.pk]
        row = CampaignRow(campaign=campaign, role=role, url=_url(campaign), layer=layer.title,
                          players=fact.players, summary=fact.summary, status=fact.status, step=fact.step,
                          deadline=fact.deadline, winner=fact.winner, no_winner=fact.no_winner,
                          seat_name=fact.seat_names.get(user.pk, ""))
        if campaign.winner_id:
            row.winner = campaign.winner.name
        turn = turns.get(campaign.pk)
        if layer.has("orders") and turn is not None and campaign.status == Campaign.Status.ACTIVE:
            row.turn = turn
            row.deadline = None if campaign.paused else turn.deadline
            empire = mine.get(campaign.pk)
            if empire is not None and role == Membership.Role.PLAYER:
                row.empire = empire
                state = orders.get((turn.pk, empire.pk))
                row.orders = "none" if state is None else ("ready" if state else "saved")
            if role == Membership.Role.MODERATOR or campaign.show_ready:
                row.ready = [ReadyMark(name=e.name, ready=bool(orders.get((turn.pk, e.pk))),
                                       computer=e.is_bot or e.auto_bot)
                             for e in seats.get(campaign.pk, []) if not e.eliminated]
        rows.append(row)

    _attach_battles(rows)
    _attach_press(rows, user, every)
    return rows


def _attach_press(rows: list[CampaignRow], user, every: bool) -> None:
    """Each campaign's unread press (a fixed number of queries, campaign/press/visibility.py):
    counted over the rows' campaigns only when they are not all the user's (a page of them)."""
    from ..press import unread

    counts = unread.by_campaign(user) if every else unread.by_campaign(user, [row.campaign.pk for row in rows])
    for row in rows:
        row.press_unread = counts.get(row.campaign.pk, 0)


def _attach_battles(rows: list[CampaignRow]) -> None:
    """Battles that wait for the user: his side's battles not yet resolved (to fight, deploy,
    enter or confirm), and for a moderator the disputed ones (one query, campaign/battles.py)."""
    seats = {row.campaign.pk: row.empire.seat for row in rows if row.empire is not None}
    moderated = [row.campaign.pk for row in rows if row.role == Membership.Role.MODERATOR]
    by_campaign = battles.handler().unresolved_battles(seats, moderated)
    for row in rows:
        row.battles = by_campaign.get(row.campaign.pk, [])


def open_campaigns(user, limit: int = 20) -> list[Campaign]:
    """Campaigns in the lobby that their moderators listed, that still have a free seat, and that
    the user is not in yet; each is joined through its invitation link."""
    if not user.is_authenticated:
        return []
    return list(
        Campaign.objects.filter(status=Campaign.Status.SETUP, listed=True).exclude(invite_token="")
        .exclude(Q(moderator=user) | Q(memberships__user=user))
        .annotate(players=Count("memberships", filter=Membership.seated("memberships__"), distinct=True))
        .filter(players__lt=F("seats"))
        .select_related("moderator").order_by("-created_at", "-id")[:limit]
    )
