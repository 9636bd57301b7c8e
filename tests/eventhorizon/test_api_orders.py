"""The turn workflow's API: orders preview, ready, fleets, taking a seat back (docs/orders.md;
003 Campaign Movement; 003 Use of BP in a Campaign)."""

import pytest
from rest_framework.test import APIClient

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import adapters
from campaign.eventhorizon.models import Fleet
from campaign.models import Turn, TurnOrders
from campaign.rules.eventhorizon.mapgen import Terrain

pytestmark = pytest.mark.django_db

# alice moderates, bob (seat 1) and carol (seat 2) play, mallory is an outsider; None: anonymous.
ENDPOINTS = [
    ("post", "/api/campaigns/{id}/orders/preview/", {"orders": {}},
     {"alice": 403, "bob": 200, "carol": 200, "mallory": 404, None: 403}),
    ("post", "/api/campaigns/{id}/ready/", {"ready": False, "turn": 1},
     {"alice": 403, "bob": 200, "carol": 200, "mallory": 404, None: 403}),
    ("get", "/api/campaigns/{id}/fleets/", None,
     {"alice": 200, "bob": 200, "carol": 200, "mallory": 404, None: 403}),
    # Nobody's seat is played by the computer here: players get 400 naming that, others no further.
    ("post", "/api/campaigns/{id}/take-back/", None,
     {"alice": 403, "bob": 400, "carol": 400, "mallory": 404, None: 403}),
]


def play(campaign, turns):
    campaign.empires.update(is_bot=True)
    for _ in range(turns):
        eh_actions.write_bot_orders(campaign_id=campaign.pk)
        eh_actions.process_turn(campaign_id=campaign.pk)
    campaign.refresh_from_db()


@pytest.fixture
def played(small_campaign):
    """Three turns in: both empires have fleets; both seats are people again."""
    play(small_campaign, 3)
    small_campaign.empires.update(is_bot=False)
    assert Fleet.objects.filter(campaign=small_campaign, owner__seat=1).exists()
    assert Fleet.objects.filter(campaign=small_campaign, owner__seat=2).exists()
    return small_campaign


def client_for(user):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.mark.parametrize("method,path,body,expected", ENDPOINTS, ids=[f"{m} {p}" for m, p, _, _ in ENDPOINTS])
@pytest.mark.parametrize("who", ["alice", "bob", "carol", "mallory", None])
def test_permission_matrix(small_campaign, mallory, django_user_model, method, path, body, expected, who):
    user = django_user_model.objects.get(username=who) if who else None
    kwargs = {"data": body, "format": "json"} if body is not None else {}
    response = getattr(client_for(user), method)(path.format(id=small_campaign.pk), **kwargs)
    assert response.status_code == expected[who], response.content
    if expected[who] == 404:
        assert b"Test Sector" not in response.content


def test_an_observer_gets_no_fleets_and_may_not_act(small_campaign, mallory):
    from campaign.models import Membership

    Membership.objects.create(campaign=small_campaign, user=mallory, role=Membership.Role.OBSERVER)
    client = client_for(mallory)
    assert client.get(f"/api/campaigns/{small_campaign.pk}/fleets/").json()["results"] == []
    assert client.post(f"/api/campaigns/{small_campaign.pk}/ready/", {"ready": True}, format="json").status_code == 403
    assert client.post(f"/api/campaigns/{small_campaign.pk}/orders/preview/", {"orders": {}},
                       format="json").status_code == 403


def test_fleets_lists_only_mine_for_a_player_and_all_for_the_moderator(played, bob, alice):
    mine = client_for(bob).get(f"/api/campaigns/{played.pk}/fleets/").json()["results"]
    assert mine and {f["owner"] for f in mine} == {1}
    assert {f["id"] for f in mine} == set(
        Fleet.objects.filter(campaign=played, owner__seat=1).values_list("number", flat=True)
    )
    fleet = mine[0]
    assert fleet["speed"] >= 1 and fleet["ships"] and {"id", "design", "move", "damage"} <= set(fleet["ships"][0])
    # 003 Campaign Movement: a fleet moves at the speed of its slowest ship.
    assert fleet["speed"] == min(s["move"] for s in fleet["ships"])
    everything = client_for(alice).get(f"/api/campaigns/{played.pk}/fleets/").json()["results"]
    assert {f["owner"] for f in everything} == {1, 2}


