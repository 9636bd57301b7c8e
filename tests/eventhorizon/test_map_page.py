"""The map page (issue 4 item 6): the whole map with zoom and pan, hover details, legend, trade
routes, fleets, history by turn; the map SVG and the empire chart; who may see them."""

import re

import pytest
from django.core.cache import cache

from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import visibility
from campaign.eventhorizon.models import Design, Fleet, Ship
from campaign.models import Turn
from campaign.rules.eventhorizon.mapgen import Terrain
from tests.shared_rows import wrong_answers_by_role

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(small_campaign, django_capture_on_commit_callbacks):
    """The small campaign with turn 1 processed (no orders: the standing orders stand). Each
    empire gets a ship at home first, or both would be eliminated at once (ruling VC3)."""
    give_each_empire_a_ship(small_campaign)
    with django_capture_on_commit_callbacks(execute=True):
        eh_actions.process_turn(campaign_id=small_campaign.pk)
    small_campaign.refresh_from_db()
    return small_campaign


def give_each_empire_a_ship(campaign):
    design = Design.objects.filter(campaign__isnull=True).order_by("bp").first()
    for empire in campaign.empires.all():
        home = campaign.worlds.get(home_of=empire)
        fleet = Fleet.objects.create(campaign=campaign, owner=empire, number=100 + empire.seat, x=home.x, y=home.y)
        Ship.objects.create(campaign=campaign, owner=empire, number=200 + empire.seat, design=design, fleet=fleet,
                            name=f"Guard {empire.seat}")
    campaign.id_counters = {"ship": 300, "fleet": 300, "structure": 100}
    campaign.save(update_fields=["id_counters"])


PAGES = ["/campaigns/{id}/map/", "/campaigns/{id}/map/?turn=1", "/campaigns/{id}/map.svg?turn=1",
         "/campaigns/{id}/map.svg?interactive=1", "/campaigns/{id}/chart.svg"]


ROLES = [("alice", 200), ("bob", 200), ("carol", 200), ("mallory", 404)]


# Each page is asked by every role (and, below, by nobody) on one played campaign: the requests only
# read, so one `played` campaign (a processed turn and its emails) serves them all — 8 campaigns for
# these two matrices where there were 25. The cache is emptied before each request, as it was when
# each was a test of its own (tests/conftest.py), so no role is answered from another's page; every
# answer is checked and each wrong one is named.
@pytest.mark.parametrize("path", PAGES)
def test_map_pages_by_role(client, played, mallory, path):
    wrong = wrong_answers_by_role(client, path.format(id=played.pk), ROLES)
    assert not wrong, wrong


def test_map_pages_send_anonymous_to_log_in(client, played):
    wrong = []
    for path in PAGES:
        cache.clear()
        response = client.get(path.format(id=played.pk))
        if not (response.status_code == 302 and "/accounts/login/" in response["Location"]):
            wrong.append(f"{path}: {response.status_code}")
    assert not wrong, wrong


def test_map_page_has_the_map_legend_controls_and_history(client, played, bob):
    client.force_login(bob)
    html = client.get(f"/campaigns/{played.pk}/map/").content.decode()
    assert "/static/map.js" in html and 'data-map-action="in"' in html and 'data-map-action="reset"' in html
    assert "Legend" in html and "interdicted trade route" in html and "^ planetary defences" in html
    assert '<option value="1"' in html and '<option value="2" selected' in html  # turn 2 is now
    # The picture is its own resource: the page names it (and shows it without JavaScript).
    src = re.search(r'data-map-viewport data-map-src="([^"]+)"', html).group(1).replace("&amp;", "&")
    assert src == f"/campaigns/{played.pk}/map.svg?interactive=1"
    assert f'<img src="{src}"'.replace("&", "&amp;") in html
    assert "<g class=\"cell\"" not in html
    assert client.get(src).content.decode().count('<g class="cell" data-x=') == 144


def test_map_page_names_the_svg_of_the_turn_and_seat_shown(client, played, alice):
    client.force_login(alice)  # the moderator, viewing turn 1 as seat 2
    html = client.get(f"/campaigns/{played.pk}/map/?turn=1&seat=2").content.decode()
    src = re.search(r'data-map-src="([^"]+)"', html).group(1).replace("&amp;", "&")
    assert src == f"/campaigns/{played.pk}/map.svg?interactive=1&turn=1&seat=2"
    assert client.get(src).status_code == 200


def test_the_map_svg_is_revalidated_by_its_etag(client, played, bob, carol):
    url = f"/campaigns/{played.pk}/map.svg?interactive=1"
    client.force_login(bob)
    first = client.get(url)
    etag = first["ETag"]
    assert first.status_code == 200 and etag and "no-cache" in first["Cache-Control"]
    again = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == etag
    assert client.get(url, HTTP_IF_NONE_MATCH='"something-else"').status_code == 200
    # Another player's eyes see another picture: never a 304 on bob's tag.
    client.force_login(carol)
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 200
    # A change on the map (a fleet moves) makes bob's copy stale.
    client.force_login(bob)
    fleet = Fleet.objects.filter(campaign=played, owner__seat=1).first()
    fleet.x, fleet.y = 0, 0
    fleet.save()  # a single-row save moves the state version (campaign/versioning.py)
    changed = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag


