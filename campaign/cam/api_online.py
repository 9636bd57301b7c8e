"""The API of a scenario's mode and of scenarios fought online (issue 17), under /api/cam/:

    campaigns/{id}/scenarios/{n}/mode/       PUT {"mode": "tabletop" | "auto" | "online"} (moderator, before the table)
    campaigns/{id}/scenarios/{n}/tables/     PUT {"tables": {"ship:3": 2, …}, "seat"?} the table each ship
    starts on (BZ94)
    campaigns/{id}/scenarios/{n}/battle/     GET the scenario's battle: whose decision, until when, doctrine sides
    campaigns/{id}/scenarios/{n}/act/        POST {"action": {...}} one decision (tactical/rules/buoyz/play.py JSON)
    campaigns/{id}/scenarios/{n}/doctrine/   POST {"on": true} hand your side to the computer doctrine (or back)
    campaigns/{id}/scenarios/{n}/settle/     POST {"how": "doctrine" | "autoresolve"} (moderator) settle a stuck one

Thin, as ``api.py``: outsiders 404, anyone but the seat's player deciding for it 403 (the
moderator too, ruling MO9: he settles a stuck battle), a moderator's action
by a player 403, a mode switch after the table is set or a decision out of turn 409, anything
else refused 400 with ``{"detail", "reason"}``; nothing changes on a refusal.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from . import online
from .api import _data, _refused, _row, scenario_json
from .api_schema import REFUSED, CamOnlineBattleSerializer, CamScenarioSerializer
from .models import CamScenario

SUMMARY = CamOnlineBattleSerializer
SCENARIO = CamScenarioSerializer


def _run(request, campaign_id: int, number: int, fn, render):
    _row(request, campaign_id, number)  # outsiders: 404 before anything else
    try:
        result = fn()
    except online.CamActionError as exc:
        return _refused(exc)
    return Response(render(result))


def _scenario(request, row_or_pk):
    pk = row_or_pk.pk if isinstance(row_or_pk, CamScenario) else row_or_pk
    return scenario_json(CamScenario.objects.get(pk=pk), request.user)


class ScenarioMode(APIView):
    @extend_schema(
        request=inline_serializer("CamScenarioMode", fields={
            "mode": serializers.ChoiceField(choices=CamScenario.Mode.choices)}),
        responses={200: SCENARIO, 400: REFUSED, 403: REFUSED, 404: REFUSED, 409: REFUSED},
        examples=[OpenApiExample("fight it online", value={"mode": "online"}, request_only=True)],
        description="The moderator switches how the scenario is fought, until its table is set (then 409).")
    def put(self, request, campaign_id: int, number: int):
        d = _data(request)
        return _run(request, campaign_id, number, lambda: online.set_mode(
            campaign_id=campaign_id, user=request.user, number=number, mode=d.get("mode")),
            lambda row: _scenario(request, row))


class ScenarioTables(APIView):
    @extend_schema(
        request=inline_serializer("CamShipTables", fields={
            "tables": serializers.DictField(
                child=serializers.IntegerField(min_value=1, allow_null=True),
                help_text="A ship of your force by uid (\"ship:3\") → the gaming table it starts on, 1 (the main "
                          "table) to the campaign's tables; a ship not named (or null) is dealt in force order "
                          "(000 11.3, ruling BZ94). Replaces your earlier choice."),
            "seat": serializers.IntegerField(required=False, help_text="The moderator names the seat.")}),
        responses={200: SCENARIO, 400: REFUSED, 403: REFUSED, 404: REFUSED, 409: REFUSED},
        examples=[OpenApiExample("ship 3 starts on table 2", value={"tables": {"ship:3": 2}}, request_only=True)],
        description="While the forces are being chosen, a player of a scenario fought online with more than one "
                    "gaming table chooses the table each ship of his force starts on (ruling BZ94); 409 once the "
                    "table is rolled, 400 naming the rule for a table that does not exist or a ship not in his force.")
    def put(self, request, campaign_id: int, number: int):
        d = _data(request)
        return _run(request, campaign_id, number, lambda: online.choose_tables(
            campaign_id=campaign_id, user=request.user, number=number, tables=d.get("tables"), seat=d.get("seat")),
            lambda row: _scenario(request, row))


class ScenarioBattle(APIView):
    @extend_schema(responses={200: SUMMARY, 404: REFUSED},
                   description="The scenario's battle fought online, on the rule book the campaign chose "
                               "(Buoyz unless another; 404 unless it is fought online and begun).")
    def get(self, request, campaign_id: int, number: int):
        summary = online.battle_summary(_row(request, campaign_id, number))
        if summary is None:
            return Response({"detail": "this scenario has no battle fought online", "reason": "no_battle"}, status=404)
        return Response(summary)


class ScenarioAct(APIView):
    @extend_schema(
        request=inline_serializer("CamOnlineDecision", fields={
            "action": serializers.JSONField(help_text="One action of the battle's rule book, e.g. a Buoyz "
                                                      "move {\"type\": \"move\", \"ship\": 3, \"after\": 6} "
                                                      "(tactical/rules/buoyz/play.py)."),
            "seat": serializers.IntegerField(required=False, help_text="Your own seat (optional): only the seat's "
                                                                       "player decides, ruling MO9.")}),
        responses={200: SUMMARY, 400: REFUSED, 403: REFUSED, 404: REFUSED, 409: REFUSED},
        examples=[OpenApiExample("move a ship", value={"action": {"type": "move", "ship": 3, "after": 6.0}},
                                 request_only=True)],
        description="The deciding player's decision; out of turn 409, against the rules 400 naming the section.")
    def post(self, request, campaign_id: int, number: int):
        d = _data(request)
        return _run(request, campaign_id, number, lambda: online.act(
            campaign_id=campaign_id, user=request.user, number=number, action=d.get("action"), seat=d.get("seat")),
            lambda summary: summary)


class ScenarioDoctrine(APIView):
    @extend_schema(
        request=inline_serializer("CamOnlineDoctrine", fields={
            "on": serializers.BooleanField(default=True), "seat": serializers.IntegerField(required=False)}),
        responses={200: SUMMARY, 400: REFUSED, 403: REFUSED, 404: REFUSED, 409: REFUSED},
        examples=[OpenApiExample("hand my side to the computer", value={"on": True}, request_only=True)],
        description="Hand your side to the computer doctrine (it decides at once when it is your decision), or "
                    "take it back with {\"on\": false}.")
    def post(self, request, campaign_id: int, number: int):
        d = _data(request)
        return _run(request, campaign_id, number, lambda: online.hand_to_doctrine(
            campaign_id=campaign_id, user=request.user, number=number, on=d.get("on", True), seat=d.get("seat")),
            lambda summary: summary)


class ScenarioSettle(APIView):
    @extend_schema(
        request=inline_serializer("CamOnlineSettle", fields={
            "how": serializers.ChoiceField(choices=online.SETTLE_HOW, default="doctrine")}),
        responses={200: SCENARIO, 400: REFUSED, 403: REFUSED, 404: REFUSED, 409: REFUSED},
        examples=[OpenApiExample("the doctrine plays it out", value={"how": "doctrine"}, request_only=True),
                  OpenApiExample("auto-resolve the rest", value={"how": "autoresolve"}, request_only=True)],
        description="The moderator settles a scenario fought online: the doctrine plays both sides to the end, or the "
                    "rest is auto-resolved from the CAM record (ruling CAM26); scored at once.")
    def post(self, request, campaign_id: int, number: int):
        d = _data(request)
        return _run(request, campaign_id, number, lambda: online.settle(
            campaign_id=campaign_id, user=request.user, number=number, how=d.get("how", "doctrine")),
            lambda row: _scenario(request, row))
