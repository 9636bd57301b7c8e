"""A CAM rubber whose scenarios fought online use another rule book (issue 31 items 2–3;
docs/battles.md "Battles on another rule book"; rulings XC10–XC18): the CAM layer's option (lobby,
panel, API; audited; a player may not set it; refused once a scenario's table is rolled), and a
scenario fought on Event Horizon's tactical rules as a generic battle — the CAM players its sides,
its decision deadline and hand-over to the computer, pause, replay and dice log the generic play's —
whose result comes back as CAM's and is scored by the CAM path (000 CAM 3.1, 4.3)."""

from datetime import timedelta
from html import escape

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from campaign import actions as platform
from campaign.cam import actions as cam_actions
from campaign.cam import online
from campaign.cam.models import CamScenario
from campaign.models import AuditEntry, Campaign, DiceRoll
from tactical.models import Battle
from tactical.play import actions as play
from tactical.play import embedded
from tests.cam.conftest import make_cam
from tests.cam.test_online import _begin

URL = "/api/campaigns/{}/options/"


def _row(c, number=1) -> CamScenario:
    return CamScenario.objects.get(cam=c.cam, number=number)


def _choose_eh(client, c, alice):
    client.force_login(alice)
    r = client.patch(URL.format(c.pk), {"battle_book": "eventhorizon"}, content_type="application/json")
    assert r.status_code == 200, r.content
    assert r.json()["options"] == {"battle_book": "eventhorizon"} and r.json()["switchable"] == ["battle_book"]


# --- the option --------------------------------------------------------------------------------


def test_the_moderator_chooses_the_book_a_player_may_not_and_it_is_audited(db, client, alice, bob, carol, mallory):
    c = make_cam(alice, bob, carol)
    url = URL.format(c.pk)
    client.force_login(bob)  # a player of the rubber: 403, nothing changes
    assert client.patch(url, {"battle_book": "eventhorizon"}, content_type="application/json").status_code == 403
    client.force_login(mallory)  # an outsider: 404
    assert client.patch(url, {"battle_book": "eventhorizon"}, content_type="application/json").status_code == 404
    with pytest.raises(platform.NotAllowed):
        platform.set_campaign_option(campaign_id=c.pk, user=bob, key="battle_book", value="eventhorizon")
    c.refresh_from_db()
    assert "battle_book" not in c.options
    client.force_login(alice)
    for bad in ({"battle_book": "chess"}, {"battle_book": 7}, {"steered_drift": True}):  # EH's option: not CAM's
        r = client.patch(url, bad, content_type="application/json")
        assert r.status_code == 400, bad
    # The panel offers Buoyz (the default, CAM's own) and Event Horizon, and saves the choice.
    page = client.get(reverse("moderation-panel", args=[c.pk])).content.decode()
    assert 'value="buoyz" selected' in page and 'value="eventhorizon"' in page and "steered_drift" not in page
    assert client.post(f"/campaigns/{c.pk}/moderate/options/", {"battle_book": "eventhorizon"}).status_code == 302
    c.refresh_from_db()
    assert c.options == {"battle_book": "eventhorizon"}
    entry = AuditEntry.objects.filter(campaign=c, action="set_option").get()
    assert entry.before == {"battle_book": ""} and entry.after == {"battle_book": "eventhorizon"}
    # Back to Buoyz (its own: stored as "").
    assert client.patch(url, {"battle_book": "buoyz"}, content_type="application/json").status_code == 200
    c.refresh_from_db()
    assert c.options["battle_book"] == ""


def test_the_lobby_settings_name_the_rulings_of_the_book_chosen(db, client, alice, bob, carol):
    """The lobby's settings said "converted, house rulings XC10–XC18" (Event Horizon's) whatever book
    the rubber's battles were fought on; each book converts CAM's forces by its own rulings."""
    c = make_cam(alice, bob, carol)
    client.force_login(alice)
    for book, rulings in (("printplay", "XC19, XC26-XC30"), ("mytrek", "XC31, XC36-XC40"),
                          ("eventhorizon", "XC10-XC18")):
        assert client.patch(URL.format(c.pk), {"battle_book": book}, content_type="application/json").status_code == 200
        page = client.get(f"/lobby/{c.pk}/").content.decode()
        row = page.split("<td>Battles fought online use</td>")[1].split("</tr>")[0]
        assert f"house rulings {rulings})" in row, (book, row)
        assert book == "eventhorizon" or "XC10" not in row


