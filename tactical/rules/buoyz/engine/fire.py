"""The Attack Phase's ship fire (5.2 to 5.5), checked beside its resolution, and detecting cloaked
ships before it (10.3 Cloak Hunter!).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from .. import actions as A
from ..geometry import EPSILON, arcs_of, distance, inches, round_half_up
from ..sds import MAIN, SECONDARY, WeaponSystem, has, one_shot
from ..state import (
    ATTACK,
    LURKING,
    MINE_RULE,
    TRANSIT,
    BattleState,
    IllegalActionError,
    Ship,
    Torpedo,
    with_ship,
)
from ..state import evolve as replace
from .core import _Ctx, can_fire, dead_in_space, eligible, fires_cloaked, system_dice, systems

FIRE_RULE = "000 5.3 Fire Procedure"
SPLIT_RULE = "000 5.2 Splitting Fire"
TARGET_RULE = "000 5.4 Eligible Targets"
HIT_RULE = "000 5.5 Gaining Hits With Beam Weapons"
FAST_TARGET = 6.0  # 5.5 "target moved more than 6\" this current turn"
CLOAK_RULE = "000 10.2 Cloaking Devices"


def _check_fire(state: BattleState, action: A.Fire) -> None:
    ship = _check_firer(state, action)
    if action.board is not None:
        _check_board(state, ship, action.board)
    by_key = {s.key: s for s in systems(ship)}
    used: dict[str, int] = {}
    for shot in action.shots:
        if not (isinstance(shot, tuple) and len(shot) == 3):
            raise IllegalActionError(FIRE_RULE, f"a shot is (weapon, target, dice), not {shot!r}")
        key, target_id, dice = shot
        _check_shot_dice(ship, by_key, key, dice, used)
        _check_shot_target(state, ship, target_id)


def _check_firer(state: BattleState, action: A.Fire) -> Ship:
    """The ship nominated to fire, if it may fire now (5.0, 7.2, 10.2, 9.3, 7.3)."""
    if state.phase != ATTACK:
        raise IllegalActionError(FIRE_RULE, "ships fire in the Attack Phase")
    ship = _own_ship(state, action.ship, FIRE_RULE)
    if ship.fired:
        raise IllegalActionError(FIRE_RULE, f"{ship.name} ({ship.id}) has already been nominated to fire this turn")
    if ship.uses("ecm"):
        raise IllegalActionError(ECM_RULE, f"{ship.name} ({ship.id}) is under ECM and may not fire")
    if state.nominated is not None and state.nominated != ship.id:
        raise IllegalActionError(CLOAK_RULE, f"ship {state.nominated} has made its detection roll and fires now")
    if ship.uses("cloak") or ship.uses("decloak"):
        raise IllegalActionError(CLOAK_RULE, f"{ship.name} ({ship.id}) cloaked or uncloaked this turn and may not "
                                 "attack")
    if ship.sweeping:
        raise IllegalActionError(MINE_RULE, f"{ship.name} ({ship.id}) swept mines this turn and may not shoot")
    if ship.tractor is not None:
        raise IllegalActionError(TRACTOR_RULE, f"{ship.name} ({ship.id}) holds a tractor beam and may not fire")
    if ship.cloaked and not fires_cloaked(ship):
        raise IllegalActionError(CLOAK_RULE, f"{ship.name} ({ship.id}) is cloaked and may not fire")
    return ship


def _check_shot_dice(ship: Ship, by_key: dict, key, dice, used: dict[str, int]) -> None:
    """A shot's weapon system and dice (5.5, 5.3, 7.2 Point Defence!); ``used`` counts the dice
    each system has fired so far in this action."""
    system = by_key.get(key)
    if system is None:
        raise IllegalActionError(FIRE_RULE, f"{ship.name} has no weapon system {key!r} "
                                 f"(it has: {', '.join(by_key) or 'none'})")
    if not isinstance(dice, int) or isinstance(dice, bool) or dice < 1:
        raise IllegalActionError(FIRE_RULE, f"{key}: fire 1 or more dice, not {dice!r}")
    if system.group == SECONDARY and ship.uses("point_defence"):
        raise IllegalActionError("000 7.2 Point Defence!", f"{ship.name} ({ship.id})'s secondary weapons are on "
                                 "Point Defence this turn (they do not otherwise fire)")
    if key in used and system.group == MAIN:
        raise IllegalActionError(SPLIT_RULE, f"only Secondary and Close Defence weapons may split their fire; "
                                 f"{system.name} ({key}) fires at one target")
    used[key] = used.get(key, 0) + dice
    available = system_dice(ship, system)
    if used[key] > available:
        raise IllegalActionError(HIT_RULE, f"{system.name} ({key}) has {available} attack dice now, not {used[key]}")


def _check_shot_target(state: BattleState, ship: Ship, target_id) -> None:
    """A shot's target: an enemy on the table, seen and not in hyperspace (5.4, 10.2, 11.8)."""
    target = state.ship(target_id) if isinstance(target_id, int) else None
    if target is None or target.side == ship.side:
        raise IllegalActionError(TARGET_RULE, f"ship {target_id!r} is not an enemy ship")
    if target.status == LURKING:
        raise IllegalActionError(LURK_RULE, f"{target.name} ({target.id}) is lurking unseen, not on the table")
    if target.status == TRANSIT:
        raise IllegalActionError(MULTI_RULE, f"{target.name} ({target.id}) is in transit between tables and "
                                 "cannot be attacked")
    if not target.active:
        raise IllegalActionError(TARGET_RULE, f"{target.name} ({target.id}) is no longer in the battle")
    _no_attack_under_ecm(target, "fired at")
    if target.cloaked and not target.detected:
        raise IllegalActionError(DETECT_RULE, f"{target.name} ({target.id}) is cloaked and has not been detected")
    if target.hyperspace:
        raise IllegalActionError(HYPER_RULE, f"{target.name} ({target.id}) is in hyperspace: no combat is possible")


