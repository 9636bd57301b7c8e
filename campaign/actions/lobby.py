"""The lobby: creating a campaign there, invitations by link or email, joining, co-moderators,
the open-campaigns listing and starting.

Every campaign layer whose record (``campaign/layers.py``) has the "lobby" feature uses these
actions: the layer's record creates its campaigns in the lobby (``create_lobby``: Event Horizon's
is in ``campaign/eventhorizon/actions/lobby.py``), refuses a join it cannot seat (``check_join``)
and sets the campaign up when the moderator starts it (``start``).
"""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .. import layers, locks
from ..models import COLOUR_PALETTE, Campaign, Membership
from .errors import ActionError, NotAllowed, NotFound, TooMany

LOBBY_LIMITS = {
    "turn_hours": (0, 24 * 365),
    "setup_hours": (0, 24 * 365),
    "detection_range": (0, 50),
    "missed_turn_limit": (0, 100),
    "battle_hours": (0, 24 * 90),
    "activation_hours": (0, 24 * 30),
}
BATTLE_REQUESTS = ("nobody", "either", "both")
SEED_MAX_LENGTH = 200


def _new_token() -> str:
    import secrets

    # 32 random bytes are 43 URL-safe characters: the width of the token fields.
    return secrets.token_urlsafe(32)


def _whole(value, label: str, limits: tuple[int, int]) -> int:
    low, high = limits
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ActionError(f"{label} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _lobby_campaign(campaign_id: int, user, *, doing: str | None) -> Campaign:
    """The campaign row, locked. An outsider gets NotFound; with ``doing`` set, a member who is
    not a moderator gets NotAllowed naming what they tried."""
    from ..access import is_moderator, role_of

    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id, layer__in=layers.having("lobby")).first()
    if campaign is None or role_of(user, campaign) is None:
        raise NotFound("no such campaign")
    if doing is not None and not is_moderator(user, campaign):
        raise NotAllowed(f"only the campaign's moderators can {doing}")
    return campaign


def _creators_seat(play: dict | None) -> dict:
    """"I'll play too": the empire the creator plays besides moderating (issue 23 item 9; ruling
    L6), checked as a player's joining is; {} when he only moderates."""
    if not play:
        return {}
    if not isinstance(play, dict):
        raise ActionError("play must give the empire's name and colour")
    name = play.get("empire_name", "")
    faction, colour = play.get("faction", ""), play.get("colour", "")
    name = name.strip() if isinstance(name, str) else ""
    faction = faction.strip() if isinstance(faction, str) else ""
    colour = colour.strip().lower() if isinstance(colour, str) else ""
    if not name:
        raise ActionError("choose a name for your empire, or leave \"I'll play too\" unticked")
    if len(name) > 80 or len(faction) > 80:
        raise ActionError("an empire name and a faction have at most 80 characters")
    if colour not in COLOUR_PALETTE:
        raise ActionError(f"choose one of the colours {', '.join(COLOUR_PALETTE)}, not {colour!r}")
    return {"empire_name": name, "faction": faction, "colour": colour}


@transaction.atomic
def set_invite_link(*, campaign_id: int, user, enabled: bool, regenerate: bool = False) -> Campaign:
    """Switch the campaign's invitation link on or off, or give it a new secret (the old link
    stops working)."""
    campaign = _lobby_campaign(campaign_id, user, doing="change the invitation link")
    if not isinstance(enabled, bool) or not isinstance(regenerate, bool):
        raise ActionError("enabled and regenerate must be true or false")
    if not enabled:
        # A listed campaign is joined through its link: no link, no listing.
        campaign.invite_token = ""
        campaign.listed = False
    elif regenerate or not campaign.invite_token:
        campaign.invite_token = _new_token()
    campaign.save(update_fields=["invite_token", "listed"])
    return campaign


@transaction.atomic
def set_listing(*, campaign_id: int, user, listed: bool) -> Campaign:
    """List the campaign among the open campaigns every user's home page shows (or take it off).
    A listed campaign is joined through its invitation link, which listing switches on."""
    campaign = _lobby_campaign(campaign_id, user, doing="list the campaign")
    if not isinstance(listed, bool):
        raise ActionError("listed must be true or false")
    campaign.listed = listed
    if listed and not campaign.invite_token:
        campaign.invite_token = _new_token()
    campaign.save(update_fields=["listed", "invite_token"])
    return campaign


def invitation_url(token: str) -> str:
    from django.conf import settings
    from django.urls import reverse

    return settings.SITE_URL.rstrip("/") + reverse("lobby-join", args=[token])


