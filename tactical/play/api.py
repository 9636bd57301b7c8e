"""The REST API of embedded battles (DRF). Thin: find the battle the caller may see (404 for
anyone who is neither one of its sides nor the campaign's moderator), call one action from
tactical/play/actions.py, render.

    GET  api/battles/{id}/state/      the board from your side (the ruleset's ``state_json``),
                                      whose decision it is, and — when it is yours — the legal
                                      actions of your ships
    POST api/battles/{id}/action/     one action as JSON, in the battle's ruleset's codec (Event
                                      Horizon: tactical/rules/eventhorizon/play/codec.py, e.g.
                                      {"type": "move", "ship": 3, "path": ["F", "FL"]});
                                      400 {"rule", "detail"} when the rules refuse it, 409 when it
                                      is not your decision, 403 for the moderator (who may only look)
    POST api/battles/{id}/deploy/     while the fleets are deployed by hand (Event Horizon), your side's
                                      {"placements": [{"ship", "x", "y", "facing"}, …]} (every
                                      ship, inside your zone) or {"automatic": true}
    POST api/battles/{id}/doctrine/   {"on": true|false}: hand your fleet to the computer, or
                                      take it back
"""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from campaign.api.schema import RefusalSerializer
from tactical.models import Battle
from tactical.play import actions as play
from tactical.play import embedded
from tactical.play.views import BattleView, battle_view, event_rows, started

EVENTS_IN_STATE = 30


def _view(request, battle_id: int) -> BattleView:
    try:
        return battle_view(request.user, battle_id)
    except Http404:
        raise NotFound("no such battle") from None


def state_json(view: BattleView) -> dict:
    battle = view.battle
    rules = view.rules
    out = {
        "battle": battle.pk, "campaign": battle.campaign_id, "ruleset": battle.ruleset, "status": battle.status,
        "turn": battle.turn, "hex": [battle.x, battle.y], "you": view.seat, "moderator": view.moderator,
        "sides": [{"seat": s, "name": view.names[s], "colour": view.colours.get(s), "role":
                   play.role(battle, s), "computer": s in (battle.doctrine_sides or [])}
                  for s in battle.seats],
        "doctrine_sides": list(battle.doctrine_sides or []),
        "activation_deadline": battle.activation_deadline.isoformat() if battle.activation_deadline else None,
        "result": battle.result, "steps": battle.steps.count(),
    }
    if not started(view):
        out.update({"started": False, "your_turn": False})
        if battle.status == Battle.Status.DEPLOYING and rules.hand_deployment:
            out["deployment"] = rules.deployment_json(battle.setup, view.viewer)
        return out
    state = embedded.current_state(battle)
    viewer = view.viewer
    over = rules.is_over(state)
    asked = rules.acting_sides(state)
    your_turn = viewer.can_act and view.seat in asked and not over
    events = event_rows(rules, rules.events(state), view)
    out.update({
        "started": True, "over": over, "acting_side": rules.acting_side(state), "acting_sides": list(asked),
        "your_turn": your_turn, "legal": rules.legal_json(state, view.seat) if your_turn else {},
    })
    out.update(rules.state_json(state, viewer))
    out["events"] = events[-EVENTS_IN_STATE:]
    return out


class BattleStateSerializer(serializers.Serializer):
    """An embedded battle as the caller sees it (``state_json``): what every rule book shows, then,
    once it has started, the book's own board (``rules.state_json``: its ships, the map, … as the
    caller's side may see them)."""

    battle = serializers.IntegerField()
    campaign = serializers.IntegerField()
    ruleset = serializers.CharField()
    status = serializers.ChoiceField(choices=Battle.Status.choices)
    turn = serializers.IntegerField(help_text="The campaign turn it was fought in.")
    hex = serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2, help_text="[x, y]")
    you = serializers.IntegerField(allow_null=True, help_text="Your side's seat; null: you command no side.")
    moderator = serializers.BooleanField()
    sides = inline_serializer("BattleStateSide", many=True, fields={
        "seat": serializers.IntegerField(), "name": serializers.CharField(),
        "colour": serializers.CharField(allow_null=True),
        "role": serializers.ChoiceField(choices=["attacker", "defender", "side"]),
        "computer": serializers.BooleanField(help_text="Played by the computer (its doctrine).")})
    doctrine_sides = serializers.ListField(child=serializers.IntegerField(),
                                           help_text="The seats the computer plays.")
    activation_deadline = serializers.DateTimeField(allow_null=True)
    result = serializers.JSONField(allow_null=True, help_text="The result applied to the campaign.")
    steps = serializers.IntegerField(help_text="Actions taken so far.")
    started = serializers.BooleanField()
    your_turn = serializers.BooleanField()
    deployment = serializers.DictField(required=False, help_text="While the fleets are deployed by hand: "
                                                                 "your zone and what is placed.")
    over = serializers.BooleanField(required=False, help_text="Once started.")
    acting_side = serializers.IntegerField(required=False, allow_null=True, help_text="Once started.")
    acting_sides = serializers.ListField(child=serializers.IntegerField(), required=False, help_text="Once started.")
    legal = serializers.DictField(required=False, help_text="Once started: what you may do now ({} when it is "
                                                            "not your turn).")
    events = serializers.ListField(child=serializers.DictField(), required=False,
                                   help_text=f"Once started: the last {EVENTS_IN_STATE} events you may see.")


class BattleStateView(APIView):
    @extend_schema(responses=BattleStateSerializer, summary="An embedded battle as the caller sees it")
    def get(self, request, battle_id: int):
        return Response(state_json(_view(request, battle_id)))


def _refused(exc: play.PlayError, view: BattleView | None = None) -> Response:
    if isinstance(exc, play.Refused):
        return Response({"rule": exc.rule, "detail": exc.message}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, play.NotYourTurn):
        return Response({"detail": exc.message}, status=status.HTTP_409_CONFLICT)
    return Response({"detail": exc.message}, status=status.HTTP_403_FORBIDDEN)


# 400: the rules refuse it (with the rule); 403: not your battle to play; 409: not your decision now.
REFUSALS = {400: inline_serializer("PlayRefusal", {
    "detail": serializers.CharField(),
    "rule": serializers.CharField(required=False, help_text="The rule book section that refuses it.")}),
    403: RefusalSerializer, 409: RefusalSerializer}


class BattleActionView(APIView):
    @extend_schema(request=OpenApiTypes.OBJECT, responses={200: BattleStateSerializer, **REFUSALS},
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
    @extend_schema(request=OpenApiTypes.OBJECT, responses={200: BattleStateSerializer, **REFUSALS},
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
    @extend_schema(request=OpenApiTypes.OBJECT, responses={200: BattleStateSerializer, **REFUSALS},
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
