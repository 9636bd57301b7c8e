"""The computer's doctrine for any side (issue 28 item 5): close to point blank inside the arc,
attack with the best odds (banks and the roll together), jump at warp when far, divert warp
energy and trilithium into the attack, lay mines astern of a pursuer, repair when hurt, charge
banks and engines, cloak when nothing is in reach, mine resources when docked. It never
stalls: every ship's turn ends with ``EndTurn`` and the battle ends at the round cap."""

from __future__ import annotations

from tactical.rules.kit import evolve

from . import actions as A
from . import core as C
from .engine import _begin, seen_by
from .sequence import _candidates, check
from .state import BattleState, Refusal, Ship


def _enemies(state: BattleState, ship: Ship) -> list[Ship]:
    seen = seen_by(state, ship.side)
    return [s for s in state.ships if s.alive and s.side != ship.side and s.id in seen and not s.cloaked]


def _score(state: BattleState, ship: Ship, enemies) -> tuple:
    """Lower is better: a point-blank shot in the arc, then any shot, then the distance."""
    seen = seen_by(state, ship.side)
    best = (3, 99, 1)
    for e in enemies:
        a, b, d = C.nearest(state, ship, e)
        arc = ship.card.arc == "none" or C.in_arc(state, ship, b)
        if (
            arc
            and d >= 1
            and C.cf(state, ship) - (d - 1) >= 1
            and not C.fire_blocked(state, a, b, seen, (ship.id, e.id))
        ):
            pb = d == 1 and e.pos in C.point_blank_cells(ship)
            key = (0 if pb else 1, d, 0)
        else:
            key = (2, d, 0 if arc else 1)
        best = min(best, key)
    return best


def _attack_value(state: BattleState, ship: Ship, a: A.Attack) -> float:
    from .combat import firing_solution

    t = state.ship(a.target)
    fs = firing_solution(state, ship, t)
    p_def = min(12, C.df(state, t)) / 12
    if t.crew_option == "command":
        p_def = 1 - (1 - p_def) ** 2
    value = 0.0
    if a.roll:
        p = max(0, min(12, fs["cf"])) / 12
        value += (1 - (1 - p) ** fs["dice"]) * (1 - p_def)
    for i in a.banks:
        if ship.card.banks[i] in ("TWC", "TBP", "EDT"):
            value += 0.1 * max(0, C.cf(state, ship) - fs["range"])
        else:
            value += 1 - p_def
    return value + (0.5 if C.cf(state, t) and t.damage + 1 >= t.card.ss else 0)


class _Legal:
    """The ship's legal actions of one kind, checked only when the doctrine asks for that kind."""

    def __init__(self, state: BattleState, ship: Ship) -> None:
        self.state = state
        self.by_kind: dict[type, list] = {}
        for a in _candidates(state, ship):
            self.by_kind.setdefault(type(a), []).append(a)
        self.done: dict[type, list] = {}

    def pick(self, kind: type) -> list:
        if kind not in self.done:
            out = []
            for a in self.by_kind.get(kind, ()):
                try:
                    check(self.state, a)
                except Refusal:
                    continue
                out.append(a)
            self.done[kind] = out
        return self.done[kind]

    def __contains__(self, action) -> bool:
        return action in self.pick(type(action))


def _pick(legal: _Legal, kind):
    return legal.pick(kind)


def _tactical(state: BattleState, ship: Ship, legal) -> A.Action | None:
    enemies = _enemies(state, ship)
    if not enemies:
        return None
    attacks = _pick(legal, A.Attack)
    if attacks:
        return max(attacks, key=lambda a: (_attack_value(state, ship, a), a.roll, -len(a.banks)))
    if ship.cloaked and not ship.t_cloak and A.Decloak(ship.id) in legal:
        near = min(C.dist(ship.pos, e.pos) for e in enemies)
        if near <= max(1, C.cf(state, ship)):
            return A.Decloak(ship.id)
    if ship.damage + 1 >= ship.card.ss and C.cf(state, ship) >= 2:
        rams = _pick(legal, A.Ram)
        if rams:
            return rams[0]
    enemies = sorted(enemies, key=lambda e: (C.dist(ship.pos, e.pos), e.id))[:3]
    here = _score(state, ship, enemies)
    warps = [a for a in _pick(legal, A.Warp) if not a.reverse]
    if warps and here[1] > C.mf(state, ship) + C.cf(state, ship) // 2:
        best = min(warps, key=lambda a: (_score(state, evolve(ship, pos=_ahead(ship, a.hexes)), enemies), a.hexes))
        if _score(state, evolve(ship, pos=_ahead(ship, best.hexes)), enemies) < here:
            return best
    if not ship.boost and not ship.tri and not ship.t_engaged and here[0] <= 1:
        if A.Boost(ship.id, "trilithium:cf") in legal:
            return A.Boost(ship.id, "trilithium:cf")
    first = _plan(state, ship, enemies, here, {a.kind for a in _pick(legal, A.Move)})
    if first is not None:
        return A.Move(ship.id, first)
    if ship.mines and A.LayMine(ship.id) in legal:
        behind = [e for e in enemies if C.dist(ship.pos, e.pos) <= 3
                  and C.relative_side(state, ship.pos, ship.facing, e.pos) in C.AFT]
        if behind:
            return A.LayMine(ship.id)
    return None