def test_after_the_first_table_is_rolled_the_book_no_longer_changes(db, client, alice, bob, carol):
    c = make_cam(alice, bob, carol)
    _begin(c, alice, bob, carol, mode="tabletop")  # a tabletop scenario begun is the first battle too
    client.force_login(alice)
    r = client.patch(URL.format(c.pk), {"battle_book": "eventhorizon"}, content_type="application/json")
    assert r.status_code == 400 and "first battle" in r.json()["detail"]
    page = client.get(reverse("moderation-panel", args=[c.pk])).content.decode()
    assert "can no longer change" in page
    c.refresh_from_db()
    assert not c.options.get("battle_book")
    assert not AuditEntry.objects.filter(campaign=c, action="set_option").exists()


def test_the_lobby_offers_the_book_for_a_cam_rubber(db, client, alice):
    client.force_login(alice)
    form = client.get("/lobby/new/?layer=cam").content.decode()
    assert 'name="battle_book"' in form and 'value="eventhorizon"' in form
    data = {"layer": "cam", "name": "Rubber on EH", "period": 2, "starting_points": 100, "scenarios": 2,
            "points_level": 60, "break_percent": 40, "replacement_percent": 10, "battle_mode": "tabletop",
            "scenario_mode": "online", "tables": 1, "step_hours": 0, "battle_book": "eventhorizon"}
    r = client.post("/api/lobby/", data, content_type="application/json")
    assert r.status_code == 201, r.content
    assert Campaign.objects.get(pk=r.json()["id"]).options == {"battle_book": "eventhorizon"}
    r = client.post("/api/lobby/", {**data, "name": "Bad", "battle_book": "chess"}, content_type="application/json")
    assert r.status_code == 400 and not Campaign.objects.filter(name="Bad").exists()


# --- a scenario fought on Event Horizon ----------------------------------------------------------


def _online_on_eh(client, alice, bob, carol):
    c = make_cam(alice, bob, carol)
    _choose_eh(client, c, alice)
    _begin(c, alice, bob, carol)
    return c, Battle.objects.get(campaign=c)


def test_a_scenario_fought_on_event_horizon_is_scored_by_the_cam_path(
        db, client, alice, bob, carol, mallory, django_capture_on_commit_callbacks):
    c, battle = _online_on_eh(client, alice, bob, carol)
    row = _row(c)
    assert battle.ruleset == "eventhorizon" and battle.converted and battle.status == "playing"
    cam_side = battle.layer_setup
    assert cam_side["scenario"] == 1 and set(cam_side["sides"]) == {"1", "2"}
    assert battle.setup["converted"]["layer"] == "cam"  # Event Horizon's own setup (XC10–XC17)
    # Its state is Event Horizon's; the CAM players are its sides, an outsider sees nothing.
    assert embedded.current_state(battle) is not None
    client.force_login(mallory)
    assert client.get(reverse("battle-play", args=[battle.pk])).status_code == 404
    assert client.get(f"/api/battles/{battle.pk}/state/").status_code == 404
    for seat, user in ((1, bob), (2, carol)):
        client.force_login(user)
        state = client.get(f"/api/battles/{battle.pk}/state/").json()
        assert state["you"] == seat
        page = client.get(reverse("battle-play", args=[battle.pk])).content.decode()
        assert "Scenario 1 — fought online on Event Horizon Quick Play (converted)" in page  # its title, not its key
    summary = online.battle_summary(row)
    assert summary["id"] == battle.pk and summary["ruleset"] == "eventhorizon" and summary["converted"]
    # The tabletop entry is refused for it, as for a Buoyz battle (ruling CAM41), naming the book.
    with pytest.raises(online.Conflict, match="fought online on Event Horizon Quick Play: you cannot") as refused:
        cam_actions.enter_turn(campaign_id=c.pk, user=bob)
    assert "Buoyz" not in str(refused.value)
    # Both players hand their fleets to the computer from the play page: the battle ends, its
    # result comes back as CAM's and the scenario is scored.
    with django_capture_on_commit_callbacks(execute=True):
        for user in (bob, carol):
            client.force_login(user)
            client.post(reverse("battle-play", args=[battle.pk]), {"doctrine": "on"})
    battle.refresh_from_db()
    row.refresh_from_db()
    assert battle.status == "resolved" and battle.resolved_how == "tactical"
    assert battle.result["book"] == "eventhorizon" and battle.result["winner"] in (1, 2, None)
    assert row.stage == CamScenario.Stage.SCORED and row.score is not None
    assert any(e.get("data", {}).get("battle") == battle.pk for e in row.events)  # record_engine_result's
    # The CAM record holds what the Event Horizon battle did: every unit destroyed is recorded.
    for seat, uids in battle.result["destroyed"].items():
        assert all(row.battle["status"][seat][uid]["state"] == "destroyed" for uid in uids)
    # …and the side that did not win was ordered to break contact (XC18).
    if battle.result["winner"] is not None:
        assert str(3 - battle.result["winner"]) in row.battle["broken"]
    # The dice are in the campaign's log under the battle's phase; the replay opens.
    assert DiceRoll.objects.filter(campaign=c, phase=battle.dice_phase).exists()
    client.force_login(bob)
    assert client.get(reverse("battle-replay", args=[battle.pk])).status_code == 200
    detail = client.get(reverse("battle-detail", args=[battle.pk]))  # the converted ships' table
    assert (
        detail.status_code == 200
        and escape(battle.setup["sides"]["1"]["ships"][0]["name"]) in detail.content.decode()
    )
    decisions = [m for m in mail.outbox if "your decision" in m.subject]  # the CAM layer's email
    assert decisions and all(f"/battles/{battle.pk}/play/" in m.body for m in decisions)
    report = [m for m in mail.outbox if "scenario 1 report" in m.subject]
    # The book by its title, never its key (the report, the play page and the log said "eventhorizon").
    assert report and "fought online on Event Horizon Quick Play, converted" in report[0].body
    assert "is fought online on Event Horizon Quick Play:" in battle.log.get(kind="converted").text
    # The rubber goes on: the CAM 4.2 step between scenarios is next.
    c.refresh_from_db()
    assert c.cam.step > 0 and c.status == "active"


