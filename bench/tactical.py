"""Tactical engine benchmark (issue 5, "Battles"): doctrine-against-doctrine battles through the
pure Event Horizon Quick Play engine (no database).

Times one 25-vs-25 battle on the rule book's 4ft table (16 × 16 squares) and 1,000 five-vs-five
battles, each deployed from the rule book's four sample designs (San Marco, Sword, Sultan,
Galiot, in turn) with its own seed, the invader deploying first (an AEWA) every other battle.
Every roll goes through the HMAC dice stream, as in a campaign. Then 1,000 five-vs-five what-if
battles as a what-if run fights them (tactical/whatif/pool.py: one worker process per core, at most
4). Goals: one 25-vs-25 battle ≤ 2 s; 1,000 what-if battles ≤ 20 s. A host-speed reference loop
is printed first, so runs on different hosts can be compared.

    .venv/bin/python bench/tactical.py                # both
    .venv/bin/python bench/tactical.py --small 200    # fewer five-vs-five battles
    .venv/bin/python bench/tactical.py --processes 1  # the what-if battles in one process
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

# The script's own folder would come first on sys.path, where bench/http.py shadows the standard
# library's http package; put the project root there instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campaign.rules.dice import SeededDice, derive_seed  # noqa: E402
from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS  # noqa: E402
from tactical.rules.eventhorizon import CampaignShip, deploy, outcome, simulate  # noqa: E402
from tactical.whatif import pool as whatif_pool  # noqa: E402

BIG_GOAL_S = 2.0
SMALL_GOAL_S = 20.0


def battle(per_side: int, seed: str, aewa: bool = False):
    fleets = {
        1: [CampaignShip(i, SAMPLE_DESIGNS[i % 4]) for i in range(1, per_side + 1)],
        2: [CampaignShip(1000 + i, SAMPLE_DESIGNS[(i + 2) % 4]) for i in range(1, per_side + 1)],
    }
    dice = SeededDice(derive_seed(seed))
    start = time.perf_counter()
    state = deploy(fleets, dice, invader=2, aewa=aewa)
    end = simulate(state, dice)
    return time.perf_counter() - start, end, dice


def reference_loop() -> float:
    """CPU seconds of a fixed pure-Python loop (``sum(range(10**8))``), printed beside the figures
    so runs on hosts of different speed can be compared (best of three)."""
    best = float("inf")
    for _ in range(3):
        cpu = time.process_time()
        sum(range(10**8))
        best = min(best, time.process_time() - cpu)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=1000, help="five-vs-five battles (default 1000)")
    parser.add_argument("--processes", type=int, default=0,
                        help="worker processes for the what-if battles (default: one per core, at most 4)")
    parser.add_argument("--big-runs", type=int, default=3, help="25-vs-25 battles, median shown (default 3)")
    args = parser.parse_args()

    ref = reference_loop()
    print(f"host speed: reference loop sum(range(10**8)) {ref:.2f} s CPU (lower is faster)")
    times = []
    for run in range(args.big_runs):
        seconds, end, dice = battle(25, f"bench-tactical-25-{run}")
        result = outcome(end)
        times.append(seconds)
        fates = Counter(s.fate for s in result.ships)
        print(f"25 vs 25 #{run + 1}: {seconds:.3f} s, {end.cards_drawn} cards, {len(dice.log)} rolls, "
              f"{end.history.length if end.history else 0} events, holder {result.holder}, "
              f"{dict(sorted(fates.items()))}")
    big = statistics.median(times)

    start, cpu = time.perf_counter(), time.process_time()
    holders: Counter = Counter()
    cards = capped = 0
    for i in range(args.small):
        _, end, _ = battle(5, f"bench-tactical-5-{i}", aewa=bool(i % 2))
        result = outcome(end)
        holders[result.holder] += 1
        cards += end.cards_drawn
        capped += result.capped
    small = time.perf_counter() - start
    cpu = time.process_time() - cpu
    scaled = small * 1000 / max(args.small, 1)
    print(f"{args.small} five-vs-five battles: {small:.2f} s ({small / max(args.small, 1) * 1000:.1f} ms each, "
          f"{cards / max(args.small, 1):.0f} cards on average); field held by side 1: {holders[1]}, "
          f"side 2: {holders[2]}, nobody: {holders[None]} ({capped} reached the card cap); "
          f"CPU {cpu:.2f} s")
    # The same number of battles as a what-if run fights them (tactical/whatif/pool.py): one
    # worker process per core (at most 4, the site's default), each battle with its own seed.
    processes = args.processes or min(os.cpu_count() or 1, 4)
    sides = [{"key": key, "ships": [{"design": SAMPLE_DESIGNS[(i + k * 2) % 4].to_dict()} for i in range(1, 6)]}
             for k, key in enumerate(("a", "b"))]
    start = time.perf_counter()
    tally = whatif_pool.play_trials(sides, "bench-tactical-whatif", args.small, processes=processes)
    whatif_s = time.perf_counter() - start
    res = tally.result()
    print(f"{args.small} five-vs-five what-if battles on {processes} worker process(es): {whatif_s:.2f} s; "
          f"fleet A held the field in {res['wins']['a']}, fleet B in {res['wins']['b']}, nobody in {res['draws']}")
    what_if_scaled = whatif_s * 1000 / max(args.small, 1)
    print("goals:")
    print(
        f"  {'met   ' if big <= BIG_GOAL_S else 'MISSED'}  one 25-vs-25 battle ≤ {BIG_GOAL_S:.0f} s: "
        f"{big:.3f} s (median)"
    )
    print(f"  {'met   ' if what_if_scaled <= SMALL_GOAL_S else 'MISSED'}  1,000 five-vs-five what-if battles ≤ "
          f"{SMALL_GOAL_S:.0f} s: {what_if_scaled:.2f} s on {processes} process(es)"
          + ("" if args.small == 1000 else f" (scaled from {args.small})")
          + f"; one process: {scaled:.2f} s, {scaled / ref:.1f}× the reference loop")


if __name__ == "__main__":
    main()
