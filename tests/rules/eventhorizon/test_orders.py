"""Orders: the JSON form (docs/orders.md), its parsing and validation (003 Campaign Movement,
003 Use of BP in a Campaign)."""

from dataclasses import replace

import pytest

from campaign.rules.eventhorizon.orders import (
    OrderError,
    orders_to_json,
    parse_orders,
    validate_orders,
)
from tests.rules.eventhorizon.eh_builders import DESIGN_TABLE, build_state

NAMES = {d.name: i for i, d in DESIGN_TABLE.items()}
MAP = """
1 . . W . @ .
. ~ . . . . .
. . . . . W 2
"""


def state(**kw):
    fleets = kw.pop("fleets", [(1, (0, 0), ["galiot", "san_marco"]), (1, (1, 0), ["galiot"]), (2, (6, 2), ["galiot"])])
    return build_state(MAP, fleets=fleets, bp=100, **kw)


def check(raw, st=None, seat=1):
    return validate_orders(st or state(), seat, parse_orders(raw), NAMES)


def test_empty_orders_hold():  # RULINGS: Missed deadline (standing orders stand)
    preview = check({})
    assert preview.spending.total == 0 and preview.moves == ()


def test_round_trip_json():  # docs/orders.md
    raw = {"purchases": [{"buy": "planetary_defences", "at": [0, 0]}],
           "split": [{"fleet": 1, "ships": [2], "as": "b"}], "merge": [{"fleets": [1, 2]}],
           "moves": [{"fleet": "b", "path": [[1, 1]]}],
           "standing": {"invasion": [{"hex": [0, 0], "response": "retreat", "retreat_to": [1, 1]}],
                        "loss_order": "costliest", "initiative": "last"}}
    assert orders_to_json(parse_orders(raw)) == raw


@pytest.mark.parametrize("raw,where", [
    ({"moves": [{"fleet": 1, "path": [[1, 0, 2]]}]}, "moves[0].path[0]"),
    ({"teleport": []}, "orders"),
    ({"moves": [{"fleet": True, "path": []}]}, "moves[0].fleet"),
    ({"split": [{"fleet": 1, "ships": [2], "as": " "}]}, "split[0].as"),
    ({"standing": {"loss_order": "random"}}, "standing.loss_order"),
    ({"standing": {"initiative": "middle"}}, "standing.initiative"),
    ({"standing": {"invasion": [{"response": "surrender"}]}}, "standing.invasion[0]"),
    ({"standing": {"invasion": [{"hex": [0, 0], "fleet": 1}]}}, "standing.invasion[0]"),
])
def test_malformed_orders_name_the_place(raw, where):  # docs/orders.md
    with pytest.raises(OrderError) as error:
        parse_orders(raw)
    assert error.value.where == where


def test_move_along_a_path():  # 003 Campaign Movement
    preview = check({"moves": [{"fleet": 2, "path": [[2, 0], [3, 0]]}]})
    assert (preview.moves[0].end, preview.moves[0].steps, preview.moves[0].speed) == ((3, 0), 2, 5)


def test_fleet_moves_at_the_speed_of_its_slowest_ship():  # 003 Campaign Movement: San Marco moves 4
    path = [[1, 1], [2, 1], [3, 1], [4, 1], [5, 1]]
    with pytest.raises(OrderError, match="5 hexes but fleet 1 moves 4"):
        check({"moves": [{"fleet": 1, "path": path}]})
    assert check({"moves": [{"fleet": 1, "path": path[:4]}]}).moves[0].steps == 4


def test_engine_damage_slows_a_ship():  # docs/rulings.md: engine damage lowers the campaign move
    from campaign.rules.eventhorizon.economy import Damage

    st = state()
    st = replace(st, ships=tuple(replace(s, damage=Damage(engine=5)) if s.id == 3 else s for s in st.ships))
    with pytest.raises(OrderError, match="moves 2"):
        check({"moves": [{"fleet": 2, "path": [[2, 0], [3, 0], [4, 0]]}]}, st)


def test_wormhole_jump_costs_nothing():  # 003 Creating a Map: Worm Hole
    preview = check({"moves": [{"fleet": 2, "path": [[2, 0], [3, 0], [5, 2], [4, 2]]}]})
    assert preview.moves[0].steps == 3 and preview.moves[0].end == (4, 2)


