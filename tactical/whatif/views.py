"""What-if pages (issue 5, item 6): pick two fleets, run K simulated battles in the background,
watch the progress bar, read the results beside the auto-resolve exact odds.

Thin: the form turns the page's fields into a request, ``whatif.start_what_if`` checks and
queues it (a refusal comes back as a form error), the run page renders what the run stored. Only
a run's owner sees it; anyone else gets 404.
"""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from campaign.access import visible_campaigns
from campaign.eventhorizon import visibility
from campaign.sanitise import whole_number
from tactical.models import WhatIfRun
from tactical.rules.kit.trial import load
from tactical.whatif import books
from tactical.whatif import runs as whatif
from tactical.whatif.pool import trial_of

FREE_ROWS = 4  # design rows per free fleet on the page (the API takes any number)


def _fleet_choices(user, campaign) -> list[tuple[str, str]]:
    view = visibility.view_for(campaign, visibility.viewer_for(user, campaign))
    names = {e.seat: e.name for e in view.seen.empires}
    choices = [("", "— none: build this fleet freely below —")]
    for row in visibility.fleets_json(campaign, view):
        owner = names.get(row["owner"], f"seat {row['owner']}")
        mine = " (yours)" if row["owner"] == view.viewer.seat else ""
        choices.append((str(row["number"]), f"Fleet {row['number']} — {owner}{mine} — {row['types'] or 'no ships'} "
                                            f"at ({row['x']}, {row['y']})"))
    return choices


