"""The computer's doctrine for any side (issue 28 item 5).

Each ship's turn: it looks for the place within its MF left (forward moves and turns, up to five)
or one warp jump straight ahead from which its best attack is worth most — point blank inside its
arc if it can (IV.E: two dice at full CF), the banks fired when the target lies off the bow — and
goes there first; then diverts warp energy or trilithium into the attack and engages, preferring
a target it can finish. With no shot in reach it closes on the nearest enemy (at warp when far),
lays a mine astern of a pursuer, and in engineering repairs when hurt, charges banks and engines,
cloaks when nothing is in reach and mines resources when docked. It asks the engine only about
the orders it means to give (``check``), never for every legal order. It never stalls: every ship's
turn ends with ``EndTurn`` and the battle ends at the round cap.
"""

from __future__ import annotations

from tactical.rules.kit import evolve

from . import actions as A
from . import core as C
from .cards import DF_WEAPONS
from .engine import begun_state, seen_by
from .sequence import check
from .state import BattleState, Refusal, Ship, hull_at

_DEPTH = 5  # moves and turns planned ahead
# (ship, round, where it stands, the map, the mines and every other ship) -> (the battle, the moves still
# planned): the doctrine's choices never depend on the battles played before in the same process
_PLANS: dict = {}


def _ok(state: BattleState, action) -> bool:
    try:
        check(state, action)
    except Refusal:
        return False
    return True


def _enemies(state: BattleState, ship: Ship) -> list[Ship]:
    seen = seen_by(state, ship.side)
    return [s for s in state.ships if s.alive and s.side != ship.side and s.id in seen and not s.cloaked]


