"""Event Horizon ship designs (seeds/003 "Star Ship Design Rules"; RULINGS.md Event Horizon)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from campaign.rules.eventhorizon.designs import (
    FORCE_FIELD_COST,
    GALIOT,
    SAMPLE_DESIGNS,
    SAN_MARCO,
    SULTAN,
    SWORD,
    WEAPONS,
    Design,
    DesignError,
    ShipType,
    Technology,
    build_time,
    design_problems,
    validate_design,
)

DESIGN_RULES = "003 Star Ship Design Rules"
ALL_TECH = frozenset(Technology)


def fit(ship_type: ShipType, **components) -> Design:
    """A design of ``ship_type`` with ``components``, padded with cargo to the type's BP."""
    components.setdefault("hull", 1)
    components.setdefault("engine", 1)
    base = Design(name="Test Class", ship_type=ship_type, **components)
    padding = ship_type.bp - base.bp
    assert padding >= 0, f"{components} already exceed a {ship_type.label}"
    return dataclasses.replace(base, cargo=base.cargo + padding)


def refusal(design: Design, technologies=None) -> DesignError:
    with pytest.raises(DesignError) as caught:
        validate_design(design, technologies)
    return caught.value


# --- Ship Type table ------------------------------------------------------------------------

SHIP_TYPES = [
    (ShipType.PATROL_CRAFT, "Patrol Craft", 20, "military", 1),
    (ShipType.CORVETTE, "Corvette", 25, "military", 2),
    (ShipType.FRIGATE, "Frigate", 30, "military", 3),
    (ShipType.DESTROYER, "Destroyer", 35, "military", 4),
    (ShipType.STAR_CRUISER, "Star Cruiser", 40, "military", 5),
    (ShipType.SPACE_STATION, "Space Station", 30, "station", 4),
    (ShipType.TRAMP_FREIGHTER, "Tramp Freighter", 15, "freighter", 1),
    (ShipType.BULK_CARRIER, "Bulk Carrier", 30, "freighter", 3),  # the build table's Bulk Hauler
    (ShipType.STAR_LIFTER, "Star Lifter", 60, "freighter", 6),
]


def test_ship_type_table_lists_every_type():  # 003 Star Ship Design Rules: Ship Type
    assert {row[0] for row in SHIP_TYPES} == set(ShipType)


@pytest.mark.parametrize("ship_type, label, bp, category, turns", SHIP_TYPES)
def test_ship_type_bp_and_category(
    ship_type, label, bp, category, turns
):  # 003 Star Ship Design Rules: Ship Type
    assert (ship_type.label, ship_type.bp, ship_type.category) == (label, bp, category)


@pytest.mark.parametrize("ship_type, label, bp, category, turns", SHIP_TYPES)
def test_ship_type_build_time(ship_type, label, bp, category, turns):  # 003 Star Ship Build Times
    assert ship_type.build_time == turns
    assert build_time(fit(ship_type)) == turns


@pytest.mark.parametrize("ship_type", list(ShipType))
def test_design_must_total_its_type_bp(
    ship_type,
):  # 003 Star Ship Design Rules: Ship Type (RULINGS.md: Ship classes)
    exact = fit(ship_type)
    assert validate_design(exact) is exact
    over = dataclasses.replace(exact, cargo=exact.cargo + 1)
    error = refusal(over)
    assert "Ship classes" in error.rule
    assert f"{ship_type.bp + 1} BP" in str(error) and f"{ship_type.bp} BP" in str(error)
    assert "1 BP over" in str(error)


def test_bp_shortfall_message_gives_total_type_bp_and_difference():  # RULINGS.md: Ship classes
    short = Design(name="Light", ship_type=ShipType.FRIGATE, hull=6, engine=7, force_field=6)
    error = refusal(short)
    assert str(error) == (
        "003 Star Ship Design Rules: Ship Type (house ruling: Ship classes): a Frigate must total "
        "30 BP; this design totals 16 BP (14 BP short)"
    )


# --- Basic components -----------------------------------------------------------------------


