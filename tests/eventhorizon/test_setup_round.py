"""The set-up round on the site (issue 13 items 1, 2 and 16 and its "Done when"; 003 "Set Up",
"Campaign Turn Sequence", "Purpose of the Campaign"; docs/rulings.md SU1 – SU7, VC3, W1)."""

import io
import json
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.actions import roll_back_turn
from campaign.eventhorizon.exchange import export_campaign
from campaign.eventhorizon.models import Fleet, Ship
from campaign.models import COLOUR_PALETTE, Campaign, DiceRoll, Empire, Membership, Turn, TurnOrders
from campaign.rules.eventhorizon.economy import INCOME_PURPOSE

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

GALIOT = "Cyber-Corsair Galiot Class Corvette"
SAN_MARCO = "Venetian San Marco Class Star Cruiser"


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def seat(campaign, n) -> Empire:
    return campaign.empires.get(seat=n)


def dock(empire) -> int:
    return empire.structures.get(resource="dockyard").number


# --- the Done-when of issue 13 --------------------------------------------------------------------


def test_done_when_three_players_sending_nothing_for_three_turns_all_keep_ships(django_user_model,
                                                                               django_capture_on_commit_callbacks):
    """Issue 13, "Done when": a 3-player campaign created with newcampaign in which nobody sends
    orders for 3 turns still has 3 empires with ships after turn 3. Before the set-up round the
    same commands ended the campaign on turn 1 with every empire eliminated ("winner: nobody")."""
    cid = run("newcampaign", "--name", "Quiet Reach", "--size", "20x16", "--players", "3", "--seed", "quiet").strip()
    campaign = Campaign.objects.get(pk=cid)
    # Three people hold the seats (missed turns count only for seats with a player, TW2).
    for n in (1, 2, 3):
        user = django_user_model.objects.create_user(f"p{n}", f"p{n}@example.com", "pw")
        campaign.empires.filter(seat=n).update(user=user)
    assert campaign.turn == 0 and campaign.missed_turn_limit == 3
    with django_capture_on_commit_callbacks(execute=True):
        out = run("playturns", cid, "--turns", "3")
    assert out.splitlines() == ["Processed the set-up round.", "Processed turn 1.", "Processed turn 2.",
                                "Processed turn 3."]
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.ACTIVE and campaign.turn == 4 and campaign.winner is None
    for empire in campaign.empires.all():
        assert not empire.eliminated
        assert Ship.objects.filter(owner=empire).exists(), f"{empire} has no ships after turn 3"
        # Missed the set-up round, turns 1 and 2: the computer plays the seat from turn 3 on
        # (missed_turn_limit 3, TW3); turn 3 was written by the computer, so the count stops.
        assert empire.is_bot and empire.auto_bot and empire.missed_turns == 3
    # The set-up round gave each seat the computer's set-up purchase as its standing order (SU4).
    setup = Turn.objects.get(campaign=campaign, number=0)
    assert {e["seats"][0] for e in setup.events if e["kind"] == "setup_by_computer"} == {1, 2, 3}
    told = [m for m in mail.outbox if "the computer now plays" in m.subject]
    assert sorted(to for m in told for to in m.to) == ["p1@example.com", "p2@example.com", "p3@example.com"]


def test_done_when_seats_without_players_hold_with_their_setup_fleets():
    # The same with newcampaign's seats left without players: nobody is counted as missing turns,
    # every seat holds (RULINGS "Missed deadline"), and the set-up fleets keep all three in the game.
    cid = run("newcampaign", "--name", "Empty Reach", "--size", "20x16", "--players", "3", "--seed", "empty").strip()
    for _ in range(4):
        assert eh_actions.process_turn(campaign_id=int(cid)) is not None
    campaign = Campaign.objects.get(pk=cid)
    assert campaign.turn == 4 and campaign.status == Campaign.Status.ACTIVE
    assert all(not e.eliminated and e.ships.exists() and not e.is_bot for e in campaign.empires.all())
    # Fleets held: each empire's ships are all still at its home world.
    for empire in campaign.empires.all():
        home = empire.home_worlds.get()
        assert set(Fleet.objects.filter(owner=empire).values_list("x", "y")) == {(home.x, home.y)}


