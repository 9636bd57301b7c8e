"""A CAM scenario fought online on the generic play and replay pages (issue 17 items 2–3).

Registered with tactical/play/kinds.py by ``tactical/apps.py``: for a battle with ``setup["cam"]``
the play page, the replay page and the battle API (tactical/play/) show the Buoyz board with the
CAM players as the sides (``CamPlayer`` seats, not ``Empire`` ones), fog of war as for any Buoyz
battle (``tactical.rules.buoyz.cam_play_rules.CamBuoyzPlay``), the table set up by ``deploy_cam`` from
the scenario's CAM record (``cam.initial_state``). A decision or a hand to the doctrine made on
those pages goes through the CAM layer's own actions (``campaign.cam.online.act`` /
``hand_to_doctrine``: the campaign row locked first, the seat checked), so the battle's end is
scored by ``online.record_engine_result`` exactly as from the scenario's API, and the decision
deadlines stay with the CAM sweep (``cam.play_due``, ruling CAM42).

Also here: the "your decision" email (``tell_decision``) and the battle report of the scenario's
report email (``report_lines``).
"""

from __future__ import annotations

from django.urls import reverse

from campaign.access import role_of
from campaign.cam import notify, online
from campaign.cam.actions.errors import CamActionError
from campaign.cam.actions.errors import NotAllowed as CamNotAllowed
from campaign.cam.actions.errors import NotFound as CamNotFound
from campaign.cam.actions.errors import Paused as CamPaused
from campaign.cam.models import CamPlayer, CamScenario
from campaign.models import Membership
from tactical.play import actions as play
from tactical.rules.buoyz.cam_play_rules import CAM_RULES, wrap

from . import scenarios as cam


def _row(battle) -> CamScenario:
    return CamScenario.objects.select_related("cam").get(cam_id=battle.campaign_id, number=battle.turn)


def _refusal(exc: CamActionError) -> play.PlayError:
    message = str(exc)
    if isinstance(exc, (CamNotAllowed, CamNotFound)):
        return play.NotAllowed(message)
    if isinstance(exc, online.Conflict | CamPaused):  # 409: out of turn, or the campaign paused (CAM60)
        return play.NotYourTurn(message)
    rule, sep, rest = message.partition(": ")
    return play.Refused(rule if sep else CAM_RULES.format_rule, rest if sep else message)


class CamPlayKind:
    """Implements ``tactical.play.kinds.BattleKind`` for CAM scenarios fought online."""

    rules = CAM_RULES

    @staticmethod
    def owns(battle) -> bool:
        return battle.ruleset == cam.RULESET and "cam" in (battle.setup or {})

    @staticmethod
    def initial_state(battle, dice):
        return wrap(cam.initial_state(battle, _row(battle), dice))

    @staticmethod
    def seats_of(user, battle) -> list[int]:
        return list(CamPlayer.objects.filter(cam_id=battle.campaign_id, user=user, seat__in=battle.seats)
                    .values_list("seat", flat=True))

    @staticmethod
    def is_moderator(user, battle) -> bool:
        return role_of(user, battle.campaign) == Membership.Role.MODERATOR

    @staticmethod
    def take_action(*, battle_id: int, user, action_json) -> None:
        battle = cam.cam_battles().get(pk=battle_id)
        try:
            online.act(campaign_id=battle.campaign_id, user=user, number=battle.turn, action=action_json)
        except CamActionError as exc:
            raise _refusal(exc) from None

    @staticmethod
    def hand_to_doctrine(*, battle_id: int, user, on: bool) -> None:
        battle = cam.cam_battles().get(pk=battle_id)
        try:
            online.hand_to_doctrine(campaign_id=battle.campaign_id, user=user, number=battle.turn, on=on)
        except CamActionError as exc:
            raise _refusal(exc) from None

    @staticmethod
    def page(battle) -> dict:
        return {"title": f"Scenario {battle.turn}", "subtitle": "fought online on the Buoyz engine",
                "back_url": reverse("cam-scenario", args=[battle.campaign_id, battle.turn]),
                "back_label": f"scenario {battle.turn} of {battle.campaign.name}",
                "after_end": f"The result is scored in scenario {battle.turn} (000 CAM 3.1, 4.3)."}


# --- the "your decision" email -----------------------------------------------------------------

def tell_decision(battle, campaign, row, state, before: dict | None, last_seq: int) -> None:
    """Email the seat whose decision it now is, once per decision window: when the decision has
    passed to it from someone else (or a new phase or game turn began), never to a side the
    doctrine plays (its own hand or a missed deadline's, ruling CAM42). The text names the phase
    and the page only — never a ship or a position (fog of war)."""
    seat = cam.deciding(state)
    if seat is None or seat in (battle.doctrine_sides or []) or seat in cam._late_sides(battle, state):
        return
    before = before or {}
    if (before.get("seat"), before.get("turn"), before.get("phase")) == (seat, state.turn, state.phase):
        return  # the same window goes on
    label = CAM_RULES.your_turn_label(wrap(state))
    notify.your_decision(campaign, row, seat, label, reverse("battle-play", args=[battle.pk]),
                         key=f"{battle.pk}.{last_seq}")


# --- the battle report of the scenario's report email --------------------------------------------

def report_lines(row) -> list[str]:
    """Ships lost, crippled and left of each side, how it ended and the points destroyed: from the
    finished battle's result (everything is revealed once it is over)."""
    battle = cam.battle_for(row)
    if battle is None or not battle.result or "ships" not in battle.result:
        return []
    result = battle.result
    sides = (battle.setup or {}).get("sides") or {}
    names = {}
    for side in sides.values():
        for ship in side.get("ships") or []:
            names[ship["id"]] = ship.get("name") or f"ship {ship['id']}"
    ending = result.get("ending") or ("all table contact broken" if (row.battle or {}).get("contact_broken")
                                      else "ended")
    lines = [f"Battle report (battle {battle.pk}, fought online; {ending} after game turn {result.get('turns')}):"]
    for seat in battle.seats:
        side = sides.get(str(seat)) or {}
        ships = [s for s in result["ships"] if s["side"] == seat]
        lost = [s for s in ships if s["fate"] == "destroyed"]
        crippled = [s for s in ships if s["fate"] != "destroyed" and s["crippled"]]
        left = [s for s in ships if s["fate"] == "left"]
        on_table = [s for s in ships if s["fate"] == "active"]

        def listed(group):
            return ", ".join(f"{names.get(s['ship'], s['ship'])} ({s['points']} pts)" for s in group) or "none"

        lines.append(f"  {side.get('name') or f'Seat {seat}'}: lost {listed(lost)}; crippled {listed(crippled)}; "
                     f"left the table {listed(left)}; still on the table {listed(on_table)}; "
                     f"points lost {sum(s['points'] for s in lost)}.")
    return lines


__all__ = ["CamPlayKind", "report_lines", "tell_decision"]
