"""Actions of pickup battles (issue 17 item 4; docs/battles.md "Pickup battles"): create one,
invite an opponent and accept, submit a fleet, and record the result when the battle ends.

Each is atomic. Locks follow campaign/locks.py: the host campaign row first, then the pickup
row. A refused request changes nothing. The battle itself is played by tactical/play/ exactly as
an embedded campaign battle (its steps, its dice in the host campaign's hash-chained log, its
activation deadline and the doctrine for late or handed-over sides); when it ends,
``tactical.play.actions`` hands the result to ``record_result`` here (registered for the
``"pickup"`` layer in ``RESULT_SINKS``).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth.base_user import BaseUserManager
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from campaign.dice import CampaignDice
from campaign.models import Campaign, Empire, Membership
from campaign.rules.dice import new_seed, seed_hash
from tactical.models import Battle, BattleLogEntry, PickupBattle

from .books import FleetError, book
from .layer import KEY

OPPONENTS = ("computer", "email", "link")
BUILDABLE = (PickupBattle.Status.INVITING, PickupBattle.Status.BUILDING)
COLOURS = {1: "#d62728", 2: "#1f77b4"}
MAX_ACTIVATION_HOURS = 24 * 14
COMPUTER_NAME = "The computer"


class PickupError(Exception):
    """A refused request: ``status`` is the HTTP answer (400, 404, 409), ``problems`` every reason."""

    status = 400

    def __init__(self, message: str | list[str]):
        self.problems = [message] if isinstance(message, str) else list(message)
        self.message = "; ".join(self.problems)
        super().__init__(self.message)


class NotFound(PickupError):
    status = 404


class Conflict(PickupError):
    status = 409


# --- reading -------------------------------------------------------------------------------------

def visible_pickups(user):
    """The pickup battles ``user`` plays in (anyone else: none, so pages and the API answer 404)."""
    if not getattr(user, "is_authenticated", False):
        return PickupBattle.objects.none()
    return PickupBattle.objects.filter(Q(creator=user) | Q(opponent=user))


def _locked(pickup_id: int, user=None) -> tuple[Campaign, PickupBattle]:
    qs = visible_pickups(user) if user is not None else PickupBattle.objects.all()
    campaign_id = qs.filter(pk=pickup_id).values_list("campaign_id", flat=True).first()
    if campaign_id is None:
        raise NotFound("no such pickup battle")
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    pickup = PickupBattle.objects.select_for_update().get(pk=pickup_id)
    pickup.campaign = campaign
    return campaign, pickup


def _hours(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ACTIVATION_HOURS:
        raise PickupError(f"the activation deadline must be 0 to {MAX_ACTIVATION_HOURS} hours, not {value!r}")
    return value


def _email(value) -> str:
    email = BaseUserManager.normalize_email(value.strip()) if isinstance(value, str) else ""
    try:
        validate_email(email)
    except ValidationError:
        raise PickupError(f"{email or value!r} is not an email address") from None
    return email


def side_name(user) -> str:
    return f"{user.username}'s fleet"


# --- create, invite, accept ----------------------------------------------------------------------

@transaction.atomic
def create_pickup(*, user, ruleset: str, points, opponent: str, email: str = "", activation_hours=24,
                  seed: bytes | None = None) -> PickupBattle:
    """A new pickup battle: ``user`` takes seat 1. ``opponent``: "computer" (its doctrine builds
    its fleet now, with the battle's logged dice, and plays it), "email" (an invitation is mailed
    to ``email``) or "link" (``user`` passes the invitation link on)."""
    if not getattr(user, "is_authenticated", False):
        raise NotFound("log in to create a pickup battle")
    try:
        fleets = book(ruleset)
        points = fleets.check_points(points)
    except FleetError as exc:
        raise PickupError(exc.problems) from None
    if opponent not in OPPONENTS:
        raise PickupError(f"the opponent must be one of {', '.join(OPPONENTS)}, not {opponent!r}")
    hours = _hours(activation_hours)
    invite_email = _email(email) if opponent == "email" else ""
    if invite_email and invite_email.casefold() == (user.email or "").casefold():
        raise PickupError("you cannot invite yourself: choose the computer or another address")
    raw = seed or new_seed()
    computer = opponent == "computer"
    campaign = Campaign.objects.create(
        name=f"Pickup battle: {user.username} v. {COMPUTER_NAME.lower() if computer else 'an invited player'}"[:120],
        layer=KEY, width=0, height=0, status=Campaign.Status.ACTIVE, turn=1, seats=2, dice_seed=raw.hex(),
        seed_hash=seed_hash(raw), moderator=None, activation_hours=hours, battle_hours=0,
        deployment=Campaign.Deployment.AUTOMATIC, missed_turn_limit=0)
    Empire.objects.create(campaign=campaign, seat=1, name=side_name(user), colour=COLOURS[1], user=user)
    Empire.objects.create(campaign=campaign, seat=2, name=COMPUTER_NAME if computer else "The opponent",
                          colour=COLOURS[2], is_bot=computer)
    Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.PLAYER)
    pickup = PickupBattle.objects.create(
        campaign=campaign, ruleset=ruleset, points=points, creator=user, computer=computer,
        invite_token="" if computer else secrets.token_urlsafe(24), invite_email=invite_email,
        status=PickupBattle.Status.BUILDING if computer else PickupBattle.Status.INVITING)
    if computer:
        dice = CampaignDice(campaign, phase=f"pickup {pickup.pk} fleets", turn=1, concerns=(2,))
        bought = fleets.computer_fleet(fleets.offers(None), points, dice)
        dice.commit()
        pickup.fleets = {"2": [_ship_json(o) for o in bought]}
        pickup.save(update_fields=["fleets"])
    if invite_email:
        _mail_invitation(pickup, invite_email)
    return pickup


def invite_url(pickup: PickupBattle) -> str:
    from django.urls import reverse

    return settings.SITE_URL.rstrip("/") + reverse("pickup-join", args=[pickup.invite_token])


def _mail_invitation(pickup: PickupBattle, email: str) -> None:
    url = invite_url(pickup)
    who = pickup.creator.username
    points = f"{pickup.points} {book(pickup.ruleset).unit}"

    def send():
        send_mail(f"{who} challenges you to a pickup battle",
                  f"{who} invites you to a pickup battle on Sector Command ({pickup.ruleset}, {points} a side).\n\n"
                  f"Accept it and build your fleet: {url}\n", None, [email])

    transaction.on_commit(send, robust=True)  # a mail server that is down never undoes the battle


@transaction.atomic
def invite_by_email(*, pickup_id: int, user, email: str) -> PickupBattle:
    """The creator (re)sends the invitation to ``email`` while nobody has accepted it."""
    campaign, pickup = _locked(pickup_id, user)
    if pickup.creator_id != user.pk:
        raise NotFound("no such pickup battle")
    if pickup.computer or pickup.status != PickupBattle.Status.INVITING:
        raise Conflict("this battle has its opponent: there is nobody to invite")
    address = _email(email)
    if address.casefold() == (user.email or "").casefold():
        raise PickupError("you cannot invite yourself")
    pickup.invite_email = address
    pickup.save(update_fields=["invite_email"])
    _mail_invitation(pickup, address)
    return pickup


def pickup_for_token(token) -> PickupBattle | None:
    if not isinstance(token, str) or not token or len(token) > 64:
        return None
    return PickupBattle.objects.filter(invite_token=token).select_related("creator").first()


@transaction.atomic
def accept_pickup(*, token, user) -> PickupBattle:
    """``user`` accepts the invitation with ``token`` and takes seat 2. An emailed invitation is
    for the account with that address; a second acceptance by the same user changes nothing."""
    found = pickup_for_token(token)
    if found is None or not getattr(user, "is_authenticated", False):
        raise NotFound("no such invitation")
    campaign, pickup = _locked(found.pk)
    if pickup.opponent_id == user.pk:
        return pickup  # accepted already (a double click)
    if pickup.creator_id == user.pk:
        raise PickupError("this is your own battle: send the link to your opponent")
    if pickup.status != PickupBattle.Status.INVITING:
        raise Conflict("this invitation has been accepted already")
    if pickup.invite_email and pickup.invite_email.casefold() != (user.email or "").strip().casefold():
        raise PickupError("this invitation was sent to another email address: log in with that account")
    pickup.opponent = user
    pickup.status = PickupBattle.Status.BUILDING
    pickup.save(update_fields=["opponent", "status"])
    Empire.objects.filter(campaign=campaign, seat=2).update(user=user, name=side_name(user))
    Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.PLAYER)
    Campaign.objects.filter(pk=campaign.pk).update(name=f"Pickup battle: {pickup.creator.username} v. {user.username}"[:120])
    return pickup


# --- fleets --------------------------------------------------------------------------------------

def _ship_json(offer) -> dict:
    out = {"key": offer.key, "name": offer.name, "points": offer.points}
    if offer.data is not None:
        out["sd"] = dict(offer.data)  # the design as bought: a later change to it does not reach the fleet
    return out


def offers_for(pickup: PickupBattle, seat: int):
    return book(pickup.ruleset).offers(_player(pickup, seat))


def refusals_for(pickup: PickupBattle, seat: int) -> dict[str, str]:
    """The seat's own designs the book will not sell him, each with the rule it breaks."""
    return book(pickup.ruleset).refusals(_player(pickup, seat))


