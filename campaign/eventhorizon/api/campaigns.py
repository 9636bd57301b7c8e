"""Event Horizon's campaign API (DRF): campaigns of layers with the "orders" feature only (another
layer's campaign is 404 here; campaign/layers.py). Thin: every view starts from the campaigns the
caller may see (an outsider gets 404, never someone else's data), validates input, calls one
action and renders. The platform's endpoints (lobby, moderation, tokens) are campaign/api/.

Endpoints (all under /api/):
    campaigns/                       campaigns the caller moderates or plays in (25 a page, ?page_size= to 100)
    campaigns/{id}/                  one campaign: turn, purpose, empires (BP only your own)
    campaigns/{id}/map/              terrain, worlds and owners, mapped structures and the fleets
                                     you can see (?turn=N: at the start of turn N)
    campaigns/{id}/visible-fleets/   the fleets you can see (?turn=N), fog of war applied
    campaigns/{id}/history/          BP, worlds and ships over turns (your own while it runs)
    campaigns/{id}/orders/           GET/PUT your orders for the open turn (PUT returns the preview)
    campaigns/{id}/reports/{turn}/   your report of a processed turn (the moderator's is complete)
    campaigns/{id}/dice/             the dice log, paginated
    campaigns/{id}/process/          POST {"turn": N} (moderator): process turn N, the open one, now
    campaigns/{id}/orders/preview/   POST: check orders without storing them (the live preview)
    campaigns/{id}/ready/            POST {"ready": true|false, "turn": N}: you are done with turn N
    campaigns/{id}/fleets/           your fleets in full (the moderator: every fleet)
    campaigns/{id}/take-back/        POST: take your seat back from the computer
    campaigns/{id}/notifications/    GET/PUT which emails you get from this campaign
"""

from __future__ import annotations

from django.db.models import Count
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from campaign import actions, layers, lookups
from campaign.access import empire_of, is_moderator, visible_campaigns
from campaign.api.moderation import named_turn
from campaign.api.schema import FIELD_REFUSAL, RefusalSerializer
from campaign.dice import log_reader, shown_rows
from campaign.eventhorizon import actions as eh_actions
from campaign.models import Campaign, DiceRoll, Empire, Turn, TurnOrders
from campaign.rules.eventhorizon.setup import SETUP_TURN
from campaign.rules.eventhorizon.victory import PURPOSES
from campaign.sanitise import whole_number

from .. import visibility
from ..charts import history_series
from ..order_schema import (
    ORDERS_EXAMPLE,
    PREVIEW_EXAMPLE,
    ErrorSerializer,
    OrdersGetSerializer,
    OrdersPreviewRequestSerializer,
    OrdersPreviewResponseSerializer,
    OrdersPutResponseSerializer,
    OrdersPutSerializer,
)
from ..reports import ReportError, report_for
from .shapes import CAMPAIGN_MAP, FLEET_ROWS, MAP_FLEETS, TURN_REPORT


def campaign_for(request, campaign_id: int) -> Campaign:
    # The Event Horizon campaign API: other layers (campaign/layers.py) have their own.
    campaign = visible_campaigns(request.user).filter(layer__in=layers.having("orders"), pk=campaign_id).first()
    if campaign is None:
        raise NotFound("no such campaign")
    return campaign


def my_empire(request, campaign: Campaign) -> Empire | None:
    return empire_of(request.user, campaign)


class CampaignSerializer(serializers.ModelSerializer):
    players = serializers.SerializerMethodField()
    purpose_name = serializers.SerializerMethodField()
    seed = serializers.CharField(source="revealed_seed", read_only=True, allow_null=True,
                                 help_text="the dice seed once the campaign has ended; null while it runs")

    class Meta:
        model = Campaign
        fields = ["id", "name", "layer", "grid", "width", "height", "status", "turn", "purpose", "purpose_name",
                  "seed_hash", "seed", "players"]

    def get_players(self, campaign) -> int:
        seated = getattr(campaign, "seated", None)  # the list annotates it: no query per campaign
        return campaign.empires.count() if seated is None else seated

    def get_purpose_name(self, campaign) -> str | None:
        return PURPOSES[campaign.purpose].name if campaign.purpose else None


