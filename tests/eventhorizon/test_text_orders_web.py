"""Orders as text on the web (the paste page, the order secret page) and the API
(campaign/eventhorizon/views/textorders.py, campaign/eventhorizon/api/textorders.py): the same checker as mail."""

import json

import pytest
from django.urls import reverse
from django.utils import timezone

from campaign.eventhorizon import actions as eh_actions
from campaign.models import AuditEntry, Empire, TurnOrders

pytestmark = pytest.mark.django_db


def bob_seat(campaign, bob):
    return Empire.objects.get(campaign=campaign, user=bob)


def stored(empire):
    return TurnOrders.objects.filter(empire=empire, turn__number=empire.campaign.turn).first()


def test_the_paste_page_offers_the_template_and_stores_it(client, small_campaign, bob):
    client.force_login(bob)
    url = reverse("campaign-orders-text", args=[small_campaign.pk])
    page = client.get(url)
    assert page.status_code == 200
    text = page.context["form"].initial["text"]
    seat = bob_seat(small_campaign, bob)
    assert text.startswith(f"#SECTOR {small_campaign.pk} {seat.seat} {eh_actions.turn_key(seat, 1)} TURN 1\n")
    assert "INVASION" not in text and "LOSSES cheapest" in text and text.endswith("#END\n")
    assert page["Cache-Control"].startswith("max-age=0")
    # Sent back as it is, it is a valid turn: nothing but the standing orders in force.
    response = client.post(url, {"text": text.replace("LOSSES cheapest", "LOSSES costliest")})
    assert response.status_code == 200 and response.context["result"].accepted
    assert stored(seat).orders["standing"]["loss_order"] == "costliest"
    assert b"Accepted" in response.content
    assert AuditEntry.objects.filter(action="text_orders", note__startswith="via=web").exists()


def test_the_paste_page_shows_refused_lines_and_changes_nothing(client, small_campaign, bob):
    client.force_login(bob)
    seat = bob_seat(small_campaign, bob)
    url = reverse("campaign-orders-text", args=[small_campaign.pk])
    text = (f"#SECTOR {small_campaign.pk} {seat.seat} {eh_actions.turn_key(seat, 1)} TURN 1\n"
            "MOVE 999 TO 1,1\nHOP\n#END\n")
    response = client.post(url, {"text": text})
    result = response.context["result"]
    assert not result.accepted and [ln.number for ln in result.lines if not ln.ok] == [2, 3]
    assert b"Refused" in response.content and b"003 Campaign Movement" in response.content
    assert stored(seat) is None


def test_the_paste_page_refuses_another_seats_header(client, small_campaign, bob, carol):
    client.force_login(bob)
    carols = Empire.objects.get(campaign=small_campaign, user=carol)
    text = (f"#SECTOR {small_campaign.pk} {carols.seat} {eh_actions.turn_key(carols, 1)} TURN 1\n"
            "LOSSES costliest\n#END\n")
    response = client.post(reverse("campaign-orders-text", args=[small_campaign.pk]), {"text": text})
    assert "this page is for" in str(response.context["form"].errors)
    assert stored(carols) is None


def test_outsiders_and_non_players_cannot_see_the_pages(client, small_campaign, alice, mallory):
    for name in ("campaign-orders-text", "campaign-order-secret"):
        client.force_login(mallory)
        assert client.get(reverse(name, args=[small_campaign.pk])).status_code == 404
        client.force_login(alice)  # the moderator plays no seat
        assert client.get(reverse(name, args=[small_campaign.pk])).status_code == 403


def test_the_secret_page_shows_a_new_secret_once(client, small_campaign, bob):
    client.force_login(bob)
    url = reverse("campaign-order-secret", args=[small_campaign.pk])
    assert b"no order secret yet" in client.get(url).content
    made = client.post(url)
    secret = made.context["secret"]
    assert secret and secret.encode() in made.content and made["Cache-Control"].startswith("max-age=0")
    again = client.get(url)
    assert secret.encode() not in again.content and b"cannot show it again" in again.content
    seat = bob_seat(small_campaign, bob)
    assert eh_actions.submit_text_orders(f"#SECTOR {small_campaign.pk} {seat.seat} {secret} TURN 1\n#END\n",
                                      received_at=timezone.now(), via="mail").accepted


