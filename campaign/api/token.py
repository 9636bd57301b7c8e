"""Your own API tokens, beside ``POST /api/token/`` (username and password: a new token).

    account/tokens/       GET: your tokens (name, first characters, made, last used, expiry;
                          never a key); POST {"name"}: a new token (the key is in this answer only)
    account/tokens/{id}/  DELETE: revoke that token
    account/token/        the one-token view of the same: GET whether you have one and when the
                          newest was made; POST replaces all your tokens with one new one;
                          DELETE revokes them all (404 when you have none)

Keys are stored as digests (campaign/apitokens.py). Session or token authentication like the rest
of the API; with a token, POST to account/token/ replaces the token the request came with.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.exceptions import NotFound, Throttled
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from campaign import accounts

from .. import actions, apitokens
from .schema import FIELD_REFUSAL, VALIDATION_ERRORS, RefusalSerializer

TokenStatus = inline_serializer("TokenStatus", {
    "exists": serializers.BooleanField(help_text="whether you have an API token"),
    "created": serializers.DateTimeField(allow_null=True, help_text="when it was made (null: no token)"),
})
NewToken = inline_serializer("NewToken", {
    "token": serializers.CharField(help_text="the new key: shown in this answer only"),
    "created": serializers.DateTimeField(),
})


TokenInfo = inline_serializer("TokenInfo", many=True, fields={
    "id": serializers.IntegerField(),
    "name": serializers.CharField(),
    "prefix": serializers.CharField(help_text="the key's first characters"),
    "created": serializers.DateTimeField(),
    "last_used": serializers.DateTimeField(allow_null=True),
    "expires": serializers.DateTimeField(allow_null=True, help_text="when it stops working unless used"),
})
NewNamedToken = inline_serializer("NewNamedToken", {
    "id": serializers.IntegerField(),
    "name": serializers.CharField(),
    "token": serializers.CharField(help_text="the new key: shown in this answer only"),
    "created": serializers.DateTimeField(),
})
TokenName = inline_serializer("TokenName", {"name": serializers.CharField(required=False, max_length=100)})


def _info(token) -> dict:
    return {"id": token.pk, "name": token.name, "prefix": token.prefix, "created": token.created,
            "last_used": token.last_used, "expires": apitokens.expires_at(token)}


def _made(token, key) -> Response:
    return Response({"id": token.pk, "name": token.name, "token": key, "created": token.created},
                    status=status.HTTP_201_CREATED)


class MyToken(APIView):
    @extend_schema(summary="Your API tokens as one: whether you have one and when the newest was made (never a key)",
                   responses=TokenStatus)
    def get(self, request):
        token = request.user.api_tokens.only("created").first()
        return Response({"exists": token is not None, "created": token.created if token else None})

    @extend_schema(summary="Make a new API token, replacing all yours (the old keys stop working at once)",
                   request=None, responses={201: NewToken})
    def post(self, request):
        token, key = actions.rotate_api_token(user=request.user)
        return Response({"token": key, "created": token.created}, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Revoke all your API tokens", request=None,
                   responses={204: None, 404: RefusalSerializer})
    def delete(self, request):
        if not actions.revoke_api_token(user=request.user):
            raise NotFound("you have no API token")
        return Response(status=status.HTTP_204_NO_CONTENT)


class MyTokens(APIView):
    @extend_schema(summary="Your API tokens (never their keys)", responses=TokenInfo)
    def get(self, request):
        return Response([_info(t) for t in request.user.api_tokens.all()])

    @extend_schema(summary="Make a new API token beside yours (the key is in this answer only)",
                   request=TokenName, responses={201: NewNamedToken, 400: FIELD_REFUSAL})
    def post(self, request):
        name = request.data.get("name", "") if hasattr(request.data, "get") else None
        if not isinstance(name, str):
            raise DRFValidationError({"name": "a token's name is text"})
        try:
            token, key = actions.create_api_token(user=request.user, name=name)
        except actions.ActionError as exc:
            raise DRFValidationError({"name": str(exc)}) from None
        return _made(token, key)


class MyTokenDetail(APIView):
    @extend_schema(summary="Revoke one of your API tokens", request=None, responses={204: None})
    def delete(self, request, token_id: int):
        if not actions.revoke_api_token(user=request.user, token_id=token_id):
            raise NotFound("you have no such token")
        return Response(status=status.HTTP_204_NO_CONTENT)


class ObtainTokenView(APIView):
    """POST username and password, get a new API token (named "obtained with a password"; the
    site keeps only its digest, so an existing key cannot be handed out again). Throttled like the
    log-in page: a locked account gets 429 until its hour is over."""

    # The site's parsers (campaign/sanitise.py), so a hostile body to this unauthenticated
    # endpoint is a 400 too.
    parser_classes = api_settings.DEFAULT_PARSER_CLASSES
    permission_classes = [AllowAny]
    authentication_classes: list = []
    serializer_class = AuthTokenSerializer

    @extend_schema(summary="Log in with a username and password: a new API token", request=AuthTokenSerializer,
                   responses={200: NewNamedToken, 400: VALIDATION_ERRORS, 429: RefusalSerializer})
    def post(self, request, *args, **kwargs):
        data = request.data if hasattr(request.data, "get") else {}
        username = data.get("username")
        if isinstance(username, str) and accounts.is_locked(username):
            raise Throttled(
                wait=max(1, int(accounts.unlocks_at().timestamp() - accounts.clock())),
                detail=accounts.lock_message(),
            )
        try:
            serializer = AuthTokenSerializer(data=request.data, context={"request": request})
            serializer.is_valid(raise_exception=True)
        except DRFValidationError:
            if getattr(request, "login_throttled", False):  # others took the last places meanwhile
                raise Throttled(
                    wait=max(1, int(accounts.unlocks_at().timestamp() - accounts.clock())),
                    detail=accounts.lock_message(),
                ) from None
            raise
        token, key = actions.create_api_token(user=serializer.validated_data["user"], name="obtained with a password")
        response = _made(token, key)
        response.status_code = status.HTTP_200_OK
        return response
