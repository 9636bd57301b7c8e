"""Issue 23, the CAM rubber's rough edges a newcomer trips over (items 4, 12, 13, 15, 16)."""

import html
import re

import pytest

from campaign.cam import actions
from campaign.models import Campaign

from .conftest import at_the_table, make_cam, ship_numbers


def finished_rubber(alice, bob, carol):
    """A rubber of one scenario, auto-resolved by the moderator (ruling CAM26): it is over."""
    c = at_the_table(alice, bob, carol, scenarios=1)
    actions.autoresolve(campaign_id=c.pk, user=alice)
    c.refresh_from_db()
    assert c.status == Campaign.Status.FINISHED
    return c


def _card(html: str, campaign_id: int) -> str:
    start = html.index(f'data-campaign="{campaign_id}"')
    return html[start:html.index("</li>", start)]


def test_home_card_of_a_finished_rubber_names_the_standings_winner(client, alice, bob, carol):
    # item 4 — CAM 4.3: the campaign is won on campaign points; the card says what the standings say.
    c = finished_rubber(alice, bob, carol)
    table = actions.standings(c.cam)
    client.force_login(bob)
    card = html.unescape(re.sub(r"\s+", " ", _card(client.get("/").content.decode(), c.pk)))
    assert "you play Bob's Squadron" in card  # the fleet's name, as an Event Horizon card names the empire
    if table.winner is None:
        assert "no winner" not in card and "a drawn campaign" in card
    else:
        winner = next(s.name for s in table.table if s.seat == table.winner)
        assert f"<strong>{winner}</strong> won" in card
        assert "no winner" not in card


@pytest.mark.parametrize("points, verdict", [((5, 2), "Bob&#x27;s Squadron</strong> won"),
                                            ((2, 5), "Carol&#x27;s Raiders</strong> won"),
                                            ((3, 3), "a drawn campaign")])
def test_home_card_winner_follows_campaign_points(client, alice, bob, carol, points, verdict):
    # item 4 — both outcomes and the draw of ruling CAM20, whatever the dice of the scenario gave.
    c = finished_rubber(alice, bob, carol)
    for seat, cps in zip((1, 2), points):
        c.cam.players.filter(seat=seat).update(campaign_points=cps)
    client.force_login(carol)
    card = _card(client.get("/").content.decode(), c.pk)
    assert verdict in card and "no winner" not in card
    standings = client.get(f"/cam/{c.pk}/standings/").content.decode()
    assert verdict.split("</strong>")[0].split("(")[0] in standings


def test_the_cam_join_form_speaks_of_fleets_and_offers_the_powers_cam_4_2_classes(client, alice, bob):
    # item 12 — 000 CAM 4.2 wealth lists (and CAM 3.1 tempers): the powers are offered up front.
    from campaign.cam import actions as cam_actions
    from campaign.rules.cam import factions as fx

    lobby = cam_actions.create_cam_lobby(moderator=alice, name="Rubber at Organia", period=2, starting_points=100,
                                         scenarios=2, seed="cam-lobby", step_hours=48)
    client.force_login(bob)
    page = html.unescape(client.get(f"/join/{lobby.invite_token}/").content.decode())
    words = re.sub(r"<[^>]+>", " ", page)  # what a reader sees (the field keeps its name, empire_name)
    assert "Empire" not in words and "empire" not in words and "Terran" not in words and "on the map" not in words
    assert "Fleet name" in page and "take a seat and a fleet" in page and "standings chart" in page
    options = re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', page)
    assert [v for v, _ in options if v] == list(fx.PRESETS)
    assert ("Klingons", "Klingons: rich, aggressive (+1 to break contact)") in options
    assert ("Kazon", "Kazon: poor") in options
    # a power outside the list is a form error before the action is asked, and nothing is joined
    response = client.post(f"/join/{lobby.invite_token}/", {"role": "player", "empire_name": "Vulcan Guard",
                                                                  "faction": "Vulcans", "colour": "#1f77b4"})
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    assert not lobby.memberships.filter(user=bob).exists()
    response = client.post(f"/join/{lobby.invite_token}/", {"role": "player", "empire_name": "Bob's Squadron",
                                                                  "faction": "Romulans", "colour": "#1f77b4"})
    assert response.status_code == 302
    assert lobby.memberships.get(user=bob).faction == "Romulans"
    detail = client.get(f"/lobby/{lobby.pk}/").content.decode()
    assert "<th>Fleet</th><th>Power</th>" in detail


def test_the_event_horizon_join_form_keeps_its_words(client, alice, mallory):
    # item 12 — the default words are Event Horizon's own (the empire, a free faction, a map colour)
    from campaign.eventhorizon import actions as eh_actions

    lobby = eh_actions.create_lobby(moderator=alice, name="Open Sector", grid="hex", width=12, height=12, seats=2)
    client.force_login(mallory)
    page = client.get(f"/join/{lobby.invite_token}/").content.decode()
    assert "Empire name" in page and "take a seat and an empire" in page and "Terran" in page


CREATE_FORM = {"name": "Rubber at Organia", "period": 2, "starting_points": 100, "scenarios": 2, "points_level": 60,
               "break_percent": 40, "replacement_percent": 10, "tables": 1, "battle_mode": "tabletop"}


