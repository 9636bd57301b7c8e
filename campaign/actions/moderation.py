"""Moderation: pause, resume, extend, process now, roll back, substitute, audited admin edits,
the audit log and the options a moderator may switch.

A moderator's actions are refused to everyone else (NotAllowed: 403; outsiders NotFound: 404),
take the campaign row lock (so they wait for a turn being processed, and it for them) and are
each recorded in the audit log (AuditEntry: who, when, what, before, after).

Pause, resume, extend and roll back serve every campaign layer whose record has the "moderation"
feature (``campaign/layers.py``): the layer says which step is open and where its deadline is
(``current_step``, ``set_deadline``) and rolls back its own last turn or step (``roll_back``).
Process now, substitute and the rule options need the layer's "process_now", "substitute" and
"options" features (Event Horizon's); another layer's campaign is refused with NotFound.
"""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .. import layers, locks, versioning
from ..models import Campaign, Empire, Membership, Turn, TurnOrders
from .campaigns import BOOK_OPTION, DEFAULT_OPTIONS, SWITCHABLE_OPTIONS, check_battle_book
from .errors import ActionError, NotAllowed, NotFound, TurnClosed, _stale_turn
from .turns import _note_everyone_ready, _open_turn

MAX_EXTENSION_HOURS = 24 * 30
# Fields never copied into the audit log: secrets (the log opens to players at the end, and
# moderators must not learn the dice seed early) and bulky internals.
AUDIT_SKIPPED_FIELDS = {"dice_seed", "invite_token", "token", "snapshot", "secret_hash"}  # secrets and snapshots


def _moderated_campaign(campaign_id: int, user, *, doing: str, feature: str = "moderation") -> Campaign:
    """The campaign row, locked; outsiders, and campaigns whose layer lacks ``feature``, get
    NotFound, other members NotAllowed. ``user`` None is the site itself (a management command)."""
    from ..access import is_moderator, role_of

    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id, layer__in=layers.having(feature)).first()
    if campaign is None or (user is not None and role_of(user, campaign) is None):
        raise NotFound("no such campaign")
    if user is not None and not is_moderator(user, campaign):
        raise NotAllowed(f"only the campaign's moderators can {doing}")
    return campaign


def _jsonable(value):
    import json

    from django.core.serializers.json import DjangoJSONEncoder

    return None if value is None else json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def _audit(campaign: Campaign, user, action: str, target: str, before=None, after=None, note: str = ""):
    from ..models import AuditEntry

    return AuditEntry.objects.create(
        campaign=campaign, user=user if user is not None and user.is_authenticated else None, action=action,
        target=target[:120], before=_jsonable(before), after=_jsonable(after), note=note,
    )


def audit_fields(instance) -> dict:
    """A model row as the audit log shows it: every stored field (foreign keys as ids), minus
    secrets and snapshots."""
    return _jsonable({
        f.attname: f.value_from_object(instance)
        for f in instance._meta.concrete_fields if f.name not in AUDIT_SKIPPED_FIELDS
    })


def _seconds(delta) -> int | None:
    return None if delta is None else int(delta.total_seconds())


@transaction.atomic
def pause_campaign(*, campaign_id: int, user, now=None) -> Campaign:
    """Stop the clock: no turn is processed while paused (orders are still taken). The time left
    to the deadline is kept and given back by ``resume_campaign``."""
    from datetime import timedelta

    now = now or timezone.now()
    campaign = _moderated_campaign(campaign_id, user, doing="pause the campaign")
    if campaign.status != Campaign.Status.ACTIVE:
        raise ActionError(f"only a running campaign can be paused; this one is {campaign.get_status_display().lower()}")
    if campaign.paused:
        raise ActionError("the campaign is already paused")
    step = layers.of(campaign).current_step(campaign)
    deadline = step.deadline
    campaign.paused = True
    campaign.paused_remaining = max(deadline - now, timedelta(0)) if deadline is not None else None
    campaign.save(update_fields=["paused", "paused_remaining"])
    _audit(campaign, user, "pause", step.label, {"paused": False, "deadline": deadline},
           {"paused": True, "seconds_left": _seconds(campaign.paused_remaining)})
    layer = layers.of(campaign)
    if layer.after_pause is not None:
        layer.after_pause(campaign, step, now=now)
    return campaign


