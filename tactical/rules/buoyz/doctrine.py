"""A computer doctrine for Buoyz 'N Da 'Hood: plays either side with legal actions only.

Movement: each ship takes, from ``legal_actions``, the move that leaves the most attack dice
bearing on enemies in arc and range, closing on the nearest enemy otherwise, and never leaves
the table; a ship far from any enemy first tries Flank Speed (7.2). Attack: every weapon system
fires at the eligible enemy with the least hull left (focus fire), secondary dice together.
Lurking ships reveal within reach of an enemy (10.2), Tholians spin webs in pairs (7.3), a ship
guarding a base by a planet orbits (9.0), spent off-table AC fly home (8.3), shuttles with no target
loiter (8.2), and a warp-capable ship on a table with no enemy heads for one that has (11.3).
``simulate`` plays a battle to its end (the turn cap of ruling BZ17 guarantees one).
"""

from __future__ import annotations

import math
from dataclasses import replace

from campaign.rules.dice import Dice
from tactical.rules.kit import play_out

from . import actions as A
from .cam import breaking
from .engine import (
    RAM_RANGE,
    TRANSPORTER_RANGE,
    allowance,
    apply,
    boarding_score,
    check,
    command,
    dead_in_space,
    edge_point,
    eligible,
    fire_options,
    legal_actions,
    mine_layer_problem,
    ship_moves,
    system_dice,
    systems,
)
from .geometry import (
    AFT,
    ARCS,
    EPSILON,
    FORE,
    PORT,
    STARBOARD,
    advance,
    arcs_of,
    bearing,
    distance,
    halve,
    inches,
    norm,
    on_table,
    segment_crosses_rect,
    turn_degrees,
)
from .sds import has
from .state import (
    AC_MOVEMENT,
    ACTIVE,
    ARMAMENT,
    ATTACK,
    FIGHTER,
    INITIATIVE,
    LOST,
    LURKING,
    MOTIVE,
    MOVEMENT,
    SHUTTLE,
    TRANSIT,
    BattleState,
    IllegalActionError,
    Ship,
)

MAX_STEPS = 20_000


def _pose(ship: Ship, m: A.Move):
    pos, h = ship.pos, ship.heading
    if m.before:
        pos = advance(pos, h, m.before)
    h = norm(h + turn_degrees(m.turn))
    if m.after:
        pos = advance(pos, h, m.after)
    h = norm(h + turn_degrees(m.turn_end))
    return pos, h


def _bearing_dice(ship: Ship, enemies) -> list[tuple[frozenset, int, float]]:
    """(arcs, range, weight) for each system with dice left."""
    out = []
    for s in systems(ship):
        n = system_dice(ship, s)
        if n:
            out.append((s.arcs, s.range, n * (1.5 if s.torpedo else 1.0)))
    return out


_E = EPSILON
# geometry.arcs_of's Template 1 quadrants (ruling BZ2) for a relative bearing kept to 4 places:
# (fore, starboard, aft, port) membership → the arc set.
_ARC_SETS = {}
for _bits in range(16):
    _ARC_SETS[tuple(bool(_bits & (1 << i)) for i in range(4))] = frozenset(
        arc for i, arc in enumerate((FORE, STARBOARD, AFT, PORT)) if _bits & (1 << i))
ALL_ARCS = frozenset(ARCS)
_QUADRANT = (frozenset({FORE}), frozenset({STARBOARD}), frozenset({AFT}), frozenset({PORT}))


def _arcs_at(rel: float) -> frozenset:
    """``geometry.arcs_of`` for a relative bearing already worked out (0 ≤ rel < 360, to 4
    places, so the 1e-6 boundary tolerance decides exactly as there)."""
    return _ARC_SETS[(rel <= 45.0 + _E or rel >= 315.0 - _E, 45.0 - _E <= rel <= 135.0 + _E,
                      135.0 - _E <= rel <= 225.0 + _E, 225.0 - _E <= rel <= 315.0 + _E)]


MINE_PENALTY = 10.0  # a path through a minefield (5.10) counts as much as an attack die less


