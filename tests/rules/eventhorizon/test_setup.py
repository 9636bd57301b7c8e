"""The set-up round (issue 13 items 1, 2 and 16; 003 "Set Up", "Campaign Turn Sequence";
docs/rulings.md SU1 – SU7, W1): pure engine tests."""

from dataclasses import replace

import pytest

from campaign.rules.dice import FixedDice
from campaign.rules.eventhorizon import victory
from campaign.rules.eventhorizon.bots import bot_orders, setup_orders
from campaign.rules.eventhorizon.economy import INCOME_PURPOSE
from campaign.rules.eventhorizon.orders import OrderError, orders_to_json, parse_orders
from campaign.rules.eventhorizon.preview import check_round_orders
from campaign.rules.eventhorizon.setup import SETUP_TURN, resolve_setup, validate_setup_orders
from campaign.rules.eventhorizon.state import BuildState
from campaign.rules.eventhorizon.turn import resolve_turn

from .eh_builders import DESIGN_TABLE, DESIGNS, build_state

PICTURE = """
1 . . O . .
. . . . . .
. . o . . 2
"""
NAMES = {d.name: i for i, d in DESIGN_TABLE.items()}
GALIOT, SAN_MARCO, SWORD = (DESIGN_TABLE[DESIGNS[k]].name for k in ("galiot", "san_marco", "sword"))


def setup_state(**kw):
    return build_state(PICTURE, turn=SETUP_TURN, bp=240, **kw)


def orders(*purchases, **rest):
    return parse_orders({"purchases": list(purchases), **rest})


def check_orders(state, seat, given, names):
    """The round's check of orders as the site sends them (raw JSON)."""
    return check_round_orders(state, seat, orders_to_json(given), names, None)


def names_for(state):
    return {seat: NAMES for seat in state.active_seats()}


def test_item1_setup_ships_are_delivered_at_once_at_the_home_dockyard():  # 003 Set Up (SU1, SU3)
    state = setup_state()
    mine = orders({"build": GALIOT, "dockyard": 1, "name": "Swift"}, {"build": GALIOT, "dockyard": 1},
                  {"build": SAN_MARCO, "dockyard": 1})
    theirs = orders({"build": SAN_MARCO, "dockyard": 2})
    result = resolve_setup(state, {1: mine, 2: theirs}, FixedDice([3, 4]), names_for(state))
    new = result.state
    assert new.turn == 1 and new.builds == ()
    (fleet,) = [f for f in new.fleets if f.owner == 1]
    assert fleet.coord == (0, 0) and len(fleet.ships) == 3  # one fleet, at the home dockyard's hex
    ships = [new.ship_index()[s] for s in fleet.ships]
    assert [new.designs[s.design].name for s in ships] == [GALIOT, GALIOT, SAN_MARCO]
    assert ships[0].name == "Swift"
    (fleet2,) = [f for f in new.fleets if f.owner == 2]
    assert fleet2.coord == (5, 2) and len(fleet2.ships) == 1
    # Paid in full (25 + 25 + 40), the rest banked, then turn 1's income added (SU5, item 2).
    assert new.empire(1).bp == 240 - 90 + 30
    assert new.empire(2).bp == 240 - 40 + 40


def test_item1_setup_is_not_bound_by_build_times_or_the_notes_per_turn_limits():  # 003 Set Up; Note (SU2)
    state = setup_state()
    plan = validate_setup_orders(state, 1, orders(
        {"buy": "planetary_defences", "at": [0, 0]}, {"buy": "hold_out_garrison", "at": [0, 0]},
        {"buy": "aewa", "at": [0, 0]}, {"build": GALIOT, "dockyard": 1}, {"build": GALIOT, "dockyard": 1},
    ), NAMES)
    assert plan.spending.total == 40 + 20 + 120 + 50 and plan.spending.bp_left == 10
    # The same list as turn orders is refused by the Note (one resource per world per turn).
    turn_state = replace(state, turn=1)
    with pytest.raises(OrderError, match="one resource"):
        check_orders(turn_state, 1, orders({"buy": "planetary_defences", "at": [0, 0]},
                                           {"buy": "hold_out_garrison", "at": [0, 0]}), NAMES)


