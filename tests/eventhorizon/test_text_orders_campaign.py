"""Three turns of a 2-player campaign with bob playing by mail only (answering each turn report
email with its orders template, edited) and carol on the "paste orders" page — and a twin
campaign (same seed) with the same orders given as JSON through the API: both end the same."""

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import adapters
from campaign.models import Campaign
from campaign.rules.eventhorizon.mapgen import Terrain
from tests.eventhorizon.setup_round import finish_setup

pytestmark = pytest.mark.django_db
TURNS = 3


def make_campaign(name, alice, bob, carol):
    campaign = eh_actions.create_campaign(name=name, grid="hex", width=12, height=12, players=2, seed="twin-1",
                                       moderator=alice)
    campaign.empires.filter(seat=1).update(user=bob, name="Bob's Realm")
    campaign.empires.filter(seat=2).update(user=carol, name="Carol's Combine")
    return campaign


def a_move(campaign, seat, turn):
    """A legal move for the seat's first fleet, different each turn (same in both campaigns)."""
    state = adapters.load_state(campaign)
    fleet = next(f for f in state.fleets if f.owner == seat)
    steps = [c for c in state.grid.neighbours(fleet.coord) if state.terrain_at(c) is not Terrain.BLACK_HOLE]
    to = steps[turn % len(steps)]
    return fleet.id, to


def block_of(body: str) -> str:
    start = body.index("#SECTOR")
    return body[start:body.index("#END", start) + len("#END")] + "\n"


def test_a_campaign_by_mail_and_paste_equals_the_same_orders_by_api(
        client, alice, bob, carol, django_capture_on_commit_callbacks, eager_tasks, settings):
    settings.MAIL_IN_ENABLED = True  # turn emails carry the orders block only when the site takes mail
    by_text = make_campaign("By text", alice, bob, carol)
    by_api = make_campaign("By API", alice, bob, carol)
    with django_capture_on_commit_callbacks(execute=True):
        finish_setup(by_text)
    finish_setup(by_api)
    for turn in range(1, TURNS + 1):
        by_text.refresh_from_db()
        by_api.refresh_from_db()
        assert by_text.turn == by_api.turn == turn
        bob_fleet, bob_to = a_move(by_text, 1, turn)
        carol_fleet, carol_to = a_move(by_text, 2, turn)
        loss = ["cheapest", "costliest"][turn % 2]
        # bob: the last turn report email he got, answered with the block edited, the report quoted.
        report = [m for m in mail.outbox if m.to == ["bob@example.com"] and by_text.name in m.subject][-1]
        assert f"TURN {turn}\n" in block_of(report.body)
        edited = (block_of(report.body).replace("#END", f"MOVE {bob_fleet} TO {bob_to[0]},{bob_to[1]}\n#END")
                  .replace("LOSSES cheapest", f"LOSSES {loss}").replace("LOSSES costliest", f"LOSSES {loss}"))
        reply = "Here you go.\n\n" + edited + "\n" + "\n".join("> " + line for line in report.body.splitlines())
        sent = eh_actions.submit_text_orders(
            reply, received_at=timezone.now(), via="mail", sender_email="bob@example.com"
        )
        assert sent.accepted, sent.reply_text()
        # carol: the paste page's template, edited.
        client.force_login(carol)
        url = reverse("campaign-orders-text", args=[by_text.pk])
        template = client.get(url).context["form"].initial["text"]
        pasted = client.post(
            url,
            {"text": template.replace("#END", f"MOVE {carol_fleet} TO {carol_to[0]},{carol_to[1]}\n#END")},
        )
        assert pasted.context["result"].accepted, pasted.context["result"].reply_text()
        # The twin: the same orders as JSON through the API.
        for user, fleet, to, standing in (
            (bob, bob_fleet, bob_to, {"loss_order": loss}),
            (carol, carol_fleet, carol_to, None),
        ):
            client.force_login(user)
            orders = {"moves": [{"fleet": fleet, "path": [list(to)]}]}
            if standing:
                orders["standing"] = {"invasion": [], "initiative": "first", **standing}
            else:
                orders["standing"] = user.empires.get(campaign=by_api).standing_orders or {
                    "invasion": [], "loss_order": "cheapest", "initiative": "first"}
            response = client.put(reverse("api-orders", args=[by_api.pk]), {"orders": orders, "turn": turn},
                                  content_type="application/json")
            assert response.status_code == 200, response.content
        with django_capture_on_commit_callbacks(execute=True):
            eh_actions.process_turn(campaign_id=by_text.pk, turn_number=turn)
        eh_actions.process_turn(campaign_id=by_api.pk, turn_number=turn)
    a, b = (
        adapters.load_state(Campaign.objects.get(pk=by_text.pk)),
        adapters.load_state(Campaign.objects.get(pk=by_api.pk)),
    )
    assert a.turn == b.turn == TURNS + 1
    for part in ("empires", "worlds", "structures", "ships", "fleets", "builds"):
        assert getattr(a, part) == getattr(b, part), part
    moved = {f.owner for f in a.fleets}
    assert moved == {1, 2}
