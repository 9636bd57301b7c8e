"""Event hashes of seeded doctrine battles, one per rule book (issue 27, "Done when").

Plays ``--battles`` (default 200) seeded doctrine-against-doctrine battles of each built-in rule
book — Event Horizon five-vs-five from the sample designs, Buoyz between random CAM-legal
60-point fleets — and prints one SHA-256 per book over every event of every battle (kind, text,
data and, where the book has them, the fog-of-war tags) and every dice roll. A refactoring that
keeps the rules keeps these hashes; compare the output before and after. ``--each`` prints a
hash for every battle too (to find the first that differs).

``--fog`` prints instead, per book and per side, one SHA-256 over the texts of the events that
side may read (``kit.visible``: the fog-of-war tags the engine set where it made each event), so a
change to fog of war shows as a changed side. Buoyz plays each seed twice: the random fleets above,
and a random fleet against one to three cloak-capable SDs (10.2), lurking every other battle.

    .venv/bin/python bench/event_hashes.py [--battles 200] [--book eventhorizon|buoyz] [--each] [--fog]
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


def eventhorizon(i: int, digest) -> tuple:
    """Battle ``i``: its events (every roll recorded in ``digest``) and the steps it took."""
    from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS
    from tactical.rules.eventhorizon import CampaignShip, deploy, simulate

    fleets = {1: [CampaignShip(k, SAMPLE_DESIGNS[k % 4]) for k in range(1, 6)],
              2: [CampaignShip(1000 + k, SAMPLE_DESIGNS[(k + 2) % 4]) for k in range(1, 6)]}
    dice = _Recording(SeededDice(derive_seed(f"event-hash/eh/{i}")), digest)
    end = simulate(deploy(fleets, dice, invader=2, aewa=bool(i % 2)), dice)
    for e in end.log:
        digest.update((_event_line(e) + "\n").encode())
    digest.update(f"end {i} {end.cards_drawn}\n".encode())
    return (tuple(end.log),)


def _buoyz_battle(i: int, name: str, fleets, digest, lurking=None) -> tuple:
    from tactical.rules.buoyz.deploy import deploy
    from tactical.rules.buoyz.doctrine import doctrine_action
    from tactical.rules.buoyz.engine import apply

    state = deploy(fleets, lurking=lurking or {})
    dice = _Recording(SeededDice(derive_seed(name)), digest)
    events, steps = [], 0
    while not state.over:
        res = apply(state, doctrine_action(state), dice)
        for e in res.events:
            digest.update((_event_line(e) + "\n").encode())
        events.extend(res.events)
        state = res.state
        steps += 1
    digest.update(f"end {i} {steps}\n".encode())
    return tuple(events)


def buoyz(i: int, digest, cloaks: bool = False) -> tuple:
    from tactical.rules.buoyz.sds import CATALOGUE, has, random_fleet

    rng = random.Random(f"event-hash/bz/{i}")
    period = rng.randint(1, 6)
    battles = [_buoyz_battle(i, f"event-hash/bz/{i}", {1: random_fleet(rng, period, 60),
                                                    2: random_fleet(rng, period, 60)}, digest)]
    rng = random.Random(f"event-hash/bz-cloaks/{i}")
    period = rng.randint(1, 6)
    cloaked = [sd for sd in CATALOGUE.values() if sd.available_in(period) and has(sd.special_abilities, "Cloak")]
    if cloaks and cloaked:
        ours = random_fleet(rng, period, 60)
        theirs = [rng.choice(cloaked) for _ in range(rng.randint(1, 3))]
        battles.append(_buoyz_battle(i, f"event-hash/bz-cloaks/{i}", {1: ours, 2: theirs}, digest,
                                     {len(ours) + 1: (1, 1)} if i % 2 else None))
    return tuple(battles)


def events_hash(book: str, n: int, each: bool = False) -> str:
    digest = hashlib.sha256()
    for i in range(n):
        globals()[book](i, digest)
        if each:
            print(f"{book} {i} {digest.hexdigest()}")
    return digest.hexdigest()


def fog_hashes(book: str, n: int, each: bool = False) -> dict:
    """Per side: a hash of the texts of the events it may read, battle by battle."""
    from tactical.rules.kit import visible

    digests: dict = {}
    for i in range(n):
        for events in (buoyz(i, hashlib.sha256(), cloaks=True) if book == "buoyz"
                          else eventhorizon(i, hashlib.sha256())):
            for side in (1, 2):
                d = digests.setdefault(side, hashlib.sha256())
                d.update("".join(f"{e.kind}|{e.text}\n" for e in visible(events, side)).encode() + b"-- battle\n")
        if each:
            print(f"{book} {i} " + " ".join(f"side {s} {d.hexdigest()[:16]}" for s, d in digests.items()))
    return {side: d.hexdigest() for side, d in digests.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=200)
    parser.add_argument("--book", choices=("eventhorizon", "buoyz"), action="append")
    parser.add_argument("--each", action="store_true", help="print the running hash after every battle too")
    parser.add_argument("--fog", action="store_true", help="per side, a hash of the event texts it may read")
    args = parser.parse_args()
    for book in args.book or ("eventhorizon", "buoyz"):
        if args.fog:
            for side, h in fog_hashes(book, args.battles, args.each).items():
                print(f"{book}: {args.battles} battles: side {side} reads {h}", flush=True)
        else:
            print(f"{book}: {args.battles} battles: {events_hash(book, args.battles, args.each)}", flush=True)


if __name__ == "__main__":
    main()
