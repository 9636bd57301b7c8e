"""Star Sectors' card designer page and API (issue 28 items 1 and 7; 004 II, III, IV.D, VI.B;
rulings SS2, SS4, SS30, SS31): a card is priced by III and refused by the engine's checks
(``cards.design_from``) with every refusal at its field, naming its section; saved cards are
offered in the player's own pickup battles and what-if runs only (another user neither sees them
nor learns of them) and fought whole. Hostile input is a clear 4xx and writes nothing."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import book
from tactical.models import PickupBattle, PlayerDesign
from tactical.play import actions as play
from tactical.rules.starsectors import cards as C
from tactical.whatif import books as whatif_books
from tactical.whatif import pool, runs

SS = "starsectors"
# CF 3 + one bank + the extra engineering phase of three nacelles (V.A) = 5 points (III).
LANCER = {"name": "Lancer", "power": "Vulcan", "cf": 3, "df": 6, "mf": 4, "ss": 5, "cargo": 1, "nacelles": 3,
          "cloaks": 0, "banks": ["PC"], "arc": "all", "hull": 1}


def api(user) -> APIClient:
    c = APIClient()
    c.force_login(user)
    return c


def form_data(**over) -> dict:
    data = {k: v for k, v in LANCER.items() if k != "banks"}
    data["banks"] = LANCER["banks"]
    data.update(over)
    return {k: v for k, v in data.items() if v is not None}


# --- the engine: priced by III, refused by the section that forbids it ---------------------------

@pytest.mark.parametrize("fields, price", [
    pytest.param({"cf": 6, "cloaks": 1, "banks": ["PTL", "DC"], "nacelles": 3}, 10, id="III-the-books-example-SS2"),
    pytest.param({"cf": 4, "cloaks": 0, "banks": [], "nacelles": 2}, 4, id="III-the-combat-factor"),
    pytest.param({"cf": 4, "cloaks": 2, "banks": [], "nacelles": 0}, 6, id="III-plus-one-per-cloak"),
    pytest.param({"cf": 4, "banks": ["TWC", "TWC", "EDT"], "nacelles": 0}, 7, id="III-plus-one-per-bank"),
    pytest.param({"cf": 4, "banks": [], "nacelles": 6}, 5, id="III-V.A-three-nacelles-one-extra-phase"),
    pytest.param({"cf": 0, "banks": [], "arc": "none", "nacelles": 1}, 1, id="III-SS2-a-tender-is-not-free"),
])
def test_the_designer_prices_a_card_by_iii(fields, price):
    card = C.design_from({**LANCER, **fields})
    assert card.points == price and not card.house
    assert card.extra_phases == (1 if card.nacelles >= 3 else 0)


REFUSALS = [
    ({"cf": 13}, "cf", "004 II", "CF (a number on a 12d) must be a whole number from 0 to 12"),
    ({"df": -1}, "df", "004 II", "DF (a number on a 12d) must be a whole number from 0 to 12"),
    ({"ss": 0}, "ss", "004 II, ruling SS30", "SS must be a whole number from 1 to 40"),
    ({"mf": 13}, "mf", "004 II, ruling SS30", "MF must be a whole number from 0 to 12"),
    ({"cargo": 21}, "cargo", "004 II, ruling SS30", "Cargo must be a whole number from 0 to 20"),
    ({"nacelles": 7}, "nacelles", "004 IV.B, ruling SS4", "the number of nacelles must be"),
    ({"cloaks": 4}, "cloaks", "004 VI.A, ruling SS4", "the number of cloaking devices must be"),
    ({"hull": 4}, "hull", "004 II, ruling SS4", "the hull length in hexes must be a whole number from 1 to 3"),
    ({"banks": ["PTL", "XYZ"]}, "banks", "004 VI.B", "no advanced weapon 'XYZ'"),
    ({"banks": ["PC"] * 7}, "banks", "004 VI.B, ruling SS4", "at most 6 advanced weapon banks"),
    ({"cf": 0, "arc": "none"}, "banks", "004 IV.D", "no combat factor cannot target anything"),
    ({"cf": 0, "banks": []}, "arc", "004 IV.D", "no combat factor has the empty diagram, and only it"),
    ({"arc": "none"}, "arc", "004 IV.D", "no combat factor has the empty diagram, and only it"),
    ({"name": "   "}, "name", "004 II, ruling SS30", "a card needs a name of 1 to 40 printable characters"),
]


@pytest.mark.parametrize("over, field, rule, words", REFUSALS, ids=[f"{r[1]}-{r[2]}" for r in REFUSALS])
def test_the_engine_refuses_at_the_field_naming_the_section(over, field, rule, words):
    with pytest.raises(C.CardError) as exc:
        C.design_from({**LANCER, **over})
    assert exc.value.field == field and exc.value.problems[field][0] == rule
    assert words in exc.value.problems[field][1]


def test_every_field_at_fault_is_named_at_once():
    with pytest.raises(C.CardError) as exc:
        C.design_from({**LANCER, "cf": 20, "ss": "x", "hull": 9, "banks": ["BFG"], "shields": 3})
    assert exc.value.problems == {"": ("004 II", exc.value.message)}  # an unknown field: the whole card
    with pytest.raises(C.CardError) as exc:
        C.design_from({**LANCER, "cf": 20, "ss": "x", "hull": 9, "banks": ["BFG"]})
    assert list(exc.value.problems) == ["cf", "ss", "banks", "hull"]


# --- the page and the API ---------------------------------------------------------------------

@pytest.mark.django_db
def test_the_page_saves_a_card_at_its_price_and_his_pickups_offer_it(client, bob):
    client.force_login(bob)
    page = client.get(reverse("pickup-designs", args=[SS]))
    html = page.content.decode()
    assert page.status_code == 200 and 'id="design-form"' in html and 'id="no-designs"' in html
    assert "Federation heavy cruiser" in html and 'id="house-roster"' in html
    assert client.post(reverse("pickup-designs", args=[SS]), form_data()).status_code == 302
    row = PlayerDesign.objects.get(owner=bob, ruleset=SS)
    assert row.points == 5 and row.data == LANCER
    own = [o for o in book(SS).offers(bob) if o.own]
    assert [(o.key, o.name, o.points) for o in own] == [(f"design-{row.pk}", "Lancer", 5)]
    assert "your card" in own[0].detail and own[0].data["house"] is False
    listing = client.get(reverse("pickup-designs", args=[SS])).content.decode()
    assert f'id="design-{row.pk}"' in listing and "Vulcan: CF 3 DF 6 MF 4 SS 5" in listing


# The page offers the book's weapons only (a box each: an unknown one is the API's test below) and
# seven boxes for seven banks.
PAGE_REFUSALS = [
    *[r for r in REFUSALS if r[1] != "name" and r[0].get("banks") not in (["PTL", "XYZ"], ["PC"] * 7)],
    ({"banks": list(C.WEAPONS)[:7]}, "banks", "004 VI.B, ruling SS4", "at most 6 advanced weapon banks"),
    ({"cf": "lots"}, "cf", "", "Enter a whole number"),
    ({"arc": "left"}, "arc", "", "Select a valid choice"),
    ({"name": ""}, "name", "", "This field is required"),
    ({"name": "Lan\u0007cer"}, "name", "004 II, ruling SS30", "printable characters"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("over, field, rule, words", PAGE_REFUSALS,
                         ids=[f"{r[1]}-{r[2] or 'form'}-{i}" for i, r in enumerate(PAGE_REFUSALS)])
def test_each_refusal_is_shown_at_its_field_and_nothing_is_saved(client, bob, over, field, rule, words):
    client.force_login(bob)
    page = client.post(reverse("pickup-designs", args=[SS]), form_data(**over))
    assert page.status_code == 400
    html = page.content.decode().replace("&#x27;", "'")
    where = f'id="error-{field}"'
    assert where in html and words in html.split(where, 1)[1][:400]
    if rule:  # the engine's refusals name their section; the form's own (not a number …) do not
        assert f"({rule})" in html.split(where, 1)[1][:400]
    assert not PlayerDesign.objects.exists()


@pytest.mark.django_db
def test_the_api_prices_refuses_by_field_and_lists_only_his_own(bob, carol):
    url = reverse("api-pickup-designs", args=[SS])
    created = api(bob).post(url, LANCER, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["points"] == 5 and created.json()["design"] == LANCER
    bad = api(bob).post(url, {**LANCER, "banks": ["PTL", "XYZ"]}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "banks" and "(004 VI.B)" in bad.json()["detail"]
    two = api(bob).post(url, {**LANCER, "cf": 0, "hull": 5}, format="json").json()
    assert two["field"] == "banks" and "hull: " in two["detail"] and "(004 IV.D)" in two["detail"]
    assert api(bob).post(url, {**LANCER, "shields": 5}, format="json").json()["field"] == ""
    assert api(bob).post(url, {**LANCER, "mf": 2.5}, format="json").json()["field"] == "mf"
    assert api(bob).post(url, {**LANCER, "banks": "PTL"}, format="json").json()["field"] == "banks"
    assert api(bob).post(url, {**LANCER, "banks": [["PTL"]]}, format="json").json()["field"] == "banks"
    assert PlayerDesign.objects.count() == 1


@pytest.mark.django_db
def test_hostile_input_is_a_clear_4xx_and_writes_nothing(client, bob):
    c, url = api(bob), reverse("api-pickup-designs", args=[SS])
    assert c.post(url, {**LANCER, "name": "Lan\u0000cer"}, format="json").status_code == 400
    assert c.post(url, json.dumps({**LANCER, "cf": 10**400}), content_type="application/json").status_code == 400
    big = c.post(url, {**LANCER, "ss": 2**31 - 1}, format="json")  # refused by the engine
    assert big.status_code == 400 and big.json()["field"] == "ss"
    deep = c.post(url, '{"name": ' + "[" * 50_000 + "]" * 50_000 + "}", content_type="application/json")
    assert deep.status_code == 400
    assert c.post(url, [LANCER], format="json").status_code == 400  # a list, not a card
    assert c.post(url, {**LANCER, "name": ["x"] * 3}, format="json").json()["field"] == "name"
    client.force_login(bob)
    assert client.post(reverse("pickup-designs", args=[SS]), form_data(name="L\x00", cf="9" * 5000)).status_code == 400
    assert client.post(reverse("pickup-designs", args=[SS]), form_data(mf="9" * 30)).status_code == 400
    assert not PlayerDesign.objects.exists()


# --- his cards are his: another user neither sees them nor learns of them ---------------------------

@pytest.mark.django_db
def test_another_user_neither_sees_his_cards_nor_learns_of_them(client, bob, carol):
    created = api(bob).post(reverse("api-pickup-designs", args=[SS]), LANCER, format="json").json()
    PlayerDesign.objects.create(owner=bob, ruleset=SS, name="Broken", points=1, data={**LANCER, "cf": 99})
    key, fleets = f"design-{created['id']}", book(SS)
    assert {o.key for o in fleets.offers(carol)} == {o.key for o in fleets.offers(None)} == set(C.ROSTER)
    assert fleets.refusals(carol) == {} and "CF" in fleets.refusals(bob)[f"design-{created['id'] + 1}"]
    assert api(carol).get(reverse("api-pickup-designs", args=[SS])).json()["results"] == []
    assert api(carol).delete(reverse("api-pickup-design", args=[SS, created["id"]])).status_code == 404
    client.force_login(carol)
    page = client.get(reverse("pickup-designs", args=[SS])).content.decode()
    assert "Lancer" not in page and "Broken" not in page and 'id="no-designs"' in page
    theirs = actions.create_pickup(user=carol, ruleset=SS, points=25, opponent="computer")
    detail = client.get(reverse("pickup-detail", args=[theirs.pk])).content.decode()
    assert "Lancer" not in detail and "Broken" not in detail and 'id="not-offered"' not in detail
    # The same words as for a key that never existed: nothing tells her it is someone's card.
    for ships in ([key], ["design-999999"]):
        with pytest.raises(actions.PickupError) as exc:
            actions.submit_fleet(pickup_id=theirs.pk, user=carol, ships=ships)
        assert exc.value.message == f"no ship {ships[0]!r} to buy here"
    whatif = client.get(reverse("whatif-book-new", kwargs={"book": SS})).content.decode()
    assert "Federation heavy cruiser" in whatif and "Lancer" not in whatif and key not in whatif
    with pytest.raises(runs.WhatIfError, match=f"no ship '{key}' to buy here"):
        whatif_books.build_params(user=carol, book=SS, raw={"points": 10, "forces": {"1": [key], "2": ["rom-bird"]}})
    assert PlayerDesign.objects.filter(owner=carol).count() == 0


# --- fought whole: a pickup battle and a what-if run with his card ----------------------------------

@pytest.mark.django_db
def test_a_pickup_battle_with_his_own_card_is_fought_to_its_end(client, bob):
    created = api(bob).post(reverse("api-pickup-designs", args=[SS]), LANCER, format="json").json()
    key = f"design-{created['id']}"
    pickup = actions.create_pickup(user=bob, ruleset=SS, points=8, opponent="computer")
    client.force_login(bob)
    detail = client.get(reverse("pickup-detail", args=[pickup.pk])).content.decode()
    assert 'id="designer-link"' in detail and "Lancer" in detail
    with pytest.raises(actions.PickupError, match="the fleet costs 10 points, over the battle's 8 points by 2"):
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[key, key])
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[key, "car-hauler"])
    pickup.refresh_from_db()
    ships = pickup.battle.setup["sides"]["1"]["ships"]
    assert ships[0]["card"] == {**LANCER, "key": "own-lancer", "house": False} and ships[1] == {"card": "car-hauler"}
    PlayerDesign.objects.all().delete()  # the fleet keeps the card as bought
    page = client.get(reverse("battle-play", args=[pickup.battle_id]))
    assert page.status_code == 200 and b"Lancer" in page.content
    play.hand_to_doctrine(battle_id=pickup.battle_id, user=bob)
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.OVER


@pytest.mark.django_db
def test_a_what_if_run_buys_his_own_card(client, bob):
    created = api(bob).post(reverse("api-pickup-designs", args=[SS]), LANCER, format="json").json()
    key = f"design-{created['id']}"
    client.force_login(bob)
    page = client.get(reverse("whatif-book-new", kwargs={"book": SS})).content.decode()
    assert f'value="{key}"' in page and "Lancer (5 points) — yours" in page
    params = whatif_books.build_params(user=bob, book=SS, raw={
        "points": 6, "trials": 2, "seed": "own card", "forces": {"1": [key], "2": ["rom-bird"]}})
    assert params["forces"][0]["ships"] == [{"key": key, "name": "Lancer", "points": 5}]
    assert params["job"]["sides"]["1"]["ships"][0]["card"]["name"] == "Lancer"
    result = pool.play_run(SS, params["job"], params["seed"], 2).result()
    assert result["trials"] == 2 and sum(result["wins"].values()) == 2
