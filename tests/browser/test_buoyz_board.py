"""Playing Buoyz 'N Da 'Hood on the board (static/buoyz_board.js), at desktop and phone width:
a ship is moved by clicking (desktop: dragging from the ship) on the table, the page shows the
inches and turning points the chosen move uses, "Confirm move" stores exactly that legal move;
then a ship fires through the fire form at a listed target, and the stored step is the listed
"fire everything at it" action. The board opens zoomed on the ship to nominate, zooms with its
buttons and (phone) a two-finger pinch, pans by dragging (desktop), and nothing pushes the page
sideways. Screenshots: tests/artifacts/test_buoyz_board_*--*.png.
"""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from tactical.models import Battle
from tactical.play import actions as play
from tactical.play import embedded
from tactical.rules import registry
from tactical.rules.buoyz import play as bp
from tactical.rules.buoyz.state import ATTACK, MOVEMENT
from tests.browser.conftest import sideways_overflow

USERS = {1: ("bob", "pw-bob"), 2: ("carol", "pw-carol")}
RULES = registry.find_play("buoyz")


def _battle(campaign) -> Battle:
    setup = bp.setup_for({1: ["constitution"], 2: ["d7"]}, names={1: "Bob's Realm", 2: "Carol's Combine"},
                         turn_cap=3)
    setup["sides"]["1"]["ships"][0].update({"x": 30, "y": 20, "heading": 0})
    setup["sides"]["2"]["ships"][0].update({"x": 31, "y": 27, "heading": 180})
    battle = Battle.objects.create(campaign=campaign, turn=campaign.turn, index=1, x=0, y=0, attacker=1, defender=2,
                                   mode=Battle.Mode.TACTICAL, ruleset="buoyz", setup=setup)
    play.start_embedded(battle)
    battle.refresh_from_db()
    return battle


def _state(battle):
    battle.refresh_from_db()
    return embedded.current_state(battle)


def _view_width(page) -> float:
    return float(page.locator("#board svg").get_attribute("viewBox").split()[2])


def _screen_point(page, px):
    """The SVG pixel ``px`` of the board as a point on the screen."""
    return page.evaluate("""([x, y]) => {
      const svg = document.querySelector('#board svg.board');
      const pt = svg.createSVGPoint(); pt.x = x; pt.y = y;
      const p = pt.matrixTransform(svg.getScreenCTM());
      return [p.x, p.y];
    }""", px)


def _move_on_the_board(page, phone: bool, shot, seat: int) -> dict:
    plan = json.loads(page.locator("#bz-plan").text_content())
    ship = plan["ships"][0]
    # 2" straight ahead: a move with no turn whose end is 2" from the start.
    move = next(m for m in ship["moves"] if not m["turned"] and abs(m["used"] - 2) < 1e-6
                and not (m.get("lay_mine") or m.get("sweep") or m.get("web")))
    # Its action JSON and label are its option's in the ship's list.
    option = page.locator(f'form.move-form[data-ship="{ship["ship"]}"] select option').nth(move["i"])
    move["json"], move["label"] = json.loads(option.get_attribute("value")), option.inner_text()
    end = _screen_point(page, move["px"][-1])
    if phone:
        page.mouse.click(*end)
    else:
        # Choosing in the list shows that move on the board too.
        listed = page.locator(f'form.move-form[data-ship="{ship["ship"]}"] select')
        option = listed.locator("option").nth(3)
        listed.select_option(option.get_attribute("value"))
        assert page.locator("#bz-pick-label").inner_text() == option.inner_text()
        start = _screen_point(page, ship["px"])
        page.mouse.move(*start)
        page.mouse.down()
        page.mouse.move((start[0] + end[0]) / 2, (start[1] + end[1]) / 2, steps=4)
        page.mouse.move(*end, steps=4)
        page.mouse.up()
    assert page.locator("#bz-pick-label").inner_text() == move["label"]
    assert page.locator("#bz-pick-distance").inner_text().startswith('2" of ')
    assert "0 turning point(s) spent" in page.locator("#bz-pick-turning").inner_text()
    assert page.locator("#bz-overlay polyline.bz-path").count() == 1
    assert sideways_overflow(page) == []
    shot(page, f"side{seat}-move-chosen")
    with page.expect_navigation():
        page.click("#bz-confirm")
    assert "Refused" not in page.content()
    return move["json"]


