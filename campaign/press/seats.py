"""The seats of a campaign, as press sees them: a number, the name the other players know it by,
and who plays it.

The platform does not know every campaign layer (tests/test_architecture.py): a layer whose seats
are not the platform's ``Empire`` rows registers a provider here when Django starts (CAM does in
``campaign/cam/apps.py``), as ``tactical`` registers its battle handler in ``campaign/battles.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Seat:
    number: int
    name: str
    user_id: int | None
    bot: bool = False

    @property
    def label(self) -> str:
        return f"{self.name} (seat {self.number})"


Provider = Callable[[object], list[Seat]]
_PROVIDERS: dict[str, Provider] = {}


def register(layer: str, provider: Provider) -> None:
    """``provider(campaign)`` lists the seats of a campaign of ``layer``, in seat order."""
    _PROVIDERS[layer] = provider


def _empire_seats(campaign) -> list[Seat]:
    return [Seat(seat, name, user_id, is_bot)
            for seat, name, user_id, is_bot in campaign.empires.order_by("seat").values_list(
                "seat", "name", "user_id", "is_bot")]


def seats_of(campaign) -> list[Seat]:
    """Every seat of the campaign (the platform's empires unless the layer registered its own)."""
    return _PROVIDERS.get(campaign.layer, _empire_seats)(campaign)


def seats_of_user(campaign, user, all_seats: list[Seat] | None = None) -> list[Seat]:
    if not getattr(user, "is_authenticated", False):
        return []
    return [s for s in (seats_of(campaign) if all_seats is None else all_seats) if s.user_id == user.pk]
