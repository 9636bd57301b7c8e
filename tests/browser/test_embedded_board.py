"""Issue 13 item 19, the embedded board in a real browser, at desktop and at phone width
(390×844): the activated ship is moved by clicking a highlighted destination square and then
its facing (no long drop-down of every move), and the replay opens at the start and plays by
itself (play, pause, speed). Screenshots: tests/artifacts/test_embedded_board_*--*.png.

Rules: 003 "The Turn Sequence" (activate, then move), "Movement"; rulings TP1–TP7.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tactical.models import Battle
from tactical.play import actions as play
from tests.browser.conftest import DESKTOP, PHONE, sideways_overflow
from tests.tactical.battle_support import contact_turn

IDS = ["desktop", "phone"]
USERS = {1: ("bob", "pw-bob"), 2: ("carol", "pw-carol")}


def _state(page, battle_id: int) -> dict:
    return page.request.get(reverse("api-battle-state", args=[battle_id])).json()


def _fits(page, selector: str, viewport: dict) -> bool:
    """The element lies within the viewport's width (the site's navigation is item 23's)."""
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 0.5


def _acting_side(battle) -> int:
    from tactical.play import embedded

    return embedded.current_state(battle).acting_side


def _position(page) -> tuple[int, int]:
    text = page.locator("#position").inner_text()
    match = re.match(r"Step (\d+) of (\d+)", text)
    assert match, text
    return int(match.group(1)), int(match.group(2))


@pytest.mark.parametrize("phone", [False, True], ids=IDS)
def test_embedded_board_move_by_clicking_a_square(eager_tasks, small_campaign, new_page, login, shot, phone):
    viewport = PHONE if phone else DESKTOP
    contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get(campaign=small_campaign)
    seat = _acting_side(battle)
    page = new_page(phone=phone)
    login(page, *USERS[seat])
    assert _state(page, battle.pk)["acting_side"] == seat
    page.goto(reverse("battle-play", args=[battle.pk]))
    with page.expect_navigation():
        page.locator("#actions form button", has_text="Activate ship").first.click()
    # The moves are the green squares; the long list is not shown (it is only the no-script fallback).
    assert page.locator("#move-hint").is_visible()
    assert not page.locator("#move-select").is_visible()
    squares = page.locator("#board rect.sq.reach")
    assert squares.count() >= 1
    assert _fits(page, "#board", viewport) and _fits(page, "#actions", viewport)
    assert sideways_overflow(page) == []
    size = page.locator("#board rect.sq").first.bounding_box()
    assert size["width"] >= 30, "squares big enough to tap, also on a phone"
    target = squares.nth(squares.count() // 2)
    x, y = int(target.get_attribute("data-x")), int(target.get_attribute("data-y"))
    target.scroll_into_view_if_needed()
    target.click(force=True)  # a ship may be drawn over its own square
    assert page.locator("#move-dest").inner_text() == f"({x}, {y})"
    facings = page.locator("#move-facings button")
    assert facings.count() >= 1 and facings.first.is_visible()
    shot(page, f"chosen-{viewport['width']}")
    ship = _state(page, battle.pk)["activation"]["ship"]
    facing = facings.first.get_attribute("data-facing")
    with page.expect_navigation():
        facings.first.click()
    state = _state(page, battle.pk)
    moved = next(s for s in state["ships"] if s["id"] == ship)
    assert moved["pos"] == [x, y] and moved["facing"] == facing
    assert "move" in state["activation"]["actions"]
    shot(page, f"moved-{viewport['width']}")


@pytest.mark.parametrize("phone", [False, True], ids=IDS)
def test_embedded_board_replay_plays_from_the_start(eager_tasks, small_campaign, bob, carol, new_page, login, shot,
                                                    phone):
    viewport = PHONE if phone else DESKTOP
    contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get(campaign=small_campaign)
    play.hand_to_doctrine(battle_id=battle.pk, user=bob)
    play.hand_to_doctrine(battle_id=battle.pk, user=carol)  # the doctrine plays the battle out
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED
    page = new_page(phone=phone)
    login(page, "bob", "pw-bob")
    page.goto(reverse("battle-replay", args=[battle.pk]))
    step, total = _position(page)
    assert step == 0 and total > 5, "the replay opens at the start"
    assert page.locator("#replay-play").is_visible()
    page.select_option("#replay-speed", "150")
    page.click("#replay-play")
    page.wait_for_function("() => parseInt(document.getElementById('position').textContent.split(' ')[1]) >= 3")
    page.click("#replay-play")  # pause
    assert page.locator("#replay-state").inner_text() == "Paused"
    paused_at, _ = _position(page)
    page.wait_for_timeout(800)  # several steps' worth at this speed: none is taken while paused
    assert _position(page)[0] == paused_at
    assert f"step={paused_at}" in page.url  # the address follows the replay
    shot(page, f"paused-{viewport['width']}")
    # Play on from near the end: it stops at the last step and says so.
    page.goto(reverse("battle-replay", args=[battle.pk]) + f"?step={total - 2}")
    page.select_option("#replay-speed", "150")
    page.click("#replay-play")
    page.wait_for_function("() => document.getElementById('replay-state').textContent === 'The end of the battle.'")
    assert _position(page) == (total, total)
    assert _fits(page, ".board-frame svg", viewport) and _fits(page, "#replay-controls", viewport)
    assert sideways_overflow(page) == []
    shot(page, f"end-{viewport['width']}")


def test_a_step_on_its_way_when_the_replay_is_paused_is_not_taken(eager_tasks, small_campaign, bob, carol,
                                                                    new_page, login):
    # Found by a loaded CI run: "Pause" clicked while the next step's frame was being fetched, and
    # the frame arrived after the pause and moved the replay on one step. The test holds that frame's
    # request itself and lets it go only once the replay is paused (a handler that slept instead ran
    # before the pause when the request and its route arrived together: a race of its own).
    contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get(campaign=small_campaign)
    play.hand_to_doctrine(battle_id=battle.pk, user=bob)
    play.hand_to_doctrine(battle_id=battle.pk, user=carol)
    page = new_page()
    login(page, "bob", "pw-bob")
    page.goto(reverse("battle-replay", args=[battle.pk]))
    assert _position(page)[0] == 0

    held = []
    page.route(re.compile(r".*[?&]frame=1.*"), lambda route: held.append(route))
    page.click("#replay-play")
    for _ in range(200):  # until the first step's frame is asked for (and held)
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the replay never asked for the first step's frame"
    page.click("#replay-play")  # pause, the first step's frame still on its way
    assert page.locator("#replay-state").inner_text() == "Paused"
    for route in held:
        route.continue_()  # the frame arrives after the pause
    page.wait_for_timeout(1500)  # long after that frame has arrived
    assert _position(page)[0] == 0 and "step=" not in page.url
