"""What-if API (issue 5, item 6), under /api/what-if/.

    POST what-if/        start a run: {"campaign": id or null, "trials": K (1–2000, default 200),
                         "seed": text (optional), "a": {"fleet": number} or {"ships": [{"design": id,
                         "count": n}, …]}, "b": likewise}; 201 with the run's id, 400 naming the problem,
                         429 naming the limit (WHATIF_RUNS_AT_ONCE, WHATIF_BATTLES_PER_DAY)
    GET  what-if/        your runs, newest first
    GET  what-if/{id}/   one of your runs: status, done, trials, the fleets, the result; others get 404
    POST what-if/book/{book}/   a run of any rule book without its own what-if (tactical/whatif/books.py):
                         {"points": n, "trials": K, "seed": text, "forces": {"1": [ship key, …], "2": […]}};
                         201, 400 naming the problem, 404 for a book not offered, 429 naming the limit
    POST what-if/converted/   a battle of a campaign whose battles are fought on another rule book, on that
                         book (tactical/whatif/converted.py): {"battle": id} or {"campaign": id, "scenario": n},
                         "trials", "seed"; 201, 400, 403 (a CAM observer; a player before the table is
                         rolled), 404 (a battle or scenario you cannot see), 429 naming the limit

Thin: ``whatif.start_what_if`` checks and queues; the run is played by the ``run_what_if`` task.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from campaign.api.schema import RefusalSerializer
from tactical.models import WhatIfRun
from tactical.rules.kit.trial import load
from tactical.whatif import books, converted
from tactical.whatif import runs as whatif
from tactical.whatif.pool import trial_of


def refused(exc: whatif.WhatIfError) -> Response:
    """A refused request: its reason, with 429 / 404 / 403 / 400 (``runs.http_status``)."""
    return Response({"detail": str(exc)}, status=whatif.http_status(exc))


def created_or_refused(made) -> dict:
    """What a "start a run" operation answers, for its schema: 201 with the run (``made``), or
    ``refused``'s reason."""
    return {201: made, **{code: RefusalSerializer for code in (400, 403, 404, 429)}}


class WhatIfRunSummary(serializers.Serializer):
    """What every kind of run shows of itself in a list; each kind adds keys of its own (``book``,
    ``ruleset``, ``scenario``, ``period``, ``kind``, ``layer``, ``source``: its ``Trial.api``)."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=WhatIfRun.Status.choices)
    done = serializers.IntegerField(help_text="Battles fought so far.")
    trials = serializers.IntegerField(help_text="Battles to fight.")
    campaign = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    url = serializers.CharField(help_text="Its page.")


class WhatIfRunList(serializers.Serializer):
    results = WhatIfRunSummary(many=True)


class WhatIfRunAny(WhatIfRunSummary):
    """One run, of any kind: what every kind shows, and its kind's own keys (the fleets or forces,
    ``win_rates``…)."""

    seed = serializers.CharField()
    result = serializers.JSONField(allow_null=True, help_text="The tally; null until the run is done.")
    error = serializers.CharField(allow_blank=True, help_text="Why the run failed; empty: it did not.")


class WhatIfShip(serializers.Serializer):
    design_id = serializers.IntegerField(allow_null=True)
    design_name = serializers.CharField(allow_null=True)
    ship_type = serializers.CharField(allow_null=True)
    bp = serializers.IntegerField(allow_null=True)
    hero_crew = serializers.BooleanField(allow_null=True)
    stand_in = serializers.BooleanField(allow_null=True)


class WhatIfFleet(serializers.Serializer):
    label = serializers.CharField()
    source = serializers.CharField()
    fleet = serializers.IntegerField(allow_null=True, help_text="The campaign fleet's number; null: ships listed.")
    ships = WhatIfShip(many=True)


class EventHorizonWhatIfRun(WhatIfRunAny):
    """An Event Horizon run (``eventhorizon_json``)."""

    fleets = serializers.DictField(child=WhatIfFleet(), help_text="\"a\" and \"b\" → the fleet.")


def run_json(run: WhatIfRun, *, full: bool = True) -> dict[str, Any]:
    """A run as the API shows it: its kind's own view (``Trial.api``: Event Horizon's below, the CAM
    what-if's in cam_api.py), else the generic one of any book (``books.run_json``)."""
    trial = trial_of(whatif.kind_of(run.params))
    return load(trial.api or "tactical.whatif.books:run_json")(run, full=full)


def eventhorizon_json(run: WhatIfRun, *, full: bool = True) -> dict[str, Any]:
    """An Event Horizon run as the API shows it (its ``Trial.api``)."""
    data: dict[str, Any] = {
        "id": run.pk, "status": run.status, "done": run.done, "trials": run.trials,
        "campaign": run.campaign_id, "created_at": run.created_at, "finished_at": run.finished_at,
        "url": reverse("whatif-detail", kwargs={"run_id": run.pk}),
    }
    if full:
        data.update(
            seed=run.params.get("seed"),
            fleets={side["key"]: {"label": side["label"], "source": side["source"], "fleet": side.get("fleet"),
                                  "ships": [{k: s.get(k) for k in ("design_id", "design_name", "ship_type", "bp",
                                                                   "hero_crew", "stand_in")} for s in side["ships"]]}
                    for side in run.params.get("sides", [])},
            result=run.result, error=run.error,
        )
    return data


class WhatIfList(APIView):
    @extend_schema(operation_id="what_if_list", responses=WhatIfRunList)
    def get(self, request):
        runs = whatif.runs_of(request.user)[:100]
        return Response({"results": [run_json(r, full=False) for r in runs]})

    @extend_schema(operation_id="what_if_create", request=OpenApiTypes.OBJECT,
                   responses=created_or_refused(EventHorizonWhatIfRun))
    def post(self, request):
        try:
            run = whatif.start_what_if(user=request.user, params=request.data)
        except whatif.WhatIfError as exc:
            return refused(exc)
        return Response(run_json(run), status=status.HTTP_201_CREATED)


class WhatIfDetail(APIView):
    @extend_schema(operation_id="what_if_retrieve", responses=WhatIfRunAny)
    def get(self, request, run_id: int):
        return Response(run_json(get_object_or_404(whatif.runs_of(request.user), pk=run_id)))


class BookWhatIfCreate(APIView):
    @extend_schema(operation_id="what_if_book_create", request=OpenApiTypes.OBJECT,
                   responses=created_or_refused(WhatIfRunAny))
    def post(self, request, book: str):
        try:
            run = books.start_book_what_if(user=request.user, book=book, params=request.data)
        except whatif.WhatIfError as exc:
            return refused(exc)
        return Response(run_json(run), status=status.HTTP_201_CREATED)


class ConvertedWhatIfCreate(APIView):
    @extend_schema(operation_id="what_if_converted_create", request=OpenApiTypes.OBJECT,
                   responses=created_or_refused(WhatIfRunAny))
    def post(self, request):
        try:
            run = converted.start_converted_what_if(user=request.user, params=request.data)
        except whatif.WhatIfError as exc:
            return refused(exc)
        return Response(run_json(run), status=status.HTTP_201_CREATED)
