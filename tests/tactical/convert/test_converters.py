"""Issue 31: the converters (pure), rulings XC1-XC18 in docs/rulings.md. An Event Horizon ship
(003 Star Ship Design Rules: its design, carried damage, hero crew) becomes a Buoyz SD (000 1.5)
held to T'Corr's limits, and a Buoyz result comes back as Event Horizon's (docs/battles.md
"Result"); a CAM unit (000 CAM 2.2: its SD, crippled or not) becomes Event Horizon ships whose BP
add up to its points x 5, and an Event Horizon result comes back as the CAM record
(000 CAM 3.0, 3.1) that scoring reads."""

from __future__ import annotations

import pytest

from campaign.rules.cam.breakcontact import UnitState
from campaign.rules.cam.scoring import score_scenario
from campaign.rules.cam.ships import STARTER_CATALOGUE, validate_sd
from campaign.rules.dice import SeededDice, derive_seed
from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS, Design, ShipType, validate_design
from campaign.rules.eventhorizon.economy import Damage, _check_damage
from tactical.hosts.cam.converted import apply_to_cam
from tactical.rules import registry
from tactical.rules.buoyz import convert as bc
from tactical.rules.buoyz.play import RULES as BZ
from tactical.rules.buoyz.play.fog import PlayState
from tactical.rules.eventhorizon import CampaignShip
from tactical.rules.eventhorizon import convert as ec
from tactical.rules.eventhorizon import simulate as eh_simulate
from tactical.rules.eventhorizon.play import RULES as EH
from tests.rules.cam.builders import battle_with, campaign_of

SAN_MARCO, SWORD, SULTAN, GALIOT = SAMPLE_DESIGNS


def test_the_registry_offers_each_layer_its_own_book_first_then_the_converted():
    assert registry.books_for("eventhorizon")[:2] == ["eventhorizon", "buoyz"]
    assert registry.books_for("cam")[:2] == ["buoyz", "eventhorizon"]
    assert registry.find_converter("eventhorizon", "eventhorizon") is None  # its own: no converter
    with pytest.raises(ValueError, match="no rule book 'chess' for eventhorizon battles"):
        registry.find_converter("eventhorizon", "chess")
    with pytest.raises(ValueError, match="own rule book"):
        registry.register_converter(registry.ConverterRecord("cam", "buoyz", dict, dict))


# --- Event Horizon ships on Buoyz (XC1-XC9) -------------------------------------------------------

@pytest.mark.parametrize("design", SAMPLE_DESIGNS, ids=lambda d: d.ship_type.value)
def test_every_sample_design_becomes_a_legal_sd_of_its_rank(design):  # XC1, XC2, XC3; 000 1.5
    sd = validate_sd(bc.sd_for(design))
    assert sd.ship_class == bc.TYPE_CLASS[design.ship_type][0] or design.weapon_counts.get("fighter_bay", 0) >= 3
    assert sd.hull == design.hull + (1 if design.core_containment_capacitor else 0)
    assert sd.speed == min(10, design.engine)
    dice = sum(n * bc.BEAM_DICE.get(k, 0) for k, n in design.weapons) + \
        design.weapon_counts.get("guided_missile_bay", 0) * bc.MISSILE_DICE
    assert sd.main_dice + sd.secondary == dice  # XC3: every weapon's dice, none dropped
    assert "Warp" in sd.special_abilities and "Impulse" in sd.special_abilities


def test_shields_in_proportion_to_the_force_field():  # XC2 (changed); 003 Force Fields; 000 1.5, 5.6
    # 8, the strongest generator, is the book's limit of 6; the rest in proportion: a 7 is no longer an 8's 6
    assert [bc.eh_shields(f) for f in range(4, 9)] == [3, 4, 5, 5, 6]
    # the Galiot's 7 against the Sultan's 5 (fairness table EH #3): shields 5 against 4, not 6 against 4
    assert (bc.sd_for(GALIOT).shields, bc.sd_for(SULTAN).shields) == ((5,) * 4, (4,) * 4)