def _do_fire(state: BattleState, action: A.Fire, ctx: _Ctx) -> BattleState:
    ship = state.ship(action.ship)
    by_key = {s.key: s for s in systems(ship)}
    spent = set(ship.spent)
    if not action.shots:
        ctx.log("fire", f"{ship.name} ({ship.id}) holds its fire", ship=ship.id)
    for key, _target, _dice in action.shots:
        if one_shot(ship.abilities) or one_shot(ship.sd.special_abilities):
            spent.add(key)
    reveal = ship.cloaked and bool(action.shots)  # 7.3 Klingon Cloaked Firing: "Doing this 'reveals' them"
    state = with_ship(state, replace(ship, fired=True, spent=tuple(sorted(spent)), cloaked=ship.cloaked and not reveal,
                                     fired_keys=tuple(dict.fromkeys(k for k, _t, _d in action.shots))))
    state = replace(state, nominated=None)
    if action.board is not None:
        state = replace(state, boardings=state.boardings + ((ship.id, action.board),))
        target = state.ship(action.board)
        ctx.log("board", f"{ship.name} ({ship.id}) beams a boarding party across to {target.name} ({target.id})",
                ship=ship.id, target=target.id)
    for key, target_id, dice in action.shots:
        system = by_key[key]
        shooter = state.ship(ship.id)
        target = state.ship(target_id)
        if not shooter.active:
            break
        if not target.active:
            ctx.log("shot_lost", f"{system.name} ({key}): {target.name} ({target.id}) is already gone", ship=ship.id,
                    weapon=key, target=target.id)
            continue
        if not eligible(state, shooter, system, target):
            ctx.log("shot_lost", f"{system.name} ({key}) at {target.name} ({target.id}): out of arc or range, the "
                    f"shot is lost ({TARGET_RULE}: 'Get it wrong \u2018buy\u2019 happens!')", ship=ship.id, weapon=key,
                    target=target.id, range=inches(shooter.pos, target.pos))
            continue
        if system.banks:
            bearing_banks, all_banks = system.bearing_share(arcs_of(shooter.pos, shooter.heading, target.pos))
            if bearing_banks < all_banks:
                share = round_half_up(dice * bearing_banks / all_banks)
                ctx.log(
                    "banks",
                    f"{system.name} ({key}): {bearing_banks} of its {all_banks} banks bear on "
                    f"{target.name} ({target.id}): {share} of {dice} dice ({TARGET_RULE})",
                    ship=ship.id,
                    about=(target.id,),
                    weapon=key,
                    dice=share,
                    declared=dice,
                )
                dice = share
                if not dice:
                    continue
        if system.torpedo:
            rng = inches(shooter.pos, target.pos)
            torps = tuple(Torpedo(shooter.id, shooter.side, target.id, system.torpedo, shooter.pos, rng)
                          for _ in range(dice))
            state = replace(state, torpedoes=state.torpedoes + torps)
            ctx.log("torpedo", f"{shooter.name} ({shooter.id}) launches {dice} {system.torpedo} torpedo(es) at "
                    f"{target.name} ({target.id}), {rng}\" away", ship=ship.id, target=target.id, count=dice,
                    kind=system.torpedo, about=(shooter.id,))
            continue
        state = _beam_attack(state, shooter, system, target, dice, ctx)
    return _after_nomination(state, ship.side, ctx, ship.id)


