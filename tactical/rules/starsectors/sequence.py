"""One entry point per step: ``check``, ``apply``, ``legal_actions`` (004 III–VIII), ``result``."""

from __future__ import annotations

from fractions import Fraction

from tactical.rules import kit
from tactical.rules.kit import evolve

from . import actions as A
from . import combat
from . import core as C
from . import engine as E
from . import engineering as G
from .cards import COMMAND_CREW_COST
from .state import BattleState, Refusal

_HANDLERS = {A.Crew: E._crew, A.Move: E._move, A.Warp: E._warp, A.Transfer: E._transfer, A.Boost: E._boost,
             A.Decloak: E._decloak, A.LayMine: E._lay_mine, A.Attack: combat._attack,
             A.AttackMine: combat._attack_mine, A.SelfDestruct: combat._self_destruct, A.Ram: combat._ram,
             A.Engineer: G.engineer, A.EndTurn: G.end_turn, A.Withdraw: E._withdraw}


def _resolver(state: BattleState, action):
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise Refusal("004 III", f"not an order: {action!r}")
    ship = E._own_ship(state, action)
    at = E.begun_state(state, ship)
    begun = at.ship(ship.id)
    run = handler(at, begun, action)
    return at, begun, run


def check(state: BattleState, action) -> None:
    _resolver(state, action)


def apply(state: BattleState, action, dice) -> kit.Resolution:
    at, begun, run = _resolver(state, action)
    ctx = E._Ctx(state, dice)
    if state.active != begun.id:
        ctx.state = evolve(at, active=begun.id)
    run(ctx)
    end = evolve(ctx.state, log=state.log + tuple(ctx.events))
    return kit.Resolution(end, tuple(ctx.events))


def _candidates(state: BattleState, ship) -> list:
    sid = ship.id
    out: list = []
    if state.active != sid and ship.crew:
        out += [A.Crew(sid, o) for o in A.CREW_OPTIONS]
    if state.active != sid:
        out.append(A.Withdraw(sid))
    out += [A.Move(sid, k) for k in A.MOVES]
    if ship.warp and ship.card.nacelles:
        wf = C.warp_factor(state, ship)
        out += [A.Warp(sid, n) for n in range(1, wf + 1)] + [A.Warp(sid, n, True) for n in range(1, (wf + 1) // 2 + 1)]
        out += [A.Transfer(sid, b) for b in A.TRANSFERS]
    out += [A.Boost(sid, b) for b in A.BOOSTS]
    if ship.cloaked:
        out.append(A.Decloak(sid))
    seen = E.seen_by(state, ship.side)
    enemies = [s for s in state.ships if s.alive and s.side != ship.side and s.id in seen]
    charged = tuple(i for i, c in enumerate(ship.banks) if c)
    reach = C.cf(state, ship) + 1  # the roll's CF and a ram's reach (never drops a legal order)
    for t in enemies:
        if C.dist(ship.pos, t.pos) - (ship.card.hull - 1) - (t.card.hull - 1) > reach:
            continue  # out of range for any attack or ram: CF − (range − 1) < 1
        out.append(A.Attack(sid, t.id))
        if charged:
            out += [A.Attack(sid, t.id, True, charged), A.Attack(sid, t.id, False, charged)]
            out += [A.Attack(sid, t.id, False, (i,)) for i in charged] if len(charged) > 1 else []
        out.append(A.Ram(sid, t.id))
    out += [A.AttackMine(sid, m.id) for m in state.mines if m.side != ship.side]
    if ship.mines:
        out.append(A.LayMine(sid))
    out.append(A.SelfDestruct(sid))
    out += [A.Engineer(sid, t) for t in A.TASKS]
    out.append(A.EndTurn(sid))
    return out


def legal_actions(state: BattleState) -> tuple:
    """Every order the acting side may give now: the ship taking its turn, or any ship of the
    side still to take one this round (its first order begins its turn)."""
    if state.over:
        return ()
    side = state.side
    if state.active is not None:
        ships = [state.ship(state.active)]
    else:
        ships = [s for s in state.ships if s.alive and s.side == side and not s.done]
    out = []
    for ship in ships:
        for a in _candidates(state, ship):
            try:
                _resolver(state, a)
            except Refusal:
                continue
            out.append(a)
    return tuple(out)


def value_left(state: BattleState, side: int) -> Fraction:
    """Ruling SS1 at the round cap: each ship left is worth its card's points (III) by the share of
    its shield strength left ((SS − hits) ÷ SS: the hits are to the shield, IV.F, and every one lowers
    the CF that III prices), and a command crew its 4 points (VII.B), bought with the ship."""
    return sum((Fraction(s.card.points * (s.card.ss - s.damage), s.card.ss)
                + (COMMAND_CREW_COST if s.crew else 0) for s in state.ships if s.alive and s.side == side),
               Fraction(0))


def winner(state: BattleState) -> int | None:
    """The last side with ships; at the round cap the side with the most points left, counted as
    ``value_left`` counts them (ruling SS1); None: a draw."""
    left = sorted({s.side for s in state.ships if s.alive})
    if len(left) == 1:
        return left[0]
    if not left:
        return None
    values = {side: value_left(state, side) for side in left}
    best = max(values.values())
    top = [s for s, v in values.items() if v == best]
    return top[0] if len(top) == 1 else None


def result(state: BattleState) -> dict:
    ships = [{"ship": s.id, "side": s.side, "card": s.card.key,
              "fate": "destroyed" if s.destroyed else "withdrew" if s.withdrawn else "survived",
              "damage": s.damage} for s in state.ships]
    return kit.battle_result(winner(state), ships, state.over, rounds=min(state.round, state.round_cap))


__all__ = ["apply", "check", "legal_actions", "result", "winner"]
