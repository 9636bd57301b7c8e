"""Fog of war (issue 4 "Online play" item 5; docs/rulings.md FW1-FW7): nothing hidden leaks
through pages, the API, reports, emails, errors or history.

The cast: bob (seat 1) and carol (seat 2) play, alice moderates, olive observes. Carol has a
fleet right next to bob's home world (inside bob's detection range of 2) and another far away,
outside it, with a distinctive fleet number, ship name and design name. That far fleet moves
during turn 1, so its route is in carol's report and must be in no one else's.
"""

import json
import re

import pytest
from django.core import mail

from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import reports, visibility
from campaign.eventhorizon.models import Design, Fleet, Ship
from campaign.models import DiceRoll, Membership, Turn
from campaign.rules.eventhorizon import fog
from campaign.rules.eventhorizon.mapgen import Terrain

pytestmark = pytest.mark.django_db

HIDDEN_FLEET, HIDDEN_SHIPS = 9173, (8801, 8802, 8803)
HIDDEN_SHIP_NAME, HIDDEN_DESIGN = "Nightjar Phantom", "Whisperblade Mk IX"
VISIBLE_FLEET, VISIBLE_SHIP = 4242, 8701
BOB_FLEET, BOB_SHIP = 5150, 8601
CAROL_BP = 4321


def _word(token) -> re.Pattern:
    # Whole numbers only, so a fleet number never "matches" inside a dice hash or a pixel value.
    return re.compile(rf"(?<![\w.]){re.escape(str(token))}(?![\w])")


def _cell_group(svg: str, c) -> str:
    match = re.search(rf'<g class="cell" data-x="{c[0]}" data-y="{c[1]}">(.*?)</g>\n', svg, re.S)
    return match.group(1) if match else ""


@pytest.fixture
def fog_campaign(small_campaign_without_fleets, alice, bob, carol, django_user_model):
    campaign = small_campaign_without_fleets  # the test places every fleet itself
    olive = django_user_model.objects.create_user("olive", "olive@example.com", "pw-olive")
    Membership.objects.create(campaign=campaign, user=olive, role=Membership.Role.OBSERVER)
    state = visibility.state_at(campaign)
    grid = state.grid
    bob_home = campaign.worlds.get(home_of__seat=1)
    home = (bob_home.x, bob_home.y)
    worlds = {w.coord for w in state.worlds}
    empty = [c for c in grid.cells() if state.terrain_at(c) is Terrain.EMPTY and c not in worlds]
    near = next(c for c in empty if grid.distance(c, home) == 1)
    # Two neighbouring empty cells, both well outside bob's range (2) of his home and fleet.
    far_a, far_b = next((a, b) for a in empty for b in grid.neighbours(a)
                        if b in empty and min(grid.distance(a, home), grid.distance(b, home)) >= 5)
    carol_empire = campaign.empires.get(seat=2)
    bob_empire = campaign.empires.get(seat=1)
    library = Design.objects.filter(campaign__isnull=True).order_by("bp").first()  # a corvette
    secret = eh_actions.save_design(spec={**library.spec, "name": HIDDEN_DESIGN}, campaign=campaign,
                                    empire=carol_empire)
    hidden = Fleet.objects.create(campaign=campaign, owner=carol_empire, number=HIDDEN_FLEET, x=far_a[0], y=far_a[1])
    for n, name in zip(HIDDEN_SHIPS, (HIDDEN_SHIP_NAME, "Quiet Second", "Quiet Third"), strict=True):
        Ship.objects.create(campaign=campaign, owner=carol_empire, number=n, name=name, design=secret, fleet=hidden)
    visible = Fleet.objects.create(campaign=campaign, owner=carol_empire, number=VISIBLE_FLEET, x=near[0], y=near[1])
    Ship.objects.create(campaign=campaign, owner=carol_empire, number=VISIBLE_SHIP, name="Lantern Bright",
                        design=library, fleet=visible)
    mine = Fleet.objects.create(campaign=campaign, owner=bob_empire, number=BOB_FLEET, x=home[0], y=home[1])
    Ship.objects.create(
        campaign=campaign, owner=bob_empire, number=BOB_SHIP, name="Bob Scout", design=library, fleet=mine
    )
    carol_empire.bp = CAROL_BP
    carol_empire.save(update_fields=["bp"])
    campaign.id_counters = {"ship": 9000, "fleet": 9500, "structure": 500}
    campaign.save(update_fields=["id_counters"])
    campaign.refresh_from_db()
    return {"campaign": campaign, "olive": olive, "home": home, "near": near, "far_a": far_a, "far_b": far_b}


