"""A CAM scenario fought online on another rule book than Buoyz (issue 31; rulings XC10–XC18).

A rubber whose moderator chose "battles fought online use: <book>" (``Campaign.options
["battle_book"]``; Buoyz, CAM's own, when unset) fights its online scenarios as a battle of the
generic kind (tactical/play/): when the table is rolled, ``open_battle`` writes the layer's side of
the scenario (``eventhorizon.convert.cam_setup``: each seat's units with their SDs, crippled or
not), converts it with the book's registered converter (``registry.find_converter("cam", book)``)
and creates a ``Battle`` with ``ruleset`` = the book and ``setup`` = the book's own setup, the CAM
one kept under ``setup["layer_setup"]`` (``Battle.converted``). From then on it is the book's own
online play — its board, fog of war, decision deadlines and hand-over to the computer
(``play_due_activations``), replay and dice log (phase ``battle <id>``) — with the CAM players as
its sides (``seats_of``, registered in ``kinds.HOST_SEATS``) and the decisions held while the rubber
is paused (``play.PAUSE_HOLDS``, ruling CAM60). When it ends, ``tactical.play.actions._finish`` gives
the book's result to the converter's ``result_back`` and this module's ``record_result`` (the
``RESULT_SINKS["cam"]``) applies the CAM result to the scenario's CAM record (``apply_to_cam``, here:
CAM's door records the result of every book the same way) and
scores it with ``online.record_engine_result`` — the function a confirmed tabletop entry and a
Buoyz battle use — so CAM scoring (CAM 3.1, 4.3) and the CAM 4.2 step go on unchanged.

The handler ``CamOnlineBattles`` (scenarios.py) sends a scenario here when its battle is such a
battle (or, when opening it, when the rubber's book is not Buoyz).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from django.urls import reverse
from django.utils import timezone

from campaign.cam import adapters, online
from campaign.cam.actions import CamActionError
from campaign.cam.actions.errors import NotAllowed as CamNotAllowed
from campaign.cam.battles import BattleStuck
from campaign.cam.models import LAYER, CamPlayer, CamScenario, CamShip
from campaign.rules.cam import breakcontact
from tactical.models import Battle, BattleLogEntry
from tactical.play import actions as play
from tactical.play import embedded
from tactical.rules import registry
from tactical.rules.eventhorizon import convert as eh_convert

PLAYING = Battle.Status.PLAYING


def book_of(campaign) -> str:
    """The rule book the rubber's scenarios are fought on online (issue 31; Buoyz when unset)."""
    return (campaign.options or {}).get("battle_book") or registry.OWN_BOOK[LAYER]


def book_title(campaign) -> str:
    """The book the rubber's online scenarios are fought on, as messages name it: "the Buoyz
    engine" (CAM's own), else the chosen book's title ("Star Trek Print&Play")."""
    book = book_of(campaign)
    if book == registry.OWN_BOOK[LAYER]:
        return "the Buoyz engine"
    return registry.book_title(book)


def book_rulings(campaign) -> str:
    """The house rulings the rubber's forces are converted by on the chosen book ("XC19, XC26-XC30"),
    "" on the Buoyz engine (CAM's own: nothing converted)."""
    converter = registry.find_converter(LAYER, book_of(campaign))
    return converter.rulings if converter is not None else ""


def converted_battles():
    """The battles of CAM scenarios fought online on another rule book."""
    return Battle.objects.filter(campaign__layer=LAYER, setup__has_key="layer_setup")


def battle_for(row, *, lock: bool = False) -> Battle | None:
    qs = converted_battles().filter(campaign_id=row.cam_id, turn=row.number)
    return (qs.select_for_update() if lock else qs).first()


def layer_setup(campaign, row) -> dict:
    """The layer's side of the scenario as it stands (the record of the moment the table is set)."""
    cam = campaign.cam
    battle = adapters.battle_state(row, adapters.campaign_state(cam))
    roster = dict(CamShip.objects.filter(player__cam=cam).values_list("number", "sd"))
    names = {p.seat: p.name for p in cam.players.all()}
    return {**eh_convert.cam_setup(battle, adapters.catalogue(cam), roster, names), "scenario": row.number}


