"""What-if runs between two CAM forces on the Buoyz 'N Da 'Hood engine (issue 17, item 5).

The adapter and actions; the battles themselves are ``tactical/whatif/camtrials.py`` (pure, run
in the worker processes of ``pool.py``). A request names either

* a CAM scenario — ``{"campaign": id, "scenario": n}`` — whose two forces fight as they stand
  (ruling WI5): a scenario being fought from the units still on the table, its record so far
  (losses, crippled ships, break-contact orders) kept; any other scenario from the forces as
  chosen, refought from the start. Fog of war: only the moderator and the rubber's two players
  may run one; outsiders get 404 (the same as a scenario that does not exist), an observer 403,
  and a player 403 while the other force is still hidden (forces are chosen blind until the
  table is rolled, CAM 2.2 / 2.3); or
* two fleets from the CAM catalogue — ``{"period": P, "points": N, "a": {"sds": [key, …]},
  "b": {"sds": [...]}}`` — each a list of the rule book's SDs available in Period P totalling at
  most N points (CAM 2.2), fought as an open battle on an open-space table.

Both take ``"trials"`` (K, 1–2000, default 200) and ``"seed"`` (optional) and count against the
same per-user limits as every what-if (``runs.check_limits``). The run stores the whole job in
``WhatIfRun.params`` (``"ruleset": "buoyz"``), so a later change to the rubber does not change it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from typing import Any

from django.urls import reverse

from campaign.access import role_of, visible_campaigns
from campaign.cam import adapters
from campaign.cam.models import LAYER, CamScenario
from campaign.models import Campaign, Membership
from campaign.rules.cam import ships as sh
from tactical.models import WhatIfRun
from tactical.whatif import camtrials, runs
from tactical.whatif import pool as whatif_pool

MAX_SHIPS = 30
MIN_POINTS, MAX_POINTS, DEFAULT_POINTS = 1, 1000, 60
FIELDS_SCENARIO = {"campaign", "scenario", "trials", "seed"}
FIELDS_CATALOGUE = {"period", "points", "a", "b", "trials", "seed"}


WhatIfNotFound = runs.WhatIfNotFound  # a campaign or scenario the user may not see: 404
WhatIfNotAllowed = runs.WhatIfNotAllowed  # an observer; a player before the table is rolled: 403


# --- a CAM scenario, as the user may see it --------------------------------------------------------


def _scenario(user, campaign_id: Any, number: Any) -> tuple[Campaign, CamScenario, str]:
    cid = runs._whole(campaign_id, "campaign")
    n = runs._whole(number, "scenario")
    campaign = visible_campaigns(user).filter(layer=LAYER, pk=cid).select_related("cam").first()
    row = campaign.cam.scenario_rows.filter(number=n).first() if campaign is not None else None
    if row is None:  # the same answer for a rubber the user is not in and a scenario that does not exist
        raise WhatIfNotFound(f"scenario {n} of CAM campaign {cid} is not one you can see")
    role = role_of(user, campaign)
    return campaign, row, role


def check_scenario(user, campaign: Campaign, row: CamScenario, role: str) -> None:
    """Refuse what the user may not run (fog of war; see the module docstring)."""
    moderator = role == Membership.Role.MODERATOR
    if not moderator and not campaign.cam.players.filter(user=user).exists():
        raise WhatIfNotAllowed("only the rubber's moderator and its two players may run a what-if of its scenarios")
    if len(row.forces) < 2:
        raise runs.WhatIfError(f"scenario {row.number}: both forces must be chosen first (000 CAM 2.2)")
    if not moderator and not row.tables:
        raise WhatIfNotAllowed(f"scenario {row.number}: the other player's force stays hidden until the table is "
                               "rolled (000 CAM 2.2: forces are chosen blind), so there is nothing to fight yet")


def scenario_job(campaign: Campaign, row: CamScenario) -> dict[str, Any]:
    """The job of a scenario's two forces as they stand (ruling WI5)."""
    cam = campaign.cam
    players = list(cam.players.order_by("seat").prefetch_related("ships"))
    catalogue = adapters.catalogue(cam)
    fighting = row.stage == CamScenario.Stage.FIGHTING and row.battle
    used: set[str] = set()
    sides = []
    for key, player in zip(camtrials.KEYS, players):
        force = row.forces[str(player.seat)]
        roster = {s.number: s.sd for s in player.ships.all()}
        ships = {str(u["ship_id"]): roster[u["ship_id"]] for u in force["units"] if u["kind"] == "ship"}
        used.update(ships.values())
        status = dict(row.battle["status"].get(str(player.seat), {})) if fighting else {}
        sides.append({"key": key, "seat": player.seat, "label": player.name,
                      "faction": {"name": player.faction, "wealth": player.wealth, "temper": player.temper,
                                  "preset": player.preset},
                      "units": force["units"], "status": status, "ships": ships})
    customs = [adapters.sd_fields(catalogue[k]) for k in sorted(used) if k not in sh.STARTER_CATALOGUE]
    return {
        "ruleset": camtrials.RULESET, "period": cam.period, "points": row.points_level, "sds": customs,
        "scenario": {"number": row.number, "nature": row.nature, "points_level": row.points_level,
                     "break_percent": row.break_percent, "defender": row.defender, "tables": row.tables,
                     "edges": row.edges, "break_levels": row.break_levels,
                     "turn": row.battle["turn"] if fighting else 1,
                     "broken": dict(row.battle.get("broken", {})) if fighting else {}},
        "sides": sides,
        "source": {"kind": "scenario", "campaign": campaign.pk, "scenario": row.number,
                   "as_they_stand": bool(fighting)},
    }


