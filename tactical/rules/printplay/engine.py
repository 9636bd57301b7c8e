"""The Print&Play rules (``seeds/001_…``), one action at a time (pure Python).

``check(state, action)`` refuses (``IllegalActionError`` citing the 001 section) without rolling;
``apply(state, action, dice)`` checks, then resolves with the dice passed in; ``advance(state,
dice)`` is the step the rules take by themselves (a round begins: initiative or the dice bag; the
next die is drawn; the End Phase); ``legal_actions(state)`` lists what the acting side may do.
Sections are the book's headings ("001 Movement", "001 Attack", …); rulings PP1… in
docs/rulings.md.
"""

from __future__ import annotations

import math

from tactical.rules import kit
from tactical.rules.geometry import inches as geo
from tactical.rules.kit import DiceBag, Resolution, evolve

from .actions import Activate, Attack, Boost, Cloak, Hold, Move, Regenerate, Special
from .dashboards import SIDES, TYPE_DICE
from .state import (
    CLOAK_RANGE,
    MOUNT_CENTRE,
    NEBULA_RANGE,
    SIDE_CENTRES,
    SPECIALS,
    TILE,
    Ship,
    State,
    hidden_from,
    in_asteroids,
    mounts_of,
    nebula_of,
    order_by_dice,
    refuse,
    tagged,
)

SYSTEMS = ("wps", "sensors", "ecm")
SYSTEM_LIMIT = 3  # ruling PP6: boosted systems run from -3 to +3
CRIT_EFFECTS = {1: "power", 2: "power", 3: "weapons", 4: "weapons", 5: "sensors", 6: "sensors"}  # ruling PP19


class _Log:
    def __init__(self):
        self.events: list = []

    def public(self, kind, text, **data):
        self.events.append(kit.public(kind, text, **data))

    def about(self, state, who, kind, text, **data):
        self.events.append(tagged(state, who, kind, text, **data))


def over(state: State) -> bool:
    if state.round > state.round_cap:
        return True
    first = None
    for s in state.ships:
        if s.hull > 0:
            if first is None:
                first = s.side
            elif s.side != first:
                return False
    return True


def acting_side(state: State) -> int | None:
    if over(state):
        return None
    if state.stage == "choose":
        return state.drawn
    if state.stage in ("action", "move", "attack") and state.active is not None:
        return state.ship(state.active).side
    return None


# --- the automatic steps: a round begins, a die is drawn, the End Phase ---------------------------

def _next_side(state: State, dice, log: _Log) -> State:
    """The next side to activate a ship, or the End Phase when nobody is left (001 Initiative)."""
    if state.mode == "initiative":
        n = len(state.order)
        for k in range(n):
            side = state.order[(state.turn_of + k) % n]
            if any(not s.activated for s in state.living(side)):
                log.public("turn", f"{state.side_name(side)} activates a ship.", side=side)
                return evolve(state, drawn=side, turn_of=(state.turn_of + k + 1) % n, stage="choose")
        return end_phase(state, dice, log)
    bag = state.bag
    while len(bag):
        side, bag = bag.draw()
        if any(not s.activated for s in state.living(side)):
            log.public("draw", f"A die of {state.side_name(side)} is drawn from the bag ({len(bag)} left).",
                       side=side, left=len(bag))
            return evolve(state, bag=bag, drawn=side, stage="choose")
        log.public("draw", f"A die of {state.side_name(side)} is drawn: no ship of it is left to activate "
                   "(ruling PP12).", side=side, left=len(bag))
    return end_phase(evolve(state, bag=bag), dice, log)


def begin_round(state: State, dice, log: _Log) -> State:
    sides = tuple(s for s in state.sides if state.living(s))
    if state.mode == "initiative":
        order = order_by_dice(sides, dice, f"001 Initiative: round {state.round}")
        log.public("initiative", f"Round {state.round}: {state.side_name(order[0])} wins the initiative.",
                   order=list(order), round=state.round)
        state = evolve(state, order=order, turn_of=0)
    else:
        dice_in = [s.side for s in sorted(state.living(), key=lambda s: s.id)]
        bag = DiceBag.filled(dice_in, dice, f"001 Initiative: the dice bag, round {state.round}")
        log.public("bag", f"Round {state.round}: {len(dice_in)} dice go into the bag, one per ship.",
                   round=state.round, dice=len(dice_in))
        state = evolve(state, bag=bag)
    return _next_side(evolve(state, stage="choose"), dice, log)


def _drift(state: State, ship: Ship, dice, log: _Log) -> State:
    """001 End Phase: a ship with a power token moves 1D3" forward; it stops touching a ship in
    its way (no collision dice, ruling PP14) and leaves the battle off the mat (ruling PP17)."""
    d = kit.d3(dice, f"001 End Phase: the drift of ship {ship.id}")[0]
    end, _, _ = _travel(state, ship, ship.pos, ship.heading, d)
    ship = evolve(ship, pos=end)
    state = state.with_ship(ship)
    log.about(state, ship, "drift", f"{ship.name} drifts {d}\" without power.", ship=ship.id, inches=d)
    return _off_mat(state, ship, log)


