"""The Movement Phase (4.1): a ship's move, checked beside its resolution, and what it meets on
the way — mines (5.10, 7.3 Pursuit Mines), leaving the table (11.7) or for another table (11.3)
— lurking ships revealed or staying hidden (10.2), and the moves ``legal_actions`` lists.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache, partial

from .. import actions as A
from ..cam_policy import CAM
from ..geometry import EPSILON, advance, bearing, distance, norm, segment_crosses_rect, turn_degrees
from ..sds import has
from ..state import (
    ACTIVE,
    LEFT,
    LURKING,
    MINE_RULE,
    MOVEMENT,
    TRANSIT,
    BattleState,
    IllegalActionError,
    Minefield,
    Ship,
    mine_load_problem,
    with_ship,
)
from ..state import evolve as replace
from .core import SQUADRON_RULE, _Ctx, agile, allowance, dead_in_space, formation_problem, squadron, turning

MOVE_RULE = "000 4.1 Ship Movement"
LEAVE_RULE = "000 11.7 Leaving The Table"


def _check_move(state: BattleState, action: A.Move) -> None:
    if state.phase != MOVEMENT:
        raise IllegalActionError(MOVE_RULE, "ships move in the Movement Phase")
    ship = _own_ship(state, action.ship, MOVE_RULE)
    if state.nominated is not None and state.nominated != ship.id:
        raise IllegalActionError(SPECIAL_RULE, f"ship {state.nominated} attempted its Special Action and must move now")
    if ship.moved:
        raise IllegalActionError(MOVE_RULE, f"{ship.name} ({ship.id}) may only be nominated to move once each turn")
    why = move_cost_ok(ship, action)
    if why:
        raise IllegalActionError(MOVE_RULE, why)
    if action.lay_mine:
        why = mine_layer_problem(ship)
        if why:
            raise IllegalActionError(MINE_RULE, why)
    if action.sweep:
        if not has(ship.abilities, "Minesweeper"):
            raise IllegalActionError(MINE_RULE, f"{ship.name} ({ship.id}) is not a Minesweeper (7.3)")
        if action.before + action.after > SWEEP_SPEED + EPSILON:
            raise IllegalActionError(MINE_RULE, "a Minesweeper sweeps only while moving 2\" or less")
    if action.orbit is not None:
        why = orbit_problem(state, ship, action)
        if why:
            raise IllegalActionError(ORBIT_RULE, why)
    if action.web:
        if not has(ship.abilities, "Web"):
            raise IllegalActionError(WEB_RULE, f"{ship.name} ({ship.id}) cannot spin a Tholian web")
        if action.lay_mine or action.sweep or action.orbit is not None:
            raise IllegalActionError(WEB_RULE, "a ship spinning a web moves as if laying a minefield: no mine, "
                                     "sweep or orbit besides")
    if CAM.breaking(state, ship.side):
        why = CAM.retreat_problem(state, ship, action)
        if why:
            raise IllegalActionError(CAM.RETREAT_RULE, why)
    why = web_block(state, [(ship.pos, _end_of(ship, action, state))] if action.orbit is not None
                    else _legs(ship, action)) if state.webs else None
    if why:
        raise IllegalActionError(WEB_RULE, why)
    why = formation_problem(state, ship, _end_of(ship, action, state))
    if why:
        raise IllegalActionError(SQUADRON_RULE, why)


def _do_move(state: BattleState, action: A.Move, ctx: _Ctx) -> BattleState:
    ship = state.ship(action.ship)
    w, h = state.table
    start = pos = ship.pos
    heading = ship.heading
    legs = []
    left = False
    if action.orbit is not None:
        return _do_orbit(state, ship, action, ctx)
    home_table = state.table_of(start)
    if action.before:
        pos = advance(pos, heading, action.before)
        legs.append((start, pos))
        left = left or state.table_of(pos) != home_table
    heading = norm(heading + turn_degrees(action.turn))
    if action.after:
        end = advance(pos, heading, action.after)
        legs.append((pos, end))
        pos = end
        left = left or state.table_of(pos) != home_table
    heading = norm(heading + turn_degrees(action.turn_end))
    moved = action.before + action.after
    if action.lay_mine:
        state = _lay_mine(state, ship, ctx)
        ship = state.ship(ship.id)
    ship = replace(ship, pos=pos, heading=heading, moved=True, moved_inches=moved, sweeping=action.sweep,
                   shields_lowered=ship.shields_lowered or action.lower_shields, weaving=action.web)
    text = (f"{ship.name} ({ship.id}) moves {moved:g}\" (turning {action.turn:+d}"
            + (f", {action.turn_end:+d}" if action.turn_end else "") + f") to ({pos[0]:g}, {pos[1]:g}) heading "
            f"{heading:g}")
    if left and ship.hyperspace:
        left = False  # 11.8: it must drop out onto the table next turn, or it has left (checked then)
    to_table = _transit_to(state, ship, home_table, legs) if left else None
    if to_table is not None:
        entry = (to_table * state.pitch + (0.0 if to_table > home_table else w), min(max(pos[1], 0.0), float(h)))
        entry = (round(entry[0], 4), round(entry[1], 4))
        ship = replace(ship, status=TRANSIT, pos=entry, emerge=state.turn + TRANSIT_TURNS + 1)
        text += f"; it leaves for table {to_table + 1}: in transit, it emerges on turn {ship.emerge} ({MULTI_RULE})"
        left = False
        transit = True
    else:
        transit = False
    if left:
        ship = replace(ship, status=LEFT)
        text += f"; it leaves the table and the battle ({LEAVE_RULE})"
    ctx.log("move", text, ship=ship.id, pos=list(pos), heading=heading, left=left, transit=transit)
    state = replace(with_ship(state, ship), nominated=None)
    if ship.tractor is not None and ship.tractor[1] == "tow":
        towed = state.ship(ship.tractor[0])
        if towed.active:
            dx, dy = pos[0] - start[0], pos[1] - start[1]
            tpos = (round(towed.pos[0] + dx, 4), round(towed.pos[1] + dy, 4))
            towed = replace(towed, pos=tpos, status=towed.status if state.table_of(tpos) == state.table_of(towed.pos)
                            else LEFT)
            state = with_ship(state, towed)
            ctx.log("towed", f"{towed.name} ({towed.id}) is towed to ({tpos[0]:g}, {tpos[1]:g})", ship=towed.id)
    if left or transit:
        state = replace(state, torpedoes=tuple(t for t in state.torpedoes if t.target != ship.id))
    crossed = [f for f in state.minefields if f.id not in ship_new_fields(state, ship)
               and any(segment_crosses_rect(a, b, f.centre, f.heading, f.length, f.width) for a, b in legs)]
    if crossed and not ship.hyperspace:
        state = _through_mines(state, ship.id, crossed, moved, action.sweep, ctx)
    if action.web and state.ship(ship.id).active:
        state = _spin_web(state, state.ship(ship.id), ctx)
    return _after_nomination(state, ship.side, ctx, ship.id)


def handle_move(state: BattleState, action: A.Move) -> Callable[[_Ctx], BattleState]:
    """4.1: a ship's move: checked now (an ``IllegalActionError`` rolls nothing); the closure resolves it."""
    _check_move(state, action)
    return partial(_do_move, state, action)