def _plan(state: BattleState, ship: Ship, enemies, here: tuple, allowed: set) -> str | None:
    """The first move of the best sequence of forward moves and turns within the MF left (up
    to four), if it ends somewhere better than here."""
    left = min(4, C.mf(state, ship) - ship.t_mf)
    if left <= 0 or ship.t_wormhole:
        return None
    seen = seen_by(state, ship.side)
    frontier = [(ship.pos, ship.facing, None)]
    visited = {(ship.pos, ship.facing)}
    best, best_key = None, (here, 0)
    for depth in range(1, left + 1):
        nxt = []
        for pos, facing, first in frontier:
            for kind in ("forward", "port", "starboard"):
                if first is None and kind not in allowed:
                    continue
                npos, nfacing = _after(evolve(ship, pos=pos, facing=facing), kind)
                if (npos, nfacing) in visited:
                    continue
                moved = evolve(ship, pos=npos, facing=nfacing)
                if C.hull_ok(state, moved.hull(), ship, seen):
                    continue
                visited.add((npos, nfacing))
                f = first or kind
                key = (_score(state, moved, enemies), depth)
                if key < best_key:
                    best, best_key = f, key
                if C.orbiting(state, npos) is None or C.orbiting(state, pos) is not None:
                    nxt.append((npos, nfacing, f))
        frontier = nxt
    return best


def _ahead(ship: Ship, n: int):
    c = ship.pos
    for _ in range(n):
        c = C.step(c, ship.facing)
    return c


def _after(ship: Ship, kind: str):
    if kind == "forward":
        return C.step(ship.pos, ship.facing), ship.facing
    if kind == "reverse":
        return C.step(ship.pos, ship.facing + 3), ship.facing
    return ship.pos, C.hx.turn(ship.facing, 1 if kind == "port" else -1)


_ENGINEERING = ("station_repair", "repair", "dilithium_repair", "bank_repair", "charge_bank", "trilithium_charge",
                "charge_warp", "dilithium_charge", "mine_resource", "station_dilithium", "station_trilithium", "cloak")


def _engineering(state: BattleState, ship: Ship, legal) -> A.Action:
    tasks = {a.task for a in _pick(legal, A.Engineer)}
    for task in _ENGINEERING:
        if task not in tasks:
            continue
        if task == "bank_repair" and ship.damage * 3 < ship.card.ss:
            continue  # a charged bank is worth more than one shield factor until the shield is low
        if task == "cloak" and any(C.dist(ship.pos, e.pos) <= C.cf(state, ship) + 1
                                   for e in _enemies(state, ship)):
            continue
        return A.Engineer(ship.id, task)
    return A.EndTurn(ship.id)


def _crew(state: BattleState, ship: Ship) -> A.Crew:
    enemies = _enemies(state, ship)
    near = min((C.dist(ship.pos, e.pos) for e in enemies), default=99)
    if ship.damage * 2 >= ship.card.ss:
        return A.Crew(ship.id, "engineering")
    if near <= C.cf(state, ship):
        return A.Crew(ship.id, "tactical")
    return A.Crew(ship.id, "helm")


def doctrine_action(state: BattleState) -> A.Action | None:
    if state.over:
        return None
    if state.active is None:
        ship = min((s for s in state.ships if s.alive and s.side == state.side and not s.done), key=lambda s: s.id)
        if ship.crew:
            return _crew(state, ship)
    else:
        ship = state.ship(state.active)
    if state.active != ship.id:
        state = evolve(state.with_ship(_begin(ship, state)), active=ship.id)  # as its turn begins
        ship = state.ship(ship.id)
    legal = _Legal(state, ship)
    if ship.t_phase != "engineering":
        act = _tactical(state, ship, legal)
        if act is not None:
            return act
    return _engineering(state, ship, legal)


__all__ = ["doctrine_action"]
