"""Battle API (issue 5, "Battles" and "Tabletop result entry"), under /api/.

    GET  campaigns/{id}/battles/   the campaign's battles you may see (its moderator: all;
                                   a player: his own), newest turn first
    GET  battles/{id}/             one battle: setup, status, entered proposal, result, log
    POST battles/{id}/result/      a side enters the tabletop result: the result JSON
                                   {"holder": seat|null, "ships": [{"ship", "fate", "damage",
                                   "captured_by"}, …]} (or {"result": {…}})
    POST battles/{id}/confirm/     the other side confirms the entered result
    POST battles/{id}/dispute/     the other side disputes it: {"reason": "…"}
    POST battles/{id}/settle/      the moderator: {"result": {…}}, {"auto": true}, or {} for the
                                   entered result as it stands; optional "note"
    POST battles/{id}/mode/        the moderator: {"mode": "auto"|"tactical"} (the modes open to
                                   the battle: actions.modes_open_to)
    GET/PUT campaigns/{id}/battle-preference/   your empire's battle preference: how you ask for
                                   your battles to be settled (ruling C17): {"preference":
                                   ""|"auto"|"tactical"|"tabletop"}

Errors: 400 {"detail": message naming the problem}; 403 when the action is not yours to take
(e.g. a side settling, the moderator entering); 404 for a battle or campaign you cannot see;
403 when not logged in (as the rest of the API). Thin: each POST calls one action in
tactical/battles/actions.py.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound as NotFoundError
from rest_framework.response import Response
from rest_framework.views import APIView

from campaign.access import empire_of, is_moderator
from campaign.eventhorizon.api.campaigns import campaign_for
from campaign.models import Empire
from tactical.battles import actions
from tactical.battles.actions import BattleError, NotAllowed, NotFound
from tactical.battles.forms import settled_text
from tactical.models import Battle


def battle_json(battle: Battle, *, user=None, full: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": battle.pk, "campaign": battle.campaign_id, "turn": battle.turn, "index": battle.index,
        "hex": [battle.x, battle.y], "attacker": battle.attacker, "defender": battle.defender, "aewa": battle.aewa,
        "mode": battle.mode, "status": battle.status, "status_label": battle.get_status_display(),
        "deadline": battle.deadline, "proposed_by": battle.proposed_by,
        "resolved_how": battle.resolved_how or None, "settled": settled_text(battle) or None,
        "resolved_at": battle.resolved_at,
        "url": reverse("battle-detail", args=[battle.pk]), "api_url": reverse("api-battle", args=[battle.pk]),
    }
    if full:
        data.update(
            your_seat=actions.seat_of(user, battle) if user is not None else None,
            moderator=is_moderator(user, battle.campaign) if user is not None else False,
            setup=battle.setup, proposal=battle.proposal, result=battle.result,
            log=[{"kind": e.kind, "text": e.text, "seat": e.seat, "user": e.user.username if e.user else None,
                  "at": e.created_at, "data": e.data}
                 for e in battle.log.select_related("user").order_by("created_at", "id")],
        )
    return data


class BattleSummarySerializer(serializers.Serializer):
    """A battle as ``battle_json(full=False)`` sends it (the campaign's list)."""

    id = serializers.IntegerField()
    campaign = serializers.IntegerField()
    turn = serializers.IntegerField()
    index = serializers.IntegerField(help_text="Its number among the turn's battles.")
    hex = serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2, help_text="[x, y]")
    attacker = serializers.IntegerField(help_text="The invading empire's seat.")
    defender = serializers.IntegerField(help_text="The defending empire's seat.")
    aewa = serializers.BooleanField()
    mode = serializers.ChoiceField(choices=Battle.Mode.choices)
    status = serializers.ChoiceField(choices=Battle.Status.choices)
    status_label = serializers.CharField()
    deadline = serializers.DateTimeField(allow_null=True)
    proposed_by = serializers.IntegerField(allow_null=True, help_text="The seat that entered the proposal.")
    resolved_how = serializers.ChoiceField(choices=Battle.How.choices, allow_null=True)
    settled = serializers.CharField(allow_null=True, help_text="How it was settled, in words; null: not yet.")
    resolved_at = serializers.DateTimeField(allow_null=True)
    url = serializers.CharField(help_text="Its page.")
    api_url = serializers.CharField()


class BattleLogEntrySerializer(serializers.Serializer):
    kind = serializers.CharField()
    text = serializers.CharField(allow_blank=True)
    seat = serializers.IntegerField(allow_null=True)
    user = serializers.CharField(allow_null=True, help_text="Who did it (a username); null: the site.")
    at = serializers.DateTimeField()
    data = serializers.DictField()


