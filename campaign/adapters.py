"""Explicit adapters between stored rows and the pure rules engines (godip's ``gae/`` role).

Nothing here decides a rule: it only converts rows to frozen engine state and engine results
back to rows.
"""

from __future__ import annotations

from collections import defaultdict

from .mapsvg import Overlay
from .models import BuildOrder, Campaign, Design, Empire, MapCell, Ship, Structure, World
from .rules.eventhorizon import economy as eh
from .rules.eventhorizon.designs import Design as DesignSpec
from .rules.eventhorizon.designs import DesignError, Technology
from .rules.eventhorizon.mapgen import EconomyType, GeneratedMap, Terrain
from .rules.grid import make_grid

RESOURCE_SYMBOL_ORDER = "^#*+SXG"


class PurchaseFormatError(ValueError):
    """A purchase that is not in the documented format (docs/export-format.md, "purchases")."""


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
    for x, y, kind, econ, is_home, seat in (
        World.objects.filter(campaign=campaign)
        .order_by("y", "x")
        .values_list("x", "y", "kind", "economy", "is_home", "owner__seat")
    ):
        if kind == "planet" and econ:
            economy.append(((x, y), EconomyType(econ)))
        if is_home and seat is not None:
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
        if world.is_home:
            overlay.home_worlds.add((world.x, world.y))
    symbols = defaultdict(set)
    for resource, x, y in Structure.objects.filter(campaign=campaign).values_list("resource", "x", "y"):
        symbol = eh.Resource(resource).symbol
        if symbol:
            symbols[(x, y)].add(symbol)
    overlay.symbols = {c: "".join(s for s in RESOURCE_SYMBOL_ORDER if s in found) for c, found in symbols.items()}
    ships = defaultdict(lambda: defaultdict(int))
    for owner_id, x, y in Ship.objects.filter(campaign=campaign).values_list("owner_id", "x", "y"):
        ships[(x, y)][owner_id] += 1
    overlay.ships = {
        c: [(empires[o].colour, n, empires[o].name) for o, n in sorted(by_owner.items())]
        for c, by_owner in ships.items()
    }
    return overlay


def _damage(raw: dict) -> eh.Damage:
    return eh.Damage(**raw) if raw else eh.NO_DAMAGE


def empire_economy(empire: Empire) -> eh.EmpireEconomy:
    """An empire's economic position as the economy engine sees it. Structure ids are the
    campaign-wide structure numbers players see."""
    worlds = []
    home = None
    for world in World.objects.filter(owner=empire).order_by("y", "x"):
        worlds.append(
            eh.OwnedWorld(
                coord=(world.x, world.y), kind=eh.WorldKind(world.kind),
                economy=EconomyType(world.economy) if world.economy else None,
            )
        )
        if world.is_home:
            home = (world.x, world.y)
    structures = tuple(
        eh.Structure(
            id=s.number, resource=eh.Resource(s.resource), coord=(s.x, s.y),
            technology=Technology(s.technology) if s.technology else None,
        )
        for s in Structure.objects.filter(owner=empire).order_by("number")
    )
    busy = frozenset(
        BuildOrder.objects.filter(owner=empire).values_list("dockyard__number", flat=True)
    )
    ships = tuple(
        eh.ShipAt(id=s.number, coord=(s.x, s.y), design_name=s.design.name, damage=_damage(s.damage))
        for s in Ship.objects.filter(owner=empire).select_related("design").order_by("number")
    )
    return eh.EmpireEconomy(
        bp=empire.bp, home_world=home, worlds=tuple(worlds), structures=structures,
        technologies=empire_technologies(empire), dockyard_busy=busy, ships=ships,
    )


def available_designs(empire: Empire) -> dict[str, Design]:
    """Designs an empire may order: the starter library and its own (its own win on a name)."""
    rows = {d.name: d for d in Design.objects.filter(campaign__isnull=True)}
    rows.update({d.name: d for d in Design.objects.filter(campaign=empire.campaign, empire=empire)})
    return rows


def _coord(raw, what: str) -> tuple[int, int]:
    if (
        not isinstance(raw, (list, tuple)) or len(raw) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw)
    ):
        raise PurchaseFormatError(f"{what} must be a [x, y] pair of whole numbers, not {raw!r}")
    return (raw[0], raw[1])


def _int(raw, what: str) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool):
        raise PurchaseFormatError(f"{what} must be a whole number, not {raw!r}")
    return raw


