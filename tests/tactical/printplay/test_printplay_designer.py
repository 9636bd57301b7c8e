"""The dashboard designer page for players (issue 30; 001 Dashboards, rulings PP2 and PP3): in a
Print&Play pickup battle a player designs his own dashboards, priced and refused by the engine's
designer (``dashboards.design``) with each refusal shown at the field it names; his designs are
offered in his pickup battles (nobody else's) and fought whole. Hostile input (NUL bytes, huge
numbers, deep JSON) is a clear 4xx and writes nothing."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import book
from tactical.models import PickupBattle, PlayerDesign
from tactical.rules.printplay import dashboards as dash
from tactical.rules.printplay.state import dashboard_of

pytestmark = pytest.mark.django_db
PP = "printplay"
AKIRA = {"name": "Akira", "faction": "Federation", "type": "heavy cruiser", "shields": [18, 18, 14, 14],
         "shield_max": 26, "hull": 28, "impulse": 6,
         "weapons": [{"name": "Phaser", "mount": "F", "qty": 4, "hit": 3, "dmg": 2, "range": 12, "arc": 270},
                     {"name": "Photon Torpedo", "mount": "A", "qty": 1, "hit": 4, "dmg": 5, "range": 8, "arc": 90,
                      "kind": "torpedo", "minus_shields": 2, "burst": 3}]}


def api(user) -> APIClient:
    c = APIClient()
    c.force_login(user)
    return c


def form_data(**over) -> dict:
    data = {"name": "Akira", "faction": "Federation", "type": "heavy cruiser", "shields_fore": 18, "shields_aft": 18,
            "shields_port": 14, "shields_starboard": 14, "shield_max": 26, "hull": 28, "impulse": 6, "sensors": 0,
            "wps": 0, "ecm": 0, "ablative": 0, "emergency": 0,
            "w0_name": "Phaser", "w0_mount": "F", "w0_kind": "beam", "w0_qty": 4, "w0_hit": 3, "w0_dmg": 2,
            "w0_range": 12, "w0_arc": 270, "w0_minus_shields": 0, "w0_burst": 1}
    data.update(over)
    return data


def test_the_page_saves_a_design_at_the_engines_price_and_the_pickup_offers_it(client, bob):
    client.force_login(bob)
    page = client.get(reverse("pickup-designs", args=[PP]))
    assert page.status_code == 200 and b'id="design-form"' in page.content and b'id="no-designs"' in page.content
    done = client.post(reverse("pickup-designs", args=[PP]), form_data(abilities=["fast turn"]))
    assert done.status_code == 302
    row = PlayerDesign.objects.get(owner=bob)
    expected = dash.design("own", "Akira", "Federation", "heavy cruiser", [18, 18, 14, 14], 26, 28, 6,
                           [dash.Weapon("Phaser", "F", 4, 3, 2, 12, 270)], abilities=("fast turn",))
    assert row.points == expected.points == dash.points_for(expected)  # ruling PP3, fast turn priced in
    offered = [o for o in book(PP).offers(bob) if o.own]
    assert [(o.key, o.points) for o in offered] == [(f"design-{row.pk}", expected.points)]
    assert dashboard_of(offered[0].data).has("fast turn")
    assert f"design-{row.pk}".encode() not in str([o.key for o in book(PP).offers(None)]).encode()
    listing = client.get(reverse("pickup-designs", args=[PP])).content.decode()
    assert f'id="design-{row.pk}"' in listing and "Akira" in listing


@pytest.mark.parametrize("over, field, words", [
    ({"hull": 500}, "hull", "Hull must be a whole number from 1 to 120, not 500"),
    ({"shields_port": -1}, "shields_port", "the port shields must be a whole number from 0 to 60"),
    ({"shield_max": 10}, "shield_max", "the shields' boosted maximum (in brackets) must be a whole number from 18"),
    ({"impulse": 9}, "impulse", "Impulse must be a whole number from 1 to 8"),
    ({"wps": 4}, "wps", "WPS must be a whole number from -3 to 3"),
    ({"ablative": 5}, "abilities", "an Ablative value needs the ablative armour ability"),
    ({"w0_hit": 7}, "w0_hit", "Phaser: Hit must be a whole number from 2 to 6, not 7"),
    ({"w0_mount": "P/S", "w0_qty": 3}, "w0_qty", "splits its quantity between two mounts"),
    ({"w0_arc": 45}, "w0_arc", "Select a valid choice"),
    ({"w0_name": ""}, None, "a dashboard has 1 to 8 weapon lines"),
    ({"hull": "lots"}, "hull", "Enter a whole number"),
])
def test_each_refusal_is_shown_at_its_field_and_nothing_is_saved(client, bob, over, field, words):
    client.force_login(bob)
    page = client.post(reverse("pickup-designs", args=[PP]), form_data(**over))
    assert page.status_code == 400
    html = page.content.decode().replace("&#x27;", "'")
    where = f'id="error-{field}"' if field else 'id="design-error"'
    assert where in html and words in html.split(where, 1)[1][:400]
    assert not PlayerDesign.objects.exists()


def test_a_second_weapon_row_refusal_lands_on_that_row(client, bob):
    client.force_login(bob)
    page = client.post(reverse("pickup-designs", args=[PP]), form_data(
        w2_name="Torpedo", w2_mount="F", w2_kind="torpedo", w2_qty=1, w2_hit=4, w2_dmg=5, w2_range=30, w2_arc=90,
        w2_minus_shields=0, w2_burst=1))
    html = page.content.decode()
    assert page.status_code == 400 and 'id="error-w2_range"' in html and "Range (inches) must be" in html
    assert not PlayerDesign.objects.exists()


def test_the_api_prices_refuses_by_field_and_lists_only_his_own(bob, carol):
    created = api(bob).post(reverse("api-pickup-designs", args=[PP]), AKIRA, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["points"] == dash.points_for(dash.from_json({**created.json()["design"], "key": "x"}))
    bad = api(bob).post(reverse("api-pickup-designs", args=[PP]),
                        {**AKIRA, "weapons": [{**AKIRA["weapons"][0], "dmg": 0}]}, format="json")
    assert (
        bad.status_code == 400
        and bad.json()["field"] == "weapons.0.dmg"
        and "001 Dashboards" in bad.json()["detail"]
    )
    assert api(bob).post(reverse("api-pickup-designs", args=[PP]), {**AKIRA, "crew": 5},
                         format="json").json()["field"] == "crew"
    assert api(carol).get(reverse("api-pickup-designs", args=[PP])).json()["results"] == []
    pk = created.json()["id"]
    assert api(carol).delete(reverse("api-pickup-design", args=[PP, pk])).status_code == 404
    assert PlayerDesign.objects.filter(pk=pk).exists()
    assert api(bob).get(reverse("api-pickup-designs", args=["buoyz"])).status_code == 404  # no designer there
    assert api(bob).delete(reverse("api-pickup-design", args=[PP, pk])).status_code == 204
    assert not PlayerDesign.objects.exists()


def test_hostile_input_is_a_clear_4xx_and_writes_nothing(client, bob):
    c, url = api(bob), reverse("api-pickup-designs", args=[PP])
    nul = c.post(url, {**AKIRA, "name": "Ak\u0000ira"}, format="json")
    assert nul.status_code == 400 and "NUL" in nul.json()["detail"]
    huge = c.post(url, json.dumps({**AKIRA, "hull": 10 ** 400}), content_type="application/json")
    assert huge.status_code == 400
    big = c.post(url, {**AKIRA, "hull": 2 ** 31 - 1}, format="json")  # stored fine, refused by the designer
    assert big.status_code == 400 and big.json()["field"] == "hull" and "not 2147483647" in big.json()["detail"]
    deep = c.post(url, '{"name": ' + "[" * 50_000 + "]" * 50_000 + "}", content_type="application/json")
    assert deep.status_code == 400
    assert c.post(url, [AKIRA], format="json").status_code == 400  # a list, not a design
    client.force_login(bob)
    page = client.post(reverse("pickup-designs", args=[PP]), form_data(name="Ak\x00ira", hull="9" * 5000))
    assert page.status_code == 400
    assert not PlayerDesign.objects.exists()


def test_his_design_is_bought_in_a_pickup_and_fought_whole(client, bob):
    client.force_login(bob)
    row = PlayerDesign.objects.get(pk=api(bob).post(reverse("api-pickup-designs", args=[PP]), AKIRA,
                                                    format="json").json()["id"])
    pickup = actions.create_pickup(user=bob, ruleset=PP, points=200, opponent="computer")
    detail = client.get(reverse("pickup-detail", args=[pickup.pk])).content.decode()
    assert 'id="designer-link"' in detail and "(your design)" in detail and "Akira (Federation)" in detail
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[f"design-{row.pk}", "saber"])
    pickup.refresh_from_db()
    assert pickup.status in (PickupBattle.Status.PLAYING, PickupBattle.Status.OVER)
    ship = pickup.battle.setup["sides"]["1"]["ships"][0]
    assert ship["name"].startswith("Akira") and dashboard_of(ship).weapons[1].burst == 3
    row.delete()  # the fleet keeps the design as bought
    assert client.get(reverse("battle-play", args=[pickup.battle_id])).status_code == 200


def test_anothers_design_is_not_for_sale(bob, carol):
    theirs = api(carol).post(reverse("api-pickup-designs", args=[PP]), AKIRA, format="json").json()["id"]
    pickup = actions.create_pickup(user=bob, ruleset=PP, points=200, opponent="computer")
    with pytest.raises(actions.PickupError) as exc:
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[f"design-{theirs}"])
    assert exc.value.message == f"no ship 'design-{theirs}' to buy here"