@pytest.mark.parametrize("hull", range(1, 13))
def test_hull_costs_1bp_per_point(hull):  # 003 Star Ship Design Rules: Basic Ship Components
    design = Design(name="H", ship_type=ShipType.STAR_LIFTER, hull=hull, engine=1)
    assert design.bp == hull + 1
    assert design.bp_breakdown()[0] == (f"Hull Strength {hull}", hull)


@pytest.mark.parametrize("engine", range(1, 10))
def test_engine_costs_1bp_per_point(engine):  # 003 Star Ship Design Rules: Basic Ship Components
    design = Design(name="E", ship_type=ShipType.STAR_LIFTER, hull=1, engine=engine)
    assert design.bp == 1 + engine
    assert (f"Engine {engine}", engine) in design.bp_breakdown()


@pytest.mark.parametrize(
    "engine, tactical, campaign",
    [(1, 1, 1), (2, 2, 1), (3, 3, 2), (4, 4, 2), (5, 5, 3), (6, 6, 3), (7, 7, 4), (8, 8, 4), (9, 9, 5)],
)
def test_campaign_move_is_half_engine_rounded_up(engine, tactical, campaign):  # 003 Campaign Movement
    design = Design(name="M", ship_type=ShipType.STAR_LIFTER, hull=1, engine=engine)
    assert (design.tactical_move, design.campaign_move) == (tactical, campaign)


def test_force_field_cost_table():  # 003 Star Ship Design Rules: Force Field Generators
    assert dict(FORCE_FIELD_COST) == {4: 1, 5: 2, 6: 3, 7: 4, 8: 5}


@pytest.mark.parametrize("strength, bp", [(4, 1), (5, 2), (6, 3), (7, 4), (8, 5)])
def test_force_field_strength_cost(strength, bp):  # 003 Star Ship Design Rules: Force Field Generators
    bare = Design(name="F", ship_type=ShipType.STAR_LIFTER, hull=1, engine=1)
    shielded = dataclasses.replace(bare, force_field=strength)
    assert shielded.bp - bare.bp == bp
    assert (f"Force Fields {strength}", bp) in shielded.bp_breakdown()
    validate_design(fit(ShipType.FRIGATE, force_field=strength))


@pytest.mark.parametrize("strength, bp", [(4, 4), (5, 5), (6, 6), (7, 7), (8, 8)])
def test_improved_force_fields_cost_3bp_more(
    strength, bp
):  # 003 Star Ship Design Rules: Advanced Ship Components
    design = Design(
        name="I",
        ship_type=ShipType.STAR_LIFTER,
        hull=1,
        engine=1,
        force_field=strength,
        improved_force_fields=True,
    )
    assert design.bp == 2 + bp


def test_no_force_field_costs_nothing():  # 003 Star Ship Design Rules: Force Field Generators
    design = Design(name="N", ship_type=ShipType.STAR_LIFTER, hull=3, engine=2, force_field=None)
    assert design.bp == 5
    assert [label for label, _ in design.bp_breakdown()] == ["Hull Strength 3", "Engine 2"]


WEAPON_ROWS = [
    ("laser_bank", "Laser Bank", 1),
    ("particle_accelerator", "Particle Accelerator", 2),
    ("emp_cannon", "EMP Cannon", 3),
    ("fighter_bay", "Fighter Bay", 2),
    ("guided_missile_bay", "Guided Missile Bay", 4),
    ("planetary_bombardment_array", "Planetary Bombardment Array", 20),
]


def test_weapon_catalogue_is_the_rule_book_list():  # 003 Star Ship Design Rules: Weapon Systems
    assert [(w.key, w.label, w.bp) for w in WEAPONS.values()] == WEAPON_ROWS


@pytest.mark.parametrize("key, label, bp", WEAPON_ROWS)
def test_each_weapon_costs_its_bp(key, label, bp):  # 003 Star Ship Design Rules: Weapon Systems
    bare = Design(name="W", ship_type=ShipType.STAR_LIFTER, hull=1, engine=1)
    one = dataclasses.replace(bare, weapons=((key, 1),))
    two = dataclasses.replace(bare, weapons=((key, 2),))
    assert one.bp - bare.bp == bp
    assert two.bp - bare.bp == 2 * bp
    assert (f"{label} x2", 2 * bp) in two.bp_breakdown()
    assert two.weapon_systems == 2