class BattleSerializer(BattleSummarySerializer):
    """One battle as ``battle_json`` sends it to a side or the moderator."""

    your_seat = serializers.IntegerField(allow_null=True, help_text="Your side's seat; null: you are no side.")
    moderator = serializers.BooleanField(help_text="Whether you moderate its campaign.")
    setup = serializers.DictField(help_text="Sides, ships with their damage, the hex's terrain and defences.")
    proposal = serializers.JSONField(allow_null=True, help_text="A tabletop result entered, not yet confirmed.")
    result = serializers.JSONField(allow_null=True, help_text="The result applied to the campaign.")
    log = BattleLogEntrySerializer(many=True)


class BattleListSerializer(serializers.Serializer):
    results = BattleSummarySerializer(many=True)


def _object(request) -> dict:
    if not isinstance(request.data, dict):
        raise _Bad("send a JSON object")
    return request.data


class _Bad(Exception):
    pass


def _run(request, battle_id: int, fn, **kwargs) -> Response:
    """Call one action and answer with the battle, or with the action's refusal."""
    try:
        battle = fn(battle_id=battle_id, user=request.user, **kwargs)
    except NotFound as exc:
        return Response({"detail": str(exc)}, status=status.HTTP_404_NOT_FOUND)
    except NotAllowed as exc:
        return Response({"detail": str(exc)}, status=status.HTTP_403_FORBIDDEN)
    except BattleError as exc:
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    battle = Battle.objects.select_related("campaign").get(pk=battle.pk)
    return Response(battle_json(battle, user=request.user))


def _visible_or_404(request, battle_id: int) -> Battle | None:
    return actions.visible_battles(request.user).select_related("campaign").filter(pk=battle_id).first()


def _not_found(battle_id: int) -> Response:
    return Response({"detail": f"there is no battle {battle_id} you can see"}, status=status.HTTP_404_NOT_FOUND)


class CampaignBattles(APIView):
    @extend_schema(operation_id="campaign_battles_list", responses=BattleListSerializer)
    def get(self, request, campaign_id: int):
        campaign = campaign_for(request, campaign_id)
        battles = actions.visible_battles(request.user).filter(campaign=campaign).order_by("-turn", "index")
        return Response({"results": [battle_json(b, full=False) for b in battles]})


class BattleDetail(APIView):
    @extend_schema(operation_id="battle_retrieve", responses=BattleSerializer)
    def get(self, request, battle_id: int):
        battle = _visible_or_404(request, battle_id)
        if battle is None:
            return _not_found(battle_id)
        return Response(battle_json(battle, user=request.user))


class _BattlePost(APIView):
    def post(self, request, battle_id: int):
        if _visible_or_404(request, battle_id) is None:
            return _not_found(battle_id)  # before reading the body: an outsider learns nothing
        try:
            return self.act(request, battle_id, _object(request))
        except _Bad as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)

    def act(self, request, battle_id: int, body: dict) -> Response:  # pragma: no cover - overridden
        raise NotImplementedError


class EnterResult(_BattlePost):
    @extend_schema(operation_id="battle_enter_result", request=OpenApiTypes.OBJECT, responses=BattleSerializer)
    def post(self, request, battle_id: int):
        return super().post(request, battle_id)

    def act(self, request, battle_id, body):
        result = body["result"] if "result" in body and "ships" not in body else body
        return _run(request, battle_id, actions.enter_result, result=result)


class ConfirmResult(_BattlePost):
    @extend_schema(operation_id="battle_confirm_result", request=None, responses=BattleSerializer)
    def post(self, request, battle_id: int):
        return super().post(request, battle_id)

    def act(self, request, battle_id, body):
        return _run(request, battle_id, actions.confirm_result)


class DisputeResult(_BattlePost):
    @extend_schema(operation_id="battle_dispute_result", request=OpenApiTypes.OBJECT, responses=BattleSerializer)
    def post(self, request, battle_id: int):
        return super().post(request, battle_id)

    def act(self, request, battle_id, body):
        reason = body.get("reason", "")
        if not isinstance(reason, str):
            raise _Bad("'reason' must be text")
        return _run(request, battle_id, actions.dispute_result, reason=reason)