# --- two fleets from the catalogue -------------------------------------------------------------------


def catalogue_params(raw: Mapping[str, Any]) -> dict[str, Any]:
    period = runs._whole(raw.get("period"), "period")
    if not sh.FIRST_PERIOD <= period <= sh.LAST_PERIOD:
        raise runs.WhatIfError(f"period must be {sh.FIRST_PERIOD} to {sh.LAST_PERIOD} (000 1.5), not {period}")
    points = DEFAULT_POINTS if raw.get("points") in (None, "") else runs._whole(raw.get("points"), "points")
    if not MIN_POINTS <= points <= MAX_POINTS:
        raise runs.WhatIfError(f"points must be {MIN_POINTS} to {MAX_POINTS}, not {points}")
    fleets = {}
    for key in camtrials.KEYS:
        label = key.upper()
        spec = raw.get(key)
        keys = spec.get("sds") if isinstance(spec, Mapping) else None
        if not isinstance(keys, list) or not keys:
            raise runs.WhatIfError(f"fleet {label}: give {{\"sds\": [SD key, …]}} from the CAM catalogue")
        if len(keys) > MAX_SHIPS:
            raise runs.WhatIfError(f"fleet {label} must have 1 to {MAX_SHIPS} ships, not {len(keys)}")
        total = 0
        for n, sd_key in enumerate(keys, start=1):
            sd = sh.STARTER_CATALOGUE.get(sd_key) if isinstance(sd_key, str) else None
            if sd is None:
                raise runs.WhatIfError(f"fleet {label}, ship {n}: {sd_key!r} is not an SD of the CAM catalogue")
            if not sd.available_in(period):
                raise runs.WhatIfError(f"fleet {label}, ship {n}: {sd.name} is available in periods "
                                       f"{sd.periods[0]}-{sd.periods[1]}, not in Period {period} (000 1.5)")
            total += sd.points
        if total > points:
            raise runs.WhatIfError(f"fleet {label} costs {total} points, over the {points} points level (000 CAM 2.2)")
        fleets[key] = list(keys)
    labels = {k: f"Fleet {k.upper()} ({sum(sh.STARTER_CATALOGUE[s].points for s in fleets[k])} points)"
              for k in camtrials.KEYS}
    job = camtrials.catalogue_job(period, points, fleets, labels=labels)
    job["source"] = {"kind": "catalogue"}
    return job


# --- the request ------------------------------------------------------------------------------------


