"""The converters' shared pieces in the rule-book kit (tactical/rules/kit/layers.py): the unit map
and crippled units a CAM result is read with, the costliest-first loss of weapon systems (rulings
XC9, XC25, XC35, XC45) and the Event Horizon result back every book's converter builds on."""

from __future__ import annotations

from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS
from campaign.rules.eventhorizon.economy import Damage
from tactical.rules.eventhorizon.deploy import CampaignShip
from tactical.rules.kit import layers

COST = {"emp_cannon": 3, "particle_accelerator": 2, "laser_bank": 1, "pba": 9}.__getitem__


def test_converted_units_reads_the_map_as_ints_and_strings():
    setup = {"converted": {"units": {"1": [2, "u7"], "12": ["1", 3]}}}
    assert layers.converted_units(setup) == {1: (2, "u7"), 12: (1, "3")}
    assert layers.converted_units({}) == {} and layers.converted_units({"converted": None}) == {}


def test_cam_crippled_names_only_the_units_that_came_in_crippled():
    cam = {"sides": {"1": {"units": [{"uid": "a", "crippled": True}, {"uid": "b", "crippled": False}]},
                     "2": {"units": [{"uid": "c"}, {"uid": "d", "crippled": True}]}, "3": {}}}
    assert layers.cam_crippled(cam) == {(1, "a"), (2, "d")}
    assert layers.cam_crippled({}) == set()


def test_lose_costliest_takes_the_costliest_left_after_what_is_already_lost():
    fitted = {"laser_bank": 2, "emp_cannon": 1, "particle_accelerator": 1}
    # The EMP cannon is already lost: the next loss is the accelerator, then the lasers, then nothing.
    assert layers.lose_costliest(fitted, ("emp_cannon",), 1, COST) == ("emp_cannon", "particle_accelerator")
    assert layers.lose_costliest(fitted, ("emp_cannon",), 9, COST) == (
        "emp_cannon", "particle_accelerator", "laser_bank", "laser_bank")
    assert layers.lose_costliest(fitted, (), 0, COST) == ()
    assert layers.lose_costliest(fitted, (), -2, COST) == ()


def test_lose_costliest_spares_what_it_is_told_and_breaks_ties_in_the_fitted_order():
    fitted = {"pba": 1, "laser_bank": 1, "particle_accelerator": 1, "emp_cannon": 0}
    got = layers.lose_costliest(fitted, (), 5, COST, spared=("pba",))
    assert got == ("particle_accelerator", "laser_bank")
    tie = {"b": 1, "a": 1}
    assert layers.lose_costliest(tie, (), 1, lambda k: 1) == ("b",)


def test_lose_costliest_keeps_a_loss_the_design_does_not_hold_and_counts_it_for_nothing():
    # A carried loss of a system the design no longer lists (or lists fewer of) stays lost and
    # takes nothing else with it.
    fitted = {"laser_bank": 1, "particle_accelerator": 1}
    got = layers.lose_costliest(fitted, ("emp_cannon", "laser_bank", "laser_bank"), 1, COST)
    assert got == ("emp_cannon", "laser_bank", "laser_bank", "particle_accelerator")


def eh_setup():
    ship = {"design": SAMPLE_DESIGNS[0].to_dict()}
    return {"attacker": 1, "defender": 2, "sides": {
        "1": {"ships": [{**ship, "id": 10}, {**ship, "id": 11, "damage": {"hull": 1}}]},
        "2": {"ships": [{**ship, "id": 20}, {**ship, "id": 21}]}}}


BOOK_SETUP = {"converted": {"ships": {"1": 10, "2": 11, "3": 20, "4": 21}}}