def a_fleet(campaign, seat):
    return Fleet.objects.filter(campaign=campaign, owner__seat=seat).order_by("number").first()


def path_into_black_hole(campaign, fleet):
    from collections import deque

    state = adapters.load_state(campaign)
    start = (fleet.x, fleet.y)
    parents, queue = {start: None}, deque([start])
    while queue:
        here = queue.popleft()
        for cell in state.grid.neighbours(here):
            if cell in parents:
                continue
            parents[cell] = here
            if state.terrain_at(cell) is Terrain.BLACK_HOLE:
                path = [cell]
                while parents[path[-1]] != start:
                    path.append(parents[path[-1]])
                return [list(c) for c in reversed(path)]
            queue.append(cell)
    raise AssertionError("the test map has no reachable black hole")


def long_walk(campaign, fleet, steps):
    """A walk of ``steps`` cells from the fleet, each next to the one before, avoiding black holes."""
    state = adapters.load_state(campaign)
    here, path = (fleet.x, fleet.y), []
    for _ in range(steps):
        here = next(c for c in state.grid.neighbours(here)
                    if state.terrain_at(c) is not Terrain.BLACK_HOLE and c not in path and c != (fleet.x, fleet.y))
        path.append(list(here))
    return path


def stored(campaign):
    return list(
        TurnOrders.objects.filter(turn__campaign=campaign).values_list(
            "empire_id", "orders", "revision", "ready"
        )
    )


@pytest.mark.parametrize("case", ["black_hole", "too_long", "not_yours", "overspent"])
def test_preview_names_the_problem_and_stores_nothing(played, bob, case):  # 003 Campaign Movement; Use of BP
    mine, theirs = a_fleet(played, 1), a_fleet(played, 2)
    speed = next(f["speed"] for f in client_for(bob).get(f"/api/campaigns/{played.pk}/fleets/").json()["results"]
                 if f["id"] == mine.number)
    orders, message = {
        "black_hole": (
            {"moves": [{"fleet": mine.number, "path": path_into_black_hole(played, mine)}]},
            "black hole",
        ),
        "too_long": (
            {"moves": [{"fleet": mine.number, "path": long_walk(played, mine, speed + 1)}]},
            f"moves {speed}",
        ),
        "not_yours": (
            {"moves": [{"fleet": theirs.number, "path": [[theirs.x, theirs.y]]}]},
            "is not one of yours",
        ),
        "overspent": (
            {"purchases": [{"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": 1}]},
            "only 10 BP are left",
        ),
    }[case]
    if case == "overspent":
        played.builds.filter(owner__seat=1).delete()  # dockyard 1 (seat 1's home dockyard) is free
        played.empires.filter(seat=1).update(bp=10)
    before = stored(played)
    response = client_for(bob).post(f"/api/campaigns/{played.pk}/orders/preview/", {"orders": orders}, format="json")
    assert response.status_code == 400, response.content
    assert message in response.json()["orders"]
    assert stored(played) == before


def test_preview_of_valid_orders_shows_cost_and_bp_left_and_stores_nothing(played, bob):
    empire = played.empires.get(seat=1)
    dock = empire.structures.filter(resource="dockyard").first().number
    played.builds.filter(dockyard__number=dock).delete()  # a free dockyard
    fleet = a_fleet(played, 1)
    step = long_walk(played, fleet, 1)
    orders = {"purchases": [{"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": dock}],
              "moves": [{"fleet": fleet.number, "path": step}]}
    before = stored(played)
    response = client_for(bob).post(f"/api/campaigns/{played.pk}/orders/preview/", {"orders": orders}, format="json")
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["valid"] and data["cost"] == 25 and data["bp_left"] == empire.bp - 25
    assert data["moves"][0]["end"] == step[-1] and data["moves"][0]["steps"] == 1
    assert stored(played) == before


def test_preview_of_malformed_json_is_400_with_the_reason(played, bob):
    before = stored(played)
    response = client_for(bob).generic("POST", f"/api/campaigns/{played.pk}/orders/preview/", '{"orders": {',
                                       content_type="application/json")
    assert response.status_code == 400 and "JSON" in response.json()["detail"]
    response = client_for(bob).post(f"/api/campaigns/{played.pk}/orders/preview/", {"orders": []}, format="json")
    assert response.status_code == 400 and "must be an object" in response.json()["orders"]
    response = client_for(bob).post(f"/api/campaigns/{played.pk}/orders/preview/", {"moves": []}, format="json")
    assert response.status_code == 400 and "orders" in response.json()
    assert stored(played) == before


