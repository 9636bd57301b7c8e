"""Away dates (issue 32 item 1, docs/groups.md): a player declares when he is away, for one
campaign or all of his; each campaign's policy (``AwayPolicy``; none: extend, 168 h) says what
happens, through the campaign's layer record (``campaign/layers.py``: ``current_step``,
``set_deadline``, ``seats``, ``away_modes``, ``hold_seat``). Every effect is an ``AwayEffect`` and
an audit entry; returning early (or cancelling) undoes what can still be undone.

``apply_absences`` is the sweep (Celery beat's ``groups-away``, and each declaration applies its
own at once): an extension is made when the open step's deadline falls inside an absence, so a
step opened after the declaration is extended by the next sweep.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from campaign import layers, locks
from campaign.actions.errors import ActionError, NotAllowed, NotFound
from campaign.actions.moderation import _audit
from campaign.models import Campaign

from .models import Absence, AwayEffect, AwayMode, AwayPolicy

MAX_ABSENCE_DAYS = 90
MAX_OPEN_ABSENCES = 20
MAX_LIMIT_HOURS = 24 * 30
# A deadline given back on an early return never falls sooner than this after the return.
RETURN_GRACE = timedelta(hours=1)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _when(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def policy_of(campaign: Campaign) -> AwayPolicy:
    """The campaign's away policy (an unsaved default when it has none)."""
    return AwayPolicy.objects.filter(campaign=campaign).first() or AwayPolicy(campaign=campaign)


def mode_for(campaign: Campaign) -> str | None:
    """What the campaign does for an away seat: its policy's mode if its layer offers it, else
    "extend" if the layer offers that, else None (the pickup host: nothing)."""
    offered = layers.of(campaign).away_modes
    mode = policy_of(campaign).mode
    return mode if mode in offered else ("extend" if "extend" in offered else None)


def _away_campaigns(user):
    from campaign.access import visible_campaigns

    return visible_campaigns(user).filter(status=Campaign.Status.ACTIVE, layer__in=[
        layer.key for layer in layers.all_layers() if layer.away_modes])


def seats_of(campaign: Campaign, user_id: int) -> list[int]:
    seats = layers.of(campaign).seats
    return [s.number for s in (seats(campaign) if seats else []) if s.user_id == user_id and not s.bot]


def _clean(starts, ends, note, now) -> str:
    if not isinstance(starts, datetime) or not isinstance(ends, datetime):
        raise ActionError("give the first and last moment of the absence as dates and times")
    if timezone.is_naive(starts) or timezone.is_naive(ends):
        raise ActionError("an absence's times need a time zone")
    if ends <= starts:
        raise ActionError("an absence ends after it starts")
    if ends <= now:
        raise ActionError("that absence is already over")
    if ends - starts > timedelta(days=MAX_ABSENCE_DAYS):
        raise ActionError(f"an absence lasts at most {MAX_ABSENCE_DAYS} days; ask the moderator for a pause")
    note = note.strip() if isinstance(note, str) else ""
    if len(note) > 200:
        raise ActionError("the note is at most 200 characters")
    return note


@transaction.atomic
def declare_absence(*, user, starts, ends, note: str = "", campaign_id: int | None = None, now=None) -> Absence:
    """Declare an away period: for ``campaign_id`` (a campaign the user plays in) or, None, for
    all of his campaigns. Its effects are made at once where a deadline already falls inside."""
    now = now or timezone.now()
    note = _clean(starts, ends, note, now)
    campaign = None
    if campaign_id is not None:
        from campaign.access import role_of

        campaign = Campaign.objects.filter(pk=campaign_id).first()
        role = role_of(user, campaign) if campaign is not None else None
        if role is None:
            raise NotFound("no such campaign")
        in_lobby = campaign.status == Campaign.Status.SETUP and role == "player"
        if not in_lobby and not seats_of(campaign, user.pk):
            raise NotAllowed("only a player with a seat declares an absence in a campaign")
    if Absence.objects.filter(user=user, ended_at__isnull=True, ends__gt=now).count() >= MAX_OPEN_ABSENCES:
        raise ActionError(f"you have {MAX_OPEN_ABSENCES} absences to come already; cancel one first")
    absence = Absence.objects.create(user=user, campaign=campaign, starts=starts, ends=ends, note=note)
    for c in _scope(absence):
        _apply_campaign(absence, c, now)
    return absence