@pytest.mark.parametrize("raw,message", [
    ({"moves": [{"fleet": 2, "path": [[2, 0], [3, 0], [4, 0], [5, 0]]}]}, "black hole"),
    ({"moves": [{"fleet": 2, "path": [[3, 0]]}]}, "not next to"),
    ({"moves": [{"fleet": 2, "path": [[1, -1]]}]}, "off the map"),
    ({"moves": [{"fleet": 3, "path": [[5, 2]]}]}, "not one of yours"),
    ({"moves": [{"fleet": 2, "path": [[2, 0]]}, {"fleet": 2, "path": [[2, 1]]}]}, "two moves"),
    ({"moves": [{"fleet": 2, "path": []}]}, "at least one hex"),
    ({"moves": [{"fleet": "ghost", "path": [[2, 0]]}]}, "no fleet is split off"),
    ({"split": [{"fleet": 2, "ships": [3], "as": "x"}]}, "at least one ship"),
    ({"split": [{"fleet": 1, "ships": [9], "as": "x"}]}, "not in fleet 1"),
    ({"merge": [{"fleets": [1, 2]}]}, "same hex"),
    ({"merge": [{"fleets": [1]}]}, "two or more"),
    ({"purchases": [{"buy": "dockyard", "at": [0, 0]}]}, "costs 120 BP but only 100"),
    ({"purchases": [{"build": "Unknown", "dockyard": 1}]}, "no design named"),
])
def test_invalid_orders_are_refused(raw, message):  # 003 Campaign Movement; Use of BP in a Campaign
    with pytest.raises(OrderError, match=message):
        check(raw)


def test_split_then_move_by_label_and_merge():  # docs/orders.md: split and merge
    preview = check({"split": [{"fleet": 1, "ships": [1], "as": "fast"}],
                     "moves": [{"fleet": "fast", "path": [[1, 1], [2, 1], [3, 1], [4, 1], [5, 1]]}]})
    assert preview.moves[0].speed == 5
    merged = check(
        {"merge": [{"fleets": [1, 2]}]},
        state(fleets=[(1, (0, 0), ["galiot"]), (1, (0, 0), ["galiot"]), (2, (6, 2), ["galiot"])]),
    )
    assert [f.ships for f in merged.fleets_after_regrouping if f.owner == 1] == [(1, 2)]


def test_an_eliminated_empire_gives_no_orders():  # 003 Purpose of the Campaign
    st = state()
    st = st.with_empire(replace(st.empire(1), eliminated=True))
    with pytest.raises(OrderError, match="eliminated"):
        check({}, st)


# --- issue 13 item 3: star gates only on the map (003 Use of BP in a Campaign: Star Gate) ----

def _gate_orders(at):
    return {"purchases": [{"buy": "star_gate", "at": at}]}


@pytest.mark.parametrize("at", [[999, 999], [-5, 0], [7, 0], [0, 3]])
def test_issue13_item3_star_gate_off_the_map_is_refused(at):
    """003 Use of BP in a Campaign: Star Gate ("can be built in any hex" — of the map); 003
    Creating a Map. A gate at [999, 999] or [-5, 0] was accepted and charged 120 BP."""
    st = build_state(MAP, fleets=[(1, (0, 0), ["galiot"])], bp=300,
                     structures=[(1, "research_facility", (0, 0))])
    with pytest.raises(OrderError) as error:
        check(_gate_orders(at), st)
    assert error.value.where == "purchases[0].at"
    assert error.value.rule == "003 Use of BP in a Campaign: Star Gate"
    assert "off the map" in error.value.message and "7×3" in error.value.message


def test_issue13_item3_star_gate_in_a_black_hole_is_refused():
    """003 Creating a Map: Black Hole ("No ship/fleet can pass through"); ruling E11."""
    st = build_state(MAP, fleets=[(1, (0, 0), ["galiot"])], bp=300,
                     structures=[(1, "research_facility", (0, 0))])
    with pytest.raises(OrderError) as error:
        check(_gate_orders([5, 0]), st)
    assert error.value.rule == "003 Creating a Map: Black Hole"
    # The same empire may build it on any passable hex of the map, a worm hole included.
    assert check(_gate_orders([6, 0]), st).spending.total == 120
    assert check(_gate_orders([5, 2]), st).spending.total == 120