def test_eh_result_maps_fates_back_and_asks_the_book_only_about_survivors():
    asked = []

    def survivor(fate, seat, ship):
        asked.append((fate["ship"], seat, ship["id"]))
        if fate["fate"] == "captured":
            return layers.Survived("captured", {"hull": 2}, holds=2, captured_by=2)
        if fate["fate"] == "left":
            return layers.Survived("warped_out", {}, holds=None)
        return layers.Survived("survived", {"hull": 1}, holds=seat)

    result = {"winner": 2, "ships": [{"ship": 1, "fate": "captured"}, {"ship": 3, "fate": "destroyed"},
                                     {"ship": 4, "fate": "left"}, {"ship": 9, "fate": "destroyed"},
                                     {"ship": 1, "fate": "destroyed"}, {"ship": 2, "fate": "survived"}]}
    got = layers.eh_result(eh_setup(), BOOK_SETUP, result, book="toy", survivor=survivor, damage=Damage)
    # Not the destroyed, the unknown or the repeated ship.
    assert asked == [(1, 1, 10), (4, 2, 21), (2, 1, 11)]
    assert got["ships"] == [
        {"ship": 10, "fate": "captured", "damage": {"hull": 2}, "captured_by": 2},
        {"ship": 20, "fate": "destroyed", "damage": None, "captured_by": None},
        {"ship": 21, "fate": "warped_out", "damage": {}, "captured_by": None},
        {"ship": 11, "fate": "survived", "damage": {"hull": 1}, "captured_by": None},
    ]
    # Seat 2 holds the field only through the ship it captured.
    assert got["holder"] == 2 and got["book"] == "toy" and got["book_result"] == result


def test_eh_result_a_winner_with_no_ship_on_the_field_holds_nothing_an_unnamed_ship_survives_as_it_came():
    def survivor(fate, seat, ship):
        return layers.Survived("warped_out", {}, holds=None)

    result = {"holder": 1, "ships": [{"ship": 1, "fate": "left"}, {"ship": 3, "fate": "destroyed"},
                                     {"ship": 4, "fate": "destroyed"}]}
    got = layers.eh_result(eh_setup(), BOOK_SETUP, result, book="toy", survivor=survivor, damage=Damage)
    # Ship 11 never appeared: it survived with the damage it came with (written as Damage writes it,
    # every field), and keeps seat 1 there.
    assert got["ships"][-1] == {"ship": 11, "fate": "survived", "damage": Damage(hull=1).to_json(),
                                "captured_by": None}
    assert got["holder"] == 1
    result = {"winner": 2, "holder": 1, "ships": [{"ship": n, "fate": "destroyed"} for n in (3, 4)]}
    got = layers.eh_result(eh_setup(), BOOK_SETUP, result, book="toy", survivor=survivor, damage=Damage)
    assert got["holder"] is None  # "winner" is read first; seat 2 kept no ship


def test_eh_ship_json_is_the_setup_entry_of_a_ship_value():
    design = SAMPLE_DESIGNS[1]
    ship = CampaignShip(7, design, Damage(engine=1), True, "")
    assert layers.eh_ship_json(ship, 3) == {"id": 3, "name": design.name, "design": design.to_dict(),
                                            "damage": Damage(engine=1).to_json(), "hero_crew": True}
    assert layers.eh_ship_json(CampaignShip(7, design, name="Kite"), 1)["name"] == "Kite"


def test_cam_fates_gives_the_results_ships_that_stand_for_units_with_their_seat_and_uid():
    setup = {"converted": {"units": {"1": [1, "a"], "2": [2, "b"], "3": [2, "b"]}}}
    result = {"ships": [{"ship": 3, "fate": "left"}, {"ship": 7, "fate": "destroyed"},
                        {"ship": 1, "fate": "x"}]}
    assert list(layers.cam_fates(setup, result)) == [({"ship": 3, "fate": "left"}, (2, "b")),
                                                     ({"ship": 1, "fate": "x"}, (1, "a"))]
    assert list(layers.cam_fates(setup, {})) == []


def test_cam_result_files_each_mark_by_seat_in_order_and_reads_the_winner_key_it_is_told():
    result = {"winner": 1, "holder": 2, "ships": []}
    marks = [("crippled", 2, "b"), ("destroyed", 1, "a"), ("crippled", 2, "c"), ("left", 2, "b")]
    got = layers.cam_result(result, marks, book="toy")
    assert got == {"winner": 1, "destroyed": {"1": ["a"]}, "crippled": {"2": ["b", "c"]},
                   "left": {"2": ["b"]}, "book": "toy", "book_result": result}
    assert layers.cam_result(result, [], book="toy", first="holder")["winner"] == 2
    # Without the key named first, the other one.
    assert layers.cam_result({"holder": 2}, [], book="toy")["winner"] == 2
    assert layers.cam_result({"winner": 1}, [], book="toy", first="holder")["winner"] == 1
    empty = layers.cam_result({}, [], book="toy")
    assert empty["destroyed"] == empty["crippled"] == empty["left"] == {} and empty["winner"] is None
