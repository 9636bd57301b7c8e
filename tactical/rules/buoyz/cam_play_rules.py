"""Online play of a CAM scenario fought on the Buoyz engine (pure Python; issue 17 items 1–2).

The same hooks as any Buoyz battle (``play.BuoyzPlay``: the board, fog of war, the codec, the
doctrine), with what differs for a CAM scenario: the table is not set up from a stored setup but
by ``cam.deploy_cam`` from the scenario's CAM record (the Django side passes the state in:
tactical/hosts/cam/scenarios.py registers a battle kind, tactical/play/kinds.py), and the end is the CAM
3.1 score of the scenario, not "who holds the field". The CAM players are the sides.
"""

from __future__ import annotations

from .engine import outcome
from .play import BuoyzPlay, PlayState


def wrap(battle_state) -> PlayState:
    """An engine state set up by ``deploy_cam`` as the play state (an empty log)."""
    return PlayState(battle_state)


class CamBuoyzPlay(BuoyzPlay):
    setup_label = "Set-up: the scenario's forces along their CAM 2.3 edges (000 CAM 2.3)"
    late_text = "the computer doctrine decides for it for the rest of the phase (ruling CAM42)."

    def initial_state(self, setup, dice):
        raise NotImplementedError(
            "a CAM battle is set up from its scenario's CAM record (tactical/hosts/cam/scenarios.py)"
        )

    def result(self, state):
        out = super().result(state)
        o = outcome(state.battle)
        score = o.cam_score
        out["ending"] = o.ending
        out["cam_winner"] = score.winner if score is not None else None
        out["cam_totals"] = ({str(seat): side.total for seat, side in score.sides.items()}
                             if score is not None else {})
        return out

    def summary(self, result, names):
        ending = result.get("ending") or "over"
        text = f"The battle is over after game turn {result['turns']} ({ending})"
        totals = result.get("cam_totals") or {}
        if totals:
            text += ": " + ", ".join(f"{names.get(int(seat), seat)} {total} scenario points"
                                     for seat, total in sorted(totals.items(), key=lambda kv: int(kv[0])))
        winner = result.get("cam_winner")
        if winner is not None:
            return text + f"; {names.get(winner, winner)} wins the scenario (000 CAM 3.1)."
        return text + "; the scenario is drawn (000 CAM 3.1)." if totals else text + "."


CAM_RULES = CamBuoyzPlay()

__all__ = ["CAM_RULES", "CamBuoyzPlay", "wrap"]