def test_the_map_etag_does_not_move_with_what_the_viewer_cannot_see(client, played, bob, carol):
    # Issue 24 item 4: the ETag was made from the campaign's state version, which another empire's
    # private design moves: bob's map changed its tag though nothing on it changed.
    url = f"/campaigns/{played.pk}/map.svg?interactive=1"
    client.force_login(bob)
    first = client.get(url)
    etag = first["ETag"]
    version = played.state_version
    spec = {"name": "Secret Picket", "ship_type": "patrol_craft", "hull": 6, "engine": 6, "force_field": 6,
            "weapons": {"laser_bank": 5}}
    eh_actions.save_design(spec=spec, campaign=played, empire=played.empires.get(seat=2))
    played.refresh_from_db()
    assert played.state_version != version  # the cache key moved: the picture is rendered again …
    again = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again["ETag"] == etag  # … and it is the same picture


def test_a_weak_etag_revalidates_the_map_too(client, played, bob):
    # Issue 34 item 3: a proxy that compresses the SVG sends W/"…" back; that is a match (RFC 9110 13.1.2).
    url = f"/campaigns/{played.pk}/map.svg"
    client.force_login(bob)
    etag = client.get(url)["ETag"]
    answer = client.get(url, HTTP_IF_NONE_MATCH=f"W/{etag}")
    assert answer.status_code == 304 and answer.content == b""


def test_interactive_svg_makes_every_cell_and_fleet_addressable(client, small_campaign, bob):
    home = small_campaign.worlds.get(home_of__seat=1)
    empire = small_campaign.empires.get(seat=1)
    design = Design.objects.filter(campaign__isnull=True).first()
    fleet = Fleet.objects.create(campaign=small_campaign, owner=empire, number=77, x=home.x, y=home.y)
    Ship.objects.create(
        campaign=small_campaign, owner=empire, number=701, name="Pathfinder", design=design, fleet=fleet
    )
    client.force_login(bob)
    svg = client.get(f"/campaigns/{small_campaign.pk}/map.svg?interactive=1").content.decode()
    cells = re.findall(r'<g class="cell" data-x="(\d+)" data-y="(\d+)">', svg)
    assert len(set(cells)) == 144
    assert '<g class="fleet" data-fleet="77" data-owner="1">' in svg
    assert 'fill="transparent"' in svg  # empty cells take clicks
    assert "Pathfinder" in svg  # your own ships are named in the hover text
    plain = client.get(f"/campaigns/{small_campaign.pk}/map.svg").content.decode()
    assert "data-x=" not in plain  # the plain picture stays light


def test_history_shows_the_start_of_a_past_turn(client, played, alice):
    snapshot = Turn.objects.get(campaign=played, number=1).snapshot
    assert snapshot  # process_turn keeps it
    client.force_login(alice)
    html = client.get(f"/campaigns/{played.pk}/map/?turn=1").content.decode()
    assert "Start of turn 1" in html and "data-map-viewport" in html


def test_missing_history_is_explained_not_an_error(client, played, alice):
    Turn.objects.filter(campaign=played, number=1).update(snapshot=None)
    client.force_login(alice)
    html = client.get(f"/campaigns/{played.pk}/map/?turn=1").content.decode()
    assert "This map is not available" in html and "was not kept" in html
    assert client.get(f"/campaigns/{played.pk}/map.svg?turn=1").status_code == 404


@pytest.mark.parametrize("query", ["turn=abc", "turn=99", "seat=x"])
def test_bad_map_parameters_are_a_404_not_a_500(client, played, alice, query):
    client.force_login(alice)
    assert client.get(f"/campaigns/{played.pk}/map.svg?{query}").status_code == 404


def test_api_map_history_validates_the_turn(client, played, bob):
    client.force_login(bob)
    assert client.get(f"/api/campaigns/{played.pk}/map/?turn=0").status_code == 400
    assert client.get(f"/api/campaigns/{played.pk}/map/?turn=x").status_code == 400
    assert client.get(f"/api/campaigns/{played.pk}/map/?turn=1").json()["turn"] == 1


def _two_worlds_for_bob(campaign):
    """Give bob a second world (so he has a trade route) and return the route's path."""
    state = visibility.state_at(campaign)
    home = next(w for w in state.worlds if w.home_of == 1)
    other = min((w for w in state.worlds if w.owner is None), key=lambda w: state.grid.distance(w.coord, home.coord))
    campaign.worlds.filter(x=other.coord[0], y=other.coord[1]).update(owner=campaign.empires.get(seat=1))
    view = visibility.view_for(campaign, visibility.Viewer("moderator", None, None, None))
    (seat, status), = [(s, st) for s, st in visibility.trade_routes(view) if s == 1]
    return status.network.edges[0].path


