"""What-if over Celery workers (issue 27 item 5): one what-if run of N Event Horizon battles with a
real Redis broker, fought by 1 Celery worker process (concurrency 1) and then by 2, each run's
battles spread as chunk tasks of WHATIF_CHUNK_SIZE (tactical/whatif/chunks.py). Prints the wall
seconds from queueing the run to its result, and battles per second, for each; checks both give
the same result. Fleets: two frigates against one Sultan-class destroyer (starter library), as in
tests/tactical/test_whatif.py.

Needs PostgreSQL (the workers are other processes sharing the database: a throwaway test
database is created) and Redis (the broker: use a db nobody else uses):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench CELERY_BROKER_URL=redis://127.0.0.1:6379/15 \\
        .venv/bin/python bench/whatif_workers.py [--battles 1000] [--chunk 50] [--timeout 600]

Bounded: a run that takes longer than --timeout seconds stops the bench (the workers are stopped).
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402


def start_workers(count: int, chunk: int) -> list[subprocess.Popen]:
    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    env = {**os.environ, "DATABASE_URL": f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
           "WHATIF_CHUNK_SIZE": str(chunk), "WHATIF_PROCESSES": "1"}
    return [subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "warning",
                              "--pool", "prefork", "--concurrency", "1", "--without-gossip", "--without-mingle",
                              "-n", f"whatif-bench-{k}@%h"],
                             cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for k in range(count)]


def wait_ready(app, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(app.control.ping(timeout=1.0) or []) >= count:
            return
    raise RuntimeError(f"{count} Celery worker(s) did not answer within {timeout:.0f} s")


def stop(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        worker.terminate()
    for worker in workers:
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def one_run(user, app, count: int, args) -> dict:
    from django.db import transaction

    from tactical.models import WhatIfRun
    from tactical.whatif import runs

    workers = start_workers(count, args.chunk)
    try:
        wait_ready(app, count)
        params = {"trials": args.battles, "seed": "workers-bench",
                  "a": {"ships": [{"design": _library("frigate"), "count": 2}]},
                  "b": {"ships": [{"design": _library("destroyer"), "count": 1}]}}
        started = time.perf_counter()
        with transaction.atomic():
            run = runs.start_what_if(user=user, params=params)  # queued on commit
        while True:
            run.refresh_from_db()
            if run.status in (WhatIfRun.Status.DONE, WhatIfRun.Status.FAILED):
                break
            if time.perf_counter() - started > args.timeout:
                raise RuntimeError(f"the run with {count} worker(s) took over {args.timeout} s ({run.done} done)")
            time.sleep(0.2)
        wall = time.perf_counter() - started
    finally:
        stop(workers)
    if run.status != WhatIfRun.Status.DONE:
        raise RuntimeError(f"the run failed: {run.error}")
    print(f"{count} worker(s): {args.battles} battles in {wall:.1f} s wall = {args.battles / wall:.1f} battles/s "
          f"(chunks of {args.chunk}; the run's own 'seconds', first chunk to last: {run.result['seconds']:.1f})",
          flush=True)
    return {k: v for k, v in run.result.items() if k != "seconds"}


def _library(ship_type: str) -> int:
    from campaign.eventhorizon.models import Design

    return Design.objects.filter(campaign__isnull=True, ship_type=ship_type).order_by("pk").values_list(
        "pk", flat=True).first()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--battles", type=int, default=1000)
    parser.add_argument("--chunk", type=int, default=50)
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL:
        sys.exit("needs DATABASE_URL (PostgreSQL) and CELERY_BROKER_URL (Redis): see the docstring")
    from django.contrib.auth import get_user_model

    from config.celery import app

    settings.WHATIF_BATTLES_PER_DAY = 0
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        app.control.purge()
        user = get_user_model().objects.create_user("benchwhatif", "benchwhatif@example.com", "x")
        results = [one_run(user, app, count, args) for count in (1, 2)]
        assert results[0] == results[1], "1 and 2 workers gave different results"
        print(f"same result with 1 and 2 workers; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