@pytest.mark.parametrize(("given", "where", "message"), [
    (orders({"build": SAN_MARCO, "dockyard": 1}, *[{"build": SAN_MARCO, "dockyard": 1}] * 6), "purchases[6]",
     "only 0 BP are left"),  # 7 × 40 > 240
    (orders({"buy": "aewa", "at": [0, 0]}), "purchases[0]", "requires planetary defences"),
    (orders({"buy": "planetary_defences", "at": [3, 0]}), "purchases[0]", "requires that you own"),
    (orders({"build": SWORD, "dockyard": 1}), "purchases[0]", "Stealth"),  # research-gated (RULINGS)
    (orders({"build": GALIOT, "dockyard": 1, "hero_crew": True}), "purchases[0]", "Military Academy"),
    (orders({"build": GALIOT, "dockyard": 2}), "purchases[0]", "no dockyard 2"),
    (orders({"repair": 1, "dockyard": 1}), "purchases[0]", "nothing to repair"),
    (parse_orders({"moves": [{"fleet": 1, "path": [[1, 0]]}]}), "moves", "purchases and standing orders only"),
])
def test_item1_setup_refusals_name_the_place_and_the_rule(given, where, message):  # 003 Set Up, Use of BP
    with pytest.raises(OrderError) as caught:
        validate_setup_orders(setup_state(), 1, given, NAMES)
    assert caught.value.where == where and message in str(caught.value)


def test_item1_hero_crews_after_an_academy_bought_in_the_same_list():  # 003 Military Academy; E4
    plan = validate_setup_orders(setup_state(), 1, orders(
        {"buy": "military_academy", "at": [0, 0]}, {"build": GALIOT, "dockyard": 1, "hero_crew": True}), NAMES)
    assert plan.spending.total == 180 + 25 + 30


def test_item1_a_seat_without_setup_orders_gets_the_computers_purchase():  # RULINGS "Missed deadline" (SU4)
    state = setup_state()
    result = resolve_setup(state, {1: orders()}, FixedDice([1, 1]), names_for(state))
    new = result.state
    assert not any(f.owner == 1 for f in new.fleets)  # {} was sent: nothing bought, 240 banked
    assert new.empire(1).bp == 250
    computer = [f for f in new.fleets if f.owner == 2]
    assert computer and sum(len(f.ships) for f in computer) >= 4
    kinds = {(e.kind, e.seats) for e in result.events}
    assert ("setup_by_computer", (2,)) in kinds and ("setup_no_ships", (1,)) in kinds
    assert not any(e.eliminated for e in new.empires)  # nobody is eliminated by the set-up round


def test_item1_computer_setup_purchase_is_a_sensible_fleet():  # 003 Set Up ("construct his fleet")
    state = setup_state()
    chosen = setup_orders(state, 1, NAMES)
    assert chosen == bot_orders(state, 1, NAMES)  # the bot's orders in the set-up round
    plan = validate_setup_orders(state, 1, chosen, NAMES).spending
    ships = [p for p in plan.items if p.build is not None]
    assert len(ships) >= 4 and plan.bp_left < 25  # BP become ships, not a bank
    assert any(p.item.design.name == SAN_MARCO for p in ships)  # a Star Cruiser's extra die
    assert {p.item.resource.value for p in plan.items if p.build is None} == {"diplomatic_corps"}


class SeatRecordingDice(FixedDice):
    """Fixed dice that record which empires each roll concerns (``rules.dice.concerning`` calls
    ``roll_for`` on dice that log, as the campaign's do)."""

    def __init__(self, faces):
        super().__init__(faces)
        self.seats = []

    def roll(self, count, sides, purpose):
        self.seats.append(())
        return super().roll(count, sides, purpose)

    def roll_for(self, concerns, count, sides, purpose):
        self.seats.append(tuple(concerns))
        return super().roll(count, sides, purpose)


def test_item2_turn_1_income_is_rolled_when_the_setup_round_closes():  # 003 Campaign Turn Sequence
    state = setup_state()
    dice = SeatRecordingDice([6, 2])
    result = resolve_setup(state, {}, dice, names_for(state))
    # Resource Exploitation for turn 1: each home world's die, logged as the rule (FW7) and said
    # to concern its owner alone (the dice log may withhold it from the others, issue 14).
    assert [r.purpose for r in dice.rolls] == [INCOME_PURPOSE, INCOME_PURPOSE]
    assert dice.seats == [(1,), (2,)]
    totals = {e.seats: e.data["bp"] for e in result.events if e.kind == "income_total"}
    assert totals == {(1,): 60, (2,): 20}
    assert [e.data["faces"] for e in result.events if e.kind == "world_income"] == [[6], [2]]
    assert dice.remaining() == []


