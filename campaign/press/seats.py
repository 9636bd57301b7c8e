"""The seats of a campaign, as press sees them: asked of the campaign's layer
(``campaign/layers.py``: a record's ``seats``), so that press serves every layer without naming
one — Event Horizon's empires, CAM's fleets."""

from __future__ import annotations

from ..layers import Seat, of

__all__ = ["Seat", "seat_numbers_of_user", "seats_of", "seats_of_user"]


def seats_of(campaign) -> list[Seat]:
    """Every seat of the campaign, in seat order (none if its layer has no seats)."""
    provider = of(campaign).seats
    return list(provider(campaign)) if provider is not None else []


def seats_of_user(campaign, user, all_seats: list[Seat] | None = None) -> list[Seat]:
    if not getattr(user, "is_authenticated", False):
        return []
    return [s for s in (seats_of(campaign) if all_seats is None else all_seats) if s.user_id == user.pk]


def seat_numbers_of_user(user, campaigns) -> dict[int, set[int]]:
    """Campaign id -> the seat numbers ``user`` plays there, for many campaigns: one query per
    layer that answers ``user_seats`` (every layer here does), one per campaign otherwise."""
    by_layer: dict = {}
    for campaign in campaigns:
        by_layer.setdefault(of(campaign), []).append(campaign)
    found: dict[int, set[int]] = {}
    for layer, members in by_layer.items():
        if layer.user_seats is not None:
            found.update(layer.user_seats(user, [c.pk for c in members]))
        elif layer.seats is not None:
            for campaign in members:
                numbers = {s.number for s in seats_of_user(campaign, user)}
                if numbers:
                    found[campaign.pk] = numbers
    return found
