"""``GET /api/campaigns/{id}/export/``: the campaign's export (docs/export-format.md; who may:
campaign/exports.py). 404 to outsiders, 403 to a player or observer while the campaign runs."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import exports
from ..actions.errors import NotAllowed
from ..actions.errors import NotFound as ActionNotFound
from .schema import RefusalSerializer


class Export(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT, 403: RefusalSerializer},
                   summary="The campaign as JSON (docs/export-format.md)")
    def get(self, request, campaign_id: int):
        try:
            return Response(exports.for_user(request.user, campaign_id))
        except ActionNotFound:
            raise NotFound("no such campaign") from None
        except NotAllowed as exc:
            raise PermissionDenied(str(exc)) from None
