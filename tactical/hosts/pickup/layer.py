"""The ``"pickup"`` campaign layer: the host of a pickup battle (docs/battles.md, "Pickup
battles"), registered by ``TacticalConfig.ready()``.

A pickup battle needs what every online battle gets from its campaign row — the dice seed, the
hash-chained dice log (``/campaigns/<id>/dice/``), the seats and their players, the activation
hours — and nothing else. Its host campaign takes part in no platform feature (no lobby,
moderation, orders, …: every such page answers 404 for it), its page is the pickup battle's page,
the home page lists it with what it waits for, and the site menu links its list ("Battles").
"""

from __future__ import annotations

from django import forms

from campaign.access import empire_seats
from campaign.layers import CampaignLayer, HomeFacts, Seat, Step
from campaign.models import Campaign

KEY = "pickup"


class _NoLobby(forms.Form):
    pass


def _refuse(*args, **kwargs):
    from campaign.actions.errors import NotFound

    raise NotFound("a pickup battle has no lobby, turns or moderation")


def current_step(campaign: Campaign, *, lock: bool = False) -> Step:
    return Step(number=1, label="the battle", deadline=None, open=False)


def battle_page(battle) -> dict:
    """The pickup battle's title on its play, replay and battle pages (tactical/play/kinds.py
    ``HOST_PAGES``): its pickup number and rule book, back to its pickup page; its end leads to
    nothing more (the battle is the whole game)."""
    from django.urls import reverse

    from tactical.rules.registry import RESOLVERS

    pickup = battle.campaign.pickup
    book = RESOLVERS[battle.ruleset].title if battle.ruleset in RESOLVERS else battle.ruleset
    return {"title": f"Pickup battle {pickup.pk}", "subtitle": book,
            "back_url": reverse("pickup-detail", args=[pickup.pk]), "back_label": battle.campaign.name,
            "after_end": ""}


def home_facts(campaigns: list[Campaign]) -> dict[int, HomeFacts]:
    from django.db.models import Count, Q

    from campaign.models import Empire
    from tactical.models import PickupBattle

    rows = {p.campaign_id: p for p in PickupBattle.objects.filter(campaign__in=campaigns)}
    held = dict(Empire.objects.filter(campaign__in=campaigns).filter(Q(user__isnull=False) | Q(is_bot=True))
                .order_by().values("campaign_id").annotate(n=Count("id")).values_list("campaign_id", "n"))
    out = {}
    for c in campaigns:
        p = rows.get(c.pk)
        if p is None:
            out[c.pk] = HomeFacts(players=0)
            continue
        from tactical.rules.registry import RESOLVERS

        from .books import BOOKS

        unit = BOOKS[p.ruleset].unit if p.ruleset in BOOKS else "points"
        title = RESOLVERS[p.ruleset].title if p.ruleset in RESOLVERS else p.ruleset
        out[c.pk] = HomeFacts(players=held.get(c.pk, 1),
                              summary=f"{title} · {p.points} {unit}", status=p.get_status_display())
    return out


def seats(campaign: Campaign) -> list[Seat]:
    return [Seat(e.seat, e.name, e.user_id, e.is_bot) for e in campaign.empires.order_by("seat")]


RECORD = CampaignLayer(
    key=KEY,
    title="Pickup battle",
    description="One battle under any rule book with online play, without a campaign.",
    detail_url="pickup-host",
    pages=("pickup-host",),
    features=frozenset(),
    lobby_form=_NoLobby,
    create_lobby=_refuse,
    check_join=_refuse,
    start=_refuse,
    start_points=lambda campaign, players: [],
    current_step=current_step,
    set_deadline=_refuse,
    roll_back=_refuse,
    roll_back_preview=lambda campaign: None,
    home_facts=home_facts,
    panel=lambda campaign: {},
    panel_template="",
    seats=seats,
    user_seats=empire_seats,
    menu=("Battles", "pickup-list"),
)
