"""HTTP benchmark (issue 4, "Online play"): the site under gunicorn on loopback, in one run.

Builds a throwaway database — on PostgreSQL when DATABASE_URL names one (Django's ``test_<name>``
database, created and dropped here), else a temporary SQLite file — with a campaign of realistic
size (40×40 hex, 4 players, 10 turns played by the computer), starts gunicorn on 127.0.0.1
with production settings (DEBUG=0), and drives five targets with a bounded load generator of
its own (asyncio, keep-alive HTTP/1.1 connections):

    bare     GET /bench/bare                   the cheapest Django JSON view (BENCH_VIEWS=1)
    login    GET /bench/login                  the floor of a page: reads the session's user, nothing else
    token    GET /bench/token                  the floor of an API call: DRF, reads the token's user
    map      GET /campaigns/{id}/map/          the map page, as a logged-in player (session)
    orders   PUT /api/campaigns/{id}/orders/   valid orders, token authentication

For each it prints req/s, p50/p95 latency and the ratio of req/s to the bare view, at 32
connections; then each target again at 128 connections, counting status codes (no 5xx is the
goal). Goals: map ≥ 40% and orders ≥ 25% of the bare view, p95 ≤ 50 ms at 32 connections.
The load generator runs on the same machine as the server and takes CPU from it; its own CPU
share is printed ("client"). "cpu ms/req" is the CPU time gunicorn's processes spent per request
(from /proc; PostgreSQL's own CPU is not in it): unlike req/s it barely moves when other work
shares the machine. Every run is bounded by --duration / --duration-128 (and --requests).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/benchhttp REDIS_URL=redis://127.0.0.1:6379/14 \
        .venv/bin/python bench/http.py
    .venv/bin/python bench/http.py --duration 5 --map-path /campaigns/{id}/
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path, where this file would shadow the
# standard library's ``http`` package (none of the imports above use it; Django does).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

SECRET = "bench-http-secret-key-not-for-production-" + "x" * 24


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=float, default=10.0,
                   help="seconds of measured load per target at --connections (default 10)")
    p.add_argument("--duration-128", type=float, default=5.0, dest="duration_high",
                   help="seconds per target at --high-connections (default 5)")
    p.add_argument("--warmup", type=float, default=1.5, help="unmeasured seconds before each target (default 1.5)")
    p.add_argument("--requests", type=int, default=100_000,
                   help="at most this many requests per target and run (default 100000)")
    p.add_argument("--connections", type=int, default=32, help="concurrent connections (default 32)")
    p.add_argument("--high-connections", type=int, default=128, help="the no-5xx run (default 128)")
    p.add_argument("--workers", type=int, default=4, help="gunicorn workers (default 4)")
    p.add_argument("--threads", type=int, default=2, help="threads per gunicorn worker, gthread (default 2)")
    p.add_argument("--map-path", default=None,
                   help="the map page, {id} for the campaign (default /campaigns/{id}/map/ if the site "
                        "routes it, else /campaigns/{id}/)")
    p.add_argument("--size", default="40x40", help="map size WxH (default 40x40)")
    p.add_argument("--players", type=int, default=4, help="players (default 4)")
    p.add_argument("--turns", type=int, default=10, help="turns the computer plays first (default 10)")
    p.add_argument("--only", default="bare,login,token,map,orders",
                   help="comma-separated targets (default all: bare,login,token,map,orders)")
    p.add_argument("--rounds", type=int, default=0,
                   help="then this many interleaved rounds of every target (--round-seconds each at "
                        "--connections): cpu ms/req per round, its median and spread, and orders/token "
                        "and map/login per round (on a shared machine the figures drift between targets "
                        "run one after the other; interleaving compares them under the same load)")
    p.add_argument("--round-seconds", type=float, default=3.0,
                   help="seconds per target and round (default 3)")
    p.add_argument("--check", action="store_true", help="exit 1 if a goal is missed")
    return p.parse_args(argv)


# --- the database and the campaign ---------------------------------------------------------


def prepare_environment() -> tuple[str, str | None]:
    """Production-like settings for both this process and gunicorn. Returns the database URL
    and, for SQLite, the temporary directory to remove afterwards."""
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "0",
        "SECRET_KEY": SECRET,  # the same key here and in gunicorn, so the session made here is valid
        "BENCH_VIEWS": "1",
        "SECURE_SSL_REDIRECT": "0",  # gunicorn is reached over plain HTTP here, with no proxy
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DB_CONN_MAX_AGE": os.environ.get("DB_CONN_MAX_AGE", "60"),
        "LOG_LEVEL": "WARNING",
        "EMAIL_BACKEND": "django.core.mail.backends.dummy.EmailBackend",  # turn emails go nowhere
    })
    tmp = None
    # SQLite is always a new temporary file: never the development database.
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        tmp = tempfile.mkdtemp(prefix="bench-http-")
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    return os.environ["DATABASE_URL"], tmp


def create_database() -> tuple[str, str]:
    """Create and migrate the throwaway database; returns (DATABASE_URL for gunicorn, old name)."""
    from django.core.management import call_command
    from django.db import connection

    old_name = connection.settings_dict["NAME"]
    url = os.environ["DATABASE_URL"]
    if connection.vendor == "sqlite":
        call_command("migrate", verbosity=0, interactive=False)
        return url, old_name
    # PostgreSQL: Django's test database beside the named one, dropped at the end.
    test_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + test_name)), old_name


def destroy_database(old_name: str) -> None:
    from django.db import connection

    if connection.vendor != "sqlite":
        connection.creation.destroy_test_db(old_name, verbosity=0)


@dataclass
class Fixture:
    campaign_id: int
    map_path: str
    session: str
    tokens: list[str]
    orders: list[dict]
    summary: str


def player_orders(state, empire, design_names) -> dict:
    """What a player might send: the computer player's orders for the seat (its purchases),
    a one-hex move for every fleet the computer left in place, and standing orders. Checked
    with the real validation, so every submission in the bench is valid."""
    from campaign import actions
    from campaign.eventhorizon import actions as eh_actions
    from campaign.rules.eventhorizon.bots import bot_orders
    from campaign.rules.eventhorizon.orders import orders_to_json

    raw = orders_to_json(bot_orders(state, empire.seat, design_names))
    raw.setdefault("standing", {"invasion": [{"response": "fight"}], "loss_order": "cheapest"})
    eh_actions.preview_orders(empire=empire, raw=raw)  # the computer's orders are valid, or this stops the bench
    moved = {m["fleet"] for m in raw.get("moves", [])}
    involved = (
        moved
        | {f for m in raw.get("merge", []) for f in m["fleets"]}
        | {s["fleet"] for s in raw.get("split", [])}
    )
    for fleet in state.fleets:
        if fleet.owner != empire.seat or fleet.id in involved:
            continue
        for step in state.grid.neighbours(fleet.coord):
            candidate = {**raw, "moves": [*raw.get("moves", []), {"fleet": fleet.id, "path": [list(step)]}]}
            try:
                eh_actions.preview_orders(empire=empire, raw=candidate)
            except actions.ActionError:
                continue
            raw = candidate
            break
    return raw


def build_campaign(args) -> Fixture:
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import Resolver404, resolve

    from campaign import actions
    from campaign.eventhorizon import actions as eh_actions
    from campaign.eventhorizon import adapters
    from campaign.models import Membership

    width, height = (int(v) for v in args.size.lower().split("x"))
    User = get_user_model()
    moderator = User.objects.create_user("bench-moderator", "mod@example.com", "bench")
    players = [User.objects.create_user(f"bench-player{i}", f"p{i}@example.com", "bench")
               for i in range(1, args.players + 1)]
    campaign = eh_actions.create_campaign(name="HTTP bench", grid="hex", width=width, height=height,
                                       players=args.players, seed="bench-http", moderator=moderator)
    empires = list(campaign.empires.order_by("seat"))
    for empire, user in zip(empires, players, strict=True):
        empire.user = user
        empire.save(update_fields=["user"])
        Membership.objects.get_or_create(campaign=campaign, user=user,
                                         defaults={"role": Membership.Role.PLAYER, "empire": empire})
    # The computer plays the set-up round and the opening turns for every seat, then the seats
    # are people again.
    campaign.empires.update(is_bot=True)
    for _ in range(args.turns + 1):
        eh_actions.write_bot_orders(campaign_id=campaign.pk)
        eh_actions.process_turn(campaign_id=campaign.pk)
    campaign.empires.update(is_bot=False)
    campaign.refresh_from_db()

    state = adapters.load_state(campaign)
    names = adapters.design_names_by_seat(campaign)
    # Seats knocked out in the opening turns have no orders to send.
    active = list(campaign.empires.filter(eliminated=False).select_related("user").order_by("seat"))
    if not active:
        raise SystemExit(f"every empire was eliminated in {args.turns} turns: use fewer --turns")
    orders = [player_orders(state, empire, names[empire.seat]) for empire in active]
    tokens = [actions.create_api_token(user=e.user)[1] for e in active]

    client = Client()
    client.force_login(active[0].user)
    session = client.cookies["sessionid"].value

    if args.map_path:
        map_path = args.map_path
    else:
        try:
            resolve(f"/campaigns/{campaign.pk}/map/")
            map_path = "/campaigns/{id}/map/"
        except Resolver404:
            map_path = "/campaigns/{id}/"
    summary = (
        f"campaign: {width}×{height} hex, {args.players} players, turn {campaign.turn} "
        f"({args.turns} played by the computer), {len(active)} empires left; {len(state.fleets)} fleets, "
        f"{len(state.ships)} ships, {sum(1 for w in state.worlds if w.owner)} owned worlds; the map page as "
        f"{active[0].user.username}; orders per player: "
        + ", ".join(f"{len(o.get('moves', []))} moves/{len(o.get('purchases', []))} purchases" for o in orders)
    )
    return Fixture(campaign.pk, map_path.format(id=campaign.pk), session, tokens, orders, summary)


def collect_static() -> None:
    # DEBUG=0 serves static files from collectstatic's manifest (as production does).
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)


# --- gunicorn ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gunicorn(args, database_url: str, port: int, log_path: Path) -> subprocess.Popen:
    cmd = [
        sys.executable, "-m", "gunicorn", "config.wsgi",
        "--bind", f"127.0.0.1:{port}",
        "--workers", str(args.workers), "--worker-class", "gthread", "--threads", str(args.threads),
        "--keep-alive", "10", "--backlog", "2048", "--log-level", "warning",
    ]
    env = {**os.environ, "DATABASE_URL": database_url}
    log = open(log_path, "wb")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    proc.log = log  # type: ignore[attr-defined]
    return proc


def stop_gunicorn(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    proc.log.close()  # type: ignore[attr-defined]


# --- the load generator ------------------------------------------------------------------------


@dataclass
class Target:
    key: str
    label: str
    method: str
    path: str
    requests: list[bytes]  # one per connection slot, cycled (e.g. one per player)


def server_cpu(master_pid: int) -> float | None:
    """CPU seconds used so far by gunicorn's master and workers (Linux /proc; None elsewhere).
    PostgreSQL's own processes are not counted."""
    total, found = 0, False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        pid, ppid = int(stat.parent.name), int(fields[1])
        if pid == master_pid or ppid == master_pid:
            total += int(fields[11]) + int(fields[12])  # utime, stime in clock ticks
            found = True
    return total / os.sysconf("SC_CLK_TCK") if found else None