def move_cost_ok(ship: Ship, action: A.Move) -> str | None:
    """Why ``action`` is not a legal move for ``ship`` (4.1, 7.3 Agile), or None."""
    for what in ("before", "after"):
        value = getattr(action, what)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
            return f"'{what}' must be a distance of 0 inches or more, not {value!r}"
    for what in ("turn", "turn_end"):
        if not isinstance(getattr(action, what), int) or isinstance(getattr(action, what), bool):
            return f"'{what}' must be a whole number of turning points"
    allow = allowance(ship)
    if ship.sd.speed is None:
        if action.before or action.after or action.turn or action.turn_end:
            return f"{ship.name} ({ship.id}) is a station or base and does not move"
        return None
    if dead_in_space(ship) or ship.held or ship.landed:
        if action.before or action.after or action.turn or action.turn_end:
            return (f"{ship.name} ({ship.id}) is held in place by a tractor beam" if ship.held
                    else f"{ship.name} ({ship.id}) has landed; it takes off before it moves" if ship.landed
                    else f"{ship.name} ({ship.id}) is dead in space (its move is below 1\")")
        return None
    t = turning(ship)
    if agile(ship):
        if action.turn and action.before > EPSILON:
            return "an Agile ship's first turn is made right at the start of its move (7.3)"
    elif action.turn_end:
        return "only an Agile ship turns twice (7.3); a ship turns once in its move"
    for what in ("turn", "turn_end"):
        if abs(getattr(action, what)) > t:
            return f"a turn of {abs(getattr(action, what))} points is more than {ship.name}'s Turning {t}"
    points = abs(action.turn) + abs(action.turn_end)
    forward = action.before + action.after
    room = max(0.0, allow - points)  # 4.1: each point turned costs 1"; extra turns are free
    if forward > room + EPSILON:
        return (f"moving {forward:g}\" after turning {points} point(s) is more than the {room:g}\" left of "
                f"{ship.name}'s {allow:g}\" move")
    return None


