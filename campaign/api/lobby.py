"""The lobby's REST API (DRF). Thin like the rest of the API: every look-up starts from the
campaigns the caller belongs to (an outsider gets 404), input is checked, one action is called.
A refused action answers 400 with ``detail`` naming the problem; a member without the right role
gets 403.

Endpoints (all under /api/):
    lobby/                                 GET campaigns in the lobby you belong to; POST create one
                                           ({"layer": key} picks a campaign layer other than the first
                                           registered; its lobby form checks the body)
    lobby/{id}/                            a campaign's lobby: settings, members (moderators: the link)
    lobby/join/                            POST {token, role, empire_name, faction, colour}: join
    campaigns/{id}/players/                the members: moderators, players (seat once started), observers
    campaigns/{id}/players/{member}/       DELETE: remove a member before the start (moderator, or yourself)
    campaigns/{id}/moderators/             POST {username}: add a co-moderator (moderator)
    campaigns/{id}/invitations/            GET the emailed invitations; POST {email}: invite (moderator)
    campaigns/{id}/invite-link/            GET the link; PUT {enabled, regenerate} (moderator)
    campaigns/{id}/start/                  POST: start the campaign (moderator)
"""

from __future__ import annotations

from django import forms
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, PermissionDenied, Throttled
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import actions, layers
from ..access import is_moderator, visible_campaigns
from ..actions.errors import TooMany
from ..models import GRID_CHOICES, Campaign, Invitation, Membership
from .schema import RefusalSerializer


def _campaign(request, campaign_id: int) -> Campaign:
    campaign = visible_campaigns(request.user).filter(layer__in=layers.having("lobby"), pk=campaign_id).first()
    if campaign is None:
        raise NotFound("no such campaign")
    return campaign


def _moderated(request, campaign_id: int, doing: str) -> Campaign:
    campaign = _campaign(request, campaign_id)
    if not is_moderator(request.user, campaign):
        raise PermissionDenied(f"only the campaign's moderators can {doing}")
    return campaign


def _call(action, **kwargs):
    """Run an action; a refusal becomes 404, 403 or 400 with the action's message."""
    try:
        return action(**kwargs)
    except actions.NotFound as exc:
        raise NotFound(str(exc)) from None
    except actions.NotAllowed as exc:
        raise PermissionDenied(str(exc)) from None
    except TooMany as exc:
        raise Throttled(wait=exc.retry_after, detail=str(exc)) from None
    except actions.ActionError as exc:
        raise BadRequest(str(exc)) from None


class BadRequest(APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_detail = "bad request"
    default_code = "invalid"


def _bad_input(serializer) -> Response:
    errors = serializer.errors
    first = next(iter(errors.items()))
    field, problems = first
    message = problems[0] if isinstance(problems, list) and problems else problems
    return Response({"detail": f"{field}: {message}", "errors": errors}, status=status.HTTP_400_BAD_REQUEST)


# A refusal: {"detail": why}; a body that does not pass its serializer has the field's problems too.
REFUSED = inline_serializer("LobbyRefusal", {
    "detail": serializers.CharField(help_text="What is wrong, in words (for bad input: the first field's problem)."),
    "errors": serializers.DictField(child=serializers.JSONField(), required=False,
                                    help_text="Bad input: every field's problems."),
})


def refusals(ok, *codes: int, created: bool = False) -> dict:
    """An endpoint's responses: ``ok`` on success (201 when it creates), ``REFUSED`` for 400 and
    ``Refusal`` for each other of ``codes`` (403 a role that may not, 404 no such object for the
    caller, 429 over a rate limit)."""
    return {201 if created else 200: ok, **{code: REFUSED if code == 400 else RefusalSerializer for code in codes}}


class MemberSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)
    seat = serializers.SerializerMethodField()

    class Meta:
        model = Membership
        fields = ["id", "username", "role", "empire_name", "faction", "colour", "seat", "joined_at"]

    def get_seat(self, membership) -> int | None:
        return membership.empire.seat if membership.empire_id else None


class LobbySerializer(serializers.ModelSerializer):
    moderator = serializers.CharField(source="moderator.username", read_only=True, default=None)
    players = serializers.SerializerMethodField()

    class Meta:
        model = Campaign
        fields = [
            "id",
            "name",
            "layer",
            "status",
            "grid",
            "width",
            "height",
            "seats",
            "players",
            "turn_hours",
            "setup_hours",
            "battle_mode",
            "battle_requests",
            "battle_hours",
            "activation_hours",
            "deployment",
            "fog_of_war",
            "detection_range",
            "missed_turn_limit",
            "options",
            "seed_hash",
            "moderator",
            "listed",
            "show_ready",
            "created_at",
        ]

    def get_players(self, campaign) -> int:
        return campaign.memberships.filter(Membership.seated()).count()


class LobbyCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120)
    grid = serializers.ChoiceField(choices=GRID_CHOICES, default="hex")
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    seats = serializers.IntegerField()
    options = serializers.DictField(required=False, default=dict)
    turn_hours = serializers.IntegerField(default=72)
    setup_hours = serializers.IntegerField(default=72)
    battle_mode = serializers.ChoiceField(choices=Campaign.BattleMode.choices, default=Campaign.BattleMode.AUTO)
    battle_requests = serializers.ChoiceField(choices=["nobody", "either", "both"], default="either")
    battle_hours = serializers.IntegerField(default=48)
    activation_hours = serializers.IntegerField(default=24)
    deployment = serializers.ChoiceField(choices=Campaign.Deployment.choices, default=Campaign.Deployment.AUTOMATIC)
    fog_of_war = serializers.BooleanField(default=True)
    detection_range = serializers.IntegerField(default=2)
    missed_turn_limit = serializers.IntegerField(default=3)
    seed = serializers.CharField(required=False, allow_blank=True, default="", max_length=actions.SEED_MAX_LENGTH)
    listed = serializers.BooleanField(
        default=False, help_text="List it among the open campaigns on every user's home page."
    )
    show_ready = serializers.BooleanField(default=True, help_text="Players see which empires are ready.")
    play = serializers.DictField(
        required=False, allow_null=True, default=None,
        help_text="\"I'll play too\": {\"empire_name\": …, \"colour\": \"#rrggbb\", \"faction\": …} seats you as "
        "well as moderating (rulings L6); left out, you moderate without a seat.")


def _lobby_data(request, campaign: Campaign) -> dict:
    data = LobbySerializer(campaign).data
    data["members"] = MemberSerializer(
        campaign.memberships.select_related("user", "empire").order_by("joined_at", "id"), many=True
    ).data
    if is_moderator(request.user, campaign):
        data["invite_token"] = campaign.invite_token or None
        data["invite_url"] = actions.invitation_url(campaign.invite_token) if campaign.invite_token else None
    return data


# Bad input to the default layer's create is a refusal; another layer's lobby form answers it in the
# form's own shape (``_create_other``): each field named → its problems.
CREATE_REFUSED = {"oneOf": [
    {"type": "object", "properties": {"detail": {"type": "string"}, "errors": {"type": "object"}},
     "required": ["detail"]},
    {"type": "object", "description": "Another layer's lobby form: each field → its problems ({message, code}, or "
                                      "text).", "additionalProperties": {"type": "array", "items": {}}},
]}


class LobbyList(ListAPIView):
    """Campaigns in the lobby that you belong to; POST opens a new one with you as moderator."""

    serializer_class = LobbySerializer

    def get_queryset(self):
        return visible_campaigns(self.request.user).filter(status=Campaign.Status.SETUP).order_by("-created_at", "-id")

    @extend_schema(request=LobbyCreateSerializer, responses={201: LobbySerializer, 400: CREATE_REFUSED,
                                                             403: RefusalSerializer})
    def post(self, request):
        key = request.data.get("layer") if isinstance(request.data, dict) else None
        if key is not None and key != layers.default().key:
            return self._create_other(request, key)
        serializer = LobbyCreateSerializer(data=request.data)
        if not serializer.is_valid():
            return _bad_input(serializer)
        campaign = _call(layers.default().create_lobby, moderator=request.user, **serializer.validated_data)
        return Response(_lobby_data(request, campaign), status=status.HTTP_201_CREATED)

    def _create_other(self, request, key):
        """Another layer's campaign: its lobby form (the create page's) checks the body."""
        if key not in layers.having("lobby"):
            return Response({"layer": [f"one of {', '.join(layers.having('lobby'))}, not {key!r}"]},
                            status=status.HTTP_400_BAD_REQUEST)
        layer = layers.get(key)
        data = {k: v for k, v in request.data.items() if k != "layer"}
        form = layer.lobby_form(data=data)
        wrong = _wrong_types(form, data, layer.options)
        if wrong:
            return Response(wrong, status=status.HTTP_400_BAD_REQUEST)
        if not form.is_valid():
            return Response(form.errors.get_json_data(), status=status.HTTP_400_BAD_REQUEST)
        campaign = _call(layer.create_lobby, moderator=request.user, **form.action_kwargs())
        return Response(_lobby_data(request, campaign), status=status.HTTP_201_CREATED)


