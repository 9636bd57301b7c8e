"""Issue 23 item 1: orders are checked, previewed and warned about from what the seat may see
(docs/rulings.md W1 and FW2; 003 "Purpose of the Campaign", "Campaign Movement").

Bob (seat 1) has one lone ship and moves it next to a fleet of carol's that he cannot see (outside
his detection range). Every answer about his orders — the order page, the API preview, the paste
page and the mail reply through ``ingestmail`` — must be the same with that fleet planted as
without it: a warning "within reach of an enemy fleet at …" would let him probe the map.
"""

from __future__ import annotations

import json
import re

import pytest
from django.core import mail
from django.urls import reverse

from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import visibility
from campaign.eventhorizon.models import Design, Fleet, Ship
from campaign.models import TurnOrders
from campaign.rules.eventhorizon.mapgen import Terrain
from campaign.rules.eventhorizon.orders import fleet_speed

from .conftest import eml

pytestmark = pytest.mark.django_db

BOB_FLEET, BOB_SHIP = 5150, 8601
HIDDEN_FLEET, HIDDEN_SHIP = 9173, 8801


@pytest.fixture
def probe(small_campaign_without_fleets, bob, carol):
    """Bob's lone ship at home, a move for it, and a hidden cell within reach of its end."""
    campaign = small_campaign_without_fleets
    bob_empire, carol_empire = campaign.empires.get(seat=1), campaign.empires.get(seat=2)
    library = Design.objects.filter(campaign__isnull=True).order_by("bp").first()
    home_world = campaign.worlds.get(home_of__seat=1)
    home = (home_world.x, home_world.y)
    mine = Fleet.objects.create(campaign=campaign, owner=bob_empire, number=BOB_FLEET, x=home[0], y=home[1])
    Ship.objects.create(
        campaign=campaign, owner=bob_empire, number=BOB_SHIP, name="Bob Scout", design=library, fleet=mine
    )
    campaign.id_counters = {"ship": 9000, "fleet": 9500, "structure": 500}
    campaign.save(update_fields=["id_counters"])
    campaign.refresh_from_db()
    state = visibility.state_at(campaign)
    grid, radius = state.grid, campaign.detection_range
    speed = fleet_speed(state, (BOB_SHIP,))
    worlds = {w.coord for w in state.worlds}
    sources = [home, *(w.coord for w in state.worlds_of(1))]
    empty = [c for c in grid.cells() if state.terrain_at(c) is Terrain.EMPTY and c not in worlds]
    end = next(c for c in grid.neighbours(home) if c in empty)
    hidden = next(c for c in empty if grid.distance(c, end) <= speed
                  and min(grid.distance(c, s) for s in sources) > radius)
    secret = eh_actions.rotate_order_secret(empire_id=bob_empire.pk, user=bob)
    return {"campaign": campaign, "bob": bob_empire, "carol": carol_empire, "design": library,
            "end": end, "hidden": hidden, "secret": secret}


def _plant(f) -> None:
    x, y = f["hidden"]
    fleet = Fleet.objects.create(campaign=f["campaign"], owner=f["carol"], number=HIDDEN_FLEET, x=x, y=y)
    Ship.objects.create(campaign=f["campaign"], owner=f["carol"], number=HIDDEN_SHIP, name="Quiet One",
                        design=f["design"], fleet=fleet)
    f["campaign"].refresh_from_db()


def _steady(html: str) -> str:
    """An answer without what changes on every request (the CSRF token, the CSP nonce, the clock)."""
    return re.sub(r'(csrfmiddlewaretoken" value|nonce)="[^"]*"|\d\d:\d\d:\d\d', "", html)


def _answers(f, client, bob, ingest) -> dict:
    """Every answer bob gets about the same orders, each from a clean slate."""
    campaign, end = f["campaign"], f["end"]
    raw = {"moves": [{"fleet": BOB_FLEET, "path": [list(end)]}]}
    text_move = f"MOVE {BOB_FLEET} TO {end[0]},{end[1]}"
    client.force_login(bob)
    out = {}
    api = client.post(
        reverse("api-orders-preview", args=[campaign.pk]), {"orders": raw}, content_type="application/json"
    )
    out["api"] = api.json()
    page = client.post(reverse("campaign-orders", args=[campaign.pk]),
                       {"orders": json.dumps(raw), "turn": campaign.turn}, follow=True)
    out["page"] = [str(m) for m in page.context["messages"]]
    out["page_html"] = _steady(page.content.decode())
    out["page_data"] = page.context["data"]
    TurnOrders.objects.filter(empire=f["bob"]).delete()
    paste = client.post(
        reverse("campaign-orders-text", args=[campaign.pk]),
        {
            "text": f"#SECTOR {campaign.pk} 1 {eh_actions.turn_key(f['bob'], campaign.turn)} TURN "
                    f"{campaign.turn}\n{text_move}\n#END\n"
        },
    )
    result = paste.context["result"]
    out["paste"] = (result.accepted, result.warnings, result.bp_left, [str(ln) for ln in result.lines])
    out["paste_html"] = _steady(paste.content.decode())
    TurnOrders.objects.filter(empire=f["bob"]).delete()
    mail.outbox.clear()
    ingest(eml("orders.eml", sender="bob@example.com", mid="probe@example.com", campaign=campaign.pk, seat=1,
               secret=f["secret"], turn=campaign.turn, lines=text_move))
    [reply] = mail.outbox
    out["mail"] = (reply.subject, _steady(reply.body))
    TurnOrders.objects.filter(empire=f["bob"]).delete()
    from campaign.mail.models import InboundMessage

    InboundMessage.objects.all().delete()
    return out


def test_no_answer_about_orders_tells_of_a_hidden_fleet(probe, client, bob, ingest):
    _plant(probe)
    seen = _answers(probe, client, bob, ingest)
    hidden = probe["hidden"]
    for where, answer in seen.items():
        assert f"({hidden[0]}, {hidden[1]})" not in str(answer), f"the {where} answer names the hidden fleet's hex"
    Fleet.objects.filter(number=HIDDEN_FLEET).delete()
    probe["campaign"].refresh_from_db()
    unseen = _answers(probe, client, bob, ingest)
    for where in seen:
        assert seen[where] == unseen[where], f"the {where} answer differs with a hidden fleet planted"
