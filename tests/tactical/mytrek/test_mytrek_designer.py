"""My Trek V's ship designer page for players (issue 29 item 5; 002 Assembling a Fleet, rulings
MT2 and MT19): a design is priced by the points table and refused by the engine's design checks
(``fleets.design_from``) with every refusal at its field; saved designs are offered in the
player's own pickup battles only and fought whole. Hostile input (NUL bytes, huge numbers, deep
JSON) is a clear 4xx and writes nothing."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import book
from tactical.models import PickupBattle, PlayerDesign
from tactical.rules.mytrek import fleets as F
from tactical.rules.mytrek.state import Design

pytestmark = pytest.mark.django_db
MT = "mytrek"
# The book's worked example (002 Assembling a Fleet): 100+100+100+50+25+25 = 400 points.
EXAMPLE = {
    "name": "Enterprise",
    "size": "A",
    "max_hyper": 10,
    "fields": 5,
    "dice": 5,
    "aft": True,
    "invisibility": False,
    "torpedoes": True,
    "missiles": False,
}


def api(user) -> APIClient:
    c = APIClient()
    c.force_login(user)
    return c


def form_data(**over) -> dict:
    data = {
        "name": "Enterprise",
        "size": "A",
        "max_hyper": 10,
        "fields": 5,
        "dice": 5,
        "aft": "on",
        "torpedoes": "on",
    }
    data.update(over)
    return {k: v for k, v in data.items() if v is not None}


def test_the_page_saves_the_books_example_at_400_points_and_the_pickup_offers_it(client, bob):
    client.force_login(bob)
    page = client.get(reverse("pickup-designs", args=[MT]))
    html = page.content.decode()
    assert page.status_code == 200 and 'id="design-form"' in html and 'id="no-designs"' in html
    assert "Hyper 9-10" in html and "9d6" in html  # the points table, row by row
    done = client.post(reverse("pickup-designs", args=[MT]), form_data())
    assert done.status_code == 302
    row = PlayerDesign.objects.get(owner=bob, ruleset=MT)
    assert row.points == 400 and row.data == EXAMPLE
    offered = [o for o in book(MT).offers(bob) if o.own]
    assert [(o.key, o.name, o.points) for o in offered] == [(f"design-{row.pk}", "Enterprise", 400)]
    assert not [o for o in book(MT).offers(None) if o.own]
    listing = client.get(reverse("pickup-designs", args=[MT])).content.decode()
    assert f'id="design-{row.pk}"' in listing and "Enterprise" in listing


@pytest.mark.parametrize(
    "over, price",
    [
        ({"size": "F", "max_hyper": 0, "fields": 0, "dice": 1, "aft": None, "torpedoes": None}, 0),
        (
            {
                "size": "E",
                "max_hyper": 2,
                "fields": 1,
                "dice": 2,
                "aft": None,
                "torpedoes": None,
                "missiles": "on",
            },
            5 + 5 + 5 + 5 + 10,
        ),
        (
            {
                "size": "B",
                "max_hyper": 7,
                "fields": 4,
                "dice": 9,
                "aft": None,
                "torpedoes": None,
                "invisibility": "on",
            },
            50 + 50 + 50 + 100 + 25,
        ),
        (
            {"size": "C", "max_hyper": 3, "fields": 2, "dice": 3, "aft": None, "torpedoes": None},
            25 + 10 + 10 + 10,
        ),
        (
            {"size": "D", "max_hyper": 6, "fields": 3, "dice": 4, "aft": None, "torpedoes": None},
            10 + 25 + 25 + 25,
        ),
    ],
)
def test_every_row_of_the_points_table_prices_the_design(client, bob, over, price):
    client.force_login(bob)
    assert client.post(reverse("pickup-designs", args=[MT]), form_data(**over)).status_code == 302
    assert PlayerDesign.objects.get(owner=bob).points == price


@pytest.mark.parametrize(
    "over, field, words",
    [
        ({"max_hyper": 11}, "max_hyper", "the top speed is sub-light (0) or Hyper 1-10"),
        ({"max_hyper": -1}, "max_hyper", "the top speed is sub-light (0) or Hyper 1-10"),
        ({"fields": 6}, "fields", "force fields are type 0 (none) to 5 (V)"),
        ({"dice": 6}, "dice", "weapons roll one of 1d6, 2d6, 3d6, 4d6, 5d6, 9d6"),
        ({"size": "G"}, "size", "Select a valid choice"),
        ({"dice": "lots"}, "dice", "Enter a whole number"),
        ({"name": ""}, "name", "This field is required"),
        ({"name": "Ent\u0007erprise"}, "name", "a name is 1 to 40 printable characters"),
    ],
)
def test_each_refusal_is_shown_at_its_field_and_nothing_is_saved(client, bob, over, field, words):
    client.force_login(bob)
    page = client.post(reverse("pickup-designs", args=[MT]), form_data(**over))
    assert page.status_code == 400
    html = page.content.decode().replace("&#x27;", "'")
    where = f'id="error-{field}"'
    assert where in html and words in html.split(where, 1)[1][:300]
    assert not PlayerDesign.objects.exists()


def test_every_field_at_fault_is_named_at_once(client, bob):
    client.force_login(bob)
    html = client.post(
        reverse("pickup-designs", args=[MT]), form_data(max_hyper=12, fields=9, dice=7)
    ).content.decode()
    assert all(f'id="error-{f}"' in html for f in ("max_hyper", "fields", "dice"))
    assert "002 Assembling a Fleet" in html and not PlayerDesign.objects.exists()


def test_the_engine_names_each_field():
    with pytest.raises(Exception) as exc:
        F.design_from({**EXAMPLE, "size": "Z", "dice": True, "aft": "yes"})
    assert set(exc.value.problems) == {"size", "dice", "aft"}
    assert F.design_from(EXAMPLE) == Design("Enterprise", "A", 10, 5, 5, aft=True, torpedoes=True)


def test_the_api_prices_refuses_by_field_and_lists_only_his_own(bob, carol):
    url = reverse("api-pickup-designs", args=[MT])
    created = api(bob).post(url, EXAMPLE, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["points"] == 400 and created.json()["design"] == EXAMPLE
    bad = api(bob).post(url, {**EXAMPLE, "fields": 7}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "fields"
    assert "002 Assembling a Fleet" in bad.json()["detail"]
    assert api(bob).post(url, {**EXAMPLE, "shields": 5}, format="json").json()["field"] == "shields"
    assert api(bob).post(url, {**EXAMPLE, "max_hyper": 5.5}, format="json").json()["field"] == "max_hyper"
    assert api(carol).get(url).json()["results"] == []
    pk = created.json()["id"]
    assert api(carol).delete(reverse("api-pickup-design", args=[MT, pk])).status_code == 404
    assert PlayerDesign.objects.count() == 1


def test_hostile_input_is_a_clear_4xx_and_writes_nothing(client, bob):
    c, url = api(bob), reverse("api-pickup-designs", args=[MT])
    assert c.post(url, {**EXAMPLE, "name": "Ent\u0000erprise"}, format="json").status_code == 400
    assert (
        c.post(url, json.dumps({**EXAMPLE, "dice": 10**400}), content_type="application/json").status_code
        == 400
    )
    big = c.post(url, {**EXAMPLE, "max_hyper": 2**31 - 1}, format="json")  # refused by the engine
    assert big.status_code == 400 and big.json()["field"] == "max_hyper"
    deep = c.post(url, '{"name": ' + "[" * 50_000 + "]" * 50_000 + "}", content_type="application/json")
    assert deep.status_code == 400
    assert c.post(url, [EXAMPLE], format="json").status_code == 400  # a list, not a design
    assert c.post(url, {**EXAMPLE, "name": ["x"] * 3}, format="json").json()["field"] == "name"
    client.force_login(bob)
    assert (
        client.post(
            reverse("pickup-designs", args=[MT]), form_data(name="Ent\x00erprise", dice="9" * 5000)
        ).status_code
        == 400
    )
    assert client.post(reverse("pickup-designs", args=[MT]), form_data(max_hyper="9" * 30)).status_code == 400
    assert not PlayerDesign.objects.exists()


def test_his_design_is_bought_in_a_pickup_and_fought_whole(client, bob, carol):
    created = api(bob).post(reverse("api-pickup-designs", args=[MT]), EXAMPLE, format="json").json()
    key = f"design-{created['id']}"
    client.force_login(bob)
    pickup = actions.create_pickup(user=bob, ruleset=MT, points=400, opponent="computer")
    detail = client.get(reverse("pickup-detail", args=[pickup.pk])).content.decode()
    assert 'id="designer-link"' in detail and "Enterprise" in detail
    with pytest.raises(
        actions.PickupError, match="the fleet costs 430 points, over the battle's 400 points by 30"
    ):
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[key, "scout"])
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[key])
    pickup.refresh_from_db()
    assert pickup.status in (PickupBattle.Status.PLAYING, PickupBattle.Status.OVER)
    assert pickup.battle.setup["sides"]["1"]["ships"] == [EXAMPLE]
    PlayerDesign.objects.all().delete()  # the fleet keeps the design as bought
    assert client.get(reverse("battle-play", args=[pickup.battle_id])).status_code == 200
    # Carol cannot buy Bob's design.
    theirs = actions.create_pickup(user=carol, ruleset=MT, points=400, opponent="computer")
    with pytest.raises(actions.PickupError, match="no ship"):
        actions.submit_fleet(pickup_id=theirs.pk, user=carol, ships=[key])


def test_a_stored_design_past_the_checks_is_named_not_offered(bob):
    row = PlayerDesign.objects.create(
        owner=bob, ruleset=MT, name="Monster", points=1, data={**EXAMPLE, "name": "Monster", "dice": 12}
    )
    assert f"design-{row.pk}" not in {o.key for o in book(MT).offers(bob)}
    assert "dice" in book(MT).refusals(bob)[f"design-{row.pk}"]