def end_phase(state: State, dice, log: _Log) -> State:
    log.public("end", f"End Phase of round {state.round}.", round=state.round)
    for ship in sorted(state.living(), key=lambda s: s.id):
        torps = tuple("green" if t == "red" else "" for t in ship.torpedoes)
        power = "green" if ship.power == "red" else ""
        ship = evolve(ship, torpedoes=torps, power=power, activated=False, surge=0)
        state = state.with_ship(ship)
        if ship.power:
            state = _drift(state, ship, dice, log)
    for ship in sorted(state.living(), key=lambda s: s.id):
        if in_asteroids(state, ship):
            face = kit.d6(dice, f"001 Asteroids: ship {ship.id}")[0]
            if face <= 2:
                dmg = kit.d6(dice, f"001 Asteroids: hull damage to ship {ship.id}")[0]
                ship = evolve(ship, hull=ship.hull - dmg)
                state = state.with_ship(ship)
                log.about(state, ship, "asteroids", f"{ship.name} is struck by asteroids: {dmg} hull.",
                          ship=ship.id, face=face, damage=dmg)
                _destroyed(state, ship, log)
    return evolve(state, round=state.round + 1, stage="start", drawn=None, active=None, specials=(), reroll=0,
                  order=(), turn_of=0, bag=DiceBag())


def advance(state: State, dice) -> Resolution:
    """The rules' own step: begin a round (001 Initiative) or draw the next die, ending the round
    with the End Phase when every ship has activated."""
    if over(state) or acting_side(state) is not None:
        raise refuse("Turns Sequence", "nobody is waiting for the rules' own step")
    log = _Log()
    state = begin_round(state, dice, log) if state.stage == "start" else _next_side(state, dice, log)
    return _resolved(state, log)


def _resolved(state: State, log: _Log) -> Resolution:
    events = tuple(log.events)
    return Resolution(evolve(state, log=state.log + events), events)


# --- checks -------------------------------------------------------------------------------------

def _named(state: State, ship_id, side: int | None) -> Ship:
    """The ship ``ship_id`` as ``side`` may name it: a ship hidden from it is refused in the
    words used for one that is not there (ruling PP7)."""
    ship = state.ship(ship_id) if isinstance(ship_id, int) else None
    if ship is None or not ship.alive or hidden_from(state, ship, side):
        raise refuse("Turns Sequence", f"there is no ship {ship_id} in the battle")
    return ship


def _active(state: State, action, stage: str) -> Ship:
    if over(state):
        raise refuse("Turns Sequence", "the battle is over")
    side = acting_side(state)
    if side is None:
        raise refuse("Turns Sequence", "it is the rules' own step now (a die is drawn)")
    ship = _named(state, action.ship, side)
    if state.stage == "choose":
        raise refuse("Initiative", f"{state.side_name(side)} first chooses the ship to activate")
    if ship.id != state.active:
        raise refuse("Activation", f"ship {ship.id} is not the ship activating")
    if state.stage != stage:
        raise refuse("Activation", f"ship {ship.id} is at its {state.stage} now, not its {stage}")
    return ship


def _special(state: State, ship: Ship, order: str, kind: str) -> None:
    if not order:
        return
    mine = SPECIALS.get(ship.dash.faction)
    if mine is None or mine[0] != order:
        raise refuse("Special Orders", f"{ship.dash.faction} ships have no special order {order!r}")
    if mine[1] != kind:
        raise refuse(
            "Special Orders",
            f"{mine[2]} takes the place of {dict(A='an action', M='a movement', ATT='an attack')[mine[1]]}",
        )
    if ship.side in state.specials:
        raise refuse("Special Orders", f"{state.side_name(ship.side)} gave its special order this round already "
                     "(ruling PP8)")


def check_activate(state: State, a: Activate) -> None:
    if over(state):
        raise refuse("Turns Sequence", "the battle is over")
    if state.stage != "choose" or state.drawn is None:
        raise refuse("Initiative", "no ship is to be chosen now")
    ship = _named(state, a.ship, state.drawn)
    if ship.side != state.drawn:
        raise refuse("Initiative", f"ship {ship.id} is not {state.side_name(state.drawn)}'s")
    if ship.activated:
        raise refuse("Initiative", f"ship {ship.id} has activated this round")


def _shield_room(ship: Ship, side: str) -> int:
    return ship.dash.shield_max - ship.shield(side)


