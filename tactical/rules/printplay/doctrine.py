"""The computer's choice for the acting side (pure Python): close on the nearest enemy it can
see, fire everything that bears, boost when hurt. Never peeks at a ship hidden from its side."""

from __future__ import annotations

from math import atan2, degrees, hypot

from tactical.rules.geometry import inches as geo
from tactical.rules.kit import IllegalActionError

from .actions import Activate, Attack, Boost, Cloak, Hold, Move, Regenerate, Special
from .dashboards import SIDES
from .engine import (
    acting_side,
    boost_problem,
    check,
    exposed_sides,
    legal_actions,
    max_speed,
    shot_problem,
)
from .state import MOUNT_CENTRE, SPECIALS, State, hidden_from, mounts_of, terrain_at


def _enemies(state: State, ship):
    return [s for s in state.living() if s.side != ship.side and not hidden_from(state, s, ship.side)]


def _nearest(state: State, ship):
    found = _enemies(state, ship)
    return min(found, key=lambda s: (geo.distance(ship.pos, s.pos), s.id)) if found else None


def choose(state: State):
    side = acting_side(state)
    if state.stage == "choose":
        mine = [s for s in state.living(side) if not s.activated]
        best = min(
            mine,
            key=lambda s: (min((geo.distance(s.pos, e.pos) for e in _enemies(state, s)), default=99), s.id),
        )
        return Activate(best.id)
    ship = state.ship(state.active)
    if state.stage == "action":
        return _action(state, ship)
    if state.stage == "move":
        return _move(state, ship)
    return _attack(state, ship)


def _action(state: State, ship):
    order = SPECIALS.get(ship.dash.faction)
    foe = _nearest(state, ship)
    dist = geo.distance(ship.pos, foe.pos) if foe else 99
    free = order and order[1] == "A" and ship.side not in state.specials
    if free and order[0] == "adapt" and any(s < d for s, d in zip(ship.shields, ship.dash.shields)):
        return Special(ship.id, "adapt")
    if free and order[0] == "surge" and dist <= 12:
        return Special(ship.id, "surge")
    if ship.dash.has("regenerate") and ship.hull * 10 < ship.dash.hull * 7:
        return Regenerate(ship.id)
    if ship.hull * 2 <= ship.dash.hull and ship.emergency > 0 and ship.wps < 3:
        return Boost(ship.id, "emergency", "wps")
    if ship.dash.has("cloak") and not ship.cloaked and dist > 12:
        return Cloak(ship.id)
    spare = _spare_shield(state, ship)
    if spare and dist <= max(w.range for w in ship.dash.weapons) + ship.impulse and ship.wps < 2:
        return Boost(ship.id, spare, "wps")  # 001 Action: 4 shields make 1 weapon point
    if foe is not None:
        facing = exposed_sides(foe, ship)[0]
        weakest = min(SIDES, key=lambda s: (ship.shield(s), s))
        richest = max(SIDES, key=lambda s: (ship.shield(s), s))
        if facing == weakest and richest != facing and ship.shield(richest) >= ship.shield(facing) + 8:
            return Boost(ship.id, richest, facing)
    return Hold(ship.id, "action")


THREAT = 0.3
CLOSE = 0.5


def _expected(weapon, ship=None) -> float:
    """Rough damage of one weapon line's fire (hit chance from its "+N", dice, damage, WPS)."""
    wps = (ship.wps + ship.surge) if ship is not None else 0
    return weapon.burst * max(weapon.dmg + wps, 1) * (7 - weapon.hit) / 6


def _off(pos, heading: float, centre: float, other) -> float:
    """Degrees between a mount's centre line and ``other`` seen from ``pos`` heading ``heading``."""
    rel = degrees(atan2(other[0] - pos[0], other[1] - pos[1])) - heading - centre
    return abs((rel + 180.0) % 360.0 - 180.0)


