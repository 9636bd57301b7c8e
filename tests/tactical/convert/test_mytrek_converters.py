"""Issue 31 on My Trek V (rulings XC31-XC40 in docs/rulings.md): an Event Horizon ship (003 Star
Ship Design Rules: design, carried damage, hero crew) and a CAM roster ship (000 1.5, CAM 2.2: its
SD, crippled or not) become My Trek V ships priced by the book's table (002 "Assembling a Fleet"),
carrying their damage as hull and system factors (002 Hull Damage, System Damage); the My Trek V
result comes back as each layer's own (docs/battles.md "Result"; 000 CAM 3.0, 3.1), and a battle of
each layer fought on My Trek V (simultaneous orders, ruling MT17) ends in a result the layer takes up."""

from __future__ import annotations

import pytest

from campaign.rules.cam.breakcontact import UnitState
from campaign.rules.cam.scoring import score_scenario
from campaign.rules.cam.ships import STARTER_CATALOGUE
from campaign.rules.dice import SeededDice, derive_seed
from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS, Design, ShipType, validate_design
from campaign.rules.eventhorizon.economy import Damage, _check_damage
from tactical.hosts.cam.converted import apply_to_cam
from tactical.rules import registry
from tactical.rules.eventhorizon import convert as ec
from tactical.rules.mytrek import convert as mc
from tactical.rules.mytrek import tables as T
from tactical.rules.mytrek.fleets import design_from
from tactical.rules.mytrek.play import BOOK as MT
from tactical.rules.mytrek.play import RULES
from tests.rules.cam.builders import battle_with, campaign_of

SAN_MARCO, SWORD, SULTAN, GALIOT = SAMPLE_DESIGNS


def test_my_trek_is_offered_to_both_layers():
    assert "mytrek" in registry.books_for("eventhorizon") and "mytrek" in registry.books_for("cam")
    assert registry.find_converter("eventhorizon", "mytrek").to_book is mc.eh_to_book
    assert registry.find_converter("cam", "mytrek").result_back is mc.cam_result_back
    assert registry.find_resolver("mytrek").sheets  # its own record sheets (the ship logs)


def test_the_rate_comes_from_the_books_point_systems():  # XC31; 002 Assembling a Fleet
    # the book's own example (the house roster's Dreadnought reads its weapons as 5d6, ruling MT19) = 400
    assert (
        design_from(
            {
                "name": "X",
                "size": "A",
                "max_hyper": 10,
                "fields": 5,
                "dice": 5,
                "aft": True,
                "torpedoes": True,
            }
        ).points()
        == 400
    )
    for d in SAMPLE_DESIGNS:  # every sample design within half to twice the rate
        assert 0.5 < mc.eh_design(d).points() / d.bp / mc.MT_PER_BP < 2
    for sd in STARTER_CATALOGUE.values():  # CAM's flat class points: within a third to three times
        assert 1 / 3 < mc.sd_design(sd).points() / sd.points / mc.MT_PER_CAM < 3
    # a 300 BP fleet (ten Swords) is a fleet of comparable worth in My Trek V points
    assert 0.5 * 300 * mc.MT_PER_BP < 10 * mc.eh_design(SWORD).points() < 2 * 300 * mc.MT_PER_BP


@pytest.mark.parametrize("design", SAMPLE_DESIGNS, ids=lambda d: d.ship_type.value)
def test_every_sample_design_becomes_a_legal_my_trek_design(design):  # XC32; 002 Assembling a Fleet
    entry = mc.eh_entry({"id": 1, "name": "", "design": design.to_dict(), "damage": {}, "hero_crew": False})
    d = design_from(entry["design"])  # the book's checks: a row of every column
    assert d.max_hyper == design.engine and d.fields == mc.eh_field_type(design.force_field)
    assert d.aft  # 003 "Arcs of fire are irrelevant"
    assert d.invisibility == design.stealth_field  # XC33 (changed): a stealth field is 002's invisibility device
    assert d.dice == mc._row(mc.DICE_BY_POINTS, mc.eh_weapon_value(design.weapon_counts))
    assert d.torpedoes == ("guided_missile_bay" in design.weapon_counts)
    assert d.missiles == ("fighter_bay" in design.weapon_counts)
    assert (entry["hull"], entry["engines"], entry["fields"], entry["weapons"]) == (d.hull, 3, 3, 3)


