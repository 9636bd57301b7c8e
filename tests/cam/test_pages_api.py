"""CAM pages and API: what each role sees and may do; refused force selections through both."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.cam import actions
from campaign.cam.models import CamScenario, CamShip
from campaign.models import DiceRoll

from .conftest import ship_numbers
from .test_actions import snapshot


def api(user=None):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def scenario(cam_campaign, alice):
    actions.generate_scenario(campaign_id=cam_campaign.pk, user=alice, nature="open_battle")
    return cam_campaign


def test_create_page_makes_a_cam_campaign(client, alice, bob, carol):
    client.force_login(alice)
    data = {"name": "Page rubber", "period": 2, "starting_points": 100, "scenarios": 5, "points_level": 60,
            "break_percent": 40, "replacement_percent": 10, "battle_mode": "tabletop",
            "p1_username": "bob", "p1_name": "Blue", "p1_faction": "UFP", "p1_fleet": "constitution: Hood\nd7",
            "p2_username": "carol", "p2_name": "Red", "p2_faction": "Orions", "p2_wealth": "poor",
            "p2_temper": "aggressive", "p2_fleet": "firecat"}
    response = client.post(reverse("cam-create"), data)
    assert response.status_code == 302
    response = client.get(response.url)
    assert b"Orions" in response.content and b"best fit" in response.content
    # an "other power" without a wealth class is refused with the reason (CAM 4.2)
    response = client.post(reverse("cam-create"), {**data, "p2_wealth": ""})
    assert response.status_code == 400 and b"choose its wealth class" in response.content


def test_pages_for_each_role(scenario, client, alice, bob, carol, mallory):
    c = scenario
    pages = [reverse("cam-detail", args=[c.pk]), reverse("cam-scenario", args=[c.pk, 1]),
             reverse("cam-sds", args=[c.pk]), reverse("cam-standings", args=[c.pk]),
             reverse("campaign-dice", args=[c.pk])]
    for user in (alice, bob, carol):
        client.force_login(user)
        for url in pages:
            assert client.get(url).status_code == 200, (user, url)
    client.force_login(mallory)
    for url in pages:
        assert client.get(url).status_code == 404
    client.logout()
    assert client.get(pages[0]).status_code == 302  # to the log-in page
    # the Event Horizon pages send a CAM campaign to its own page, or 404
    client.force_login(bob)
    assert client.get(reverse("campaign-detail", args=[c.pk])).url == pages[0]
    assert client.get(reverse("campaign-map", args=[c.pk])).status_code == 404
    home = client.get(reverse("home")).content.decode()
    assert pages[0] in home


def test_scenario_page_shows_who_must_check(scenario, client, bob, carol):
    c = scenario
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    client.force_login(bob)
    client.post(reverse("cam-table", args=[c.pk, 1]))
    client.force_login(carol)
    k = ship_numbers(c, 2)
    client.post(reverse("cam-turn", args=[c.pk, 1]), {"destroyed": [f"ship:{k[0]}"]})
    page = client.get(reverse("cam-scenario", args=[c.pk, 1])).content.decode()
    assert "Must check break contact" in page and "cumulative losses" in page  # CAM 3.1 condition 1
    client.force_login(bob)
    client.post(reverse("cam-turn", args=[c.pk, 1]), {})
    page = client.get(reverse("cam-scenario", args=[c.pk, 1])).content.decode()
    assert "Seat 2 must check at the end of turn 1" in page


@pytest.mark.parametrize("case", ["over_points", "convoy", "destroyed", "unavailable", "wrong_period"])
def test_invalid_force_selection_through_page_and_api(case, cam_campaign, client, alice, bob):
    # CAM 2.2 points and convoy rules, CAM 4.2 ship states, 000 1.5 periods: refused with the
    # reason, nothing changed (through the page and through the API).
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="convoy" if case == "convoy" else "open_battle",
                              defender=1 if case == "convoy" else None)
    b = ship_numbers(c, 1)
    ships, text = {
        "over_points": (b, "over the scenario&#x27;s 60 by 10"),
        "convoy": (b[:3], "less than 10%"),
        "destroyed": (b[:2], "was destroyed"),
        "unavailable": (b[:2], "is unavailable"),
        "wrong_period": ([99], "not in the campaign&#x27;s Period 2"),
    }[case]
    if case == "destroyed":
        CamShip.objects.filter(number=b[0]).update(status="destroyed", destroyed_in=1)
    if case == "unavailable":
        CamShip.objects.filter(number=b[0]).update(status="unavailable")
    if case == "wrong_period":
        CamShip.objects.create(player=c.cam.players.get(seat=1), number=99, sd="galaxy", name="Enterprise-D")
    before = snapshot(c)
    client.force_login(bob)
    response = client.post(reverse("cam-forces", args=[c.pk, 1]), {"ships": ships, "bases": 0})
    assert response.status_code == 400
    assert text in response.content.decode()
    assert snapshot(c) == before
    response = api(bob).put(reverse("api-cam-forces", args=[c.pk, 1]), {"ships": ships}, format="json")
    assert response.status_code == 400
    assert text.replace("&#x27;", "'") in response.json()["detail"]
    assert response.json()["reason"] == {"convoy": "convoy_merchants"}.get(case, case)
    assert snapshot(c) == before


def test_refused_base_selection_logs_no_die(scenario, bob):
    # ruling CAM9: a base's price is rolled when added; a refused selection keeps no roll.
    c = scenario
    rolls = DiceRoll.objects.filter(campaign=c).count()
    response = api(bob).put(reverse("api-cam-forces", args=[c.pk, 1]), {"ships": ship_numbers(c, 1), "bases": 1},
                            format="json")
    assert response.status_code == 400 and DiceRoll.objects.filter(campaign=c).count() == rolls
    response = api(bob).put(reverse("api-cam-forces", args=[c.pk, 1]), {"ships": ship_numbers(c, 1)[:2], "bases": 1},
                            format="json")
    assert response.status_code == 200
    assert DiceRoll.objects.filter(campaign=c).count() == rolls + 1
    cost = CamScenario.objects.get(cam=c.cam, number=1).selections["1"]["bases"][0]
    assert 6 <= cost <= 11  # 1D6 + 5 (CAM 2.2)


def test_api_permission_matrix(scenario, alice, bob, carol, mallory, django_user_model):
    c = scenario
    detail = reverse("api-cam-campaign", args=[c.pk])
    urls = [detail, reverse("api-cam-rosters", args=[c.pk]), reverse("api-cam-scenario", args=[c.pk, 1]),
            reverse("api-cam-standings", args=[c.pk]), reverse("api-cam-sds", args=[c.pk]),
            reverse("api-cam-break-contact", args=[c.pk, 1])]
    for user in (alice, bob, carol):
        for url in urls:
            assert api(user).get(url).status_code == 200, (user, url)
    for url in urls:
        assert api(mallory).get(url).status_code == 404
        assert api().get(url).status_code in (401, 403)
    assert [x["id"] for x in api(mallory).get(reverse("api-cam-campaigns")).json()] == []
    assert [x["id"] for x in api(bob).get(reverse("api-cam-campaigns")).json()] == [c.pk]
    # the Event Horizon API does not serve CAM campaigns
    assert api(bob).get(reverse("api-campaign", args=[c.pk])).status_code == 404
    forces = reverse("api-cam-forces", args=[c.pk, 1])
    b = ship_numbers(c, 1)
    # another player cannot choose for bob's seat; an outsider sees nothing; anonymous is refused
    assert api(carol).put(forces, {"ships": b[:1], "seat": 1}, format="json").status_code == 403
    assert api(mallory).put(forces, {"ships": b[:1]}, format="json").status_code == 404
    assert api().put(forces, {"ships": b[:1]}, format="json").status_code in (401, 403)
    assert api(bob).put(forces, {"ships": b[:3]}, format="json").status_code == 200
    # the opponent's force is hidden until the table is rolled; the moderator sees it
    assert api(carol).get(urls[2]).json()["forces"]["1"] == {"chosen": True}
    assert api(alice).get(urls[2]).json()["forces"]["1"]["points"] == 30
    assert api(alice).put(forces, {"ships": ship_numbers(c, 2)[:2], "seat": 2}, format="json").status_code == 200
    # moderator-only actions
    assert api(bob).post(reverse("api-cam-sds", args=[c.pk]), {"key": "x"}, format="json").status_code == 403
    assert api(bob).post(reverse("api-cam-table", args=[c.pk, 1])).status_code == 200
    assert api(bob).post(reverse("api-cam-autoresolve", args=[c.pk, 1])).status_code == 403
    turns = reverse("api-cam-turns", args=[c.pk, 1])
    assert api(mallory).post(turns, {}, format="json").status_code == 404
    assert api(carol).post(turns, {"destroyed": ["ship:1"]}, format="json").status_code == 400  # not her unit
    assert api(carol).post(turns, {"destroyed": [f"ship:{ship_numbers(c, 2)[0]}"]}, format="json").status_code == 200
    assert api(bob).post(turns, {}, format="json").status_code == 200
    checks = api(bob).get(urls[5]).json()["checks"]
    assert checks and checks[0]["data"]["seat"] == 2
    assert api(alice).post(reverse("api-cam-autoresolve", args=[c.pk, 1])).status_code == 200
    standings = api(carol).get(urls[3]).json()
    assert len(standings["scenarios"]) == 1 and standings["finished"] is False


def test_api_create_and_start(db, alice, bob, carol, mallory):
    data = {"name": "API rubber", "period": 5, "starting_points": 120, "scenarios": 3,
            "players": [{"username": "bob", "faction": "Borg", "fleet": ["borg_cube"]},
                        {"username": "carol", "faction": "UFP", "fleet": ["galaxy", "valkyrie"]}]}
    response = api(alice).post(reverse("api-cam-campaigns"), data, format="json")
    assert response.status_code == 201, response.json()
    campaign_id = response.json()["id"]
    assert response.json()["players"][0]["wealth"] == "variable"  # CAM 4.2 Borg
    assert api(bob).post(reverse("api-cam-start", args=[campaign_id])).status_code == 403
    assert api(mallory).post(reverse("api-cam-start", args=[campaign_id])).status_code == 404
    assert api(alice).post(reverse("api-cam-start", args=[campaign_id])).status_code == 200
    rosters = api(bob).get(reverse("api-cam-rosters", args=[campaign_id])).json()
    assert rosters[0]["ships"][0]["points"] == 40  # BB 20 + 20 for Size Class 0 (CAM 2.2)
    bad = api(alice).post(reverse("api-cam-campaigns"), {**data, "period": 9}, format="json")
    assert bad.status_code == 400 and "period 9" in bad.json()["detail"]


def test_an_observer_cannot_generate_a_scenario_nor_roll_the_table(cam_campaign, alice, bob, carol, mallory):
    # Issue 24 item 5: only the rubber's players and its moderator move it on (CAM 2.1, 2.3).
    from campaign.models import Membership

    c = cam_campaign
    Membership.objects.create(campaign=c, user=mallory, role=Membership.Role.OBSERVER)
    base = f"/api/cam/campaigns/{c.pk}/scenarios/"
    before = snapshot(c)
    refused = api(mallory).post(base, {}, format="json")
    assert refused.status_code == 403 and "only the rubber's players and its moderator" in refused.json()["detail"]
    assert snapshot(c) == before
    assert api(bob).post(base, {}, format="json").status_code == 201  # a player may
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    before = snapshot(c)
    refused = api(mallory).post(f"{base}1/table/", {}, format="json")
    assert refused.status_code == 403 and "roll the table" in refused.json()["detail"]
    assert snapshot(c) == before
    assert api(carol).post(f"{base}1/table/", {}, format="json").status_code == 200


def test_blind_force_purchases_roll_dice_the_other_seat_sees_only_once_the_table_is_rolled(
        cam_campaign, alice, bob, carol, mallory):
    # Issue 24 item 3; CAM 2.2 (forces chosen blind), 2.3 (revealed at the table); ruling CAM9 (a
    # base's or minefield's cost is rolled when it is bought): the rolls were public at once.
    from campaign.models import Membership

    c = cam_campaign
    Membership.objects.create(campaign=c, user=mallory, role=Membership.Role.OBSERVER)
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:2], bases=1, minefields=1)
    bought = list(DiceRoll.objects.filter(campaign=c, phase="cam-forces").values_list("seq", flat=True))
    assert len(bought) == 2

    def seen_by(user):  # as the dice page reads the log (campaign.dice: the one way rolls are shown)
        from campaign.dice import log_reader, shown_rows

        c.refresh_from_db()
        rows = shown_rows(DiceRoll.objects.filter(campaign=c, seq__in=bought), log_reader(c, user))
        return {r["seq"]: r for r in rows}

    for user in (carol, mallory):  # the other seat and an observer: the chain only
        rows = seen_by(user)
        assert len(rows) == 2, rows
        assert all(r["withheld"] and r["faces"] is None and r["purpose"] is None for r in rows.values()), rows
        assert b"CAM 2.2" not in client_page(user, c)
    assert b"CAM 2.2" in client_page(bob, c)
    assert not any(r["withheld"] for r in seen_by(bob).values())  # his own purchase
    assert not any(r["withheld"] for r in seen_by(alice).values())  # the moderator's whole log
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    actions.roll_table(campaign_id=c.pk, user=carol)
    for user in (carol, mallory):  # revealed with the forces
        rows = seen_by(user)
        assert len(rows) == 2 and not any(r["withheld"] for r in rows.values()), rows


def client_page(user, campaign):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client.get(reverse("campaign-dice", args=[campaign.pk])).content
