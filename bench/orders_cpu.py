"""Order submission against the token floor, in process (issue 34 item 10): CPU per request.

Builds the same campaign as bench/http.py (its ``build_campaign``: 40×40 hex, 4 players, 10 turns
played by the computer), then sends the same two requests through Django's test client in this
process, with no server and no load generator:

    token    GET /bench/token                  the floor of an API call (token authentication)
    orders   PUT /api/campaigns/{id}/orders/   each seat's valid orders in turn, token authentication

and times each request's CPU (``time.process_time``: this process only, so PostgreSQL's and
Redis's own CPU are not in it, as in bench/http.py's "cpu ms/req"). The two run in alternating
rounds (token, orders, token, orders, …) so that each pair is measured under the same load; it
prints each round's CPU per request (the round's mean) and the orders/token ratio, then the
median ratio. Other work on the machine still moves these; callgrind's counts (below) do not.
There is no gunicorn here, which adds about the same CPU to both requests, so the ratio is higher
than bench/http.py's. The due-turn sweep after a response is off (PROCESS_DUE_ON_REQUEST_SECONDS=0).

--profile adds cProfile of the order submissions (on CPU time). --keep leaves the database and
writes the fixture (campaign, tokens, orders) to a JSON file that --fixture reads back, so that a
slow tool can run the requests alone without building again, e.g. instruction counts, which do
not depend on the load at all: --callgrind counts the measured requests of one --target and
nothing else (callgrind's instrumentation is switched on and off around them; divide the
"measured" dump's total by --requests):

    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.%p \\
        .venv/bin/python bench/orders_cpu.py --fixture /tmp/orders-fixture.json --target orders \\
        --callgrind --requests 100
    callgrind_annotate /tmp/cg.<pid>.1 | head

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/benchhttp REDIS_URL=redis://127.0.0.1:6379/14 \\
        .venv/bin/python bench/orders_cpu.py --requests 300 --rounds 6
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# As in bench/http.py: this folder must not come first (its http.py would shadow the standard library's).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))


def load_http_bench():
    """bench/http.py as a module (its name would shadow the standard library's ``http``)."""
    spec = importlib.util.spec_from_file_location("bench_http", ROOT / "bench" / "http.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_http"] = module  # its dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--requests", type=int, default=300, help="requests per target and round (default 300)")
    p.add_argument("--rounds", type=int, default=6, help="alternating rounds (default 6)")
    p.add_argument("--warmup", type=int, default=50, help="unmeasured requests of each target first (default 50)")
    p.add_argument("--profile", action="store_true",
                   help="then profile --requests order submissions (cProfile, CPU time) and print the top")
    p.add_argument("--profile-lines", type=int, default=40, help="lines of the profile (default 40)")
    p.add_argument("--keep", metavar="FILE",
                   help="build, write the fixture to FILE and leave the database (PostgreSQL) for --fixture")
    p.add_argument("--fixture", metavar="FILE", help="use a database and fixture left by --keep (no build)")
    p.add_argument("--drop", action="store_true", help="with --fixture: drop the kept database at the end")
    p.add_argument("--target", choices=("token", "orders", "both"), default="both",
                   help="what to measure (default both, alternating)")
    p.add_argument("--callgrind", action="store_true",
                   help="under valgrind --tool=callgrind --instr-atstart=no: count --requests of --target "
                        "alone (needs cc and valgrind's headers)")
    for name, default in (("--size", "40x40"), ("--players", 4), ("--turns", 10)):
        p.add_argument(name, default=default, type=type(default), help=f"as bench/http.py (default {default})")
    args = p.parse_args(argv)
    args.map_path = None  # build_campaign's: the map page is not measured here
    return args


def make_requests(client, fixture):
    """Two callables, one request each; the orders cycle through the seats as bench/http.py's do."""
    path = f"/api/campaigns/{fixture['campaign_id']}/orders/"
    bodies = [json.dumps({"orders": raw, "ready": False}) for raw in fixture["orders"]]
    auths = [f"Token {t}" for t in fixture["tokens"]]
    seq = {"token": 0, "orders": 0}

    def token():
        i = seq["token"] = (seq["token"] + 1) % len(auths)
        r = client.get("/bench/token", HTTP_AUTHORIZATION=auths[i], HTTP_ACCEPT="application/json")
        assert r.status_code == 200, (r.status_code, r.content[:300])

    def orders():
        i = seq["orders"] = (seq["orders"] + 1) % len(auths)
        r = client.put(path, bodies[i], content_type="application/json", HTTP_AUTHORIZATION=auths[i],
                       HTTP_ACCEPT="application/json")
        assert r.status_code == 200, (r.status_code, r.content[:300])

    return {"token": token, "orders": orders}


def timed(fn, n: int) -> float:
    """CPU ms per call over n calls (the mean, as bench/http.py's "cpu ms/req": the seats'
    orders differ in size)."""
    t0 = time.process_time()
    for _ in range(n):
        fn()
    return 1000 * (time.process_time() - t0) / n


_CALLGRIND_C = r"""
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void cg_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS_AT("measured"); }
"""


def callgrind_helper():
    """A two-function C library (compiled here with the system's cc and valgrind's header) that
    turns callgrind's instrumentation on and off: run under ``valgrind --tool=callgrind
    --instr-atstart=no``, only what lies between the two calls is counted (and the set-up runs
    at a fraction of callgrind's slowdown). Outside valgrind both calls do nothing."""
    import ctypes
    import subprocess
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="orders-cpu-"))
    (folder / "cg.c").write_text(_CALLGRIND_C)
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", str(folder / "cg.so"), str(folder / "cg.c")],
                   check=True)
    lib = ctypes.CDLL(str(folder / "cg.so"))
    shutil.rmtree(folder, ignore_errors=True)
    return lib


