"""Email notifications: who receives what, and what it says.

Nothing here changes state. The actions in ``campaign/actions/notifications.py``
decide, inside one transaction, which emails are due, record each one in ``SentNotification``
(unique per campaign, user, kind and turn) and hand the messages to ``deliver`` on commit — so a
task delivered twice, or ten times at once, sends one set.

Kinds of email and the preference (``Membership.notify_*``) that switches each off:

    turn:<stamp>          turn processed: each player's own report, the moderator's full one,
                          an observer's public one                                            notify_turn
    reminder_24h:<stamp>  orders due within 24 hours, to players not ready yet                 notify_reminders
    reminder_1h:<stamp>   orders due within the hour, to players not ready yet                 notify_reminders
    battle:<digest>       a battle needs the player's decision                                 notify_battles
    rollback:<stamp>      the moderator rolled a turn back (issue 13 item 17)                  notify_turn
    started:<stamp>       the campaign has started and its set-up round is open, to players
                          (issue 23 item 7)                                                    notify_turn
    press:<message id>    a press message or announcement to the recipient's seat
                          (campaign/press/mail.py)                                             notify_press

The part after the colon tells one processing of a turn (or one deadline, or one battle) from
another: a turn rolled back and processed again is reported again, an extended deadline is
reminded again, while a repeated delivery of the same task finds its rows and sends nothing.

A player or moderator without a Membership row (campaigns made by ``create_campaign`` with
``Empire.user`` set) has every notification on until they change a preference.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives, get_connection
from django.template.loader import render_to_string
from django.urls import NoReverseMatch, reverse
from django.utils.safestring import SafeString, mark_safe

from .models import Campaign, Empire, Membership, Turn

logger = logging.getLogger(__name__)

TURN = "turn"
REMINDER_24H = "reminder_24h"
REMINDER_1H = "reminder_1h"
BATTLE = "battle"
ROLLBACK = "rollback"
STARTED = "started"
PRESS = "press"
ORDERS_BY_REPLY = (TURN, REMINDER_24H, REMINDER_1H)
REMINDER_WINDOWS = ((REMINDER_1H, timedelta(hours=1)), (REMINDER_24H, timedelta(hours=24)))

# Preference name (as in unsubscribe links and the API) -> Membership field.
PREFERENCES = {"turn": "notify_turn", "reminders": "notify_reminders", "battles": "notify_battles",
               "press": "notify_press"}
PREFERENCE_OF_KIND = {TURN: "turn", REMINDER_24H: "reminders", REMINDER_1H: "reminders", BATTLE: "battles",
                      ROLLBACK: "turn", PRESS: "press", STARTED: "turn"}
PREFERENCE_LABELS = {
    "turn": "turn reports (a turn has been processed)",
    "reminders": "deadline reminders (24 hours and 1 hour before)",
    "battles": "battles that need your decision",
    "press": "press (messages from other players and the moderator's announcements)",
}
UNSUBSCRIBE_SALT = "campaign.notifications.unsubscribe"


class BadToken(ValueError):
    """An unsubscribe link that was not made here, or was changed."""


def kind_key(kind: str, discriminator: str) -> str:
    """The SentNotification.kind stored for one email (kind plus what tells occurrences apart)."""
    return f"{kind}:{discriminator}"


def preference_of(kind_key_: str) -> str:
    return PREFERENCE_OF_KIND[kind_key_.split(":", 1)[0]]


def stamp(moment: datetime) -> str:
    """A compact, stable discriminator for a moment (a processing time or a deadline)."""
    return str(int(moment.timestamp() * 1_000_000))


def battle_digest(seat: int, text: str) -> str:
    return hashlib.sha256(f"{seat}\n{text}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Recipient:
    """Someone who may receive this campaign's emails: a moderator or a player."""

    user: object
    role: str
    empire: Empire | None
    membership: Membership | None

    def wants(self, preference: str) -> bool:
        if self.membership is None:
            return True  # no Membership row yet: every notification is on
        return bool(getattr(self.membership, PREFERENCES[preference]))


def recipients(campaign: Campaign) -> list[Recipient]:
    """The campaign's moderators, human players and observers, one entry per user, ordered by user
    id. A moderator who also plays gets the moderator's turn email (the full report holds
    everything the player's would) and the player's reminders and battle emails. Observers get
    turn emails only (their report holds what an observer may read)."""
    memberships = {m.user_id: m for m in campaign.memberships.select_related("user")}
    by_user: dict[int, Recipient] = {}
    for empire in campaign.empires.filter(user__isnull=False).select_related("user").order_by("seat"):
        by_user.setdefault(empire.user_id, Recipient(empire.user, Membership.Role.PLAYER, empire,
                                                     memberships.get(empire.user_id)))
    moderators = {m.user_id: m.user for m in memberships.values() if m.role == Membership.Role.MODERATOR}
    if campaign.moderator_id is not None and campaign.moderator_id not in moderators:
        moderators[campaign.moderator_id] = campaign.moderator
    for m in memberships.values():
        if m.role == Membership.Role.OBSERVER and m.user_id not in by_user:
            by_user[m.user_id] = Recipient(m.user, Membership.Role.OBSERVER, None, m)
    for user_id, user in moderators.items():
        playing = by_user.get(user_id)
        by_user[user_id] = Recipient(user, Membership.Role.MODERATOR, playing.empire if playing else None,
                                     memberships.get(user_id))
    return [by_user[k] for k in sorted(by_user)]


# --- unsubscribe links -----------------------------------------------------------------------