def _scope(absence: Absence):
    qs = _away_campaigns(absence.user)
    if absence.campaign_id is not None:
        qs = qs.filter(pk=absence.campaign_id)
    return list(qs.order_by("pk").values_list("pk", flat=True))


def _apply_campaign(absence: Absence, campaign_id: int, now) -> int:
    """Make what ``absence`` does to one campaign now (campaign row locked first). Returns the
    effects made."""
    campaign = locks.campaign(campaign_id)
    if campaign is None or campaign.status != Campaign.Status.ACTIVE:
        return 0
    mode = mode_for(campaign)
    seats = seats_of(campaign, absence.user_id)
    if mode is None or not seats:
        return 0
    if mode == AwayMode.EXTEND:
        return _extend(absence, campaign, seats[0], now)
    if not absence.starts <= now < absence.ends:
        return 0
    if mode == AwayMode.SUBSTITUTE:
        return _ask_substitute(absence, campaign, seats[0], now)
    return sum(_hold(absence, campaign, seat, mode, now) for seat in seats)


def _extend(absence: Absence, campaign: Campaign, seat: int, now) -> int:
    layer = layers.of(campaign)
    if campaign.paused:
        return 0
    step = layer.current_step(campaign, lock=True)
    deadline = step.deadline
    if not step.open or deadline is None or deadline <= now or not absence.starts <= deadline < absence.ends:
        return 0
    if AwayEffect.objects.filter(absence=absence, campaign=campaign, kind=AwayMode.EXTEND, step=step.number).exists():
        return 0
    limit = timedelta(hours=policy_of(campaign).limit_hours)
    new = min(absence.ends, deadline + limit)
    if new <= deadline:
        return 0
    layer.set_deadline(campaign, step, new)
    AwayEffect.objects.create(absence=absence, campaign=campaign, seat=seat, kind=AwayMode.EXTEND,
                              step=step.number, before={"deadline": _iso(deadline)},
                              after={"deadline": _iso(new)}, applied_at=now)
    _audit(campaign, absence.user, "away_extend", step.label, {"deadline": deadline}, {"deadline": new},
           note=f"seat {seat} away until {absence.ends:%Y-%m-%d %H:%M} UTC (policy: extend, "
                f"at most {policy_of(campaign).limit_hours} h)")
    return 1


def _hold(absence: Absence, campaign: Campaign, seat: int, mode: str, now) -> int:
    layer = layers.of(campaign)
    if layer.hold_seat is None or AwayEffect.objects.filter(
            absence=absence, campaign=campaign, kind=mode, step=0, seat=seat).exists():
        return 0
    before = layer.hold_seat(campaign, seat, mode, on=True)
    AwayEffect.objects.create(absence=absence, campaign=campaign, seat=seat, kind=mode, step=0, before=before,
                              after={"mode": mode}, applied_at=now)
    _audit(campaign, absence.user, f"away_{mode}", f"seat {seat}", before, {"mode": mode},
           note=f"seat {seat} away until {absence.ends:%Y-%m-%d %H:%M} UTC")
    return 1


def _ask_substitute(absence: Absence, campaign: Campaign, seat: int, now) -> int:
    from campaign.actions.notifications import notify_moderators

    if AwayEffect.objects.filter(absence=absence, campaign=campaign, kind=AwayMode.SUBSTITUTE).exists():
        return 0
    policy = policy_of(campaign)
    substitute = policy.substitute
    AwayEffect.objects.create(absence=absence, campaign=campaign, seat=seat, kind=AwayMode.SUBSTITUTE,
                              before={}, after={"asked": substitute.username if substitute else None},
                              applied_at=now)
    _audit(campaign, absence.user, "away_substitute", f"seat {seat}", None,
           {"asked": substitute.username if substitute else None},
           note=f"seat {seat} away until {absence.ends:%Y-%m-%d %H:%M} UTC")
    text = (f"Seat {seat} is away until {absence.ends:%Y-%m-%d %H:%M} UTC. The campaign's away policy asks "
            + (f"{substitute.username} to play it meanwhile" if substitute else "for a substitute (none is named)")
            + ": hand the seat over on the moderation panel (Substitute).")
    notify_moderators(campaign_id=campaign.pk, turn=getattr(layers.of(campaign).current_step(campaign), "number", 0),
                      text=text)
    if substitute is not None and substitute.email:
        from django.core.mail import send_mail

        transaction.on_commit(lambda: send_mail(
            f"{campaign.name}: will you play seat {seat} for a while?",
            f"A player of {campaign.name} is away until {absence.ends:%Y-%m-%d %H:%M} UTC and the campaign "
            f"names you as its substitute. The moderator hands you the seat when you agree.\n",
            None, [substitute.email]), robust=True)
    return 1


