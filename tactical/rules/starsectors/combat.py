"""Attacks (004 IV.D, IV.E, VI.B), mines under fire (VII.B), self-destruct and kamikaze (VIII)."""

from __future__ import annotations

from tactical.rules.kit import Event, evolve

from . import actions as A
from . import core as C
from .cards import DF_WEAPONS
from .engine import Resolver, _Ctx, _tactical, damage, destroy, seen_by
from .state import BattleState, Refusal, Ship


def _can_fire(state: BattleState, ship: Ship) -> None:
    _tactical(ship, "attacking")
    if ship.card.arc == "none":
        raise Refusal("004 IV.D", "a ship with no combat factor cannot target any enemy vessel")
    if ship.t_engaged:
        raise Refusal("004 IV.E", "a ship that attacked cannot engage another ship for the rest of the turn")
    if ship.cloaked:
        raise Refusal("004 VI.A", "a cloaked ship cannot fire its weapons")
    if C.in_kind(state, ship, ("ion",)):
        raise Refusal("004 VII.A", "all weapons are disabled in an ion storm")


def _target(state: BattleState, ship: Ship, tid: int) -> Ship:
    seen = seen_by(state, ship.side)
    t = state.ship(tid)
    if t is None or t.id not in seen or not t.alive:
        raise Refusal("004 IV.E", f"there is no ship {tid} to attack")
    if t.side == ship.side:
        raise Refusal("004 IV.E", f"ship {tid} is on your side")
    if t.cloaked:
        raise Refusal("004 VI.A", "a cloaked ship cannot be fired upon")
    return t


def firing_solution(state: BattleState, ship: Ship, t: Ship) -> dict:
    """IV.D/IV.E: the path (nearest hull points, not into an ion storm), range, CF after range
    and aft, dice, whether it is clear; raises ``Refusal`` when the target cannot be engaged.
    Remembered on the state (it is frozen) while the ship is the state's own."""
    if state.ship(ship.id) is not ship or state.ship(t.id) is not t:
        return _firing_solution(state, ship, t)
    cache = state.__dict__.get("_fs")
    if cache is None:
        cache = state.__dict__["_fs"] = {}
    key = (ship.id, t.id)
    found = cache.get(key)
    if found is None:
        try:
            found = _firing_solution(state, ship, t)
        except Refusal as why:
            found = why
        cache[key] = found
    if isinstance(found, Refusal):
        raise Refusal(found.rule, found.message)
    return dict(found)


def _firing_solution(state: BattleState, ship: Ship, t: Ship) -> dict:
    a, b, d = C.nearest(state, ship, t, targetable=lambda c: C.kind_at(state, c) != "ion")
    if d < 0:
        raise Refusal("004 VII.A", "any part of a ship within an ion storm cannot be targeted")
    seen = seen_by(state, ship.side)
    why = C.fire_blocked(state, a, b, seen, exclude=(ship.id, t.id))
    if why:
        raise Refusal("004 IV.D", why)
    full = C.cf(state, ship)
    eff = full - max(0, d - 1)
    aft = ship.card.arc == "all" and C.relative_side(state, ship.pos, ship.facing, b) in C.AFT
    point_blank = d == 1 and a == ship.pos and b == t.pos and b in C.point_blank_cells(ship)
    dice = 2 if point_blank else 1
    if aft:
        eff -= 1  # IV.E: aft, starboard aft or port aft: one 12d and −1 CF (ruling SS18: at any range)
        dice = 1
    if ship.crew_option == "tactical":
        dice += 1  # VII.B Tactical: +1 die at any range
    return {"from": a, "to": b, "range": d, "cf": eff, "dice": dice, "point_blank": point_blank, "aft": aft,
            "in_arc": C.in_arc(state, ship, b)}