@pytest.mark.parametrize(
    "component, bp, label",
    [
        ("stealth_field", 5, "Stealth Field Generator"),
        ("core_containment_capacitor", 5, "Core Containment Capacitor (3C)"),
        ("ai_supercomputer", 5, "AI Supercomputer"),
    ],
)
def test_five_bp_components(
    component, bp, label
):  # 003 Star Ship Design Rules: Basic/Advanced Ship Components
    bare = Design(name="C", ship_type=ShipType.STAR_LIFTER, hull=1, engine=1)
    fitted = dataclasses.replace(bare, **{component: True})
    assert fitted.bp - bare.bp == bp
    assert (label, bp) in fitted.bp_breakdown()


@pytest.mark.parametrize("parties", [1, 2, 3, 4])
def test_boarding_party_costs_1bp_each(parties):  # 003 Star Ship Design Rules: Boarding Party
    design = Design(name="B", ship_type=ShipType.STAR_LIFTER, hull=12, engine=1, boarding_parties=parties)
    assert design.bp == 13 + parties


@pytest.mark.parametrize("hull", range(1, 13))
def test_nanobot_skin_doubles_hull_bp(hull):  # 003 Star Ship Design Rules: Advanced Ship Components
    skinned = Design(name="S", ship_type=ShipType.STAR_LIFTER, hull=hull, engine=1, nanobot_skin=True)
    assert skinned.bp == 2 * hull + 1
    assert ("Nanobot Skin", hull) in skinned.bp_breakdown()


@pytest.mark.parametrize("cargo", [1, 8, 20])
def test_cargo_costs_1bp_and_holds_5bp(cargo):  # 003 Star Ship Design Rules: Note (Cargo Capacity)
    design = Design(name="C", ship_type=ShipType.STAR_LIFTER, hull=1, engine=1, cargo=cargo)
    assert design.bp == 2 + cargo
    assert design.cargo_capacity == 5 * cargo


def test_eight_bp_of_cargo_holds_a_40bp_vessel():  # 003 Star Ship Design Rules: Note
    assert Design(name="C", ship_type=ShipType.BULK_CARRIER, hull=1, engine=1, cargo=8).cargo_capacity == 40


def test_bp_breakdown_sums_to_bp():  # 003 Star Ship Design Rules
    design = Design(
        name="Everything",
        ship_type=ShipType.STAR_LIFTER,
        hull=9,
        engine=3,
        force_field=5,
        weapons={"laser_bank": 1, "emp_cannon": 1},
        stealth_field=True,
        boarding_parties=2,
        cargo=13,
        improved_force_fields=True,
        nanobot_skin=True,
        core_containment_capacitor=True,
        ai_supercomputer=True,
    )
    # hull, skin, engine, FF 5, improved FF, laser, EMP, stealth, parties, cargo, 3C, AI
    assert design.bp == 9 + 9 + 3 + 2 + 3 + 1 + 3 + 5 + 2 + 13 + 5 + 5 == 60
    assert sum(bp for _, bp in design.bp_breakdown()) == design.bp
    validate_design(design)


# --- Limits at their boundaries -------------------------------------------------------------


@pytest.mark.parametrize("hull", [1, 12])
def test_hull_limits_accepted(hull):  # 003 Star Ship Design Rules: Hull Strength 1 to 12
    validate_design(fit(ShipType.STAR_CRUISER, hull=hull))


@pytest.mark.parametrize("hull", [0, 13])
def test_hull_outside_limits_refused(hull):  # 003 Star Ship Design Rules: Hull Strength 1 to 12
    error = refusal(fit(ShipType.STAR_CRUISER, hull=hull))
    assert str(error) == f"003 Star Ship Design Rules: hull strength must be 1 to 12, not {hull}"
    assert error.rule == DESIGN_RULES