# --- item 1: set-up purchases ---------------------------------------------------------------------


def test_item1_newcampaign_opens_the_setup_round():  # 003 Set Up (SU1)
    cid = run("newcampaign", "--name", "Cmd", "--size", "16x12", "--players", "2", "--seed", "s").strip()
    campaign = Campaign.objects.get(pk=cid)
    assert campaign.turn == 0 and campaign.status == Campaign.Status.ACTIVE
    turn = Turn.objects.get(campaign=campaign)
    assert (turn.number, turn.status) == (0, Turn.Status.OPEN)
    assert all(e.bp == 240 for e in campaign.empires.all()) and not Ship.objects.filter(campaign=campaign).exists()


def test_item1_setup_orders_through_the_api_preview_store_and_deliver(small_campaign_in_setup, bob, carol):
    campaign = small_campaign_in_setup
    bob_empire = seat(campaign, 1)
    orders = {"purchases": [{"build": SAN_MARCO, "dockyard": dock(bob_empire), "name": "Flagship"},
                            {"build": GALIOT, "dockyard": dock(bob_empire)},
                            {"build": GALIOT, "dockyard": dock(bob_empire)}],
              "standing": {"loss_order": "costliest"}}
    preview = api(bob).post(f"/api/campaigns/{campaign.pk}/orders/preview/", {"orders": orders}, format="json")
    assert preview.status_code == 200, preview.content
    body = preview.json()
    assert body["setup"] is True and body["cost"] == 90 and body["bp_left"] == 150 and body["warnings"] == []
    assert body["lines"][0] == "Set-up: spend 90 of 240 BP, 150 BP banked"
    response = api(bob).put(f"/api/campaigns/{campaign.pk}/orders/", {"orders": orders, "ready": True}, format="json")
    assert response.status_code == 200 and response.json()["setup"] is True
    assert api(bob).get(f"/api/campaigns/{campaign.pk}/orders/").json()["turn"] == 0
    # carol sends nothing: the computer's set-up purchase is made for her when the round closes.
    actions.process_now(campaign_id=campaign.pk, user=campaign.moderator)
    campaign.refresh_from_db()
    assert campaign.turn == 1
    (fleet,) = Fleet.objects.filter(owner=bob_empire)
    home = bob_empire.home_worlds.get()
    assert (fleet.x, fleet.y) == (home.x, home.y)
    assert [(s.design.name, s.name) for s in fleet.ships.order_by("number")] == [
        (SAN_MARCO, "Flagship"), (GALIOT, ""), (GALIOT, "")]
    bob_empire.refresh_from_db()
    income = sum(e["data"]["bp"] for e in Turn.objects.get(campaign=campaign, number=0).events
                 if e["kind"] == "income_total" and e["seats"] == [1])
    assert bob_empire.bp == 150 + income  # unspent BP banked (SU5), then turn 1's income
    assert bob_empire.standing_orders["loss_order"] == "costliest"
    assert Ship.objects.filter(owner=seat(campaign, 2)).count() >= 4
    assert not campaign.builds.exists()  # delivered at once, nothing on the stocks


@pytest.mark.parametrize(
    ("orders", "message"),
    [
        (
            {"moves": [{"fleet": 1, "path": [[0, 0]]}]},
            "003 Set Up: the set-up round takes purchases and standing orders only",
        ),
        (
            {"purchases": [{"build": SAN_MARCO, "dockyard": 1}] * 7},
            "purchases[6]: 003 Use of BP in a Campaign",
        ),
        ({"purchases": [{"buy": "aewa", "at": "HOME"}]}, "requires planetary defences"),
        ({"purchases": [{"build": "Knights of G.O.D Sword Class Frigate", "dockyard": 1}]}, "Stealth"),
    ],
)
def test_item1_setup_refusals_are_400_and_store_nothing(small_campaign_in_setup, bob, orders, message):
    campaign = small_campaign_in_setup
    home = seat(campaign, 1).home_worlds.get()
    orders = json.loads(json.dumps(orders).replace('"HOME"', f"[{home.x}, {home.y}]"))
    response = api(bob).put(f"/api/campaigns/{campaign.pk}/orders/", {"orders": orders}, format="json")
    assert response.status_code == 400 and message in response.json()["orders"]
    assert not TurnOrders.objects.exists()


