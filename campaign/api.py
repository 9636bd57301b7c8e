"""The REST API (DRF). Thin: every view starts from the campaigns the caller may see (an
outsider gets 404, never someone else's data), validates input, calls one action and renders.

Endpoints (all under /api/):
    campaigns/                       campaigns the caller moderates or plays in
    campaigns/{id}/                  one campaign: turn, purpose, empires (BP only your own)
    campaigns/{id}/map/              terrain rows and worlds with their owners
    campaigns/{id}/orders/           GET/PUT your orders for the open turn (PUT returns the preview)
    campaigns/{id}/reports/{turn}/   your report of a processed turn (the moderator's is complete)
    campaigns/{id}/dice/             the dice log, paginated
    campaigns/{id}/process/          POST (moderator): process the open turn now
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from . import actions
from .access import empire_of, is_moderator, visible_campaigns
from .models import Campaign, DiceRoll, Empire, Turn, TurnOrders
from .reports import ReportError, turn_report
from .rules.eventhorizon.victory import PURPOSES


def campaign_for(request, campaign_id: int) -> Campaign:
    campaign = visible_campaigns(request.user).filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound("no such campaign")
    return campaign


def my_empire(request, campaign: Campaign) -> Empire | None:
    return empire_of(request.user, campaign)


class CampaignSerializer(serializers.ModelSerializer):
    players = serializers.SerializerMethodField()
    purpose_name = serializers.SerializerMethodField()
    seed = serializers.CharField(source="revealed_seed", read_only=True)

    class Meta:
        model = Campaign
        fields = ["id", "name", "layer", "grid", "width", "height", "status", "turn", "purpose", "purpose_name",
                  "seed_hash", "seed", "players"]

    def get_players(self, campaign) -> int:
        return campaign.empires.count()

    def get_purpose_name(self, campaign) -> str | None:
        return PURPOSES[campaign.purpose].name if campaign.purpose else None


class CampaignList(ListAPIView):
    serializer_class = CampaignSerializer

    def get_queryset(self):
        return visible_campaigns(self.request.user).order_by("-created_at", "-id")


class CampaignDetail(APIView):
    @extend_schema(responses=CampaignSerializer)
    def get(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        data = CampaignSerializer(campaign).data
        mine = my_empire(request, campaign)
        moderator = is_moderator(request.user, campaign)
        data["empires"] = [
            {"seat": e.seat, "name": e.name, "colour": e.colour, "eliminated": e.eliminated, "is_bot": e.is_bot,
             # Fog of war: a player sees only its own treasury; the moderator sees all.
             **({"bp": e.bp, "technologies": e.technologies} if moderator or e == mine else {})}
            for e in campaign.empires.order_by("seat")
        ]
        data["your_seat"] = mine.seat if mine else None
        data["moderator"] = moderator
        return Response(data)


class CampaignMap(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        from .rules.eventhorizon.mapgen import Terrain

        rows = [["."] * campaign.width for _ in range(campaign.height)]
        for x, y, terrain in campaign.cells.values_list("x", "y", "terrain").iterator(5000):
            rows[y][x] = Terrain(terrain).symbol
        worlds = [
            {"x": x, "y": y, "kind": kind, "economy": economy or None, "owner": owner, "home_of": home}
            for x, y, kind, economy, owner, home in campaign.worlds.order_by("y", "x").values_list(
                "x", "y", "kind", "economy", "owner__seat", "home_of__seat")
        ]
        return Response({"grid": campaign.grid, "width": campaign.width, "height": campaign.height,
                         "terrain": ["".join(r) for r in rows],
                         "symbols": {t.symbol: t.value for t in Terrain}, "worlds": worlds})


class OrdersView(APIView):
    """Your orders for the open turn (docs/orders.md)."""

    def _empire(self, request, campaign_id):
        campaign = campaign_for(request, campaign_id)
        empire = my_empire(request, campaign)
        if empire is None:
            raise NotFound("you have no empire in this campaign")
        return campaign, empire

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, campaign_id: int):
        campaign, empire = self._empire(request, campaign_id)
        row = TurnOrders.objects.filter(turn__campaign=campaign, turn__number=campaign.turn, empire=empire).first()
        return Response({"turn": campaign.turn, "orders": row.orders if row else {},
                         "ready": row.ready if row else False, "revision": row.revision if row else 0})

    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT)
    def put(self, request, campaign_id: int):
        campaign, empire = self._empire(request, campaign_id)
        body = request.data
        if not isinstance(body, dict) or "orders" not in body:
            raise ValidationError({"orders": "send {\"orders\": {...}, \"ready\": true|false}"})
        ready = body.get("ready")
        if ready is not None and not isinstance(ready, bool):
            raise ValidationError({"ready": "must be true or false"})
        try:
            row, preview = actions.submit_orders(empire_id=empire.pk, raw=body["orders"], ready=ready)
        except actions.TurnClosed as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except actions.ActionError as exc:
            raise ValidationError({"orders": str(exc)}) from None
        return Response({"turn": campaign.turn, "revision": row.revision, "ready": row.ready,
                         "preview": list(preview.lines), "bp_left": preview.spending.bp_left})


class ReportView(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, campaign_id: int, turn: int):
        campaign = campaign_for(request, campaign_id)
        empire = my_empire(request, campaign)
        if empire is None and not is_moderator(request.user, campaign):
            raise NotFound("you have no empire in this campaign")
        seat = None if is_moderator(request.user, campaign) and empire is None else empire.seat
        try:
            report = turn_report(campaign, turn, seat)
        except ReportError as exc:
            raise NotFound(str(exc)) from None
        return Response(report.as_dict())


class DiceRollSerializer(serializers.ModelSerializer):
    class Meta:
        model = DiceRoll
        fields = ["seq", "turn", "phase", "purpose", "expression", "faces", "total", "offset", "words",
                  "prev_hash", "hash"]


class DiceLog(ListAPIView):
    serializer_class = DiceRollSerializer

    def get_queryset(self):
        campaign = campaign_for(self.request, self.kwargs["campaign_id"])
        return DiceRoll.objects.filter(campaign=campaign).order_by("seq")


class ProcessNow(APIView):
    @extend_schema(request=None, responses=OpenApiTypes.OBJECT)
    def post(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        if not is_moderator(request.user, campaign):
            raise PermissionDenied("only the campaign's moderator can process a turn now")
        turn = actions.process_turn(campaign_id=campaign.pk)
        if turn is None:
            return Response({"detail": f"turn {campaign.turn} is not open for processing"},
                            status=status.HTTP_409_CONFLICT)
        return Response({"processed": turn.number,
                         "next_turn": Turn.objects.filter(campaign=campaign).order_by("-number").first().number})
