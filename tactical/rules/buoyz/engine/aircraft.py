"""Attack craft (4.2, 8.1 to 8.6): their movement, checked beside its resolution, anti-AC fire,
CAP and dogfights, their torpedo runs, carrier operations and off-table bases.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

from .. import actions as A
from ..cam_policy import CAM
from ..geometry import EPSILON, advance, distance, inches, round_half_up
from ..sds import has
from ..state import (
    ABOARD,
    AC_MOVEMENT,
    AC_TYPES,
    ARMAMENT,
    CAPTURED,
    DESTROYED,
    FIGHTER,
    FLYING,
    LOST,
    SHUTTLE,
    BattleState,
    Flight,
    IllegalActionError,
    Ship,
    Torpedo,
)
from ..state import evolve as replace
from .core import _Ctx

AC_RULE = "000 4.2 Attack Craft Movement"
AC_ATTACK_RULE = "000 8.4 Attacking with ACs"
ANTI_AC_RULE = "000 8.5 Anti-AC / Close Defence Fire"
DOGFIGHT_RULE = "000 8.6 Dogfighting And CAP"
CARRIER_RULE = "000 8.3 Carrier Operations"
AC_TORP_RANGE = 2  # 5.9 "All AC Torpedoes also have a reduced range of 2\""
CD_RANGE = 2  # 8.5
CD_HIT, DODGE = 5, 5  # 8.5 "CD weapons need to roll a 5+"; "dodge … scoring a 5+"
DOGFIGHT_REACH = 1  # ruling BZ35: a fighter engages an enemy flight it ends within 1" of
MAX_AC_PER_TARGET = 3  # 8.4 "a maximum of three counters (of any type) may attack a single ship"
LAUNCH_SHARE = 0.2  # 8.3 "launch and/or recover up 20% of their flights each turn"
PATROL_RULE = "000 8.2 Attack Craft Types (Shuttles loitering as patrol counters)"
OFFTABLE_TURNS = 4  # 8.3: "two turns flight away, in addition to the rearming time"; enters the 4th turn
CAP_RADIUS = 6  # 8.6 "enemy ACs coming within 6\" of them"


def _ac_slots(state: BattleState) -> list[tuple[str, int]]:
    order = phase_order(state, state.orders_of(state.initiative).ac_first)  # 4.2, ruling BZ85
    return [(t, side) for t in AC_TYPES for side in order]


def _ac_pending(state: BattleState, slot: int | None = None) -> list[Flight]:
    slots = _ac_slots(state)
    i = state.ac_slot if slot is None else slot
    if i >= len(slots):
        return []
    kind, side = slots[i]
    return [f for f in state.flights if f.flying and f.side == side and f.kind == kind and not f.moved and not f.locked]


def _next_ac_slot(state: BattleState, ctx: _Ctx, start: int) -> BattleState:
    for i in range(start, len(_ac_slots(state))):
        if _ac_pending(state, i):
            _kind, side = _ac_slots(state)[i]
            return replace(state, phase=AC_MOVEMENT, ac_slot=i, acting=side, nominated=None)
    return _advance(replace(state, phase=AC_MOVEMENT, ac_slot=len(_ac_slots(state))), ctx)


def _start_ac_movement(state: BattleState, ctx: _Ctx) -> BattleState:
    """2.2 Movement Phase 4): all AC counters move, by type, alternating in initiative order."""
    return _next_ac_slot(replace(state, acting=None), ctx, 0)


def _check_fly(state: BattleState, action: A.FlyAC) -> None:
    if state.phase != AC_MOVEMENT:
        raise IllegalActionError(AC_RULE, "AC counters move after every ship has moved")
    f = state.flight(action.flight)
    if f not in _ac_pending(state):
        kind, side = _ac_slots(state)[state.ac_slot]
        raise IllegalActionError(AC_RULE, f"side {side}'s {kind}s move now; flight {f.id} ({f.kind}, side {f.side}) "
                                 "cannot move now" + (" (locked in a dogfight, 8.6)" if f.locked else ""))
    to = action.to
    if not (isinstance(to, tuple) and len(to) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                         and math.isfinite(v) for v in to)):
        raise IllegalActionError(AC_RULE, f"'to' must be a point (x, y) in inches, not {to!r}")
    if action.home:
        _check_home(state, f, action, to)
    if state.table_of(to) is None or state.table_of(to) != state.table_of(f.pos):
        raise IllegalActionError(AC_RULE, "AC counters stay on the table (ruling BZ35; 11.3: only warp capable ships "
                                 "move between tables)")
    if state.webs and web_block(state, [(f.pos, to)]):
        raise IllegalActionError(WEB_RULE, web_block(state, [(f.pos, to)]))
    if action.loiter:
        if f.kind != SHUTTLE:
            raise IllegalActionError(PATROL_RULE, "only shuttles loiter over the table as patrol counters")
        if action.attack is not None or action.cap:
            raise IllegalActionError(PATROL_RULE, "a shuttle loitering as a patrol counter may never initiate combat")
    if distance(f.pos, to) > f.speed + 1e-3:
        raise IllegalActionError(AC_RULE, f"a {f.kind} with dogfight value {f.dogfight} moves up to {f.speed:g}\", "
                                 f"not {distance(f.pos, to):.2f}\"")
    if action.cap:
        if f.kind != FIGHTER or not f.armed:
            raise IllegalActionError(DOGFIGHT_RULE, "only armed Fighter ACs can fly CAP (8.1)")
        if action.attack is not None:
            raise IllegalActionError(DOGFIGHT_RULE, "a CAP intercepts what comes within 6\"; it declares no attack")
    if action.attack is not None:
        _check_ac_attack(state, f, action)


def _check_home(state: BattleState, f, action: A.FlyAC, to) -> None:
    """A flight leaving for its off-table base (ruling BZ80)."""
    if not f.offtable:
        raise IllegalActionError(
            CARRIER_RULE, f"flight {f.id} flies from a carrier on the table, not an off-table base"
        )
    if action.attack is not None or action.cap or action.loiter:
        raise IllegalActionError(CARRIER_RULE, "a flight leaving for its base declares nothing else")
    if distance(to, edge_point(state, f.side, to)) > EPSILON:
        raise IllegalActionError(CARRIER_RULE, f"flight {f.id} leaves by its side's own ({state.edge(f.side)}) edge "
                                 "to reach its off-table base (ruling BZ80)")


def _check_ac_attack(state: BattleState, f, action: A.FlyAC) -> None:
    """A flight's declared attack (8.1, 8.3, 8.6): armed, not a patrol, at an enemy it may attack."""
    if f.patrol:
        raise IllegalActionError(
            PATROL_RULE, f"flight {f.id} loitered as a patrol counter and may never initiate combat"
        )
    if not f.armed:
        raise IllegalActionError(AC_ATTACK_RULE, f"flight {f.id} has discharged its warload or dogfought and must "
                                 "return to rearm (8.1)")
    if f.kind == FIGHTER:
        enemy = next((x for x in state.flights if x.id == action.attack), None)
        if enemy is None or enemy.side == f.side or not enemy.flying:
            raise IllegalActionError(DOGFIGHT_RULE, f"a fighter attacks an enemy AC flight, not {action.attack!r}")
    else:
        target = next((x for x in state.ships if x.id == action.attack), None)
        if target is None or target.side == f.side or not target.active:
            raise IllegalActionError(AC_ATTACK_RULE, f"ship {action.attack!r} is not an enemy ship in the battle")
        if target.cloaked and not target.detected:
            raise IllegalActionError(DETECT_RULE, f"{target.name} ({target.id}) is cloaked")
        _no_attack_under_ecm(target, "the target of an attack craft run")


