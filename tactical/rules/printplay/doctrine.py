"""The computer's choice for the acting side (pure Python): close on the nearest enemy it can
see, fire everything that bears, boost when hurt. Never peeks at a ship hidden from its side."""

from __future__ import annotations

from tactical.rules.geometry import inches as geo

from .actions import Activate, Attack, Boost, Cloak, Hold, Move, Regenerate, Special
from .dashboards import SIDES
from .engine import acting_side, band, exposed_sides, legal_actions, max_speed, shot_problem
from .state import SPECIALS, State, hidden_from, mounts_of


def _enemies(state: State, ship):
    return [s for s in state.living() if s.side != ship.side and not hidden_from(state, s, ship.side)]


def _nearest(state: State, ship):
    found = _enemies(state, ship)
    return min(found, key=lambda s: (geo.distance(ship.pos, s.pos), s.id)) if found else None


def choose(state: State):
    side = acting_side(state)
    if state.stage == "choose":
        mine = [s for s in state.living(side) if not s.activated]
        best = min(mine, key=lambda s: (min((geo.distance(s.pos, e.pos) for e in _enemies(state, s)), default=99), s.id))
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
    if foe is not None:
        facing = exposed_sides(foe, ship)[0]
        weakest = min(SIDES, key=lambda s: (ship.shield(s), s))
        richest = max(SIDES, key=lambda s: (ship.shield(s), s))
        if facing == weakest and richest != facing and ship.shield(richest) >= ship.shield(facing) + 8:
            return Boost(ship.id, richest, facing)
    return Hold(ship.id, "action")


def _move(state: State, ship):
    foe = _nearest(state, ship)
    top = max_speed(state, ship)
    w, h = state.mat
    goal = foe.pos if foe else (w / 2, h / 2)
    limit = 90 if ship.dash.has("fast turn") else 45
    want = geo.norm(geo.bearing(ship.pos, goal) - ship.heading)
    turn = want if want <= 180 else want - 360
    turn = int(max(-limit, min(limit, round(turn / 45) * 45)))
    dist = geo.distance(ship.pos, goal)
    go = top if not foe else max(1, min(top, int(dist - 5)))
    heading = geo.norm(ship.heading + turn)
    end = geo.advance(ship.pos, heading, go)
    if not (2 <= end[0] <= w - 2 and 2 <= end[1] <= h - 2):  # keep off the mat's edge
        want = geo.norm(geo.bearing(ship.pos, (w / 2, h / 2)) - ship.heading)
        turn = want if want <= 180 else want - 360
        turn = int(max(-limit, min(limit, round(turn / 45) * 45)))
        go = 1
    if band(go) == "fast" or band(go) == "medium":
        return Move(ship.id, go, turn)
    return Move(ship.id, go, turn)


def _attack(state: State, ship):
    mounts = mounts_of(ship.dash)
    reach = max(w.range for w in ship.dash.weapons) + 0.01
    enemies = sorted((e for e in _enemies(state, ship) if geo.distance(ship.pos, e.pos) <= reach),
                     key=lambda s: (s.hull, s.id))
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