def test_issue13_item3_resource_off_the_map_names_the_map():  # 003 Use of BP in a Campaign; 003 Creating a Map
    with pytest.raises(OrderError, match="off the map") as error:
        check({"purchases": [{"buy": "planetary_defences", "at": [-1, 0]}]})
    assert error.value.where == "purchases[0].at"


@pytest.mark.parametrize("key", ["hex", "retreat_to"])
def test_issue13_item3_standing_retreat_off_the_map_is_refused(key):
    """003 Invading Enemy Hexes ("Retreat up to one full map move"): a retreat target or a
    covered hex off the map is refused when the orders are checked."""
    item = {"hex": [0, 0], "response": "retreat", "retreat_to": [1, 1]}
    item[key] = [40, 40]
    with pytest.raises(OrderError, match="off the map") as error:
        check({"standing": {"invasion": [item]}})
    assert error.value.where == f"standing.invasion[0].{key}"


def test_issue13_item3_processing_drops_an_off_map_gate():
    """RULINGS S2 (orders checked again when the turn is processed): a stored order for a gate
    off the map is dropped, nothing is charged and no gate is made."""
    from campaign.rules.eventhorizon.orders import parse_orders as parse
    from campaign.rules.eventhorizon.turn import apply_spending

    st = build_state(MAP, fleets=[(1, (0, 0), ["galiot"])], bp=300,
                     structures=[(1, "research_facility", (0, 0))])
    orders = {1: parse(_gate_orders([999, 999])), 2: parse({})}
    new, events = apply_spending(st, orders, {1: NAMES, 2: NAMES})
    assert new.empire(1).bp == 300
    assert not any(s.resource.value == "star_gate" for s in new.structures)
    assert any(e.kind == "spending_refused" for e in events)


# --- issue 13 item 4: the standing drift order (RULINGS "Particle clouds" option; ruling P2) --

def test_issue13_item4_drift_order_round_trip_and_check():  # RULINGS "Particle clouds"; ruling P2
    raw = {"standing": {"invasion": [], "loss_order": "cheapest", "initiative": "first",
                        "drift": {"away_from": [0, 0]}}}
    assert orders_to_json(parse_orders(raw)) == raw
    assert check(raw).spending.total == 0
    with pytest.raises(OrderError, match="off the map") as error:
        check({"standing": {"drift": {"toward": [70, 0]}}})
    assert error.value.where == "standing.drift.toward"


@pytest.mark.parametrize("drift", [{"sideways": [1, 1]}, {"toward": [1, 1], "away_from": [0, 0]}, {"toward": 3}, []])
def test_issue13_item4_malformed_drift_order_is_refused(drift):  # docs/orders.md "standing"
    with pytest.raises(OrderError) as error:
        parse_orders({"standing": {"drift": drift}})
    assert error.value.where.startswith("standing.drift")

# --- issue 13 item 14: every problem at once; the form offers only what can be ordered ---------

def test_issue13_item14_preview_lists_every_problem_not_the_first():  # 003 Campaign Movement; Use of BP
    from campaign.rules.eventhorizon.orders import OrderErrors, check_orders

    raw = {"teleport": 1,
           "purchases": [{"build": "Unknown", "dockyard": 1}, {"buy": "dockyard", "at": [0, 0]}],
           "merge": [{"fleets": [1]}],
           "moves": [{"fleet": 2, "path": [[3, 0]]}, {"fleet": 3, "path": [[5, 2]]}]}
    with pytest.raises(OrderErrors) as error:
        check_orders(state(), 1, raw, NAMES)
    wheres = [e.where for e in error.value.errors]
    assert wheres == ["orders", "purchases[0]", "purchases[1]", "merge[0].fleets", "moves[0].path[0]", "moves[1].fleet"]
    text = str(error.value)
    for fragment in ("unknown field", "no design named", "costs 120 BP but only 100", "two or more",
                     "not next to", "not one of yours"):
        assert fragment in text
    # The first problem is still the error's own (callers that read one keep working).
    assert error.value.where == "orders"


