"""My Trek V's rules (pure Python): ``check`` beside ``apply``, ``legal_actions``, the outcome.

Every step of a turn is secret orders, one action per ship, revealed together (ruling MT17): in
Phase Zero each ship's ``Orders``, in a phase it moves in its ``Move``, in an attack phase its
``Attack``. The sides give theirs in turn (side 1's ships, then side 2's); an order is told to
its own side only; when the last ship's is given, the step is resolved at once, simultaneously
(002 Combat Phases: "Moves and attacks occur simultaneously"), and the battle runs on to the next
step that needs orders. Refusals roll nothing and change nothing; a refusal never depends on a
ship the acting side cannot see (an enemy under its invisibility device, ruling MT11).
"""

from __future__ import annotations

from collections.abc import Iterable

from tactical.rules import kit
from tactical.rules.geometry import square
from tactical.rules.kit import IllegalActionError, evolve

from . import tables as T
from .state import MOVES, WEAPONS, Attack, Battle, Move, Orders, Power, Ship

DETECTION_RANGE = 3  # ruling MT11
TRACTOR_RANGE = 1  # ruling MT8
TORPEDO_DICE, MISSILE_DICE = 4, 2  # ruling MT7
INVISIBILITY_PP = 2  # ruling MT11
TRACTOR_PP = 1  # ruling MT8


# --- looking at the table ---------------------------------------------------------------------


def max_speed(ship: Ship, engines: int) -> int:
    """The top speed ``engines`` power points allow (ruling MT4): none all stop, 1 full sub-light,
    2 half the ship's Hyper speed (rounded up), 3 its top speed."""
    top = ship.design.top_speed
    if engines <= 0:
        return T.STOP
    if engines == 1 or top <= T.FULL:
        return min(T.FULL, top)
    if engines == 2:
        return T.FULL + (ship.design.max_hyper + 1) // 2
    return top


def hidden_from(battle: Battle, ship: Ship, side: int | None) -> bool:
    """Whether ``side`` cannot see ``ship``: an enemy under its invisibility device more than 3
    spaces from every ship of ``side`` (ruling MT11). None (the moderator) sees everything."""
    if side is None or ship.side == side or not ship.invisible or ship.removed:
        return False
    return all(
        square.distance(ship.pos, s.pos) > DETECTION_RANGE for s in battle.ships if s.side == side and s.alive
    )


def alive_sides(battle: Battle) -> list[int]:
    return [side for side in battle.sides if any(s.side == side and s.alive for s in battle.ships)]


def needs_order(battle: Battle, ship: Ship) -> bool:
    if not ship.alive or battle.over:
        return False
    if battle.step == "zero":
        return True
    if battle.step == "move":
        return T.moves_in(ship.speed, battle.phase) and not ship.held and not ship.invisible
    return bool(_weapons_ready(ship))


def plotted_move(ship: Ship, phase: int) -> str:
    """An invisible ship's move in ``phase``: the letter of its plot for this move of the turn
    (hold when the plot is shorter; ruling MT11)."""
    n = sum(1 for p in T.CHART[ship.speed] if p < phase)
    return ship.plot[n] if n < len(ship.plot) else "H"


def _plotted_movers(battle: Battle) -> list[Ship]:
    return [
        s
        for s in battle.ships
        if s.alive and s.invisible and not s.held and T.moves_in(s.speed, battle.phase)
    ]


def _weapons_ready(ship: Ship) -> tuple[str, ...]:
    if ship.invisible:  # an invisible ship attacks with nothing (ruling MT11)
        return ()
    out = []
    if ship.energy("weapons") > 0:
        out.append("beams")
    if ship.design.torpedoes and not ship.torpedo_used:
        out.append("torpedo")
    if ship.design.missiles and not ship.missile_used:
        out.append("missile")
    if ship.power.tractor:
        out.append("tractor")
    return tuple(out)