class _Shots:
    """What one attack of ``ship`` is worth from a place and facing it might take this turn (its
    expected hits, IV.E with the banks of VI.B), against the nearest enemies."""

    def __init__(self, state: BattleState, ship: Ship, enemies: list[Ship]) -> None:
        self.state, self.ship, self.enemies = state, ship, enemies
        self.seen = seen_by(state, ship.side)
        self.cf = C.cf(state, ship)
        self.arcs = C.ARCS[ship.card.arc]
        self.banks = [ship.card.banks[i] for i, c in enumerate(ship.banks) if c]
        self.can_fire = (self.cf > 0 and not ship.cloaked and not ship.t_engaged
                         and not C.in_kind(state, ship, ("ion",)))
        self.p_hold = {}
        for e in enemies:
            p = min(12, C.df(state, e)) / 12
            if e.crew_option == "command":
                p = 1 - (1 - p) ** 2
            self.p_hold[e.id] = p
        self.blocked: dict = {}
        self.ion = any(t.kind == "ion" for t in state.tiles)
        self.places: tuple = ()
        self._free: _Free | None = None
        self.length = ship.card.hull
        self.all_arc = ship.card.arc == "all"
        self.tactical = ship.crew_option == "tactical"
        # each enemy's axial hex and the distance within which a shot may reach it
        self.axial = [(e, e.pos[0] - (e.pos[1] - (e.pos[1] & 1)) // 2, e.pos[1],
                       (self.cf + (ship.card.hull - 1) + (e.card.hull - 1)) if self.can_fire else -1)
                      for e in enemies]
        self.cells: dict = {}

    def _cells(self, e: Ship) -> list:
        """``e``'s hull hexes a shot may aim at (not in an ion storm), in axial, and astern or not."""
        found = self.cells.get(e.id)
        if found is None:
            found = self.cells[e.id] = [(cb, cb[0] - (cb[1] - (cb[1] & 1)) // 2, cb[1], cb != e.pos)
                                        for cb in e.hull() if not (self.ion and C.kind_at(self.state, cb) == "ion")]
        return found

    def free(self) -> _Free:
        if self._free is None:
            self._free = _Free(self.state, self.ship)
        return self._free

    def ceiling(self, moves: int) -> float:
        """No place within ``moves`` hexes of here has a ``value`` above this: the best shot, at
        full CF with every die of point blank and every bank (each term of ``_shot`` at its most;
        the sums and products only grow with them), at an enemy such a place may reach."""
        if not self.can_fire:
            return 0.0
        top = 0.0
        pos = self.ship.pos
        for e, _, _, reach in self.axial:
            if C.dist(pos, e.pos) - moves > reach:
                continue  # ``value`` never reaches for it from there
            p_miss = self.p_hold[e.id]
            value = (1 - (1 - min(12, self.cf) / 12) ** (2 + self.tactical)) * (1 - p_miss) if self.arcs else 0.0
            for kind in self.banks:
                value += 0.1 * max(0, self.cf - 1) if kind in DF_WEAPONS else 1 - p_miss
            if value:
                value *= 1 + 2 * e.damage / e.card.ss
                if e.card.ss - e.damage <= 1:
                    value += 0.5
            top = max(top, value)
        return top

    def value(self, pos, facing) -> tuple[float, int, int | None]:
        """(the best attack's expected hits, minus the distance to the nearest enemy, its target)."""
        near, best, target = 99, 0.0, None
        pq, pr = pos[0] - (pos[1] - (pos[1] & 1)) // 2, pos[1]
        hull = None
        for e, eq, er, reach in self.axial:
            dq, dr = pq - eq, pr - er
            d0 = (abs(dq) + abs(dr) + abs(dq + dr)) >> 1
            if d0 < near:
                near = d0
            if d0 > reach:
                continue
            if hull is None:
                hull = hull_at(pos, facing, self.length)
            v = self._shot(pos, facing, hull, e, d0)
            if v > best:
                best, target = v, e.id
        return best, -near, target

    def _shot(self, pos, facing, hull, e: Ship, d0: int) -> float:
        state = self.state
        if len(hull) == 1 and e.card.hull == 1 and not self.ion:
            a, b, d = pos, e.pos, d0
        else:  # the nearest pair of hull hexes (ties: the flight stands first), as ``core.nearest``
            d, flags, a, b = 99, None, None, None
            cells = self._cells(e)
            for ca in hull:
                aq, ar, astern = ca[0] - (ca[1] - (ca[1] & 1)) // 2, ca[1], ca != pos
                for cb, bq, br, bstern in cells:
                    dq, dr = aq - bq, ar - br
                    dd = (abs(dq) + abs(dr) + abs(dq + dr)) >> 1
                    if dd < d or (dd == d and (astern, bstern) < flags):
                        d, flags, a, b = dd, (astern, bstern), ca, cb
            if a is None:
                return 0.0
        if d < 1:
            return 0.0
        side = C.relative_side(state, pos, facing, b)
        eff = self.cf - (d - 1)
        # point blank (IV.E): the enemy's stand in one of the three front hexes of the firer's
        dice = 2 if d == 1 and a == pos and b == e.pos and side in C.FRONT else 1
        if self.all_arc and side in C.AFT:
            eff, dice = eff - 1, 1
        if eff < 1:
            return 0.0
        dice += self.tactical
        rolls = side in self.arcs
        bank = bool(self.banks) and a == pos and side == 0 and _straight(pos, facing, b, self.cf)
        if not (rolls or bank):
            return 0.0  # nothing fires from here (whatever lies between)
        key = (a, b)
        blocked = self.blocked.get(key)
        if blocked is None:
            blocked = self.blocked[key] = bool(C.fire_blocked(state, a, b, self.seen, (self.ship.id, e.id)))
        if blocked:
            return 0.0
        p_miss = self.p_hold[e.id]
        value = 0.0
        if rolls:
            p = min(12, eff) / 12
            value = (1 - (1 - p) ** dice) * (1 - p_miss)
        if bank:
            for kind in self.banks:
                value += 0.1 * max(0, self.cf - d) if kind in DF_WEAPONS else 1 - p_miss
        if value:
            value *= 1 + 2 * e.damage / e.card.ss  # fire is focused on the hurt: a ship destroyed repairs nothing
            if e.card.ss - e.damage <= 1:
                value += 0.5  # it can be finished
        return value


def _straight(pos, facing, cell, reach: int) -> bool:
    c = pos
    for _ in range(reach):
        c = C.step(c, facing)
        if c == cell:
            return True
    return False


def _attack(state: BattleState, ship: Ship, target: int) -> A.Action | None:
    """The attack on ``target``: the roll and every charged bank that may fire, else what may;
    the banks alone when the roll is poor and the engineering duty it would cost is worth more
    (SS19: banks fired without the roll leave the duties open)."""
    from .combat import firing_solution

    charged = tuple(i for i, c in enumerate(ship.banks) if c)
    tries = [A.Attack(ship.id, target, True, charged)] if charged else []
    tries += [A.Attack(ship.id, target)]
    if charged:
        tries.append(A.Attack(ship.id, target, False, charged))
        try:
            fs = firing_solution(state, ship, state.ship(target))
        except Refusal:
            fs = None
        poor = fs is not None and (1 - (1 - max(0, min(12, fs["cf"])) / 12) ** fs["dice"]) < 0.35
        if poor and (ship.damage or ship.warp < ship.card.nacelles):
            tries.insert(0, tries.pop())
    for a in tries:
        if _ok(state, a):
            return a
    return None


def _tactical(state: BattleState, ship: Ship) -> A.Action | None:
    enemies = _enemies(state, ship)
    if not enemies:
        return None
    if ship.cloaked and not ship.t_cloak:
        near = min(C.dist(ship.pos, e.pos) for e in enemies)
        if near <= max(1, C.cf(state, ship)) + 1 and _ok(state, A.Decloak(ship.id)):
            return A.Decloak(ship.id)
    if ship.damage + 1 >= ship.card.ss and C.cf(state, ship) >= 2:
        for e in enemies:
            if set(C.point_blank_cells(ship)) & set(e.hull()) and _ok(state, A.Ram(ship.id, e.id)):
                return A.Ram(ship.id, e.id)
    if ship.t_engaged:  # it has attacked: it stays where its shot was best (a mine astern for a pursuer)
        return _lay_mine(state, ship, enemies)
    enemies = sorted(enemies, key=lambda e: (C.dist(ship.pos, e.pos), e.id))[:4]
    if ship.card.cf == 0 and C.cf(state, ship) == 0:
        return _lay_mine(state, ship, enemies)  # a tender: no shot, no plan, no jump (_plan, _jump)
    others = tuple((s.id, s.pos, s.facing, s.damage, s.alive, s.cloaked) for s in state.ships if s.id != ship.id)
    places = (state.tiles, state.mines, others)
    key = (ship.id, state.round, ship.pos, ship.facing, places)
    planned = _recall(state, key)
    if planned:  # the next move of the plan made earlier this turn
        first = planned[0]
        if _ok(state, A.Move(ship.id, first)):
            _remember(ship, state, first, planned[1:], key)
            return A.Move(ship.id, first)
    shots = _Shots(state, ship, enemies)
    shots.places = places
    here = shots.value(ship.pos, ship.facing)
    move = _plan(state, ship, shots, here, key, planned)
    jump = _jump(state, ship, shots, here, move)
    if jump is not None:
        return jump
    if move is not None:
        return A.Move(ship.id, move)
    if here[2] is not None:
        if not ship.boost and not ship.tri and not ship.dil and C.dist(ship.pos, state.ship(here[2]).pos) <= 2:
            if ship.warp and ship.card.nacelles and ship.warp > 1 and _ok(state, A.Transfer(ship.id, "cf")):
                return A.Transfer(ship.id, "cf")
            if ship.trilithium and _ok(state, A.Boost(ship.id, "trilithium:cf")):
                return A.Boost(ship.id, "trilithium:cf")
        attack = _attack(state, ship, here[2])
        if attack is not None:
            return attack
    return _lay_mine(state, ship, enemies)


def _lay_mine(state: BattleState, ship: Ship, enemies) -> A.LayMine | None:
    if ship.mines and not ship.cloaked:
        behind = [e for e in enemies if C.dist(ship.pos, e.pos) <= 3
                  and C.relative_side(state, ship.pos, ship.facing, e.pos) in C.AFT]
        if behind and _ok(state, A.LayMine(ship.id)):
            return A.LayMine(ship.id)
    return None


def _recall(state: BattleState, key: tuple) -> tuple | None:
    """The moves still planned for this ship from here this turn (taken from the memory), None."""
    planned = _PLANS.pop(key, None)
    if planned is not None:
        battle, planned = planned
        if battle is not _battle(state):
            planned = None  # another battle's plan (the same board): not this one's
    return planned


def _plan(state: BattleState, ship: Ship, shots: _Shots, here: tuple, key: tuple, planned: tuple | None) -> str | None:
    """The first move of the best sequence of forward moves and turns within the MF left (up to
    five) if it ends somewhere better than here; the rest is remembered for the next orders.
    ``planned``: what ``_recall`` found (a plan whose next move is refused is made afresh)."""
    if planned == ():
        return None  # the plan is done: here is where its shot is best
    left = min(_DEPTH, C.mf(state, ship) - ship.t_mf)
    if left <= 0 or ship.t_wormhole or ship.t_warped or ship.t_stopped or ship.t_engaged or C.damaged_mf(ship) == 0:
        return None  # (having attacked, it stays where its shot was best)
    if ship.card.cf == 0:
        return None  # nothing to attack with: it keeps its distance (a tender, ruling SS2)
    best = _search(state, ship, shots, here, left)
    if best is None:
        return None
    if not _ok(state, A.Move(ship.id, best[0])):
        return None
    _remember(ship, state, best[0], best[1:], key)
    return best[0]


def _search(state: BattleState, ship: Ship, shots: _Shots, here: tuple, left: int) -> tuple | None:
    """The best sequence of forward moves and turns within ``left`` MF (by the place's shot value,
    then the nearest enemy, then the fewest moves), None when none ends better than here."""
    # A place worth the ceiling next to an enemy cannot be bettered (the search goes by the number of
    # moves, and a longer path only wins on a better value or a nearer enemy): stop there.
    top = (shots.ceiling(left), -1)
    if here[:2] >= top:
        return None
    free = shots.free()
    frontier = [(ship.pos, ship.facing, (), 0, ship.t_nebula)]
    visited = {(ship.pos, ship.facing)}
    best, best_key = None, (here[0], here[1], 0)
    length = ship.card.hull
    nebulae = free.nebulae
    orbits = state.near[1] if not ship.t_orbit else {}
    terrain = state.terrain
    value = shots.value
    step = C.step
    done = False
    while frontier and not done:
        nxt = []
        for pos, facing, path, spent, paid in frontier:
            if done:
                break
            for kind in ("forward", "port", "starboard"):
                if kind == "forward":
                    npos, nfacing = step(pos, facing), facing
                else:
                    npos, nfacing = pos, (facing + (1 if kind == "port" else -1)) % 6
                if (npos, nfacing) in visited:
                    continue
                cells = hull_at(npos, nfacing, length)
                touches = bool(nebulae) and any(c in nebulae for c in cells + hull_at(pos, facing, length))
                cost = 1 + (touches and not paid)
                if spent + cost > left or not free(cells):
                    continue
                visited.add((npos, nfacing))
                npath = path + (kind,)
                v = value(npos, nfacing)
                k = (v[0], v[1], -len(npath))
                if k > best_key:
                    best, best_key = npath, k
                    if k[:2] >= top:
                        done = True
                        break
                if kind == "forward" and (npos in orbits or (npos in terrain and terrain[npos].kind == "wormhole")):
                    continue  # the move stops there (VII.A)
                nxt.append((npos, nfacing, npath, spent + cost, paid or touches))
        frontier = nxt
    if best is None or best_key[:2] <= (here[0], here[1]):
        return None
    return best


class _Free:
    """Whether a hull may stand on some hexes as ``ship``'s side sees the map (``core.hull_ok``
    without the reasons), and no mine there."""

    def __init__(self, state: BattleState, ship: Ship) -> None:
        self.static, self.nebulae = C.blocks(state)
        self.width, self.height = state.width, state.height
        seen = seen_by(state, ship.side)
        self.taken = {c for c, sid in state.occupied.items() if sid != ship.id and sid in seen}
        self.taken |= {m.cell for m in state.mines}

    def __call__(self, cells) -> bool:
        for c in cells:
            if not (0 <= c[0] < self.width and 0 <= c[1] < self.height) or c in self.static or c in self.taken:
                return False
        return True


def _remember(ship: Ship, state: BattleState, first: str, rest: tuple, key: tuple) -> None:
    if first == "forward":
        pos, facing = C.step(ship.pos, ship.facing), ship.facing
    else:
        pos, facing = ship.pos, (ship.facing + (1 if first == "port" else -1)) % 6
    if len(_PLANS) > 5_000:
        _PLANS.clear()
    _PLANS[(ship.id, state.round, pos, facing, key[4])] = (_battle(state), rest)


def _battle(state: BattleState):
    """What tells one battle from another: its first event (the set-up's), the same object in
    every state of the battle."""
    return state.log[0] if state.log else None


def _jump(state: BattleState, ship: Ship, shots: _Shots, here: tuple, move: str | None) -> A.Warp | None:
    """A warp jump straight ahead when it reaches a better shot than moving does, or, with no shot
    in reach, when the nearest enemy is beyond the MF."""
    if not ship.warp or not ship.card.nacelles or ship.t_mf or ship.t_warped or ship.boost or ship.t_stopped:
        return None
    if ship.card.cf == 0 or C.damaged_mf(ship) == 0:
        return None
    wf = C.warp_factor(state, ship)
    free = shots.free()
    best, best_key = None, None
    pos = ship.pos
    for n in range(1, wf + 1):
        pos = C.step(pos, ship.facing)
        if not free(hull_at(pos, ship.facing, ship.card.hull)):
            break
        v = shots.value(pos, ship.facing)
        k = (v[0], v[1])
        if best_key is None or k > best_key:
            best, best_key = n, k
        if C.kind_at(state, pos) == "wormhole" or C.orbiting(state, pos) is not None:
            break
    if best is None:
        return None
    moved_best = here[:2]
    if move is not None:
        moved_best = max(moved_best, (shots.value(*_after_plan(ship, move))[:2]))
    if best_key[0] > moved_best[0] + 0.05 or (
            best_key[0] == 0 and moved_best[0] == 0 and -here[1] > C.mf(state, ship) + 1 and best_key[1] > here[1] + 1):
        a = A.Warp(ship.id, best)
        if _ok(state, a):
            return a
    return None


def _after_plan(ship: Ship, move: str):
    if move == "forward":
        return C.step(ship.pos, ship.facing), ship.facing
    return ship.pos, (ship.facing + (1 if move == "port" else -1)) % 6


_ENGINEERING = ("station_repair", "repair", "dilithium_repair", "bank_repair", "charge_bank", "trilithium_charge",
                "charge_warp", "dilithium_charge", "mine_resource", "station_dilithium", "station_trilithium", "cloak")


_DUTIES = frozenset({"repair", "charge_warp", "charge_bank", "cloak"})  # engineering._DUTIES


def _worth_asking(state: BattleState, ship: Ship, task: str) -> bool:
    """False for a task the engine would refuse on its face (saves asking it)."""
    if task in _DUTIES and (ship.t_attacked or ship.t_duties >= 1 + ship.card.extra_phases):
        return False  # V.A: no duty after an attack, one a phase
    if task in ("repair", "dilithium_repair", "bank_repair", "station_repair") and not ship.damage:
        return False
    if task.startswith(("station", "mine_")):
        if ship.t_engaged or ship.cloaked:
            return False  # V.B, VI.A: no operations after an attack or under a cloak
        if task.startswith("station") and not C.has_station(state):
            return False
        if not ship.berth or C.place_of(state, ship) != ship.berth:
            return False  # V.B: docked since its last turn
    if task.startswith("dilithium") and not ship.dilithium or task.startswith("trilithium") and not ship.trilithium:
        return False
    if task in ("charge_warp", "dilithium_charge") and ship.warp >= ship.card.nacelles:
        return False
    if task in ("charge_bank", "trilithium_charge") and all(ship.banks):
        return False
    if task == "bank_repair" and not any(ship.banks):
        return False
    return not (task == "cloak" and (not ship.card.cloaks or ship.cloaked))


def _engineering(state: BattleState, ship: Ship) -> A.Action:
    for task in _ENGINEERING:
        if not _worth_asking(state, ship, task):
            continue
        if task == "bank_repair" and ship.damage * 3 < ship.card.ss:
            continue  # a charged bank is worth more than one shield factor until the shield is low
        if task == "cloak" and any(C.dist(ship.pos, e.pos) <= C.cf(state, ship) + 1
                                   for e in _enemies(state, ship)):
            continue
        a = A.Engineer(ship.id, task)
        if _ok(state, a):
            return a
    return A.EndTurn(ship.id)


def _crew(state: BattleState, ship: Ship) -> A.Crew:
    enemies = _enemies(state, ship)
    near = min((C.dist(ship.pos, e.pos) for e in enemies), default=99)
    if ship.damage * 2 >= ship.card.ss:
        return A.Crew(ship.id, "engineering")
    if near <= C.cf(state, ship) + C.mf(state, ship):
        return A.Crew(ship.id, "tactical")
    return A.Crew(ship.id, "helm")


def _power(state: BattleState, side: int) -> float:
    """A side's fighting strength (ruling SS24): each ship's points (III: its CF, banks and devices)
    times the attacks on target its shield can still stand — its SS left over the chance such an
    attack gets through its printed DF (IV.E: a defence roll over DF fails, 12 − DF in 12)."""
    return sum(s.card.points * (s.card.ss - s.damage) * 12 / (12 - min(11, s.card.df))
               for s in state.ships if s.alive and s.side == side)


def withdraws(state: BattleState, side: int) -> bool:
    """Outgunned two to one by another side (or nothing left to fight with) once it has given battle
    for two rounds: it withdraws (ruling SS24)."""
    if state.round < 3:
        return False
    others = [_power(state, o) for o in {s.side for s in state.ships if s.alive and s.side != side}]
    strongest = max(others, default=0.0)
    return strongest > 0 and _power(state, side) * 2 < strongest


def doctrine_action(state: BattleState) -> A.Action | None:
    if state.over:
        return None
    if state.active is None:
        ship = min((s for s in state.ships if s.alive and s.side == state.side and not s.done), key=lambda s: s.id)
        if withdraws(state, ship.side):
            return A.Withdraw(ship.id)
        if ship.crew:
            return _crew(state, ship)
    else:
        ship = state.ship(state.active)
    if state.active != ship.id:
        state = evolve(begun_state(state, ship), active=ship.id)  # as its turn begins
        ship = state.ship(ship.id)
    if ship.t_phase != "engineering":
        act = _tactical(state, ship)
        if act is not None:
            return act
    return _engineering(state, ship)


__all__ = ["doctrine_action", "withdraws"]
