"""Scale benchmark (issue 33): do the pages and sweeps that list "my campaigns" or look for due
work stay flat as the site grows?

Builds a site through the public actions in a throwaway database (Django's test database:
in-memory SQLite, or ``test_<name>`` beside ``DATABASE_URL`` on PostgreSQL) at each ``--sizes``
factor F: 10×F Event Horizon campaigns (12×12 hex, two seats, in their set-up round, seat 1
ready, a deadline a day off; the first has three seats and two turns played) and 10×F CAM
rubbers (started), all moderated by ``mod``; every campaign has two players from a pool, so the
site has about 40×F players. Then for each page and
sweep, per kind of user, it prints CPU ms per request and the queries of one request:

    sweep (processdue)      the due sweep with nothing due (what beat runs every 60 s)
    / + on-request sweep    the home page when the embedded sweep is due (cache emptied first);
                            the sweep runs after the response, still in this process (the figure)
      the sweep, after it   of that, the sweep's own part: what the visitor does not wait for
    /                       the home page
    /press/                 the press index
    /api/campaigns/         the campaign API's list
    campaign page           an Event Horizon campaign's page
    reports index           the campaign's reports index (set-up round and turn 1 processed)

    users: one      a player in 1 Event Horizon campaign and 1 rubber
           hundred  a player in 100 campaigns (50 of each; the first campaign's third seat) at every
                    size from x10 up (19 at x1):
                    the "user in 100 campaigns" of issue 33's goal
           busy     a player in every campaign (10×F of each: 20×F campaigns)
           mod      the moderator of every campaign
           staff    a site-admin account that plays nothing

"cpu ms" is ``time.process_time`` in this process (the test client, Django, templates and
SQLite's own work; PostgreSQL's CPU is not in it): it moves less than wall time when the machine
is shared, but it does move; the query counts are the stable figure. Flat means: the same
queries at every size, and the user in 100 campaigns within 2× of the one-campaign user.

    .venv/bin/python bench/scale.py                 # sizes 1 and 10
    .venv/bin/python bench/scale.py --x100          # sizes 1, 10 and 100 (long: 2,000 campaigns)
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/scale .venv/bin/python bench/scale.py --sizes 1
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from datetime import timedelta
from pathlib import Path

# The script's own folder would come first on sys.path, where bench/http.py shadows the standard
# library's http package; put the project root there instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

UFP_FLEET = ["constitution"] * 4 + ["firecat"] * 2 + ["kobayashi_maru"] * 2 + ["runabouts"] * 2
KLINGON_FLEET = ["d7", "d7", "war_talon", "war_talon", "firecat"]
PER_SIZE = 10  # campaigns of each layer at size 1
HUNDRED = 100  # the campaigns of the user "hundred" (half of each layer), once the site has them


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="1,10", help="site size factors, comma-separated (default 1,10)")
    p.add_argument("--x100", action="store_true", help="add size 100 (2,000 campaigns; long)")
    p.add_argument("--requests", type=int, default=5, help="requests timed per figure (default 5)")
    return p.parse_args(argv)


class Site:
    """The site at size ``factor``, built through the public actions."""

    def __init__(self, factor: int):
        from django.contrib.auth import get_user_model

        from campaign.cam import actions as cam_actions
        from campaign.eventhorizon import actions as eh_actions
        from campaign.models import Turn

        User = get_user_model()
        make = lambda name, **kw: User.objects.create_user(name, f"{name}@example.com", "pw", **kw)  # noqa: E731
        self.mod, self.busy, self.one, self.hundred = make("mod"), make("busy"), make("one"), make("hundred")
        self.staff = make("staff", is_staff=True)
        n = PER_SIZE * factor
        pool = [make(f"p{i}") for i in range(2 * n)]
        self.campaign = None
        for i in range(n):
            # Campaign i: seat 1 is busy's in every campaign; seat 2 another player's ("one" in the first).
            # The first campaign has a third seat, hundred's (who sees its pages too); hundred plays
            # seat 2 of the next 49 and 50 rubbers: 100 campaigns.
            other = self.one if i == 0 else self.hundred if i < HUNDRED // 2 else pool[i]
            campaign = eh_actions.create_campaign(name=f"Sector {i}", grid="hex", width=12, height=12,
                                                  players=3 if i == 0 else 2, seed=f"scale-{i}", moderator=self.mod)
            campaign.empires.filter(seat=1).update(user=self.busy, name=f"Busy {i}")
            campaign.empires.filter(seat=2).update(user=other, name=f"Other {i}")
            campaign.empires.filter(seat=3).update(user=self.hundred, name=f"Hundred {i}")
            if i == 0:
                self.campaign = self._played(campaign)
            else:
                eh_actions.submit_orders(empire_id=campaign.empires.get(seat=1).pk, raw={}, ready=True)
                Turn.objects.filter(campaign=campaign, status=Turn.Status.OPEN).update(
                    deadline=campaign.created_at + timedelta(days=1))
            rubber_other = self.one if i == 0 else self.hundred if i <= HUNDRED // 2 else pool[n + i]
            rubber = cam_actions.create_cam_campaign(
                user=self.mod, name=f"Rubber {i}", period=2, starting_points=100, scenarios=2, seed=f"cam-{i}",
                players=[{"username": self.busy.username, "name": f"Busy's Squadron {i}", "faction": "UFP",
                          "fleet": UFP_FLEET},
                         {"username": rubber_other.username, "name": f"Raiders {i}", "faction": "Klingons",
                          "fleet": KLINGON_FLEET}])
            cam_actions.start(campaign_id=rubber.pk, user=self.mod)

    @staticmethod
    def _played(campaign):
        """The first campaign: its set-up round and turn 1 processed (the reports index lists them)."""
        from campaign.eventhorizon import actions as eh_actions
        from campaign.eventhorizon import adapters
        from campaign.rules.eventhorizon.bots import setup_orders
        from campaign.rules.eventhorizon.orders import orders_to_json

        state, names = adapters.load_state(campaign), adapters.design_names_by_seat(campaign)
        for empire in campaign.empires.all():
            eh_actions.submit_orders(empire_id=empire.pk, raw=orders_to_json(setup_orders(state, empire.seat,
                                                                                       names[empire.seat])))
        eh_actions.process_turn(campaign_id=campaign.pk)
        eh_actions.process_turn(campaign_id=campaign.pk)
        campaign.refresh_from_db()
        return campaign


def measure(fn, requests: int) -> tuple[float, int]:
    """(cpu ms per call, queries of one call); the first call warms the caches and is not timed."""
    fn()
    seen = []

    def count(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        fn()
    start = time.process_time()
    for _ in range(requests):
        fn()
    return (time.process_time() - start) * 1000 / requests, len(seen)


def rows(site: Site, requests: int) -> list[tuple[str, str, float, int]]:
    from campaign import middleware

    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 0  # the pages alone; the on-request sweep has its own row
    out = []
    out.append(("sweep (processdue)", "-", *measure(middleware.sweep, requests)))
    pages = [("/", "/"), ("/press/", "/press/"), ("/api/campaigns/", "/api/campaigns/"),
             ("campaign page", f"/campaigns/{site.campaign.pk}/"),
             ("reports index", f"/campaigns/{site.campaign.pk}/reports/")]
    for kind in ("one", "hundred", "busy", "mod", "staff"):
        client = Client()
        client.force_login(getattr(site, kind))
        for label, url in pages:
            if kind == "staff" and label in ("campaign page", "reports index"):
                continue  # staff reach other campaigns through the admin: 404 here

            def get(url=url, client=client):
                response = client.get(url)
                assert response.status_code == 200, (url, response.status_code)
                response.close()
            out.append((label, kind, *measure(get, requests)))
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 30
    client = Client()
    client.force_login(site.one)
    client.get("/").close()  # the client's middleware is made on its first request
    # Found once, outside the timing: gc.get_objects() walks the whole heap, which grows with the
    # site (that walk was the growth of this row from x1 to x100 before).
    instances = middleware_instances()
    spent: list[tuple[float, int]] = []
    real_sweep = middleware.sweep

    def timed_sweep():  # the closer the middleware hands the response: the sweep after it
        seen = []

        def count(execute, sql, params, many, context):
            seen.append(sql)
            return execute(sql, params, many, context)
        start = time.process_time()
        with connection.execute_wrapper(count):
            real_sweep()
        spent.append((time.process_time() - start, len(seen)))

    def swept():
        cache.delete(middleware.CACHE_KEY)
        for m in instances:
            m.next_ask = 0.0
        client.get("/").close()
    middleware.sweep = timed_sweep
    try:
        out.append(("/ + on-request sweep", "one", *measure(swept, requests)))
    finally:
        middleware.sweep = real_sweep
    timed = spent[-requests:]
    out.append(("  the sweep, after it", "one", sum(t for t, _ in timed) * 1000 / len(timed), timed[0][1]))
    settings.PROCESS_DUE_ON_REQUEST_SECONDS = 0
    return out


def middleware_instances():
    """The test client's ProcessDueTurnsMiddleware instances (each asks the cache once per interval)."""
    from campaign.middleware import ProcessDueTurnsMiddleware

    return [o for o in gc.get_objects() if isinstance(o, ProcessDueTurnsMiddleware)]


def main(argv=None) -> None:
    args = parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.x100 and 100 not in sizes:
        sizes.append(100)
    setup_test_environment()
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    db = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    results: dict[int, list] = {}
    for size in sizes:
        old_name = connection.settings_dict["NAME"]
        connection.creation.create_test_db(verbosity=0, autoclobber=True)
        try:
            start = time.perf_counter()
            site = Site(size)
            built = time.perf_counter() - start
            cache.clear()
            results[size] = rows(site, args.requests)
            print(f"size x{size}: {2 * PER_SIZE * size} campaigns built in {built:.0f} s ({db})", file=sys.stderr)
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0)
    head = "| what | user | " + " | ".join(f"x{s} cpu ms | x{s} queries" for s in sizes) + " |"
    print(head)
    print("|" + "---|" * (2 + 2 * len(sizes)))
    for i, (label, kind, _, _) in enumerate(results[sizes[0]]):
        cells = " | ".join(f"{results[s][i][2]:.1f} | {results[s][i][3]}" for s in sizes)
        print(f"| {label} | {kind} | {cells} |")


if __name__ == "__main__":
    main()
