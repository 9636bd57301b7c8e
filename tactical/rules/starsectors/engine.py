"""The Star Sectors rules: ``check(state, action)`` and ``apply(state, action, dice)`` (004 III–VIII).

``check`` refuses (``Refusal(rule, message)`` citing the section) without rolling; ``apply``
checks, then resolves with the dice (``kit.d12``). Each action's handler checks and returns the
closure that resolves it. What a side cannot see (a cloaked enemy, VI.A) never decides a
refusal: ``check`` looks only at the ships the acting side sees; when the move or the shot meets
an unseen ship, ``apply`` says so (rulings SS7, SS8).
"""

from __future__ import annotations

from collections.abc import Callable

from tactical.rules import kit
from tactical.rules.geometry import hex as hx
from tactical.rules.kit import evolve
from tactical.rules.kit.values import derive

from . import actions as A
from . import core as C
from .state import NO_CLOAK, BattleState, Mine, Refusal, Ship

Resolver = Callable[["_Ctx"], None]
_RESET = dict(
    boost="",
    tri="",
    dil="",
    crew_option="",
    t_phase="tactical",
    t_mf=0,
    t_forward=False,
    t_reverse=0,
    t_turned=False,
    t_warped=False,
    t_attacked=False,
    t_engaged=False,
    t_cloak="",
    t_repaired=False,
    t_charged_warp=False,
    t_fired=(),
    t_duties=0,
    t_bank_repairs=0,
    t_warp_repairs=0,
    t_operation=False,
    t_stopped=False,
    t_wormhole=False,
    t_nebula=False,
)


class _Ctx:
    def __init__(self, state: BattleState, dice) -> None:
        self.state = state
        self.dice = dice
        self.events: list[kit.Event] = []

    def ship(self, sid: int) -> Ship:
        return self.state.ship(sid)

    def put(self, ship: Ship) -> Ship:
        self.state = self.state.with_ship(ship)
        return ship

    def change(self, sid: int, **kw) -> Ship:
        return self.put(evolve(self.ship(sid), **kw))

    def log(self, kind: str, text: str, about: int | None = None, **data) -> None:
        """An event; about a ship that is cloaked now, only its side reads it (VI.A, ruling SS13)."""
        s = self.ship(about) if about is not None else None
        if s is not None and s.cloaked and s.alive:
            self.events.append(kit.private(kind, text, (s.side,), ship=about, **data))
        else:
            self.events.append(kit.Event(kind, text, dict(data, **({"ship": about} if about else {}))))

    def d12(self, n: int, purpose: str) -> tuple[int, ...]:
        return kit.d12(self.dice, purpose, n)


# --- what a side sees ----------------------------------------------------------------------------

def detected(state: BattleState, side: int) -> set[int]:
    """VII.B Science: cloaked enemies within the CF range of a ship of ``side`` under that order."""
    out = set()
    eyes = [s for s in state.ships if s.alive and s.side == side and s.crew_option == "science"]
    for s in state.ships:
        if s.alive and s.cloaked and s.side != side:
            if any(C.dist(e.pos, s.pos) <= max(1, C.cf(state, e)) for e in eyes):
                out.add(s.id)
    return out


def seen_by(state: BattleState, side: int | None) -> set[int]:
    cache = state.__dict__.setdefault("_seen", {})
    if side not in cache:
        if side is None:
            cache[side] = frozenset(s.id for s in state.ships)
        else:
            found = detected(state, side) if any(s.cloaked for s in state.ships) else ()
            cache[side] = frozenset(s.id for s in state.ships if s.side == side or not s.cloaked or s.id in found)
    return cache[side]


# --- the turn ------------------------------------------------------------------------------------

def _own_ship(state: BattleState, action) -> Ship:
    side = state.side
    ship = state.ship(action.ship)
    if state.over:
        raise Refusal("004 III", "the battle is over")
    if ship is None or ship.side != side or not ship.alive:
        raise Refusal("004 III", f"side {side} has no ship {action.ship} to order")
    if state.active is not None and state.active != ship.id:
        raise Refusal("004 III", f"ship {state.active} is taking its turn; end it first")
    if state.active is None and ship.done:
        raise Refusal("004 III", f"ship {ship.id} has taken its turn this round")
    return ship


