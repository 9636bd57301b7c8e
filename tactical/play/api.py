"""The REST API of embedded battles (DRF). Thin: find the battle the caller may see (404 for
anyone who is neither one of its sides nor the campaign's moderator), call one action from
tactical/play/actions.py, render.

    GET  api/battles/{id}/state/      the board from your side, whose card it is, and — when it
                                      is your card — the legal actions of your ships
    POST api/battles/{id}/action/     one action as JSON (tactical/rules/eventhorizon/codec.py),
                                      e.g. {"type": "move", "ship": 3, "path": ["F", "FL"]};
                                      400 {"rule", "detail"} when the rules refuse it, 409 when it
                                      is not your card, 403 for the moderator (who may only look)
    POST api/battles/{id}/deploy/     while the fleets are deployed by hand, your side's
                                      {"placements": [{"ship", "x", "y", "facing"}, …]} (every
                                      ship, inside your zone) or {"automatic": true}
    POST api/battles/{id}/doctrine/   {"on": true|false}: hand your fleet to the computer, or
                                      take it back
"""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from tactical.models import Battle
from tactical.play import actions as play
from tactical.play import embedded
from tactical.play.views import BattleView, battle_view, event_rows, ship_rows, started
from tactical.rules import eventhorizon as eh
from tactical.rules.eventhorizon import codec
from tactical.rules.eventhorizon.geometry import FACING_NAMES

EVENTS_IN_STATE = 30


def _view(request, battle_id: int) -> BattleView:
    try:
        return battle_view(request.user, battle_id)
    except Http404:
        raise NotFound("no such battle") from None


def state_json(view: BattleView) -> dict:
    battle = view.battle
    out = {
        "battle": battle.pk, "campaign": battle.campaign_id, "status": battle.status, "turn": battle.turn,
        "hex": [battle.x, battle.y], "you": view.seat, "moderator": view.moderator,
        "sides": [{"seat": s, "name": view.names[s], "colour": view.colours.get(s), "role":
                   "attacker" if s == battle.attacker else "defender", "computer": s in (battle.doctrine_sides or [])}
                  for s in battle.seats],
        "doctrine_sides": list(battle.doctrine_sides or []),
        "activation_deadline": battle.activation_deadline.isoformat() if battle.activation_deadline else None,
        "result": battle.result, "steps": battle.steps.count(),
    }
    if not started(view):
        out.update({"started": False, "your_turn": False})
        if battle.status == Battle.Status.DEPLOYING:
            setup = battle.setup
            seat = embedded.next_to_deploy(setup)
            yours = view.seat is not None and view.seat == seat
            table = embedded.preview(setup)
            out["deployment"] = {
                "seat": seat, "yours": yours, "order": embedded.deploy_order(setup),
                "done": {str(s): ("automatic" if v == embedded.AUTOMATIC else "hand")
                         for s, v in embedded.deployed(setup).items()},
                # The fleets already on the table: the side deploying later sees them (003 AEWA).
                "placed": [{"ship": s.id, "side": s.side, "pos": list(s.pos), "facing": FACING_NAMES[s.facing]}
                           for s in table.ships],
                "zone": [list(c) for c in embedded.zone_of(setup, seat, table)] if yours else [],
                "ships": [int(d["id"]) for d in ((setup.get("sides") or {}).get(str(seat)) or {}).get("ships", [])]
                         if yours else [],
                "facings": list(FACING_NAMES),
            }
        return out
    state = embedded.current_state(battle)
    your_turn = (view.running and view.seat is not None and state.acting_side == view.seat
                 and view.seat not in (battle.doctrine_sides or []))
    legal = {}
    if your_turn:
        ids = [state.activation.ship] if state.activation else [s.id for s in state.ships_of(view.seat)]
        for ship_id in ids:
            legal[str(ship_id)] = [codec.to_json(a) for a in eh.legal_actions(state, ship_id)]
    ships = ship_rows(state, view)
    for row in ships:
        row["pos"] = list(row["pos"])
    events = event_rows(state.log, view)
    out.update({
        "started": True, "over": eh.is_over(state), "cards_drawn": state.cards_drawn,
        "card": state.card.label if state.card else None, "storm": state.storm,
        "acting_side": state.acting_side, "activations_left": state.activations_left,
        "activation": None if state.activation is None else {"ship": state.activation.ship,
                                                             "actions": list(state.activation.actions)},
        "your_turn": your_turn, "legal": legal,
        "board": {"width": state.field.width, "height": state.field.height,
                  "terrain": [{"x": c[0], "y": c[1], "kind": k} for c, k in sorted(state.field.terrain.items())],
                  "planets": [{"id": p.id, "squares": [list(c) for c in p.squares], "owner": p.owner,
                               "defences": p.defences, "status": p.status} for p in state.planets]},
        "ships": ships, "facings": list(FACING_NAMES),
        "events": events[-EVENTS_IN_STATE:],
    })
    return out


