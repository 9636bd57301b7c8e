"""The API of orders as text (docs/orders.md, "Orders as text"): the same checker as the paste
page and mail (``eh_actions.submit_text_orders``), and the seat's order secret.

    campaigns/{id}/orders/text/     GET the orders template for the open turn; POST the orders as
                                    text (text/plain, or JSON {"text": "..."}): 200 accepted, 400
                                    refused (every line with its rule), 409 wrong or closed turn
    campaigns/{id}/order-secret/    GET when your secret was made; POST make a new one (in that
                                    answer only)
"""
from __future__ import annotations

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, PolymorphicProxySerializer, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from campaign import actions, sanitise
from campaign.api.schema import RefusalSerializer
from campaign.eventhorizon import actions as eh_actions
from campaign.models import TurnOrders

from ..order_text import orders_template
from ..views.textorders import header_refusal
from .campaigns import _player_empire, campaign_for

TEXT_EXAMPLE = (
    "#SECTOR 7 1 T3-5f0c2a9e1b7d4c3a2f1e0d9c TURN 3\n"
    "BUY planetary_defences AT 3,4\n"
    'BUILD "Cyber-Corsair Galiot Class Corvette" AT DOCKYARD 1 NAME "Swift"\n'
    "SPLIT 3 SHIPS 7,8 AS raiders\n"
    "MOVE 3 TO 4,4 5,4\n"
    "MOVE raiders TO 3,5\n"
    "INVASION HEX 3,4 RETREAT TO 2,2\n"
    "LOSSES cheapest\n"
    "INITIATIVE first\n"
    "READY\n"
    "#END\n"
)


class LineSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="The line's number in the text sent (1 is its first line).")
    text = serializers.CharField(help_text="The line (the header's secret masked).")
    ok = serializers.BooleanField()
    message = serializers.CharField(help_text="Why the line was refused; empty when it was accepted.")
    rule = serializers.CharField(help_text="The rule broken: a rule book section or docs/orders.md.")


class TextOrdersResultSerializer(serializers.Serializer):
    accepted = serializers.BooleanField(help_text="True: stored. False: nothing was changed (the set stored before "
                                                  "stays).")
    turn = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField(help_text='Why refused: "text", "header", "secret", "turn", "closed", "seat", '
                                             '"earlier" or "lines"; empty when accepted.')
    error = serializers.CharField(allow_null=True)
    lines = LineSerializer(many=True)
    problems = serializers.ListField(child=serializers.CharField(), help_text="Refusals that name no line.")
    warnings = serializers.ListField(child=serializers.CharField())
    revision = serializers.IntegerField(allow_null=True, help_text="The stored set's revision.")
    bp_left = serializers.IntegerField(allow_null=True, help_text="BP left after the stored set.")
    deadline = serializers.DateTimeField(allow_null=True)
    stored = serializers.CharField(help_text="The stored set as text, with this turn's key in its header.")
    reply = serializers.CharField(help_text="The answer a mail would get.")


# A 400 is the checker's answer when it read the text and refused lines; before it reads anything the
# API refuses a body that is not text, or a header naming another seat, as {"text": why}; and the input
# layer refuses text no request may hold (a NUL, a lone surrogate) as {"detail": why}, as on every
# endpoint. The schemathesis probe of /api/schema/ found the 400 declared as the checker's answer only.
TEXT_REFUSED = PolymorphicProxySerializer(
    component_name="TextOrdersRefused",
    serializers=[
        TextOrdersResultSerializer,
        inline_serializer("TextOrdersBodyRefused", {
            "text": serializers.CharField(help_text="Why the body was not read as orders: not text, or a header "
                                                    "naming another campaign or seat.")}),
        RefusalSerializer,
    ],
    resource_type_field_name=None,
    many=False,
)


def result_json(result) -> dict:
    return {
        "accepted": result.accepted, "turn": result.turn_number, "reason": result.reason, "error": result.error,
        "lines": [{"number": ln.number, "text": ln.text, "ok": ln.ok, "message": ln.message, "rule": ln.rule}
                  for ln in result.lines],
        "problems": list(result.problems), "warnings": list(result.warnings), "revision": result.revision,
        "bp_left": result.bp_left, "deadline": result.deadline, "stored": result.stored_text,
        "reply": result.reply_text(),
    }


