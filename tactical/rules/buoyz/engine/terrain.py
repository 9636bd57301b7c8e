"""The table itself: celestial objects and sensors (9.0, 9.1, 9.2), orbits (9.0), Tholian webs
(7.3), planetary and base rotation (11.5).
"""

from __future__ import annotations

from .. import actions as A
from ..geometry import EPSILON, around, distance, inches, norm, segment_meets_circle, segments_cross
from ..sds import has
from ..state import BattleState, Ship, Web, with_ship
from ..state import evolve as replace
from .core import _Ctx, allowance

SENSOR_RANGE, SENSOR_RANGE_INHIBITED, ADVANCED_SENSOR_RANGE = 40, 30, 50  # 9.1, 9.2
MASSES = ("planet", "moon")
INHIBITORS = ("asteroids", "nebula")


def _through(state: BattleState, a, b, kinds) -> bool:
    return any(o.kind in kinds and segment_meets_circle(a, b, o.centre, o.radius) for o in state.objects)


def located(state: BattleState, ship: Ship, target: Ship) -> bool:
    """9.1, 9.2: within sensor range (40\"; 30\" into or through asteroids or nebulae; 50\" with
    Advanced Sensors, which ignore asteroids and nebulae; a quarter when either ship is cloaked)
    and no planet or moon in the way (ruling BZ41)."""
    if not state.objects:
        return inches(ship.pos, target.pos) <= (ADVANCED_SENSOR_RANGE if has(ship.abilities, "Advanced Sensors")
                                                else SENSOR_RANGE) / (4 if ship.cloaked or target.cloaked else 1)
    if _through(state, ship.pos, target.pos, MASSES):
        return False
    advanced = has(ship.abilities, "Advanced Sensors")
    rng = ADVANCED_SENSOR_RANGE if advanced else (
        SENSOR_RANGE_INHIBITED if _through(state, ship.pos, target.pos, INHIBITORS) else SENSOR_RANGE)
    if ship.cloaked or target.cloaked:
        rng /= 4
    return inches(ship.pos, target.pos) <= rng


def inhibited(state: BattleState, ship: Ship, other_pos=None) -> bool:
    """9.1: ``ship`` is inside (or, with ``other_pos``, its line to it passes through) an asteroid
    field or nebula."""
    end = ship.pos if other_pos is None else other_pos
    return bool(state.objects) and _through(state, ship.pos, end, INHIBITORS)


ORBIT_RULE = "000 9.0 Celestial Objects & Sensors (orbits)"
ORBIT_REACH, ORBIT_STEP = 1.0, 0.5  # 9.0 "within 1\" of a moon or planet … moving ½\" around it each turn"


def _body(state: BattleState, body_id: object):
    return next((o for o in state.objects if o.id == body_id and o.kind in MASSES), None)


def orbit_problem(state: BattleState, ship: Ship, action: A.Move) -> str | None:
    """9.0 (ruling BZ57): a ship within 1\" of a planet's or moon's surface may be declared in
    orbit: its whole move is ½\" counter-clockwise around the body's centre, at its distance."""
    body = _body(state, action.orbit)
    if body is None:
        return f"{action.orbit!r} is not a planet or moon on the table"
    if action.before or action.after or action.turn or action.turn_end or action.lay_mine or action.sweep:
        return "a ship in orbit moves ½\" around its planet or moon and makes no other move"
    if ship.sd.speed is None or ship.held or ship.landed or ship.hyperspace or allowance(ship) < ORBIT_STEP - EPSILON:
        return f"{ship.name} ({ship.id}) cannot move into orbit (a base, dead in space, held by a tractor beam, " \
               "landed or in hyperspace)"
    if distance(ship.pos, body.centre) - body.radius > ORBIT_REACH + EPSILON:
        return f"{ship.name} ({ship.id}) is not within 1\" of {body.kind} {body.id}"
    return None


def _orbit_end(state: BattleState, ship: Ship, body_id: int):
    body = _body(state, body_id)
    pos, turned = around(ship.pos, body.centre, ORBIT_STEP)
    return pos, norm(ship.heading + turned)


def _do_orbit(state: BattleState, ship: Ship, action: A.Move, ctx: _Ctx) -> BattleState:
    pos, heading = _orbit_end(state, ship, action.orbit)
    ship = replace(ship, pos=pos, heading=heading, moved=True, moved_inches=ORBIT_STEP,
                   shields_lowered=ship.shields_lowered or action.lower_shields)
    ctx.log("move", f"{ship.name} ({ship.id}) orbits body {action.orbit}: ½\" to ({pos[0]:g}, {pos[1]:g}) heading "
            f"{heading:g} ({ORBIT_RULE})", ship=ship.id, pos=list(pos), heading=heading, orbit=action.orbit, left=False)
    state = replace(with_ship(state, ship), nominated=None)
    return _after_nomination(state, ship.side, ctx, ship.id)


def orbit_options(state: BattleState, ship: Ship) -> list[A.Move]:
    out = []
    for o in state.objects:
        m = A.Move(ship.id, orbit=o.id)
        if o.kind in MASSES and orbit_problem(state, ship, m) is None:
            out.append(m)
    return out