@pytest.mark.parametrize("engine", [1, 9])
def test_engine_limits_accepted(engine):  # 003 Star Ship Design Rules: Engine 1 to 9
    validate_design(fit(ShipType.STAR_CRUISER, engine=engine))


@pytest.mark.parametrize("engine", [0, 10])
def test_engine_outside_limits_refused(engine):  # 003 Star Ship Design Rules: Engine 1 to 9
    error = refusal(fit(ShipType.STAR_CRUISER, engine=engine))
    assert str(error) == f"003 Star Ship Design Rules: engine must be 1 to 9, not {engine}"


@pytest.mark.parametrize("strength", [3, 9, 0])
def test_force_field_outside_4_to_8_refused(strength):  # 003 Star Ship Design Rules: Force Field Generators
    design = dataclasses.replace(fit(ShipType.STAR_CRUISER), force_field=strength)
    error = refusal(design)
    assert f"force field strength must be 4 to 8, not {strength}" in str(error)


def test_space_station_movement_1_accepted():  # 003 Star Ship Design Rules: Ship Type
    validate_design(fit(ShipType.SPACE_STATION, engine=1))


def test_space_station_movement_2_refused():  # 003 Star Ship Design Rules: Ship Type
    error = refusal(fit(ShipType.SPACE_STATION, engine=2))
    assert error.rule == "003 Star Ship Design Rules: Ship Type"
    assert "limited to a maximum movement of 1" in str(error)


MILITARY_AND_STATION = [t for t in ShipType if t.category in ("military",)] + [ShipType.SPACE_STATION]
FREIGHTERS = [t for t in ShipType if t.category == "freighter"]


@pytest.mark.parametrize("ship_type", MILITARY_AND_STATION)
def test_seven_weapon_systems_on_military_ships_and_stations(ship_type):  # 003 Star Ship Design Rules: Note
    validate_design(fit(ship_type, weapons={"laser_bank": 7}))
    error = refusal(fit(ship_type, weapons={"laser_bank": 7, "fighter_bay": 1}))
    assert error.rule == "003 Star Ship Design Rules: Note"
    assert "at most 7 weapon systems, not 8" in str(error)


@pytest.mark.parametrize("ship_type", FREIGHTERS)
def test_two_weapon_systems_on_freighters(ship_type):  # 003 Star Ship Design Rules: Note
    validate_design(fit(ship_type, weapons={"laser_bank": 2}))
    error = refusal(fit(ship_type, weapons={"laser_bank": 3}))
    assert "freighter or civilian space station can carry at most 2 weapon systems, not 3" in str(error)


def test_two_weapon_systems_on_civilian_stations():  # 003 Star Ship Design Rules: Note
    validate_design(fit(ShipType.SPACE_STATION, weapons={"particle_accelerator": 2}, civilian=True))
    error = refusal(fit(ShipType.SPACE_STATION, weapons={"laser_bank": 3}, civilian=True))
    assert "at most 2 weapon systems, not 3" in str(error)


def test_fighter_bays_count_as_weapon_systems():  # 003 Star Ship Design Rules: Note (fighters)
    error = refusal(fit(ShipType.TRAMP_FREIGHTER, weapons={"laser_bank": 2, "fighter_bay": 1}))
    assert "not 3" in str(error)


@pytest.mark.parametrize("ship_type", [t for t in ShipType if t is not ShipType.SPACE_STATION])
def test_only_space_stations_can_be_civilian(ship_type):  # 003 Star Ship Design Rules: Note
    error = refusal(fit(ship_type, civilian=True))
    assert "only a Space Station can be civilian" in str(error)


@pytest.mark.parametrize("hull", range(1, 13))
def test_one_boarding_party_per_3_hull_points(hull):  # 003 Star Ship Design Rules: Boarding Party
    most = hull // 3
    validate_design(fit(ShipType.STAR_CRUISER, hull=hull, boarding_parties=most))
    error = refusal(fit(ShipType.STAR_CRUISER, hull=hull, boarding_parties=most + 1))
    assert f"hull {hull} allows {most}, not {most + 1}" in str(error)


