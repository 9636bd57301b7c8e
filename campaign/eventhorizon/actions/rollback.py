"""Event Horizon's roll-back (issue 26: out of the platform's ``campaign/actions/moderation.py``):
``roll_back_turn``, the layer's roll-back, which its record
(``layer.roll_back``) gives the platform's ``roll_back_step`` and the moderation pages. Atomic,
the campaign row locked first, audited like every moderator's action."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from campaign import battles, locks, notifications
from campaign.actions.errors import ActionError, StaleTurn
from campaign.actions.moderation import _audit, _moderated_campaign
from campaign.actions.notifications import _send_once
from campaign.models import Campaign, Turn
from campaign.rules.eventhorizon.setup import SETUP_TURN

from .. import snapshots


@transaction.atomic
def roll_back_turn(*, campaign_id: int, user, turn_number: int | None = None) -> Turn:
    """Undo the last processed turn: the campaign returns exactly to its state before it (from
    ``Turn.snapshot``), the dice log is cut back to where it stood (docs/dice.md, "Roll-back"),
    the next turn and its orders go, and the turn is open again with the orders it had. The
    campaign is left paused, so nothing is processed until the moderator resumes (players then
    get a full turn) or processes it now. ``turn_number``, when given, must be that last turn
    (a confirmation page sends it, so a turn processed meanwhile is not undone by mistake).
    A finished campaign's final turn can be rolled back: the campaign reopens."""
    campaign = _moderated_campaign(campaign_id, user, doing="roll back a turn", feature="process_now")
    last = locks.rows(Turn.objects.filter(
        campaign=campaign, status__in=[Turn.Status.DONE, Turn.Status.BATTLES])).order_by("-number").first()
    if last is None:
        raise ActionError("no turn has been processed yet: there is nothing to roll back")
    if turn_number is not None and turn_number != last.number:
        raise StaleTurn(f"only the last processed turn ({last.number}) can be rolled back, not turn {turn_number}; "
                        f"the current turn is {campaign.turn}")
    later = list(Turn.objects.filter(campaign=campaign, number__gt=last.number).values_list("number", "status"))
    # A turn waiting for its battles has no next turn yet; rolling it back discards its battles.
    expected = [] if campaign.status == Campaign.Status.FINISHED or last.status == Turn.Status.BATTLES \
        else [(last.number + 1, Turn.Status.OPEN)]
    if later != expected or campaign.status == Campaign.Status.SETUP:
        raise ActionError(f"turn {last.number} can no longer be rolled back: the campaign has moved on since")
    if not last.snapshot:
        raise ActionError(
            f"turn {last.number} was processed before turns were snapshotted, so it cannot be rolled back"
        )
    before = {"turn": campaign.turn, "status": campaign.status, "winner": campaign.winner_id,
              "dice_offset": campaign.dice_offset, "processed_at": last.processed_at}
    before["battles"] = battles.handler().discard_battles(campaign, last.number)  # their steps and logs too
    try:
        undone = snapshots.restore(campaign, last.snapshot)
    except snapshots.SnapshotError as exc:
        raise ActionError(f"turn {last.number} cannot be rolled back: {exc}") from None
    campaign.paused = True
    hours = campaign.setup_hours if last.number == SETUP_TURN else campaign.turn_hours  # the round reopened
    campaign.paused_remaining = timedelta(hours=hours) if hours else None
    campaign.save(update_fields=["paused", "paused_remaining"])
    dice = undone["dice"]
    # The deleted rolls are kept whole in the entry: they still chain from the remaining log, so
    # anyone can check later that what was undone was genuine (docs/dice.md, "Roll-back").
    before["dice_rolls"] = dice.pop("rows")
    _audit(
        campaign,
        user,
        "roll_back",
        f"turn {last.number}",
        before,
        {
            "turn": campaign.turn,
            "status": campaign.status,
            "dice_offset": campaign.dice_offset,
            "paused": True,
            **undone,
        },
        note=(
            f"Dice log truncated after roll #{dice['after_seq']}: {dice['deleted']} roll(s) deleted"
            + (
                f" (#{dice['first_seq']}–#{dice['last_seq']}, last hash {dice['last_hash']})"
                if dice["deleted"]
                else ""
            )
            + "; re-processing the turn re-rolls the same dice."
        ),
    )
    _notify_roll_back(campaign, last.number, user, later_orders=undone.get("discarded_orders") or 0)
    return Turn.objects.get(pk=last.pk)


def _notify_roll_back(campaign: Campaign, turn_number: int, user, *, later_orders: int) -> int:
    """Tell everyone in the campaign but the moderator who did it that a turn was rolled back
    (issue 13 item 17): once per roll-back, on commit. The caller holds the campaign row lock."""
    candidates = [
        (r, lambda r=r: notifications.rollback_email(campaign, turn_number, r, paused=campaign.paused,
                                                     later_orders=later_orders))
        for r in notifications.recipients(campaign)
        if r.wants("turn") and (user is None or r.user.pk != user.pk) and not (r.empire and r.empire.is_bot)
    ]
    kind = notifications.kind_key(notifications.ROLLBACK, notifications.stamp(timezone.now()))
    return _send_once(campaign, kind, turn_number, candidates)
