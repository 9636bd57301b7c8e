"""Away dates, the calendar and webhooks in the REST API (thin: look-ups start from what the
caller may see, outsiders get 404; a refusal is 400 with its reason, 403 when the caller may see
but not act).

    away/                              GET your absences to come; POST {"starts", "ends", "note", "campaign"}
    away/{id}/end/                     POST: back early, or cancel one to come
    campaigns/{id}/away/               GET the seats away (moderators: notes and the policy too);
                                       PUT (moderators) {"mode", "limit_hours", "substitute"}: the away policy
    campaigns/{id}/webhooks/           (moderators) GET the webhooks and their log; POST {"url", "preset", "events"}
    campaigns/{id}/webhooks/{hook}/    (moderators) DELETE
    calendar/                          POST: a new secret feed URL (the old one stops); DELETE: revoke
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from campaign.access import is_moderator, visible_campaigns
from campaign.actions.errors import ActionError, NotAllowed
from campaign.actions.errors import NotFound as ActionNotFound
from campaign.api.schema import VALIDATION_ERRORS, RefusalSerializer

from . import away, calendar, webhooks
from .models import Webhook, WebhookEvent


def _call(action, **kwargs):
    try:
        return action(**kwargs)
    except ActionNotFound as exc:
        raise NotFound(str(exc)) from None
    except NotAllowed as exc:
        raise PermissionDenied(str(exc)) from None
    except ActionError as exc:
        raise ValidationError({"detail": str(exc)}) from None


class AbsenceSerializer(serializers.Serializer):
    starts = serializers.DateTimeField()
    ends = serializers.DateTimeField()
    note = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    campaign = serializers.IntegerField(required=False, allow_null=True, default=None)


class AbsenceAnswer(serializers.Serializer):
    id = serializers.IntegerField()
    starts = serializers.DateTimeField()
    ends = serializers.DateTimeField()
    note = serializers.CharField(allow_blank=True)
    campaign = serializers.IntegerField(allow_null=True, help_text="The campaign it covers; null: every one.")


class PolicyAnswer(serializers.Serializer):
    mode = serializers.CharField(allow_null=True, help_text="What the campaign does for an away seat; null: "
                                                            "its layer offers nothing.")
    limit_hours = serializers.IntegerField()
    substitute = serializers.CharField(allow_null=True, help_text="The substitute's username; null: none.")


CAMPAIGN_AWAY = inline_serializer("CampaignAway", {
    "away": inline_serializer("SeatAway", many=True, fields={
        "seat": serializers.IntegerField(), "from": serializers.DateTimeField(), "until": serializers.DateTimeField()},
        help_text="The seats away now or in the next 30 days (every member sees these; never the note)."),
    "policy": PolicyAnswer(required=False, help_text="Moderators only."),
    "absences": inline_serializer("AbsenceSeen", many=True, required=False, fields={
        "seat": serializers.CharField(help_text="The seat's label (in the lobby: the player's username)."),
        "user": serializers.CharField(), "starts": serializers.DateTimeField(), "ends": serializers.DateTimeField(),
        "note": serializers.CharField(allow_blank=True), "all": serializers.BooleanField(help_text="It covers "
                                                                                           "every campaign."),
        "now": serializers.BooleanField(help_text="Running now.")}, help_text="Moderators only: with the notes."),
})


def _absence_json(a) -> dict:
    return {"id": a.pk, "starts": a.starts, "ends": a.ends, "note": a.note, "campaign": a.campaign_id}


class AbsencesView(APIView):
    @extend_schema(responses={200: inline_serializer("Absences", {"absences": AbsenceAnswer(many=True)})},
                   summary="Your absences to come or running")
    def get(self, request):
        from django.utils import timezone

        from .models import Absence

        rows = Absence.objects.filter(user=request.user, ended_at__isnull=True, ends__gt=timezone.now())
        return Response({"absences": [_absence_json(a) for a in rows]})

    @extend_schema(request=AbsenceSerializer, responses={201: AbsenceAnswer}, summary="Declare an absence")
    def post(self, request):
        data = AbsenceSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        absence = _call(away.declare_absence, user=request.user, starts=v["starts"], ends=v["ends"],
                        note=v["note"], campaign_id=v["campaign"])
        return Response(_absence_json(absence), status=status.HTTP_201_CREATED)


class EndAbsenceView(APIView):
    @extend_schema(request=None, responses={200: AbsenceAnswer}, summary="Back early (or cancel an absence to come)")
    def post(self, request, absence_id: int):
        absence = _call(away.end_absence, absence_id=absence_id, user=request.user)
        return Response(_absence_json(absence))


class PolicySerializer(serializers.Serializer):
    mode = serializers.CharField(max_length=12)
    limit_hours = serializers.IntegerField(required=False, default=168)
    substitute = serializers.CharField(max_length=150, required=False, allow_blank=True, default="")


class CampaignAwayView(APIView):
    @extend_schema(responses={200: CAMPAIGN_AWAY}, summary="The seats away in a campaign")
    def get(self, request, campaign_id: int):
        campaign = visible_campaigns(request.user).filter(pk=campaign_id).first()
        if campaign is None:
            raise NotFound("no such campaign")
        out = {"away": [{"seat": seat, "from": s, "until": e} for seat, (s, e) in away.away_now(campaign).items()]}
        if is_moderator(request.user, campaign):
            policy = away.policy_of(campaign)
            out["policy"] = {"mode": away.mode_for(campaign), "limit_hours": policy.limit_hours,
                             "substitute": policy.substitute.username if policy.substitute_id else None}
            out["absences"] = away.moderator_view(campaign)
        return Response(out)

    @extend_schema(request=PolicySerializer, responses={200: PolicyAnswer},
                   summary="Set the away policy (moderators)")
    def put(self, request, campaign_id: int):
        campaign = visible_campaigns(request.user).filter(pk=campaign_id).first()
        if campaign is None:
            raise NotFound("no such campaign")
        data = PolicySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        policy = _call(away.set_away_policy, campaign_id=campaign.pk, user=request.user, **data.validated_data)
        return Response({"mode": policy.mode, "limit_hours": policy.limit_hours,
                         "substitute": policy.substitute.username if policy.substitute_id else None})


class WebhookSerializer(serializers.Serializer):
    url = serializers.CharField(max_length=500)
    preset = serializers.ChoiceField(choices=Webhook.Preset.values, default="json")
    events = serializers.ListField(child=serializers.ChoiceField(choices=WebhookEvent.values), min_length=1)


class WebhookAnswer(serializers.Serializer):
    """A webhook as its campaign's moderators see it (``_hook_json``), with its signing secret."""

    id = serializers.IntegerField()
    url = serializers.CharField()
    preset = serializers.ChoiceField(choices=Webhook.Preset.values)
    events = serializers.ListField(child=serializers.ChoiceField(choices=WebhookEvent.values))
    active = serializers.BooleanField()
    secret = serializers.CharField(help_text="The HMAC key of the signature header.")
    disabled_reason = serializers.CharField(allow_blank=True)
    failing_since = serializers.DateTimeField(allow_null=True)