def apply_absences(*, now=None) -> int:
    """The sweep: make the effects of every absence running now or to come, and give back the
    seats of absences that ended. Returns the effects made and undone."""
    now = now or timezone.now()
    done = 0
    for absence in Absence.objects.filter(ended_at__isnull=True, ends__gt=now).select_related("user"):
        for campaign_id in _scope(absence):
            with transaction.atomic():
                done += _apply_campaign(absence, campaign_id, now)
    ended = AwayEffect.objects.filter(undone_at__isnull=True, absence__ends__lte=now).exclude(kind=AwayMode.EXTEND)
    for effect_id in ended.values_list("pk", flat=True):
        with transaction.atomic():
            done += _undo(effect_id, now, why="the absence ended")
    return done


@transaction.atomic
def end_absence(*, absence_id: int, user, now=None) -> Absence:
    """The player is back early (or cancels an absence to come): the absence ends now and what it
    did is undone where it still can be (a deadline moved back, never sooner than an hour from
    now; a seat given back). Each undoing is audited."""
    now = now or timezone.now()
    absence = locks.rows(Absence.objects.filter(pk=absence_id, user=user)).first()
    if absence is None:
        raise NotFound("no such absence")
    if absence.ended_at is not None or absence.ends <= now:
        raise ActionError("that absence is already over")
    absence.ended_at = now
    absence.ends = max(min(absence.ends, now), absence.starts)
    absence.save(update_fields=["ended_at", "ends"])
    for effect_id in absence.effects.filter(undone_at__isnull=True).order_by("campaign_id", "pk") \
            .values_list("pk", flat=True):
        _undo(effect_id, now, why="the player is back early")
    return absence


def _undo(effect_id: int, now, *, why: str) -> int:
    campaign_id = AwayEffect.objects.filter(pk=effect_id).values_list("campaign_id", flat=True).first()
    campaign = locks.campaign(campaign_id) if campaign_id is not None else None
    effect = locks.rows(AwayEffect.objects.filter(pk=effect_id, undone_at__isnull=True)).first()
    if campaign is None or effect is None:
        return 0
    user = effect.absence.user
    layer = layers.of(campaign)
    note = why
    if effect.kind == AwayMode.EXTEND:
        note = _undo_extension(campaign, effect, now, user, why)
    elif effect.kind in (AwayMode.STANDING, AwayMode.COMPUTER) and layer.hold_seat is not None:
        after = layer.hold_seat(campaign, effect.seat, effect.kind, on=False, before=effect.before)
        _audit(campaign, user, "away_return", f"seat {effect.seat}", {"mode": effect.kind}, after, note=why)
    elif effect.kind == AwayMode.SUBSTITUTE:
        from campaign.actions.notifications import notify_moderators

        _audit(campaign, user, "away_return", f"seat {effect.seat}", effect.after, None, note=why)
        notify_moderators(campaign_id=campaign.pk, turn=layer.current_step(campaign).number,
                          text=f"Seat {effect.seat} is back ({why}): no substitute is needed any more.")
    effect.undone_at, effect.undo_note = now, note[:200]
    effect.save(update_fields=["undone_at", "undo_note"])
    return 1


def _undo_extension(campaign: Campaign, effect: AwayEffect, now, user, why: str) -> str:
    """Move the deadline back to where it was, unless the step moved on or someone moved the
    deadline since (then it stays: the moderator's word wins). Another player's absence that
    extended the same step keeps its own extension."""
    layer = layers.of(campaign)
    step = layer.current_step(campaign, lock=True)
    extended = _when(effect.after.get("deadline"))
    if campaign.paused or step.number != effect.step or not step.open or step.deadline != extended:
        return f"{why}; the deadline was left as it is (the step moved on or its deadline changed since)"
    others = AwayEffect.objects.filter(campaign=campaign, kind=AwayMode.EXTEND, step=effect.step,
                                       undone_at__isnull=True).exclude(pk=effect.pk) \
        .filter(Q(absence__ended_at__isnull=True)).values_list("after", flat=True)
    target = max([_when(effect.before.get("deadline")), now + RETURN_GRACE]
                 + [_when(a.get("deadline")) for a in others])
    target = min(target, extended)
    layer.set_deadline(campaign, step, target)
    _audit(campaign, user, "away_undo", step.label, {"deadline": extended}, {"deadline": target}, note=why)
    return why