def _do_fly(state: BattleState, action: A.FlyAC, ctx: _Ctx) -> BattleState:
    f = state.flight(action.flight)
    to = (round(float(action.to[0]), 4), round(float(action.to[1]), 4))
    nf = replace(f, pos=to, moved=True, attack=action.attack, cap=action.cap, patrol=f.patrol or action.loiter)
    if action.home:  # 8.3 sidebar: a turn's flight back, a turn rearming, a turn flying back; enters the 4th
        nf = replace(nf, status=ABOARD, armed=False, rearm=OFFTABLE_TURNS)
        ctx.log("ac_home", f"Side {f.side}'s {f.kind} flight {f.id} leaves the table for its base ({CARRIER_RULE})",
                flight=f.id)
    state = _set_flight(state, nf)
    ctx.log("ac_move", f"Side {f.side}'s {f.kind} flight {f.id} moves to ({to[0]:g}, {to[1]:g})"
            + (f", attacking {action.attack}" if action.attack is not None else ""), flight=f.id, to=list(to),
            attack=action.attack)
    if _ac_pending(state):
        return state
    return _next_ac_slot(state, ctx, state.ac_slot + 1)


def handle_fly(state: BattleState, action: A.FlyAC) -> Callable[[_Ctx], BattleState]:
    """4.2: an AC counter's move: checked now (an ``IllegalActionError`` rolls nothing); the closure resolves it."""
    _check_fly(state, action)
    return partial(_do_fly, state, action)


