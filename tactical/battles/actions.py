"""Battle actions (issue 5): every state change of a battle goes through one of these.

Each is atomic, locks the campaign row first (the campaign's dice stream and its turn are
shared by every battle of the turn), checks who is asking, and leaves the battle's log entry.
Views, the API and the Celery tasks only call them. The embedded battle's own actions (taking an
activation, handing a fleet to the doctrine) are in ``tactical/play/actions.py``; what-if runs in
``tactical/whatif/runs.py``. Rulings C15–C20 (docs/rulings.md); flow in docs/battles.md.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from campaign import access, locks
from campaign.models import Campaign, Empire, Membership
from campaign.rules.eventhorizon.conflict import ResultError
from tactical.battles.forms import seat_name
from tactical.hosts.cam.scenarios import cam_seats
from tactical.hosts.eventhorizon import lifecycle
from tactical.hosts.eventhorizon.lifecycle import BattleError
from tactical.models import Battle


class NotAllowed(BattleError):
    """The user may not do this to this battle."""


class NotFound(BattleError):
    """No such battle, or one the user may not see (pages answer 404)."""


def visible_battles(user):
    """Battles a user may look at: those of campaigns he moderates, and those his empire fights
    (an observer or another player of the campaign sees a battle's result in the turn report).
    One filter of fixed size whatever the number of seats the user holds (issue 33: a term per
    seat made a campaign page cost CPU per campaign its viewer played in anywhere on the site)."""
    if not user.is_authenticated:
        return Battle.objects.none()
    # access.role_of's rules (creator or moderator membership), as one subquery, not per campaign.
    moderated = Campaign.objects.filter(
        Q(moderator=user) | Q(memberships__user=user, memberships__role=Membership.Role.MODERATOR)).values("pk")
    q = Q(campaign_id__in=moderated)
    for side in ("attacker", "defender"):  # an empire's seat, or a CAM player's (tactical/battles/cam.py)
        q |= Q(Exists(Empire.objects.filter(user=user, campaign_id=OuterRef("campaign_id"), seat=OuterRef(side))))
        q |= Q(Exists(cam_seats(user).filter(cam_id=OuterRef("campaign_id"), seat=OuterRef(side))))
    # Seats 3 and above (a pickup battle of more sides, ruling PK6) are listed in the battle's
    # setup only (``Battle.seats``): read there, for the campaigns where the user holds such a seat.
    beyond = set(Empire.objects.filter(user=user, seat__gt=2).values_list("campaign_id", "seat"))
    beyond |= set(cam_seats(user).filter(seat__gt=2))
    if beyond:
        held = [b.pk for b in Battle.objects.filter(campaign_id__in={c for c, _ in beyond})
                if any((b.campaign_id, s) in beyond for s in b.seats)]
        q |= Q(pk__in=held)
    return Battle.objects.filter(q)


def seat_of(user, battle: Battle) -> int | None:
    """The seat the user plays in this battle, if any."""
    if not user.is_authenticated:
        return None
    from tactical.play import kinds

    host_seats = kinds.HOST_SEATS.get(battle.campaign.layer)
    if host_seats is not None and kinds.kind_for(battle) is None:  # a CAM scenario's players (issue 31)
        seats = sorted(host_seats(user, battle))
        return seats[0] if seats else None
    empire = Empire.objects.filter(campaign_id=battle.campaign_id, user=user, seat__in=battle.seats).first()
    return empire.seat if empire else None


def _locked(battle_id: int, user, *, doing: str) -> tuple[Campaign, Battle]:
    battle = visible_battles(user).filter(pk=battle_id).first()
    if battle is None:
        raise NotFound(f"there is no battle {battle_id} you can see")
    campaign = Campaign.objects.select_for_update().get(pk=battle.campaign_id)
    battle = Battle.objects.select_for_update().get(pk=battle_id)
    battle.campaign = campaign
    if battle.resolved:
        raise BattleError(f"battle {battle.pk} is already resolved: you cannot {doing}")
    if "cam" in (battle.setup or {}):  # a CAM scenario fought online (tactical/hosts/cam/scenarios.py)
        raise BattleError(f"battle {battle.pk} is a CAM scenario fought online: settle it on the scenario's page")
    return campaign, battle


def _side_seat(user, battle: Battle, *, doing: str) -> int:
    seat = seat_of(user, battle)
    if seat is None:
        raise NotAllowed(f"only the players of the two sides can {doing}")
    return seat


# --- tabletop result entry -----------------------------------------------------------------------

@transaction.atomic
def enter_result(*, battle_id: int, user, result) -> Battle:
    """Either side enters the outcome of a tabletop battle ship by ship (docs/battles.md
    "Result"); the other side then confirms or disputes it. Entering again (also after a
    dispute) replaces the entry, and the other side is asked to confirm the new one."""
    campaign, battle = _locked(battle_id, user, doing="enter a result")
    seat = _side_seat(user, battle, doing="enter the result of their battle")
    if battle.mode != Battle.Mode.TABLETOP:
        raise BattleError(f"battle {battle.pk} is {Battle.Mode(battle.mode).label.lower()}, not a tabletop battle")
    try:
        checked = lifecycle.check_result(battle, result, "tabletop")
    except ResultError as exc:
        raise BattleError(str(exc)) from None
    battle.proposal = lifecycle.result_to_json(checked)
    battle.proposed_by = seat
    battle.status = Battle.Status.ENTERED
    battle.save(update_fields=["proposal", "proposed_by", "status"])
    lifecycle.log(
        battle,
        "entered",
        f"{seat_name(battle, seat)} entered the result: {describe(battle, battle.proposal)}",
        user=user,
        seat=seat,
        data={"result": battle.proposal},
    )
    other = battle.defender if seat == battle.attacker else battle.attacker
    lifecycle.notify_sides(battle, f"{seat_name(battle, seat)} entered the result of the battle at {battle.hex}: "
                                    "please confirm or dispute it.", seats=[other])
    return battle


@transaction.atomic
def confirm_result(*, battle_id: int, user) -> Battle:
    """The other side confirms the entered result: the battle is resolved with it."""
    campaign, battle = _locked(battle_id, user, doing="confirm a result")
    seat = _side_seat(user, battle, doing="confirm the result of their battle")
    if battle.status != Battle.Status.ENTERED or battle.proposal is None:
        raise BattleError("there is no entered result waiting to be confirmed")
    if seat == battle.proposed_by:
        raise NotAllowed("the other side must confirm the result you entered")
    lifecycle.log(battle, "confirmed", f"{seat_name(battle, seat)} confirmed the result.", user=user, seat=seat)
    try:
        return lifecycle.record_result(battle=battle, result=battle.proposal, how=Battle.How.TABLETOP, user=user)
    except ResultError as exc:  # the campaign changed under it (a moderator's edit)
        raise BattleError(f"the entered result no longer fits the campaign: {exc}") from None


@transaction.atomic
def dispute_result(*, battle_id: int, user, reason: str) -> Battle:
    """The other side disputes the entered result, saying why; the moderator settles it."""
    campaign, battle = _locked(battle_id, user, doing="dispute a result")
    seat = _side_seat(user, battle, doing="dispute the result of their battle")
    reason = (reason or "").strip()
    if not reason:
        raise BattleError("say what is wrong with the entered result")
    if len(reason) > 2000:
        raise BattleError("keep the reason under 2,000 characters")
    if battle.status != Battle.Status.ENTERED:
        raise BattleError("there is no entered result waiting to be confirmed")
    if seat == battle.proposed_by:
        raise NotAllowed("you entered this result; enter it again to change it")
    battle.status = Battle.Status.DISPUTED
    battle.save(update_fields=["status"])
    lifecycle.log(battle, "disputed", f"{seat_name(battle, seat)} disputes the result: {reason}", user=user, seat=seat,
                  data={"reason": reason})
    from campaign import actions as campaign_actions

    campaign_actions.notify_moderators(
        campaign_id=campaign.pk,
        turn=battle.turn,
        text=f"{seat_name(battle, seat)} disputes the result of the battle at {battle.hex} (battle "
             f"{battle.pk}): {reason}. "
        "Settle it on the battle's page.",
    )
    return battle


@transaction.atomic
def settle_battle(*, battle_id: int, user, result=None, auto: bool = False, note: str = "") -> Battle:
    """The moderator settles a battle: with a result (ship by ship, as entered), with the entered
    result as it stands, or by auto-resolve (``auto``) when the turn completes."""
    campaign, battle = _locked(battle_id, user, doing="settle it")
    if not access.is_moderator(user, campaign):
        raise NotAllowed("only the campaign's moderator can settle a battle")
    if auto:
        return lifecycle.record_result(battle=battle, result=None, how=Battle.How.MODERATOR, user=user,
                                       note=note or "auto-resolved by the moderator")
    if result is None:
        result = battle.proposal
        if result is None:
            raise BattleError("give the result, or settle by auto-resolve: nothing has been entered")
    try:
        return lifecycle.record_result(battle=battle, result=result, how=Battle.How.MODERATOR, user=user, note=note)
    except ResultError as exc:
        raise BattleError(str(exc)) from None


def modes_open_to(battle: Battle) -> list[str]:
    """The modes the moderator can switch an unresolved battle to (issue 13 item 10): auto-resolve
    always; a tabletop battle can also be played online instead (its deck is dealt then); an
    embedded battle, once dealt, can only be auto-resolved (or settled)."""
    if battle.resolved:
        return []
    if battle.mode == Battle.Mode.TABLETOP:
        return [Battle.Mode.AUTO, Battle.Mode.TACTICAL]
    return [Battle.Mode.AUTO]


@transaction.atomic
def change_mode(*, battle_id: int, user, mode: str) -> Battle:
    """The moderator changes how an unresolved battle is settled: auto-resolve (the battle is
    settled, auto-resolved when the turn completes), or a tabletop battle played online instead
    (an entered result is dropped; the embedded battle begins at once). ``modes_open_to``."""
    campaign, battle = _locked(battle_id, user, doing="change how it is settled")
    if not access.is_moderator(user, campaign):
        raise NotAllowed("only the campaign's moderator can change how a battle is settled")
    if mode not in Battle.Mode.values:
        raise BattleError(f"mode must be one of {', '.join(Battle.Mode.values)}, not {mode!r}")
    if mode == battle.mode:
        raise BattleError(f"battle {battle.pk} is already {Battle.Mode(mode).label.lower()}")
    if mode not in modes_open_to(battle):
        raise BattleError("an embedded battle's deck is dealt: it cannot be switched to another mode; "
                          "settle it or have it auto-resolved")
    if mode == Battle.Mode.AUTO:
        return lifecycle.record_result(battle=battle, result=None, how=Battle.How.MODERATOR, user=user,
                                       note="the moderator had it auto-resolved")
    before = battle.mode
    dropped = battle.proposal is not None
    battle.proposal, battle.proposed_by = None, None
    battle.status = Battle.Status.WAITING
    battle.save(update_fields=["proposal", "proposed_by", "status"])
    lifecycle.log(battle, "mode", f"The moderator changed the battle from {before} to {mode}"
                  + (" (the entered result is dropped)." if dropped else "."), user=user)
    from tactical.play import actions as play

    lifecycle.convert(battle, battle.campaign)  # on the rule book the campaign chose (issue 31)
    play.begin(battle)  # deployment by hand first, or straight to the first card
    lifecycle.notify_sides(battle, f"The battle at {battle.hex} is now to be played online: "
                                   "see its battle page.")
    return battle


# --- deadlines -------------------------------------------------------------------------------------

def due_battles(now=None):
    now = now or timezone.now()
    # A CAM scenario fought online has decision deadlines only (tactical/hosts/cam/scenarios.py).
    # The unsettled statuses named, not "not resolved nor disputed": an IN list both databases
    # answer from the (status, deadline) index; SQLite's planner cannot use a partial index for
    # a NOT IN, and read every battle ever fought on each sweep (issue 33).
    unsettled = [s for s in Battle.Status.values if s not in (Battle.Status.RESOLVED, Battle.Status.DISPUTED)]
    return Battle.objects.filter(deadline__lte=now, status__in=unsettled).exclude(
        setup__has_key="cam").values_list("pk", flat=True)


@transaction.atomic
def settle_due_battle(battle_id: int, now=None) -> bool:
    """A battle past its deadline is settled without the players (ruling C19): an entered result
    nobody disputed stands; an embedded battle is played to its end by the doctrine for both
    sides; anything else is auto-resolved when the turn completes. A disputed battle waits for
    the moderator."""
    now = now or timezone.now()
    battle = Battle.objects.filter(pk=battle_id).first()
    if battle is None:
        return False
    campaign = Campaign.objects.select_for_update().get(pk=battle.campaign_id)
    battle = Battle.objects.select_for_update().get(pk=battle_id)
    battle.campaign = campaign
    if battle.resolved or battle.status == Battle.Status.DISPUTED or battle.deadline is None or battle.deadline > now:
        return False
    if battle.status == Battle.Status.ENTERED and battle.proposal is not None:
        try:
            lifecycle.record_result(battle=battle, result=battle.proposal, how=Battle.How.UNCONFIRMED,
                                    note="not disputed by the deadline")
            return True
        except ResultError:
            pass
    if battle.mode == Battle.Mode.TACTICAL and battle.status in (Battle.Status.PLAYING, Battle.Status.DEPLOYING):
        from tactical.play import actions as play

        if battle.status == Battle.Status.DEPLOYING:  # sides not deployed yet line up automatically
            play.finish_deployment(battle)
            battle.refresh_from_db()
            battle.campaign = campaign
            if battle.resolved:
                return True
        play.finish_with_doctrine(battle)
        return True
    lifecycle.record_result(battle=battle, result=None, how=Battle.How.DEADLINE, note="the battle deadline passed")
    return True


def settle_due_battles(now=None) -> int:
    """Every battle past its deadline, each in its own transaction."""
    return sum(1 for pk in list(due_battles(now)) if settle_due_battle(pk, now))


# --- preferences -------------------------------------------------------------------------------------

@transaction.atomic
def set_battle_preference(*, empire_id: int, user, preference: str) -> Empire:
    """A player says how he asks for his battles to be settled (used if the campaign lets players
    ask: Campaign.battle_requests)."""
    # The empire row alone (campaign/locks.py: no implicit join to the campaign row).
    empire = locks.rows(Empire.objects.filter(pk=empire_id, user=user)).first()
    if empire is None:
        raise NotFound("that is not your empire")
    # A plain read, not a lock: the lock order forbids the campaign row after an empire row.
    campaign = Campaign.objects.only("battle_requests", "battle_mode").get(pk=empire.campaign_id)
    if campaign.battle_requests == "nobody":
        raise BattleError("this campaign does not let players ask how their battles are settled "
                          f"(ruling C17, BR3): every battle is {campaign.get_battle_mode_display().lower()}")
    allowed = [c[0] for c in Empire._meta.get_field("battle_preference").choices]
    if preference not in allowed:
        raise BattleError(f"battle preference must be one of {', '.join(repr(a) for a in allowed)}, not {preference!r}")
    empire.battle_preference = preference
    empire.save(update_fields=["battle_preference"])
    return empire


# --- describing results ----------------------------------------------------------------------------

def describe(battle: Battle, result: dict | None) -> str:
    if not result:
        return "left to auto-resolve"
    counts: dict[str, int] = {}
    for r in result["ships"]:
        counts[r["fate"]] = counts.get(r["fate"], 0) + 1
    holder = result.get("holder")
    parts = [f"{n} {fate.replace('_', ' ')}" for fate, n in sorted(counts.items())]
    return (
        (
            f"{seat_name(battle, holder)} holds the field"
            if holder is not None
            else "neither side holds the field"
        )
        + "; ships: "
        + ", ".join(parts)
    )