def _player(pickup: PickupBattle, seat: int):
    return pickup.creator if seat == 1 else pickup.opponent


@transaction.atomic
def submit_fleet(*, pickup_id: int, user, ships) -> PickupBattle:
    """The player's fleet: ``ships`` a list of ship keys (a key once per ship bought). Refused
    with every problem: over the points total or the book's limits, a ship he may not buy; 409
    once submitted (a double submission buys nothing twice). When both fleets are in, the battle
    starts at once."""
    campaign, pickup = _locked(pickup_id, user)
    seat = pickup.seat_of(user)
    # The creator may build while the invitation waits; the battle starts with both fleets in.
    if pickup.status not in BUILDABLE or str(seat) in (pickup.fleets or {}):
        raise Conflict("your fleet is submitted already")
    if not isinstance(ships, list) or not all(isinstance(k, str) for k in ships):
        raise PickupError("ships must be a list of ship keys")
    fleets = book(pickup.ruleset)
    try:
        bought = fleets.check_fleet(ships, offers_for(pickup, seat), pickup.points, fleets.refusals(user))
    except FleetError as exc:
        raise PickupError(exc.problems) from None
    pickup.fleets = {**(pickup.fleets or {}), str(seat): [_ship_json(o) for o in bought]}
    pickup.save(update_fields=["fleets"])
    if {"1", "2"} <= set(pickup.fleets):
        _start(campaign, pickup)
    return pickup