def _toward(a, b, dist: float):
    d = distance(a, b)
    if d <= dist or d < 1e-9:
        return (round(b[0], 4), round(b[1], 4))
    k = dist / d
    return (round(a[0] + (b[0] - a[0]) * k, 4), round(a[1] + (b[1] - a[1]) * k, 4))


def fly_options(state: BattleState, f: Flight) -> list[A.FlyAC]:
    """Stay; close on each enemy ship (declaring a run when it ends within 1.5\"); onto each
    enemy flight in reach (a fighter's dogfight); back toward its carrier (a representative
    list; ``apply`` accepts any legal FlyAC)."""
    out = [A.FlyAC(f.id, f.pos)]
    for e in state.enemy_ships(f.side):
        d = distance(f.pos, e.pos)
        to = _toward(f.pos, e.pos, min(f.speed, d - 1.5)) if d > 1.5 else f.pos
        can_run = (f.armed and f.kind != FIGHTER and distance(to, e.pos) <= 1.5 + 1e-6
                   and not (e.cloaked and not e.detected) and not e.uses("ecm"))
        out.append(A.FlyAC(f.id, to, e.id if can_run else None))
    if f.kind == FIGHTER and f.armed:
        out.append(A.FlyAC(f.id, f.pos, cap=True))
        for g in state.flights:
            if g.flying and g.side != f.side and distance(f.pos, g.pos) <= f.speed:
                out.append(A.FlyAC(f.id, g.pos, g.id))
    home = next((s for s in state.active_ships(f.side) if s.id == f.carrier), None)
    if home is not None:
        out.append(A.FlyAC(f.id, _toward(f.pos, home.pos, f.speed)))
    if f.offtable:
        exit_at = edge_point(state, f.side, f.pos)
        if distance(f.pos, exit_at) <= f.speed:
            out.append(A.FlyAC(f.id, exit_at, home=True))
        elif not f.armed:
            out.append(A.FlyAC(f.id, _toward(f.pos, exit_at, f.speed)))
    if f.kind == SHUTTLE and not f.patrol:
        out.append(A.FlyAC(f.id, f.pos, loiter=True))
    if f.patrol:
        out = [a for a in out if a.attack is None]
    seen, uniq = set(), []
    for a in out:
        key = (a.to, a.attack, a.cap, a.loiter, a.home)
        if (
            key not in seen
            and state.table_of(a.to) == state.table_of(f.pos) is not None
            and not (state.webs and web_block(state, [(f.pos, a.to)]))
        ):
            seen.add(key)
            uniq.append(a)
    return uniq


def edge_point(state: BattleState, side: int, pos) -> tuple[float, float]:
    """The point of ``side``'s own edge of the table ``pos`` is on (11.3, ruling BZ92) nearest
    ``pos``."""
    x0, y0, x1, y1 = state.table_rect(state.home_table(pos))
    x, y = min(max(pos[0], x0), x1), min(max(pos[1], y0), y1)
    return {"south": (x, y0), "north": (x, y1), "west": (x0, y), "east": (x1, y)}[state.edge(side)]


def _set_flight(state: BattleState, f: Flight) -> BattleState:
    return replace(state, flights=tuple(f if x.id == f.id else x for x in state.flights))


