"""Buoyz 'N Da 'Hood as a ``RuleBook`` (``tactical.rules.kit.book``; issue 27 item 3).

The state is online play's ``PlayState`` (the engine's ``BattleState`` and its tagged log);
legal actions are the acting side's, less any that would name a ship it cannot see (ruling
BZP2, ``play.side_actions``); the doctrine's choice falls back to the first legal action (the
kit's ``fallback``). The contract test's hidden unit is an enemy ship cloaked and not detected
(000 10.2, 10.3), planted a few inches from the seat's ships.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tactical.rules.kit import Book, private

from . import actions as A
from .doctrine import MAX_STEPS, doctrine_action
from .engine import check, legal_actions
from .play import RULES, PlayState, setup_for, side_actions
from .sds import random_fleet
from .state import ACTIVE, evolve

PLANTED_ID = 9_999  # the contract test's hidden ship


class BuoyzBook(Book):
    key = "buoyz"
    title = "Buoyz 'N Da 'Hood – In Space! (embedded tactical engine)"
    rule_book = "000 Buoyz 'N Da 'Hood – In Space!"
    play = RULES
    max_steps = MAX_STEPS  # the doctrine's own simulate stops there too

    def legal_actions(self, state: PlayState) -> tuple[A.Action, ...]:
        battle = state.battle
        if battle.over:
            return ()
        if battle.acting is None:
            return tuple(legal_actions(battle))
        return tuple(side_actions(battle, battle.acting))

    def check(self, state: PlayState, action: A.Action) -> None:
        check(state.battle, action)

    def choose(self, state: PlayState) -> A.Action:
        return doctrine_action(state.battle)

    def instead(self, state: PlayState) -> A.Action:
        return legal_actions(state.battle)[0]

    def sample_setup(self, rng) -> dict[str, Any]:
        """Two random CAM-legal 40-point fleets of one random Period (``sds.random_fleet``)."""
        period = rng.randint(1, 6)
        return setup_for({1: random_fleet(rng, period, 40), 2: random_fleet(rng, period, 40)})

    def plant_hidden(self, state: PlayState, seat: int) -> Iterable[PlayState]:
        """An enemy ship, cloaked and not detected, 3" and 8" ahead of the seat's first ship."""
        battle = state.battle
        enemy = next((s for s in battle.ships if s.side != seat and s.status == ACTIVE), None)
        mine = next((s for s in battle.ships if s.side == seat and s.status == ACTIVE), None)
        if enemy is None or mine is None:
            return
        for dx, dy in ((3.0, 0.0), (0.0, 8.0), (-5.0, -5.0)):
            pos = (mine.pos[0] + dx, mine.pos[1] + dy)
            ghost = evolve(enemy, id=PLANTED_ID, pos=pos, cloaked=True, detected=False, moved=False, fired=False)
            # It got there unseen: its move is in the log, told to its own side only.
            moved = private("move", f"Ship ({PLANTED_ID}) moves to {pos}.", (enemy.side,), ship=PLANTED_ID)
            yield PlayState(evolve(battle, ships=battle.ships + (ghost,)), state.log + (moved,))

    def probe_actions(self, state: PlayState, seat: int) -> Iterable[dict[str, Any]]:
        mine = next((s.id for s in state.battle.ships if s.side == seat and s.status == ACTIVE), 0)
        yield {"type": "special", "ship": mine, "action": "tractor_beam", "target": PLANTED_ID}
        yield {"type": "fire", "ship": mine, "shots": [["main0", PLANTED_ID, 1]], "board": None}
        yield {"type": "fire", "ship": mine, "shots": [], "board": PLANTED_ID}
        yield {"type": "detect", "ship": PLANTED_ID}
        yield {"type": "lurk", "ship": PLANTED_ID}
        yield {"type": "move", "ship": PLANTED_ID, "before": 1, "turn": 0, "after": 0, "turn_end": 0}


BOOK = BuoyzBook()

__all__ = ["BOOK", "PLANTED_ID", "BuoyzBook"]