WEB_RULE = "000 7.3 Tholian Web"
WEB_LENGTH = 6.0  # ruling BZ54: a web spans at most 6" between its anchors
WEB_HOLD = 0.5  # ruling BZ54: an anchoring ship that moves more than ½" from its end breaks the web


def web_block(state: BattleState, legs) -> str | None:
    """7.3 "Webs cannot be moved through" (ruling BZ54: by any ship or AC counter, either side's)."""
    for web in state.webs:
        for a, b in legs:
            if segments_cross(a, b, web.a, web.b):
                return f"a Tholian web (web {web.id}) cannot be moved through"
    return None


def _anchor(state: BattleState, ship: Ship) -> int:
    """A web's end anchors to an asteroid field the ship's end lies in, else to the ship (7.3)."""
    for o in state.objects:
        if o.kind == "asteroids" and distance(ship.pos, o.centre) <= o.radius + EPSILON:
            return -o.id
    return ship.id


def _spin_web(state: BattleState, ship: Ship, ctx: _Ctx) -> BattleState:
    """7.3 (ruling BZ54): "laid by at least two Tholian ships moving as if laying a minefield":
    a ship that moves spinning a web, and ends within 6\" of a ship of its side that moved
    spinning one earlier this turn, completes a web between their two positions."""
    partners = [s for s in state.active_ships(ship.side) if s.id != ship.id and s.weaving
                and distance(s.pos, ship.pos) <= WEB_LENGTH + EPSILON]
    if not partners:
        ctx.log("web", f"{ship.name} ({ship.id}) spins a web strand: a second web-layer within 6\" must join it "
                f"this turn ({WEB_RULE})", ship=ship.id, web=None)
        return state
    partner = min(partners, key=lambda s: (distance(s.pos, ship.pos), s.id))
    web = Web(max((w.id for w in state.webs), default=0) + 1, ship.side, partner.pos, ship.pos,
              (_anchor(state, partner), _anchor(state, ship)))
    ctx.log(
        "web",
        f"{partner.name} ({partner.id}) and {ship.name} ({ship.id}) complete Tholian web {web.id} "
        f"({WEB_RULE})",
        ship=ship.id,
        partner=partner.id,
        about=(partner.id,),
        web=web.id,
        a=list(web.a),
        b=list(web.b),
    )
    return replace(state, webs=state.webs + (web,))


def _webs_hold(state: BattleState, ctx: _Ctx) -> BattleState:
    """End Phase (ruling BZ54): a web holds while each end is anchored to an asteroid field, or to
    its ship, still in the battle and within ½\" of that end."""
    keep = []
    for web in state.webs:
        ok = True
        for anchor, end in zip(web.anchors, (web.a, web.b)):
            if anchor < 0:
                continue
            s = state.ship(anchor)
            if not s.active or distance(s.pos, end) > WEB_HOLD + EPSILON:
                ok = False
        if ok:
            keep.append(web)
        else:
            ctx.log("web_gone", f"Tholian web {web.id} has lost an anchor and collapses ({WEB_RULE})", web=web.id)
    return replace(state, webs=tuple(keep)) if len(keep) != len(state.webs) else state


ROTATION_RULE = "000 11.5 Planetary / Base Rotation"
ROTATION_STEP = 0.5  # 11.5 "We suggest ½\" a turn"


def _rotate(state: BattleState, ctx: _Ctx) -> BattleState:
    """11.5 (an option, ruling BZ58): in the End Phase every base (Speed N/A) and landed ship
    within 1\" of a planet or moon turns ½\" around it, and every moon ½\" around its planet."""
    if not state.rotation:
        return state
    planets = [o for o in state.objects if o.kind == "planet"]
    for ship in state.ships:
        if not ship.active or not (ship.sd.speed is None or ship.landed):
            continue
        body = min((o for o in state.objects if o.kind in MASSES
                    and distance(ship.pos, o.centre) - o.radius <= ORBIT_REACH + EPSILON),
                   key=lambda o: (distance(ship.pos, o.centre) - o.radius, o.id), default=None)
        if body is None:
            continue
        pos, turned = around(ship.pos, body.centre, ROTATION_STEP)
        state = with_ship(state, replace(ship, pos=pos, heading=norm(ship.heading + turned)))
        ctx.log("rotation", f"{ship.name} ({ship.id}) turns with {body.kind} {body.id} to ({pos[0]:g}, {pos[1]:g}) "
                f"({ROTATION_RULE})", ship=ship.id, pos=list(pos))
    if planets:
        objects = []
        for o in state.objects:
            if o.kind == "moon":
                planet = min(planets, key=lambda p: (distance(o.centre, p.centre), p.id))
                o = replace(o, centre=around(o.centre, planet.centre, ROTATION_STEP)[0])
            objects.append(o)
        state = replace(state, objects=tuple(objects))
    return state


# The other phases of the turn, imported last: the phases call one another (the sequence
# calls each phase; a phase hands the turn back to the sequence), and by now every name
# of this module is defined for them.
from .sequence import _after_nomination  # noqa: E402