def _begin(ship: Ship, state: BattleState) -> Ship:
    if state.active == ship.id:
        return ship
    return derive(ship, {**_RESET, "t_orbit": C.orbiting(state, ship.pos) is not None})


_BEGUN: tuple = (None, None, None)  # (a state, a ship id, that state with the ship's turn begun)


def begun_state(state: BattleState, ship: Ship) -> BattleState:
    """``state`` with ``ship``'s turn begun (``_begin``; ``active`` left as it is). The last one is
    remembered: the doctrine begins the turn to choose the order, then ``apply`` to give it (the
    same state object, by identity; one tuple, replaced whole)."""
    last = _BEGUN
    if last[0] is state and last[1] == ship.id:
        return last[2]
    begun = _begin(ship, state)
    out = state if begun is ship else state.with_ship(begun)
    globals()["_BEGUN"] = (state, ship.id, out)
    return out


def _tactical(ship: Ship, what: str) -> None:
    if ship.t_phase == "engineering":
        raise Refusal("004 III", f"{what}: the tactical phase always occurs before the engineering phase")


def _next_side(state: BattleState) -> BattleState:
    """After a ship's turn: the next side in the order of play with a ship still to take its
    turn; when none is left, the next round (ruling SS1)."""
    if state.over:
        return evolve(state, active=None)
    n = len(state.order)
    for k in range(1, n + 1):
        i = (state.acting + k) % n
        if any(s.alive and not s.done and s.side == state.order[i] for s in state.ships):
            return evolve(state, acting=i, active=None)
    ships = tuple(evolve(s, done=False, df_drop=0) if (s.done or s.df_drop) else s for s in state.ships)
    state = evolve(state, ships=ships, round=state.round + 1, active=None, stations_used=())
    first = next(i for i in range(n) if any(s.alive and s.side == state.order[i] for s in state.ships))
    return evolve(state, acting=first)


def _end_turn(ctx: _Ctx, sid: int) -> None:
    ship = ctx.ship(sid)
    if ship.alive:
        _bonus_repairs(ctx, ship)
        ship = ctx.ship(sid)
        ctx.put(evolve(ship, done=True, t_phase="", berth=C.place_of(ctx.state, ship)))
    ctx.state = _next_side(evolve(ctx.state, active=None))


def _bonus_repairs(ctx: _Ctx, ship: Ship) -> None:
    """V.A "Additional repairs": the command crew's engineer order, the metaphasic nebula and a
    warp transfer's +1 repair, each one hit, made as the engineering phase closes (ruling SS14);
    never the turn it cloaks or de-cloaks (VI.A)."""
    sources = []
    if ship.crew_option == "engineering":
        sources.append("the command crew's engineering order (VII.B)")
    if C.in_kind(ctx.state, ship, ("metaphasic",)):
        sources.append("the metaphasic nebula (VII.A)")
    if ship.boost == "repair":
        sources.append("the warp energy transfer (IV.C)")
    for why in sources:
        ship = ctx.ship(ship.id)
        if ship.damage and not ship.t_cloak:
            ctx.change(ship.id, damage=ship.damage - 1)
            ctx.log("repair", f"Ship {ship.id} repairs one shield factor with {why}.", ship.id)


# --- damage -------------------------------------------------------------------------------------

def damage(ctx: _Ctx, sid: int, hits: int, why: str) -> None:
    """IV.F: each hit lowers CF and DF by one; destroyed when the hits equal SS; then every ship
    in its point-blank hexes takes one hit (−1 SS), friend or foe."""
    ship = ctx.ship(sid)
    if not ship.alive or hits <= 0:
        return
    total = min(ship.card.ss, ship.damage + hits)
    ctx.events.append(kit.Event("hit", f"Ship {sid} takes {hits} hit(s) ({why}): {total} of SS {ship.card.ss}.",
                                {"ship": sid, "hits": hits}))
    ship = ctx.put(evolve(ship, damage=total))
    if total >= ship.card.ss:
        destroy(ctx, sid, "its shield is gone (IV.F)")