def purchase_from_dict(empire: Empire, raw: dict, *, designs: dict[str, Design] | None = None) -> eh.Purchase:
    """One purchase from its JSON form: ``{"buy": "dockyard", "at": [x, y]}``,
    ``{"build": "Design name", "dockyard": N, "hero_crew": false, "name": "…"}`` or
    ``{"repair": SHIP_NUMBER, "dockyard": N}``."""
    if not isinstance(raw, dict):
        raise PurchaseFormatError(f"a purchase must be an object, not {raw!r}")
    kinds = [k for k in ("buy", "build", "repair") if k in raw]
    if len(kinds) != 1:
        raise PurchaseFormatError("a purchase needs exactly one of 'buy', 'build' or 'repair'")
    kind = kinds[0]
    allowed = {"buy": {"buy", "at", "technology"}, "build": {"build", "dockyard", "hero_crew", "name"},
               "repair": {"repair", "dockyard"}}[kind]
    extra = set(raw) - allowed
    if extra:
        raise PurchaseFormatError(f"unknown field(s) in a '{kind}' purchase: {', '.join(sorted(extra))}")
    if kind == "buy":
        try:
            resource = eh.Resource(raw["buy"])
        except ValueError:
            names = ", ".join(r.value for r in eh.Resource)
            raise PurchaseFormatError(f"unknown resource '{raw['buy']}' (one of: {names})") from None
        technology = None
        if raw.get("technology") is not None:
            try:
                technology = Technology(raw["technology"])
            except ValueError:
                names = ", ".join(t.value for t in Technology)
                raise PurchaseFormatError(f"unknown technology '{raw['technology']}' (one of: {names})") from None
        return eh.BuyResource(resource=resource, coord=_coord(raw.get("at"), "'at'"), technology=technology)
    if kind == "build":
        designs = designs if designs is not None else available_designs(empire)
        row = designs.get(raw["build"]) if isinstance(raw["build"], str) else None
        if row is None:
            raise PurchaseFormatError(f"no design named {raw['build']!r} is available to this empire")
        try:
            spec = design_from_spec(row.spec)
        except DesignError as exc:
            raise PurchaseFormatError(str(exc)) from None
        hero = raw.get("hero_crew", False)
        if not isinstance(hero, bool):
            raise PurchaseFormatError(f"'hero_crew' must be true or false, not {hero!r}")
        name = raw.get("name", "")
        if not isinstance(name, str) or len(name) > 80:
            raise PurchaseFormatError("'name' must be text of at most 80 characters")
        return eh.BuildShip(design=spec, dockyard_id=_int(raw.get("dockyard"), "'dockyard'"),
                            hero_crew=hero, name=name)
    return eh.RepairShip(ship_id=_int(raw["repair"], "'repair'"), dockyard_id=_int(raw.get("dockyard"), "'dockyard'"))


def apply_spending(empire: Empire, before: eh.EmpireEconomy, plan: eh.SpendingPlan) -> None:
    """Write an accepted plan: BP, new structures (fresh campaign-wide numbers), technologies,
    builds on the stocks and repaired ships. The caller holds the empire's row lock."""
    campaign = empire.campaign
    old_ids = {s.id for s in before.structures}
    next_number = (Structure.objects.filter(campaign=campaign).order_by("-number")
                   .values_list("number", flat=True).first() or 0) + 1
    numbers = {}
    for structure in plan.economy_after.structures:
        if structure.id in old_ids:
            continue
        numbers[structure.id] = next_number
        Structure.objects.create(
            campaign=campaign, owner=empire, number=next_number, resource=structure.resource.value,
            x=structure.coord[0], y=structure.coord[1],
            technology=structure.technology.value if structure.technology else "",
            built_turn=campaign.turn,
        )
        next_number += 1
    designs = available_designs(empire)
    for build in plan.builds:
        dockyard = Structure.objects.get(campaign=campaign, number=numbers.get(build.dockyard_id, build.dockyard_id))
        BuildOrder.objects.create(
            campaign=campaign, owner=empire, dockyard=dockyard, design=designs[build.design.name],
            name=build.name, hero_crew=build.hero_crew, ordered_turn=campaign.turn,
            turns_remaining=build.turns_left,
        )
    for repair in plan.repairs:
        Ship.objects.filter(campaign=campaign, owner=empire, number=repair.ship_id).update(damage={})
    empire.bp = plan.bp_left
    empire.technologies = sorted(t.value for t in plan.economy_after.technologies)
    empire.save(update_fields=["bp", "technologies"])
