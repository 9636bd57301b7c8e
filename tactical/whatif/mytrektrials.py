"""What-if battles of My Trek V (pure Python; here beside ``camtrials.py`` rather than in the rule
book's package, which never imports ``random``): one doctrine battle from a job and its seed, and the
tally. A job is a set-up (``fleets.new_battle``'s JSON), or ``{"random": points}``: battle ``i``
draws its own two random fleets of that many points from its seed (the 1,000-battle bench)."""

from __future__ import annotations

import random

from tactical.rules.mytrek import fleets as F
from tactical.rules.mytrek.play import BOOK


def setup_for(job: dict, seed: str, index: int) -> dict:
    if "random" in job:
        rng = random.Random(f"mytrek fleets/{seed}/{index}")
        return {
            "sides": {
                str(side): [F.design_json(d) for d in F.random_fleet(rng, int(job["random"]))]
                for side in (1, 2)
            }
        }
    return job


def play_job(job: dict, seed: str, index: int) -> dict:
    from campaign.rules.dice import SeededDice, derive_seed  # the dice service (pure, standard library)

    dice = SeededDice(derive_seed(f"what-if/{seed}/{index}"))
    end = BOOK.simulate(BOOK.new_battle(setup_for(job, seed, index), dice), dice)
    out = BOOK.outcome(end)
    return {"winner": out["winner"], "turns": out["turns"]}


class Tally:
    def __init__(self):
        self.wins = {"1": 0, "2": 0, "draw": 0}
        self.turns = 0

    def add(self, result: dict) -> None:
        w = result["winner"]
        self.wins[str(w) if w is not None else "draw"] += 1
        self.turns += result["turns"]

    def result(self) -> dict:
        n = sum(self.wins.values())
        return {"trials": n, "wins": dict(self.wins), "mean_turns": round(self.turns / n, 2) if n else 0}


def tally_for(job):
    return Tally()


def same(value):
    return value