def boost_problem(ship: Ship, source: str, target: str) -> str | None:
    names = SIDES + SYSTEMS
    if source not in names + ("emergency",) or target not in names:
        return f"power moves between {', '.join(names)} (and from emergency), not {source!r} to {target!r}"
    if source == target:
        return "power moves from one system to another"
    if source == "emergency":
        if ship.hull * 2 > ship.dash.hull:
            return "emergency power boosts systems only once the hull is down to 50% hull (001 Dashboards)"
        if ship.emergency < 1:
            return "no emergency power is left"
    elif source in SIDES and ship.shield(source) < 4:
        return f"the {source} shields have fewer than 4 points to transfer (4 shields = 1 weapon point)"
    elif source in SYSTEMS and getattr(ship, source) - 1 < -SYSTEM_LIMIT:
        return f"{source} cannot go below -{SYSTEM_LIMIT} (ruling PP6)"
    if target in SIDES and _shield_room(ship, target) <= 0:
        return f"the {target} shields are at their boosted maximum ({ship.dash.shield_max})"
    if target in SYSTEMS and getattr(ship, target) + 1 > SYSTEM_LIMIT:
        return f"{target} cannot go above +{SYSTEM_LIMIT} (ruling PP6)"
    return None


def check_action_stage(state: State, a) -> Ship:
    ship = _active(state, a, "action")
    if isinstance(a, Boost):
        problem = boost_problem(ship, a.source, a.target)
        if problem:
            raise refuse("Action", problem)
    elif isinstance(a, Cloak):
        if not ship.dash.has("cloak"):
            raise refuse("Cloaking Device", f"{ship.name} has no cloaking device")
        if a.on == ship.cloaked:
            raise refuse("Cloaking Device", f"{ship.name} is {'already' if a.on else 'not'} cloaked")
    elif isinstance(a, Regenerate):
        if not ship.dash.has("regenerate"):
            raise refuse("Regenerate", f"{ship.name} cannot regenerate")
        if ship.hull >= ship.dash.hull:
            raise refuse("Regenerate", f"{ship.name}'s hull is whole")
    elif isinstance(a, Special):
        _special(state, ship, a.order, "A")
    return ship


def band(speed: int) -> str:
    """001 Movement: fast 6-8, medium 3-5, slow 1-2."""
    return "slow" if speed <= 2 else "medium" if speed <= 5 else "fast"


def max_speed(state: State, ship: Ship, order: str = "") -> int:
    top = ship.impulse + (2 if order else 0)  # ruling PP8: the two moving special orders
    return min(top, 2) if in_asteroids(state, ship) else top


def _turn_problem(ship: Ship, m: Move) -> str | None:
    limit = 90 if ship.dash.has("fast turn") else 45
    turns = (m.turn1, m.turn2, m.turn3)
    if any(abs(t) > limit for t in turns):
        return f"a turn is up to {limit} degrees ({'001 Fast Turn' if limit == 90 else '001 Turning'})"
    speed = m.go1 + m.go2
    kind = band(speed)
    if m.order:
        return "a special order's move goes straight ahead (ruling PP8)" if any(turns) else None
    if kind == "slow":
        return "slow ships turn only at the beginning and at the end" if m.turn2 else None
    agile = ship.dash.type in ("escort", "destroyer") and kind == "medium"
    if not agile:
        if m.turn2:
            return f"at {kind} speed a {ship.dash.type} turns only at the beginning or at the end"
        if m.turn1 and m.turn3:
            return f"at {kind} speed a ship turns at the beginning or at the end, not both"
        return None
    if m.turn1 and m.turn2 and m.turn3:
        return "escorts and destroyers turn at most twice at medium speed"
    if (m.turn1 and m.turn2 and m.go1 < 1) or (m.turn2 and m.turn3 and m.go2 < 1):
        return "escorts and destroyers move 1\" between their two turns"
    return None


def check_move(state: State, m: Move) -> Ship:
    ship = _active(state, m, "move")
    _special(state, ship, m.order, "M")
    if m.go1 < 0 or m.go2 < 0:
        raise refuse("Movement", "distances are not negative")
    speed = m.go1 + m.go2
    if speed < 1:
        raise refuse("Movement", "a ship moves a minimum of 1 inch")
    top = max_speed(state, ship, m.order)
    if speed > top:
        why = " (001 Asteroids: slow only)" if in_asteroids(state, ship) else ""
        raise refuse("Asteroids" if why else "Movement", f"{ship.name} moves up to {top}\", not {speed}\"{why}")
    problem = _turn_problem(ship, m)
    if problem:
        raise refuse("Turning", problem)
    if m.slide_x or m.slide_y:
        if not ship.cloaked:
            raise refuse("Cloaking Device", "only a cloaked ship slides after its movement")
        if (m.slide_x and m.slide_y) or abs(m.slide_x) + abs(m.slide_y) > 2:
            raise refuse("Cloaking Device", "a cloaked ship slides up to 2\" vertically or horizontally")
    return ship