def test_trade_routes_own_for_players_all_for_the_moderator(client, small_campaign, alice, bob, carol):
    # "003 Trade Routes": an empire's worlds are joined by routes; fog of war shows your own.
    path = _two_worlds_for_bob(small_campaign)
    assert len(path) >= 2
    client.force_login(bob)
    assert 'class="route" data-owner="1"' in client.get(f"/campaigns/{small_campaign.pk}/map.svg").content.decode()
    client.force_login(carol)
    assert 'data-owner="1" points=' not in client.get(f"/campaigns/{small_campaign.pk}/map.svg").content.decode()
    client.force_login(alice)
    assert 'class="route" data-owner="1"' in client.get(f"/campaigns/{small_campaign.pk}/map.svg").content.decode()


def test_an_interdicted_route_is_marked(client, small_campaign, bob):
    # "003 Trade Routes": an enemy fleet (two or more ships) on a route interdicts it (ruling T6).
    path = _two_worlds_for_bob(small_campaign)
    state = visibility.state_at(small_campaign)
    spot = next((c for c in path[1:-1] if state.terrain_at(c) is not Terrain.BLACK_HOLE), path[-1])
    carol = small_campaign.empires.get(seat=2)
    design = Design.objects.filter(campaign__isnull=True).first()
    fleet = Fleet.objects.create(campaign=small_campaign, owner=carol, number=88, x=spot[0], y=spot[1])
    for n in (801, 802):
        Ship.objects.create(campaign=small_campaign, owner=carol, number=n, design=design, fleet=fleet)
    client.force_login(bob)
    svg = client.get(f"/campaigns/{small_campaign.pk}/map.svg").content.decode()
    assert 'class="route interdicted" data-owner="1"' in svg and "(interdicted)" in svg


def test_chart_shows_own_lines_to_players_and_all_to_the_moderator(client, played, alice, bob):
    client.force_login(bob)
    assert played.status == played.Status.ACTIVE
    svg = client.get(f"/campaigns/{played.pk}/chart.svg").content.decode()
    assert svg.startswith("<svg") and "BP banked" in svg and "Worlds" in svg and "Ships" in svg
    assert "Bob&#x27;s Realm" in svg or "Bob's Realm" in svg
    assert "Carol" not in svg
    client.force_login(alice)
    svg = client.get(f"/campaigns/{played.pk}/chart.svg").content.decode()
    assert "Carol" in svg and "Bob" in svg


def test_chart_without_turns_says_so(client, small_campaign_in_setup, bob):
    # In its set-up round a campaign has processed nothing yet.
    client.force_login(bob)
    assert "No processed turns" in client.get(f"/campaigns/{small_campaign_in_setup.pk}/chart.svg").content.decode()


def test_campaign_page_links_map_reports_and_chart(client, played, bob):
    client.force_login(bob)
    html = client.get(f"/campaigns/{played.pk}/").content.decode()
    for link in ("/map/", "/reports/", "/chart.svg", "/reports/1/"):
        assert f"/campaigns/{played.pk}{link}" in html


# --- the map page kept whole per user (campaign/eventhorizon/views/campaigns.py, campaign/versioning.py)
# -------------------

def test_a_kept_map_page_costs_only_the_login_and_the_access_query(client, played, bob,
                                                                  django_assert_max_num_queries):
    client.force_login(bob)
    url = f"/campaigns/{played.pk}/map/"
    first = client.get(url)
    assert first.status_code == 200
    # session (none with Redis: cached_db), user, then the campaign with bob's standing: one query.
    with django_assert_max_num_queries(3):
        again = client.get(url)
    assert again.status_code == 200
    assert strip_csrf(again.content) == strip_csrf(first.content)


def strip_csrf(html: bytes) -> bytes:
    """The page without its per-request parts: the CSRF token and the Content-Security-Policy nonce."""
    html = re.sub(rb' nonce="[^"]+"', b"", html)
    return re.sub(rb'name="csrfmiddlewaretoken" value="[^"]+"', b"", html)


def test_a_kept_map_page_carries_this_requests_csrf_token(played, bob):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    url = f"/campaigns/{played.pk}/map/"
    client.get(url)
    page = client.get(url).content.decode()  # from the cache
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    assert "__sector-command-csrf-token__" not in page
    logout = client.post("/accounts/logout/", {"csrfmiddlewaretoken": token})
    assert logout.status_code == 302  # not 403: the token is valid for this session


def test_a_kept_map_page_follows_a_change_and_each_user_gets_their_own(client, played, bob, carol):
    url = f"/campaigns/{played.pk}/map/"
    client.force_login(bob)
    fleet = Fleet.objects.get(campaign=played, number=101)
    assert f"({fleet.x},{fleet.y})" in client.get(url).content.decode()
    fleet.x, fleet.y = (fleet.x + 1) % played.width, fleet.y
    fleet.save()
    assert f"({fleet.x},{fleet.y})" in client.get(url).content.decode()
    client.force_login(carol)
    page = client.get(url).content.decode()
    assert "carol" in page and ">bob<" not in page
    played.memberships.filter(user=carol).delete()
    played.empires.filter(user=carol).update(user=None)
    assert client.get(url).status_code == 404  # standing is read on every request, kept page or not
