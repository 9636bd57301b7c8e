"""What every CAM action shares: the campaign row locked first, the acting seat, the
moderator-only and started checks, the scenario in progress and the platform audit entry."""

from __future__ import annotations

from campaign.access import role_of
from campaign.models import AuditEntry, Campaign, Membership

from .. import adapters
from ..models import LAYER, CamCampaign, CamPlayer, CamScenario
from .errors import CamActionError, NotAllowed, NotFound

# --- access --------------------------------------------------------------------------------------


def _locked(campaign_id: int, user) -> tuple[Campaign, CamCampaign, str]:
    """The CAM campaign row, locked, the CAM settings and the user's role. Outsiders: NotFound."""
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id, layer=LAYER).first()
    role = role_of(user, campaign) if campaign is not None else None
    if campaign is None or role is None:
        raise NotFound("no such CAM campaign")
    return campaign, campaign.cam, role


def _acting_seat(cam: CamCampaign, user, role: str, seat: int | None, doing: str) -> CamPlayer:
    """The seat a user acts for: their own; the moderator names one. Anyone else: NotAllowed."""
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


def _moderator_only(role: str, doing: str) -> None:
    if role != Membership.Role.MODERATOR:
        raise NotAllowed(f"only the campaign's moderator can {doing}")


def _active(campaign: Campaign) -> None:
    if not campaign.cam.started:
        raise CamActionError("the campaign has not started yet: the moderator starts it once both fleets are set")
    if campaign.status == Campaign.Status.FINISHED:
        raise CamActionError("000 CAM 4.1: the rubber is over")


def _audit(campaign, user, action: str, target: str, after=None, note: str = "") -> None:
    AuditEntry.objects.create(campaign=campaign, user=user if user.is_authenticated else None, action=action,
                              target=target[:120], after=after, note=note)


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
