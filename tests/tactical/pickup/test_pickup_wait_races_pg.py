"""A waiting pickup battle under real concurrency on PostgreSQL (skipped on SQLite, required in the
PostgreSQL pass, as tests/tactical/pickup/test_pickup_races_pg.py): a player accepting the last free seat
while the creator hands that seat to the computer — exactly one wins, the other is refused (409),
and the seat is either the player's or the computer's with its fleet (ruling PK7;
tactical/hosts/pickup/actions.py locks the host campaign row, then the pickup row)."""

from __future__ import annotations

import pytest

from campaign.models import DiceRoll, Empire, Membership
from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import book
from tactical.models import PickupBattle
from tests.eventhorizon.test_concurrency_pg import _postgresql_only, _tasks_in_process, in_threads  # noqa: F401

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.mark.parametrize("round_", range(3))
def test_accepting_the_last_seat_while_the_creator_hands_it_to_the_computer(bob, carol, round_):
    """Whichever runs first, seat 2 ends the computer's with one fleet bought once: the creator
    first, carol is refused (409); carol first, she took a seat without a fleet, which the
    hand-over then takes from her (never both holding it, never two purchases)."""
    pickup = actions.create_pickup(user=bob, ruleset="eventhorizon", points=240, opponent="link")

    def accept():
        try:
            actions.accept_pickup(token=pickup.invite_token, user=carol)
            return "accepted"
        except actions.Conflict:
            return "409"

    def hand_over():
        try:
            actions.hand_seat_to_computer(pickup_id=pickup.pk, user=bob, seat=2)
            return "computer"
        except actions.Conflict:
            return "409"

    results = in_threads([accept, hand_over])
    assert [kind for kind, _ in results] == ["ok", "ok"], results
    assert results[1][1] == "computer" and results[0][1] in ("accepted", "409"), results
    seat2 = Empire.objects.get(campaign_id=pickup.campaign_id, seat=2)
    done = PickupBattle.objects.get(pk=pickup.pk)
    assert seat2.is_bot and seat2.user_id is None and list(done.fleets) == ["2"] and done.opponent_id is None
    assert not Membership.objects.filter(campaign_id=pickup.campaign_id, user=carol).exists()
    phases = set(DiceRoll.objects.filter(campaign_id=pickup.campaign_id).values_list("phase", flat=True))
    assert phases == {f"pickup {pickup.pk} fleets"}
    assert DiceRoll.objects.filter(campaign_id=pickup.campaign_id).count() <= len(done.fleets["2"])  # bought once


@pytest.mark.parametrize("round_", range(3))
def test_a_player_submitting_his_fleet_while_the_creator_hands_his_seat_over_one_wins(bob, carol, round_):
    pickup = actions.create_pickup(user=bob, ruleset="eventhorizon", points=240, opponent="link")
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    o = min(book("eventhorizon").offers(carol), key=lambda o: o.points)

    def submit():
        try:
            actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=[o.key] * 2)
            return "fleet"
        except (actions.Conflict, actions.NotFound) as exc:
            return str(exc.status)

    def hand_over():
        try:
            actions.hand_seat_to_computer(pickup_id=pickup.pk, user=bob, seat=2)
            return "computer"
        except actions.Conflict as exc:
            return str(exc.status)

    results = in_threads([submit, hand_over])
    assert [kind for kind, _ in results] == ["ok", "ok"], results
    outcomes = [v for _, v in results]
    assert outcomes in (["fleet", "409"], ["404", "computer"]), outcomes
    seat2 = Empire.objects.get(campaign_id=pickup.campaign_id, seat=2)
    done = PickupBattle.objects.get(pk=pickup.pk)
    assert list(done.fleets) == ["2"]
    if outcomes[0] == "fleet":
        assert seat2.user_id == carol.pk and not seat2.is_bot and done.fleets["2"][0]["key"] == o.key
        assert not DiceRoll.objects.filter(campaign_id=pickup.campaign_id).exists()
    else:
        assert seat2.is_bot and seat2.user_id is None