@dataclass
class Result:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    wall: float = 0.0
    cpu: float = 0.0
    server_cpu: float | None = None

    def server_ms(self) -> float | None:
        return 1000 * self.server_cpu / self.count if self.server_cpu is not None and self.count else None

    @property
    def count(self) -> int:
        return sum(self.statuses.values())

    def rate(self) -> float:
        return self.count / self.wall if self.wall else 0.0

    def pct(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))] * 1000

    def server_errors(self) -> int:
        return sum(n for s, n in self.statuses.items() if isinstance(s, int) and s >= 500)


def http_request(method: str, path: str, port: int, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: keep-alive"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    if body or method in ("PUT", "POST"):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bool, bytes]:
    """One HTTP/1.1 response: (status, server closes the connection, body)."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length, chunked, close = None, False, False
    for line in lines[1:]:
        name, _, value = line.partition(":")
        name = name.strip().lower()
        if name == "content-length":
            length = int(value)
        elif name == "transfer-encoding" and "chunked" in value.lower():
            chunked = True
        elif name == "connection" and value.strip().lower() == "close":
            close = True
    if chunked:
        body = bytearray()
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                break
            body += chunk[:-2]
        return status, close, bytes(body)
    if length is None:
        return status, True, await reader.read()
    return status, close, await reader.readexactly(length)


async def one_connection(port: int, request: bytes, stop_at: float, budget: list[int], result: Result | None):
    reader = writer = None
    try:
        while time.perf_counter() < stop_at and budget[0] > 0:
            budget[0] -= 1
            if writer is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            start = time.perf_counter()
            try:
                writer.write(request)
                status, close, _ = await read_response(reader)
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
                if result is not None:
                    result.statuses[f"error:{type(exc).__name__}"] += 1
                writer.close()
                writer = None
                continue
            if result is not None:
                result.latencies.append(time.perf_counter() - start)
                result.statuses[status] += 1
            if close:
                writer.close()
                writer = None
    finally:
        if writer is not None:
            writer.close()


async def drive(target: Target, port: int, connections: int, seconds: float, max_requests: int,
                warmup: float, server_pid: int) -> Result:
    if warmup > 0:
        stop = time.perf_counter() + warmup
        await asyncio.gather(*(one_connection(port, target.requests[i % len(target.requests)], stop, [10**9], None)
                               for i in range(connections)))
    result = Result()
    budget = [max_requests]
    server0 = server_cpu(server_pid)
    cpu0, start = time.process_time(), time.perf_counter()
    stop = start + seconds
    tasks = [one_connection(port, target.requests[i % len(target.requests)], stop, budget, result)
             for i in range(connections)]
    try:
        # A server that stops answering cannot hold the run past its bound.
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=seconds + 30)
    except TimeoutError:
        result.statuses["error:timeout"] += 1
    result.wall = time.perf_counter() - start
    result.cpu = time.process_time() - cpu0
    server1 = server_cpu(server_pid)
    if server0 is not None and server1 is not None:
        result.server_cpu = server1 - server0
    return result


def check_once(target: Target, port: int) -> None:
    """Each target answers 200 once before it is measured, or the bench stops with the answer."""
    async def go():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(target.requests[0])
        status, _, body = await read_response(reader)
        writer.close()
        return status, body

    status, body = asyncio.run(go())
    if status != 200:
        raise SystemExit(f"{target.label}: expected 200, got {status}: {body[:500].decode(errors='replace')}")


def wait_until_up(port: int, proc: subprocess.Popen, log_path: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gunicorn exited ({proc.returncode}):\n{log_path.read_text()[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"gunicorn did not answer within {timeout:.0f} s:\n{log_path.read_text()[-3000:]}")


# --- the run -------------------------------------------------------------------------------------


def make_targets(fx: Fixture, port: int) -> list[Target]:
    cookie = {"Cookie": f"sessionid={fx.session}", "Accept": "text/html"}
    orders = [
        http_request("PUT", f"/api/campaigns/{fx.campaign_id}/orders/", port,
                     {"Authorization": f"Token {token}", "Content-Type": "application/json",
                      "Accept": "application/json"},
                     json.dumps({"orders": raw, "ready": False}).encode())
        for token, raw in zip(fx.tokens, fx.orders, strict=True)
    ]
    return [
        Target(
            "bare",
            "bare view",
            "GET",
            "/bench/bare",
            [http_request("GET", "/bench/bare", port, {"Accept": "application/json"})],
        ),
        Target(
            "login",
            "login floor",
            "GET",
            "/bench/login",
            [http_request("GET", "/bench/login", port, {**cookie, "Accept": "application/json"})],
        ),
        Target(
            "token",
            "token floor",
            "GET",
            "/bench/token",
            [
                http_request(
                    "GET",
                    "/bench/token",
                    port,
                    {"Authorization": f"Token {token}", "Accept": "application/json"},
                )
                for token in fx.tokens
            ],
        ),
        Target("map", "map page", "GET", fx.map_path, [http_request("GET", fx.map_path, port, cookie)]),
        Target("orders", "order submission", "PUT", f"/api/campaigns/{fx.campaign_id}/orders/", orders),
    ]


def fmt_statuses(statuses: Counter) -> str:
    return " ".join(f"{s}×{n}" for s, n in sorted(statuses.items(), key=lambda kv: str(kv[0])))


def print_table(title: str, targets: list[Target], results: dict[str, Result]) -> None:
    print(f"\n{title}")
    print(f"  {'target':<18}{'request':<34}{'req/s':>8}{'p50 ms':>8}{'p95 ms':>8}{'vs bare':>8}"
          f"{'cpu ms/req':>11}{'client':>8}  statuses")
    bare = results.get("bare")
    for t in targets:
        r = results[t.key]
        ratio = f"{100 * r.rate() / bare.rate():.0f}%" if bare and bare.rate() else "-"
        server_ms = f"{r.server_ms():.2f}" if r.server_ms() is not None else "-"
        print(f"  {t.label:<18}{t.method + ' ' + t.path:<34}{r.rate():>8.1f}{r.pct(0.50):>8.1f}{r.pct(0.95):>8.1f}"
              f"{ratio:>8}{server_ms:>11}{100 * r.cpu / r.wall:>7.0f}%  {fmt_statuses(r.statuses)}")


def goals(
    results: dict[str, Result], high: dict[str, Result], conns: int, high_conns: int
) -> list[tuple[str, bool, str]]:
    out = []
    bare = results.get("bare")
    for key, share in (("map", 0.40), ("orders", 0.25)):
        if bare and key in results:
            ratio = results[key].rate() / bare.rate()
            out.append((f"{key} ≥ {share:.0%} of the bare view", ratio >= share, f"{ratio:.0%}"))
    worst = max(results, key=lambda k: results[k].pct(0.95))
    p95 = results[worst].pct(0.95)
    out.append((f"p95 ≤ 50 ms at {conns} connections", p95 <= 50, f"worst {p95:.1f} ms ({worst})"))
    errors = {
        k: r.server_errors() + sum(n for s, n in r.statuses.items() if isinstance(s, str))
        for k, r in high.items()
    }
    out.append((f"no 5xx at {high_conns} connections", not any(errors.values()),
                ", ".join(f"{k} {n}" for k, n in errors.items())))
    return out


def interleaved(args, targets: list[Target], port: int, pid: int, floors: list[tuple[str, str]]) -> None:
    """--rounds: every target in turn, round after round, so that each pair is measured under the
    same load; prints cpu ms/req per round, the median and range, and each floor ratio per round."""
    import statistics

    per: dict[str, list[float]] = {t.key: [] for t in targets}
    print(f"\n{args.rounds} interleaved rounds, {args.round_seconds:g} s per target at {args.connections} "
          "connections (cpu ms/req of gunicorn's processes):")
    for n in range(args.rounds):
        for t in targets:
            r = asyncio.run(drive(t, port, args.connections, args.round_seconds, args.requests, 0.5, pid))
            per[t.key].append(r.server_ms() or float("nan"))
        print(f"  round {n + 1}: " + "  ".join(f"{k} {v[-1]:.2f}" for k, v in per.items())
              + "".join(f"  {k}/{f} {per[k][-1] / per[f][-1]:.2f}" for k, f in floors))
    for k, v in per.items():
        print(f"  {k:<7} median {statistics.median(v):.2f} ms, range {min(v):.2f}–{max(v):.2f}")
    for k, f in floors:
        ratios = [a / b for a, b in zip(per[k], per[f], strict=True)]
        print(f"  {k}/{f} cpu per request: median {statistics.median(ratios):.2f}, "
              f"range {min(ratios):.2f}–{max(ratios):.2f}")


def main(argv=None) -> int:
    args = parse_args(argv)
    database_url, tmp = prepare_environment()

    import django

    django.setup()
    from django.db import connection, connections

    started = time.perf_counter()
    gunicorn_url, old_name = create_database()
    proc = None
    log_dir = Path(tmp or tempfile.mkdtemp(prefix="bench-http-"))
    log_path = log_dir / "gunicorn.log"
    try:
        fx = build_campaign(args)
        collect_static()
        vendor = connection.vendor
        connections.close_all()
        where = "a temporary file" if vendor == "sqlite" else urllib.parse.urlsplit(gunicorn_url).path.lstrip("/")
        print(f"database: {vendor} ({where}), built in {time.perf_counter() - started:.1f} s")
        print(fx.summary)

        port = free_port()
        proc = start_gunicorn(args, gunicorn_url, port, log_path)
        wait_until_up(port, proc, log_path)
        print(f"gunicorn: 127.0.0.1:{port}, {args.workers} workers × {args.threads} threads (gthread), "
              f"keep-alive 10 s; DEBUG=0, DB_CONN_MAX_AGE={os.environ['DB_CONN_MAX_AGE']}, "
              f"cache {'redis' if os.environ.get('REDIS_URL') else 'local memory'}, "
              f"tasks {'on a broker' if os.environ.get('CELERY_BROKER_URL') else 'in-process'}; {os.cpu_count()} cores")
        print(f"client: asyncio keep-alive HTTP/1.1 in this process; {args.duration:g} s per target at "
              f"{args.connections} connections, {args.duration_high:g} s at {args.high_connections} "
              f"(after {args.warmup:g} s warm-up each); at most {args.requests} requests per run")

        only = {k.strip() for k in args.only.split(",")}
        targets = [t for t in make_targets(fx, port) if t.key in only]
        for t in targets:
            check_once(t, port)

        results = {t.key: asyncio.run(drive(t, port, args.connections, args.duration, args.requests, args.warmup,
                                            proc.pid))
                   for t in targets}
        print_table(f"{args.connections} connections", targets, results)
        high = {t.key: asyncio.run(drive(t, port, args.high_connections, args.duration_high, args.requests,
                                         args.warmup, proc.pid))
                for t in targets}
        print_table(f"{args.high_connections} connections", targets, high)

        print("\ngoals:")
        missed = 0
        for name, ok, detail in goals(results, high, args.connections, args.high_connections):
            missed += not ok
            print(f"  {'met   ' if ok else 'MISSED'}  {name}: {detail}")
        floors = [(k, f) for k, f in (("map", "login"), ("orders", "token")) if k in results and f in results]
        if args.rounds:
            interleaved(args, targets, port, proc.pid, floors)
        if floors:
            print("against the floors (the least a page or an API call that reads its user costs):")
            for key, floor in floors:
                print(f"  {key}: {100 * results[key].rate() / results[floor].rate():.0f}% of the {floor} floor's req/s")
        print(f"total {time.perf_counter() - started:.0f} s")
        return 1 if (args.check and missed) else 0
    finally:
        if proc is not None:
            stop_gunicorn(proc)
        connections.close_all()
        destroy_database(old_name)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        elif log_dir.exists():
            shutil.rmtree(log_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
