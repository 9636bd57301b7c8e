"""My Trek V engine benchmark (issue 29): doctrine against doctrine, pure Python.

Prints the CPU time of one battle between two random 400-point fleets (median over fixed seeds;
goal ≤ 0.2 s), then N battles (default 1,000) of random 400-point fleets with every doctrine action
checked (``engine.check``) and every property of ``tactical.rules.mytrek.properties`` after every
step, how they ended; then the same N battles through the site's what-if path
(``tactical.whatif.pool.play_run("mytrek", {"random": 400}, …)``; goal for 1,000: ≤ 20 s). Exits
non-zero if a battle raises, breaks a property or does not end. Fixed seeds: the same battles every
run. No database.

    .venv/bin/python bench/mytrek.py [--battles 1000] [--processes 1] [--skip-check]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campaign.rules.dice import SeededDice, derive_seed  # noqa: E402
from tactical.rules.mytrek import engine as E  # noqa: E402
from tactical.rules.mytrek.play import BOOK  # noqa: E402
from tactical.rules.mytrek.properties import broken  # noqa: E402
from tactical.whatif import pool  # noqa: E402
from tactical.whatif.mytrektrials import setup_for  # noqa: E402

SEED = "bench mytrek"


def checked_battle(index: int) -> tuple[dict, list[str]]:
    """Battle ``index`` of the what-if run (same fleets, same dice), every step checked."""
    dice = SeededDice(derive_seed(f"what-if/{SEED}/{index}"))
    state = BOOK.new_battle(setup_for({"random": 400}, SEED, index), dice)
    problems: list[str] = []
    steps = 0
    while not state.over:
        steps += 1
        if steps > 20_000:
            return {}, [f"battle {index} did not end"]
        action = BOOK.doctrine_action(state)
        try:
            E.check(state, action)
        except E.IllegalActionError as exc:
            problems.append(f"battle {index}: the doctrine's {action} is refused: {exc}")
        after = E.apply(state, action, dice).state
        problems += [f"battle {index} step {steps}: {p}" for p in broken(state, action, after)]
        state = after
    return BOOK.outcome(state), problems


def one_battle_seconds() -> float:
    times = []
    for i in range(7):
        t = time.process_time()
        pool.trial_of("mytrek").fight({"random": 400}, "bench one", i)
        times.append(time.process_time() - t)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--battles", type=int, default=1000)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--skip-check", action="store_true")
    args = parser.parse_args()
    failed = False
    print(
        f"one battle (random 400-point fleets, median of 7): {one_battle_seconds():.3f} s CPU (goal <= 0.2 s)"
    )
    if not args.skip_check:
        t = time.perf_counter()
        ends, turns, problems = Counter(), [], []
        for i in range(args.battles):
            try:
                out, bad = checked_battle(i)
            except Exception as exc:  # noqa: BLE001 - a bench reports every failure and exits non-zero
                problems.append(f"battle {i} raised {exc!r}")
                continue
            problems += bad
            if out:
                ends[out["winner"] if out["winner"] is not None else "draw"] += 1
                turns.append(out["turns"])
        print(
            f"{args.battles} checked battles: {time.perf_counter() - t:.1f} s; ends {dict(ends)}; "
            f"turns mean {statistics.mean(turns):.2f}, max {max(turns)}; properties broken: {len(problems)}"
        )
        for p in problems[:20]:
            print("  ", p)
        failed = bool(problems) or sum(ends.values()) != args.battles
    t, cpu = time.perf_counter(), time.process_time()
    result = pool.play_run("mytrek", {"random": 400}, SEED, args.battles, processes=args.processes).result()
    print(
        f"{args.battles} battles through the what-if path ({args.processes} process(es)): "
        f"{time.perf_counter() - t:.1f} s wall, {time.process_time() - cpu:.1f} s CPU in this process "
        f"(goal <= 20 s for 1,000; load average {os.getloadavg()[0]:.1f}); {result}"
    )
    if result["trials"] != args.battles:
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