def test_the_orders_page_links_to_the_text_pages(client, small_campaign, bob):
    client.force_login(bob)
    body = client.get(reverse("campaign-orders", args=[small_campaign.pk])).content.decode()
    assert reverse("campaign-orders-text", args=[small_campaign.pk]) in body
    assert reverse("campaign-order-secret", args=[small_campaign.pk]) in body


# --- the API --------------------------------------------------------------------------------------

def test_api_template_and_plain_text_orders(client, small_campaign, bob):
    client.force_login(bob)
    url = reverse("api-orders-text", args=[small_campaign.pk])
    template = client.get(url).json()
    assert template["turn"] == 1 and template["template"].startswith(f"#SECTOR {small_campaign.pk} ")
    text = template["template"].replace("INITIATIVE first", "INITIATIVE last")
    response = client.post(url, text, content_type="text/plain")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["accepted"] and body["revision"] == 1 and body["reason"] == ""
    assert all(line["ok"] for line in body["lines"]) and "INITIATIVE last" in body["stored"]
    assert stored(bob_seat(small_campaign, bob)).orders["standing"]["initiative"] == "last"
    assert AuditEntry.objects.filter(action="text_orders", note__startswith="via=api").exists()


def test_api_json_body_refused_lines_are_a_400(client, small_campaign, bob):
    client.force_login(bob)
    seat = bob_seat(small_campaign, bob)
    text = f"#SECTOR {small_campaign.pk} {seat.seat} {eh_actions.turn_key(seat, 1)} TURN 1\nMOVE 999 TO 1,1\n#END\n"
    response = client.post(reverse("api-orders-text", args=[small_campaign.pk]), json.dumps({"text": text}),
                           content_type="application/json")
    assert response.status_code == 400
    body = response.json()
    assert not body["accepted"] and body["reason"] == "lines"
    assert body["lines"][1] == {
        "number": 2,
        "text": "MOVE 999 TO 1,1",
        "ok": False,
        "message": "moves[0].fleet: fleet 999 is not one of yours",
        "rule": "003 Campaign Movement",
    }
    assert stored(seat) is None


def test_api_wrong_turn_is_a_409_and_a_bad_body_a_400(client, small_campaign, bob):
    client.force_login(bob)
    seat = bob_seat(small_campaign, bob)
    url = reverse("api-orders-text", args=[small_campaign.pk])
    old = f"#SECTOR {small_campaign.pk} {seat.seat} {eh_actions.turn_key(seat, 0)} TURN 0\n#END\n"
    response = client.post(url, old, content_type="text/plain")
    assert response.status_code == 409 and "turn 0: it has been processed already" in response.json()["error"]
    assert client.post(url, json.dumps({"orders": {}}), content_type="application/json").status_code == 400
    nul = client.post(url, "#SECTOR 1 1 x\x00 TURN 1\n#END\n", content_type="text/plain")
    assert nul.status_code == 400 and "NUL" in nul.json()["detail"]
    assert stored(seat) is None


def test_api_outsider_gets_404(client, small_campaign, mallory):
    client.force_login(mallory)
    for name in ("api-orders-text", "api-order-secret"):
        assert client.get(reverse(name, args=[small_campaign.pk])).status_code == 404
        assert client.post(reverse(name, args=[small_campaign.pk]), "x", content_type="text/plain").status_code == 404


def test_api_order_secret(client, small_campaign, bob):
    client.force_login(bob)
    url = reverse("api-order-secret", args=[small_campaign.pk])
    assert client.get(url).json() == {"made_at": None}
    made = client.post(url).json()
    assert made["header"] == f"#SECTOR {small_campaign.pk} 1 {made['secret']} TURN 1"
    assert client.get(url).json()["made_at"] is not None and "secret" not in client.get(url).json()
    again = client.post(url).json()
    assert again["secret"] != made["secret"]


def test_the_schema_documents_the_text_bodies(client):
    schema = client.get(reverse("api-schema"), {"format": "json"}).json()
    post = schema["paths"]["/api/campaigns/{campaign_id}/orders/text/"]["post"]
    content = post["requestBody"]["content"]
    assert content["text/plain"]["schema"]["type"] == "string"
    example = next(iter(content["text/plain"]["examples"].values()))["value"]
    assert example.startswith("#SECTOR ") and example.rstrip().endswith("#END")
    assert "text" in schema["components"]["schemas"]["TextOrdersRequest"]["properties"]
    assert set(post["responses"]) >= {"200", "400", "409"}
    assert "lines" in schema["components"]["schemas"]["TextOrdersResult"]["properties"]
