"""CAM what-if API (issue 17, item 5), under /api/what-if/cam/.

    POST what-if/cam/        start a run: a scenario {"campaign": id, "scenario": n} or two catalogue
                             fleets {"period": P, "points": N, "a": {"sds": [key, …]}, "b": {…}}, with
                             "trials" (1–2000, default 200) and "seed" (optional); 201 with the run,
                             400 naming the problem, 403 (an observer; a player before the table is
                             rolled), 404 (a scenario you cannot see), 429 naming the limit
    GET  what-if/cam/{id}/   one of your CAM runs: status, progress, the forces, the result (404 for
                             anyone else's run, or an Event Horizon run)

Thin: ``cam.start_cam_what_if`` checks and queues; ``runs.run_what_if`` plays it. The serializers
below document the bodies in the OpenAPI schema; the action checks the request itself and names
what is wrong.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from tactical.models import WhatIfRun
from tactical.whatif import cam, camtrials, runs
from tactical.whatif.api import created_or_refused, refused


class CatalogueFleet(serializers.Serializer):
    sds = serializers.ListField(child=serializers.CharField(), help_text="SD keys of the CAM catalogue, one per ship.")


class CamWhatIfRequest(serializers.Serializer):
    campaign = serializers.IntegerField(required=False, help_text="A CAM campaign of yours (with scenario).")
    scenario = serializers.IntegerField(required=False, help_text="Its scenario number: its two forces as they stand.")
    period = serializers.IntegerField(required=False, min_value=1, max_value=6,
                                      help_text="Catalogue fleets: the Period (000 1.5).")
    points = serializers.IntegerField(
        required=False, help_text="Catalogue fleets: the most each fleet may cost (CAM 2.2; default 60)."
    )
    a = CatalogueFleet(required=False)
    b = CatalogueFleet(required=False)
    trials = serializers.IntegerField(required=False, min_value=1, max_value=2000, help_text="K battles (default 200).")
    seed = serializers.CharField(required=False, max_length=64, help_text="Repeat a run exactly (random if left out).")


class Rate(serializers.Serializer):
    count = serializers.IntegerField()
    rate = serializers.FloatField()
    low = serializers.FloatField(help_text="Wilson 95 % interval, lower bound")
    high = serializers.FloatField(help_text="Wilson 95 % interval, upper bound")


class Victories(serializers.Serializer):
    minor = serializers.IntegerField()
    major = serializers.IntegerField()
    decisive = serializers.IntegerField()


class SideResult(serializers.Serializer):
    win = Rate()
    loss = Rate()
    mean_points_lost = serializers.FloatField(help_text="CAM points of this side destroyed or captured, per battle")
    victories = Victories(help_text="Battles this side won, by the CAM 3.1 victory scale")


class SidesResult(serializers.Serializer):
    a = SideResult()
    b = SideResult()


class PairInt(serializers.Serializer):
    a = serializers.IntegerField()
    b = serializers.IntegerField()


class PairFloat(serializers.Serializer):
    a = serializers.FloatField()
    b = serializers.FloatField()


class Odds(serializers.Serializer):
    points = PairInt()
    dice = PairInt()
    win = PairFloat(help_text="Exact chance of winning the CAM auto-resolve (ruling CAM26)")
    expected_losses = PairFloat()


class CamResult(serializers.Serializer):
    ruleset = serializers.CharField()
    trials = serializers.IntegerField()
    sides = SidesResult()
    draw = Rate()
    endings = serializers.DictField(child=serializers.IntegerField(),
                                    help_text='"contact broken", "field held", "mutual destruction", "turn cap"')
    mean_turns = serializers.FloatField()
    interval = serializers.CharField()
    odds = Odds()
    seconds = serializers.FloatField()


class Unit(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField()
    points = serializers.IntegerField()
    state = serializers.CharField(help_text="on_table, destroyed or left: as the scenario stood")
    crippled = serializers.BooleanField()


class Force(serializers.Serializer):
    label = serializers.CharField()
    seat = serializers.IntegerField()
    points = serializers.IntegerField()
    units = Unit(many=True)


class Forces(serializers.Serializer):
    a = Force()
    b = Force()


class CamWhatIfRun(serializers.Serializer):
    id = serializers.IntegerField()
    ruleset = serializers.CharField()
    status = serializers.ChoiceField(choices=WhatIfRun.Status.choices)
    done = serializers.IntegerField()
    trials = serializers.IntegerField()
    campaign = serializers.IntegerField(allow_null=True)
    scenario = serializers.IntegerField(allow_null=True)
    period = serializers.IntegerField()
    seed = serializers.CharField()
    url = serializers.CharField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    forces = Forces()
    result = CamResult(allow_null=True)
    error = serializers.CharField()


def forces_json(params: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for side in params.get("sides", []):
        status = side.get("status") or {}
        units = [{"name": u["name"], "kind": u["kind"], "points": u["points"],
                  "state": status.get(u["uid"], {}).get("state", "on_table"),
                  "crippled": bool(status.get(u["uid"], {}).get("crippled"))} for u in side["units"]]
        out[side["key"]] = {"label": side["label"], "seat": side["seat"], "units": units,
                            "points": sum(u["points"] for u in units if u["state"] == "on_table")}
    return out


def run_json(run: WhatIfRun, *, full: bool = True) -> dict[str, Any]:
    p = run.params
    data: dict[str, Any] = {
        "id": run.pk, "ruleset": p.get("ruleset"), "status": run.status, "done": run.done, "trials": run.trials,
        "campaign": run.campaign_id, "scenario": (p.get("source") or {}).get("scenario"), "period": p.get("period"),
        "created_at": run.created_at, "finished_at": run.finished_at,
        "url": reverse("whatif-detail", kwargs={"run_id": run.pk}),
    }
    if full:
        data.update(seed=p.get("seed"), forces=forces_json(p), result=run.result, error=run.error)
    return data


EXAMPLES = [
    OpenApiExample("A scenario", value={"campaign": 7, "scenario": 2, "trials": 200}, request_only=True),
    OpenApiExample("Catalogue fleets", request_only=True, value={
        "period": 2, "points": 60, "trials": 200, "seed": "orion",
        "a": {"sds": ["constitution", "constitution", "firecat"]}, "b": {"sds": ["d7", "d7", "war_talon"]}}),
]


class CamWhatIfCreate(APIView):
    @extend_schema(operation_id="what_if_cam_create", request=CamWhatIfRequest, examples=EXAMPLES,
                   responses=created_or_refused(CamWhatIfRun))
    def post(self, request):
        try:
            run = cam.start_cam_what_if(user=request.user, params=request.data)
        except runs.WhatIfError as exc:
            return refused(exc)  # 429, 404, 403 or 400 (runs.http_status)
        return Response(run_json(run), status=status.HTTP_201_CREATED)


class CamWhatIfDetail(APIView):
    @extend_schema(operation_id="what_if_cam_retrieve", responses={200: CamWhatIfRun})
    def get(self, request, run_id: int):
        qs = runs.runs_of(request.user).filter(params__ruleset=camtrials.RULESET)
        return Response(run_json(get_object_or_404(qs, pk=run_id)))
