"""CAM 3.0 / 3.1: the game — each game turn's losses and the break-contact checks, the end of
the game, the result confirmed or disputed, or auto-resolved (ruling CAM26)."""

from __future__ import annotations

from django.db import transaction

from campaign.dice import CampaignDice
from campaign.models import Campaign, Membership
from campaign.rules.cam import autoresolve as ar
from campaign.rules.cam import breakcontact as bc
from campaign.rules.cam import scoring as scoring_rules

from .. import adapters, notify
from ..models import CamCampaign, CamScenario
from .common import (
    PAUSE_RULE,
    _acting_seat,
    _active,
    _add_events,
    _audit,
    _held,
    _locked,
    _next_step,
    _player_or_moderator,
    _refuse_if_paused,
    _scenario,
)
from .errors import ENGINE_ERRORS, CamActionError, NotAllowed, _refuse

# --- CAM 3.0 / 3.1: the game ---------------------------------------------------------------------


def _not_online(row: CamScenario, doing: str) -> None:
    from .. import online  # (online imports this package)

    online.refuse_if_online(row, doing)


def _uids(value, label: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise CamActionError(f"{label} lists unit ids such as 'ship:3' or 'ac:1'")
    return list(value)


def _side_gone(battle: bc.BattleState) -> bool:
    return any(not [u for u in battle.on_table(s) if u.kind in ("ship", "ac")] for s in battle.scenario.seats)


@transaction.atomic
def enter_turn(*, campaign_id: int, user, destroyed=(), crippled=(), left=(), seat: int | None = None) -> CamScenario:
    """After a game turn each player enters what happened to their own units (destroyed,
    crippled, left the table). When both have entered, the site makes the End Phase: CAM 3.0
    step 1 and every CAM 3.1 break-contact check (rolled with the faction modifier). The game
    is over once contact is broken or a side has no ships left on the table; the player who
    completed the turn has then entered the result, and the other confirms it."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _scenario(cam, CamScenario.Stage.FIGHTING, "enter a game turn")
    _not_online(row, "enter a game turn")
    player = _acting_seat(cam, user, role, seat, "enter losses")
    entry = {"destroyed": _uids(destroyed, "destroyed"), "crippled": _uids(crippled, "crippled"),
             "left": _uids(left, "left")}
    state = adapters.campaign_state(cam)
    battle = adapters.battle_state(row, state)
    try:
        bc.record_damage(battle, player.seat, **entry)  # the engine checks the entry now
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    entries = {**row.turn_entries, str(player.seat): entry}
    row.turn_entries = entries
    if all(str(s) in entries for s in battle.scenario.seats) and not _held(campaign, role):
        _end_phase(campaign, cam, row, player.seat if player.user == user else 0)
    else:  # the other entry is awaited, or the rubber is paused (ruling CAM60: made on resuming)
        row.save(update_fields=["turn_entries"])
    return row


def _end_phase(campaign: Campaign, cam: CamCampaign, row: CamScenario, proposer: int) -> None:
    """The End Phase of a game turn both players have entered (``row.turn_entries``): CAM 3.0
    step 1 and every CAM 3.1 check. The caller holds the campaign row lock. A game over is the
    result entered by ``proposer`` (a seat; 0: the moderator), which the other confirms. Also
    made by the moderator's resume of a paused rubber (``moderation.after_resume``, CAM60)."""
    entries = row.turn_entries
    battle = adapters.battle_state(row, adapters.campaign_state(cam))
    _next_step(campaign, cam, f"scenario {row.number}: game turn {battle.turn} entered (CAM 3.0)")
    # A side ordered to break contact is entered last: its ships leaving may end all contact.
    for s in sorted(battle.scenario.seats, key=battle.ordered_to_break):
        try:
            battle = bc.record_damage(battle, s, **entries[str(s)])
        except ENGINE_ERRORS as exc:
            raise _refuse(exc) from None
    dice = CampaignDice(campaign, phase="cam-break-contact", turn=row.number)
    # CAM 3.0: step 1 (the checks) comes before step 2 (the tally), the last turn's too (CAM27).
    resolution = bc.end_of_turn(battle, dice)
    battle = resolution.battle
    _add_events(row, resolution.events)
    row.battle = adapters.battle_json(battle)
    row.turn_entries = {}
    if battle.contact_broken or _side_gone(battle):
        row.stage = CamScenario.Stage.CONFIRMING
        row.proposed_by = proposer
        row.force_end = not battle.contact_broken
        row.events = row.events + [
            {
                "step": "scoring",
                "kind": "ended",
                "seats": [],
                "data": {},
                "text": f"The game is over after turn {battle.turn - 1} "
                + ("(all table contact broken; 000 CAM 3.0)." if battle.contact_broken
                   else "(a side has no ships left on the table; 000 CAM 3.0)."),
            }
        ]
        notify.result_needs_confirmation(campaign, row)
    row.save()
    dice.commit()


@transaction.atomic
def propose_end(*, campaign_id: int, user, seat: int | None = None) -> CamScenario:
    """A player enters the end of the game (the players agree to stop: ruling CAM15); the
    other player confirms the result. Losses of the turn not yet complete are not counted."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _scenario(cam, CamScenario.Stage.FIGHTING, "end the game")
    _not_online(row, "end the game")
    player = _acting_seat(cam, user, role, seat, "end the game")
    _refuse_if_paused(campaign, role, "enter the end of the game")
    _next_step(campaign, cam, f"scenario {row.number}: end of the game entered")
    row.stage = CamScenario.Stage.CONFIRMING
    row.proposed_by = player.seat if player.user == user else 0
    row.force_end = True
    row.turn_entries = {}
    row.save()
    notify.result_needs_confirmation(campaign, row)
    return row


def score_preview(row: CamScenario) -> scoring_rules.ScenarioScore | None:
    """The score the entered result gives (for the confirmation page); None while fighting."""
    if row.stage != CamScenario.Stage.CONFIRMING:
        return None
    state = adapters.campaign_state(row.cam)
    return scoring_rules.score_scenario(adapters.battle_state(row, state), force_end=row.force_end)


def _record(campaign: Campaign, cam: CamCampaign, row: CamScenario, battle: bc.BattleState, force_end: bool) -> None:
    state = adapters.campaign_state(cam)
    score = scoring_rules.score_scenario(battle, force_end=force_end)
    resolution = scoring_rules.record_scenario(state, battle, score)
    adapters.store_campaign(cam, resolution.campaign)
    row.battle = adapters.battle_json(battle)
    row.score = adapters.score_json(score)
    row.stage = CamScenario.Stage.SCORED
    before = len(row.events)
    _add_events(row, resolution.events)
    row.save()
    cam.players.update(requests=[], between_ready=False)
    notify.scenario_scored(campaign, row, row.events[before:])
    if resolution.campaign.finished:
        campaign.status = Campaign.Status.FINISHED
        campaign.save(update_fields=["status"])
        cam.deadline = None
        cam.save(update_fields=["deadline"])
        notify.rubber_ended(campaign, scoring_rules.standings(resolution.campaign))


@transaction.atomic
def confirm_result(*, campaign_id: int, user) -> CamScenario:
    """The other player (or the moderator) confirms the entered result: CAM 3.1 points left, +50
    if not forced to break, the victory scale; CAM 4.3 campaign points; roster ships destroyed or
    crippled. While the rubber is paused a player's confirmation is kept (``held_confirmation``)
    and the result is scored when the moderator resumes (ruling CAM60)."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _scenario(cam, CamScenario.Stage.CONFIRMING, "confirm the result")
    mine = cam.players.filter(user=user).first()
    if role != Membership.Role.MODERATOR and (mine is None or mine.seat == row.proposed_by):
        raise NotAllowed(
            "the result is confirmed by the other player (or the moderator), not by the one who entered it"
        )
    if _held(campaign, role):
        if held_confirmation(row) != mine.seat:
            row.turn_entries = {CONFIRMED: mine.seat}
            row.save(update_fields=["turn_entries"])
            _audit(campaign, user, "cam_confirm_held", f"scenario {row.number}", after={"seat": mine.seat},
                   note=f"The campaign is paused: the result is scored when the moderator resumes ({PAUSE_RULE}).")
        return row
    return _confirm(campaign, cam, row)


# A player's confirmation made while the rubber is paused, kept in the confirming scenario's
# ``turn_entries`` (empty at that stage otherwise) until the resume scores it (ruling CAM60).
CONFIRMED = "confirmed"


def held_confirmation(row: CamScenario) -> int | None:
    """The seat whose confirmation of the entered result waits for the resume, or None."""
    if row.stage != CamScenario.Stage.CONFIRMING:
        return None
    return (row.turn_entries or {}).get(CONFIRMED)


def _confirm(campaign: Campaign, cam: CamCampaign, row: CamScenario) -> CamScenario:
    """The confirmation itself (the caller holds the campaign row lock and has checked who may);
    also made by a passed confirmation deadline (``deadlines``, ruling CAM54)."""
    state = adapters.campaign_state(cam)
    _next_step(campaign, cam, f"scenario {row.number}: result confirmed and scored (CAM 3.1, 4.3)")
    try:
        _record(campaign, cam, row, adapters.battle_state(row, state), row.force_end)
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    return row


@transaction.atomic
def reject_result(*, campaign_id: int, user, reason: str = "") -> CamScenario:
    """The other player disputes an entered end: the game goes on. A result the break-contact
    dice decided cannot be disputed (the moderator can still confirm it). A reason given (by mail:
    "DISPUTE <reason>") goes to the audit log."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _scenario(cam, CamScenario.Stage.CONFIRMING, "dispute the result")
    mine = cam.players.filter(user=user).first()
    if role != Membership.Role.MODERATOR and (mine is None or mine.seat == row.proposed_by):
        raise NotAllowed("only the other player (or the moderator) can dispute the result")
    _refuse_if_paused(campaign, role, "dispute the result (tell the moderator why)")
    battle = adapters.battle_state(row, adapters.campaign_state(cam))
    if battle.contact_broken:
        raise CamActionError("000 CAM 3.0: all table contact has been broken; the game cannot go on")
    _next_step(campaign, cam, f"scenario {row.number}: result disputed, the game goes on")
    row.stage = CamScenario.Stage.FIGHTING
    row.proposed_by = None
    row.force_end = False
    row.turn_entries = {}  # a confirmation held while paused goes with the result it confirmed
    row.save()
    _audit(campaign, user, "cam_dispute", f"scenario {row.number}", note=reason.strip()[:500])
    return row


@transaction.atomic
def autoresolve(*, campaign_id: int, user) -> CamScenario:
    """The rest of the battle by the Event Horizon odds system on CAM points (ruling CAM26),
    then scored at once (the dice decide; no confirmation). The moderator may always; players
    only in a campaign whose battle mode allows it."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    if role != Membership.Role.MODERATOR and cam.battle_mode != CamCampaign.BattleMode.AUTO:
        raise NotAllowed("in a tabletop campaign only the moderator can auto-resolve a battle")
    _player_or_moderator(cam, user, role, "auto-resolve a battle")
    _refuse_if_paused(campaign, role, "auto-resolve the battle")
    return _autoresolve(campaign, cam)


def _autoresolve(campaign: Campaign, cam: CamCampaign) -> CamScenario:
    """The auto-resolve itself (the caller holds the campaign row lock and has checked who may);
    also made by a passed game-turn deadline in an auto-resolve campaign (``deadlines``, CAM53)."""
    row = _scenario(cam, CamScenario.Stage.FIGHTING, "auto-resolve")
    _not_online(row, "auto-resolve")
    autoresolve_row(campaign, cam, row)
    return row


def autoresolve_row(campaign: Campaign, cam: CamCampaign, row: CamScenario,
                    step: str = "auto-resolved (ruling CAM26)") -> None:
    """Auto-resolve and score ``row`` (CAM26) under the caller's campaign row lock: a player's or
    a deadline's auto-resolve, a scenario in "auto" mode once its table is rolled and the
    moderator's settlement of one fought online (``online``). ``step`` names it in the step log."""
    _next_step(campaign, cam, f"scenario {row.number}: {step}")
    state = adapters.campaign_state(cam)
    dice = CampaignDice(campaign, phase="cam-autoresolve", turn=row.number)
    try:
        resolution = ar.autoresolve_battle(adapters.battle_state(row, state), dice)
        _add_events(row, resolution.events)
        row.turn_entries = {}
        _record(campaign, cam, row, resolution.battle, force_end=False)
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    dice.commit()
