"""Event Horizon conflict: invasions, neutral worlds and battles (pure Python, dice passed in).

Rule book ``seeds/003_…``, "Ideas for a Military Campaign": "Invading Enemy Hexes", "Result of a
Tactical Battle", "Neutral Planets/Colonies", "Use of BP in a Campaign" (Diplomatic Corps,
Planetary Defences, Hold Out Garrison, AEWA) and "Alternative to a Tactical Battle"; project
rulings ``RULINGS.md`` "Invasion", "Neutral planets", "Auto-resolve odds". Further rulings made
here (C1–C14 in ``docs/rulings.md``) are repeated beside the code that applies them.

The turn pipeline (``turn.py``) calls, in this order::

    state, events, battles = resolve_invasions(state, contacts, dice)
    state, events = neutral_world_rolls(state, dice)
    state, events = fight_battles(state, battles, initiative, dice)

``contacts`` are the movement step's ``Contact`` values; any object with the attributes ``hex``,
``invader`` (seat), ``invader_fleet`` (fleet id) and ``defenders`` (tuple of seats) will do.

Shared definitions:

* An **enemy-held** hex, for an empire, holds a fleet of any other empire.
* A **retreat search** walks passable cells (black holes block) one step at a time; worm hole and
  star gate jumps cost nothing, but never from the hex being left (the enemy holds it) and never
  into or out of an enemy-held hex. A retreat never enters an enemy-held hex. Particle clouds are
  ordinary cells for a retreat (no 3+ roll) (C4). "Nearest" is fewest steps, ties broken by
  reading order (top row first, then left to right) of the destination.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..dice import Dice, concerning
from ..grid import Coord
from .autoresolve import A, AutoResult, Side, resolve
from .designs import WEAPONS, ShipType
from .economy import NO_DAMAGE, Damage, EconomyError, Resource, _check_damage
from .mapgen import Terrain
from .orders import fleet_speed
from .state import RETREAT, CampaignState, Event, FleetState, InvasionOrder, ShipState

INVASION_RULE = "003 Invading Enemy Hexes"
RESULT_RULE = "003 Result of a Tactical Battle"
NEUTRAL_RULE = "003 Neutral Planets/Colonies"
NEUTRAL_PURPOSE = "003 Neutral Planets/Colonies"
NEUTRAL_LOSS_PURPOSE = "003 Neutral Planets/Colonies: ship lost"
GARRISON_RULE = "003 Hold Out Garrison"
AUTORESOLVE_RULE = "003 Alternative to a Tactical Battle"
PBA = "planetary_bombardment_array"

STEP_INVASIONS = "invasions"
STEP_NEUTRAL = "neutral_worlds"
STEP_BATTLES = "battles"


class ContactLike(Protocol):
    """What ``resolve_invasions`` reads from a movement contact (duck typed)."""

    hex: Coord
    invader: int
    invader_fleet: int
    defenders: tuple[int, ...]


@dataclass(frozen=True)
class Battle:
    """A battle to fight in ``hex`` between ``attacker`` and ``defender`` (seats).

    ``aewa``: the defender owns an Advanced Early Warning Array in the hex, so in a tactical
    battle the invader deploys all his vessels first (003 AEWA). The auto-resolve has no
    deployment, so it is only carried for the battle report and a tabletop battle.
    """

    hex: Coord
    attacker: int
    defender: int
    aewa: bool = False


# --- lookups -----------------------------------------------------------------------------------


def ships_in_hex(state: CampaignState, hex: Coord, seat: int) -> tuple[ShipState, ...]:
    """The ships of ``seat`` in ``hex`` (every fleet of that seat there), in ship id order."""
    ids = {sid for f in state.fleets if f.coord == hex and f.owner == seat for sid in f.ships}
    return tuple(s for s in sorted(state.ships, key=lambda s: s.id) if s.id in ids)


def _fleets_of(state: CampaignState, hex: Coord, seat: int) -> tuple[FleetState, ...]:
    return tuple(sorted((f for f in state.fleets if f.coord == hex and f.owner == seat), key=lambda f: f.id))


def _owns_structure(state: CampaignState, hex: Coord, seat: int, resource: Resource) -> bool:
    return any(s.coord == hex and s.owner == seat and s.resource is resource for s in state.structures)


def _has_diplomatic_corps(state: CampaignState, seat: int) -> bool:
    return any(s.owner == seat and s.resource is Resource.DIPLOMATIC_CORPS for s in state.structures)


def _carries_pba(state: CampaignState, ship: ShipState) -> bool:
    """The ship has a planetary bombardment array that is not destroyed (C9)."""
    fitted = state.designs[ship.design].weapon_counts.get(PBA, 0)
    return fitted - ship.damage.weapons.count(PBA) > 0


def _reading(c: Coord) -> tuple[int, int]:
    """Reading order: top row first, then left to right (grid cells are ``(col, row)``)."""
    return (c[1], c[0])


def _enemy_held(state: CampaignState, seat: int) -> set[Coord]:
    return {f.coord for f in state.fleets if f.owner != seat and f.ships}


def _has_stake(state: CampaignState, hex: Coord, seat: int) -> bool:
    """``seat`` owns the world or any structure in ``hex``."""
    world = state.world_at(hex)
    return (world is not None and world.owner == seat) or any(
        s.coord == hex and s.owner == seat for s in state.structures
    )


# --- the retreat search --------------------------------------------------------------------------


def _search(state: CampaignState, start: Coord, seat: int, limit: int | None = None,
            goals: set[Coord] | None = None) -> tuple[dict[Coord, int], dict[Coord, Coord]]:
    """Fewest-step costs (and parents, for paths) from ``start`` over cells ``seat`` may retreat
    through (see the module docstring); ``limit`` stops the search beyond that many steps, and
    the search ends as soon as it settles a cell of ``goals`` (other than ``start``): cells settle
    by cost, then reading order, so that is the nearest goal with ties broken by reading order."""
    grid = state.grid
    blocked = _enemy_held(state, seat)
    width = grid.width
    terrain = state.map.terrain  # row-major
    wormholes = [(i % width, i // width) for i, t in enumerate(terrain) if t is Terrain.WORMHOLE]
    blocked |= {(i % width, i // width) for i, t in enumerate(terrain) if t is Terrain.BLACK_HOLE}
    # A gate is only ever on the map (ruling E11); one stored off it (an old campaign's) leads nowhere.
    gates = sorted({s.coord for s in state.structures if s.resource is Resource.STAR_GATE and grid.in_bounds(s.coord)},
                   key=_reading)
    gate_set = set(gates)
    worm_set = set(wormholes)
    dist: dict[Coord, int] = {start: 0}
    parent: dict[Coord, Coord] = {}
    heap: list[tuple[int, tuple[int, int], Coord]] = [(0, _reading(start), start)]
    done: set[Coord] = set()
    while heap:
        cost, _, here = heapq.heappop(heap)
        if here in done:
            continue
        done.add(here)
        if goals is not None and here in goals and here != start:
            break
        steps: list[tuple[Coord, int]] = [(n, 1) for n in grid.neighbours(here)]
        if here != start:
            if here in worm_set:
                steps += [(w, 0) for w in wormholes if w != here]
            if here in gate_set:
                steps += [(g, 0) for g in gates if g != here]
        for nxt, step in steps:
            new = cost + step
            if limit is not None and new > limit:
                continue
            if nxt in blocked:
                continue
            old = dist.get(nxt)
            if old is None or new < old:
                dist[nxt] = new
                parent[nxt] = here
                heapq.heappush(heap, (new, _reading(nxt), nxt))
    return dist, parent


def _path(parent: dict[Coord, Coord], start: Coord, goal: Coord) -> list[Coord]:
    out = [goal]
    while out[-1] != start:
        out.append(parent[out[-1]])
    out.reverse()
    return out


def _friendly_worlds(state: CampaignState, seat: int) -> set[Coord]:
    """Worlds ``seat`` owns that no enemy fleet holds (and no enemy holds out against) (C3)."""
    blocked = _enemy_held(state, seat)
    return {w.coord for w in state.worlds
            if w.owner == seat and w.coord not in blocked and w.held_out_by in (None, seat)}


def _nearest(dist: dict[Coord, int], targets: Iterable[Coord], exclude: Coord) -> Coord | None:
    found = [c for c in targets if c in dist and c != exclude]
    return min(found, key=lambda c: (dist[c], _reading(c))) if found else None


def invasion_retreat(state: CampaignState, fleet: FleetState, order: InvasionOrder) -> Coord | None:
    """Where a fleet ordered to retreat from an invasion goes, or None if it cannot (C2, C3):
    the order's ``retreat_to`` if reachable within one full map move, else the nearest world its
    empire owns within that move; a fleet with nowhere to go stays and fights."""
    speed = fleet_speed(state, fleet.ships)
    if speed <= 0:
        return None
    dist, _ = _search(state, fleet.coord, fleet.owner, speed)
    if order.retreat_to is not None and order.retreat_to != fleet.coord and order.retreat_to in dist:
        return order.retreat_to
    return _nearest(dist, _friendly_worlds(state, fleet.owner), fleet.coord)


def defeat_retreat(state: CampaignState, fleet: FleetState) -> tuple[Coord | None, str]:
    """Where the survivors of a lost battle go, and why (003 Result of a Tactical Battle: "must
    retreat one full map move"; C11):

    1. along a shortest path toward the nearest world the empire owns that no enemy holds, at
       any distance, as far as one full map move takes them (arriving if it is within reach);
    2. with no such world reachable, to the cell within one move that is most steps away
       (ties: reading order);
    3. with nowhere to go at all (no movement, or boxed in by black holes, map edges and enemy
       fleets) ``None``: the ships are destroyed while retreating.
    """
    speed = fleet_speed(state, fleet.ships)
    if speed <= 0:
        return None, "cannot move"
    friendly = _friendly_worlds(state, fleet.owner)
    dist, parent = _search(state, fleet.coord, fleet.owner, goals=friendly)
    goal = _nearest(dist, friendly, fleet.coord)
    if goal is not None:
        path = _path(parent, fleet.coord, goal)
        stop = [c for c in path if dist[c] <= speed][-1]  # costs only grow along a shortest path
        if stop != fleet.coord:
            return stop, "toward its nearest world" if stop != goal else "to its nearest world"
    near, _ = _search(state, fleet.coord, fleet.owner, speed)
    away = [c for c in near if c != fleet.coord]
    if not away:
        return None, "nowhere to go"
    return min(away, key=lambda c: (-near[c], _reading(c))), "away from the battle (no world of its own in reach)"


# --- state edits -----------------------------------------------------------------------------------


def _move_fleet(state: CampaignState, fleet_id: int, to: Coord) -> CampaignState:
    return replace(state, fleets=tuple(replace(f, coord=to) if f.id == fleet_id else f for f in state.fleets))


def _remove_ships(state: CampaignState, ship_ids: Iterable[int]) -> CampaignState:
    """Destroy ships: out of the ship list and their fleets; empty fleets are removed."""
    gone = set(ship_ids)
    if not gone:
        return state
    fleets = []
    for f in state.fleets:
        left = tuple(s for s in f.ships if s not in gone)
        if left:
            fleets.append(f if len(left) == len(f.ships) else replace(f, ships=left))
    return replace(
        state,
        ships=tuple(s for s in state.ships if s.id not in gone),
        fleets=tuple(fleets),
        repairs=tuple(r for r in state.repairs if r[0] not in gone),
    )


def _capture(state: CampaignState, hex: Coord, loser: int, winner: int) -> tuple[CampaignState, dict[str, Any]]:
    """The hex becomes ``winner``'s: the world there if ``loser`` owned it, every structure of
    ``loser`` in the hex and every ship on the stocks of those dockyards (003 Result of a
    Tactical Battle: "If it contains enemy resources (including partially built star ships in a
    dockyard) they become yours as well"). A captured Research Facility's technology is the
    winner's too; the loser keeps what it learned (C13)."""
    info: dict[str, Any] = {"world": None, "structures": [], "builds": [], "technologies": []}
    worlds = []
    for w in state.worlds:
        if w.coord == hex and w.owner == loser:
            info["world"] = list(hex)
            w = replace(w, owner=winner, held_out_by=None, held_out_until=None)
        worlds.append(w)
    taken = {s.id for s in state.structures if s.coord == hex and s.owner == loser}
    structures = tuple(replace(s, owner=winner) if s.id in taken else s for s in state.structures)
    info["structures"] = sorted(taken)
    builds = []
    for b in state.builds:
        if b.dockyard in taken and b.owner == loser:
            info["builds"].append({"dockyard": b.dockyard, "design": b.design, "turns_left": b.turns_left})
            b = replace(b, owner=winner)
        builds.append(b)
    techs = {s.technology for s in state.structures if s.id in taken and s.technology is not None}
    state = replace(state, worlds=tuple(worlds), structures=structures, builds=tuple(builds))
    if techs:
        empire = state.empire(winner)
        new = techs - set(empire.technologies)
        info["technologies"] = sorted(t.value for t in new)
        state = state.with_empire(replace(empire, technologies=empire.technologies | frozenset(techs)))
    return state, info


def _set_world(state: CampaignState, hex: Coord, **changes: Any) -> CampaignState:
    return replace(state, worlds=tuple(replace(w, **changes) if w.coord == hex else w for w in state.worlds))


def _describe_capture(info: dict[str, Any]) -> str:
    parts = []
    if info["world"] is not None:
        parts.append("the world")
    if info["structures"]:
        parts.append(f"{len(info['structures'])} resource(s)")
    if info["builds"]:
        parts.append(f"{len(info['builds'])} ship(s) on the stocks")
    return ", ".join(parts) or "nothing"


# --- invasions ---------------------------------------------------------------------------------------


def _resolve_hold_outs(state: CampaignState) -> tuple[CampaignState, list[Event]]:
    """Hold-outs whose turn has come (C6): in ``resolve_invasions`` of turn ``held_out_until``
    (after that turn's movement) the invader takes the world if it still has ships in the hex and
    the owner has none; otherwise the hold-out lapses and the owner keeps the world."""
    events = []
    for world in sorted(state.worlds, key=lambda w: _reading(w.coord)):
        if world.held_out_by is None or world.held_out_until is None or world.held_out_until > state.turn:
            continue
        invader, owner, hex = world.held_out_by, world.owner, world.coord
        seats = tuple(s for s in (invader, owner) if s is not None)
        if owner is not None and owner != invader and ships_in_hex(state, hex, invader) \
                and not ships_in_hex(state, hex, owner):
            state, info = _capture(state, hex, owner, invader)
            events.append(Event(STEP_INVASIONS, "hold_out_ended", seats,
                                f"The garrison at {hex} has held out its turn; empire {invader} takes "
                                f"{_describe_capture(info)} ({GARRISON_RULE})",
                                {"hex": list(hex), "invader": invader, "defender": owner, "capture": info,
                                 "rule": GARRISON_RULE}))
        else:
            state = _set_world(state, hex, held_out_by=None, held_out_until=None)
            events.append(Event(STEP_INVASIONS, "hold_out_lapsed", seats,
                                f"The hold-out at {hex} is over: empire {invader} no longer besieges it alone, "
                                f"the world stays empire {owner}'s ({GARRISON_RULE})",
                                {"hex": list(hex), "invader": invader, "defender": owner, "rule": GARRISON_RULE}))
    return state, events


def resolve_invasions(state: CampaignState, contacts: Sequence[ContactLike], dice: Dice
                      ) -> tuple[CampaignState, tuple[Event, ...], tuple[Battle, ...]]:
    """Each defender's answer to each contact, by its standing orders (003 Invading Enemy Hexes;
    RULINGS "Invasion"): fleets ordered to retreat leave (C2, C3), the rest give battle; an
    abandoned world is captured or held out by its garrison (C5, C6); planetary defences left
    alone fight if the hex's order is to fight (C7). Returns the battles to fight, one per
    (hex, attacker, defender), in contact order. ``dice`` is unused (no rolls are needed)."""
    del dice
    state, events = _resolve_hold_outs(state)
    battles: list[Battle] = []
    seen: set[tuple[Coord, int, int]] = set()
    for contact in contacts:
        hex, invader = tuple(contact.hex), contact.invader
        for defender in contact.defenders:
            key = (hex, invader, defender)
            if defender == invader or key in seen:
                continue
            if not ships_in_hex(state, hex, invader):
                break  # C8: an invader with nothing left in the hex takes nothing
            seats = (invader, defender)
            standing = state.empire(defender).standing
            # C1: each of the defender's fleets follows its own order (fleet, then hex, then default);
            # the world and resources follow the hex's order.
            for fleet in _fleets_of(state, hex, defender):
                order = standing.invasion_response(hex, fleet.id)
                if order.response != RETREAT:
                    continue
                to = invasion_retreat(state, fleet, order)
                if to is None:
                    events.append(Event(STEP_INVASIONS, "retreat_impossible", seats,
                                        f"Fleet {fleet.id} was ordered to retreat from {hex} but has nowhere to "
                                        f"go within one move; it stands and fights ({INVASION_RULE})",
                                        {"hex": list(hex), "fleet": fleet.id, "rule": INVASION_RULE}))
                    continue
                state = _move_fleet(state, fleet.id, to)
                events.append(Event(STEP_INVASIONS, "retreat", seats,
                                    f"Fleet {fleet.id} retreats from {hex} to {to} before empire {invader}'s "
                                    f"fleet ({INVASION_RULE})",
                                    {"hex": list(hex), "fleet": fleet.id, "to": list(to),
                                     "ships": list(fleet.ships), "ordered_to": list(order.retreat_to)
                                     if order.retreat_to is not None else None, "rule": INVASION_RULE}))
            aewa = _owns_structure(state, hex, defender, Resource.AEWA)
            if _fleets_of(state, hex, defender):
                seen.add(key)
                battles.append(Battle(hex=hex, attacker=invader, defender=defender, aewa=aewa))
                events.append(Event(STEP_INVASIONS, "battle_joined", seats,
                                    f"Empire {defender} gives battle to empire {invader} at {hex}"
                                    + (" (AEWA: the invader deploys first)" if aewa else ""),
                                    {"hex": list(hex), "attacker": invader, "defender": defender, "aewa": aewa,
                                     "rule": INVASION_RULE}))
                continue
            if not _has_stake(state, hex, defender):
                continue  # the defender's ships left and it owns nothing here
            world = state.world_at(hex)
            if world is not None and world.owner == defender and world.held_out_by is not None:
                # C6: a garrison already holding out answers no second surrender.
                if world.held_out_by == invader:
                    continue
                events.append(Event(STEP_INVASIONS, "hold_out_continues", seats,
                                    f"The garrison at {hex} is already holding out against empire "
                                    f"{world.held_out_by} ({GARRISON_RULE})",
                                    {"hex": list(hex), "held_out_by": world.held_out_by, "rule": GARRISON_RULE}))
                continue
            fights = standing.invasion_response(hex, None).response != RETREAT
            defences = _owns_structure(state, hex, defender, Resource.PLANETARY_DEFENCES)
            if fights and defences:
                seen.add(key)
                battles.append(Battle(hex=hex, attacker=invader, defender=defender, aewa=aewa))
                events.append(Event(STEP_INVASIONS, "battle_joined", seats,
                                    f"The planetary defences at {hex} fight empire {invader} alone",
                                    {"hex": list(hex), "attacker": invader, "defender": defender, "aewa": aewa,
                                     "defences_only": True, "rule": INVASION_RULE}))
                continue
            # Taken without a fight: ordered to retreat, or nothing there that can fight (C5).
            garrison = _owns_structure(state, hex, defender, Resource.HOLD_OUT_GARRISON)
            if garrison and world is not None and world.owner == defender:
                state = _set_world(state, hex, held_out_by=invader, held_out_until=state.turn + 1)
                events.append(Event(STEP_INVASIONS, "hold_out", seats,
                                    f"The garrison at {hex} denies empire {invader} the world until turn "
                                    f"{state.turn + 1} ({GARRISON_RULE})",
                                    {"hex": list(hex), "invader": invader, "defender": defender,
                                     "until": state.turn + 1, "rule": GARRISON_RULE}))
                continue
            state, info = _capture(state, hex, defender, invader)
            events.append(Event(STEP_INVASIONS, "hex_captured", seats,
                                f"Empire {invader} captures {hex} without a fight: {_describe_capture(info)} "
                                f"({INVASION_RULE}, option 2)",
                                {"hex": list(hex), "attacker": invader, "defender": defender, "capture": info,
                                 "rule": INVASION_RULE}))
    return state, tuple(events), tuple(battles)


# --- neutral worlds ------------------------------------------------------------------------------------


def neutral_world_rolls(state: CampaignState, dice: Dice) -> tuple[CampaignState, tuple[Event, ...]]:
    """Every fleet (a lone ship too) in a hex with a neutral world rolls 1d6, in fleet id order
    (003 Neutral Planets/Colonies; RULINGS "Neutral planets"). +1 with a Diplomatic Corps, +1 if a
    ship of the fleet carries a working planetary bombardment array; the score after modifiers
    decides: 5+ joins (no more rolls, C10), 3–4 neutral, 2 or less destroys one ship of the fleet
    chosen at random. Hexes holding fleets of two or more empires roll nothing (C10)."""
    events: list[Event] = []
    for fleet_id in sorted(f.id for f in state.fleets):
        fleet = state.fleet(fleet_id)
        if fleet is None or not fleet.ships:
            continue
        world = state.world_at(fleet.coord)
        if world is None or world.owner is not None:
            continue
        if len({f.owner for f in state.fleets_at(fleet.coord)}) > 1:
            continue
        seat, hex = fleet.owner, fleet.coord
        index = state.ship_index()
        ships = sorted((index[s] for s in fleet.ships), key=lambda s: s.id)
        modifiers = []
        if _has_diplomatic_corps(state, seat):
            modifiers.append(("Diplomatic Corps", 1))
        if any(_carries_pba(state, s) for s in ships):
            modifiers.append(("Planetary Bombardment Array", 1))
        fleet_dice = concerning(dice, seat)  # the fleet's owner's rolls (FW7)
        roll = fleet_dice.roll(1, 6, NEUTRAL_PURPOSE)
        raw = roll.faces[0]
        score = raw + sum(m for _, m in modifiers)
        data: dict[str, Any] = {"hex": list(hex), "fleet": fleet.id, "faces": list(roll.faces), "raw": raw,
                                "modifiers": [[name, m] for name, m in modifiers], "score": score,
                                "rule": NEUTRAL_RULE}
        mods = "".join(f" +{m} {name}" for name, m in modifiers)
        kind_name = world.kind.value
        if score >= 5:
            state = _set_world(state, hex, owner=seat)
            data["result"] = "joined"
            events.append(Event(STEP_NEUTRAL, "neutral_joined", (seat,),
                                f"The {kind_name} at {hex} declares for empire {seat} (rolled {raw}{mods} = {score})",
                                data))
        elif score >= 3:
            data["result"] = "neutral"
            events.append(Event(STEP_NEUTRAL, "neutral_stays", (seat,),
                                f"The {kind_name} at {hex} reasserts its neutrality (rolled {raw}{mods} = {score})",
                                data))
        else:
            # RULINGS "Neutral planets": the ship destroyed is chosen at random, 1dN over the
            # fleet's ships in id order (a lone ship needs no roll: a die has at least 2 sides).
            if len(ships) > 1:
                pick = fleet_dice.roll(1, len(ships), NEUTRAL_LOSS_PURPOSE)
                lost = ships[pick.faces[0] - 1]
                data["loss_faces"] = list(pick.faces)
            else:
                lost = ships[0]
                data["loss_faces"] = []
            state = _remove_ships(state, [lost.id])
            data["result"] = "attacked"
            data["ship_lost"] = lost.id
            data["fleet_destroyed"] = state.fleet(fleet.id) is None
            events.append(Event(STEP_NEUTRAL, "neutral_attacks", (seat,),
                                f"The {kind_name} at {hex} will never surrender and attacks fleet {fleet.id}: "
                                f"ship {lost.id} is destroyed (rolled {raw}{mods} = {score})", data))
    return state, tuple(events)


# --- battles --------------------------------------------------------------------------------------------


def _side(state: CampaignState, ships: Sequence[ShipState], defences: bool) -> Side:
    types = {state.ship_type(s) for s in ships}
    return Side(
        bp=sum(state.ship_bp(s) for s in ships),
        has_star_cruiser=ShipType.STAR_CRUISER in types,
        has_destroyer=ShipType.DESTROYER in types,
        has_defences=defences,
        ships=len(ships),
    )


def choose_losses(state: CampaignState, ships: Sequence[ShipState], count: int, loss_order: str) -> tuple[int, ...]:
    """The ``count`` ships lost, by the owner's standing loss order (RULINGS "Auto-resolve odds"):
    ``"cheapest"`` takes the lowest BP first, ``"costliest"`` the highest; ties by ship id."""
    if loss_order == "costliest":
        ordered = sorted(ships, key=lambda s: (-state.ship_bp(s), s.id))
    else:
        ordered = sorted(ships, key=lambda s: (state.ship_bp(s), s.id))
    return tuple(s.id for s in ordered[:max(0, count)])


def _retreat_all(state: CampaignState, hex: Coord, seat: int) -> tuple[CampaignState, list[dict[str, Any]], list[int]]:
    """Every fleet of ``seat`` in ``hex`` retreats after a lost battle, in fleet id order."""
    moves: list[dict[str, Any]] = []
    destroyed: list[int] = []
    for fleet in _fleets_of(state, hex, seat):
        to, why = defeat_retreat(state, fleet)
        if to is None:
            destroyed += list(fleet.ships)
            state = _remove_ships(state, fleet.ships)
            moves.append({"fleet": fleet.id, "to": None, "ships": list(fleet.ships), "why": why})
        else:
            state = _move_fleet(state, fleet.id, to)
            moves.append({"fleet": fleet.id, "to": list(to), "ships": list(fleet.ships), "why": why})
    return state, moves, destroyed


# --- results of battles fought as tactical or tabletop games -------------------------------------

SURVIVED, DESTROYED, CAPTURED, WARPED_OUT = "survived", "destroyed", "captured", "warped_out"
FATES = (SURVIVED, DESTROYED, CAPTURED, WARPED_OUT)
FATE_LABELS = {SURVIVED: "survived", DESTROYED: "destroyed", CAPTURED: "captured by boarding",
               WARPED_OUT: "warped out"}


class ResultError(ValueError):
    """A battle result that cannot be applied; the message names the problem."""


@dataclass(frozen=True)
class ShipResult:
    """What became of one ship in a battle fought as a game: ``fate`` is one of ``FATES``;
    ``damage`` is what a ship still in the campaign carries (the whole damage, not an increase);
    ``captured_by`` is the seat whose boarding parties took it."""

    ship: int
    fate: str
    damage: Damage = NO_DAMAGE
    captured_by: int | None = None


# How a battle was settled, as the turn report says it (issue 13 item 8): ``BattleResult.how``
# for a battle fought as a game, ``fight_battles``' ``settled`` for one left to auto-resolve.
SETTLED = {
    "auto": "auto-resolved",
    "tactical": "fought online",
    "tabletop": "fought on the tabletop, result confirmed",
    "unconfirmed": "fought on the tabletop, result not disputed by the deadline",
    "tabletop_moderator": "fought on the tabletop, settled by the moderator",
    "tactical_moderator": "fought online, settled by the moderator",
    "auto_moderator": "auto-resolved by the moderator",
    "auto_deadline": "auto-resolved at the battle deadline",
}


# Settled keys of a battle fought online: the report names the rule book it was fought on (ruling
# BR5; issue 31 lets a campaign fight its battles on any registered book).
ONLINE = frozenset({"tactical", "tactical_moderator"})


def settled_text(how: str, book: str = "") -> str:
    """How a battle was settled, in words; ``book`` (a rule book's title, as the host names it)
    is said for a battle fought online: "fought online on My Trek V"."""
    text = SETTLED.get(how, how.replace("_", " "))
    if book and how in ONLINE:
        text = text.replace("fought online", f"fought online on {book}", 1)
    return text


def damage_text(damage: Damage) -> str:
    """'2 hull, 1 engine, Laser Bank ×2, stealth field', or '' for none."""
    parts = []
    if damage.hull:
        parts.append(f"{damage.hull} hull")
    if damage.engine:
        parts.append(f"{damage.engine} engine")
    for key in dict.fromkeys(damage.weapons):
        n = damage.weapons.count(key)
        parts.append((WEAPONS[key].label if key in WEAPONS else key) + (f" ×{n}" if n > 1 else ""))
    if damage.force_field_generators:
        parts.append(f"{damage.force_field_generators} force field generator(s)")
    if damage.stealth:
        parts.append("stealth field")
    if damage.boarding_parties:
        parts.append(f"{damage.boarding_parties} boarding part{'y' if damage.boarding_parties == 1 else 'ies'}")
    return ", ".join(parts)


def damage_taken(before: Damage, after: Damage) -> Damage:
    """What a battle added to a ship's damage (a result gives the whole damage it carries after)."""
    weapons = list(after.weapons)
    for w in before.weapons:
        if w in weapons:
            weapons.remove(w)
    return Damage(hull=max(after.hull - before.hull, 0), engine=max(after.engine - before.engine, 0),
                  weapons=tuple(weapons),
                  force_field_generators=max(after.force_field_generators - before.force_field_generators, 0),
                  stealth=after.stealth and not before.stealth,
                  boarding_parties=max(after.boarding_parties - before.boarding_parties, 0))


@dataclass(frozen=True)
class BattleResult:
    """The result of a battle fought as a tactical or tabletop game: every ship that was in the
    hex, and ``holder``, the seat that holds the field (None: neither, as when the card cap ends
    an embedded battle with both still there; ruling C15). ``how``: how it was settled, a key of
    ``SETTLED``. ``book``: for a battle fought online, the title of the rule book it was fought on
    as the host names it ("My Trek V"; ruling BR5), "" when not said."""

    holder: int | None
    ships: tuple[ShipResult, ...]
    how: str = "tactical"
    book: str = ""


def check_battle_result(state: CampaignState, battle: Battle, result: BattleResult) -> None:
    """Raise ResultError unless ``result`` fits the battle: every ship of both sides in the hex
    exactly once, a fate from FATES, damage that fits the design and leaves the ship a hull,
    a capture by the other side, and a holder that is a side with a ship left in the hex."""
    hex, seats = tuple(battle.hex), (battle.attacker, battle.defender)
    present = {s.id: s for seat in seats for s in ships_in_hex(state, hex, seat)}
    seen: set[int] = set()
    kept: set[int] = set()
    for r in result.ships:
        ship = present.get(r.ship)
        if ship is None:
            raise ResultError(f"ship {r.ship} was not in the battle at {hex}")
        if r.ship in seen:
            raise ResultError(f"ship {r.ship} is listed twice")
        seen.add(r.ship)
        if r.fate not in FATES:
            raise ResultError(f"ship {r.ship}: fate must be one of {', '.join(FATES)}, not {r.fate!r}")
        if r.fate == CAPTURED:
            if r.captured_by not in seats or r.captured_by == ship.owner:
                raise ResultError(f"ship {r.ship} can only be captured by the other side of the battle")
        elif r.captured_by is not None:
            raise ResultError(f"ship {r.ship} is {FATE_LABELS[r.fate]}, not captured, so it has no captor")
        if r.fate != DESTROYED:
            design = state.designs[ship.design]
            try:
                _check_damage(design, r.damage)
            except EconomyError as exc:
                raise ResultError(f"ship {r.ship}: {exc.message}") from None
            if r.damage.hull >= design.hull:
                raise ResultError(f"ship {r.ship} lost all {design.hull} hull points: enter it as destroyed")
            if r.fate == SURVIVED:
                kept.add(ship.owner)
            elif r.fate == CAPTURED:
                kept.add(r.captured_by)
    missing = sorted(set(present) - seen)
    if missing:
        raise ResultError(f"the result leaves out ship(s) {', '.join(map(str, missing))}")
    if result.holder is not None:
        if result.holder not in seats:
            raise ResultError(
                f"the side holding the field must be empire {seats[0]} or {seats[1]}, not {result.holder}"
            )
        if result.holder not in kept:
            raise ResultError(f"empire {result.holder} has no ship left in the hex to hold it")


def apply_battle_result(state: CampaignState, battle: Battle, result: BattleResult
                        ) -> tuple[CampaignState, list[Event]]:
    """Apply a battle fought as a game (003 Result of a Tactical Battle: "If you win a tactical
    battle the hex it was fought in belongs to you … If you lose … what remains of your fleet
    must retreat one full map move"). Destroyed ships go; damage is carried until repaired at a
    dockyard; a captured ship joins its captor (a new fleet in the hex); a ship that warped out
    is back with its fleet on the campaign map (ruling C16). The holder takes the hex; the other
    side's remaining fleets retreat; with no holder the invasion has failed and the attacker's
    fleets retreat (C15). The result must pass ``check_battle_result``."""
    check_battle_result(state, battle, result)
    hex, att, dfd = tuple(battle.hex), battle.attacker, battle.defender
    seats = (att, dfd)
    before = {seat: [s.id for s in ships_in_hex(state, hex, seat)] for seat in seats}
    carried = {s.id: s.damage for seat in seats for s in ships_in_hex(state, hex, seat)}
    by_id = {r.ship: r for r in result.ships}
    destroyed = [r.ship for r in result.ships if r.fate == DESTROYED]
    state = _remove_ships(state, destroyed)
    ships = []
    captured: dict[int, list[int]] = {}
    for s in state.ships:
        r = by_id.get(s.id)
        if r is not None:
            s = replace(s, damage=r.damage)
            if r.fate == CAPTURED:
                s = replace(s, owner=r.captured_by)
                captured.setdefault(r.captured_by, []).append(s.id)
        ships.append(s)
    state = replace(state, ships=tuple(ships))
    if captured:
        taken = {sid for ids in captured.values() for sid in ids}
        fleets = []
        for f in state.fleets:
            left = tuple(x for x in f.ships if x not in taken)
            if left:
                fleets.append(f if len(left) == len(f.ships) else replace(f, ships=left))
        next_fleet = state.next_id("fleet")
        for captor, ids in sorted(captured.items()):
            fleets.append(FleetState(id=next_fleet, owner=captor, coord=hex, ships=tuple(sorted(ids))))
            next_fleet += 1
        state = replace(state, fleets=tuple(fleets),
                        repairs=tuple(r for r in state.repairs if r[0] not in taken)).with_id_floor()
    holder = result.holder
    capture = None
    retreats: list[dict[str, Any]] = []
    lost_retreating: list[int] = []
    if holder == att:
        state, capture = _capture(state, hex, dfd, att)
        state, retreats, lost_retreating = _retreat_all(state, hex, dfd)
    elif holder == dfd or ships_in_hex(state, hex, att):
        state, retreats, lost_retreating = _retreat_all(state, hex, att)
    loser = dfd if holder == att else att
    losses = {name: [sid for sid in before[seat] if by_id[sid].fate == DESTROYED]
              for name, seat in (("attacker", att), ("defender", dfd))}
    taken = {r.ship: damage_taken(carried.get(r.ship, NO_DAMAGE), r.damage) for r in result.ships
             if r.fate != DESTROYED}
    data = {
        "hex": list(hex), "attacker": att, "defender": dfd, "aewa": battle.aewa, "rule": RESULT_RULE,
        "how": result.how, "settled": settled_text(result.how, result.book), "winner": holder, "losses": losses,
        "ships": [{"ship": r.ship, "side": "attacker" if r.ship in before[att] else "defender", "fate": r.fate,
                   "captured_by": r.captured_by,
                   "damaged": r.damage.any if r.fate != DESTROYED else False,
                   "damage_taken": damage_text(taken[r.ship]) if r.ship in taken else ""}
                  for r in result.ships],
        "captured": {str(k): v for k, v in captured.items()},
        "capture": capture, "retreats": retreats, "destroyed_retreating": lost_retreating,
    }
    if result.book and result.how in ONLINE:
        data["book"] = result.book
    text = (f"Battle at {hex} ({settled_text(result.how, result.book)}): empire {att} against empire {dfd}: "
            + (f"empire {holder} holds the field" if holder is not None else "neither side holds the field")
            + f"; losses {len(losses['attacker'])} and {len(losses['defender'])} ship(s)")
    damaged = [f"ship {sid} {text_}" for sid, text_ in
               ((sid, damage_text(d)) for sid, d in sorted(taken.items())) if text_]
    if damaged:
        text += "; damage taken: " + ", ".join(damaged)
    n_captured = sum(len(v) for v in captured.values())
    if n_captured:
        text += f"; {n_captured} ship(s) captured"
    if capture is not None:
        text += f"; empire {att} takes {_describe_capture(capture)}"
    if retreats:
        text += f"; empire {loser} retreats"
    if lost_retreating:
        text += f" ({len(lost_retreating)} ship(s) destroyed with nowhere to go)"
    return state, [Event(STEP_BATTLES, "battle", seats, text, data)]


def battle_is_fought(state: CampaignState, battle: Battle) -> bool:
    """Whether ``battle`` will be fought (both sides have something to fight with), as
    ``fight_battles`` decides: only such a battle can be handed to a tactical or tabletop game."""
    hex = tuple(battle.hex)
    if not ships_in_hex(state, hex, battle.attacker):
        return False
    return bool(ships_in_hex(state, hex, battle.defender)) or _owns_structure(
        state, hex, battle.defender, Resource.PLANETARY_DEFENCES)


def fight_battles(state: CampaignState, battles: Sequence[Battle], initiative: Any, dice: Dice,
                  results: Mapping[int, BattleResult] | None = None,
                  settled: Mapping[int, str] | None = None) -> tuple[CampaignState, tuple[Event, ...]]:
    """Settle each battle in the order given and apply its result (003 Result of a Tactical
    Battle). ``results`` maps a battle's index in ``battles`` to the result of a battle fought
    as a tactical or tabletop game (``apply_battle_result``); every other battle is
    auto-resolved (003 Alternative to a Tactical Battle); ``settled`` says how, by index, for a
    battle handed off as a game and then left to auto-resolve (a ``SETTLED`` key: by the
    moderator, at the deadline). ``initiative`` is accepted for the pipeline and not used:
    battles come in contact order, which already follows it (C14). Each battle's events carry
    its place in ``battles`` as ``data["index"]``: a host that handed it off as a game finds its
    own record of it by that (the report's link to the battle's page, ruling BR5)."""
    del initiative
    results = results or {}
    settled = settled or {}
    events: list[Event] = []
    for index, battle in enumerate(battles):
        if index in results:
            state, evs = apply_battle_result(state, battle, results[index])
        else:
            state, evs = _auto_battle(state, battle, dice, settled.get(index, "auto"))
        events += [replace(e, data={**e.data, "index": index}) for e in evs]
    return state, tuple(events)


def _auto_battle(state: CampaignState, battle: Battle, dice: Dice, how: str = "auto"
                 ) -> tuple[CampaignState, list[Event]]:
    events: list[Event] = []
    hex, att, dfd = tuple(battle.hex), battle.attacker, battle.defender
    seats = (att, dfd)
    a_ships = ships_in_hex(state, hex, att)
    b_ships = ships_in_hex(state, hex, dfd)
    defences = _owns_structure(state, hex, dfd, Resource.PLANETARY_DEFENCES)
    base = {"hex": list(hex), "attacker": att, "defender": dfd, "aewa": battle.aewa}
    if not a_ships:
        events.append(Event(STEP_BATTLES, "battle_skipped", seats,
                            f"No battle at {hex}: empire {att} has no ships left there",
                            {**base, "reason": "attacker has no ships"}))
        return state, events
    if not b_ships and not defences:
        # C12: nothing left to defend the hex; the attacker takes what the defender owns there.
        info = None
        if _has_stake(state, hex, dfd):
            state, info = _capture(state, hex, dfd, att)
        events.append(Event(STEP_BATTLES, "battle_skipped", seats,
                            f"No battle at {hex}: empire {dfd} has nothing left to fight with"
                            + (f"; empire {att} takes {_describe_capture(info)}" if info else ""),
                            {**base, "reason": "defender has nothing to fight with", "capture": info}))
        return state, events
    # "the player that owns the defences gets one extra die", attacking or defending
    # (an attacker relieving its own held-out world owns the defences there).
    attacker_defences = _owns_structure(state, hex, att, Resource.PLANETARY_DEFENCES)
    side_a, side_b = _side(state, a_ships, attacker_defences), _side(state, b_ships, defences)
    result: AutoResult = resolve(side_a, side_b, concerning(dice, att, dfd))  # the two sides' rolls (FW4, FW7)
    a_lost = choose_losses(state, a_ships, result.a_losses, state.empire(att).standing.loss_order)
    b_lost = choose_losses(state, b_ships, result.b_losses, state.empire(dfd).standing.loss_order)
    state = _remove_ships(state, a_lost + b_lost)
    winner, loser = (att, dfd) if result.winner == A else (dfd, att)
    capture = None
    if winner == att and ships_in_hex(state, hex, att):
        state, capture = _capture(state, hex, dfd, att)
    state, retreats, destroyed = _retreat_all(state, hex, loser)
    data = {
        **base,
        "rule": AUTORESOLVE_RULE,
        "how": how, "settled": settled_text(how),
        "sides": {
            "attacker": {"bp": side_a.bp, "ships": [s.id for s in a_ships], "star_cruiser": side_a.has_star_cruiser,
                         "destroyer": side_a.has_destroyer, "defences": False},
            "defender": {"bp": side_b.bp, "ships": [s.id for s in b_ships], "star_cruiser": side_b.has_star_cruiser,
                         "destroyer": side_b.has_destroyer, "defences": defences},
        },
        "dice": {"attacker": result.a_dice, "defender": result.b_dice},
        "rolls": [{"attacker": list(a), "defender": list(b)} for a, b in result.rolls],
        "drawn_on_faces": result.drawn_on_faces,
        "notes": list(result.notes),
        "winner": winner,
        "losses": {"attacker": list(a_lost), "defender": list(b_lost)},
        "capture": capture,
        "retreats": retreats,
        "destroyed_retreating": destroyed,
    }
    text = (
        f"Battle at {hex} ({settled_text(how)}): empire {att} ({side_a.bp} BP, {result.a_dice}d6) against empire {dfd} "
        f"({side_b.bp} BP{' + defences' if defences else ''}, {result.b_dice}d6): empire {winner} wins; "
        f"losses {len(a_lost)} and {len(b_lost)} ship(s)"
    )
    if capture is not None:
        text += f"; empire {att} takes {_describe_capture(capture)}"
    if retreats:
        text += f"; empire {loser} retreats"
    if destroyed:
        text += f" ({len(destroyed)} ship(s) destroyed with nowhere to go)"
    events.append(Event(STEP_BATTLES, "battle", seats, text, data))
    return state, events