def _end_of(ship: Ship, m: A.Move, state: BattleState | None = None):
    if m.orbit is not None and state is not None:
        return _orbit_end(state, ship, m.orbit)[0]
    pos = advance(ship.pos, ship.heading, m.before) if m.before else ship.pos
    if m.after:
        pos = advance(pos, norm(ship.heading + turn_degrees(m.turn)), m.after)
    return pos


def _legs(ship: Ship, m: A.Move) -> list:
    """The straight legs a move travels (an orbit's ½\" arc as its chord)."""
    legs = []
    pos = ship.pos
    if m.before:
        nxt = advance(pos, ship.heading, m.before)
        legs.append((pos, nxt))
        pos = nxt
    if m.after:
        legs.append((pos, advance(pos, norm(ship.heading + turn_degrees(m.turn)), m.after)))
    return legs


MINE_HIT = 4  # 5.10 "On a resultant score of 4 or above the ship has hit a mine"
SWEEP_SPEED = 2.0  # 5.10 "if they are moving at 2\" or less per turn"
MINE_FAST = 3.0  # 5.10 "+1 if moving more than 3\" that turn"
PURSUIT_SIZE = 3  # 7.3 "a Romulan ship of Class 3 size or larger" (Size 3 down to 0)


def pursuit_mine_ready(ship: Ship) -> bool:
    """7.3 Romulan Pursuit Mines: one, free, for a ship with the ability of Size 3 or larger
    (target size 3 or less; ruling BZ97) that has not laid it yet."""
    return (has(ship.abilities, "Pursuit Mine") and "pursuit_mine" not in ship.spent
            and ship.sd.target_size <= PURSUIT_SIZE)


def mine_layer_problem(ship: Ship) -> str | None:
    """5.10: Size 3 and smaller capable vessels, 1 mine a turn from the 6 they carry, and no
    torpedoes besides (``mine_load_problem``); 7.3 Romulan Pursuit Mines (ruling BZ33)."""
    if pursuit_mine_ready(ship):
        return None
    if ship.mines <= 0:
        if has(ship.abilities, "Pursuit Mine") and ship.sd.target_size > PURSUIT_SIZE:
            return (f"Pursuit Mines are laid by Romulan ships of Class 3 size or larger (7.3); {ship.name} is Size "
                    f"{ship.sd.target_size}, and it carries no mines")
        return f"{ship.name} ({ship.id}) carries no mines"
    if ship.sd.target_size < 3:
        return f"only Size 3 and smaller vessels lay mines; {ship.name} is Size {ship.sd.target_size}"
    return mine_load_problem(ship.sd, ship.mines)


