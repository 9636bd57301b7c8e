"""The refusals every action raises: ``ActionError`` and its kinds (HTTP 400/403/404/409/429).
"""
from __future__ import annotations

from ..models import Campaign, Turn
from ..rules.eventhorizon.orders import OrderError


class ActionError(ValueError):
    """A refused action; the message names the problem. Nothing was changed."""


class OrdersRefused(ActionError):
    """Orders with problems: ``problems`` lists every one (where, rule, message), the message
    all of them, one a line."""

    def __init__(self, error: OrderError):
        super().__init__(str(error))
        self.problems = [p.as_dict() for p in error.problems]


class TurnClosed(ActionError):
    """Orders arrived for a turn that is no longer taking them (HTTP 409)."""


class StaleTurn(TurnClosed):
    """A "do it now" request named a turn that is not the one it would act on: processed
    meanwhile, not open yet, or rolled back (HTTP 409). The message names the current turn."""


def _stale_turn(campaign: Campaign, asked: int, doing: str) -> StaleTurn:
    """Issue 14: every "do it now" request names its turn, so a double click or a retried request
    acts once. This is the refusal of the repeat, naming where the campaign is now."""
    turn = Turn.objects.filter(campaign=campaign, number=campaign.turn).first()
    where = f"turn {campaign.turn}" + (f" ({turn.get_status_display().lower()})" if turn is not None else "")
    if campaign.status == Campaign.Status.FINISHED:
        where = f"the campaign has finished (last turn {campaign.turn})"
    elif campaign.status != Campaign.Status.ACTIVE:
        where = f"the campaign is {campaign.get_status_display().lower()}"
    else:
        where = f"the current turn is {where}"
    if asked < campaign.turn:
        return StaleTurn(f"cannot {doing} turn {asked}: it has been processed already; {where}")
    if asked > campaign.turn:
        return StaleTurn(f"cannot {doing} turn {asked}: there is no such turn yet; {where}")
    return StaleTurn(f"cannot {doing} turn {asked}: it is not open; {where}")


class NotAllowed(ActionError):
    """The user's role in the campaign does not allow this (pages and the API answer 403)."""


class NotFound(ActionError):
    """No such campaign, member or invitation for this user (pages and the API answer 404)."""


class TooMany(ActionError):
    """Over a rate limit (pages show it as a form error, the API answers 429). ``retry_after``:
    seconds until one more is allowed."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after
