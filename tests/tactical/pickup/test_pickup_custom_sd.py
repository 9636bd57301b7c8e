"""Buoyz pickup fleets with the player's own custom SDs (issue 17 item 4; ruling PK5;
tactical/hosts/pickup/books.py ``BuoyzBook``): the custom SDs of the CAM campaigns he holds a seat in
are offered beside the catalogue at their CAM 2.2 points, checked against the points total and the
book's limits, and go into the battle whole; a design of a campaign he has no seat in is not his
to buy (400, nothing changed); one that breaks T'Corr's limits is refused with the limit named."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.cam import actions as cam_actions
from campaign.cam.adapters import sd_fields
from campaign.cam.models import CamSD
from campaign.rules.cam.ships import STARTER_CATALOGUE
from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import book
from tactical.models import PickupBattle
from tactical.rules import registry
from tactical.rules.buoyz.play import sd_from_json
from tests.cam.conftest import make_cam

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif(registry.find_resolver("buoyz").play is None, reason="Buoyz is not played online")]
BZ = "buoyz"
EXCELSIOR = replace(STARTER_CATALOGUE["constitution"], key="excelsior", name="CA USS 'Excelsior'", hull=9,
                    crippled_at=4)


def api(user) -> APIClient:
    c = APIClient()
    c.force_login(user)
    return c


@pytest.fixture
def rubber(alice, bob, carol):
    """Bob and Carol play a CAM campaign in which Alice (the moderator) added the Excelsior."""
    campaign = make_cam(alice, bob, carol, start=False)
    cam_actions.add_custom_sd(campaign_id=campaign.pk, user=alice, fields=sd_fields(EXCELSIOR))
    return campaign


@pytest.fixture
def excelsior(rubber) -> CamSD:
    return CamSD.objects.get(cam=rubber.cam, key="excelsior")


@pytest.fixture
def other_rubber(alice, carol, mallory):
    """Carol and Mallory's campaign (no seat for Bob) with a design of its own."""
    campaign = make_cam(alice, carol, mallory, start=False, seed="other")
    cam_actions.add_custom_sd(campaign_id=campaign.pk, user=alice,
                              fields=sd_fields(replace(EXCELSIOR, key="reliant", name="CA USS 'Reliant'")))
    return CamSD.objects.get(cam=campaign.cam, key="reliant")


def test_the_buoyz_offers_are_the_catalogue_and_the_sds_of_the_players_own_campaigns(
        bob, carol, alice, mallory, excelsior, other_rubber):
    catalogue = book(BZ).offers(None)
    assert catalogue and not any(o.own for o in catalogue)
    mine = [o for o in book(BZ).offers(bob) if o.own]
    assert [(o.key, o.name, o.points) for o in mine] == [(f"camsd-{excelsior.pk}", "CA USS 'Excelsior'",
                                                          EXCELSIOR.points)]
    assert {o.key for o in book(BZ).offers(carol) if o.own} == {f"camsd-{excelsior.pk}", f"camsd-{other_rubber.pk}"}
    assert not [o for o in book(BZ).offers(alice) if o.own]  # she moderates; she holds no seat
    assert [o.key for o in book(BZ).offers(mallory) if o.own] == [f"camsd-{other_rubber.pk}"]


def test_a_custom_sd_is_bought_at_its_points_and_fought_whole(bob, excelsior):
    pickup = actions.create_pickup(user=bob, ruleset=BZ, points=40, opponent="computer")
    key = f"camsd-{excelsior.pk}"
    with pytest.raises(actions.PickupError) as exc:
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[key] * 5)
    assert "the fleet costs 50 points, over the battle's 40 points by 10" in exc.value.message
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[key, key, "d7"])
    pickup.refresh_from_db()
    assert pickup.status in (PickupBattle.Status.PLAYING, PickupBattle.Status.OVER)
    ships = pickup.battle.setup["sides"]["1"]["ships"]
    assert sd_from_json(ships[0]["sd"]) == EXCELSIOR and ships[2] == {"sd": "d7"}
    # The design as bought: the campaign's row changing afterwards does not reach this battle.
    assert pickup.fleets["1"][0]["sd"]["hull"] == 9


def test_the_ship_limit_counts_custom_sds(bob, excelsior):
    pickup = actions.create_pickup(user=bob, ruleset=BZ, points=240, opponent="computer")
    with pytest.raises(actions.PickupError, match="at most 12 ships a side"):
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[f"camsd-{excelsior.pk}"] * 13)


