"""Issue 31 on Star Trek Print&Play (rulings XC19-XC30 in docs/rulings.md): an Event Horizon ship
(003 Star Ship Design Rules: design, carried damage, hero crew) and a CAM roster ship (000 1.5, CAM
2.2: its SD, crippled or not) become Print&Play dashboards the book's designer accepts (001
Dashboards, ruling PP2), worth the rate of XC19; the Print&Play result comes back as each layer's
own (docs/battles.md "Result"; 000 CAM 3.0, 3.1), and a battle of each layer fought on Print&Play
ends in a result the layer takes up."""

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
from tactical.rules.printplay import convert as pc
from tactical.rules.printplay import dashboards
from tactical.rules.printplay.book import BOOK as PP
from tactical.rules.printplay.play import RULES
from tactical.rules.printplay.state import dashboard_of
from tests.rules.cam.builders import battle_with, campaign_of

SAN_MARCO, SWORD, SULTAN, GALIOT = SAMPLE_DESIGNS


def test_print_and_play_is_offered_to_both_layers():
    assert "printplay" in registry.books_for("eventhorizon") and "printplay" in registry.books_for("cam")
    assert registry.find_converter("eventhorizon", "printplay").to_book is pc.eh_to_book
    assert registry.find_converter("cam", "printplay").result_back is pc.cam_result_back
    assert registry.find_resolver("printplay").sheets  # its own record sheets (the dashboards)


def test_the_rate_comes_from_the_ships_both_books_print():  # XC19
    assert pc.PP_PER_CAM == pytest.approx(sum(dashboards.ROSTER[k].points for k in pc.SHARED)
                                          / sum(STARTER_CATALOGUE[k].points for k in pc.SHARED))
    # the converted sample designs and the catalogue, on the whole, within twice or half the rate
    # (XC19: Print&Play's points price impulse and the 360-degree arcs of Event Horizon's weapons)
    eh = sum(pc.dashboard_for_eh(d).points for d in SAMPLE_DESIGNS) / sum(d.bp for d in SAMPLE_DESIGNS)
    cam = sum(pc.dashboard_for_sd(sd).points for sd in STARTER_CATALOGUE.values()) / sum(
        sd.points for sd in STARTER_CATALOGUE.values())
    assert 0.5 < eh / pc.PP_PER_BP < 2 and 0.5 < cam / pc.PP_PER_CAM < 2
    # a 300 BP fleet (ten Swords) is a fleet of comparable worth in Print&Play points
    assert 0.5 * 300 * pc.PP_PER_BP < 10 * pc.dashboard_for_eh(SWORD).points < 2 * 300 * pc.PP_PER_BP


@pytest.mark.parametrize("design", SAMPLE_DESIGNS, ids=lambda d: d.ship_type.value)
def test_every_sample_design_becomes_a_legal_dashboard(design):  # XC20-XC22; 001 Dashboards
    dash = dashboards.validate(pc.dashboard_for_eh(design))
    assert dash.points == dashboards.points_for(dash)
    assert dash.hull == design.hull * pc.HULL_PER_EH and dash.type == pc.EH_TYPE[design.ship_type]
    assert set(dash.shields) == {(design.force_field - 3) * pc.FF_SHIELDS}  # XC20: by the generator's BP
    fitted = {k: n for k, n in design.weapons if k != "planetary_bombardment_array"}
    lines = {w.name.removesuffix(" (F)"): w for w in dash.weapons}
    for key, n in fitted.items():  # XC21: every weapon system, none dropped
        line = lines[pc.EH_WEAPONS[key][0]]
        assert line.qty == n and line.kind == "cannon" and line.hit == pc.LOCK_ON and line.arc == 360
    assert dash.has("cloak") == design.stealth_field
    if design.boarding_parties:
        assert "boarding part" in dash.notes  # XC24: stated, never dropped silently


def test_carried_damage_hero_crew_and_what_print_and_play_cannot_express():  # XC20, XC22-XC24
    hurt = Damage(hull=3, engine=2, weapons=("laser_bank",), force_field_generators=2, stealth=True)
    _check_damage(SWORD, hurt)
    dash = pc.dashboard_for_eh(SWORD, hurt, hero_crew=True)
    assert dash.hull == (SWORD.hull - 3) * pc.HULL_PER_EH and dash.impulse == SWORD.engine - 1 - 2
    assert dash.shields[1] == 0 and dash.shields[2] == 0 and dash.shields[0] > 0  # aft, then port (TC25)
    assert not dash.has("cloak") and "inoperable" in dash.notes
    assert dash.sensors == 1 and "Hero crew" in dash.notes  # XC23
    assert next(w for w in dash.weapons if w.name.startswith("Laser")).qty == 3
    hammer = Design(name="Hammer", ship_type=ShipType.STAR_CRUISER, hull=10, engine=5,
                    weapons={"planetary_bombardment_array": 1}, core_containment_capacitor=True)
    validate_design(hammer)
    dash = pc.dashboard_for_eh(hammer)
    assert dash.weapons[0] == pc.POINT_DEFENCE and "Planetary Bombardment Array" in dash.notes  # XC24
    assert dash.hull == 11 * pc.HULL_PER_EH and "Core Containment Capacitor" in dash.notes


