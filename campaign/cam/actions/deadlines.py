"""What a CAM step's passed deadline does (RULINGS "Missed deadline (NMR)"; rulings CAM50 – CAM56),
and the reminders before it.

The platform's due-work sweep (``campaign/middleware.py``, ``manage.py processdue``, Celery beat's
``campaign.tasks.process_due``) reaches this only through CAM's layer record
(``campaign/cam/layer.py``: ``due_steps``, ``process_due``, ``send_reminders``); it never names CAM.

At each step (``waiting``), a passed deadline either takes the rule book's default — the rubber
starts with the fleets entered (CAM50), the scenario is generated (CAM51), a force not chosen is
chosen by ``campaign.rules.cam.standing`` and the table rolled (CAM52), an auto-resolve campaign's
game is auto-resolved (CAM53), an entered result is confirmed as entered (CAM54), the CAM 4.2 step
is made with the requests entered (CAM55) — or, where no default is fair, leaves the step to the
moderator, who is emailed once (CAM56). Either way it acts once per deadline: the campaign row is
locked first (``campaign/locks.py``), a step that moved on has a new deadline, and a step left to
the moderator records the deadline it handled (``CamCampaign.deadline_done``). A paused rubber is
not touched. Every act is in the audit log, by "(the site)".
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from campaign import locks
from campaign.models import AuditEntry, Campaign
from campaign.rules.cam import scenario as sc
from campaign.rules.cam import standing

from .. import adapters, notify
from ..models import LAYER, CamCampaign, CamScenario
from . import battle, between, scenarios, setup
from .common import _current, _jsonable, _next_step, step_label
from .errors import ENGINE_ERRORS, CamActionError

REMINDER_WINDOWS = ((notify.REMINDER_1H, timedelta(hours=1)), (notify.REMINDER_24H, timedelta(hours=24)))


class _Wait(Exception):
    """The step is left to the moderator; the message says why (for the moderator and the log)."""


# --- which step, who is late ---------------------------------------------------------------------


def _fought_online(row: CamScenario) -> bool:
    # A scenario fought online on a tactical engine (issue 17, campaign/cam/online.py) keeps its
    # own per-decision deadlines, played by the doctrine when late: the step's deadline does nothing.
    return row.mode == CamScenario.Mode.ONLINE


def waiting(campaign: Campaign, cam: CamCampaign) -> tuple[str, CamScenario | None, list[int]]:
    """What the open step is (``setup``, ``generate``, ``forces``, ``fighting``, ``online``,
    ``confirming``, ``between``, or ``none``), its scenario row, and the seats it still waits for."""
    if campaign.status != Campaign.Status.ACTIVE:
        return "none", None, []
    players = list(cam.players.order_by("seat"))
    if not cam.started:
        return "setup", None, [p.seat for p in players if not p.starting_fleet]
    row = _current(cam)
    if row is None:
        if adapters.campaign_state(cam).awaiting_replacements:
            return "between", None, [p.seat for p in players if not p.between_ready]
        return "generate", None, []
    if row.stage == CamScenario.Stage.FORCES:
        return "forces", row, [p.seat for p in players if str(p.seat) not in (row.forces or {})]
    if row.stage == CamScenario.Stage.FIGHTING:
        if _fought_online(row):
            return "online", row, []
        return "fighting", row, [p.seat for p in players if str(p.seat) not in (row.turn_entries or {})]
    return "confirming", row, [p.seat for p in players if p.seat != row.proposed_by]


def _names(cam: CamCampaign, seats) -> str:
    names = dict(cam.players.values_list("seat", "name"))
    return ", ".join(f"{names.get(s, '?')} (seat {s})" for s in seats)


def what_happens(kind: str, cam: CamCampaign) -> str:
    """What the deadline of a step of this kind will do (reminders, pages)."""
    return {
        "setup": "the rubber starts with the fleets entered if both are complete and within the starting "
                 "points; otherwise the set-up waits for the moderator (ruling CAM50)",
        "generate": "the site generates the scenario (CAM 2.1; ruling CAM51)",
        "forces": "the site chooses a force for a player who has chosen none — his ready ships, most points "
                  "first, within the points level — and rolls the table (ruling CAM52)",
        "fighting": ("the rest of the battle is auto-resolved (ruling CAM53)"
                     if cam.battle_mode == CamCampaign.BattleMode.AUTO
                     else "the game turn waits for the moderator, who may enter for a seat (ruling CAM53)"),
        "confirming": "the result is confirmed as entered and scored (ruling CAM54)",
        "between": "the CAM 4.2 step is made with the requests entered; a player who entered none replaces "
                   "nothing and keeps his points (ruling CAM55)",
    }.get(kind, "nothing")


# --- the sweep -----------------------------------------------------------------------------------


def due_steps(now=None) -> list[int]:
    """The CAM rubbers whose open step is past its deadline and not yet handled (not paused)."""
    now = now or timezone.now()
    # Sorted here, not by the database: asked to order by the key, SQLite walks every rubber in
    # key order instead of the deadline index's few past their deadline (issue 33).
    return sorted(CamCampaign.objects.filter(
        deadline__lte=now, campaign__layer=LAYER, campaign__status=Campaign.Status.ACTIVE, campaign__paused=False,
    ).exclude(deadline_done=F("deadline")).order_by().values_list("pk", flat=True))


def _setup(campaign, cam, row, late) -> str:
    if late:
        raise _Wait(f"{_names(cam, late)} entered no starting fleet (ruling CAM50: the site does not choose "
                    "a starting fleet); enter one for the seat, hand the seat to another player, or extend "
                    "the deadline")
    try:
        setup._start(campaign, cam)
    except CamActionError as exc:
        raise _Wait(f"the fleets entered cannot start the rubber: {exc}") from None
    return "the rubber started with the fleets entered (CAM 4.0; ruling CAM50)"


def _generate(campaign, cam, row, late) -> str:
    row = scenarios._generate(campaign, cam)
    return f"scenario {row.number} generated (CAM 2.1; ruling CAM51)"


def _forces(campaign, cam, row, late) -> str:
    state = adapters.campaign_state(cam)
    scenario = adapters.scenario_state(row)
    chosen = []
    for seat in late:
        selection = standing.standing_force(state, scenario, seat)
        if selection is None:
            raise _Wait(f"no force that CAM 2.2 allows can be chosen for {_names(cam, [seat])} (no ready ship "
                        "fits the points level or the convoy proportions; ruling CAM52)")
        try:
            scenario = sc.select_forces(state, scenario, selection)
        except ENGINE_ERRORS as exc:
            raise _Wait(f"the force chosen for {_names(cam, [seat])} was refused: {exc}") from None
        row.selections = {**row.selections, str(seat): adapters.selection_json(selection)}
        chosen.append(f"{_names(cam, [seat])}: {', '.join(f'#{s}' for s in selection.ships)} "
                      f"({scenario.forces[seat].points} points)")
    adapters.store_scenario(row, scenario)
    row.save()
    scenarios._roll_table(campaign, cam, row)
    return ("forces chosen by the site (ruling CAM52): " + "; ".join(chosen) + "; " if chosen else "") + \
        f"scenario {row.number}'s table rolled (CAM 2.3)"


def _fighting(campaign, cam, row, late) -> str:
    if cam.battle_mode != CamCampaign.BattleMode.AUTO:
        raise _Wait(f"scenario {row.number}, game turn {(row.battle or {}).get('turn', '?')}: "
                    f"{_names(cam, late) or 'nobody'} has not entered the turn; in a tabletop campaign only the "
                    "moderator may auto-resolve (rulings CAM29, CAM53): enter for the seat, end the game, "
                    "auto-resolve, or extend the deadline")
    battle._autoresolve(campaign, cam)
    return f"scenario {row.number}: the rest of the battle auto-resolved and scored (rulings CAM26, CAM53)"


def _confirming(campaign, cam, row, late) -> str:
    battle._confirm(campaign, cam, row)
    return f"scenario {row.number}: the result entered was confirmed as entered and scored (ruling CAM54)"


def _between(campaign, cam, row, late) -> str:
    state = adapters.campaign_state(cam)
    asked_nothing = [p.seat for p in cam.players.order_by("seat") if not p.requests]
    _next_step(campaign, cam, f"between scenarios after scenario {state.scenarios_played} (CAM 4.2)")
    try:
        between._between(campaign, cam, state)
    except CamActionError as exc:
        raise _Wait(f"the CAM 4.2 step cannot be made with the requests entered: {exc}") from None
    return (f"the CAM 4.2 step after scenario {state.scenarios_played} was made with the requests entered"
            + (f" (none from {_names(cam, asked_nothing)})" if asked_nothing else "") + " (ruling CAM55)")


_ACTS = {"setup": _setup, "generate": _generate, "forces": _forces, "fighting": _fighting,
         "confirming": _confirming, "between": _between}


def _audit(campaign: Campaign, target: str, before: dict, after: dict, note: str) -> None:
    AuditEntry.objects.create(campaign=campaign, user=None, action="cam_deadline", target=target[:120],
                              before=_jsonable(before), after=_jsonable(after), note=note)


@transaction.atomic
def process_due_step(*, campaign_id: int, now=None) -> str | None:
    """The open step of one rubber at its passed deadline: ``"acted"`` (the default was taken and
    the next step opened), ``"waits"`` (left to the moderator, emailed once) or None (nothing due:
    not past its deadline, already handled, paused, over). Safe to run twice or at once: the
    campaign row lock serialises callers, and the second finds a new deadline or the handled one."""
    now = now or timezone.now()
    campaign = locks.campaign(campaign_id, Campaign.objects.filter(layer=LAYER))
    if campaign is None or campaign.status != Campaign.Status.ACTIVE or campaign.paused:
        return None
    cam = CamCampaign.objects.get(pk=campaign.pk)  # a row under the campaign row (locked above)
    deadline = cam.deadline
    if deadline is None or deadline > now or cam.deadline_done == deadline:
        return None
    kind, row, late = waiting(campaign, cam)
    if kind == "none":
        return None
    before = {"step": cam.step, "at": step_label(campaign, cam), "deadline": deadline, "late": late}
    target = f"step {cam.step}"
    act = _ACTS.get(kind)
    reason = ""
    if act is None:  # fought online: its own per-decision deadlines play late sides
        reason = "the scenario is fought online: its decisions keep their own deadlines"
    else:
        try:
            with transaction.atomic():  # a savepoint: a default that cannot be taken leaves nothing
                did = act(campaign, cam, row, late)
        except _Wait as wait:
            reason = str(wait)
        except CamActionError as exc:
            reason = f"the default could not be taken: {exc}"
    if reason:
        campaign.refresh_from_db()
        cam = CamCampaign.objects.get(pk=campaign.pk)
        cam.deadline_done = deadline
        cam.save(update_fields=["deadline_done"])
        _audit(campaign, target, before, {"waits": kind}, f"The deadline passed; the step waits for the moderator: "
                                                          f"{reason}.")
        if act is not None:
            notify.step_late(campaign, cam.step, deadline, [
                f"The deadline of step {cam.step} ({before['at']}) passed on {deadline:%a %d %b %Y, %H:%M} UTC.",
                f"The step waits for you: {reason}."])
        return "waits"
    cam = CamCampaign.objects.get(pk=campaign.pk)
    _audit(campaign, target, before, {"step": cam.step, "at": step_label(campaign, cam)},
           f"The deadline passed: {did}.")
    notify.deadline_passed(campaign, before["step"], deadline, [
        f"The deadline of step {before['step']} ({before['at']}) passed: {did}.",
        f"The rubber is now at {step_label(campaign, cam)}."])
    return "acted"


def process_due_steps(now=None) -> int:
    """Every due step, each in its own transaction (for callers without a task queue)."""
    return sum(1 for pk in due_steps(now) if process_due_step(campaign_id=pk, now=now))


# --- reminders -----------------------------------------------------------------------------------


def send_step_reminders(now=None) -> int:
    """Remind the players a step still waits for that its deadline is within 24 hours, and again
    within the hour (each once per deadline, by ``notify_reminders``; each rubber in its own
    transaction). Nothing while paused, nor for a step whose whole time is inside the window."""
    now = now or timezone.now()
    due = CamCampaign.objects.filter(
        deadline__gt=now, deadline__lte=now + timedelta(hours=24), campaign__layer=LAYER,
        campaign__status=Campaign.Status.ACTIVE, campaign__paused=False,
    ).order_by("pk").values_list("pk", flat=True)
    return sum(send_step_reminder(campaign_id=pk, now=now) for pk in list(due))


@transaction.atomic
def send_step_reminder(*, campaign_id: int, now) -> int:
    """One rubber's reminder (``send_step_reminders``), under its campaign row lock: re-checked
    there, so a step made or a pause meanwhile sends nothing."""
    campaign = locks.campaign(campaign_id, Campaign.objects.filter(layer=LAYER))
    if campaign is None or campaign.paused or campaign.status != Campaign.Status.ACTIVE:
        return 0
    cam = CamCampaign.objects.get(pk=campaign.pk)
    if cam.deadline is None or cam.deadline <= now:
        return 0
    left = cam.deadline - now
    kind = next((k for k, window in REMINDER_WINDOWS if left <= window), None)
    if kind is None or timedelta(hours=campaign.turn_hours) <= dict(REMINDER_WINDOWS)[kind]:
        return 0
    what, _, late = waiting(campaign, cam)
    users = set(cam.players.filter(seat__in=late).values_list("user_id", flat=True))
    if not users:
        return 0
    within = "1 hour" if kind == notify.REMINDER_1H else "24 hours"
    return notify.step_reminder(campaign, cam.step, cam.deadline, kind, users, within, [
        f"Step {cam.step} of the rubber ({step_label(campaign, cam)}) is due within {within}: the deadline is "
        f"{cam.deadline:%a %d %b %Y, %H:%M} UTC.",
        f"It still waits for you. At the deadline {what_happens(what, cam)}."])

