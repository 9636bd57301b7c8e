"""Hits and what they do: damage through shields (5.6), crippling (5.7), critical hits (5.8),
terminal explosions (11.6), damage control in the End Phase (6.2, 7.2 Red Alert!).
"""

from __future__ import annotations

from ..geometry import inches
from ..sds import has
from ..state import CRITS, DESTROYED, SHIELDS, BattleState, Ship, with_ship
from ..state import evolve as replace
from .core import _Ctx, command, shields_facing

EFFECT_RULE = "000 5.6 Effect Of Hits"
CRIPPLE_RULE = "000 5.7 Crippled Ships"
CRIT_RULE = "000 5.8 The Effect Of Critical Hits"
DC_RULE = "000 6.2 Damage Control"
EXPLOSION_RULE = "000 11.6 Terminal Explosions"
BASE_RULE = "000 11.2 'Shore' Batteries And Bases"
DAMAGE_CONTROL_TARGET = 5  # 6.2 "1D6, adding the ship's Command score. On a roll of 5+"
CRIT_CHECK = 4  # 5.6 "If a 4+ is rolled … it also scores a critical hit"
CRIPPLE_LOSS = 4  # 5.7 (3) "On a 4+ this is destroyed or removed"
# Ruling BZ13: the ability a side gives up first on a Vital System hit, unless its orders say.
DEFAULT_LOSS = ("Research", "Saucer", "Landing", "Pursuit Mine", "Trans", "Trac", "Advanced Sensors",
                "Attack Shields", "Adaption", "Shield Drain", "Carrier", "Cloak", "Fire cloaked", "Agile",
                "Impulse", "Warp")


def damage(state: BattleState, target_id: int, hits: int, from_pos, ctx: _Ctx, secondary: bool = False,
           drained: bool = False, penalty: int = 0) -> BattleState:
    """5.6: a D6 per hit; it goes through if it equals or beats the current shields (Secondary
    −1, plasma range ``penalty``, SWWOBS +1); each that beats them is checked for a critical hit
    (4+); then crippling (5.7) and critical effects (5.8)."""
    target = state.ship(target_id)
    if hits <= 0 or not target.active:
        return state
    shields = shields_facing(target, from_pos, drained)
    mod = -penalty - (1 if secondary else 0) + (1 if has(target.sd.special_abilities, "SWWOBS") else 0)
    faces = ctx.roll(hits, f"{EFFECT_RULE}: damage on {target.id}")
    through = sum(1 for f in faces if f + mod >= shields)
    beats = sum(1 for f in faces if f + mod > shields)
    ctx.log("damage", f"{target.name} ({target.id}) shields {shields}: damage dice {list(faces)} modifier {mod:+d}: "
            f"{through} go through", ship=target.id, shields=shields, faces=list(faces), through=through,
            beats=beats)
    state = _lose_hull(state, target.id, through, ctx)
    target = state.ship(target_id)
    if not target.active or beats == 0:
        return state
    checks = ctx.roll(beats, f"{EFFECT_RULE}: critical check on {target.id}")
    crits = sum(1 for f in checks if f >= CRIT_CHECK)
    if crits:
        ctx.log("critical_check", f"{crits} critical hit(s) on {target.name} ({target.id})", ship=target.id,
                crits=crits, faces=list(checks))
    for _ in range(crits):
        if not state.ship(target_id).active:
            break
        state = _critical(state, target_id, ctx)
    return state


def _lose_hull(state: BattleState, target_id: int, points: int, ctx: _Ctx) -> BattleState:
    target = state.ship(target_id)
    if points <= 0 or not target.active:
        return state
    hull = max(0, target.hull - points)
    target = replace(target, hull=hull)
    if hull == 0:
        ctx.log("destroyed", f"{target.name} ({target.id}) is destroyed ({EFFECT_RULE})", ship=target.id)
        state = with_ship(state, replace(target, status=DESTROYED))
        return replace(state, torpedoes=tuple(t for t in state.torpedoes if t.target != target.id))
    state = with_ship(state, target)
    if not target.crippled and target.sd.crippled_at > 0 and hull <= target.sd.crippled_at:
        state = _cripple(state, target.id, ctx)
    return state


