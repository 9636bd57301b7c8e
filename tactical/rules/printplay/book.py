"""The Print&Play ``RuleBook`` (``kit.Book``): the contract test, what-if and pickup ask it."""

from __future__ import annotations

from tactical.rules import kit
from tactical.rules.kit import evolve

from . import doctrine, engine
from .dashboards import ROSTER
from .play import RULES, setup_for
from .state import CLOAK_RANGE, State, new_ship

KEYS = sorted(ROSTER)


class PrintPlayBook(kit.Book):
    key = "printplay"
    title = "Star Trek Print&Play (embedded tactical engine)"
    rule_book = "001 Star Trek Print&Play Game Rules"
    play = RULES
    max_steps = 20000

    def legal_actions(self, state):
        return engine.legal_actions(state)

    def check(self, state, action):
        engine.check(state, action)

    def choose(self, state):
        return doctrine.choose(state)

    def instead(self, state):
        return doctrine.instead(state)

    def sample_setup(self, rng):
        sides = rng.choice((2, 2, 3, 4))
        fleets = {seat: [rng.choice(KEYS) for _ in range(rng.randint(1, 3))] for seat in range(1, sides + 1)}
        terrain = [{"kind": "asteroids", "at": [36, 24], "radius": 4}, {"kind": "nebula", "at": [20, 30], "radius": 4}]
        return setup_for(fleets, terrain=terrain if rng.random() < 0.5 else [])

    def plant_hidden(self, state: State, seat: int):
        """A cloaked enemy ship (id 9999) farther than 8" from every ship of ``seat`` (ruling PP7)."""
        other = next((s for s in state.sides if s != seat), None)
        if other is None:
            return
        w, h = state.mat
        mine = state.living(seat)
        for x in range(2, int(w) - 1, 4):
            for y in range(2, int(h) - 1, 4):
                pos = (float(x), float(y))
                if all(((pos[0] - s.pos[0]) ** 2 + (pos[1] - s.pos[1]) ** 2) ** 0.5 > CLOAK_RANGE + 1 for s in mine) \
                        and all(((pos[0] - s.pos[0]) ** 2 + (pos[1] - s.pos[1]) ** 2) ** 0.5 > 2 for s in state.ships):
                    ghost = evolve(new_ship(9999, other, ROSTER["b_rel"], pos, 0.0), cloaked=True)
                    yield evolve(
                        state,
                        ships=state.ships + (ghost,),
                        log=state.log
                        + (kit.private("cloak", "B'rel #9999 moves under its cloak.", (other,)),),
                    )
                    return

    def probe_actions(self, state, seat):
        yield {"type": "activate", "ship": 9999}
        for ship in state.living(seat):
            yield {"type": "attack", "ship": ship.id, "shots": [[0, 9999, side] for side in ("fore",)]}
            yield {"type": "move", "ship": ship.id, "go1": 9999}


BOOK = PrintPlayBook()

__all__ = ["BOOK", "PrintPlayBook"]