def open_battle(campaign, cam, row, book: str) -> Battle:
    """The scenario's table on ``book``: the converted setup as a generic battle, started at once
    (``play.start_embedded``: its sides deploy, the book plays on until a player must decide)."""
    converter = registry.find_converter(LAYER, book)
    try:
        cam_side = layer_setup(campaign, row)
        book_setup = converter.to_book(cam_side)
    except (KeyError, ValueError, TypeError) as exc:
        raise CamActionError(f"the scenario cannot be converted to {book}: {exc}", "engine") from None
    battle = Battle.objects.create(
        campaign=campaign, turn=row.number, index=0, x=0, y=0, attacker=int(cam_side["attacker"]),
        defender=int(cam_side["defender"]), mode=Battle.Mode.TACTICAL, status=PLAYING, ruleset=book,
        doctrine_sides=[], setup={**book_setup, "layer_setup": cam_side})
    BattleLogEntry.objects.create(
        battle=battle, kind="converted",
        text=f"Scenario {row.number} is fought online on {registry.book_title(book)}: the forces converted by "
             f"house rulings {converter.rulings}; the result comes back as CAM's.")
    try:
        play.start_embedded(battle)
    except (play.PlayError, KeyError, ValueError, TypeError) as exc:
        raise CamActionError(f"the scenario cannot be set up on {book}: {exc}", "engine") from None
    return battle


def seats_of(user, battle) -> list[int]:
    """A CAM battle's sides are the CAM players' seats (kinds.HOST_SEATS["cam"])."""
    return list(CamPlayer.objects.filter(cam_id=battle.campaign_id, user=user, seat__in=battle.seats)
                .values_list("seat", flat=True))


def page(battle) -> dict:
    """The play and replay pages' title and link back (kinds.HOST_PAGES["cam"])."""
    return {"title": f"Scenario {battle.turn}",
            "subtitle": f"fought online on {registry.book_title(battle.ruleset)} (converted)",
            "back_url": reverse("cam-scenario", args=[battle.campaign_id, battle.turn]),
            "back_label": f"scenario {battle.turn} of {battle.campaign.name}",
            "after_end": f"The result is scored in scenario {battle.turn} (000 CAM 3.1, 4.3)."}


def tell_decision(battle: Battle, campaign, seat: int, label: str) -> None:
    """The "your decision" email of the CAM layer (play.DECISION_MAILS["cam"]): the phase and the
    page only, never a ship or a position (fog of war); once per decision window."""
    from campaign.cam import notify

    row = CamScenario.objects.select_related("cam").get(cam_id=campaign.pk, number=battle.turn)
    notify.your_decision(campaign, row, seat, label, reverse("battle-play", args=[battle.pk]),
                         key=f"{battle.pk}.{battle.steps.count()}")


def apply_to_cam(battle: breakcontact.BattleState, back: Mapping[str, Any]) -> breakcontact.BattleState:
    """Record the CAM result a converter gave back (its ``result_back``: per seat the units
    destroyed, crippled and gone off the table, and the winner; the same for every book) in the
    CAM battle record (000 CAM 3.0, 3.1; ruling XC18): the damage, then the break contact order of
    the side(s) that did not win, whose ships and AC left on the table leave it (as an
    auto-resolved battle does, ruling CAM26). A unit that cannot be crippled (5.7) is not; the
    record is then ready for ``scoring.score_scenario``. Pure (no database)."""
    for seat in battle.scenario.seats:
        can = {u.uid for u in battle.on_table(seat) if u.can_cripple and not battle.unit_status(seat, u.uid).crippled}
        destroyed = list(back.get("destroyed", {}).get(str(seat), []))
        crippled = [u for u in back.get("crippled", {}).get(str(seat), []) if u in can and u not in destroyed]
        left = [u for u in back.get("left", {}).get(str(seat), []) if u not in destroyed]
        battle = breakcontact.record_damage(battle, seat, destroyed=destroyed, crippled=crippled, left=left)
    winner = back.get("winner")
    broken = dict(battle.broken)
    for seat in battle.scenario.seats:
        if seat != winner and broken.get(seat) is None:
            broken[seat] = battle.turn
    battle = replace(battle, broken=MappingProxyType(broken))
    for seat in battle.scenario.seats:
        if battle.ordered_to_break(seat):
            leaving = [u.uid for u in battle.on_table(seat) if u.kind in ("ship", "ac")]
            if leaving:
                battle = breakcontact.record_damage(battle, seat, left=leaving)
    return battle


