"""A pickup battle of three sides under real concurrency on PostgreSQL (skipped on SQLite,
required in the PostgreSQL pass, as tests/tactical/pickup/test_pickup_races_pg.py): two people accepting
the last free seat at once — exactly one takes it, the other gets 409 (tactical/hosts/pickup/actions.py
``accept_pickup`` locks the host campaign row, then the pickup row, and reads the free seats
under the lock; ruling PK6)."""

from __future__ import annotations

import pytest

from campaign.models import Empire, Membership
from tactical.hosts.pickup import actions
from tactical.models import PickupBattle
from tests.eventhorizon.test_concurrency_pg import _postgresql_only, _tasks_in_process, in_threads  # noqa: F401

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.mark.parametrize("round_", range(3))
def test_two_accepting_the_last_free_seat_at_once_one_takes_it(bob, carol, mallory, django_user_model, round_):
    dave = django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")
    pickup = actions.create_pickup(user=bob, ruleset="buoyz", points=40, opponent="link", sides=3,
                                   others=["link"])
    actions.accept_pickup(token=pickup.invite_token, user=dave)  # seat 2; seat 3 is the last free one

    def accept(user):
        def run():
            try:
                return actions.accept_pickup(token=pickup.invite_token, user=user).seat_of(user)
            except actions.Conflict:
                return "409"
        return run

    results = in_threads([accept(carol), accept(mallory)])
    assert [kind for kind, _ in results] == ["ok", "ok"], results
    assert sorted(str(v) for _, v in results) == ["3", "409"], results
    seat3 = Empire.objects.get(campaign_id=pickup.campaign_id, seat=3)
    winner = carol if seat3.user_id == carol.pk else mallory
    assert [v for _, v in results][[carol, mallory].index(winner)] == 3
    assert Membership.objects.filter(campaign_id=pickup.campaign_id).count() == 3
    assert Empire.objects.filter(campaign_id=pickup.campaign_id, user__isnull=True, is_bot=False).count() == 0
    assert PickupBattle.objects.get(pk=pickup.pk).status == PickupBattle.Status.BUILDING
