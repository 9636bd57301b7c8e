"""What a CAM scenario changes in a Buoyz 'N Da 'Hood battle, as the one policy object the engine
asks (issue 27 item 6): the engine (``engine/``) names no part of ``cam.py`` and reads no CAM
record itself; it asks ``CAM``. In a battle that is not a CAM scenario (``state.cam`` is None)
every answer is the engine's own: no side breaks contact, nothing is recorded, the battle ends
by rulings BZ17 and BZ86. Pure Python.

- ``breaking(state, side)``: the side is under a CAM 3.1 'break contact' order (its ships retreat,
  its cloak capable ships lurk, its AC sortie until its last ship has left);
- ``retreat_problem(state, ship, move)``: why a move is not the CAM 3.1 (a) retreat (ruling BZ28);
- ``scenario_over(state, alive, mid_turn)``: None outside a CAM scenario, else whether it ends now
  (CAM 3.0: all table contact broken after an End Phase, a side with nothing left in the battle, the
  turn cap);
- ``finish(state, log)``: the CAM 3.0 step 2 tally, and the winner;
- ``end_phase(state, log)``: CAM 3.0 step 1 after the engine's End Phase;
- ``contact_broken(state)``, ``score(state)``, ``record(state)``: for the outcome.
"""

from __future__ import annotations

from . import cam as C
from .state import BattleState


class CamPolicy:
    RETREAT_RULE = C.RETREAT_RULE
    LURK_RULE = C.LURK_RULE
    breaking = staticmethod(C.breaking)
    retreat_problem = staticmethod(C.retreat_problem)
    finish = staticmethod(C.finish)

    @staticmethod
    def scenario_over(state: BattleState, alive: list[int], mid_turn: bool) -> bool | None:
        if state.cam is None:
            return None
        return len(alive) < 2 or (not mid_turn and (state.cam.battle.contact_broken or state.turn >= state.turn_cap))

    @staticmethod
    def end_phase(state: BattleState, log) -> BattleState:
        return C.end_phase(state, log) if state.cam is not None else state

    @staticmethod
    def contact_broken(state: BattleState) -> bool:
        return state.cam is not None and state.cam.battle.contact_broken

    @staticmethod
    def score(state: BattleState):
        """The CAM ``ScenarioScore`` (CAM 3.0 step 2), None outside a CAM scenario."""
        return state.cam.score if state.cam is not None else None

    @staticmethod
    def record(state: BattleState):
        """The CAM record (``breakcontact.BattleState``) for ``record_scenario``, or None."""
        return state.cam.battle if state.cam is not None else None


CAM = CamPolicy()

__all__ = ["CAM", "CamPolicy"]
