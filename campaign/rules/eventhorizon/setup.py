"""The set-up round: each empire spends its 240 BP before turn 1 (003 "Set Up": "Each player
starts with 240BP to construct his fleet or buy 'resources'"). Pure Python.

    validate_setup_orders(state, seat, orders, design_names) -> Preview
    resolve_setup(state, orders, dice, design_names) -> Resolution

A campaign opens in the set-up round (``state.turn == SETUP_TURN``, 0). Set-up orders are turn
orders (docs/orders.md) holding only ``purchases`` and ``standing``: ships are built from the
designs the empire may use, at full BP, and delivered at once at the dockyard named (every
empire starts with one, on its home world), not subject to build times or to one ship per
dockyard; resources follow the resource list and its prerequisites. What is not spent stays
banked (003 Campaign Turn Sequence: "Unused BP can be banked"). Rulings SU1 – SU7 in
docs/rulings.md.

When the round closes every seat's purchase is made (a seat with no orders gets the computer's
set-up purchase: RULINGS "Missed deadline", nobody is eliminated for not having ordered yet),
then turn 1's Resource Exploitation is rolled, as every later turn's income is rolled when the
turn before it closes (RULINGS "Timing of income"). Nobody is eliminated by the set-up round:
it is not a campaign turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ..dice import Dice
from . import economy as eh
from .orders import OrderError, OrderErrors, Orders, Preview, _spending
from .state import CampaignState, Event, FleetState, ShipState

SETUP_TURN = 0
SETUP_RULE = "003 Set Up"
STEP = "setup"


def is_setup(state: CampaignState) -> bool:
    return state.turn == SETUP_TURN


def _shape_errors(orders: Orders) -> tuple[list[OrderError], Orders]:
    """What the set-up round does not take (moves, regrouping, repairs), and the orders without
    the repairs (so that each is refused once)."""
    errors = [OrderError(where, SETUP_RULE,
                         "the set-up round takes purchases and standing orders only: fleets move from turn 1")
              for where, given in (("split", orders.splits), ("merge", orders.merges), ("moves", orders.moves))
              if given]
    kept = []
    for i, p in enumerate(orders.purchases):
        if isinstance(p, dict) and "repair" in p:
            errors.append(
                OrderError(
                    f"purchases[{i}]", SETUP_RULE, "there is nothing to repair before the campaign begins"
                )
            )
        else:
            kept.append(p)
    return errors, replace(orders, purchases=tuple(kept))


def _document_order(error: OrderError) -> tuple:
    """Moves and regrouping first, then purchases by their place in the list."""
    where = error.where
    if where.startswith("purchases["):
        return (1, int(where[len("purchases["):].split("]")[0]), where)
    return (0, 0, where)


def setup_plan(state: CampaignState, seat: int, orders: Orders,
               design_names: Mapping[str, int]) -> eh.SpendingPlan:
    """The set-up purchase checked as a whole (SU2): raises OrderError naming the item and rule
    (``OrderErrors`` with every problem, as for turn orders)."""
    if not is_setup(state):
        raise OrderError("", SETUP_RULE, f"the set-up round is over (turn {state.turn} is open)")
    if state.empire(seat).eliminated:
        raise OrderError("", "003 Purpose of the Campaign", "your empire has been eliminated")
    errors, purchases = _shape_errors(orders)
    # Every refused purchase is reported, as for a turn's (orders._spending).
    plan, _ = _spending(state, seat, purchases, design_names, errors, setup=True)
    if errors:
        errors.sort(key=_document_order)
        raise errors[0] if len(errors) == 1 else OrderErrors(errors)
    return plan


def validate_setup_orders(state: CampaignState, seat: int, orders: Orders,
                          design_names: Mapping[str, int]) -> Preview:
    """Check set-up orders against the state; return the preview or raise OrderError."""
    plan = setup_plan(state, seat, orders, design_names)
    ships = [p for p in plan.items if p.build is not None]
    lines = [f"Set-up: spend {plan.total} of {state.empire(seat).bp} BP, {plan.bp_left} BP banked"]
    lines += [f"  {p.item.describe()}: {p.cost} BP" for p in plan.items]
    if ships:
        lines.append(f"{len(ships)} ship(s) delivered at once at their dockyard when the set-up round closes")
    warnings = ()
    if not ships:
        warnings = (f"{SETUP_RULE}: you buy no ships. An empire that finishes a campaign turn with no ships "
                    "has lost (003 Purpose of the Campaign): unless a ship is completed in turn 1 "
                    "(a Patrol Craft takes one turn), you lose at the end of turn 1.",)
    return Preview(spending=plan, lines=tuple(lines), warnings=warnings)


def resolve_setup(state: CampaignState, orders: Mapping[int, Orders], dice: Dice,
                  design_names: Mapping[int, Mapping[str, int]] | None = None):
    """Close the set-up round: every seat's purchase, in seat order, then turn 1's income.

    ``orders`` maps seats to their set-up orders; a seat missing from it gets the computer's
    set-up purchase (``bots.setup_orders``). Orders that no longer fit the state (a moderator's
    edit since they were checked) are dropped for the computer's purchase too, so that no empire
    starts turn 1 without a fleet it did not choose to go without. Returns a ``turn.Resolution``
    whose state is turn 1."""
    from . import turn as turn_engine
    from .bots import setup_orders

    if state.finished:
        raise ValueError("the campaign has ended")
    if not is_setup(state):
        raise ValueError(f"the set-up round is over (turn {state.turn} is open)")
    design_names = design_names or {}
    events: list[Event] = []
    state = state.with_id_floor()
    for seat in state.active_seats():
        names = design_names.get(seat, {})
        given = orders.get(seat)
        chosen = given
        if given is None:
            chosen = setup_orders(state, seat, names)
            events.append(Event(STEP, "setup_by_computer", (seat,),
                                "No set-up orders: the computer's set-up purchase was made for you "
                                "(house ruling \"Missed deadline\")."))
        try:
            plan = setup_plan(state, seat, chosen, names)
        except OrderError as exc:
            chosen = setup_orders(state, seat, names)
            plan = setup_plan(state, seat, chosen, names)
            events.append(Event(STEP, "setup_refused", (seat,),
                                f"Set-up purchase not made: {exc}. The computer's set-up purchase was made instead."))
        if chosen.standing is not None:
            state = state.with_empire(replace(state.empire(seat), standing=chosen.standing))
        state, evs = _deliver(state, seat, plan, names)
        events += evs
    state = state.with_id_floor()
    state, evs, cut_off = turn_engine.trade_step(state)
    events += evs
    state = replace(state, turn=SETUP_TURN + 1)
    state, evs = turn_engine.roll_income(state, cut_off, dice)
    events += evs
    return turn_engine.Resolution(state=state, events=tuple(events))


def _deliver(state: CampaignState, seat: int, plan: eh.SpendingPlan, names: Mapping[str, int]):
    """Pay for the plan, place its resources, and put its ships at once in play at their
    dockyard's hex: one fleet per hex, ships in the order bought (SU3)."""
    from .turn import _apply_plan

    before = len(state.builds)
    state = _apply_plan(state, seat, plan, names)
    new_builds, state = state.builds[before:], replace(state, builds=state.builds[:before])
    events = [Event(STEP, "purchase", (seat,), f"{p.item.describe()}: {p.cost} BP", {"cost": p.cost})
              for p in plan.items]
    if not new_builds:
        events.append(Event(STEP, "setup_no_ships", (seat,),
                            "No ships were bought in the set-up round: unless one is completed in turn 1, "
                            "the empire loses at its end (003 Purpose of the Campaign)."))
        return state, events
    docks = {s.id: s.coord for s in state.structures}
    ships, fleets = list(state.ships), list(state.fleets)
    by_hex: dict = {}
    next_ship = state.next_id("ship")
    for build in new_builds:
        ship = ShipState(id=next_ship, owner=seat, design=build.design, name=build.name, hero_crew=build.hero_crew)
        next_ship += 1
        ships.append(ship)
        by_hex.setdefault(docks[build.dockyard], []).append(ship.id)
    next_fleet = state.next_id("fleet")
    for coord, ids in by_hex.items():
        fleets.append(FleetState(id=next_fleet, owner=seat, coord=coord, ships=tuple(ids)))
        events.append(Event(STEP, "setup_fleet", (seat,),
                            f"Fleet {next_fleet} of {len(ids)} ship(s) delivered at {coord}",
                            {"fleet": next_fleet, "ships": list(ids), "at": list(coord)}))
        next_fleet += 1
    return replace(state, ships=tuple(ships), fleets=tuple(fleets)), events