def _best_move(state: BattleState, ship: Ship, options, weapons, near, far=(), fields=()) -> A.Move:
    """The option whose end pose scores best, the shorter move on a tie (the first listed on a
    full tie). A pose scores the attack dice bearing on the enemies in reach (``near``): each
    system's dice (torpedoes 1.5 times) whose arc holds the enemy (Template 1, ruling BZ2) and
    whose range reaches it (rounded, ruling BZ1), times 10; less the distance to the nearest
    enemy (``far`` ones count only for that); less 5 within 3\" of a table edge; -1e9 off the
    table; less ``MINE_PENALTY`` for each of ``fields`` (minefields, 5.10) its path crosses, unless
    it is a Minesweeper's sweeping move, which brings no dice to bear. The end pose is the very one
    ``engine._do_move`` computes (``advance``, ``norm``), and the arcs and ranges what ``arcs_of`` and
    ``inches`` give; the sines and cosines of the few
    headings, and the turned headings, are worked out once for all the options."""
    w, hgt = state.table
    x0, y0 = ship.pos
    h0 = ship.heading
    ox = _table_x(state, ship)  # 11.3: its own table
    reach = max((rng for _a, rng, _w in weapons), default=-1)
    targets = [(e.pos[0], e.pos[1], e.uses("ecm")) for e in near]
    others = [e.pos for e in far]
    by_arcs: dict[frozenset, list[tuple[int, float]]] = {}
    trig: dict[float, tuple[float, float]] = {}
    turned: dict[tuple[float, int], float] = {}
    hypot, atan2, degrees, floor = math.hypot, math.atan2, math.degrees, math.floor
    lo, x_lo, x_hi, y_hi = -EPSILON, ox - EPSILON, ox + w + EPSILON, hgt + EPSILON
    cut = reach + 0.5 + 1e-3  # farther than this rounds beyond every range
    best, best_key = None, None
    for m in options:
        if not _weighed(m, fields):
            continue
        xb, yb, x, y, h = _end_pose(m, x0, y0, h0, trig, turned)
        if not (x_lo <= x <= x_hi and lo <= y <= y_hi):
            score = -1e9
        else:
            dice = 0.0
            nearest = 1e9
            for ex, ey, ecm in targets:
                dx, dy = ex - x, ey - y
                d = hypot(dx, dy)
                if d < nearest:
                    nearest = d
                if ecm or d > cut:
                    continue
                # geometry.inches (1.1, ruling BZ1): rounding to 4 places first only matters
                # within a hair of the half inch
                frac = d - floor(d)
                rounded = floor(round(d, 4) + 0.5) if 0.4999 < frac < 0.5001 else floor(d + 0.5)
                if rounded > reach:
                    continue
                if d < EPSILON:
                    arcs = ALL_ARCS
                else:
                    raw = (degrees(atan2(dx, dy)) - h) % 360.0
                    if 0.001 < (raw - 45.0) % 90.0 < 89.999:  # clear of every quadrant boundary
                        arcs = _QUADRANT[int((raw + 45.0) % 360.0 // 90.0)]
                    else:  # on or near one: exactly as geometry.bearing, relative_bearing, arcs_of
                        b = round(degrees(atan2(dx, dy)) % 360.0, 4)
                        if b >= 360.0:
                            b = 0.0
                        rel = round((b - h) % 360.0, 4)
                        if rel >= 360.0:
                            rel = 0.0
                        arcs = _arcs_at(rel)
                bearing_on = by_arcs.get(arcs)
                if bearing_on is None:
                    bearing_on = by_arcs[arcs] = [(rng, wt) for arc_set, rng, wt in weapons if arcs & arc_set]
                for rng, wt in bearing_on:
                    if rounded <= rng:
                        dice += wt
            for ex, ey in others:
                d = hypot(ex - x, ey - y)
                if d < nearest:
                    nearest = d
            edge = min(x - ox, y, ox + w - x, hgt - y)
            if m.sweep:
                dice = 0.0  # 5.10: a sweeping ship may not shoot, and its path is swept clear
            score = dice * 10 - (nearest if nearest < 1e9 else 0.0) - (5.0 if edge < 3 else 0.0)
            if fields and not m.sweep:
                score -= MINE_PENALTY * _fields_crossed(fields, ((x0, y0), (xb, yb)), ((xb, yb), (x, y)))
        rank = (score, -m.before - m.after)
        if best_key is None or rank > best_key:
            best, best_key = m, rank
    return best


def _weighed(m: A.Move, fields) -> bool:
    """Whether ``_best_move`` scores this option: not one with the same pose as the plain move
    listed before it (laying a mine, spinning a web, sweeping where no minefield is), nor an orbit
    (9.0 orbits are not chosen by the doctrine: docs/buoyz.md "Not yet")."""
    return not (m.lay_mine or m.web or (m.sweep and not fields)) and m.orbit is None


def _end_pose(m: A.Move, x0: float, y0: float, h0: float, trig: dict, turned: dict):
    """``_best_move``'s end pose of a move from (x0, y0) heading h0, as ``engine._do_move``
    computes it (``advance``, ``norm``): the point after its first leg (xb, yb), the end point and
    heading; ``trig`` (heading → sine, cosine) and ``turned`` ((heading, turn) → heading) are the
    caller's caches, shared by all its options."""
    x, y = x0, y0
    if m.before:
        sc = trig.get(h0)
        if sc is None:
            sc = trig[h0] = (math.sin(math.radians(h0)), math.cos(math.radians(h0)))
        x, y = round(x + m.before * sc[0], 4), round(y + m.before * sc[1], 4)
    xb, yb = x, y
    key = (h0, m.turn)
    h = turned.get(key)
    if h is None:
        h = turned[key] = norm(h0 + turn_degrees(m.turn))
    if m.after:
        sc = trig.get(h)
        if sc is None:
            sc = trig[h] = (math.sin(math.radians(h)), math.cos(math.radians(h)))
        x, y = round(x + m.after * sc[0], 4), round(y + m.after * sc[1], 4)
    if m.turn_end:
        key = (h, m.turn_end)
        hh = turned.get(key)
        if hh is None:
            hh = turned[key] = norm(h + turn_degrees(m.turn_end))
        h = hh
    return xb, yb, x, y, h


def _fields_crossed(fields, *legs) -> int:
    """How many of the minefields (5.10) a path of ``legs`` (segments; a zero-length one skipped) crosses."""
    return sum(1 for f in fields if any(
        segment_crosses_rect(a, b, f.centre, f.heading, f.length, f.width) for a, b in legs if a != b))


def _retreat_score(state: BattleState, ship: Ship, m: A.Move, edge: str | None = None) -> float:
    """A ship breaking contact (CAM 3.1 a): off its own edge is best, else the nearer the better."""
    pos, _h = _pose(ship, m)
    w, hgt = state.table
    if edge is None:
        edge = state.cam.edge(ship.side)
    x, y = pos[0] - _table_x(state, ship), pos[1]  # 11.3: the edges of its own table (ruling BZ92)
    if not on_table((x, y), w, hgt):
        return 1e9
    return -(y if edge == "south" else hgt - y if edge == "north" else x if edge == "west" else w - x)


def _armed(ship: Ship) -> bool:
    """Whether any of the ship's weapon systems still has attack dice (5.7, 5.8, 7.3 one-shot),
    whatever this turn's Special Action does to them."""
    cut = int(ship.crippled) + ship.crit(ARMAMENT)
    return any(s.key not in ship.spent and halve(s.dice, cut) > 0 for s in systems(ship))


def can_hurt(state: BattleState, side: int) -> bool:
    """Whether ``side`` still has a way to damage an enemy ship: attack dice left in a weapon
    system of a ship on the table, or a bomber or shuttle flight armed in the air or able to
    rearm aboard a carrier that can still launch it, or at its off-table base (8.3) (ruling BZ60);
    a shuttle loitering as a patrol counter (8.2) never attacks again. With multi-tables (11.3,
    ruling BZ93) only where it can meet an enemy ship: on the same table, or either of them
    Warp or Hyperspace capable (it can move between the tables)."""
    meets = _meeting(state, side)
    if any(_armed(s) and meets(s.pos, _mobile(s)) for s in state.active_ships(side)):
        return True
    for f in state.flights:
        if f.side != side or f.kind == FIGHTER or f.status == LOST or f.patrol:
            continue  # a loitering shuttle (8.2) never initiates combat again
        if (f.flying and f.armed) or f.offtable:  # 8.3: an off-table base's flight rearms and comes back
            if meets(f.pos, False):
                return True
            continue
        carrier = state.ship(f.carrier)
        if carrier.active and not carrier.crippled and has(carrier.abilities, "Carrier") \
                and meets(carrier.pos, _mobile(carrier)):
            return True
    return False


def _mobile(ship: Ship) -> bool:
    """11.3: a ship that can move between tables (Warp, or Hyperspace under 11.8)."""
    return has(ship.abilities, "Warp") or has(ship.abilities, "Hyperspace")


def _meeting(state: BattleState, side: int):
    """11.3 (ruling BZ93): whether something of ``side`` at ``pos`` can ever meet an enemy ship
    (on a table, lurking on one or in transit): always on a single table."""
    if state.tables < 2:
        return lambda pos, mobile: True
    enemies = [e for e in state.ships if e.side != side and e.status in (ACTIVE, TRANSIT, LURKING)]
    if any(_mobile(e) for e in enemies):
        return lambda pos, mobile: bool(enemies)
    tables = {state.table_of(e.pos) for e in enemies}
    return lambda pos, mobile: bool(enemies) and (mobile or (pos is not None and state.table_of(pos) in tables))


_LAST: tuple = (None, {})  # the state last asked about, and its answers by side (replaced whole)


def withdrawing(state: BattleState, side: int) -> bool:
    """Ruling BZ60: a side that can no longer hurt the enemy leaves the table (11.7) rather than
    wait for the turn cap; when neither side can, the side with fewer points on the table goes
    (both on equal points). With more than two sides (ruling BZ88) it leaves when any enemy side
    can hurt it, and when no side can hurt any other only the weakest side(s) go. A side under
    a CAM 'break contact' order retreats as CAM 3.1 says.
    (Remembered for the state last asked about: one decision asks several times.)"""
    global _LAST
    last = _LAST
    if last[0] is not state:
        last = _LAST = (state, {})
    known = last[1].get(side)
    if known is None:
        known = last[1][side] = _withdrawing(state, side)
    return known


def _withdrawing(state: BattleState, side: int) -> bool:
    if breaking(state, side) or can_hurt(state, side):
        return False
    enemies = state.enemies(side)
    if any(can_hurt(state, other) for other in enemies):  # ruling BZ88: any enemy side
        return True
    mine = sum(s.sd.points for s in state.active_ships(side))
    if len(enemies) == 1:
        return mine <= sum(s.sd.points for s in state.enemy_ships(side))
    # Ruling BZ88: with nobody able to hurt anybody, only the side(s) weakest on the table leave.
    return mine <= min(sum(s.sd.points for s in state.active_ships(other)) for other in enemies)


def _exit_edge(state: BattleState, ship: Ship) -> str:
    """Its own CAM 2.3 edge in a CAM scenario; otherwise the table edge nearest to it."""
    if state.cam is not None:
        return state.cam.edge(ship.side)
    w, hgt = state.table
    x, y = ship.pos[0] - _table_x(state, ship), ship.pos[1]
    return min((("south", y), ("west", x), ("north", hgt - y), ("east", w - x)), key=lambda e: e[1])[0]


def _table_x(state: BattleState, ship: Ship) -> float:
    """The x of the west edge of the table the ship is on (11.3, ruling BZ82)."""
    return (state.table_of(ship.pos) or 0) * state.pitch if state.tables > 1 else 0.0


def _withdraw_score(state: BattleState, ship: Ship, m: A.Move, edge: str) -> tuple[float, float]:
    """Off the table (11.7) is best; else the nearer the exit edge the better, then the farther
    from the nearest enemy."""
    pos, _h = _pose(ship, m)
    w, hgt = state.table
    x = pos[0] - _table_x(state, ship)  # 11.3: on its own table
    if not on_table((x, pos[1]), w, hgt):
        return (1e9, 0.0)
    gap = {"south": pos[1], "north": hgt - pos[1], "west": x, "east": w - x}[edge]
    enemies = state.enemy_ships(ship.side)
    return (-gap, min((distance(pos, e.pos) for e in enemies), default=0.0))


def choose_move(state: BattleState, ship: Ship) -> A.Move:
    options = ship_moves(state, ship)
    if ship.uses("cloak_hunter"):  # 10.3: a hunter moves no more than 4"
        options = [m for m in options if m.before + m.after <= 4] or options
    enemies = state.enemy_ships(ship.side)
    if breaking(state, ship.side):
        edge = state.cam.edge(ship.side)
        best = max(options, key=lambda m: _retreat_score(state, ship, m, edge))
        return _with_mine(state, ship, best, options, enemies)
    if withdrawing(state, ship.side):
        edge = _exit_edge(state, ship)
        best = max(options, key=lambda m: _withdraw_score(state, ship, m, edge))
        return _with_mine(state, ship, best, options, enemies)
    transit = _transit_move(state, ship, options, enemies)
    if transit is not None:
        return transit
    weapons = _bearing_dice(ship, enemies)
    if len(options) > 40:  # a coarser look: whole-move, half-move and even-inch options
        longest: dict[int, float] = {}
        for o in options:
            longest[o.turn] = max(longest.get(o.turn, 0.0), o.before + o.after)
        options = [m for m in options if (m.before + m.after) % 2 == 0 or m.before == m.after
                   or m.before + m.after == longest[m.turn]] or options
    reach = allowance(ship) + max((rng for _a, rng, _w in weapons), default=0) + 2
    near = [e for e in enemies if distance(ship.pos, e.pos) <= reach]
    # beyond reach only the nearest matters (to close on it), and only with nobody in reach
    far = [] if near else sorted(enemies, key=lambda e: distance(ship.pos, e.pos))[:1]
    if not near:
        hold = _hold_orbit(state, ship, options)
        if hold is not None:
            return hold
    fields = [f for f in state.minefields if distance(ship.pos, f.centre) <= allowance(ship) + 2]
    best = _best_move(state, ship, options, weapons, near, far, fields)
    return _with_web(state, ship, _with_mine(state, ship, best, options, enemies), options, enemies)


BASE_GUARD = 6.0  # a ship this near a friendly base holds station by it


def _hold_orbit(state: BattleState, ship: Ship, options) -> A.Move | None:
    """9.0 (ruling BZ57): a ship within 1\" of a planet or moon, with a base of its side (Speed
    N/A) within 6\" and no enemy within its reach, holds its position there in orbit rather than
    leave the base to close on a distant enemy."""
    orbits = [m for m in options if m.orbit is not None]
    if not orbits:
        return None
    if not any(s.sd.speed is None and s.id != ship.id and distance(s.pos, ship.pos) <= BASE_GUARD
               for s in state.active_ships(ship.side)):
        return None
    return orbits[0]


WEB_LENGTH = 6.0  # 7.3: a web spans at most 6" between two Tholian ships (ruling BZ54)
WEB_ENEMY = 24.0  # spin only with an enemy this near, coming on


def _with_web(state: BattleState, ship: Ship, m: A.Move, options, enemies) -> A.Move:
    """7.3 Tholian Web (ruling BZ54): a web-spinner spins as it goes straight on when an enemy is
    within 24\" and a second spinner of its side can complete the web: one that spun this turn and
    lies within 6\" of this move's end, or one yet to move within 6\" plus its move (it will be the
    second). The web then lies between the two, across the enemy's way to them."""
    if m.web or m.turn or m.turn_end or m.lay_mine or m.sweep or m.orbit is not None or not has(ship.abilities, "Web"):
        return m
    if not any(distance(ship.pos, e.pos) <= WEB_ENEMY for e in enemies):
        return m
    end, _h = _pose(ship, m)
    for p in state.active_ships(ship.side):
        if p.id == ship.id or not has(p.abilities, "Web"):
            continue
        if (p.weaving and distance(p.pos, end) <= WEB_LENGTH) or (
                not p.moved and distance(p.pos, end) <= WEB_LENGTH + allowance(p)):
            spin = replace(m, web=True)
            return spin if spin in options else m
    return m


def _transit_move(state: BattleState, ship: Ship, options, enemies) -> A.Move | None:
    """11.3 (ruling BZ82): a Warp or Hyperspace capable ship with no enemy on its own table, and
    one on another, heads for that table: its whole move toward the east or west edge facing it,
    off that edge (into transit) when it reaches it, never off the north or south edge. (Nothing
    for a ship whose table holds an enemy, or on a single table.)"""
    if state.tables < 2 or not enemies:
        return None
    if not (has(ship.abilities, "Warp") or has(ship.abilities, "Hyperspace")):
        return None
    mine = state.table_of(ship.pos)
    tables = {state.table_of(e.pos) for e in enemies}
    if mine is None or mine in tables:
        return None
    target = min((t for t in tables if t is not None), key=lambda t: (abs(t - mine), t), default=None)
    if target is None:
        return None
    way = 1.0 if target > mine else -1.0
    hgt = state.table[1]

    def progress(m: A.Move) -> tuple[float, float]:
        pos, _h = _pose(ship, m)
        if not -EPSILON <= pos[1] <= hgt + EPSILON:
            return (-1e9, 0.0)
        return (way * pos[0], -abs(pos[1] - hgt / 2))

    return max(options, key=progress)


def _with_mine(state: BattleState, ship: Ship, m: A.Move, options, enemies) -> A.Move:
    """5.10, 7.3 Pursuit Mine: a ship that can lay a mine lays one astern of it as it goes when
    an enemy within 10\" lies in its aft arc (the chosen move's mine-laying variant, when it has
    one: a move without a turn)."""
    if m.lay_mine or m.turn or m.turn_end or mine_layer_problem(ship) is not None:
        return m
    if not any(inches(ship.pos, e.pos) <= 10 and AFT in arcs_of(ship.pos, ship.heading, e.pos) for e in enemies):
        return m
    lay = replace(m, lay_mine=True)
    return lay if lay in options else m


def choose_fire(state: BattleState, ship: Ship) -> A.Fire:
    """Every weapon system at the eligible enemy (5.4) with the least hull left, then the
    nearest (focus fire); boards (11.4) an enemy within reach when its score is 2 better."""
    enemies = state.enemy_ships(ship.side)
    ranges = {e.id: inches(ship.pos, e.pos) for e in enemies}  # 5.4's range test, worked out once
    shots = []
    for s in systems(ship):
        n = system_dice(ship, s)
        if not n:
            continue
        cands = [e for e in enemies if ranges[e.id] <= s.range and eligible(state, ship, s, e)]
        if cands:
            target = min(cands, key=lambda e: (e.hull, distance(ship.pos, e.pos), e.id))
            shots.append((s.key, target.id, n))
    board = None
    if (has(ship.abilities, "Trans") or has(ship.abilities, "Transporters")) and any(
            distance(ship.pos, e.pos) <= TRANSPORTER_RANGE + 1e-6 for e in enemies):
        for option in fire_options(state, ship):
            if option.board is not None and (boarding_score(ship, state)
                                             >= boarding_score(state.ship(option.board), state) + 2):
                board = option.board  # 11.4: board only with a clear edge
                break
    return A.Fire(ship.id, tuple(shots), board=board)


def doctrine_action(state: BattleState) -> A.Action:
    """The doctrine's next action for the side to act (always one ``apply`` accepts)."""
    if state.phase == INITIATIVE:
        return A.Begin()
    if state.phase == MOVEMENT:
        if state.nominated is not None:
            ship = state.ship(state.nominated)
            if (withdrawing(state, ship.side) and ship.uses("flank_speed") and has(ship.abilities, "Warp")
                    and not ship.crippled and not ship.crit(MOTIVE) and not ship.cloaked):
                return A.Special(ship.id, "maximum_warp")  # 7.2: leave the table this turn
            return choose_move(state, ship)
        mine = [s for s in state.active_ships(state.acting) if not s.moved
                and (not state.squadron_next or s.id in state.squadron_next)]
        lurkers = [s for s in state.lurking(state.acting) if not s.moved
                   and (not state.squadron_next or s.id in state.squadron_next)]
        if lurkers and not breaking(state, state.acting):  # 10.2 (BZ52: under a break order they stay hidden)
            for s in lurkers:
                reveal = _reveal(state, s)
                if reveal is not None:
                    return reveal
            if not mine:
                return A.Lurk(lurkers[0].id)
        if not mine:
            return legal_actions(state)[0]
        ship = mine[0]
        enemies = state.enemy_ships(ship.side)
        if withdrawing(state, ship.side):
            return (_desperate(state, ship, enemies) or _cloak_to_leave(state, ship, enemies)
                    or _withdraw_special(state, ship) or choose_move(state, ship))
        special = (_cloak_to_leave(state, ship, enemies) or _special_for(state, ship, enemies)
                   or _desperate(state, ship, enemies) or _red_alert(state, ship))
        if special is not None:
            return special
        if (
            not ship.special_tried
            and ship.sd.speed
            and not breaking(state, ship.side)
            and not dead_in_space(ship)
            and enemies
            and min(distance(ship.pos, e.pos) for e in enemies) > allowance(ship) + 8
        ):
            return A.Special(ship.id, "flank_speed")
        return choose_move(state, ship)
    if state.phase == AC_MOVEMENT:
        pending = [a for a in legal_actions(state)]
        flight = state.flight(pending[0].flight)
        return choose_fly(state, flight, [a for a in pending if a.flight == flight.id])
    if state.phase == ATTACK:
        if state.nominated is not None:
            return choose_fire(state, state.ship(state.nominated))
        ship = next(s for s in _shooters(state) if not state.squadron_next or s.id in state.squadron_next)
        if ship.uses("cloak_hunter") and not ship.searched and ship.moved_inches <= 4:
            return A.Detect(ship.id)
        return choose_fire(state, ship)
    return legal_actions(state)[0]


def _reveal(state: BattleState, ship: Ship) -> A.Reveal | None:
    """10.2 (ruling BZ53): a lurking ship stays hidden until an enemy comes within its striking
    range of its square (its move plus its longest weapon range, 1\" spare) or its side needs it
    (no armed ship of its side on the table). It is then placed in its square to bring the most
    attack dice to bear on the enemies there (torpedoes 1.5 times): at the square's centre or the
    point of it nearest each enemy, bow, either beam or stern toward that enemy; the nearer the
    nearest enemy the better on a tie."""
    rect = state.zone_rect(ship.zone) if ship.zone is not None else None
    if rect is None:
        return None
    x0, y0, x1, y1 = rect
    enemies = state.enemy_ships(ship.side)
    needed = not any(_armed(s) for s in state.active_ships(ship.side))

    def nearest_point(pos):
        return (round(min(max(pos[0], x0), x1), 4), round(min(max(pos[1], y0), y1), 4))

    reach = _reach(ship)
    close = [e for e in enemies if distance(nearest_point(e.pos), e.pos) <= reach]
    if not close and not needed:
        return None
    if not enemies:
        return _legal(state, A.Reveal(ship.id, nearest_point(((x0 + x1) / 2, (y0 + y1) / 2))))
    weapons = _bearing_dice(ship, enemies)
    points = [nearest_point(((x0 + x1) / 2, (y0 + y1) / 2))] + [nearest_point(e.pos) for e in close]
    best, best_key = None, None
    for at in points:
        for e in close or enemies[:1]:
            if distance(at, e.pos) < 1e-6:
                continue
            ahead = bearing(at, e.pos)
            for turn in (0.0, 90.0, 270.0, 180.0):
                heading = round(norm(ahead + turn), 4)
                dice = 0.0
                for t in close:
                    rng = inches(at, t.pos)
                    arcs = arcs_of(at, heading, t.pos)
                    dice += sum(wt for a, r, wt in weapons if rng <= r and arcs & a)
                key = (dice, -min(distance(at, t.pos) for t in enemies))
                if best_key is None or key > best_key:
                    best, best_key = A.Reveal(ship.id, at, heading), key
    if best is None:
        best = A.Reveal(ship.id, points[0])
    return _legal(state, best)


def _shooters(state: BattleState) -> list[Ship]:
    from .engine import can_fire

    return [s for s in state.active_ships(state.acting) if can_fire(s)]


def choose_fly(state: BattleState, f, options) -> A.FlyAC:
    """AC (8.x): a spent flight flies home to its carrier; an armed bomber or shuttle makes a run
    on the weakest enemy ship it can reach, else closes on the nearest; an armed fighter
    engages the nearest enemy bomber or shuttle in reach, else any enemy flight, else keeps
    station with its carrier."""
    home = None if f.offtable else next((s for s in state.ships if s.id == f.carrier and s.active), None)
    enemies = state.enemy_ships(f.side)
    loiter = next((a for a in options if a.loiter), None)
    if not f.armed:
        if f.offtable:  # 8.3: back to its off-table base by its side's edge, to rearm
            leave = next((a for a in options if a.home), None)
            if leave is not None:
                return leave
            exit_at = edge_point(state, f.side, f.pos)
            return min(options, key=lambda a: (distance(a.to, exit_at), a.attack is not None, a.loiter))
        if home is None:  # nowhere to rearm: a shuttle patrols (8.2), anything else keeps station
            return loiter or options[0]
        return min(options, key=lambda a: (distance(a.to, home.pos), a.attack is not None, a.loiter))
    if f.kind != FIGHTER:
        runs = [a for a in options if a.attack is not None]
        if runs:
            return min(runs, key=lambda a: (state.ship(a.attack).hull, a.attack))
        table = state.table_of(f.pos)
        if loiter is not None and f.kind == SHUTTLE and not any(
                not (e.cloaked and not e.detected) and state.table_of(e.pos) == table for e in enemies):
            return loiter  # 8.2: no enemy ship it could attack on its table: loiter as a patrol counter
        if not enemies:
            return options[0]
        return min(options, key=lambda a: min(distance(a.to, e.pos) for e in enemies))
    fights = [a for a in options if a.attack is not None]
    if fights:
        return min(fights, key=lambda a: (state.flight(a.attack).kind == "fighter", distance(f.pos, a.to), a.attack))
    if home is not None:  # no prey in reach: fly CAP near the carrier (8.6)
        caps = [a for a in options if a.cap]
        station = min(options, key=lambda a: abs(distance(a.to, home.pos) - 3))
        if caps and distance(f.pos, home.pos) <= 6:
            return caps[0]
        return station
    return options[0]


def _cloak_to_leave(state: BattleState, ship: Ship, enemies) -> A.Special | None:
    """A cloak-capable ship leaving the table (ruling BZ60) cloaks (10.2) when an armed enemy
    could reach it with its fire this turn: cloaked, it cannot be attacked until detected. (A
    side ordered to break contact has its cloak-capable ships lurk instead: CAM 3.1 (b).)"""
    if ship.special_tried or ship.cloaked or not has(ship.abilities, "Cloak"):
        return None
    if not withdrawing(state, ship.side):
        return None
    if not any(_armed(e) and distance(ship.pos, e.pos) <= _reach(e) for e in enemies):
        return None
    return _legal(state, A.Special(ship.id, "cloak"))


def _withdraw_special(state: BattleState, ship: Ship) -> A.Special | None:
    """A withdrawing ship first tries Flank Speed (7.2), to go to Maximum Warp if it can."""
    if ship.special_tried or not ship.sd.speed or dead_in_space(ship) or ship.held or ship.landed:
        return None
    return A.Special(ship.id, "flank_speed")


def _legal(state: BattleState, action: A.Action) -> A.Action | None:
    try:
        check(state, action)
    except IllegalActionError:
        return None
    return action


def _points_near(state: BattleState, pos, side: int, reach: int) -> int:
    return sum(s.sd.points for s in state.active_ships(side) if inches(pos, s.pos) <= reach)


def _desperate(state: BattleState, ship: Ship, enemies) -> A.Special | None:
    """A ship that can do nothing more for its side trades itself dearly: Ramming Speed! (7.2)
    on the dearest enemy within 2\" it would cripple (or destroy) when that is worth more points
    than itself, else Self-Destruct! (7.2, 11.6) when more enemy than friendly points lie within
    the explosion's 1\"; a Crippled ship under the guns of an uncrippled enemy goes dark (ECM!,
    7.2) while its side still has an uncrippled armed ship to fight on. "Can do nothing more":
    no attack dice left, or Crippled with 1 hull point left, or unable to move away; never its
    side's last ship (that would give up the field)."""
    if ship.special_tried or breaking(state, ship.side):
        return None
    spent = not _armed(ship)
    doomed = spent or (ship.crippled and ship.hull <= 1)
    stuck = not ship.sd.speed or dead_in_space(ship) or ship.held or ship.landed
    last = len(state.active_ships(ship.side)) == 1  # its side's last ship would give up the field
    if (doomed or (stuck and ship.crippled)) and not last:
        prey = [e for e in enemies if inches(ship.pos, e.pos) <= RAM_RANGE and (not e.crippled or not e.sd.crippled_at)
                and e.sd.points > ship.sd.points]
        for e in sorted(prey, key=lambda e: (-e.sd.points, e.id)):
            if command(state, ship) + 6 >= A.SPECIAL_ACTIONS["ramming"]:
                action = _legal(state, A.Special(ship.id, "ramming", e.id))
                if action is not None:
                    return action
        if ship.sd.target_size <= 3:  # 11.6: a Size 4 or 5 ship's explosion hurts nobody
            theirs = sum(_points_near(state, ship.pos, other, 1) for other in state.enemies(ship.side))
            ours = _points_near(state, ship.pos, ship.side, 1) - ship.sd.points
            if theirs > ours and theirs > ship.sd.points:
                action = _legal(state, A.Special(ship.id, "self_destruct"))
                if action is not None:
                    return action
    if ship.crippled and not spent and not withdrawing(state, ship.side):
        fighting_on = any(s.id != ship.id and not s.crippled and _armed(s) for s in state.active_ships(ship.side))
        threatened = any(not e.crippled and _armed(e) and distance(ship.pos, e.pos) <= _reach(e) for e in enemies)
        if fighting_on and threatened:
            return _legal(state, A.Special(ship.id, "ecm"))
    return None


def _reach(ship: Ship) -> float:
    """How far away an enemy ship might be and still be shot at by ``ship`` this turn."""
    return allowance(ship) + max((s.range for s in systems(ship)), default=0) + 1


def _red_alert(state: BattleState, ship: Ship) -> A.Special | None:
    """Red Alert! (7.2): +1 to this turn's Damage Control for a ship with critical effects to
    repair, when it needs no other Special Action."""
    if ship.special_tried or not any(ship.crits) or breaking(state, ship.side):
        return None
    return _legal(state, A.Special(ship.id, "red_alert"))


def _special_for(state: BattleState, ship: Ship, enemies) -> A.Special | None:
    """Cloaks (10.2): uncloak within 10\" of an enemy; hunt (7.2 Cloak Hunter!) a cloaked enemy
    within 6\"."""
    if ship.special_tried or breaking(state, ship.side):
        return None
    near = min((distance(ship.pos, e.pos) for e in enemies), default=1e9)
    if ship.cloaked and near <= 10 and "Cloak" in ship.abilities:
        return A.Special(ship.id, "decloak")
    if not ship.cloaked and any(e.cloaked and distance(ship.pos, e.pos) <= 6 for e in enemies):
        return A.Special(ship.id, "cloak_hunter")
    return None


def simulate(state: BattleState, dice: Dice, max_steps: int = MAX_STEPS) -> BattleState:
    """Play to the end with the doctrine for both sides."""
    return play_out(state, dice, over=_over, choose=doctrine_action, apply=apply, max_steps=max_steps)


def _over(state: BattleState) -> bool:
    return state.over


__all__ = ["choose_fire", "choose_move", "doctrine_action", "simulate"]
