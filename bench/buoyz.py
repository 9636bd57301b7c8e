"""Buoyz 'N Da 'Hood engine benchmark (issue 16): doctrine against doctrine, pure Python.

Prints the CPU time of one 100-points-a-side battle (median over a few fixed seeds; goal ≤ 1 s),
then plays N battles of random CAM-legal 60-point fleets of random periods in worker processes,
one per core, as a what-if run would (goal for 1,000: ≤ 30 s), with their wall time, the CPU
time of the workers and how the battles ended; then one CAM what-if run of 1,000 battles between
two random 60-point fleets through the site's own what-if path (``tactical.whatif.pool``). ``--repeat 3``
plays them three times and gives the median. ``--check`` also checks every action the doctrine makes
(``engine.check``) and the engine's properties after every step (hull and critical hits in bounds, nothing moves farther
than its allowance, an ended battle lists no action and its winner is the side left). Fixed
seeds: the same battles every run. No database.

    .venv/bin/python bench/buoyz.py [--battles 1000] [--processes 0] [--repeat 1] [--check] [--whatif 1000]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
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
from tactical.rules.buoyz import actions as A  # noqa: E402
from tactical.rules.buoyz.deploy import deploy  # noqa: E402
from tactical.rules.buoyz.doctrine import doctrine_action  # noqa: E402
from tactical.rules.buoyz.engine import allowance, apply, check, legal_actions, outcome  # noqa: E402
from tactical.rules.buoyz.geometry import distance  # noqa: E402
from tactical.rules.buoyz.sds import random_fleet as fleet  # noqa: E402

GOOD_ENDINGS = ("field held", "contact broken", "mutual destruction")


def start(name: str, points: int):
    """The battle of a named seed: random CAM-legal fleets of one random Period, and its dice."""
    rng = random.Random(name)
    period = rng.randint(1, 6)
    state = deploy({1: fleet(rng, period, points), 2: fleet(rng, period, points)})
    return state, SeededDice(derive_seed(name))


def _properties(before, action, state) -> None:
    if isinstance(action, A.Move):
        old, new = before.ship(action.ship), state.ship(action.ship)
        assert distance(old.pos, new.pos) <= allowance(old) + 1e-3, f"{action} moved too far"
    for s in state.ships:
        assert 0 <= s.hull <= s.sd.hull and all(c >= 0 for c in s.crits), f"ship {s.id} out of bounds"
        assert s.hull > 0 or s.status == "destroyed", f"ship {s.id} has no hull but is {s.status}"
        assert s.status in ("active", "destroyed", "left", "captured")
    if state.over:
        assert legal_actions(state) == []
        alive = {s.side for s in state.ships if s.active}
        assert state.winner is None or alive == {state.winner}


def battle(args: tuple[str, int, bool]) -> tuple[str, int, int]:
    """One battle from a named seed: (how it ended, turns, steps)."""
    name, points, checked = args
    state, dice = start(name, points)
    steps = 0
    while not state.over:
        action = doctrine_action(state)
        if checked:
            check(state, action)  # raises if the doctrine made an illegal action
            before = state
        state = apply(state, action, dice).state
        if checked:
            _properties(before, action, state)
        steps += 1
    return outcome(state).ending, state.turn, steps


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def play_many(count: int, workers: int, checked: bool) -> tuple[float, float, list]:
    """``count`` 60-point battles over ``workers`` processes: (wall s, workers' CPU s, results)."""
    cpu0, wall0 = _children_cpu(), time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(battle, [(f"bench-buoyz-60-{i}", 60, checked) for i in range(count)],
                                chunksize=max(1, count // (workers * 50))))  # small: no long tail on one core
    return time.perf_counter() - wall0, _children_cpu() - cpu0, results


def whatif_run(count: int, workers: int) -> tuple[float, float, object, dict]:
    """A CAM what-if run through the site's own path (``tactical.whatif.pool.play_cam_trials``:
    ``python -m tactical.whatif.worker`` subprocesses, one per core): ``count`` battles between two
    random CAM-legal 60-point catalogue fleets of one Period (a fixed seed), fought as CAM open
    battles to broken contact. (wall s, workers' CPU s, the tally, the job)."""
    from tactical.whatif import camtrials, pool

    rng = random.Random("bench-buoyz-whatif")
    period = rng.randint(1, 6)
    fleets = {k: [sd.key for sd in fleet(rng, period, 60)] for k in camtrials.KEYS}
    job = camtrials.catalogue_job(period, 60, fleets)
    cpu0, wall0 = _children_cpu(), time.perf_counter()
    tally = pool.play_cam_trials(job, "bench-buoyz-whatif", count, processes=workers)
    return time.perf_counter() - wall0, _children_cpu() - cpu0, tally, job


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--battles", type=int, default=1000, help="60-point battles to play (default 1000)")
    p.add_argument("--processes", type=int, default=0, help="worker processes (0: one per core, at most 4)")
    p.add_argument("--big", type=int, default=5, help="100-point battles timed one by one (default 5)")
    p.add_argument("--repeat", type=int, default=1, help="play the 60-point battles this many times (median)")
    p.add_argument("--check", action="store_true", help="check every action and the engine's properties")
    p.add_argument("--whatif", type=int, default=1000,
                   help="battles of one CAM what-if run through tactical/whatif (default 1000; 0: none)")
    opts = p.parse_args()
    if opts.battles < 0 or opts.big < 1 or opts.processes < 0 or opts.repeat < 1 or opts.whatif < 0:
        p.error("--battles ≥ 0, --big ≥ 1, --processes ≥ 0, --repeat ≥ 1 and --whatif ≥ 0")

    times = []
    for i in range(opts.big):
        t0 = time.process_time()
        how, turns, steps = battle((f"bench-buoyz-100-{i}", 100, opts.check))
        times.append(time.process_time() - t0)
        print(f"100 points a side, seed {i}: {times[-1]:.3f} s CPU, {turns} turns, {steps} steps, {how}")
    print(f"one 100-point battle: median {statistics.median(times):.3f} s CPU (goal ≤ 1 s)")

    if opts.battles:
        workers = opts.processes or min(4, os.cpu_count() or 1)
        walls, cpus = [], []
        for run in range(opts.repeat):
            wall, cpu, results = play_many(opts.battles, workers, opts.check)
            walls.append(wall)
            cpus.append(cpu)
            print(f"run {run + 1}: {opts.battles} battles of 60 points in {workers} processes: {wall:.1f} s wall, "
                  f"{cpu:.1f} s CPU in the workers ({wall / opts.battles * 1000:.0f} ms a battle)")
        ends = Counter(how for how, _, _ in results)
        print(f"{opts.battles} battles of 60 points: median {statistics.median(walls):.1f} s wall, "
              f"{statistics.median(cpus):.1f} s CPU of {opts.repeat} run(s) (goal for 1,000: ≤ 30 s wall)")
        print("ended: " + ", ".join(f"{n} {how}" for how, n in ends.most_common())
              + (" (every action checked, every property kept)" if opts.check else ""))
        print(f"turns: median {statistics.median(t for _, t, _ in results)}, "
              f"max {max(t for _, t, _ in results)}")
        bad = [f"bench-buoyz-60-{i}" for i, (how, _, _) in enumerate(results) if how not in GOOD_ENDINGS]
        if bad:
            print(f"not ended by a winner, broken contact or mutual destruction: {', '.join(bad[:20])}")

    if opts.whatif:
        workers = opts.processes or min(4, os.cpu_count() or 1)
        wall, cpu, tally, job = whatif_run(opts.whatif, workers)
        fleets = " against ".join(f"{len(side['units'])} ships" for side in job["sides"])
        result = tally.result()
        print(f"CAM what-if run through tactical/whatif ({workers} worker processes), Period {job['period']}, "
              f"{fleets}: {opts.whatif} battles in {wall:.1f} s wall, {cpu:.1f} s CPU in the workers "
              f"(goal for 1,000: ≤ 30 s wall)")
        print("ended: " + ", ".join(f"{n} {how}" for how, n in result["endings"].items() if n)
              + f"; side a wins {result['sides']['a']['win']['count']}, side b {result['sides']['b']['win']['count']}, "
              f"draws {result['draw']['count']}; mean turns {result['mean_turns']}")


if __name__ == "__main__":
    main()
