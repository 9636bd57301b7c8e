"""A what-if worker process: ``python -m tactical.whatif.worker`` reads one job as JSON on stdin,
``{"sides": [...], "seed": "...", "indices": [...]}`` (Event Horizon) or ``{"job": {...}, "seed":
"...", "indices": [...]}`` (a CAM what-if on the Buoyz engine, ``tactical/whatif/camtrials.py``),
fights those battles (pure engine, no Django, no database) and writes one line per battle,
``[index, result]``, as each ends.

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
    if "job" in job:
        from tactical.whatif.camtrials import play_cam_trial
        from tactical.whatif.camtrials import trial_to_json as cam_json

        for index in job["indices"]:
            out.write(json.dumps([index, cam_json(play_cam_trial(job["job"], job["seed"], index))]) + "\n")
            out.flush()
        return 0

    from tactical.rules.eventhorizon.trials import fleets_from_sides, play_trial, trial_to_json

    fleets = fleets_from_sides(job["sides"])
    for index in job["indices"]:
        out.write(json.dumps([index, trial_to_json(play_trial(fleets, job["seed"], index))]) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