def _wrong_types(form, data: dict, options=frozenset()) -> dict:
    """A page's form fed with JSON reads anything as text ([1] as "[1]") and anything truthy as
    true: each field's value must be of its own JSON type (a number may come as text, as from the
    page). Null is a field left out, except for a rule option (``options``, the layer record's):
    the default layer's lobby, the moderation panel and every import refuse a null option, so this
    one does too rather than reading it as the default. The refusals in the form's own error shape."""
    wrong = {}
    for key, value in data.items():
        field = form.fields.get(key)
        if field is None or (value is None and key not in options):
            continue
        if isinstance(field, forms.BooleanField):
            kind, ok = "true or false", isinstance(value, bool)
        elif isinstance(field, forms.IntegerField):
            kind, ok = "a whole number", isinstance(value, (int, str)) and not isinstance(value, bool)
        elif isinstance(field, (forms.CharField, forms.ChoiceField)):
            kind, ok = "text", isinstance(value, str)
        else:
            kind, ok = "a single value", not isinstance(value, (list, dict))
        if not ok:
            wrong[key] = [{"message": f"{key} is {kind}, not {value!r}"[:200], "code": "invalid"}]
    return wrong


class LobbyDetail(APIView):
    @extend_schema(responses=LobbySerializer)
    def get(self, request, campaign_id: int):
        return Response(_lobby_data(request, _campaign(request, campaign_id)))


class JoinSerializer(serializers.Serializer):
    token = serializers.CharField()
    role = serializers.ChoiceField(choices=[Membership.Role.PLAYER, Membership.Role.OBSERVER],
                                   default=Membership.Role.PLAYER)
    empire_name = serializers.CharField(required=False, allow_blank=True, default="", max_length=80)
    faction = serializers.CharField(required=False, allow_blank=True, default="", max_length=80)
    colour = serializers.CharField(required=False, allow_blank=True, default="", max_length=7)


class Join(APIView):
    """Join a campaign in the lobby with its invitation link's token or an emailed invitation's."""

    @extend_schema(request=JoinSerializer, responses=refusals(MemberSerializer, 400, 403, 404, created=True),
                   description="404: no such invitation (the link is wrong, switched off or already used).")
    def post(self, request):
        serializer = JoinSerializer(data=request.data)
        if not serializer.is_valid():
            return _bad_input(serializer)
        membership = _call(actions.join_campaign, user=request.user, **serializer.validated_data)
        return Response(MemberSerializer(membership).data, status=status.HTTP_201_CREATED)


class PlayerSerializer(MemberSerializer):
    """A row of the players list (its schema only: ``Players.list`` builds the rows)."""

    id = serializers.IntegerField(allow_null=True, read_only=True,
                                  help_text="The membership; null for a seat given outside the lobby.")
    joined_at = serializers.DateTimeField(allow_null=True, read_only=True)

    class Meta(MemberSerializer.Meta):
        ref_name = "Player"


class Players(ListAPIView):
    """The campaign's members; players show their seat once the campaign has started. Seats given
    to a user outside the lobby (the command line, the admin) are listed as players too, with
    ``id`` and ``joined_at`` null (no membership to remove)."""

    serializer_class = PlayerSerializer  # the schema's: the rows are built by list()

    def get_queryset(self):
        campaign = _campaign(self.request, self.kwargs["campaign_id"])
        return campaign.memberships.select_related("user", "empire").order_by("joined_at", "id")

    def list(self, request, *args, **kwargs):
        members = list(self.get_queryset())
        campaign = _campaign(request, self.kwargs["campaign_id"])
        empires = list(campaign.empires.filter(user__isnull=False).select_related("user").order_by("seat"))
        seat_of = {e.user_id: e.seat for e in empires}
        rows = []
        for row, member in zip(MemberSerializer(members, many=True).data, members, strict=True):
            if row["seat"] is None and member.role == Membership.Role.PLAYER:
                row["seat"] = seat_of.get(member.user_id)
            rows.append(row)
        listed = {m.user_id for m in members}
        rows += [
            {"id": None, "username": e.user.username, "role": Membership.Role.PLAYER, "empire_name": e.name,
             "faction": e.faction, "colour": e.colour, "seat": e.seat, "joined_at": None}
            for e in empires if e.user_id not in listed
        ]
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(page)


