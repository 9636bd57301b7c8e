"""Fighting a what-if run's battles, in this process or spread over worker processes
(tactical/whatif/worker.py), one per core. No Django here: ``bench/tactical.py`` uses it too.
Every battle rolls from its own seed, so the tally is the same however the battles are spread.
What a battle is comes from the registry: the ``Trial`` a rule book registered under the run's
kind (``play_run(key, job, …)``); nothing here names a rule book.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

PARALLEL_MIN_TRIALS = 40  # below this a run is fought in-process (starting workers costs more)

# Where ``play_run`` takes its battles from, when not from this machine (``battles_from``).
_SOURCE: ContextVar[Callable[..., Mapping[int, Any]] | None] = ContextVar("whatif_battles", default=None)


@contextmanager
def battles_from(source: Callable[..., Mapping[int, Any]]) -> Iterator[None]:
    """Inside the block ``play_run`` does not fight: it asks ``source(trial, job, seed, trials,
    progress)`` for the results ``{index: result}`` and adds them up as usual. The Celery chunk
    tasks (``tactical/whatif/chunks.py``) use it twice: to learn a run's job and seed from the
    book's runner (a source that raises), and to finish a run whose battles were fought by
    chunks on other machines (a source that returns them), so the runner's result — the tally
    and whatever it shows beside it — is made by the same code either way."""
    token = _SOURCE.set(source)
    try:
        yield
    finally:
        _SOURCE.reset(token)


# What-if kinds that are no one rule book's, by key: the path of their ``Trial`` (a campaign's
# battle on the book its moderator chose, issue 31).
OTHER_TRIALS = {"converted": "tactical.whatif.convertedtrials:TRIAL"}


def trial_of(key: str):
    """The what-if record (``tactical.rules.kit.trial.Trial``) a rule book registered under
    ``key`` (a stored run's ``params["ruleset"]``), or one of ``OTHER_TRIALS``; ValueError if none did."""
    from tactical.rules import registry
    from tactical.rules.kit.trial import load

    for record in registry.RESOLVERS.values():
        if record.trial is not None and record.trial.key == key:
            return record.trial
    if key in OTHER_TRIALS:
        return load(OTHER_TRIALS[key])
    raise ValueError(f"no rule book has what-if battles of kind {key!r}")


def play_run(key: str, job: Mapping[str, Any], seed: str, trials: int,
             progress: Callable[[int], None] = lambda done: None, processes: int = 1) -> Any:
    """Fight battles 0 … trials-1 of a what-if run of kind ``key`` (the registry's ``Trial``)
    and add them up in index order, spread over ``processes`` worker processes
    (tactical/whatif/worker.py) when there are enough battles; ``progress(done)`` is called as
    battles end. The tally is the same however they are spread."""
    trial = trial_of(key)
    results: dict[int, Any] = {}
    source = _SOURCE.get()
    if source is not None:
        results = dict(source(trial, job, seed, trials, progress))
    elif processes <= 1 or trials < PARALLEL_MIN_TRIALS:
        for i in range(trials):
            results[i] = trial.fight(job, seed, i)
            progress(i + 1)
    else:
        # The record goes with the job, so a book registered at run time (not on import) is
        # fought in the workers too.
        payload = {"trial": key, "record": dataclasses.asdict(trial), "job": dict(job), "seed": seed}
        results = _in_workers(payload, trials, processes, progress, trial.decode)
    tally = trial.new_tally(job)
    for i in range(trials):
        tally.add(results[i])
    return tally


def run_job(params: Mapping[str, Any], trials: int, progress: Callable[[int], None] = lambda done: None,
            processes: int = 1) -> dict[str, Any]:
    """The runner of a book that names none (``kit.trial.DEFAULT_RUN``): the battles of the job a
    run stored (``params["job"]``: the book's ``FleetBook.setup``), fought by the book's ``Trial``
    (``params["ruleset"]``), and its tally's result."""
    return play_run(params["ruleset"], params["job"], params["seed"], trials, progress, processes).result()


def play_trials(sides: Sequence[Mapping[str, Any]], seed: str, trials: int,
                progress: Callable[[int], None] = lambda done: None, processes: int = 1) -> Any:
    """An Event Horizon run (``play_run("eventhorizon", {"sides": sides}, …)``)."""
    return play_run("eventhorizon", {"sides": list(sides)}, seed, trials, progress, processes)


def play_cam_trials(job: Mapping[str, Any], seed: str, trials: int,
                    progress: Callable[[int], None] = lambda done: None, processes: int = 1) -> Any:
    """A CAM what-if on the Buoyz engine (``tactical/whatif/camtrials.py``): a ``CamTally``."""
    from tactical.whatif.camtrials import RULESET

    return play_run(RULESET, job, seed, trials, progress, processes)


def _in_workers(payload: Mapping[str, Any], trials: int, processes: int, progress: Callable[[int], None],
                decode: Callable[[Any], Any]) -> dict[int, Any]:
    """Battles 0 … trials-1 over ``processes`` ``python -m tactical.whatif.worker`` processes; each
    is sent ``payload`` plus its battle indices and answers ``[index, result]`` lines, which
    ``decode`` turns back into results."""
    import json
    import selectors
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])  # the project: tactical/whatif/pool.py
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    chunks = [list(range(k, trials, processes)) for k in range(processes)]
    workers = []
    selector = selectors.DefaultSelector()
    results: dict[int, Any] = {}
    try:
        for indices in chunks:
            proc = subprocess.Popen([sys.executable, "-m", "tactical.whatif.worker"], cwd=root, env=env,
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            proc.stdin.write(json.dumps({**payload, "indices": indices}))
            proc.stdin.close()
            selector.register(proc.stdout, selectors.EVENT_READ, proc)
            workers.append(proc)
        open_streams = len(workers)
        while open_streams:
            for key, _ in selector.select():
                line = key.fileobj.readline()
                if not line:
                    selector.unregister(key.fileobj)
                    open_streams -= 1
                    continue
                index, raw = json.loads(line)
                results[index] = decode(raw)
                progress(len(results))
        for proc in workers:
            if proc.wait() != 0:
                raise RuntimeError(f"a what-if worker failed: {proc.stderr.read().strip()[-500:]}")
    finally:
        selector.close()
        for proc in workers:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdout, proc.stderr):
                if stream and not stream.closed:
                    stream.close()
    if len(results) != trials:
        raise RuntimeError(f"the what-if workers fought {len(results)} of {trials} battles")
    return results
