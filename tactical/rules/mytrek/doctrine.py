"""The computer's orders for My Trek V (pure Python): never stalls, sees only what its side sees.

Phase Zero: weapons and force fields first (each up to its factor), the rest to engines (a
tractor beam with a point to spare, the invisibility device never); full speed; repair the first
damaged system; self-destruct when critically damaged with enemies close and no friend near.
Moves: head for the nearest enemy in sight, keeping it ahead; hold when it is ahead and close.
Attacks: beams, else a torpedo, else a missile, at the enemy in reach with the best expected damage
(over the whole spread of the roll: a roll whose mean falls short of the force field still gets
through on a high throw, and a beam costs nothing to fire).
"""

from __future__ import annotations

from functools import cache

from tactical.rules.geometry import square

from . import engine as E
from . import tables as T
from .state import Attack, Battle, Move, Orders, Ship


def _enemies(battle: Battle, ship: Ship) -> list[Ship]:
    return [
        s for s in battle.ships if s.side != ship.side and s.alive and not E.hidden_from(battle, s, ship.side)
    ]


def _orders(battle: Battle, ship: Ship) -> Orders:
    pp = T.power_points(ship.design.size, ship.hull)
    enemies = _enemies(battle, ship)
    near = [e for e in enemies if square.distance(e.pos, ship.pos) <= 3]
    friends = [
        s
        for s in battle.ships
        if s.side == ship.side and s.alive and s.id != ship.id and square.distance(s.pos, ship.pos) <= 8
    ]
    fix = E.repair_choice(ship)
    if T.damage_level(ship.design.size, ship.hull) == "critical" and len(near) >= 1 and not friends:
        return Orders(ship.id, destruct=True, repair=fix)
    weapons = min(ship.weapons, pp)
    fields = min(ship.fields, pp - weapons) if ship.design.fields else 0
    engines = min(ship.engines, pp - weapons - fields, 3)
    if engines == 0 and pp > weapons + fields and ship.engines == 0:
        engines = 0
    tractor = 1 if pp - weapons - fields - engines >= 1 else 0
    return Orders(ship.id, engines, fields, weapons, tractor, 0, E.max_speed(ship, engines), False, fix)


def suggested_orders(battle: Battle, ship: Ship) -> Orders:
    """The Phase Zero form's starting values: the doctrine's power split, never self-destruct."""
    o = _orders(battle, ship)
    if o.destruct:
        return Orders(ship.id, repair=o.repair)
    return o


def _move(battle: Battle, ship: Ship) -> Move:
    enemies = _enemies(battle, ship)
    options = E.legal_actions_for(battle, ship)
    if not enemies:
        return options[0]
    target = min(enemies, key=lambda e: (square.distance(e.pos, ship.pos), e.id))
    ahead, right = square.relative(ship.facing, (target.x - ship.x, target.y - ship.y))
    spaces = square.distance(ship.pos, target.pos)
    if ahead >= abs(right):
        want = "H" if spaces <= 2 else "F"
    elif ahead >= 0 and spaces > 3:
        want = "F"
    else:
        want = "R" if right > 0 else "L"
    return next((m for m in options if m.how == want), options[-1])


@cache
def _sums(n: int) -> tuple[tuple[int, float], ...]:
    """The chance of each total of ``n`` d6."""
    dist = {0: 1.0}
    for _ in range(n):
        nxt: dict[int, float] = {}
        for total, p in dist.items():
            for face in range(1, 7):
                nxt[total + face] = nxt.get(total + face, 0.0) + p / 6
        dist = nxt
    return tuple(sorted(dist.items()))


def _expected(battle: Battle, ship: Ship, a: Attack) -> float:
    """The hull damage the attack deals on average (002 Attacking: the roll less the deductions,
    over the force field)."""
    target = battle.ship(a.target)
    if a.weapon == "tractor":
        return 0.5
    n = E.attack_dice(ship, a.weapon)
    bar = sum(v for _, v in E.deductions(battle, ship, target, a.weapon, a.system)) + target.field_value
    return _over(n, bar) + (0.1 if target.hull <= 3.5 * n else 0)


@cache
def _over(n: int, bar: int) -> float:
    """The mean of (the total of ``n`` d6 less ``bar``), counting only totals over it."""
    return sum(p * (total - bar) for total, p in _sums(n) if total > bar)


def _attack(battle: Battle, ship: Ship) -> Attack:
    best, value = Attack(ship.id), 0.0
    ready = E._weapons_ready(ship)
    weapons = [w for w in ready if w == "beams" or w == "tractor" or "beams" not in ready]
    for target in _enemies(battle, ship):
        if square.distance(ship.pos, target.pos) > T.MAX_RANGE:
            continue
        for weapon in weapons:
            a = Attack(ship.id, target.id, weapon)
            if not E._passes(E._check_attack, battle, ship, a):
                continue
            v = _expected(battle, ship, a)
            if v > value:
                best, value = a, v
    return best


def doctrine_action(battle: Battle, side: int | None = None):
    """The orders of ``side``'s next ship (default: the first side to give orders)."""
    ship = E.waiting(battle, side)[0]
    if battle.step == "zero":
        return _orders(battle, ship)
    if battle.step == "move":
        return _move(battle, ship)
    return _attack(battle, ship)
