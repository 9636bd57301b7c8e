"""What-if battles of Print&Play (pure Python; ``tactical/whatif/pool.py`` and the workers import
it by name): one battle from a job and its seed, its JSON, and the tally.

A job is a set-up (``play.setup_for``): ``{"mat", "terrain", "sides": {"1": {"ships": [...]}, …}}``
with 2 to 6 sides. Each battle gets its own dice, derived from the run's seed and its index.
"""

from __future__ import annotations

from typing import Any


def play_job(job: Any, seed: str, index: int) -> dict:
    from campaign.rules.dice import SeededDice, derive_seed

    from .book import BOOK

    dice = SeededDice(derive_seed(f"what-if/printplay/{seed}/{index}"))
    end = BOOK.simulate(BOOK.new_battle(job, dice), dice)
    result = BOOK.outcome(end)
    return {"winner": result["winner"], "rounds": result.get("rounds", 0),
            "destroyed": sum(1 for s in result["ships"] if s["fate"] == "destroyed")}


def same(value: Any) -> Any:
    return value


class Tally:
    def __init__(self, job: Any = None):
        sides = sorted((job or {}).get("sides", {"1": 0, "2": 0}))
        self.wins = {str(s): 0 for s in sides}
        self.wins["draw"] = 0
        self.rounds = 0
        self.destroyed = 0

    def add(self, result: dict) -> None:
        w = result["winner"]
        key = str(w) if w is not None else "draw"
        self.wins[key] = self.wins.get(key, 0) + 1
        self.rounds += result["rounds"]
        self.destroyed += result["destroyed"]

    def result(self) -> dict:
        n = sum(self.wins.values())
        return {"trials": n, "wins": dict(self.wins),
                "mean_rounds": round(self.rounds / n, 3) if n else 0,
                "mean_destroyed": round(self.destroyed / n, 3) if n else 0}


def tally_for(job: Any) -> Tally:
    return Tally(job)


__all__ = ["Tally", "play_job", "same", "tally_for"]