class WebhookWithLog(WebhookAnswer):
    log = inline_serializer("WebhookDeliveryRow", many=True, help_text="Its last 20 deliveries, newest first.",
                            fields={"id": serializers.IntegerField(), "event": serializers.CharField(),
                                    "status": serializers.CharField(help_text="pending, delivered or failed."),
                                    "attempts": serializers.IntegerField(),
                                    "last_code": serializers.IntegerField(allow_null=True),
                                    "last_error": serializers.CharField(allow_blank=True),
                                    "created_at": serializers.DateTimeField()})


def _hook_json(h: Webhook, *, log: bool = True) -> dict:
    out = {"id": h.pk, "url": h.url, "preset": h.preset, "events": h.events, "active": h.active,
           "secret": h.secret, "disabled_reason": h.disabled_reason, "failing_since": h.failing_since}
    if log:
        out["log"] = [{"id": d.pk, "event": d.event, "status": d.status, "attempts": d.attempts,
                       "last_code": d.last_code, "last_error": d.last_error, "created_at": d.created_at}
                      for d in h.deliveries.order_by("-pk")[:20]]
    return out


def _moderated(request, campaign_id: int):
    campaign = visible_campaigns(request.user).filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound("no such campaign")
    if not is_moderator(request.user, campaign):
        raise PermissionDenied("only the campaign's moderators manage its webhooks")
    return campaign


class WebhooksView(APIView):
    @extend_schema(responses={200: inline_serializer("Webhooks", {"webhooks": WebhookWithLog(many=True)}),
                              403: RefusalSerializer},
                   summary="The campaign's webhooks and their log (moderators)")
    def get(self, request, campaign_id: int):
        campaign = _moderated(request, campaign_id)
        return Response({"webhooks": [_hook_json(h) for h in campaign.webhooks.order_by("pk")]})

    @extend_schema(request=WebhookSerializer,
                   responses={201: WebhookAnswer, 400: VALIDATION_ERRORS, 403: RefusalSerializer},
                   summary="Add a webhook (moderators)")
    def post(self, request, campaign_id: int):
        campaign = _moderated(request, campaign_id)
        data = WebhookSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hook = _call(webhooks.add_webhook, campaign_id=campaign.pk, user=request.user, **data.validated_data)
        return Response(_hook_json(hook, log=False), status=status.HTTP_201_CREATED)


class WebhookView(APIView):
    @extend_schema(responses={204: None, 400: VALIDATION_ERRORS, 403: RefusalSerializer},
                   summary="Remove a webhook (moderators)")
    def delete(self, request, campaign_id: int, webhook_id: int):
        campaign = _moderated(request, campaign_id)
        _call(webhooks.remove_webhook, campaign_id=campaign.pk, user=request.user, webhook_id=webhook_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CalendarView(APIView):
    @extend_schema(request=None, responses={201: inline_serializer("CalendarFeed", {"url": serializers.URLField()})},
                   summary="A new secret URL of your deadline calendar")
    def post(self, request):
        secret = calendar.rotate_feed(user=request.user)
        return Response({"url": request.build_absolute_uri(reverse("calendar-feed", args=[secret]))},
                        status=status.HTTP_201_CREATED)

    @extend_schema(responses={204: None}, summary="Revoke your deadline calendar's URL")
    def delete(self, request):
        calendar.revoke_feed(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
