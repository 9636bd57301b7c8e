"""Pages' POST actions for a scenario's mode and a scenario fought online (issue 17):

    cam/<id>/scenarios/<n>/mode/       the moderator switches the mode (until the table is set)
    cam/<id>/scenarios/<n>/tables/     a player chooses the gaming table each ship of his force starts on
    cam/<id>/scenarios/<n>/doctrine/   a player hands his side to the computer doctrine, or takes it back
    cam/<id>/scenarios/<n>/settle/     the moderator settles a stuck scenario (doctrine or auto-resolve)

Thin, as ``views.py``: one action each, the refusal shown on the scenario page with its status
(403, 404, 409, 400); the battle itself is played on its play page (``tactical/play/``).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.views.decorators.http import require_POST

from campaign.sanitise import whole_number

from . import online
from .views import _post_action


def _number(raw: str):
    """A posted number: "" is None (no seat named: the player's own; no table chosen: dealt), a
    whole number an int, anything else as sent — the action refuses it naming the field."""
    if raw == "":
        return None
    number = whole_number(raw)
    return raw if number is None else number


def _seat(request) -> int | None:
    """The seat the moderator names (``_number``: text that is no seat number is refused by the
    action, not read as "no seat")."""
    return _number(request.POST.get("seat") or "")


@login_required
@require_POST
def scenario_mode(request, campaign_id: int, number: int):
    mode = request.POST.get("mode", "")
    return _post_action(request, campaign_id, lambda: online.set_mode(
        campaign_id=campaign_id, user=request.user, number=number, mode=mode),
        ok=f"Scenario {number} will be fought: {mode}.", scenario=number)


@login_required
@require_POST
def scenario_tables(request, campaign_id: int, number: int):
    tables = {key[len("table-"):]: _number(value) for key, value in request.POST.items() if key.startswith("table-")}
    return _post_action(request, campaign_id, lambda: online.choose_tables(
        campaign_id=campaign_id, user=request.user, number=number, tables=tables, seat=_seat(request)),
        ok="Your ships' tables are chosen (000 11.3, ruling BZ94).", scenario=number)


@login_required
@require_POST
def scenario_doctrine(request, campaign_id: int, number: int):
    on = request.POST.get("on", "1") != "0"
    return _post_action(request, campaign_id, lambda: online.hand_to_doctrine(
        campaign_id=campaign_id, user=request.user, number=number, on=on, seat=_seat(request)),
        ok="Your side is in the computer doctrine's hands." if on else "You command your side again.",
        scenario=number)


@login_required
@require_POST
def scenario_settle(request, campaign_id: int, number: int):
    how = request.POST.get("how", "doctrine")
    return _post_action(request, campaign_id, lambda: online.settle(
        campaign_id=campaign_id, user=request.user, number=number, how=how),
        ok="Scenario settled and scored.", scenario=number)