def test_item1_order_page_shows_the_setup_round(client, small_campaign_in_setup, bob):
    client.force_login(bob)
    html = client.get(f"/campaigns/{small_campaign_in_setup.pk}/orders/").content.decode()
    assert "<h1>Set-up round: Bob&#x27;s Realm</h1>" in html and 'id="setup-banner"' in html
    data = json.loads(html.split('<script id="order-data" type="application/json">')[1].split("</script>")[0])
    assert data["setup"] is True and data["turn"] == 0 and data["bp"] == 240
    # Without JavaScript: the plain form stores set-up orders and shows the preview's warning.
    response = client.post(f"/campaigns/{small_campaign_in_setup.pk}/orders/", {"orders": "{}"}, follow=True)
    text = response.content.decode()
    assert "Set-up: spend 0 of 240 BP, 240 BP banked" in text and "you buy no ships" in text


def test_item1_lobby_start_opens_the_setup_round_with_its_own_deadline(alice, bob, django_capture_on_commit_callbacks):
    lobby = eh_actions.create_lobby(moderator=alice, name="Dawn", width=12, height=12, seats=2, seed="dawn",
                                 turn_hours=48, setup_hours=12)
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="B", colour=COLOUR_PALETTE[0])
    now = timezone.now()
    actions.start_campaign(campaign_id=lobby.pk, user=alice, now=now)
    setup = Turn.objects.get(campaign=lobby)
    assert setup.number == 0 and setup.deadline == now + timedelta(hours=12)
    # The deadline sweep closes it like any turn; turn 1 gets turn_hours.
    Turn.objects.filter(pk=setup.pk).update(deadline=now - timedelta(seconds=1))
    assert [t.number for t in eh_actions.due_turns()] == [0]
    with django_capture_on_commit_callbacks(execute=True):
        run("processdue")
    turn1 = Turn.objects.get(campaign=lobby, number=1)
    assert turn1.status == Turn.Status.OPEN and turn1.deadline > timezone.now() + timedelta(hours=47)
    # bob missed the set-up round: counted, not eliminated (RULINGS "Missed deadline").
    empire = seat(lobby, 1)
    assert empire.missed_turns == 1 and not empire.eliminated and empire.ships.exists()


def test_item1_lobby_form_and_api_take_the_setup_deadline(client, alice):
    client.force_login(alice)
    client.post("/lobby/new/", {"name": "Form", "grid": "hex", "width": 12, "height": 12, "seats": 2,
                                "turn_hours": 24, "setup_hours": 6, "battle_mode": "auto", "battle_requests": "either",
                                "battle_hours": 48, "activation_hours": 24, "deployment": "automatic",
                                "detection_range": 2, "missed_turn_limit": 3})
    assert Campaign.objects.get(name="Form").setup_hours == 6
    response = api(alice).post("/api/lobby/", {"name": "Api", "width": 12, "height": 12, "seats": 2,
                                               "setup_hours": 30}, format="json")
    assert response.status_code == 201 and response.json()["setup_hours"] == 30
    bad = api(alice).post("/api/lobby/", {"name": "Bad", "width": 12, "height": 12, "seats": 2, "setup_hours": -1},
                          format="json")
    assert bad.status_code == 400 and "set-up deadline" in json.dumps(bad.json())


def test_item1_everyone_ready_closes_the_setup_round(small_campaign_in_setup, bob, carol,
                                                     django_capture_on_commit_callbacks):
    campaign = small_campaign_in_setup
    with django_capture_on_commit_callbacks(execute=True):
        eh_actions.submit_orders(empire_id=seat(campaign, 1).pk, raw={}, ready=True)
    assert Campaign.objects.get(pk=campaign.pk).turn == 0
    with django_capture_on_commit_callbacks(execute=True):
        eh_actions.mark_ready(seat(campaign, 2).pk, True)
    campaign.refresh_from_db()
    assert campaign.turn == 1
    # Both sent orders ({} is "buy nothing"): nobody missed the round, nobody bought for them.
    assert not any(e["kind"] == "setup_by_computer" for e in Turn.objects.get(campaign=campaign, number=0).events)
    assert all(e.missed_turns == 0 for e in campaign.empires.all())


