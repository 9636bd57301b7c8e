"""CAM 4.2, between scenarios: replacement requests, repair and replacement rolls."""

from __future__ import annotations

from django.db import transaction

from campaign.dice import CampaignDice
from campaign.models import Campaign
from campaign.rules.cam import replacements as rp
from campaign.rules.cam import state as st

from .. import adapters
from ..models import CamCampaign, CamPlayer
from .common import _acting_seat, _active, _add_events, _audit, _held, _locked, _moderator_only, _next_step
from .errors import ENGINE_ERRORS, CamActionError, _refuse

# --- CAM 4.2 -------------------------------------------------------------------------------------


class _Checked(Exception):
    """Raised by ``_NoDice`` at the first roll: the requests passed the engine's checks."""


class _NoDice:
    def roll(self, count, sides, purpose):
        raise _Checked


def _requests(raw) -> list[rp.ReplacementRequest]:
    if raw is not None and not isinstance(raw, (list, tuple)):
        raise CamActionError(f"{rp.RULE}: the requests are a list of {{'replaces': roster number, 'sd': SD key, "
                             f"'name': …}}, not {raw!r}"[:300])
    out = []
    for item in raw or ():
        if not isinstance(item, dict) or isinstance(item.get("replaces"), bool) \
                or not isinstance(item.get("replaces"), int) or not isinstance(item.get("sd"), str):
            raise CamActionError(f"{rp.RULE}: a request is {{'replaces': roster number, 'sd': SD key, 'name': …}}, "
                                 f"not {item!r}")
        out.append(
            rp.ReplacementRequest(
                replaces=item["replaces"], sd=item["sd"], name=str(item.get("name") or "")[:120]
            )
        )
    return out


@transaction.atomic
def submit_replacements(*, campaign_id: int, user, requests=(), ready: bool = True,
                        seat: int | None = None) -> CamPlayer:
    """Between scenarios: a player's replacement requests for destroyed ships (checked by the
    engine before any die), and ready. When both players are ready the CAM 4.2 step is made:
    repair rolls (4+), the survival roll (option), replacement points (hoarded) and the
    replacement rolls with the wealth modifiers. While the rubber is paused the requests and the
    ready mark are stored and the step is made when the moderator resumes (ruling CAM60)."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    player = _acting_seat(cam, user, role, seat, "ask for replacements")
    state = adapters.campaign_state(cam)
    if not state.awaiting_replacements:
        raise CamActionError(f"{rp.RULE}: there is no between-scenarios step to make now")
    reqs = _requests(requests)
    try:
        rp.between_scenarios(state, _NoDice(), {player.seat: reqs})
    except _Checked:
        pass
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    held = _held(campaign, role)
    if ready and not held and all(p.between_ready for p in cam.players.exclude(pk=player.pk)):
        # This makes the CAM 4.2 step: snapshot before this player's requests are stored.
        _next_step(campaign, cam, f"between scenarios after scenario {state.scenarios_played} (CAM 4.2)")
    player.requests = [{"replaces": r.replaces, "sd": r.sd, "name": r.name} for r in reqs]
    player.between_ready = bool(ready)
    player.save(update_fields=["requests", "between_ready"])
    if not held and all(p.between_ready for p in cam.players.all()):
        _between(campaign, cam, state)
    return player


@transaction.atomic
def run_between(*, campaign_id: int, user) -> CamCampaign:
    """The moderator makes the CAM 4.2 step now, with the requests the players have entered."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    _moderator_only(role, "make the between-scenarios step")
    state = adapters.campaign_state(cam)
    if not state.awaiting_replacements:
        raise CamActionError(f"{rp.RULE}: there is no between-scenarios step to make now")
    _next_step(campaign, cam, f"between scenarios after scenario {state.scenarios_played} (CAM 4.2)")
    _between(campaign, cam, state)
    _audit(campaign, user, "cam_between", f"after scenario {state.scenarios_played}")
    return cam


def _between(campaign: Campaign, cam: CamCampaign, state: st.CamCampaign) -> None:
    dice = CampaignDice(campaign, phase="cam-between", turn=state.scenarios_played)
    requests = {p.seat: _requests(p.requests) for p in cam.players.all()}
    try:
        resolution = rp.between_scenarios(state, dice, requests)
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    adapters.store_campaign(cam, resolution.campaign)
    row = cam.scenario_rows.get(number=state.scenarios_played)
    _add_events(row, resolution.events)
    row.save(update_fields=["events"])
    cam.players.update(requests=[], between_ready=False)
    dice.commit()
