"""Press by mail: each message is emailed to the seats it is addressed to (not its sender), to
the players who want press (``Membership.notify_press``), with a signed ``Reply-To`` that routes
the answer back into the same conversation (``replies.reply_address``; mail in:
``actions.receive_mail_reply``). Announcements go to every seat and carry no reply address.

The email holds what the recipients may read and nothing more: the message, the seats of the
conversation by the names the players know them by (fog of war, docs/press.md). It is recorded
as ``SentNotification`` kind ``press:<message id>`` under the campaign row lock the posting
action holds, and sent when that transaction commits (campaign/actions/notifications.py).
"""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from .. import notifications
from ..actions.notifications import _send_once
from ..models import Membership
from . import replies
from .models import Conversation


def _recipient_seats(conversation: Conversation, message, all_seats) -> list:
    if conversation.kind == Conversation.Kind.SEATS:
        wanted = set(conversation.seat_numbers)
        seats = [s for s in all_seats if s.number in wanted]
    else:
        seats = list(all_seats)
    return [s for s in seats if s.number != message.sender_seat and s.user_id is not None and not s.bot]


def conversation_title(conversation: Conversation, all_seats, *, viewer_seats=frozenset()) -> str:
    """How a conversation is named to its readers: "Announcements", "Everyone", or its seats'
    names (the reader's own seat last, as "you")."""
    if conversation.kind == Conversation.Kind.ANNOUNCEMENTS:
        return "Moderator's announcements"
    if conversation.kind == Conversation.Kind.ALL:
        return "Everyone"
    names = {s.number: s.label for s in all_seats}
    numbers = conversation.seat_numbers
    others = [names.get(n, f"seat {n}") for n in numbers if n not in viewer_seats]
    mine = [n for n in numbers if n in viewer_seats]
    return ", ".join(others) + (" and you" if mine else "")


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def email_names(conversation: Conversation, message, all_seats, seat) -> tuple[str, str]:
    """Whom a message's email says it is written to, and whom an answer reaches, for the reader
    at ``seat``: the sender is the writer, never an addressee (issue 23 item 5)."""
    if conversation.kind != Conversation.Kind.SEATS:
        return "everyone", "everyone"
    names = {s.number: s.label for s in all_seats}
    numbers = conversation.seat_numbers
    addressees = [names.get(n, f"seat {n}") for n in numbers if n not in (message.sender_seat, seat.number)]
    if seat.number in numbers and seat.number != message.sender_seat:
        addressees.append("you")
    answered = [names.get(n, f"seat {n}") for n in numbers if n != seat.number]
    return _and(addressees), _and(answered)


def queue_emails(campaign, conversation: Conversation, message, all_seats) -> int:
    """Record and queue the emails of one new message (the caller holds the campaign row)."""
    seats = _recipient_seats(conversation, message, all_seats)
    if not seats:
        return 0
    from django.contrib.auth import get_user_model

    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=[s.user_id for s in seats], is_active=True)}
    memberships = {m.user_id: m for m in Membership.objects.filter(campaign=campaign, user_id__in=list(users))}
    candidates = []
    for seat in seats:
        user = users.get(seat.user_id)
        if user is None:
            continue
        recipient = notifications.Recipient(user, Membership.Role.PLAYER, None, memberships.get(user.pk))
        if recipient.wants("press"):
            candidates.append((recipient, lambda r=recipient, s=seat: press_email(campaign, conversation, message,
                                                                                   r, s, all_seats)))
    return _send_once(campaign, notifications.kind_key(notifications.PRESS, str(message.pk)), campaign.turn, candidates)


def press_email(campaign, conversation: Conversation, message, recipient, seat, all_seats):
    url = notifications.absolute(reverse("press-conversation", args=[campaign.pk, conversation.public_id]))
    addressees, answered = email_names(conversation, message, all_seats, seat)
    context = {"message": message, "conversation": conversation, "seat": seat,
               "addressees": addressees, "answered": answered,
               "press_url": url, "announcement": message.announcement,
               # Answering by mail only while the site takes mail (docs/mail.md).
               "mail_in": settings.MAIL_IN_ENABLED,
               "can_reply": settings.MAIL_IN_ENABLED and conversation.kind != Conversation.Kind.ANNOUNCEMENTS}
    if message.announcement:
        subject = "announcement from the moderator"
    elif conversation.kind == Conversation.Kind.ALL:
        subject = f"press from {message.sender_name} to everyone"
    else:
        subject = f"press from {message.sender_name}"
    email = notifications._message(campaign=campaign, recipient=recipient, kind=notifications.PRESS,
                                   subject=subject, template="press_message", context=context)
    if context["can_reply"]:
        email.reply_to = [replies.reply_address(conversation.public_id, seat.number)]
    # Mail clients thread a conversation's emails by these (its public id: not a site-wide count).
    thread = f"<press-{conversation.public_id}@{settings.MAIL_DOMAIN}>"
    email.extra_headers["References"] = thread
    email.extra_headers["In-Reply-To"] = thread
    return email