def test_a_design_of_a_campaign_the_player_has_no_seat_in_is_refused(bob, other_rubber):
    pickup = actions.create_pickup(user=bob, ruleset=BZ, points=40, opponent="computer")
    key = f"camsd-{other_rubber.pk}"
    with pytest.raises(actions.PickupError) as exc:
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[key])
    assert exc.value.message == f"no ship {key!r} to buy here"  # nothing about the design is given away
    pickup.refresh_from_db()
    assert "1" not in pickup.fleets and pickup.battle is None


def test_a_custom_sd_over_tcorrs_limits_is_refused_with_the_limit_named(bob, rubber):
    # Stored past the checks (the admin, or a row older than them): the pickup checks it again.
    row = CamSD.objects.create(cam=rubber.cam, **{**sd_fields(EXCELSIOR), "key": "monster", "name": "BB 'Monster'",
                                                 "hull": 31, "crippled_at": 10})
    key = f"camsd-{row.pk}"
    assert key not in {o.key for o in book(BZ).offers(bob)}
    pickup = actions.create_pickup(user=bob, ruleset=BZ, points=100, opponent="computer")
    # The fleet page and the API name it with the limit it breaks rather than leave it out.
    c = api(bob)
    page = c.get(reverse("pickup-detail", args=[pickup.pk])).content.decode()
    assert 'id="not-offered"' in page and "Hull 31 is outside 1 to 30" in page
    assert any(
        "Monster" in r and "Hull 31" in r
        for r in c.get(reverse("api-pickup", args=[pickup.pk])).json()["not_offered"]
    )
    with pytest.raises(actions.PickupError) as exc:
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[key])
    assert "T'Corr's limits" in exc.value.message and "Hull 31 is outside 1 to 30" in exc.value.message
    response = api(bob).post(reverse("api-pickup-fleet", args=[pickup.pk]), {"ships": [key]}, format="json")
    assert response.status_code == 400 and "Hull 31 is outside 1 to 30" in response.json()["detail"]
    pickup.refresh_from_db()
    assert "1" not in pickup.fleets


def test_the_api_offers_and_takes_own_designs_and_refuses_anothers(bob, excelsior, other_rubber):
    c = api(bob)
    created = c.post(reverse("api-pickup-list"), {"ruleset": BZ, "points": 30, "opponent": "computer"}, format="json")
    assert created.status_code == 201
    body = created.json()
    own = [o for o in body["offers"] if o["own"]]
    assert [o["key"] for o in own] == [f"camsd-{excelsior.pk}"] and own[0]["points"] == EXCELSIOR.points
    pk = body["id"]
    theirs = c.post(reverse("api-pickup-fleet", args=[pk]), {"ships": [f"camsd-{other_rubber.pk}"]}, format="json")
    assert theirs.status_code == 400 and "no ship" in theirs.json()["detail"]
    ok = c.post(reverse("api-pickup-fleet", args=[pk]), {"ships": [f"camsd-{excelsior.pk}"]}, format="json")
    assert ok.status_code == 200 and ok.json()["battle"]
    state = c.get(reverse("api-battle-state", args=[ok.json()["battle"]]))
    assert state.status_code == 200 and "Excelsior" in state.content.decode()


def test_the_fleet_form_offers_own_designs(client, bob, excelsior):
    client.force_login(bob)
    pickup = actions.create_pickup(user=bob, ruleset=BZ, points=30, opponent="computer")
    page = client.get(reverse("pickup-detail", args=[pickup.pk]))
    assert b"CA USS &#x27;Excelsior&#x27;" in page.content and b"(your design)" in page.content
    done = client.post(reverse("pickup-fleet", args=[pickup.pk]), {f"ship_camsd-{excelsior.pk}": "2"})
    pickup.refresh_from_db()
    assert done.status_code == 302 and [s["key"] for s in pickup.fleets["1"]] == [f"camsd-{excelsior.pk}"] * 2


def test_a_design_changed_after_the_fleet_is_submitted_is_fought_as_bought(bob, carol, excelsior):
    pickup = actions.create_pickup(user=bob, ruleset=BZ, points=20, opponent="link")
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[f"camsd-{excelsior.pk}"])
    CamSD.objects.filter(pk=excelsior.pk).update(hull=20, crippled_at=8)
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=[f"camsd-{excelsior.pk}"])
    pickup.refresh_from_db()
    first, second = (sd_from_json(pickup.battle.setup["sides"][s]["ships"][0]["sd"]) for s in ("1", "2"))
    assert first.hull == 9 and second.hull == 20