@transaction.atomic
def set_away_policy(*, campaign_id: int, user, mode: str, limit_hours: int = 168, substitute: str = "") -> AwayPolicy:
    """The moderator chooses what an away seat gets in the campaign (audited)."""
    from django.contrib.auth import get_user_model

    from campaign.actions.moderation import _moderated_campaign

    campaign = _moderated_campaign(campaign_id, user, doing="set the away policy")
    offered = layers.of(campaign).away_modes
    if mode not in offered:
        raise ActionError(f"this campaign offers {', '.join(sorted(offered)) or 'no away policy'}, not {mode!r}")
    if isinstance(limit_hours, bool) or not isinstance(limit_hours, int) or not 1 <= limit_hours <= MAX_LIMIT_HOURS:
        raise ActionError(f"the limit is a whole number of hours from 1 to {MAX_LIMIT_HOURS}")
    named = None
    substitute = substitute.strip() if isinstance(substitute, str) else ""
    if substitute:
        named = get_user_model()._default_manager.filter(username=substitute).first()
        if named is None:
            raise ActionError(f"there is no user called {substitute!r}")
    policy = AwayPolicy.objects.filter(campaign=campaign).first() or AwayPolicy(campaign=campaign)
    before = {"mode": policy.mode, "limit_hours": policy.limit_hours,
              "substitute": policy.substitute.username if policy.substitute_id else None}
    policy.mode, policy.limit_hours, policy.substitute = mode, limit_hours, named
    policy.save()
    _audit(campaign, user, "away_policy", "away policy", before,
           {"mode": mode, "limit_hours": limit_hours, "substitute": substitute or None})
    return policy


def away_now(campaign: Campaign, now=None) -> dict[int, datetime]:
    """Seat -> (from, until), for the seats of ``campaign`` away now or in the next 30 days: what
    every member may see (never the note)."""
    now = now or timezone.now()
    seats = layers.of(campaign).seats
    by_user = {s.user_id: s.number for s in (seats(campaign) if seats else []) if s.user_id and not s.bot}
    found: dict[int, tuple[datetime, datetime]] = {}
    for absence in Absence.objects.filter(Q(campaign=campaign) | Q(campaign__isnull=True), user_id__in=by_user,
                                          ended_at__isnull=True, ends__gt=now,
                                          starts__lt=now + timedelta(days=30)):
        seat = by_user[absence.user_id]
        starts, ends = found.get(seat, (absence.starts, absence.ends))
        found[seat] = (min(starts, absence.starts), max(ends, absence.ends))
    return {seat: span for seat, span in sorted(found.items())}


def absences_of(user, campaign: Campaign, now=None):
    """The user's absences to come or running that cover ``campaign`` (his own page)."""
    now = now or timezone.now()
    return Absence.objects.filter(Q(campaign=campaign) | Q(campaign__isnull=True), user=user,
                                  ended_at__isnull=True, ends__gt=now)


def moderator_view(campaign: Campaign, now=None) -> list[dict]:
    """Every absence of the campaign's players to come or running, with its note: the
    moderators' view (the panel, the lobby and the campaign's away page)."""
    from campaign.models import Membership

    now = now or timezone.now()
    seats = layers.of(campaign).seats
    by_user = {s.user_id: s.label for s in (seats(campaign) if seats else []) if s.user_id and not s.bot}
    if campaign.status == Campaign.Status.SETUP:  # in the lobby: the players who joined
        for user_id, name in Membership.objects.filter(campaign=campaign, role=Membership.Role.PLAYER) \
                .values_list("user_id", "user__username"):
            by_user.setdefault(user_id, name)
    rows = Absence.objects.filter(Q(campaign=campaign) | Q(campaign__isnull=True), user_id__in=list(by_user),
                                  ended_at__isnull=True, ends__gt=now).select_related("user")
    return [{"seat": by_user[a.user_id], "user": a.user.username, "starts": a.starts, "ends": a.ends,
             "note": a.note, "all": a.campaign_id is None, "now": a.starts <= now} for a in rows]
