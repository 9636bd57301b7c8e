"""CAM emails: a scenario has been generated, a result needs confirmation, a scenario has been
scored (its report), the rubber has ended; a step is due within 24 hours or the hour (to the
players it waits for), its deadline passed and it waits for the moderator (to the moderators), or
the deadline took the default (to the players) — ``actions/deadlines.py``.

Sent once per (campaign, user, kind, scenario) — recorded in ``SentNotification`` like the Event
Horizon emails — and only when the action's transaction commits. Preferences are the members'
``Membership`` switches: ``notify_turn`` for scenario and end-of-rubber news and what a deadline
did, ``notify_battles`` for a result waiting for the player's confirmation and a late step waiting
for the moderator, ``notify_reminders`` for the reminders.
"""

from __future__ import annotations

from django.core.mail import EmailMessage
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse

from campaign.models import Membership, SentNotification
from campaign.notifications import absolute, deliver

from . import mailreply

SCENARIO = "cam_scenario"
CONFIRM = "cam_confirm"
ENDED = "cam_ended"
SCORED = "cam_scored"
ROLLBACK = "cam_rollback"
# A step's deadline (campaign/cam/actions/deadlines.py; stored kinds carry the deadline's stamp and
# stay within SentNotification.kind's 30 characters).
REMINDER_24H = "cam_rem_24h"   # the step is due within 24 hours, to the players it waits for
REMINDER_1H = "cam_rem_1h"     # within the hour
LATE = "cam_late"              # the deadline passed and the step waits for the moderator
DEADLINE = "cam_deadline"      # the deadline passed and the site took the default (to the players)
DECISION = "cam_dec"           # a scenario fought online: the decision is the player's (stored with its window)
PREFERENCE = {SCENARIO: "notify_turn", CONFIRM: "notify_battles", ENDED: "notify_turn", SCORED: "notify_turn",
              ROLLBACK: "notify_turn", REMINDER_24H: "notify_reminders", REMINDER_1H: "notify_reminders",
              LATE: "notify_battles", DEADLINE: "notify_turn", DECISION: "notify_battles"}


def _recipients(campaign, only_users=None):
    users = []
    for m in campaign.memberships.select_related("user").order_by("user_id"):
        if only_users is not None and m.user_id not in only_users:
            continue
        if m.role == Membership.Role.OBSERVER:
            continue
        users.append(m)
    return users


def _send(campaign, kind: str, number: int, subject: str, lines: list[str], only_users=None, key: str = "",
          reply_lines=None) -> int:
    """``key``: the stored kind when one kind can happen more than once per number (a roll-back).
    ``reply_lines(user)``: a Reply-To for that user and lines saying how to answer by mail."""
    pref = PREFERENCE[kind]
    kind = key or kind
    members = [m for m in _recipients(campaign, only_users) if getattr(m, pref) and m.user.email]
    done = set(SentNotification.objects.filter(campaign=campaign, kind=kind, turn=number)
               .values_list("user_id", flat=True))
    url = absolute(reverse("cam-detail", args=[campaign.pk]))
    prefs = absolute(reverse("notification-preferences", args=[campaign.pk]))
    messages, rows = [], []
    for m in members:
        if m.user_id in done:
            continue
        reply_to, extra = reply_lines(m.user) if reply_lines else (None, [])
        body = render_to_string("cam/email.txt", {"user": m.user, "campaign": campaign, "lines": lines + extra,
                                                  "url": url, "preferences_url": prefs})
        messages.append(EmailMessage(subject=f"[Sector Command] {campaign.name}: {subject}", body=body,
                                     to=[m.user.email], reply_to=[reply_to] if reply_to else None))
        rows.append(SentNotification(campaign=campaign, user=m.user, kind=kind, turn=number))
    SentNotification.objects.bulk_create(rows)
    if messages:
        transaction.on_commit(lambda: deliver(messages), robust=True)
    return len(messages)


def scenario_generated(campaign, row) -> int:
    lines = [e["text"] for e in row.events] + [
        f"Choose your force of up to {row.points_level} points (000 CAM 2.2) on the scenario page."]
    return _send(campaign, SCENARIO, row.number, f"scenario {row.number} has been generated", lines)


def result_needs_confirmation(campaign, row) -> int:
    others = set(row.cam.players.exclude(seat=row.proposed_by).values_list("user_id", flat=True))
    lines = [f"The result of scenario {row.number} has been entered and waits for your confirmation."]
    return _send(campaign, CONFIRM, row.number, f"scenario {row.number}: confirm the result", lines,
                 only_users=others, reply_lines=lambda user: mailreply.confirm_lines(campaign, row, user))


