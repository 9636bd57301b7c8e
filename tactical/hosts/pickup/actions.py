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

import logging
import secrets

from django.conf import settings
from django.contrib.auth.base_user import BaseUserManager
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import IntegerField, OuterRef, Q, Subquery, Value
from django.utils import timezone

from campaign.dice import CampaignDice
from campaign.models import Campaign, Empire, Membership
from campaign.rules.dice import new_seed, seed_hash
from tactical.models import Battle, BattleLogEntry, PickupBattle

from .books import FleetError, book
from .layer import KEY

log = logging.getLogger(__name__)

OPPONENTS = ("computer", "email", "link")
OTHER_SEATS = ("computer", "link")  # how a seat after the second is filled (ruling PK6)
BUILDABLE = (PickupBattle.Status.INVITING, PickupBattle.Status.BUILDING)
COLOURS = {1: "#d62728", 2: "#1f77b4", 3: "#2ca02c", 4: "#ff7f0e", 5: "#9467bd", 6: "#17becf"}
MAX_SIDES = 6  # Buoyz 'N Da 'Hood, ruling BZ83
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


class Forbidden(PickupError):
    status = 403


class Gone(PickupError):
    status = 410


class TooMany(PickupError):
    """Over a rate limit (campaign/accounts.py): the API answers 429 with Retry-After."""

    status = 429

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


def _limited(refusal: str | None) -> None:
    from campaign import accounts

    if refusal:
        raise TooMany(refusal, accounts.seconds_to_next_window())


# --- reading -------------------------------------------------------------------------------------

def visible_pickups(user):
    """The pickup battles ``user`` plays in (anyone else: none, so pages and the API answer 404)."""
    if not getattr(user, "is_authenticated", False):
        return PickupBattle.objects.none()
    # Seats 3… (ruling PK6) are their Empire rows': one subquery, annotated so ``seat_of`` asks nothing more.
    seat = Empire.objects.filter(campaign_id=OuterRef("campaign_id"), user=user).order_by("seat").values("seat")[:1]
    held = Empire.objects.filter(user=user, campaign__layer=KEY).values("campaign_id")
    return (PickupBattle.objects.filter(Q(creator=user) | Q(opponent=user) | Q(campaign_id__in=held))
            .annotate(my_seat=Subquery(seat), seat_user_id=Value(user.pk, output_field=IntegerField())))


def _locked(pickup_id: int, user=None) -> tuple[Campaign, PickupBattle]:
    qs = visible_pickups(user) if user is not None else PickupBattle.objects.all()
    campaign_id = qs.filter(pk=pickup_id).values_list("campaign_id", flat=True).first()
    if campaign_id is None:
        raise NotFound("no such pickup battle")
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    pickup = PickupBattle.objects.select_for_update().get(pk=pickup_id)
    if user is not None and not visible_pickups(user).filter(pk=pickup_id).exists():
        raise NotFound("no such pickup battle")  # he lost his seat while waiting for the locks (PK7)
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


def seat_rows(pickup: PickupBattle) -> list[dict]:
    """Every seat: its side's name, its player (None while free, or the computer's), whether the
    computer holds it and whether its fleet is in (one query)."""
    fleets = pickup.fleets or {}
    return [{"seat": seat, "name": name, "player": username, "computer": bot, "fleet_in": str(seat) in fleets}
            for seat, name, username, bot in Empire.objects.filter(campaign_id=pickup.campaign_id).order_by("seat")
            .values_list("seat", "name", "user__username", "is_bot")]


def side_name(user) -> str:
    return f"{user.username}'s fleet"


def _sides(fleets, sides) -> int:
    if isinstance(sides, bool) or not isinstance(sides, int) or not 2 <= sides <= MAX_SIDES:
        raise PickupError(f"a pickup battle has 2 to {MAX_SIDES} sides (ruling BZ83), not {sides!r}")
    if sides > fleets.max_sides:
        raise PickupError(f"{fleets.title} battles are fought by {fleets.max_sides} sides ({fleets.sides_rule}), "
                          f"not {sides}")
    return sides