def test_improved_force_fields_need_force_fields():  # 003 Star Ship Design Rules: Advanced Ship Components
    error = refusal(fit(ShipType.FRIGATE, improved_force_fields=True))
    assert error.rule == "003 Star Ship Design Rules: Advanced Ship Components"
    validate_design(fit(ShipType.FRIGATE, improved_force_fields=True, force_field=4))


@pytest.mark.parametrize(
    "components, text",
    [
        ({"weapons": {"laser_bank": -1}}, "cannot fit -1 Laser Banks"),
        ({"boarding_parties": -1}, "cannot carry -1 boarding parties"),
    ],
)
def test_negative_counts_refused(components, text):  # 003 Star Ship Design Rules
    assert text in str(refusal(fit(ShipType.FRIGATE, **components)))


def test_negative_cargo_refused():  # 003 Star Ship Design Rules: Note (Cargo Capacity)
    design = Design(name="Neg", ship_type=ShipType.PATROL_CRAFT, hull=12, engine=9, cargo=-1)
    assert design.bp == 20
    assert "cannot allocate -1 BP to cargo capacity" in str(refusal(design))


def test_design_problems_lists_every_broken_rule():  # 003 Star Ship Design Rules
    design = Design(name="Wreck", ship_type=ShipType.SPACE_STATION, hull=13, engine=10, force_field=9)
    messages = [p.message for p in design_problems(design)]
    assert messages[:4] == [
        "hull strength must be 1 to 12, not 13",
        "engine must be 1 to 9, not 10",
        "force field strength must be 4 to 8, not 9",
        "a Space Station is limited to a maximum movement of 1, not 10",
    ]
    assert design_problems(SAN_MARCO) == ()


# --- Research gating ------------------------------------------------------------------------

GATED = [
    ({"improved_force_fields": True, "force_field": 4}, Technology.IMPROVED_FORCE_FIELDS),
    ({"core_containment_capacitor": True}, Technology.CORE_CONTAINMENT_CAPACITOR),
    ({"nanobot_skin": True}, Technology.NANOBOT_SKIN),
    ({"stealth_field": True}, Technology.STEALTH_FIELD),
    ({"ai_supercomputer": True}, Technology.AI_SUPERCOMPUTER),
]


@pytest.mark.parametrize(
    "tech, label",
    [
        (Technology.IMPROVED_FORCE_FIELDS, "Improved Force Fields"),
        (Technology.CORE_CONTAINMENT_CAPACITOR, "Core Containment Capacitor"),
        (Technology.NANOBOT_SKIN, "Nanobot Skin"),
        (Technology.STEALTH_FIELD, "Stealth Field Technology"),
        (Technology.AI_SUPERCOMPUTER, "AI Supercomputer"),
    ],
)
def test_technology_labels(tech, label):  # 003 Use of BP in a Campaign: Research Facility
    assert tech.label == label


@pytest.mark.parametrize("components, tech", GATED)
def test_advanced_component_needs_its_technology_in_a_campaign(
    components, tech
):  # RULINGS.md: Research-gated components
    design = fit(ShipType.STAR_CRUISER, **components)
    assert design.technologies_required == {tech}
    error = refusal(design, frozenset())
    assert "Research-gated components" in error.rule
    assert f"{tech.label} must be researched" in str(error)
    other = ALL_TECH - {tech}
    assert "must be researched" in str(refusal(design, other))
    assert validate_design(design, frozenset({tech})) is design


@pytest.mark.parametrize("components, tech", GATED)
def test_free_play_allows_every_advanced_component(
    components, tech
):  # RULINGS.md: Research-gated components (technologies=None)
    validate_design(fit(ShipType.STAR_CRUISER, **components), None)


def test_basic_design_needs_no_technology():  # 003 Research Facility
    assert GALIOT.technologies_required == frozenset()
    validate_design(GALIOT, frozenset())


# --- Sample designs -------------------------------------------------------------------------