def destroy(ctx: _Ctx, sid: int, why: str, blast: bool = True) -> None:
    ship = ctx.ship(sid)
    if not ship.alive:
        return
    ctx.put(evolve(ship, destroyed=True, cloaked=False, damage=max(ship.damage, 0)))
    ctx.events.append(kit.Event("destroyed", f"Ship {sid} is destroyed: {why}.", {"ship": sid}))
    if ctx.state.active == sid:
        ctx.state = evolve(ctx.state, active=None)
        ctx.change(sid, done=True)
        ctx.state = _next_side(ctx.state)
    if blast:
        zone = set(C.point_blank_cells(ship))
        for other in ctx.state.ships:
            if other.alive and zone & set(other.hull()):
                damage(ctx, other.id, 1, f"in the point-blank zone of ship {sid} as it is destroyed (IV.F)")


# --- tactical: crew, movement, warp ---------------------------------------------------------------

def _crew(state: BattleState, ship: Ship, a: A.Crew) -> Resolver:
    if a.option not in A.CREW_OPTIONS:
        raise Refusal("004 VII.B", f"a command crew order is one of {', '.join(A.CREW_OPTIONS)}")
    if not ship.crew:
        raise Refusal("004 VII.B", f"ship {ship.id} has no command crew")
    if state.active == ship.id:
        raise Refusal("004 VII.B", "the command crew's order is chosen at the beginning of the turn")

    def run(ctx: _Ctx) -> None:
        ctx.change(ship.id, crew_option=a.option)
        ctx.log("crew", f"Ship {ship.id}'s command crew: {a.option} order.", ship.id)
    return run


def _move_cost(state: BattleState, ship: Ship, cells) -> int:
    """One MF a move or turn; −1 MF (one more) the first time in a turn it enters, moves in or
    leaves a nebula (VII.A, ruling SS10)."""
    touches = any(C.kind_at(state, c) in ("metaphasic", "mutara") for c in set(cells) | set(ship.hull()))
    return 1 + (touches and not ship.t_nebula)


def _moved(ship: Ship, kind: str) -> tuple[tuple, int]:
    if kind == "forward":
        return C.step(ship.pos, ship.facing), ship.facing
    if kind == "reverse":
        return C.step(ship.pos, ship.facing + 3), ship.facing
    return ship.pos, hx.turn(ship.facing, 1 if kind == "port" else -1)


def _move(state: BattleState, ship: Ship, a: A.Move) -> Resolver:
    if a.kind not in A.MOVES:
        raise Refusal("004 IV.A", f"a move is one of {', '.join(A.MOVES)}")
    _tactical(ship, "moving")
    if ship.t_warped:
        raise Refusal("004 IV.B", "a ship cannot turn or move after its warp jump (ruling SS6)")
    if ship.t_stopped:
        raise Refusal("004 VII.A", "all movement stops when entering orbit")
    allowance = C.mf(state, ship)
    if C.damaged_mf(ship) == 0:
        raise Refusal("004 IV.G", f"ship {ship.id} has no movement left after its damage")
    if ship.t_wormhole and ship.t_mf >= 1:
        raise Refusal("004 VII.A", "a ship can move only one space when exiting a worm hole")
    if a.kind == "reverse":
        if ship.t_forward:
            raise Refusal("004 IV.A", "a ship cannot move in reverse on a turn it moved forward")
        if ship.t_reverse >= C.reverse_allowance(ship):
            raise Refusal("004 IV.A", "ships move in reverse at 1 MF (2 under a helm order)")
    if a.kind == "forward" and ship.t_reverse:
        raise Refusal("004 IV.A", "a ship that moved in reverse this turn cannot move forward (ruling SS5)")
    pos, facing = _moved(ship, a.kind)
    moved = evolve(ship, pos=pos, facing=facing)
    cost = _move_cost(state, ship, moved.hull())
    if ship.t_mf + cost > allowance:
        raise Refusal("004 IV.A", f"ship {ship.id} has {allowance - ship.t_mf} MF left, the move needs {cost}")
    why = C.hull_ok(state, moved.hull(), ship, seen_by(state, ship.side))
    if why:
        raise Refusal("004 VII.A" if "star" in why or "impassable" in why else "004 IV.A", f"cannot move there: {why}")

    def run(ctx: _Ctx) -> None:
        s = ctx.ship(ship.id)
        spent = dict(
            t_mf=s.t_mf + cost,
            t_nebula=s.t_nebula or cost > 1,
            t_turned=s.t_turned or a.kind in ("port", "starboard"),
            t_forward=s.t_forward or a.kind == "forward",
            t_reverse=s.t_reverse + (a.kind == "reverse"),
        )
        if _bumps(ctx, s, moved.hull()):
            ctx.change(s.id, **spent)
            return
        s = ctx.change(s.id, pos=pos, facing=facing, **spent)
        ctx.log("move", f"Ship {s.id} moves {a.kind} to {list(pos)} facing {hx.SIDES[facing]}.", s.id, to=list(pos))
        _arrive(ctx, s.id, entered=a.kind in ("forward", "reverse"))
    return run