def _others(sides: int, opponent: str, others) -> list[str]:
    """How seats 3… are filled: ``others`` (one of OTHER_SEATS a seat), by default as seat 2 is
    (an invitation by email: by link, the mail only carries the link; ruling PK6)."""
    if others is None:
        return [opponent if opponent in OTHER_SEATS else "link"] * (sides - 2)
    if not isinstance(others, list) or len(others) != sides - 2 or any(o not in OTHER_SEATS for o in others):
        raise PickupError(f"'others' lists how each seat after the second is filled, {sides - 2} of "
                          f"{', '.join(OTHER_SEATS)}, not {others!r}")
    return list(others)


# --- create, invite, accept ----------------------------------------------------------------------

@transaction.atomic
def create_pickup(*, user, ruleset: str, points, opponent: str, email: str = "", activation_hours=24,
                  sides=2, others=None, seed: bytes | None = None) -> PickupBattle:
    """A new pickup battle: ``user`` takes seat 1. ``opponent`` fills seat 2: "computer" (its
    doctrine builds its fleet now, with the battle's logged dice, and plays it), "email" (an
    invitation is mailed to ``email``) or "link" (``user`` passes the invitation link on).
    ``sides`` 3 to 6 (Buoyz only, ruling PK6): ``others`` says how each seat after the second is
    filled, "computer" or "link" (the one invitation link: first to accept, next free seat)."""
    if not getattr(user, "is_authenticated", False):
        raise NotFound("log in to create a pickup battle")
    try:
        fleets = book(ruleset)
        points = fleets.check_points(points)
    except FleetError as exc:
        raise PickupError(exc.problems) from None
    if opponent not in OPPONENTS:
        raise PickupError(f"the opponent must be one of {', '.join(OPPONENTS)}, not {opponent!r}")
    sides = _sides(fleets, sides)
    more = _others(sides, opponent, others)
    hours = _hours(activation_hours)
    invite_email = _email(email) if opponent == "email" else ""
    if invite_email and invite_email.casefold() == (user.email or "").casefold():
        raise PickupError("you cannot invite yourself: choose the computer or another address")
    from campaign import accounts

    _limited(accounts.take_pickup_place(user))  # issue 24: creation was unlimited
    if invite_email:
        _limited(accounts.take_invitation_place(user, invite_email))
    raw = seed or new_seed()
    computer = opponent == "computer"
    bots = [seat for seat, by in enumerate([opponent, *more], start=2) if by == "computer"]
    invited = sides - 1 - len(bots)
    if sides == 2:
        against = COMPUTER_NAME.lower() if computer else "an invited player"
    else:
        against = f"{sides - 1} others"
    campaign = Campaign.objects.create(
        name=f"Pickup battle: {user.username} v. {against}"[:120],
        layer=KEY, width=0, height=0, status=Campaign.Status.ACTIVE, turn=1, seats=sides, dice_seed=raw.hex(),
        seed_hash=seed_hash(raw), moderator=None, activation_hours=hours, battle_hours=0,
        deployment=Campaign.Deployment.AUTOMATIC, missed_turn_limit=0)
    Empire.objects.create(campaign=campaign, seat=1, name=side_name(user), colour=COLOURS[1], user=user)
    for seat in range(2, sides + 1):
        bot = seat in bots
        name = (COMPUTER_NAME if bot else "The opponent") if sides == 2 else \
            (f"{COMPUTER_NAME} ({seat})" if bot else f"Seat {seat} (invited)")
        Empire.objects.create(campaign=campaign, seat=seat, name=name, colour=COLOURS[seat], is_bot=bot)
    Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.PLAYER)
    pickup = PickupBattle.objects.create(
        campaign=campaign, ruleset=ruleset, points=points, creator=user, computer=computer, sides=sides,
        invite_token=secrets.token_urlsafe(24) if invited else "", invite_email=invite_email,
        status=PickupBattle.Status.INVITING if invited else PickupBattle.Status.BUILDING)
    bought_fleets = {str(seat): _computer_fleet(campaign, pickup, seat) for seat in bots}
    if bought_fleets:
        pickup.fleets = bought_fleets
        pickup.save(update_fields=["fleets"])
    if invite_email:
        _mail_invitation(pickup, invite_email)
    return pickup