@pytest.mark.parametrize("orders", [
    {"purchases": [{"buy": {"x": 1}, "at": [0, 0]}]},
    {"purchases": [{"buy": "research_facility", "at": [0, 0], "technology": ["x"]}]},
    {"purchases": [{"build": 7, "dockyard": "one"}]},
    {"moves": [{"fleet": None, "path": [[1, 2]]}]},
    {"moves": [{"fleet": 1, "path": [[1, 2, 3]]}]},
    {"split": [{"fleet": 1, "ships": "all", "as": "x"}]},
    {"standing": {"invasion": [{"hex": [1, 1], "fleet": 2}]}},
    {"standing": "fight"},
])
def test_odd_orders_get_a_400_never_a_500(played, bob, orders):
    response = client_for(bob).post(f"/api/campaigns/{played.pk}/orders/preview/", {"orders": orders}, format="json")
    assert response.status_code == 400, response.content


def test_ready_toggles_and_un_ready_is_allowed(small_campaign, bob):
    client = client_for(bob)
    response = client.post(f"/api/campaigns/{small_campaign.pk}/ready/", {"ready": True, "turn": 1}, format="json")
    assert response.status_code == 200 and response.json()["ready"] is True
    row = TurnOrders.objects.get(empire__seat=1, turn__number=1, turn__campaign=small_campaign)
    assert row.ready and row.orders == {}
    response = client.post(f"/api/campaigns/{small_campaign.pk}/ready/", {"ready": False, "turn": 1}, format="json")
    assert response.status_code == 200 and response.json()["ready"] is False
    row.refresh_from_db()
    assert not row.ready
    assert client.post(f"/api/campaigns/{small_campaign.pk}/ready/", {"ready": "yes", "turn": 1},
                       format="json").status_code == 400


def test_ready_for_a_turn_that_is_not_open_is_409(small_campaign, bob):
    Turn.objects.filter(campaign=small_campaign, number=1).update(status=Turn.Status.PROCESSING)
    response = client_for(bob).post(
        f"/api/campaigns/{small_campaign.pk}/ready/", {"ready": True, "turn": 1}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["detail"] == ("cannot mark ready for turn 1: it is not open; "
                                         "the current turn is turn 1 (processing)")
    assert not TurnOrders.objects.filter(turn__number__gt=0).exists()  # set-up orders (turn 0) aside


@pytest.mark.parametrize("body", [{"ready": True}, {"ready": True, "turn": "1"}, {"ready": True, "turn": None}])
def test_ready_must_name_its_turn(small_campaign, bob, body):
    """Issue 14: without the turn a second click could mark the next turn ready unseen."""
    response = client_for(bob).post(f"/api/campaigns/{small_campaign.pk}/ready/", body, format="json")
    assert response.status_code == 400 and "number of the turn" in response.json()["turn"]
    assert not TurnOrders.objects.filter(turn__number__gt=0).exists()  # set-up orders (turn 0) aside


def test_a_repeated_ready_after_the_turn_was_processed_marks_nothing_more(played, bob, carol, eager_tasks,
                                                                        django_capture_on_commit_callbacks):
    """Both players ready for turn N processes it; a repeat of either request (a double click, a
    retry) answers with the mark turn N was processed with and leaves turn N + 1 alone; a ready
    for turn N that was never sent is refused (409 naming the current turn)."""
    number = played.turn
    ready = f"/api/campaigns/{played.pk}/ready/"
    assert client_for(bob).post(ready, {"ready": True, "turn": number}, format="json").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):  # the last one ready: the turn is processed
        response = client_for(carol).post(ready, {"ready": True, "turn": number}, format="json")
    assert response.status_code == 200
    assert Turn.objects.get(campaign=played, number=number).status == Turn.Status.DONE
    again = client_for(bob).post(ready, {"ready": True, "turn": number}, format="json")
    assert again.status_code == 200 and again.json() == {"turn": number, "ready": True, "turn_status": "done"}
    assert not TurnOrders.objects.filter(turn__campaign=played, turn__number=number + 1).exists()
    late = client_for(bob).post(ready, {"ready": False, "turn": number}, format="json")
    assert late.status_code == 409
    assert late.json()["detail"].startswith(f"cannot withdraw the ready mark of turn {number}: it has been processed "
                                            f"already; the current turn is turn {number + 1}")


