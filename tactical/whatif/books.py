"""What-if for any rule book (issue 27 item 5): a book that registers a what-if ``Trial`` and a
pickup ``FleetBook`` — and names no what-if pages of its own — is offered on the what-if pages
with nothing else to write: two forces bought from its fleet book within a points total — or as
many as its pickup battles take (``FleetBook.max_sides``: Print&Play and Star Sectors up to six) —,
the number of battles and a seed; the run fights the job ``FleetBook.setup`` makes of them (the
setup a pickup battle between the same fleets starts from) with ``kit.trial.DEFAULT_RUN`` and the
run page shows each side's win rate from the tally's ``"wins"`` (``kit.trial.WinTally``).

Event Horizon and the CAM what-if on the Buoyz engine keep their own forms (``Trial.form``), run
pages and API (``Trial.page``, ``Trial.api``); ``offered`` lists them with the rest.

A refusal is a ``WhatIfError`` naming the problem, and nothing is created: an unknown book, or
one without the generic what-if, is ``WhatIfNotFound`` (404).
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from tactical.hosts.pickup.books import FleetBook, FleetError, fleet_book_of
from tactical.models import WhatIfRun
from tactical.rules import registry
from tactical.whatif import runs
from tactical.whatif.camtrials import wilson
from tactical.whatif.pool import OTHER_TRIALS, trial_of

MIN_SIDES = 2  # a what-if is at least two forces; at most what the book's pickup battles take
FIELDS = {"trials", "seed", "points", "forces"}


def label(seat: int) -> str:
    return f"Side {seat}"


def side_counts(fleets: FleetBook) -> range:
    """How many forces a what-if of this fleet book may have (its pickup battles' sides)."""
    return range(MIN_SIDES, max(MIN_SIDES, fleets.max_sides) + 1)


def check_sides(fleets: FleetBook, sides: Any) -> int:
    """``sides`` as a count the book takes, or a ``WhatIfError`` naming the book's rule."""
    allowed = side_counts(fleets)
    try:
        count = runs._whole(sides, "the number of sides")
    except runs.WhatIfError:
        count = None
    if count not in allowed:
        between = f"{allowed[0]} sides" if len(allowed) == 1 else f"{allowed[0]} to {allowed[-1]} sides"
        rule = f" ({fleets.sides_rule})" if fleets.sides_rule else ""
        raise runs.WhatIfError(f"{fleets.title or 'this book'} what-ifs are fought by {between}{rule}, "
                               f"not {sides if count is not None else repr(sides)}"[:300])
    return count


def offered() -> list[dict[str, Any]]:
    """Every registered rule book with what-if battles, by name: its name, title and the URL of
    its "new what-if" page (its own, ``Trial.form``, or the generic one). A book with neither its
    own form nor a fleet book to buy forces from is not offered."""
    out = []
    for name in sorted(registry.RESOLVERS):
        record = registry.RESOLVERS[name]
        trial = record.trial
        if trial is None or (not trial.form and record.fleets is None):
            continue
        url = reverse(trial.form) if trial.form else reverse("whatif-book-new", kwargs={"book": name})
        out.append({"name": name, "title": trial.title or record.title, "url": url, "generic": not trial.form})
    return out


def title_of(params: dict[str, Any]) -> str:
    """What the pages call a stored run's kind: its ``Trial.title``, else its book's title."""
    kind = runs.kind_of(params)
    for record in registry.RESOLVERS.values():
        if record.trial is not None and record.trial.key == kind:
            return record.trial.title or record.title
    if kind in OTHER_TRIALS:  # a campaign's battle on its chosen book: the run says which
        return params.get("title") or trial_of(kind).title or kind
    return kind


def generic_book(name: str) -> tuple[registry.ResolverRecord, FleetBook]:
    """The registered book ``name`` and its fleet book, when it takes the generic what-if."""
    record = registry.RESOLVERS.get(name) if isinstance(name, str) else None
    if record is None or record.trial is None or record.trial.form or record.fleets is None:
        known = ", ".join(b["name"] for b in offered() if b["generic"]) or "none"
        raise runs.WhatIfNotFound(f"no rule book {name!r} offers this what-if (books with it: {known})")
    return record, fleet_book_of(record)


def build_params(*, user, book: str, raw: Any) -> dict[str, Any]:
    """Check a request and resolve it into the params a run stores (no writes).

    ``raw``: ``{"points": total (default: the fleet book's), "trials": K (default 200), "seed":
    text (optional), "forces": {"1": [ship key, …], "2": [ship key, …], …}}`` — one force per side,
    named "1" to "n" (n: two to the book's ``max_sides``), a ship key as the fleet book offers it (a
    key may repeat), every force within the points total."""
    record, fleets = generic_book(book)
    if not isinstance(raw, dict):
        raise runs.WhatIfError("the request must be an object with the two forces")
    unknown = sorted(set(raw) - FIELDS)
    if unknown:
        raise runs.WhatIfError(f"unknown field(s): {', '.join(unknown)} (expected {', '.join(sorted(FIELDS))})")
    trials, seed = runs.trials_and_seed(raw)
    points = raw.get("points")
    points = fleets.default_points if points in (None, "") else runs._whole(points, "points")
    try:
        fleets.check_points(points)
    except FleetError as exc:
        raise runs.WhatIfError(str(exc)) from None
    forces = raw.get("forces")
    if not isinstance(forces, dict):
        raise runs.WhatIfError('give the forces as {"1": [ship key, …], "2": [ship key, …]}')
    seats = tuple(range(1, check_sides(fleets, len(forces)) + 1))
    if set(forces) != {str(seat) for seat in seats}:
        named = ", ".join(str(s) for s in seats)
        raise runs.WhatIfError(f"name the {len(seats)} forces {named}, one per side")
    offers, refusals = fleets.offers(user), fleets.refusals(user)
    chosen = {}
    for seat in seats:
        keys = forces.get(str(seat))
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise runs.WhatIfError(f"{label(seat)}: give a list of ship keys")
        try:
            chosen[seat] = fleets.check_fleet(keys, offers, points, refusals)
        except FleetError as exc:
            raise runs.WhatIfError(f"{label(seat)}: {exc}") from None
    job = fleets.setup(chosen, {s: label(s) for s in seats}, {s: _colour(s) for s in seats})
    return {"ruleset": record.trial.key, "book": record.name, "seed": seed, "trials": trials, "points": points,
            "unit": fleets.unit,
            "forces": [{"seat": s, "label": label(s), "ships": [{"key": o.key, "name": o.name, "points": o.points}
                                                               for o in chosen[s]]} for s in seats],
            "job": job}


def _colour(seat: int) -> str:
    from tactical.hosts.pickup.actions import COLOURS

    return COLOURS[seat]


def start_book_what_if(*, user, book: str, params: Any) -> WhatIfRun:
    """Create a what-if run of rule book ``book`` (``build_params``) and queue it after commit,
    within the user's limits (as ``runs.start_what_if``). Raises ``WhatIfError`` naming the
    problem; nothing is created then."""
    if not getattr(user, "is_authenticated", False):
        raise runs.WhatIfError("log in to run a what-if")
    resolved = build_params(user=user, book=book, raw=params)
    return runs.queue_run(user, resolved)


# --- what a run's page and API show ------------------------------------------------------------


def forces_of(run: WhatIfRun) -> list[dict[str, Any]]:
    """Each force of a run: its seat, label, points and its ships counted by name."""
    out = []
    for force in run.params.get("forces", []):
        counts: dict[str, list[int]] = {}
        for ship in force["ships"]:
            row = counts.setdefault(ship["name"], [0, ship["points"]])
            row[0] += 1
        out.append({"seat": force["seat"], "label": force["label"],
                    "points": sum(s["points"] for s in force["ships"]),
                    "ships": [{"name": n, "count": c, "points": p} for n, (c, p) in sorted(counts.items())]})
    return out


def win_rates(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Per side (then "draw"), from a tally's ``"wins"``: the battles won, the rate and its 95%
    Wilson interval. Empty when the tally has no ``"wins"``."""
    wins = result.get("wins") if isinstance(result, dict) else None
    if not isinstance(wins, dict):
        return []
    n = sum(wins.values())
    rows = []
    for key, k in wins.items():
        low, high = wilson(k, n) if n else (0.0, 0.0)
        rows.append({"key": key, "label": "Nobody" if key == "draw" else label(int(key)), "wins": k,
                     "rate": k / n if n else 0.0, "low": low, "high": high})
    return rows


def run_json(run: WhatIfRun, *, full: bool = True) -> dict[str, Any]:
    """The API's view of a generic run (the default ``Trial.api``)."""
    data: dict[str, Any] = {
        "id": run.pk, "book": run.params.get("book"), "status": run.status, "done": run.done,
        "trials": run.trials, "campaign": run.campaign_id, "created_at": run.created_at,
        "finished_at": run.finished_at, "url": reverse("whatif-detail", kwargs={"run_id": run.pk}),
    }
    if full:
        data.update(seed=run.params.get("seed"), points=run.params.get("points"), forces=forces_of(run),
                    win_rates=win_rates(run.result or {}), result=run.result, error=run.error)
    return data