def _computer_fleet(campaign: Campaign, pickup: PickupBattle, seat: int) -> list[dict]:
    """The computer's fleet for ``seat``, bought now with the battle's logged dice (ruling PK1)."""
    fleets = book(pickup.ruleset)
    dice = CampaignDice(campaign, phase=f"pickup {pickup.pk} fleets", turn=1, concerns=(seat,))
    bought = fleets.computer_fleet(fleets.offers(None), pickup.points, dice)
    dice.commit()
    return [_ship_json(o) for o in bought]


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
    _not_cancelled(pickup)
    if not pickup.invite_token or pickup.status != PickupBattle.Status.INVITING:
        raise Conflict("this battle has its opponent: there is nobody to invite")
    address = _email(email)
    if address.casefold() == (user.email or "").casefold():
        raise PickupError("you cannot invite yourself")
    from campaign import accounts

    _limited(accounts.take_invitation_place(user, address))
    pickup.invite_email = address
    pickup.save(update_fields=["invite_email"])
    _mail_invitation(pickup, address)
    return pickup


def pickup_for_token(token) -> PickupBattle | None:
    if not isinstance(token, str) or not token or len(token) > 64:
        return None
    return PickupBattle.objects.filter(invite_token=token).select_related("creator").first()


def _free_seats(campaign: Campaign) -> list[int]:
    """The invited seats nobody holds yet (read under the pickup's row lock)."""
    return list(Empire.objects.filter(campaign=campaign, user__isnull=True, is_bot=False).order_by("seat")
                .values_list("seat", flat=True))


@transaction.atomic
def accept_pickup(*, token, user) -> PickupBattle:
    """``user`` accepts the invitation with ``token`` and takes the next free seat (seat 2 of a
    two-sided battle; ruling PK6). A two-sided battle's emailed invitation is for the account
    with that address; a second acceptance by the same user changes nothing. Two accepting the
    last free seat at once: the host campaign row, then the pickup row, are locked, so the second
    finds it taken (409)."""
    found = pickup_for_token(token)
    if found is None or not getattr(user, "is_authenticated", False):
        raise NotFound("no such invitation")
    campaign, pickup = _locked(found.pk)
    if pickup.status == PickupBattle.Status.CANCELLED:
        raise Gone(f"pickup battle {pickup.pk} was cancelled by its creator: this invitation no longer works")
    if pickup.opponent_id == user.pk or Empire.objects.filter(campaign=campaign, user=user, seat__gt=1).exists():
        return pickup  # accepted already (a double click)
    if pickup.creator_id == user.pk:
        raise PickupError("this is your own battle: send the link to your opponent")
    free = _free_seats(campaign) if pickup.status == PickupBattle.Status.INVITING else []
    if not free:
        raise Conflict("this invitation has been accepted already" if pickup.sides == 2
                       else "every seat of this battle is taken")
    if (pickup.sides == 2 and pickup.invite_email
            and pickup.invite_email.casefold() != (user.email or "").strip().casefold()):
        raise PickupError("this invitation was sent to another email address: log in with that account")
    seat = free[0]
    fields = []
    if seat == 2:
        pickup.opponent = user
        fields.append("opponent")
    if len(free) == 1:
        pickup.status = PickupBattle.Status.BUILDING
        fields.append("status")
    if fields:
        pickup.save(update_fields=fields)
    Empire.objects.filter(campaign=campaign, seat=seat).update(user=user, name=side_name(user))
    Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.PLAYER)
    if pickup.sides == 2:
        Campaign.objects.filter(pk=campaign.pk).update(
            name=f"Pickup battle: {pickup.creator.username} v. {user.username}"[:120])
    return pickup


# --- waiting: cancel, hand a seat to the computer, leave (ruling PK7) ----------------------------

def _not_cancelled(pickup: PickupBattle) -> None:
    if pickup.status == PickupBattle.Status.CANCELLED:
        raise Conflict(f"pickup battle {pickup.pk} was cancelled by its creator")


def _waiting(pickup: PickupBattle) -> None:
    """Refused (409) once the battle is cancelled or has started (ruling PK7)."""
    _not_cancelled(pickup)
    if pickup.status not in BUILDABLE:
        raise Conflict(f"pickup battle {pickup.pk} has started: it is fought now (a side may hand its fleet "
                       "to the computer on the play page)")


def _creator_waiting(pickup_id: int, user, doing: str) -> tuple[Campaign, PickupBattle]:
    campaign, pickup = _locked(pickup_id, user)  # anyone not in the battle: 404
    if pickup.creator_id != user.pk:
        raise Forbidden(f"only the battle's creator, {pickup.creator.username}, may {doing}")
    _waiting(pickup)
    return campaign, pickup


