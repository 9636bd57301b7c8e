"""Issue 31 on Star Sectors (rulings XC41-XC51 in docs/rulings.md): an Event Horizon ship (003 Star
Ship Design Rules: design, carried damage, hero crew) and a CAM roster ship (000 1.5, CAM 2.2: its
SD, crippled or not) become Star Sectors profile cards (004 II) priced by the book's own rule (004
III: CF + cloaks + advanced banks + extra engineering phases; a command crew 4, VII.B), each the ship
as it stands (IV.F, IV.G); the Star Sectors result comes back as each layer's own (docs/battles.md
"Result"; 000 CAM 3.0, 3.1), and a battle of each layer fought on Star Sectors ends in a result the
layer takes up."""

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
from tactical.rules.starsectors import convert as sc
from tactical.rules.starsectors.book import BOOK as SS
from tactical.rules.starsectors.cards import card_from_json, price
from tactical.rules.starsectors.play import RULES
from tests.rules.cam.builders import battle_with, campaign_of

SAN_MARCO, SWORD, SULTAN, GALIOT = SAMPLE_DESIGNS


def test_star_sectors_is_offered_to_both_layers():
    assert "starsectors" in registry.books_for("eventhorizon") and "starsectors" in registry.books_for("cam")
    assert registry.find_converter("eventhorizon", "starsectors").to_book is sc.eh_to_book
    assert registry.find_converter("cam", "starsectors").result_back is sc.cam_result_back
    assert registry.find_resolver("starsectors").sheets  # its own record sheets (the profile cards)


def test_the_rate_comes_from_the_books_point_system():  # XC41; 004 III
    for d in SAMPLE_DESIGNS:  # every sample design within half to twice the rate
        card = sc.eh_card(d)
        assert card.points == price(card) == card.cf + card.cloaks + len(card.banks) + card.extra_phases
        assert 0.5 < card.points / d.bp / sc.SS_PER_BP < 2
    for sd in STARTER_CATALOGUE.values():  # CAM's flat class points: within a third to three times
        assert 1 / 3 < sc.sd_card(sd).points / sd.points / sc.SS_PER_CAM < 3
    # a 300 BP fleet (ten Swords) is a fleet of comparable worth in Star Sectors points
    assert 0.5 * 300 * sc.SS_PER_BP < 10 * sc.eh_card(SWORD).points < 2 * 300 * sc.SS_PER_BP


@pytest.mark.parametrize("design", SAMPLE_DESIGNS, ids=lambda d: d.ship_type.value)
def test_every_sample_design_becomes_a_legal_card(design):  # XC42; 004 II, IV.D, VI.B
    entry = sc.eh_entry({"id": 1, "name": "", "design": design.to_dict(), "damage": {}, "hero_crew": False})
    card = card_from_json(entry["card"])  # the card designer's checks (004 II, IV.D, VI.B)
    assert card.ss == design.hull and card.mf == design.engine // 2 and card.arc == "all"
    assert card.banks.count("PTL") == design.weapon_counts.get("guided_missile_bay", 0)
    assert not card.cloaks and entry["crew"] is False  # XC43: a stealth field is no cloak (VI.A: it cannot fire)
    assert card.df == 2 * design.force_field - 6 and card.cf == sc._cf(sum(
        sc.EH_POINTS[k] * n for k, n in design.weapon_counts.items()))  # XC42


def test_carried_damage_hero_crew_and_what_star_sectors_cannot_express():  # XC43-XC45
    whole = sc.eh_card(SULTAN)
    hurt = Damage(hull=3, engine=2, weapons=("guided_missile_bay", "particle_accelerator"), force_field_generators=1,
                  stealth=True)
    _check_damage(SULTAN, hurt)
    entry = sc.eh_entry({"id": 7, "name": "Hurt", "design": SULTAN.to_dict(), "damage": hurt.to_json(),
                         "hero_crew": True})
    card = card_from_json(entry["card"])
    assert card.ss == SULTAN.hull - 3 and card.mf == (SULTAN.engine - 2) // 2 and card.banks == ("PTL",)
    assert card.cf == whole.cf - 1 and card.df == whole.df - 1  # a particle accelerator and a generator lost
    notes = " ".join(entry["notes"])
    assert entry["crew"] and "command crew" in notes and "inoperable" in notes and "as it stands" in notes
    hammer = Design(name="Hammer", ship_type=ShipType.STAR_CRUISER, hull=10, engine=5,
                    weapons={"planetary_bombardment_array": 1}, core_containment_capacitor=True)
    validate_design(hammer)
    notes = " ".join(sc.eh_notes(hammer, Damage(), False, sc.eh_card(hammer)))
    for text in ("Planetary Bombardment Array", "Core Containment Capacitor"):
        assert text in notes  # XC45: stated, never dropped silently
    assert sc.eh_card(hammer).cf == 0 and sc.eh_card(hammer).arc == "none"  # unarmed: no diagram (IV.D)