class BattleStateView(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT, summary="An embedded battle as the caller sees it")
    def get(self, request, battle_id: int):
        return Response(state_json(_view(request, battle_id)))


def _refused(exc: play.PlayError, view: BattleView | None = None) -> Response:
    if isinstance(exc, play.Refused):
        return Response({"rule": exc.rule, "detail": exc.message}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, play.NotYourTurn):
        return Response({"detail": exc.message}, status=status.HTTP_409_CONFLICT)
    return Response({"detail": exc.message}, status=status.HTTP_403_FORBIDDEN)


class BattleActionView(APIView):
    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT,
                   summary="Take one action in an embedded battle")
    def post(self, request, battle_id: int):
        view = _view(request, battle_id)
        data = request.data
        if isinstance(data, dict) and "action" in data and "type" not in data:
            data = data["action"]
        try:
            play.take_action(battle_id=battle_id, user=request.user, action_json=data)
        except play.PlayError as exc:
            return _refused(exc, view)
        view.battle = Battle.objects.select_related("campaign").get(pk=battle_id)
        return Response(state_json(view))


class BattleDeployView(APIView):
    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT,
                   summary="Deploy your fleet: {\"placements\": [{ship, x, y, facing}]} or {\"automatic\": true}")
    def post(self, request, battle_id: int):
        view = _view(request, battle_id)
        data = request.data if isinstance(request.data, dict) else {}
        automatic = data.get("automatic", False)
        if not isinstance(automatic, bool):
            return Response({"detail": "'automatic' must be true or false"}, status=status.HTTP_400_BAD_REQUEST)
        if not automatic and "placements" not in data:
            return Response({"detail": "send {\"placements\": [{\"ship\", \"x\", \"y\", \"facing\"}, …]} "
                                       "or {\"automatic\": true}"}, status=status.HTTP_400_BAD_REQUEST)
        try:
            play.deploy_fleet(battle_id=battle_id, user=request.user,
                              placements=None if automatic else data["placements"])
        except play.PlayError as exc:
            return _refused(exc, view)
        view.battle = Battle.objects.select_related("campaign").get(pk=battle_id)
        return Response(state_json(view))


class BattleDoctrineView(APIView):
    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT,
                   summary="Hand your fleet to the computer doctrine, or take it back")
    def post(self, request, battle_id: int):
        view = _view(request, battle_id)
        on = request.data.get("on", True) if isinstance(request.data, dict) else None
        if not isinstance(on, bool):
            return Response({"detail": "'on' must be true or false"}, status=status.HTTP_400_BAD_REQUEST)
        try:
            play.hand_to_doctrine(battle_id=battle_id, user=request.user, on=on)
        except play.PlayError as exc:
            return _refused(exc, view)
        view.battle = Battle.objects.select_related("campaign").get(pk=battle_id)
        return Response(state_json(view))
