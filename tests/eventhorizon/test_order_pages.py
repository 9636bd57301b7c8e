"""The order page, the ready and take-back forms and the ship design page (docs/orders.md;
docs/online-play.md "Turn workflow")."""

import json
import re

import pytest
from django.contrib.staticfiles import finders
from django.db import connection, connections

from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.models import Design, Fleet
from campaign.models import Empire, Membership, TurnOrders
from tests.dbsessions import other_sessions
from tests.eventhorizon.test_api_orders import a_fleet, path_into_black_hole, play
from tests.liveserver import open_connections

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(small_campaign):
    """Three turns in: both empires have fleets; both seats are people again."""
    play(small_campaign, 3)
    small_campaign.empires.update(is_bot=False)
    return small_campaign


def url(campaign, suffix="orders/"):
    return f"/campaigns/{campaign.pk}/{suffix}"


def page_data(response) -> dict:
    found = re.search(
        r'<script id="order-data" type="application/json">(.*?)</script>', response.content.decode(), re.S
    )
    assert found, "the page carries its data for the editor"
    return json.loads(found.group(1))


def stored(campaign):
    return list(
        TurnOrders.objects.filter(turn__campaign=campaign).values_list(
            "empire_id", "orders", "revision", "ready"
        )
    )


def test_the_order_page_renders_for_a_player(played, client, bob):
    client.force_login(bob)
    response = client.get(url(played))
    assert response.status_code == 200
    html = response.content.decode()
    # The map, interactive: every cell addressable, fleets as their own groups.
    assert 'class="campaign-map"' in html and 'class="cell" data-x="0" data-y="0"' in html
    assert 'class="fleet" data-fleet=' in html
    # The plain form (works without JavaScript) and the editor's script.
    assert 'name="orders"' in html and 'name="ready"' in html and "orders.js" in html
    assert url(played, "designs/new/") in html
    data = page_data(response)
    mine = set(Fleet.objects.filter(campaign=played, owner__seat=1).values_list("number", flat=True))
    assert {f["id"] for f in data["fleets"]} == mine  # only my fleets, with their speeds
    assert all(f["speed"] == min(s["move"] for s in f["ships"]) for f in data["fleets"])
    assert data["seat"] == 1 and data["open"] and data["dockyards"] and data["designs"]
    assert {r["key"] for r in data["resources"]} >= {"dockyard", "star_gate"}
    star_gate = next(r for r in data["resources"] if r["key"] == "star_gate")
    assert star_gate["cost"] == 120 and "research facility" in star_gate["requires"]  # 003 Use of BP: Star Gate
    assert data["urls"]["preview"] == f"/api/campaigns/{played.pk}/orders/preview/"


def test_the_page_shows_the_deadline_or_pause(played, client, bob):
    client.force_login(bob)
    html = client.get(url(played)).content.decode()
    assert 'data-deadline="' in html
    played.turns.filter(number=played.turn).update(deadline=None)
    assert "no deadline" in client.get(url(played)).content.decode()
    played.__class__.objects.filter(pk=played.pk).update(paused=True)
    assert 'data-paused="1"' in client.get(url(played)).content.decode()


def test_outsiders_get_404_and_anonymous_users_log_in(small_campaign, client, mallory):
    response = client.get(url(small_campaign))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.force_login(mallory)
    for suffix in ("orders/", "designs/new/"):
        assert client.get(url(small_campaign, suffix)).status_code == 404
    for suffix in ("orders/", "orders/ready/", "take-back/"):
        assert client.post(url(small_campaign, suffix), {"ready": "1"}).status_code == 404
    assert not TurnOrders.objects.filter(turn__number__gt=0).exists()  # set-up orders (turn 0) aside


def test_members_without_an_empire_get_403(small_campaign, client, alice, mallory):
    Membership.objects.create(campaign=small_campaign, user=mallory, role=Membership.Role.OBSERVER)
    for user in (alice, mallory):
        client.force_login(user)
        assert client.get(url(small_campaign)).status_code == 403
        assert client.post(url(small_campaign, "orders/ready/"), {"ready": "1"}).status_code == 403
    assert not TurnOrders.objects.filter(turn__number__gt=0).exists()  # set-up orders (turn 0) aside


@pytest.mark.parametrize("text,error", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"moves": "north"}', "must be a list"),
    ('{"purchases": [{"buy": "star_gate", "at": [0, 0]}]}', "003 Use of BP in a Campaign"),
])
def test_posting_invalid_orders_shows_the_error_and_stores_nothing(played, client, bob, text, error):
    client.force_login(bob)
    before = stored(played)
    response = client.post(url(played), {"orders": text, "ready": "on"})
    assert response.status_code == 200
    assert error in response.context["form"].errors["orders"][0]
    assert error.split(":")[0] in response.content.decode()
    assert stored(played) == before


