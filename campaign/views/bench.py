"""Views for bench/http.py, routed only when BENCH_VIEWS is on (config/urls.py), so they do not
exist on a normal site.

- ``bare``: the baseline, the cheapest JSON answer Django gives through the full middleware
  stack, with no database, session or template.
- ``login`` and ``token``: the floor of any page or API call that knows who is asking, reading
  the user from the session (a page) or from an API token (DRF) and nothing else. The map page
  and order submission cannot cost less than these."""

from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.views.decorators.http import require_GET
from rest_framework.response import Response
from rest_framework.views import APIView


@require_GET
def bare(request):
    return JsonResponse({"ok": True})


@login_required
@require_GET
def login(request):
    return JsonResponse({"user": request.user.username})


class TokenView(APIView):
    """GET: the caller's user name (any authentication the API takes)."""

    schema = None  # not part of the API's documentation

    def get(self, request):
        return Response({"user": request.user.username})
