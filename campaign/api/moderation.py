"""The REST API's moderation endpoints (under /api/). Thin, like the rest of the API: start from the
campaigns the caller may see (outsiders 404), refuse non-moderators (403), check the body's
shape (400 naming the field), call one action and render; a refused action is 400 with its
reason, or 409 when the turn is in the wrong state for it.

Pause, resume, extend, roll back and the audit log serve every campaign layer with the
"moderation" feature (``campaign/layers.py``); the state they answer carries the layer's open
step (``step``, ``step_label``). Substitute and the options are for layers with those features.

    campaigns/{id}/pause/        POST                          stop the clock
    campaigns/{id}/resume/       POST                          restart it (deadline moved on by the pause)
    campaigns/{id}/extend/       POST {"hours": 24}            a later deadline
    campaigns/{id}/process/      POST {"turn": N}              process turn N, the open one, now
    (campaign/eventhorizon/api/campaigns.py: ProcessNow)
    campaigns/{id}/rollback/     POST {"turn": N}              roll back turn N, the last processed one (a layer
                                                               without turns, e.g. CAM: N is its last step)
    campaigns/{id}/substitute/   POST {"seat": 1, "username": "dave", "old_player": "observer"}
    campaigns/{id}/audit/        GET                           the audit log, newest first, paginated
    campaigns/{id}/options/      GET; PATCH {"steered_drift": true}   rule options (switchable ones)
"""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, PermissionDenied, ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import actions, layers
from ..access import is_moderator, role_of, visible_campaigns
from ..models import AuditEntry, Campaign
from .schema import FIELD_REFUSAL, RefusalSerializer


def campaign_for(request, campaign_id: int, feature: str = "moderation") -> Campaign:
    campaign = visible_campaigns(request.user).filter(pk=campaign_id, layer__in=layers.having(feature)).first()
    if campaign is None:
        raise NotFound("no such campaign")
    return campaign


def _moderated(request, campaign_id: int, feature: str = "moderation") -> Campaign:
    campaign = campaign_for(request, campaign_id, feature)
    if not is_moderator(request.user, campaign):
        raise PermissionDenied("only the campaign's moderators can do this")
    return campaign


def _call(action, **kwargs):
    try:
        return action(**kwargs)
    except actions.NotFound as exc:
        raise NotFound(str(exc)) from None
    except actions.NotAllowed as exc:
        raise PermissionDenied(str(exc)) from None
    except actions.TurnClosed as exc:
        raise Conflict(str(exc)) from None
    except actions.ActionError as exc:
        raise ValidationError({"detail": str(exc)}) from None


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "the turn is not in a state for this"


def _state(campaign: Campaign) -> dict:
    campaign.refresh_from_db()
    layer = layers.of(campaign)
    step = layer.current_step(campaign)
    turn = step.row if layer.has("orders") else None
    return {
        "status": campaign.status, "turn": campaign.turn, "turn_status": turn.status if turn else None,
        "paused": campaign.paused,
        "seconds_left_when_resumed": int(campaign.paused_remaining.total_seconds())
        if campaign.paused and campaign.paused_remaining is not None else None,
        "deadline": step.deadline,
        "step": step.number, "step_label": step.label,
    }


def _state_fields() -> dict:
    return {
        "status": serializers.CharField(), "turn": serializers.IntegerField(),
        "turn_status": serializers.CharField(allow_null=True, help_text="Null for a layer without turns (CAM)."),
        "paused": serializers.BooleanField(), "seconds_left_when_resumed": serializers.IntegerField(allow_null=True),
        "deadline": serializers.DateTimeField(allow_null=True),
        "step": serializers.IntegerField(), "step_label": serializers.CharField(),
    }


STATE = inline_serializer("ModerationState", _state_fields())


def refusals(ok, *, conflict: bool = False) -> dict:
    """A moderation endpoint's responses: ``ok``, 400 naming the field refused, 403 for anyone but
    the moderators, and 409 for a "do it now" request naming a turn it cannot act on."""
    return {200: ok, 400: FIELD_REFUSAL, 403: RefusalSerializer, **({409: RefusalSerializer} if conflict else {})}


ROLLED_BACK = inline_serializer("RolledBack", {
    "rolled_back": serializers.IntegerField(help_text="The turn (or, for a layer without turns, the step) undone."),
    **_state_fields(),
})


class _ModerationView(APIView):
    def _body(self, request) -> dict:
        if not isinstance(request.data, dict):
            raise ValidationError({"detail": "send a JSON object"})
        return request.data


class Pause(_ModerationView):
    @extend_schema(request=None, responses=refusals(STATE))
    def post(self, request, campaign_id: int):
        campaign = _moderated(request, campaign_id)
        _call(actions.pause_campaign, campaign_id=campaign.pk, user=request.user)
        return Response(_state(campaign))


# The options the campaign's layer takes (a subset of actions.DEFAULT_OPTIONS), with their values.
OPTIONS = inline_serializer("CampaignOptions", {
    "options": inline_serializer("CampaignOptionValues", {
        "economy_types": serializers.BooleanField(required=False),
        "steered_drift": serializers.BooleanField(required=False),
        "battle_book": serializers.CharField(required=False, allow_blank=True,
                                             help_text="The rule book battles are fought on; empty: the layer's own.")},
        help_text="Each option the campaign's layer takes → its value."),
    "switchable": serializers.ListField(child=serializers.CharField(),
                                        help_text="The options a moderator may switch while the campaign runs."),
})