def test_item1_setup_round_exports_imports_and_rolls_back(small_campaign_in_setup, alice, tmp_path):
    # docs/export-format.md: a campaign in its set-up round exports with turn 0 and imports whole.
    campaign = small_campaign_in_setup
    doc = export_campaign(campaign)
    assert doc["campaign"]["turn"] == 0 and [t["number"] for t in doc["turns"]] == [0]
    copy = eh_actions.import_campaign(doc)
    assert copy.turn == 0 and Turn.objects.get(campaign=copy).status == Turn.Status.OPEN
    eh_actions.process_turn(campaign_id=copy.pk)
    copy.refresh_from_db()
    assert copy.turn == 1 and Ship.objects.filter(campaign=copy).exists()
    # The moderator can roll the set-up round back: the round is open again, nothing bought.
    eh_actions.process_turn(campaign_id=campaign.pk)
    roll_back_turn(campaign_id=campaign.pk, user=alice, turn_number=0)
    campaign.refresh_from_db()
    assert campaign.turn == 0 and campaign.paused and not Ship.objects.filter(campaign=campaign).exists()
    assert Turn.objects.get(campaign=campaign, number=0).status == Turn.Status.OPEN


def test_item1_a_pre_setup_export_still_imports_and_plays(small_campaign, tmp_path):
    # An export made before the set-up round existed has no turn 0 and starts at turn 1: it
    # imports as it is and turn 1 is played as any other (docs/export-format.md).
    doc = export_campaign(small_campaign)
    doc["turns"] = [t for t in doc["turns"] if t["number"] != 0]
    doc["dice_log"] = [r for r in doc["dice_log"] if r["turn"] != 0 or r["phase"] == "setup"]
    doc["campaign"]["dice_offset"] = doc["dice_log"][-1]["offset"] + doc["dice_log"][-1]["words"]
    copy = eh_actions.import_campaign(doc)
    assert copy.turn == 1 and not Turn.objects.filter(campaign=copy, number=0).exists()
    assert eh_actions.process_turn(campaign_id=copy.pk).number == 1


def test_item1_seats_played_by_the_computer_buy_a_setup_fleet(small_campaign_in_setup):
    campaign = small_campaign_in_setup
    campaign.empires.update(is_bot=True)
    assert eh_actions.write_bot_orders(campaign_id=campaign.pk) == 2
    rows = TurnOrders.objects.filter(turn__number=0)
    assert rows.count() == 2 and all(r.ready and r.orders["purchases"] for r in rows)
    eh_actions.process_turn(campaign_id=campaign.pk)
    assert all(e.ships.count() >= 4 for e in campaign.empires.all())


# --- item 2: turn 1 opens with Resource Exploitation ------------------------------------------------


def test_item2_turn_1_income_is_rolled_logged_and_shown_before_turn_1_orders(client, small_campaign_in_setup, bob):
    campaign = small_campaign_in_setup
    eh_actions.process_turn(campaign_id=campaign.pk)
    campaign.refresh_from_db()
    rolls = DiceRoll.objects.filter(campaign=campaign, turn=0, purpose=INCOME_PURPOSE)
    assert rolls.count() == 2  # each home world's BP die (003 Campaign Turn Sequence)
    setup = Turn.objects.get(campaign=campaign, number=0)
    income = {e["seats"][0]: e["data"]["bp"] for e in setup.events if e["kind"] == "income_total"}
    faces = [e["data"]["faces"] for e in setup.events if e["kind"] == "world_income"]
    assert sorted(f for fs in faces for f in fs) == sorted(f for r in rolls for f in r.faces)
    # Shown: bob's report of the set-up round has the income, and the orders page of turn 1 the BP.
    client.force_login(bob)
    report = client.get(f"/campaigns/{campaign.pk}/reports/0/").content.decode()
    assert "Income" in report and f"Income for next turn: {income[1]} BP" in report
    data = client.get(f"/api/campaigns/{campaign.pk}/orders/").json()
    assert data["turn"] == 1 and data["setup"] is False
    assert seat(campaign, 1).bp == setup.summary["1"]["bp"]