def mount_range(state: State, ship: Ship, target: Ship, weapon) -> float:
    """001 Nebula type 6: a shot from or into it reaches 8" (primary) or 6" (secondary)."""
    rng = float(weapon.range)
    for s in (ship, target):
        neb = nebula_of(state, s)
        if neb is not None and neb.nebula == 6:
            rng = min(rng, 6.0 if weapon.secondary else 8.0)
    return rng


def exposed_sides(ship: Ship, target: Ship) -> list[str]:
    """001 Attack: the most exposed side of ``target`` seen from ``ship`` (two on a line: the
    attacker chooses)."""
    found = geo.arcs_of(target.pos, target.heading, ship.pos, SIDE_CENTRES, 45.0)
    return [s for s in SIDES if s in found]


def in_arc(ship: Ship, mount, weapon, other: Ship) -> bool:
    if weapon.arc >= 360:
        return True
    rel = geo.relative_bearing(ship.pos, ship.heading, other.pos)
    off = abs((rel - MOUNT_CENTRE[mount.letter] + 180.0) % 360.0 - 180.0)
    return off <= weapon.arc / 2 + geo.EPSILON  # 001 Firing Arcs: a weapon on the line ignores it


def shot_problem(state: State, ship: Ship, index, target_id, side) -> tuple[str, str] | None:
    """Why this shot may not be fired: (section, message), or None."""
    mounts = mounts_of(ship.dash)
    if not isinstance(index, int) or not 0 <= index < len(mounts):
        return "Attack", f"{ship.name} has no weapon mount {index}"
    mount = mounts[index]
    weapon = ship.dash.weapons[mount.line]
    target = state.ship(target_id) if isinstance(target_id, int) else None
    if target is None or not target.alive or hidden_from(state, target, ship.side):
        return "Turns Sequence", f"there is no ship {target_id} in the battle"
    if target.side == ship.side:
        return "Attack", f"ship {target.id} is not an enemy"
    if weapon.secondary and ship.torpedoes[index]:
        return "Secondary Weapons", f"{weapon.name} fires every second turn ({ship.torpedoes[index]} torpedo token)"
    dist = geo.distance(ship.pos, target.pos)
    if dist <= TILE + geo.EPSILON:
        return "Collisions", f"{ship.name} and {target.name} touch: they cannot target each other"
    if target.cloaked and dist > CLOAK_RANGE + geo.EPSILON:
        return "Cloaking Device", f"{target.name} is cloaked: it cannot be targeted farther than 8\""
    neb = nebula_of(state, target)
    if neb is not None and not neb.holds(ship.pos) and dist > NEBULA_RANGE + geo.EPSILON:
        return "Nebula", f"{target.name} is in a nebula: not targeted from outside farther than 4\""
    if dist > mount_range(state, ship, target, weapon) + geo.EPSILON:
        return "Attack", f"{target.name} is {dist:.1f}\" away, beyond {weapon.name}'s range"
    if not in_arc(ship, mount, weapon, target):
        return "Firing Arcs", f"{target.name} is outside {weapon.name}'s {weapon.arc} degree arc"
    if side not in exposed_sides(ship, target):
        return "Attack", (f"only the most exposed side of {target.name} may be targeted: "
                          f"{' or '.join(exposed_sides(ship, target))}")
    return None


def check_attack(state: State, a: Attack) -> Ship:
    ship = _active(state, a, "attack")
    _special(state, ship, a.order, "ATT")
    if not a.shots:
        raise refuse("Attack", "an attack names at least one shot (or hold fire)")
    mounts = mounts_of(ship.dash)
    used, letters = set(), {}
    for shot in a.shots:
        if not (isinstance(shot, tuple) and len(shot) == 3):
            raise refuse("Attack", "a shot is [mount, target ship, side]")
        index, target, side = shot
        problem = shot_problem(state, ship, index, target, side)
        if problem:
            raise refuse(*problem)
        if index in used:
            raise refuse("Attack", f"mount {index} fires once")
        used.add(index)
        mount = mounts[index]
        if not ship.dash.weapons[mount.line].secondary:
            if letters.setdefault(mount.letter, target) != target:
                raise refuse("Attack", "a ship targets one ship per arc with its primary weapons")
    return ship


def check(state: State, action) -> None:
    if isinstance(action, Activate):
        check_activate(state, action)
    elif isinstance(action, (Boost, Cloak, Regenerate, Special)):
        check_action_stage(state, action)
    elif isinstance(action, Hold):
        if action.stage not in ("action", "attack"):
            raise refuse("Activation", "a ship holds its action or its attack (it must move, 001 Movement)")
        _active(state, action, action.stage)
    elif isinstance(action, Move):
        check_move(state, action)
    elif isinstance(action, Attack):
        check_attack(state, action)
    else:
        raise refuse("Turns Sequence", f"not an action: {action!r}")


