"""Every change press makes (docs/press.md): post, announce, reply, the campaign's press options,
read marks, and replies that arrive by mail.

Each action is atomic. Posting takes the campaign row first (campaign/locks.py, level 1: the
options it reads cannot change under it, and the emails are recorded under it as every
notification is), then writes the conversation and message rows under it; the emails go out when
the transaction commits. Refusals raise ``ActionError`` (``NotFound`` for what the user may not
see, ``NotAllowed`` for what they may see but not do) and change nothing — except
``receive_mail_reply``, which answers with a ``PressReplyResult`` for the mail pipeline.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from .. import locks
from ..actions.errors import ActionError, NotAllowed, NotFound, TooMany
from ..models import AuditEntry, Campaign
from . import mail, replies, unread, visibility
from .models import MAX_TEXT, PUBLIC_ID_MIN, Conversation, Participant, PressMessage, ReadMark
from .visibility import MODERATOR_READS_OPTION, PRESS_OPTION

ALL = "all"
MODERATOR_NAME = "Moderator"


def _locked_campaign(campaign_id: int, user) -> tuple[Campaign, visibility.Reader]:
    campaign = locks.campaign(campaign_id)
    if campaign is None:
        raise NotFound("no such campaign")
    reader = visibility.reader(campaign, user)
    if reader.role is None:
        raise NotFound("no such campaign")
    return campaign, reader


def _clean_text(text) -> str:
    if not isinstance(text, str):
        raise ActionError("the message must be text")
    text = "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")).strip()
    if not text:
        raise ActionError("the message is empty")
    if len(text) > MAX_TEXT:
        raise ActionError(f"the message is {len(text)} characters long; press messages hold at most {MAX_TEXT}")
    if "\x00" in text:
        raise ActionError("the message contains a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ActionError("the message contains a lone surrogate (not text)") from None
    return text


def _check_open(campaign: Campaign, *, announcement: bool) -> None:
    if campaign.status == Campaign.Status.SETUP:
        raise ActionError("press opens when the campaign starts")
    if not announcement and not visibility.press_on(campaign):
        raise ActionError("press is off in this campaign (the moderator's choice)")


def _conversation_for(campaign: Campaign, reader: visibility.Reader, to) -> Conversation:
    """The conversation a new message to ``to`` ("all" or seat numbers) belongs in, made on first use."""
    if to == ALL:
        kind, key, seats = Conversation.Kind.ALL, ALL, []
    else:
        if not isinstance(to, (list, tuple)) or not to:
            raise ActionError('address the message to "all" or to a list of seat numbers')
        if any(isinstance(s, bool) or not isinstance(s, int) for s in to):
            raise ActionError("recipients are seat numbers, such as [2, 3]")
        known = {s.number for s in reader.all_seats}
        unknown = sorted(set(to) - known)
        if unknown:
            raise ActionError(f"this campaign has no seat {', '.join(map(str, unknown))} "
                              f"(seats: {', '.join(map(str, sorted(known)))})")
        others = set(to) - {reader.seat.number}
        if not others:
            raise ActionError("choose at least one other seat to write to")
        seats = sorted(others | {reader.seat.number})
        kind, key = Conversation.Kind.SEATS, ",".join(map(str, seats))
    conversation = Conversation.objects.filter(campaign=campaign, key=key).first()
    if conversation is None:
        # The campaign row is locked, so nobody else is creating this conversation now.
        conversation = Conversation.objects.create(campaign=campaign, kind=kind, key=key)
        Participant.objects.bulk_create([Participant(conversation=conversation, seat=s) for s in seats])
    return conversation


def _check_rate(campaign: Campaign, user, at: datetime) -> None:
    """Refuse a message over ``PRESS_RATE_LIMIT`` in ``PRESS_RATE_WINDOW`` seconds by one person
    in one campaign (every message is emailed to its readers, so a flood is everyone's inbox).
    Counted under the campaign row's lock: simultaneous posts cannot both take the last place."""
    limit, window = settings.PRESS_RATE_LIMIT, settings.PRESS_RATE_WINDOW
    if not limit or not getattr(user, "is_authenticated", False):
        return
    since = at - timedelta(seconds=window)
    recent = list(PressMessage.objects.filter(campaign=campaign, author=user, created_at__gt=since)
                  .order_by("-created_at").values_list("created_at", flat=True)[:limit])
    if len(recent) >= limit:
        wait = max(1, int((recent[-1] + timedelta(seconds=window) - at).total_seconds()) + 1)
        raise TooMany(
            f"you have written {limit} press message{'s' if limit != 1 else ''} in this campaign in the "
            f"last {window // 60} minutes, "
            f"the most allowed; try again in {wait // 60} min {wait % 60} s",
            retry_after=wait,
        )


def _store(campaign: Campaign, conversation: Conversation, reader: visibility.Reader, text: str, *,
           announcement: bool, via: str, at: datetime | None = None, mail_key: str | None = None,
           seat=None) -> PressMessage:
    seat = seat if seat is not None else (None if announcement else reader.seat)
    at = at or timezone.now()
    _check_rate(campaign, reader.user, at)
    private = conversation.kind == Conversation.Kind.SEATS
    # The next number in the conversation: the campaign row is locked, so nobody takes it meanwhile.
    last = PressMessage.objects.filter(conversation=conversation).aggregate(n=Max("number"))["n"] or 0
    message = PressMessage.objects.create(
        campaign=campaign, conversation=conversation, number=last + 1, sender_seat=seat.number if seat else None,
        sender_name=(seat.name if seat else MODERATOR_NAME)[:80], announcement=announcement, text=text,
        turn=campaign.turn, via=via, author=reader.user if getattr(reader.user, "is_authenticated", False) else None,
        moderator_may_read=visibility.moderator_reads(campaign) if private else True,
        created_at=at, mail_key=mail_key)
    if conversation.last_message_at is None or at > conversation.last_message_at:
        Conversation.objects.filter(pk=conversation.pk).update(last_message_at=at)
    mail.queue_emails(campaign, conversation, message, reader.all_seats)
    unread.message_posted()
    return message


@transaction.atomic
def post(*, campaign_id: int, user, to, text, announcement: bool = False, via: str = PressMessage.Via.WEB
         ) -> PressMessage:
    """Write to ``to``: "all" (every seat, and everyone in the campaign reads it) or a list of
    seat numbers (a private conversation of those seats and the sender's). ``announcement``: the
    moderator writes to everyone, marked as the moderator's."""
    campaign, reader = _locked_campaign(campaign_id, user)
    if announcement:
        if not reader.can_announce():
            raise NotAllowed("only the campaign's moderators post announcements")
        text = _clean_text(text)
        _check_open(campaign, announcement=True)
        conversation = Conversation.objects.filter(campaign=campaign, key=Conversation.Kind.ANNOUNCEMENTS).first()
        if conversation is None:
            conversation = Conversation.objects.create(campaign=campaign, kind=Conversation.Kind.ANNOUNCEMENTS,
                                                       key=Conversation.Kind.ANNOUNCEMENTS)
        return _store(campaign, conversation, reader, text, announcement=True, via=via)
    if not reader.can_write():
        raise NotAllowed("only players write press; a moderator posts announcements")
    text = _clean_text(text)
    _check_open(campaign, announcement=False)
    conversation = _conversation_for(campaign, reader, to)
    return _store(campaign, conversation, reader, text, announcement=False, via=via)


def may_write(reader: visibility.Reader, conversation: Conversation) -> bool:
    """Whether ``reader`` writes in ``conversation`` (reading it is ``visibility``'s question)."""
    if conversation.kind == Conversation.Kind.ANNOUNCEMENTS:
        return reader.can_announce()
    if conversation.kind == Conversation.Kind.ALL:
        return reader.can_write()
    return bool(reader.seat_numbers & set(conversation.seat_numbers))


@transaction.atomic
def reply(*, campaign_id: int, conversation_id: int, user, text, via: str = PressMessage.Via.WEB) -> PressMessage:
    """Write into an existing conversation the user may read and write in."""
    campaign, reader = _locked_campaign(campaign_id, user)
    conversation = visibility.conversations(reader).filter(pk=conversation_id).first()
    if conversation is None:
        raise NotFound("no such conversation")
    if not may_write(reader, conversation):
        raise NotAllowed(
            "only the moderators write announcements"
            if conversation.kind == Conversation.Kind.ANNOUNCEMENTS
            else "you are not one of this conversation's seats"
        )
    text = _clean_text(text)
    announcement = conversation.kind == Conversation.Kind.ANNOUNCEMENTS
    _check_open(campaign, announcement=announcement)
    seat = None
    if conversation.kind == Conversation.Kind.SEATS:
        seat = next(s for s in reader.seats if s.number in conversation.seat_numbers)
    return _store(campaign, conversation, reader, text, announcement=announcement, via=via, seat=seat)


@transaction.atomic
def set_press_options(*, campaign_id: int, user, press: bool | None = None,
                      moderator_reads: bool | None = None) -> Campaign:
    """The moderator switches press on or off and lets moderators read private press or not
    (stored with the campaign's options, audited). Reading applies to private messages written
    while it is on: switching it on does not open what was written before."""
    campaign, reader = _locked_campaign(campaign_id, user)
    if not reader.is_moderator:
        raise NotAllowed("only the campaign's moderators change the press options")
    changes = {}
    for key, value in ((PRESS_OPTION, press), (MODERATOR_READS_OPTION, moderator_reads)):
        if value is None:
            continue
        if not isinstance(value, bool):
            raise ActionError(f"{key} must be true or false, not {value!r}")
        before = campaign.option(key, visibility.DEFAULTS[key])
        if before != value:
            changes[key] = (before, value)
    if not changes:
        return campaign
    campaign.options = {**campaign.options, **{k: after for k, (_, after) in changes.items()}}
    campaign.save(update_fields=["options"])
    AuditEntry.objects.create(
        campaign=campaign, user=user if getattr(user, "is_authenticated", False) else None, action="set_option",
        target="press options", before={k: b for k, (b, _) in changes.items()},
        after={k: a for k, (_, a) in changes.items()})
    return campaign


@transaction.atomic
def mark_read(*, campaign_id: int, conversation_id: int, user, up_to: int) -> int:
    """Move the user's read mark of a conversation forward to message number ``up_to`` (never back).
    No campaign lock: the conditional update settles two tabs marking at once (the higher wins)."""
    campaign = visibility.campaign_for(user, campaign_id)
    reader = visibility.reader(campaign, user) if campaign is not None else None
    if reader is None or not visibility.conversations(reader).filter(pk=conversation_id).exists():
        raise NotFound("no such conversation")
    mark, _ = ReadMark.objects.get_or_create(conversation_id=conversation_id, user=user)
    if ReadMark.objects.filter(pk=mark.pk, last_read__lt=up_to).update(last_read=up_to):
        unread.read(user)
    return max(mark.last_read, up_to)


# --- replies by mail ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PressReplyResult:
    """What ``receive_mail_reply`` did: ``ok`` with the message posted (or found, for a mail
    processed twice), or not ``ok`` with ``error`` saying why, for the reply to the sender."""

    ok: bool
    error: str | None
    message: PressMessage | None


def _mail_key(to_address: str, sender_email: str, text: str, received_at: datetime) -> str:
    raw = "\n".join([to_address.strip().lower(), sender_email.strip().lower(), received_at.isoformat(), text])
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def _addressed(number: int) -> Conversation | None:
    """The conversation a reply address names: by its public id, or — for a conversation made
    before public ids, whose addresses already sent name its primary key — by that key (public ids
    are never that small: models.PUBLIC_ID_MIN)."""
    if number >= PUBLIC_ID_MIN:
        return Conversation.objects.filter(public_id=number).only("campaign_id").first()
    return Conversation.objects.filter(pk=number, legacy_reply_address=True).only("campaign_id").first()


def receive_mail_reply(*, to_address: str, sender_email: str, text: str, received_at: datetime) -> PressReplyResult:
    """Post a reply that came by mail to a press reply address (``press+<conversation's public id>.
    <seat>.<signature>@MAIL_DOMAIN``) into its conversation, as that seat. Refused — nothing posted —
    when the signature does not match, the sender is not the seat's registered address, the seat
    may not write there, press is off, or nothing is left once quoted lines (``> …``) and the
    signature (from a ``-- `` line) are cut. ``received_at`` (the site's receipt time, never the
    sender's ``Date:``) orders it among the conversation's messages. The same mail processed
    twice posts once."""
    from email.utils import parseaddr

    from django.contrib.auth import get_user_model

    if timezone.is_naive(received_at):
        received_at = timezone.make_aware(received_at, UTC)
    try:
        conversation_id, seat_number = replies.read_reply_address(to_address)
    except replies.BadAddress as exc:
        return PressReplyResult(False, str(exc), None)
    key = _mail_key(to_address, sender_email or "", text or "", received_at)
    done = PressMessage.objects.filter(mail_key=key).first()
    if done is not None:
        return PressReplyResult(True, None, done)
    conversation = _addressed(conversation_id)
    if conversation is None:
        return PressReplyResult(False, "the conversation this address names no longer exists", None)
    sender = parseaddr(sender_email or "")[1].strip().lower()
    try:
        with transaction.atomic():
            campaign = locks.campaign(conversation.campaign_id)
            done = PressMessage.objects.filter(mail_key=key).first()  # posted while we waited for the lock
            if done is not None:
                return PressReplyResult(True, None, done)
            conversation = Conversation.objects.get(pk=conversation.pk)
            from . import seats as seat_registry

            seat = next((s for s in seat_registry.seats_of(campaign) if s.number == seat_number), None)
            user = (
                get_user_model().objects.filter(pk=seat.user_id, is_active=True).first()
                if seat and seat.user_id
                else None
            )
            if user is None or not user.email or user.email.strip().lower() != sender:
                raise NotAllowed(f"this reply was not sent from the registered address of seat {seat_number}")
            reader = visibility.reader(campaign, user)
            if conversation.kind == Conversation.Kind.ANNOUNCEMENTS:
                raise NotAllowed("announcements cannot be answered by mail: write to the players on the press page")
            if conversation.kind == Conversation.Kind.SEATS and seat_number not in conversation.seat_numbers:
                raise NotAllowed(f"seat {seat_number} is not in this conversation")
            _check_open(campaign, announcement=False)
            cleaned = replies.clean_reply(text if isinstance(text, str) else "")
            if not cleaned.strip():
                raise ActionError("the reply is empty once quoted lines (> …) and the signature (from '-- ') "
                                  "are left out")
            cleaned = _clean_text(cleaned)
            message = _store(campaign, conversation, reader, cleaned, announcement=False, via=PressMessage.Via.MAIL,
                             at=received_at, mail_key=key, seat=seat)
    except ActionError as exc:
        return PressReplyResult(False, str(exc), None)
    except IntegrityError:
        # The same mail posted by another worker between our check and our insert (the campaign
        # lock makes that rare): its message stands.
        done = PressMessage.objects.filter(mail_key=key).first()
        if done is None:
            raise
        return PressReplyResult(True, None, done)
    return PressReplyResult(True, None, message)