def ship_new_fields(state: BattleState, ship: Ship) -> frozenset[int]:
    """The mine the ship laid in this very move is behind it (ruling BZ33)."""
    return frozenset(f.id for f in state.minefields if f.id == -ship.id * 1000 - state.turn)


def _lay_mine(state: BattleState, ship: Ship, ctx: _Ctx) -> BattleState:
    """A 1\" by ½\" notional mine, its long side across the ship's heading, just astern of it."""
    pursuit = pursuit_mine_ready(ship)
    centre = advance(ship.pos, ship.heading, -0.5)
    field = Minefield(-ship.id * 1000 - state.turn, ship.side, centre, ship.heading)
    if pursuit:
        ship = replace(ship, spent=ship.spent + ("pursuit_mine",))
    else:
        ship = replace(ship, mines=ship.mines - 1)
    ctx.log("mine_laid", f"{ship.name} ({ship.id}) lays {'a Pursuit Mine' if pursuit else 'a mine'} at "
            f"({centre[0]:g}, {centre[1]:g}) ({MINE_RULE})", ship=ship.id, field=field.id, pursuit=pursuit)
    return replace(with_ship(state, ship), minefields=state.minefields + (field,))


def _through_mines(state: BattleState, ship_id: int, fields, moved: float, sweep: bool, ctx: _Ctx) -> BattleState:
    """5.10: sweep them (a Minesweeper at 2\" or less), or a D6 for each field passed through,
    +1 per row, +1 if moving more than 3\": 4+ hits a mine, three torpedo dice (5.9)."""
    if sweep:
        ids = {f.id for f in fields}
        ctx.log("mines_swept", f"Ship {ship_id} sweeps {len(ids)} minefield(s) ({MINE_RULE})", ship=ship_id,
                fields=sorted(ids))
        return replace(state, minefields=tuple(f for f in state.minefields if f.id not in ids))
    for f in fields:
        ship = state.ship(ship_id)
        if not ship.active:
            break
        face = ctx.roll(1, f"{MINE_RULE}: ship {ship_id} through minefield {f.id}")[0]
        score = face + f.rows + (1 if moved > MINE_FAST + EPSILON else 0)
        hit = score >= MINE_HIT
        ctx.log("minefield", f"{ship.name} ({ship_id}) moves through a minefield: {face}+{score - face} = {score}"
                f"{': it hits a mine' if hit else ''}", ship=ship_id, field=f.id, score=score, hit=hit)
        if not hit:
            continue
        faces = ctx.roll(3, f"{MINE_RULE}: mine hit on {ship_id}")
        hits = torpedo_hits(faces, "mine", ship.sd.target_size)
        ctx.log("mine_attack", f"Mine attack dice {list(faces)} against Size {ship.sd.target_size}: {hits} hit(s)",
                ship=ship_id, faces=list(faces), hits=hits)
        ahead = advance(ship.pos, ship.heading, 1.0)  # ruling BZ33: its fore shields meet the mine
        state = damage(state, ship_id, hits, ahead, ctx)
    return state


MULTI_RULE = "000 11.3 Using Multi-Tables"
TRANSIT_TURNS = 2  # 11.3: "leaves it's table on turn 1 and spends turn 2 and 3 'in transit', then emerges upon turn 4"


def _transit_to(state: BattleState, ship: Ship, home: int | None, legs) -> int | None:
    """11.3 (ruling BZ82): a Warp (or Hyperspace) capable ship, not breaking contact, that leaves
    its table by its east or west edge where a neighbouring table lies goes there in transit."""
    if state.tables < 2 or home is None or ship.hyperspace or CAM.breaking(state, ship.side):
        return None
    if not (has(ship.abilities, "Warp") or has(ship.abilities, "Hyperspace")):
        return None
    w, h = state.table
    x0 = home * state.pitch
    for a, b in legs:
        for p in (a, b):
            if not -EPSILON <= p[1] <= h + EPSILON:
                return None  # off the north or south edge first: it has left
            if p[0] > x0 + w + EPSILON:
                return home + 1 if home + 1 < state.tables else None
            if p[0] < x0 - EPSILON:
                return home - 1 if home >= 1 else None
    return None


