"""Issue 23 item 25: the audit log names each action in words, never its raw key ("text_orders"),
and a roll-back keeps the time each player's orders were sent (docs/rulings.md MO7)."""

import pytest
from django.urls import reverse
from django.utils import timezone

from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.actions import roll_back_turn
from campaign.models import AuditEntry, Campaign, Turn, TurnOrders

pytestmark = pytest.mark.django_db

SEEN_IN_THE_CODE = ["text_orders", "order_secret", "set_option", "cam_start", "cam_add_sd", "cam_between",
                    "cam_confirm_held", "cam_dispute", "cam_settle", "cam_scenario_mode", "cam_ship_tables",
                    "cam_deadline", "cam_resume_step", "some_future_action"]


def test_the_audit_log_names_every_action_in_words(client, small_campaign, alice):
    for action in SEEN_IN_THE_CODE:
        AuditEntry.objects.create(campaign=small_campaign, user=alice, action=action, target="turn 1")
    client.force_login(alice)
    response = client.get(reverse("moderation-audit", args=[small_campaign.pk]))
    assert response.status_code == 200
    labels = [row["label"] for row in response.context["rows"]]
    assert len(labels) == len(SEEN_IN_THE_CODE)
    for label in labels:
        assert "_" not in label and label[0].isupper(), label
    assert "Orders sent as text" in labels and "Some future action" in labels


def test_a_roll_back_keeps_when_the_orders_were_sent(client, small_campaign, alice):
    for empire in small_campaign.empires.all():
        eh_actions.submit_orders(empire_id=empire.pk, raw={"standing": {"loss_order": "costliest"}}, ready=True)
    sent = dict(TurnOrders.objects.filter(turn__campaign=small_campaign, turn__number=1)
                .values_list("empire__seat", "updated_at"))
    eh_actions.process_turn(campaign_id=small_campaign.pk)
    assert timezone.now() > max(sent.values())
    roll_back_turn(campaign_id=small_campaign.pk, user=alice)
    assert Campaign.objects.get(pk=small_campaign.pk).turn == 1
    after = dict(TurnOrders.objects.filter(turn__campaign=small_campaign, turn__number=1)
                 .values_list("empire__seat", "updated_at"))
    assert after == sent
    client.force_login(alice)
    panel = client.get(reverse("moderation-panel", args=[small_campaign.pk])).content.decode()
    assert Turn.objects.get(campaign=small_campaign, number=1).status == Turn.Status.OPEN
    for when in sent.values():
        assert f"sent {when:%-d %b %H:%M}" in panel  # the time it was sent, not the roll-back's (UTC)
