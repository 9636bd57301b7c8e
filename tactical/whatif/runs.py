"""What-if runs (issue 5, item 6): K doctrine-against-doctrine battles between two fleets, beside
the auto-resolve exact odds for the same fleets.

Two layers, as elsewhere:

* pure helpers (no Django): ``play_trial`` fights one battle through the embedded Event Horizon
  engine (``tactical/rules/eventhorizon``) with its own dice, ``Tally`` adds the outcomes up and
  ``auto_resolve_odds`` asks ``campaign/rules/eventhorizon/autoresolve.odds`` about the same two
  fleets;
* the adapter and actions: ``start_what_if`` checks a request (fleets from a campaign, seen with
  the user's eyes, or built freely from designs), stores everything the run needs in
  ``WhatIfRun.params`` and enqueues the task after commit; ``run_what_if`` plays the battles,
  moving ``done`` as it goes, and stores the result.

A what-if is not a campaign event: it rolls from its own seed (random unless given, kept in
``params`` so a run can be repeated exactly), never from the campaign dice log. Battle ``i`` of a
run rolls from ``derive_seed(f"what-if/{seed}/{i}")``, so every battle is reproducible on its own
and the result does not depend on how the run was chunked. Rulings WI1–WI4 in docs/rulings.md.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import OperationalError, transaction
from django.db.models import Q, Sum
from django.utils import timezone

from campaign.access import visible_campaigns
from campaign.eventhorizon import visibility
from campaign.eventhorizon.adapters import design_from_spec
from campaign.eventhorizon.models import Design
from campaign.models import Campaign
from campaign.rules.eventhorizon.autoresolve import Side, odds
from campaign.rules.eventhorizon.designs import Design as DesignSpec
from campaign.rules.eventhorizon.designs import DesignError, ShipType, validate_design
from campaign.rules.eventhorizon.economy import NO_DAMAGE, Damage
from campaign.sanitise import whole_number
from tactical.models import WhatIfRun
from tactical.rules.eventhorizon.trials import (  # noqa: F401 - re-exported for callers and tests
    FATES,
    HERO_CREW_BP,
    KEPT_FATES,
    LOST_FATES,
    SEATS,
    SIDES,
    Tally,
    TrialResult,
    TrialShip,
    fleets_from_sides,
    play_trial,
    trial_from_json,
)
from tactical.rules.kit.trial import load
from tactical.whatif import chunks
from tactical.whatif import pool as whatif_pool

logger = logging.getLogger(__name__)

MIN_SHIPS, MAX_SHIPS = 1, 30
MIN_TRIALS, MAX_TRIALS, DEFAULT_TRIALS = 1, 2000, 200
MAX_SEED_LENGTH = 64
PROGRESS_EVERY = 10  # battles between progress updates ...
PROGRESS_SECONDS = 1.0  # ... or sooner when a battle takes this long
# A run whose runner has shown no progress for this long is taken for dead (its server or worker
# stopped): only then may it be restarted or claimed by another runner. Progress is written at
# least every PROGRESS_SECONDS plus one battle (half a second at thirty ships a side).
STALE_SECONDS = 60


class WhatIfError(ValueError):
    """A what-if request that cannot be run; the message names the problem."""


class WhatIfLimitError(WhatIfError):
    """A request over the user's what-if limits (``WHATIF_RUNS_AT_ONCE``,
    ``WHATIF_BATTLES_PER_DAY``); the API answers 429."""


class WhatIfNotFound(WhatIfError):
    """A campaign, scenario or rule book the user may not see (or that does not exist): 404."""


class WhatIfNotAllowed(WhatIfError):
    """A member who may not run this what-if (an observer; a player before the table is rolled): 403."""


def http_status(exc: WhatIfError) -> int:
    """The HTTP status a refusal answers with, on the pages and in the API: 429 over a limit,
    404 for what the user may not see, 403 for what he may not do, else 400."""
    if isinstance(exc, WhatIfLimitError):
        return 429
    return 404 if isinstance(exc, WhatIfNotFound) else 403 if isinstance(exc, WhatIfNotAllowed) else 400


def _update(queryset, *, attempts: int = 40, pause: float = 0.05, **fields) -> int:
    """``queryset.update(**fields)``, tried again while SQLite says a table is locked.

    A run's own writes are not best effort: the claim, and the end (done or failed), must land.
    SQLite's shared-cache database (the test suite's in-memory one) answers a writer that meets a
    reader of the same table with "database table is locked" at once, without the busy timeout a
    file database waits; the reader (a page polling the run) is gone milliseconds later. Any
    other database error, or a lock that outlasts the attempts, is raised as it was.
    """
    for attempt in range(attempts):
        try:
            return queryset.update(**fields)
        except OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(pause)
    raise AssertionError("unreachable")  # pragma: no cover


class _Superseded(Exception):
    """This runner's claim was taken over (it was taken for dead): stop without writing."""