@pytest.mark.parametrize("key", sorted(STARTER_CATALOGUE))
def test_every_catalogue_sd_becomes_a_legal_dashboard_crippled_or_not(key):  # XC26-XC28; 000 5.7
    sd = STARTER_CATALOGUE[key]
    dash = dashboards.validate(pc.dashboard_for_sd(sd))
    assert dash.hull == sd.hull * pc.HULL_PER_CAM and dash.impulse == max(1, min(8, sd.speed or 1))
    assert sum(dash.shields) == sum(sd.shields) * pc.SHIELD_PER_CAM
    assert dash.has("cloak") == ("Cloak" in sd.special_abilities)
    assert any(not w.secondary for w in dash.weapons)
    crippled = dashboards.validate(pc.dashboard_for_sd(sd, crippled=True))
    assert crippled.hull <= dash.hull and not crippled.has("cloak") and "Crippled (5.7)" in crippled.notes
    assert sum(crippled.shields) <= sum(dash.shields)
    unexpressed = [a for a in sd.special_abilities if a.lower() not in pc.HANDLED]
    for ability in unexpressed:  # XC28: named on the dashboard, never dropped silently
        assert ability in dash.notes


def test_ac_counters_bases_and_minefields_by_stated_rules():  # XC29
    assert pc.dashboard_for_unit({"uid": "ac:1", "kind": "ac"}) is pc.AC_DASH
    assert pc.dashboard_for_unit({"uid": "base:1", "kind": "base"}).impulse == 1
    assert pc.dashboard_for_unit({"uid": "minefield:1", "kind": "minefield"}) is None


def _eh_setup():
    def ship(i, d):
        return {"id": i, "name": f"S{i}", "design_id": None, "design": d.to_dict(), "damage": {}, "hero_crew": False}
    return {"hex": [0, 0], "terrain": "particle_cloud", "world": {"kind": "terrestrial", "owner": 2},
            "attacker": 1, "defender": 2, "aewa": False,
            "sides": {"1": {"name": "Red", "ships": [ship(5, SAN_MARCO), ship(6, SWORD)]},
                      "2": {"name": "Blue", "ships": [ship(9, SULTAN), ship(12, GALIOT)]}}}


def test_a_print_and_play_result_comes_back_as_event_horizons():  # XC25; docs/battles.md "Result"
    eh = _eh_setup()
    setup = pc.eh_to_book(eh)
    assert setup["converted"]["ships"] == {"1": 6, "2": 5, "3": 12, "4": 9}  # XC25: the cheapest first
    assert setup["terrain"][0]["kind"] == "nebula"  # XC25: the particle cloud
    hull = {n: e["dash"]["hull"] for side in setup["sides"].values() for n, e in ((e["id"], e) for e in side["ships"])}
    result = {"winner": 2, "ships": [
        {"ship": 2, "fate": "destroyed", "hull": 0, "shields": [0, 0, 0, 0], "crits": 2},  # the San Marco
        {"ship": 1, "fate": "left", "hull": hull[1], "shields": [6, 6, 6, 6], "crits": 0},  # the Sword
        {"ship": 4, "fate": "survived", "hull": hull[4] - 5, "shields": [0, 0, 4, 4], "crits": 3},  # the Sultan
        {"ship": 3, "fate": "survived", "hull": hull[3], "shields": [16, 16, 16, 16], "crits": 0}]}
    back = pc.eh_result_back(eh, setup, result)
    fates = {s["ship"]: s for s in back["ships"]}
    assert back["holder"] == 2 and back["book"] == "printplay"
    assert fates[5]["fate"] == "destroyed" and fates[5]["damage"] is None
    assert fates[6]["fate"] == "warped_out" and fates[6]["damage"] == {}  # ruling PP17: off the mat
    sultan = Damage.from_json(fates[9]["damage"])
    # 5 Print&Play hull is 3 Event Horizon hull (rounded up), two sides down are two generators,
    # three critical hits one weapon system (the costliest) and one engine point
    assert (sultan.hull, sultan.force_field_generators, sultan.engine) == (3, 2, 1)
    assert sultan.weapons == ("guided_missile_bay",)
    _check_damage(SULTAN, sultan)
    assert fates[12]["fate"] == "survived" and fates[12]["damage"] == {}
    result["ships"][2]["fate"] = result["ships"][3]["fate"] = "left"  # the winner kept nothing on the field
    assert pc.eh_result_back(eh, setup, result)["holder"] is None


