"""Orders as text at once on PostgreSQL (real connections, one per thread): the checker takes the
turn row, then the seat's orders row (campaign/locks.py), so of sets for one seat arriving
together the one the site received last is stored, whatever order the threads run in; a text
that also saves a design takes the campaign row first and never deadlocks with the turn task.

Skipped on SQLite (it serialises every write), required in the PostgreSQL pass."""

from datetime import timedelta

import pytest
from django.utils import timezone

from campaign.eventhorizon import actions as eh_actions
from campaign.models import Campaign, Empire, TurnOrders
from tests.eventhorizon.test_concurrency_pg import _postgresql_only, _tasks_in_process, in_threads  # noqa: F401

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_sets_for_one_seat_sent_at_once_keep_the_last_received(small_campaign, bob):
    seat = Empire.objects.get(campaign=small_campaign, user=bob)
    secret = eh_actions.rotate_order_secret(empire_id=seat.pk, user=bob)
    t0 = timezone.now()
    choices = ["first", "last"] * 4

    def send(i):
        text = (f"#SECTOR {small_campaign.pk} {seat.seat} {secret} TURN 1\n"
                f"INITIATIVE {choices[i]}\nLOSSES cheapest\n#END\n")
        return eh_actions.submit_text_orders(text, received_at=t0 + timedelta(seconds=i), via="mail")

    results = in_threads([lambda i=i: send(i) for i in range(len(choices))])
    assert [value for outcome, value in results if outcome == "error"] == []
    outcomes = [value for _, value in results]
    assert all(r.accepted or r.reason == "earlier" for r in outcomes)
    row = TurnOrders.objects.get(empire=seat, turn__number=1)
    assert row.received_at == t0 + timedelta(seconds=len(choices) - 1)
    assert row.orders["standing"]["initiative"] == choices[-1]
    assert row.revision == sum(r.accepted for r in outcomes)


def test_text_with_a_design_while_the_turn_is_processed_never_deadlocks(small_campaign, bob, carol):
    from campaign.eventhorizon.models import Design
    from campaign.rules.eventhorizon.textorders import format_orders

    seat = Empire.objects.get(campaign=small_campaign, user=bob)
    secret = eh_actions.rotate_order_secret(empire_id=seat.pk, user=bob)
    spec = Design.objects.filter(campaign__isnull=True).order_by("bp").first().spec
    line = format_orders({}, designs=[{**spec, "name": "Sparrow"}]).strip()
    text = f"#SECTOR {small_campaign.pk} {seat.seat} {secret} TURN 1\n{line}\nBATTLE auto\n#END\n"
    results = in_threads([
        lambda: eh_actions.submit_text_orders(text, received_at=timezone.now(), via="mail"),
        lambda: eh_actions.process_turn(campaign_id=small_campaign.pk, turn_number=1),
    ])
    assert [value for outcome, value in results if outcome == "error"] == []
    sent = results[0][1]
    # Either the text came first (stored in turn 1, the design saved) or the turn did (refused, naming it).
    assert sent.accepted or sent.reason in ("turn", "closed"), sent.reply_text()
    assert Campaign.objects.get(pk=small_campaign.pk).turn == 2
    assert Design.objects.filter(name="Sparrow").exists() == sent.accepted
