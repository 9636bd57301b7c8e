"""Explicit adapters between stored rows and the pure rules engines (godip's ``gae/`` role).

Nothing here decides a rule: it only converts rows to frozen engine state and engine results
back to rows.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import replace

from django.db.models import Q

from campaign.eventhorizon.models import BuildOrder, Design, Fleet, MapCell, Ship, Structure, World
from campaign.models import Campaign, Empire

from ..bulk import update_rows
from ..rules.eventhorizon import economy as eh
from ..rules.eventhorizon import fog
from ..rules.eventhorizon.designs import Design as DesignSpec
from ..rules.eventhorizon.designs import Technology
from ..rules.eventhorizon.mapgen import EconomyType, GeneratedMap, Terrain
from ..rules.eventhorizon.orders import Orders, orders_to_json, parse_standing
from ..rules.eventhorizon.state import (
    BuildState,
    CampaignState,
    EmpireState,
    FleetState,
    ShipState,
    StandingOrders,
    StructureState,
    WorldState,
)
from ..rules.grid import make_grid
from .mapsvg import Overlay

RESOURCE_SYMBOL_ORDER = "^#*+SXG"


def design_from_spec(spec: dict) -> DesignSpec:
    return DesignSpec.from_dict(spec)


def empire_technologies(empire: Empire | None) -> frozenset[Technology]:
    if empire is None:
        return frozenset()
    return frozenset(Technology(t) for t in empire.technologies)


def map_state(campaign: Campaign) -> GeneratedMap:
    """The stored map as the engine's map (terrain, economy types, home worlds by seat)."""
    grid = make_grid(campaign.grid, campaign.width, campaign.height)
    terrain = [Terrain.EMPTY] * grid.size
    for x, y, value in MapCell.objects.filter(campaign=campaign).values_list("x", "y", "terrain").iterator(5000):
        terrain[y * grid.width + x] = Terrain(value)
    economy = []
    homes = {}
    for x, y, kind, econ, seat in (
        World.objects.filter(campaign=campaign)
        .order_by("y", "x")
        .values_list("x", "y", "kind", "economy", "home_of__seat")
    ):
        if kind == "planet" and econ:
            economy.append(((x, y), EconomyType(econ)))
        if seat is not None:
            homes[seat] = (x, y)
    return GeneratedMap(
        grid=grid, terrain=tuple(terrain), economy=tuple(economy),
        home_worlds=tuple(homes[s] for s in sorted(homes)),
    )


def map_overlay(campaign: Campaign) -> Overlay:
    overlay = Overlay()
    empires = {e.pk: e for e in campaign.empires.all()}
    for world in World.objects.filter(campaign=campaign, owner__isnull=False):
        owner = empires[world.owner_id]
        overlay.owner_colour[(world.x, world.y)] = owner.colour
        overlay.owner_name[(world.x, world.y)] = owner.name
        if world.home_of_id is not None:
            overlay.home_worlds.add((world.x, world.y))
    symbols = defaultdict(set)
    for resource, x, y in Structure.objects.filter(campaign=campaign).values_list("resource", "x", "y"):
        symbol = eh.Resource(resource).symbol
        if symbol:
            symbols[(x, y)].add(symbol)
    overlay.symbols = {c: "".join(s for s in RESOURCE_SYMBOL_ORDER if s in found) for c, found in symbols.items()}
    ships = defaultdict(lambda: defaultdict(int))
    for owner_id, x, y in Ship.objects.filter(campaign=campaign).values_list("owner_id", "fleet__x", "fleet__y"):
        ships[(x, y)][owner_id] += 1
    overlay.ships = {
        c: [(empires[o].colour, n, empires[o].name) for o, n in sorted(by_owner.items())]
        for c, by_owner in ships.items()
    }
    return overlay




# --- the whole campaign as the turn engine's state, and back ------------------------------

_MAP_CACHE: dict[tuple, GeneratedMap] = {}


def _kept_while_rolled(store: dict, campaign: Campaign, build):
    """``build(campaign)``, kept in ``store`` by the process: for what never changes once the
    map is rolled (keyed so a new campaign that reuses an id cannot hit an old entry)."""
    key = (campaign.pk, campaign.seed_hash, campaign.width, campaign.height)
    value = store.get(key)
    if value is None:
        if len(store) > 32:
            store.clear()
        value = store[key] = build(campaign)
    return value


def cached_map_state(campaign: Campaign) -> GeneratedMap:
    """The map, which never changes once rolled."""
    return _kept_while_rolled(_MAP_CACHE, campaign, map_state)


_WORLD_CACHE: dict[tuple, tuple[WorldState, ...]] = {}