class PlayerDetail(APIView):
    @extend_schema(responses={204: None, 400: REFUSED, 403: RefusalSerializer})
    def delete(self, request, campaign_id: int, membership_id: int):
        campaign = _campaign(request, campaign_id)
        _call(actions.remove_member, campaign_id=campaign.pk, user=request.user, membership_id=membership_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class UsernameSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)


class Moderators(APIView):
    @extend_schema(request=UsernameSerializer, responses=refusals(MemberSerializer, 400, 403, created=True))
    def post(self, request, campaign_id: int):
        campaign = _moderated(request, campaign_id, "add moderators")
        serializer = UsernameSerializer(data=request.data)
        if not serializer.is_valid():
            return _bad_input(serializer)
        membership = _call(actions.add_moderator, campaign_id=campaign.pk, user=request.user,
                           username=serializer.validated_data["username"])
        return Response(MemberSerializer(membership).data, status=status.HTTP_201_CREATED)


class InvitationSerializer(serializers.ModelSerializer):
    invited_by = serializers.CharField(source="invited_by.username", read_only=True, default=None, allow_null=True,
                                       help_text="Null once the account that invited is gone.")
    accepted_by = serializers.CharField(source="accepted_by.username", read_only=True, default=None,
                                        allow_null=True, help_text="Null until someone joins with it.")

    class Meta:
        model = Invitation
        fields = ["id", "email", "invited_by", "created_at", "accepted_by", "accepted_at"]


class EmailSerializer(serializers.Serializer):
    email = serializers.EmailField()


class Invitations(ListAPIView):
    """The campaign's emailed invitations (moderators); POST {email} sends one."""

    serializer_class = InvitationSerializer

    def get_queryset(self):
        campaign = _moderated(self.request, self.kwargs["campaign_id"], "see the invitations")
        return campaign.invitations.select_related("invited_by", "accepted_by").order_by("-created_at", "-id")

    @extend_schema(responses=refusals(InvitationSerializer(many=True), 403))
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(request=EmailSerializer, responses=refusals(InvitationSerializer, 400, 403, 429, created=True))
    def post(self, request, campaign_id: int):
        campaign = _moderated(request, campaign_id, "invite players")
        serializer = EmailSerializer(data=request.data)
        if not serializer.is_valid():
            return _bad_input(serializer)
        invitation = _call(actions.invite_by_email, campaign_id=campaign.pk, user=request.user,
                           email=serializer.validated_data["email"])
        return Response(InvitationSerializer(invitation).data, status=status.HTTP_201_CREATED)


class InviteLinkSerializer(serializers.Serializer):
    enabled = serializers.BooleanField()
    regenerate = serializers.BooleanField(default=False)
    listed = serializers.BooleanField(
        required=False, help_text="List the campaign among the open campaigns (it is joined through this link); "
        "a link switched off takes it off the list.")


class InviteLinkOut(serializers.Serializer):
    enabled = serializers.BooleanField()
    listed = serializers.BooleanField()
    invite_token = serializers.CharField(allow_null=True)
    invite_url = serializers.CharField(allow_null=True)


def _link(campaign: Campaign) -> dict:
    token = campaign.invite_token or None
    return {"enabled": bool(token), "listed": campaign.listed, "invite_token": token,
            "invite_url": actions.invitation_url(token) if token else None}


class InviteLink(APIView):
    """The campaign's invitation link (moderators): anyone with it can join while it is on."""

    @extend_schema(responses=refusals(InviteLinkOut, 403))
    def get(self, request, campaign_id: int):
        return Response(_link(_moderated(request, campaign_id, "see the invitation link")))

    @extend_schema(request=InviteLinkSerializer, responses=refusals(InviteLinkOut, 400, 403))
    def put(self, request, campaign_id: int):
        campaign = _moderated(request, campaign_id, "change the invitation link")
        serializer = InviteLinkSerializer(data=request.data)
        if not serializer.is_valid():
            return _bad_input(serializer)
        data = dict(serializer.validated_data)
        listed = data.pop("listed", None)
        campaign = _call(actions.set_invite_link, campaign_id=campaign.pk, user=request.user, **data)
        if listed is not None and (campaign.invite_token or not listed):
            campaign = _call(actions.set_listing, campaign_id=campaign.pk, user=request.user, listed=listed)
        return Response(_link(campaign))


class Start(APIView):
    @extend_schema(request=None, responses=refusals(LobbySerializer, 400, 403))
    def post(self, request, campaign_id: int):
        campaign = _moderated(request, campaign_id, "start the campaign")
        campaign = _call(actions.start_campaign, campaign_id=campaign.pk, user=request.user)
        return Response(_lobby_data(request, campaign))