def _emerge(state: BattleState, turn: int, ctx: _Ctx) -> BattleState:
    """11.3: ships in transit emerge onto their new table at the start of the turn they arrive."""
    for ship in state.ships:
        if ship.status == TRANSIT and ship.emerge <= turn:
            state = with_ship(state, replace(ship, status=ACTIVE, emerge=0))
            ctx.log("transit", f"{ship.name} ({ship.id}) emerges on table {state.table_of(ship.pos) + 1} at "
                    f"({ship.pos[0]:g}, {ship.pos[1]:g}) ({MULTI_RULE})", ship=ship.id, table=state.table_of(ship.pos))
    return state


LURK_RULE = "000 10.2 Deployment (lurking)"


def _check_reveal(state: BattleState, action: A.Reveal) -> None:
    if state.phase != MOVEMENT:
        raise IllegalActionError(LURK_RULE, "lurking ships are revealed at the start of a Movement Phase")
    ship = state.ship(action.ship)
    if ship.status != LURKING:
        raise IllegalActionError(LURK_RULE, f"{ship.name} ({ship.id}) is not lurking")
    if ship.side != state.acting:
        raise IllegalActionError(TURN_RULE, f"it is side {state.acting}'s turn to nominate, not side {ship.side}'s")
    if CAM.breaking(state, ship.side):
        raise IllegalActionError(CAM.LURK_RULE, f"{ship.name} ({ship.id}) lurks under a 'break contact' order: it has "
                                 "broken contact (ruling BZ52)")
    if state.nominated is not None or (state.squadron_next and ship.id not in state.squadron_next):
        raise IllegalActionError(TURN_RULE, "another ship is being nominated now")
    if ship.moved:
        raise IllegalActionError(LURK_RULE, f"{ship.name} ({ship.id}) has been nominated this turn")
    at, heading = action.at, action.heading
    if not (isinstance(at, tuple) and len(at) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                          and math.isfinite(v) for v in at)):
        raise IllegalActionError(LURK_RULE, f"'at' must be a point (x, y) in inches, not {at!r}")
    if not isinstance(heading, (int, float)) or isinstance(heading, bool) or not math.isfinite(heading):
        raise IllegalActionError(LURK_RULE, f"'heading' must be degrees, not {heading!r}")
    rect = state.zone_rect(ship.zone) if ship.zone is not None else None
    if rect is None or not (
        rect[0] - EPSILON <= at[0] <= rect[2] + EPSILON and rect[1] - EPSILON <= at[1] <= rect[3] + EPSILON
    ):
        raise IllegalActionError(LURK_RULE, f"{ship.name} ({ship.id}) is revealed within its square {list(ship.zone)}")


def _do_reveal(state: BattleState, action: A.Reveal, ctx: _Ctx) -> BattleState:
    """10.2 (ruling BZ53): placed where its player wishes in its square, cloaked; it has been
    nominated to move and moves now (revealing is its Special Action for the turn)."""
    ship = state.ship(action.ship)
    at = (round(float(action.at[0]), 4), round(float(action.at[1]), 4))
    ship = replace(ship, status=ACTIVE, pos=at, heading=norm(float(action.heading)), zone=None, cloaked=True,
                   detected=False, special_tried="reveal")
    ctx.log("reveal", f"{ship.name} ({ship.id}) is revealed, cloaked, at ({at[0]:g}, {at[1]:g}) ({LURK_RULE})",
            ship=ship.id, pos=list(at))
    return replace(with_ship(state, ship), nominated=ship.id)


def handle_reveal(state: BattleState, action: A.Reveal) -> Callable[[_Ctx], BattleState]:
    """10.2: a lurking ship revealed: checked now (an ``IllegalActionError`` rolls nothing); the closure resolves it."""
    _check_reveal(state, action)
    return partial(_do_reveal, state, action)