def _cripple(state: BattleState, target_id: int, ctx: _Ctx) -> BattleState:
    """5.7: crippled for the rest of the game; a D6 for every Special Ability, lost on a 4+
    (those marked * are never lost)."""
    target = state.ship(target_id)
    losable = [a for a in target.abilities if a.lower() not in _NEGATIVE]
    lost = []
    if losable:
        faces = ctx.roll(len(losable), f"{CRIPPLE_RULE}: special abilities of {target.id}")
        lost = [a for a, f in zip(losable, faces) if f >= CRIPPLE_LOSS]
    ctx.log("crippled", f"{target.name} ({target.id}) is crippled" + (f"; loses {', '.join(lost)}" if lost else ""),
            ship=target.id, lost=lost)
    if target.cloaked:
        ctx.log("decloak", f"{target.name} ({target.id})'s cloak fails ({CRIPPLE_RULE} (5))", ship=target.id)
    return with_ship(state, replace(target, crippled=True, lost=target.lost + tuple(lost), cloaked=False))


_NEGATIVE = frozenset({"1 shot only", "one-shot", "swwobs"})


def _add_crit(state: BattleState, target_id: int, kind: str, ctx: _Ctx) -> BattleState:
    target = state.ship(target_id)
    i = CRITS.index(kind)
    crits = tuple(c + 1 if j == i else c for j, c in enumerate(target.crits))
    ctx.log("critical", f"{target.name} ({target.id}): Critical {kind.title()} ({CRIT_RULE})", ship=target.id,
            effect=kind)
    cloaked = target.cloaked and kind != SHIELDS  # 5.8 (3) "Cloaked ships can also no longer cloak"
    return with_ship(state, replace(target, crits=crits, cloaked=cloaked))


def _critical(state: BattleState, target_id: int, ctx: _Ctx) -> BattleState:
    """5.8's table (ruling BZ12 for result 4's re-roll)."""
    face = ctx.roll(1, f"{CRIT_RULE}: table for {target_id}")[0]
    if face == 4:
        again = ctx.roll(1, f"{CRIT_RULE}: critical fire / leak re-roll for {target_id}")[0]
        if again == 4:
            ctx.log("critical", "Critical Fire: lucky break, the safety back-ups kick in", ship=target_id, effect=None)
            return state
        face = again
    if face == 2 and state.ship(target_id).sd.speed is None:
        ctx.log("critical", f"Critical Motive on a base counts as a hull hit ({BASE_RULE})", ship=target_id,
                effect="hull")
        return _lose_hull(state, target_id, 1, ctx)
    if face in (1, 2, 3):
        return _add_crit(state, target_id, CRITS[face - 1], ctx)
    if face == 5:
        return _vital_fire(state, target_id, ctx)
    return _vital_system(state, target_id, ctx)


def _vital_fire(state: BattleState, target_id: int, ctx: _Ctx) -> BattleState:
    a, b = ctx.roll(2, f"{CRIT_RULE}: Vital Fire! on {target_id}")
    target = state.ship(target_id)
    if a == b:
        ctx.log("terminal_explosion", f"Vital Fire! doubles ({a},{b}): {target.name} ({target.id}) disintegrates",
                ship=target.id)
        state = with_ship(state, replace(target, status=DESTROYED))
        state = replace(state, torpedoes=tuple(t for t in state.torpedoes if t.target != target.id))
        return explode(state, target.id, ctx)
    choice = state.orders_of(target.side).vital_fire
    if choice not in (1, 2, 6):
        choice = 6 if _losable(target) else 2  # ruling BZ13
    ctx.log("vital_fire", f"Vital Fire! ({a},{b}) on {target.name} ({target.id}) counts as {choice}",
            ship=target.id, counts_as=choice)
    if choice == 6:
        return _vital_system(state, target_id, ctx)
    return _add_crit(state, target_id, CRITS[choice - 1], ctx)


def _losable(ship: Ship) -> list[str]:
    return [a for a in ship.abilities if a.lower() not in _NEGATIVE]