def test_carried_damage_hero_crew_and_components_without_an_equivalent():  # XC2, XC5, XC6, XC7
    pba = Design(name="Hammer", ship_type=ShipType.STAR_CRUISER, hull=10, engine=5,
                 weapons={"planetary_bombardment_array": 1}, core_containment_capacitor=True)
    validate_design(pba)
    sd = bc.sd_for(pba, hero_crew=True)
    assert sd.command == 3  # XC5
    assert "Planetary Bombardment Array" in sd.notes and "Core Containment Capacitor" in sd.notes  # XC7: stated
    assert sd.hull == 11
    hurt = Damage(hull=3, engine=2, weapons=("laser_bank",), force_field_generators=2, stealth=False)
    _check_damage(SWORD, hurt)
    sd = bc.sd_for(SWORD, hurt)
    assert sd.hull == SWORD.hull - 3 and sd.speed == SWORD.engine - 2
    assert sd.shields[3] == 0 and sd.shields[1] == 0 and sd.shields[0] > 0  # aft, then port (ruling TC25)
    assert sum(w.count for w in sd.main) + sd.secondary == bc.sd_for(SWORD).main_dice - 1  # the lost laser


def _eh_setup():
    def ship(i, d):
        return {"id": i, "name": f"S{i}", "design_id": None, "design": d.to_dict(), "damage": {}, "hero_crew": False}
    return {"hex": [0, 0], "terrain": "particle_cloud", "world": {"kind": "terrestrial", "owner": 2},
            "attacker": 1, "defender": 2, "aewa": False,
            "sides": {"1": {"name": "Red", "ships": [ship(5, SAN_MARCO), ship(6, SWORD)]},
                      "2": {"name": "Blue", "ships": [ship(9, SULTAN), ship(12, GALIOT)]}}}


def test_a_buoyz_result_comes_back_as_event_horizons():  # XC9; docs/battles.md "Result"
    eh = _eh_setup()
    setup = bc.to_book(eh)
    assert setup["converted"]["ships"] == {"1": 6, "2": 5, "3": 12, "4": 9}  # XC8: the cheapest first
    assert {o["kind"] for o in setup["objects"]} == {"planet", "nebula"}  # XC8
    start = {i: bc.sd_for(d).hull for i, d in ((2, SAN_MARCO), (1, SWORD), (4, SULTAN), (3, GALIOT))}
    result = {"winner": 2, "ships": [
        {"ship": 2, "fate": "destroyed", "hull": 0, "crippled": True, "crits": [0, 0, 0]},  # the San Marco
        {"ship": 1, "fate": "captured", "hull": 2, "crippled": True, "crits": [0, 0, 0]},  # the Sword
        {"ship": 4, "fate": "active", "hull": start[4] - 2, "crippled": False, "crits": [1, 1, 1]},  # the Sultan
        {"ship": 3, "fate": "left", "hull": start[3], "crippled": False, "crits": [0, 0, 0]}]}  # the Galiot
    back = bc.result_back(eh, setup, result)
    fates = {s["ship"]: s for s in back["ships"]}
    assert back["holder"] == 2
    assert fates[5]["fate"] == "destroyed" and fates[5]["damage"] is None
    assert fates[6]["fate"] == "captured" and fates[6]["captured_by"] == 2
    assert fates[6]["damage"]["stealth"] == SWORD.stealth_field  # 5.7: crippled, its cloak is out
    sultan = Damage.from_json(fates[9]["damage"])
    assert (sultan.hull, sultan.engine, len(sultan.weapons), sultan.force_field_generators) == (2, 1, 1, 1)  # 5.8
    assert fates[12]["fate"] == "warped_out" and fates[12]["damage"] == {}
    for s in back["ships"]:
        if s["damage"]:
            design = {5: SAN_MARCO, 6: SWORD, 9: SULTAN, 12: GALIOT}[s["ship"]]
            _check_damage(design, Damage.from_json(s["damage"]))
    # a winner whose ships all left (and who captured none, docs/battles.md) holds nothing
    result["ships"][2]["fate"] = "left"
    result["ships"][1]["fate"] = "destroyed"
    assert bc.result_back(eh, setup, result)["holder"] is None