class WhatIfForm(forms.Form):
    """Two fleets (a campaign fleet, or rows of design × count), the number of battles, a seed."""

    trials = forms.IntegerField(
        min_value=whatif.MIN_TRIALS, max_value=whatif.MAX_TRIALS, initial=whatif.DEFAULT_TRIALS,
        label="Battles to simulate (K)",
        help_text=f"{whatif.MIN_TRIALS} to {whatif.MAX_TRIALS}. A five-against-five battle takes about "
                  f"1/20 s, thirty against thirty about half a second.",
    )
    seed = forms.CharField(
        required=False, max_length=whatif.MAX_SEED_LENGTH, label="Seed (optional)",
        help_text="Leave empty for a fresh random seed. The same seed and fleets give the same results.",
    )

    def __init__(self, *args, user, campaign=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        fleets = _fleet_choices(user, campaign) if campaign is not None else None
        designs = [("", "—")] + [
            (str(d.pk), f"{d.name} ({d.ship_type.replace('_', ' ')}, {d.bp} BP)"
                        f"{'' if d.campaign_id is None else ' — campaign design'}")
            for d in whatif.usable_designs(user, campaign)
        ]
        self.side_fields: dict[str, dict[str, Any]] = {}
        for key in whatif.SIDES:
            label = key.upper()
            names = {"fleet": None, "rows": []}
            if fleets is not None:
                name = f"{key}_fleet"
                self.fields[name] = forms.ChoiceField(
                    choices=fleets, required=False, label=f"Fleet {label}: a fleet you can see",
                    help_text="Another empire's ships stand in as the starter design of their type "
                              "(you see only their types).",
                )
                names["fleet"] = name
            for row in range(1, FREE_ROWS + 1):
                d_name, c_name = f"{key}_design_{row}", f"{key}_count_{row}"
                self.fields[d_name] = forms.ChoiceField(choices=designs, required=False,
                                                        label=f"Fleet {label}, design {row}")
                self.fields[c_name] = forms.IntegerField(required=False, min_value=whatif.MIN_SHIPS,
                                                         max_value=whatif.MAX_SHIPS, label="ships",
                                                         widget=forms.NumberInput(attrs={"style": "width:5em"}))
                names["rows"].append((d_name, c_name))
            self.side_fields[key] = names

    def sides(self):
        """For the template: per fleet, its fleet field and its (design, count) bound fields."""
        out = []
        for key, names in self.side_fields.items():
            out.append({
                "key": key, "label": key.upper(),
                "fleet": self[names["fleet"]] if names["fleet"] else None,
                "rows": [(self[d], self[c]) for d, c in names["rows"]],
            })
        return out

    def request_params(self) -> dict[str, Any]:
        """The cleaned form as a what-if request (``whatif.build_params``)."""
        data = self.cleaned_data
        params: dict[str, Any] = {
            "campaign": self.campaign.pk if self.campaign is not None else None,
            "trials": data["trials"], "seed": data.get("seed") or None,
        }
        for key, names in self.side_fields.items():
            fleet = data.get(names["fleet"]) if names["fleet"] else ""
            rows = []
            for d_name, c_name in names["rows"]:
                design, count = data.get(d_name), data.get(c_name)
                if design:
                    rows.append({"design": int(design), "count": count or 1})
                elif count:
                    rows.append({"design": None, "count": count})
            if any(r["design"] is None for r in rows):
                self.add_error(None, f"Fleet {key.upper()}: a row has a count but no design.")
            params[key] = {"fleet": int(fleet) if fleet else None,
                           "ships": [r for r in rows if r["design"] is not None]}
        return params


@login_required
def whatif_list(request):
    runs = list(whatif.runs_of(request.user).select_related("campaign")[:100])
    for run in runs:
        run.kind_title = books.title_of(run.params)
    return render(request, "tactical/whatif_list.html", {"runs": runs, "offered": books.offered()})


@login_required
def whatif_new(request):
    campaigns = visible_campaigns(request.user).order_by("name", "pk")
    campaign = None
    raw = request.POST.get("campaign") if request.method == "POST" else request.GET.get("campaign")
    if raw:
        campaign = campaigns.filter(pk=whole_number(raw)).first() if whole_number(raw) else None
        if campaign is None:
            return render(request, "tactical/whatif_new.html", {
                "campaigns": campaigns, "campaign": None, "campaign_error": "That is not one of your campaigns.",
                "form": WhatIfForm(user=request.user),
            }, status=404)
    if request.method == "POST":
        form = WhatIfForm(request.POST, user=request.user, campaign=campaign)
        if form.is_valid():
            params = form.request_params()
            if not form.errors:
                try:
                    run = whatif.start_what_if(user=request.user, params=params)
                except whatif.WhatIfError as exc:
                    form.add_error(None, str(exc))
                else:
                    return redirect("whatif-detail", run_id=run.pk)
    else:
        form = WhatIfForm(user=request.user, campaign=campaign)
    at_once, per_day = whatif.limits()
    return render(request, "tactical/whatif_new.html",
                  {"campaigns": campaigns, "campaign": campaign, "form": form, "offered": books.offered(),
                   "max_ships": whatif.MAX_SHIPS, "runs_at_once": at_once, "battles_per_day": per_day},
                  status=400 if form.errors else 200)


def _percent(value: float) -> str:
    return f"{value * 100:.1f}%"


def _margin(p: float, k: int) -> str:
    """The 95% normal-approximation margin of a simulated rate (a rough guide, said as such)."""
    return f"± {1.96 * math.sqrt(max(p * (1 - p), 0.0) / max(k, 1)) * 100:.1f}"


def _chart(result: dict[str, Any]) -> dict[str, Any]:
    """Bars for the SVG: each outcome, simulated beside auto-resolve."""
    width = 360
    rows = []
    for label, sim, auto in (
        ("Fleet A wins", result["win_rate"]["a"], result["odds"]["win"]["a"]),
        ("Fleet B wins", result["win_rate"]["b"], result["odds"]["win"]["b"]),
        ("Nobody holds the field", result["win_rate"]["draw"], 0.0),
    ):
        rows.append({"label": label, "sim": _percent(sim), "auto": _percent(auto),
                     "sim_w": round(sim * width, 1), "auto_w": round(auto * width, 1)})
    for i, row in enumerate(rows):
        row["y"] = 10 + i * 62
        row["y_sim"], row["y_auto"] = row["y"] + 14, row["y"] + 34
        row["y_sim_text"], row["y_auto_text"] = row["y"] + 27, row["y"] + 47
        row["x_sim_text"], row["x_auto_text"] = 180 + row["sim_w"] + 6, 180 + row["auto_w"] + 6
    return {"rows": rows, "height": 20 + len(rows) * 62, "width": 180 + width + 70}


def _sides(run: WhatIfRun) -> list[dict[str, Any]]:
    out = []
    for side in run.params.get("sides", []):
        counts: dict[str, int] = {}
        for ship in side["ships"]:
            name = ship["design_name"] + (" (hero crew)" if ship.get("hero_crew") else "") + (
                " (damaged)" if ship.get("damage") else "")
            counts[name] = counts.get(name, 0) + 1
        out.append({
            "key": side["key"], "label": side["label"], "source": side["source"],
            "ships": len(side["ships"]), "bp": sum(s["bp"] for s in side["ships"]),
            "stand_ins": sum(1 for s in side["ships"] if s.get("stand_in")),
            "designs": sorted(counts.items()),
        })
    return out


def _table(run: WhatIfRun) -> list[dict[str, Any]]:
    r, k = run.result, run.result["trials"]
    o = r["odds"]
    rows = [
        (
            "Simulated: holds the field",
            *(f"{_percent(r['win_rate'][s])} {_margin(r['win_rate'][s], k)}" for s in whatif.SIDES),
        ),
        ("Auto-resolve: chance to win (exact)", *(_percent(o["win"][s]) for s in whatif.SIDES)),
        (
            "Simulated: mean ships lost (destroyed or captured)",
            *(f"{r['mean_ships_lost'][s]:.2f}" for s in whatif.SIDES),
        ),
        (
            "Auto-resolve: expected ships lost (not capped by fleet size)",
            *(f"{o['expected_losses'][s]:.2f}" for s in whatif.SIDES),
        ),
        ("Simulated: mean BP lost", *(f"{r['mean_bp_lost'][s]:.1f}" for s in whatif.SIDES)),
        (
            "Simulated: mean ships gone to warp",
            *(f"{r['mean_fates'][s]['warped_out']:.2f}" for s in whatif.SIDES),
        ),
        (
            "Simulated: mean ships captured by the enemy",
            *(f"{r['mean_fates'][s]['captured']:.2f}" for s in whatif.SIDES),
        ),
        ("BP total", *(str(o["bp"][s]) for s in whatif.SIDES)),
        ("Auto-resolve dice (after force multipliers)", *(f"{o['dice'][s]}d6" for s in whatif.SIDES)),
    ]
    return [{"label": label, "a": a, "b": b} for label, a, b in rows]


def _survivors(run: WhatIfRun) -> list[dict[str, Any]]:
    dist = run.result["survivors"]
    longest = max(len(dist["a"]), len(dist["b"]))
    rows = []
    for n in range(longest):
        a = dist["a"][n] if n < len(dist["a"]) else 0
        b = dist["b"][n] if n < len(dist["b"]) else 0
        if a or b:
            rows.append({"ships": n, "a": a, "b": b})
    return rows


@login_required
@require_POST
def whatif_restart(request, run_id: int):
    try:
        whatif.restart_what_if(user=request.user, run_id=run_id)
    except WhatIfRun.DoesNotExist:
        raise Http404("no such what-if run") from None
    except whatif.WhatIfError as exc:
        messages.error(request, str(exc))
    else:
        messages.info(request, "The run starts again from the first battle.")
    return redirect("whatif-detail", run_id)


def _run_for(request, run_id: int) -> WhatIfRun:
    return get_object_or_404(whatif.runs_of(request.user).select_related("campaign"), pk=run_id)


@login_required
def whatif_detail(request, run_id: int):
    run = _run_for(request, run_id)
    trial = trial_of(whatif.kind_of(run.params))
    # A kind with its own page (Event Horizon's below, the CAM what-if's in cam_views.py), else
    # the generic page of any book (book_views.py).
    return load(trial.page or "tactical.whatif.book_views:detail_page")(request, run)


def eventhorizon_page(request, run: WhatIfRun):
    """An Event Horizon run's page (its ``Trial.page``; ``whatif_detail`` found the run the user may see)."""
    context: dict[str, Any] = {"run": run, "sides": _sides(run), "finished": run.status in (
        WhatIfRun.Status.DONE, WhatIfRun.Status.FAILED), "stale_seconds": whatif.STALE_SECONDS}
    if run.status == WhatIfRun.Status.DONE and run.result:
        context.update(table=_table(run), chart=_chart(run.result), survivors=_survivors(run),
                       draws=run.result["draws"], capped=run.result["capped"])
    return render(request, "tactical/whatif_detail.html", context)


def progress_json(run: WhatIfRun) -> dict[str, Any]:
    return {"id": run.pk, "status": run.status, "done": run.done, "trials": run.trials,
            "percent": round(100 * run.done / run.trials, 1) if run.trials else 100.0, "error": run.error}


@require_GET
@login_required
def whatif_progress(request, run_id: int):
    return JsonResponse(progress_json(_run_for(request, run_id)))