class SettleBattle(_BattlePost):
    @extend_schema(operation_id="battle_settle", request=OpenApiTypes.OBJECT, responses=BattleSerializer)
    def post(self, request, battle_id: int):
        return super().post(request, battle_id)

    def act(self, request, battle_id, body):
        unknown = sorted(set(body) - {"result", "auto", "note"})
        if unknown:
            raise _Bad(f"unknown field(s) {', '.join(unknown)}: send 'result', 'auto' or 'note'")
        auto = body.get("auto", False)
        if not isinstance(auto, bool):
            raise _Bad(f"'auto' must be true or false, not {auto!r}")
        note = body.get("note", "")
        if not isinstance(note, str) or len(note) > 500:
            raise _Bad("'note' must be text of at most 500 characters")
        result = body.get("result")
        if auto and result is not None:
            raise _Bad("send either 'result' or 'auto', not both")
        return _run(request, battle_id, actions.settle_battle, result=result, auto=auto, note=note)


class ChangeMode(_BattlePost):
    @extend_schema(operation_id="battle_change_mode", request=OpenApiTypes.OBJECT, responses=BattleSerializer)
    def post(self, request, battle_id: int):
        return super().post(request, battle_id)

    def act(self, request, battle_id, body):
        mode = body.get("mode")
        if not isinstance(mode, str):
            raise _Bad(f"'mode' must be one of {', '.join(Battle.Mode.values)}")
        return _run(request, battle_id, actions.change_mode, mode=mode)


# --- the battle preference (docs/battles.md "Choosing the mode", ruling C17) ----------------------

PREFERENCES = Empire._meta.get_field("battle_preference").choices


class BattlePreferenceSerializer(serializers.Serializer):
    preference = serializers.ChoiceField(
        choices=PREFERENCES, allow_blank=True,
        help_text="How you ask for your battles to be settled: '' (the campaign's mode), 'auto', 'tactical' "
                  "(an embedded battle, played online) or 'tabletop'. Used only if the campaign lets players ask.")


class BattlePreferenceStateSerializer(BattlePreferenceSerializer):
    label = serializers.CharField()
    choices = serializers.ListField(child=serializers.DictField())
    battle_requests = serializers.CharField(
        help_text="Who may ask ('nobody', 'either' or 'both'): nobody (the campaign's mode always), either "
                  "side (a tabletop battle needs "
        "both), both sides asking for the same mode."
    )
    campaign_mode = serializers.CharField(help_text="The campaign's battle mode, used unless a request wins.")


def _preference_json(empire: Empire) -> dict:
    campaign = empire.campaign
    return {"preference": empire.battle_preference, "label": empire.get_battle_preference_display(),
            "choices": [{"value": v, "label": label} for v, label in PREFERENCES],
            "battle_requests": campaign.battle_requests, "campaign_mode": campaign.battle_mode}


class BattlePreference(APIView):
    """Your empire's battle preference in a campaign (the orders page's "Your battles" card)."""

    def _empire(self, request, campaign_id: int) -> Empire:
        campaign = campaign_for(request, campaign_id)  # an outsider: 404
        empire = empire_of(request.user, campaign)
        if empire is None:
            raise NotFoundError("you have no empire in this campaign")
        empire.campaign = campaign
        return empire

    @extend_schema(operation_id="battle_preference_retrieve", responses=BattlePreferenceStateSerializer)
    def get(self, request, campaign_id: int):
        return Response(_preference_json(self._empire(request, campaign_id)))

    @extend_schema(
        operation_id="battle_preference_update", request=BattlePreferenceSerializer,
        responses={200: BattlePreferenceStateSerializer, 400: OpenApiTypes.OBJECT, 404: OpenApiTypes.OBJECT},
        description="Set how you ask for your battles to be settled, before the turn is processed (ruling C17). "
                    "400 names the problem (a preference that is not one of the choices; a campaign that lets "
                    "nobody ask) and changes nothing; 404 if you have no empire in the campaign.")
    def put(self, request, campaign_id: int):
        empire = self._empire(request, campaign_id)
        if not isinstance(request.data, dict) or "preference" not in request.data:
            return Response({"detail": 'send {"preference": ""|"auto"|"tactical"|"tabletop"}'},
                            status=status.HTTP_400_BAD_REQUEST)
        preference = request.data["preference"]
        if not isinstance(preference, str):
            return Response({"detail": f"'preference' must be text, not {preference!r}"},
                            status=status.HTTP_400_BAD_REQUEST)
        try:
            empire = actions.set_battle_preference(empire_id=empire.pk, user=request.user, preference=preference)
        except NotFound as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_404_NOT_FOUND)
        except BattleError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(_preference_json(empire))
