"""Pickup battles under real concurrency on PostgreSQL (skipped on SQLite, required in the
PostgreSQL pass as tests/eventhorizon/test_concurrency_pg.py): the same fleet sent five times at once buys it
once and starts one battle; the others get 409 (tactical/hosts/pickup/actions.py locks the host
campaign row, then the pickup row)."""

from __future__ import annotations

import pytest

from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import book
from tactical.models import Battle, PickupBattle
from tests.eventhorizon.test_concurrency_pg import _postgresql_only, _tasks_in_process, in_threads  # noqa: F401

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_five_simultaneous_fleet_submissions_start_one_battle(bob):
    pickup = actions.create_pickup(user=bob, ruleset="eventhorizon", points=240, opponent="computer")
    o = min(book("eventhorizon").offers(bob), key=lambda o: o.points)
    fleet = [o.key] * 3

    def submit():
        from django.db import connection

        try:
            actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=fleet)
            return "ok"
        except actions.Conflict:
            return "409"
        finally:
            connection.close()

    results = in_threads([submit] * 5)
    outcomes = sorted(v for kind, v in results if kind == "ok")
    assert [kind for kind, _ in results] == ["ok"] * 5, results
    assert outcomes == ["409"] * 4 + ["ok"]
    pickup.refresh_from_db()
    assert pickup.fleets["1"] == [{"key": o.key, "name": o.name, "points": o.points}] * 3
    assert Battle.objects.filter(campaign_id=pickup.campaign_id).count() == 1
    assert PickupBattle.objects.get(pk=pickup.pk).battle_id is not None