def _attack(state: BattleState, ship: Ship, a: A.Attack) -> Resolver:
    _can_fire(state, ship)
    t = _target(state, ship, a.target)
    if not isinstance(a.banks, tuple) or len(set(a.banks)) != len(a.banks):
        raise Refusal("004 VI.B", "name each advanced weapon bank once")
    if not a.roll and not a.banks:
        raise Refusal("004 IV.E", "an attack rolls, fires an advanced weapon bank, or both")
    fs = firing_solution(state, ship, t)
    if a.roll:
        if not fs["in_arc"]:
            raise Refusal("004 IV.D", f"ship {t.id} is outside the firing arc")
        if fs["cf"] < 1:
            raise Refusal("004 IV.E", f"ship {t.id} is out of range (CF {C.cf(state, ship)} at {fs['range']} hexes)")
    for i in a.banks:
        if not isinstance(i, int) or not 0 <= i < len(ship.card.banks):
            raise Refusal("004 VI.B", f"ship {ship.id} has no advanced weapon bank {i}")
        if not ship.banks[i]:
            raise Refusal("004 VI.B", f"bank {i} ({ship.card.banks[i]}) is not charged")
    if a.banks:
        reach = C.cf(state, ship)
        if fs["to"] not in C.bow_line(state, ship, reach) or fs["from"] != ship.pos:
            raise Refusal("004 VI.B", "advanced weapons fire only directly forward off the bow, within range")
        if fs["cf"] < 1:
            raise Refusal("004 VI.B", "the target is out of the advanced weapon's range")

    def run(ctx: _Ctx) -> None:
        s = ctx.change(ship.id, t_attacked=ship.t_attacked or a.roll, t_engaged=True,
                       banks=tuple(False if i in a.banks else c for i, c in enumerate(ship.banks)),
                       t_fired=ship.t_fired + tuple(a.banks))
        if C.cloak_between(ctx.state, fs["from"], fs["to"], exclude=(ship.id, t.id)):
            ctx.log("disrupted", f"Ship {s.id}'s targeting sensors are disrupted: nothing fires at ship {t.id} "
                    "(VI.A).", s.id)
            return
        ctx.log("attack", f"Ship {s.id} attacks ship {t.id} at {fs['range']} hex(es), CF {fs['cf']}"
                f"{', point blank' if fs['point_blank'] else ''}{', aft' if fs['aft'] else ''}.", s.id, target=t.id)
        for i in a.banks:
            _bank(ctx, s, t.id, ship.card.banks[i], fs)
        if a.roll and ctx.ship(t.id).alive:
            faces = ctx.d12(fs["dice"], f"004 IV.E attack: ship {s.id} at ship {t.id} (CF {fs['cf']})")
            best = min(faces)
            if best > fs["cf"]:
                ctx.log("miss", f"Ship {s.id} rolls {list(faces)}: a miss (needs {fs['cf']} or less).", s.id)
                return
            ctx.log("roll", f"Ship {s.id} rolls {list(faces)}: on target.", s.id)
            _defend(ctx, t.id, f"ship {s.id}'s attack")
    return run


def _bank(ctx: _Ctx, s: Ship, tid: int, kind: str, fs: dict) -> None:
    t = ctx.ship(tid)
    if not t.alive:
        return
    if kind in DF_WEAPONS:
        drop = max(0, C.cf(ctx.state, s) - fs["range"])  # VI.B's example: CF 5 at 3 hexes: 5 − 3 = 2 (SS19)
        ctx.change(tid, df_drop=t.df_drop + drop)
        ctx.log("dampen", f"Ship {s.id}'s {kind} lowers ship {tid}'s DF by {drop} for the rest of the round.", s.id)
        return
    ctx.log("bank", f"Ship {s.id} fires its {kind} at ship {tid} (no die for the attacker).", s.id)
    _defend(ctx, tid, f"ship {s.id}'s {kind}")