def _send_invitation(invitation_id: int) -> None:
    from django.core.mail import send_mail
    from django.template.loader import render_to_string

    from ..models import Invitation

    invitation = Invitation.objects.select_related("campaign", "invited_by").get(pk=invitation_id)
    context = {"invitation": invitation, "campaign": invitation.campaign, "url": invitation_url(invitation.token)}
    send_mail(
        subject=f"Invitation to the campaign {invitation.campaign.name}",
        message=render_to_string("lobby/invitation_email.txt", context),
        from_email=None, recipient_list=[invitation.email],
    )


@transaction.atomic
def invite_by_email(*, campaign_id: int, user, email: str):
    """Invite someone by email to the lobby. The email (sent once the invitation is stored) holds
    a link with the invitation's own token, good for one join. Inviting a pending address again
    sends the same link again."""
    from django.contrib.auth.base_user import BaseUserManager
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    from ..models import Invitation

    campaign = _lobby_campaign(campaign_id, user, doing="invite players")
    if campaign.status != Campaign.Status.SETUP:
        raise ActionError("the campaign has started: invitations are for the lobby")
    email = BaseUserManager.normalize_email((email or "").strip()) if isinstance(email, str) else ""
    try:
        validate_email(email)
    except ValidationError:
        raise ActionError(f"{email!r} is not an email address") from None
    if campaign.memberships.filter(user__email__iexact=email).exists():
        raise ActionError(f"{email} already belongs to a member of this campaign")
    from .. import accounts

    refusal = accounts.take_invitation_place(user, email)  # per sender and per address (issue 24)
    if refusal:
        raise TooMany(refusal, accounts.seconds_to_next_window())
    invitation = campaign.invitations.filter(email__iexact=email, accepted_at__isnull=True).first()
    if invitation is None:
        invitation = Invitation.objects.create(campaign=campaign, email=email, token=_new_token(), invited_by=user)
    # robust: a mail server that is down is logged; the invitation stays and can be sent again.
    transaction.on_commit(lambda pk=invitation.pk: _send_invitation(pk), robust=True)
    return invitation


def _masked(email: str) -> str:
    local, _, domain = email.partition("@")
    return f"{local[:1]}…@{domain}"


def invitation_refusal(invitation, user) -> str | None:
    """Why ``user`` may not accept this emailed invitation, or None. An emailed invitation is for
    the account with the address it was sent to (ignoring case): the link in someone's mailbox
    does not let whoever it is forwarded to — or whoever reads it over a shoulder — take the
    seat. The campaign's shareable link stays open to anyone logged in who has it."""
    if invitation is None:
        return None
    if (user.email or "").strip().casefold() == invitation.email.strip().casefold():
        return None
    return (f"this invitation was emailed to {_masked(invitation.email)} and is for the account with that "
            "address: log in to that account (or sign up with that address), or ask the moderator for "
            "an invitation to your own address or for the campaign's invitation link")


@transaction.atomic
def join_campaign(*, user, token: str, role: str = Membership.Role.PLAYER, empire_name: str = "",
                  faction: str = "", colour: str = "") -> Membership:
    """Join a campaign in the lobby with its invitation link or an emailed invitation: as a player
    (empire name, faction and a colour no other player has; refused when every seat is taken) or
    as an observer. An emailed invitation is only for the account with its address
    (``invitation_refusal``); the campaign's link is for anyone who has it."""
    from ..models import Invitation

    if not user.is_authenticated:
        raise NotAllowed("log in to join a campaign")
    token = token.strip() if isinstance(token, str) else ""
    invalid = NotFound("no such invitation: the link is wrong, switched off or already used")
    if not token:
        raise invalid
    # Lock the campaign first on both paths, so joins (and the start) are serialised per campaign.
    campaign = Campaign.objects.select_for_update().filter(invite_token=token, layer__in=layers.having("lobby")).first()
    invitation = None
    if campaign is None:
        found = (
            Invitation.objects.filter(token=token, accepted_at__isnull=True)
            .values_list("campaign_id", flat=True)
            .first()
        )
        if found is None:
            raise invalid
        campaign = Campaign.objects.select_for_update().filter(pk=found, layer__in=layers.having("lobby")).first()
        if campaign is None:
            raise invalid
        invitation = locks.rows(Invitation.objects.filter(token=token, accepted_at__isnull=True)).first()
        if invitation is None:
            raise invalid
        refusal = invitation_refusal(invitation, user)
        if refusal is not None:
            raise NotAllowed(refusal)
    if campaign.status != Campaign.Status.SETUP:
        raise ActionError("this campaign has already started: ask its moderator about a seat")
    existing = campaign.memberships.filter(user=user).first()
    if existing is not None or campaign.moderator_id == user.pk:
        role_name = existing.get_role_display().lower() if existing else "moderator"
        raise ActionError(f"you are already in this campaign, as {role_name}")

    if role == Membership.Role.PLAYER:
        words = layers.of(campaign).join_words
        empire_name = empire_name.strip() if isinstance(empire_name, str) else ""
        faction = faction.strip() if isinstance(faction, str) else ""
        colour = colour.strip().lower() if isinstance(colour, str) else ""
        if not empire_name:
            raise ActionError(f"choose a name for your {words.seat}")
        if len(empire_name) > 80 or len(faction) > 80:
            raise ActionError(f"{words.a_seat} name and a faction have at most 80 characters")
        if colour not in COLOUR_PALETTE:
            raise ActionError(f"choose one of the colours {', '.join(COLOUR_PALETTE)}, not {colour!r}")
        players = campaign.memberships.filter(Membership.seated())
        if players.count() >= campaign.seats:
            raise ActionError(
                f"the campaign is full: all {campaign.seats} seats are taken (you can join as an observer)"
            )
        if players.filter(colour=colour).exists():
            raise ActionError(f"another player has the colour {colour}: choose another")
        if players.filter(empire_name__iexact=empire_name).exists():
            raise ActionError(f"another player's {words.seat} is called {empire_name}: choose another name")
    elif role == Membership.Role.OBSERVER:
        empire_name = faction = colour = ""
    else:
        raise ActionError(f"join as 'player' or 'observer', not {role!r}")
    layers.of(campaign).check_join(campaign, role=role, empire_name=empire_name, faction=faction)
    membership = Membership.objects.create(campaign=campaign, user=user, role=role, empire_name=empire_name,
                                           faction=faction, colour=colour)
    if invitation is not None:
        invitation.accepted_by = user
        invitation.accepted_at = timezone.now()
        invitation.save(update_fields=["accepted_by", "accepted_at"])
    return membership


