"""Star Trek Print&Play engine benchmark (issue 30): doctrine against doctrine, pure Python.

Prints the CPU time of one battle (two sides of 200 points of random roster ships; median over
five fixed seeds; goal ≤ 0.5 s); then plays ``--battles`` battles (half with two sides, half with
four: the dice bag) step by step, checking after every step that the doctrine's action passes
``engine.check`` and that every property holds (``tactical.rules.printplay.properties``), and that
each battle ends with a defined result; then ``--whatif`` battles of two sides and as many of four
through the site's what-if path (``tactical.whatif.pool.play_run``; goal for 1,000: ≤ 30 s).
Exits non-zero if a battle raises, does not end, or breaks a property. Fixed seeds: the same
battles every run. No database.

    .venv/bin/python bench/printplay.py [--battles 1000] [--whatif 1000] [--processes 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

# bench/http.py would shadow the standard library's http package: the project root first.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campaign.rules.dice import SeededDice, derive_seed  # noqa: E402
from tactical.rules.printplay import engine  # noqa: E402
from tactical.rules.printplay.book import BOOK  # noqa: E402
from tactical.rules.printplay.properties import broken  # noqa: E402
from tactical.rules.printplay.trials import random_fleets  # noqa: E402


def one_battle(seed: int, sides: int = 2, points: int = 200, check: bool = False):
    """(result, steps, problems) of one seeded battle."""
    dice = SeededDice(derive_seed(f"bench/printplay/{sides}/{seed}"))
    state = BOOK.new_battle(random_fleets(sides, points, dice), dice)
    steps, problems = 0, []
    while not BOOK.is_over(state):
        steps += 1
        if steps > 20000:
            problems.append("did not end in 20,000 steps")
            break
        if BOOK.acting_side(state) is None:
            before, state = state, engine.advance(state, dice).state
            action = None
        else:
            action = BOOK.doctrine_action(state)
            if check:
                engine.check(state, action)
            before, state = state, engine.apply(state, action, dice).state
        if check:
            problems += [f"step {steps}: {p}" for p in broken(before, state, action)]
    result = BOOK.outcome(state)
    if result["over"] is not True or not result["ships"]:
        problems.append(f"no defined result: {result}")
    return result, steps, problems


def ending(result) -> str:
    """How a battle ended: one side (or none) left with ships on the mat, or the round cap (PP18)."""
    left = {s["side"] for s in result["ships"] if s["fate"] == "survived"}
    return "round cap" if len(left) > 1 else ("one side left" if left else "no side left")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--battles", type=int, default=1000)
    parser.add_argument("--whatif", type=int, default=1000)
    parser.add_argument("--processes", type=int, default=1)
    args = parser.parse_args(argv)
    failed = 0

    times = []
    for seed in range(5):
        t = time.process_time()
        one_battle(seed)
        times.append(time.process_time() - t)
    print(f"one battle (2 sides, 200 points each): median {statistics.median(times):.3f} s CPU "
          f"(goal <= 0.5 s; max {max(times):.3f} s)")

    print(f"load average when the runs start: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    if args.battles:
        t, cpu = time.perf_counter(), time.process_time()
        winners: Counter = Counter()
        endings: Counter = Counter()
        rounds: dict = {2: [], 4: []}
        steps = 0
        for i in range(args.battles):
            sides = 2 if i % 2 == 0 else 4
            try:
                result, n, problems = one_battle(i, sides, check=True)
            except Exception as exc:  # noqa: BLE001 - the bench reports every failure and exits non-zero
                print(f"battle {i} ({sides} sides) raised {type(exc).__name__}: {exc}")
                failed += 1
                continue
            steps += n
            winners[(sides, result["winner"])] += 1
            endings[(sides, ending(result))] += 1
            rounds[sides].append(result["rounds"])
            for p in problems[:3]:
                print(f"battle {i} ({sides} sides): {p}")
            failed += bool(problems)
        print(f"{args.battles} checked battles (half 2 sides, half 4): {time.perf_counter() - t:.1f} s wall, "
              f"{time.process_time() - cpu:.1f} s CPU, "
              f"{steps} steps, {failed} failed; winners {dict(sorted(winners.items(), key=str))}")
        for sides in (2, 4):
            n = sum(v for (s, _), v in endings.items() if s == sides) or 1
            print(f"  {sides} sides, how they end: " + ", ".join(
                f"{what} {endings[(sides, what)]} ({100 * endings[(sides, what)] / n:.0f}%)"
                for what in ("one side left", "no side left", "round cap"))
                + f"; rounds fought: mean {statistics.mean(rounds[sides] or [0]):.1f}")

    if args.whatif:
        from tactical.whatif import pool

        for sides in (2, 4):
            t, cpu = time.perf_counter(), time.process_time()
            result = pool.play_run("printplay", {"random": {"sides": sides, "points": 200}}, "bench",
                                   args.whatif, processes=args.processes).result()
            print(f"what-if path, {args.whatif} battles of {sides} sides ({args.processes} process(es)): "
                  f"{time.perf_counter() - t:.1f} s wall, {time.process_time() - cpu:.1f} s CPU of this process "
                  f"(goal for 1,000 <= 30 s); {result}")
            if result["trials"] != args.whatif:
                failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
