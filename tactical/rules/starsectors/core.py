"""The ship values of the moment and the map's geometry (004 II, IV.A, IV.D, IV.E, IV.G, VII.A).

``cf``/``df``/``mf`` are a ship's current factors: the card's, less one per hit (IV.F), the MF
limited by the shield left (IV.G), with the turn's modifiers (warp transfer IV.C, dilithium and
trilithium VII.B, the command crew VII.B, cloak VI.A, Mutara nebula and orbit VII.A). Geometry:
hull hexes, the firing path from the nearest hull point (IV.E), arcs (IV.D), line of sight.
"""

from __future__ import annotations

from tactical.rules.geometry import hex as hx

from .cards import ARCS
from .state import BLOCKING, NEBULAE, BattleState, Coord, Ship, step

FRONT = (5, 0, 1)  # the three front hex sides: the point-blank hexes (IV.E)
AFT = (2, 3, 4)  # directly aft, port aft, starboard aft (IV.E)


def kind_at(state: BattleState, cell: Coord) -> str:
    tile = state.terrain.get(cell)
    return tile.kind if tile else ""


def in_kind(state: BattleState, ship: Ship, kinds) -> bool:
    """Its flight stand's hex is of one of ``kinds`` (ruling SS10: "ship base must occupy hex")."""
    return kind_at(state, ship.pos) in kinds


def star_adjacent(state: BattleState, cell: Coord) -> bool:
    return cell in state.near[0]


def orbiting(state: BattleState, cell: Coord) -> int | None:
    """The planet or moon tile ``cell`` orbits (is adjacent to), else None (VII.A)."""
    return state.near[1].get(cell)


def has_station(state: BattleState) -> bool:
    """Whether the map has a space station (remembered on the state)."""
    found = state.__dict__.get("_stations")
    if found is None:
        found = state.__dict__["_stations"] = any(t.kind == "station" for t in state.tiles)
    return found


def docked_station(state: BattleState, ship: Ship) -> int | None:
    if not has_station(state):
        return None
    for c in ship.hull():
        for n in state.grid.neighbours(c):
            t = state.terrain.get(n)
            if t is not None and t.kind == "station":
                return t.id
    return None


def place_of(state: BattleState, ship: Ship) -> str:
    """Where a ship is docked, for V.B's "remain docked … for one turn": a body it orbits, a
    station beside it, or the metaphasic nebula it is in ("" when none)."""
    parts = []
    o = orbiting(state, ship.pos)
    if o is not None:
        parts.append(f"orbit:{o}")
    st = docked_station(state, ship)
    if st is not None:
        parts.append(f"station:{st}")
    if kind_at(state, ship.pos) == "metaphasic":
        parts.append(f"nebula:{state.terrain[ship.pos].id}")
    return "|".join(parts)


_LINES: dict = {}
_SIDES: dict = {}