def measure(args, reqs) -> None:
    for _ in range(args.warmup):
        reqs["token"]()
        reqs["orders"]()
    if args.callgrind:
        lib = callgrind_helper()
        fn = reqs[args.target if args.target != "both" else "orders"]
        lib.cg_start()
        for _ in range(args.requests):
            fn()
        lib.cg_stop()
        print(f"counted {args.requests} × {args.target} (callgrind: the dump named 'measured')")
        return
    keys = ["token", "orders"] if args.target == "both" else [args.target]
    per = {k: [] for k in keys}
    print(f"{args.rounds} rounds of {args.requests} requests per target, alternating; CPU ms per request "
          "(the round's mean):")
    for n in range(args.rounds):
        for k in keys:
            per[k].append(timed(reqs[k], args.requests))
        line = "  ".join(f"{k} {v[-1]:.3f}" for k, v in per.items())
        if len(keys) == 2:
            line += f"  orders/token {per['orders'][-1] / per['token'][-1]:.2f}"
        print(f"  round {n + 1}: {line}")
    for k, v in per.items():
        print(f"  {k:<7} median {statistics.median(v):.3f} ms, range {min(v):.3f}–{max(v):.3f}")
    if len(keys) == 2:
        ratios = [a / b for a, b in zip(per["orders"], per["token"], strict=True)]
        print(f"  orders/token: median {statistics.median(ratios):.2f}, range {min(ratios):.2f}–{max(ratios):.2f}")


def profile(args, reqs) -> None:
    import cProfile
    import pstats

    prof = cProfile.Profile(time.process_time)
    prof.enable()
    for _ in range(args.requests):
        reqs["orders"]()
    prof.disable()
    print(f"\nprofile of {args.requests} order submissions (CPU time):")
    pstats.Stats(prof).sort_stats("cumulative").print_stats(args.profile_lines)


def main(argv=None) -> int:
    args = parse_args(argv)
    bench = load_http_bench()
    fixture = json.loads(Path(args.fixture).read_text()) if args.fixture else None
    _, tmp = bench.prepare_environment()
    # No sweep for due turns after a response (campaign/middleware.py): it runs every 30 s of wall
    # time, so under callgrind's slowdown it would land inside the counted requests.
    os.environ["PROCESS_DUE_ON_REQUEST_SECONDS"] = "0"
    if fixture:
        os.environ["DATABASE_URL"] = fixture["database_url"]
    import django

    django.setup()
    from django.db import connection, connections
    from django.test import Client

    old_name = connection.settings_dict["NAME"]
    if not args.fixture:
        started = time.perf_counter()
        database_url, old_name = bench.create_database()
        fx = bench.build_campaign(args)
        fixture = {"database_url": database_url, "old_name": old_name, "campaign_id": fx.campaign_id,
                   "tokens": fx.tokens, "orders": fx.orders}
        print(f"database: {connection.vendor}, built in {time.perf_counter() - started:.1f} s")
        print(fx.summary)
    if args.keep:
        Path(args.keep).write_text(json.dumps(fixture))
        print(f"kept: {args.keep}")
    try:
        client = Client(HTTP_HOST="127.0.0.1")
        reqs = make_requests(client, fixture)
        measure(args, reqs)
        if args.profile:
            profile(args, reqs)
    finally:
        connections.close_all()
        if (args.fixture and args.drop) or not (args.fixture or args.keep):
            if connection.vendor != "sqlite":
                connection.settings_dict["NAME"] = fixture["database_url"].rsplit("/", 1)[1]
                connection.creation.destroy_test_db(fixture.get("old_name", old_name), verbosity=0)
        if tmp and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
