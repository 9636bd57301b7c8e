"""CAM actions: every step of a scenario and the rubber, and refusals that change nothing."""

import pytest
from django.core import mail

from campaign.cam import actions, adapters
from campaign.cam.models import CamPlayer, CamScenario, CamShip
from campaign.models import Campaign, DiceRoll

from .conftest import make_cam, ship_numbers


def snapshot(campaign):
    """Everything an action could change."""
    cam = campaign.cam
    cam.refresh_from_db()
    return (
        list(CamShip.objects.filter(player__cam=cam).order_by("number").values()),
        list(CamPlayer.objects.filter(cam=cam).order_by("seat").values()),
        list(CamScenario.objects.filter(cam=cam).order_by("number").values()),
        DiceRoll.objects.filter(campaign=campaign).count(),
        Campaign.objects.filter(pk=campaign.pk).values("dice_offset", "status").get(),
        (cam.next_ship_id, cam.replacements_done, cam.started),
    )


def refused(campaign, reason_text, fn, **kwargs):
    before = snapshot(campaign)
    with pytest.raises(actions.CamActionError) as info:
        fn(campaign_id=campaign.pk, **kwargs)
    assert reason_text in str(info.value)
    assert snapshot(campaign) == before
    return info.value


def fight_to_forces(c, bob, carol, bob_ships=3, carol_ships=2):
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:bob_ships])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:carol_ships])
    return actions.roll_table(campaign_id=c.pk, user=bob)


def test_create_start_and_setup_refusals(db, alice, bob, carol, mallory):
    # CAM 4.0: starting fleets within the starting points, of the campaign's Period (000 1.5).
    c = make_cam(alice, bob, carol, start=False)
    assert not c.cam.started and c.cam.players.count() == 2
    refused(c, "only the campaign's moderator", actions.start, user=bob)
    refused(c, "no such CAM campaign", actions.start, user=mallory)
    # ruling CAM36: a ship outside the Period is refused when it is entered, not at the start
    refused(c, "not in the campaign's Period 2", actions.set_starting_fleet, user=bob, fleet=["galaxy"])
    actions.set_starting_fleet(campaign_id=c.pk, user=bob, fleet=["d7"] * 7)  # 105 points
    refused(c, "more than the campaign's starting 100", actions.start, user=alice)
    refused(c, "only for your own fleet", actions.set_starting_fleet, user=carol, fleet=["d7"], seat=1)
    actions.set_starting_fleet(campaign_id=c.pk, user=alice, fleet=["d7"], seat=1)  # the moderator may
    actions.start(campaign_id=c.pk, user=alice)
    c.refresh_from_db()
    assert c.cam.started and ship_numbers(c, 1) == [1]
    refused(c, "fixed once the campaign has started", actions.set_starting_fleet, user=bob, fleet=["d7"])


def test_create_refusals(db, alice, bob):
    with pytest.raises(actions.CamActionError, match="no account 'nobody'"):
        actions.create_cam_campaign(user=alice, name="X", period=2, starting_points=100, players=[
            {"username": "bob", "faction": "UFP"}, {"username": "nobody", "faction": "UFP"}])
    with pytest.raises(actions.CamActionError, match="choose its wealth class"):
        actions.create_cam_campaign(user=alice, name="X", period=2, starting_points=100, players=[
            {"username": "bob", "faction": "UFP"}, {"username": "alice", "faction": "Vulcan Splinter"}])
    with pytest.raises(actions.CamActionError, match="period 7 is outside 1 to 6"):
        actions.create_cam_campaign(user=alice, name="X", period=7, starting_points=100, players=[
            {"username": "bob", "faction": "UFP"}, {"username": "alice", "faction": "Kazon"}])
    assert not Campaign.objects.filter(layer="cam").exists()


