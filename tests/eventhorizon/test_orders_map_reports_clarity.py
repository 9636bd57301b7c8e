"""Issue 13, "Confusing today": what players and moderators trip over (items 13, 14, 15, 17, 18,
21, 22). Each test names its item."""

import json
import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.eventhorizon.actions import roll_back_turn
from campaign.eventhorizon.models import Structure
from campaign.models import TurnOrders

pytestmark = pytest.mark.django_db


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def page_data(response) -> dict:
    found = re.search(
        r'<script id="order-data" type="application/json">(.*?)</script>', response.content.decode(), re.S
    )
    assert found
    return json.loads(found.group(1))


# --- item 14: order forms offer only what can be ordered; the preview lists every problem -------

def test_item14_preview_api_lists_every_problem(small_campaign, bob):  # 003 Use of BP in a Campaign
    bad = {"purchases": [{"build": "No Such Design", "dockyard": 1}, {"buy": "aewa", "at": [0, 0]}],
           "moves": [{"fleet": 999, "path": [[0, 0]]}]}
    response = api(bob).post(f"/api/campaigns/{small_campaign.pk}/orders/preview/", {"orders": bad}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert [p["where"] for p in body["problems"]] == ["purchases[0]", "purchases[1]", "moves[0].fleet"]
    assert all(p["rule"] and p["message"] for p in body["problems"])
    assert "No Such Design" in body["orders"] and "fleet 999" in body["orders"]
    assert "resources" in body["options"]


def test_item14_put_orders_refuses_with_every_problem_and_stores_nothing(small_campaign, bob):
    bad = {"moves": [{"fleet": 998, "path": [[0, 0]]}, {"fleet": 999, "path": [[0, 0]]}]}
    response = api(bob).put(f"/api/campaigns/{small_campaign.pk}/orders/", {"orders": bad}, format="json")
    assert response.status_code == 400
    assert len(response.json()["problems"]) == 2
    assert not small_campaign.turns.get(number=small_campaign.turn).orders.exists()


def test_item14_the_plain_form_shows_every_problem(small_campaign, client, bob):
    client.force_login(bob)
    text = json.dumps({"moves": [{"fleet": 998, "path": [[0, 0]]}, {"fleet": 999, "path": [[0, 0]]}]})
    response = client.post(f"/campaigns/{small_campaign.pk}/orders/", {"orders": text})
    errors = response.context["form"].errors["orders"]
    assert len(errors) == 2 and "fleet 998" in errors[0] and "fleet 999" in errors[1]


def test_item14_the_order_page_says_what_cannot_be_bought_and_why(small_campaign, client, bob):
    client.force_login(bob)
    data = page_data(client.get(f"/campaigns/{small_campaign.pk}/orders/"))
    resources = data["options"]["resources"]
    assert resources["aewa"]["ok"] is False and resources["aewa"]["reason"] == "requires planetary defences"
    assert resources["planetary_defences"]["ok"] is True
    home = next(w for w in data["worlds"] if w["home"])
    assert resources["planetary_defences"]["worlds"][f"{home['x']},{home['y']}"] == ""
    assert set(data["options"]["dockyards"]) == {str(d["id"]) for d in data["dockyards"]}
    # With defences listed first, the same world cannot take a second resource this turn.
    preview = api(bob).post(f"/api/campaigns/{small_campaign.pk}/orders/preview/",
                            {"orders": {"purchases": [{"buy": "planetary_defences", "at": [home["x"], home["y"]]}]}},
                            format="json").json()
    assert preview["options"]["resources"]["aewa"]["reason"].startswith("only one resource")


def test_item14_a_busy_dockyard_is_not_offered(small_campaign, client, bob):  # 003 Star Ship Build Times
    from campaign.eventhorizon import actions as eh_actions

    dockyard = Structure.objects.get(campaign=small_campaign, owner__seat=1, resource="dockyard")
    data = page_data((client.force_login(bob), client.get(f"/campaigns/{small_campaign.pk}/orders/"))[1])
    design = max(data["designs"], key=lambda d: d["build_time"])
    assert design["build_time"] > 1  # the ship stays on the stocks into the next turn
    assert data["options"]["dockyards"][str(dockyard.number)] == ""
    eh_actions.submit_orders(empire_id=small_campaign.empires.get(seat=1).pk,
                          raw={"purchases": [{"build": design["name"], "dockyard": dockyard.number}]})
    small_campaign.empires.filter(seat=2).update(is_bot=True)
    eh_actions.process_turn(campaign_id=small_campaign.pk)
    data = page_data(client.get(f"/campaigns/{small_campaign.pk}/orders/"))
    assert "still building" in data["options"]["dockyards"][str(dockyard.number)]


# --- item 13: coordinate labels on hex and square maps; hover details where the page says so ---

@pytest.mark.parametrize("kind", ["hex", "square"])
def test_item13_maps_carry_column_and_row_labels(kind):  # 003 Creating a Map: "using hexes or squares"
    from xml.etree import ElementTree

    from campaign.eventhorizon import mapsvg
    from campaign.rules.eventhorizon.mapgen import GeneratedMap, Terrain
    from campaign.rules.grid import make_grid

    grid = make_grid(kind, 7, 5)
    gmap = GeneratedMap(grid=grid, terrain=tuple(Terrain.EMPTY for _ in range(grid.size)))
    svg = ElementTree.fromstring(mapsvg.render(gmap))
    ns = {"s": "http://www.w3.org/2000/svg"}
    cols = svg.find(".//s:g[@class='coord-labels coord-cols']", ns)
    rows = svg.find(".//s:g[@class='coord-labels coord-rows']", ns)
    assert [t.text for t in cols.findall("s:text", ns)] == [str(c) for c in range(7)]
    assert [t.text for t in rows.findall("s:text", ns)] == [str(r) for r in range(5)]
    size = 12.0 if kind == "hex" else 20.0
    # Each label sits over its column / beside its row, in the margin left of and above (0, 0).
    for col, text in enumerate(cols.findall("s:text", ns)):
        assert float(text.get("x")) == pytest.approx(grid.center((col, 0), size)[0], abs=0.06)
        assert float(text.get("y")) < 0
    for row, text in enumerate(rows.findall("s:text", ns)):
        assert float(text.get("y")) == pytest.approx(grid.center((0, row), size)[1], abs=0.06)
        assert float(text.get("x")) < 0
    assert svg.get("viewBox").startswith("-")
    assert "coord-labels" not in mapsvg.render(gmap, labels=False)


def test_item13_big_maps_label_every_fifth_cell():
    from campaign.eventhorizon.mapsvg import label_step

    assert (label_step(40), label_step(100), label_step(250)) == (1, 5, 10)


def test_item13_the_campaign_page_shows_details_where_it_says_hover(small_campaign, client, bob):
    client.force_login(bob)
    html = client.get(f"/campaigns/{small_campaign.pk}/").content.decode()
    assert "Tap or click a cell" in html  # no "hover" on a page phones read (issue 23 item 23)
    # The map is live (map.js), with a details panel it fills on hover or tap.
    assert 'data-map-viewport' in html and 'data-map-hover="detail-hover"' in html and 'id="detail-hover"' in html
    assert "map.js" in html
    svg = client.get(f"/campaigns/{small_campaign.pk}/map.svg").content.decode()
    assert "<title>(" in svg and "coord-cols" in svg


# --- item 18: while a turn waits for battles, the orders page says so and links the battle ------

def test_item18_the_orders_page_says_the_turn_waits_for_battles_and_links_them(small_campaign, client, bob, carol):
    from campaign.models import Turn
    from tactical.models import Battle
    from tests.tactical.battle_support import contact_turn

    # Before any battle: the page is the plain order page.
    client.force_login(bob)
    assert 'id="waiting-for-battles"' not in client.get(f"/campaigns/{small_campaign.pk}/orders/").content.decode()
    turn = contact_turn(small_campaign, "tabletop")
    assert turn.status == Turn.Status.BATTLES
    battle = Battle.objects.get(campaign=small_campaign)
    for user in (bob, carol):
        client.force_login(user)
        html = client.get(f"/campaigns/{small_campaign.pk}/orders/").content.decode()
        assert 'id="waiting-for-battles"' in html
        assert f"Turn {turn.number} is waiting for its battles" in html
        assert f'href="/battles/{battle.pk}/"' in html and "Your battle at" in html
        assert "Bob&#x27;s Realm (attacker) against Carol&#x27;s Combine (defender)" in html


# --- item 17: irreversible moderator actions ask first; a roll-back tells the players -----------

def test_item17_process_now_with_players_not_ready_asks_first(small_campaign, client, alice, bob):
    """The panel's "process now" names who is not ready and is refused until the moderator ticks
    that it should go ahead anyway (the form and check are issue 14's; this is item 17's case)."""
    from campaign.eventhorizon import actions as eh_actions

    eh_actions.submit_orders(empire_id=small_campaign.empires.get(seat=1).pk, raw={}, ready=True)
    client.force_login(alice)
    panel = client.get(f"/campaigns/{small_campaign.pk}/moderate/").content.decode()
    assert 'name="anyway"' in panel and "Carol&#x27;s Combine" in panel
    url = f"/campaigns/{small_campaign.pk}/moderate/process/"
    response = client.post(url, {"turn": small_campaign.turn})
    assert response.status_code == 400 and "Carol&#x27;s Combine" in response.content.decode()
    small_campaign.refresh_from_db()
    assert small_campaign.turn == 1 and small_campaign.turns.get(number=1).status == "open"
    assert client.post(url, {"turn": 1, "anyway": "1"}).status_code == 302
    small_campaign.refresh_from_db()
    assert small_campaign.turn == 2


def test_item17_process_now_with_everyone_ready_needs_no_confirmation(small_campaign, client, alice):
    from campaign.eventhorizon import actions as eh_actions

    small_campaign.empires.filter(seat=2).update(is_bot=True)
    eh_actions.submit_orders(empire_id=small_campaign.empires.get(seat=1).pk, raw={}, ready=False)
    client.force_login(alice)
    TurnOrders.objects.filter(turn__campaign=small_campaign).update(ready=True)
    assert client.post(f"/campaigns/{small_campaign.pk}/moderate/process/", {"turn": 1}).status_code == 302
    small_campaign.refresh_from_db()
    assert small_campaign.turn == 2


def test_item17_starting_a_campaign_asks_first(client, alice, bob):
    from campaign import actions
    from campaign.eventhorizon import actions as eh_actions
    from campaign.models import Campaign

    lobby = eh_actions.create_lobby(moderator=alice, name="Ask First", width=12, height=12, seats=3, seed="ask")
    actions.join_campaign(user=bob, token=lobby.invite_token, empire_name="B", colour="#d62728")
    client.force_login(alice)
    response = client.post(reverse("lobby-start", args=[lobby.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Start Ask First now?" in html and "1 taken by players, 2 played by the computer" in html
    assert "cannot be undone" in html and "Yes, start it now" in html
    lobby.refresh_from_db()
    assert lobby.status == Campaign.Status.SETUP
    client.post(reverse("lobby-start", args=[lobby.pk]), {"confirm": "yes"})
    lobby.refresh_from_db()
    assert lobby.status == Campaign.Status.ACTIVE


def test_item17_a_roll_back_emails_the_players_and_shows_on_the_campaign_page(
    small_campaign, client, alice, bob, carol, mailoutbox, django_capture_on_commit_callbacks
):
    from campaign import actions

    with django_capture_on_commit_callbacks(execute=True):
        actions.process_now(campaign_id=small_campaign.pk, user=alice, turn_number=1)
    client.force_login(bob)
    assert 'id="rolled-back"' not in client.get(f"/campaigns/{small_campaign.pk}/").content.decode()
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        roll_back_turn(campaign_id=small_campaign.pk, user=alice, turn_number=1)
    told = {m.to[0]: m for m in mailoutbox}
    assert set(told) == {"bob@example.com", "carol@example.com"}  # not alice, who did it
    mail = told["bob@example.com"]
    assert "turn 1 has been rolled back" in mail.subject
    assert "open for orders again" in mail.body and f"/campaigns/{small_campaign.pk}/orders/" in mail.body
    html = client.get(f"/campaigns/{small_campaign.pk}/").content.decode()
    assert 'id="rolled-back"' in html and "Turn 1 was rolled back" in html
    # Sent once per roll-back: processing and rolling back again tells them again.
    with django_capture_on_commit_callbacks(execute=True):
        actions.process_now(campaign_id=small_campaign.pk, user=alice, turn_number=1)
    assert 'id="rolled-back"' not in client.get(f"/campaigns/{small_campaign.pk}/").content.decode()
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        roll_back_turn(campaign_id=small_campaign.pk, user=alice, turn_number=1)
    assert len([m for m in mailoutbox if "rolled back" in m.subject]) == 2


# --- item 15: reports name empires, not numbers; sides are the attacker and the defender ---------

def test_item15_report_events_name_the_empires_and_their_sides():  # 003 Invading Enemy Hexes
    from campaign.rules.eventhorizon.report import build_report, render_text

    battle = {"step": "battles", "kind": "battle", "seats": [1, 2], "public": False,
              "text": "Battle at (3, 4): empire 1 (120 BP, 3d6) against empire 2 (60 BP + defences, 2d6): "
                      "empire 1 wins; losses 0 and 2 ship(s); empire 1 takes the planet; empire 2 retreats",
              "data": {"attacker": 1, "defender": 2, "sides": {"attacker": {"bp": 120, "ships": [1, 2]},
                                                                 "defender": {"bp": 60, "ships": [3]}},
                       "dice": {"attacker": 3, "defender": 2}, "rolls": [], "losses": {}}}
    initiative = {"step": "initiative", "kind": "initiative", "seats": [1, 2], "public": True,
                  "text": "Empire 2 has the initiative and moves first; Empire 1 rolled lower"}
    names = {1: "Venetian Star Republic", 2: "Knights of S.T.J.O.N"}
    report = build_report(campaign="C", turn=1, seat=1, empire=names[1], events=[battle, initiative],
                          detected=None, names=names)
    text = render_text(report)
    assert ("Battle at (3, 4): Venetian Star Republic (attacker, 120 BP, 3d6) against Knights of S.T.J.O.N "
            "(defender, 60 BP + defences, 2d6): Venetian Star Republic wins") in text
    assert "Knights of S.T.J.O.N retreats" in text
    assert "Knights of S.T.J.O.N has the initiative" in text
    assert "attacker (Venetian Star Republic): 120 BP, 2 ship(s)" in text
    assert "defender (Knights of S.T.J.O.N): 60 BP" in text
    assert not __import__("re").search(r"\b[Ee]mpire \d", text)


def test_item15_the_report_page_and_email_name_empires_not_numbers(small_campaign, client, alice, bob, mailoutbox,
                                                                django_capture_on_commit_callbacks):
    import re as re_

    from tests.tactical.battle_support import contact_turn

    with django_capture_on_commit_callbacks(execute=True):
        turn = contact_turn(small_campaign, "auto")
    client.force_login(bob)
    html = client.get(f"/campaigns/{small_campaign.pk}/reports/{turn.number}/").content.decode()
    assert "Bob&#x27;s Realm (attacker" in html and "Carol&#x27;s Combine (defender" in html
    assert not re_.search(r"\b[Ee]mpire \d", html)
    client.force_login(alice)
    full = client.get(f"/campaigns/{small_campaign.pk}/reports/{turn.number}/").content.decode()
    assert "Carol&#x27;s Combine (seat 2):" in full and not re_.search(r"\b[Ee]mpire \d|Seat \d", full)
    from campaign import actions

    with django_capture_on_commit_callbacks(execute=True):  # the turn's email task, run here (sent once)
        actions.send_turn_notifications(campaign_id=small_campaign.pk, turn_number=turn.number)
    body = next(m.body for m in mailoutbox
                if m.to == ["bob@example.com"] and f"turn {turn.number} has been processed" in m.subject)
    assert "Bob's Realm (attacker" in body and not re_.search(r"\b[Ee]mpire \d", body)


# --- item 21: the ship designer shows a running BP total against the class's BP ----------------

def test_item21_the_designer_carries_the_engines_costs_for_its_running_total(small_campaign, client, bob):
    """The page's cost table is the engine's: adding it up for every starter design gives the
    design's BP (the browser test drives static/design.js with it)."""
    from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS

    client.force_login(bob)
    response = client.get(f"/campaigns/{small_campaign.pk}/designs/new/")
    html = response.content.decode()
    assert 'id="bp-tally"' in html and "design.js" in html
    rules = json.loads(
        re.search(r'<script id="design-bp-rules" type="application/json">(.*?)</script>', html, re.S).group(1)
    )
    for d in SAMPLE_DESIGNS:
        total = (d.hull * rules["hull"] * (2 if d.nanobot_skin else 1) + d.engine * rules["engine"]
                 + (rules["force_field"][str(d.force_field)] if d.force_field else 0)
                 + sum(rules["weapons"][k]["bp"] * n for k, n in d.weapons)
                 + d.boarding_parties * rules["boarding_parties"] + d.cargo * rules["cargo"]
                 + sum(rules[f] for f in ("stealth_field", "improved_force_fields", "core_containment_capacitor",
                                         "ai_supercomputer") if getattr(d, f)))
        assert total == d.bp == rules["types"][d.ship_type.value]["bp"], d.name


# --- item 22: a readable empire chart; a finished campaign shows its winner ---------------------

def _series(n_empires=3, turns=8, long_names=False):
    colours = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
    return {"turns": list(range(1, turns + 1)), "empires": [
        {"seat": s, "name": ("The Most Serene Venetian Star Republic " if long_names else "Empire ") + str(s),
         "colour": colours[s - 1], "bp": [100 + 10 * t * s for t in range(turns)],
         "worlds": [1 + t // 3 for t in range(turns)], "ships": [t % 4 for t in range(turns)]}
        for s in range(1, n_empires + 1)]}


def test_item22_the_chart_has_a_legend_axes_and_lines_told_apart_by_more_than_colour():
    from xml.etree import ElementTree

    from campaign.eventhorizon.charts import chart_svg

    ns = {"s": "http://www.w3.org/2000/svg"}
    svg = ElementTree.fromstring(chart_svg(_series(8, long_names=True)))
    width = float(svg.get("viewBox").split()[2])
    assert width <= 420 and float(svg.get("font-size")) >= 12  # legible when shrunk to a phone's width
    entries = svg.findall(".//s:g[@class='legend-entry']", ns)
    assert len(entries) == 8
    # The legend wraps inside the chart instead of running off its right edge.
    for g in entries:
        text = g.find("s:text", ns)
        assert float(text.get("x")) + 0.6 * 13 * len(text.text) <= width
    assert len({g.find("s:line", ns).get("y1") for g in entries}) > 1
    # Each seat's line has its own dash pattern (first 8 seats), the legend sample the same.
    lines = [p for p in svg.iter("{http://www.w3.org/2000/svg}polyline")]
    dashes = {p.get("data-seat"): p.get("stroke-dasharray") for p in lines}
    assert len(set(dashes.values())) == 8
    assert entries[1].find("s:line", ns).get("stroke-dasharray") == dashes["2"]
    # Axes: a title for each panel, values on the left, turns along the bottom, a "turn" caption.
    titles = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "panel-title"]
    assert titles == ["BP banked", "Worlds", "Ships"]
    assert sum(1 for t in svg.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "y-tick") == 9
    x_ticks = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "x-tick"]
    assert x_ticks[:len(x_ticks) // 3][0] == "1" and x_ticks[:len(x_ticks) // 3][-1] == "8"
    assert sum(1 for t in svg.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "x-caption") == 3
    # Every figure is a tooltip on its point.
    assert any(c.find("s:title", ns).text == "The Most Serene Venetian Star Republic 1, turn 2: 110 bp banked"
               for c in svg.iter("{http://www.w3.org/2000/svg}circle"))


def test_item22_the_chart_names_the_winner():
    from campaign.eventhorizon.charts import chart_svg

    assert "chart-winner" not in chart_svg(_series())
    svg = chart_svg(_series(), winner="Empire 2 won the campaign")
    assert 'class="chart-winner"' in svg and "Empire 2 won the campaign" in svg


@pytest.fixture
def finished(small_campaign, alice):
    """Turn 1 processed, then recorded as the campaign's last: bob's realm won (003 Purpose of the
    Campaign; the final turn's public campaign_won event carries the reason)."""
    from campaign import actions
    from campaign.models import Campaign

    actions.process_now(campaign_id=small_campaign.pk, user=alice)
    turn = small_campaign.turns.get(number=1)
    turn.events = [
        *turn.events,
        {
            "step": "victory",
            "kind": "campaign_won",
            "seats": [1],
            "public": True,
            "text": "Bob's Realm wins the campaign: Regime Change. The enemy home world must be captured.",
            "data": {"winner": 1},
        },
    ]
    turn.save(update_fields=["events"])
    small_campaign.turns.filter(number__gt=1).delete()
    Campaign.objects.filter(pk=small_campaign.pk).update(
        status=Campaign.Status.FINISHED, turn=1, winner=small_campaign.empires.get(seat=1))
    small_campaign.refresh_from_db()
    return small_campaign


def test_item22_a_finished_campaign_shows_its_winner_on_its_page_home_and_reports(finished, client, carol):
    client.force_login(carol)
    for path in (
        f"/campaigns/{finished.pk}/",
        f"/campaigns/{finished.pk}/reports/",
        f"/campaigns/{finished.pk}/reports/1/",
    ):
        html = client.get(path).content.decode()
        assert 'id="campaign-outcome"' in html, path
        assert "Bob&#x27;s Realm won the campaign on turn 1" in html and "Regime Change" in html, path
    assert "<strong>Bob&#x27;s Realm</strong> won" in client.get("/").content.decode()
    assert "Bob's Realm won the campaign" in client.get(f"/campaigns/{finished.pk}/chart.svg").content.decode()


def test_item22_a_campaign_that_ends_with_no_winner_says_so(finished, client, bob):
    from campaign.models import Campaign

    Campaign.objects.filter(pk=finished.pk).update(winner=None)
    client.force_login(bob)
    assert "The campaign ended with no winner" in client.get(f"/campaigns/{finished.pk}/").content.decode()
    assert "no winner" in client.get("/").content.decode()


def test_item22_a_running_campaign_shows_no_outcome(small_campaign, client, bob):
    client.force_login(bob)
    assert 'id="campaign-outcome"' not in client.get(f"/campaigns/{small_campaign.pk}/").content.decode()