def acting_sides(battle: Battle) -> tuple[int, ...]:
    """Every side with a ship still to be given orders in this step, in side order (ruling MT17:
    the sides give them in any order; the step is resolved when the last is in)."""
    cached = battle.__dict__.get("_acting")
    if cached is not None:
        return cached
    found: tuple[int, ...] = ()
    if not battle.over:
        done = battle.ordered()
        found = tuple(
            side
            for side in battle.sides
            if any(s.side == side and s.id not in done and needs_order(battle, s) for s in battle.ships)
        )
    battle.__dict__["_acting"] = found
    return found


def acting_side(battle: Battle) -> int | None:
    """The first of ``acting_sides`` (the side the ``RuleBook`` protocol and the doctrine loop ask)."""
    sides = acting_sides(battle)
    return sides[0] if sides else None


def in_arc(attacker: Ship, target: Ship, weapon: str) -> bool:
    """Forward weapons fire at the half of the table ahead, abeam included; aft weapons make them
    fire all round; missiles and tractor beams fire all round (rulings MT7, MT8, MT12)."""
    if weapon in ("missile", "tractor") or attacker.design.aft:
        return True
    ahead, _ = square.relative(attacker.facing, (target.x - attacker.x, target.y - attacker.y))
    return ahead >= 0


def blocked(battle: Battle, attacker: Ship, target: Ship) -> bool:
    """A ship between them on the line (every square of some step of it holds another ship the
    attacker can see; ruling MT12)."""
    others = {
        s.pos for s in battle.ships if s.alive and s.id not in (attacker.id, target.id) and not s.invisible
    }
    return any(all(sq in others for sq in step) for step in square.squares_between(attacker.pos, target.pos))


def deductions(
    battle: Battle, attacker: Ship, target: Ship, weapon: str, system: str
) -> list[tuple[str, int]]:
    """The attack roll's deductions (002 Attacking), each named."""
    out = []
    spaces = square.distance(attacker.pos, target.pos)
    if weapon != "missile" and T.range_deduction(spaces):
        out.append((f"range {spaces}", T.range_deduction(spaces)))
    if T.speed_deduction(attacker.speed):
        out.append((f"attacker {T.speed_name(attacker.speed)}", T.speed_deduction(attacker.speed)))
    if T.speed_deduction(target.speed):
        out.append((f"defender {T.speed_name(target.speed)}", T.speed_deduction(target.speed)))
    if T.SIZE_DEDUCTION[target.design.size]:
        out.append((f"size {target.design.size}", T.SIZE_DEDUCTION[target.design.size]))
    if system:
        out.append((f"targeting {system}", T.TARGETED_DEDUCTION))
    if blocked(battle, attacker, target):
        out.append(("blocked", T.BLOCKED_DEDUCTION))
    if target.invisible:
        out.append(("invisible", T.INVISIBLE_DEDUCTION))
    return out