class CampaignPages(PageNumberPagination):
    """A page of the caller's campaigns: 25 unless ``?page_size=`` asks for up to 100 (a player in
    hundreds of campaigns pays for the page, not for all of them: issue 33)."""

    page_size = 25
    page_size_query_param = "page_size"
    max_page_size = 100


# The serializer's columns: the rule options and the other JSON are not decoded for a list.
LIST_FIELDS = ("id", "name", "layer", "grid", "width", "height", "status", "turn", "purpose", "seed_hash",
               "dice_seed", "created_at")


class CampaignList(ListAPIView):
    serializer_class = CampaignSerializer
    pagination_class = CampaignPages

    def get_queryset(self):
        # "My campaigns" once for the page (the paginator's count is a second, cheap query on the
        # same indexed look-up: campaign/access.py).
        return (visible_campaigns(self.request.user).filter(layer__in=layers.having("orders"))
                .only(*LIST_FIELDS).order_by("-created_at", "-id"))

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        # The seats counted for the page's campaigns only, in one query (issue 33): as an
        # annotation, SQLite counted them for every campaign of the caller before sorting.
        seated = dict(Empire.objects.filter(campaign_id__in=[c.pk for c in page]).order_by()
                      .values("campaign_id").annotate(n=Count("pk")).values_list("campaign_id", "n"))
        for campaign in page:
            campaign.seated = seated.get(campaign.pk, 0)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class CampaignDetail(APIView):
    @extend_schema(responses=CampaignSerializer)
    def get(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        data = CampaignSerializer(campaign).data
        mine = my_empire(request, campaign)
        moderator = is_moderator(request.user, campaign)
        # Fog of war (campaign/eventhorizon/visibility.py): treasury, technologies and ship counts only for
        # the caller's own empire (all for the moderator, and for everyone once it has ended).
        data["empires"] = [
            {"seat": r["seat"], "name": r["name"], "colour": r["colour"], "eliminated": r["eliminated"],
             "is_bot": r["is_bot"], "worlds": r["worlds"],
             **({"bp": r["bp"], "technologies": r["technologies"], "ships": r["ships"], "fleets": r["fleets"]}
                if r["private"] else {})}
            for r in visibility.empire_rows(campaign, visibility.viewer_for(request.user, campaign))
        ]
        data["your_seat"] = mine.seat if mine else None
        data["moderator"] = moderator
        return Response(data)


class CampaignMap(APIView):
    @extend_schema(responses=CAMPAIGN_MAP)
    def get(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        from campaign.rules.eventhorizon.mapgen import Terrain

        rows = [["."] * campaign.width for _ in range(campaign.height)]
        for x, y, terrain in campaign.cells.values_list("x", "y", "terrain").iterator(5000):
            rows[y][x] = Terrain(terrain).symbol
        # Worlds, owners and mapped structures as the caller sees them now or at the start of
        # ?turn=N (fog of war applies to history too: campaign/eventhorizon/visibility.py).
        turn = _turn_param(request, campaign)
        try:
            view = visibility.view_for(campaign, visibility.viewer_for(request.user, campaign), turn)
        except visibility.HistoryUnavailable as exc:
            raise NotFound(str(exc)) from None
        seen = view.seen
        worlds = [
            {"x": w.coord[0], "y": w.coord[1], "kind": w.kind.value, "economy": w.economy.value if w.economy else None,
             "owner": w.owner, "home_of": w.home_of}
            for w in sorted(seen.worlds, key=lambda w: (w.coord[1], w.coord[0]))
        ]
        structures = [
            {"number": s.id, "owner": s.owner, "resource": s.resource.value, "symbol": s.resource.symbol,
             "x": s.coord[0], "y": s.coord[1]}
            for s in seen.structures
        ]
        return Response({"grid": campaign.grid, "width": campaign.width, "height": campaign.height,
                         "turn": view.turn, "terrain": ["".join(r) for r in rows],
                         "symbols": {t.symbol: t.value for t in Terrain}, "worlds": worlds,
                         "structures": structures, "fleets": visibility.fleets_json(campaign, view)})


class OrdersView(APIView):
    """Your orders for the open turn (docs/orders.md). PUT {"orders": {...}, "ready": bool,
    "turn": N}: "turn" is optional; given, orders for a turn that is no longer open are 409."""

    def _empire(self, request, campaign_id):
        # The campaign, the caller's standing and empire in one query (campaign/lookups.py).
        found = lookups.campaign_access(request.user, campaign_id)
        if found is None or found.campaign.layer not in layers.having("orders"):
            raise NotFound("no such campaign")
        if found.empire is None:
            raise NotFound("you have no empire in this campaign")
        return found.campaign, found.empire

    @extend_schema(responses=OrdersGetSerializer)
    def get(self, request, campaign_id: int):
        campaign, empire = self._empire(request, campaign_id)
        row = TurnOrders.objects.filter(turn__campaign=campaign, turn__number=campaign.turn, empire=empire).first()
        return Response(
            {
                "turn": campaign.turn,
                "setup": campaign.turn == SETUP_TURN,
                "orders": row.orders if row else {},
                "ready": row.ready if row else False,
                "revision": row.revision if row else 0,
            }
        )

    @extend_schema(
        request=OrdersPutSerializer, examples=[ORDERS_EXAMPLE],
        responses={200: OrdersPutResponseSerializer, 400: OpenApiTypes.OBJECT, 404: ErrorSerializer,
                   409: ErrorSerializer},
        description="Store your orders for the open turn (the format of docs/orders.md; `{}` holds) and get "
                    "the preview. 400 names the place and the rule of what is wrong, e.g. "
                    '`{"orders": "moves[0].path[2]: 003 Creating a Map: Black Hole: …"}`, and changes nothing; '
                    "409 when the turn is not taking orders.")
    def put(self, request, campaign_id: int):
        campaign, empire = self._empire(request, campaign_id)
        body = request.data
        if not isinstance(body, dict) or "orders" not in body:
            raise ValidationError({"orders": "send {\"orders\": {...}, \"ready\": true|false}"})
        ready = body.get("ready")
        if ready is not None and not isinstance(ready, bool):
            raise ValidationError({"ready": "must be true or false"})
        number = named_turn(request, "the orders are for") if body.get("turn") is not None else None
        try:
            row, preview = eh_actions.submit_orders(empire_id=empire.pk, raw=body["orders"], ready=ready, empire=empire,
                                                 turn_number=number)
        except actions.TurnClosed as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except actions.OrdersRefused as exc:
            return Response({"orders": str(exc), "problems": exc.problems}, status=status.HTTP_400_BAD_REQUEST)
        except actions.ActionError as exc:
            raise ValidationError({"orders": str(exc)}) from None
        return Response({"turn": campaign.turn, "setup": campaign.turn == SETUP_TURN, "revision": row.revision,
                         "ready": row.ready, "preview": list(preview.lines), "warnings": list(preview.warnings),
                         "bp_left": preview.spending.bp_left})


class ReportView(APIView):
    @extend_schema(responses=TURN_REPORT)
    def get(self, request, campaign_id: int, turn: int):
        # A player's own report (fogged), the moderator's full one or, with ?seat=N, any seat's;
        # an observer's holds public events only until the campaign ends.
        campaign = campaign_for(request, campaign_id)
        seat = request.query_params.get("seat")
        if seat not in (None, "") and whole_number(seat) is None:
            raise ValidationError({"seat": "must be a seat number"})
        seat = whole_number(seat) if seat else None
        if not is_moderator(request.user, campaign):
            seat = None  # everyone else reads their own report, whatever they ask for
        try:
            report = report_for(campaign, turn, request.user, as_seat=seat)
        except ReportError as exc:
            raise NotFound(str(exc)) from None
        return Response(report.as_dict())


class DiceRollSerializer(serializers.Serializer):
    """A logged roll as the caller may see it (``campaign.dice.shown_rows``): a roll made for
    other empires is ``withheld`` while the campaign runs, with only ``seq``, ``prev_hash`` and
    ``hash`` (the chain still checks); ``offset`` and ``words`` only with the whole log."""

    seq = serializers.IntegerField()
    turn = serializers.IntegerField(allow_null=True)
    phase = serializers.CharField(allow_null=True)
    purpose = serializers.CharField(allow_null=True)
    expression = serializers.CharField(allow_null=True)
    faces = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    total = serializers.IntegerField(allow_null=True)
    offset = serializers.IntegerField(allow_null=True)
    words = serializers.IntegerField(allow_null=True)
    concerns = serializers.ListField(child=serializers.IntegerField(), allow_null=True,
                                     help_text="Seats the roll was made for; empty: public.")
    hash_version = serializers.IntegerField(allow_null=True)
    prev_hash = serializers.CharField()
    hash = serializers.CharField()
    withheld = serializers.BooleanField(help_text="A roll for other empires, shown when the campaign ends.")


class DiceLog(ListAPIView):
    serializer_class = DiceRollSerializer

    def get_queryset(self):
        self.campaign = campaign_for(self.request, self.kwargs["campaign_id"])
        return DiceRoll.objects.filter(campaign=self.campaign).order_by("seq")

    def list(self, request, *args, **kwargs):
        queryset = self.get_queryset()
        page = self.paginate_queryset(queryset)
        rows = shown_rows(queryset if page is None else page, log_reader(self.campaign, request.user))  # FW7, C21
        data = self.get_serializer(rows, many=True).data
        return Response(data) if page is None else self.get_paginated_response(data)


class ProcessNow(APIView):
    """POST {"turn": N}: process turn N now (it must be the open turn; 409 naming the current
    turn otherwise, so a repeated request processes nothing more)."""

    @extend_schema(request=inline_serializer("ProcessNow", {"turn": serializers.IntegerField()}),
                   responses={200: inline_serializer("Processed", {
                       "processed": serializers.IntegerField(), "next_turn": serializers.IntegerField()}),
                       400: FIELD_REFUSAL, 403: RefusalSerializer, 409: RefusalSerializer})
    def post(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        if not is_moderator(request.user, campaign):
            raise PermissionDenied("only the campaign's moderator can process a turn now")
        number = named_turn(request, "to process (the open one)")
        try:  # moderation: the audited process_now action (ends a pause, too)
            turn = actions.process_now(campaign_id=campaign.pk, user=request.user, turn_number=number)
        except actions.ActionError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response({"processed": turn.number,
                         "next_turn": Turn.objects.filter(campaign=campaign).order_by("-number").first().number})


# --- turn workflow (orders): preview, ready, fleets, taking a seat back -------------------------

def _player_empire(request, campaign: Campaign, what: str) -> Empire:
    empire = my_empire(request, campaign)
    if empire is None:
        raise PermissionDenied(f"only the campaign's players can {what}")
    return empire


def preview_json(preview) -> dict:
    plan = preview.spending
    return {
        "valid": True, "cost": plan.total, "bp_left": plan.bp_left, "lines": list(preview.lines),
        "warnings": list(preview.warnings),
        "purchases": [{"item": p.item.describe(), "cost": p.cost} for p in plan.items],
        "moves": [{"fleet": m.fleet, "start": list(m.start), "end": list(m.end), "steps": m.steps, "speed": m.speed}
                  for m in preview.moves],
    }


# Invalid orders: every problem and what the form can still offer; a body without orders, or
# orders refused as a whole, names only why.
PREVIEW_REFUSED = inline_serializer("OrdersPreviewRefused", {
    "orders": serializers.CharField(help_text="Why the orders are refused (every problem, one a line)."),
    "problems": serializers.ListField(child=serializers.DictField(), required=False,
                                      help_text="Each problem: where, the rule, the message."),
    "options": serializers.DictField(required=False, help_text="What the order form can still offer."),
})


class OrdersPreview(APIView):
    """POST {"orders": {...}}: validate orders against the open turn without storing them. 200
    with the cost, BP left and moves; 400 naming the place and the rule when they are invalid."""

    @extend_schema(request=OrdersPreviewRequestSerializer,
                   responses={200: OrdersPreviewResponseSerializer, 400: PREVIEW_REFUSED, 403: RefusalSerializer},
                   examples=[PREVIEW_EXAMPLE])
    def post(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        empire = _player_empire(request, campaign, "preview orders")
        body = request.data
        if not isinstance(body, dict) or "orders" not in body:
            raise ValidationError({"orders": 'send {"orders": {...}}'})
        from ..views.orders import order_options

        try:
            preview = eh_actions.preview_orders(empire=empire, raw=body["orders"])
        except actions.OrdersRefused as exc:
            # Every problem, not the first (issue 13 item 14), and what the form can still offer.
            return Response({"orders": str(exc), "problems": exc.problems,
                             "options": order_options(campaign, empire, body["orders"])},
                            status=status.HTTP_400_BAD_REQUEST)
        except actions.ActionError as exc:
            raise ValidationError({"orders": str(exc)}) from None
        return Response({"turn": campaign.turn, "setup": campaign.turn == SETUP_TURN, **preview_json(preview),
                         "options": order_options(campaign, empire, body["orders"])})


class ReadyView(APIView):
    """POST {"ready": true|false, "turn": N}: you are done with turn N, the open turn (or not,
    until it is processed). When the last player is ready the turn is processed at once. A
    repeat after the turn was processed answers with the mark it was processed with; any other
    request for a turn that is not open is 409 naming the current turn."""

    @extend_schema(request=inline_serializer("Ready", {"ready": serializers.BooleanField(default=True),
                                                       "turn": serializers.IntegerField()}),
                   responses={200: inline_serializer("ReadyMark", {
                       "turn": serializers.IntegerField(), "ready": serializers.BooleanField(),
                       "turn_status": serializers.CharField()}),
                       400: FIELD_REFUSAL, 403: RefusalSerializer, 409: RefusalSerializer})
    def post(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        empire = _player_empire(request, campaign, "mark ready")
        ready = request.data.get("ready", True) if isinstance(request.data, dict) else None
        if not isinstance(ready, bool):
            raise ValidationError({"ready": "must be true or false"})
        number = named_turn(request, "you are (or are not) ready for")
        try:
            row = eh_actions.mark_ready(empire.pk, ready, turn_number=number)
        except actions.TurnClosed as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except actions.ActionError as exc:
            raise ValidationError({"ready": str(exc)}) from None
        turn = Turn.objects.get(pk=row.turn_id)  # processed already if this made everyone ready
        return Response({"turn": turn.number, "ready": row.ready, "turn_status": turn.status})


class FleetsView(APIView):
    """Your fleets in full (ships, speed, damage); the moderator gets every fleet. Other
    players' fleets, as fog of war lets you see them, are on the map."""

    @extend_schema(responses=FLEET_ROWS)
    def get(self, request, campaign_id: int):
        from rest_framework.settings import api_settings

        from .. import adapters
        from ..views.orders import fleet_rows

        campaign = campaign_for(request, campaign_id)
        if is_moderator(request.user, campaign):
            seats = None
        else:
            empire = my_empire(request, campaign)
            seats = {empire.seat} if empire else set()
        rows = fleet_rows(adapters.load_state(campaign), seats) if seats is None or seats else []
        paginator = api_settings.DEFAULT_PAGINATION_CLASS()
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response(page)


class TakeBackSeat(APIView):
    """POST: take back your seat from the computer, which played it after missed turns."""

    @extend_schema(request=None, responses={200: inline_serializer("SeatTakenBack", {
        "seat": serializers.IntegerField(), "is_bot": serializers.BooleanField(),
        "missed_turns": serializers.IntegerField()}), 400: FIELD_REFUSAL, 403: RefusalSerializer})
    def post(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        empire = _player_empire(request, campaign, "take back a seat")
        try:
            empire = eh_actions.take_back_seat(empire.pk)
        except actions.ActionError as exc:
            raise ValidationError({"detail": str(exc)}) from None
        return Response({"seat": empire.seat, "is_bot": empire.is_bot, "missed_turns": empire.missed_turns})


NOTIFICATION_EXAMPLE = {"notify_turn": True, "notify_reminders": True, "notify_battles": False, "notify_press": True}


NOTIFICATIONS = inline_serializer("NotificationPreferences", {
    "campaign": serializers.IntegerField(),
    **{name: serializers.BooleanField() for name in actions.NOTIFICATION_FIELDS},
})


class NotificationPreferences(APIView):
    """GET/PUT which emails this campaign sends you: ``notify_turn`` (turn reports),
    ``notify_reminders`` (24 h and 1 h before the deadline), ``notify_battles`` (battles that need
    your decision), ``notify_press`` (press to your seat, announcements). PUT any of them as true
    or false; the others keep their value. Every member (moderator, player, observer) manages only
    their own."""

    def _state(self, campaign, membership=None):
        from campaign.models import Membership

        if membership is None:
            membership = Membership.objects.filter(campaign=campaign, user=self.request.user).first()
        # No Membership row yet (a campaign made without the lobby): everything is on.
        return {"campaign": campaign.pk,
                **{name: getattr(membership, name) if membership else True for name in actions.NOTIFICATION_FIELDS}}

    @extend_schema(responses=NOTIFICATIONS)
    def get(self, request, campaign_id: int):
        return Response(self._state(campaign_for(request, campaign_id)))

    @extend_schema(request=OpenApiTypes.OBJECT, responses={200: NOTIFICATIONS, 400: FIELD_REFUSAL},
                   description=f"Change which emails this campaign sends you, e.g. {NOTIFICATION_EXAMPLE}; "
                               "400 names a bad field or value.")
    def put(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        if not isinstance(request.data, dict):
            raise ValidationError({"detail": f"send an object such as {NOTIFICATION_EXAMPLE}"})
        changes = {k: v for k, v in request.data.items() if k != "campaign"}  # GET's answer may be PUT back
        try:
            membership = actions.set_notification_preferences(campaign_id=campaign.pk, user=request.user, **changes)
        except actions.ActionError as exc:
            raise ValidationError({"detail": str(exc)}) from None
        return Response(self._state(campaign, membership))


# --- map, history, reports (fog of war: campaign/eventhorizon/visibility.py) ---------------------------------

def _turn_param(request, campaign: Campaign) -> int | None:
    """``?turn=N``: a turn of the campaign (its start); absent: now. 400 names a bad value."""
    raw = request.query_params.get("turn")
    if raw in (None, ""):
        return None
    turn = whole_number(raw)
    if turn is None or not 1 <= turn <= campaign.turn:
        raise ValidationError({"turn": f"must be a turn of this campaign, 1 to {campaign.turn}"})
    return turn


class VisibleFleets(APIView):
    """Every fleet the caller can see, now or at the start of ``?turn=N``: their own with its
    ships, other empires' only within detection range (fog of war); the moderator sees all."""

    @extend_schema(responses=inline_serializer("VisibleFleets", {
        "turn": serializers.IntegerField(help_text="The turn whose start they are seen at."), "fleets": MAP_FLEETS}))
    def get(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        turn = _turn_param(request, campaign)
        try:
            view = visibility.view_for(campaign, visibility.viewer_for(request.user, campaign), turn)
        except visibility.HistoryUnavailable as exc:
            raise NotFound(str(exc)) from None
        return Response({"turn": view.turn, "fleets": visibility.fleets_json(campaign, view)})


def _figures(what: str) -> serializers.ListField:
    return serializers.ListField(child=serializers.IntegerField(allow_null=True),
                                 help_text=f"{what} after each turn of \"turns\" (null: no figure).")


EMPIRE_HISTORY = inline_serializer("EmpireHistory", {
    "turns": serializers.ListField(child=serializers.IntegerField(), help_text="The processed turns."),
    "empires": inline_serializer("EmpireHistoryRow", many=True, fields={
        "seat": serializers.IntegerField(), "name": serializers.CharField(), "colour": serializers.CharField(),
        "bp": _figures("BP banked"), "worlds": _figures("Worlds"), "ships": _figures("Ships")}),
})


class EmpireHistory(APIView):
    """BP, worlds and ships after each processed turn (the empire chart's data): the caller's
    own empire while the campaign runs, every empire for the moderator and once it has ended."""

    @extend_schema(responses=EMPIRE_HISTORY)
    def get(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        return Response(history_series(campaign, visibility.viewer_for(request.user, campaign)))