def cached_neutral_worlds(campaign: Campaign) -> tuple[WorldState, ...]:
    """Every world of the map as rolled (kind and economy type; no owner), in row order. Like
    the map, these never change once rolled (the admin shows them read-only), so processes
    keep them like the map."""
    return _kept_while_rolled(
        _WORLD_CACHE,
        campaign,
        lambda c: tuple(
            WorldState(coord=(x, y), kind=eh.WorldKind(kind), economy=EconomyType(econ) if econ else None)
            for x, y, kind, econ in World.objects.filter(campaign=c)
            .order_by("y", "x")
            .values_list("x", "y", "kind", "economy")
        ),
    )


def standing_from_json(raw: dict) -> StandingOrders:
    return parse_standing(raw) if raw else StandingOrders()


def standing_to_json(standing: StandingOrders) -> dict:
    return orders_to_json(Orders(standing=standing))["standing"]


def design_table(campaign: Campaign) -> dict[int, DesignSpec]:
    rows = Design.objects.filter(Q(campaign__isnull=True) | Q(campaign=campaign)).values_list("pk", "spec")
    return {pk: design_from_spec(spec) for pk, spec in rows}


def design_names_by_seat(campaign: Campaign) -> dict[int, dict[str, int]]:
    """Per seat, the design names it may build: the library, then its own (own wins)."""
    library = {}
    own: dict[int, dict[str, int]] = defaultdict(dict)
    for pk, name, seat in Design.objects.filter(Q(campaign__isnull=True) | Q(campaign=campaign)).values_list(
        "pk", "name", "empire__seat"
    ):
        if seat is None:
            library[name] = pk
        else:
            own[seat][name] = pk
    return {e.seat: {**library, **own[e.seat]} for e in campaign.empires.all()}


def load_state(campaign: Campaign) -> CampaignState:
    """Read the campaign into the engine's frozen state, in a fixed number of queries."""
    gmap = cached_map_state(campaign)
    empires = list(Empire.objects.filter(campaign=campaign).order_by("seat"))
    seat = {e.pk: e.seat for e in empires}
    # Only the worlds someone owns, calls home or holds out in change; the rest come from the
    # process's copy of the rolled worlds (a few hundred rows read instead of thousands).
    base = cached_neutral_worlds(campaign)
    claimed = {
        (x, y): (seat.get(owner), seat.get(home), seat.get(held_by), held_until)
        for x, y, owner, home, held_by, held_until in World.objects.filter(campaign=campaign)
        .filter(Q(owner__isnull=False) | Q(home_of__isnull=False) | Q(held_out_by__isnull=False))
        .values_list("x", "y", "owner_id", "home_of_id", "held_out_by_id", "held_out_until")
    }
    worlds = tuple(
        w if (row := claimed.get(w.coord)) is None
        else replace(w, owner=row[0], home_of=row[1], held_out_by=row[2], held_out_until=row[3])
        for w in base
    )
    structures = tuple(
        StructureState(id=n, owner=seat[o], resource=eh.Resource(r), coord=(x, y),
                       technology=Technology(t) if t else None)
        for n, o, r, x, y, t in Structure.objects.filter(campaign=campaign).order_by("number")
        .values_list("number", "owner_id", "resource", "x", "y", "technology")
    )
    fleet_rows = list(
        Fleet.objects.filter(campaign=campaign)
        .order_by("number")
        .values_list("pk", "number", "owner_id", "x", "y")
    )
    members: dict[int, list[int]] = defaultdict(list)
    ships = []
    for number, owner, design, name, hero, damage, fleet_pk in (
        Ship.objects.filter(campaign=campaign).order_by("number")
        .values_list("number", "owner_id", "design_id", "name", "hero_crew", "damage", "fleet_id")
    ):
        ships.append(ShipState(id=number, owner=seat[owner], design=design, name=name, hero_crew=hero,
                               damage=eh.Damage(**damage) if damage else eh.NO_DAMAGE))
        members[fleet_pk].append(number)
    fleets = tuple(
        FleetState(id=number, owner=seat[owner], coord=(x, y), ships=tuple(members[pk]))
        for pk, number, owner, x, y in fleet_rows
    )
    builds = tuple(
        BuildState(dockyard=dock, owner=seat[o], design=d, turns_left=left, hero_crew=hero, name=name)
        for dock, o, d, left, hero, name in BuildOrder.objects.filter(campaign=campaign).order_by("dockyard__number")
        .values_list("dockyard__number", "owner_id", "design_id", "turns_remaining", "hero_crew", "name")
    )
    return CampaignState(
        turn=campaign.turn,
        map=gmap,
        empires=tuple(
            EmpireState(
                seat=e.seat,
                name=e.name,
                bp=e.bp,
                technologies=frozenset(Technology(t) for t in e.technologies),
                eliminated=e.eliminated,
                is_bot=e.is_bot,
                standing=standing_from_json(e.standing_orders),
                trade_war=tuple(sorted((int(k), v) for k, v in e.trade_war.items())),
            )
            for e in empires
        ),
        worlds=worlds,
        designs=design_table(campaign),
        structures=structures,
        ships=tuple(ships),
        fleets=fleets,
        builds=builds,
        purpose=campaign.purpose,
        winner=next((e.seat for e in empires if e.pk == campaign.winner_id), None),
        finished=campaign.status == Campaign.Status.FINISHED,
        options=campaign.options,
        id_floor=campaign.id_counters,
    )