# --- pure: one battle (tactical/rules/eventhorizon/trials.py) and the tally ---------------------


def auto_side(ships: Sequence[TrialShip]) -> Side:
    """A what-if fleet as the auto-resolve rule sees it (as campaign/rules/eventhorizon/conflict.py
    ``_side``): BP total with hero crews, Star Cruiser and Destroyer multipliers, no defences."""
    types = {s.design.ship_type for s in ships}
    return Side(bp=sum(s.bp for s in ships), has_star_cruiser=ShipType.STAR_CRUISER in types,
                has_destroyer=ShipType.DESTROYER in types, has_defences=False, ships=len(ships))


def auto_resolve_odds(fleets: Mapping[str, Sequence[TrialShip]]) -> dict[str, Any]:
    """The exact odds of "003 Alternative to a Tactical Battle" for the same fleets (fleet A is
    the rule's fleet A). Expected losses are not capped by fleet size (``Odds``)."""
    a, b = auto_side(fleets["a"]), auto_side(fleets["b"])
    o = odds(a, b)
    return {
        "bp": {"a": a.bp, "b": b.bp},
        "dice": {"a": o.a_dice, "b": o.b_dice},
        "win": {"a": o.p_a_wins, "b": o.p_b_wins},
        "expected_losses": {"a": o.expected_a_losses, "b": o.expected_b_losses},
        "p_draw_rule": float(o.p_draw),
        "expected_rounds": float(o.expected_rounds),
    }


# --- params: what a run stores, and back -----------------------------------------------------


def fleets_from_params(params: Mapping[str, Any]) -> dict[str, list[TrialShip]]:
    """The two fleets a run stored (``params["sides"]``) as engine input."""
    return fleets_from_sides(params["sides"])


# --- the adapter: a request into params -------------------------------------------------------


def _whole(value: Any, what: str) -> int:
    """A whole number from JSON or a form (``"12"`` too); refuses booleans, fractions, text."""
    if isinstance(value, bool):
        raise WhatIfError(f"{what} must be a whole number, not {value!r}")
    if isinstance(value, int):
        return value
    number = whole_number(value, negative=True)
    if number is not None:
        return number
    raise WhatIfError(f"{what} must be a whole number, not {value!r}")


@dataclass
class _Context:
    user: Any
    campaign: Campaign | None = None
    view: visibility.View | None = None
    _stand_ins: dict[ShipType, tuple[int, DesignSpec] | None] = field(default_factory=dict)

    def stand_in(self, ship_type: ShipType) -> tuple[int, DesignSpec] | None:
        """Ruling WI2: the starter library's design of that ship type (the lowest id first)."""
        if ship_type not in self._stand_ins:
            row = (Design.objects.filter(campaign__isnull=True, ship_type=ship_type.value)
                   .order_by("pk").values_list("pk", "spec").first())
            self._stand_ins[ship_type] = (row[0], design_from_spec(row[1])) if row else None
        return self._stand_ins[ship_type]


