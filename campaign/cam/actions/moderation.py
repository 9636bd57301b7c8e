"""The CAM side of the platform's moderation: the step a rubber is at (its deadline, which the
platform's pause, resume and extend move), what a pause holds and a resume makes (``after_pause``,
``after_resume``: ruling CAM60) and the roll-back of the last step.

Pause, resume and extend are the platform's actions (``campaign.actions.moderation``); they reach
a CAM rubber through the layer registry (``campaign/cam/layer.py``: ``current_step``,
``set_deadline``). The roll-back is here, called through the registry by the platform's
``roll_back_step``.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction

from campaign.actions.errors import StaleTurn
from campaign.layers import Step
from campaign.models import AuditEntry, Campaign

from .. import adapters, notify, snapshots
from ..models import CamCampaign, CamScenario
from .common import PAUSE_RULE, _audit, _jsonable, _locked, _moderator_only, _next_step, step_label
from .errors import CamActionError


def current_step(campaign: Campaign, *, lock: bool = False) -> Step:
    """The step the rubber is at: its number (``CamCampaign.step``), what it waits for and its
    deadline. It takes a deadline while the campaign runs. (The caller holds the campaign row
    lock when it will change the deadline; the CAM row is a row under it.)"""
    cam = CamCampaign.objects.get(pk=campaign.pk)
    return Step(number=cam.step, label=f"step {cam.step} ({step_label(campaign, cam)})", deadline=cam.deadline,
                open=campaign.status == Campaign.Status.ACTIVE, row=cam)


def set_deadline(campaign: Campaign, step: Step, deadline) -> None:
    CamCampaign.objects.filter(pk=campaign.pk).update(deadline=deadline)


def _due_on_resume(campaign: Campaign, cam: CamCampaign):
    """The step a paused rubber's players completed while it was paused (ruling CAM60), as
    (what it makes, the function making it), or None: a game turn both entered (its End Phase),
    an entered result the other player confirmed (its score), the CAM 4.2 step both are ready for."""
    from . import battle, between, deadlines

    kind, row, late = deadlines.waiting(campaign, cam)
    if kind == "fighting" and not late:
        turn = (row.battle or {}).get("turn")
        # Made by the moderator's resume: a game it ends is his entry, which either player confirms.
        return (f"scenario {row.number}: game turn {turn}'s End Phase (CAM 3.0)",
                lambda: battle._end_phase(campaign, cam, row, 0))
    if kind == "confirming" and battle.held_confirmation(row) is not None:
        return (f"scenario {row.number}: the result confirmed by seat {battle.held_confirmation(row)} scored "
                "(CAM 3.1, 4.3)", lambda: battle._confirm(campaign, cam, row))
    if kind == "between" and not late:
        state = adapters.campaign_state(cam)

        def make():
            _next_step(campaign, cam, f"between scenarios after scenario {state.scenarios_played} (CAM 4.2)")
            between._between(campaign, cam, state)
        return f"the CAM 4.2 step after scenario {state.scenarios_played}", make
    return None


def after_pause(campaign: Campaign, step: Step, *, now) -> None:
    """Called by the platform's ``pause_campaign`` in its transaction, the campaign row locked:
    a battle fought online keeps the time its deciding side has left (ruling CAM60)."""
    from ..battles import handler

    handler().pause_clock(campaign, now)


def after_resume(campaign: Campaign, step: Step, *, now=None) -> None:
    """Called by the platform's ``resume_campaign`` in its transaction, the campaign row locked
    and no longer paused: a battle fought online gets back the decision time it had left, and a
    step whose players completed it while the rubber was paused is made now, once (ruling CAM60,
    as MO1 processes a resumed Event Horizon turn whose players are all ready). A step the engine
    refuses is left waiting (the resume stands); either way the audit log says so."""
    from django.utils import timezone

    from ..battles import handler

    handler().resume_clock(campaign, now or timezone.now())
    cam = CamCampaign.objects.get(pk=campaign.pk)
    due = _due_on_resume(campaign, cam)
    if due is None:
        return
    what, make = due
    before = {"step": cam.step, "at": step_label(campaign, cam)}
    try:
        with transaction.atomic():  # a savepoint: a step the engine refuses leaves nothing
            make()
    except CamActionError as exc:
        note = f"The step completed while paused could not be made on resuming: {exc}; it waits for the moderator."
        after = {"waits": what}
    else:
        cam = CamCampaign.objects.get(pk=campaign.pk)
        note = f"Made on resuming ({PAUSE_RULE}): {what}."
        after = {"step": cam.step, "at": step_label(campaign, cam)}
    AuditEntry.objects.create(campaign=campaign, user=None, action="cam_resume_step", target=f"step {before['step']}",
                              before=_jsonable(before), after=_jsonable(after), note=note[:1000])


def roll_back_preview(campaign: Campaign) -> dict | None:
    """What rolling back the last step would undo (the confirmation page), or None."""
    from campaign.models import DiceRoll

    snap = campaign.cam.snapshots.order_by("-step").first()
    if snap is None:
        return None
    seq = snap.data.get("dice", {}).get("seq", 0)
    return {
        "number": snap.step,
        "label": f"step {snap.step}: {snap.label}",
        "undone": snap.label,
        "taken_at": snap.taken_at,
        "can_roll_back": True,
        "dice_seq": seq,
        "rolls": DiceRoll.objects.filter(campaign=campaign, seq__gt=seq).count(),
        "finished": campaign.status == Campaign.Status.FINISHED,
        "points": [
            f"the rubber returns exactly to where it stood before “{snap.label}”: the rosters, "
            "scenarios, entries and points as they were then",
            f"step {snap.step} is open again",
        ],
    }


def _forget_undone_emails(campaign: Campaign, cam: CamCampaign) -> int:
    """The once-only records (``SentNotification``) of the emails about what the roll-back undid
    go, so making the step again sends them again: a scenario's generation, its result waiting
    for confirmation, its report, the end of the rubber."""
    from campaign.models import SentNotification

    stages = dict(cam.scenario_rows.values_list("number", "stage"))
    confirming = (CamScenario.Stage.CONFIRMING, CamScenario.Stage.SCORED)
    gone = [pk for pk, kind, number in SentNotification.objects.filter(
                campaign=campaign, kind__in=[notify.SCENARIO, notify.CONFIRM, notify.SCORED, notify.ENDED])
            .values_list("pk", "kind", "turn")
            if (kind == notify.SCENARIO and number not in stages)
            or (kind == notify.CONFIRM and stages.get(number) not in confirming)
            or (kind == notify.SCORED and stages.get(number) != CamScenario.Stage.SCORED)
            or (kind == notify.ENDED and campaign.status != Campaign.Status.FINISHED)]
    return SentNotification.objects.filter(pk__in=gone).delete()[0] if gone else 0


@transaction.atomic
def roll_back_step(*, campaign_id: int, user, number: int | None = None) -> Step:
    """Undo the last step of the rubber: its CAM rows return to the snapshot taken just before
    that step was closed, the dice log is cut back to where it stood then (re-doing the step rolls
    the same dice), and the campaign is left paused (the step gets its full time on resuming).
    ``number``, when given, must be that step (the confirmation page and the API send it, so a
    step made meanwhile is not undone by mistake). A finished rubber's last step can be rolled
    back: the rubber reopens. Audited; the players are told by email."""
    campaign, cam, role = _locked(campaign_id, user)
    _moderator_only(role, "roll back a step")
    snap = cam.snapshots.order_by("-step").first()
    if snap is None:
        raise CamActionError("no step of the rubber has been made yet: there is nothing to roll back")
    if number is not None and number != snap.step:
        raise StaleTurn(f"only the last step ({snap.step}: {snap.label}) can be rolled back, not step {number}; "
                        f"the rubber is at {step_label(campaign, cam)}")
    before = {"step": cam.step, "at": step_label(campaign, cam), "status": campaign.status,
              "dice_offset": campaign.dice_offset}
    try:
        undone = snapshots.restore(campaign, snap)
    except snapshots.SnapshotError as exc:
        raise CamActionError(f"step {snap.step} cannot be rolled back: {exc}") from None
    cam = CamCampaign.objects.get(pk=campaign.pk)
    _forget_undone_emails(campaign, cam)
    from .. import online  # (online imports this package)

    undone["battles"] = online.after_roll_back(campaign)
    campaign.paused = True
    campaign.paused_remaining = timedelta(hours=campaign.turn_hours) if campaign.turn_hours else None
    campaign.save(update_fields=["paused", "paused_remaining"])
    cam.deadline = None
    cam.save(update_fields=["deadline"])
    dice = undone.pop("dice")
    before["dice_rolls"] = dice.pop("rows")
    _audit(campaign, user, "roll_back", f"step {snap.step}",
           after={"step": cam.step, "at": step_label(campaign, cam), "status": campaign.status,
                  "dice_offset": campaign.dice_offset, "paused": True, "undone": snap.label, **undone},
           before=before,
           note=(f"Undid “{snap.label}”. Dice log truncated after roll #{dice['after_seq']}: {dice['deleted']} "
                 f"roll(s) deleted" + (f" (#{dice['first_seq']}–#{dice['last_seq']}, last hash {dice['last_hash']})"
                                       if dice["deleted"] else "") + "; making the step again re-rolls the same dice."))
    notify.step_rolled_back(campaign, snap.step, snap.label, user)
    return Step(number=snap.step, label=snap.label, deadline=None, open=True, row=cam)