def handle_fire(state: BattleState, action: A.Fire) -> Callable[[_Ctx], BattleState]:
    """5.3: a ship's fire: checked now (an ``IllegalActionError`` rolls nothing); the closure resolves it."""
    _check_fire(state, action)
    return partial(_do_fire, state, action)


def hit_modifier(state: BattleState, shooter: Ship, target: Ship) -> int:
    """5.5: −1 per 2\" (or part) beyond 2\"; −1 fast moving target; +1 dead in space."""
    rng = inches(shooter.pos, target.pos)
    mod = -((rng - 2 + 1) // 2) if rng > 2 else 0
    if target.moved_inches > FAST_TARGET + EPSILON:
        mod -= 1
    if dead_in_space(target) or target.landed:
        mod += 1  # 5.5 "Target Dead in space or located upon celestial body +1"
    if target.cloaked:
        mod -= 1
    if shooter.sd.speed is None:
        mod += 1  # 11.2: bases are stable fire platforms, +1 to all accuracy scores at 5.5
    if inhibited(state, shooter, target.pos) and not has(shooter.abilities, "Advanced Sensors"):
        mod -= 1  # 9.1 attacks inside or through asteroid fields and nebulae; 9.2 Advanced Sensors ignore it
    return mod


def _hits(faces: Iterable[int], need: int, mod: int) -> int:
    """Natural 1 always misses, natural 6 always hits (5.5, 5.9)."""
    return sum(1 for f in faces if f != 1 and (f == 6 or f + mod >= need))


def _evasive_rerolls(ctx: _Ctx, shooter: Ship, target: Ship, hits: int, need: int, mod: int, what: str) -> int:
    """7.2 Evasive!: hits on an evading ship, and hits an evading ship makes, are re-rolled."""
    if hits and (target.uses("evasive") or shooter.uses("evasive")):
        faces = ctx.roll(hits, f"{'000 7.2 Evasive!'}: re-roll {what} hits")
        new = _hits(faces, need, mod)
        ctx.log("evasive", f"Evasive: {hits} hit(s) re-rolled, {new} stand", hits=new)
        return new
    return hits


def _beam_attack(state: BattleState, shooter: Ship, system: WeaponSystem, target: Ship, dice: int,
                 ctx: _Ctx) -> BattleState:
    mod = hit_modifier(state, shooter, target)
    faces = ctx.roll(dice, f"{HIT_RULE}: {shooter.id} {system.key} at {target.id}")
    hits = _hits(faces, target.sd.target_size, mod)
    ctx.log("attack", f"{shooter.name} ({shooter.id}) fires {system.name} ({dice} dice) at {target.name} "
            f"({target.id}): {list(faces)} modifier {mod:+d} needing {target.sd.target_size}: {hits} hit(s)",
            ship=shooter.id, target=target.id, weapon=system.key, faces=list(faces), modifier=mod, hits=hits)
    hits = _evasive_rerolls(ctx, shooter, target, hits, target.sd.target_size, mod, "beam")
    if hits and has(target.abilities, "Adaption") and shooter.id in target.exchanged:
        again = ctx.roll(hits, f"000 7.3 Borg Adaption: {target.id} re-rolls {shooter.id}'s hits")
        new = _hits(again, target.sd.target_size, mod)
        ctx.log("adaption", f"{target.name} ({target.id}) adapts: {hits} hit(s) re-rolled, {new} stand", ship=target.id,
                hits=new)
        hits = new
    state = with_ship(state, replace(shooter, engaged=tuple(dict.fromkeys(shooter.engaged + (target.id,)))))
    target = state.ship(target.id)
    state = with_ship(state, replace(target, engaged=tuple(dict.fromkeys(target.engaged + (shooter.id,)))))
    drained = has(shooter.abilities, "Shield Drain")
    return damage(state, target.id, hits, shooter.pos, ctx, secondary=system.group == SECONDARY, drained=drained)


def fire_options(state: BattleState, ship: Ship) -> list[A.Fire]:
    """Waive; every eligible system at each target; and each system at its nearest eligible
    target (a representative list; ``apply`` accepts any legal Fire)."""
    out = [A.Fire(ship.id, ())]
    syss = [s for s in systems(ship) if system_dice(ship, s) > 0]
    enemies = list(state.enemy_ships(ship.side))
    for e in enemies:
        shots = tuple((s.key, e.id, system_dice(ship, s)) for s in syss if eligible(state, ship, s, e))
        if shots:
            out.append(A.Fire(ship.id, shots))
    spread = []
    for s in syss:
        cands = [e for e in enemies if eligible(state, ship, s, e)]
        if cands:
            e = min(cands, key=lambda e: (distance(ship.pos, e.pos), e.id))
            spread.append((s.key, e.id, system_dice(ship, s)))
    if spread and A.Fire(ship.id, tuple(spread)) not in out:
        out.append(A.Fire(ship.id, tuple(spread)))
    for e in enemies:
        try:
            _check_board(state, ship, e.id)
        except IllegalActionError:
            continue
        out.append(A.Fire(ship.id, (), board=e.id))
    return out


DETECT_RULE = "000 10.3 Detecting Cloaked Ships"
DETECT_TARGET, DETECT_RANGE, HUNTER_MOVE = 4, 2, 4.0


def _check_detect(state: BattleState, action: A.Detect) -> None:
    if state.phase != ATTACK:
        raise IllegalActionError(DETECT_RULE, "detection is rolled in the Attack Phase, before a ship declares attacks")
    ship = _own_ship(state, action.ship, DETECT_RULE)
    if state.nominated is not None:
        raise IllegalActionError(DETECT_RULE, f"ship {state.nominated} has made its detection roll and fires now")
    if not can_fire(ship):
        raise IllegalActionError(FIRE_RULE, f"{ship.name} ({ship.id}) has nothing left to attack with this turn")
    if not ship.uses("cloak_hunter"):
        raise IllegalActionError(DETECT_RULE, f"{ship.name} ({ship.id}) did not select Cloak Hunter! this turn")
    if ship.moved_inches > HUNTER_MOVE + EPSILON:
        raise IllegalActionError(DETECT_RULE, f"{ship.name} ({ship.id}) moved {ship.moved_inches:g}\"; a cloak hunter "
                                 f"moves no more than {HUNTER_MOVE:g}\"")
    if ship.searched:
        raise IllegalActionError(DETECT_RULE, f"{ship.name} ({ship.id}) has already searched this turn")


def _do_detect(state: BattleState, action: A.Detect, ctx: _Ctx) -> BattleState:
    """10.3: 4+ (Advanced Sensors +1, 9.2) detects every cloaked enemy within 2\"; a failure
    leaves the ship too busy searching to attack this turn."""
    ship = state.ship(action.ship)
    bonus = 1 if has(ship.abilities, "Advanced Sensors") else 0
    face = ctx.roll(1, f"{DETECT_RULE}: {ship.id} searches")[0]
    ok = face + bonus >= DETECT_TARGET
    found = [e for e in state.enemy_ships(ship.side)
             if e.cloaked and inches(ship.pos, e.pos) <= DETECT_RANGE] if ok else []
    ctx.log("detect", f"{ship.name} ({ship.id}) searches: {face}{'+1' if bonus else ''} "
            + (f"detects {', '.join(f'{e.name} ({e.id})' for e in found) or 'nothing within 2'}" if ok
               else "fails; too busy searching to attack"), ship=ship.id, success=ok, detected=[e.id for e in found],
            about=tuple(e.id for e in found))
    for e in found:
        state = with_ship(state, replace(e, detected=True))
    if not ok:
        state = with_ship(state, replace(ship, searched=True, fired=True))
        return _after_nomination(state, ship.side, ctx)
    return replace(with_ship(state, replace(ship, searched=True)), nominated=ship.id)


def handle_detect(state: BattleState, action: A.Detect) -> Callable[[_Ctx], BattleState]:
    """10.3: a cloak hunter's search: checked now (an ``IllegalActionError`` rolls nothing); the closure resolves it."""
    _check_detect(state, action)
    return partial(_do_detect, state, action)


# The other phases of the turn, imported last: the phases call one another (the sequence
# calls each phase; a phase hands the turn back to the sequence), and by now every name
# of this module is defined for them.
from .boarding import _check_board  # noqa: E402
from .damage import damage  # noqa: E402
from .movement import LURK_RULE, MULTI_RULE  # noqa: E402
from .sequence import _after_nomination, _own_ship  # noqa: E402
from .specials import ECM_RULE, HYPER_RULE, TRACTOR_RULE, _no_attack_under_ecm  # noqa: E402
from .terrain import inhibited  # noqa: E402
