"""A what-if worker process: ``python -m tactical.whatif.worker`` reads one job as JSON on stdin,
``{"trial": kind, "job": {...}, "seed": "...", "indices": [...]}`` (the kind a rule book registered
its ``Trial`` under: ``"eventhorizon"``, ``"buoyz"`` for a CAM what-if), fights those battles (pure engine, no
Django, no database) and writes one line per battle, ``[index, result]``, as each ends.

``tactical/whatif/runs.py`` starts one per core so a run uses the whole machine: a plain subprocess
works inside a Celery prefork child, where ``multiprocessing`` may not start children, and in a
web request on the embedded default. Every battle rolls from its own seed, so which process fights
it does not change the result.
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    job = json.load(sys.stdin)
    out = sys.stdout
    from tactical.rules.kit.trial import Trial
    from tactical.whatif.pool import trial_of

    trial = Trial(**job["record"]) if "record" in job else trial_of(job["trial"])
    payload = job["job"]
    for index in job["indices"]:
        out.write(json.dumps([index, trial.encode(trial.fight(payload, job["seed"], index))]) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
