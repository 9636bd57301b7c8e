"""Notifications: preferences, unsubscribe, turn emails, deadline reminders, moderator and
battle notices.

Emails are decided and recorded (SentNotification, unique per campaign, user, kind and turn) in
one transaction that holds the campaign row lock, and sent when it commits. Texts and
recipients: campaign/notifications.py.
"""
from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from .. import layers, locks
from ..models import Campaign, Membership, Turn, TurnOrders
from .errors import ActionError

NOTIFICATION_FIELDS = ("notify_turn", "notify_reminders", "notify_battles", "notify_press")


def _membership_of(campaign: Campaign, user) -> Membership:
    """The user's membership, created on first use for a player or moderator who has none (a
    campaign made by create_campaign with Empire.user set has no Membership rows)."""
    from ..access import empire_of, role_of

    membership = locks.rows(Membership.objects.filter(campaign=campaign, user=user)).first()
    if membership is not None:
        return membership
    role = role_of(user, campaign)
    if role is None:
        raise ActionError("you are not in this campaign")
    empire = empire_of(user, campaign) if role == Membership.Role.PLAYER else None
    if empire is not None and Membership.objects.filter(empire=empire).exists():
        empire = None
    # get_or_create settles a race between two first uses (unique campaign and user).
    membership, _ = Membership.objects.get_or_create(
        campaign=campaign, user=user, defaults={"role": role, "empire": empire}
    )
    return locks.rows(Membership.objects.filter(pk=membership.pk)).get()


@transaction.atomic
def set_notification_preferences(*, campaign_id: int, user, **changes) -> Membership:
    """Switch a member's emails on or off: notify_turn, notify_reminders, notify_battles,
    notify_press (any subset; the others keep their value)."""
    unknown = sorted(set(changes) - set(NOTIFICATION_FIELDS))
    if unknown:
        raise ActionError(f"unknown notification preference(s): {', '.join(unknown)}; "
                          f"use {', '.join(NOTIFICATION_FIELDS)}")
    for name, value in changes.items():
        if not isinstance(value, bool):
            raise ActionError(f"{name} must be true or false, not {value!r}")
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise ActionError("no such campaign")
    membership = _membership_of(campaign, user)
    for name, value in changes.items():
        setattr(membership, name, value)
    if changes:
        membership.save(update_fields=list(changes))
    return membership


@transaction.atomic
def unsubscribe(*, token: str) -> tuple[Membership, str]:
    """Follow an email's unsubscribe link (no login): switch that kind of email off. Returns the
    membership and the preference name ('turn', 'reminders', 'battles' or 'press')."""
    from django.contrib.auth import get_user_model

    from .. import notifications

    try:
        user_id, campaign_id, preference = notifications.read_unsubscribe_token(token)
    except notifications.BadToken as exc:
        raise ActionError(str(exc)) from None
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or not Campaign.objects.filter(pk=campaign_id).exists():
        raise ActionError("this unsubscribe link is no longer valid: the account or campaign is gone")
    membership = set_notification_preferences(
        campaign_id=campaign_id, user=user, **{notifications.PREFERENCES[preference]: False}
    )
    return membership, preference


@transaction.atomic
def notify_moderators(*, campaign_id: int, turn: int, text: str) -> int:
    """Email the campaign's moderators that something needs their decision (a disputed battle
    result). Sent once per (turn, text); callable inside another action's transaction."""
    from .. import notifications

    text = (text or "").strip()
    if not text:
        raise ActionError("a moderator notification needs a text")
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()
    if campaign is None:
        raise ActionError("no such campaign")
    candidates = [
        (r, lambda r=r: notifications.battle_email(campaign, turn, r, text))
        for r in notifications.recipients(campaign)
        if r.role == Membership.Role.MODERATOR and r.wants("battles")
    ]
    kind = notifications.kind_key(notifications.BATTLE, notifications.battle_digest(0, "moderators: " + text))
    return _send_once(campaign, kind, turn, candidates)


def _send_once(campaign: Campaign, kind: str, turn_number: int, candidates) -> int:
    """Record and queue the emails of one kind about one turn, skipping any already recorded.

    ``candidates`` are (recipient, build) pairs, build() making the message. The caller holds the
    campaign row lock, so concurrent senders for the campaign run one after another and the second
    finds the first one's rows; the unique constraint backs this up (a conflict rolls everything
    back and nothing is sent). Messages go out only when the transaction commits."""
    from .. import notifications
    from ..models import SentNotification

    candidates = [(r, build) for r, build in candidates if r.user.email]
    if not candidates:
        return 0
    done = set(SentNotification.objects.filter(
        campaign=campaign, kind=kind, turn=turn_number, user__in=[r.user.pk for r, _ in candidates]
    ).values_list("user_id", flat=True))
    messages, rows = [], []
    for recipient, build in candidates:
        if recipient.user.pk in done:
            continue
        messages.append(build())
        rows.append(SentNotification(campaign=campaign, user=recipient.user, kind=kind, turn=turn_number))
    SentNotification.objects.bulk_create(rows)
    if messages:
        transaction.on_commit(lambda: notifications.deliver(messages), robust=True)
    return len(messages)


def send_started_notifications(*, campaign: Campaign) -> int:
    """Email each human player that the campaign has started and its first round (the set-up
    round) is open, once (issue 23 item 7). The caller (the layer's start) holds the campaign row
    lock and the transaction; the emails go out on commit."""
    from .. import notifications

    turn = Turn.objects.filter(campaign=campaign, number=campaign.turn).first()
    if turn is None:
        return 0
    candidates = [(r, lambda r=r: notifications.started_email(campaign, turn, r))
                  for r in notifications.recipients(campaign)
                  if r.empire is not None and not r.empire.is_bot and r.wants("turn")]
    kind = notifications.kind_key(notifications.STARTED, notifications.stamp(turn.opened_at))
    return _send_once(campaign, kind, turn.number, candidates)


