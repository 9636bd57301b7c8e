"""Buoyz 'N Da 'Hood engine benchmark (issue 16): doctrine against doctrine, pure Python.

Prints the time of one 100-points-a-side battle (median over a few fixed seeds; goal ≤ 1 s), then
plays N battles of random CAM-legal 60-point fleets of random periods in worker processes, one per
core, as a what-if run would (goal for 1,000: ≤ 30 s), with how they ended. Fixed seeds: the same
battles every run. No database.

    .venv/bin/python bench/buoyz.py [--battles 1000] [--processes 0]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# The script's own folder would come first on sys.path, where bench/http.py shadows the standard
# library's http package; put the project root there instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campaign.rules.dice import SeededDice, derive_seed  # noqa: E402
from tactical.rules.buoyz.deploy import deploy  # noqa: E402
from tactical.rules.buoyz.doctrine import doctrine_action  # noqa: E402
from tactical.rules.buoyz.engine import apply, outcome  # noqa: E402
from tactical.rules.buoyz.sds import random_fleet as fleet  # noqa: E402


def battle(args: tuple[str, int]) -> tuple[str, int, int]:
    """One battle from a named seed: (how it ended, turns, steps)."""
    name, points = args
    rng = random.Random(name)
    period = rng.randint(1, 6)
    state = deploy({1: fleet(rng, period, points), 2: fleet(rng, period, points)})
    dice = SeededDice(derive_seed(name))
    steps = 0
    while not state.over:
        state = apply(state, doctrine_action(state), dice).state
        steps += 1
    result = outcome(state)
    alive = {s.side for s in state.ships if s.active}
    if result.winner is not None:
        how = "a winner"
    elif not alive:
        how = "no ship left"
    else:
        how = "undecided at the turn cap"
    return how, state.turn, steps


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--battles", type=int, default=1000, help="60-point battles to play (default 1000)")
    p.add_argument("--processes", type=int, default=0, help="worker processes (0: one per core, at most 4)")
    p.add_argument("--big", type=int, default=5, help="100-point battles timed one by one (default 5)")
    opts = p.parse_args()
    if opts.battles < 0 or opts.big < 1 or opts.processes < 0:
        p.error("--battles ≥ 0, --big ≥ 1 and --processes ≥ 0")

    times = []
    for i in range(opts.big):
        start = time.process_time()
        how, turns, steps = battle((f"bench-buoyz-100-{i}", 100))
        times.append(time.process_time() - start)
        print(f"100 points a side, seed {i}: {times[-1]:.3f} s CPU, {turns} turns, {steps} steps, {how}")
    print(f"one 100-point battle: median {statistics.median(times):.3f} s CPU (goal ≤ 1 s)")

    if opts.battles:
        workers = opts.processes or min(4, os.cpu_count() or 1)
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(battle, [(f"bench-buoyz-60-{i}", 60) for i in range(opts.battles)],
                                    chunksize=max(1, opts.battles // (workers * 8))))
        wall = time.perf_counter() - start
        ends = Counter(how for how, _, _ in results)
        print(f"{opts.battles} battles of 60 points in {workers} processes: {wall:.1f} s "
              f"({wall / opts.battles * 1000:.0f} ms a battle; goal for 1,000: ≤ 30 s)")
        print("ended: " + ", ".join(f"{n} {how}" for how, n in ends.most_common()))
        print(f"turns: median {statistics.median(t for _, t, _ in results)}, "
              f"max {max(t for _, t, _ in results)}")


if __name__ == "__main__":
    main()
