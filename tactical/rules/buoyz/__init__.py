"""The Buoyz 'N Da 'Hood – In Space! tactical engine (issue 16); pure Python.

Rule book ``seeds/000_…``; rulings BZ1… in ``docs/rulings.md``; overview in ``docs/buoyz.md``.
``state.new_battle`` sets a battle up from SDs (the CAM catalogue, ``sds.py``), ``apply`` plays
it one action at a time, ``doctrine.simulate`` plays it out for computer sides, ``outcome``
reports it.
"""

from . import actions
from .actions import Begin, Fire, Move, Special
from .doctrine import doctrine_action, simulate
from .engine import Outcome, Resolution, apply, check, legal_actions, outcome
from .sds import CATALOGUE
from .state import BattleState, Event, IllegalActionError, Orders, Ship, new_battle, new_ship

__all__ = ["actions", "Begin", "Fire", "Move", "Special", "doctrine_action", "simulate", "Outcome", "Resolution",
           "apply", "check", "legal_actions", "outcome", "CATALOGUE", "BattleState", "Event", "IllegalActionError",
           "Orders", "Ship", "new_battle", "new_ship"]
