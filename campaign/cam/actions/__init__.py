"""Every change to a CAM campaign is one of these actions.

Each action is atomic, locks the campaign row (``select_for_update``) before reading state,
adapts rows to the pure engine (``campaign.rules.cam``) through ``adapters``, lets the engine
decide, writes the result back, commits its dice to the campaign's hash-chained log
(``CampaignDice``) in the same transaction and sends emails only on commit. A refused action
raises ``CamActionError`` (``NotAllowed``: 403, ``NotFound``: 404, ``Paused``: 409) naming the problem, and changes
nothing — not even the dice stream.

Flow of one scenario (``CamScenario.stage``): ``generate_scenario`` (CAM 2.1) → each player's
``select_forces`` (CAM 2.2) → ``roll_table`` (CAM 2.3) → ``enter_turn`` after every game turn
(CAM 3.0/3.1 break-contact checks) until contact is broken, a side is gone or a player
``propose_end``s → ``confirm_result`` by the other player (CAM 3.1, 4.3) — or ``autoresolve``
(ruling CAM26) → ``submit_replacements`` from both players runs CAM 4.2 → the next scenario.

One module per domain (as ``campaign/actions/``): ``errors`` (the refusals and the engine errors
they wrap), ``common`` (the locked campaign row, the acting seat, the audit entry: shared by the
rest), ``setup`` (create, starting fleets, custom SDs, start), ``scenarios`` (CAM 2.1 – 2.3),
``battle`` (CAM 3.0 / 3.1: game turns, the end, confirmation, auto-resolve), ``between`` (CAM 4.2)
``reading`` (standings, break-contact conditions), ``deadlines`` (what a passed step deadline does,
rulings CAM50 – CAM56, and the reminders before it), ``lobby`` (a rubber created in the platform's
lobby, joined by invitation and started from it) and ``moderation`` (the step the rubber is at,
its deadline, and the roll-back of the last step; pause, resume and extend are the platform's). This module
re-exports every public name, so ``from campaign.cam import actions; actions.x`` works; a test that replaces a
function with ``monkeypatch`` must replace it in the module that calls it (e.g. ``campaign.cam.actions.battle.notify``
for the emails of ``enter_turn``, ``campaign.cam.actions.between._between`` for ``submit_replacements``).
"""

from .battle import (  # noqa: F401
    autoresolve,
    confirm_result,
    enter_turn,
    propose_end,
    reject_result,
    score_preview,
)
from .between import run_between, submit_replacements  # noqa: F401
from .common import set_step_deadline, step_label  # noqa: F401
from .deadlines import (  # noqa: F401
    due_steps,
    process_due_step,
    process_due_steps,
    send_step_reminder,
    send_step_reminders,
)
from .errors import ENGINE_ERRORS, CamActionError, NotAllowed, NotFound, Paused  # noqa: F401
from .exchange import import_rubber  # noqa: F401
from .lobby import MAX_STEP_HOURS, check_join, create_cam_lobby, start_from_lobby  # noqa: F401
from .moderation import after_pause, after_resume, current_step, roll_back_preview, roll_back_step  # noqa: F401
from .reading import checks_now, standings  # noqa: F401
from .scenarios import generate_scenario, roll_table, select_forces  # noqa: F401
from .setup import SD_FIELDS, add_custom_sd, create_cam_campaign, set_starting_fleet, start  # noqa: F401