def _on_attack_run(f: Flight) -> bool:
    return f.flying and f.armed and f.kind != FIGHTER and f.attack is not None and not f.locked


def _anti_ac(state: BattleState, ctx: _Ctx) -> BattleState:
    """8.5 (ruling BZ36): each ship's Close Defence, initiative holder's first, fires at enemy AC
    on attack runs within 2\" of it - those attacking it first, then those attacking friendly
    ships - its points shared among them as evenly as possible; 5+ hits (+1 against a shuttle);
    a hit AC dodges on 5+ (its attack aborted, it returns to rearm) or is destroyed. Never into
    a dogfight."""
    in_dogfight = _dogfight_members(state)
    for side in state.order_of_play():
        for ship in state.active_ships(side):
            points = _aegis_points(ship)  # Close Defence, and Point Defence secondaries (7.2, 8.5)
            if not points or ship.cloaked:
                continue
            runs = [f for f in state.flights if f.side != side and _on_attack_run(f) and f.id not in in_dogfight
                    and inches(ship.pos, f.pos) <= CD_RANGE]
            runs.sort(key=lambda f: (f.attack != ship.id, f.id))
            if not runs:
                continue
            share = {f.id: points // len(runs) + (1 if i < points % len(runs) else 0) for i, f in enumerate(runs)}
            for f in runs:
                f = state.flight(f.id)
                n = share[f.id]
                if not n or not _on_attack_run(f):
                    continue
                faces = ctx.roll(n, f"{ANTI_AC_RULE}: {ship.id} at flight {f.id}")
                bonus = 1 if f.kind == SHUTTLE else 0
                hits = sum(1 for x in faces if x + bonus >= CD_HIT)
                ctx.log("anti_ac", f"{ship.name} ({ship.id}) Close Defence at flight {f.id}: {list(faces)}: "
                        f"{hits} hit(s)", ship=ship.id, flight=f.id, faces=list(faces), hits=hits)
                if not hits:
                    continue
                dodge = ctx.roll(1, f"{ANTI_AC_RULE}: flight {f.id} dodges")[0]
                if dodge >= DODGE:
                    ctx.log("ac_abort", f"Flight {f.id} dodges ({dodge}): its attack is aborted, it returns to rearm",
                            flight=f.id)
                    state = _set_flight(state, replace(f, armed=False, attack=None))
                else:
                    ctx.log("ac_lost", f"Flight {f.id} fails to dodge ({dodge}) and is destroyed", flight=f.id)
                    state = _set_flight(state, replace(f, status=LOST, pos=None, attack=None))
    return state


def _cap_intercepts(state: BattleState, ctx: _Ctx) -> BattleState:
    """8.6 (ruling BZ40): each CAP fighter, initiative holder's first, flies to engage the nearest
    enemy flight within 6\" that no CAP has engaged yet (1:1); 'extras' join the engaged one with
    the fewest CAP fighters on it. The dogfights are fought in the Attack Phase (2.2 Attack 3)."""
    engaged: dict[int, int] = {}
    for side in state.order_of_play():
        for f in [x for x in state.flights if x.side == side and x.cap]:
            f = state.flight(f.id)
            if not (f.flying and f.armed and not f.locked):
                continue
            near = [g for g in state.flights if g.flying and g.side != side and inches(f.pos, g.pos) <= CAP_RADIUS]
            if not near:
                continue
            free = [g for g in near if g.id not in engaged]
            pool = free or sorted(near, key=lambda g: engaged.get(g.id, 0))[:1]
            g = min(pool, key=lambda g: (engaged.get(g.id, 0), distance(f.pos, g.pos), g.id))
            engaged[g.id] = engaged.get(g.id, 0) + 1
            state = _set_flight(state, replace(f, pos=g.pos, attack=g.id))
            ctx.log("cap_intercept", f"CAP fighter {f.id} intercepts flight {g.id} ({DOGFIGHT_RULE})", flight=f.id,
                    target=g.id)
    return state


def _dogfight_members(state: BattleState) -> set[int]:
    out = set()
    for f in state.flights:
        if f.flying and f.kind == FIGHTER and f.attack is not None and (f.armed or f.locked):
            g = next((x for x in state.flights if x.id == f.attack), None)
            if g is not None and g.flying and g.side != f.side and inches(f.pos, g.pos) <= DOGFIGHT_REACH:
                out |= {f.id, g.id}
    return out


def _dogfights(state: BattleState, ctx: _Ctx) -> BattleState:
    """8.6: fighters engaging enemy flights; each group (joined by who attacks whom) rolls 1D6 a
    side + its best dogfight value + 1 per extra counter; the winners shoot the losers down and
    return to rearm; a draw leaves them locked in place, the dogfight continuing next turn."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    members = _dogfight_members(state)
    for f in state.flights:
        if f.id in members and f.kind == FIGHTER and f.attack in members:
            parent[find(f.id)] = find(f.attack)
    groups: dict[int, list[Flight]] = {}
    for fid in sorted(members):
        groups.setdefault(find(fid), []).append(state.flight(fid))
    for group in groups.values():
        sides = sorted({f.side for f in group}, key=lambda s: s != state.initiative)
        if len(sides) < 2:
            continue
        totals = {}
        for side in sides:
            mine = [f for f in group if f.side == side]
            face = ctx.roll(1, f"{DOGFIGHT_RULE}: side {side}'s dogfight")[0]
            totals[side] = face + max(f.dogfight for f in mine) + len(mine) - 1
        a, b = sides
        ids = [f.id for f in group]
        if totals[a] == totals[b]:
            ctx.log("dogfight", f"Dogfight {ids}: {totals[a]} all: they stay locked in place", flights=ids,
                    totals={str(k): v for k, v in totals.items()}, winner=None)
            for f in group:
                state = _set_flight(state, replace(state.flight(f.id), locked=True))
            continue
        win = a if totals[a] > totals[b] else b
        ctx.log("dogfight", f"Dogfight {ids}: side {win} wins {totals[win]} to {totals[b if win == a else a]}",
                flights=ids, totals={str(k): v for k, v in totals.items()}, winner=win)
        for f in group:
            f = state.flight(f.id)
            if f.side == win:
                state = _set_flight(state, replace(f, armed=False, attack=None, locked=False))
            else:
                state = _set_flight(state, replace(f, status=LOST, pos=None, attack=None, locked=False))
    return state


def _ac_attacks(state: BattleState, ctx: _Ctx) -> BattleState:
    """8.4, 5.9: surviving armed shuttles, then bombers, within 2\" of the ship they declared
    launch one torpedo counter each (two attack dice in the End Phase); at most three counters
    attack one ship a turn; the flight is then spent (one-shot) and returns to rearm."""
    per_target: dict[int, int] = {}
    busy = _dogfight_members(state)
    for kind in AC_TYPES:
        for side in state.order_of_play():
            for f in [x for x in state.flights if x.side == side and x.kind == kind]:
                f = state.flight(f.id)
                if not _on_attack_run(f) or f.id in busy:
                    continue
                target = state.ship(f.attack)
                rng = inches(f.pos, target.pos)
                if not target.active or rng > AC_TORP_RANGE or (target.cloaked and not target.detected) \
                        or target.uses("ecm"):  # 7.2 ECM!: no attacks on it at all (ruling BZ95)
                    ctx.log("ac_attack", f"Flight {f.id}'s run on {target.id} comes to nothing", flight=f.id,
                            target=target.id, launched=False)
                    state = _set_flight(state, replace(f, attack=None))
                    continue
                if per_target.get(target.id, 0) >= MAX_AC_PER_TARGET:
                    ctx.log("ac_attack", f"Flight {f.id} cannot get at {target.id}: three counters already attack it",
                            flight=f.id, target=target.id, launched=False)
                    state = _set_flight(state, replace(f, attack=None))
                    continue
                per_target[target.id] = per_target.get(target.id, 0) + 1
                torp = Torpedo(f.id, f.side, target.id, f.torpedo, f.pos, rng, from_ac=True)
                state = replace(state, torpedoes=state.torpedoes + (torp,))
                state = _set_flight(state, replace(f, armed=False, attack=None))
                ctx.log("ac_attack", f"Flight {f.id} ({f.kind}) launches a {f.torpedo} torpedo at {target.name} "
                        f"({target.id})", flight=f.id, target=target.id, launched=True)
    return state


def launch_rate(ship: Ship, flights: int) -> int:
    """8.3: a carrier launches and/or recovers up to 20% of its flights a turn (rounded, at least
    one, ruling BZ37); 5.8 (1) "Halve all firing factors / launch rates (if carrier)", half and
    half again per Critical Armament, rounded once (ruling BZ5; ruling BZ96)."""
    return max(1, round_half_up(flights * LAUNCH_SHARE / 2 ** ship.crit(ARMAMENT)))


def _carrier_ops(state: BattleState, ctx: _Ctx) -> BattleState:
    """8.3 in the End Phase (2.2 End Phase 6): flights aboard finish rearming (a complete turn
    aboard); a Carrier that is not Crippled, not cloaked and used no Special Action this turn
    recovers spent flights within 1\" of it, then launches armed ones (its side's standing
    order), up to 20% of its flights in all, rounded, at least one (ruling BZ37). Flights aboard
    a lost carrier are lost with it."""
    flights = []
    for f in state.flights:
        carrier = None if f.offtable else state.ship(f.carrier)
        if f.status == ABOARD and carrier is not None and carrier.status in (DESTROYED, CAPTURED):
            f = replace(f, status=LOST)  # a carrier that left the table (11.7) or lurks keeps its flights
        elif f.status == ABOARD and f.rearm > 0:
            f = replace(f, rearm=f.rearm - 1, armed=f.rearm - 1 == 0)
        flights.append(replace(f, moved=False, attack=f.attack if f.locked else None, cap=False))
    state = replace(state, flights=tuple(flights))
    for f in state.flights:  # 8.3: off-table bases launch rearmed flights back onto the table
        if f.offtable and f.status == ABOARD and f.armed and f.rearm == 0 and state.orders_of(f.side).launch \
                and not (CAM.breaking(state, f.side) or not state.active_ships(f.side)):
            at = edge_point(state, f.side, f.pos or (state.table[0] / 2, state.table[1] / 2))
            state = _set_flight(state, replace(f, status=FLYING, pos=(round(at[0], 4), round(at[1], 4))))
            ctx.log("ac_launched", f"Side {f.side}'s {f.kind} flight {f.id} returns from its off-table base at "
                    f"({at[0]:g}, {at[1]:g}) ({CARRIER_RULE})", flight=f.id)
    for ship in state.ships:
        mine = [f for f in state.flights if f.carrier == ship.id and not f.offtable]
        if not mine or not ship.active or ship.crippled or ship.cloaked or ship.special:
            continue
        if not has(ship.abilities, "Carrier"):
            continue
        room = launch_rate(ship, len(mine))
        for f in mine:
            if room and f.flying and not f.armed and not f.locked and inches(f.pos, ship.pos) <= 1:
                state = _set_flight(state, replace(f, status=ABOARD, pos=None, rearm=1, armed=False))
                ctx.log("ac_recovered", f"{ship.name} ({ship.id}) recovers flight {f.id} ({CARRIER_RULE})",
                        ship=ship.id, flight=f.id)
                room -= 1
        if not state.orders_of(ship.side).launch:
            continue
        for f in [state.flight(x.id) for x in mine]:
            if room and f.status == ABOARD and f.armed and f.rearm == 0:
                pos = advance(ship.pos, ship.heading, 0.5)
                state = _set_flight(state, replace(f, status=FLYING, pos=pos))
                ctx.log("ac_launched", f"{ship.name} ({ship.id}) launches {f.kind} flight {f.id} ({CARRIER_RULE})",
                        ship=ship.id, flight=f.id)
                room -= 1
    return state


# The other phases of the turn, imported last: the phases call one another (the sequence
# calls each phase; a phase hands the turn back to the sequence), and by now every name
# of this module is defined for them.
from .fire import DETECT_RULE  # noqa: E402
from .sequence import _advance, phase_order  # noqa: E402
from .specials import _no_attack_under_ecm  # noqa: E402
from .terrain import WEB_RULE, web_block  # noqa: E402
from .torpedoes import _aegis_points  # noqa: E402