def save_state(campaign: Campaign, before: CampaignState, after: CampaignState) -> None:
    """Write what changed between two states. The number of queries depends on which kinds of
    thing changed, not on how many: every kind is one bulk insert, update or delete."""
    from .. import versioning

    if before != after:
        versioning.bump(campaign.pk)  # bulk writes send no signals (campaign/versioning.py)
    empires = {e.seat: e for e in Empire.objects.filter(campaign=campaign)}
    pk = {s: e.pk for s, e in empires.items()}

    changed_empires = []
    for old, new in zip(before.empires, after.empires, strict=True):
        if old != new:
            row = empires[new.seat]
            row.bp, row.eliminated = new.bp, new.eliminated
            row.technologies = sorted(t.value for t in new.technologies)
            row.standing_orders = standing_to_json(new.standing)
            row.trade_war = {str(k): v for k, v in new.trade_war}
            changed_empires.append(row)
    if changed_empires:
        Empire.objects.bulk_update(
            changed_empires, ["bp", "eliminated", "technologies", "standing_orders", "trade_war"]
        )

    old_worlds = {w.coord: w for w in before.worlds}
    world_updates = [w for w in after.worlds if old_worlds.get(w.coord) != w]
    if world_updates:
        # One cheap read of (pk, x, y) for every world beats a query per changed world.
        world_pk = {(x, y): p for p, x, y in World.objects.filter(campaign=campaign).values_list("pk", "x", "y")}
        World.objects.bulk_update(
            [World(pk=world_pk[w.coord], owner_id=pk.get(w.owner), held_out_by_id=pk.get(w.held_out_by),
                   held_out_until=w.held_out_until) for w in world_updates],
            ["owner", "held_out_by", "held_out_until"], batch_size=1000,
        )

    _sync_structures(campaign, before, after, pk)
    fleet_pk = _sync_fleets(campaign, before, after, pk)
    _sync_ships(campaign, before, after, pk, fleet_pk)
    if before.builds != after.builds:
        BuildOrder.objects.filter(campaign=campaign).delete()
        docks = dict(Structure.objects.filter(campaign=campaign).values_list("number", "pk"))
        BuildOrder.objects.bulk_create([
            BuildOrder(campaign=campaign, owner_id=pk[b.owner], dockyard_id=docks[b.dockyard], design_id=b.design,
                       name=b.name, hero_crew=b.hero_crew, ordered_turn=after.turn, turns_remaining=b.turns_left)
            for b in after.builds
        ])

    campaign.turn = after.turn
    campaign.id_counters = dict(after.with_id_floor().id_floor)
    campaign.purpose = after.purpose
    campaign.winner_id = pk.get(after.winner) if after.winner is not None else None
    if after.finished:
        campaign.status = Campaign.Status.FINISHED
    campaign.save(update_fields=["turn", "id_counters", "purpose", "winner", "status"])


def _sync_structures(campaign, before, after, pk):
    old = {s.id: s for s in before.structures}
    new = {s.id: s for s in after.structures}
    gone = [i for i in old if i not in new]
    if gone:
        Structure.objects.filter(campaign=campaign, number__in=gone).delete()
    added = [s for i, s in new.items() if i not in old]
    if added:
        Structure.objects.bulk_create([
            Structure(campaign=campaign, owner_id=pk[s.owner], number=s.id, resource=s.resource.value, x=s.coord[0],
                      y=s.coord[1], technology=s.technology.value if s.technology else "", built_turn=before.turn)
            for s in added
        ])
    moved = {i: s for i, s in new.items() if i in old and old[i] != s}
    if moved:
        rows = list(Structure.objects.filter(campaign=campaign, number__in=list(moved)))
        for row in rows:
            row.owner_id = pk[moved[row.number].owner]
        Structure.objects.bulk_update(rows, ["owner"])


def _sync_fleets(campaign, before, after, pk) -> dict[int, int]:
    old = {f.id: f for f in before.fleets}
    new = {f.id: f for f in after.fleets}
    added = [f for i, f in new.items() if i not in old]
    if added:
        Fleet.objects.bulk_create([
            Fleet(campaign=campaign, owner_id=pk[f.owner], number=f.id, x=f.coord[0], y=f.coord[1]) for f in added
        ], batch_size=1000)
    moved = {i: f for i, f in new.items() if i in old and (old[i].coord, old[i].owner) != (f.coord, f.owner)}
    rows = {num: p for p, num in Fleet.objects.filter(campaign=campaign).values_list("pk", "number")}
    if moved:
        update_rows(
            Fleet,
            ["x", "y", "owner"],
            [(rows[i], f.coord[0], f.coord[1], pk[f.owner]) for i, f in moved.items()],
        )
    return rows


