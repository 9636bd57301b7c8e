"""Turn reports on the web and for email (issue 4 item 7), the API's report, fleets and history
endpoints, and who may read what."""

import pytest
from django.core import mail
from django.core.cache import cache

from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import reports
from tests.eventhorizon.test_fog_of_war import BOB_FLEET, HIDDEN_FLEET, VISIBLE_FLEET, fog_campaign  # noqa: F401
from tests.shared_rows import wrong_answers_by_role

pytestmark = pytest.mark.django_db


@pytest.fixture
def battled(fog_campaign, django_capture_on_commit_callbacks):  # noqa: F811 (the fixture imported above)
    """Turn 1 processed: bob's fleet invades the hex of carol's fleet next to his home world
    (003 Invading Enemy Hexes), so a battle is fought by auto-resolve (003 Alternative to a
    Tactical Battle); carol's far fleet moves where bob cannot see it."""
    f = fog_campaign
    campaign = f["campaign"]
    bob, carol = campaign.empires.get(seat=1), campaign.empires.get(seat=2)
    eh_actions.submit_orders(
        empire_id=bob.pk, raw={"moves": [{"fleet": BOB_FLEET, "path": [list(f["near"])]}]}, ready=True
    )
    eh_actions.submit_orders(empire_id=carol.pk, raw={"moves": [{"fleet": HIDDEN_FLEET, "path": [list(f["far_b"])]}]},
                          ready=True)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        eh_actions.process_turn(campaign_id=campaign.pk)
    campaign.refresh_from_db()
    return f


ENDPOINTS = ["/campaigns/{id}/reports/", "/campaigns/{id}/reports/1/", "/api/campaigns/{id}/reports/1/",
             "/api/campaigns/{id}/visible-fleets/", "/api/campaigns/{id}/visible-fleets/?turn=1",
             "/api/campaigns/{id}/history/", "/api/campaigns/{id}/map/?turn=1"]


ROLES = [("alice", 200), ("bob", 200), ("carol", 200), ("olive", 200), ("mallory", 404)]


# Each endpoint is asked by every role (and, below, by nobody) on one processed campaign: the
# requests only read, so one `battled` campaign serves them all (it costs a processed turn and its
# emails; built once per role and endpoint it was 42 campaigns for these two matrices, now 8). The
# cache is emptied before each request, as it was when each was a test of its own
# (tests/conftest.py), so no role is answered from another's page; every answer is checked and
# each wrong one is named.
@pytest.mark.parametrize("path", ENDPOINTS)
def test_report_and_history_endpoints_by_role(client, battled, mallory, path):
    wrong = wrong_answers_by_role(client, path.format(id=battled["campaign"].pk), ROLES)
    assert not wrong, wrong


def test_anonymous_gets_nothing(client, battled):
    wrong = []
    for path in ENDPOINTS:
        cache.clear()
        response = client.get(path.format(id=battled["campaign"].pk))
        if path.startswith("/api/"):
            refused = response.status_code in (401, 403)
        else:
            refused = response.status_code == 302 and "/accounts/login/" in response["Location"]
        if not refused:
            wrong.append(f"{path}: {response.status_code}")
    assert not wrong, wrong


def test_report_page_shows_the_battle_with_its_dice(client, battled, bob):
    campaign = battled["campaign"]
    client.force_login(bob)
    html = client.get(f"/campaigns/{campaign.pk}/reports/1/").content.decode()
    near = battled["near"]
    assert f"Battle at ({near[0]}, {near[1]})" in html
    assert "round 1: attacker rolls" in html and "d6" in html
    assert "Movement" in html and "Income" in html and "Your position" in html and "Victory" in html
    assert f"Fleet {BOB_FLEET} moves" in html


def test_render_functions_for_email_match_the_page(battled, bob):
    campaign = battled["campaign"]
    text = reports.render_report_text(campaign, 1, bob)
    html = reports.render_report_html(campaign, 1, bob)
    assert text.startswith(f"{campaign.name} — turn 1 report for Bob's Realm")
    assert "Battle at" in text and "round 1: attacker rolls" in text
    assert "Battle at" in html and "<style" not in html and 'style="' in html  # inline styles for email