def attack_dice(ship: Ship, weapon: str) -> int:
    """Beams: the weapon dice times the power in them over 3, rounded up (ruling MT6)."""
    if weapon == "torpedo":
        return TORPEDO_DICE
    if weapon == "missile":
        return MISSILE_DICE
    return -(-ship.design.dice * ship.energy("weapons") // 3)


# --- refusals ----------------------------------------------------------------------------------


def _own_ship(battle: Battle, ship_id: object) -> Ship:
    ship = battle.ship(ship_id) if isinstance(ship_id, int) else None
    if ship is None or ship.side not in acting_sides(battle) or not ship.alive:
        raise IllegalActionError(T.PHASES, f"there is no ship {ship_id} to give orders to now")
    if ship.id in battle.ordered():
        raise IllegalActionError(T.PHASES, f"{ship.label} already has its orders for this step")
    if not needs_order(battle, ship):
        raise IllegalActionError(T.PHASES, f"{ship.label} has nothing to do in this step")
    return ship


def _check_orders(battle: Battle, ship: Ship, o: Orders) -> None:
    pp = T.power_points(ship.design.size, ship.hull)
    for system in T.SYSTEMS_NAMES:
        value = getattr(o, system)
        if not 0 <= value <= T.MAX_PER_SYSTEM:
            raise IllegalActionError(
                T.PHASE_ZERO, f"no more than {T.MAX_PER_SYSTEM} power points into {system}"
            )
        if value > ship.factor(system):
            raise IllegalActionError(
                T.SYSTEMS,
                f"{system} are at factor {T.FACTOR_NAMES[ship.factor(system)]}: "
                f"at most {ship.factor(system)} power points",
            )
    if o.tractor not in (0, TRACTOR_PP):
        raise IllegalActionError(
            f"{T.PHASE_ZERO} (ruling MT8)", f"a tractor beam takes {TRACTOR_PP} power point or none"
        )
    if o.invisibility not in (0, INVISIBILITY_PP) or (o.invisibility and not ship.design.invisibility):
        raise IllegalActionError(
            f"{T.PHASE_ZERO} (ruling MT11)",
            f"only a ship with an invisibility device powers it, with {INVISIBILITY_PP} power points",
        )
    if o.power.total > pp:
        raise IllegalActionError(T.HULL, f"{ship.label} has {pp} power points, not {o.power.total}")
    top = max_speed(ship, o.engines)
    if not 0 <= o.speed <= top:
        raise IllegalActionError(
            T.PHASE_ZERO, f"with {o.engines} power points in engines the top speed is {T.speed_name(top)}"
        )
    if o.plot and (not o.invisibility or len(o.plot) > len(T.CHART[o.speed]) or set(o.plot) - set(MOVES)):
        raise IllegalActionError(
            f"{T.PHASE_ZERO} (ruling MT11)",
            "a plot is for a ship going invisible: one of F, L, "
            f"R, H for each of its {len(T.CHART[o.speed])} moves this turn",
        )
    if o.repair and (o.repair not in T.SYSTEMS_NAMES or ship.factor(o.repair) >= T.MAX_PER_SYSTEM):
        raise IllegalActionError(T.SYSTEMS, f"{o.repair} are not damaged: there is nothing to repair")


def _check_move(battle: Battle, ship: Ship, m: Move) -> None:
    if m.how not in MOVES:
        raise IllegalActionError(
            T.PHASES, "a move is F (one space forward), L or R (a 90 degree turn) or H (hold)"
        )
    if m.how == "F":
        dx, dy = square.FACING_VECTORS[ship.facing]
        if not (0 <= ship.x + dx < battle.width and 0 <= ship.y + dy < battle.height):
            raise IllegalActionError(
                f"{T.PHASES} (ruling MT13)", f"{ship.label} cannot move off the edge of the board"
            )


def _check_attack(battle: Battle, ship: Ship, a: Attack) -> None:
    if a.target == 0:
        if a.weapon != "beams" or a.system:
            raise IllegalActionError(T.ATTACKING, "no attack names no weapon and no system")
        return
    target = battle.ship(a.target) if isinstance(a.target, int) else None
    if (
        target is None
        or target.side == ship.side
        or not target.alive
        or hidden_from(battle, target, ship.side)
    ):
        raise IllegalActionError(T.ATTACKING, f"there is no enemy ship {a.target} in sight")
    if a.weapon not in WEAPONS or a.weapon not in _weapons_ready(ship):
        raise IllegalActionError(T.ATTACKING, f"{ship.label} has no {a.weapon} ready")
    if a.system and (a.system not in T.SYSTEMS_NAMES or a.weapon == "tractor"):
        raise IllegalActionError(
            T.TARGETING, "a weapon targets engines, fields or weapons (or the whole ship)"
        )
    spaces = square.distance(ship.pos, target.pos)
    reach = TRACTOR_RANGE if a.weapon == "tractor" else T.MAX_RANGE
    if spaces > reach:
        raise IllegalActionError(
            T.ATTACKING, f"{target.label} is {spaces} spaces away: out of range ({reach})"
        )
    if not in_arc(ship, target, a.weapon):
        raise IllegalActionError(
            f"{T.ATTACKING} (ruling MT12)",
            f"{target.label} is behind {ship.label}: only aft weapons fire there",
        )


def check(battle: Battle, action) -> None:
    if battle.over:
        raise IllegalActionError(T.PHASES, "the battle is over")
    kind = {Orders: "zero", Move: "move", Attack: "attack"}.get(type(action))
    if kind is None:
        raise IllegalActionError(T.PHASES, "not an action of this rule book")
    if kind != battle.step:
        raise IllegalActionError(
            T.PHASES, f"this is {step_label(battle)}, not the time for {type(action).__name__}"
        )
    ship = _own_ship(battle, action.ship)
    {"zero": _check_orders, "move": _check_move, "attack": _check_attack}[kind](battle, ship, action)


def step_label(battle: Battle) -> str:
    if battle.step == "zero":
        return f"turn {battle.turn}, Phase Zero"
    return f"turn {battle.turn}, phase {battle.phase} ({battle.step})"


# --- applying -------------------------------------------------------------------------------------


def apply(battle: Battle, action, dice) -> kit.Resolution:
    check(battle, action)
    log = kit.EventLog()
    ship = battle.ship(action.ship)
    log.add(
        "orders",
        f"{ship.label}: orders given ({_order_text(action)}).",
        sides=(ship.side,),
        public=False,
        ship=ship.id,
    )
    battle = evolve(battle, pending=battle.pending + ((ship.id, action),))
    if not acting_sides(battle):
        battle = _resolve(battle, dice, log)
        battle = _advance(battle, dice, log)
    return kit.Resolution(evolve(battle, log=battle.log + tuple(log.events)), tuple(log.events))


def _order_text(action) -> str:
    if isinstance(action, Orders):
        text = (
            f"engines {action.engines}, fields {action.fields}, weapons {action.weapons}, tractor "
            f"{action.tractor}, invisibility {action.invisibility}; speed {T.speed_name(action.speed)}"
        )
        return (
            text
            + (", SELF-DESTRUCT" if action.destruct else "")
            + (f", repair {action.repair}" if action.repair else "")
            + (f", plot {action.plot}" if action.plot else "")
        )
    if isinstance(action, Move):
        return {"F": "forward", "L": "turn left", "R": "turn right", "H": "hold"}[action.how]
    if not action.target:
        return "no attack"
    return f"{action.weapon} at ship {action.target}" + (f"'s {action.system}" if action.system else "")


def _tell(log: kit.EventLog, battle: Battle, who: Ship, kind: str, text: str, **data) -> None:
    """An event about ``ship``: public, unless it is under its invisibility device (its side only)."""
    if who.invisible:
        log.add(kind, text, sides=(who.side,), public=False, **data)
    else:
        log.add(kind, text, **data)


def _resolve(battle: Battle, dice, log: kit.EventLog) -> Battle:
    orders = dict(battle.pending)
    battle = evolve(battle, pending=())
    if battle.step == "zero":
        return _resolve_zero(battle, orders, dice, log)
    if battle.step == "move":
        return _resolve_moves(battle, orders, log)
    return _resolve_attacks(battle, orders, dice, log)


def _resolve_zero(battle: Battle, orders: dict, dice, log: kit.EventLog) -> Battle:
    changed = {}
    for sid in sorted(orders):
        o, ship = orders[sid], battle.ship(sid)
        ship = evolve(
            ship,
            power=o.power,
            speed=o.speed,
            destruct=o.destruct,
            held=False,
            invisible=bool(o.invisibility),
            torpedo_used=False,
            missile_used=False,
            plot=o.plot,
        )
        _tell(
            log,
            battle,
            ship,
            "power",
            f"{ship.label}: {_order_text(o)}.",
            ship=sid,
            speed=o.speed,
            destruct=o.destruct,
        )
        if o.repair:
            face = kit.d6(dice, f"{T.SYSTEMS}: repair {o.repair} ({ship.label})")[0]
            if face == 6:
                ship = evolve(ship, **{o.repair: ship.factor(o.repair) + 1})
            _tell(
                log,
                battle,
                ship,
                "repair",
                f"{ship.label} repairs {o.repair}: {face}, "
                + (
                    f"repaired to factor {T.FACTOR_NAMES[ship.factor(o.repair)]}."
                    if face == 6
                    else "not yet."
                ),
                ship=sid,
                face=face,
            )
        changed[sid] = ship
    return evolve(battle.replace_ships(changed), phase=0)


def _resolve_moves(battle: Battle, orders: dict, log: kit.EventLog) -> Battle:
    orders = dict(orders)
    for ship in _plotted_movers(battle):  # invisible ships follow their Phase Zero plot (ruling MT11)
        how = plotted_move(ship, battle.phase)
        if how == "F":
            dx, dy = square.FACING_VECTORS[ship.facing]
            if not (0 <= ship.x + dx < battle.width and 0 <= ship.y + dy < battle.height):
                how = "H"  # the board's edge (ruling MT13)
        orders[ship.id] = Move(ship.id, how)
    changed = {}
    for sid in sorted(orders):
        m, ship = orders[sid], battle.ship(sid)
        if m.how == "F":
            dx, dy = square.FACING_VECTORS[ship.facing]
            ship = evolve(ship, x=ship.x + dx, y=ship.y + dy)
        elif m.how in ("L", "R"):
            ship = evolve(ship, facing=square.turn(ship.facing, m.how))
        _tell(
            log,
            battle,
            ship,
            "move",
            f"{ship.label} {_order_text(m)}: at {ship.pos} facing {square.FACING_NAMES[ship.facing]}.",
            ship=sid,
            at=list(ship.pos),
            facing=ship.facing,
        )
        changed[sid] = ship
    return battle.replace_ships(changed)


def _resolve_attacks(battle: Battle, orders: dict, dice, log: kit.EventLog) -> Battle:
    """Every attack against the table as it stood, then the damage (002 Combat Phases)."""
    hull: dict[int, int] = {}
    hits: dict[int, list[str]] = {}
    held: set[int] = set()
    used: dict[int, dict] = {}
    for sid in sorted(orders):
        a, ship = orders[sid], battle.ship(sid)
        if not a.target:
            _tell(log, battle, ship, "attack", f"{ship.label} does not attack.", ship=sid)
            continue
        target = battle.ship(a.target)
        if a.weapon == "tractor":
            held.add(target.id)
            log.add(
                "tractor",
                f"{ship.label} holds {target.label} in its tractor beam.",
                ship=sid,
                target=target.id,
            )
            continue
        if a.weapon in ("torpedo", "missile"):
            used.setdefault(sid, {})[f"{a.weapon}_used"] = True
        damage, system_hit = _one_attack(battle, ship, target, a, dice, log)
        hull[target.id] = hull.get(target.id, 0) + damage
        if system_hit:
            hits.setdefault(target.id, []).append(a.system)
    if battle.phase == 12:
        for ship in sorted((s for s in battle.ships if s.destruct and s.alive), key=lambda s: s.id):
            for tid, damage in _self_destruct(battle, ship, dice, log).items():
                hull[tid] = hull.get(tid, 0) + damage
            hull[ship.id] = ship.hull  # the ship itself is gone
    changed = {}
    for ship in battle.ships:
        sid = ship.id
        if sid not in hull and sid not in hits and sid not in held and sid not in used:
            continue
        new = evolve(
            ship,
            hull=max(0, ship.hull - hull.get(sid, 0)),
            held=ship.held or sid in held,
            **used.get(sid, {}),
        )
        for system in hits.get(sid, ()):
            new = evolve(new, **{system: max(0, new.factor(system) - 1)})
            log.add(
                "system",
                f"{new.label}'s {system} drop to {T.FACTOR_NAMES[new.factor(system)]}.",
                ship=sid,
                system=system,
                factor=new.factor(system),
            )
        if ship.hull > 0 and new.hull == 0:
            log.add("destroyed", f"{new.label} is destroyed (0 hull points).", ship=sid)
        changed[sid] = new
    return battle.replace_ships(changed)


def _one_attack(
    battle: Battle, ship: Ship, target: Ship, a: Attack, dice, log: kit.EventLog
) -> tuple[int, bool]:
    n = attack_dice(ship, a.weapon)
    faces = kit.d6(dice, f"{T.ATTACKING}: {ship.label} {a.weapon} at {target.label}", n)
    minus = deductions(battle, ship, target, a.weapon, a.system)
    roll = sum(faces) - sum(v for _, v in minus)
    over = roll - target.field_value
    damage = max(0, over)
    system_hit = bool(a.system) and over >= T.SYSTEM_DAMAGE_MARGIN
    why = ", ".join(f"-{v} {k}" for k, v in minus) or "no deductions"
    log.add(
        "attack",
        f"{ship.label} fires {a.weapon} ({n}d6: {sum(faces)}; {why}) at {target.label}: {roll} "
        f"against force field {target.field_value}: {damage} hull damage"
        f"{f'; its {a.system} are hit' if system_hit else ''}.",
        ship=ship.id,
        target=target.id,
        weapon=a.weapon,
        faces=list(faces),
        roll=roll,
        field=target.field_value,
        damage=damage,
        system=a.system,
        system_hit=system_hit,
    )
    return damage, system_hit


def _self_destruct(battle: Battle, ship: Ship, dice, log: kit.EventLog) -> dict[int, int]:
    """12d6 less a die per space to every other ship within 12, less its force field (002 Self-Destruct;
    ruling MT15)."""
    log.add("destruct", f"{ship.label} self-destructs!", ship=ship.id)
    out = {}
    for other in sorted(battle.ships, key=lambda s: s.id):
        if other.id == ship.id or other.removed or other.hull <= 0:
            continue
        spaces = square.distance(ship.pos, other.pos)
        n = T.SELF_DESTRUCT_DICE - spaces
        if spaces > T.SELF_DESTRUCT_RANGE or n <= 0:
            continue
        faces = kit.d6(dice, f"{T.DESTRUCT}: {ship.label} at {other.label}", n)
        damage = max(0, sum(faces) - other.field_value)
        out[other.id] = damage
        log.add(
            "attack",
            f"The blast ({n}d6: {sum(faces)}) reaches {other.label} {spaces} spaces away: "
            f"{damage} hull damage.",
            ship=ship.id,
            target=other.id,
            weapon="self-destruct",
            faces=list(faces),
            roll=sum(faces),
            field=other.field_value,
            damage=damage,
        )
    return out


# --- the sequence of steps ------------------------------------------------------------------------


def _positions(phase: int, step: str) -> Iterable[tuple[int, str]]:
    """The steps after (phase, step), in order, to the end of the turn."""
    seq = [(p, s) for p in range(1, 13) for s in (("move", "attack") if p in T.ATTACK_PHASES else ("move",))]
    at = 0 if phase == 0 else seq.index((phase, step)) + 1
    return seq[at:]


def _advance(battle: Battle, dice, log: kit.EventLog) -> Battle:
    while True:
        if battle.step == "attack":
            battle = _check_end(battle, log)
            if battle.over:
                return battle
        for phase, step in _positions(battle.phase, battle.step):
            battle = evolve(battle, phase=phase, step=step)
            if acting_side(battle) is not None:
                return battle
            if step == "move" and _plotted_movers(battle):
                battle = _resolve_moves(battle, {}, log)
            if step == "attack" and phase == 12 and any(s.destruct and s.alive for s in battle.ships):
                battle = _resolve_attacks(battle, {}, dice, log)
            if step == "attack":
                battle = _check_end(battle, log)
                if battle.over:
                    return battle
        battle = _new_turn(battle, log)
        if battle.over or acting_side(battle) is not None:
            return battle


def _check_end(battle: Battle, log: kit.EventLog) -> Battle:
    left = alive_sides(battle)
    if len(left) > 1:
        return battle
    winner = left[0] if left else None
    log.add(
        "end",
        f"The battle is over: {'side ' + str(winner) + ' wins' if winner else 'no ship is left'}.",
        winner=winner,
    )
    return evolve(battle, over=True, winner=winner)


def _new_turn(battle: Battle, log: kit.EventLog) -> Battle:
    """The next turn's Phase Zero: wrecks removed (002 Hull Damage), orders asked for; after the
    last turn the battle ends undecided (ruling MT18)."""
    changed = {}
    for ship in battle.ships:
        if ship.hull <= 0 and not ship.removed:
            changed[ship.id] = evolve(ship, removed=True)
            log.add("removed", f"{ship.label} is removed from the board.", ship=ship.id)
    battle = evolve(battle.replace_ships(changed), turn=battle.turn + 1, phase=0, step="zero")
    if battle.turn > battle.turn_cap:
        log.add(
            "end",
            f"The battle is over: {battle.turn_cap} turns fought, no side destroyed (a draw).",
            winner=None,
        )
        return evolve(battle, turn=battle.turn_cap, over=True, winner=None)
    log.add("turn", f"Turn {battle.turn}: Phase Zero.", turn=battle.turn)
    return battle


# --- legal actions ------------------------------------------------------------------------------


def waiting(battle: Battle, side: int | None = None) -> list[Ship]:
    """``side``'s ships (default: the first acting side's) still to be given orders in this step."""
    if side is None:
        side = acting_side(battle)
    elif side not in acting_sides(battle):
        return []
    done = battle.ordered()
    return [s for s in battle.ships if s.side == side and s.id not in done and needs_order(battle, s)]


def power_splits(ship: Ship) -> list[Power]:
    pp = T.power_points(ship.design.size, ship.hull)
    inv = (0, INVISIBILITY_PP) if ship.design.invisibility else (0,)
    return [
        Power(e, f, w, t, i)
        for e in range(ship.engines + 1)
        for f in range(ship.fields + 1)
        for w in range(ship.weapons + 1)
        for t in (0, TRACTOR_PP)
        for i in inv
        if e + f + w + t + i <= pp
    ]


def repair_choice(ship: Ship) -> str:
    return next((s for s in T.SYSTEMS_NAMES if ship.factor(s) < T.MAX_PER_SYSTEM), "")


def legal_actions(battle: Battle, side: int | None = None) -> tuple:
    """``side``'s orders (default: the first acting side's): in Phase Zero each power split at the
    top speed it allows (any lower speed is accepted too) and self-destruct; moves; attacks at every
    target in sight and reach."""
    out: list = []
    for ship in waiting(battle, side):
        out += legal_actions_for(battle, ship)
    return tuple(out)


def legal_actions_for(battle: Battle, ship: Ship) -> list:
    """``legal_actions`` for one of the acting side's waiting ships."""
    out: list = []
    if battle.step == "zero":
        fix = repair_choice(ship)
        out += [
            Orders(
                ship.id,
                p.engines,
                p.fields,
                p.weapons,
                p.tractor,
                p.invisibility,
                max_speed(ship, p.engines),
                False,
                fix,
            )
            for p in power_splits(ship)
        ]
        out.append(Orders(ship.id, destruct=True, repair=fix))
    elif battle.step == "move":
        out += [m for m in (Move(ship.id, h) for h in MOVES) if _passes(_check_move, battle, ship, m)]
    else:
        out.append(Attack(ship.id))
        ready = _weapons_ready(ship)
        for target in battle.ships:
            if (
                target.side == ship.side
                or not target.alive
                or square.distance(ship.pos, target.pos) > T.MAX_RANGE
            ):
                continue
            for weapon in ready:
                for system in ("",) if weapon == "tractor" else ("",) + T.SYSTEMS_NAMES:
                    a = Attack(ship.id, target.id, weapon, system)
                    if _passes(_check_attack, battle, ship, a):
                        out.append(a)
    return out


def _passes(checker, battle: Battle, ship: Ship, action) -> bool:
    try:
        checker(battle, ship, action)
    except IllegalActionError:
        return False
    return True


def _ok(battle: Battle, action) -> bool:
    try:
        check(battle, action)
    except IllegalActionError:
        return False
    return True


def result(battle: Battle) -> dict:
    ships = [
        {
            "ship": s.id,
            "side": s.side,
            "name": s.name,
            "fate": "destroyed" if s.hull <= 0 else "survived",
            "hull": s.hull,
            "systems": [s.engines, s.fields, s.weapons],  # issue 31: damaged by system
        }
        for s in battle.ships
    ]
    return kit.battle_result(battle.winner, ships, battle.over, turns=battle.turn)