@pytest.mark.parametrize("key", sorted(STARTER_CATALOGUE))
def test_every_catalogue_sd_becomes_a_legal_card_crippled_or_not(key):  # XC46-XC48; 000 5.7
    sd = STARTER_CATALOGUE[key]
    unit = {"uid": "ship:1", "kind": "ship", "name": sd.name, "sd": ec.sd_json(sd), "crippled": False}
    entry = sc.unit_entry(unit, 1)
    card = card_from_json(entry["card"])
    ss = sum(card_from_json(e["card"]).ss for e in sc.unit_entries(unit, 1))  # XC51: a Cube's sections share it
    assert card.cloaks == ("Cloak" in sd.special_abilities) and ss == min(40, sd.hull + max(sd.shields))
    assert card.mf == (0 if sd.speed is None else max(1, sd.speed // 2))
    crippled = sc.unit_entry({**unit, "crippled": True}, 1)
    weak = card_from_json(crippled["card"])
    assert weak.ss <= card.ss and weak.cf <= card.cf and weak.cloaks == 0 and crippled["line"] == 0
    assert any("Crippled (5.7)" in n for n in crippled["notes"])
    for ability in (a for a in sd.special_abilities if a.lower() not in sc.HANDLED):  # XC48: named
        assert ability in " ".join(entry["notes"])


def test_ac_counters_bases_and_minefields_by_stated_rules():  # XC49
    assert card_from_json(sc.unit_entry({"uid": "ac:1", "kind": "ac"}, 3)["card"]).cf == sc.AC_CARD.cf
    assert card_from_json(sc.unit_entry({"uid": "base:1", "kind": "base"}, 4)["card"]).mf == 0
    assert sc.unit_entry({"uid": "minefield:1", "kind": "minefield"}) is None


def _eh_setup():
    def ship(i, d):
        return {"id": i, "name": f"S{i}", "design_id": None, "design": d.to_dict(), "damage": {}, "hero_crew": False}

    return {"hex": [0, 0], "terrain": "particle_cloud", "world": {"kind": "terrestrial", "owner": 2}, "attacker": 1,
            "defender": 2, "aewa": False,
            "sides": {"1": {"name": "Red", "ships": [ship(5, SAN_MARCO), ship(6, SWORD)]},
                      "2": {"name": "Blue", "ships": [ship(9, SULTAN), ship(12, GALIOT)]}}}


def test_a_star_sectors_result_comes_back_as_event_horizons():  # XC45; docs/battles.md "Result"
    eh = _eh_setup()
    setup = sc.eh_to_book(eh)
    assert setup["converted"]["ships"] == {"1": 6, "2": 5, "3": 12, "4": 9}  # XC41: the cheapest first
    assert {t["kind"] for t in setup["terrain"]} == {"planet", "mutara"}  # the world, the cloud (VII.A)
    state = RULES.initial_state(setup, SeededDice(derive_seed("xc45")))
    assert [s.side for s in state.ships] == [1, 1, 2, 2] and state.ships[3].card.name == "S9"
    result = {"winner": 2, "ships": [
        {"ship": 2, "fate": "destroyed", "damage": 10},  # the San Marco
        {"ship": 1, "fate": "survived", "damage": 5},  # the Sword: SS 6, five hits
        {"ship": 4, "fate": "survived", "damage": 6},  # the Sultan: SS 8, six hits
        {"ship": 3, "fate": "survived", "damage": 0},
    ]}
    back = sc.eh_result_back(eh, setup, result)
    fates = {s["ship"]: s for s in back["ships"]}
    assert back["holder"] == 2 and back["book"] == "starsectors"
    assert fates[5]["fate"] == "destroyed" and fates[5]["damage"] is None
    sword = Damage.from_json(fates[6]["damage"])
    assert sword.hull == SWORD.hull - 1  # never the last point
    sultan = Damage.from_json(fates[9]["damage"])
    # six hull, two weapon systems (the costliest first) and two generators; MF 3 to 2 by IV.G: two engine
    assert (sultan.hull, sultan.force_field_generators, sultan.engine) == (6, 2, 2)
    assert sultan.weapons == ("guided_missile_bay", "guided_missile_bay")
    _check_damage(SULTAN, sultan)
    assert fates[12]["damage"] == {}
    result["ships"][2]["fate"] = result["ships"][3]["fate"] = "destroyed"
    assert sc.eh_result_back(eh, setup, result)["holder"] is None  # the winner kept nothing


def test_a_sides_cards_stand_cheapest_first_whatever_the_campaigns_order():  # XC41; 004 III, VII.B
    eh = _eh_setup()
    eh["sides"]["1"]["ships"].reverse()  # Sword, San Marco either way: the Sword (5 points) deploys first
    eh["sides"]["2"]["ships"][1]["hero_crew"] = True  # the Sultan (6) before the Galiot (5 + a crew's 4)
    setup = sc.eh_to_book(eh)
    assert setup["converted"]["ships"] == {"1": 6, "2": 5, "3": 9, "4": 12}
    assert [e["card"]["name"] for e in setup["sides"]["1"]["ships"]] == ["S6", "S5"]
    assert [e["crew"] for e in setup["sides"]["2"]["ships"]] == [False, True]
    lost = {"winner": 2, "ships": [{"ship": 1, "fate": "destroyed", "damage": 6}]}
    back = sc.eh_result_back(eh, setup, lost)
    assert [s["ship"] for s in back["ships"] if s["fate"] == "destroyed"] == [6]  # the Sword, by the mapping
    eh["sides"]["1"]["ships"].reverse()
    assert sc.eh_to_book(eh)["sides"] == setup["sides"]  # the same battle, however the campaign lists them
    units = [{"uid": f"ship:{i}", "kind": "ship", "name": k, "points": 0,
              "sd": ec.sd_json(STARTER_CATALOGUE[k]), "crippled": False}
             for i, k in enumerate(("firecat", "borg_cube", "b_rel"), 1)]
    cam = {"attacker": 1, "defender": 2, "sides": {"1": {"units": units}, "2": {"units": units[:1]}}}
    setup = sc.cam_to_book(cam)
    assert setup["converted"]["units"] == {"1": [1, "ship:3"], "2": [1, "ship:1"], "3": [1, "ship:2"],
                                           "4": [1, "ship:2"], "5": [2, "ship:1"]}  # the Cube's sections: XC51
    names = [e["card"]["name"] for e in setup["sides"]["1"]["ships"]]
    assert [e["card"]["name"] for e in sc.cam_fleet(units)] == names


def test_an_event_horizon_battle_fought_on_star_sectors_gives_a_result_the_turn_accepts():  # XC45
    eh = _eh_setup()
    setup = sc.eh_to_book(eh)
    dice = SeededDice(derive_seed("xc45/0"))
    end = SS.simulate(RULES.initial_state(setup, dice), dice)
    back = sc.eh_result_back(eh, setup, RULES.result(end))
    assert sorted(s["ship"] for s in back["ships"]) == [5, 6, 9, 12]
    designs = {5: SAN_MARCO, 6: SWORD, 9: SULTAN, 12: GALIOT}
    for s in back["ships"]:
        assert s["fate"] in ("destroyed", "survived")
        if s["damage"] is not None:
            _check_damage(designs[s["ship"]], Damage.from_json(s["damage"]))
    if back["holder"] is not None:
        kept = {1: {5, 6}, 2: {9, 12}}[back["holder"]]
        assert any(s["fate"] == "survived" and s["ship"] in kept for s in back["ships"])


def _cam(camp, battle):
    return ec.cam_setup(battle, camp.catalogue, {s.id: s.sd for p in camp.players for s in p.ships},
                        {1: "Kirk", 2: "Kor"})


def test_a_star_sectors_result_is_recorded_for_cam_scoring():  # XC50; 000 CAM 3.0, 3.1
    camp = campaign_of(["galaxy", "firecat", "b_rel"], ["galaxy", "firecat", "b_rel"], period=5, points_level=100)
    battle = battle_with(camp, {1: [1, 3], 2: [4, 5, 6]})
    cam = _cam(camp, battle)
    setup = sc.cam_to_book(cam)
    by_uid = {(v[0], v[1]): int(k) for k, v in setup["converted"]["units"].items()}
    galaxy, b_rel = by_uid[(1, "ship:1")], by_uid[(1, "ship:3")]
    line = setup["converted"]["crippled_at"][str(galaxy)]
    ss = setup["sides"]["1"]["ships"][galaxy - 1]["card"]["ss"]
    assert (ss, line) == (12 + 6, 8 + 6)  # XC46, XC50: hull and crippled figure, each + the best shield
    ships = [{"ship": n, "fate": "destroyed" if n == b_rel else "survived",
              "damage": ss - line if n == galaxy else 0} for n in range(1, len(by_uid) + 1)]
    back = sc.cam_result_back(cam, setup, {"winner": 2, "ships": ships})
    assert back["destroyed"] == {"1": ["ship:3"]} and back["crippled"] == {"1": ["ship:1"]}  # at its line: 5.7
    ships[galaxy - 1]["damage"] -= 1
    assert sc.cam_result_back(cam, setup, {"winner": 2, "ships": ships})["crippled"] == {}  # above it
    record = apply_to_cam(battle, back)
    assert record.unit_status(1, "ship:3").state is UnitState.DESTROYED and record.unit_status(1, "ship:1").crippled
    assert record.ordered_to_break(1) and not record.ordered_to_break(2) and record.contact_broken
    assert score_scenario(record).winner == 2


def test_a_cam_scenario_fought_on_star_sectors_plays_out_and_scores():  # XC49, XC50
    fleet = ["t_bb", "t_ca", "t_cl", "t_dd", "t_de", "t_tp"]
    camp = campaign_of(fleet, fleet, period=3, points_level=100)
    battle = battle_with(camp, {1: [1, 3], 2: [8, 9]})
    cam = _cam(camp, battle)
    setup = sc.cam_to_book(cam)
    dice = SeededDice(derive_seed("xc50"))
    end = SS.simulate(RULES.initial_state(setup, dice), dice)
    back = sc.cam_result_back(cam, setup, RULES.result(end))
    record = apply_to_cam(battle, back)
    assert record.contact_broken or back["winner"] is None
    assert score_scenario(record, force_end=not record.contact_broken).winner in (1, 2, None)


def test_a_borg_cube_fights_as_sections_worth_its_rate_and_dies_with_the_last():  # XC51; 004 II, III, IV.F
    camp = campaign_of(["borg_cube"], ["galaxy", "valkyrie"], period=5, points_level=100)
    battle = battle_with(camp, {1: [1], 2: [2, 3]})
    cam = _cam(camp, battle)
    setup = sc.cam_to_book(cam)
    cube = [int(k) for k, v in setup["converted"]["units"].items() if v == [1, "ship:1"]]
    cards = [card_from_json(e["card"]) for e in setup["sides"]["1"]["ships"]]
    assert len(cube) == len(cards) == 2 and len(setup["sides"]["2"]["ships"]) == 2  # the Valkyrie one card
    worth = STARTER_CATALOGUE["borg_cube"].points * sc.SS_PER_CAM  # ≈ 20 points at the rate (XC41)
    assert worth - cards[0].points < sum(c.points for c in cards) <= worth
    assert sum(c.ss for c in cards) == 30 + 6 and {c.hull for c in cards} == {2}  # the SS shared; hull 15 each
    line = setup["converted"]["crippled_at"][str(cube[0])]
    ships = [{"ship": n, "fate": "survived", "damage": 0} for n in range(1, 5)]

    def back(fates, damage=0):
        for n, fate in zip(cube, fates, strict=True):
            ships[n - 1].update(fate=fate, damage=damage if fate == "survived" else 0)
        return sc.cam_result_back(cam, setup, {"winner": 2, "ships": ships})

    one_left = back(["destroyed", "survived"])
    assert one_left["destroyed"] == {} and one_left["crippled"] == {}  # 18 SS left, above its line (10 + 6)
    assert back(["destroyed", "survived"], 18 - line)["crippled"] == {"1": ["ship:1"]}  # XC50 on the sum
    assert back(["destroyed", "destroyed"])["destroyed"] == {"1": ["ship:1"]}
