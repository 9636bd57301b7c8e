"""Map generation benchmark (issue: Foundation).

Times rolling and storing Event Horizon maps of 50×50, 100×100 and 200×200 cells with 8 players,
through the real action (``create_campaign``: dice stream, map engine, home worlds, rows and the
dice log), and prints each beside a baseline of the same rolls made in a plain Python loop
(``random.randint`` per die, nothing stored) run in the same process, and the pure map engine
alone (``engine s``). The ratio is generate+store over the baseline.

    .venv/bin/python bench/mapgen.py                      # on the configured database
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python bench/mapgen.py

It runs in a throwaway test database (``test_<name>``), created and dropped here.
"""

import os
import random
import statistics
import sys
import time
from pathlib import Path

# The script's own folder would come first on sys.path, where bench/http.py shadows the standard
# library's http package; put the project root there instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

SIZES = [(50, 50), (100, 100), (200, 200)]
REPEATS = 3


def baseline(width: int, height: int, planets: int) -> float:
    rng = random.Random(1)
    start = time.perf_counter()
    faces = [rng.randint(1, 20) for _ in range(width * height)]
    economy = [rng.randint(1, 6) for _ in range(planets)]
    elapsed = time.perf_counter() - start
    assert len(faces) + len(economy) == width * height + planets
    return elapsed


def engine_only(width: int, height: int, seed: str) -> float:
    """The pure map engine alone (dice stream, terrain, economy types, home worlds)."""
    from campaign.rules.dice import SeededDice, derive_seed
    from campaign.rules.eventhorizon.mapgen import generate_map
    from campaign.rules.grid import make_grid

    start = time.perf_counter()
    generate_map(make_grid("hex", width, height), 8, SeededDice(derive_seed(seed)))
    return time.perf_counter() - start


def main() -> None:
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        from campaign.eventhorizon import actions as eh_actions
        from campaign.models import Campaign

        print(f"database: {connection.vendor}; {REPEATS} runs each, median shown")
        print(f"{'map':>9} {'cells':>7} {'worlds':>7} {'baseline s':>11} {'engine s':>9} "
              f"{'generate+store s':>17} {'ratio':>8}")
        for width, height in SIZES:
            times, bases, engines = [], [], []
            for run in range(REPEATS):
                start = time.perf_counter()
                campaign = eh_actions.create_campaign(
                    name="bench", grid="hex", width=width, height=height, players=8, seed=f"bench-{run}"
                )
                times.append(time.perf_counter() - start)
                planets = campaign.worlds.filter(kind="planet").count()
                worlds = campaign.worlds.count()
                bases.append(baseline(width, height, planets))
                engines.append(engine_only(width, height, f"bench-{run}"))
                Campaign.objects.filter(pk=campaign.pk).delete()
            t, b, e = statistics.median(times), statistics.median(bases), statistics.median(engines)
            print(f"{width:>4}×{height:<4} {width * height:>7} {worlds:>7} {b:>11.4f} {e:>9.3f} "
                  f"{t:>17.3f} {t / b:>7.0f}×")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
