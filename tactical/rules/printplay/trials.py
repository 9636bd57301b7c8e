"""What-if battles of Print&Play (pure Python; ``tactical/whatif/pool.py`` and the workers import
it by name): one battle from a job and its seed, its JSON, and the tally.

A job is a set-up (``play.setup_for``): ``{"mat", "terrain", "sides": {"1": {"ships": [...]}, …}}``
with 2 to 6 sides. Each battle gets its own dice, derived from the run's seed and its index.
"""

from __future__ import annotations

from typing import Any


def random_fleets(sides: int, points: int, dice) -> dict:
    """Fleets bought at random from the roster, ``points`` a side (a die per ship bought, as
    the pickup computer buys its fleet), for ``sides`` sides: a set-up."""
    from .dashboards import ROSTER
    from .play import setup_for
    from .state import MATS

    pool = sorted(ROSTER.values(), key=lambda d: (d.points, d.key))
    fleets = {}
    for seat in range(1, sides + 1):
        left, fleet = points, []
        while len(fleet) < 6:
            fits = [d for d in pool if d.points <= left]
            if not fits:
                break
            pick = (
                fits[dice.roll(1, len(fits), f"what-if: side {seat} buys a ship").faces[0] - 1]
                if len(fits) > 1
                else fits[0]
            )
            fleet.append(pick.key)
            left -= pick.points
        fleets[seat] = fleet or [pool[0].key]
    mat = "4x6" if sides > 2 else "4x4"
    w, h = MATS[mat]
    terrain = [{"kind": "asteroids", "at": [w / 2 - 10, h / 2], "radius": 4},
               {"kind": "nebula", "at": [w / 2 + 10, h / 2], "radius": 4}]  # as a pickup battle's (PP21)
    return setup_for(fleets, mat=mat, terrain=terrain)


def play_job(job: Any, seed: str, index: int) -> dict:
    """One battle: ``job`` is a set-up, or ``{"random": {"sides": n, "points": p}}`` (random
    fleets drawn with the battle's own dice)."""
    from campaign.rules.dice import SeededDice, derive_seed

    from .book import BOOK

    dice = SeededDice(derive_seed(f"what-if/printplay/{seed}/{index}"))
    if "random" in job:
        job = random_fleets(int(job["random"]["sides"]), int(job["random"]["points"]), dice)
    end = BOOK.simulate(BOOK.new_battle(job, dice), dice)
    result = BOOK.outcome(end)
    return {"winner": result["winner"], "rounds": result.get("rounds", 0),
            "destroyed": sum(1 for s in result["ships"] if s["fate"] == "destroyed")}


def run(params: Any, trials: int, progress: Any, processes: int = 1) -> dict:
    """The site's runner (``Trial.run``, ``tactical/whatif/runs.py``): a stored run's params are
    ``{"ruleset": "printplay", "seed": …, "job": a set-up or {"random": …}}``; its battles are fought
    in this process in index order (the same tally however they are spread) and added up."""
    job, seed = params["job"], str(params["seed"])
    tally = tally_for(job)
    for i in range(trials):
        tally.add(play_job(job, seed, i))
        progress(i + 1)
    return tally.result()


def same(value: Any) -> Any:
    return value


class Tally:
    def __init__(self, job: Any = None):
        job = job or {}
        sides = sorted(job.get("sides") or [str(s) for s in range(1, int(job.get("random", {}).get("sides", 2)) + 1)])
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


__all__ = ["Tally", "play_job", "random_fleets", "run", "same", "tally_for"]
