"""Event hashes of seeded doctrine battles of each rule book (issue 27 item 6): a reshaping of an
engine that only moves code must leave every event of every battle as it was.

Plays ``--battles`` (default 200) doctrine-against-doctrine battles of each book from fixed seeds
— Buoyz 'N Da 'Hood: random CAM-legal 60-point fleets of one random Period (as ``bench/buoyz.py``);
Event Horizon: five against five of the rule book's sample designs (as ``bench/tactical.py``),
the invader deploying first every other battle — and prints, for each book, one SHA-256 over
every event of every battle (kind, text and data, in order) and the final state's outcome. Run it
before and after a reshaping and compare the lines. ``--each`` prints a hash for every battle
too (to find the first that differs). No database.

    .venv/bin/python bench/eventhash.py [--battles 200] [--book buoyz|eventhorizon] [--each]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

# The script's own folder would come first on sys.path, where bench/http.py shadows the standard
# library's http package; put the project root there instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campaign.rules.dice import SeededDice, derive_seed  # noqa: E402


def _event_line(kind: str, text: str, data) -> bytes:
    return json.dumps([kind, text, data], sort_keys=True, default=repr).encode() + b"\n"


def buoyz_battle(i: int) -> str:
    from tactical.rules.buoyz.deploy import deploy
    from tactical.rules.buoyz.doctrine import doctrine_action
    from tactical.rules.buoyz.engine import apply, outcome
    from tactical.rules.buoyz.sds import random_fleet

    name = f"eventhash-buoyz-{i}"
    rng = random.Random(name)
    period = rng.randint(1, 6)
    state = deploy({1: random_fleet(rng, period, 60), 2: random_fleet(rng, period, 60)})
    dice = SeededDice(derive_seed(name))
    h = hashlib.sha256()
    while not state.over:
        res = apply(state, doctrine_action(state), dice)
        for e in res.events:
            h.update(_event_line(e.kind, e.text, dict(e.data)))
        state = res.state
    h.update(repr(outcome(state)).encode())
    return h.hexdigest()


def eventhorizon_battle(i: int) -> str:
    from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS
    from tactical.rules.eventhorizon import CampaignShip, deploy, outcome, simulate

    fleets = {1: [CampaignShip(k, SAMPLE_DESIGNS[k % 4]) for k in range(1, 6)],
              2: [CampaignShip(1000 + k, SAMPLE_DESIGNS[(k + 2) % 4]) for k in range(1, 6)]}
    dice = SeededDice(derive_seed(f"eventhash-eventhorizon-{i}"))
    state = simulate(deploy(fleets, dice, invader=2, aewa=bool(i % 2)), dice)
    h = hashlib.sha256()
    for e in state.log:
        h.update(_event_line(e.kind, e.text, dict(e.data)))
        h.update(json.dumps([list(e.sides), e.public]).encode())
    h.update(repr(outcome(state)).encode())
    return h.hexdigest()


BOOKS = {"buoyz": buoyz_battle, "eventhorizon": eventhorizon_battle}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--battles", type=int, default=200)
    p.add_argument("--book", choices=sorted(BOOKS), action="append", help="only this book (default: every book)")
    p.add_argument("--each", action="store_true", help="print every battle's hash too")
    args = p.parse_args()
    for book in args.book or sorted(BOOKS):
        total = hashlib.sha256()
        for i in range(args.battles):
            one = BOOKS[book](i)
            total.update(one.encode())
            if args.each:
                print(f"{book} {i} {one}")
        print(f"{book} {args.battles} battles {total.hexdigest()}", flush=True)


if __name__ == "__main__":
    main()
