"""A rule book's what-if battles, as a registry record (pure Python, standard library only).

A what-if run fights ``n`` doctrine-against-doctrine battles from one stored *job* (JSON: the
two forces and whatever the book needs) and adds them up in index order; battle ``i`` rolls from
its own seed only, so the tally is the same however the battles are spread over processes or
machines. A book registers ``ResolverRecord(trial=Trial(...))`` naming four functions by
``"module:function"`` path (worker processes and Celery workers import them by name):

``play(job, seed, index) -> result``   one battle (pure; battle ``index``'s own dice)
``to_json(result) -> JSON`` / ``from_json(JSON) -> result``   a result across a process
``tally(job) -> tally``                an empty tally: ``tally.add(result)`` in index order, then
                                       ``tally.result()`` (the run's JSON)

and, for the site (paths into its Django side, read only there): ``run`` (the runner: the
battles through ``tactical.whatif.pool.play_run`` and whatever the result shows beside them, such
as the auto-resolve odds; it must fight them through ``play_run``, once: with a broker the Celery
chunk tasks of ``tactical/whatif/chunks.py`` learn the job and seed from that call and finish the
run by answering it), ``api`` and ``page`` (the run's API JSON and page; empty: the
default ones of ``tactical/whatif/``) and ``form`` (the URL name of the book's own "new what-if"
page; empty: the generic one, ``what-if/new/<book>/``).

A book that names none of them gets the generic what-if of ``tactical/whatif/books.py``: its
forces are bought from its pickup ``FleetBook`` (``ResolverRecord.fleets``), the job its battles
are fought from is what ``FleetBook.setup`` makes of them (the same setup a pickup battle starts
from), the runner is ``DEFAULT_RUN`` and the run page shows each side's win rate from its tally's
result, which must then hold ``"wins": {"1": n, "2": n, "draw": n}`` (``WinTally`` makes one).

``key`` is the value a stored run's ``params["ruleset"]`` holds (``"eventhorizon"``; the CAM
what-if on the Buoyz engine keeps ``"buoyz"`` so stored runs stay readable).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def load(path: str) -> Callable[..., Any]:
    """``"package.module:function"`` → the function."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


DEFAULT_RUN = "tactical.whatif.pool:run_job"  # the runner of a Trial that names none


@dataclass(frozen=True)
class Trial:
    key: str
    play: str
    to_json: str
    from_json: str
    tally: str
    run: str = ""  # the site's runner: (params, trials, progress, processes) -> the run's result JSON
    api: str = ""  # (run, full=True) -> the API's JSON of a run of this kind ("": the default view)
    page: str = ""  # (request, run) -> the run's page ("": the default page)
    form: str = ""  # the URL name of the book's own "new what-if" page ("": the generic form)
    title: str = ""  # what the what-if pages call this kind of run ("": the book's registered title)

    @property
    def runner(self) -> str:
        """The path of the site's runner: ``run``, else the generic ``DEFAULT_RUN``."""
        return self.run or DEFAULT_RUN

    def fight(self, job: Any, seed: str, index: int) -> Any:
        return load(self.play)(job, seed, index)

    def encode(self, result: Any) -> Any:
        return load(self.to_json)(result)

    def decode(self, raw: Any) -> Any:
        return load(self.from_json)(raw)

    def new_tally(self, job: Any) -> Any:
        return load(self.tally)(job)


class WinTally:
    """A tally of battle winners in the shape the generic what-if page reads: ``add(winner)``
    (a side number, or None for a battle nobody won), ``result()`` →
    ``{"trials": n, "wins": {"1": n, "2": n, "draw": n}}``."""

    def __init__(self, sides=(1, 2)) -> None:
        self.wins = {**{str(side): 0 for side in sides}, "draw": 0}

    def add(self, winner) -> None:
        self.wins[str(winner) if winner is not None else "draw"] += 1

    def result(self) -> dict:
        return {"trials": sum(self.wins.values()), "wins": dict(self.wins)}


__all__ = ["DEFAULT_RUN", "Trial", "WinTally", "load"]