def _campaign_context(user, raw: Any) -> _Context:
    if raw in (None, ""):
        return _Context(user)
    number = _whole(raw, "campaign")
    # Same message for a campaign that does not exist and one the user is not in: no hint.
    campaign = visible_campaigns(user).filter(pk=number).first()
    if campaign is None:
        raise WhatIfError(f"campaign {number} is not one of your campaigns")
    viewer = visibility.viewer_for(user, campaign)
    return _Context(user, campaign, visibility.view_for(campaign, viewer))


def _ship_json(design_id: int | None, design: DesignSpec, *, damage: Damage = NO_DAMAGE, hero_crew: bool = False,
               name: str = "", stand_in: bool = False) -> dict[str, Any]:
    return {"design_id": design_id, "design": design.to_dict(), "design_name": design.name,
            "ship_type": design.ship_type.value, "bp": design.bp + (HERO_CREW_BP if hero_crew else 0),
            "damage": damage.to_json(), "hero_crew": hero_crew, "name": name, "stand_in": stand_in}


def _fleet_side(ctx: _Context, label: str, raw_fleet: Any) -> dict[str, Any]:
    if ctx.campaign is None or ctx.view is None:
        raise WhatIfError(f"fleet {label}: a fleet number needs a campaign (or build the fleet freely)")
    number = _whole(raw_fleet, f"fleet {label}'s fleet number")
    seen = ctx.view.seen
    fleet = next((f for f in seen.fleets if f.id == number), None)
    if fleet is None:
        # Same message for a fleet that does not exist and one hidden by fog of war (FW8).
        raise WhatIfError(f"fleet {label}: fleet {number} is not a fleet you can see in {ctx.campaign.name}")
    viewer = ctx.view.viewer
    own = viewer.full or fleet.owner == viewer.seat
    index = seen.ship_index()
    ships = []
    for sid in fleet.ships:
        ship = index.get(sid)
        if ship is None:
            continue
        if own:
            design = seen.designs[ship.design]
            ships.append(_ship_json(ship.design, design, damage=ship.damage, hero_crew=ship.hero_crew, name=ship.name))
            continue
        # Ruling WI2 (FW2): another empire's ship is seen as its type only; it stands in as the
        # library design of that type, undamaged and without a hero crew.
        ship_type = seen.designs[ship.design].ship_type
        found = ctx.stand_in(ship_type)
        if found is None:
            raise WhatIfError(
                f"fleet {label}: fleet {number} has a {ship_type.label}, whose design you cannot see, and the "
                f"starter library has no {ship_type.label} to stand in for it; build that fleet freely instead"
            )
        ships.append(_ship_json(found[0], found[1], stand_in=True))
    empire = next((e.name for e in seen.empires if e.seat == fleet.owner), f"seat {fleet.owner}")
    return {"source": "fleet", "fleet": number, "owner": fleet.owner, "own": own,
            "label": f"Fleet {number} ({empire})", "ships": ships}


def _usable_designs(campaign: Campaign | None, viewer: visibility.Viewer | None):
    """Designs a free fleet may use (ruling WI3): the starter library; with a campaign, also the
    user's own empire's designs (every campaign design for the moderator)."""
    scope = Q(campaign__isnull=True)
    if campaign is not None and viewer is not None:
        if viewer.full:
            scope |= Q(campaign=campaign)
        elif viewer.seat is not None:
            scope |= Q(campaign=campaign, empire__seat=viewer.seat)
    return Design.objects.filter(scope)


def usable_designs(user, campaign: Campaign | None):
    """The design rows a user may build a free fleet from (the form's choices)."""
    viewer = visibility.viewer_for(user, campaign) if campaign is not None else None
    return _usable_designs(campaign, viewer).order_by("campaign_id", "bp", "name")