def test_moderator_reads_the_full_report_or_any_seat(client, battled, alice, bob):
    campaign = battled["campaign"]
    client.force_login(alice)
    full = client.get(f"/campaigns/{campaign.pk}/reports/1/").content.decode()
    assert f"Fleet {HIDDEN_FLEET} moves" in full and "[Carol&#x27;s Combine]" in full
    as_bob = client.get(f"/campaigns/{campaign.pk}/reports/1/?seat=1").content.decode()
    assert f"Fleet {HIDDEN_FLEET} moves" not in as_bob and "Bob&#x27;s Realm" in as_bob
    api = client.get(f"/api/campaigns/{campaign.pk}/reports/1/?seat=1").json()
    assert api["seat"] == 1
    assert client.get(f"/api/campaigns/{campaign.pk}/reports/1/").json()["seat"] is None


def test_a_player_cannot_read_another_seat(client, battled, bob):
    campaign = battled["campaign"]
    client.force_login(bob)
    html = client.get(f"/campaigns/{campaign.pk}/reports/1/?seat=2").content.decode()
    assert "For Bob&#x27;s Realm." in html  # their own report, whatever seat they ask for
    assert f"Fleet {HIDDEN_FLEET} moves" not in html
    assert client.get(f"/api/campaigns/{campaign.pk}/reports/1/?seat=2").json()["seat"] == 1
    assert client.get(f"/campaigns/{campaign.pk}/reports/1/?full=1").status_code == 404


def test_observer_reads_public_events_only(client, battled):
    campaign = battled["campaign"]
    client.force_login(battled["olive"])
    report = client.get(f"/api/campaigns/{campaign.pk}/reports/1/").json()
    assert report["seat"] == 0
    assert all(e.get("public") for s in report["sections"] for e in s["events"])
    assert client.get(f"/api/campaigns/{campaign.pk}/history/").json()["empires"] == []


def test_unprocessed_turn_and_bad_input(client, battled, bob):
    campaign = battled["campaign"]
    client.force_login(bob)
    assert client.get(f"/campaigns/{campaign.pk}/reports/2/").status_code == 404
    assert client.get(f"/api/campaigns/{campaign.pk}/reports/2/").status_code == 404
    assert client.get(f"/api/campaigns/{campaign.pk}/reports/1/?seat=x").status_code in (200, 400)
    assert client.get(f"/api/campaigns/{campaign.pk}/visible-fleets/?turn=9").status_code == 400


def test_reports_list_links_every_processed_turn(client, battled, alice):
    campaign = battled["campaign"]
    client.force_login(alice)
    html = client.get(f"/campaigns/{campaign.pk}/reports/").content.decode()
    assert f"/campaigns/{campaign.pk}/reports/1/" in html and f"/campaigns/{campaign.pk}/reports/1/?seat=2" in html


def test_history_api_scopes_the_series(client, battled, alice, bob):
    campaign = battled["campaign"]
    client.force_login(bob)
    mine = client.get(f"/api/campaigns/{campaign.pk}/history/").json()
    # The set-up round (turn 0) is the first point of the history: the fleets each empire bought.
    assert mine["turns"] == [0, 1] and [e["seat"] for e in mine["empires"]] == [1]
    assert set(mine["empires"][0]) >= {"bp", "worlds", "ships"}
    client.force_login(alice)
    assert [e["seat"] for e in client.get(f"/api/campaigns/{campaign.pk}/history/").json()["empires"]] == [1, 2]


def test_visible_fleets_history_respects_fog(client, battled, bob, alice):
    campaign = battled["campaign"]
    client.force_login(bob)
    at_start = {
        f["number"]
        for f in client.get(f"/api/campaigns/{campaign.pk}/visible-fleets/?turn=1").json()["fleets"]
    }
    assert VISIBLE_FLEET in at_start and HIDDEN_FLEET not in at_start
    client.force_login(alice)
    everything = {
        f["number"]
        for f in client.get(f"/api/campaigns/{campaign.pk}/visible-fleets/?turn=1").json()["fleets"]
    }
    assert HIDDEN_FLEET in everything