def test_force_field_types_keep_the_generators_ratios():  # XC32 (changed); 003 Force Fields; 002 Assembling a Fleet
    # 003: a generator's strength (4-8) is what it absorbs; on the grid a field is type x power, so the
    # type is in proportion to the strength: 4, 5 = III; 6, 7 = IV; 8 = V (strength - 3 made 4 = I).
    assert [mc.eh_field_type(f) for f in range(4, 9)] == [3, 3, 4, 4, 5]
    # the Sultan's 5 against the Galiot's 7 (fairness table EH #3): III against IV, not II against IV
    assert (mc.eh_design(SULTAN).fields, mc.eh_design(GALIOT).fields) == (3, 4)


def test_carried_damage_hero_crew_and_what_my_trek_cannot_express():  # XC33-XC35
    hurt = Damage(
        hull=3, engine=2, weapons=("laser_bank", "laser_bank"), force_field_generators=2, stealth=True
    )
    _check_damage(SWORD, hurt)
    entry = mc.eh_entry(
        {"id": 1, "name": "Hurt", "design": SWORD.to_dict(), "damage": hurt.to_json(), "hero_crew": True}
    )
    d = design_from(entry["design"])
    assert entry["hull"] == d.hull // 2  # 3 of 6 hull lost
    assert (entry["engines"], entry["fields"], entry["weapons"]) == (
        2,
        1,
        2,
    )  # 2/7 engine, 2/4 gens, 2/6 weapons
    assert not d.invisibility and any("inoperable" in n for n in entry["notes"])  # XC33
    # XC34 (changed): a hero crew is one row up the Max. Damage column and one force field type up
    assert d.dice == mc._up(mc.eh_design(SWORD).dice) and any("Hero crew" in n for n in entry["notes"])
    assert d.fields == mc.eh_design(SWORD).fields + 1
    hammer = Design(
        name="Hammer",
        ship_type=ShipType.STAR_CRUISER,
        hull=10,
        engine=5,
        weapons={"planetary_bombardment_array": 1},
        core_containment_capacitor=True,
    )
    validate_design(hammer)
    notes = " ".join(mc.eh_notes(hammer, Damage(), False))
    assert SWORD.boarding_parties and "boarding parties" in " ".join(mc.eh_notes(SWORD, Damage(), False))
    for text in ("Planetary Bombardment Array", "Core Containment Capacitor"):
        assert text in notes  # XC35: stated, never dropped silently
    assert mc.eh_design(hammer).dice == 1 and not mc.eh_design(hammer).aft  # unarmed: the least row