SAMPLES = [
    # design, type, BP, tactical move, campaign move, breakdown lines as printed
    (
        SAN_MARCO,
        ShipType.STAR_CRUISER,
        40,
        8,
        4,
        [
            ("Hull Strength 10", 10),
            ("Engine 8", 8),
            ("Force Fields 8", 5),
            ("Laser Bank x3", 3),
            ("Fighter Bay x1", 2),
            ("Guided Missile Bay x3", 12),
        ],
    ),
    (
        SWORD,
        ShipType.FRIGATE,
        30,
        7,
        4,
        [
            ("Hull Strength 6", 6),
            ("Engine 7", 7),
            ("Force Fields 6", 3),
            ("Laser Bank x4", 4),
            ("Fighter Bay x2", 4),
            ("Stealth Field Generator", 5),
            ("Boarding Party x1", 1),
        ],
    ),
    (
        SULTAN,
        ShipType.DESTROYER,
        35,
        7,
        4,
        [
            ("Hull Strength 8", 8),
            ("Engine 7", 7),
            ("Force Fields 5", 2),
            ("Particle Accelerator x2", 4),
            ("Guided Missile Bay x2", 8),
            ("Stealth Field Generator", 5),
            ("Boarding Party x1", 1),
        ],
    ),
    (
        GALIOT,
        ShipType.CORVETTE,
        25,
        9,
        5,
        [
            ("Hull Strength 5", 5),
            ("Engine 9", 9),
            ("Force Fields 7", 4),
            ("Laser Bank x4", 4),
            ("Fighter Bay x1", 2),
            ("Boarding Party x1", 1),
        ],
    ),
]


def test_four_sample_designs():  # 003 Sample Ship Designs
    assert SAMPLE_DESIGNS == (SAN_MARCO, SWORD, SULTAN, GALIOT)


@pytest.mark.parametrize("design, ship_type, bp, tactical, campaign, lines", SAMPLES)
def test_sample_design_is_valid_as_printed(
    design, ship_type, bp, tactical, campaign, lines
):  # 003 Sample Ship Design
    assert validate_design(design, None) is design
    assert design.ship_type is ship_type
    assert design.bp == bp == ship_type.bp
    assert (design.tactical_move, design.campaign_move) == (tactical, campaign)
    assert sorted(design.bp_breakdown()) == sorted(lines)


@pytest.mark.parametrize("design", [SWORD, SULTAN])
def test_stealth_samples_need_stealth_field_technology_in_a_campaign(
    design,
):  # RULINGS.md: Research-gated components
    assert "Stealth Field Technology" in str(refusal(design, frozenset()))
    validate_design(design, frozenset({Technology.STEALTH_FIELD}))


@pytest.mark.parametrize("design", [SAN_MARCO, GALIOT])
def test_plain_samples_can_start_a_campaign(design):  # 003 Research Facility
    validate_design(design, frozenset())


# --- Design value and JSON form -------------------------------------------------------------


def test_design_is_frozen():  # 003 Star Ship Design Rules (a design is a value)
    with pytest.raises(dataclasses.FrozenInstanceError):
        SAN_MARCO.hull = 11  # type: ignore[misc]


def test_weapons_normalised_whatever_the_input_form():  # 003 Star Ship Design Rules: Weapon Systems
    a = Design(
        name="A",
        ship_type="frigate",
        hull=1,
        engine=1,
        weapons=[("fighter_bay", 1), ("laser_bank", 2), ("laser_bank", 1), ("emp_cannon", 0)],
    )
    b = Design(
        name="A", ship_type=ShipType.FRIGATE, hull=1, engine=1, weapons={"laser_bank": 3, "fighter_bay": 1}
    )
    assert a == b
    assert a.weapons == (("laser_bank", 3), ("fighter_bay", 1))
    assert a.ship_type is ShipType.FRIGATE


@pytest.mark.parametrize("design", SAMPLE_DESIGNS)
def test_to_dict_from_dict_round_trip(design):  # 003 Star Ship Design Rules
    data = design.to_dict()
    assert set(data) == {f.name for f in dataclasses.fields(Design)}
    assert Design.from_dict(data) == design


