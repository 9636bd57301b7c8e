"""The platform's turn helpers (``Turn`` is a platform table): the open turn, and when a turn or
the set-up round opened now must be in. Processing a turn is its layer's: Event Horizon's, with its
due-turn sweep, is in ``campaign/eventhorizon/actions/turns.py`` (issue 26), reached through its
record (``CampaignLayer.process_turn``, ``due_steps``, ``process_due``: campaign/layers.py).
"""
from __future__ import annotations

from django.utils import timezone

from .. import locks
from ..models import Campaign, Turn
from ..notifications import round_label
from .errors import TurnClosed


def _open_turn(campaign: Campaign, *, lock: bool) -> Turn:
    """The campaign's open turn; ``lock`` takes its row (locking order: the caller took the
    campaign row first if it needs it, campaign/locks.py)."""
    turn = locks.turn(campaign.pk, campaign.turn) if lock else Turn.objects.filter(
        campaign=campaign, number=campaign.turn).first()
    if turn is None or turn.status != Turn.Status.OPEN or campaign.status != Campaign.Status.ACTIVE:
        raise TurnClosed(f"{round_label(campaign.turn)} is not taking orders")
    return turn



def turn_deadline(campaign: Campaign, now=None):
    """When a turn opened now must be in: ``turn_hours`` from now, or None (no deadline)."""
    from datetime import timedelta

    if not campaign.turn_hours:
        return None
    return (now or timezone.now()) + timedelta(hours=campaign.turn_hours)


def setup_deadline(campaign: Campaign, now=None):
    """When the set-up round opened now closes: ``setup_hours`` from now, or None."""
    from datetime import timedelta

    if not campaign.setup_hours:
        return None
    return (now or timezone.now()) + timedelta(hours=campaign.setup_hours)
