"""Star Sectors what-if battles (``kit.trial.Trial``): a job is ``{"points": 25, "fleets": {"1":
[ships], "2": [ships]}}`` (the set-up's ship entries) or ``{"points": 25}`` alone (random fleets
for each battle from its own seed); battle ``index`` rolls from its own seed only."""

from __future__ import annotations

from typing import Any

from campaign.rules.dice import SeededDice, derive_seed

from .book import BOOK
from .fleets import DiceRng, random_terrain, sample_setup


def setup_of(job: dict[str, Any], seed: str, index: int) -> dict[str, Any]:
    rng = DiceRng(SeededDice(derive_seed(f"starsectors what-if set-up/{seed}/{index}")))
    points = int(job.get("points", 25))
    if "fleets" not in job:
        return sample_setup(rng, points, int(job.get("sides", 2)))
    width, height = (14, 10) if points <= 40 else (20, 16)
    return {"width": width, "height": height, "points": points,
            "sides": {str(k): {"ships": v} for k, v in job["fleets"].items()},
            "terrain": job.get("terrain") or random_terrain(rng, width, height, rng.randint(2, 5))}


def play_job(job: dict[str, Any], seed: str, index: int) -> dict[str, Any]:
    dice = SeededDice(derive_seed(f"what-if/{seed}/{index}"))
    end = BOOK.simulate(BOOK.new_battle(setup_of(job, seed, index), dice), dice)
    out = BOOK.outcome(end)
    return {"winner": out["winner"], "rounds": out["rounds"]}


def same(value):
    return value


class Tally:
    def __init__(self) -> None:
        self.wins: dict[str, int] = {}
        self.trials = 0
        self.rounds = 0

    def add(self, result: dict[str, Any]) -> None:
        key = "draw" if result["winner"] is None else str(result["winner"])
        self.wins[key] = self.wins.get(key, 0) + 1
        self.trials += 1
        self.rounds += result["rounds"]

    def result(self) -> dict[str, Any]:
        rates = {k: round(v / self.trials, 4) for k, v in sorted(self.wins.items())} if self.trials else {}
        return {"trials": self.trials, "wins": dict(sorted(self.wins.items())), "win_rates": rates,
                "mean_rounds": round(self.rounds / self.trials, 2) if self.trials else 0}


def tally_for(job: dict[str, Any]) -> Tally:
    return Tally()


__all__ = ["Tally", "play_job", "same", "setup_of", "tally_for"]