def test_custom_sd(cam_campaign, alice, bob):
    # 000 1.5 T'Corr's limits: Hull 30 at most.
    fields = {"key": "excelsior", "ship_class": "CA", "name": "CA USS 'Excelsior'", "speed": 7, "turning": 3,
              "target_size": 2, "shields": [4, 4, 4, 4], "hull": 9, "crippled_at": 5, "period_first": 2,
              "period_last": 5, "main": [[4, "Phaser", ""]]}
    refused(cam_campaign, "only the campaign's moderator", actions.add_custom_sd, user=bob, fields=fields)
    refused(cam_campaign, "Hull 31 is outside 1 to 30", actions.add_custom_sd, user=alice,
            fields={**fields, "hull": 31})
    refused(cam_campaign, "two SDs share one catalogue key", actions.add_custom_sd, user=alice,
            fields={**fields, "key": "galaxy"})
    actions.add_custom_sd(campaign_id=cam_campaign.pk, user=alice, fields=fields)
    assert adapters.catalogue(cam_campaign.cam)["excelsior"].points == 10  # CAM 2.2 CA


def test_generate_scenario_logs_dice_and_emails(cam_campaign, alice, bob, carol, mallory):
    # CAM 2.1 nature roll, logged; players with preferences on are told.
    c = cam_campaign
    refused(c, "only the moderator can choose", actions.generate_scenario, user=bob, nature="convoy")
    refused(c, "no such CAM campaign", actions.generate_scenario, user=mallory)
    row = actions.generate_scenario(campaign_id=c.pk, user=bob)
    assert row.number == 1 and row.stage == "forces" and row.points_level == 60
    nature = DiceRoll.objects.get(campaign=c, purpose="000 CAM 2.1 Establish Time Period And Nature")
    assert row.nature_roll == nature.faces[0]
    # a planetary dispute or convoy also rolls off for the defender (ruling CAM6)
    assert (row.defender is not None) == (row.nature != "open_battle")
    refused(c, "still in progress", actions.generate_scenario, user=bob)


def test_generate_scenario_email_on_commit(cam_campaign, bob, django_capture_on_commit_callbacks):
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        actions.generate_scenario(campaign_id=cam_campaign.pk, user=bob)
    to = sorted(m.to[0] for m in mail.outbox)
    assert to == ["alice@example.com", "bob@example.com", "carol@example.com"]
    assert "scenario 1 has been generated" in mail.outbox[0].subject


def test_invalid_force_selections_change_nothing(cam_campaign, alice, bob, carol):
    # CAM 2.2 / 4.2 / 1.5: over points, destroyed, unavailable, another period; then convoy rules.
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    bob_ships = ship_numbers(c, 1)
    refused(c, "costs 70 points, over the scenario's 60 by 10", actions.select_forces, user=bob, ships=bob_ships)
    CamShip.objects.filter(number=bob_ships[0]).update(status="destroyed", destroyed_in=1)
    err = refused(c, "was destroyed", actions.select_forces, user=bob, ships=bob_ships[:2])
    assert err.reason == "destroyed"
    CamShip.objects.filter(number=bob_ships[1]).update(status="unavailable")
    assert (
        refused(c, "failed its repair roll", actions.select_forces, user=bob, ships=bob_ships[1:3]).reason
        == "unavailable"
    )
    galaxy = CamShip.objects.create(player=c.cam.players.get(seat=1), number=99, sd="galaxy", name="Hood")
    assert refused(c, "not in the campaign's Period 2", actions.select_forces, user=bob,
                   ships=[galaxy.number]).reason == "wrong_period"
    refused(c, "has no ship 11", actions.select_forces, user=bob, ships=[ship_numbers(c, 2)[0]])
    refused(c, "only for your own fleet", actions.select_forces, user=bob, ships=[], seat=2)