def _hidden_tokens(f) -> list:
    return [_word(HIDDEN_FLEET), *(_word(n) for n in HIDDEN_SHIPS), re.compile(re.escape(HIDDEN_SHIP_NAME)),
            re.compile(re.escape(HIDDEN_DESIGN)), _word(CAROL_BP)]


def _coords(c) -> list[str]:
    return [f"({c[0]}, {c[1]})", f"({c[0]},{c[1]})", f"[{c[0]}, {c[1]}]"]


def assert_nothing_hidden(text: str, f, where: str, *, coords=()):
    for pattern in _hidden_tokens(f):
        assert not pattern.search(text), f"{where} reveals {pattern.pattern}"
    for c in coords:
        for form in _coords(c):
            assert form not in text, f"{where} reveals the hidden fleet's position {form}"


def _get(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, f"{path} answered {response.status_code}"
    return response.content.decode()


def _process_turn_one(f, django_capture_on_commit_callbacks):
    campaign = f["campaign"]
    carol = campaign.empires.get(seat=2)
    eh_actions.submit_orders(empire_id=carol.pk, raw={"moves": [{"fleet": HIDDEN_FLEET, "path": [list(f["far_b"])]}]},
                          ready=True)
    with django_capture_on_commit_callbacks(execute=True):
        turn = eh_actions.process_turn(campaign_id=campaign.pk)
    assert turn is not None and turn.number == 1
    campaign.refresh_from_db()
    return campaign


# --- the pure part ---------------------------------------------------------------------------

def test_detection_covers_own_worlds_and_fleets_within_range(fog_campaign):
    state = visibility.state_at(fog_campaign["campaign"])
    cells = fog.detected_cells(state, 1, 2)
    assert fog_campaign["near"] in cells and fog_campaign["home"] in cells
    assert fog_campaign["far_a"] not in cells
    seen = fog.fogged_state(state, 1, 2)
    assert {f.id for f in seen.fleets} == {BOB_FLEET, VISIBLE_FLEET}
    assert {s.id for s in seen.ships} == {BOB_SHIP, VISIBLE_SHIP}
    assert seen.empire(2).bp == 0 and seen.empire(1).bp == state.empire(1).bp
    assert all(b.owner == 1 for b in seen.builds)
    # FW1: every world and its owner stays public.
    assert seen.worlds == state.worlds


# --- pages, SVG and API before any turn ------------------------------------------------------

def test_pages_and_api_show_the_near_fleet_and_hide_the_far_one(client, fog_campaign, bob):
    f = fog_campaign
    cid = f["campaign"].pk
    client.force_login(bob)
    pages = {
        "campaign page": _get(client, f"/campaigns/{cid}/"),
        "map page": _get(client, f"/campaigns/{cid}/map/"),
        "map SVG": _get(client, f"/campaigns/{cid}/map.svg"),
        "interactive map SVG": _get(client, f"/campaigns/{cid}/map.svg?interactive=1"),
        "chart": _get(client, f"/campaigns/{cid}/chart.svg"),
        "dice log": _get(client, f"/campaigns/{cid}/dice/"),
        "API detail": _get(client, f"/api/campaigns/{cid}/"),
        "API map": _get(client, f"/api/campaigns/{cid}/map/"),
        "API visible fleets": _get(client, f"/api/campaigns/{cid}/visible-fleets/"),
        "API fleets": _get(client, f"/api/campaigns/{cid}/fleets/"),
        "API history": _get(client, f"/api/campaigns/{cid}/history/"),
        "orders page": _get(client, f"/campaigns/{cid}/orders/"),
        "reports list": _get(client, f"/campaigns/{cid}/reports/"),
    }
    for where, text in pages.items():
        assert_nothing_hidden(text, f, where)
    svg = pages["interactive map SVG"]
    assert f'data-fleet="{VISIBLE_FLEET}"' in svg and f'data-fleet="{BOB_FLEET}"' in svg
    assert "fleet" not in _cell_group(svg, f["far_a"])
    assert svg.count('class="cell"') == 144  # every cell takes clicks
    assert f">{VISIBLE_FLEET}<" in pages["map page"]
    # Treasury and ship counts of carol's empire: hidden in the API and on the campaign page.
    detail = json.loads(pages["API detail"])
    carol_row = next(e for e in detail["empires"] if e["seat"] == 2)
    assert not {"bp", "ships", "fleets", "technologies"} & set(carol_row)
    assert next(e for e in detail["empires"] if e["seat"] == 1)["ships"] == 1
    fleets = json.loads(pages["API visible fleets"])["fleets"]
    assert {fl["number"] for fl in fleets} == {BOB_FLEET, VISIBLE_FLEET}
    assert "ship_list" not in next(fl for fl in fleets if fl["number"] == VISIBLE_FLEET)
    map_fleets = json.loads(pages["API map"])["fleets"]
    assert all((fl["x"], fl["y"]) != f["far_a"] for fl in map_fleets)
    assert [e["seat"] for e in json.loads(pages["API history"])["empires"]] == [1]


def test_moderator_sees_everything(client, fog_campaign, alice):
    f = fog_campaign
    client.force_login(alice)
    svg = _get(client, f"/campaigns/{f['campaign'].pk}/map.svg?interactive=1")
    assert f'data-fleet="{HIDDEN_FLEET}"' in svg
    detail = client.get(f"/api/campaigns/{f['campaign'].pk}/").json()
    assert next(e for e in detail["empires"] if e["seat"] == 2)["bp"] == CAROL_BP
    # A moderator can look through bob's eyes.
    as_bob = _get(client, f"/campaigns/{f['campaign'].pk}/map.svg?interactive=1&seat=1")
    assert f'data-fleet="{HIDDEN_FLEET}"' not in as_bob and f'data-fleet="{VISIBLE_FLEET}"' in as_bob


def test_observer_sees_terrain_and_owners_but_no_fleet_while_it_runs(client, fog_campaign):
    f = fog_campaign
    client.force_login(f["olive"])
    svg = _get(client, f"/campaigns/{f['campaign'].pk}/map.svg?interactive=1")
    assert 'class="fleet"' not in svg and "owner: Carol" in svg
    detail = client.get(f"/api/campaigns/{f['campaign'].pk}/").json()
    assert all("bp" not in e for e in detail["empires"])


def test_orders_naming_a_hidden_fleet_get_the_error_of_a_fleet_that_does_not_exist(client, fog_campaign, bob):
    f = fog_campaign
    cid = f["campaign"].pk
    client.force_login(bob)

    def error(fleet):
        body = {"orders": {"moves": [{"fleet": fleet, "path": [list(f["far_b"])]}]}}
        response = client.put(f"/api/campaigns/{cid}/orders/", body, content_type="application/json")
        assert response.status_code == 400
        return json.dumps(response.json()).replace(str(fleet), "N")

    assert error(HIDDEN_FLEET) == error(987654)
    merge = {"orders": {"merges": [{"fleets": [BOB_FLEET, HIDDEN_FLEET]}]}}
    hidden = client.put(f"/api/campaigns/{cid}/orders/", merge, content_type="application/json").json()
    merge["orders"]["merges"][0]["fleets"][1] = 987654
    missing = client.put(f"/api/campaigns/{cid}/orders/", merge, content_type="application/json").json()
    assert json.dumps(hidden).replace(str(HIDDEN_FLEET), "N") == json.dumps(missing).replace("987654", "N")
    assert_nothing_hidden(json.dumps(hidden).replace(str(HIDDEN_FLEET), ""), f, "order error")


# --- after a processed turn: reports, emails, history, dice ------------------------------------

def test_reports_emails_history_and_dice_after_a_turn(client, fog_campaign, bob, alice, carol,
                                                      django_capture_on_commit_callbacks):
    f = fog_campaign
    mail.outbox.clear()
    campaign = _process_turn_one(f, django_capture_on_commit_callbacks)
    cid = campaign.pk
    turn = Turn.objects.get(campaign=campaign, number=1)
    # The far fleet did move, and carol (and the moderator) read about it.
    carol_text = reports.render_report_text(campaign, 1, carol)
    assert f"Fleet {HIDDEN_FLEET} moves" in carol_text
    assert f"Fleet {HIDDEN_FLEET} moves" in reports.render_report_text(campaign, 1, alice)
    assert turn.snapshot, "process_turn keeps the state before the turn (map history)"
    carol_bp = campaign.empires.get(seat=2).bp
    hidden_places = [f["far_a"], f["far_b"]]

    client.force_login(bob)
    texts = {
        "report text (email body)": reports.render_report_text(campaign, 1, bob),
        "report HTML (email body)": reports.render_report_html(campaign, 1, bob),
        "report page": _get(client, f"/campaigns/{cid}/reports/1/"),
        "reports list": _get(client, f"/campaigns/{cid}/reports/"),
        "API report": _get(client, f"/api/campaigns/{cid}/reports/1/"),
        "API report asking for the full one": _get(client, f"/api/campaigns/{cid}/reports/1/?seat=2"),
        "map history page": _get(client, f"/campaigns/{cid}/map/?turn=1"),
        "map history SVG": _get(client, f"/campaigns/{cid}/map.svg?turn=1&interactive=1"),
        "map SVG now": _get(client, f"/campaigns/{cid}/map.svg?interactive=1"),
        "API map history": _get(client, f"/api/campaigns/{cid}/map/?turn=1"),
        "API visible fleets history": _get(client, f"/api/campaigns/{cid}/visible-fleets/?turn=1"),
        "API history": _get(client, f"/api/campaigns/{cid}/history/"),
        "chart": _get(client, f"/campaigns/{cid}/chart.svg"),
        "campaign page": _get(client, f"/campaigns/{cid}/"),
        "dice log": _get(client, f"/campaigns/{cid}/dice/"),
        "API dice log": _get(client, f"/api/campaigns/{cid}/dice/"),
    }
    for message in mail.outbox:
        if "bob@example.com" in message.to:
            body = message.body + "".join(content for content, _ in getattr(message, "alternatives", []))
            texts[f"email '{message.subject}'"] = body
    for where, text in texts.items():
        assert_nothing_hidden(text, f, where, coords=hidden_places if "map" not in where else ())
        assert f"{carol_bp} BP" not in text, f"{where} reveals carol's BP"
    # FW7: the dice log names the rule each roll was for, never a place, a fleet or an empire.
    for purpose in DiceRoll.objects.filter(campaign=campaign).values_list("purpose", flat=True):
        assert not re.search(r"\(\d+, ?\d+\)|[Ff]leet \d|[Ee]mpire \d|seat \d", purpose), purpose
    # FW7, DL2: carol's rolls (her income) are withheld from bob: their place in the chain only.
    carols = set(DiceRoll.objects.filter(campaign=campaign, concerns=[2]).values_list("seq", flat=True))
    shown = json.loads(texts["API dice log"])["results"]
    assert carols and {r["seq"] for r in shown if r["withheld"]} == carols
    assert all(r["faces"] is None and r["purpose"] is None for r in shown if r["seq"] in carols)
    for where in ("map history SVG", "map SVG now"):
        svg = texts[where]
        assert all("fleet" not in _cell_group(svg, c) for c in hidden_places), where
        assert f'data-fleet="{VISIBLE_FLEET}"' in svg, where
    assert f"Fleet {HIDDEN_FLEET}" not in texts["report text (email body)"]
    assert "Bob" in texts["report page"] and "Your position" in texts["report page"]
    # The moderator's history still has the far fleet where it started turn 1.
    client.force_login(alice)
    full = _get(client, f"/campaigns/{cid}/map.svg?turn=1&interactive=1")
    assert f'data-fleet="{HIDDEN_FLEET}"' in _cell_group(full, f["far_a"])
    assert f"Fleet {HIDDEN_FLEET} moves" in _get(client, f"/campaigns/{cid}/reports/1/")


def test_a_retreat_out_of_sight_is_reported_without_its_destination():
    # FW4 (pure): seat 1 invaded, seat 2's fleet retreated to a cell seat 1 does not detect.
    event = {"step": "invasions", "kind": "retreat", "seats": [1, 2], "public": False,
             "text": "Fleet 7 retreats from (3, 3) to (9, 9) before empire 1's fleet",
             "data": {"hex": [3, 3], "fleet": 7, "to": [9, 9], "ships": [70, 71]}}
    seen = fog.events_for([event], 1, frozenset({(3, 3)}))[0]
    assert "(9, 9)" not in seen["text"] and "to" not in seen["data"] and "ships" not in seen["data"]
    assert fog.events_for([event], 2, frozenset())[0] == event  # the retreating side knows
    assert fog.events_for([event], None)[0] == event  # and so does the moderator
    assert fog.events_for([event], 3, frozenset()) == []  # a stranger to it hears nothing


def test_everything_is_shown_once_the_campaign_has_ended(client, fog_campaign, bob):
    f = fog_campaign
    campaign = f["campaign"]
    campaign.status = campaign.Status.FINISHED
    campaign.save(update_fields=["status"])
    client.force_login(bob)
    svg = _get(client, f"/campaigns/{campaign.pk}/map.svg?interactive=1")
    assert f'data-fleet="{HIDDEN_FLEET}"' in svg
    client.force_login(f["olive"])
    assert f'data-fleet="{HIDDEN_FLEET}"' in _get(client, f"/campaigns/{campaign.pk}/map.svg?interactive=1")