def _start(campaign: Campaign, pickup: PickupBattle) -> Battle:
    from tactical.play import actions as play

    from .books import Offer

    fleets = {int(seat): [Offer(s["key"], s["name"], s["points"], data=s.get("sd")) for s in ships]
              for seat, ships in pickup.fleets.items()}
    names = dict(campaign.empires.values_list("seat", "name"))
    setup = book(pickup.ruleset).setup(fleets, names, COLOURS)
    battle = Battle.objects.create(
        campaign=campaign, turn=1, index=0, x=0, y=0, attacker=1, defender=2, aewa=False,
        mode=Battle.Mode.TACTICAL, ruleset=pickup.ruleset, setup=setup, deadline=None,
        doctrine_sides=[2] if pickup.computer else [])
    BattleLogEntry.objects.create(battle=battle, kind="created",
                                  text=f"Pickup battle: {names[1]} (attacker) against {names[2]} (defender), "
                                       f"{pickup.points} {book(pickup.ruleset).unit} a side.")
    pickup.battle = battle
    pickup.status = PickupBattle.Status.PLAYING
    pickup.save(update_fields=["battle", "status"])
    play.begin(battle)  # the fleets line up; the computer plays until a person must act
    return battle


# --- the end -------------------------------------------------------------------------------------

def record_result(*, battle: Battle, result, how: str, user=None, note: str = "") -> Battle:
    """The battle is over (tactical/play/actions.py, under the host campaign's row lock): its
    result is the rule book's own, kept as it is; the pickup battle is over and its host's dice
    seed is revealed (the campaign is finished), so anyone in it can verify every roll."""
    if battle.resolved:
        raise Conflict(f"battle {battle.pk} is over already")
    battle.result = {**(result or {}), "how": how}
    battle.status = Battle.Status.RESOLVED
    battle.resolved_how = how
    battle.resolved_at = timezone.now()
    battle.activation_deadline = None
    battle.save(update_fields=["result", "status", "resolved_how", "resolved_at", "activation_deadline"])
    BattleLogEntry.objects.create(battle=battle, kind="resolved", text=f"Resolved: {Battle.How(how).label.lower()}",
                                  user=user if getattr(user, "pk", None) else None, data={"how": how})
    PickupBattle.objects.filter(battle=battle).update(status=PickupBattle.Status.OVER)
    Campaign.objects.filter(pk=battle.campaign_id).update(status=Campaign.Status.FINISHED)
    battle.campaign.status = Campaign.Status.FINISHED
    return battle


__all__ = ["Conflict", "NotFound", "OPPONENTS", "PickupError", "accept_pickup", "create_pickup", "invite_by_email",
           "invite_url", "offers_for", "pickup_for_token", "record_result", "submit_fleet", "visible_pickups"]