def test_convoy_constraints(cam_campaign, alice, bob, carol):
    # CAM 2.2 convoy: defender >= 10% merchants; attacker <= 20% capital, >= 80% CL or smaller.
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="convoy", defender=1)
    b = ship_numbers(c, 1)
    assert refused(c, "less than 10%", actions.select_forces, user=bob, ships=b[:3]).reason == "convoy_merchants"
    k = ship_numbers(c, 2)
    assert refused(c, "more than 20%", actions.select_forces, user=carol, ships=k[:3]).reason == "convoy_capital"
    assert refused(c, "less than 80%", actions.select_forces, user=carol,
                   ships=[k[2], k[4]]).reason == "convoy_light"  # CL 7 + CA 10
    actions.select_forces(campaign_id=c.pk, user=bob, ships=[b[0], b[6]])  # CA 10 + TP 2: 2/12 >= 10%
    actions.select_forces(campaign_id=c.pk, user=carol, ships=[k[2], k[3]])


def test_table_break_contact_and_scoring(cam_campaign, alice, bob, carol, django_capture_on_commit_callbacks):
    # CAM 2.3 table and edges; CAM 3.1 checks after each turn; CAM 3.1/4.3 scoring after confirmation.
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    refused(c, "have chosen no force", actions.roll_table, user=bob)
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])  # two D7s, 30 points
    before = DiceRoll.objects.filter(campaign=c).count()
    row = actions.roll_table(campaign_id=c.pk, user=bob)
    assert row.stage == "fighting" and row.tables[0]["score"] == row.tables[0]["roll"]  # no +2 in open battle
    assert set(row.edges.values()) in ({"north", "south"}, {"east", "west"})
    assert DiceRoll.objects.filter(campaign=c).count() > before
    refused(c, "cannot choose forces now", actions.select_forces, user=bob, ships=ship_numbers(c, 1)[:1])
    k = ship_numbers(c, 2)
    # carol loses a D7 (15 >= 12, condition 1; 1 of 2 capitals is not "more than half").
    row = actions.enter_turn(campaign_id=c.pk, user=carol, destroyed=[f"ship:{k[0]}"])
    assert row.turn_entries == {"2": {"destroyed": [f"ship:{k[0]}"], "crippled": [], "left": []}}
    assert actions.checks_now(row)[2] == (1,)
    refused(c, "seat 1 has no unit 'ship:11'", actions.enter_turn, user=bob, destroyed=["ship:11"])
    checks = DiceRoll.objects.filter(campaign=c, purpose__contains="CAM 3.1").count()
    row = actions.enter_turn(campaign_id=c.pk, user=bob)
    assert DiceRoll.objects.filter(campaign=c, purpose__contains="CAM 3.1").count() == checks + 1
    check = [e for e in row.events if e["kind"] == "check"][-1]
    assert check["data"]["seat"] == 2 and check["data"]["modifier"] == 1  # Klingons +1 (CAM 3.1)
    assert row.battle["turn"] == 2 and row.turn_entries == {}
    ordered = check["data"]["ordered"]
    assert (row.battle["broken"]["2"] == 1) == ordered
    if ordered:  # carol's other D7 leaves the table: contact broken, the game is over
        row = actions.enter_turn(campaign_id=c.pk, user=carol, left=[f"ship:{k[1]}"])
        with django_capture_on_commit_callbacks(execute=True):
            row = actions.enter_turn(campaign_id=c.pk, user=bob)
        assert row.stage == "confirming" and row.proposed_by == 1 and not row.force_end
        refused(c, "table contact has been broken", actions.reject_result, user=carol)
    else:
        row = actions.propose_end(campaign_id=c.pk, user=bob)
        assert row.stage == "confirming" and row.force_end
    refused(c, "confirmed by the other player", actions.confirm_result, user=bob)
    row = actions.confirm_result(campaign_id=c.pk, user=carol)
    row.refresh_from_db()
    assert row.stage == "scored"
    sides = row.score["sides"]
    assert sides["1"]["bonus"] == 50 and sides["1"]["total"] == 30 + 50  # CAM 3.1 +50 not forced to break
    assert sides["1"]["campaign_points"] >= 1 + 2  # CAM 4.3: 15 enemy points destroyed, not broken
    assert row.score["winner"] == 1
    assert CamShip.objects.get(number=k[0]).status == "destroyed"
    assert CamPlayer.objects.get(cam=c.cam, seat=1).campaign_points == sides["1"]["campaign_points"]