def test_take_back_seat_through_the_api(small_campaign, bob):
    small_campaign.empires.filter(seat=1).update(is_bot=True, auto_bot=True, missed_turns=3)
    response = client_for(bob).post(f"/api/campaigns/{small_campaign.pk}/take-back/")
    assert response.status_code == 200, response.content
    assert response.json() == {"seat": 1, "is_bot": False, "missed_turns": 0}


def test_the_schema_lists_the_turn_workflow_endpoints(bob, small_campaign):
    response = client_for(bob).get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in ("orders/preview/", "ready/", "fleets/", "take-back/"):
        assert f"/api/campaigns/{{campaign_id}}/{path}" in paths


def test_orders_are_checked_against_the_state_as_it_is_now(played, alice, bob, django_assert_max_num_queries):
    """Orders are checked before the turn lock against a state the server process keeps
    (adapters.state_for_orders) while the campaign's state version stands; any change to the
    state moves it and is seen at once: here a moderator's edits (through the admin's action) of
    the banked BP and of a ship's damage."""
    from campaign.eventhorizon.models import Ship

    played.builds.filter(owner__seat=1).delete()  # dockyard 1 (seat 1's home dockyard) is free
    buy = {"purchases": [{"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": 1}]}
    client = client_for(bob)
    url = f"/api/campaigns/{played.pk}/orders/preview/"
    empire = played.empires.get(seat=1)

    def edit(row, **values):
        for name, value in values.items():
            setattr(row, name, value)
        actions.admin_edit(user=alice, instance=row)

    edit(empire, bp=500)
    assert client.post(url, {"orders": buy}, format="json").status_code == 200
    edit(empire, bp=10)
    refused = client.post(url, {"orders": buy}, format="json")
    assert refused.status_code == 400 and "only 10 BP are left" in str(refused.json())
    edit(empire, bp=500)
    assert client.post(url, {"orders": buy}, format="json").status_code == 200

    # A ship's damage (what a repair order needs) is seen as soon as it is written.
    ship = Ship.objects.filter(campaign=played, owner__seat=1).order_by("number").first()
    edit(ship, damage={})
    played.refresh_from_db()
    assert adapters.state_for_orders(played)[0].ship_index()[ship.number].damage.hull == 0
    edit(ship, damage={"hull": 1})
    played.refresh_from_db()
    assert adapters.state_for_orders(played)[0].ship_index()[ship.number].damage.hull == 1

    # Unchanged campaign row: the kept state is used, with no query at all.
    with django_assert_max_num_queries(0):
        again, _ = adapters.state_for_orders(played)
    assert again is adapters.state_for_orders(played)[0]

    # The seat's fogged view is kept with the state (issue 34 item 10), and made again with it.
    view, _ = adapters.view_for_orders(played, 1, 3)
    assert adapters.view_for_orders(played, 1, 3)[0] is view
    assert view.ship_index()[ship.number].damage.hull == 1
    edit(ship, damage={"hull": 2})
    played.refresh_from_db()
    assert adapters.view_for_orders(played, 1, 3)[0].ship_index()[ship.number].damage.hull == 2


def test_orders_naming_a_turn_that_is_no_longer_open_are_409(played, bob):
    """Issue 14: orders (and "save and mark ready") written for turn N never land in turn N + 1."""
    url = f"/api/campaigns/{played.pk}/orders/"
    number = played.turn
    response = client_for(bob).put(url, {"orders": {}, "ready": False, "turn": number}, format="json")
    assert response.status_code == 200 and response.json()["turn"] == number
    response = client_for(bob).put(url, {"orders": {}, "ready": True, "turn": number - 1}, format="json")
    assert response.status_code == 409
    assert response.json()["detail"] == (f"cannot store orders for turn {number - 1}: it has been processed already; "
                                         f"the current turn is turn {number} (taking orders)")
    assert client_for(bob).put(url, {"orders": {}, "turn": "now"}, format="json").json()["turn"].startswith(
        "the number of the turn the orders are for")
    row = TurnOrders.objects.get(turn__campaign=played, turn__number=number, empire__seat=1)
    assert row.revision == 1 and not row.ready