def enqueue_turn_notifications(campaign_id: int, turn_number: int) -> None:
    """Queue the "turn processed" emails (process_turn calls this on commit)."""
    from ..tasks import send_turn_notifications

    send_turn_notifications.delay(campaign_id, turn_number)


@transaction.atomic
def send_turn_notifications(*, campaign_id: int, turn_number: int) -> int:
    """Email each player their own report of a processed turn and each moderator the full one,
    once (per processing of the turn). Returns the number of emails queued."""
    from .. import notifications

    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()
    if campaign is None:
        return 0
    turn = Turn.objects.filter(campaign=campaign, number=turn_number, status=Turn.Status.DONE).first()
    if turn is None or turn.processed_at is None:
        return 0  # not processed (or rolled back since): nothing to report
    turn_email = layers.of(campaign).turn_email
    if turn_email is None:
        return 0  # a layer whose turns send no report
    before = Turn.objects.filter(campaign=campaign, number=turn_number - 1).values_list("summary", flat=True).first()
    candidates = []
    for recipient in notifications.recipients(campaign):
        if not recipient.wants("turn"):
            continue
        if recipient.empire is not None and (before or {}).get(str(recipient.empire.seat), {}).get("eliminated"):
            continue  # eliminated in an earlier turn: nothing left to report
        candidates.append((recipient, lambda r=recipient: turn_email(campaign, turn, r)))
    kind = notifications.kind_key(notifications.TURN, notifications.stamp(turn.processed_at))
    return _send_once(campaign, kind, turn_number, candidates)


def send_deadline_reminders(*, now=None) -> int:
    """Remind players who have not marked ready that their orders are due within 24 hours, and
    again within the hour (the beat sweep; each turn in its own transaction). Nothing while a
    campaign is paused. A reminder is skipped when the turn opened inside its window: players
    learned the deadline less than that long ago. Then every campaign layer's own reminders, through
    its record (``CampaignLayer.send_reminders``). Returns the number of emails queued."""
    from datetime import timedelta

    now = now or timezone.now()
    due = Turn.objects.filter(
        status=Turn.Status.OPEN, deadline__gt=now, deadline__lte=now + timedelta(hours=24),
        campaign__status=Campaign.Status.ACTIVE, campaign__paused=False, campaign__turn=F("number"),
    ).values_list("campaign_id", "number")
    sent = sum(send_turn_reminder(campaign_id=c, turn_number=n, now=now) for c, n in list(due))
    return sent + layers.send_reminders(now)  # every campaign layer's steps, through its record


@transaction.atomic
def send_turn_reminder(*, campaign_id: int, turn_number: int, now) -> int:
    """One campaign's turn reminder (``send_deadline_reminders``), under its campaign row lock."""
    from .. import notifications

    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    turn = Turn.objects.filter(campaign=campaign, number=turn_number).first()
    # Re-checked under the lock: the turn may have been processed, or the campaign paused.
    if (campaign.paused or campaign.status != Campaign.Status.ACTIVE or campaign.turn != turn_number
            or turn is None or turn.status != Turn.Status.OPEN or turn.deadline is None or turn.deadline <= now):
        return 0
    left = turn.deadline - now
    kind = next((k for k, window in notifications.REMINDER_WINDOWS if left <= window), None)
    window = dict(notifications.REMINDER_WINDOWS).get(kind)
    if kind is None or turn.deadline - turn.opened_at <= window:
        return 0
    reminder_email = layers.of(campaign).reminder_email
    if reminder_email is None:
        return 0  # a layer whose turns send no reminder
    ready = set(TurnOrders.objects.filter(turn=turn, ready=True).values_list("empire_id", flat=True))
    candidates = [
        (r, lambda r=r: reminder_email(campaign, turn, r, kind, now))
        for r in notifications.recipients(campaign)
        if r.empire is not None and r.wants("reminders") and r.empire.pk not in ready
        and not (r.empire.is_bot or r.empire.auto_bot or r.empire.eliminated)
    ]
    return _send_once(
        campaign, notifications.kind_key(kind, notifications.stamp(turn.deadline)), turn_number, candidates
    )


@transaction.atomic
def notify_battle_decision(*, campaign_id: int, turn: int, seat: int, text: str) -> int:
    """Email the player of ``seat`` that a battle of ``turn`` needs their decision (``text`` is
    theirs to read: fog of war is the caller's duty). Sent once per (turn, seat, text); callable
    inside another action's transaction. Returns the number of emails queued (0 or 1)."""
    from .. import notifications

    text = (text or "").strip()
    if not text:
        raise ActionError("a battle notification needs a text")
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()
    if campaign is None:
        raise ActionError("no such campaign")
    if not campaign.empires.filter(seat=seat).exists():
        raise ActionError(f"campaign {campaign.pk} has no seat {seat}")
    candidates = [
        (r, lambda r=r: notifications.battle_email(campaign, turn, r, text))
        for r in notifications.recipients(campaign)
        if r.empire is not None and r.empire.seat == seat and r.wants("battles") and not r.empire.is_bot
    ]
    kind = notifications.kind_key(notifications.BATTLE, notifications.battle_digest(seat, text))
    return _send_once(campaign, kind, turn, candidates)