def _bumps(ctx: _Ctx, ship: Ship, cells) -> bool:
    """A move into the hex of a ship its side does not see stops short (ruling SS7)."""
    for other in ctx.state.ships:
        if other.alive and other.id != ship.id and set(other.hull()) & set(cells):
            ctx.events.append(kit.Event("blocked", f"Ship {ship.id} is stopped by something it cannot see.",
                                        {"ship": ship.id}))
            return True
    return False


def _arrive(ctx: _Ctx, sid: int, entered: bool) -> None:
    """What a hex does to a ship entering it: cloaks fail (VI.A), mines (VII.B), worm holes,
    orbits (VII.A)."""
    s = ctx.ship(sid)
    if s.cloaked and any(C.kind_at(ctx.state, c) in NO_CLOAK for c in s.hull()):
        s = ctx.change(sid, cloaked=False)
        ctx.log("decloak", f"Ship {sid}'s cloak fails in the {C.kind_at(ctx.state, s.pos) or 'cloud'} (VI.A).", sid)
    for m in [m for m in ctx.state.mines if m.cell in s.hull()]:
        ctx.state = evolve(ctx.state, mines=tuple(x for x in ctx.state.mines if x.id != m.id))
        damage(ctx, sid, 3, f"mine {m.id} detonates (VII.B)")
    s = ctx.ship(sid)
    if not s.alive or not entered:
        return
    if C.kind_at(ctx.state, s.pos) == "wormhole" and not s.t_wormhole:
        _wormhole(ctx, s)
        return
    if C.orbiting(ctx.state, s.pos) is not None and not s.t_orbit:
        ctx.change(sid, t_stopped=True)
        ctx.log("orbit", f"Ship {sid} enters orbit: all movement stops (VII.A).", sid)


def _wormhole(ctx: _Ctx, s: Ship) -> None:
    here = ctx.state.terrain[s.pos]
    holes = [t for t in ctx.state.tiles if t.kind == "wormhole"]
    if len(holes) < 2:
        return
    exit_ = holes[(holes.index(here) + 1) % len(holes)]  # ruling SS15: the next worm hole in the map's list
    moved = evolve(s, pos=exit_.cells[0])
    if C.hull_ok(ctx.state, moved.hull(), s, {x.id for x in ctx.state.ships}):
        ctx.log("wormhole", f"Ship {s.id}'s worm hole is blocked at the other end.", s.id)
        return
    ctx.put(evolve(moved, t_wormhole=True, t_mf=0))
    ctx.log("wormhole", f"Ship {s.id} is carried through the worm hole to {list(exit_.cells[0])} (VII.A).", s.id)
    if C.star_adjacent(ctx.state, moved.pos):
        destroy(ctx, s.id, "it came out next to a star (VII.A)")


def _warp_path(ship: Ship, hexes: int, reverse: bool) -> list:
    d = ship.facing + (3 if reverse else 0)
    out, c = [], ship.pos
    for _ in range(hexes):
        c = C.step(c, d)
        out.append(c)
    return out