def _free_side(ctx: _Context, label: str, rows: Any) -> dict[str, Any]:
    if not isinstance(rows, list) or not rows:
        raise WhatIfError(f"fleet {label}: give at least one row of ships (a design and a count)")
    designs = _usable_designs(ctx.campaign, ctx.view.viewer if ctx.view else None)
    ships = []
    names = []
    for n, row in enumerate(rows, start=1):
        if not isinstance(row, Mapping) or "design" not in row:
            raise WhatIfError(f"fleet {label}, row {n}: each row needs a design id and a count")
        design_id = _whole(row["design"], f"fleet {label}, row {n}: the design id")
        count = _whole(row.get("count", 1), f"fleet {label}, row {n}: the count")
        if not MIN_SHIPS <= count <= MAX_SHIPS:
            raise WhatIfError(f"fleet {label}, row {n}: the count must be {MIN_SHIPS} to {MAX_SHIPS}, not {count}")
        spec = designs.filter(pk=design_id).values_list("spec", flat=True).first()
        if spec is None:
            where = "the starter library or your campaign's designs" if ctx.campaign else "the starter library"
            raise WhatIfError(f"fleet {label}, row {n}: design {design_id} is not in {where}")
        try:
            design = validate_design(design_from_spec(spec))
        except (DesignError, KeyError, TypeError) as exc:
            raise WhatIfError(f"fleet {label}, row {n}: design {design_id} cannot fight: {exc}") from None
        ships += [_ship_json(design_id, design) for _ in range(count)]
        names.append(f"{count} × {design.name}")
    return {"source": "free", "fleet": None, "owner": None, "own": True, "label": "; ".join(names), "ships": ships}


def trials_and_seed(raw: Mapping[str, Any]) -> tuple[int, str]:
    """A request's number of battles (default ``DEFAULT_TRIALS``) and seed (a fresh random one
    when none is given), checked."""
    raw_trials = raw.get("trials")
    trials = DEFAULT_TRIALS if raw_trials in (None, "") else _whole(raw_trials, "trials")
    if not MIN_TRIALS <= trials <= MAX_TRIALS:
        raise WhatIfError(f"trials must be {MIN_TRIALS} to {MAX_TRIALS}, not {trials}")
    seed = raw.get("seed")
    if seed in (None, ""):
        seed = secrets.token_hex(16)
    elif not isinstance(seed, str) or len(seed) > MAX_SEED_LENGTH or not seed.strip():
        raise WhatIfError(f"seed must be a text of 1 to {MAX_SEED_LENGTH} characters")
    return trials, seed


def build_params(*, user, raw: Any) -> dict[str, Any]:
    """Check a what-if request and resolve it into the params a run stores (no writes).

    ``raw``: ``{"campaign": id or null, "trials": K (default 200), "seed": text (optional),
    "a": {"fleet": number} or {"ships": [{"design": id, "count": n}, …]}, "b": likewise}``.
    """
    if not isinstance(raw, Mapping):
        raise WhatIfError("the request must be an object with the fleets 'a' and 'b'")
    unknown = sorted(set(raw) - {"campaign", "trials", "seed", "a", "b"})
    if unknown:
        raise WhatIfError(f"unknown field(s): {', '.join(unknown)} (expected campaign, trials, seed, a, b)")
    trials, seed = trials_and_seed(raw)
    ctx = _campaign_context(user, raw.get("campaign"))
    sides = []
    for key in SIDES:
        label = key.upper()
        spec = raw.get(key)
        if not isinstance(spec, Mapping):
            raise WhatIfError(f"fleet {label} is missing: give {{\"fleet\": number}} or {{\"ships\": [...]}}")
        has_fleet = spec.get("fleet") not in (None, "")
        has_ships = bool(spec.get("ships"))
        if has_fleet == has_ships:
            raise WhatIfError(f"fleet {label}: pick a campaign fleet or build one freely, not "
                              f"{'both' if has_fleet else 'neither'}")
        side = _fleet_side(ctx, label, spec["fleet"]) if has_fleet else _free_side(ctx, label, spec["ships"])
        if not MIN_SHIPS <= len(side["ships"]) <= MAX_SHIPS:
            raise WhatIfError(f"fleet {label} must have {MIN_SHIPS} to {MAX_SHIPS} ships, not {len(side['ships'])}")
        sides.append({"key": key, **side})
    return {"campaign": ctx.campaign.pk if ctx.campaign else None, "seed": seed, "trials": trials, "sides": sides}