def _check_lurk(state: BattleState, action: A.Lurk) -> None:
    if state.phase != MOVEMENT:
        raise IllegalActionError(LURK_RULE, "a ship is nominated to lurk in the Movement Phase")
    ship = state.ship(action.ship)
    if ship.status == LURKING:
        _check_reveal(state, A.Reveal(ship.id, ship.pos))  # the same nomination checks
        return
    ship = _own_ship(state, action.ship, HYPER_RULE)
    if not ship.hyperspace:
        raise IllegalActionError(LURK_RULE, f"{ship.name} ({ship.id}) is on the table: once revealed a cloaked "
                                 "vessel may not return to lurking (10.2)")
    if state.nominated is not None and state.nominated != ship.id:
        raise IllegalActionError(SPECIAL_RULE, f"ship {state.nominated} must move now")
    if ship.moved:
        raise IllegalActionError(MOVE_RULE, f"{ship.name} ({ship.id}) may only be nominated to move once each turn")


def _do_lurk(state: BattleState, action: A.Lurk, ctx: _Ctx) -> BattleState:
    ship = state.ship(action.ship)
    if ship.status == LURKING:
        ctx.log("lurk", f"Side {ship.side}'s lurking ship {ship.id} stays hidden ({LURK_RULE})", ship=ship.id)
        state = with_ship(state, replace(ship, moved=True))
    else:
        ctx.log("lurk", f"{ship.name} ({ship.id}) lurks stationary in hyperspace ({HYPER_RULE})", ship=ship.id)
        state = with_ship(state, replace(ship, moved=True, moved_inches=0.0, hyper_lurk=True))
    return _after_nomination(replace(state, nominated=None), ship.side, ctx)


def handle_lurk(state: BattleState, action: A.Lurk) -> Callable[[_Ctx], BattleState]:
    """10.2, 11.8: a ship staying hidden: checked now (an ``IllegalActionError`` rolls nothing); the closure
    resolves it."""
    _check_lurk(state, action)
    return partial(_do_lurk, state, action)


def lurk_options(state: BattleState, ship: Ship) -> list[A.Action]:
    """Stay hidden; or reveal at the centre of its square, or at the point of the square nearest
    the nearest enemy, bow toward it (a representative list; ``apply`` takes any point in it)."""
    out: list[A.Action] = [A.Lurk(ship.id)]
    x0, y0, x1, y1 = state.zone_rect(ship.zone)
    centre = (round((x0 + x1) / 2, 4), round((y0 + y1) / 2, 4))
    enemies = state.enemy_ships(ship.side)
    if enemies:
        e = min(enemies, key=lambda e: (distance(centre, e.pos), e.id))
        near = (min(max(e.pos[0], x0), x1), min(max(e.pos[1], y0), y1))
        for at in (centre, near):
            out.append(A.Reveal(ship.id, at, round(bearing(at, e.pos), 4) if distance(at, e.pos) > 1e-6 else 0.0))
    else:
        out.append(A.Reveal(ship.id, centre, 0.0))
    return out


def _down(x: float) -> float:
    """``x`` to 4 places, never above it (so a listed move never exceeds the allowance)."""
    return math.floor(x * 10000 + 1e-7) / 10000


def move_options(ship: Ship) -> list[A.Move]:
    """A finite, representative list of legal moves (whole inches, and the full remaining
    move; turning at the start, the middle or the end). ``apply`` accepts any legal move."""
    if ship.sd.speed is None or dead_in_space(ship) or ship.held or ship.landed:
        return [A.Move(ship.id)]
    return list(_move_table(ship.id, allowance(ship), turning(ship), agile(ship)))