def test_fought_online_is_chosen_when_the_rubber_is_created_on_the_page(client, alice, bob, carol):
    # item 13 — the create page offers the scenarios' mode; each new scenario starts in it (ruling CAM40:
    # the moderator may still switch one until its table is set).
    from campaign.cam import online
    from campaign.cam.models import CamCampaign

    client.force_login(alice)
    page = client.get("/cam/new/").content.decode()
    # book-neutral: the rule book is chosen on the same form ("Battles fought online use", issue 31)
    assert 'name="scenario_mode"' in page and "Fought online on the rule book the campaign chose" in page
    data = {**CREATE_FORM, "scenario_mode": "online", "p1_username": bob.username, "p1_faction": "UFP",
            "p1_fleet": "constitution\nconstitution", "p2_username": carol.username, "p2_faction": "Klingons",
            "p2_fleet": "d7\nd7"}
    response = client.post("/cam/new/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    cam = CamCampaign.objects.get(campaign__name="Rubber at Organia")
    assert cam.scenario_mode == "online"
    assert "Fought online on the Buoyz engine" in client.get(f"/cam/{cam.pk}/").content.decode()
    actions.start(campaign_id=cam.pk, user=alice)
    row = actions.generate_scenario(campaign_id=cam.pk, user=alice, nature="open_battle")
    assert row.mode == "online"
    assert online.set_mode(campaign_id=cam.pk, user=alice, number=1, mode="tabletop").mode == "tabletop"


def test_the_lobby_and_the_api_take_the_scenarios_mode_and_refuse_a_bad_one(client, alice, bob, carol):
    # item 13 — the lobby's create page/API (its LobbyForm) and POST /api/cam/campaigns/ take it too.
    from rest_framework.test import APIClient

    from campaign.cam.models import CamCampaign

    api = APIClient()
    api.force_authenticate(alice)
    response = api.post("/api/lobby/", {**CREATE_FORM, "layer": "cam", "step_hours": 48, "scenario_mode": "online"},
                        format="json")
    assert response.status_code == 201, response.content
    assert CamCampaign.objects.get(pk=response.json()["id"]).scenario_mode == "online"
    players = [{"username": bob.username, "faction": "UFP", "fleet": ["constitution"]},
               {"username": carol.username, "faction": "Klingons", "fleet": ["d7"]}]
    before = CamCampaign.objects.count()
    response = api.post("/api/cam/campaigns/", {**CREATE_FORM, "players": players, "scenario_mode": "by pigeon"},
                        format="json")
    assert response.status_code == 400 and "by pigeon" in response.json()["detail"]
    assert CamCampaign.objects.count() == before
    response = api.post("/api/cam/campaigns/", {**CREATE_FORM, "players": players, "scenario_mode": "auto"},
                        format="json")
    assert response.status_code == 201, response.content
    assert response.json()["settings"]["scenario_mode"] == "auto"
    # without it, the tabletop as before
    response = api.post("/api/cam/campaigns/", {**CREATE_FORM, "name": "Another", "players": players}, format="json")
    assert response.json()["settings"]["scenario_mode"] == "tabletop"


@pytest.mark.parametrize("seed, bob_ships, carol_ships", [("cam-test", 3, 2), ("turns-a", 1, 1), ("turns-b", 2, 1),
                                                           ("turns-c", 4, 2), ("turns-d", 1, 2)])
def test_one_game_turn_count_on_the_battle_page_and_in_the_scenario_report(
        client, alice, bob, carol, seed, bob_ships, carol_ships):
    # item 16 — 000 CAM 3.0: the game turn a battle fought online ended in is one number, on the battle's
    # page (its summary and log) and in the scenario's record and report.
    from campaign.cam import online
    from tactical.models import Battle

    c = make_cam(alice, bob, carol, seed=seed)
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    online.set_mode(campaign_id=c.pk, user=alice, number=1, mode="online")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:bob_ships])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:carol_ships])
    actions.roll_table(campaign_id=c.pk, user=bob)
    row = online.settle(campaign_id=c.pk, user=alice, number=1)  # the doctrine plays it out
    battle = Battle.objects.get(campaign=c)
    turns = battle.result["turns"]
    ended = next(e for e in row.events if e["kind"] == "ended")["text"]
    assert f"over after game turn {turns} " in ended, (ended, turns)
    log = battle.log.get(kind="tactical_over").text
    assert f"over after game turn {turns}:" in log
    client.force_login(bob)
    play = client.get(f"/battles/{battle.pk}/play/").content.decode()
    report = client.get(f"/cam/{c.pk}/scenarios/1/").content.decode()
    numbers = set(re.findall(r"over after (?:game )?turn (\d+)", play + report))
    assert numbers == {str(turns)}, numbers


def test_both_create_pages_say_who_may_auto_resolve(client, alice):
    # Left by the newcomer's walk: "Battle mode" sat without help beside "How scenarios are fought"
    # and read as the same question; it decides who may auto-resolve (the scenario page's
    # can_autoresolve: the moderator, or either player when auto-resolve is allowed).
    client.force_login(alice)
    for url in ("/cam/new/", "/lobby/new/?layer=cam"):
        page = html.unescape(client.get(url).content.decode())
        label = page.split('for="id_battle_mode"')[1].split("</label>")[0]
        assert "Who may auto-resolve" in label, url
        assert "only the moderator may settle a scenario by the auto-resolve odds" in page, url
        assert "either player may auto-resolve a scenario not fought online" in page, url
        assert "a passed game-turn deadline auto-resolves the rest" in page, url
