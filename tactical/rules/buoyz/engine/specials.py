"""Special Actions (7.1, 7.2, 7.3), each check beside its resolution: the Command check, ECM,
ramming, tractor beams, saucer separation, landing, 'Use The Force, Luke!', hyperspace (11.8).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .. import actions as A
from ..geometry import EPSILON, advance, bearing, distance, inches, round_half_up
from ..sds import has
from ..state import (
    DESTROYED,
    LEFT,
    MOTIVE,
    MOVEMENT,
    SHIELDS,
    BattleState,
    IllegalActionError,
    Ship,
    with_ship,
)
from ..state import evolve as replace
from .core import _Ctx, command_of, dead_in_space

SPECIAL_RULE = "000 7.2 Special Actions"
FORCE_RULE = "000 7.2 'Use The Force, Luke!'"
SAUCER_RULE = "000 7.3 Federation Saucer Separation"
HYPER_RULE = "000 11.8 Hyperspace"
HYPER_MOVE = 24.0
LANDING_RULE = "000 7.3 Landing"
RAM_RANGE = 2  # 7.2 Ramming Speed! "an enemy vessel within 2\""


def _check_special(state: BattleState, action: A.Special) -> None:
    if state.phase != MOVEMENT:
        raise IllegalActionError(SPECIAL_RULE, "Special Actions are attempted when a ship is nominated to move")
    ship = _own_ship(state, action.ship, SPECIAL_RULE)
    if action.action not in A.SPECIAL_ACTIONS:
        raise IllegalActionError(SPECIAL_RULE, f"unknown Special Action {action.action!r} "
                                 f"(known: {', '.join(sorted(A.SPECIAL_ACTIONS))})")
    _check_special_timing(state, ship, action)
    if ship.moved:
        raise IllegalActionError(MOVE_RULE, f"{ship.name} ({ship.id}) has already been nominated to move this turn")
    if (action.target is not None) != (action.action == "ramming" or action.action in TRACTORS):
        raise IllegalActionError(SPECIAL_RULE, "Ramming Speed! and Tractor! name the ship they act on; no other "
                                 "Special Action takes a target")
    for check in _SPECIAL_CHECKS.get(action.action, ()):
        check(state, ship, action)


def _check_special_timing(state: BattleState, ship: Ship, action: A.Special) -> None:
    """When a Special Action may be attempted: hyperspace and maximum warp after a successful
    Flank Speed (11.8, 7.2), a No Win Scenario's two more tries (7.2), else once a turn, before
    the ship moves (7.1)."""
    if action.action == "hyperspace":
        if state.nominated != ship.id or not ship.uses("flank_speed") or not has(ship.abilities, "Hyperspace"):
            raise IllegalActionError(HYPER_RULE, "a ship with the Hyperspace ability enters hyperspace after "
                                     "successfully rolling for Flank Speed")
    elif action.action == "maximum_warp":
        if state.nominated != ship.id or not ship.uses("flank_speed"):
            raise IllegalActionError(f"{SPECIAL_RULE}: Maximum Warp!", "only a ship that has this turn successfully "
                                     "invoked Flank Speed can convert it to maximum warp")
        if not has(ship.abilities, "Warp") or ship.crippled or ship.crit(MOTIVE):
            raise IllegalActionError(f"{SPECIAL_RULE}: Maximum Warp!", f"{ship.name} ({ship.id}) is not a warp capable "
                                     "ship whose movement has not been reduced by combat")
        if ship.cloaked:
            raise IllegalActionError(f"{SPECIAL_RULE}: Maximum Warp!", f"{ship.name} ({ship.id}) is cloaked: only "
                                     "uncloaked warp capable ships go to maximum warp")
    elif ship.extra_tries:  # after a successful No Win Scenario: two more, each a different one
        if action.action == "no_win" or action.action == ship.special_tried or ship.uses(action.action):
            raise IllegalActionError(
                SPECIAL_RULE, f"{ship.name} ({ship.id}) has already tried {action.action} this turn"
            )
    else:
        if state.nominated is not None:
            raise IllegalActionError(SPECIAL_RULE, f"ship {state.nominated} attempted its Special Action and must move "
                                     "now")
        if ship.special_tried:
            raise IllegalActionError(
                SPECIAL_RULE, f"{ship.name} ({ship.id}) has attempted its Special Action this turn"
            )


# --- each Special Action's own conditions (7.2, 7.3), in _SPECIAL_CHECKS below ---------------------

def _needs_to_move(state: BattleState, ship: Ship, action: A.Special) -> None:
    if ship.sd.speed is None or dead_in_space(ship):
        name = action.action.replace("_", " ")
        raise IllegalActionError(SPECIAL_RULE, f"{ship.name} ({ship.id}) cannot move, so cannot use {name}")


def _check_tractor_action(state: BattleState, ship: Ship, action: A.Special) -> None:
    _check_tractor(state, ship, action.target)


def _check_ecm(state: BattleState, ship: Ship, action: A.Special) -> None:
    if any(o.kind in ("nebula", "planet") and distance(ship.pos, o.centre) <= o.radius for o in state.objects):
        raise IllegalActionError(ECM_RULE, "ECM cannot be performed within an atmosphere or nebula")


def _check_attack_shields(state: BattleState, ship: Ship, action: A.Special) -> None:
    if not has(ship.abilities, "Attack Shields"):
        raise IllegalActionError("000 7.3 Klingon Attack Shields", f"{ship.name} ({ship.id}) has no Attack Shields")


def _check_cloak(state: BattleState, ship: Ship, action: A.Special) -> None:
    if not has(ship.abilities, "Cloak"):
        raise IllegalActionError(CLOAK_RULE, f"{ship.name} ({ship.id}) has no cloaking device")
    if action.action == "cloak" and ship.cloaked or action.action == "decloak" and not ship.cloaked:
        raise IllegalActionError(CLOAK_RULE, f"{ship.name} ({ship.id}) is {'already' if ship.cloaked else 'not'} "
                                 "cloaked")
    if action.action == "cloak" and (ship.crippled or ship.crit(SHIELDS)):
        raise IllegalActionError(CLOAK_RULE, f"{ship.name} ({ship.id})'s cloak is inoperative (5.7 (5), 5.8 (3))")


def _check_engine_doubling(state: BattleState, ship: Ship, action: A.Special) -> None:
    if not (has(ship.abilities, "Engine Doubling") or ship.extra_tries):
        raise IllegalActionError("000 7.3 Orion / Pirate Engine Doubling", f"{ship.name} ({ship.id}) cannot double its "
                                 "engines (an Orion ability, or one of a No Win Scenario's actions)")


def _check_saucer(state: BattleState, ship: Ship, action: A.Special) -> None:
    if not has(ship.abilities, "Saucer"):
        raise IllegalActionError(SAUCER_RULE, f"{ship.name} ({ship.id}) has no separable saucer")
    if ship.hull < 2:
        raise IllegalActionError(SAUCER_RULE, f"{ship.name} ({ship.id}) has too little hull left to separate")


def _check_land(state: BattleState, ship: Ship, action: A.Special) -> None:
    if not has(ship.abilities, "Landing"):
        raise IllegalActionError(LANDING_RULE, f"{ship.name} ({ship.id}) cannot land")
    if ship.landed or not any(o.kind in MASSES and distance(ship.pos, o.centre) <= o.radius + 1 + EPSILON
                              for o in state.objects):
        raise IllegalActionError(LANDING_RULE, f"{ship.name} ({ship.id}) is not within 1\" of a planet or moon it "
                                 "could land on")


def _check_take_off(state: BattleState, ship: Ship, action: A.Special) -> None:
    if not ship.landed:
        raise IllegalActionError(LANDING_RULE, f"{ship.name} ({ship.id}) has not landed")


def _check_force(state: BattleState, ship: Ship, action: A.Special) -> None:
    if ship.sd.command < 3:
        raise IllegalActionError(FORCE_RULE, f"only Superior crews go into overwatch; {ship.name} ({ship.id}) has "
                                 f"Command {ship.sd.command}")


def _check_point_defence(state: BattleState, ship: Ship, action: A.Special) -> None:
    if not ship.sd.secondary:
        raise IllegalActionError("000 7.2 Point Defence!", f"{ship.name} ({ship.id}) has no secondary weapons")


def _check_ram(state: BattleState, ship: Ship, action: A.Special) -> None:
    target = state.ship(action.target) if isinstance(action.target, int) else None
    if target is None or target.side == ship.side or not target.active:
        raise IllegalActionError("000 7.2 Ramming Speed!", f"ship {action.target!r} is not an enemy vessel in the "
                                 "battle")
    _no_attack_under_ecm(target, "rammed")
    if inches(ship.pos, target.pos) > RAM_RANGE:
        raise IllegalActionError("000 7.2 Ramming Speed!", f"{target.name} ({target.id}) is "
                                 f"{inches(ship.pos, target.pos)}\" away; a ram reaches {RAM_RANGE}\"")


def _do_special(state: BattleState, action: A.Special, ctx: _Ctx) -> BattleState:
    ship = state.ship(action.ship)
    need = A.SPECIAL_ACTIONS[action.action]
    if need:
        face = ctx.roll(1, f"{SPECIAL_RULE}: {action.action} command check ({ship.id})")[0]
        command = command_of(state, ship) - (1 if inhibited(state, ship) else 0)  # 9.1: -1 in asteroids, nebulae
        ok = face + command >= need
        ctx.log("special", f"{ship.name} ({ship.id}) attempts {action.action}: {face}+{command} "
                f"{'succeeds' if ok else 'fails'} (needs {need})", ship=ship.id, action=action.action, success=ok)
    else:
        ok = True
        ctx.log("special", f"{ship.name} ({ship.id}) declares {action.action}", ship=ship.id, action=action.action,
                success=True)
    if ok and need:
        state, ok = _overwatch(state, ship, action.action, ctx)
        ship = state.ship(ship.id)
    if action.action == "hyperspace":
        ship = replace(ship, hyperspace=True)
        ctx.log("hyperspace", f"{ship.name} ({ship.id}) enters hyperspace ({HYPER_RULE})", ship=ship.id)
        return with_ship(state, ship)
    if action.action == "maximum_warp":
        if not ok:
            return state  # it still moves, at Flank Speed
        ship = replace(ship, status=LEFT, moved=True)
        ctx.log("move", f"{ship.name} ({ship.id}) goes to maximum warp and leaves the table ({LEAVE_RULE})",
                ship=ship.id, left=True)
        return _gone_this_turn(state, ship, ctx)
    if ship.extra_tries:
        ship = replace(ship, extra_tries=ship.extra_tries - 1,
                       extra_specials=ship.extra_specials + ((action.action,) if ok else ()))
    else:
        ship = replace(ship, special=action.action if ok else "", special_tried=action.action,
                       extra_tries=2 if ok and action.action == "no_win" else 0,
                       overwatch=ok and action.action == "use_the_force")
    if action.action in ("cloak", "decloak"):
        ship = replace(ship, cloaked=action.action == "cloak", detected=False)
    state = replace(with_ship(state, ship), nominated=ship.id)
    if ok and action.action == "self_destruct":
        ship = replace(ship, status=DESTROYED, moved=True)
        ctx.log("destroyed", f"{ship.name} ({ship.id}) self-destructs (000 7.2 Self-Destruct!)", ship=ship.id)
        state = with_ship(state, ship)
        state = explode(state, ship.id, ctx)
        return _gone_this_turn(state, state.ship(ship.id), ctx)
    if ok and action.action == "ramming":
        return _ram(state, ship, state.ship(action.target), ctx)
    if action.action in ("land", "take_off"):
        landed = action.action == "land"
        state = with_ship(state, replace(state.ship(ship.id), landed=landed))
        ctx.log("landing", f"{ship.name} ({ship.id}) {'lands' if landed else 'takes off'} ({LANDING_RULE})",
                ship=ship.id, landed=landed)
    if ok and action.action == "saucer_separation":
        state = separate_saucer(state, state.ship(ship.id), ctx)
    if ok and action.action in TRACTORS:
        return _tractor(state, state.ship(ship.id), state.ship(action.target), TRACTORS[action.action], ctx)
    return state


def handle_special(state: BattleState, action: A.Special) -> Callable[[_Ctx], BattleState]:
    """7.1, 7.2: a Special Action: checked now (an ``IllegalActionError`` rolls nothing); the closure resolves it."""
    _check_special(state, action)
    return partial(_do_special, state, action)


def special_options(state: BattleState, ship: Ship) -> list[A.Special]:
    """Every Special Action ``ship`` may attempt now (a ram names each enemy within reach)."""
    out: list[A.Special] = []
    for name in A.SPECIAL_ACTIONS:
        if name == "ramming":
            cands = [A.Special(ship.id, name, e.id) for e in state.enemy_ships(ship.side)]
        elif name in TRACTORS:
            cands = [A.Special(ship.id, name, e.id) for e in state.ships if e.active and e.id != ship.id
                     and inches(ship.pos, e.pos) <= TRACTOR_RANGE]
        else:
            cands = [A.Special(ship.id, name)]
        for a in cands:
            try:
                _check_special(state, a)
            except IllegalActionError:
                continue
            out.append(a)
    return out


ECM_RULE = "000 7.2 ECM! / Go Dark!"


def _no_attack_under_ecm(target: Ship, how: str) -> None:
    """7.2 ECM!: "No attacks on this ship may be made at all that turn" (ruling BZ95: fire,
    boarding, ramming, an enemy's tractor beam, and attack craft runs with their torpedoes). The
    ECM counter is on the table for every side to see, so refusing gives nothing away."""
    if target.uses("ecm"):
        raise IllegalActionError(ECM_RULE, f"no attacks may be made on {target.name} ({target.id}) this turn (ECM): "
                                 f"it may not be {how}")


def _third(n: int) -> int:
    return round_half_up(n / 3)


def separate_saucer(state: BattleState, ship: Ship, ctx: _Ctx) -> BattleState:
    """7.3 (ruling BZ47): the saucer takes a third (rounded) of every surviving weapon system, of
    the hull (its hull and Crippled figure, and the hull left) and moves at most 2\" (a
    dreadnought's still warps); it is one Size smaller, keeps the shields and Command, and has
    Impulse, Trans and Landing. The drive section keeps the ship's id, the rest, its warp speed
    and its other abilities, less Saucer."""
    sd = ship.sd
    lost_keys = set(ship.spent)
    main_s, main_d = [], []
    for i, w in enumerate(sd.main):
        if f"main{i}" in lost_keys:
            continue
        a = _third(w.count)
        if a:
            main_s.append(replace(w, count=a))
        if w.count - a:
            main_d.append(replace(w, count=w.count - a))
    hull_s, crip_s = max(1, _third(sd.hull)), _third(sd.crippled_at)
    left_s = max(1, min(hull_s, _third(ship.hull)))
    warp = sd.ship_class.value == "BB"
    saucer_sd = replace(
        sd,
        key=f"{sd.key}_saucer",
        name=f"{sd.name} – saucer",
        speed=sd.speed if warp else min(sd.speed or 0, 2),
        target_size=min(5, sd.target_size + 1),
        hull=hull_s,
        crippled_at=min(crip_s, hull_s - 1),
        ac=0,
        ac_capacity=0,
        special_abilities=("Warp", "Impulse", "Trans", "Landing")
        if warp
        else ("Impulse", "Trans", "Landing"),
        main=tuple(main_s),
        secondary=_third(sd.secondary),
        close_defence=_third(sd.close_defence),
    )
    drive_sd = replace(sd, key=f"{sd.key}_drive", name=f"{sd.name} – drive section", hull=max(1, sd.hull - hull_s),
                       crippled_at=max(0, min(sd.crippled_at - crip_s, sd.hull - hull_s - 1)),
                       special_abilities=tuple(a for a in ship.abilities if a.lower() != "saucer"),
                       main=tuple(main_d), secondary=sd.secondary - _third(sd.secondary),
                       close_defence=sd.close_defence - _third(sd.close_defence))
    new_id = max(s.id for s in state.ships) + 1
    saucer = replace(ship, id=new_id, sd=saucer_sd, pos=advance(ship.pos, ship.heading, -1.0), hull=left_s,
                     crits=(0, 0, 0), lost=(), vital_lost=(), spent=(), flagship=False, tractor=None, moved=True,
                     special="", special_tried="", extra_specials=(), engaged=(), exchanged=ship.exchanged)
    drive = replace(ship, sd=drive_sd, hull=max(1, ship.hull - left_s), lost=(), vital_lost=(), spent=())
    state = with_ship(state, drive)
    state = replace(state, ships=state.ships + (saucer,))
    ctx.log("saucer", f"{sd.name} ({ship.id}) separates: the saucer is ship {new_id} (hull {left_s}), the drive "
            f"section keeps hull {drive.hull} ({SAUCER_RULE})", ship=ship.id, saucer=new_id)
    return state


def _overwatch(state: BattleState, ship: Ship, action: str, ctx: _Ctx) -> tuple[BattleState, bool]:
    """7.2 'Use The Force, Luke!': an enemy ship in overwatch negates one successful Special
    Action later that turn — the first on its side's standing list (ruling BZ45)."""
    for mystic in state.enemy_ships(ship.side):  # any enemy side's mystic (ruling BZ83)
        if mystic.overwatch and action in state.orders_of(mystic.side).negate:
            state = with_ship(state, replace(mystic, overwatch=False))
            ctx.log("negated", f"{mystic.name} ({mystic.id}) uses the Force: {ship.name} ({ship.id})'s {action} is "
                    f"negated ({FORCE_RULE})", ship=mystic.id, target=ship.id, action=action)
            return state, False
    return state, True


def _gone_this_turn(state: BattleState, ship: Ship, ctx: _Ctx) -> BattleState:
    state = replace(with_ship(state, ship), nominated=None)
    state = replace(state, torpedoes=tuple(t for t in state.torpedoes if t.target != ship.id))
    return _after_nomination(state, ship.side, ctx)


def _ram(state: BattleState, ship: Ship, target: Ship, ctx: _Ctx) -> BattleState:
    """7.2 Ramming Speed!: the rammer is destroyed, the ramee immediately crippled, its hull
    reduced to its Crippled figure; neither explodes. Ruling BZ31: a ramee that can never be
    crippled (Crippled figure 0) is destroyed; one already crippled suffers nothing more."""
    ship = replace(ship, status=DESTROYED, moved=True)
    ctx.log("destroyed", f"{ship.name} ({ship.id}) rams {target.name} ({target.id}) and is destroyed "
            "(000 7.2 Ramming Speed!)", ship=ship.id, target=target.id)
    state = with_ship(state, ship)
    if target.sd.crippled_at == 0:
        state = _lose_hull(state, target.id, target.hull, ctx)
    elif not target.crippled:
        state = with_ship(state, replace(target, hull=min(target.hull, target.sd.crippled_at)))
        state = _cripple(state, target.id, ctx)
    return _gone_this_turn(state, state.ship(ship.id), ctx)


TRACTORS = {"tractor_hold": "hold", "tractor_tow": "tow", "tractor_pull": "pull"}

# Each Special Action's own checks, in order, after the common ones of ``_check_special``.
_SPECIAL_CHECKS: dict[str, tuple[Callable[[BattleState, Ship, A.Special], None], ...]] = {
    **{key: (_check_tractor_action,) for key in TRACTORS},
    "flank_speed": (_needs_to_move,), "hard_about": (_needs_to_move,), "ramming": (_needs_to_move, _check_ram),
    "ecm": (_check_ecm,), "attack_shields": (_check_attack_shields,), "cloak": (_check_cloak,),
    "decloak": (_check_cloak,), "engine_doubling": (_check_engine_doubling,), "saucer_separation": (_check_saucer,),
    "land": (_check_land,), "take_off": (_check_take_off,), "use_the_force": (_check_force,),
    "point_defence": (_check_point_defence,),
}
TRACTOR_RULE = "000 7.2 Tractor!"
TRACTOR_RANGE, PULL = 1, 0.5


def _check_tractor(state: BattleState, ship: Ship, target_id: object) -> None:
    if not has(ship.abilities, "Trac"):
        raise IllegalActionError(TRACTOR_RULE, f"{ship.name} ({ship.id}) has no tractor beam")
    if ship.tractor is not None:
        raise IllegalActionError(TRACTOR_RULE, f"{ship.name} ({ship.id})'s beam already holds ship {ship.tractor[0]}")
    target = next((x for x in state.ships if x.id == target_id), None) if isinstance(target_id, int) else None
    if target is None or target.id == ship.id or not target.active:
        raise IllegalActionError(TRACTOR_RULE, f"ship {target_id!r} is not a ship in the battle")
    if target.sd.target_size <= ship.sd.target_size:
        raise IllegalActionError(TRACTOR_RULE, f"a tractor beam holds a smaller ship; {target.name} is Size "
                                 f"{target.sd.target_size}, {ship.name} Size {ship.sd.target_size}")
    if inches(ship.pos, target.pos) > TRACTOR_RANGE:
        raise IllegalActionError(TRACTOR_RULE, f"{target.name} ({target.id}) is {inches(ship.pos, target.pos)}\" away; "
                                 "a tractor beam reaches 1\"")
    if target.cloaked and not target.detected and target.side != ship.side:
        raise IllegalActionError(DETECT_RULE, f"{target.name} ({target.id}) is cloaked")
    if target.side != ship.side:
        _no_attack_under_ecm(target, "held by an enemy tractor beam")


def _tractor(state: BattleState, ship: Ship, target: Ship, mode: str, ctx: _Ctx) -> BattleState:
    """7.2 Tractor!: the ship may not fire; it tows, holds in place, or pulls ½\" toward it a
    smaller ship; the beam holds until the tractored ship rolls a 6 in the End Phase (ruling BZ43)."""
    ship = replace(ship, tractor=(target.id, mode))
    state = with_ship(state, ship)
    if mode == "hold":
        state = with_ship(state, replace(target, held=True))
    elif mode == "pull":
        d = min(PULL, distance(target.pos, ship.pos))
        pos = advance(target.pos, bearing(target.pos, ship.pos), d) if d > 0 else target.pos
        state = with_ship(state, replace(target, pos=pos))
    ctx.log("tractor", f"{ship.name} ({ship.id}) locks its tractor beam on {target.name} ({target.id}) ({mode})",
            ship=ship.id, target=target.id, mode=mode)
    return state


def _break_tractors(state: BattleState, ctx: _Ctx) -> BattleState:
    """2.2 End Phase 4) "Break Tractors": the tractored ship breaks the beam on a 6; a beam whose
    ships are more than 1\" apart, or one of them gone, is broken anyway."""
    for ship in state.ships:
        ship = state.ship(ship.id)
        if ship.tractor is None:
            continue
        target = state.ship(ship.tractor[0])
        broken = not (ship.active and target.active) or inches(ship.pos, target.pos) > TRACTOR_RANGE
        if not broken:
            face = ctx.roll(1, f"{TRACTOR_RULE}: {target.id} tries to break the beam")[0]
            broken = face == 6
        if broken:
            ctx.log("tractor_broken", f"The tractor beam of ship {ship.id} on ship {target.id} is broken", ship=ship.id,
                    target=target.id)
            state = with_ship(state, replace(ship, tractor=None))
            state = with_ship(state, replace(state.ship(target.id), held=False))
    return state


# The other phases of the turn, imported last: the phases call one another (the sequence
# calls each phase; a phase hands the turn back to the sequence), and by now every name
# of this module is defined for them.
from .damage import _cripple, _lose_hull, explode  # noqa: E402
from .fire import CLOAK_RULE, DETECT_RULE  # noqa: E402
from .movement import LEAVE_RULE, MOVE_RULE  # noqa: E402
from .sequence import _after_nomination, _own_ship  # noqa: E402
from .terrain import MASSES, inhibited  # noqa: E402
