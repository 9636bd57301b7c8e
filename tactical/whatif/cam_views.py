"""CAM what-if pages (issue 17, item 5): K Buoyz battles between two CAM forces — a scenario's, or
two fleets from the CAM catalogue — beside the CAM auto-resolve exact odds.

Thin: the form's fields become a request, ``cam.start_cam_what_if`` checks and queues it (a refusal
comes back on the page with 400/403/404), the run page (``views.whatif_detail``) renders what the
run stored with ``detail_context``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from campaign.rules.cam import ships as sh
from campaign.sanitise import whole_number
from tactical.models import WhatIfRun
from tactical.whatif import cam, camtrials, runs
from tactical.whatif.cam_api import forces_json

_status = runs.http_status


def _sd_keys(text: str) -> list[str]:
    """One SD key per line; "3 x key" (or "3 × key") for several of one SD."""
    keys: list[str] = []
    for line in (text or "").splitlines():
        line = line.strip()
        if not line:
            continue
        head, _, rest = line.replace("×", "x").partition(" x ")
        count = whole_number(head) if rest else None
        if count is not None:
            keys += [rest.strip()] * min(count, cam.MAX_SHIPS + 1)
        else:
            keys.append(line)
    return keys


@login_required
def whatif_cam_new(request):
    data = request.POST if request.method == "POST" else request.GET
    scenario = data.get("scenario") or ""
    context: dict[str, Any] = {
        "scenario": scenario, "campaign_id": data.get("campaign") or "", "error": "", "forces": None,
        "values": {"period": data.get("period") or "", "points": data.get("points") or cam.DEFAULT_POINTS,
                   "a_sds": data.get("a_sds") or "", "b_sds": data.get("b_sds") or "",
                   "trials": data.get("trials") or runs.DEFAULT_TRIALS, "seed": data.get("seed") or ""},
        "periods": range(sh.FIRST_PERIOD, sh.LAST_PERIOD + 1), "max_trials": runs.MAX_TRIALS,
    }
    limits = runs.limits()
    context["runs_at_once"], context["battles_per_day"] = limits
    status = 200
    if scenario:
        try:
            campaign, row, role = cam._scenario(request.user, context["campaign_id"], scenario)
            context["campaign"], context["row"] = campaign, row
            cam.check_scenario(request.user, campaign, row, role)
            context["forces"] = forces_json(cam.scenario_job(campaign, row))
        except runs.WhatIfError as exc:
            context["error"], status = str(exc), _status(exc)
            return render(request, "tactical/whatif_cam_new.html", context, status=status)
    period = context["values"]["period"]
    if whole_number(str(period)) is not None:
        context["catalogue"] = sorted((sd for sd in sh.STARTER_CATALOGUE.values()
                                       if sd.available_in(whole_number(str(period)))),
                                      key=lambda sd: (sd.points, sd.key))
    if request.method == "POST":
        v = context["values"]
        if scenario:
            params = {"campaign": context["campaign_id"], "scenario": scenario}
        else:
            params = {"period": v["period"], "points": v["points"], "a": {"sds": _sd_keys(v["a_sds"])},
                      "b": {"sds": _sd_keys(v["b_sds"])}}
        params.update(trials=v["trials"], seed=v["seed"] or None)
        try:
            run = cam.start_cam_what_if(user=request.user, params=params)
        except runs.WhatIfError as exc:
            context["error"], status = str(exc), _status(exc)
        else:
            return redirect("whatif-detail", run_id=run.pk)
    return render(request, "tactical/whatif_cam_new.html", context, status=status)


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def detail_page(request, run: WhatIfRun):
    """A CAM run's page (its ``Trial.page``; ``views.whatif_detail`` found the run the user may see)."""
    context = {"run": run, "finished": run.status in (WhatIfRun.Status.DONE, WhatIfRun.Status.FAILED),
               "stale_seconds": runs.STALE_SECONDS, **detail_context(run)}
    return render(request, "tactical/whatif_cam_detail.html", context)


def detail_context(run: WhatIfRun) -> dict[str, Any]:
    """The run page of a CAM what-if."""
    forces = forces_json(run.params)
    context: dict[str, Any] = {"forces": [{"key": k, **f} for k, f in sorted(forces.items())],
                               "source": run.params.get("source") or {}}
    r = run.result
    if run.status == WhatIfRun.Status.DONE and r:
        o = r["odds"]
        rows = []
        for key in camtrials.KEYS:
            s = r["sides"][key]
            rows.append({"key": key, "label": forces[key]["label"],
                         "win": f"{_pct(s['win']['rate'])} ({_pct(s['win']['low'])} – {_pct(s['win']['high'])})",
                         "auto": _pct(o["win"][key]), "lost": f"{s['mean_points_lost']:.1f}",
                         "victories": s["victories"], "points": o["points"][key], "dice": o["dice"][key]})
        context.update(rows=rows, draw=f"{_pct(r['draw']['rate'])} ({_pct(r['draw']['low'])} – "
                                       f"{_pct(r['draw']['high'])})",
                       endings=[(name, n) for name, n in r["endings"].items()], result=r)
    return context