def build_params(*, user, raw: Any) -> tuple[dict[str, Any], int | None]:
    """Check a CAM what-if request; (the params a run stores, its campaign id or None)."""
    if not isinstance(raw, Mapping):
        raise runs.WhatIfError("the request must be an object: a scenario or two catalogue fleets")
    by_scenario = raw.get("scenario") not in (None, "")
    allowed = FIELDS_SCENARIO if by_scenario else FIELDS_CATALOGUE
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise runs.WhatIfError(f"unknown field(s): {', '.join(unknown)} (expected {', '.join(sorted(allowed))})")
    raw_trials = raw.get("trials")
    trials = runs.DEFAULT_TRIALS if raw_trials in (None, "") else runs._whole(raw_trials, "trials")
    if not runs.MIN_TRIALS <= trials <= runs.MAX_TRIALS:
        raise runs.WhatIfError(f"trials must be {runs.MIN_TRIALS} to {runs.MAX_TRIALS}, not {trials}")
    seed = raw.get("seed")
    if seed in (None, ""):
        seed = secrets.token_hex(16)
    elif not isinstance(seed, str) or len(seed) > runs.MAX_SEED_LENGTH or not seed.strip():
        raise runs.WhatIfError(f"seed must be a text of 1 to {runs.MAX_SEED_LENGTH} characters")
    campaign_id = None
    if by_scenario:
        campaign, row, role = _scenario(user, raw.get("campaign"), raw.get("scenario"))
        check_scenario(user, campaign, row, role)
        job = scenario_job(campaign, row)
        campaign_id = campaign.pk
    else:
        job = catalogue_params(raw)
    try:
        camtrials.setup_from_job(job)
    except (ValueError, KeyError) as exc:
        raise runs.WhatIfError(f"these forces cannot fight: {exc}") from None
    return {**job, "seed": seed, "trials": trials}, campaign_id


def start_cam_what_if(*, user, params: Any) -> WhatIfRun:
    """Create a CAM what-if run and queue it after commit, within the user's limits (as
    ``runs.start_what_if``). Raises ``WhatIfError`` (``WhatIfNotFound``, ``WhatIfNotAllowed``,
    ``WhatIfLimitError``) naming the problem; nothing is created then."""
    if not getattr(user, "is_authenticated", False):
        raise runs.WhatIfError("log in to run a what-if")
    resolved, campaign_id = build_params(user=user, raw=params)
    return runs.queue_run(user, resolved, campaign_id=campaign_id)


def play(params: Mapping[str, Any], trials: int, progress: Callable[[int], None], processes: int) -> dict[str, Any]:
    """The runner's part (``runs.run_what_if``): the battles and the result, with the CAM
    auto-resolve exact odds of the same forces beside them."""
    job = {k: v for k, v in params.items() if k not in ("seed", "trials")}
    tally = whatif_pool.play_cam_trials(job, params["seed"], trials, progress, processes)
    result = tally.result()
    result["odds"] = camtrials.auto_resolve_odds(job)
    return result


def is_cam(run: WhatIfRun) -> bool:
    return (run.params or {}).get("ruleset") == camtrials.RULESET


# --- the scenario page's part -------------------------------------------------------------------------


def scenario_panel(user, campaign: Campaign, row: CamScenario) -> dict[str, Any]:
    """What the CAM scenario page shows beside the auto-resolve: the exact auto-resolve odds of
    the forces as the user may see them, a link to run a what-if, and the user's latest run of
    this scenario."""
    panel: dict[str, Any] = {"odds": None, "reason": "", "latest": None,
                             "new_url": f"{reverse('whatif-cam-new')}?campaign={campaign.pk}&scenario={row.number}"}
    try:
        check_scenario(user, campaign, row, role_of(user, campaign))
        job = scenario_job(campaign, row)
        camtrials.setup_from_job(job)
    except (runs.WhatIfError, ValueError, KeyError) as exc:
        panel["reason"] = str(exc)
    else:
        odds = camtrials.auto_resolve_odds(job)
        panel["odds"] = [{"label": side["label"], "points": odds["points"][side["key"]],
                          "dice": odds["dice"][side["key"]], "win": odds["win"][side["key"]]}
                         for side in job["sides"]]
    panel["latest"] = latest_run(user, campaign, row.number)
    # The rubber fights online on another book (issue 31): a what-if of the forces on that book.
    if row.battle and not panel["reason"]:
        from tactical.whatif import converted

        panel["converted_url"] = converted.new_url(campaign, scenario=row.number)
        if panel["converted_url"]:
            panel["converted_book"] = converted.book_title(campaign.options["battle_book"])
    return panel


def latest_run(user, campaign: Campaign, number: int) -> WhatIfRun | None:
    return (runs.runs_of(user).filter(campaign=campaign, params__ruleset=camtrials.RULESET,
                                      params__source__scenario=number).order_by("-created_at", "-id").first())
