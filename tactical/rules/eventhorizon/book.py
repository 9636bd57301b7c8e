"""Event Horizon Quick Play as a ``RuleBook`` (``tactical.rules.kit.book``; issue 27 item 3).

The engine's own signatures stay (``legal_actions(state, ship_id)``, ``doctrine_action(state,
side)``); this adapter gives the registry the shape every book shares: the acting side's legal
actions from the state alone, the doctrine's choice never refused (the kit's ``fallback``: end
the activation or pass), and the contract test's hidden units (an enemy ship under its stealth
field, planted next to the seat's ships: 003 Stealth Fields, rulings TC28, TC29).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS
from tactical.rules.kit import Book

from . import actions as A
from .doctrine import _instead, doctrine_action
from .engine import _Log, check, is_over, legal_actions
from .geometry import neighbours
from .play import RULES
from .state import ACTIVE, BattleState, evolve

PLANTED_ID = 9_999  # the contract test's hidden ship (no real battle numbers a ship so)


class EventHorizonBook(Book):
    key = "eventhorizon"
    title = "Event Horizon Quick Play (embedded tactical engine)"
    rule_book = "003 Event Horizon - Quick Play Star Ship Combat Rules"
    play = RULES

    def legal_actions(self, state: BattleState) -> tuple[A.Action, ...]:
        side = state.acting_side
        if side is None or is_over(state):
            return ()
        if state.activation is not None:
            return legal_actions(state, state.activation.ship)
        out: list[A.Action] = []
        for ship in state.ships_of(side):
            out.extend(a for a in legal_actions(state, ship.id) if a not in out)
        return tuple(out)

    def check(self, state: BattleState, action: A.Action) -> None:
        check(state, action)

    def choose(self, state: BattleState) -> A.Action:
        return doctrine_action(state, state.acting_side) or A.Pass(state.acting_side)

    def instead(self, state: BattleState) -> A.Action:
        return _instead(state)

    def sample_setup(self, rng) -> dict[str, Any]:
        """Three-against-three from the rule book's sample designs (their order drawn with
        ``rng``), the invader first, sometimes with an AEWA."""
        seed = rng.randrange(4)
        ships = {seat: [{"id": base + i, "design": SAMPLE_DESIGNS[(i + seed + seat) % 4].to_dict()}
                        for i in range(1, 4)] for seat, base in ((1, 0), (2, 1000))}
        return {"attacker": 1, "defender": 2, "aewa": rng.random() < 0.5,
                "sides": {str(seat): {"ships": ships[seat]} for seat in ships}}

    def snapshot(self, state: BattleState) -> tuple:
        """The state without its log's linked list (too deep to compare), and the log itself."""
        return evolve(state, history=None), state.log

    def plant_hidden(self, state: BattleState, seat: int) -> Iterable[BattleState]:
        """An enemy ship under its stealth field on each free square next to the seat's
        activated ship (or its first ship), where a move, a scan or a shot might find it."""
        enemy = next((s for s in state.ships if s.side != seat and s.status == ACTIVE and not s.shuttle), None)
        mine = state.find(state.activation.ship) if state.activation else next(state.ships_of(seat), None)
        if enemy is None or mine is None:
            return
        for c in neighbours(mine.pos):
            if state.field.on_table(c) and c not in state.occupied and not state.field.terrain.get(c):
                ghost = evolve(enemy, id=PLANTED_ID, pos=c, stealth_engaged=True, stealth_operable=True)
                # It got there unseen: its move is in the log, told to its own side only.
                log = _Log()
                log.add("move", f"Ship {PLANTED_ID} moves to {c} facing N.", sides=(enemy.side,), public=False,
                        ship=PLANTED_ID, to=list(c))
                yield log.finish(evolve(state, ships=state.ships + (ghost,))).state

    def probe_actions(self, state: BattleState, seat: int) -> Iterable[dict[str, Any]]:
        """Every action naming the planted ship's id (a target, a ship to activate or move)."""
        me = state.activation.ship if state.activation else next((s.id for s in state.ships_of(seat)), 0)
        yield {"type": "activate", "ship": PLANTED_ID}
        yield {"type": "scan", "ship": me, "target": PLANTED_ID}
        yield {"type": "teleport", "ship": me, "target": PLANTED_ID}
        ship = state.find(me)
        for weapon in (ship.weapons if ship else ()):
            yield {"type": "fire", "ship": me, "shots": [[weapon, PLANTED_ID]]}
        yield {"type": "move", "ship": PLANTED_ID, "path": ["F"]}


BOOK = EventHorizonBook()

__all__ = ["BOOK", "PLANTED_ID", "EventHorizonBook"]