@transaction.atomic
def resume_campaign(*, campaign_id: int, user, now=None) -> Campaign:
    """Restart the clock: the open turn's deadline becomes now plus the time that was left when
    the campaign was paused (no deadline if it had none). A turn whose players are all ready is
    processed at once."""
    now = now or timezone.now()
    campaign = _moderated_campaign(campaign_id, user, doing="resume the campaign")
    if not campaign.paused:
        raise ActionError("the campaign is not paused")
    layer = layers.of(campaign)
    step = layer.current_step(campaign, lock=True)
    before = {"paused": True, "seconds_left": _seconds(campaign.paused_remaining), "deadline": step.deadline}
    deadline = step.deadline
    if step.open:
        deadline = now + campaign.paused_remaining if campaign.paused_remaining is not None else None
        layer.set_deadline(campaign, step, deadline)
    campaign.paused, campaign.paused_remaining = False, None
    campaign.save(update_fields=["paused", "paused_remaining"])
    _audit(campaign, user, "resume", step.label, before, {"paused": False, "deadline": deadline})
    if step.open and campaign.status == Campaign.Status.ACTIVE and layer.after_resume is not None:
        layer.after_resume(campaign, step, now=now)
    return campaign


@transaction.atomic
def extend_deadline(*, campaign_id: int, user, hours, now=None) -> Turn:
    """Give the players of the open turn more time: the deadline moves ``hours`` later (from now
    if it has passed or there was none). While paused, the time kept for the resume grows."""
    from datetime import timedelta

    now = now or timezone.now()
    campaign = _moderated_campaign(campaign_id, user, doing="extend the deadline")
    if isinstance(hours, bool) or not isinstance(hours, int) or not 1 <= hours <= MAX_EXTENSION_HOURS:
        raise ActionError(f"extend by a whole number of hours from 1 to {MAX_EXTENSION_HOURS}, not {hours!r}")
    layer = layers.of(campaign)
    step = layer.current_step(campaign, lock=True)
    if campaign.status != Campaign.Status.ACTIVE or not step.open:
        raise ActionError("no turn is open for orders, so there is no deadline to extend")
    extra = timedelta(hours=hours)
    if campaign.paused:
        before = {"seconds_left": _seconds(campaign.paused_remaining)}
        campaign.paused_remaining = (campaign.paused_remaining or timedelta(0)) + extra
        campaign.save(update_fields=["paused_remaining"])
        after = {"seconds_left": _seconds(campaign.paused_remaining), "paused": True}
    else:
        before = {"deadline": step.deadline}
        deadline = max(step.deadline, now) + extra if step.deadline is not None else now + extra
        layer.set_deadline(campaign, step, deadline)
        after = {"deadline": deadline}
    _audit(campaign, user, "extend", step.label, before, after, note=f"+{hours} h")
    return layer.current_step(campaign)


@transaction.atomic
def process_now(*, campaign_id: int, user, turn_number: int | None = None) -> Turn:
    """The moderator processes the open turn now, whoever is ready. Computer seats write their
    orders as the turn is processed (the layer's ``process_turn``, through its record, after its
    snapshot, so a roll-back returns to exactly the state before this call). Processing ends a pause.

    ``turn_number`` names the turn to process: the panel and the API always send it, so a double
    click or a retried request processes it once; the repeat is refused (StaleTurn, 409, naming
    the current turn) and changes nothing. None processes whatever turn is open (scripts, tests)."""
    campaign = _moderated_campaign(campaign_id, user, doing="process a turn", feature="process_now")
    if turn_number is not None and turn_number != campaign.turn:
        raise _stale_turn(campaign, turn_number, "process")
    try:
        turn = _open_turn(campaign, lock=False)
    except TurnClosed:
        if turn_number is None:
            raise
        raise _stale_turn(campaign, turn_number, "process") from None
    was_paused = campaign.paused
    if was_paused:
        campaign.paused, campaign.paused_remaining = False, None
        campaign.save(update_fields=["paused", "paused_remaining"])
    ready = list(TurnOrders.objects.filter(turn=turn, ready=True).values_list("empire__seat", flat=True))
    done = layers.of(campaign).process_turn(campaign_id=campaign.pk, turn_number=turn.number)
    if done is None:
        raise TurnClosed(f"turn {turn.number} is not open for processing")
    campaign.refresh_from_db(fields=["turn", "status"])
    _audit(campaign, user, "process_now", f"turn {turn.number}",
           {"turn": turn.number, "deadline": turn.deadline, "ready_seats": sorted(ready), "paused": was_paused},
           {"turn": campaign.turn, "status": campaign.status})
    return done


