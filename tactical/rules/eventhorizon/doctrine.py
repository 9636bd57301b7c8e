"""The computer doctrine: plays any side of a tactical battle sensibly, and ``simulate`` plays
doctrine against doctrine to the end.

Pure Python and deterministic: the doctrine rolls no dice (ties are broken by ship id and
square), so with the same seed ``simulate`` plays the same battle. What it does, in order, for
an activated ship:

* helpless (no power): restore power; landed: launch; a shuttle: go to warp (save the crew);
* outmatched (its side's firepower and hull below a third of the enemy's and itself badly
  hurt), or no weapons left: go to warp;
* evade when weak: declares evasive manoeuvres below half hull, stops them when restored;
* regenerate force fields when a field is down by 3 or more, or by any amount with no enemy
  within reach;
* close to its best range (close range for lasers, particle accelerators and EMP cannons, and
  for a ship with any of them whose target can close from long range itself, ruling TC30;
  2–3 squares for missile and fighter ships, 3 against enemies with short-range weapons), then
  turn its strongest force field towards the enemy with the free turns it has left;
* focus fire: every weapon at the enemy in reach with the least hull and force field left,
  the rest at the next; the planetary bombardment array at enemy planets;
* board: teleport a boarding party onto an adjacent enemy whose facing field is down.

Which ship to activate: one with an ongoing boarding action (it is compulsory), one without
power, then the ship with the best shot, then the one nearest the enemy.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from campaign.rules.dice import Dice
from tactical.rules.kit import play_out

from . import actions as A
from .engine import (
    _hidden_occupant,
    _terrain,
    apply,
    check,
    draw_card,
    is_over,
    move_allowance,
    shot_clear,
    trace_path,
)
from .geometry import (
    FORWARD,
    STEP_TOKENS,
    Coord,
    arc_of,
    distance,
    move_cost,
    relative,
    step_offset,
    turn,
)
from .state import (
    ACTIVE,
    BLACK_HOLE,
    LANDED,
    PBA,
    SUN,
    WEAPON_DAMAGE,
    WEAPON_RANGES,
    BattleState,
    IllegalActionError,
    TacticalShip,
)

SHORT_ONLY = frozenset(k for k, r in WEAPON_RANGES.items() if r == {"close"})
# Ruling TC30: from long range (3 squares) two movement points bring a ship to close range.
CLOSING_MOVE = 2


# Per-loadout figures (a ship's ``weapons`` tuple), computed once.

@lru_cache(maxsize=4096)
def _reaching(weapons: tuple[str, ...], band: str) -> tuple[str, ...]:
    """The weapon systems (not the PBA) of ``weapons`` that reach ``band``, in order."""
    return tuple(k for k in weapons if k != PBA and band in WEAPON_RANGES[k])


@lru_cache(maxsize=4096)
def _firepower(weapons: tuple[str, ...]) -> int:
    return sum(WEAPON_DAMAGE[k] for k in weapons)


@lru_cache(maxsize=4096)
def _short_long(weapons: tuple[str, ...]) -> tuple[int, int, bool]:
    """(damage of the close-range-only systems, of the others but the PBA, any close-range-only)."""
    short = sum(WEAPON_DAMAGE[k] for k in weapons if k in SHORT_ONLY)
    long_ = sum(WEAPON_DAMAGE[k] for k in weapons if k not in SHORT_ONLY and k != PBA)
    return short, long_, any(k in SHORT_ONLY for k in weapons)


@lru_cache(maxsize=4096)
def _armed(weapons: tuple[str, ...]) -> bool:
    """Any weapon system but the PBA."""
    return any(k != PBA for k in weapons)


# Look-ups that depend only on the ships and the table are kept in ``state.derived`` (shared by
# the states of one battle until a ship or the table changes), keyed by a tuple naming them.

def _enemies(state: BattleState, side: int) -> list[TacticalShip]:
    """The enemy ships on the table (a cached list: do not change it)."""
    cache = state.derived
    key = ("enemies", side)
    out = cache.get(key)
    if out is None:
        out = cache[key] = [s for s in state.ships if s.side != side and s.status == ACTIVE and not s.stealth_engaged]
    return out


def _power(ships) -> int:
    return sum(max(s.hull, 0) + _firepower(s.weapons) + (s.ff_strength if any(s.generators) else 0)
               for s in ships if not s.shuttle)


def _outmatched(state: BattleState, ship: TacticalShip) -> bool:
    if not _armed(ship.weapons) and not _enemy_planets(state, ship.side):
        return True
    if ship.hull * 2 > ship.design.hull:
        return False
    cache = state.derived
    key = ("power", ship.side)
    powers = cache.get(key)
    if powers is None:
        mine = _power(s for s in state.ships if s.side == ship.side and s.in_play)
        theirs = _power(s for s in state.ships if s.side != ship.side and s.in_play)
        powers = cache[key] = (mine, theirs)
    mine, theirs = powers
    return mine * 3 < theirs and ship.hull * 2 <= ship.design.hull


def _enemy_planets(state: BattleState, side: int):
    return [p for p in state.planets if p.owner is not None and p.owner != side and p.status != "destroyed"]


def _weak(ship: TacticalShip) -> bool:
    return ship.hull * 2 < ship.design.hull


def _threat_range(ship: TacticalShip) -> int:
    return max(ship.movement, 0) + 3


def _shots_at(state: BattleState, ship: TacticalShip, target: TacticalShip) -> tuple[str, ...]:
    """The weapons (not the PBA) that could lock on ``target`` now (the engine's own checks)."""
    (x, y), (tx, ty) = ship.pos, target.pos
    d = max(abs(x - tx), abs(y - ty))
    if d > 3 or target.status != ACTIVE or target.stealth_engaged or target.side == ship.side:
        return ()
    band = "close" if d <= 1 else "long"
    keys = _reaching(ship.weapons, band)
    if keys and not shot_clear(state, ship, target.pos, band):
        return ()
    return keys


def _target_value(state: BattleState, ship: TacticalShip, target: TacticalShip) -> tuple:
    arc = arc_of(target.pos, target.facing, ship.pos)
    ff = target.force_fields[arc] if (target.generators[arc] and target.power) else 0
    return (target.shuttle, target.hull + ff, target.id)


def _fire_plan(state: BattleState, ship: TacticalShip) -> tuple[tuple[str, int | str], ...]:
    options = []
    for enemy in _enemies(state, ship.side):
        keys = _shots_at(state, ship, enemy)
        if keys:
            options.append((_target_value(state, ship, enemy), enemy, keys))
    options.sort(key=lambda o: o[0])
    shots: list[tuple[str, int | str]] = []
    left = [k for k in ship.weapons if k != PBA]
    for _, enemy, keys in options:
        use = []
        for k in keys:
            if k in left:
                left.remove(k)
                use.append(k)
        shots += [(k, enemy.id) for k in use]
    pbas = ship.weapons.count(PBA)
    if pbas:
        for planet in _enemy_planets(state, ship.side):
            try:
                check(state, A.Fire(ship.id, ((PBA, planet.id),)))
            except IllegalActionError:
                continue
            shots += [(PBA, planet.id)] * pbas
            break
    return tuple(shots)


def _preferred_range(state: BattleState, ship: TacticalShip, target: TacticalShip) -> int:
    short, long_, _ = _short_long(ship.weapons)
    if short > 0 and (short >= long_ or move_allowance(state, target) >= CLOSING_MOVE):
        # Ruling TC30: standing off at 2-3 squares keeps the close-range-only weapons silent and
        # spares the ship nothing from a target that closes the two squares itself when next
        # activated (003 Ranges; Movement): with any such weapon it closes in too.
        return 1
    if _short_long(target.weapons)[2]:
        return 3
    return 2


def _pick_target(state: BattleState, ship: TacticalShip) -> TacticalShip | None:
    enemies = _enemies(state, ship.side)
    if not enemies:
        return None
    reach = max(ship.movement, 0) + 3
    x, y = ship.pos
    best = None
    for e in enemies:
        ex, ey = e.pos
        d = max(abs(x - ex), abs(y - ey))
        key = (d - reach if d > reach else 0, e.shuttle, e.hull + max(e.force_fields), d, e.id)
        if best is None or key < best[0]:
            best = (key, e)
    return best[1]


@lru_cache(maxsize=16)
def _ring(want: int) -> tuple[Coord, ...]:
    """The offsets exactly ``want`` squares away."""
    return tuple((dx, dy) for dy in range(-want, want + 1) for dx in range(-want, want + 1)
                 if max(abs(dx), abs(dy)) == want)


def _clear_from(state: BattleState, ship: TacticalShip, c: Coord, target: TacticalShip, band: str) -> bool:
    """Whether the ship could fire at ``target`` from square ``c`` (line of fire, clouds, sensors)."""
    if not state.field.terrain:
        return band == "close" or ship.sensors
    return shot_clear(state, ship if c == ship.pos else replace(ship, pos=c), target.pos, band)


def _goal(state: BattleState, ship: TacticalShip, target: TacticalShip, want: int) -> Coord | None:
    """The square ``want`` squares from the target to make for: one with a clear shot at it
    first (no anomaly in the line of fire, no particle cloud for long range), then the nearest."""
    band = "close" if want <= 1 else "long"
    best = None
    tx, ty = target.pos
    x, y = ship.pos
    occupied = state.occupied
    width, height = state.field.width, state.field.height
    terrain = state.field.terrain
    no_shot = not (band == "close" or ship.sensors)  # on an open table, the same everywhere
    sid = ship.id
    for dx, dy in _ring(want):
        c = (tx + dx, ty + dy)
        cx, cy = c
        if not (0 <= cx < width and 0 <= cy < height):
            continue
        if terrain and _terrain(state, c) in (SUN, BLACK_HOLE):
            continue
        if occupied.get(c, sid) != sid:
            continue
        ex, ey = cx - x, cy - y
        blocked = not _clear_from(state, ship, c, target, band) if terrain else no_shot
        key = (blocked, max(abs(ex), abs(ey)), ex * ex + ey * ey, c)
        if best is None or key < best:
            best = key
    return best[3] if best else None


# For each facing: (index, token, dx, dy) of the steps F, FL, FR.
_STEPS = tuple(tuple((i, tok) + step_offset(f, tok) for i, tok in enumerate(STEP_TOKENS)) for f in range(4))


def _greedy_path(state: BattleState, ship: TacticalShip, goal: Coord, allowance: int) -> list[str]:
    pos, facing = ship.pos, ship.facing
    gx, gy = goal
    width, height, terrain = state.field.width, state.field.height, state.field.terrain
    tokens: list[str] = []
    steps = turns = 0
    while pos != goal:
        best = None
        px, py = pos
        for i, tok, dx, dy in _STEPS[facing]:
            cx, cy = px + dx, py + dy
            if not (0 <= cx < width and 0 <= cy < height):
                continue
            c = (cx, cy)
            if terrain and _terrain(state, c) == BLACK_HOLE:
                continue
            ex, ey = cx - gx, cy - gy
            key = (max(abs(ex), abs(ey)), ex * ex + ey * ey, i)
            if best is None or key < best[0]:
                best = (key, tok, c)
        ex, ey = px - gx, py - gy
        here = (max(abs(ex), abs(ey)), ex * ex + ey * ey)
        if best is not None and best[0][:2] < here:
            if max(steps + 1, turns) > allowance:
                break
            tokens.append(best[1])
            steps += 1
            pos = best[2]
            continue
        if max(steps, turns + 1) > allowance or turns > steps + 2:
            break
        _, right = relative(facing, (goal[0] - pos[0], goal[1] - pos[1]))
        tok = "L" if right < 0 else "R"
        tokens.append(tok)
        turns += 1
        facing = turn(facing, tok)
    return tokens


# The extra turns tried, each with the quarter turns clockwise it makes.
_FINAL_TURNS = (((), 0), (("L",), 3), (("R",), 1), (("R", "R"), 2))


def _final_turns(state: BattleState, ship: TacticalShip, pos: Coord, facing: int, tokens: list[str],
                 target: TacticalShip, allowance: int) -> list[str]:
    """Spend free turns presenting the strongest force field (a PBA ship: its bow) to the target."""
    steps = sum(1 for t in tokens if t in STEP_TOKENS)
    turns = len(tokens) - steps
    planets = _enemy_planets(state, ship.side) if PBA in ship.weapons else None
    aim = planets[0].squares[0] if planets else None
    fields, generators = ship.force_fields, ship.generators
    best_score, best = None, ()
    for extra, quarter in _FINAL_TURNS:
        if max(steps, turns + len(extra)) > allowance:
            continue
        f = (facing + quarter) % 4
        if aim is not None:
            score = 10 if arc_of(pos, f, aim) == FORWARD else 0
        else:
            arc = arc_of(pos, f, target.pos)
            score = fields[arc] if generators[arc] else -1
        if best_score is None or score > best_score:
            best_score, best = score, extra
    return list(best)


def _move_plan(state: BattleState, ship: TacticalShip) -> A.Move | None:
    target = _pick_target(state, ship)
    if target is None:
        return None
    # Without sensors only a manual lock at close range is possible (003 Lock On).
    want = _preferred_range(state, ship, target) if ship.sensors else 1
    d = distance(ship.pos, target.pos)
    allowance = move_allowance(state, ship)
    if allowance <= 0:
        return None
    if d == want and _shots_at(state, ship, target):
        goal = ship.pos
    else:
        # Ruling TC23's card cap is a last resort: at its range with no clear shot (an anomaly
        # or a particle cloud in the way) the ship looks for one, or else closes in.
        goal = _goal(state, ship, target, want)
        if want > 1 and (goal is None or not _clear_from(state, ship, goal, target, "long")):
            goal = _goal(state, ship, target, 1) or goal
    tokens = _greedy_path(state, ship, goal, allowance) if goal is not None and goal != ship.pos else []
    # Follow the path as far as it is legal (a cloud or wormhole ends it; an occupied end square
    # or a sun shortens it).
    while True:
        pos, facing = ship.pos, ship.facing
        ok = True
        for t in tokens:
            if t in STEP_TOKENS:
                dx, dy = step_offset(facing, t)
                pos = (pos[0] + dx, pos[1] + dy)
            else:
                facing = turn(facing, t)
        extra = _final_turns(state, ship, pos, facing, tokens, target, allowance)
        path = tuple(tokens + extra)
        if not path:
            return None
        try:
            end = trace_path(state, ship, path)[0]
            # The doctrine plays with the whole table in view and, as before ruling TC29, keeps
            # clear of a hidden ship's square rather than bumping into it.
            ok = _hidden_occupant(state, ship, end) is None
        except IllegalActionError:
            ok = False
        if ok and move_cost(path) <= allowance:
            return A.Move(ship.id, path)
        if not tokens:
            return None
        tokens = tokens[:-1]


def _teleport_target(state: BattleState, ship: TacticalShip) -> int | None:
    if not ship.has_teleporter or ship.boarding_parties <= 0 or not ship.sensors:
        return None
    for enemy in sorted(_enemies(state, ship.side), key=lambda e: e.id):
        if distance(ship.pos, enemy.pos) <= 1 and not enemy.shuttle:
            arc = arc_of(enemy.pos, enemy.facing, ship.pos)
            if enemy.generators[arc] and enemy.power and enemy.force_fields[arc] > 0:
                continue  # the engine refuses it: the facing field is up
            try:
                check(state, A.Teleport(ship.id, enemy.id))
            except IllegalActionError:
                continue
            return enemy.id
    return None


def _regen_wanted(state: BattleState, ship: TacticalShip) -> bool:
    lost = sum(ship.ff_strength - ship.force_fields[a] for a in range(4) if ship.generators[a])
    hull = ship.design.hull - ship.hull if ship.design.nanobot_skin and not ship.shuttle else 0
    if lost + hull <= 0:
        return False
    near = any(distance(ship.pos, e.pos) <= _threat_range(e) for e in _enemies(state, ship.side))
    return lost + hull >= 3 or not near


def _choose_ship(state: BattleState, side: int) -> TacticalShip | None:
    ships = [s for s in state.ships if s.side == side and s.in_play]
    if state.card is not None and state.card.is_dac:
        ships = [s for s in ships if s.id not in state.activated]
    if not ships:
        return None
    boarding = {b.boarder for b in state.boardings} | {b.target for b in state.boardings}
    enemies = _enemies(state, side)

    def key(s: TacticalShip):
        x, y = s.pos
        near = 99
        shot = 1
        for e in enemies:
            ex, ey = e.pos
            d = max(abs(x - ex), abs(y - ey))
            if d < near:
                near = d
            if shot and d <= 3 and _shots_at(state, s, e):
                shot = 0
        return (0 if s.id in boarding else 1, 0 if not s.power else 1, s.shuttle, shot, near, s.id)

    return min(ships, key=key)


def _next(state: BattleState, ship: TacticalShip) -> A.Action:
    act = state.activation
    done = act.actions
    used = len(done) + (1 if act.boarding_due else 0)
    if used >= A.ACTIONS_PER_ACTIVATION:
        return A.EndActivation(ship.id)
    if not ship.power:
        return A.RestorePower(ship.id) if A.RESTORE_POWER not in done else A.EndActivation(ship.id)
    if ship.status == LANDED:
        return A.Launch(ship.id) if A.MOVE not in done else A.EndActivation(ship.id)
    can_move = A.MOVE not in done and A.FIRE not in done and A.TELEPORT not in done and not ship.engines_destroyed
    if ship.shuttle or _outmatched(state, ship):
        if can_move:
            return A.WarpOut(ship.id)
        return A.EndActivation(ship.id)
    if ship.stealth_engaged and A.ENGAGE_STEALTH not in done:
        return A.DisengageStealth(ship.id)
    moved_or_fired = any(k in done for k in (A.SCAN, A.MOVE, A.FIRE, A.TELEPORT))
    if A.REGENERATE not in done and not moved_or_fired and used <= 1 and _regen_wanted(state, ship):
        return A.Regenerate(ship.id)
    if can_move:
        move = _move_plan(state, ship)
        if move is not None:
            return move
    if A.FIRE not in done and A.TELEPORT not in done:
        shots = _fire_plan(state, ship)
        if shots:
            return A.Fire(ship.id, shots)
    if A.TELEPORT not in done:
        target = _teleport_target(state, ship)
        if target is not None:
            return A.Teleport(ship.id, target)
    return A.EndActivation(ship.id)


def doctrine_action(state: BattleState, side: int, dice: Dice | None = None) -> A.Action | None:
    """The doctrine's next action for ``side``, or None when the side has nothing to do now
    (the card is not its own, or a card must be drawn). ``dice`` is accepted for the common
    interface; the doctrine itself rolls nothing."""
    if is_over(state) or state.acting_side != side:
        return None
    return _action(state, side)


def _action(state: BattleState, side: int) -> A.Action | None:
    """``doctrine_action`` for the acting side of a battle not over."""
    act = state.activation
    if act is None:
        if state.activations_left <= 0:
            return None
        ship = _choose_ship(state, side)
        if ship is None:
            return A.Pass(side)
        # Evade when weak, but not without sensors: on top of the manual lock's -1 it would leave
        # the ship no lock on an evading enemy at all (a stalemate until the card cap).
        evade = _weak(ship) and ship.sensors
        evasive = None
        if evade and not ship.evasive:
            evasive = True
        elif ship.evasive and not evade:
            evasive = False
        return A.Activate(ship.id, evasive=evasive)
    return _next(state, state.ship(act.ship))


def simulate(state: BattleState, dice: Dice, max_cards: int | None = None, strict: bool = False) -> BattleState:
    """Play the battle to its end with the doctrine for every side. ``max_cards`` caps the cards
    drawn from here on (on top of the battle's own cap, ruling TC23), so it always ends. With
    ``strict`` a doctrine move the engine refuses is raised; otherwise the activation (or the
    card) is ended instead, so a doctrine mistake can never stall a battle."""
    if max_cards is not None:
        state = replace(state, card_cap=min(state.card_cap, state.cards_drawn + max_cards))
    return play_out(state, dice, over=is_over, acting=_acting, automatic=draw_card, choose=_choose,
                    apply=apply, instead=_instead, strict=strict)


def _acting(state: BattleState) -> int | None:
    return state.acting_side


def _choose(state: BattleState) -> A.Action:
    return _action(state, state.acting_side) or A.Pass(state.acting_side)


def _instead(state: BattleState) -> A.Action:
    """The doctrine's fallback: end the activation (or pass the card)."""
    return A.EndActivation(state.activation.ship) if state.activation else A.Pass(state.acting_side)


__all__ = ["doctrine_action", "simulate"]
