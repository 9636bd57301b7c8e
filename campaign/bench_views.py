"""The baseline view for bench/http.py: the cheapest JSON answer Django gives through the full
middleware stack, with no database, session or template. Routed only when BENCH_VIEWS is on
(config/urls.py), so it does not exist on a normal site."""

from django.http import JsonResponse
from django.views.decorators.http import require_GET


@require_GET
def bare(request):
    return JsonResponse({"ok": True})