def roll_back_step(*, campaign_id: int, user, number: int | None = None):
    """Undo the campaign's last processed turn or step, whatever its layer: the layer's own
    roll-back (``CampaignLayer.roll_back``; Event Horizon: ``roll_back_turn``), which locks the
    campaign row first, checks the moderator, restores its snapshot, cuts the dice log back,
    leaves the campaign paused and writes the audit entry. Returns the ``layers.Step`` undone."""
    campaign = Campaign.objects.filter(pk=campaign_id, layer__in=layers.having("moderation")).first()
    if campaign is None:
        raise NotFound("no such campaign")
    return layers.of(campaign).roll_back(campaign_id=campaign_id, user=user, number=number)


@transaction.atomic
def substitute_player(*, campaign_id: int, user, seat: int, username: str, old_player: str = "observer") -> Empire:
    """Hand a seat to another person (a substitute, or someone taking a computer seat), or to the
    computer (``username`` empty). The old player's membership loses the empire and becomes an
    observer's (``old_player="observer"``) or is removed (``"remove"``). The seat's orders for
    the open turn stay, not marked ready, for the newcomer to check."""
    from django.contrib.auth import get_user_model

    from ..access import is_moderator

    campaign = _moderated_campaign(campaign_id, user, doing="substitute players", feature="substitute")
    if campaign.status != Campaign.Status.ACTIVE:
        raise ActionError("players can be substituted only while the campaign runs (in the lobby they join and leave)")
    if old_player not in ("observer", "remove"):
        raise ActionError(f"the old player either stays as an observer or is removed, not {old_player!r}")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise ActionError(f"a seat is a number, not {seat!r}")
    # Locking order (campaign/locks.py): the campaign row (above), the open turn's row (its
    # everyone-ready mark changes with who plays the seat), then the seat's.
    turn = locks.turn(campaign.pk, campaign.turn, status=Turn.Status.OPEN)
    # No select_related("user"): PostgreSQL cannot lock the nullable side of an outer join.
    empire = locks.rows(Empire.objects.filter(campaign=campaign, seat=seat)).first()
    if empire is None:
        raise ActionError(f"this campaign has no seat {seat}")
    if empire.eliminated:
        raise ActionError(f"{empire.name} (seat {seat}) has been eliminated")
    username = username.strip() if isinstance(username, str) else ""
    new = None
    if username:
        new = get_user_model()._default_manager.filter(username=username).first()
        if new is None:
            raise ActionError(f"there is no user called {username!r}")
        if new.pk == empire.user_id:
            raise ActionError(f"{username} already plays seat {seat}")
        if is_moderator(new, campaign):
            raise ActionError(f"{username} moderates this campaign: a moderator cannot also play")
        if campaign.empires.filter(user=new).exists():
            raise ActionError(f"{username} already plays another seat in this campaign")
    elif empire.user_id is None and empire.is_bot:
        raise ActionError(f"seat {seat} is already played by the computer")
    before = {"user": empire.user.username if empire.user else None, "is_bot": empire.is_bot,
              "auto_bot": empire.auto_bot, "missed_turns": empire.missed_turns}
    old_user = empire.user
    if old_user is not None:
        membership = Membership.objects.filter(campaign=campaign, user=old_user).first()
        if old_player == "remove":
            if membership is not None:
                membership.delete()
        elif membership is None:
            Membership.objects.create(campaign=campaign, user=old_user, role=Membership.Role.OBSERVER)
        else:
            membership.role, membership.empire = Membership.Role.OBSERVER, None
            membership.save(update_fields=["role", "empire"])
    Membership.objects.filter(empire=empire).update(empire=None)  # an empire has one player's membership
    if new is not None:
        membership = Membership.objects.filter(campaign=campaign, user=new).first() or Membership(
            campaign=campaign, user=new, empire_name=empire.name, faction=empire.faction, colour=empire.colour
        )
        membership.role, membership.empire = Membership.Role.PLAYER, empire
        membership.save()
        TurnOrders.objects.filter(
            empire=empire, turn__number=campaign.turn, turn__status=Turn.Status.OPEN
        ).update(ready=False)
    empire.user, empire.is_bot, empire.auto_bot, empire.missed_turns = new, new is None, False, 0
    empire.save(update_fields=["user", "is_bot", "auto_bot", "missed_turns"])
    if turn is not None:
        turn.campaign = campaign
        # a seat handed to the computer may leave every player ready (the due sweep takes it)
        _note_everyone_ready(turn)
    _audit(campaign, user, "substitute", f"seat {seat} ({empire.name})", before,
           {"user": new.username if new else None, "is_bot": empire.is_bot, "auto_bot": False, "missed_turns": 0},
           note=f"old player {old_user.username if old_user else '(none)'}: "
                f"{'removed' if old_player == 'remove' else 'now an observer'}" if old_user else "")
    return empire