def test_posting_a_path_through_a_black_hole_is_refused(played, client, bob):  # 003 Creating a Map: Black Hole
    client.force_login(bob)
    fleet = a_fleet(played, 1)
    text = json.dumps({"moves": [{"fleet": fleet.number, "path": path_into_black_hole(played, fleet)}]})
    before = stored(played)
    response = client.post(url(played), {"orders": text})
    assert "black hole" in response.context["form"].errors["orders"][0]
    assert stored(played) == before


def test_posting_valid_orders_stores_them_and_revisions_count(played, client, bob):
    client.force_login(bob)
    orders = {"standing": {"invasion": [{"response": "retreat"}], "loss_order": "costliest", "initiative": "last"}}
    response = client.post(url(played), {"orders": json.dumps(orders)})
    assert response.status_code == 302 and response["Location"] == url(played)
    row = TurnOrders.objects.get(empire__seat=1, turn__number=played.turn)
    assert row.orders == orders and row.revision == 1 and not row.ready
    client.post(url(played), {"orders": "{}", "ready": "on"})
    row.refresh_from_db()
    assert row.orders == {} and row.revision == 2 and row.ready
    page = client.get(url(played))
    assert "Orders saved (revision 2)" in page.content.decode()
    assert page_data(page)["revision"] == 2 and page_data(page)["ready"] is True


def test_the_orders_form_names_its_turn(played, client, bob):
    client.force_login(bob)
    page = client.get(url(played)).content.decode()
    assert f'name="turn" value="{played.turn}"' in page
    response = client.post(url(played), {"orders": "{}", "ready": "on", "turn": played.turn - 1})
    assert response.status_code == 200
    assert f"cannot store orders for turn {played.turn - 1}: it has been processed already" in response.content.decode()
    assert not TurnOrders.objects.filter(turn__number=played.turn).exists()


def test_the_ready_form_marks_ready_and_back(played, client, bob):
    client.force_login(bob)
    page = client.get(url(played)).content.decode()
    assert f'name="turn" value="{played.turn}"' in page  # the form names its turn (issue 14)
    assert client.post(url(played, "orders/ready/"), {"ready": "1", "turn": played.turn}).status_code == 302
    row = TurnOrders.objects.get(empire__seat=1, turn__number=played.turn)
    assert row.ready and row.orders == {}
    client.post(url(played, "orders/ready/"), {"ready": "0", "turn": played.turn})
    row.refresh_from_db()
    assert not row.ready
    # A form without its turn, or for another turn, marks nothing.
    client.post(url(played, "orders/ready/"), {"ready": "1"})
    client.post(url(played, "orders/ready/"), {"ready": "1", "turn": played.turn - 1})
    row.refresh_from_db()
    assert not row.ready


def test_take_back_button_appears_for_a_computer_seat_and_works(played, client, carol):
    Empire.objects.filter(campaign=played, seat=2).update(is_bot=True, auto_bot=True, missed_turns=3)
    client.force_login(carol)
    html = client.get(url(played)).content.decode()
    assert "Take my seat back" in html and url(played, "take-back/") in html
    assert client.post(url(played, "take-back/")).status_code == 302
    carols = Empire.objects.get(campaign=played, seat=2)
    assert (carols.is_bot, carols.auto_bot, carols.missed_turns) == (False, False, 0)
    assert "Take my seat back" not in client.get(url(played)).content.decode()


def test_designing_a_ship_saves_it_for_the_empire(small_campaign, client, bob):  # 003 Star Ship Design Rules
    client.force_login(bob)
    assert client.get(url(small_campaign, "designs/new/")).status_code == 200
    # A corvette is 25 BP: hull 8 + engine 9 + force field 6 (3 BP) + 5 laser banks = 25.
    form = {"name": "Needle Class Corvette", "ship_type": "corvette", "hull": 8, "engine": 9, "force_field": "6",
            "weapon_laser_bank": 5, "boarding_parties": 0, "cargo": 0}
    response = client.post(url(small_campaign, "designs/new/"), form)
    assert response.status_code == 302, response.context["form"].errors if response.context else response
    design = Design.objects.get(campaign=small_campaign, name="Needle Class Corvette")
    assert design.empire.seat == 1 and design.bp == 25
    data = page_data(client.get(url(small_campaign)))
    assert any(d["name"] == "Needle Class Corvette" and d["own"] for d in data["designs"])
    # The player can build it at once.
    eh_actions.submit_orders(empire_id=design.empire_id, raw={"purchases": [
        {"build": "Needle Class Corvette", "dockyard": 1}]})