class _Board:
    """What one move decision weighs, worked out once: the ship's usable mounts, every enemy's
    mounts, the other ships' places (the candidates only change where the ship ends)."""

    def __init__(self, state: State, ship, enemies):
        self.state, self.ship, self.enemies = state, ship, enemies
        self.mine = []  # (mount centre, half arc, range, value)
        for i, mount in enumerate(mounts_of(ship.dash)):
            weapon = ship.dash.weapons[mount.line]
            if not (weapon.secondary and ship.torpedoes[i]):
                self.mine.append((MOUNT_CENTRE[mount.letter], weapon.arc / 2 + 0.01, weapon.range + 0.01,
                                  mount.qty * _expected(weapon, ship)))
        self.foes = [(e, 1 + 4 / (4 + e.hull), 8.01 if e.cloaked else 99.0) for e in enemies]
        self.theirs = [(e.pos, e.heading, MOUNT_CENTRE[m.letter], e.dash.weapons[m.line].arc / 2 + 0.01,
                        e.dash.weapons[m.line].range + 0.01, m.qty * _expected(e.dash.weapons[m.line]))
                       for e in enemies for m in mounts_of(e.dash)]
        self.others = [o.pos for o in state.living() if o.id != ship.id]
        self.reach = max(w.range for w in ship.dash.weapons)
        self._threats: dict = {}
        self.places: dict = {}
        self.rocks = any(t.kind == "asteroids" for t in state.terrain)

    def firepower(self, pos, heading: float) -> float:
        """Per mount, its best target in arc and range (loaded torpedoes only), the weakest preferred."""
        total = 0.0
        for centre, half, rng, value in self.mine:
            best = 0.0
            for e, weight, cloak in self.foes:
                dist = hypot(e.pos[0] - pos[0], e.pos[1] - pos[1])
                if 1.01 < dist <= min(rng, cloak) and (half >= 180 or _off(pos, heading, centre, e.pos) <= half):
                    best = max(best, value * weight)
            total += best
        return total

    def threat(self, pos) -> float:
        """What the enemies could fire at a ship at ``pos``, from where they stand now."""
        key = (round(pos[0], 3), round(pos[1], 3))
        if key not in self._threats:
            self._threats[key] = sum(
                value for epos, eheading, centre, half, rng, value in self.theirs
                if hypot(epos[0] - pos[0], epos[1] - pos[1]) <= rng
                and (half >= 180 or _off(epos, eheading, centre, pos) <= half))
        return self._threats[key]


def _end_pose(ship, m: Move):
    """Where a move leaves the ship (collisions aside): the turn, go, turn, go, turn of 001 Movement."""
    pos, heading = _end_place(ship, m)
    return pos, geo.norm(heading + m.turn3)


def _end_place(ship, m: Move):
    """Where a move leaves the ship and its heading before the last turn (which only turns it)."""
    heading = geo.norm(ship.heading + m.turn1)
    pos = geo.advance(ship.pos, heading, m.go1)
    heading = geo.norm(heading + m.turn2)
    if m.go2:
        pos = geo.advance(pos, heading, m.go2)
    return (pos[0] + m.slide_x, pos[1] + m.slide_y), heading


def _place(board: _Board, m: Move):
    """What a move's end place is worth whatever the last turn: (pos, heading before it, refusal
    score or None, threat there, distance to and the nearest enemy, in asteroids); worked out once."""
    key = (m.go1, m.turn1, m.turn2, m.go2, m.slide_x, m.slide_y)
    found = board.places.get(key)
    if found is None:
        pos, heading = _end_place(board.ship, m)
        w, h = board.state.mat
        x, y = pos
        bad = None
        if not (2 <= x <= w - 2 and 2 <= y <= h - 2):
            bad = -1e6  # off the mat's edge: the ship would leave (ruling PP17)
        elif any(hypot(ox - x, oy - y) < 1.6 for ox, oy in board.others):
            bad = -1e5  # touching: a collision, and no shot at a ship it touches
        if bad is not None:
            found = (pos, heading, bad, 0.0, 0.0, None, False)
        else:
            near, _, foe = min((hypot(e.pos[0] - x, e.pos[1] - y), e.id, e) for e in board.enemies)
            rocks = board.rocks and bool(terrain_at(board.state, pos, "asteroids"))
            found = (pos, heading, None, board.threat(pos), near, foe, rocks)
        board.places[key] = found
    return found


def _score(board: _Board, m: Move) -> float:
    """How well a move places the ship: its fire now, less a part of what could fire back, closing
    to its weapons' best range, facing the nearest enemy, out of the asteroids and off the edge."""
    pos, heading, bad, threat, near, foe, rocks = _place(board, m)
    if bad is not None:
        return bad
    heading = geo.norm(heading + m.turn3)
    score = 3 * board.firepower(pos, heading) - THREAT * threat
    score -= max(near - board.reach * CLOSE, 0) * 2  # close in to the weapons' best range
    score -= _off(pos, heading, 0.0, foe.pos) / 45  # face the nearest enemy (the front arc carries most)
    if rocks:
        score -= 3  # slow next turn, and the rocks hit the hull
    if m.order:
        score -= 1  # a special order is the side's once a round: only when it pays
    return score