# --- actions ----------------------------------------------------------------------------------


def start_what_if(*, user, params: Any) -> WhatIfRun:
    """Create a what-if run from a request (see ``build_params``) and queue it after commit.
    Raises ``WhatIfError`` naming the problem; nothing is created then."""
    if not getattr(user, "is_authenticated", False):
        raise WhatIfError("log in to run a what-if")
    resolved = build_params(user=user, raw=params)
    return queue_run(user, resolved, campaign_id=resolved["campaign"])


@transaction.atomic
def queue_run(user, resolved: dict, *, campaign_id: int | None = None) -> WhatIfRun:
    """Create the run of checked parameters ``resolved`` within the user's limits and queue it after
    commit: every kind of what-if starts here. Raises ``WhatIfLimitError``; nothing is created then."""
    # The user's row is the lock that serialises their starts, so two simultaneous requests
    # cannot both pass the limits.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    check_limits(user, resolved["trials"])
    run = WhatIfRun.objects.create(user=user, campaign_id=campaign_id, params=resolved, trials=resolved["trials"])
    transaction.on_commit(lambda: _enqueue(run.pk))
    return run


def limits() -> tuple[int, int]:
    """(runs at once, battles per 24 hours) per user; 0 is no limit (settings)."""
    from django.conf import settings

    return (max(0, int(getattr(settings, "WHATIF_RUNS_AT_ONCE", 2))),
            max(0, int(getattr(settings, "WHATIF_BATTLES_PER_DAY", 5000))))


def check_limits(user, trials: int, *, now=None) -> None:
    """Refuse a run over the user's limits, naming the limit. Every unfinished run counts as
    running (one left by a stopped server counts until it is restarted and ends); every run
    started in the last 24 hours counts its K battles, whatever became of it."""
    at_once, per_day = limits()
    now = now or timezone.now()
    mine = WhatIfRun.objects.filter(user=user)
    if at_once:
        running = mine.filter(status__in=(WhatIfRun.Status.QUEUED, WhatIfRun.Status.RUNNING)).count()
        if running >= at_once:
            raise WhatIfLimitError(
                f"you have {running} what-if run{'s' if running != 1 else ''} queued or running, and the limit is "
                f"{at_once} at once (WHATIF_RUNS_AT_ONCE): wait for one to finish")
    if per_day:
        since = now - timedelta(hours=24)
        used = mine.filter(created_at__gte=since).aggregate(n=Sum("trials"))["n"] or 0
        if used + trials > per_day:
            oldest = (
                mine.filter(created_at__gte=since)
                .order_by("created_at")
                .values_list("created_at", flat=True)
                .first()
            )
            when = (
                f"; the oldest of them counts until {(oldest + timedelta(hours=24)):%Y-%m-%d %H:%M} UTC"
                if oldest
                else ""
            )
            raise WhatIfLimitError(
                f"this run asks for {trials} battles and you have started {used} in the last 24 hours; the limit is "
                f"{per_day} battles a day (WHATIF_BATTLES_PER_DAY), so {max(0, per_day - used)} are left{when}")


def _alive(run: WhatIfRun, now) -> bool:
    """Whether an unfinished run is being played (or was queued or restarted) recently."""
    last = run.heartbeat_at or run.created_at
    return last is not None and now - last < timedelta(seconds=STALE_SECONDS)


