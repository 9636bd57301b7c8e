"""Star Sectors benches (issue 28): one 100-point battle doctrine against doctrine (goal ≤ 0.5 s),
then N 25-point battles through the what-if path (``tactical.whatif.pool.play_run``; goal ≤ 20 s
for 1,000), and the 1,000-battle run from random 25- and 100-point fleets: every battle must end
with a defined result, raise nothing and keep the properties (no ship beyond its MF or warp
factor, every refusal clean). Prints the figures; exits non-zero on any failure.

    .venv/bin/python bench/starsectors.py [--battles 1000] [--whatif 1000]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # not bench/ (its http.py)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from campaign.rules.dice import SeededDice, derive_seed  # noqa: E402
from tactical.rules.starsectors import BOOK  # noqa: E402
from tactical.rules.starsectors import actions as A  # noqa: E402
from tactical.rules.starsectors import core as C  # noqa: E402
from tactical.rules.starsectors.engine import _begin  # noqa: E402
from tactical.rules.starsectors.fleets import sample_setup  # noqa: E402


def checked_battle(setup: dict, seed: str) -> dict:
    """A doctrine battle with the properties checked at every step."""
    dice = SeededDice(derive_seed(seed))
    state = BOOK.new_battle(setup, dice)
    steps = 0
    while not BOOK.is_over(state):
        action = BOOK.doctrine_action(state)
        before = state
        state = BOOK.apply(state, action, dice).state
        steps += 1
        ship = state.ship(action.ship)
        if isinstance(action, A.Move) and ship.alive and ship.t_mf > C.mf(state, ship) + 1:
            raise AssertionError(f"{seed}: ship {ship.id} spent {ship.t_mf} MF, over its MF")
        if isinstance(action, A.Warp):
            mover = before.ship(action.ship)
            if before.active != mover.id:  # its turn begins with this order: the turn's values, fresh
                mover = _begin(mover, before)
            wf = C.warp_factor(before, mover)
            reach = (wf + 1) // 2 if action.reverse else wf
            if action.hexes > reach:
                raise AssertionError(f"{seed}: a jump of {action.hexes} over warp factor {wf}")
        if steps > 50_000:
            raise AssertionError(f"{seed}: no end")
    out = BOOK.outcome(state)
    if out["over"] is not True or "winner" not in out:
        raise AssertionError(f"{seed}: no defined result")
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--battles", type=int, default=1000)
    parser.add_argument("--whatif", type=int, default=1000)
    args = parser.parse_args()
    failures = 0
    rng = random.Random("bench 100")
    setup = sample_setup(rng, 100)
    t = time.perf_counter()
    dice = SeededDice(derive_seed("bench 100-point"))
    end = BOOK.simulate(BOOK.new_battle(setup, dice), dice)
    print(f"one 100-point battle ({len(end.ships)} ships, {end.round - 1} rounds): {time.perf_counter() - t:.2f} s "
          f"(goal 0.5 s); winner {BOOK.outcome(end)['winner']}")
    if args.whatif:
        import django

        django.setup()
        from tactical.whatif import pool

        t = time.perf_counter()
        result = pool.play_run("starsectors", {"points": 25}, "bench", args.whatif).result()
        print(f"{args.whatif} 25-point battles through the what-if path: {time.perf_counter() - t:.1f} s "
              f"(goal 20 s for 1,000): {result}")
    t = time.perf_counter()
    wins: dict = {}
    for i in range(args.battles):
        points = 25 if i % 2 == 0 else 100
        try:
            out = checked_battle(sample_setup(random.Random(f"bench/{i}"), points), f"bench battle {i}")
        except Exception as exc:  # every failure counted and shown, none hidden
            failures += 1
            print(f"battle {i} ({points} points) FAILED: {exc!r}")
            continue
        wins[str(out["winner"])] = wins.get(str(out["winner"]), 0) + 1
    print(f"{args.battles} checked battles (25 and 100 points, alternating): {time.perf_counter() - t:.1f} s; "
          f"results {dict(sorted(wins.items()))}; failures {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