def _spare_shield(state: State, ship):
    """A shield side no enemy in reach can see, with 4 points to give (the richest such)."""
    seen = set()
    for e in _enemies(state, ship):
        if geo.distance(e.pos, ship.pos) <= max(w.range for w in e.dash.weapons) + e.impulse + 2:
            seen.update(exposed_sides(e, ship))
    free = [s for s in SIDES if s not in seen and boost_problem(ship, s, "wps") is None and ship.shield(s) >= 6]
    return max(free, key=lambda s: (ship.shield(s), s)) if free else None


def _candidates(state: State, ship) -> list[Move]:
    """The moves the doctrine weighs (those ``engine.legal_actions`` offers, unchecked yet)."""
    limit = 90 if ship.dash.has("fast turn") else 45
    turns = sorted({-limit, -45, 0, 45, limit})
    top = max_speed(state, ship)
    # 001 Turning: slow ships turn at both ends, faster ones at one end only (the rest the engine refuses).
    out = [Move(ship.id, go, t1, 0, 0, t3) for go in range(1, top + 1) for t1 in turns for t3 in turns
           if go <= 2 or not (t1 and t3)]
    if ship.dash.type in ("escort", "destroyer") and top >= 3:
        out += [Move(ship.id, 1, t1, t2, 2, 0) for t1 in (-45, 45) for t2 in (-45, 45)]
    if ship.cloaked:
        out += [Move(ship.id, top, 0, 0, 0, 0, dx, dy) for dx, dy in ((2, 0), (-2, 0), (0, 2), (0, -2))]
    order = SPECIALS.get(ship.dash.faction)
    if order and order[1] == "M" and ship.side not in state.specials:
        out += [Move(ship.id, go, order=order[0]) for go in range(1, max_speed(state, ship, order[0]) + 1)]
    return out


def _move(state: State, ship):
    """The move that leaves the ship best placed (``_score``); the first of them the engine allows."""
    enemies = _enemies(state, ship)
    moves = _candidates(state, ship)
    if enemies:
        board = _Board(state, ship, enemies)
        ranked = sorted(range(len(moves)), key=lambda i: (-_score(board, moves[i]), i))
    else:  # nobody in sight: make for the middle of the mat
        w, h = state.mat
        ranked = sorted(range(len(moves)), key=lambda i: (geo.distance(_end_pose(ship, moves[i])[0], (w / 2, h / 2)),
                                                          -moves[i].go1, i))
    for i in ranked:
        if _legal(state, moves[i]):
            return moves[i]
    return next(a for a in legal_actions(state) if isinstance(a, Move))


def _legal(state: State, action) -> bool:
    try:
        check(state, action)
    except IllegalActionError:
        return False
    return True


def _attack(state: State, ship):
    mounts = mounts_of(ship.dash)
    reach = max(w.range for w in ship.dash.weapons) + 0.01
    # Focus fire: the ship nearest its end first (hull and the weakest shield it shows this ship).
    enemies = sorted((e for e in _enemies(state, ship) if geo.distance(ship.pos, e.pos) <= reach),
                     key=lambda s: (s.hull + min(s.shield(x) for x in exposed_sides(ship, s)), s.id))
    shots, letters = [], {}
    for i, mount in enumerate(mounts):
        weapon = ship.dash.weapons[mount.line]
        for target in enemies:
            if not weapon.secondary and letters.get(mount.letter, target.id) != target.id:
                continue
            sides = exposed_sides(ship, target)
            side = min(sides, key=lambda s: (target.shield(s), s)) if sides else "fore"
            if shot_problem(state, ship, i, target.id, side) is None:
                shots.append((i, target.id, side))
                if not weapon.secondary:
                    letters[mount.letter] = target.id
                break
    if not shots:
        return Hold(ship.id, "attack")
    order = SPECIALS.get(ship.dash.faction)
    if order and order[1] == "ATT" and ship.side not in state.specials:
        return Attack(ship.id, tuple(shots), order[0])
    return Attack(ship.id, tuple(shots))


def instead(state: State):
    return legal_actions(state)[0]


__all__ = ["choose", "instead"]