def _sync_ships(campaign, before, after, pk, fleet_pk):
    old = {s.id: s for s in before.ships}
    new = {s.id: s for s in after.ships}
    fleet_of_old = {sid: f.id for f in before.fleets for sid in f.ships}
    fleet_of_new = {sid: f.id for f in after.fleets for sid in f.ships}
    gone = [i for i in old if i not in new]
    if gone:
        Ship.objects.filter(campaign=campaign, number__in=gone).delete()
    added = [s for i, s in new.items() if i not in old]
    if added:
        Ship.objects.bulk_create([
            Ship(campaign=campaign, owner_id=pk[s.owner], number=s.id, name=s.name, design_id=s.design,
                 fleet_id=fleet_pk[fleet_of_new[s.id]], hero_crew=s.hero_crew, damage=_damage_json(s.damage))
            for s in added
        ], batch_size=1000)
    changed = [s for i, s in new.items() if i in old and (old[i] != s or fleet_of_old.get(i) != fleet_of_new.get(i))]
    if changed:
        ids = dict(
            Ship.objects.filter(campaign=campaign, number__in=[s.id for s in changed]).values_list(
                "number", "pk"
            )
        )
        update_rows(Ship, ["owner", "design", "fleet", "name", "hero_crew", "damage"], [
            (ids[s.id], pk[s.owner], s.design, fleet_pk[fleet_of_new[s.id]], s.name, s.hero_crew,
             json.dumps(_damage_json(s.damage)))
            for s in changed
        ])
    old_fleets = {f.id for f in before.fleets}
    gone_fleets = old_fleets - {f.id for f in after.fleets}
    if gone_fleets:
        Fleet.objects.filter(campaign=campaign, number__in=list(gone_fleets)).delete()


def _damage_json(damage: eh.Damage) -> dict:
    return damage.to_json()


# --- the state for checking orders, kept per process ----------------------------------------------

_ORDERS_STATE_CACHE: dict[int, tuple[tuple, CampaignState, dict[int, dict[str, int]]]] = {}


def state_key(campaign: Campaign) -> tuple:
    """What the state load_state and design_names_by_seat read depends on, from the campaign row
    alone: its state version (campaign/versioning.py: moved by every write to empires, worlds,
    structures, fleets, ships, builds and designs) and its own fields the state holds."""
    return (
        campaign.pk,
        campaign.created_at,
        campaign.seed_hash,
        campaign.state_version,
        campaign.turn,
        campaign.status,
        campaign.purpose,
        campaign.winner_id,
        json.dumps(campaign.options, sort_keys=True),
        json.dumps(campaign.id_counters, sort_keys=True),
    )


def state_for_orders(campaign: Campaign) -> tuple[CampaignState, dict[int, dict[str, int]]]:
    """(state, design names by seat) for checking a player's orders. The process keeps the last
    state of each campaign and reuses it while the campaign row says nothing changed
    (``state_key``); the row is the one the caller read, so this costs no query. The state is
    frozen, so sharing it between requests and threads is safe."""
    key = state_key(campaign)
    hit = _ORDERS_STATE_CACHE.get(campaign.pk)
    if hit is not None and hit[0] == key:
        return hit[1], hit[2]
    state, names = load_state(campaign), design_names_by_seat(campaign)
    if len(_ORDERS_STATE_CACHE) > 64:
        _ORDERS_STATE_CACHE.clear()
        _ORDERS_VIEW_CACHE.clear()
    _ORDERS_STATE_CACHE[campaign.pk] = (key, state, names)
    return state, names


_ORDERS_VIEW_CACHE: dict[tuple[int, int, int | None], tuple[CampaignState, CampaignState]] = {}


def view_for_orders(campaign: Campaign, seat: int,
                    radius: int | None) -> tuple[CampaignState, dict[str, int]]:
    """(the seat's ``fog.orders_view``, its design names) for checking its orders: the view is
    kept beside the state it was made from (``state_for_orders``) and made again when that
    state is, so a player revising orders does not pay for the fog of war each time (issue 34
    item 10). Frozen, so shared safely."""
    state, names = state_for_orders(campaign)
    key = (campaign.pk, seat, radius)
    hit = _ORDERS_VIEW_CACHE.get(key)
    if hit is not None and hit[0] is state:
        return hit[1], names[seat]
    view = fog.orders_view(state, seat, radius)
    _ORDERS_VIEW_CACHE[key] = (state, view)
    return view, names[seat]