def test_a_late_side_is_played_by_the_doctrine_and_a_paused_rubber_holds_the_battle(
        db, client, alice, bob, carol):
    c, battle = _online_on_eh(client, alice, bob, carol)
    Campaign.objects.filter(pk=c.pk).update(activation_hours=6)
    Battle.objects.filter(pk=battle.pk).update(activation_deadline=timezone.now() + timedelta(hours=6))
    # Paused: the deciding side's time is kept, its decision refused (409), the sweep does nothing.
    platform.pause_campaign(campaign_id=c.pk, user=alice)
    battle.refresh_from_db()
    assert battle.activation_deadline is None and battle.setup["paused_left"] > 0
    steps = battle.steps.count()
    acting = embedded.rules_for(battle).acting_side(embedded.current_state(battle))
    player = bob if acting == 1 else carol
    with pytest.raises(play.NotYourTurn, match="paused"):
        play.hand_to_doctrine(battle_id=battle.pk, user=player, on=True)
    client.force_login(player)
    state = client.get(f"/api/battles/{battle.pk}/state/").json()
    choice = next(iter(state["legal"].values()))[0] if state.get("legal") else {"type": "pass"}
    r = client.post(f"/api/battles/{battle.pk}/action/", choice, content_type="application/json")
    assert r.status_code == 409
    assert play.play_due_activations(timezone.now() + timedelta(days=30)) == 0
    assert battle.steps.count() == steps
    # Resumed: the time comes back; past it the sweep lets the doctrine play the late side.
    platform.resume_campaign(campaign_id=c.pk, user=alice)
    battle.refresh_from_db()
    assert battle.activation_deadline is not None and "paused_left" not in battle.setup
    assert play.play_due_activations(timezone.now() + timedelta(hours=7)) == 1
    assert battle.steps.filter(by_doctrine=True).exists()
    assert battle.log.filter(kind="activation_late").exists()


def test_the_moderator_settles_it_by_doctrine(db, client, alice, bob, carol):
    c, battle = _online_on_eh(client, alice, bob, carol)
    online.settle(campaign_id=c.pk, user=alice, number=1, how="doctrine")
    battle.refresh_from_db()
    assert battle.status == "resolved" and _row(c).stage == CamScenario.Stage.SCORED
    assert battle.log.filter(kind="doctrine", text__contains="moderator settles").exists()


def test_pages_name_the_book_a_rubber_chose_for_its_scenarios_fought_online(db, client, alice, bob, carol):
    """The mode "fought online" is book-neutral (issue 31): a rubber on Print&Play says so on its
    lobby, rubber and scenario pages, never "the Buoyz engine"; one on Buoyz still names it."""
    lobby = cam_actions.create_cam_lobby(moderator=alice, name="Rubber at Organia", period=2,
                                         starting_points=100, scenario_mode="online", battle_book="printplay")
    client.force_login(alice)
    page = client.get(reverse("lobby-detail", args=[lobby.pk])).content.decode()
    assert escape("Fought online on Star Trek Print&Play") in page and "Buoyz" not in page
    c = make_cam(alice, bob, carol, scenario_mode="online")
    platform.set_campaign_option(campaign_id=c.pk, user=alice, key="battle_book", value="printplay")
    cam_actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    for url in (reverse("cam-detail", args=[c.pk]), reverse("cam-scenario", args=[c.pk, 1])):
        page = client.get(url).content.decode()
        assert escape("Fought online on Star Trek Print&Play") in page and "Buoyz" not in page, url
    platform.set_campaign_option(campaign_id=c.pk, user=alice, key="battle_book", value="")
    page = client.get(reverse("cam-scenario", args=[c.pk, 1])).content.decode()
    assert "Fought online on the Buoyz engine" in page