def _campaign_of(instance) -> Campaign | None:
    if isinstance(instance, Campaign):
        return instance
    if isinstance(instance, TurnOrders):
        return instance.turn.campaign
    return getattr(instance, "campaign", None)


@transaction.atomic
def admin_edit(*, user, instance, save=None, delete: bool = False):
    """A site admin's change to a campaign's state through the Django admin (campaign/admin.py):
    the row is saved (``save``, the admin's own save, or ``instance.save``) or deleted, and the
    change recorded in the campaign's audit log with the row before and after. Takes the campaign
    row lock, so an edit never lands in the middle of a turn being processed. Returns the audit
    entry (None for the starter design library, which belongs to no campaign, and for a deleted
    campaign, whose log goes with it)."""
    import logging

    model = type(instance)
    old = model._default_manager.filter(pk=instance.pk).first() if instance.pk is not None else None
    campaign = _campaign_of(old or instance)
    if campaign is not None and campaign.pk is not None:
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        versioning.bump(campaign.pk)  # a deletion (and what cascades from it) sends no save signal
    before = audit_fields(old) if old is not None else None
    label = model._meta.verbose_name
    if delete:
        target = f"{label} {instance.pk}: {instance}"
        instance.delete()
        after = None
    else:
        (save or instance.save)()
        target = f"{label} {instance.pk}: {instance}"
        after = audit_fields(instance)
    if campaign is None:
        return None
    if isinstance(instance, Campaign) and delete:
        logging.getLogger(__name__).warning("campaign %s deleted in the admin by %s", before.get("id"), user)
        return None
    action = "admin_delete" if delete else ("admin_change" if old is not None else "admin_add")
    return _audit(Campaign.objects.get(pk=campaign.pk), user, action, target, before, after)


@transaction.atomic
def set_campaign_option(*, campaign_id: int, user, key: str, value) -> Campaign:
    """A moderator switches a rule option of a running campaign (RULINGS "(option)"); the next
    turn processed uses it. Audited."""
    campaign = _moderated_campaign(campaign_id, user, doing="change the campaign's rule options", feature="options")
    if campaign.status == Campaign.Status.FINISHED:
        raise ActionError("the campaign has finished; its options can no longer change")
    switchable = SWITCHABLE_OPTIONS & layers.of(campaign).options
    if key not in switchable:
        known = ", ".join(sorted(switchable))
        raise ActionError(f"campaign option {key!r} cannot be switched during a campaign (options that can: {known})")
    if type(value) is not type(DEFAULT_OPTIONS[key]):
        raise ActionError(f"campaign option {key} must be {type(DEFAULT_OPTIONS[key]).__name__}, not {value!r}")
    if key == BOOK_OPTION:
        value = check_battle_book(campaign.layer, value, campaign=campaign) if value != campaign.options.get(
            key, "") else value
    before = campaign.options.get(key, DEFAULT_OPTIONS[key])
    if before == value:
        return campaign
    campaign.options = {**campaign.options, key: value}
    campaign.save(update_fields=["options"])
    _audit(campaign, user, "set_option", f"option {key}", {key: before}, {key: value})
    return campaign