def test_reject_and_between_scenarios_and_rubber_end(cam_campaign, alice, bob, carol,
                                                     django_capture_on_commit_callbacks):
    # CAM 4.2 repair rolls, replacement points, replacement request; CAM 4.1 rubber of two.
    c = cam_campaign
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    fight_to_forces(c, bob, carol)
    b = ship_numbers(c, 1)
    actions.enter_turn(campaign_id=c.pk, user=bob, destroyed=[f"ship:{b[0]}"], crippled=[f"ship:{b[1]}"])
    actions.enter_turn(campaign_id=c.pk, user=carol)
    actions.propose_end(campaign_id=c.pk, user=carol)
    row = actions.reject_result(campaign_id=c.pk, user=bob)
    assert row.stage == "fighting"
    actions.propose_end(campaign_id=c.pk, user=carol)
    actions.confirm_result(campaign_id=c.pk, user=bob)
    assert CamShip.objects.get(number=b[1]).status == "crippled"
    refused(c, "make the between-scenarios step", actions.generate_scenario, user=bob)
    refused(c, "replaced by a medium ship, not a BC", actions.submit_replacements, user=bob,
            requests=[{"replaces": b[0], "sd": "d7"}])
    refused(c, "not destroyed", actions.submit_replacements, user=bob, requests=[{"replaces": b[1], "sd": "firecat"}])
    actions.submit_replacements(campaign_id=c.pk, user=bob, requests=[{"replaces": b[0], "sd": "constitution",
                                                                        "name": "USS Lexington"}])
    assert CamShip.objects.get(number=b[1]).status == "crippled"  # waits for carol
    rolls = DiceRoll.objects.filter(campaign=c).count()
    actions.submit_replacements(campaign_id=c.pk, user=carol)
    assert DiceRoll.objects.filter(campaign=c, purpose__contains="repaired on 4+").count() == 1
    assert DiceRoll.objects.filter(campaign=c).count() == rolls + 2  # repair + replacement roll
    assert CamShip.objects.get(number=b[1]).status in ("ready", "unavailable")
    bob_row = CamPlayer.objects.get(cam=c.cam, seat=1)
    lost = CamShip.objects.get(number=b[0])
    assert bob_row.replacement_points == (10 - 10 if lost.replaced_by else 10)  # 10% of 100, hoarded
    c.cam.refresh_from_db()
    assert c.cam.replacements_done == 1
    # scenario 2, auto-resolved by the moderator (ruling CAM26), ends the rubber
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    ready = list(
        CamShip.objects.filter(player__cam=c.cam, player__seat=1, status="ready").values_list(
            "number", flat=True
        )
    )
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ready[:2])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    actions.roll_table(campaign_id=c.pk, user=carol)
    refused(c, "only the moderator can auto-resolve", actions.autoresolve, user=bob)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        row = actions.autoresolve(campaign_id=c.pk, user=alice)
    assert row.stage == "scored"
    c.refresh_from_db()
    assert c.status == Campaign.Status.FINISHED and c.revealed_seed
    assert any("the rubber is over" in m.subject for m in mail.outbox)
    # The scenario's report goes to both players: each side's points, the winner, what happened.
    reports = [m for m in mail.outbox if "scenario 2 report" in m.subject]
    assert {"bob@example.com", "carol@example.com"} <= {m.to[0] for m in reports}
    body = reports[0].body
    assert "Scenario 2 (open battle" in body and "campaign points" in body
    assert "Winner:" in body or "No winner" in body
    table = actions.standings(c.cam)
    assert table.finished and sum(s.scenario_wins for s in table.table) <= 2
    refused(c, "the rubber is over", actions.generate_scenario, user=alice)