def test_item2_income_rolls_tell_the_dice_service_whose_they_are(small_campaign_in_setup):
    # The roll's purpose names only the rule (FW7); the dice log records the empire each income
    # roll concerns, so it can withhold it from the others (issue 14, docs/dice.md).
    eh_actions.process_turn(campaign_id=small_campaign_in_setup.pk)
    rolls = DiceRoll.objects.filter(campaign=small_campaign_in_setup, turn=0, purpose=INCOME_PURPOSE).order_by("seq")
    assert [list(r.concerns) for r in rolls] == [[1], [2]] or [list(r.concerns) for r in rolls] == [[2], [1]]


# --- item 16: the preview warns when the orders can leave the empire with no ships --------------------


def test_item16_the_api_preview_warns_without_refusing(small_campaign_in_setup, bob, carol):
    campaign = small_campaign_in_setup
    eh_actions.submit_orders(empire_id=seat(campaign, 1).pk, raw={})  # bob buys nothing in the set-up round
    eh_actions.process_turn(campaign_id=campaign.pk)
    response = api(bob).post(f"/api/campaigns/{campaign.pk}/orders/preview/", {"orders": {}}, format="json")
    assert response.status_code == 200  # a warning, not a refusal
    (warning,) = response.json()["warnings"]
    assert "003 Purpose of the Campaign" in warning and "no ships" in warning
    # A ship that takes one turn would be completed this turn: no warning. (The starter library
    # has none, so bob designs a Patrol Craft: 20 BP.)
    eh_actions.save_design(spec={"name": "Picket", "ship_type": "patrol_craft", "hull": 8, "engine": 8,
                              "weapons": {"laser_bank": 4}}, campaign=campaign, empire=seat(campaign, 1))
    orders = {"purchases": [{"build": "Picket", "dockyard": dock(seat(campaign, 1))}]}
    ok = api(bob).put(f"/api/campaigns/{campaign.pk}/orders/", {"orders": orders}, format="json")
    assert ok.status_code == 200 and ok.json()["warnings"] == []
    # carol has her set-up fleet at home, out of anyone's reach: no warning either.
    assert api(carol).post(f"/api/campaigns/{campaign.pk}/orders/preview/", {"orders": {}},
                           format="json").json()["warnings"] == []


def test_membership_and_turn_rows_are_consistent_after_setup(small_campaign_in_setup):
    # Regression guard: closing the set-up round opens exactly one next turn.
    eh_actions.process_turn(campaign_id=small_campaign_in_setup.pk)
    assert list(Turn.objects.filter(campaign=small_campaign_in_setup).values_list("number", "status")) == [
        (0, Turn.Status.DONE), (1, Turn.Status.OPEN)]
    assert not Membership.objects.filter(campaign=small_campaign_in_setup, role="player").exists()


def test_item1_deadline_reminders_name_the_setup_round(alice, bob, django_capture_on_commit_callbacks):
    # The set-up round is reminded like any turn (docs/online-play.md), and the email says which round.
    lobby = eh_actions.create_lobby(moderator=alice, name="Remind", width=12, height=12, seats=2, seed="remind",
                                 setup_hours=48)
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="B", colour=COLOUR_PALETTE[0])
    start = timezone.now()
    actions.start_campaign(campaign_id=lobby.pk, user=alice, now=start)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        sent = actions.send_deadline_reminders(now=start + timedelta(hours=47, minutes=30))
    assert sent == 1
    (message,) = mail.outbox
    assert message.to == ["bob@example.com"] and "orders for the set-up round are due within 1 hour" in message.subject
    assert "Your orders for the set-up round of Remind" in message.body