@pytest.mark.parametrize("key", sorted(STARTER_CATALOGUE))
def test_every_catalogue_sd_becomes_a_legal_design_crippled_or_not(key):  # XC36-XC38; 000 5.7
    sd = STARTER_CATALOGUE[key]
    unit = {"uid": "ship:1", "kind": "ship", "name": sd.name, "sd": ec.sd_json(sd), "crippled": False}
    entry = mc.unit_entry(unit)
    d = design_from(entry["design"])
    cloak = "Cloak" in sd.special_abilities  # XC36 (changed): the invisibility device
    assert d.invisibility == cloak and d.fields == max(0, min(5, sum(sd.shields) // 4 - 1))
    assert d.max_hyper == (0 if sd.speed is None else min(10, sd.speed)) and entry["hull"] == d.hull
    crippled = mc.unit_entry({**unit, "crippled": True})
    assert (
        crippled["hull"] <= d.hull and crippled["engines"] == crippled["fields"] == crippled["weapons"] == 2
    )
    assert design_from(crippled["design"]) == d.__class__(**{**d.__dict__, "invisibility": False})  # no cloak
    assert any("Crippled (5.7)" in n for n in crippled["notes"])
    for ability in (a for a in sd.special_abilities if a.lower() not in mc.HANDLED):  # XC38: named
        assert ability in " ".join(entry["notes"])


def test_ac_counters_bases_and_minefields_by_stated_rules():  # XC39
    assert design_from(mc.unit_entry({"uid": "ac:1", "kind": "ac"})["design"]) == mc.AC_DESIGN
    assert mc.unit_entry({"uid": "base:1", "kind": "base"})["design"]["max_hyper"] == 0
    assert mc.unit_entry({"uid": "minefield:1", "kind": "minefield"}) is None


def _eh_setup():
    def ship(i, d):
        return {
            "id": i,
            "name": f"S{i}",
            "design_id": None,
            "design": d.to_dict(),
            "damage": {},
            "hero_crew": False,
        }

    return {
        "hex": [0, 0],
        "terrain": "space",
        "world": {"kind": "terrestrial", "owner": 2},
        "attacker": 1,
        "defender": 2,
        "aewa": False,
        "sides": {
            "1": {"name": "Red", "ships": [ship(5, SAN_MARCO), ship(6, SWORD)]},
            "2": {"name": "Blue", "ships": [ship(9, SULTAN), ship(12, GALIOT)]},
        },
    }


def test_a_my_trek_result_comes_back_as_event_horizons():  # XC35; docs/battles.md "Result"
    eh = _eh_setup()
    setup = mc.eh_to_book(eh)
    assert setup["converted"]["ships"] == {"1": 5, "2": 6, "3": 9, "4": 12}
    state = RULES.initial_state(setup, SeededDice(derive_seed("xc35")))
    assert [s.id for s in state.ships] == [1, 2, 3, 4] and [s.side for s in state.ships] == [1, 1, 2, 2]
    sultan_hull = T.HULL_POINTS[mc.eh_design(SULTAN).size]
    result = {
        "winner": 2,
        "ships": [
            {"ship": 1, "fate": "destroyed", "hull": 0, "systems": [0, 0, 0]},
            {"ship": 2, "fate": "survived", "hull": 1, "systems": [3, 3, 3]},
            {"ship": 3, "fate": "survived", "hull": sultan_hull // 2, "systems": [2, 0, 1]},
            {"ship": 4, "fate": "survived", "hull": 24, "systems": [3, 3, 3]},
        ],
    }
    back = mc.eh_result_back(eh, setup, result)
    fates = {s["ship"]: s for s in back["ships"]}
    assert back["holder"] == 2 and back["book"] == "mytrek"
    assert fates[5]["fate"] == "destroyed" and fates[5]["damage"] is None
    assert Damage.from_json(fates[6]["damage"]).hull == SWORD.hull - 1  # never the last point
    sultan = Damage.from_json(fates[9]["damage"])
    # half the hull, a third of the engine, every generator, two thirds of the weapon systems
    assert (sultan.hull, sultan.engine, sultan.force_field_generators) == (4, 2, 4)
    assert len(sultan.weapons) == 3 and sultan.weapons[0] == "guided_missile_bay"  # the costliest first
    _check_damage(SULTAN, sultan)
    assert fates[12]["damage"] == {}
    result["ships"][2]["fate"] = result["ships"][3]["fate"] = "destroyed"
    assert mc.eh_result_back(eh, setup, result)["holder"] is None  # the winner kept nothing


@pytest.mark.parametrize("seed", range(2))
def test_an_event_horizon_battle_fought_on_my_trek_gives_a_result_the_turn_accepts(seed):  # XC35
    eh = _eh_setup()
    setup = mc.eh_to_book(eh)
    dice = SeededDice(derive_seed(f"xc35/{seed}"))
    end = MT.simulate(RULES.initial_state(setup, dice), dice)
    back = mc.eh_result_back(eh, setup, RULES.result(end))
    assert sorted(s["ship"] for s in back["ships"]) == [5, 6, 9, 12]
    designs = {5: SAN_MARCO, 6: SWORD, 9: SULTAN, 12: GALIOT}
    for s in back["ships"]:
        assert s["fate"] in ("destroyed", "survived")
        if s["damage"] is not None:
            _check_damage(designs[s["ship"]], Damage.from_json(s["damage"]))
    if back["holder"] is not None:
        kept = {1: {5, 6}, 2: {9, 12}}[back["holder"]]
        assert any(s["fate"] == "survived" and s["ship"] in kept for s in back["ships"])


def test_more_than_six_ships_a_side_fit_a_converted_grid():  # XC31: ruling MT19's cap lifted
    ships = [
        {"id": i, "name": f"S{i}", "design": SWORD.to_dict(), "damage": {}, "hero_crew": False}
        for i in range(1, 11)
    ]
    eh = {"attacker": 1, "defender": 2, "sides": {"1": {"ships": ships[:9]}, "2": {"ships": ships[9:]}}}
    state = RULES.initial_state(mc.eh_to_book(eh), SeededDice(derive_seed("cap")))
    assert len({s.pos for s in state.ships}) == 10 and all(0 <= s.y < state.height for s in state.ships)


def _cam(camp, battle):
    return ec.cam_setup(
        battle, camp.catalogue, {s.id: s.sd for p in camp.players for s in p.ships}, {1: "Kirk", 2: "Kor"}
    )


def test_a_my_trek_result_is_recorded_for_cam_scoring():  # XC40; 000 CAM 3.0, 3.1
    camp = campaign_of(
        ["galaxy", "firecat", "b_rel"], ["galaxy", "firecat", "b_rel"], period=5, points_level=100
    )
    battle = battle_with(camp, {1: [1, 3], 2: [4, 5, 6]})
    cam = _cam(camp, battle)
    setup = mc.cam_to_book(cam)
    by_uid = {(v[0], v[1]): int(k) for k, v in setup["converted"]["units"].items()}
    galaxy, b_rel = by_uid[(1, "ship:1")], by_uid[(1, "ship:3")]
    full = {
        n + 1: T.HULL_POINTS[e["design"]["size"]]
        for n, e in enumerate(e for seat in ("1", "2") for e in setup["sides"][seat]["ships"])
    }
    ships = [
        {
            "ship": n,
            "fate": "destroyed" if n == b_rel else "survived",
            "hull": full[n] // 2 if n == galaxy else full[n],
        }
        for n in full
    ]
    back = mc.cam_result_back(cam, setup, {"winner": 2, "ships": ships})
    assert back["destroyed"] == {"1": ["ship:3"]} and back["crippled"] == {
        "1": ["ship:1"]
    }  # half its hull: 5.7
    record = apply_to_cam(battle, back)
    assert (
        record.unit_status(1, "ship:3").state is UnitState.DESTROYED
        and record.unit_status(1, "ship:1").crippled
    )
    assert record.ordered_to_break(1) and not record.ordered_to_break(2) and record.contact_broken
    assert score_scenario(record).winner == 2


def test_a_cam_scenario_fought_on_my_trek_plays_out_and_scores():  # XC39, XC40
    fleet = ["t_bb", "t_ca", "t_cl", "t_dd", "t_de", "t_tp"]
    camp = campaign_of(fleet, fleet, period=3, points_level=100)
    battle = battle_with(camp, {1: [1, 3], 2: [8, 9]})
    cam = _cam(camp, battle)
    setup = mc.cam_to_book(cam)
    dice = SeededDice(derive_seed("xc40"))
    end = MT.simulate(RULES.initial_state(setup, dice), dice)
    back = mc.cam_result_back(cam, setup, RULES.result(end))
    record = apply_to_cam(battle, back)
    assert record.contact_broken or back["winner"] is None
    assert score_scenario(record, force_end=not record.contact_broken).winner in (1, 2, None)


def test_the_computer_fires_when_only_a_high_throw_gets_through():  # doctrine; 002 Attacking
    from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS as EH
    from tactical.rules.eventhorizon import CampaignShip
    from tactical.rules.mytrek import doctrine

    # 3d6 against a bar of 12: the mean (10.5) falls short, the throws of 13-18 get through
    assert doctrine._over(3, 12) == pytest.approx((1 * 21 + 2 * 15 + 3 * 10 + 4 * 6 + 5 * 3 + 6 * 1) / 216)
    assert doctrine._over(3, 18) == 0 and doctrine._over(1, 0) == pytest.approx(3.5)
    # four Swords against a Galiot (fairness table EH #10): 3d6 against force fields IV at -3 used to
    # be a draw with no shot fired; now they fire and the Galiot is destroyed (this seed)
    setup = mc._setup({1: mc.eh_fleet([CampaignShip(i, EH[1]) for i in range(1, 5)]),
                       2: mc.eh_fleet([CampaignShip(9, EH[3])])}, {1: "A", 2: "B"}, 1, 2)
    setup["converted"] = {"layer": "eventhorizon", "book": "mytrek"}
    dice = SeededDice(derive_seed("t/0"))
    out = MT.outcome(MT.simulate(MT.new_battle(setup, dice), dice))
    assert out["winner"] == 1 and out["ships"][-1]["fate"] == "destroyed"