class Options(_ModerationView):
    """The campaign's rule options (GET, any member; PATCH, moderators: the options that may be
    switched during a campaign, e.g. ``{"steered_drift": true}``)."""

    @extend_schema(responses=OPTIONS)
    def get(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id, "options")
        taken = layers.of(campaign).options  # the layer's own options only (issue 31: a CAM rubber's book)
        options = {k: v for k, v in {**actions.DEFAULT_OPTIONS, **campaign.options}.items() if k in taken}
        return Response({"options": options, "switchable": sorted(actions.SWITCHABLE_OPTIONS & taken)})

    @extend_schema(request=inline_serializer("Options", {"steered_drift": serializers.BooleanField(required=False),
                                                         "battle_book": serializers.CharField(required=False)}),
                   responses=refusals(OPTIONS))
    def patch(self, request, campaign_id: int):
        campaign = _moderated(request, campaign_id, "options")
        body = self._body(request)
        if not body:
            raise ValidationError({"detail": "send the options to change, e.g. {\"steered_drift\": true}"})
        with transaction.atomic():  # all or nothing
            for key, value in body.items():
                _call(actions.set_campaign_option, campaign_id=campaign.pk, user=request.user, key=key, value=value)
        campaign.refresh_from_db()
        return self.get(request, campaign_id)


class Resume(_ModerationView):
    @extend_schema(request=None, responses=refusals(STATE))
    def post(self, request, campaign_id: int):
        campaign = _moderated(request, campaign_id)
        _call(actions.resume_campaign, campaign_id=campaign.pk, user=request.user)
        return Response(_state(campaign))


class Extend(_ModerationView):
    @extend_schema(request=inline_serializer("Extend", {"hours": serializers.IntegerField()}),
                   responses=refusals(STATE))
    def post(self, request, campaign_id: int):
        campaign = _moderated(request, campaign_id)
        hours = self._body(request).get("hours")
        if isinstance(hours, bool) or not isinstance(hours, int):
            raise ValidationError({"hours": f"a whole number of hours from 1 to {actions.MAX_EXTENSION_HOURS}"})
        _call(actions.extend_deadline, campaign_id=campaign.pk, user=request.user, hours=hours)
        return Response(_state(campaign))


class RollBack(_ModerationView):
    @extend_schema(request=inline_serializer("RollBack", {"turn": serializers.IntegerField()}),
                   responses=refusals(ROLLED_BACK, conflict=True))
    def post(self, request, campaign_id: int):
        campaign = _moderated(request, campaign_id)
        self._body(request)
        turn = named_turn(request, "to roll back (the last processed one; for a layer without turns, its last step)")
        rolled = _call(actions.roll_back_step, campaign_id=campaign.pk, user=request.user, number=turn)
        return Response({"rolled_back": rolled.number, **_state(campaign)})


class Substitute(_ModerationView):
    @extend_schema(
        request=inline_serializer("Substitute", {
            "seat": serializers.IntegerField(), "username": serializers.CharField(allow_blank=True),
            "old_player": serializers.ChoiceField(["observer", "remove"], required=False)}),
        responses=refusals(inline_serializer("Substituted", {
            "seat": serializers.IntegerField(), "name": serializers.CharField(),
            "user": serializers.CharField(allow_null=True, help_text="The new player's username; null: the computer."),
            "is_bot": serializers.BooleanField()})),
    )
    def post(self, request, campaign_id: int):
        campaign = _moderated(request, campaign_id, "substitute")
        body = self._body(request)
        seat, username = body.get("seat"), body.get("username")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise ValidationError({"seat": "the seat number to hand over"})
        if not isinstance(username, str):
            raise ValidationError({"username": "the new player's username, or \"\" for the computer"})
        old_player = body.get("old_player", "observer")
        empire = _call(actions.substitute_player, campaign_id=campaign.pk, user=request.user, seat=seat,
                       username=username, old_player=old_player)
        return Response({"seat": empire.seat, "name": empire.name,
                         "user": empire.user.username if empire.user else None, "is_bot": empire.is_bot})


class AuditEntrySerializer(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username", default=None, read_only=True, allow_null=True,
                                 help_text="Null for what the site did by itself (a deadline, the computer).")

    class Meta:
        model = AuditEntry
        fields = ["id", "at", "user", "action", "target", "before", "after", "note"]


class AuditLog(ListAPIView):
    """Moderators always; players and observers once the campaign has ended (403 before)."""

    serializer_class = AuditEntrySerializer

    @extend_schema(responses={200: AuditEntrySerializer(many=True), 403: RefusalSerializer})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        campaign = campaign_for(self.request, self.kwargs["campaign_id"], "audit")
        if not is_moderator(self.request.user, campaign) and campaign.status != Campaign.Status.FINISHED:
            if role_of(self.request.user, campaign) is None:
                raise NotFound("no such campaign")
            raise PermissionDenied("the audit log opens when the campaign ends")
        return AuditEntry.objects.filter(campaign=campaign).select_related("user").order_by("-at", "-id")


def named_turn(request, what: str) -> int:
    """The ``turn`` a "do it now" request names (issue 14): required, so a double click or a
    retried request acts once and its repeat gets 409 naming the current turn. 400 without it."""
    turn = request.data.get("turn") if isinstance(request.data, dict) else None
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise ValidationError({"turn": f"the number of the turn {what}, a whole number "
                                        f"(the campaign's \"turn\" in GET /api/campaigns/{{id}}/)"})
    return turn