def record_result(*, battle: Battle, result, how: str, user=None) -> Battle:
    """The battle is over (``play._finish``, the campaign row locked): ``result`` is already the
    CAM result (the converter's ``result_back``). It goes into the scenario's CAM record
    (``apply_to_cam``: damage, then the break-contact order of the side that did not win, ruling
    XC18) and is scored by ``online.record_engine_result`` (CAM 3.1, 4.3)."""
    campaign = battle.campaign
    row = CamScenario.objects.select_for_update().get(cam_id=campaign.pk, number=battle.turn)
    state = adapters.campaign_state(campaign.cam)
    cam_battle = apply_to_cam(adapters.battle_state(row, state), result)
    online.record_progress(row, cam_battle)
    book_result = result.get("book_result") or {}
    # The game turns the book fought: "turns" (Event Horizon, My Trek V), "rounds" (Print&Play's
    # round is its game turn, PP18); else the CAM record's own count.
    turns = int(book_result.get("turns") or book_result.get("rounds") or cam_battle.turn or 1)
    battle.result = {**result, "how": how, "turns": turns}
    battle.status = Battle.Status.RESOLVED
    battle.resolved_how = how
    battle.resolved_at = timezone.now()
    battle.activation_deadline = None
    battle.save(update_fields=["result", "status", "resolved_how", "resolved_at", "activation_deadline"])
    online.record_engine_result(campaign, row, cam_battle, battle.pk, turns)
    return battle


def _refusal(exc: play.PlayError) -> CamActionError:
    if isinstance(exc, play.NotAllowed):
        return CamNotAllowed(exc.message)
    if isinstance(exc, play.NotYourTurn):
        return online.Conflict(exc.message)
    rule = getattr(exc, "rule", "")
    return CamActionError(f"{rule}: {exc.message}" if rule else exc.message, "illegal")


def summary(battle: Battle) -> dict:
    playing = battle.status == PLAYING
    deciding = None
    if playing:
        try:
            deciding = embedded.rules_for(battle).acting_side(embedded.current_state(battle))
        except Exception:  # noqa: BLE001 - a summary never fails a page; the moderator settles a stuck battle
            deciding = None
    return {
        "id": battle.pk, "ruleset": battle.ruleset, "status": battle.status,
        "status_label": battle.get_status_display(), "resolved_how": battle.resolved_how,
        "doctrine_sides": list(battle.doctrine_sides or []), "deciding": deciding, "game_turn": None,
        "phase": None, "converted": True,
        "book_title": f"{registry.book_title(battle.ruleset)} (converted)",
        "decision_deadline": battle.activation_deadline.isoformat() if playing and battle.activation_deadline else None,
        "steps": battle.steps.count(), "url": reverse("battle-detail", args=[battle.pk]),
        "play_url": reverse("battle-play", args=[battle.pk]),
    }


def act(battle: Battle, user, action) -> None:
    try:
        play.take_action(battle_id=battle.pk, user=user, action_json=action)
    except play.PlayError as exc:
        raise _refusal(exc) from None


def hand_to_doctrine(battle: Battle, user, on: bool) -> None:
    try:
        play.hand_to_doctrine(battle_id=battle.pk, user=user, on=on)
    except play.PlayError as exc:
        raise _refusal(exc) from None


def finish_by_doctrine(campaign, battle: Battle, user) -> None:
    """The moderator's settlement (ruling CAM43): the book's doctrine plays both sides to the end."""
    if battle.status != PLAYING:
        raise BattleStuck(f"battle {battle.pk} is not being played")
    battle.campaign = campaign
    try:
        play.finish_with_doctrine(battle, text="The moderator settles the battle: the computer doctrine plays "
                                               "both sides to the end.")
    except (play.PlayError, KeyError, ValueError, TypeError) as exc:
        raise BattleStuck(str(exc)) from None


def report_lines(battle: Battle, row) -> list[str]:
    """The scenario report's battle lines: per side the units destroyed, crippled and gone, from
    the CAM result (everything is revealed once it is over)."""
    result = battle.result or {}
    if "destroyed" not in result:
        return []
    names = {}
    for seat, side in ((battle.layer_setup or {}).get("sides") or {}).items():
        names[seat] = (side.get("name") or f"Seat {seat}",
                       {u["uid"]: u.get("name") or u["uid"] for u in side.get("units") or []})
    lines = [f"Battle report (battle {battle.pk}, fought online on {registry.book_title(battle.ruleset)}, converted; "
             f"after {result.get('turns')} turn(s)):"]
    for seat in battle.seats:
        name, units = names.get(str(seat), (f"Seat {seat}", {}))

        def listed(key, seat=seat, units=units):
            return ", ".join(units.get(u, u) for u in result.get(key, {}).get(str(seat), [])) or "none"

        lines.append(f"  {name}: lost {listed('destroyed')}; crippled {listed('crippled')}; "
                     f"left the table {listed('left')}.")
    return lines


__all__ = ["act", "apply_to_cam", "battle_for", "book_of", "book_title", "converted_battles",
           "finish_by_doctrine", "hand_to_doctrine", "open_battle", "page", "record_result", "report_lines",
           "seats_of", "summary"]