def scenario_scored(campaign, row, events) -> int:
    """The scenario's report: how it ended, the CAM 3.1 score of each side, the winner and the
    CAM 4.3 campaign points, and what happened to the ships (the engine's scoring events)."""
    score = row.score or {}
    lines = [f"Scenario {row.number} ({row.nature.replace('_', ' ')}, {row.points_level} points) has been scored"
             + (" (the players ended the game)." if row.force_end else ".")]
    names = dict(row.cam.players.values_list("seat", "name"))
    for seat, side in sorted((score.get("sides") or {}).items(), key=lambda kv: int(kv[0])):
        lines.append(f"  {names.get(int(seat), f'seat {seat}')}: {side.get('total', 0)} scenario points, "
                     f"{side.get('campaign_points', 0)} campaign points")
    winner = score.get("winner")
    victory = f" ({score['victory'].replace('_', ' ')})" if score.get("victory") else ""
    lines.append(f"Winner: {names.get(int(winner), f'seat {winner}')}{victory}." if winner else "No winner (a draw).")
    lines += [e["text"] for e in events if e.get("text")]
    if row.mode == row.Mode.ONLINE:
        from .battles import handler

        lines += handler().report(row)
    return _send(campaign, SCORED, row.number, f"scenario {row.number} report", lines)


def your_decision(campaign, row, seat: int, label: str, path: str, *, key: str) -> int:
    """A scenario fought online: the decision has passed to ``seat`` (tactical/hosts/cam/kind.py
    ``tell_decision``). Once per decision window (``key``), on the ``notify_battles`` switch; the
    text names the phase and the page, never a ship or a position (fog of war)."""
    user_id = row.cam.players.filter(seat=seat).values_list("user_id", flat=True).first()
    if user_id is None:
        return 0
    lines = [f"Scenario {row.number}, fought online: {label} is yours.",
             f"Play it at {absolute(path)} — past the decision deadline the computer doctrine decides for "
             "you for the rest of the phase (ruling CAM42)."]
    return _send(campaign, DECISION, row.number, f"scenario {row.number}: your decision", lines,
                 only_users={user_id}, key=f"{DECISION}:{key}")


def rubber_ended(campaign, standings) -> int:
    names = {s.seat: s.name for s in standings.table}
    lines = ["The rubber is over (000 CAM 4.1). Standings (000 CAM 4.3):"] + [
        f"  {s.name}: {s.campaign_points} CPs, {s.scenario_wins} scenario wins" for s in standings.table]
    lines.append(f"Winner: {names[standings.winner]}." if standings.winner else "A drawn campaign (ruling CAM20).")
    return _send(campaign, ENDED, 0, "the rubber is over", lines)


def step_rolled_back(campaign, step: int, label: str, user) -> int:
    """Everyone but the moderator who did it: the moderator rolled back a step (once per
    roll-back, on commit). The rubber is paused until the moderator resumes it."""
    from django.utils import timezone

    from campaign.notifications import kind_key, stamp

    others = set(campaign.memberships.exclude(user=user).values_list("user_id", flat=True))
    lines = [f"The moderator has rolled back step {step} of the rubber: “{label}” is undone, and the rubber "
             "stands exactly where it stood before it (dice included: making the step again rolls the same dice).",
             "The rubber is paused until the moderator resumes it; the step then gets its full time."]
    return _send(campaign, ROLLBACK, step, f"step {step} rolled back", lines, only_users=others,
                 key=kind_key(ROLLBACK, stamp(timezone.now())))


def _moderators(campaign) -> set[int]:
    ids = set(campaign.memberships.filter(role=Membership.Role.MODERATOR).values_list("user_id", flat=True))
    if campaign.moderator_id:
        ids.add(campaign.moderator_id)
    return ids


def step_reminder(campaign, step: int, deadline, kind: str, users, within: str, lines: list[str]) -> int:
    """A step is due within 24 hours (or the hour): to the players it still waits for, once per
    deadline (an extended deadline is reminded again)."""
    from campaign.notifications import kind_key, stamp

    return _send(campaign, kind, step, f"step {step} is due within {within}", lines, only_users=set(users),
                 key=kind_key(kind, stamp(deadline)))


def step_late(campaign, step: int, deadline, lines: list[str]) -> int:
    """A step's deadline passed and no default is fair: to the moderators, once per deadline."""
    from campaign.notifications import kind_key, stamp

    return _send(campaign, LATE, step, f"step {step} is late and waits for you", lines,
                 only_users=_moderators(campaign), key=kind_key(LATE, stamp(deadline)))


def deadline_passed(campaign, step: int, deadline, lines: list[str]) -> int:
    """A step's deadline passed and the site took the default: to the players (once per deadline)."""
    from campaign.notifications import kind_key, stamp

    players = set(campaign.cam.players.values_list("user_id", flat=True))
    return _send(campaign, DEADLINE, step, f"the deadline of step {step} passed", lines, only_users=players,
                 key=kind_key(DEADLINE, stamp(deadline)))
