"""The Buoyz 'N Da 'Hood – In Space! tactical engine (issue 16); pure Python.

Rule book ``seeds/000_…``; rulings BZ1… in ``docs/rulings.md``; overview in ``docs/buoyz.md``.
``state.new_battle`` sets a battle up from SDs (the CAM catalogue, ``sds.py``), ``apply`` plays
it one action at a time, ``doctrine.simulate`` plays it out for computer sides, ``outcome``
reports it.
"""

from .actions import Begin, Fire, Lurk, Move, Reveal, Special
from .deploy import deploy
from .doctrine import doctrine_action, simulate
from .engine import Outcome, Resolution, apply, check, legal_actions, outcome
from .sds import CATALOGUE
from .state import BattleState, Event, IllegalActionError, Orders, Ship, new_battle, new_ship

__all__ = [
    "actions",
    "Begin",
    "Fire",
    "Lurk",
    "Move",
    "Reveal",
    "Special",
    "doctrine_action",
    "simulate",
    "Outcome",
    "Resolution",
    "apply",
    "check",
    "legal_actions",
    "outcome",
    "CATALOGUE",
    "BattleState",
    "Event",
    "IllegalActionError",
    "Orders",
    "Ship",
    "new_battle",
    "new_ship",
    "deploy",
    "resolve_battle",
]


def resolve_battle(state: BattleState, dice, max_steps: int | None = None) -> Outcome:
    """The registry's entry point: play a deployed battle out with the computer doctrine for
    both sides and report it."""
    return outcome(simulate(state, dice) if max_steps is None else simulate(state, dice, max_steps))


from tactical.rules import registry as _registry  # noqa: E402 - registers this engine
from tactical.rules.kit.trial import Trial as _Trial  # noqa: E402

from .book import BOOK as _BOOK  # noqa: E402 - the RuleBook every book answers the same way
from .play import RULES as _PLAY  # noqa: E402 - online play's hooks (tactical/play/ reaches the engine through them)

if "buoyz" not in _registry.RESOLVERS:
    _registry.register(_registry.ResolverRecord(
        name="buoyz",
        title="Buoyz 'N Da 'Hood – In Space! (embedded tactical engine)",
        rule_book="000 Buoyz 'N Da 'Hood – In Space!",
        resolve=resolve_battle,
        play=_PLAY,
        book=_BOOK,
        trial=_Trial("buoyz",
                     "tactical.whatif.camtrials:play_cam_trial",
                     "tactical.whatif.camtrials:trial_to_json",
                     "tactical.whatif.camtrials:trial_from_json",
                     "tactical.whatif.camtrials:tally_for",
                     run="tactical.whatif.cam:play",
                     api="tactical.whatif.cam_api:run_json",
                     page="tactical.whatif.cam_views:detail_page",
                     # the CAM what-if on this engine (stored runs say "buoyz")
                     form="whatif-cam-new", title="Buoyz (CAM)"),
        sheets="tactical.rules.buoyz.sheets:record_sheets",  # its printed record sheets (issue 31)
        fleets="tactical.hosts.pickup.books:BUOYZ",  # its pickup fleet book (reads the site's designs)
    ))
