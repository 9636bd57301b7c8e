"""Press in the REST API (thin, like the rest of the API: every look-up starts from what the
caller may read — outsiders get 404 —, each change is one action, a refusal is 400 with its
reason, 403 when the caller may read but not write).

    campaigns/{id}/press/                    GET the conversations (unread counts); POST a message
                                             {"to": "all" | [seats], "text": "…"} or, moderators,
                                             {"announcement": true, "text": "…"}
    campaigns/{id}/press/{conversation}/     GET its messages (marks them read); POST {"text": "…"}
    campaigns/{id}/press/options/            GET; PATCH {"press": bool, "moderator_reads": bool}
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied, Throttled, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from ..actions.errors import ActionError, NotAllowed, TooMany
from ..actions.errors import NotFound as ActionNotFound
from ..api.fields import StrictBooleanField
from ..api.schema import RefusalSerializer
from . import actions, visibility
from .mail import conversation_title
from .models import MAX_TEXT, Conversation, PressMessage


def _reader(request, campaign_id: int) -> visibility.Reader:
    campaign = visibility.campaign_for(request.user, campaign_id)
    if campaign is None:
        raise NotFound("no such campaign")
    return visibility.reader(campaign, request.user)


def _call(action, **kwargs):
    try:
        return action(**kwargs)
    except ActionNotFound as exc:
        raise NotFound(str(exc)) from None
    except NotAllowed as exc:
        raise PermissionDenied(str(exc)) from None
    except TooMany as exc:
        raise Throttled(wait=exc.retry_after, detail=str(exc)) from None
    except ActionError as exc:
        raise ValidationError({"detail": str(exc)}) from None


class PressSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    name = serializers.CharField()


class PressMessageSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="number", help_text="The message's number in its conversation: 1, 2, 3…")
    conversation = serializers.IntegerField(source="conversation.public_id",
                                            help_text="The conversation's id (a random public number).")
    sender_seat = serializers.IntegerField(allow_null=True, help_text="Empty for the moderator's announcements.")
    sender_name = serializers.CharField()
    announcement = serializers.BooleanField()
    text = serializers.CharField()
    turn = serializers.IntegerField()
    via = serializers.ChoiceField(choices=PressMessage.Via.choices)
    created_at = serializers.DateTimeField()


class PressConversationSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="A random public number (not a count of conversations), as in its page's "
                                            "address and its reply addresses.")
    kind = serializers.ChoiceField(choices=Conversation.Kind.choices)
    title = serializers.CharField()
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="Private conversations: their seats.")
    last_message_at = serializers.DateTimeField(allow_null=True)
    unread = serializers.IntegerField()


class PressListSerializer(serializers.Serializer):
    campaign = serializers.IntegerField()
    press = serializers.BooleanField(help_text="Press is on (players may write).")
    moderator_reads = serializers.BooleanField(help_text="Moderators read private press written while this is on.")
    you = serializers.DictField(help_text="Your seat (null if you play none), whether you may write and announce.")
    seats = PressSeatSerializer(many=True)
    conversations = PressConversationSerializer(many=True)


class PressConversationDetailSerializer(PressConversationSerializer):
    may_write = serializers.BooleanField()
    messages = PressMessageSerializer(many=True)


class PressPostSerializer(serializers.Serializer):
    to = serializers.JSONField(required=False, help_text='"all", or a list of seat numbers (yours is added).')
    text = serializers.CharField(max_length=MAX_TEXT, trim_whitespace=False)
    announcement = serializers.BooleanField(required=False, default=False,
                                            help_text="Moderators: an announcement to every seat (no 'to').")


class PressReplySerializer(serializers.Serializer):
    text = serializers.CharField(max_length=MAX_TEXT, trim_whitespace=False)


class PressOptionsSerializer(serializers.Serializer):
    press = StrictBooleanField(required=False)
    moderator_reads = StrictBooleanField(required=False)


def _conversation_json(reader, conversation, unread: int) -> dict:
    return {"id": conversation.public_id, "kind": conversation.kind, "seats": conversation.seat_numbers,
            "title": conversation_title(conversation, reader.all_seats, viewer_seats=reader.seat_numbers),
            "last_message_at": conversation.last_message_at, "unread": unread}


def _message_json(message) -> dict:
    return PressMessageSerializer(message).data


def _valid(serializer_class, request):
    if not isinstance(request.data, dict):
        raise ValidationError({"detail": "send a JSON object"})
    unknown = sorted(set(request.data) - set(serializer_class().fields))
    if unknown:
        raise ValidationError({"detail": f"unknown field(s): {', '.join(unknown)}"})
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


POST_EXAMPLES = [
    OpenApiExample("to two seats", value={"to": [2, 3], "text": "Shall we split the Rim?"}, request_only=True),
    OpenApiExample("to everyone", value={"to": "all", "text": "Peace in our time."}, request_only=True),
    OpenApiExample("announcement", value={"announcement": True, "text": "Turn 4 is extended by a day."},
                   request_only=True),
]


class PressList(APIView):
    """Your press in one campaign: the conversations you may read, newest first, with unread
    counts; POST writes a new message."""

    @extend_schema(operation_id="press_list", responses=PressListSerializer)
    def get(self, request, campaign_id: int):
        reader = _reader(request, campaign_id)
        unread = visibility.unread_counts(reader)
        rows = visibility.conversations(reader).order_by("-last_message_at", "-id")
        return Response({
            "campaign": reader.campaign.pk, "press": visibility.press_on(reader.campaign),
            "moderator_reads": visibility.moderator_reads(reader.campaign),
            "you": {"seat": reader.seat.number if reader.seat else None, "may_write": reader.can_write(),
                    "may_announce": reader.can_announce()},
            "seats": [{"seat": s.number, "name": s.name} for s in reader.all_seats],
            "conversations": [_conversation_json(reader, c, unread.get(c.pk, 0)) for c in rows],
        })

    @extend_schema(operation_id="press_post", request=PressPostSerializer,
                   responses={201: PressMessageSerializer, 429: RefusalSerializer}, examples=POST_EXAMPLES)
    def post(self, request, campaign_id: int):
        reader = _reader(request, campaign_id)
        data = _valid(PressPostSerializer, request)
        if data.get("announcement") and "to" in data:
            raise ValidationError({"to": "an announcement goes to every seat: leave out 'to'"})
        if not data.get("announcement") and "to" not in data:
            raise ValidationError({"to": 'name the recipients: "all" or a list of seat numbers'})
        message = _call(actions.post, campaign_id=reader.campaign.pk, user=request.user, to=data.get("to"),
                        text=data["text"], announcement=data.get("announcement", False), via=PressMessage.Via.API)
        return Response(_message_json(message), status=status.HTTP_201_CREATED)


class PressConversation(APIView):
    """One conversation: the messages you may read, oldest first (reading it marks it read);
    POST answers in it."""

    def _found(self, reader, conversation_id: int):
        found = visibility.conversations(reader).filter(public_id=conversation_id).first()
        if found is None:
            raise NotFound("no such conversation")
        return found

    @extend_schema(operation_id="press_conversation_read", responses=PressConversationDetailSerializer)
    def get(self, request, campaign_id: int, conversation_id: int):
        reader = _reader(request, campaign_id)
        found = self._found(reader, conversation_id)
        shown = list(visibility.messages(reader, found))
        if shown:
            actions.mark_read(campaign_id=reader.campaign.pk, conversation_id=found.pk, user=request.user,
                              up_to=max(m.number for m in shown))
        for m in shown:
            m.conversation = found  # the serializer names it by its public id, without a query each
        return Response({**_conversation_json(reader, found, 0), "may_write": actions.may_write(reader, found),
                         "messages": [_message_json(m) for m in shown]})

    @extend_schema(operation_id="press_conversation_reply", request=PressReplySerializer,
                   responses={201: PressMessageSerializer, 429: RefusalSerializer},
                   examples=[OpenApiExample("reply", value={"text": "Agreed: you take the north."}, request_only=True)])
    def post(self, request, campaign_id: int, conversation_id: int):
        reader = _reader(request, campaign_id)
        found = self._found(reader, conversation_id)
        data = _valid(PressReplySerializer, request)
        message = _call(actions.reply, campaign_id=reader.campaign.pk, conversation_id=found.pk, user=request.user,
                        text=data["text"], via=PressMessage.Via.API)
        return Response(_message_json(message), status=status.HTTP_201_CREATED)


class PressOptions(APIView):
    """The campaign's press options; PATCH (moderators) switches them."""

    def _state(self, campaign) -> dict:
        return {"press": visibility.press_on(campaign), "moderator_reads": visibility.moderator_reads(campaign)}

    @extend_schema(operation_id="press_options_read", responses=PressOptionsSerializer)
    def get(self, request, campaign_id: int):
        return Response(self._state(_reader(request, campaign_id).campaign))

    @extend_schema(operation_id="press_options_update", request=PressOptionsSerializer,
                   responses=PressOptionsSerializer,
                   examples=[OpenApiExample("switch", value={"press": True, "moderator_reads": False},
                                            request_only=True)])
    def patch(self, request, campaign_id: int):
        reader = _reader(request, campaign_id)
        data = _valid(PressOptionsSerializer, request)
        campaign = _call(actions.set_press_options, campaign_id=reader.campaign.pk, user=request.user, **data)
        return Response(self._state(campaign))