def _vital_system(state: BattleState, target_id: int, ctx: _Ctx) -> BattleState:
    target = state.ship(target_id)
    losable = _losable(target)
    if not losable:
        ctx.log("vital_system", f"Vital System hit on {target.name} ({target.id}): nothing left to lose, 2 more hull",
                ship=target.id, lost=None)
        return _lose_hull(state, target_id, 2, ctx)
    preference = state.orders_of(target.side).ability_loss or DEFAULT_LOSS
    pick = next((a for p in preference for a in losable if a.lower() == p.lower()), losable[-1])
    ctx.log("vital_system", f"Vital System hit: {target.name} ({target.id}) loses {pick}", ship=target.id, lost=pick)
    return with_ship(state, replace(target, lost=target.lost + (pick,), vital_lost=target.vital_lost + (pick,)))


def explode(state: BattleState, exploder_id: int, ctx: _Ctx) -> BattleState:
    """11.6: each ship within 1\" takes 1D6 hits (2D6 if the exploder is Size 0 or 1, none if 4 or 5)."""
    ex = state.ship(exploder_id)
    size = ex.sd.target_size
    if size >= 4:
        return state
    for other in state.ships:
        if other.id == ex.id or not other.active or inches(ex.pos, other.pos) > 1:
            continue
        n = sum(ctx.roll(2 if size <= 1 else 1, f"{EXPLOSION_RULE}: hits on {other.id}"))
        ctx.log("explosion", f"{other.name} ({other.id}) is caught in the explosion: {n} hit(s)", ship=other.id, hits=n)
        state = damage(state, other.id, n, ex.pos, ctx)
    return state


def _repair_vital(state: BattleState, ship: Ship, ctx: _Ctx) -> BattleState:
    """7.2 Red Alert!: "A 'Vital' hit may be repaired instead but no modifier is given – except to
    a 'Superior crew'" (ruling BZ22: only once no critical effect is left; the last ability lost
    to a Vital hit comes back)."""
    ability = ship.vital_lost[-1]
    bonus = 1 if ship.sd.command >= 3 else 0
    face = ctx.roll(1, f"{DC_RULE}: {ship.id} repairs the Vital hit on {ability} (Red Alert)")[0]
    ok = face + ship.sd.command + bonus >= DAMAGE_CONTROL_TARGET
    ctx.log("repair", f"{ship.name} ({ship.id}) damage control on the Vital hit ({ability}): "
            f"{face}+{ship.sd.command + bonus} {'repaired' if ok else 'fails'}", ship=ship.id, effect=ability,
            success=ok)
    if not ok:
        return state
    lost = list(ship.lost)
    lost.reverse()
    lost.remove(ability)
    lost.reverse()
    return with_ship(state, replace(ship, lost=tuple(lost), vital_lost=ship.vital_lost[:-1]))


def _damage_control(state: BattleState, ctx: _Ctx) -> BattleState:
    """6.2: the Initiative holder's ships first; one critical effect per ship a turn (two with
    Research, 7.3); 1D6 + Command (+1 on Red Alert, 7.2) repairs it on 5+."""
    for side in state.order_of_play():
        for ship in state.active_ships(side):
            tries = 2 if has(ship.abilities, "Research") else 1
            for _ in range(tries):
                ship = state.ship(ship.id)
                if ship.active and not any(ship.crits) and ship.vital_lost and ship.uses("red_alert"):
                    state = _repair_vital(state, ship, ctx)
                    break
                if not ship.active or not any(ship.crits):
                    break
                kinds = [k for k in state.orders_of(side).repair_order if k in CRITS] + list(CRITS)
                kind = next(k for k in kinds if ship.crit(k) > 0)
                bonus = 1 if ship.uses("red_alert") else 0
                face = ctx.roll(1, f"{DC_RULE}: {ship.id} repairs {kind}")[0]
                cmd = command(state, ship)
                ok = face + cmd + bonus >= DAMAGE_CONTROL_TARGET
                ctx.log("repair", f"{ship.name} ({ship.id}) damage control on {kind}: {face}+{cmd + bonus} "
                        f"{'repaired' if ok else 'fails'}", ship=ship.id, effect=kind, success=ok)
                if ok:
                    i = CRITS.index(kind)
                    crits = tuple(c - 1 if j == i else c for j, c in enumerate(ship.crits))
                    state = with_ship(state, replace(ship, crits=crits))
    return state