def test_a_design_that_breaks_the_rules_is_refused_with_its_bp(small_campaign, client, bob):
    client.force_login(bob)
    form = {"name": "Overweight", "ship_type": "corvette", "hull": 12, "engine": 9, "force_field": "",
            "weapon_laser_bank": 7}
    response = client.post(url(small_campaign, "designs/new/"), form)
    assert response.status_code == 200
    assert "Star Ship Design Rules" in " ".join(response.context["form"].non_field_errors())
    assert response.context["breakdown"]["total"] == 28 and response.context["breakdown"]["target"] == 25
    assert not Design.objects.filter(name="Overweight").exists()


def test_the_editor_script_is_a_static_file():
    path = finders.find("orders.js")
    assert path and "D.urls.preview" in open(path).read()  # URLs come from the page's data


@pytest.mark.slow
# serialized_rollback: an earlier transactional test's flush also removed the starter designs
# (migration data) that the computer players build from.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_editor_in_a_browser(live_server, monkeypatch, django_user_model):
    """Drive the JavaScript editor: pick a fleet on the map, plot a step, add a build, watch the
    live preview, save and mark ready (a screenshot goes to tests/artifacts/)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    import os
    from pathlib import Path

    from django.test import Client

    if not os.path.exists("/usr/bin/chromium"):
        pytest.skip("no chromium at /usr/bin/chromium")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # the test thread shares Playwright's loop
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "pw")
    bob = django_user_model.objects.create_user("bob", "bob@example.com", "pw")
    campaign = eh_actions.create_campaign(name="Browser Sector", grid="hex", width=12, height=12, players=2,
                                       seed="test-1", moderator=alice)
    campaign.empires.update(is_bot=True)
    for _ in range(3):
        eh_actions.write_bot_orders(campaign_id=campaign.pk)
        eh_actions.process_turn(campaign_id=campaign.pk)
    campaign.refresh_from_db()
    campaign.empires.update(is_bot=False)
    campaign.empires.filter(seat=1).update(user=bob)
    client = Client()
    client.force_login(bob)
    artifacts = Path(__file__).resolve().parent.parent / "artifacts"
    artifacts.mkdir(exist_ok=True)
    connections_open = open_connections(live_server)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                                  "url": live_server.url}])
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{live_server.url}/campaigns/{campaign.pk}/orders/")
            sync_api.expect(page.locator("#preview-status")).to_have_text("orders are valid")
            page.locator("#order-map .fleet.mine").first.click()
            sync_api.expect(page.locator("#plot-fleet")).to_contain_text("Fleet")
            page.locator("#order-map .cell.reach").first.click()
            sync_api.expect(page.locator("#order-map .plot polyline")).to_have_count(1)
            sync_api.expect(page.locator("#preview-lines")).to_contain_text("moves)")
            assert '"moves"' in page.locator("#orders-form textarea").input_value()
            page.locator("#plot-undo").click()
            sync_api.expect(page.locator("#order-map .plot polyline")).to_have_count(0)
            page.locator("#order-map .cell.reach").first.click()
            page.locator("#plot-done").click()
            # Only what can be ordered is offered (issue 13 item 14): the first resource offered
            # is one the empire can buy now.
            page.locator("#buy-add").click()
            sync_api.expect(page.locator("#purchase-list li")).to_have_count(1)
            sync_api.expect(page.locator("#preview-status")).not_to_have_text("not checked yet")
            page.locator("#purchase-list li button[title=remove]").click()
            sync_api.expect(page.locator("#preview-status")).to_have_text("orders are valid")
            page.locator("#standing-change").check()
            page.locator("#standing-loss").select_option("costliest")
            page.locator("#save-button").click()
            sync_api.expect(page.locator("#save-status")).to_contain_text("saved (revision 1)")
            row = TurnOrders.objects.get(empire__seat=1, turn__number=campaign.turn)
            assert len(row.orders["moves"]) == 1 and row.orders["standing"]["loss_order"] == "costliest"
            page.screenshot(path=str(artifacts / "orders-editor.png"), full_page=True)
            page.locator("#ready-button").click()
            sync_api.expect(page.locator("#ready-state")).to_have_text("ready")
            row.refresh_from_db()
            assert row.ready
            assert errors == []
        finally:
            browser.close()
            connections_open.assert_quiet(seconds=15)  # before the flush: see tests/liveserver.py
            # While Playwright's event loop runs in this thread, Django keeps its connections per
            # asyncio context, not per thread: the ORM calls above opened one of their own, which
            # the test's teardown (back outside the loop) cannot see. Close it here, inside.
            connections.close_all()
    if connection.vendor == "postgresql":
        assert other_sessions() == []  # or PostgreSQL cannot drop the test database at the end
