"""The Event Horizon Initiative and Movement Phases (seeds/003 "Campaign Turn Sequence",
"Campaign Movement", "Creating a Map": Particle Cloud, Black Hole, Worm Hole; "Invading Enemy
Hexes"; "Star Gate"; RULINGS.md "Particle clouds", "Invasion", "Star gates").

Pure Python: no Django, no clock, dice passed in. ``turn.py`` calls

    roll_initiative(state, orders, dice) -> (movement order, events)
    move_fleets(state, orders, initiative, dice) -> (new state, events, contacts)

Rulings made here (see docs/rulings.md, "Movement"):

* I1 "BP total" for the +1 is the banked BP after this turn's spending (``EmpireState.bp`` in
  the state received). When two or more empires share the biggest total nobody gets the +1.
* I2 Ties are re-rolled among the tied seats only, as often as needed, keeping the +1; each
  group of tied seats re-rolls in seat order, higher groups first. The winner's standing order
  ("first"/"last") places it; the others move from highest score to lowest.
* I3 With one active empire there is nothing to order: it moves without rolling.
* V1 Splits and merges are applied seat by seat in seat order before anyone moves; new fleet
  ids follow on from the highest id in use. Orders that no longer fit the state (regroup fails)
  are dropped for that seat, moves included, and reported.
* V2 Moves are made in initiative order, each empire's moves in the order it listed them; every
  fleet sees where earlier movers have got to this turn. A step that is no longer possible
  (black hole, off the map, not adjacent, a jump whose gate has gone, too few movement points)
  ends the move before it.
* V3 A hex is enemy-held for a mover when it holds a fleet of another active empire, or a
  planet, colony or star gate owned by another empire. Entering it — by a step, a jump or a
  drift — ends the move there and records a Contact. Neutral worlds never stop a fleet.
* V4 A jump (worm hole or star gate) out of a hex where an enemy fleet also stands is refused:
  a guarded gate must be won first (RULINGS "Star gates"). A jump into a guarded hex is an
  ordinary entry (contact, stop).
* P1 A fleet rolls for a particle cloud when it enters one (by step or jump) with movement
  left; a fleet that starts its move in a cloud, or enters one with no points left, does not
  roll. On 1–2 the rest of its path is lost and it drifts one random passable neighbouring hex
  per point left (neighbours in reading order, top row first, rolled as 1dN; with a single
  neighbour no die is rolled; with none it stays). A drift never jumps, never enters a black
  hole, stops on entering an enemy-held hex, and does not roll again for a cloud it drifts into.
* P2 With the campaign option ``steered_drift`` (RULINGS "Particle clouds" option; 003
  "Failure means that the opponent moves the ship/fleet for the rest of its remaining
  movement") the nearest opponent steers the drift by its standing drift order. The nearest
  opponent is the other active empire with a fleet or world at the fewest grid steps from the
  cloud hex where the roll failed (fleets where they stand at that moment); ties go to the lowest
  seat. Each point of drift moves the fleet to the passable neighbour nearest the order's hex
  (``toward``) or farthest from it (``away_from``), ties in reading order; when no neighbour is
  nearer (farther) than the fleet's own hex, the drift ends there. With the option off, no
  opponent, or an opponent without a drift order, the drift is random as in P1. No die is rolled
  for a steered step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..dice import Dice, concerning
from ..grid import Coord
from .economy import Resource
from .mapgen import Terrain
from .orders import NO_ORDERS, OrderError, Orders, PathRules, fleet_speed, regroup
from .state import DRIFT_TOWARD, MOVE_LAST, CampaignState, DriftOrder, Event, FleetState

INITIATIVE_RULE = "003 Initiative Phase"
MOVE_RULE = "003 Campaign Movement"
CLOUD_RULE = "003 Creating a Map: Particle Cloud"
DRIFT_RULE = "003 Particle Cloud drift"
STEERED_DRIFT_OPTION = "steered_drift"
BLACK_HOLE_RULE = "003 Creating a Map: Black Hole"
INVASION_RULE = "003 Invading Enemy Hexes"
CLOUD_PASS = 3  # "must roll 3+ on 1d6"


@dataclass(frozen=True)
class Contact:
    """A fleet entered a hex held by other empires ("Invading Enemy Hexes"): ``defenders`` are
    the seats holding it (a fleet, a planet/colony or a star gate there), in seat order."""

    hex: Coord
    invader_seat: int
    invader_fleet_id: int
    defenders: tuple[int, ...]

    # Aliases for conflict.ContactLike, which reads ``invader`` and ``invader_fleet``.
    @property
    def invader(self) -> int:
        return self.invader_seat

    @property
    def invader_fleet(self) -> int:
        return self.invader_fleet_id


def _xy(c: Coord) -> list[int]:
    return [c[0], c[1]]


# --- Initiative Phase ---------------------------------------------------------------------------

def roll_initiative(state: CampaignState, orders: Mapping[int, Orders],
                    dice: Dice) -> tuple[tuple[int, ...], list[Event]]:
    """The movement order for this turn ("003 Campaign Turn Sequence: Initiative Phase")."""
    seats = tuple(sorted(state.active_seats()))
    events: list[Event] = []
    if len(seats) <= 1:
        if seats:
            events.append(Event("initiative", "initiative_order", seats,
                                f"Empire {seats[0]} is the only empire: it moves without an initiative roll",
                                {"order": list(seats), "winner": seats[0], "rule": INITIATIVE_RULE}, public=True))
        return seats, events

    bps = {seat: state.empire(seat).bp for seat in seats}
    top = max(bps.values())
    leaders = [seat for seat in seats if bps[seat] == top]
    bonus = leaders[0] if len(leaders) == 1 else None
    modifiers = {seat: (1 if seat == bonus else 0) for seat in seats}

    def rank(group: tuple[int, ...], round_no: int) -> list[int]:
        scores = {}
        for seat in group:
            roll = dice.roll(1, 6, INITIATIVE_RULE)
            face = roll.faces[0]
            scores[seat] = face + modifiers[seat]
            note = f" +{modifiers[seat]} (biggest BP total)" if modifiers[seat] else ""
            events.append(Event("initiative", "initiative_roll", (seat,),
                                f"Empire {seat} rolls {face}{note} = {scores[seat]}"
                                + (f" (re-roll {round_no - 1})" if round_no > 1 else ""),
                                {"seat": seat, "faces": list(roll.faces), "modifier": modifiers[seat],
                                 "score": scores[seat], "round": round_no, "rule": INITIATIVE_RULE},
                                public=True))
        ordered: list[int] = []
        for score in sorted(set(scores.values()), reverse=True):
            tied = tuple(seat for seat in group if scores[seat] == score)
            ordered += list(tied) if len(tied) == 1 else rank(tied, round_no + 1)
        return ordered

    ranking = rank(seats, 1)
    winner = ranking[0]
    own = orders.get(winner)
    standing = own.standing if own is not None and own.standing is not None else state.empire(winner).standing
    choice = standing.initiative
    order = tuple(ranking[1:] + [winner]) if choice == MOVE_LAST else tuple(ranking)
    events.append(Event("initiative", "initiative_order", order,
                        f"Empire {winner} has the initiative and moves {'last' if choice == MOVE_LAST else 'first'}; "
                        f"movement order: {', '.join(str(s) for s in order)}",
                        {"order": list(order), "winner": winner, "choice": choice, "bonus": bonus,
                         "ranking": ranking, "rule": INITIATIVE_RULE}, public=True))
    return order, events


# --- Movement Phase ----------------------------------------------------------------------------

class _Board:
    """The state being moved on, with the lookups movement needs kept current."""

    def __init__(self, state: CampaignState):
        self.state = state
        self.active = set(state.active_seats())
        self.world_owner = {w.coord: w.owner for w in state.worlds if w.owner is not None}
        self.gate_owners: dict[Coord, set[int]] = {}
        for s in state.structures:
            if s.resource is Resource.STAR_GATE:
                self.gate_owners.setdefault(s.coord, set()).add(s.owner)
        self.fleets: dict[int, FleetState] = {f.id: f for f in state.fleets}
        self.paths = PathRules.of(state)

    def defenders(self, cell: Coord, seat: int) -> tuple[int, ...]:
        """Seats other than ``seat`` holding ``cell`` (rule V3)."""
        held = {f.owner for f in self.fleets.values() if f.coord == cell and f.owner in self.active}
        owner = self.world_owner.get(cell)
        if owner is not None:
            held.add(owner)
        # An eliminated empire's gates count for nobody (docs/rulings.md V4).
        held |= self.gate_owners.get(cell, set()) & self.active
        held.discard(seat)
        return tuple(sorted(held))

    def enemy_fleet_at(self, cell: Coord, seat: int) -> bool:
        return any(f.coord == cell and f.owner != seat and f.owner in self.active for f in self.fleets.values())

    def passable(self, cell: Coord) -> bool:
        return self.state.grid.in_bounds(cell) and cell not in self.paths.blocked

    def drift_choices(self, cell: Coord) -> list[Coord]:
        return sorted((n for n in self.state.grid.neighbours(cell) if self.passable(n)), key=lambda c: (c[1], c[0]))

    def nearest_opponent(self, cell: Coord, seat: int) -> int | None:
        """The other active empire with a fleet or world fewest grid steps from ``cell``; ties
        go to the lowest seat (ruling P2). None if no other empire has either."""
        distance = self.state.grid.distance
        best: tuple[int, int] | None = None
        for other in sorted(self.active - {seat}):
            places = [f.coord for f in self.fleets.values() if f.owner == other]
            places += [c for c, owner in self.world_owner.items() if owner == other]
            if places:
                key = (min(distance(cell, c) for c in places), other)
                best = key if best is None or key < best else best
        return best[1] if best is not None else None

    def steer(self, cell: Coord, order: DriftOrder) -> Coord | None:
        """The steered drift step from ``cell`` (ruling P2), or None when it ends the drift."""
        distance = self.state.grid.distance
        sign = 1 if order.mode == DRIFT_TOWARD else -1
        here = sign * distance(cell, order.hex)
        choices = [(sign * distance(c, order.hex), i, c) for i, c in enumerate(self.drift_choices(cell))]
        if not choices:
            return None
        score, _, target = min(choices)
        return target if score < here else None


def move_fleets(state: CampaignState, orders: Mapping[int, Orders], initiative: tuple[int, ...],
                dice: Dice) -> tuple[CampaignState, list[Event], tuple[Contact, ...]]:
    """Regroup, then move every ordered fleet in initiative order ("003 Movement Phase")."""
    events: list[Event] = []
    contacts: list[Contact] = []
    active = set(state.active_seats())
    labels_of: dict[int, dict[str, int]] = {}
    refused: set[int] = set()

    for seat in sorted(active):
        seat_orders = orders.get(seat, NO_ORDERS)
        if not (seat_orders.splits or seat_orders.merges):
            labels_of[seat] = {}
            continue
        try:
            fleets, labels = regroup(state, seat, seat_orders)
        except OrderError as exc:
            refused.add(seat)
            events.append(Event("movement", "orders_dropped", (seat,),
                                f"Fleet orders not carried out (the campaign changed since they were given): {exc}",
                                {"where": exc.where, "rule": exc.rule, "message": exc.message}))
            continue
        state = replace(state, fleets=fleets)
        labels_of[seat] = labels
        for split in seat_orders.splits:
            new_id = labels[split.label]
            events.append(Event("movement", "split", (seat,),
                                f"Fleet {new_id} ({split.label}) splits off from fleet {split.fleet}",
                                {"from": split.fleet, "fleet": new_id, "label": split.label,
                                 "ships": list(split.ships), "rule": MOVE_RULE}))
        for merge in seat_orders.merges:
            events.append(Event("movement", "merge", (seat,),
                                f"Fleets {', '.join(str(f) for f in merge.fleets)} merge into fleet {merge.fleets[0]}",
                                {"fleets": list(merge.fleets), "fleet": merge.fleets[0], "rule": MOVE_RULE}))

    board = _Board(state)
    for seat in initiative:
        if seat not in active or seat in refused:
            continue
        moved: set[int] = set()
        labels = labels_of.get(seat, {})
        for i, move in enumerate(orders.get(seat, NO_ORDERS).moves):
            fid = labels.get(move.fleet) if isinstance(move.fleet, str) else move.fleet
            fleet = board.fleets.get(fid) if fid is not None else None
            if fleet is None or fleet.owner != seat or fid in moved:
                events.append(
                    Event(
                        "movement",
                        "move_skipped",
                        (seat,),
                        f"moves[{i}]: fleet {move.fleet} cannot move (no such fleet of yours, or moved already)",
                        {"fleet": move.fleet, "index": i, "rule": MOVE_RULE},
                    )
                )
                continue
            moved.add(fid)
            contact = _move_one(board, fleet, move.path, dice, events)
            if contact is not None:
                contacts.append(contact)

    state = replace(state, fleets=tuple(sorted(board.fleets.values(), key=lambda f: f.id)))
    return state, events, tuple(contacts)


def _move_one(board: _Board, fleet: FleetState, path: tuple[Coord, ...], dice: Dice,
              events: list[Event]) -> Contact | None:
    """Move one fleet along ``path``; record its events; return its Contact, if any."""
    state, seat = board.state, fleet.owner
    dice = concerning(dice, seat)  # a fleet's cloud and drift rolls are its owner's (FW7)
    speed = fleet_speed(state, fleet.ships)
    left = speed
    here = fleet.coord
    route = [here]
    contact: Contact | None = None
    drifting = False

    def enter(cell: Coord) -> bool:
        """Move into ``cell``; True if the move ends there (enemy-held)."""
        nonlocal here, contact
        here = cell
        route.append(cell)
        board.fleets[fleet.id] = replace(board.fleets[fleet.id], coord=cell)
        defenders = board.defenders(cell, seat)
        if defenders:
            contact = Contact(hex=cell, invader_seat=seat, invader_fleet_id=fleet.id, defenders=defenders)
            events.append(Event("movement", "contact", (seat, *defenders),
                                f"Fleet {fleet.id} of empire {seat} enters {cell}, held by "
                                + ", ".join(f"empire {d}" for d in defenders) + ": movement stops",
                                {"fleet": fleet.id, "at": _xy(cell), "invader": seat, "defenders": list(defenders),
                                 "rule": INVASION_RULE}))
            return True
        return False

    def stop(reason: str, text: str, cell: Coord | None = None) -> None:
        data = {"fleet": fleet.id, "at": _xy(here), "reason": reason, "rule": MOVE_RULE}
        if cell is not None:
            data["next"] = _xy(cell)
        events.append(Event("movement", "move_stopped", (seat,), f"Fleet {fleet.id} stops at {here}: {text}", data))

    for cell in path:
        if not board.passable(cell):
            if state.grid.in_bounds(cell):
                stop("black_hole", f"no fleet can pass through the black hole at {cell} ({BLACK_HOLE_RULE})", cell)
            else:
                stop("off_map", f"{cell} is off the map", cell)
            break
        jump = board.paths.is_jump(here, cell)
        if jump:
            cost = 0
            if board.enemy_fleet_at(here, seat):
                stop("guarded", f"the gate or worm hole at {here} is guarded by an enemy fleet", cell)
                break
        elif cell in state.grid.neighbours(here):
            cost = 1
        else:
            stop("not_adjacent", f"{cell} is not next to {here}", cell)
            break
        if cost > left:
            stop("no_movement_left", f"no movement left (speed {speed})", cell)
            break
        left -= cost
        if enter(cell):
            break
        if state.terrain_at(cell) is Terrain.PARTICLE_CLOUD and left > 0:
            roll = dice.roll(1, 6, CLOUD_RULE)
            face = roll.faces[0]
            passed = face >= CLOUD_PASS
            events.append(Event("movement", "cloud_roll", (seat,),
                                f"Fleet {fleet.id} enters the particle cloud at {cell}: rolls {face}, "
                                + ("passes (3+)" if passed else f"fails and drifts for {left} move(s)"),
                                {"fleet": fleet.id, "at": _xy(cell), "faces": list(roll.faces), "passed": passed,
                                 "left": left, "rule": CLOUD_RULE}))
            if not passed:
                drifting = True
                break

    steerer = order = None
    if drifting and state.options.get(STEERED_DRIFT_OPTION):
        steerer = board.nearest_opponent(here, seat)
        order = state.empire(steerer).standing.drift if steerer is not None else None
        if order is None:
            steerer = None
    if drifting and order is not None:
        while left > 0:
            target = board.steer(here, order)
            if target is None:
                events.append(Event("movement", "drift", (seat, steerer),
                                    f"Fleet {fleet.id} drifts no further from {here}: steered by empire {steerer}'s "
                                    f"standing drift order ({order.mode.replace('_', ' ')} {order.hex})",
                                    {"fleet": fleet.id, "from": _xy(here), "to": _xy(here), "steered_by": steerer,
                                     "order": {order.mode: _xy(order.hex)}, "faces": [], "rule": DRIFT_RULE}))
                break
            events.append(Event("movement", "drift", (seat, steerer),
                                f"Fleet {fleet.id} drifts from {here} to {target}, steered by empire {steerer}'s "
                                f"standing drift order ({order.mode.replace('_', ' ')} {order.hex})",
                                {"fleet": fleet.id, "from": _xy(here), "to": _xy(target), "steered_by": steerer,
                                 "order": {order.mode: _xy(order.hex)}, "faces": [], "rule": DRIFT_RULE}))
            left -= 1
            if enter(target):
                break
    elif drifting:
        while left > 0:
            choices = board.drift_choices(here)
            if not choices:
                events.append(Event("movement", "drift", (seat,),
                                    f"Fleet {fleet.id} cannot drift from {here}: every neighbour is impassable",
                                    {"fleet": fleet.id, "from": _xy(here), "to": _xy(here), "choices": [],
                                     "faces": [], "rule": DRIFT_RULE}))
                break
            if len(choices) == 1:
                faces: list[int] = []
                target = choices[0]
            else:
                roll = dice.roll(1, len(choices), DRIFT_RULE)
                faces = list(roll.faces)
                target = choices[faces[0] - 1]
            events.append(Event("movement", "drift", (seat,),
                                f"Fleet {fleet.id} drifts from {here} to {target}"
                                + (f" (1d{len(choices)}: {faces[0]})" if faces else " (the only way out)"),
                                {"fleet": fleet.id, "from": _xy(here), "to": _xy(target),
                                 "choices": [_xy(c) for c in choices], "faces": faces, "rule": DRIFT_RULE}))
            left -= 1
            if enter(target):
                break

    events.append(
        Event(
            "movement",
            "route",
            (seat,),
            f"Fleet {fleet.id} moves {' -> '.join(str(c) for c in route)} ({speed - left} of {speed} moves)",
            {
                "fleet": fleet.id,
                "route": [_xy(c) for c in route],
                "speed": speed,
                "spent": speed - left,
                "drifted": drifting,
                "contact": contact is not None,
                "rule": MOVE_RULE,
            },
        )
    )
    return contact