def test_a_sides_sds_stand_cheapest_first_whatever_the_campaigns_order():  # XC8
    eh = _eh_setup()
    setup = bc.to_book(eh)
    eh["sides"]["1"]["ships"].reverse()
    again = bc.to_book(eh)
    assert again["sides"] == setup["sides"] and again["converted"] == setup["converted"]
    assert [e["layer_ship"] for e in setup["sides"]["1"]["ships"]] == [6, 5]  # the Sword, then the San Marco
    ships = [CampaignShip(1, SAN_MARCO), CampaignShip(2, SWORD)]
    assert [sd.name for sd in bc.fleet(ships)] == [SWORD.name, SAN_MARCO.name]


@pytest.mark.parametrize("seed", range(4))
def test_a_converted_battle_played_out_gives_a_result_the_campaign_accepts(seed):  # XC9
    eh = _eh_setup()
    setup = bc.to_book(eh)
    dice = SeededDice(derive_seed(f"xc9/{seed}"))
    state = BZ.initial_state(setup, dice)
    from tactical.rules.buoyz import simulate

    end = PlayState(simulate(state.battle, dice))
    back = bc.result_back(eh, setup, BZ.result(end))
    assert sorted(s["ship"] for s in back["ships"]) == [5, 6, 9, 12]
    kept = {1: {5, 6}, 2: {9, 12}}
    if back["holder"] is not None:
        assert any(s["fate"] == "survived" and s["ship"] in kept[back["holder"]] for s in back["ships"])


# --- CAM units on Event Horizon (XC10-XC18) ------------------------------------------------------

@pytest.mark.parametrize("points", range(1, 45))
def test_a_units_squadron_is_worth_its_points_times_five(points):  # XC10
    bp = sum(t.bp for t in ec.squadron(points))
    assert bp == max(20, points * 5) or (points * 5 < 20 and bp == 20)
    assert all(t.bp >= 20 for t in ec.squadron(points))


def test_worth_is_read_from_the_sd_and_the_catalogue_keeps_its_points():  # XC10
    total = sum(ec._value(sd) * ec.POINTS_PER_VALUE for sd in STARTER_CATALOGUE.values())
    assert total == pytest.approx(sum(sd.points for sd in STARTER_CATALOGUE.values()))
    cat = STARTER_CATALOGUE
    # CAM 2.2 prices a Galaxy and a Constitution alike (CA, 10 points); their SDs are not alike
    assert cat["galaxy"].points == cat["constitution"].points and ec.worth(cat["galaxy"]) > 2 * ec.worth(
        cat["constitution"])
    assert ec.worth(cat["borg_cube"]) > ec.worth(cat["galaxy"]) > ec.worth(cat["b_rel"]) >= ec.worth(cat["l42"]) >= 1


@pytest.mark.parametrize("key", sorted(STARTER_CATALOGUE))
def test_every_catalogue_sd_becomes_legal_designs_crippled_or_not(key):  # XC11-XC14; 000 5.7
    sd = STARTER_CATALOGUE[key]
    unit = {"uid": "ship:1", "kind": "ship", "name": sd.name, "points": sd.points, "sd": ec.sd_json(sd)}
    ships = ec.ships_for(unit)
    assert sum(d.ship_type.bp for d, _, _ in ships) == sum(t.bp for t in ec.squadron(ec.worth(sd))) or \
        sd.ship_class.value == "TP"  # XC10: its squadron is built on its worth
    for design, _damage, hero in ships:
        validate_design(design)  # exactly its type's BP, 7 systems at most, … (003 Star Ship Design Rules)
        # XC11: its Speed (faster with BP to spare), slower only when the BP do not fit it
        assert 1 <= design.engine <= 9 and (design.engine >= min(9, sd.speed) or design.cargo == 0)
        assert not design.stealth_field or "Cloak" in sd.special_abilities  # XC11
        assert hero == (sd.command >= 3 or "Fire cloaked" in sd.special_abilities)  # XC15
    if sd.main or sd.secondary or sd.ac:
        assert any(d.weapons for d, _, _ in ships)  # never unarmed
    for design, damage, _ in ec.ships_for({**unit, "crippled": True}):
        _check_damage(design, damage)  # XC14: within the design
        assert damage.hull == design.hull // 2