def _fire_at_listed_target(page, battle, seat: int, shot) -> dict:
    legal = RULES.legal_json(_state(battle), seat)
    fire_group = page.locator(".bz-fire").first
    ship = int(fire_group.get_attribute("data-ship"))
    target_el = fire_group.locator(".bz-target").first
    target = int(target_el.get_attribute("data-target"))
    # The listed volley "every eligible weapon at this target", as the engine lists it.
    volley = next(a for a in legal[str(ship)] if a["type"] == "fire" and a["shots"]
                  and {t for _w, t, _d in a["shots"]} == {target} and len(a["shots"]) == len(
                      fire_group.locator(f'.bz-target[data-target="{target}"]').all()))
    fire_group.locator(f'.bz-quick button[data-target="{target}"]').click()
    for inp in fire_group.locator(f'.bz-target[data-target="{target}"] input[type=number]').all():
        assert inp.input_value() == inp.get_attribute("data-max")
    # The table shows the dice to roll and what hits.
    assert "hits on" in fire_group.inner_text() or "torpedoes" in fire_group.inner_text()
    assert sideways_overflow(page) == []
    shot(page, f"side{seat}-fire-set")
    with page.expect_navigation():
        fire_group.locator("button.bz-fire-submit").click()
    assert "Refused" not in page.content()
    return volley


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_buoyz_board_move_by_click_and_fire(small_campaign, new_page, login, shot, phone):
    battle = _battle(small_campaign)
    pages = {}
    for seat, (user, password) in USERS.items():
        pages[seat] = new_page(phone=phone)
        login(pages[seat], user, password)
    url = reverse("battle-play", args=[battle.pk])
    moved, fired = set(), set()
    for _ in range(8):
        state = _state(battle)
        if state.battle.phase not in (MOVEMENT, ATTACK) or len(fired) == 2:
            break
        seat = RULES.acting_side(state)
        page = pages[seat]
        page.goto(url)
        assert page.locator("#decision-banner #your-turn").count() == 1
        waiting = pages[3 - seat]
        waiting.goto(url)
        assert waiting.locator("#decision-banner #waiting").count() == 1
        steps = battle.steps.count()
        if state.battle.phase == MOVEMENT:
            if not moved:
                # The board opens on the ship to nominate (zoomed in); the zoom buttons change the
                # view, and "Whole table" shows the whole table.
                focused = _view_width(page)
                page.click("[data-bz-zoom=in]")
                assert _view_width(page) < focused
                page.click("[data-bz-zoom=reset]")
                whole = page.locator("#board svg").get_attribute("viewBox").split()
                assert whole[:2] == ["0", "0"] and float(whole[2]) > focused * 2
                page.click("[data-bz-zoom=in]")
                if phone:
                    # Two fingers spreading apart zoom in (pointer events, as a touch screen sends).
                    before = _view_width(page)
                    page.evaluate("""() => {
                      const frame = document.getElementById('board'), box = frame.getBoundingClientRect();
                      const cx = box.left + box.width / 2, cy = box.top + box.height / 2;
                      const ev = (type, id, x, target) => (target || window).dispatchEvent(new PointerEvent(type,
                        {pointerId: id, clientX: x, clientY: cy, button: 0, pointerType: 'touch', bubbles: true}));
                      ev('pointerdown', 11, cx - 20, frame); ev('pointerdown', 12, cx + 20, frame);
                      ev('pointermove', 12, cx + 60); ev('pointermove', 11, cx - 60);
                      ev('pointerup', 11, cx - 60); ev('pointerup', 12, cx + 60);
                    }""")
                    assert _view_width(page) < before * 0.5
                    page.click("[data-bz-zoom=reset]")
                else:
                    # Dragging the table away from the ship pans it.
                    before = page.locator("#board svg").get_attribute("viewBox").split()
                    box = page.locator("#board").bounding_box()
                    page.mouse.move(box["x"] + 15, box["y"] + 15)
                    page.mouse.down()
                    page.mouse.move(box["x"] + 80, box["y"] + 60, steps=5)
                    page.mouse.up()
                    after = page.locator("#board svg").get_attribute("viewBox").split()
                    assert float(after[0]) < float(before[0]) and after[2] == before[2]
            chosen = _move_on_the_board(page, phone, shot, seat)
            moved.add(seat)
        else:
            chosen = _fire_at_listed_target(page, battle, seat, shot)
            fired.add(seat)
        battle.refresh_from_db()
        step = battle.steps.order_by("seq").filter(side=seat, by_doctrine=False).last()
        assert battle.steps.count() > steps and step.action == chosen
    assert moved == {1, 2} and fired, "both sides moved on the board and a ship fired"
    shot(pages[1], "after")


def test_buoyz_board_ac_destinations(small_campaign, bob, carol, new_page, login, shot):
    """In the AC Movement Phase each listed destination of an AC counter is a square on the
    board: clicking one chooses it in its kind's list, and "Fly" stores exactly that AC move."""
    setup = bp.setup_for({1: ["valkyrie"], 2: ["war_talon"]}, names={1: "Bob's Realm", 2: "Carol's Combine"},
                         turn_cap=6)
    setup["sides"]["2"]["ships"][0].update({"x": 36, "y": 34, "heading": 180})
    battle = Battle.objects.create(campaign=small_campaign, turn=small_campaign.turn, index=1, x=0, y=0, attacker=1,
                                   defender=2, mode=Battle.Mode.TACTICAL, ruleset="buoyz", setup=setup)
    play.start_embedded(battle)
    users = {1: bob, 2: carol}
    for _ in range(200):  # the doctrine plays both sides up to side 1's AC movement
        state = _state(battle)
        if state.battle.phase == "ac_movement" and RULES.acting_side(state) == 1 or RULES.is_over(state):
            break
        side = RULES.acting_side(state)
        play.take_action(battle_id=battle.pk, user=users[side],
                         action_json=RULES.action_json(RULES.doctrine_action(state, side)))
    assert state.battle.phase == "ac_movement", "the Valkyrie's AC fly by turn 2"
    page = new_page()
    login(page, *USERS[1])
    page.goto(reverse("battle-play", args=[battle.pk]))
    dots = page.locator("#bz-ac-overlay rect.bz-ac-cand")
    assert dots.count() > 0
    dot = dots.last
    flight, kind, index = (dot.get_attribute(n) for n in ("data-flight", "data-kind", "data-index"))
    dot.dispatch_event("click")
    form = page.locator(f'form.bz-fly[data-flight="{flight}"][data-kind="{kind}"]')
    select = form.locator("select")
    assert select.evaluate("s => s.selectedIndex") == int(index)
    chosen = json.loads(select.input_value())
    assert page.locator("#bz-ac-overlay line.bz-ac-line").count() == 1
    shot(page, "ac-destination-chosen")
    before = battle.steps.count()
    with page.expect_navigation():
        form.locator("button[type=submit]").click()
    assert "Refused" not in page.content()
    step = battle.steps.order_by("seq")[before]
    assert step.side == 1 and step.action == chosen
