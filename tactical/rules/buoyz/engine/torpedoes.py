"""Torpedoes in the End Phase (5.9): 'Aegis' point defence first, then the attack dice.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..geometry import halve, inches
from ..sds import GUIDED, INTERCEPTABLE
from ..state import ARMAMENT, BattleState, Ship, Torpedo
from .core import _Ctx, close_defence

TORP_RULE = "000 5.9 Torpedoes"
AEGIS_TARGET = 5  # 5.9 "on a 5+ they have intercepted the torpedo"
CD_SUPPORT_RANGE = 2  # 8.5 "CD / Secondary weapons can also be fired in support of friendly ships within range"
TORP_TO_HIT = 3  # 5.9 "they hit on a 3+"


def _aegis_points(ship: Ship) -> int:
    if ship.uses("ecm"):
        return 0  # 7.2 ECM!: "It may not fire" - its Close Defence neither (ruling BZ95)
    points = 0 if ship.cloaked else close_defence(ship)
    if ship.uses("point_defence") and "secondary" not in ship.fired_keys:
        points += halve(ship.sd.secondary, int(ship.crippled) + ship.crit(ARMAMENT))  # 7.2 Point Defence!
    return points


def _intercept(state: BattleState, defender: Ship, torps: list[Torpedo], intercepted: set[int], ctx: _Ctx) -> None:
    stoppable = [t for t in torps if t.kind in INTERCEPTABLE and id(t) not in intercepted]
    points = _aegis_points(defender)
    if not stoppable or not points:
        return
    share = [points // len(stoppable) + (1 if i < points % len(stoppable) else 0) for i in range(len(stoppable))]
    for t, n in zip(stoppable, share):
        if n == 0:
            continue
        faces = ctx.roll(n, f"000 5.9 'Aegis' Point Defence: {defender.id} against a {t.kind} at {t.target}")
        if any(f >= AEGIS_TARGET for f in faces):
            intercepted.add(id(t))
            ctx.log("aegis", f"{defender.name} ({defender.id}) intercepts a {t.kind} torpedo aimed at {t.target}",
                    ship=defender.id, target=t.target, kind=t.kind)


def _resolve_torpedoes(state: BattleState, ctx: _Ctx) -> BattleState:
    """5.9: Aegis intercepts first — each target with its own Close Defence, then friendly ships
    within 2\" that have not fired theirs in support of another (8.5; ruling BZ14) — then 3
    attack dice per torpedo (2 from AC) hitting on 3+ less the target size, +1 plasma and drones."""
    if not state.torpedoes:
        return state
    intercepted: set[int] = set()
    targets = [state.ship(tid) for tid in dict.fromkeys(t.target for t in state.torpedoes)]
    targets = [t for t in targets if t.active]
    for target in targets:
        _intercept(state, target, [t for t in state.torpedoes if t.target == target.id], intercepted, ctx)
    supported: set[int] = {t.id for t in targets}
    for target in targets:
        for friend in state.active_ships(target.side):
            if friend.id in supported or inches(friend.pos, target.pos) > CD_SUPPORT_RANGE:
                continue
            torps = [t for t in state.torpedoes if t.target == target.id]
            if any(t.kind in INTERCEPTABLE and id(t) not in intercepted for t in torps):
                supported.add(friend.id)
                _intercept(state, friend, torps, intercepted, ctx)
    survivors = [t for t in state.torpedoes if id(t) not in intercepted and state.ship(t.target).active
                 and not state.ship(t.target).uses("ecm")]  # 7.2 ECM! (ruling BZ95)
    for t in survivors:
        target = state.ship(t.target)
        if not target.active:
            continue
        evading = target.uses("evasive") or (not t.from_ac and state.ship(t.shooter).uses("evasive"))
        mod = (1 if t.kind in GUIDED else 0) - target.sd.target_size
        faces = ctx.roll(2 if t.from_ac else 3, f"{TORP_RULE}: {t.kind} torpedo at {t.target}")
        hits = torpedo_hits(faces, t.kind, target.sd.target_size)
        ctx.log(
            "torpedo_attack",
            f"{t.kind.title()} torpedo at {target.name} ({target.id}): {list(faces)} modifier "
            f"{mod:+d}: {hits} hit(s)",
            ship=None if t.from_ac else t.shooter,
            flight=t.shooter if t.from_ac else None,
            target=t.target,
            faces=list(faces),
            hits=hits,
        )
        if hits and evading:
            again = ctx.roll(hits, f"000 7.2 Evasive!: re-roll torpedo hits on {t.target}")
            hits = torpedo_hits(again, t.kind, target.sd.target_size)
            ctx.log("evasive", f"Evasive: torpedo hits re-rolled, {hits} stand", hits=hits)
        penalty = max(0, t.range_inches - 5) if t.kind == "plasma" else 0
        state = damage(state, t.target, hits, t.launched_from, ctx, penalty=penalty)
    return state


def torpedo_hits(faces: Iterable[int], kind: str, target_size: int) -> int:
    """5.9: a hit on 3+ after deducting the target size, +1 for plasma and drones; a natural 1
    misses, a natural 6 hits. Ruling BZ15: the 5.9 sidebar's worked example counts "net 1, 2, 4.
    Two hits!", which the text's 3+ makes one hit; the text governs."""
    guide = 1 if kind in GUIDED else 0
    return sum(1 for f in faces if f != 1 and (f == 6 or f + guide - target_size >= TORP_TO_HIT))


# The other phases of the turn, imported last: the phases call one another (the sequence
# calls each phase; a phase hands the turn back to the sequence), and by now every name
# of this module is defined for them.
from .damage import damage  # noqa: E402
