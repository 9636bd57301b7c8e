"""Event Horizon's turn emails (issue 26: out of the platform's ``campaign/notifications.py``, which
reaches them through the layer's record, ``CampaignLayer.turn_email`` and ``reminder_email``): a
processed turn's report, the deadline reminders, each with the recipient's orders as text. The
platform decides who gets which and when (``campaign/actions/notifications.py``) and builds the
message (``notifications._message``)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.core.mail import EmailMultiAlternatives

from campaign.models import Campaign, Membership, Turn, TurnOrders
from campaign.notifications import REMINDER_1H, TURN, Recipient, _as_html, _message, page_url, round_label

from . import reports
from .order_text import orders_template


def turn_processed_email(campaign: Campaign, turn: Turn, recipient: Recipient) -> EmailMultiAlternatives:
    """Turn processed: the recipient's own report (fog of war applies: ``campaign.eventhorizon.reports`` builds
    it for this user — a player's shows only what their empire saw; the moderator's is full)."""
    next_turn = Turn.objects.filter(campaign=campaign, number=turn.number + 1).first()
    context = {
        "turn": turn,
        "round": round_label(turn.number),
        "next_turn": next_turn,
        "finished": campaign.status == Campaign.Status.FINISHED,
        "outcome": reports.campaign_outcome(campaign),
        "is_moderator": recipient.role == Membership.Role.MODERATOR,
        "report_text": reports.render_report_text(campaign, turn.number, recipient.user),
        "report_html": _as_html(reports.render_report_html(campaign, turn.number, recipient.user)),
        "report_url": page_url("campaign-report", campaign.pk, turn.number),
        "orders_url": page_url("campaign-orders", campaign.pk),
        "orders_template": _orders_template(campaign, next_turn, recipient),
        "paste_url": page_url("campaign-orders-text", campaign.pk),
    }
    return _message(campaign=campaign, recipient=recipient, kind=TURN, template="turn_processed",
                    subject=f"{round_label(turn.number)} has been processed", context=context)


def _orders_template(campaign: Campaign, next_turn: Turn | None, recipient: Recipient, *, saved: bool = False) -> str:
    """The recipient's orders for the next turn as text (docs/orders.md, "Orders as text"), the
    header filled in with that turn's key: "reply, edit, send" is a valid turn. ``saved``: with
    the orders the player has saved for it so far (a reminder: sent back as it is, it changes
    nothing). Empty for anyone who plays no seat, a computer seat, when no turn is open, and
    while the site takes no mail (MAIL_IN_ENABLED off): the email then offers no answer by mail."""
    empire = recipient.empire
    if (
        not settings.MAIL_IN_ENABLED
        or next_turn is None
        or next_turn.status != Turn.Status.OPEN
        or campaign.status != Campaign.Status.ACTIVE
        or empire is None
        or empire.is_bot
        or empire.eliminated
    ):
        return ""
    empire.campaign = campaign
    row = TurnOrders.objects.filter(turn=next_turn, empire=empire).first() if saved else None
    return orders_template(empire, next_turn.number, row=row)


def reminder_email(
    campaign: Campaign, turn: Turn, recipient: Recipient, kind: str, now: datetime
) -> EmailMultiAlternatives:
    left = turn.deadline - now
    hours = "1 hour" if kind == REMINDER_1H else "24 hours"
    context = {
        "turn": turn,
        "round": round_label(turn.number),
        "deadline": turn.deadline,
        "left": left,
        "within": hours,
        "minutes_left": max(0, int(left.total_seconds() // 60)),
        "orders_url": page_url("campaign-orders", campaign.pk),
        "orders_template": _orders_template(campaign, turn, recipient, saved=True),
        "paste_url": page_url("campaign-orders-text", campaign.pk),
    }
    return _message(campaign=campaign, recipient=recipient, kind=kind, template="reminder",
                    subject=f"orders for {round_label(turn.number)} are due within {hours}", context=context)
