"""What-if from a campaign's fleets on the rule book its moderator chose (issue 31, item 3).

When a campaign's option "battles fought online use: <book>" names another book than its layer's
own, a what-if of one of its battles is fought on that book: the battle's two sides (the layer's
own setup: an Event Horizon battle's ships, a CAM scenario's units on the table as they stand,
ruling WI5) are converted by the book's registered converter (``registry.find_converter``) — the
very setup an online battle between them starts from — and fought K times doctrine against
doctrine (``convertedtrials.py``); each result comes back through the converter's ``result_back``,
so the run counts the winner the campaign would take up. The run page and API show each side's
win rate with its 95% Wilson interval and the mean units (CAM) or ships (Event Horizon) lost.

A request names either a battle — ``{"battle": id}``: an Event Horizon battle, or the battle of a
CAM scenario fought online — or a CAM scenario — ``{"campaign": id, "scenario": n}`` (one fought at
the tabletop too, once its table is rolled) — with ``"trials"`` and ``"seed"`` as every what-if.

Fog of war, as elsewhere: a battle is used only by whom may open its page (its sides and the
campaign's moderators; ``battles.actions.visible_battles``), who sees both sides' ships there; a
CAM scenario as the CAM what-if allows (``cam.check_scenario``: its moderator and its two players,
the players once the table is rolled; an observer 403). Anyone else gets 404, the same answer as
for a battle or scenario that does not exist. A campaign on its own book is refused (400): its
own what-if is the place (``/what-if/new/``, ``/what-if/cam/new/``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse

from campaign.rules.eventhorizon.designs import Design
from tactical.models import Battle, WhatIfRun
from tactical.rules import registry
from tactical.whatif import runs
from tactical.whatif.camtrials import wilson
from tactical.whatif.convertedtrials import KEY

FIELDS_BATTLE = {"battle", "campaign", "trials", "seed"}
FIELDS_SCENARIO = {"campaign", "scenario", "trials", "seed"}
LAYER_TITLES = {"eventhorizon": "Event Horizon", "cam": "CAM"}


def book_title(book: str) -> str:
    return registry.book_title(book)


# --- what the user may use ---------------------------------------------------------------------


def _battle(user, raw_battle: Any, raw_campaign: Any) -> Battle:
    from tactical.battles.actions import visible_battles

    number = runs._whole(raw_battle, "battle")
    battles = visible_battles(user).select_related("campaign").filter(pk=number)
    if raw_campaign not in (None, ""):
        battles = battles.filter(campaign_id=runs._whole(raw_campaign, "campaign"))
    battle = battles.first()
    if battle is None:  # the same answer for a battle that does not exist and one the user may not see
        raise runs.WhatIfNotFound(f"battle {number} is not one you can see")
    return battle


def _eventhorizon(battle: Battle) -> tuple[str, dict]:
    """(the book, the layer's setup) of an Event Horizon battle."""
    from tactical.hosts.eventhorizon.lifecycle import battle_book

    book = battle.ruleset if battle.converted else battle_book(battle.campaign)
    return book, battle.layer_setup


def _cam(user, campaign, number) -> tuple[Any, str, dict]:
    """(the scenario row, the book, the layer's side of it as it stands) of a CAM scenario the user
    may run a what-if of (``cam.check_scenario``)."""
    from campaign.access import role_of
    from tactical.hosts.cam import converted
    from tactical.whatif import cam

    row = campaign.cam.scenario_rows.filter(number=number).first()
    if row is None:
        raise runs.WhatIfNotFound(f"scenario {number} of CAM campaign {campaign.pk} is not one you can see")
    cam.check_scenario(user, campaign, row, role_of(user, campaign))
    if not row.battle:
        raise runs.WhatIfError(f"scenario {row.number}: its table is not rolled yet (000 CAM 2.3): there is no "
                               "battle to fight until it is")
    return row, converted.book_of(campaign), converted.layer_setup(campaign, row)


def _cam_scenario(user, raw_campaign: Any, raw_scenario: Any):
    from tactical.whatif import cam

    campaign, row, _role = cam._scenario(user, raw_campaign, raw_scenario)  # 404 for what the user cannot see
    return campaign, row.number


def _source(user, raw: dict) -> tuple[Any, str, dict, dict]:
    """(campaign, book, layer setup, source) of a request, fog of war applied."""
    if raw.get("battle") not in (None, ""):
        battle = _battle(user, raw.get("battle"), raw.get("campaign"))
        campaign = battle.campaign
        if campaign.layer == "cam":  # a CAM scenario's battle: its scenario as it stands
            row, book, layer_setup = _cam(user, campaign, battle.turn)
            return campaign, book, layer_setup, {"kind": "scenario", "scenario": row.number, "battle": battle.pk}
        book, layer_setup = _eventhorizon(battle)
        return campaign, book, layer_setup, {"kind": "battle", "battle": battle.pk, "turn": battle.turn}
    campaign, number = _cam_scenario(user, raw.get("campaign"), raw.get("scenario"))
    row, book, layer_setup = _cam(user, campaign, number)
    return campaign, book, layer_setup, {"kind": "scenario", "scenario": row.number}


# --- the request ---------------------------------------------------------------------------------


def forces_of(layer: str, layer_setup: dict, seats) -> list[dict[str, Any]]:
    """Each side as the layer has it: its seat, name and ships (Event Horizon: each ship's name,
    design and BP, damaged or with a hero crew) or units (CAM: name and points, crippled)."""
    out = []
    for seat in seats:
        side = (layer_setup.get("sides") or {}).get(str(seat)) or {}
        rows = []
        if layer == "cam":
            for u in side.get("units") or []:
                rows.append({"name": u.get("name") or u["uid"], "points": u.get("points", 0),
                             "note": "crippled" if u.get("crippled") else ""})
        else:
            for s in side.get("ships") or []:
                design = Design.from_dict(s["design"])
                notes = [n for n, on in (("hero crew", s.get("hero_crew")), ("damaged", s.get("damage"))) if on]
                name = s.get("name") or design.name
                rows.append({"name": name if name == design.name else f"{name} ({design.name})", "points": design.bp,
                             "note": ", ".join(notes)})
        out.append({"seat": seat, "label": side.get("name") or f"Seat {seat}", "ships": rows,
                    "points": sum(r["points"] for r in rows)})
    return out


def build_params(*, user, raw: Any) -> tuple[dict[str, Any], int]:
    """Check a request and resolve it into the params a run stores, and its campaign's id (no writes)."""
    if not isinstance(raw, dict):
        raise runs.WhatIfError('the request must be an object: {"battle": id} or {"campaign": id, "scenario": n}')
    by_battle = raw.get("battle") not in (None, "")
    if not by_battle and raw.get("scenario") in (None, ""):
        raise runs.WhatIfError('name a battle ({"battle": id}) or a CAM scenario ({"campaign": id, "scenario": n})')
    allowed = FIELDS_BATTLE if by_battle else FIELDS_SCENARIO
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise runs.WhatIfError(f"unknown field(s): {', '.join(unknown)} (expected {', '.join(sorted(allowed))})")
    trials, seed = runs.trials_and_seed(raw)
    campaign, book, layer_setup, source = _source(user, raw)
    layer = campaign.layer
    converter = registry.find_converter(layer, book) if book else None
    if converter is None:
        raise runs.WhatIfError(
            f"{campaign.name} fights its battles on {LAYER_TITLES.get(layer, layer)}'s own rule book: run its own "
            "what-if (this one is for a campaign whose battles are fought on another book)")
    seats = [int(layer_setup["attacker"]), int(layer_setup["defender"])]
    forces = forces_of(layer, layer_setup, seats)
    empty = [f["label"] for f in forces if not f["ships"]]
    if empty:
        raise runs.WhatIfError(f"{' and '.join(empty)} {'has' if len(empty) == 1 else 'have'} nothing left to fight "
                               "with")
    try:
        setup = converter.to_book(layer_setup)
        book_record = registry.find_resolver(book).book
        from campaign.rules.dice import SeededDice, derive_seed

        book_record.new_battle(setup, SeededDice(derive_seed(f"what-if/converted/{seed}/check")))
    except (KeyError, ValueError, TypeError) as exc:
        raise runs.WhatIfError(f"these forces cannot be fought on {book_title(book)}: {exc}") from None
    title = f"{campaign.name} on {book_title(book)}"
    job = {"layer": layer, "book": book, "setup": setup, "layer_setup": layer_setup, "seats": seats}
    return {"ruleset": KEY, "layer": layer, "book": book, "title": title, "rulings": converter.rulings,
            "seed": seed, "trials": trials, "source": {**source, "campaign": campaign.pk}, "forces": forces,
            "job": job}, campaign.pk


def start_converted_what_if(*, user, params: Any) -> WhatIfRun:
    """Create the run (``build_params``) and queue it after commit, within the user's limits (as
    ``runs.start_what_if``). Raises ``WhatIfError`` naming the problem; nothing is created then."""
    if not getattr(user, "is_authenticated", False):
        raise runs.WhatIfError("log in to run a what-if")
    resolved, campaign_id = build_params(user=user, raw=params)
    return runs.queue_run(user, resolved, campaign_id=campaign_id)


def new_url(campaign, *, battle: Battle | None = None, scenario: int | None = None) -> str:
    """The "new what-if" link of a battle or a CAM scenario whose campaign fights on another book
    ("" when it fights on its layer's own)."""
    book = (campaign.options or {}).get("battle_book") or ""
    if not book or book == registry.OWN_BOOK.get(campaign.layer):
        return ""
    query = f"battle={battle.pk}" if battle is not None else f"campaign={campaign.pk}&scenario={scenario}"
    return f"{reverse('whatif-converted-new')}?{query}"


def source_link(source: dict | None) -> tuple[str, str]:
    """(url, label) of the battle or CAM scenario a run was made from: its pages link back to it
    (the way onward for someone who came from there); ("", "") if it names neither."""
    source = source or {}
    if source.get("kind") == "battle" and source.get("battle"):
        return reverse("battle-detail", args=[source["battle"]]), f"battle {source['battle']}"
    if source.get("kind") == "scenario" and source.get("campaign") and source.get("scenario"):
        return (reverse("cam-scenario", args=[source["campaign"], source["scenario"]]),
                f"scenario {source['scenario']}")
    return "", ""


# --- what a run's page and API show --------------------------------------------------------------


def win_rates(run: WhatIfRun) -> list[dict[str, Any]]:
    """Per side (then "draw"): the battles won, the rate and its 95% Wilson interval, the mean
    units or ships lost."""
    result = run.result if isinstance(run.result, dict) else {}
    wins = result.get("wins") or {}
    lost = result.get("mean_lost") or {}
    n = sum(wins.values())
    labels = {str(f["seat"]): f["label"] for f in run.params.get("forces", [])}
    rows = []
    for key, k in wins.items():
        low, high = wilson(k, n) if n else (0.0, 0.0)
        rows.append({"key": key, "label": "Nobody" if key == "draw" else labels.get(key, f"Seat {key}"), "wins": k,
                     "rate": k / n if n else 0.0, "low": low, "high": high, "mean_lost": lost.get(key)})
    return rows


def run_json(run: WhatIfRun, *, full: bool = True) -> dict[str, Any]:
    """The API's view of a run (this kind's ``Trial.api``)."""
    p = run.params
    data: dict[str, Any] = {
        "id": run.pk, "kind": KEY, "layer": p.get("layer"), "book": p.get("book"), "status": run.status,
        "done": run.done, "trials": run.trials, "campaign": run.campaign_id, "source": p.get("source"),
        "created_at": run.created_at, "finished_at": run.finished_at,
        "url": reverse("whatif-detail", kwargs={"run_id": run.pk}),
    }
    if full:
        data.update(seed=p.get("seed"), rulings=p.get("rulings"), forces=p.get("forces"), win_rates=win_rates(run),
                    result=run.result, error=run.error)
    return data


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def detail_page(request, run: WhatIfRun):
    """A run's page (this kind's ``Trial.page``; ``views.whatif_detail`` found the run the user may see)."""
    p = run.params
    context: dict[str, Any] = {
        "run": run, "title": p.get("title"), "book_title": book_title(p["book"]), "forces": p.get("forces"),
        "layer_title": LAYER_TITLES.get(p.get("layer"), p.get("layer")),
        "finished": run.status in (WhatIfRun.Status.DONE, WhatIfRun.Status.FAILED),
        "stale_seconds": runs.STALE_SECONDS, "unit": "CAM points" if p.get("layer") == "cam" else "BP",
    }
    context["source_url"], context["source_label"] = source_link(p.get("source"))
    if run.status == WhatIfRun.Status.DONE and run.result:
        context["rates"] = [{**r, "rate": _pct(r["rate"]), "interval": f"{_pct(r['low'])} – {_pct(r['high'])}"}
                            for r in win_rates(run)]
        context["result"] = run.result
    return render(request, "tactical/whatif_converted_detail.html", context)


@login_required
def whatif_converted_new(request):
    """The forces of a battle or CAM scenario, converted to the campaign's book, and the number of
    battles and a seed; a POST starts the run (a refusal shows on the page with its status)."""
    data = request.POST if request.method == "POST" else request.GET
    raw = {k: data.get(k) for k in ("battle", "campaign", "scenario") if data.get(k) not in (None, "")}
    values = {"trials": data.get("trials") or runs.DEFAULT_TRIALS, "seed": data.get("seed") or ""}
    context: dict[str, Any] = {"raw": raw, "values": values, "error": "", "max_trials": runs.MAX_TRIALS}
    context["runs_at_once"], context["battles_per_day"] = runs.limits()
    status = 200
    try:
        preview, _ = build_params(user=request.user, raw={**raw, "trials": 1, "seed": "preview"})
    except runs.WhatIfError as exc:
        context["error"] = str(exc)
        return render(request, "tactical/whatif_converted_new.html", context, status=runs.http_status(exc))
    context["source_url"], context["source_label"] = source_link(preview.get("source"))
    context.update(title=preview["title"], forces=preview["forces"], book_title=book_title(preview["book"]),
                   rulings=preview["rulings"], unit="CAM points" if preview["layer"] == "cam" else "BP")
    if request.method == "POST":
        try:
            run = start_converted_what_if(user=request.user, params={**raw, "trials": values["trials"],
                                                                      "seed": values["seed"] or None})
        except runs.WhatIfError as exc:
            context["error"], status = str(exc), runs.http_status(exc)
        else:
            return redirect("whatif-detail", run_id=run.pk)
    return render(request, "tactical/whatif_converted_new.html", context, status=status)


__all__ = ["build_params", "detail_page", "forces_of", "new_url", "run_json", "start_converted_what_if",
           "whatif_converted_new", "win_rates"]
