"""What every CAM action shares: the campaign row locked first, the acting seat, the
moderator-only and started checks, the scenario in progress, the platform audit entry, and the
steps of the rubber (``_next_step``: a snapshot for the roll-back and the next step's deadline)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from campaign.access import role_of
from campaign.models import AuditEntry, Campaign, Membership

from .. import adapters, snapshots
from ..models import LAYER, CamCampaign, CamPlayer, CamScenario
from .errors import CamActionError, NotAllowed, NotFound, Paused

# --- access --------------------------------------------------------------------------------------


def _locked(campaign_id: int, user) -> tuple[Campaign, CamCampaign, str]:
    """The CAM campaign row, locked, the CAM settings and the user's role. Outsiders: NotFound."""
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id, layer=LAYER).first()
    role = role_of(user, campaign) if campaign is not None else None
    if campaign is None or role is None:
        raise NotFound("no such CAM campaign")
    if campaign.status == Campaign.Status.SETUP:
        raise CamActionError("the campaign is still in the lobby: its moderator starts it there once both "
                             "players have joined")
    return campaign, campaign.cam, role


def _acting_seat(cam: CamCampaign, user, role: str, seat: int | None, doing: str) -> CamPlayer:
    """The seat a user acts for: their own; the moderator names one. Anyone else: NotAllowed."""
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
        raise CamActionError(f"seat is a seat number, such as 1 or 2, not {seat!r}"[:200])
    mine = cam.players.filter(user=user).first()
    if seat is None:
        if mine is None:
            raise NotAllowed(f"only a player can {doing}" + (" (as moderator, name the seat)"
                                                            if role == Membership.Role.MODERATOR else ""))
        return mine
    player = cam.players.filter(seat=seat).first()
    if player is None:
        raise CamActionError(f"this campaign has no seat {seat!r}")
    if player != mine and role != Membership.Role.MODERATOR:
        raise NotAllowed(f"you can {doing} only for your own fleet (seat {mine.seat if mine else '—'})")
    return player


def _player_or_moderator(cam: CamCampaign, user, role: str, doing: str) -> None:
    """The rubber's two players and its moderators move it on; an observer watches (issue 24)."""
    if role != Membership.Role.MODERATOR and not cam.players.filter(user=user).exists():
        raise NotAllowed(f"only the rubber's players and its moderator can {doing}")


def _moderator_only(role: str, doing: str) -> None:
    if role != Membership.Role.MODERATOR:
        raise NotAllowed(f"only the campaign's moderator can {doing}")


def _active(campaign: Campaign) -> None:
    if not campaign.cam.started:
        raise CamActionError("the campaign has not started yet: the moderator starts it once both fleets are set")
    if campaign.status == Campaign.Status.FINISHED:
        raise CamActionError("000 CAM 4.1: the rubber is over")


PAUSE_RULE = "ruling CAM60"


def _held(campaign: Campaign, role: str) -> bool:
    """A paused rubber makes no step on a player's action (ruling CAM60, as MO1 for an Event
    Horizon turn): his input is stored and the step is made when the moderator resumes. The
    moderator's own actions are not held."""
    return campaign.paused and role != Membership.Role.MODERATOR


def _refuse_if_paused(campaign: Campaign, role: str, doing: str) -> None:
    """A player's action that is nothing but making a step is refused while the rubber is paused
    (409; ruling CAM60): there is no input to keep, and he does it after the resume."""
    if _held(campaign, role):
        raise Paused(f"the campaign is paused: you cannot {doing} until the moderator resumes it ({PAUSE_RULE})")


def _jsonable(value):
    import json

    from django.core.serializers.json import DjangoJSONEncoder

    return None if value is None else json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def _audit(campaign, user, action: str, target: str, after=None, note: str = "", before=None) -> None:
    AuditEntry.objects.create(campaign=campaign, user=user if user.is_authenticated else None, action=action,
                              target=target[:120], before=_jsonable(before), after=_jsonable(after), note=note)


# --- steps: deadlines and snapshots --------------------------------------------------------------


def set_step_deadline(campaign: Campaign, cam: CamCampaign, now=None) -> None:
    """The open step's deadline: ``Campaign.turn_hours`` from now (none when 0). While the
    campaign is paused the clock is stopped: the step gets its full time when it resumes
    (the platform's ``resume_campaign``). Saved on ``cam`` (and on ``campaign`` when paused)."""
    hours = campaign.turn_hours
    if campaign.status != Campaign.Status.ACTIVE:
        cam.deadline = None
    elif campaign.paused:
        cam.deadline = None
        campaign.paused_remaining = timedelta(hours=hours) if hours else None
        campaign.save(update_fields=["paused_remaining"])
    else:
        cam.deadline = (now or timezone.now()) + timedelta(hours=hours) if hours else None
    cam.save(update_fields=["deadline"])


def _next_step(campaign: Campaign, cam: CamCampaign, label: str) -> None:
    """Close the open step and open the next: snapshot the CAM rows as they are now (what the
    moderator's roll-back returns to), count the step and give it its deadline. Called by an
    action before it changes anything, in its transaction: a refused action leaves no trace."""
    snapshots.take(campaign, cam, label)
    cam.step += 1
    cam.save(update_fields=["step"])
    set_step_deadline(campaign, cam)


_ASK = object()


def step_label(campaign: Campaign, cam: CamCampaign, *, current=_ASK, played: int | None = None) -> str:
    """What the rubber waits for now, as the moderation panel and the home page say it. A list
    of rubbers passes each one's ``current`` scenario row (None: none) and ``played`` (scenarios
    scored), read for all of them at once (``cam/layer.py``'s ``home_facts``); otherwise they are
    asked of the database."""
    if campaign.status == Campaign.Status.FINISHED:
        return "the rubber is over"
    if campaign.status == Campaign.Status.SETUP:
        return "in the lobby: waiting for the two players"
    if not cam.started:
        return "set-up: the starting fleets (CAM 4.0)"
    row = _current(cam) if current is _ASK else current
    if row is None:
        if played is None:
            played = cam.scenario_rows.filter(stage=CamScenario.Stage.SCORED).count()
        if cam.replacements_done < played:
            return f"between scenarios {played} and {played + 1}: replacements (CAM 4.2)"
        return f"scenario {played + 1}: to be generated (CAM 2.1)"
    if row.stage == CamScenario.Stage.FORCES:
        return f"scenario {row.number}: force selection (CAM 2.2)"
    if row.stage == CamScenario.Stage.FIGHTING:
        turn = (row.battle or {}).get("turn")
        return f"scenario {row.number}: game turn {turn}" if turn else f"scenario {row.number}: the game"
    return f"scenario {row.number}: the result waits for confirmation"


def _current(cam: CamCampaign) -> CamScenario | None:
    return cam.scenario_rows.exclude(stage=CamScenario.Stage.SCORED).order_by("-number").first()


def _scenario(cam: CamCampaign, stage: str | tuple[str, ...], doing: str) -> CamScenario:
    stages = (stage,) if isinstance(stage, str) else stage
    row = _current(cam)
    if row is None or row.stage not in stages:
        now = f"scenario {row.number} is at '{row.get_stage_display()}'" if row else "no scenario is in progress"
        raise CamActionError(f"cannot {doing} now: {now}")
    return row


def _add_events(row: CamScenario, events) -> None:
    row.events = list(row.events) + [adapters.event_json(e) for e in events]
