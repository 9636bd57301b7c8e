"""CAM by mail (issue 18 item 7): the player asked to confirm a scenario result replies to its
email with "CONFIRM", or "DISPUTE <reason>".

The email's Reply-To is a signed address, ``cam+<campaign>.<scenario>.<user>.<signature>@MAIL_DOMAIN``
(``campaign/mail/addresses.py``), so a reply names the campaign, the scenario and the account it
was sent to, and no one can make one for another. The reply must also come from that account's
registered address; the answer goes to that address whatever the From: says. The action is the
page's own (``actions.confirm_result`` / ``actions.reject_result``), with the same checks.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from campaign import locks
from campaign.mail import addresses
from campaign.mail.routing import Answer, Incoming, registered_user
from campaign.models import Campaign

from . import actions
from .models import LAYER, CamScenario

PREFIX = "cam"


def reply_address(campaign_id: int, number: int, user_id: int) -> str:
    return addresses.make(PREFIX, campaign_id, number, user_id)


def confirm_lines(campaign, row, user) -> tuple[str | None, list[str]]:
    """The Reply-To and the lines telling the player how to answer by mail (none while the site
    takes no mail: MAIL_IN_ENABLED)."""
    if not settings.MAIL_IN_ENABLED:
        return None, []
    return reply_address(campaign.pk, row.number, user.pk), [
        "",
        "You can answer by mail: reply to this email with CONFIRM on the first line to confirm the "
        "result, or DISPUTE followed by your reason to dispute it.",
    ]


def _command(text: str) -> tuple[str, str]:
    """("confirm" | "dispute" | "", reason) from the first line the player wrote."""
    lines = [ln.rstrip() for ln in text.replace("\r\n", "\n").split("\n")]
    for i, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith(">"):
            continue
        word, _, rest = line.strip().partition(" ")
        word = word.strip(".!:,").upper()
        if word == "CONFIRM":
            return "confirm", ""
        if word == "DISPUTE":
            more = []
            for following in lines[i + 1:]:
                if following.lstrip().startswith(">") or following.strip() == "--":
                    break
                more.append(following.strip())
            return "dispute", " ".join([rest.strip(), *more]).strip()
        return "", ""
    return "", ""


def _answer(outcome: str, body: str, user, subject: str) -> Answer:
    return Answer(route="cam", outcome=outcome, body=body, user=user, subject=f"[Sector Command] {subject}")


def handle(incoming: Incoming, address: str) -> Answer:
    try:
        campaign_id, number, user_id = addresses.read(PREFIX, address, 3)
    except addresses.BadAddress as exc:
        return _answer(f"refused: {exc}", f"Your reply was not read: {exc}.\n",
                       registered_user(incoming.sender), "your reply was not read")
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return _answer("refused: the account is gone", "Your reply was not read.\n", None, "your reply was not read")
    if (user.email or "").lower() != incoming.sender:
        return _answer(
            f"refused: sent from {incoming.sender or '(no address)'}, not the account's address",
            f"A reply to the email about scenario {number} came from another address than the one your account "
            "is registered with, so it was ignored. Nothing has been changed. Reply from your registered address.\n",
            user, f"scenario {number}: a reply from another address was ignored")
    command, reason = _command(incoming.text)
    if not command:
        return _answer("refused: no CONFIRM or DISPUTE", "Your reply was not understood: its first line must be "
                       "CONFIRM, or DISPUTE followed by your reason. Nothing has been changed.\n", user,
                       f"scenario {number}: reply not understood")
    with transaction.atomic():
        campaign = locks.campaign(campaign_id, Campaign.objects.filter(layer=LAYER))
        row = campaign.cam.scenario_rows.filter(number=number).first() if campaign is not None else None
        if row is None or row.stage != CamScenario.Stage.CONFIRMING:
            now = f"it is at '{row.get_stage_display()}'" if row is not None else "there is no such scenario"
            return _answer(
                f"refused: scenario {number} is not waiting for confirmation",
                f"Scenario {number}'s result is not waiting for confirmation ({now}). Nothing has been changed.\n",
                user,
                f"scenario {number}: nothing to {command}",
            )
        try:
            if command == "confirm":
                actions.confirm_result(campaign_id=campaign_id, user=user)
            else:
                actions.reject_result(campaign_id=campaign_id, user=user, reason=reason)
        except actions.CamActionError as exc:
            return _answer(f"refused: {exc}", f"Your {command.upper()} was refused: {exc}. Nothing has been changed.\n",
                           user, f"scenario {number}: {command} refused")
    name = campaign.name
    if command == "confirm" and campaign.paused:
        return _answer(f"confirmed scenario {number} (kept while paused)", f"You confirmed the result of scenario "
                       f"{number} of \"{name}\". The campaign is paused: your confirmation is kept and the result "
                       "is scored when the moderator resumes it (ruling CAM60).\n", user,
                       f"{name}: scenario {number} confirmed")
    if command == "confirm":
        return _answer(f"confirmed scenario {number}", f"You confirmed the result of scenario {number} of "
                       f"\"{name}\". The scenario's report follows in its own email.\n", user,
                       f"{name}: scenario {number} confirmed")
    return _answer(f"disputed scenario {number}", f"You disputed the result of scenario {number} of \"{name}\""
                   + (f" ({reason})" if reason else "") + ": the game goes on.\n", user,
                   f"{name}: scenario {number} disputed")