def _defend(ctx: _Ctx, tid: int, what: str) -> None:
    """IV.E: the defender rolls one 12d at its current DF against each attack (two under a
    command order, the better one, VII.B); on or below saves the shield."""
    t = ctx.ship(tid)
    dfv = C.df(ctx.state, t)
    if dfv <= 0:
        ctx.events.append(ctx_event("defence", f"Ship {tid} has DF 0: no defence roll.", tid))
        damage(ctx, tid, 1, what)
        return
    n = 2 if t.crew_option == "command" else 1
    faces = ctx.d12(n, f"004 IV.E defence: ship {tid} (DF {dfv}) against {what}")
    if min(faces) <= dfv:
        ctx.events.append(ctx_event("defended", f"Ship {tid} rolls {list(faces)} against DF {dfv}: the shield holds.",
                                    tid))
        return
    ctx.events.append(ctx_event("defence", f"Ship {tid} rolls {list(faces)} against DF {dfv}: the shield fails.",
                                tid))
    damage(ctx, tid, 1, what)


def ctx_event(kind: str, text: str, sid: int) -> Event:
    return Event(kind, text, {"ship": sid})


def _attack_mine(state: BattleState, ship: Ship, a: A.AttackMine) -> Resolver:
    _can_fire(state, ship)
    mine = next((m for m in state.mines if m.id == a.mine), None)
    if mine is None:
        raise Refusal("004 VII.B", f"there is no mine {a.mine}")
    d = min(C.dist(c, mine.cell) for c in ship.hull())
    a_cell = min(ship.hull(), key=lambda c: (C.dist(c, mine.cell), c != ship.pos))
    eff = C.cf(state, ship) - max(0, d - 1)
    why = C.fire_blocked(state, a_cell, mine.cell, seen_by(state, ship.side), exclude=(ship.id,))
    if why:
        raise Refusal("004 IV.D", why)
    if not C.in_arc(state, ship, mine.cell) or eff < 1 or d < 1:
        raise Refusal("004 IV.E", f"mine {mine.id} is out of arc or range")

    def run(ctx: _Ctx) -> None:
        ctx.change(ship.id, t_attacked=True, t_engaged=True)
        face = ctx.d12(1, f"004 VII.B attack on mine {mine.id} by ship {ship.id} (CF {eff})")[0]
        if face <= eff:
            ctx.state = evolve(ctx.state, mines=tuple(m for m in ctx.state.mines if m.id != mine.id))
            ctx.log("mine", f"Ship {ship.id} rolls {face}: mine {mine.id} is destroyed (VII.B).", ship.id)
        else:
            ctx.log("miss", f"Ship {ship.id} rolls {face}: mine {mine.id} survives.", ship.id)
    return run


def _self_destruct(state: BattleState, ship: Ship, a: A.SelfDestruct) -> Resolver:
    _tactical(ship, "self-destruct")

    def run(ctx: _Ctx) -> None:
        cells = {n for c in ship.hull() for n in ctx.state.grid.neighbours(c)} - set(ship.hull())
        near = [o.id for o in ctx.state.ships if o.alive and o.id != ship.id and cells & set(o.hull())]
        ctx.change(ship.id, cloaked=False)
        destroy(ctx, ship.id, "self-destruct (VIII.A)", blast=False)
        for oid in near:
            damage(ctx, oid, 1, f"ship {ship.id}'s self-destruct (VIII.A)")
    return run


def _ram(state: BattleState, ship: Ship, a: A.Ram) -> Resolver:
    _tactical(ship, "kamikaze")
    if ship.cloaked:
        raise Refusal("004 VIII.B", "de-cloak before ramming (ruling SS20)")
    t = _target(state, ship, a.target)
    if not set(C.point_blank_cells(ship)) & set(t.hull()):
        raise Refusal("004 VIII.B", f"ship {t.id} must be in one of the three hexes off the bow to ram (ruling SS20)")
    hits = C.cf(state, ship)

    def run(ctx: _Ctx) -> None:
        ctx.log("ram", f"Ship {ship.id} rams ship {t.id}: {hits} hit(s) (VIII.B).", ship.id)
        damage(ctx, t.id, hits, f"ship {ship.id}'s kamikaze attack")
        destroy(ctx, ship.id, "kamikaze (VIII.B)")
    return run


__all__ = ["firing_solution"]
