"""Event hashes of seeded doctrine battles, one per rule book (issue 27, "Done when").

Plays ``--battles`` (default 200) seeded doctrine-against-doctrine battles of each built-in rule
book — Event Horizon five-vs-five from the sample designs, Buoyz between random CAM-legal
60-point fleets — and prints one SHA-256 per book over every event of every battle (kind, text,
data and, where the book has them, the fog-of-war tags) and every dice roll. A refactoring that
keeps the rules keeps these hashes; compare the output before and after.

    .venv/bin/python bench/event_hashes.py [--battles 200] [--book eventhorizon|buoyz]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campaign.rules.dice import SeededDice, derive_seed  # noqa: E402


class _Recording:
    """Dice that record every roll they serve."""

    def __init__(self, dice, digest):
        self._dice, self._digest = dice, digest

    def roll(self, count, sides, purpose):
        r = self._dice.roll(count, sides, purpose)
        self._digest.update(f"roll {count}d{sides} {purpose} {list(r.faces)}\n".encode())
        return r

    def __getattr__(self, name):
        return getattr(self._dice, name)


def _event_line(e) -> str:
    row = {"kind": e.kind, "text": e.text, "data": e.data}
    # Fog-of-war tags: hashed only when set to something other than "everyone".
    sides = tuple(getattr(e, "sides", ()) or ())
    public = getattr(e, "public", True)
    if sides or not public:
        row["sides"], row["public"] = list(sides), public
    return json.dumps(row, sort_keys=True, default=repr)


def eventhorizon(n: int) -> str:
    from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS
    from tactical.rules.eventhorizon import CampaignShip, deploy, simulate

    digest = hashlib.sha256()
    for i in range(n):
        fleets = {1: [CampaignShip(k, SAMPLE_DESIGNS[k % 4]) for k in range(1, 6)],
                  2: [CampaignShip(1000 + k, SAMPLE_DESIGNS[(k + 2) % 4]) for k in range(1, 6)]}
        dice = _Recording(SeededDice(derive_seed(f"event-hash/eh/{i}")), digest)
        state = deploy(fleets, dice, invader=2, aewa=bool(i % 2))
        end = simulate(state, dice)
        for e in end.log:
            digest.update((_event_line(e) + "\n").encode())
        steps = end.cards_drawn
        digest.update(f"end {i} {steps}\n".encode())
    return digest.hexdigest()


def buoyz(n: int) -> str:
    from tactical.rules.buoyz.deploy import deploy
    from tactical.rules.buoyz.doctrine import doctrine_action
    from tactical.rules.buoyz.engine import apply
    from tactical.rules.buoyz.sds import random_fleet

    digest = hashlib.sha256()
    for i in range(n):
        rng = random.Random(f"event-hash/bz/{i}")
        period = rng.randint(1, 6)
        state = deploy({1: random_fleet(rng, period, 60), 2: random_fleet(rng, period, 60)})
        dice = _Recording(SeededDice(derive_seed(f"event-hash/bz/{i}")), digest)
        steps = 0
        while not state.over:
            res = apply(state, doctrine_action(state), dice)
            for e in res.events:
                digest.update((_event_line(e) + "\n").encode())
            state = res.state
            steps += 1
        digest.update(f"end {i} {steps}\n".encode())
    return digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=200)
    parser.add_argument("--book", choices=("eventhorizon", "buoyz"), action="append")
    args = parser.parse_args()
    for book in args.book or ("eventhorizon", "buoyz"):
        print(f"{book}: {args.battles} battles: {globals()[book](args.battles)}", flush=True)


if __name__ == "__main__":
    main()