def test_to_dict_form():  # 003 Star Ship Design Rules
    assert SWORD.to_dict() == {
        "name": "Knights of G.O.D Sword Class Frigate",
        "ship_type": "frigate",
        "hull": 6,
        "engine": 7,
        "force_field": 6,
        "weapons": {"laser_bank": 4, "fighter_bay": 2},
        "stealth_field": True,
        "boarding_parties": 1,
        "cargo": 0,
        "improved_force_fields": False,
        "nanobot_skin": False,
        "core_containment_capacitor": False,
        "ai_supercomputer": False,
        "civilian": False,
    }


def test_from_dict_defaults():  # 003 Star Ship Design Rules
    design = Design.from_dict(
        {"name": "Min", "ship_type": "patrol_craft", "hull": 10, "engine": 9, "cargo": 1}
    )
    assert design.force_field is None and design.weapons == () and not design.stealth_field
    validate_design(design)


MINIMAL = {"name": "Min", "ship_type": "patrol_craft", "hull": 10, "engine": 9}


def test_from_dict_refuses_unknown_component():  # 003 Star Ship Design Rules: Basic Ship Components
    with pytest.raises(DesignError) as caught:
        Design.from_dict({**MINIMAL, "tractor_beam": 1})
    assert "unknown component 'tractor_beam'" in str(caught.value)
    assert caught.value.rule.startswith("003 Star Ship Design Rules")


def test_from_dict_refuses_unknown_weapon():  # 003 Star Ship Design Rules: Weapon Systems
    with pytest.raises(DesignError, match="unknown weapon system 'phaser'"):
        Design.from_dict({**MINIMAL, "weapons": {"phaser": 1}})


@pytest.mark.parametrize("key", ["name", "ship_type", "hull", "engine"])
def test_from_dict_refuses_missing_required_key(key):  # 003 Star Ship Design Rules
    data = {k: v for k, v in MINIMAL.items() if k != key}
    with pytest.raises(DesignError, match=f"a design needs '{key}'"):
        Design.from_dict(data)


@pytest.mark.parametrize(
    "key, value",
    [
        ("hull", True),
        ("engine", "9"),
        ("hull", 10.0),
        ("force_field", False),
        ("boarding_parties", None),
        ("cargo", "1"),
        ("stealth_field", 1),
        ("civilian", "yes"),
        ("nanobot_skin", 0),
        ("weapons", [["laser_bank", 1]]),
        ("weapons", {"laser_bank": True}),
        ("weapons", {"laser_bank": 1.5}),
        ("ship_type", 3),
        ("ship_type", "battleship"),
        ("name", ""),
        ("name", 7),
    ],
)
def test_from_dict_refuses_wrong_types(key, value):  # 003 Star Ship Design Rules
    with pytest.raises(DesignError):
        Design.from_dict({**MINIMAL, key: value})


def test_from_dict_refuses_non_object():  # 003 Star Ship Design Rules
    with pytest.raises(DesignError):
        Design.from_dict([("name", "x")])  # type: ignore[arg-type]


@given(
    ship_type=st.sampled_from(list(ShipType)),
    hull=st.integers(1, 12),
    engine=st.integers(1, 9),
    force_field=st.none() | st.sampled_from([4, 5, 6, 7, 8]),
    weapons=st.dictionaries(st.sampled_from(list(WEAPONS)), st.integers(1, 3), max_size=3),
    flags=st.fixed_dictionaries(
        {
            k: st.booleans()
            for k in (
                "stealth_field",
                "nanobot_skin",
                "core_containment_capacitor",
                "ai_supercomputer",
                "civilian",
            )
        }
    ),
    cargo=st.integers(0, 30),
)
def test_json_round_trip_any_design(
    ship_type, hull, engine, force_field, weapons, flags, cargo
):  # 003 Star Ship Design Rules
    design = Design(
        name="Any",
        ship_type=ship_type,
        hull=hull,
        engine=engine,
        force_field=force_field,
        weapons=weapons,
        cargo=cargo,
        **flags,
    )
    again = Design.from_dict(design.to_dict())
    assert again == design and again.bp == design.bp
    assert sum(bp for _, bp in design.bp_breakdown()) == design.bp
