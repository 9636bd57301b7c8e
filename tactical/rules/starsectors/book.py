"""Star Sectors as a ``RuleBook`` (``tactical.rules.kit.book``). The contract test's hidden unit
is an enemy ship under its cloak (VI.A), planted where nothing the seat does could meet it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tactical.rules.kit import Book, evolve, private
from tactical.rules.kit.doctrine import play_out

from . import actions as A
from . import core as C
from .doctrine import doctrine_action
from .engine import detected
from .fleets import sample_setup
from .play import RULES
from .sequence import apply, check, legal_actions
from .state import BattleState

PLANTED_ID = 9_999


def _over(state: BattleState) -> bool:
    return state.over


class StarSectorsBook(Book):
    key = "starsectors"
    title = "Star Sectors (hex map, 12-sided dice)"
    rule_book = "004 Star Sectors: Space Combat Game"
    play = RULES
    max_steps = 20_000

    def legal_actions(self, state: BattleState):
        return legal_actions(state)

    def check(self, state, action):
        check(state, action)

    def choose(self, state):
        return doctrine_action(state)

    def simulate(self, state, dice):
        """The battle played out by the doctrine (``kit.doctrine.play_out``), its order handed to
        the engine's ``apply`` without ``check`` first: ``apply`` refuses what ``check`` would,
        rolling nothing, and the loop then applies ``instead`` (as ``kit.doctrine.fallback``)."""
        return play_out(state, dice, over=_over, choose=doctrine_action, apply=apply, instead=self.instead,
                        max_steps=self.max_steps)

    def instead(self, state):
        legal = legal_actions(state)
        ends = [a for a in legal if isinstance(a, A.EndTurn)]
        return ends[0] if ends else legal[0]

    def sample_setup(self, rng) -> dict[str, Any]:
        """A small battle: two random 15-point fleets (III's smallest example) of at most four ships."""
        return sample_setup(rng, 15, max_ships=4)

    def plant_hidden(self, state: BattleState, seat: int) -> Iterable[BattleState]:
        enemy = next((s for s in state.ships if s.alive and s.side != seat), None)
        mine = [s for s in state.ships if s.alive and s.side == seat]
        if enemy is None or not mine:
            return
        grid = state.grid
        near = set()
        for s in mine:
            for c in s.hull():
                near |= set(grid.within(c, 2))
            for d in (s.facing, s.facing + 3):  # the warp lines, both ways
                c = s.pos
                for _ in range(30):
                    c = C.hx.step(c, d)
                    near.add(c)
            for e in state.ships:
                if e.alive and e.side != seat:
                    for a in s.hull():
                        for b in e.hull():
                            near |= set(grid.line(a, b))
        taken = {c for s in state.ships for c in s.hull()} | {m.cell for m in state.mines}
        for c in grid.cells():
            if c in near or c in taken or c in state.terrain or C.star_adjacent(state, c):
                continue
            ghost = evolve(enemy, id=PLANTED_ID, pos=c, facing=0, cloaked=True, done=True, t_phase="")
            if ghost.card.hull != 1:
                ghost = evolve(ghost, card=evolve(ghost.card, hull=1))
            planted = evolve(state, ships=state.ships + (ghost,),
                             log=state.log + (private("cloak", f"Ship {PLANTED_ID} cloaks at {list(c)}.",
                                                      (enemy.side,), ship=PLANTED_ID),))
            if PLANTED_ID in detected(planted, seat):
                continue
            yield planted
            return

    def probe_actions(self, state, seat):
        mine = next((s.id for s in state.ships if s.alive and s.side == seat), 0)
        yield {"type": "attack", "ship": mine, "target": PLANTED_ID, "roll": True, "banks": []}
        yield {"type": "ram", "ship": mine, "target": PLANTED_ID}
        yield {"type": "move", "ship": PLANTED_ID, "kind": "forward"}
        yield {"type": "end_turn", "ship": PLANTED_ID}
        yield {"type": "decloak", "ship": PLANTED_ID}


BOOK = StarSectorsBook()

__all__ = ["BOOK", "PLANTED_ID", "StarSectorsBook"]