def test_item1_setup_state_is_turn_0_and_later_turns_refuse_setup():  # SU1
    state = setup_state()
    with pytest.raises(ValueError, match="set-up round is over"):
        resolve_setup(replace(state, turn=1), {}, FixedDice([]), names_for(state))
    with pytest.raises(OrderError, match="set-up round is over"):
        validate_setup_orders(replace(state, turn=1), 1, orders(), NAMES)


def test_vc3_ships_on_the_stocks_do_not_save_an_empire():  # 003 Purpose of the Campaign (VC3)
    state = build_state(PICTURE, fleets=[(2, (5, 2), ["galiot"])])
    building = replace(state, builds=(BuildState(dockyard=1, owner=1, design=DESIGNS["san_marco"], turns_left=3),))
    new, _ = victory.check(building, FixedDice([]))
    assert new.empire(1).eliminated and new.winner == 2


def test_item16_preview_warns_with_no_ships_and_none_completed():  # 003 Purpose of the Campaign (W1)
    state = build_state(PICTURE, bp=100, fleets=[(2, (5, 2), ["galiot"])])
    preview = check_orders(state, 1, orders(), NAMES)
    assert len(preview.warnings) == 1 and "no ships" in preview.warnings[0]
    # A ship completed this turn (its last build turn) keeps the empire in the game.
    finishing = replace(state, builds=(BuildState(dockyard=1, owner=1, design=DESIGNS["galiot"], turns_left=1),))
    assert check_orders(finishing, 1, orders(), NAMES).warnings == ()
    # Setup: buying no ships warns too.
    assert "no ships" in validate_setup_orders(setup_state(), 1, orders(), NAMES).warnings[0]


def test_item16_preview_warns_when_every_ship_is_at_risk():  # W1; 003 Neutral Planets/Colonies
    wide = """
    1 . . O . . . . . . . . . .
    . . . . . . . . . . . . . .
    . . o . . . . . . . . . . 2
    """
    state = build_state(wide, bp=0, fleets=[(1, (2, 0), ["galiot"]), (2, (13, 2), ["galiot"])])
    to_neutral = parse_orders({"moves": [{"fleet": 1, "path": [[3, 0]]}]})
    (warning,) = check_orders(state, 1, to_neutral, NAMES).warnings
    assert "lone ship" in warning and "(3, 0)" in warning
    assert check_orders(state, 1, orders(), NAMES).warnings == ()  # staying put is safe
    near = build_state(PICTURE, bp=0, fleets=[(1, (2, 0), ["galiot"]), (2, (5, 2), ["galiot"])])
    into_battle = parse_orders({"moves": [{"fleet": 1, "path": [[3, 1], [4, 1], [5, 2]]}]})
    assert "held by another empire" in check_orders(near, 1, into_battle, NAMES).warnings[0]
    assert "within reach of an enemy fleet" in check_orders(near, 1, orders(), NAMES).warnings[0]


def test_item1_the_turn_after_setup_resolves_with_the_setup_fleets():  # no campaign ends on turn 1
    state = setup_state()
    after = resolve_setup(state, {}, FixedDice([3, 3]), names_for(state)).state
    dice = FixedDice([2, 1, 3, 3])  # initiative, then turn 2's income
    result = resolve_turn(after, {}, dice, names_for(after))
    assert dice.remaining() == []
    assert result.state.turn == 2 and not result.state.finished
    assert all(not e.eliminated for e in result.state.empires)


def test_item1_setup_preview_lists_every_refused_purchase_and_the_form_offers_the_dockyard_again():
    # "the same preview and refusals as turn orders" (issue 13 item 1, with item 14's every problem).
    from campaign.rules.eventhorizon.orders import OrderErrors, purchase_options

    state = setup_state()
    raw = {"purchases": [{"buy": "aewa", "at": [0, 0]}, {"build": GALIOT, "dockyard": 1},
                         {"build": SWORD, "dockyard": 1}], "moves": [{"fleet": 1, "path": [[1, 0]]}]}
    with pytest.raises(OrderErrors) as caught:
        check_round_orders(state, 1, raw, NAMES, None)
    assert [e.where for e in caught.value.problems] == ["moves", "purchases[0]", "purchases[2]"]
    # A dockyard with a ship on order still takes more in the set-up round (SU2).
    options = purchase_options(state, 1, [{"build": GALIOT, "dockyard": 1}], NAMES, setup=True)
    assert options["dockyards"] == {"1": ""}
    assert purchase_options(replace(state, turn=1), 1, [{"build": GALIOT, "dockyard": 1}], NAMES)["dockyards"]["1"]