def test_ac_counters_bases_and_minefields_by_stated_rules():  # XC15, XC16
    assert [d.name for d, _, _ in ec.ships_for({"uid": "ac:1", "kind": "ac"})] == ["Attack craft flight"]
    assert [d.ship_type for d, _, _ in ec.ships_for({"uid": "base:1", "kind": "base"})] == [ShipType.SPACE_STATION]
    assert ec.ships_for({"uid": "minefield:1", "kind": "minefield"}) == []
    validate_design(ec.AC_DESIGN)
    validate_design(ec.BASE_DESIGN)


FLEET = ["t_bb", "t_ca", "t_cl", "t_dd", "t_de", "t_tp"]


def test_a_cam_scenarios_sides_on_event_horizon_have_colours_of_their_own():
    """CAM sides carry no colour and both became "#888888": on the board and the play page's ship
    table every ship was the same grey, whose was whose only by where it stood."""
    camp = campaign_of(["galaxy", "firecat"], ["galaxy", "firecat"], period=5, points_level=100)
    battle = battle_with(camp, {1: [1], 2: [3]})
    cam = ec.cam_setup(battle, camp.catalogue, {s.id: s.sd for p in camp.players for s in p.ships},
                       {1: "Kirk", 2: "Kor"})
    sides = ec.to_book(cam)["sides"]
    assert sides["1"]["colour"] != sides["2"]["colour"]
    assert "#888888" not in {sides["1"]["colour"], sides["2"]["colour"]}


def test_an_event_horizon_result_is_recorded_for_cam_scoring():  # XC18; 000 CAM 3.0, 3.1
    camp = campaign_of(["galaxy", "firecat", "b_rel"], ["galaxy", "firecat", "b_rel"], period=5, points_level=100)
    battle = battle_with(camp, {1: [1, 3], 2: [4, 5, 6]})
    cam = ec.cam_setup(battle, camp.catalogue, {s.id: s.sd for p in camp.players for s in p.ships},
                       {1: "Kirk", 2: "Kor"})
    setup = ec.to_book(cam)
    units = setup["converted"]["units"]
    by_unit = {}
    for number, (_seat, uid) in units.items():
        by_unit.setdefault(uid, []).append(int(number))
    assert len(by_unit["ship:1"]) > 1  # the Galaxy is a squadron (XC10)
    # Seat 2 holds the field: seat 1's Galaxy (ship:1) loses one ship of its squadron, its B'Rel (ship:3) all.
    ships = []
    for number, (_seat, uid) in units.items():
        fate = "destroyed" if uid == "ship:3" or int(number) == by_unit["ship:1"][0] else "survived"
        ships.append({"ship": int(number), "fate": fate, "damage": None if fate == "destroyed" else {},
                      "captured_by": None})
    back = ec.result_back(cam, setup, {"holder": 2, "ships": ships})
    assert back["destroyed"] == {"1": ["ship:3"]} and back["crippled"] == {"1": ["ship:1"]}
    record = apply_to_cam(battle, back)
    assert record.unit_status(1, "ship:3").state is UnitState.DESTROYED
    assert record.unit_status(1, "ship:1").crippled
    assert record.ordered_to_break(1) and not record.ordered_to_break(2)
    assert record.contact_broken  # the loser's ships left the table: scoring can read it
    score = score_scenario(record)
    assert score.winner == 2


@pytest.mark.parametrize("seed", range(3))
def test_a_cam_scenario_fought_on_event_horizon_plays_out_and_scores(seed):  # XC17, XC18
    camp = campaign_of(FLEET, FLEET, period=3, points_level=100)
    battle = battle_with(camp, {1: [1, 3], 2: [8, 9]})
    cam = ec.cam_setup(battle, camp.catalogue, {s.id: s.sd for p in camp.players for s in p.ships},
                       {1: "Kirk", 2: "Kor"})
    setup = ec.to_book(cam)
    dice = SeededDice(derive_seed(f"xc18/{seed}"))
    end = eh_simulate(EH.initial_state(setup, dice), dice)
    back = ec.result_back(cam, setup, EH.result(end))
    record = apply_to_cam(battle, back)
    assert record.contact_broken or back["winner"] is None
    assert score_scenario(record, force_end=not record.contact_broken).winner in (1, 2, None)
