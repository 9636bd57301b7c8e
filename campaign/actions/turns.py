"""The platform's turn helpers (``Turn`` is a platform table): the open turn, its everyone-ready
mark, and when a turn or the set-up round opened now must be in. Processing a turn is its layer's:
Event Horizon's, with its due-turn sweep, is in ``campaign/eventhorizon/actions/turns.py`` (issue
26), reached through its record (``CampaignLayer.process_turn``, ``due_steps``, ``process_due``:
campaign/layers.py).
"""
from __future__ import annotations

from django.utils import timezone

from .. import locks
from ..models import Campaign, Turn, TurnOrders
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



def _all_humans_ready(turn: Turn) -> bool:
    humans = set(turn.campaign.empires.filter(eliminated=False, is_bot=False).values_list("pk", flat=True))
    ready = set(TurnOrders.objects.filter(turn=turn, ready=True).values_list("empire_id", flat=True))
    return bool(humans) and humans <= ready


def _note_everyone_ready(turn: Turn) -> bool:
    """Whether every human seat is ready for ``turn``, stored on the turn (``Turn.everyone_ready``)
    when it changed: what the due sweep looks up instead of reading every open turn (issue 33).
    The caller holds the turn row's lock (campaign/locks.py: level 2), as every path that changes a
    seat's readiness or whether a human plays it does (Event Horizon's order and ready actions, a
    seat taken back from the computer, a resume, an away seat; the moderator's substitution)."""
    ready = _all_humans_ready(turn)
    if ready != turn.everyone_ready:
        Turn.objects.filter(pk=turn.pk).update(everyone_ready=ready)
        turn.everyone_ready = ready
    return ready


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