def dist(a: Coord, b: Coord) -> int:
    """``HexGrid.distance`` inline (odd-r cells to axial, then the cube distance)."""
    dq = (a[0] - (a[1] - (a[1] & 1)) // 2) - (b[0] - (b[1] - (b[1] & 1)) // 2)
    dr = a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def relative_side(state: BattleState, pos: Coord, facing: int, other: Coord) -> int:
    """``geometry.hex.relative_side``, its direction remembered per pair of cells (the angle
    between two hex centres does not depend on the map's size)."""
    key = (pos, other)
    side = _SIDES.get(key)
    if side is None:
        if len(_SIDES) > 400_000:
            _SIDES.clear()
        side = _SIDES[key] = hx.side_towards(state.grid, pos, other)
    return (side - facing) % 6


def line(state: BattleState, a: Coord, b: Coord) -> list:
    """The grid's hex line (cached: the same map size gives the same line)."""
    key = (state.width, state.height, a, b)
    found = _LINES.get(key)
    if found is None:
        if len(_LINES) > 200_000:
            _LINES.clear()
        found = _LINES[key] = state.grid.line(a, b)
    return found


# --- factors --------------------------------------------------------------------------------------

def cf(state: BattleState, ship: Ship) -> int:
    v = ship.card.cf - ship.damage
    v += (ship.boost == "cf") + (ship.tri == "cf")
    if in_kind(state, ship, ("mutara",)):
        v -= 1
    return max(0, v)


def df(state: BattleState, ship: Ship) -> int:
    v = ship.card.df - ship.damage - ship.df_drop
    v += (ship.boost == "df") + (ship.tri == "df")
    if in_kind(state, ship, ("mutara",)):
        v -= 1
    return max(0, v)


def damaged_mf(ship: Ship) -> int:
    """IV.G: the MF left by damage — the shield left (SS − hits) when it is below the MF."""
    return max(0, min(ship.card.mf, ship.card.ss - ship.damage))


def mf(state: BattleState, ship: Ship) -> int:
    """The moves and turns it may make this turn (IV.A, IV.G, VI.A, VII.A, VII.B, IV.C)."""
    base = damaged_mf(ship)
    if base == 0:
        return 0
    v = base - ship.cloaked + (ship.crew_option == "helm") + (ship.dil == "mf") + (ship.boost == "mf")
    if ship.t_orbit:
        v = (v + 1) // 2  # half MF in orbit (the turn began in orbit: ruling SS11), fractions up
    return max(0, v)


def warp_factor(state: BattleState, ship: Ship) -> int:
    """IV.B: current CF + MF (the helm order counts: VII.B "at both sub-light and warp")."""
    return cf(state, ship) + mf(state, ship)


def reverse_allowance(ship: Ship) -> int:
    return 1 + (ship.crew_option == "helm")  # IV.A, VII.B


# --- geometry -------------------------------------------------------------------------------------

def hull_ok(state: BattleState, cells, mover: Ship, seen) -> str:
    """Why ``cells`` cannot hold ``mover``'s hull ("" when they can), seen by ``seen`` (ids)."""
    for c in cells:
        if not state.grid.in_bounds(c):
            return "off the map"
        k = kind_at(state, c)
        if k in BLOCKING:
            return f"the {k} is impassable" if k != "star" else "a star's hex is impassable"
        if star_adjacent(state, c):
            return "the hexes next to a star are off-limits"
    occupied = state.occupied
    for c in cells:
        sid = occupied.get(c)
        if sid is not None and sid != mover.id and sid in seen:
            return f"ship {sid} is in the way"
    return ""


def blocks(state: BattleState) -> tuple[frozenset, frozenset]:
    """The hexes no hull may enter whoever sees what (impassable bodies, a star's neighbours,
    VII.A) and the nebula hexes (VII.A's −1 MF), remembered on the state."""
    found = state.__dict__.get("_blocks")
    if found is None:
        cells = {c for c, t in state.terrain.items() if t.kind in BLOCKING} | set(state.near[0])
        nebulae = {c for c, t in state.terrain.items() if t.kind in NEBULAE}
        found = state.__dict__["_blocks"] = (frozenset(cells), frozenset(nebulae))
    return found


def nearest(state: BattleState, a: Ship, b: Ship, targetable=None) -> tuple[Coord, Coord, int]:
    """IV.E: the firing path from the closest point of ``a``'s hull to ``b``'s (ties: the
    flight stands first)."""
    best = None
    for ca in a.hull():
        for cb in b.hull():
            if targetable is not None and not targetable(cb):
                continue
            d = dist(ca, cb)
            key = (d, ca != a.pos, cb != b.pos)
            if best is None or key < best[0]:
                best = (key, ca, cb)
    if best is None:
        return a.pos, b.pos, -1
    return best[1], best[2], best[0][0]


def in_arc(state: BattleState, ship: Ship, cell: Coord) -> bool:
    arcs = ARCS[ship.card.arc]
    if not arcs:
        return False
    if ship.card.arc == "all":
        return True
    return relative_side(state, ship.pos, ship.facing, cell) in arcs


def bow_line(state: BattleState, ship: Ship, reach: int) -> list[Coord]:
    """The hexes straight off the bow (VI.B "directly forward off the bow")."""
    out, c = [], ship.pos
    for _ in range(reach):
        c = step(c, ship.facing)
        if not state.grid.in_bounds(c):
            break
        out.append(c)
    return out


def point_blank_cells(ship: Ship) -> tuple[Coord, ...]:
    return point_blank_at(ship.pos, ship.facing)


def point_blank_at(pos: Coord, facing: int) -> tuple[Coord, ...]:
    return (step(pos, facing + 5), step(pos, facing), step(pos, facing + 1))  # FRONT


def fire_blocked(state: BattleState, a: Coord, b: Coord, seen, exclude=()) -> str:
    """IV.D: why fire from ``a`` to ``b`` is blocked ("" when clear): terrain or a vessel seen by
    the firer between them (VII.A: all terrain blocks fire; ruling SS9), or a nebula's edge."""
    ka, kb = kind_at(state, a), kind_at(state, b)
    ta, tb = state.terrain.get(a), state.terrain.get(b)
    if (ka in NEBULAE or kb in NEBULAE) and (ta is None or tb is None or ta.id != tb.id):
        return "ships in a nebula cannot fire on or be fired upon from outside it"
    occ = state.occupied
    for c in line(state, a, b)[1:-1]:
        k = kind_at(state, c)
        if k and not (k in NEBULAE and ta is not None and state.terrain[c].id == ta.id):
            return f"the {k} at {list(c)} blocks the line of sight"
        sid = occ.get(c)
        if sid is not None and sid in seen and sid not in exclude:
            return f"a vessel at {list(c)} blocks the line of sight"
    return ""


def cloak_between(state: BattleState, a: Coord, b: Coord, exclude=()) -> bool:
    """VI.A: a cloaked ship between two vessels disrupts the targeting of both."""
    cloaked = [s for s in state.ships if s.cloaked and s.alive and s.id not in exclude]
    if not cloaked:
        return False
    cells = set(line(state, a, b)[1:-1])
    return any(cells & set(s.hull()) for s in cloaked)


__all__ = ["AFT", "FRONT", "blocks", "bow_line", "cf", "cloak_between", "damaged_mf", "df", "dist", "docked_station",
           "fire_blocked", "has_station", "hull_ok", "in_arc", "in_kind", "kind_at", "mf", "nearest", "orbiting",
           "place_of", "point_blank_at", "point_blank_cells", "relative_side", "reverse_allowance", "star_adjacent",
           "step", "warp_factor"]