@lru_cache(maxsize=4096)
def _move_table(ship_id: int, allow: float, t: int, is_agile: bool, extra: str = "") -> tuple[A.Move, ...]:
    """``move_options`` for a ship that moves: they depend only on its allowance, Turning and
    agility, so they are worked out once for each (frozen ``Move`` values, shared). ``extra``
    adds the mine-laying ("lay") and sweeping ("sweep") variants ``ship_moves`` lists."""
    if extra:
        base = _move_table(ship_id, allow, t, is_agile)
        more: list[A.Move] = []
        if "lay" in extra:
            more += [replace(m, lay_mine=True) for m in base if m.turn == 0 and not m.turn_end]
        if "sweep" in extra:
            more += [replace(m, sweep=True) for m in base if m.before + m.after <= SWEEP_SPEED + EPSILON]
        return base + tuple(more)
    template = A.Move(ship_id)
    # each a Move(ship_id, before, turn, after, turn_end), made as ``state.evolve`` makes a copy
    return tuple(
        replace(template, before=b, turn=tn, after=a, turn_end=te)
        for b, tn, a, te in _move_shapes(allow, t, is_agile)
    )


@lru_cache(maxsize=1024)
def _move_shapes(allow: float, t: int, is_agile: bool) -> tuple[tuple[float, int, float, int], ...]:
    """(before, turn, after, turn_end) of each move in ``move_options``, whatever the ship."""
    out: list[tuple[float, int, float, int]] = []
    seen = set()

    def add(shape: tuple[float, int, float, int]) -> None:  # legal by construction (the property tests check every one)
        if shape not in seen:
            seen.add(shape)
            out.append(shape)

    ends = (-t, 0, t) if is_agile else (0,)
    for turn in range(-t, t + 1):
        for end in ends:
            room = max(0.0, allow - abs(turn) - abs(end))
            dists = sorted({float(d) for d in range(int(room + EPSILON) + 1)} | {_down(room)})
            for d in dists:
                if is_agile:
                    add((0.0, turn, d, end))
                elif turn == 0:
                    add((0.0, 0, d, 0))
                else:
                    add((0.0, turn, d, 0))
                    add((d, turn, 0.0, 0))
                    if d:
                        add((_down(d / 2), turn, _down(d / 2), 0))
    return tuple(out)


def ship_moves(state: BattleState, ship: Ship) -> list[A.Move]:
    """``move_options`` less those a ship breaking contact may not make (CAM 3.1 a)."""
    extra = ("lay" if mine_layer_problem(ship) is None else "") + (
        "sweep" if has(ship.abilities, "Minesweeper") else ""
    )
    if extra and not (ship.sd.speed is None or dead_in_space(ship) or ship.held or ship.landed):
        options = list(_move_table(ship.id, allowance(ship), turning(ship), agile(ship), extra))
    else:
        base = move_options(ship)
        options = list(base)
        if "lay" in extra:
            options += [replace(m, lay_mine=True) for m in base if m.turn == 0 and not m.turn_end]
        if "sweep" in extra:
            options += [replace(m, sweep=True) for m in base if m.before + m.after <= SWEEP_SPEED + EPSILON]
    if has(ship.abilities, "Web"):
        options += [replace(m, web=True) for m in move_options(ship) if m.turn == 0 and not m.turn_end]
    if state.objects:
        options += orbit_options(state, ship)
    if state.webs:
        options = [m for m in options if web_block(state, [(ship.pos, _end_of(ship, m, state))] if m.orbit is not None
                                                   else _legs(ship, m)) is None]
    if CAM.breaking(state, ship.side):
        options = [m for m in options if CAM.retreat_problem(state, ship, m) is None]
    if len(squadron(state, ship)) > 1:
        options = [m for m in options if formation_problem(state, ship, _end_of(ship, m, state)) is None]
    return options


# The other phases of the turn, imported last: the phases call one another (the sequence
# calls each phase; a phase hands the turn back to the sequence), and by now every name
# of this module is defined for them.
from .damage import damage  # noqa: E402
from .sequence import TURN_RULE, _after_nomination, _own_ship  # noqa: E402
from .specials import HYPER_RULE, SPECIAL_RULE  # noqa: E402
from .terrain import (  # noqa: E402
    ORBIT_RULE,
    WEB_RULE,
    _do_orbit,
    _orbit_end,
    _spin_web,
    orbit_options,
    orbit_problem,
    web_block,
)
from .torpedoes import torpedo_hits  # noqa: E402