def test_issue13_item14_a_refused_purchase_does_not_hide_the_next_one():  # 003 Use of BP in a Campaign
    from campaign.rules.eventhorizon.orders import OrderErrors

    raw = {"purchases": [{"buy": "aewa", "at": [0, 0]}, {"buy": "hold_out_garrison", "at": [0, 0]},
                         {"buy": "planetary_defences", "at": [0, 0]}]}
    with pytest.raises(OrderErrors) as error:
        check(raw)
    assert [e.where for e in error.value.errors] == ["purchases[0]", "purchases[1]"]
    assert all("requires planetary defences" in e.message for e in error.value.errors)


def test_issue13_item14_one_problem_is_a_plain_order_error():
    from campaign.rules.eventhorizon.orders import OrderErrors

    with pytest.raises(OrderError) as error:
        check({"moves": [{"fleet": 3, "path": [[5, 2]]}]})
    assert not isinstance(error.value, OrderErrors) and error.value.problems == (error.value,)


def test_issue13_item14_options_give_the_reason_a_resource_cannot_be_bought():  # 003 Use of BP in a Campaign
    from campaign.rules.eventhorizon.orders import purchase_options

    st = build_state(MAP, fleets=[(1, (0, 0), ["galiot"])], bp=400)
    options = purchase_options(st, 1, [], NAMES)
    res = options["resources"]
    assert res["planetary_defences"]["ok"] and res["planetary_defences"]["worlds"]["0,0"] == ""
    assert not res["aewa"]["ok"] and res["aewa"]["reason"] == "requires planetary defences"
    assert not res["enrichment"]["ok"] and "Merchants Guild" in res["enrichment"]["reason"]
    # A prerequisite bought earlier in the list counts for later purchases.
    after = purchase_options(st, 1, [{"buy": "planetary_defences", "at": [0, 0]}], NAMES)["resources"]
    assert after["planetary_defences"]["worlds"]["0,0"].startswith("only one resource")
    assert not after["aewa"]["ok"] and after["aewa"]["reason"].startswith("only one resource")
    poor = purchase_options(build_state(MAP, bp=30), 1, [], NAMES)["resources"]
    assert not poor["planetary_defences"]["ok"] and "costs 40 BP but only 30" in poor["planetary_defences"]["reason"]


def test_issue13_item14_options_mark_a_busy_dockyard():  # 003 Star Ship Build Times
    from campaign.rules.eventhorizon.orders import purchase_options
    from campaign.rules.eventhorizon.state import BuildState

    st = build_state(MAP, bp=400)
    yard = next(s.id for s in st.structures if s.owner == 1 and s.resource.value == "dockyard")
    assert purchase_options(st, 1, [], NAMES)["dockyards"] == {str(yard): ""}
    used = purchase_options(
        st, 1, [{"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": yard}], NAMES
    )["dockyards"]
    assert "already has a build" in used[str(yard)]
    busy = replace(st, builds=(BuildState(dockyard=yard, owner=1, design=4, turns_left=2),))
    assert "still building" in purchase_options(busy, 1, [], NAMES)["dockyards"][str(yard)]


def test_issue13_item14_options_say_which_designs_cannot_be_built():  # 003 Research Facility; Use of BP
    from campaign.rules.eventhorizon.designs import Design, ShipType
    from campaign.rules.eventhorizon.orders import purchase_options

    st = build_state(MAP, bp=30)
    stealthy = Design(name="Ghost", ship_type=ShipType.CORVETTE, hull=10, engine=5, stealth_field=True,
                      weapons=(("laser_bank", 5),))
    assert stealthy.bp == 25
    st = replace(st, designs={**st.designs, 99: stealthy})
    names = {**NAMES, "Ghost": 99}
    designs = purchase_options(st, 1, [], names)["designs"]
    assert designs["Cyber-Corsair Galiot Class Corvette"] == ""  # 25 BP of 30
    assert "costs 40 BP but only 30" in designs["Venetian San Marco Class Star Cruiser"]
    assert "Stealth Field" in designs["Ghost"]  # needs the technology from a Research Facility
    after = purchase_options(st, 1, [{"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": 1}], names)
    assert "but only 5 BP are left" in after["designs"]["Cyber-Corsair Galiot Class Corvette"]