@transaction.atomic
def add_moderator(*, campaign_id: int, user, username: str) -> Membership:
    """A moderator makes another user a co-moderator (an observer is promoted; a player cannot
    also moderate)."""
    from django.contrib.auth import get_user_model

    campaign = _lobby_campaign(campaign_id, user, doing="add moderators")
    username = username.strip() if isinstance(username, str) else ""
    target = get_user_model()._default_manager.filter(username=username).first() if username else None
    if target is None:
        raise ActionError(f"there is no user called {username!r}")
    membership = campaign.memberships.filter(user=target).first()
    if membership is None and campaign.empires.filter(user=target).exists():
        # A seat holder of a campaign made on the command line has no membership row (ruling L4).
        raise ActionError(f"{username} plays in this campaign: a player cannot also moderate it")
    if membership is None:
        return Membership.objects.create(campaign=campaign, user=target, role=Membership.Role.MODERATOR)
    if membership.role == Membership.Role.MODERATOR:
        raise ActionError(f"{username} is already a moderator of this campaign")
    if membership.role == Membership.Role.PLAYER or campaign.empires.filter(user=target).exists():
        raise ActionError(f"{username} plays in this campaign: a player cannot also moderate it")
    membership.role = Membership.Role.MODERATOR
    membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def remove_member(*, campaign_id: int, user, membership_id: int) -> None:
    """Before the start a moderator removes a member (or a member leaves). The campaign's creator
    stays."""
    from ..access import is_moderator

    campaign = _lobby_campaign(campaign_id, user, doing=None)
    membership = campaign.memberships.filter(pk=membership_id).select_related("user").first()
    if membership is None:
        raise NotFound("no such member")
    if membership.user_id != user.pk and not is_moderator(user, campaign):
        raise NotAllowed("only the campaign's moderators can remove members")
    if campaign.status != Campaign.Status.SETUP:
        raise ActionError(
            "the campaign has started: members can no longer be removed (a moderator can substitute a player)"
        )
    if membership.user_id == campaign.moderator_id:
        raise ActionError("the campaign's creator cannot be removed")
    membership.delete()


@transaction.atomic
def start_campaign(*, campaign_id: int, user, now=None) -> Campaign:
    """The moderator starts the campaign: the joined players (in the order they joined) are
    handed to the campaign's layer, which sets it up (``CampaignLayer.start``), and the campaign
    runs."""
    campaign = _lobby_campaign(campaign_id, user, doing="start the campaign")
    if campaign.status != Campaign.Status.SETUP:
        raise ActionError("the campaign has already started")
    players = list(campaign.memberships.filter(Membership.seated()).order_by("joined_at", "id"))
    if not players:
        raise ActionError("nobody has joined as a player yet: a campaign needs at least one human player")
    if len(players) > campaign.seats:
        raise ActionError(f"{len(players)} players have joined but the campaign has {campaign.seats} seats")
    layers.of(campaign).start(campaign, players, now=now)
    campaign.status = Campaign.Status.ACTIVE
    campaign.save(update_fields=["status"])
    return campaign
