"""Event Horizon campaign economy (seeds/003 "Ideas for a Military Campaign"; RULINGS.md)."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from campaign.rules.dice import DiceError, FixedDice
from campaign.rules.eventhorizon.designs import (
    GALIOT,
    SAN_MARCO,
    SWORD,
    Design,
    ShipType,
    Technology,
)
from campaign.rules.eventhorizon.economy import (
    HERO_CREW_BP,
    STARTING_BP,
    BuildShip,
    BuyResource,
    Damage,
    DockyardBuild,
    EconomyError,
    EmpireEconomy,
    IncomeRoll,
    OwnedWorld,
    PlannedItem,
    RepairShip,
    Requirement,
    Resource,
    Scope,
    ShipAt,
    SpendingError,
    SpendingPlan,
    Structure,
    WorldKind,
    build_time,
    repair_cost,
    validate_spending,
    world_income,
)
from campaign.rules.eventhorizon.mapgen import EconomyType, Terrain

BP_RULE = "003 Use of BP in a Campaign"
NOTE_RULE = "003 Use of BP in a Campaign: Note"

HOME = (0, 0)  # industrial home world, with the starting dockyard (id 1)
OUTPOST = (2, 3)  # an untyped planet
COLONY = (4, 5)
SPACE = (7, 7)  # a hex with no world of ours

BASE = EmpireEconomy(
    bp=2000,
    home_world=HOME,
    worlds=(
        OwnedWorld(HOME, WorldKind.PLANET, EconomyType.INDUSTRIAL),
        OwnedWorld(OUTPOST, WorldKind.PLANET, None),
        OwnedWorld(COLONY, WorldKind.COLONY, None),
    ),
    structures=(Structure(1, Resource.DOCKYARD, HOME),),
)


def with_structures(*extra: tuple[Resource, tuple[int, int]] | Structure, **changes) -> EmpireEconomy:
    """BASE plus structures (``(resource, coord)`` pairs get the next ids) and field changes."""
    structures = list(BASE.structures)
    for entry in extra:
        if isinstance(entry, Structure):
            structures.append(entry)
        else:
            resource, coord = entry
            structures.append(Structure(max(s.id for s in structures) + 1, resource, coord))
    return dataclasses.replace(BASE, structures=tuple(structures), **changes)


GUILD = (Resource.MERCHANTS_GUILD, HOME)


def refused(economy: EmpireEconomy, *items, **kw) -> SpendingError:
    """The refusal of ``items``; also checks the input economy was left exactly as it was."""
    before = copy.deepcopy(economy)
    with pytest.raises(SpendingError) as caught:
        validate_spending(economy, list(items), **kw)
    assert economy == before
    return caught.value


def spend(economy: EmpireEconomy, *items, **kw) -> SpendingPlan:
    before = copy.deepcopy(economy)
    plan = validate_spending(economy, list(items), **kw)
    assert economy == before
    return plan


# --- Set Up ---------------------------------------------------------------------------------


def test_starting_bp_is_240():  # 003 Set Up
    assert STARTING_BP == 240


# --- Resource table -------------------------------------------------------------------------

RESOURCE_TABLE = [
    (Resource.DIPLOMATIC_CORPS, "Diplomatic Corps", 60, None, Scope.EMPIRE, None),
    (Resource.PLANETARY_DEFENCES, "Planetary Defences", 40, "^", Scope.WORLD, Requirement.OWN_WORLD),
    (Resource.HOLD_OUT_GARRISON, "Hold Out Garrison", 20, None, Scope.WORLD, Requirement.PLANETARY_DEFENCES),
    (Resource.AEWA, "Advanced Early Warning Array", 120, "#", Scope.WORLD, Requirement.PLANETARY_DEFENCES),
    (Resource.DOCKYARD, "Dockyard", 120, "*", Scope.WORLD_REPEATABLE, None),
    (Resource.MILITARY_ACADEMY, "Military Academy", 180, None, Scope.WORLD, Requirement.DOCKYARD),
    (Resource.MERCHANTS_GUILD, "Merchants Guild", 240, None, Scope.EMPIRE, Requirement.HOME_WORLD),
    (Resource.ENRICHMENT, "Enrichment", 60, "+", Scope.WORLD, Requirement.MERCHANTS_GUILD),
    (Resource.STABILISED_ECONOMY, "Stabilised Economy", 40, "S", Scope.WORLD, Requirement.ENRICHED),
    (
        Resource.RESEARCH_FACILITY,
        "Research Facility",
        60,
        "X",
        Scope.WORLD_REPEATABLE,
        Requirement.MERCHANTS_GUILD,
    ),
    (Resource.STAR_GATE, "Star Gate", 120, "G", Scope.ANY_HEX, Requirement.RESEARCH_FACILITY),
]


def test_resource_table_lists_all_eleven():  # 003 Use of BP in a Campaign
    assert [row[0] for row in RESOURCE_TABLE] == list(Resource)
    assert len(Resource) == 11


@pytest.mark.parametrize("resource, label, cost, symbol, scope, requires", RESOURCE_TABLE)
def test_resource_row(resource, label, cost, symbol, scope, requires):  # 003 Use of BP in a Campaign
    assert (resource.label, resource.cost, resource.symbol) == (label, cost, symbol)
    assert (resource.scope, resource.requires) == (scope, requires)


def _tech(resource):
    return Technology.NANOBOT_SKIN if resource is Resource.RESEARCH_FACILITY else None


@pytest.mark.parametrize("resource, label, cost, symbol, scope, requires", RESOURCE_TABLE)
def test_resource_costs_its_bp(resource, label, cost, symbol, scope, requires):  # 003 Use of BP in a Campaign
    # Every prerequisite in place, on worlds other than the one bought on.
    economy = with_structures(
        GUILD,
        (Resource.PLANETARY_DEFENCES, OUTPOST),
        (Resource.ENRICHMENT, OUTPOST),
        (Resource.DOCKYARD, OUTPOST),
        (Resource.RESEARCH_FACILITY, COLONY),
    )
    if resource is Resource.MERCHANTS_GUILD:
        economy = dataclasses.replace(economy, structures=BASE.structures)
    coord = {
        Resource.MERCHANTS_GUILD: HOME,
        Resource.STAR_GATE: SPACE,
        Resource.PLANETARY_DEFENCES: COLONY,  # OUTPOST already has them
        Resource.ENRICHMENT: COLONY,  # OUTPOST is already enriched
    }.get(resource, OUTPOST)
    item = BuyResource(resource, coord, _tech(resource))
    plan = spend(economy, item)
    assert plan.total == cost and plan.items == (
        PlannedItem(item, cost, Structure(economy.next_structure_id(), resource, coord, _tech(resource))),
    )
    assert plan.bp_left == economy.bp - cost == plan.economy_after.bp


# Each prerequisite: refused without it, accepted with it (requirement at the same world where
# the rule book says "the planet/colony").
PREREQUISITES = [
    (
        Resource.HOLD_OUT_GARRISON,
        OUTPOST,
        [(Resource.PLANETARY_DEFENCES, OUTPOST)],
        [(Resource.PLANETARY_DEFENCES, COLONY)],
        "requires planetary defences",
    ),
    (
        Resource.AEWA,
        OUTPOST,
        [(Resource.PLANETARY_DEFENCES, OUTPOST)],
        [(Resource.PLANETARY_DEFENCES, COLONY)],
        "requires planetary defences",
    ),
    (Resource.MILITARY_ACADEMY, OUTPOST, [(Resource.DOCKYARD, OUTPOST)], [], "requires a dockyard"),
    (Resource.ENRICHMENT, COLONY, [GUILD], [], "requires a Merchants Guild"),
    (
        Resource.STABILISED_ECONOMY,
        COLONY,
        [GUILD, (Resource.ENRICHMENT, COLONY)],
        [GUILD, (Resource.ENRICHMENT, OUTPOST)],
        "requires that the planet/colony has been enriched",
    ),
    (Resource.RESEARCH_FACILITY, COLONY, [GUILD], [], "requires a Merchants Guild"),
    (
        Resource.STAR_GATE,
        SPACE,
        [GUILD, (Resource.RESEARCH_FACILITY, COLONY)],
        [GUILD],
        "requires that at least one research facility has been built",
    ),
]


@pytest.mark.parametrize("resource, coord, needed, elsewhere, text", PREREQUISITES)
def test_resource_prerequisite(resource, coord, needed, elsewhere, text):  # 003 Use of BP in a Campaign
    item = BuyResource(resource, coord, _tech(resource))
    error = refused(with_structures(*elsewhere), item)
    assert (error.rule, error.message) == (BP_RULE, text)
    spend(with_structures(*needed), item)


def test_prerequisite_message_format():  # 003 Use of BP in a Campaign
    error = refused(
        BASE,
        BuyResource(Resource.DOCKYARD, OUTPOST),
        BuyResource(Resource.PLANETARY_DEFENCES, HOME),
        BuyResource(Resource.RESEARCH_FACILITY, COLONY, Technology.NANOBOT_SKIN),
    )
    assert (error.index, error.rule, error.message) == (2, BP_RULE, "requires a Merchants Guild")
    assert error.item == BuyResource(Resource.RESEARCH_FACILITY, COLONY, Technology.NANOBOT_SKIN)
    assert str(error) == (
        "item 3 (Research Facility at (4,5), researching Nanobot Skin): "
        "003 Use of BP in a Campaign: requires a Merchants Guild"
    )


def test_prerequisite_bought_later_in_the_list_does_not_count():  # 003 Use of BP in a Campaign
    error = refused(
        BASE,
        BuyResource(Resource.RESEARCH_FACILITY, COLONY, Technology.STEALTH_FIELD),
        BuyResource(Resource.MERCHANTS_GUILD, HOME),
    )
    assert error.index == 0 and error.message == "requires a Merchants Guild"


def test_prerequisite_bought_earlier_in_the_list_counts():  # 003 Use of BP in a Campaign
    plan = spend(
        BASE,
        BuyResource(Resource.MERCHANTS_GUILD, HOME),
        BuyResource(Resource.RESEARCH_FACILITY, COLONY, Technology.STEALTH_FIELD),
        BuyResource(Resource.ENRICHMENT, OUTPOST),
        BuyResource(Resource.STAR_GATE, SPACE),
    )
    after = plan.economy_after
    assert plan.total == 240 + 60 + 60 + 120
    assert after.technologies == {Technology.STEALTH_FIELD}
    assert [(s.id, s.resource, s.coord) for s in after.structures] == [
        (1, Resource.DOCKYARD, HOME),
        (2, Resource.MERCHANTS_GUILD, HOME),
        (3, Resource.RESEARCH_FACILITY, COLONY),
        (4, Resource.ENRICHMENT, OUTPOST),
        (5, Resource.STAR_GATE, SPACE),
    ]


def test_new_structure_ids_follow_the_highest_existing_id():  # 003 Use of BP in a Campaign
    economy = with_structures(Structure(41, Resource.PLANETARY_DEFENCES, COLONY))
    plan = spend(economy, BuyResource(Resource.DOCKYARD, OUTPOST), BuyResource(Resource.DOCKYARD, COLONY))
    assert [p.structure.id for p in plan.items] == [42, 43]


# --- Placement rulings ----------------------------------------------------------------------

WORLD_RESOURCES = [r for r in Resource if r is not Resource.STAR_GATE]


@pytest.mark.parametrize("resource", WORLD_RESOURCES)
def test_resources_need_an_owned_world(
    resource,
):  # 003 Use of BP in a Campaign (ruling: placed on an owned planet/colony)
    economy = with_structures(GUILD, (Resource.RESEARCH_FACILITY, COLONY))
    error = refused(economy, BuyResource(resource, SPACE, _tech(resource)))
    assert error.message == "requires that you own the planet/colony at (7,7)"


def test_star_gate_can_go_in_any_hex():  # 003 Use of BP in a Campaign: Star Gate
    economy = with_structures(GUILD, (Resource.RESEARCH_FACILITY, COLONY))
    for coord in (SPACE, OUTPOST, (99, -3)):
        spend(economy, BuyResource(Resource.STAR_GATE, coord))


def test_one_star_gate_per_hex():  # 003 Use of BP in a Campaign: Star Gate (ruling)
    economy = with_structures(GUILD, (Resource.RESEARCH_FACILITY, COLONY))
    error = refused(economy, BuyResource(Resource.STAR_GATE, SPACE), BuyResource(Resource.STAR_GATE, SPACE))
    assert error.index == 1 and "already a star gate at (7,7)" in error.message
    error = refused(economy, BuyResource(Resource.STAR_GATE, SPACE), other_gates=frozenset({SPACE}))
    assert error.index == 0 and error.rule == "003 Use of BP in a Campaign: Star Gate"
    spend(economy, BuyResource(Resource.STAR_GATE, SPACE), BuyResource(Resource.STAR_GATE, (8, 8)))


def test_merchants_guild_must_be_on_the_home_world():  # 003 Use of BP in a Campaign: Merchants Guild (ruling)
    error = refused(BASE, BuyResource(Resource.MERCHANTS_GUILD, OUTPOST))
    assert "must be established on your home world" in error.message


def test_merchants_guild_needs_a_home_world_still_owned():  # 003 Use of BP in a Campaign: Merchants Guild
    lost_home = dataclasses.replace(BASE, home_world=None)
    assert refused(lost_home, BuyResource(Resource.MERCHANTS_GUILD, HOME)).index == 0
    captured = dataclasses.replace(BASE, worlds=BASE.worlds[1:])
    assert (
        "own the planet/colony at (0,0)"
        in refused(captured, BuyResource(Resource.MERCHANTS_GUILD, HOME)).message
    )


@pytest.mark.parametrize("resource", [Resource.DIPLOMATIC_CORPS, Resource.MERCHANTS_GUILD])
def test_one_per_empire(resource):  # 003 Use of BP in a Campaign (ruling: empire institutions)
    economy = with_structures((resource, HOME))
    error = refused(economy, BuyResource(resource, HOME if resource is Resource.MERCHANTS_GUILD else COLONY))
    assert error.message == f"your empire already has a {resource.label}"


def test_diplomatic_corps_on_any_owned_world():  # 003 Use of BP in a Campaign: Diplomatic Corps (ruling)
    for coord in (HOME, OUTPOST, COLONY):
        spend(BASE, BuyResource(Resource.DIPLOMATIC_CORPS, coord))


ONCE_PER_WORLD = [
    (Resource.PLANETARY_DEFENCES, []),
    (Resource.HOLD_OUT_GARRISON, [(Resource.PLANETARY_DEFENCES, OUTPOST)]),
    (Resource.AEWA, [(Resource.PLANETARY_DEFENCES, OUTPOST)]),
    (Resource.MILITARY_ACADEMY, [(Resource.DOCKYARD, OUTPOST)]),
    (Resource.ENRICHMENT, [GUILD]),
    (Resource.STABILISED_ECONOMY, [GUILD, (Resource.ENRICHMENT, OUTPOST)]),
]


@pytest.mark.parametrize("resource, needed", ONCE_PER_WORLD)
def test_once_per_world(resource, needed):  # 003 Use of BP in a Campaign (ruling: once per world)
    economy = with_structures(*needed)
    spend(economy, BuyResource(resource, OUTPOST))
    error = refused(with_structures(*needed, (resource, OUTPOST)), BuyResource(resource, OUTPOST))
    assert error.message == f"{resource.label} has already been built on the planet/colony at (2,3)"


def test_dockyards_and_research_facilities_may_repeat_on_a_world():  # 003 Use of BP in a Campaign: Note
    economy = with_structures(
        GUILD,
        (Resource.DOCKYARD, OUTPOST),
        Structure(9, Resource.RESEARCH_FACILITY, COLONY, Technology.NANOBOT_SKIN),
    )
    spend(economy, BuyResource(Resource.DOCKYARD, OUTPOST))
    spend(economy, BuyResource(Resource.RESEARCH_FACILITY, COLONY, Technology.AI_SUPERCOMPUTER))


@pytest.mark.parametrize(
    "first",
    [BuyResource(Resource.DOCKYARD, OUTPOST), BuyResource(Resource.PLANETARY_DEFENCES, OUTPOST)],
)
def test_one_resource_per_world_per_turn(first):  # 003 Use of BP in a Campaign: Note
    error = refused(BASE, first, BuyResource(Resource.DIPLOMATIC_CORPS, OUTPOST))
    assert (error.index, error.rule) == (1, NOTE_RULE)
    assert error.message == "only one resource can be built on the planet/colony at (2,3) per turn"
    spend(BASE, first, BuyResource(Resource.DIPLOMATIC_CORPS, COLONY))


def test_second_dockyard_on_a_world_needs_another_turn():  # 003 Use of BP in a Campaign: Note
    error = refused(BASE, BuyResource(Resource.DOCKYARD, OUTPOST), BuyResource(Resource.DOCKYARD, OUTPOST))
    assert error.rule == NOTE_RULE


def test_guild_then_facility_on_the_same_world_refused():  # 003 Use of BP in a Campaign: Note
    error = refused(
        BASE,
        BuyResource(Resource.MERCHANTS_GUILD, HOME),
        BuyResource(Resource.RESEARCH_FACILITY, HOME, Technology.NANOBOT_SKIN),
    )
    assert (error.index, error.rule) == (1, NOTE_RULE)


def test_star_gate_on_a_world_counts_as_that_worlds_resource():  # 003 Use of BP in a Campaign: Note (ruling)
    economy = with_structures(GUILD, (Resource.RESEARCH_FACILITY, COLONY))
    error = refused(
        economy, BuyResource(Resource.STAR_GATE, OUTPOST), BuyResource(Resource.DOCKYARD, OUTPOST)
    )
    assert (error.index, error.rule) == (1, NOTE_RULE)
    spend(economy, BuyResource(Resource.STAR_GATE, SPACE), BuyResource(Resource.DOCKYARD, OUTPOST))


# --- Research Facility ----------------------------------------------------------------------


def test_research_facility_must_name_a_technology():  # 003 Use of BP in a Campaign: Research Facility
    error = refused(with_structures(GUILD), BuyResource(Resource.RESEARCH_FACILITY, COLONY))
    assert error.rule == "003 Use of BP in a Campaign: Research Facility"


def test_only_a_research_facility_grants_technology():  # 003 Use of BP in a Campaign: Research Facility
    error = refused(BASE, BuyResource(Resource.DOCKYARD, OUTPOST, Technology.NANOBOT_SKIN))
    assert "only a Research Facility grants a technology" in error.message


@pytest.mark.parametrize("tech", list(Technology))
def test_research_facility_grants_its_technology_once(tech):  # 003 Use of BP in a Campaign: Research Facility
    plan = spend(with_structures(GUILD), BuyResource(Resource.RESEARCH_FACILITY, COLONY, tech))
    assert plan.economy_after.technologies == {tech}
    assert plan.economy_after.structures[-1].technology is tech
    error = refused(
        with_structures(GUILD),
        BuyResource(Resource.RESEARCH_FACILITY, COLONY, tech),
        BuyResource(Resource.RESEARCH_FACILITY, OUTPOST, tech),
    )
    assert error.index == 1 and error.message == f"{tech.label} has already been researched"


# --- Affordability --------------------------------------------------------------------------


def test_unaffordable_item_refused_with_cost_and_bp_left():  # 003 Use of BP in a Campaign
    economy = dataclasses.replace(BASE, bp=150)
    error = refused(
        economy, BuyResource(Resource.DIPLOMATIC_CORPS, HOME), BuyResource(Resource.DOCKYARD, OUTPOST)
    )
    assert error.index == 1 and error.rule == BP_RULE
    assert error.message == "costs 120 BP but only 90 BP are left (30 short)"


def test_spending_every_last_bp_is_allowed():  # 003 Use of BP in a Campaign
    economy = dataclasses.replace(BASE, bp=STARTING_BP)
    plan = spend(economy, BuyResource(Resource.DOCKYARD, OUTPOST), BuyResource(Resource.DOCKYARD, COLONY))
    assert (plan.total, plan.bp_left, plan.economy_after.bp) == (240, 0, 0)
    assert refused(economy, BuyResource(Resource.MERCHANTS_GUILD, HOME), BuildShip(GALIOT, 1)).index == 1


def test_empty_purchase_list_is_valid():  # 003 Campaign Turn Sequence: spend some, all or none
    plan = spend(BASE)
    assert plan == SpendingPlan(economy_after=BASE, items=(), total=0, bp_left=BASE.bp)


def test_not_a_purchase_refused():  # 003 Use of BP in a Campaign
    assert refused(BASE, "a battleship").index == 0


# --- Ship builds ----------------------------------------------------------------------------


@pytest.mark.parametrize("design", [SAN_MARCO, GALIOT])
def test_build_ship_costs_its_bp_and_occupies_the_dockyard(design):  # 003 Use of BP in a Campaign: Dockyard
    plan = spend(BASE, BuildShip(design, 1, name="Audacious"))
    assert plan.total == design.bp
    assert plan.economy_after.dockyard_busy == {1}
    assert plan.builds == (DockyardBuild(1, design, False, "Audacious", design.ship_type.build_time),)


def test_build_needs_a_dockyard():  # 003 Use of BP in a Campaign: Dockyard
    assert "no dockyard 7" in refused(BASE, BuildShip(GALIOT, 7)).message
    economy = with_structures((Resource.PLANETARY_DEFENCES, HOME))
    assert "no dockyard 2" in refused(economy, BuildShip(GALIOT, 2)).message


def test_one_ship_per_dockyard_per_turn():  # 003 Use of BP in a Campaign: Note
    error = refused(BASE, BuildShip(GALIOT, 1), BuildShip(GALIOT, 1))
    assert (error.index, error.rule) == (1, "003 Use of BP in a Campaign: Note")


def test_busy_dockyard_takes_no_new_build():  # 003 Star Ship Build Times (ruling: one ship at a time)
    busy = dataclasses.replace(BASE, dockyard_busy=frozenset({1}))
    error = refused(busy, BuildShip(GALIOT, 1))
    assert error.rule == "003 Star Ship Build Times" and "still building" in error.message


def test_two_dockyards_on_one_world_build_two_ships():  # 003 Use of BP in a Campaign: Note
    economy = with_structures((Resource.DOCKYARD, HOME))
    plan = spend(economy, BuildShip(GALIOT, 1), BuildShip(GALIOT, 2))
    assert plan.economy_after.dockyard_busy == {1, 2} and plan.total == 50


# 003 Use of BP in a Campaign (ruling: resources take effect when bought)
def test_dockyard_bought_this_turn_can_start_a_ship():
    plan = spend(BASE, BuyResource(Resource.DOCKYARD, OUTPOST), BuildShip(GALIOT, 2))
    assert plan.economy_after.dockyard_busy == {2}


def test_invalid_design_refused_with_its_design_rule():  # 003 Star Ship Design Rules
    bad = dataclasses.replace(GALIOT, hull=13)
    error = refused(BASE, BuildShip(bad, 1))
    assert error.rule == "003 Star Ship Design Rules"
    assert error.message == "hull strength must be 1 to 12, not 13"


def test_research_gated_design_needs_the_technology():  # RULINGS.md: Research-gated components
    error = refused(BASE, BuildShip(SWORD, 1))
    assert "Research-gated components" in error.rule and "Stealth Field Technology" in error.message
    spend(dataclasses.replace(BASE, technologies=frozenset({Technology.STEALTH_FIELD})), BuildShip(SWORD, 1))


# 003 Use of BP in a Campaign: Research Facility
def test_technology_researched_earlier_in_the_list_allows_the_design():
    plan = spend(
        with_structures(GUILD),
        BuyResource(Resource.RESEARCH_FACILITY, COLONY, Technology.STEALTH_FIELD),
        BuildShip(SWORD, 1),
    )
    assert plan.total == 60 + 30


# 003 Use of BP in a Campaign: Military Academy
def test_hero_crew_costs_30_more_with_an_academy_on_the_dockyards_world():
    economy = with_structures((Resource.MILITARY_ACADEMY, HOME))
    plan = spend(economy, BuildShip(GALIOT, 1, hero_crew=True))
    assert HERO_CREW_BP == 30 and plan.total == GALIOT.bp + 30
    assert plan.builds[0].hero_crew


def test_hero_crew_without_academy_refused():  # 003 Use of BP in a Campaign: Military Academy
    error = refused(BASE, BuildShip(GALIOT, 1, hero_crew=True))
    assert error.rule == "003 Use of BP in a Campaign: Military Academy"
    assert error.message == "a hero crew needs a Military Academy at (0,0), the world of dockyard 1"


def test_hero_crew_with_academy_on_another_world_refused():  # 003 Use of BP in a Campaign: Military Academy (ruling)
    economy = with_structures((Resource.DOCKYARD, OUTPOST), (Resource.MILITARY_ACADEMY, OUTPOST))
    assert refused(economy, BuildShip(GALIOT, 1, hero_crew=True)).index == 0
    spend(economy, BuildShip(GALIOT, 2, hero_crew=True))


def test_hero_crew_unaffordable_by_30():  # 003 Use of BP in a Campaign: Military Academy
    economy = with_structures((Resource.MILITARY_ACADEMY, HOME), bp=GALIOT.bp + 29)
    assert (
        refused(economy, BuildShip(GALIOT, 1, hero_crew=True)).message
        == "costs 55 BP but only 54 BP are left (1 short)"
    )


@pytest.mark.parametrize(
    "ship_type, turns",
    [
        (ShipType.PATROL_CRAFT, 1),
        (ShipType.CORVETTE, 2),
        (ShipType.FRIGATE, 3),
        (ShipType.DESTROYER, 4),
        (ShipType.STAR_CRUISER, 5),
        (ShipType.SPACE_STATION, 4),
        (ShipType.TRAMP_FREIGHTER, 1),
        (ShipType.BULK_CARRIER, 3),
        (ShipType.STAR_LIFTER, 6),
    ],
)
def test_dockyard_build_time(ship_type, turns):  # 003 Star Ship Build Times
    design = Design(name="T", ship_type=ship_type, hull=1, engine=1, cargo=ship_type.bp - 2)
    assert build_time(design) == DockyardBuild.build_time(design) == turns
    build = DockyardBuild.start(BuildShip(design, 1))
    for _ in range(turns - 1):
        build = build.advance()
        assert not build.complete
    assert build.advance().complete


# --- Repairs --------------------------------------------------------------------------------

REPAIR_ROWS = [
    # design, damage, cost
    (GALIOT, Damage(hull=1), 1),
    (GALIOT, Damage(hull=5), 5),
    (dataclasses.replace(GALIOT, nanobot_skin=True), Damage(hull=3), 6),
    (GALIOT, Damage(engine=1), 1),
    (GALIOT, Damage(engine=9), 9),
    (SAN_MARCO, Damage(weapons=("laser_bank",)), 1),
    (SAN_MARCO, Damage(weapons=("fighter_bay",)), 2),
    (SAN_MARCO, Damage(weapons=("guided_missile_bay", "guided_missile_bay")), 8),
    (
        Design(
            name="P", ship_type=ShipType.STAR_LIFTER, hull=1, engine=1, weapons={"particle_accelerator": 1}
        ),
        Damage(weapons=("particle_accelerator",)),
        2,
    ),
    (
        Design(name="E", ship_type=ShipType.STAR_LIFTER, hull=1, engine=1, weapons={"emp_cannon": 1}),
        Damage(weapons=("emp_cannon",)),
        3,
    ),
    (
        Design(
            name="B",
            ship_type=ShipType.STAR_LIFTER,
            hull=1,
            engine=1,
            weapons={"planetary_bombardment_array": 1},
        ),
        Damage(weapons=("planetary_bombardment_array",)),
        20,
    ),
    (SAN_MARCO, Damage(force_field_generators=1), 5),
    (SAN_MARCO, Damage(force_field_generators=4), 5),
    (SWORD, Damage(force_field_generators=2), 3),
    (GALIOT, Damage(force_field_generators=3), 4),
    (dataclasses.replace(GALIOT, force_field=4), Damage(force_field_generators=1), 1),
    (dataclasses.replace(GALIOT, force_field=5), Damage(force_field_generators=1), 2),
    (
        dataclasses.replace(GALIOT, force_field=4, improved_force_fields=True),
        Damage(force_field_generators=2),
        4,
    ),
    (SWORD, Damage(stealth=True), 5),
    (SWORD, Damage(boarding_parties=1), 1),
    (
        SWORD,
        Damage(
            hull=2, engine=3, weapons=("laser_bank", "fighter_bay"), force_field_generators=4, stealth=True
        ),
        2 + 3 + 1 + 2 + 3 + 5,
    ),
]


@pytest.mark.parametrize("design, damage, cost", REPAIR_ROWS)
def test_repair_cost_is_component_bp(
    design, damage, cost
):  # 003 Use of BP in a Campaign: Dockyard; Note (FF paid once)
    assert repair_cost(design, damage) == cost


@pytest.mark.parametrize(
    "design, damage",
    [
        (GALIOT, Damage(hull=6)),
        (GALIOT, Damage(engine=10)),
        (GALIOT, Damage(hull=-1)),
        (GALIOT, Damage(weapons=("emp_cannon",))),
        (GALIOT, Damage(weapons=("fighter_bay", "fighter_bay"))),
        (GALIOT, Damage(weapons=("phaser",))),
        (GALIOT, Damage(stealth=True)),
        (GALIOT, Damage(force_field_generators=5)),
        (
            Design(name="N", ship_type=ShipType.STAR_LIFTER, hull=1, engine=1),
            Damage(force_field_generators=1),
        ),
        (GALIOT, Damage(boarding_parties=2)),
    ],
)
def test_damage_the_design_cannot_have_refused(design, damage):  # 003 Use of BP in a Campaign: Dockyard
    with pytest.raises(EconomyError) as caught:
        repair_cost(design, damage)
    assert caught.value.rule == "003 Use of BP in a Campaign: Dockyard"


def test_undamaged_ship_cannot_be_repaired():  # 003 Use of BP in a Campaign: Dockyard
    with pytest.raises(EconomyError, match="undamaged"):
        repair_cost(GALIOT, Damage())
    economy = dataclasses.replace(BASE, ships=(ShipAt(3, HOME, GALIOT.name),))
    assert "undamaged" in refused(economy, RepairShip(3, 1), designs={GALIOT.name: GALIOT}).message


DAMAGED = dataclasses.replace(
    BASE,
    ships=(
        ShipAt(3, HOME, GALIOT.name, Damage(hull=2, weapons=("fighter_bay",))),
        ShipAt(4, OUTPOST, SAN_MARCO.name, Damage(engine=1)),
        ShipAt(5, HOME, "Lost Plans", Damage(engine=1)),
        ShipAt(6, HOME, SAN_MARCO.name, Damage(force_field_generators=2)),
    ),
)
DESIGNS = {GALIOT.name: GALIOT, SAN_MARCO.name: SAN_MARCO}


def test_repair_at_the_dockyard():  # 003 Use of BP in a Campaign: Dockyard
    plan = spend(DAMAGED, RepairShip(3, 1), designs=DESIGNS)
    assert plan.total == 4 and plan.repairs == (RepairShip(3, 1),)
    assert plan.economy_after.dockyard_busy == frozenset()  # a repair lasts only this turn


def test_repair_away_from_the_dockyard_refused():  # 003 Use of BP in a Campaign: Dockyard
    error = refused(DAMAGED, RepairShip(4, 1), designs=DESIGNS)
    assert error.rule == "003 Use of BP in a Campaign: Dockyard"
    assert "must be in the dockyard's hex (0,0), not (2,3)" in error.message


def test_repair_and_build_share_the_dockyards_turn():  # 003 Use of BP in a Campaign: Note
    error = refused(DAMAGED, RepairShip(3, 1), BuildShip(GALIOT, 1), designs=DESIGNS)
    assert (error.index, error.rule) == (1, NOTE_RULE)
    error = refused(DAMAGED, RepairShip(3, 1), RepairShip(6, 1), designs=DESIGNS)
    assert (error.index, error.rule) == (1, NOTE_RULE)


def test_busy_dockyard_cannot_repair():  # 003 Star Ship Build Times (ruling: one ship at a time)
    busy = dataclasses.replace(DAMAGED, dockyard_busy=frozenset({1}))
    assert refused(busy, RepairShip(3, 1), designs=DESIGNS).rule == "003 Star Ship Build Times"


def test_ship_repaired_once_per_turn():  # 003 Use of BP in a Campaign: Dockyard
    economy = dataclasses.replace(
        DAMAGED, structures=DAMAGED.structures + (Structure(2, Resource.DOCKYARD, HOME),)
    )
    error = refused(economy, RepairShip(3, 1), RepairShip(3, 2), designs=DESIGNS)
    assert error.index == 1 and "already being repaired" in error.message


@pytest.mark.parametrize(
    "item, text", [(RepairShip(99, 1), "no ship 99"), (RepairShip(5, 1), "unknown design 'Lost Plans'")]
)
def test_repair_of_unknown_ship_or_design_refused(item, text):  # 003 Use of BP in a Campaign: Dockyard
    assert text in refused(DAMAGED, item, designs=DESIGNS).message


# --- A refused list changes nothing ---------------------------------------------------------


def test_refused_list_returns_nothing_and_leaves_the_empire_unchanged():  # 003 Use of BP in a Campaign
    economy = with_structures(GUILD, bp=300)
    snapshot = copy.deepcopy(economy)
    result = None
    with pytest.raises(SpendingError):
        result = validate_spending(
            economy,
            [
                BuyResource(Resource.RESEARCH_FACILITY, COLONY, Technology.NANOBOT_SKIN),
                BuildShip(SAN_MARCO, 1),
                BuildShip(GALIOT, 1),
            ],
        )
    assert result is None
    assert economy == snapshot and economy.bp == 300 and economy.technologies == frozenset()
    with pytest.raises(dataclasses.FrozenInstanceError):
        economy.bp = 0  # type: ignore[misc]


# --- World income ---------------------------------------------------------------------------

# (kind, economy, faces 1..6 unenriched, faces 1..6 enriched)
INCOME_TABLE = [
    ("planet", None, [10, 20, 30, 40, 50, 60], [20, 30, 40, 50, 60, 70]),  # 1d6 x 10
    ("planet", EconomyType.INDUSTRIAL, [10, 20, 30, 40, 50, 60], [20, 30, 40, 50, 60, 70]),  # 1d6 x 10
    ("planet", EconomyType.COMMERCIAL, [0, 10, 20, 30, 40, 50], [10, 20, 30, 40, 50, 60]),  # (1d6-1) x 10
    ("planet", EconomyType.AGRICULTURAL, [0, 0, 10, 20, 30, 40], [0, 10, 20, 30, 40, 50]),  # (1d6-2) x 10
    ("colony", None, [0, 0, 0, 10, 20, 30], [0, 0, 10, 20, 30, 40]),  # (1d6-3) x 10
]
INCOME_CASES = [
    pytest.param(
        kind,
        economy,
        enriched,
        face,
        bp,
        id=f"{kind}-{economy.value if economy else 'untyped'}-{'enriched' if enriched else 'plain'}-{face}",
    )
    for kind, economy, plain, rich in INCOME_TABLE
    for enriched, values in ((False, plain), (True, rich))
    for face, bp in zip(range(1, 7), values, strict=True)
]


@pytest.mark.parametrize("kind, economy, enriched, face, bp", INCOME_CASES)
def test_world_income_every_face(
    kind, economy, enriched, face, bp
):  # 003 Creating a Map; Planetary Economy Type; Enrichment; RULINGS.md Colony income
    dice = FixedDice([face])
    income = world_income(kind, economy, enriched, False, dice)
    assert income.bp == bp
    assert income.roll.faces == (face,) and income.roll.expression == "1d6"
    assert income.roll.purpose == "003 Resource Exploitation"
    assert dice.rolls == [income.roll] and dice.remaining() == []


@pytest.mark.parametrize(
    "kind, economy, bp",
    [
        ("planet", None, 40),
        ("planet", EconomyType.INDUSTRIAL, 40),
        ("planet", EconomyType.COMMERCIAL, 30),
        ("planet", EconomyType.AGRICULTURAL, 20),
        ("colony", None, 10),
    ],
)
def test_stabilised_income_is_fixed_and_rolls_nothing(
    kind, economy, bp
):  # 003 Use of BP in a Campaign: Stabilised Economy; Planetary Economy Type
    dice = FixedDice([])
    assert world_income(kind, economy, True, True, dice) == IncomeRoll(
        bp=bp, roll=None, formula=f"stabilised {bp}"
    )
    assert dice.rolls == []
    assert world_income(kind, economy, True, True, None).bp == bp


@pytest.mark.parametrize(
    "kind, economy, enriched, formula",
    [
        ("planet", None, False, "1d6 x 10, at least 0"),
        ("planet", EconomyType.AGRICULTURAL, False, "(1d6 - 2) x 10, at least 0"),
        ("colony", None, True, "(1d6 + 1 - 3) x 10, at least 0"),
    ],
)
def test_income_records_its_formula(kind, economy, enriched, formula):  # 003 Creating a Map; Enrichment
    assert world_income(kind, economy, enriched, False, FixedDice([2])).formula == formula


def test_income_accepts_map_terrain_and_string_values():  # 003 Creating a Map
    assert world_income(Terrain.PLANET, "commercial", False, False, FixedDice([3])).bp == 20
    assert world_income(WorldKind.COLONY, None, False, False, FixedDice([6])).bp == 30


@pytest.mark.parametrize(
    "args",
    [
        ("colony", EconomyType.INDUSTRIAL, False, False),  # colonies have no economy type
        ("planet", None, False, True),  # stabilised needs enrichment first
        ("black_hole", None, False, False),
        ("planet", "mining", False, False),
    ],
)
def test_impossible_income_refused(args):  # 003 Planetary Economy Type; Stabilised Economy; Creating a Map
    with pytest.raises(EconomyError):
        world_income(*args, FixedDice([3]))


def test_unstabilised_income_needs_dice():  # 003 Resource Exploitation
    with pytest.raises(EconomyError):
        world_income("planet", None, False, False, None)


def test_income_rolls_exactly_one_d6():  # 003 Creating a Map
    with pytest.raises(DiceError):
        world_income("planet", None, False, False, FixedDice([]))
