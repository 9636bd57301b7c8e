"""Star Sectors benches (issue 28): one 100-point battle doctrine against doctrine (goal ≤ 0.5 s),
then N 25-point battles through the what-if path (``tactical.whatif.pool.play_run``; goal ≤ 20 s
for 1,000 on the 2-core machine, ``--processes 2``), and the 1,000-battle run from random 25- and
100-point fleets: every battle must end with a defined result, raise nothing and keep the
properties (no ship beyond its MF or warp factor). Prints wall and CPU seconds, the load, how the
battles ended (destruction, withdrawal — ruling SS24 — or the round cap) and exits non-zero on any
failure. ``--anatomy N`` prints instead where N what-if battles spend their time (the what-if
path against the bare engine, steps a battle, CPU a step). ``--hash N`` prints instead one SHA-256
over every event and die of N seeded doctrine battles (25 and 100 points alternating): a change
that keeps the rules and the doctrine keeps it.

    .venv/bin/python bench/starsectors.py [--battles 1000] [--whatif 1000] [--processes 2] [--hash 40]
                                          [--anatomy 40]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # not bench/ (its http.py)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from campaign.rules.dice import SeededDice, derive_seed  # noqa: E402
from tactical.rules.starsectors import BOOK  # noqa: E402
from tactical.rules.starsectors import actions as A  # noqa: E402
from tactical.rules.starsectors import core as C  # noqa: E402
from tactical.rules.starsectors.engine import _begin  # noqa: E402
from tactical.rules.starsectors.fleets import sample_setup  # noqa: E402


def ending(end) -> str:
    """How a battle ended: a side destroyed, a side withdrawn (ruling SS24), or the round cap."""
    if end.round > end.round_cap and len({s.side for s in end.ships if s.alive}) > 1:
        return "round cap"
    return "withdrawal" if any(s.withdrawn for s in end.ships) else "destruction"


def checked_battle(setup: dict, seed: str, with_state: bool = False):
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
    return (out, state) if with_state else out


def _checked(i: int) -> tuple:
    points = 25 if i % 2 == 0 else 100
    try:
        out, end = checked_battle(sample_setup(random.Random(f"bench/{i}"), points), f"bench battle {i}", True)
    except Exception as exc:  # noqa: BLE001 - every failure counted and shown, none hidden
        return i, points, None, f"{type(exc).__name__}: {exc}"
    return i, points, (out["winner"], ending(end), out["rounds"]), ""


class _Recording:
    def __init__(self, dice, digest) -> None:
        self._dice, self._digest = dice, digest

    def roll(self, count, sides, purpose):
        r = self._dice.roll(count, sides, purpose)
        self._digest.update(f"roll {count}d{sides} {purpose} {list(r.faces)}\n".encode())
        return r

    def __getattr__(self, name):
        return getattr(self._dice, name)


def event_hash(n: int) -> tuple[str, Counter]:
    digest, endings = hashlib.sha256(), Counter()
    for i in range(n):
        setup = sample_setup(random.Random(f"hash/{i}"), 25 if i % 2 == 0 else 100)
        dice = _Recording(SeededDice(derive_seed(f"hash battle {i}")), digest)
        end = BOOK.simulate(BOOK.new_battle(setup, dice), dice)
        for e in end.log:
            row = {"kind": e.kind, "text": e.text, "data": e.data}
            sides, public = tuple(getattr(e, "sides", ()) or ()), getattr(e, "public", True)
            if sides or not public:
                row["sides"], row["public"] = list(sides), public
            digest.update((json.dumps(row, sort_keys=True, default=repr) + "\n").encode())
        out = BOOK.outcome(end)
        digest.update(f"end {i} {out['winner']} {out['rounds']}\n".encode())
        endings[ending(end)] += 1
    return digest.hexdigest(), endings


def anatomy(n: int) -> None:
    """Where a 25-point what-if battle's time goes: the same N battles through the what-if path
    (``trial.play_job``) and on the bare engine (the doctrine's order, then ``apply``), with the
    set-up, the steps and the CPU per step."""
    from tactical.rules.starsectors.doctrine import doctrine_action
    from tactical.rules.starsectors.sequence import apply
    from tactical.rules.starsectors.trial import play_job, setup_of

    cpu = time.process_time()
    for i in range(n):
        play_job({"points": 25}, "bench", i)
    whatif = time.process_time() - cpu
    setup_cpu = play_cpu = 0.0
    steps, rounds, ships, kinds = 0, 0, 0, Counter()
    for i in range(n):
        t = time.process_time()
        dice = SeededDice(derive_seed(f"what-if/bench/{i}"))
        state = BOOK.new_battle(setup_of({"points": 25}, "bench", i), dice)
        t2 = time.process_time()
        setup_cpu += t2 - t
        ships += len(state.ships)
        while not state.over:
            action = doctrine_action(state)
            kinds[type(action).__name__] += 1
            state = apply(state, action, dice).state
            steps += 1
        play_cpu += time.process_time() - t2
        rounds += min(state.round, state.round_cap)
    print(f"{n} 25-point what-if battles: {whatif / n * 1000:.1f} ms CPU a battle through the what-if path; "
          f"on the bare engine {setup_cpu / n * 1000:.1f} ms set-up + {play_cpu / n * 1000:.1f} ms play; "
          f"{ships / n:.1f} ships, {rounds / n:.1f} rounds, {steps / n:.0f} steps a battle, "
          f"{play_cpu / max(1, steps) * 1e6:.0f} µs CPU a step (doctrine and apply)")
    print("  steps a battle by order: " + ", ".join(f"{k} {v / n:.0f}" for k, v in kinds.most_common()))


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--battles", type=int, default=1000,
                        help="checked doctrine battles from random 25- and 100-point fleets (default 1000; 0: none)")
    parser.add_argument("--whatif", type=int, default=1000,
                        help="25-point battles through the what-if path (default 1000; 0: none)")
    parser.add_argument("--processes", type=int, default=1,
                        help="worker processes for both runs (default 1; the goal is measured with 2)")
    parser.add_argument("--hash", type=int, default=0, help="print the event hash of N seeded battles and stop")
    parser.add_argument("--anatomy", type=int, default=0,
                        help="where N 25-point what-if battles spend their time (steps, CPU a step) and stop")
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    if args.anatomy:
        anatomy(args.anatomy)
        return 0
    if args.hash:
        t = time.process_time()
        digest, endings = event_hash(args.hash)
        print(f"event hash of {args.hash} seeded battles: {digest[:16]} ({time.process_time() - t:.1f} s CPU); "
              f"how they ended {dict(endings)}")
        return 0
    failures = 0
    rng = random.Random("bench 100")
    setup = sample_setup(rng, 100)
    t, cpu = time.perf_counter(), time.process_time()
    dice = SeededDice(derive_seed("bench 100-point"))
    end = BOOK.simulate(BOOK.new_battle(setup, dice), dice)
    print(f"one 100-point battle ({len(end.ships)} ships, {min(end.round, end.round_cap)} rounds, {ending(end)}): "
          f"{time.perf_counter() - t:.2f} s wall, {time.process_time() - cpu:.2f} s CPU (goal 0.5 s); "
          f"winner {BOOK.outcome(end)['winner']}")
    if args.whatif:
        import django

        django.setup()
        from tactical.whatif import pool

        t, cpu, child = time.perf_counter(), time.process_time(), _children_cpu()
        result = pool.play_run("starsectors", {"points": 25}, "bench", args.whatif,
                               processes=args.processes).result()
        print(f"{args.whatif} 25-point battles through the what-if path ({args.processes} process(es)): "
              f"{time.perf_counter() - t:.1f} s wall, {time.process_time() - cpu + _children_cpu() - child:.1f} s CPU "
              f"(goal 20 s for 1,000): {result}")
        if result["trials"] != args.whatif:
            failures += 1
    if args.battles:
        t, cpu, child = time.perf_counter(), time.process_time(), _children_cpu()
        wins: Counter = Counter()
        endings: Counter = Counter()
        rounds: list = []
        rows = []
        with ProcessPoolExecutor(args.processes) as ex:
            for row in ex.map(_checked, range(args.battles), chunksize=5):
                rows.append(row)
                if len(rows) % 100 == 0:
                    print(f"  {len(rows)} battles checked, {time.perf_counter() - t:.0f} s", flush=True)
        for i, points, got, error in rows:
            if error:
                failures += 1
                print(f"battle {i} ({points} points) FAILED: {error}")
                continue
            winner, how, n = got
            wins[str(winner)] += 1
            endings[(points, how)] += 1
            rounds.append(n)
        print(f"{args.battles} checked battles (25 and 100 points, alternating): {time.perf_counter() - t:.1f} s wall, "
              f"{time.process_time() - cpu + _children_cpu() - child:.1f} s CPU; results {dict(sorted(wins.items()))}; "
              f"failures {failures}; mean rounds {sum(rounds) / max(1, len(rounds)):.1f}")
        for points in (25, 100):
            n = sum(v for (p, _), v in endings.items() if p == points) or 1
            print(f"  {points} points, how they end: " + ", ".join(
                f"{how} {endings[(points, how)]} ({100 * endings[(points, how)] / n:.0f}%)"
                for how in ("destruction", "withdrawal", "round cap")))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