# --- resolution -----------------------------------------------------------------------------------

def _destroyed(state: State, ship: Ship, log: _Log) -> None:
    if ship.hull <= 0:
        log.public("destroyed", f"{ship.name} is destroyed.", ship=ship.id, side=ship.side)


def _off_mat(state: State, ship: Ship, log: _Log) -> State:
    """Ruling PP17: a ship that ends off the mat leaves the battle (hull kept, no longer in it)."""
    if geo.on_table(ship.pos, *state.mat):
        return state
    log.public("left", f"{ship.name} leaves the mat and the battle.", ship=ship.id, side=ship.side)
    return state.with_ship(evolve(ship, hull=0, pos=ship.pos, cloaked=False, power="left"))


def _contact(a, b, centre) -> float | None:
    """How far along a→b the moving disc first touches the one at ``centre`` (entering), or None."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    if length < 1e-9:
        return None
    ux, uy = dx / length, dy / length
    fx, fy = a[0] - centre[0], a[1] - centre[1]
    if math.hypot(fx, fy) <= TILE + geo.EPSILON:
        return None  # already touching: moving away is no collision
    proj = fx * ux + fy * uy
    disc = proj * proj - (fx * fx + fy * fy - TILE * TILE)
    if disc < 0:
        return None
    t = -proj - math.sqrt(disc)
    return t if 0 <= t <= length + geo.EPSILON else None


def _travel(state: State, ship: Ship, start, heading: float, dist: float, ghost: bool = False):
    """Where ``ship`` gets going ``dist``" from ``start``: (end, the ship touched or None, inches
    gone). Cloaked ships neither stop nor are stopped (001 Collisions)."""
    end = geo.advance(start, heading, dist)
    if ghost or ship.cloaked:
        return end, None, dist
    best, hit = None, None
    for other in state.living():
        if other.id == ship.id or other.cloaked:
            continue
        t = _contact(start, end, other.pos)
        if t is not None and (best is None or t < best):
            best, hit = t, other
    if hit is None:
        return end, None, dist
    return geo.advance(start, heading, max(best, 0.0)), hit, max(best, 0.0)


def _collide(state: State, ship: Ship, other: Ship, gone: float, dice, log: _Log) -> State:
    """001 Collisions: the mover's player rolls 1D6 per its type and 1D6 per inch moved (rounded
    down); both ships take the total as hull damage (ruling PP11)."""
    n = TYPE_DICE[ship.dash.type] + int(math.floor(gone + geo.EPSILON))
    faces = kit.d6(dice, f"001 Collisions: ship {ship.id} into ship {other.id}", n)
    total = sum(faces)
    log.public("collision", f"{ship.name} collides with {other.name}: {n}D6 = {total} hull damage to each.",
               ship=ship.id, other=other.id, dice=n, damage=total)
    for s in (state.ship(ship.id), state.ship(other.id)):
        s = evolve(s, hull=s.hull - total)
        state = state.with_ship(s)
        _destroyed(state, s, log)
    return state


def resolve_move(state: State, m: Move, dice, log: _Log) -> State:
    ship = state.ship(m.ship)
    pos, heading = ship.pos, ship.heading
    ghost = m.order == "picard"  # ruling PP8: Picard's Manoeuvre passes other ships by
    gone_total, touched = 0.0, None
    for turn, go in ((m.turn1, m.go1), (m.turn2, m.go2)):
        heading = geo.norm(heading + turn)
        if go and touched is None:
            pos, touched, gone = _travel(state, ship, pos, heading, go, ghost)
            gone_total += gone
    if touched is None:
        heading = geo.norm(heading + m.turn3)
    ship = evolve(ship, pos=pos, heading=heading)
    state = state.with_ship(ship)
    if m.order:
        state = evolve(state, specials=state.specials + (ship.side,))
    label = f" ({SPECIALS[ship.dash.faction][2]})" if m.order else ""
    log.about(state, ship, "move", f"{ship.name} moves {round(gone_total, 1):g}\"{label}.", ship=ship.id,
              inches=round(gone_total, 4), at=list(pos), heading=heading, order=m.order)
    if touched is not None:
        state = _collide(state, ship, touched, gone_total, dice, log)
        ship = state.ship(ship.id)
    elif m.slide_x or m.slide_y:
        ship = evolve(ship, pos=(round(pos[0] + m.slide_x, 4), round(pos[1] + m.slide_y, 4)))
        state = state.with_ship(ship)
        log.about(state, ship, "slide", f"{ship.name} slides under its cloak.", ship=ship.id)
    if ship.alive:
        state = _off_mat(state, ship, log)
    return state


def _hit_needed(state: State, ship: Ship, target: Ship, weapon) -> tuple[int, int]:
    """(target number, modifier) of one die (ruling PP1: "+N" is a roll of N or more after the
    attacker's sensors and the target's ECM)."""
    hit = weapon.hit
    mod = ship.sensors - target.ecm
    if in_asteroids(state, ship):
        mod -= 1  # 001 Asteroids: sensors -1
    neb = nebula_of(state, ship)
    if neb is not None:
        mod -= neb.sensor_penalty  # 001 Nebula types 3 and 4
        if neb.nebula == 5 and weapon.secondary:
            hit += 1  # 001 Nebula type 5: torpedoes -1 Hit bonus
    if target.cloaked:
        hit = max(hit, 6)  # 001 Cloaking Device: only a roll of 6, with any modifications
    return hit, mod


def _roll_hits(state, ship, target, weapon, faces, purpose, dice, rerolls, log):
    """Hits (a list of "normal"/"critical") of the dice ``faces``, re-rolling misses the attacker
    may (``rerolls``: a list whose first item counts them, -1 for every miss) and then the
    successes against a target in an asteroid field (001 Asteroids)."""
    need, mod = _hit_needed(state, ship, target, weapon)

    def result(face):
        if face == 6:
            return "critical"  # 6 always hits (ruling PP19: a critical hit)
        if face == 1:
            return None
        return "normal" if face + mod >= need else None

    out = []
    for face in faces:
        res = result(face)
        if res is None and face != 1 and rerolls[0] != 0:
            rerolls[0] -= 1
            face = kit.d6(dice, f"{purpose}: re-roll")[0]
            res = result(face)
        if res == "normal" and in_asteroids(state, target):
            face = kit.d6(dice, f"001 Asteroids: {purpose}: the hit re-rolled")[0]
            res = result(face)
        if res:
            out.append(res)
    return out, need, mod


def _damage_value(state: State, ship: Ship, weapon) -> int:
    wps = ship.wps + ship.surge
    dmg = weapon.dmg + (max(wps, 0) if weapon.secondary else wps)  # 001 Dashboards: WPS
    neb = nebula_of(state, ship)
    if neb is not None and neb.nebula == 5 and weapon.secondary:
        dmg += 3
    return max(dmg, 0)


def apply_hit(state: State, target: Ship, side: str, weapon, dmg: int, crit: bool, dice, log: _Log) -> State:
    """001 Attack: shields absorb a whole cannon or torpedo hit and as much of a beam hit as they
    hold; a critical hit goes past the shields (ruling PP19); then ablative armour, then hull."""
    target = state.ship(target.id)
    if not target.alive:
        return state
    k = SIDES.index(side)
    neb = nebula_of(state, target)
    up = not target.cloaked and not (neb is not None and neb.nebula in (2, 4))
    shields = list(target.shields)
    shield = shields[k] if up else 0
    rest = dmg
    if not crit and shield > 0:
        if weapon.kind == "beam":
            absorbed = min(shield, dmg)
            shields[k] -= absorbed
            rest = dmg - absorbed
        else:
            shields[k] -= min(shield, max(dmg - weapon.minus_shields, 0))
            rest = 0
    armour = min(target.ablative, rest)
    rest -= armour
    target = evolve(target, shields=tuple(shields), ablative=target.ablative - armour, hull=target.hull - rest)
    effect = ""
    if crit and target.alive and target.ablative <= 0:
        face = kit.d6(dice, f"001 Attack: critical effect on ship {target.id}")[0]
        effect = CRIT_EFFECTS[face]
        if effect == "power":
            target = evolve(target, power="red")
        elif effect == "weapons":
            target = evolve(target, wps=max(target.wps - 1, -SYSTEM_LIMIT))
        else:
            target = evolve(target, sensors=max(target.sensors - 1, -SYSTEM_LIMIT))
    target = evolve(target, crits=target.crits + (1 if crit else 0))
    state = state.with_ship(target)
    log.about(state, target, "damage",
              f"{'Critical hit' if crit else 'Hit'} on {target.name}'s {side}: {dmg} damage "
              f"({shield - shields[k] if up else 0} to shields, {armour} to ablative armour, {rest} to hull)"
              + (f"; critical effect: {effect}" if effect else "") + ".",
              ship=target.id, side=side, damage=dmg, shields=shield - shields[k] if up else 0, ablative=armour,
              hull=rest, critical=crit, effect=effect)
    _destroyed(state, target, log)
    return state


def resolve_attack(state: State, a: Attack, dice, log: _Log) -> State:
    ship = state.ship(a.ship)
    rerolls = [state.reroll]
    if ship.cloaked:
        ship = evolve(ship, cloaked=False)
        state = state.with_ship(ship)
        log.public("decloak", f"{ship.name} de-cloaks to attack"
                   + (" and gains 1 re-roll." if state.reroll else "."), ship=ship.id)
    if a.order:
        rerolls = [-1]  # ruling PP8: Qapla'! re-rolls every miss but the 1s
        state = evolve(state, specials=state.specials + (ship.side,))
    mounts = mounts_of(ship.dash)
    hits = []
    torps = list(ship.torpedoes)
    for index, target_id, side in a.shots:
        mount = mounts[index]
        weapon = ship.dash.weapons[mount.line]
        target = state.ship(target_id)
        n = mount.qty * weapon.burst
        purpose = f"001 Attack: {weapon.name} of ship {ship.id} at ship {target_id}"
        faces = kit.d6(dice, purpose, n)
        got, need, mod = _roll_hits(state, ship, target, weapon, faces, purpose, dice, rerolls, log)
        log.public("attack", f"{ship.name} fires {weapon.name} at {target.name}'s {side}: {list(faces)}, "
                   f"{len(got)} hit(s).", ship=ship.id, target=target_id, weapon=weapon.name, faces=list(faces),
                   hits=len(got), criticals=got.count("critical"), need=need, modifier=mod)
        if weapon.secondary:
            torps[index] = "red"  # 001 Secondary Weapons: a Red Torpedo token
        dmg = _damage_value(state, ship, weapon)
        hits += [(target, side, weapon, dmg, h == "critical") for h in got]
    state = state.with_ship(evolve(state.ship(ship.id), torpedoes=tuple(torps)))
    for crit in (False, True):  # 001 Attack: normal hits first, critical hits last
        for target, side, weapon, dmg, is_crit in hits:
            if is_crit == crit:
                state = apply_hit(state, target, side, weapon, dmg, crit, dice, log)
    return state


def _resolve_action(state: State, a, dice, log: _Log) -> State:
    ship = state.ship(a.ship)
    if isinstance(a, Boost):
        ship = boost(ship, a.source, a.target)
        log.about(state, ship, "power", f"{ship.name} transfers power from {a.source} to {a.target}.",
                  ship=ship.id, source=a.source, target=a.target)
    elif isinstance(a, Cloak):
        ship = evolve(ship, cloaked=a.on)
        log.public("cloak", f"{ship.name} {'cloaks' if a.on else 'drops its cloak'}.", ship=ship.id, on=a.on)
    elif isinstance(a, Regenerate):
        face = kit.d6(dice, f"001 Regenerate: ship {ship.id}")[0]
        ship = evolve(ship, hull=min(ship.dash.hull, ship.hull + face))
        log.about(state, ship, "regenerate", f"{ship.name} regenerates {face} hull.", ship=ship.id, face=face)
    elif isinstance(a, Special):
        ship = _order_a(ship, a.order)
        state = evolve(state, specials=state.specials + (ship.side,))
        log.about(state, ship, "special", f"{ship.name}: {SPECIALS[ship.dash.faction][2]}.", ship=ship.id,
                  order=a.order)
    return state.with_ship(ship)


def _order_a(ship: Ship, order: str) -> Ship:
    """Ruling PP8: Singularity Surge (+2 WPS this round); Adaptation (every shield side back to at
    least its printed value)."""
    if order == "surge":
        return evolve(ship, surge=2)
    return evolve(ship, shields=tuple(max(s, d) for s, d in zip(ship.shields, ship.dash.shields)))


def boost(ship: Ship, source: str, target: str) -> Ship:
    """001 Action: 4 shields make 1 point of a system and 1 point 4 shields (shields to shields,
    systems to systems point for point; ruling PP6); emergency power gives 1 point or 4 shields."""
    shields = list(ship.shields)
    values = {k: getattr(ship, k) for k in SYSTEMS}
    if source == "emergency":
        ship = evolve(ship, emergency=ship.emergency - 1)
    elif source in SIDES:
        shields[SIDES.index(source)] -= 4
    else:
        values[source] -= 1
    if target in SIDES:
        k = SIDES.index(target)
        shields[k] = min(ship.dash.shield_max, shields[k] + 4)
    else:
        values[target] += 1
    return evolve(ship, shields=tuple(shields), **values)


def _activate(state: State, a: Activate, dice, log: _Log) -> State:
    ship = evolve(state.ship(a.ship), activated=True)
    reroll = 1 if ship.cloaked else 0
    if ship.dash.has("regenerative ablative armour") and 0 < ship.ablative < ship.dash.ablative:
        face = kit.d6(dice, f"001 Regenerative Ablative Armour: ship {ship.id}")[0]
        ship = evolve(ship, ablative=min(ship.dash.ablative, ship.ablative + face))
        log.about(state, ship, "armour", f"{ship.name}'s ablative armour regenerates {face}.", ship=ship.id,
                  face=face)
    state = evolve(state.with_ship(ship), drawn=None, active=ship.id, stage="action", reroll=reroll)
    log.about(state, ship, "activate", f"{ship.name} activates.", ship=ship.id)
    if ship.power:
        log.about(state, ship, "power", f"{ship.name} has no power ({ship.power} power token): its systems are "
                  "disabled.", ship=ship.id)
        return evolve(state, active=None, stage="choose", reroll=0)
    return state


def apply(state: State, action, dice) -> Resolution:
    check(state, action)
    log = _Log()
    if isinstance(action, Activate):
        state = _activate(state, action, dice, log)
    elif isinstance(action, Hold):
        ship = state.ship(action.ship)
        log.about(
            state,
            ship,
            "hold",
            f"{ship.name} {'takes no action' if action.stage == 'action' else 'holds fire'}.",
            ship=ship.id,
        )
        state = evolve(state, stage="move") if action.stage == "action" else _done(state)
    elif isinstance(action, Move):
        state = evolve(resolve_move(state, action, dice, log), stage="attack")
        if not state.ship(action.ship).alive:
            state = _done(state)
    elif isinstance(action, Attack):
        state = _done(resolve_attack(state, action, dice, log))
    else:
        state = evolve(_resolve_action(state, action, dice, log), stage="move")
    return _resolved(state, log)


def _done(state: State) -> State:
    return evolve(state, active=None, stage="choose", reroll=0)


# --- legal actions -------------------------------------------------------------------------------

def _ok(state, action) -> bool:
    try:
        check(state, action)
    except kit.IllegalActionError:
        return False
    return True


def _moves(state: State, ship: Ship) -> list[Move]:
    limit = 90 if ship.dash.has("fast turn") else 45
    turns = sorted({-limit, -45, 0, 45, limit})
    top = max_speed(state, ship)
    out = [Move(ship.id, go, t1, 0, 0, t3) for go in range(1, top + 1) for t1 in turns for t3 in turns]
    if ship.dash.type in ("escort", "destroyer") and top >= 3:
        out += [Move(ship.id, 1, t1, t2, 2, 0) for t1 in (-45, 45) for t2 in (-45, 45)]
    if ship.cloaked:
        out += [Move(ship.id, top, 0, 0, 0, 0, dx, dy) for dx, dy in ((2, 0), (-2, 0), (0, 2), (0, -2))]
    order = SPECIALS.get(ship.dash.faction)
    if order and order[1] == "M":
        out += [Move(ship.id, go, order=order[0]) for go in range(1, max_speed(state, ship, order[0]) + 1)]
    return [m for m in out if _ok(state, m)]


def attack_options(state: State, ship: Ship) -> list[Attack]:
    """Every mount at one enemy (its first exposed side; both when two are), for each enemy."""
    out = []
    mounts = mounts_of(ship.dash)
    for target in state.living():
        if target.side == ship.side or hidden_from(state, target, ship.side):
            continue
        for side in exposed_sides(ship, target):
            shots = tuple((i, target.id, side) for i in range(len(mounts))
                          if shot_problem(state, ship, i, target.id, side) is None)
            if shots:
                out.append(Attack(ship.id, shots))
    return out


def legal_actions(state: State) -> tuple:
    side = acting_side(state)
    if side is None:
        return ()
    if state.stage == "choose":
        return tuple(Activate(s.id) for s in state.living(side) if not s.activated)
    ship = state.ship(state.active)
    if state.stage == "action":
        out = [Hold(ship.id, "action")]
        if ship.dash.has("cloak"):
            out.append(Cloak(ship.id, not ship.cloaked))
        out += [Regenerate(ship.id)]
        order = SPECIALS.get(ship.dash.faction)
        if order and order[1] == "A":
            out.append(Special(ship.id, order[0]))
        out += [Boost(ship.id, a, b) for a in SIDES + SYSTEMS + ("emergency",) for b in SIDES + SYSTEMS
                if boost_problem(ship, a, b) is None]
        return tuple(a for a in out if _ok(state, a))
    if state.stage == "move":
        return tuple(_moves(state, ship))
    out = [Hold(ship.id, "attack")] + attack_options(state, ship)
    order = SPECIALS.get(ship.dash.faction)
    if order and order[1] == "ATT" and ship.side not in state.specials:
        out += [Attack(a.ship, a.shots, order[0]) for a in out[1:]]
    return tuple(out)


# --- the result ----------------------------------------------------------------------------------

def winner(state: State) -> int | None:
    """The last side with ships; after the round cap the side with the most points of ships left
    (ruling PP18), none on a tie."""
    left = sorted({s.side for s in state.living()})
    if len(left) == 1:
        return left[0]
    if not left or not over(state):
        return None
    points = {side: sum(s.dash.points for s in state.living(side)) for side in left}
    best = max(points.values())
    top = [s for s in left if points[s] == best]
    return top[0] if len(top) == 1 else None


def fate(ship: Ship) -> str:
    if ship.power == "left":
        return "left"
    return "survived" if ship.alive else "destroyed"


__all__ = ["acting_side", "advance", "apply", "band", "boost", "check", "exposed_sides", "fate", "legal_actions",
           "over", "shot_problem", "winner"]