def _warp(state: BattleState, ship: Ship, a: A.Warp) -> Resolver:
    _tactical(ship, "warp")
    if ship.card.nacelles == 0:
        raise Refusal("004 IV.B", "only ships with nacelles have warp engines")
    if ship.warp == 0:
        raise Refusal("004 IV.B", "a ship must charge its warp engines before using them")
    if ship.t_warped:
        raise Refusal("004 IV.B", "only one warp jump per turn")
    if C.damaged_mf(ship) == 0:
        raise Refusal("004 IV.B", "the warp engines are damaged until repairs restore 1 MF")
    if ship.t_mf or ship.t_stopped:
        raise Refusal("004 IV.B", "a ship cannot turn or move before its warp jump (ruling SS6)")
    if ship.boost:
        raise Refusal("004 IV.B", "only one engine can be used per turn (its energy went to a transfer)")
    wf = C.warp_factor(state, ship)
    reach = (wf + 1) // 2 if a.reverse else wf
    if not isinstance(a.hexes, int) or not 1 <= a.hexes <= reach:
        raise Refusal(
            "004 IV.B",
            f"a warp jump goes 1 to {reach} hexes ({'half ' if a.reverse else ''}warp factor {wf})",
        )
    path = _warp_path(ship, a.hexes, a.reverse)
    seen = seen_by(state, ship.side)
    for i, c in enumerate(path):
        moved = evolve(ship, pos=c)
        why = C.hull_ok(state, moved.hull(), ship, seen)
        if why:
            raise Refusal("004 IV.B", f"the jump needs a clear straight line of sight: at {list(c)} {why}")
        if i < len(path) - 1 and (C.kind_at(state, c) in ("wormhole",) or C.orbiting(state, c) is not None):
            raise Refusal("004 IV.B", f"the jump would end at {list(c)} (a worm hole or an orbit stops it)")
    extra = any(C.kind_at(state, c) in ("metaphasic", "mutara") for c in path + [ship.pos])
    if extra and a.hexes + 1 > reach:
        raise Refusal("004 VII.A", "the nebula's −1 MF shortens the jump by one hex")

    def run(ctx: _Ctx) -> None:
        s = ctx.ship(ship.id)
        last = s.pos
        for c in path:
            if _bumps(ctx, s, evolve(s, pos=c).hull()):
                break
            last = c
            ctx.put(evolve(ctx.ship(s.id), pos=c))
            _arrive(ctx, s.id, entered=False)
            if not ctx.ship(s.id).alive:
                return
        s = ctx.change(s.id, warp=s.warp - 1, t_warped=True)
        ctx.log("warp", f"Ship {s.id} jumps {'in reverse ' if a.reverse else ''}to {list(last)} at warp.", s.id,
                to=list(last))
        _arrive(ctx, s.id, entered=True)
    return run


def _transfer(state: BattleState, ship: Ship, a: A.Transfer) -> Resolver:
    if a.boost not in A.TRANSFERS:
        raise Refusal("004 IV.C", f"a warp energy transfer gives one of {', '.join(A.TRANSFERS)}")
    _tactical(ship, "warp energy transfer")
    if ship.warp == 0:
        raise Refusal("004 IV.C", "a transfer needs a charged warp engine")
    if ship.boost or ship.t_warped:
        raise Refusal("004 IV.C", "once per turn, and only one engine can be used per turn (IV.B)")
    if ship.t_engaged:
        raise Refusal("004 IV.C", "no transfer on a turn the ship attacked")
    if ship.dil or ship.tri:
        raise Refusal("004 IV.C", "warp transfers cannot be combined with dilithium or trilithium")

    def run(ctx: _Ctx) -> None:
        s = ctx.change(ship.id, warp=ship.warp - 1, boost=a.boost)
        ctx.log("transfer", f"Ship {s.id} diverts warp energy: +1 {a.boost}.", s.id)
    return run