def _invited_name(pickup: PickupBattle, seat: int) -> str:
    return "The opponent" if pickup.sides == 2 else f"Seat {seat} (invited)"


def _mail_seat_lost(pickup: PickupBattle, emails: list[str], text: str) -> None:
    emails = [e for e in emails if e]
    if not emails:
        return
    subject = f"Pickup battle {pickup.pk}: {text.split(':')[0]}"

    def send():
        send_mail(subject, f"{text}\n\n{settings.SITE_URL.rstrip('/')}/battles/\n", None, emails)

    transaction.on_commit(send, robust=True)


@transaction.atomic
def cancel_pickup(*, pickup_id: int, user) -> PickupBattle:
    """The creator calls the battle off before it starts (ruling PK7): it is cancelled, its
    invitation link answers 410, no fleet is fought, and every player who took a seat is emailed
    (once the cancellation is committed). Not the creator: 403; after the start or a second
    time: 409."""
    campaign, pickup = _creator_waiting(pickup_id, user, "cancel it")
    pickup.status = PickupBattle.Status.CANCELLED
    pickup.save(update_fields=["status"])
    campaign.status = Campaign.Status.FINISHED
    campaign.save(update_fields=["status"])
    emails = list(Empire.objects.filter(campaign=campaign, seat__gt=1, user__isnull=False)
                  .order_by("seat").values_list("user__email", flat=True))
    _mail_seat_lost(pickup, emails, f"cancelled: {user.username} has cancelled pickup battle {pickup.pk} "
                                    "before it started; nothing will be fought.")
    log.info("pickup %s cancelled by %s", pickup.pk, user.pk)
    return pickup


@transaction.atomic
def hand_seat_to_computer(*, pickup_id: int, user, seat) -> PickupBattle:
    """Before the start the creator gives seat ``seat`` (2…), free or held by a player who has not
    built his fleet, to the computer: it buys its fleet at once with logged dice (ruling PK1, as at
    creation) and the player who held it is emailed and loses it. When that was the last fleet
    missing the battle starts (ruling PK7)."""
    campaign, pickup = _creator_waiting(pickup_id, user, "hand a seat to the computer")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 2 <= seat <= pickup.sides:
        raise PickupError(f"the seat must be one of 2 to {pickup.sides} (seat 1 is yours), not {seat!r}")
    row = Empire.objects.select_related("user").get(campaign=campaign, seat=seat)
    if row.is_bot:
        raise Conflict(f"seat {seat} is the computer's already")
    if str(seat) in (pickup.fleets or {}):
        raise Conflict(f"seat {seat}'s fleet is in: it is played by its player")
    held = row.user
    row.user, row.is_bot = None, True
    row.name = COMPUTER_NAME if pickup.sides == 2 else f"{COMPUTER_NAME} ({seat})"
    row.save(update_fields=["user", "is_bot", "name"])
    fields = ["fleets"]
    if held is not None:
        Membership.objects.filter(campaign=campaign, user=held).delete()
    if seat == 2:
        pickup.opponent = None
        fields.append("opponent")
        if pickup.sides == 2:
            pickup.computer = True
            fields.append("computer")
            Campaign.objects.filter(pk=campaign.pk).update(
                name=f"Pickup battle: {pickup.creator.username} v. {COMPUTER_NAME.lower()}"[:120])
    if pickup.status == PickupBattle.Status.INVITING and not _free_seats(campaign):
        pickup.status = PickupBattle.Status.BUILDING
        fields.append("status")
    pickup.fleets = {**(pickup.fleets or {}), str(seat): _computer_fleet(campaign, pickup, seat)}
    pickup.save(update_fields=fields)
    if held is not None:
        _mail_seat_lost(pickup, [held.email], f"your seat is the computer's: {user.username} has handed your seat "
                                              f"({seat}) in pickup battle {pickup.pk} to the computer before you "
                                              "built your fleet.")
    log.info("pickup %s seat %s handed to the computer by %s (held by %s)", pickup.pk, seat, user.pk,
             held.pk if held else None)
    _start_when_all_fleets_are_in(campaign, pickup)
    return pickup


