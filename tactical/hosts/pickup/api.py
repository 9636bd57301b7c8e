"""The REST API of pickup battles (DRF), under /api/pickup/. Thin: check the body's shape with a
serializer (documented in the OpenAPI schema), call one action of tactical/hosts/pickup/actions.py.

    GET  pickup/                  your pickup battles, newest first
    POST pickup/                  create: {"ruleset", "points", "opponent": "computer"|"email"|"link",
                                  "email", "activation_hours", "sides": 2…6 (Buoyz; default 2),
                                  "others": ["computer"|"link", …] (seats 3…)}; 201 with the battle
    GET  pickup/{id}/             one of yours (anyone else: 404): status, sides, your fleet, the
                                  ships you may buy, the battle's id once it is being played
    POST pickup/{id}/invite/      {"email"}: (re)send the invitation (the creator, before acceptance)
    POST pickup/accept/           {"token"}: accept an invitation and take the next free seat (409 when full)
    POST pickup/{id}/fleet/       {"ships": ["design-4", "design-4", …]}: your fleet, one key per
                                  ship; 400 with every problem, 409 once submitted
    POST pickup/{id}/cancel/      the creator calls the battle off before it starts (409 after; 403 others)
    POST pickup/{id}/seats/{seat}/computer/  the creator hands a waiting seat (free, or no fleet
                                  yet) to the computer, which builds its fleet at once
    POST pickup/{id}/leave/       a player of seat 2… without a fleet leaves it (the seat is free again)
The battle itself is played through /api/battles/{battle}/state/, action/ and doctrine/.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from tactical.models import PickupBattle

from . import actions, designs
from .books import BOOKS, available


class CreateBody(serializers.Serializer):
    ruleset = serializers.CharField(max_length=32, help_text="A rule book with online play, e.g. \"eventhorizon\".")
    points = serializers.IntegerField(help_text="Each fleet's points total (Event Horizon: BP).")
    opponent = serializers.ChoiceField(choices=actions.OPPONENTS)
    email = serializers.CharField(max_length=254, required=False, allow_blank=True, default="",
                                  help_text="The address to invite, with opponent \"email\".")
    activation_hours = serializers.IntegerField(required=False, default=24,
                                                help_text="Hours a side has for each decision (0: no deadline).")
    sides = serializers.IntegerField(
        required=False,
        default=2,
        help_text="Seats in the battle: 2, or up to 6 under Buoyz 'N Da 'Hood (ruling PK6).",
    )
    others = serializers.ListField(child=serializers.ChoiceField(choices=actions.OTHER_SEATS), required=False,
                                   max_length=4, default=None, allow_null=True,
                                   help_text="How each seat after the second is filled: \"computer\" or \"link\" "
                                             "(the invitation link; first to accept, next free seat). "
                                             "Default: as seat 2 (an emailed seat 2: by link).")


class InviteBody(serializers.Serializer):
    email = serializers.CharField(max_length=254)


class AcceptBody(serializers.Serializer):
    token = serializers.CharField(max_length=64)


class FleetBody(serializers.Serializer):
    ships = serializers.ListField(child=serializers.CharField(max_length=64), max_length=200,
                                  help_text="One ship key per ship bought (keys from the battle's \"offers\").")


class EmptyBody(serializers.Serializer):
    """No fields: the action is named by the URL."""


class Ship(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
    points = serializers.IntegerField()


class Seat(serializers.Serializer):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    player = serializers.CharField(allow_null=True)
    computer = serializers.BooleanField()
    fleet_in = serializers.BooleanField()


class PickupAnswer(serializers.Serializer):
    id = serializers.IntegerField()
    ruleset = serializers.CharField()
    points = serializers.IntegerField()
    unit = serializers.CharField()
    status = serializers.CharField()
    you = serializers.IntegerField(allow_null=True)
    creator = serializers.CharField()
    opponent = serializers.CharField(allow_null=True)
    computer = serializers.BooleanField()
    sides = serializers.IntegerField()
    seats = Seat(many=True, required=False)
    fleets_submitted = serializers.ListField(child=serializers.IntegerField())
    your_fleet = Ship(many=True, allow_null=True)
    offers = serializers.ListField(child=serializers.DictField(), required=False)
    not_offered = serializers.ListField(child=serializers.CharField(), required=False,
                                        help_text="Your own designs the rules refuse, each with the rule it breaks.")
    invite_url = serializers.CharField(allow_null=True)
    battle = serializers.IntegerField(allow_null=True)
    dice_log = serializers.CharField()
    url = serializers.CharField()


class RulesetAnswer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    unit = serializers.CharField()
    min_points = serializers.IntegerField()
    max_points = serializers.IntegerField()
    max_ships = serializers.IntegerField()


class PickupListAnswer(serializers.Serializer):
    """GET api/pickup/: an object, not the list the schema said (found by the schemathesis probe)."""

    rulesets = RulesetAnswer(many=True, help_text="the rule books you may start a pickup battle under")
    results = PickupAnswer(many=True, help_text="your pickup battles (at most 100)")


def pickup_json(p: PickupBattle, user, *, full: bool = True) -> dict[str, Any]:
    seat = p.seat_of(user)
    unit = BOOKS[p.ruleset].unit if p.ruleset in BOOKS else "points"
    out: dict[str, Any] = {
        "id": p.pk, "ruleset": p.ruleset, "points": p.points, "unit": unit, "status": p.status, "you": seat,
        "creator": p.creator.username, "opponent": p.opponent.username if p.opponent_id else None,
        "computer": p.computer, "sides": p.sides, "fleets_submitted": sorted(int(s) for s in (p.fleets or {})),
        "your_fleet": (p.fleets or {}).get(str(seat)),
        "invite_url": actions.invite_url(p) if seat == 1 and p.status == p.Status.INVITING and p.invite_token else None,
        "battle": p.battle_id, "dice_log": reverse("campaign-dice", args=[p.campaign_id]),
        "url": reverse("pickup-detail", args=[p.pk]),
    }
    if full:
        out["seats"] = actions.seat_rows(p)
    if full and p.status in actions.BUILDABLE and str(seat) not in (p.fleets or {}):
        out["offers"] = [{"key": o.key, "name": o.name, "points": o.points, "detail": o.detail, "own": o.own}
                         for o in actions.offers_for(p, seat)]
        out["not_offered"] = sorted(actions.refusals_for(p, seat).values())
    return out


def _refused(exc: actions.PickupError) -> Response:
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, actions.TooMany) else None
    return Response({"detail": exc.message, "problems": exc.problems}, status=exc.status, headers=headers)


def _bad(serializer) -> Response:
    return Response({"detail": "; ".join(f"{k}: {' '.join(str(e) for e in v)}" for k, v in serializer.errors.items()),
                     "problems": serializer.errors}, status=status.HTTP_400_BAD_REQUEST)


def _one(request, pickup_id: int) -> PickupBattle | None:
    return actions.visible_pickups(request.user).select_related("creator", "opponent").filter(pk=pickup_id).first()


class PickupRefusal(serializers.Serializer):
    detail = serializers.CharField(help_text="What is wrong, in words.")
    problems = serializers.JSONField(required=False, help_text="Bad input: every problem (field → its problems, "
                                                               "or the fleet's problems one by one).")


def refusals(ok, *codes: int, created: bool = False) -> dict:
    """An endpoint's responses: ``ok`` on success (201 when it creates), ``PickupRefusal`` for
    each of ``codes`` (``actions.PickupError``'s kinds: 400, 403, 404, 409 the battle's state does
    not allow it, 410 an invitation no longer valid, 429 over a rate limit)."""
    return {201 if created else 200: ok, **{code: PickupRefusal for code in codes}}


class PickupList(APIView):
    @extend_schema(operation_id="pickup_list", responses=PickupListAnswer,
                   summary="Your pickup battles, and the rule books you may start one under")
    def get(self, request):
        rows = actions.visible_pickups(request.user).select_related("creator", "opponent")[:100]
        return Response({"rulesets": [{"name": n, "title": t, "unit": b.unit, "min_points": b.min_points,
                                       "max_points": b.max_points, "max_ships": b.max_ships}
                                      for n, t, b in available()],
                         "results": [pickup_json(p, request.user, full=False) for p in rows]})

    @extend_schema(operation_id="pickup_create", request=CreateBody,
                   responses=refusals(PickupAnswer, 400, 429, created=True),
                   summary="Create a pickup battle",
                   examples=[OpenApiExample("against the computer", request_only=True, value={
                       "ruleset": "eventhorizon", "points": 240, "opponent": "computer", "activation_hours": 24}),
                             OpenApiExample("invite by email", request_only=True, value={
                                 "ruleset": "eventhorizon", "points": 300, "opponent": "email",
                                 "email": "friend@example.org"}),
                             OpenApiExample("three sides: a player by link and the computer", request_only=True, value={
                                 "ruleset": "buoyz", "points": 40, "opponent": "link", "sides": 3,
                                 "others": ["computer"]})])
    def post(self, request):
        body = CreateBody(data=request.data if isinstance(request.data, dict) else {})
        if not body.is_valid():
            return _bad(body)
        try:
            pickup = actions.create_pickup(user=request.user, **body.validated_data)
        except actions.PickupError as exc:
            return _refused(exc)
        return Response(pickup_json(pickup, request.user), status=status.HTTP_201_CREATED)


class PickupDetail(APIView):
    @extend_schema(operation_id="pickup_retrieve", responses=refusals(PickupAnswer, 404),
                   summary="One of your pickup battles")
    def get(self, request, pickup_id: int):
        pickup = _one(request, pickup_id)
        if pickup is None:
            return Response({"detail": "no such pickup battle"}, status=status.HTTP_404_NOT_FOUND)
        return Response(pickup_json(pickup, request.user))


class PickupInvite(APIView):
    @extend_schema(operation_id="pickup_invite", request=InviteBody,
                   responses=refusals(PickupAnswer, 400, 403, 404, 409, 429),
                   summary="Send the invitation to an email address")
    def post(self, request, pickup_id: int):
        body = InviteBody(data=request.data if isinstance(request.data, dict) else {})
        if not body.is_valid():
            return _bad(body)
        try:
            pickup = actions.invite_by_email(pickup_id=pickup_id, user=request.user, **body.validated_data)
        except actions.PickupError as exc:
            return _refused(exc)
        return Response(pickup_json(pickup, request.user))


class PickupAccept(APIView):
    @extend_schema(operation_id="pickup_accept", request=AcceptBody,
                   responses=refusals(PickupAnswer, 400, 404, 409, 410),
                   summary="Accept an invitation (its token) and take the next free seat")
    def post(self, request):
        body = AcceptBody(data=request.data if isinstance(request.data, dict) else {})
        if not body.is_valid():
            return _bad(body)
        try:
            pickup = actions.accept_pickup(token=body.validated_data["token"], user=request.user)
        except actions.PickupError as exc:
            return _refused(exc)
        return Response(pickup_json(pickup, request.user))


class PickupFleet(APIView):
    @extend_schema(operation_id="pickup_fleet", request=FleetBody, responses=refusals(PickupAnswer, 400, 404, 409),
                   summary="Submit your fleet (once); the battle starts when every fleet is in",
                   examples=[OpenApiExample("two ships", request_only=True,
                                            value={"ships": ["design-3", "design-3", "design-7"]})])
    def post(self, request, pickup_id: int):
        body = FleetBody(data=request.data if isinstance(request.data, dict) else {})
        if not body.is_valid():
            return _bad(body)
        try:
            pickup = actions.submit_fleet(pickup_id=pickup_id, user=request.user, ships=body.validated_data["ships"])
        except actions.PickupError as exc:
            return _refused(exc)
        pickup.refresh_from_db()
        return Response(pickup_json(pickup, request.user))


def _act(request, action, **kwargs) -> Response:
    try:
        pickup = action(user=request.user, **kwargs)
    except actions.PickupError as exc:
        return _refused(exc)
    pickup = _one(request, pickup.pk)
    if pickup is None:  # a player who left is no longer in it
        return Response(status=status.HTTP_204_NO_CONTENT)
    return Response(pickup_json(pickup, request.user))


class PickupCancel(APIView):
    @extend_schema(operation_id="pickup_cancel", request=EmptyBody, responses=refusals(PickupAnswer, 403, 404, 409),
                   summary="Cancel the battle before it starts (the creator; 409 once it is fought)")
    def post(self, request, pickup_id: int):
        return _act(request, actions.cancel_pickup, pickup_id=pickup_id)


class PickupSeatComputer(APIView):
    @extend_schema(operation_id="pickup_seat_computer", request=EmptyBody,
                   responses=refusals(PickupAnswer, 400, 403, 404, 409),
                   summary="Hand a waiting seat (free, or its fleet not built) to the computer (the creator)")
    def post(self, request, pickup_id: int, seat: int):
        return _act(request, actions.hand_seat_to_computer, pickup_id=pickup_id, seat=seat)


class PickupLeave(APIView):
    @extend_schema(operation_id="pickup_leave", request=EmptyBody,
                   responses={200: PickupAnswer, 204: None, 404: PickupRefusal, 409: PickupRefusal},
                   summary="Leave your seat (2…) before you submit a fleet; it is free again")
    def post(self, request, pickup_id: int):
        return _act(request, actions.leave_pickup, pickup_id=pickup_id)


# --- the player's own designs (a rule book with a designer: Print&Play's dashboards) ----------

def design_json(row) -> dict:
    return {"id": row.pk, "key": f"design-{row.pk}", "name": row.name, "points": row.points, "design": row.data}


DESIGN_REFUSED = inline_serializer("DesignRefusal", {
    "detail": serializers.CharField(), "field": serializers.CharField(allow_null=True, required=False,
                                                                       help_text="The field refused."),
    "problems": serializers.JSONField(required=False)})


class PlayerDesignSerializer(serializers.Serializer):
    """One of your designs (``design_json``)."""

    id = serializers.IntegerField()
    key = serializers.CharField(help_text="What a fleet names it by when it buys it: \"design-<id>\".")
    name = serializers.CharField()
    points = serializers.IntegerField(help_text="The designer's price.")
    design = serializers.DictField(help_text="The design as the rule book stores it.")


class DesignList(APIView):
    @extend_schema(operation_id="pickup_designs",
                   responses={200: inline_serializer("PlayerDesigns", {"results": PlayerDesignSerializer(many=True)}),
                              404: PickupRefusal},
                   summary="Your own ship designs under a rule book with a designer")
    def get(self, request, ruleset: str):
        try:
            designs.designer_book(ruleset)
        except actions.PickupError as exc:
            return _refused(exc)
        return Response({"results": [design_json(r) for r in designs.designs_of(request.user, ruleset)]})

    @extend_schema(operation_id="pickup_design_create", request=OpenApiTypes.OBJECT,
                   responses={201: PlayerDesignSerializer, 400: DESIGN_REFUSED, 404: PickupRefusal, 409: PickupRefusal},
                   summary="Design a ship: checked and priced by the rule book's designer (400 names the field)",
                   examples=[OpenApiExample("a Print&Play dashboard", request_only=True, value={
                       "name": "Akira", "faction": "Federation", "type": "heavy cruiser", "shields": [18, 18, 14, 14],
                       "shield_max": 26, "hull": 28, "impulse": 6, "weapons": [
                           {"name": "Phaser", "mount": "F", "qty": 4, "hit": 3, "dmg": 2, "range": 12, "arc": 270}]}),
                       OpenApiExample("a Star Sectors profile card (5 points by 004 III)", request_only=True, value={
                           "name": "Lancer", "power": "Vulcan", "cf": 3, "df": 6, "mf": 4, "ss": 5, "cargo": 1,
                           "nacelles": 3, "cloaks": 0, "banks": ["PC"], "arc": "all", "hull": 1})])
    def post(self, request, ruleset: str):
        try:
            row = designs.save_design(user=request.user, ruleset=ruleset, fields=request.data)
        except designs.DesignRefused as exc:
            return Response({"detail": exc.message, "field": exc.field, "problems": exc.problems},
                            status=status.HTTP_400_BAD_REQUEST)
        except actions.PickupError as exc:
            return _refused(exc)
        return Response(design_json(row), status=status.HTTP_201_CREATED)


class DesignDetail(APIView):
    @extend_schema(operation_id="pickup_design_delete", request=None, responses={204: None, 404: PickupRefusal},
                   summary="Delete one of your designs (fleets that bought it keep it as bought)")
    def delete(self, request, ruleset: str, design_id: int):
        try:
            designs.delete_design(user=request.user, ruleset=ruleset, design_id=design_id)
        except actions.PickupError as exc:
            return _refused(exc)
        return Response(status=status.HTTP_204_NO_CONTENT)