def _boost(state: BattleState, ship: Ship, a: A.Boost) -> Resolver:
    if a.use not in A.BOOSTS:
        raise Refusal("004 VII.B", f"a tactical resource use is one of {', '.join(A.BOOSTS)}")
    _tactical(ship, "resources")
    stuff, use = a.use.split(":")
    if ship.boost:
        raise Refusal("004 VII.B", f"{stuff} cannot be combined with a warp power transfer")
    if getattr(ship, stuff) == 0:
        raise Refusal("004 VII.B", f"ship {ship.id} carries no {stuff}")
    if (ship.dil if stuff == "dilithium" else ship.tri):
        raise Refusal("004 VII.B", f"only one unit of {stuff} per turn")
    if use == "mf" and ship.t_warped:
        raise Refusal("004 VII.B", "the jump is made")
    key = "dil" if stuff == "dilithium" else "tri"

    def run(ctx: _Ctx) -> None:
        s = ctx.change(ship.id, **{stuff: getattr(ship, stuff) - 1, key: use})
        ctx.log("resource", f"Ship {s.id} uses one unit of {stuff}: +1 {use.upper()}.", s.id)
    return run


def _decloak(state: BattleState, ship: Ship, a: A.Decloak) -> Resolver:
    _tactical(ship, "de-cloaking")
    if not ship.cloaked:
        raise Refusal("004 VI.A", f"ship {ship.id} is not cloaked")
    if ship.t_cloak:
        raise Refusal("004 VI.A", "a ship can either cloak or de-cloak once per turn")

    def run(ctx: _Ctx) -> None:
        s = ctx.change(ship.id, cloaked=False, t_cloak="decloak")
        ctx.log("decloak", f"Ship {s.id} de-cloaks at {list(s.pos)}.", s.id, at=list(s.pos))
    return run


def _lay_mine(state: BattleState, ship: Ship, a: A.LayMine) -> Resolver:
    _tactical(ship, "laying a mine")
    if ship.mines == 0:
        raise Refusal("004 VII.B", f"ship {ship.id} carries no mines")
    if ship.cloaked:
        raise Refusal("004 VII.B", "a cloaked ship does not lay mines (ruling SS16)")
    cell = C.step(ship.hull()[-1], ship.facing + 3)
    if not state.grid.in_bounds(cell) or C.kind_at(state, cell) in ("asteroid", "planet", "moon", "star", "station"):
        raise Refusal("004 VII.B", "mines are deployed in the hex aft of the ship, and there is none free")
    if any(m.cell == cell for m in state.mines):
        raise Refusal("004 VII.B", "that hex is mined already")
    seen = seen_by(state, ship.side)
    if any(s.alive and s.id in seen and cell in s.hull() for s in state.ships):
        raise Refusal("004 VII.B", "a ship is in the hex aft")

    def run(ctx: _Ctx) -> None:
        st = ctx.state
        mine = Mine(st.next_mine, cell, ship.side)
        ctx.state = evolve(st, mines=st.mines + (mine,), next_mine=st.next_mine + 1)
        ctx.change(ship.id, mines=ship.mines - 1)
        ctx.log("mine", f"Ship {ship.id} lays mine {mine.id} at {list(cell)}.", ship.id, mine=mine.id)
        for other in ctx.state.ships:
            if other.alive and cell in other.hull():  # an unseen ship there: it goes off at once (SS7)
                ctx.state = evolve(ctx.state, mines=tuple(m for m in ctx.state.mines if m.id != mine.id))
                damage(ctx, other.id, 3, f"mine {mine.id} detonates (VII.B)")
    return run


def _withdraw(state: BattleState, ship: Ship, a: A.Withdraw) -> Resolver:
    """Ruling SS24: a side withdraws its whole fleet before one of its ships begins its turn; its
    ships leave the map (not destroyed) and the battle goes on among the others (SS1)."""
    if state.active is not None:
        raise Refusal("004 III", "a fleet withdraws before one of its ships begins its turn (ruling SS24)")

    def run(ctx: _Ctx) -> None:
        gone = [s for s in ctx.state.ships if s.alive and s.side == ship.side]
        for s in gone:
            ctx.put(evolve(s, withdrawn=True, done=True, t_phase=""))
        ctx.events.append(kit.Event("withdraw", f"Side {ship.side} withdraws from the battle: ship(s) "
                                    f"{', '.join(str(s.id) for s in gone)} leave the map (ruling SS24).",
                                    {"side": ship.side, "ships": [s.id for s in gone]}))
        ctx.state = _next_side(evolve(ctx.state, active=None))
    return run


__all__ = ["Resolver", "begun_state", "damage", "destroy", "detected", "seen_by"]