def restart_what_if(*, user, run_id: int) -> WhatIfRun:
    """Queue an unfinished run of the user's again, when it has shown no progress for
    ``STALE_SECONDS`` (a server stopped in the middle of it left it "running"). A run still
    being played — its heartbeat fresh — is refused, so a restart never adds a second runner;
    nor does a second click, since a restart counts as a sign of life. Raises ``WhatIfError``
    for a run that is finished or still running; ``WhatIfRun.DoesNotExist`` for one not theirs."""
    with transaction.atomic():
        run = runs_of(user).select_for_update().get(pk=run_id)
        if run.status in (WhatIfRun.Status.DONE, WhatIfRun.Status.FAILED):
            raise WhatIfError(f"what-if {run.pk} is {run.get_status_display().lower()}: there is nothing to restart")
        now = timezone.now()
        if _alive(run, now):
            ago = int((now - (run.heartbeat_at or run.created_at)).total_seconds())
            raise WhatIfError(
                f"what-if {run.pk} is still {run.get_status_display().lower()} (its last sign of life was "
                f"{ago} s ago): "
                f"a restart would only play it twice; it can be restarted after {STALE_SECONDS} s without progress"
            )
        # Any runner of the old claim that is in fact alive finds its claim gone and stops.
        WhatIfRun.objects.filter(pk=run.pk).update(status=WhatIfRun.Status.QUEUED, claim="", heartbeat_at=now, done=0)
        transaction.on_commit(lambda: _enqueue(run.pk))
    run.refresh_from_db()
    return run


def _enqueue(run_id: int) -> None:
    from django.conf import settings

    from tactical import tasks  # tasks imports this module

    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False) and getattr(settings, "WHATIF_IN_BACKGROUND", True):
        # No broker (the embedded default): play it in a thread of this server process, so the
        # request returns at once and the run page shows the progress, as with a worker.
        threading.Thread(target=_run_in_thread, args=(run_id,), name=f"what-if-{run_id}", daemon=True).start()
        return
    try:
        tasks.run_what_if.delay(run_id)
    except Exception as exc:  # the broker is down: say so on the run page rather than leave it queued forever
        logger.exception("what-if run %s could not be queued", run_id)
        WhatIfRun.objects.filter(pk=run_id, status=WhatIfRun.Status.QUEUED).update(
            status=WhatIfRun.Status.FAILED, error=f"could not be queued ({type(exc).__name__}: {exc})",
            finished_at=timezone.now())


def _run_in_thread(run_id: int) -> None:
    from django.db import connections

    try:
        run_what_if(run_id)
    finally:
        connections.close_all()  # this thread's own connections


def worker_count() -> int:
    """Worker processes for a run: ``WHATIF_PROCESSES`` (settings; default: one per core, at
    most 4)."""
    from django.conf import settings

    return max(1, int(getattr(settings, "WHATIF_PROCESSES", 0) or min(os.cpu_count() or 1, 4)))


def play_trials(sides: Sequence[Mapping[str, Any]], seed: str, trials: int,
                progress: Callable[[int], None] = lambda done: None, processes: int | None = None) -> Tally:
    """``whatif_pool.play_trials`` with the site's number of worker processes."""
    return whatif_pool.play_trials(sides, seed, trials, progress,
                                   worker_count() if processes is None else processes)


def kind_of(params: Mapping[str, Any]) -> str:
    """The kind of a stored run (``params["ruleset"]``; Event Horizon runs stored before there
    were other kinds have none): the key of the registry's ``Trial`` that fights it."""
    return (params or {}).get("ruleset") or "eventhorizon"


def play_eventhorizon(params: Mapping[str, Any], trials: int, progress: Callable[[int], None],
                      processes: int) -> dict[str, Any]:
    """The Event Horizon runner (its ``Trial.run``): the battles, and the auto-resolve odds of
    the same fleets beside them."""
    result = play_trials(params["sides"], params["seed"], trials, progress, processes).result()
    result["odds"] = auto_resolve_odds(fleets_from_params(params))
    return result


