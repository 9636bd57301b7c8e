"""Turn processing benchmark (issue: the Event Horizon campaign turn).

Builds a large campaign — a 128×128 map, 8 players, 2,000 ships in 400 fleets, 320 owned
worlds — and times one turn resolved by the pure pipeline in memory, and the same turn through
the ``process_turn`` action (load from the database, resolve, write back, dice log), printing
both and their ratio. Then counts the database queries of one processed turn at 100, 400 and
1,600 fleets. Runs in a throwaway test database.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python bench/turn.py
"""

import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

# The script's own folder would come first on sys.path, where bench/http.py shadows the standard
# library's http package; put the project root there instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402

from bench.turn_state import build  # noqa: E402

REPEATS = 3


def make_campaign(fleets: int):
    """The benchmark state stored as a real campaign (same seed, so the same map)."""
    from campaign.eventhorizon import actions as eh_actions
    from campaign.eventhorizon import adapters
    from campaign.eventhorizon.models import Design
    from campaign.models import Turn, TurnOrders
    from campaign.rules.eventhorizon.orders import orders_to_json
    from campaign.rules.eventhorizon.state import ShipState

    pure, orders = build(fleets=fleets)
    campaign = eh_actions.create_campaign(name=f"bench {fleets}", grid="hex", width=128, height=128,
                                       players=8, seed="bench")
    # Close the set-up round with nobody buying anything ({}: 240 BP banked), so turn 1 is the
    # turn timed and its fleets are the benchmark's own.
    set_up = Turn.objects.get(campaign=campaign, number=campaign.turn)
    TurnOrders.objects.bulk_create([TurnOrders(turn=set_up, empire=e, orders={}, ready=True)
                                    for e in campaign.empires.all()])
    eh_actions.process_turn(campaign_id=campaign.pk)
    campaign.refresh_from_db()
    stored = adapters.load_state(campaign)
    by_name = dict(Design.objects.filter(campaign__isnull=True).values_list("name", "pk"))
    design_pk = {i: by_name[d.name] for i, d in pure.designs.items()}
    target = replace(
        stored,
        worlds=pure.worlds,
        ships=tuple(ShipState(id=s.id, owner=s.owner, design=design_pk[s.design]) for s in pure.ships),
        fleets=pure.fleets,
    )
    adapters.save_state(campaign, stored, target)
    turn = Turn.objects.get(campaign=campaign, number=campaign.turn)
    empires = {e.seat: e for e in campaign.empires.all()}
    TurnOrders.objects.bulk_create([
        TurnOrders(turn=turn, empire=empires[seat], orders=orders_to_json(o), ready=True) for seat, o in orders.items()
    ])
    return campaign


def reset_turn(campaign):
    """Undo a processed turn's bookkeeping so the same turn can be timed again."""
    from campaign.models import Turn

    Turn.objects.filter(campaign=campaign, number=campaign.turn + 1).delete()
    Turn.objects.filter(campaign=campaign, number=campaign.turn).update(status=Turn.Status.OPEN)


def main() -> None:
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        from django.db import transaction

        from campaign.dice import CampaignDice
        from campaign.eventhorizon import actions as eh_actions
        from campaign.eventhorizon import adapters
        from campaign.models import TurnOrders
        from campaign.rules.eventhorizon.orders import parse_orders
        from campaign.rules.eventhorizon.turn import resolve_turn

        campaign = make_campaign(400)
        state = adapters.load_state(campaign)
        names = adapters.design_names_by_seat(campaign)
        orders = {
            o.empire.seat: parse_orders(o.orders)
            for o in TurnOrders.objects.filter(
                turn__campaign=campaign, turn__number=campaign.turn
            ).select_related("empire")
        }
        print(f"database: {connection.vendor}; {len(state.ships)} ships in {len(state.fleets)} fleets, "
              f"{sum(1 for w in state.worlds if w.owner)} owned worlds, {state.grid.width}×{state.grid.height} map")

        memory, through_db = [], []
        for _ in range(REPEATS):
            dice = CampaignDice(campaign, phase="bench")
            start = time.perf_counter()
            resolve_turn(state, orders, dice, names)
            memory.append(time.perf_counter() - start)
        for _ in range(REPEATS):
            # Each run is rolled back so every run processes the same turn from the same rows.
            with transaction.atomic():
                start = time.perf_counter()
                assert eh_actions.process_turn(campaign_id=campaign.pk) is not None
                through_db.append(time.perf_counter() - start)
                transaction.set_rollback(True)
            campaign.refresh_from_db()
        m, d = statistics.median(memory), statistics.median(through_db)
        print(f"one turn in memory (pure pipeline):   {m:.3f} s")
        print(f"one turn through process_turn:        {d:.3f} s")
        print(f"ratio database / memory:              {d / m:.2f}×")

        print("queries per processed turn:")
        for fleets in (100, 400, 1600):
            campaign = make_campaign(fleets)
            with transaction.atomic(), CaptureQueriesContext(connection) as queries:
                eh_actions.process_turn(campaign_id=campaign.pk)
                transaction.set_rollback(True)
            print(f"  {fleets:>5} fleets ({fleets * 5:>5} ships): {len(queries)} queries")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