def test_a_sides_dashboards_stand_cheapest_first_whatever_the_campaigns_order():  # XC25, XC29
    eh = _eh_setup()
    setup = pc.eh_to_book(eh)
    eh["sides"]["1"]["ships"].reverse()
    again = pc.eh_to_book(eh)
    assert again["sides"] == setup["sides"] and again["converted"] == setup["converted"]
    points = [dashboard_of(e["dash"]).points for e in setup["sides"]["2"]["ships"]]
    assert points == sorted(points)
    units = [{"uid": f"ship:{i}", "kind": "ship", "name": k, "points": 0,
              "sd": ec.sd_json(STARTER_CATALOGUE[k]), "crippled": False}
             for i, k in enumerate(("borg_cube", "b_rel"), 1)]
    cam = pc.cam_to_book({"attacker": 1, "defender": 2, "sides": {"1": {"units": units}, "2": {"units": units}}})
    assert cam["converted"]["units"] == {"1": [1, "ship:2"], "2": [1, "ship:1"], "3": [2, "ship:2"],
                                         "4": [2, "ship:1"]}
    assert [d.name for d in pc.cam_fleet(units)] == [e["dash"]["name"] for e in cam["sides"]["1"]["ships"]]


@pytest.mark.parametrize("seed", range(3))
def test_an_event_horizon_battle_fought_on_print_and_play_gives_a_result_the_turn_accepts(seed):  # XC25
    eh = _eh_setup()
    setup = pc.eh_to_book(eh)
    dice = SeededDice(derive_seed(f"xc25/{seed}"))
    end = PP.simulate(RULES.initial_state(setup, dice), dice)
    back = pc.eh_result_back(eh, setup, RULES.result(end))
    assert sorted(s["ship"] for s in back["ships"]) == [5, 6, 9, 12]
    designs = {5: SAN_MARCO, 6: SWORD, 9: SULTAN, 12: GALIOT}
    for s in back["ships"]:
        assert s["fate"] in ("destroyed", "survived", "warped_out")
        if s["damage"] is not None:
            _check_damage(designs[s["ship"]], Damage.from_json(s["damage"]))
    if back["holder"] is not None:
        kept = {1: {5, 6}, 2: {9, 12}}[back["holder"]]
        assert any(s["fate"] == "survived" and s["ship"] in kept for s in back["ships"])


def _cam(camp, battle):
    return ec.cam_setup(battle, camp.catalogue, {s.id: s.sd for p in camp.players for s in p.ships},
                        {1: "Kirk", 2: "Kor"})


def test_a_print_and_play_result_is_recorded_for_cam_scoring():  # XC30; 000 CAM 3.0, 3.1
    camp = campaign_of(["galaxy", "firecat", "b_rel"], ["galaxy", "firecat", "b_rel"], period=5, points_level=100)
    battle = battle_with(camp, {1: [1, 3], 2: [4, 5, 6]})
    cam = _cam(camp, battle)
    setup = pc.cam_to_book(cam)
    units = {int(k): v[1] for k, v in setup["converted"]["units"].items()}
    by_uid = {(v[0], v[1]): int(k) for k, v in setup["converted"]["units"].items()}
    start = {e["id"]: e["dash"]["hull"] for side in setup["sides"].values() for e in side["ships"]}
    galaxy, b_rel = by_uid[(1, "ship:1")], by_uid[(1, "ship:3")]
    ships = [{"ship": n, "fate": "destroyed" if n == b_rel else "survived",
              "hull": start[n] // 2 if n == galaxy else start[n]} for n in units]
    back = pc.cam_result_back(cam, setup, {"winner": 2, "ships": ships})
    assert back["destroyed"] == {"1": ["ship:3"]} and back["crippled"] == {"1": ["ship:1"]}  # half its hull: 5.7
    record = apply_to_cam(battle, back)
    assert record.unit_status(1, "ship:3").state is UnitState.DESTROYED and record.unit_status(1, "ship:1").crippled
    assert record.ordered_to_break(1) and not record.ordered_to_break(2) and record.contact_broken
    assert score_scenario(record).winner == 2


@pytest.mark.parametrize("seed", range(2))
def test_a_cam_scenario_fought_on_print_and_play_plays_out_and_scores(seed):  # XC29, XC30
    fleet = ["t_bb", "t_ca", "t_cl", "t_dd", "t_de", "t_tp"]
    camp = campaign_of(fleet, fleet, period=3, points_level=100)
    battle = battle_with(camp, {1: [1, 3], 2: [8, 9]})
    cam = _cam(camp, battle)
    setup = pc.cam_to_book(cam)
    dice = SeededDice(derive_seed(f"xc30/{seed}"))
    end = PP.simulate(RULES.initial_state(setup, dice), dice)
    back = pc.cam_result_back(cam, setup, RULES.result(end))
    record = apply_to_cam(battle, back)
    assert record.contact_broken or back["winner"] is None
    assert score_scenario(record, force_end=not record.contact_broken).winner in (1, 2, None)


def test_shield_drain_doubles_the_hits():  # XC28 (changed): BZ24's halved shields as twice the hits
    cube, galaxy = STARTER_CATALOGUE["borg_cube"], STARTER_CATALOGUE["galaxy"]
    dash = pc.dashboard_for_sd(cube)
    assert [w.qty for w in dash.weapons] == [min(12, 2 * cube.main[0].count), min(12, 2 * cube.secondary)]
    assert dash.wps == 0 and "Shield Drain" in dash.notes
    assert [w.qty for w in pc.dashboard_for_sd(galaxy).weapons] == [6, 2, 3]  # no drain: as printed