def run_what_if(run_id: int, *, clock: Callable[[], float] = time.monotonic) -> WhatIfRun | None:
    """Play a run's battles and store the result; None if the run is gone.

    Idempotent, and never two runners at once: a runner claims the run with one conditional
    UPDATE — a queued run, or a "running" one whose heartbeat is older than ``STALE_SECONDS``
    (its runner died) — setting its own random ``claim`` token; the row count says who won. A
    delivery that loses (the run is done, or another runner is alive) returns the run as it is.
    Progress writes ``done`` and the heartbeat, every ``PROGRESS_EVERY`` battles or
    ``PROGRESS_SECONDS``, whichever comes first, only while the claim is still this runner's;
    a runner whose claim was taken over (it was taken for dead) stops without writing. A run
    claimed again starts from the first battle, which is safe because every battle rolls from
    the run's own seed.

    With a broker configured (``chunks.chunk_size()``), the runner only claims the run and queues
    its chunk tasks (tactical/whatif/chunks.py); the chunk that completes it stores the result.
    """
    run = WhatIfRun.objects.filter(pk=run_id).first()
    if run is None or run.status in (WhatIfRun.Status.DONE, WhatIfRun.Status.FAILED):
        return run
    token = secrets.token_hex(16)
    now = timezone.now()
    stale = now - timedelta(seconds=STALE_SECONDS)
    claimable = Q(status=WhatIfRun.Status.QUEUED) | Q(status=WhatIfRun.Status.RUNNING, heartbeat_at__lt=stale) | Q(
        status=WhatIfRun.Status.RUNNING, heartbeat_at__isnull=True, created_at__lt=stale)
    if not _update(WhatIfRun.objects.filter(claimable, pk=run_id),
                   status=WhatIfRun.Status.RUNNING, claim=token, heartbeat_at=now, done=0, error=""):
        return WhatIfRun.objects.get(pk=run_id)  # finished meanwhile, or another runner is playing it
    mine = WhatIfRun.objects.filter(pk=run_id, claim=token)
    size = chunks.chunk_size()
    if size:  # a broker: the battles are fought by chunk tasks on every worker (chunks.py)
        chunks.spread(run, token, size)
        return WhatIfRun.objects.get(pk=run_id)
    started = clock()
    try:
        trial = whatif_pool.trial_of(kind_of(run.params))
        reported, last = 0, started

        def progress(done: int) -> None:
            nonlocal reported, last
            now = clock()
            if done - reported >= PROGRESS_EVERY or now - last >= PROGRESS_SECONDS:
                try:
                    updated = mine.update(done=done, heartbeat_at=timezone.now())
                except OperationalError:  # a busy database: the report is best effort, the next one tries again
                    logger.warning("what-if run %s: progress not recorded (database busy)", run_id)
                    return
                if not updated:
                    raise _Superseded()
                reported, last = done, now

        result = load(trial.runner)(run.params, run.trials, progress, worker_count())
        result["seconds"] = round(clock() - started, 3)
    except _Superseded:
        logger.warning("what-if run %s: another runner took it over; this one stops", run_id)
        return WhatIfRun.objects.get(pk=run_id)
    except Exception as exc:  # any failure ends the run visibly, never a run stuck at "running"
        logger.exception("what-if run %s failed", run_id)
        _update(mine, status=WhatIfRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}",
                finished_at=timezone.now())
        return WhatIfRun.objects.get(pk=run_id)
    _update(mine, status=WhatIfRun.Status.DONE, done=run.trials, result=result, finished_at=timezone.now())
    return WhatIfRun.objects.get(pk=run_id)


def runs_of(user):
    """The runs a user may see: only their own."""
    if not getattr(user, "is_authenticated", False):
        return WhatIfRun.objects.none()
    return WhatIfRun.objects.filter(user=user)
