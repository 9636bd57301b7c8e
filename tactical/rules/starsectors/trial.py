"""Star Sectors what-if battles (``kit.trial.Trial``): a job is ``{"points": 25, "fleets": {"1":
[ships], "2": [ships]}}`` (the set-up's ship entries), a whole set-up as the pickup fleet book makes it
(the generic what-if pages), or ``{"points": 25}`` alone (random fleets for each battle from its own seed);
battle ``index`` rolls from its own seed only."""

from __future__ import annotations

from typing import Any

from campaign.rules.dice import SeededDice, derive_seed

from .book import BOOK
from .fleets import DiceRng, random_terrain, sample_setup


def setup_of(job: dict[str, Any], seed: str, index: int) -> dict[str, Any]:
    rng = DiceRng(SeededDice(derive_seed(f"starsectors what-if set-up/{seed}/{index}")))
    if isinstance(job.get("sides"), dict):
        return job  # a whole set-up, as the pickup fleet book makes it (the generic what-if pages)
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
    def __init__(self, sides=(1, 2)) -> None:
        # every side and "draw" listed from the start, as kit.trial.WinTally (the generic what-if page reads it)
        self.wins: dict[str, int] = {**{str(side): 0 for side in sides}, "draw": 0}
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
    sides = job.get("sides")
    count = len(sides) if isinstance(sides, dict) else int(sides or 2)
    return Tally(tuple(range(1, count + 1)))


__all__ = ["Tally", "play_job", "same", "setup_of", "tally_for"]
