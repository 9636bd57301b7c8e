"""Your own API token (DRF), beside ``POST /api/token/`` (username and password: the token).

    account/token/    GET: whether you have a token and when it was made (never the key);
                      POST: a new token, replacing yours (the key is in this answer only);
                      DELETE: revoke it (204; 404 when you have none)

Session or token authentication like the rest of the API; with a token, POST replaces the token
the request came with, so the program must use the answer's key from then on.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import NotFound, Throttled
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from campaign import accounts

from .. import actions

TokenStatus = inline_serializer("TokenStatus", {
    "exists": serializers.BooleanField(help_text="whether you have an API token"),
    "created": serializers.DateTimeField(allow_null=True, help_text="when it was made (null: no token)"),
})
NewToken = inline_serializer("NewToken", {
    "token": serializers.CharField(help_text="the new key: shown in this answer only"),
    "created": serializers.DateTimeField(),
})


class MyToken(APIView):
    @extend_schema(summary="Your API token: whether you have one and when it was made (never the key)",
                   responses=TokenStatus)
    def get(self, request):
        token = Token.objects.filter(user=request.user).only("created").first()
        return Response({"exists": token is not None, "created": token.created if token else None})

    @extend_schema(summary="Make a new API token, replacing yours (the old key stops working at once)",
                   request=None, responses={201: NewToken})
    def post(self, request):
        token = actions.rotate_api_token(user=request.user)
        return Response({"token": token.key, "created": token.created}, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Revoke your API token", request=None, responses={204: None})
    def delete(self, request):
        if not actions.revoke_api_token(user=request.user):
            raise NotFound("you have no API token")
        return Response(status=status.HTTP_204_NO_CONTENT)


class ObtainTokenView(ObtainAuthToken):
    """POST username and password, get the account's API token. Throttled like the log-in page:
    a locked account gets 429 until its hour is over."""

    # DRF's ObtainAuthToken names its own parsers; use the site's (campaign/sanitise.py), so a
    # hostile body to this unauthenticated endpoint is a 400 too.
    parser_classes = api_settings.DEFAULT_PARSER_CLASSES

    def post(self, request, *args, **kwargs):
        data = request.data if hasattr(request.data, "get") else {}
        username = data.get("username")
        if isinstance(username, str) and accounts.is_locked(username):
            raise Throttled(wait=max(1, int(accounts.unlocks_at().timestamp() - accounts.clock())), detail=accounts.lock_message())
        try:
            return super().post(request, *args, **kwargs)
        except DRFValidationError:
            if getattr(request, "login_throttled", False):  # others took the last places meanwhile
                raise Throttled(wait=max(1, int(accounts.unlocks_at().timestamp() - accounts.clock())), detail=accounts.lock_message()) from None
            raise