def unsubscribe_token(user_id: int, campaign_id: int, preference: str) -> str:
    """A signed token (no login needed) that switches one preference off for one user in one
    campaign. Signed with SECRET_KEY: any change to it makes it invalid."""
    if preference not in PREFERENCES:
        raise ValueError(f"unknown notification preference {preference!r}")
    return signing.dumps({"u": user_id, "c": campaign_id, "p": preference}, salt=UNSUBSCRIBE_SALT)


def read_unsubscribe_token(token: str) -> tuple[int, int, str]:
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        raise BadToken("this unsubscribe link is not valid (it may have been cut short or changed)") from None
    if not isinstance(data, dict) or data.get("p") not in PREFERENCES:
        raise BadToken("this unsubscribe link is not valid")
    try:
        return int(data["u"]), int(data["c"]), data["p"]
    except (KeyError, TypeError, ValueError):
        raise BadToken("this unsubscribe link is not valid") from None


def absolute(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def page_url(name: str, *args, fallback: str = "campaign-detail") -> str:
    """An absolute link to a page; the campaign page if that page is not there."""
    try:
        return absolute(reverse(name, args=args))
    except NoReverseMatch:
        return absolute(reverse(fallback, args=args[:1]))


# --- messages ----------------------------------------------------------------------------------


def _message(*, campaign: Campaign, recipient: Recipient, kind: str, subject: str, template: str,
             context: dict) -> EmailMultiAlternatives:
    preference = PREFERENCE_OF_KIND[kind]
    unsubscribe_url = absolute(reverse("notification-unsubscribe",
                                       args=[unsubscribe_token(recipient.user.pk, campaign.pk, preference)]))
    context = {
        **context,
        "campaign": campaign,
        "user": recipient.user,
        "recipient": recipient,
        "campaign_url": absolute(reverse("campaign-detail", args=[campaign.pk])),
        "preferences_url": absolute(reverse("notification-preferences", args=[campaign.pk])),
        "unsubscribe_url": unsubscribe_url,
        "unsubscribe_what": PREFERENCE_LABELS[preference],
        "site_url": settings.SITE_URL,
    }
    text = render_to_string(f"email/{template}.txt", context)
    html = render_to_string(f"email/{template}.html", context)
    message = EmailMultiAlternatives(
        subject=" ".join(f"[Sector Command] {campaign.name}: {subject}".split()),
        body=text,
        to=[recipient.user.email],
        # RFC 8058 one-click unsubscribe: mail clients POST to the link.
        headers={"List-Unsubscribe": f"<{unsubscribe_url}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
        # With mail in (docs/mail.md), answering a report or a reminder sends orders.
        reply_to=[settings.MAIL_ORDERS_ADDRESS] if settings.MAIL_IN_ENABLED and kind in ORDERS_BY_REPLY else None,
    )
    message.attach_alternative(html, "text/html")
    return message


def _as_html(fragment) -> SafeString:
    # The report renderer builds its HTML with Django's autoescaping templates.
    return fragment if isinstance(fragment, SafeString) else mark_safe(fragment)


def round_label(number: int) -> str:
    """"the set-up round" for turn 0 (003 Set Up), else "turn N"."""
    from .rules.eventhorizon.setup import SETUP_TURN

    return "the set-up round" if number == SETUP_TURN else f"turn {number}"


def battle_email(campaign: Campaign, turn_number: int, recipient: Recipient, text: str) -> EmailMultiAlternatives:
    context = {"turn_number": turn_number, "text": text}
    return _message(campaign=campaign, recipient=recipient, kind=BATTLE, template="battle_decision",
                    subject=f"a battle needs your decision (turn {turn_number})", context=context)


def rollback_email(campaign: Campaign, turn_number: int, recipient: Recipient, *, paused: bool,
                   later_orders: int) -> EmailMultiAlternatives:
    """A turn was rolled back: what that means for the recipient (no report: the turn is undone)."""
    context = {"turn_number": turn_number, "round": round_label(turn_number), "paused": paused,
               "later_orders": later_orders, "orders_url": page_url("campaign-orders", campaign.pk)}
    return _message(campaign=campaign, recipient=recipient, kind=ROLLBACK, template="rolled_back",
                    subject=f"{round_label(turn_number)} has been rolled back", context=context)


def started_email(campaign: Campaign, turn: Turn, recipient: Recipient) -> EmailMultiAlternatives:
    """The campaign has started: the set-up round (``turn``) is open for the recipient's purchases."""
    context = {"turn": turn, "round": round_label(turn.number), "deadline": turn.deadline,
               "orders_url": page_url("campaign-orders", campaign.pk)}
    return _message(campaign=campaign, recipient=recipient, kind=STARTED, template="campaign_started",
                    subject=f"the campaign has started: {round_label(turn.number)} is open", context=context)


def deliver(messages: list[EmailMultiAlternatives]) -> int:
    """Send recorded messages (called on commit). A failure is logged, not raised: the rows are
    committed, so the email is not sent twice by a retry — delivery is at most once per row."""
    if not messages:
        return 0
    try:
        return get_connection().send_messages(messages) or 0
    except Exception:
        logger.exception("sending %d notification email(s) failed", len(messages))
        return 0


def notify_battle_decision(campaign_id: int, turn: int, seat: int, text: str) -> int:
    """The hook for battle resolution: email the player of ``seat`` that a battle of ``turn``
    needs their decision. ``text`` must hold only what that player may know (fog of war). Safe to
    call inside another action's transaction (the email goes out when it commits) and to call
    again with the same arguments (sent once). Returns the number of emails queued."""
    from . import actions

    return actions.notify_battle_decision(campaign_id=campaign_id, turn=turn, seat=seat, text=text)
