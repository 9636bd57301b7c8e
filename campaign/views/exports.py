"""``/campaigns/{id}/export/``: the campaign's export as a JSON file (campaign/exports.py says who
may download it)."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.views.decorators.http import require_GET

from .. import exports
from ..actions.errors import NotAllowed, NotFound


@login_required
@require_GET
def export_campaign(request, campaign_id: int):
    try:
        data = exports.for_user(request.user, campaign_id)
    except NotFound:
        raise Http404("no such campaign") from None
    except NotAllowed as exc:
        raise PermissionDenied(str(exc)) from None
    response = HttpResponse(exports.as_text(data), content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign_id}.json"'
    return response