@transaction.atomic
def leave_pickup(*, pickup_id: int, user) -> PickupBattle:
    """A player of seat 2… who has not submitted his fleet leaves it before the start: the seat is
    free again and the invitation link fills it (ruling PK7). The creator cancels instead."""
    campaign, pickup = _locked(pickup_id, user)  # not in the battle (or left it already): 404
    seat = pickup.seat_of(user)
    if seat == 1:
        raise Conflict("you created this battle: cancel it instead of leaving")
    _waiting(pickup)
    if seat is None:
        raise NotFound("no such pickup battle")
    if str(seat) in (pickup.fleets or {}):
        raise Conflict("your fleet is submitted: the battle waits for the others, and you cannot leave it")
    Empire.objects.filter(campaign=campaign, seat=seat).update(user=None, name=_invited_name(pickup, seat))
    Membership.objects.filter(campaign=campaign, user=user).delete()
    fields = ["status"]
    pickup.status = PickupBattle.Status.INVITING
    if seat == 2:
        pickup.opponent = None
        fields.append("opponent")
        if pickup.sides == 2:
            Campaign.objects.filter(pk=campaign.pk).update(
                name=f"Pickup battle: {pickup.creator.username} v. an invited player"[:120])
    if pickup.invite_email:  # that address was his: the link is open again to whoever takes the seat
        pickup.invite_email = ""
        fields.append("invite_email")
    if not pickup.invite_token:
        pickup.invite_token = secrets.token_urlsafe(24)
        fields.append("invite_token")
    pickup.save(update_fields=fields)
    log.info("pickup %s seat %s left by %s", pickup.pk, seat, user.pk)
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
    if seat == 1:
        return pickup.creator
    if seat == 2:
        return pickup.opponent
    return Empire.objects.filter(campaign_id=pickup.campaign_id, seat=seat).select_related("user").first().user


@transaction.atomic
def submit_fleet(*, pickup_id: int, user, ships) -> PickupBattle:
    """The player's fleet: ``ships`` a list of ship keys (a key once per ship bought). Refused
    with every problem: over the points total or the book's limits, a ship he may not buy; 409
    once submitted (a double submission buys nothing twice). When both fleets are in, the battle
    starts at once; with more sides, when every seat's is (ruling PK6)."""
    campaign, pickup = _locked(pickup_id, user)
    seat = pickup.seat_of(user)
    _not_cancelled(pickup)
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
    _start_when_all_fleets_are_in(campaign, pickup)
    return pickup


def _start_when_all_fleets_are_in(campaign: Campaign, pickup: PickupBattle) -> None:
    """The battle begins once every seat's fleet is in (rulings PK6, PK7)."""
    if {str(s) for s in range(1, pickup.sides + 1)} <= set(pickup.fleets or {}):
        _start(campaign, pickup)


def _start(campaign: Campaign, pickup: PickupBattle) -> Battle:
    from tactical.play import actions as play

    from .books import Offer

    fleets = {int(seat): [Offer(s["key"], s["name"], s["points"], data=s.get("sd")) for s in ships]
              for seat, ships in pickup.fleets.items()}
    names = dict(campaign.empires.values_list("seat", "name"))
    setup = book(pickup.ruleset).setup(fleets, names, COLOURS)
    bots = sorted(campaign.empires.filter(is_bot=True).values_list("seat", flat=True))
    battle = Battle.objects.create(
        campaign=campaign, turn=1, index=0, x=0, y=0, attacker=1, defender=2, aewa=False,
        mode=Battle.Mode.TACTICAL, ruleset=pickup.ruleset, setup=setup, deadline=None,
        doctrine_sides=bots)
    if pickup.sides == 2:
        text = f"Pickup battle: {names[1]} (attacker) against {names[2]} (defender)"
    else:
        text = f"Pickup battle of {pickup.sides} sides: " + ", ".join(names[s] for s in sorted(names))
    BattleLogEntry.objects.create(battle=battle, kind="created",
                                  text=f"{text}, {pickup.points} {book(pickup.ruleset).unit} a side.")
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


__all__ = [
    "Conflict",
    "Forbidden",
    "Gone",
    "NotFound",
    "cancel_pickup",
    "hand_seat_to_computer",
    "leave_pickup",
    "OPPONENTS",
    "OTHER_SEATS",
    "PickupError",
    "seat_rows",
    "accept_pickup",
    "create_pickup",
    "invite_by_email",
    "invite_url",
    "offers_for",
    "pickup_for_token",
    "record_result",
    "submit_fleet",
    "visible_pickups",
]