class TextOrdersView(APIView):
    """Orders as text for the open turn (docs/orders.md, "Orders as text")."""

    parser_classes = [sanitise.PlainTextParser, sanitise.JSONParser]

    @extend_schema(responses={200: inline_serializer("TextOrdersTemplate", {
        "turn": serializers.IntegerField(), "template": serializers.CharField(
            help_text="Your stored orders for the open turn as text (the standing orders in force written out), "
                      "with this turn's key in the header: send it back edited.")}),
        403: RefusalSerializer})
    def get(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        empire = _player_empire(request, campaign, "write orders")
        row = TurnOrders.objects.filter(empire=empire, turn__campaign=campaign, turn__number=campaign.turn).first()
        return Response({"turn": campaign.turn, "template": orders_template(empire, campaign.turn, row=row)})

    @extend_schema(
        request={"text/plain": OpenApiTypes.STR,
                 "application/json": inline_serializer("TextOrdersRequest", {
                     "text": serializers.CharField(help_text="The orders as text, #SECTOR … #END.")})},
        examples=[OpenApiExample("Orders as text", value=TEXT_EXAMPLE, request_only=True, media_type="text/plain"),
                  OpenApiExample("Orders as text in JSON", value={"text": TEXT_EXAMPLE}, request_only=True,
                                 media_type="application/json")],
        responses={200: TextOrdersResultSerializer, 400: TEXT_REFUSED, 403: RefusalSerializer,
                   409: TextOrdersResultSerializer},
        description="Check orders written as text and store them if every line is accepted. The header must name "
                    "your seat of this campaign with your order secret (or the turn's key from a template). 200: "
                    "accepted and stored; 400: refused, every line with its rule, nothing changed (the set stored "
                    "before stays), or the body refused before it was read as orders (`text`: not text, or a "
                    "header naming another seat; `detail`: text no request may hold); 403: you have no seat in "
                    "the campaign; 409: the header names a turn that is not open.")
    def post(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        empire = _player_empire(request, campaign, "write orders")
        data = request.data
        text = data.get("text") if isinstance(data, dict) else data
        if not isinstance(text, str):
            raise ValidationError({"text": 'send the orders as text/plain, or as JSON {"text": "#SECTOR … #END"}'})
        refusal = header_refusal(text, campaign, empire)
        if refusal:
            raise ValidationError({"text": refusal})
        result = eh_actions.submit_text_orders(text, received_at=timezone.now(), via="api")
        code = (status.HTTP_200_OK if result.accepted else
                status.HTTP_409_CONFLICT if result.reason in ("turn", "closed", "earlier") else
                status.HTTP_400_BAD_REQUEST)
        return Response(result_json(result), status=code)


class OrderSecretView(APIView):
    """Your order secret for this campaign's seat: GET when it was made (never the secret); POST
    makes a new one, returned in that answer only (the old one and its turn keys stop working)."""

    @extend_schema(
        responses={200: inline_serializer("OrderSecretState", {"made_at": serializers.DateTimeField(allow_null=True)}),
                   403: RefusalSerializer}
    )
    def get(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        empire = _player_empire(request, campaign, "have an order secret")
        return Response({"made_at": eh_actions.order_secret_made(empire)})

    @extend_schema(request=None, responses={200: inline_serializer("OrderSecretMade", {
        "secret": serializers.CharField(help_text="Shown this once: only its hash is kept."),
        "made_at": serializers.DateTimeField(), "header": serializers.CharField()}),
        400: RefusalSerializer, 403: RefusalSerializer})
    def post(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        empire = _player_empire(request, campaign, "have an order secret")
        try:
            secret = eh_actions.rotate_order_secret(empire_id=empire.pk, user=request.user)
        except actions.ActionError as exc:
            raise ValidationError({"detail": str(exc)}) from None
        response = Response({"secret": secret, "made_at": eh_actions.order_secret_made(empire),
                             "header": f"#SECTOR {campaign.pk} {empire.seat} {secret} TURN {campaign.turn}"})
        response["Cache-Control"] = "no-store"
        return response
