"""My Trek V played in Chromium at phone width (issue 29, "Done when"): a battle against the
computer, and a two-player battle with secret Phase Zero orders (ruling MT17), each to its end,
with the replay and the dice log. The fleets are bought server-side (the pickup pages are
issue 17's and tested there); every order is given on the play page's own forms. No page is
wider than the phone. Screenshots: tests/artifacts/test_my_trek_*--*.png."""

from __future__ import annotations

from django.urls import reverse

from tactical.hosts.pickup import actions
from tactical.models import Battle, PickupBattle
from tests.browser.conftest import sideways_overflow


def _state(page, battle_id: int) -> dict:
    return page.request.get(reverse("api-battle-state", args=[battle_id])).json()


def _phase_zero(page, engines="2", speed="4", weapons="3") -> None:
    page.fill("#orders-form input[name=engines]", engines)
    page.fill("#orders-form input[name=fields]", "3")
    page.fill("#orders-form input[name=weapons]", weapons)
    page.select_option("#speed", speed)
    with page.expect_navigation():
        page.click("#give-orders")
    assert "Refused" not in page.content()


def _one_order(page) -> bool:
    """The first order the page offers for the next ship; False when it offers none."""
    if page.locator("#give-orders").count():  # Phase Zero: the form's own starting values
        with page.expect_navigation():
            page.click("#give-orders")
        assert "Refused" not in page.content()
        return True
    button = (
        page.locator(".mt-move").first if page.locator(".mt-move").count() else page.locator("#attack-button")
    )
    if not button.count():
        return False
    with page.expect_navigation():
        button.click()
    assert "Refused" not in page.content()
    return True


def _to_the_end(page, battle_id: int, shot, name: str) -> None:
    if Battle.objects.get(pk=battle_id).status == Battle.Status.PLAYING:
        with page.expect_navigation():
            page.click("#doctrine-button")
    page.goto(reverse("battle-play", args=[battle_id]))
    page.wait_for_selector("#battle-over")
    shot(page, name)
    assert sideways_overflow(page) == []


def test_my_trek_against_the_computer_on_a_phone(phone, new_page, login, shot, bob):
    pickup = actions.create_pickup(user=bob, ruleset="mytrek", points=400, opponent="computer")
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=["cruiser", "frigate"])
    pickup.refresh_from_db()
    battle_id = pickup.battle_id
    page = phone
    login(page, "bob", "pw-bob")
    page.goto(reverse("battle-play", args=[battle_id]))
    page.wait_for_selector("#board svg")
    assert page.locator("#orders-form").is_visible()
    shot(page, "01-phase-zero-orders")
    assert sideways_overflow(page) == []
    desk = new_page()  # the same page on a desktop: the board beside the orders
    login(desk, "bob", "pw-bob")
    desk.goto(reverse("battle-play", args=[battle_id]))
    desk.wait_for_selector("#board svg[data-selected]")
    shot(desk, "01b-desktop")
    assert sideways_overflow(desk) == []
    _phase_zero(page)
    _phase_zero(page)  # both ships' power split in: the computer's were in already, all revealed
    assert "speed Hyper 2" in page.locator("#battle-log").inner_text()
    # A move picked on the board: the ship being ordered is tapped, which holds it; then the square
    # ahead of the next one, which moves it forward (static/mytrek_board.js).
    page.wait_for_selector(".mt-move")
    # Zoom and pan (static/map.js, as the campaign map): "+" zooms in, a drag pans and gives no
    # order, "Whole board" shows it all again.
    home = page.get_attribute("#board svg", "viewBox")
    page.click('[data-map-action="in"]')
    zoomed = page.get_attribute("#board svg", "viewBox")
    assert float(zoomed.split()[2]) < float(home.split()[2]) / 1.4
    box = page.locator("#board").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    log, url = page.locator("#battle-log").inner_text(), page.url
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx - 60, cy - 20, steps=6)
    page.mouse.up()
    page.wait_for_timeout(300)
    assert page.get_attribute("#board svg", "viewBox") not in (zoomed, home)
    assert page.url == url and page.locator("#battle-log").inner_text() == log  # a pan, not an order
    shot(page, "01c-zoomed-and-panned")
    assert sideways_overflow(page) == []
    page.click('[data-map-action="reset"]')
    assert page.get_attribute("#board svg", "viewBox") == home
    selected = page.get_attribute("#board svg", "data-selected")
    with page.expect_navigation():
        page.click(f'#board g.ship[data-ship="{selected}"] polygon')
    assert "orders given (hold)" in page.locator("#battle-log").inner_text()
    if page.locator(".mt-move").count():
        ship = page.locator("#board svg").get_attribute("data-selected")
        g = page.locator(f'#board g.ship[data-ship="{ship}"]')
        x, y = int(g.get_attribute("data-x")), int(g.get_attribute("data-y"))
        dx, dy = ((0, -1), (1, 0), (0, 1), (-1, 0))[int(g.get_attribute("data-facing"))]
        with page.expect_navigation():
            page.click(f'#board rect.sq[data-x="{x + dx}"][data-y="{y + dy}"]', force=True)
        assert "orders given (forward)" in page.locator("#battle-log").inner_text()
    shot(page, "02a-moves-picked-on-the-board")
    played = 0
    while played < 6 and _state(page, battle_id)["your_turn"] and _one_order(page):
        played += 1
        if played == 1:
            shot(page, "02-a-move-or-attack-by-hand")
    assert sideways_overflow(page) == []
    _to_the_end(page, battle_id, shot, "03-over")
    assert Battle.objects.get(pk=battle_id).resolved_how == Battle.How.TACTICAL
    page.goto(reverse("battle-replay", args=[battle_id]))
    shot(page, "04-replay")
    assert sideways_overflow(page) == []
    page.goto(reverse("pickup-detail", args=[pickup.pk]))
    with page.expect_navigation():
        page.click("#dice-log")
    assert page.locator("table tbody tr").count() > 0
    shot(page, "05-dice-log")


def test_my_trek_two_players_with_secret_phase_zero_orders_on_phones(new_page, login, shot, bob, carol):
    pickup = actions.create_pickup(user=bob, ruleset="mytrek", points=400, opponent="link")
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=["cruiser"])
    actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=["cruiser"])
    pickup.refresh_from_db()
    battle_id = pickup.battle_id
    url = reverse("battle-play", args=[battle_id])
    bob_page, carol_page = new_page(phone=True), new_page(phone=True)
    login(bob_page, "bob", "pw-bob")
    login(carol_page, "carol", "pw-carol")
    for p in (bob_page, carol_page):
        p.goto(url)
        assert p.locator("#your-turn").is_visible()  # both asked at once
    # Carol gives hers first: tractor beam powered, full speed.
    carol_page.check("#orders-form input[name=tractor]")
    _phase_zero(carol_page, engines="1", speed="2")
    assert "Waiting for" in carol_page.locator("#status").inner_text()
    shot(carol_page, "01-carol-waits")
    bob_page.goto(url)
    log = bob_page.locator("#battle-log").inner_text()
    assert "orders given" not in log and "tractor 1" not in log  # nothing of hers is told to him
    shot(bob_page, "02-bob-still-to-give-his")
    _phase_zero(bob_page, engines="3", speed="8", weapons="2")
    assert "tractor 1" in bob_page.locator("#battle-log").inner_text()  # both in: revealed together
    carol_page.goto(url)
    assert "speed Hyper 6" in carol_page.locator("#battle-log").inner_text()
    shot(carol_page, "03-revealed")
    for p in (bob_page, carol_page):
        assert sideways_overflow(p) == []
    for _ in range(4):  # a few moves and attacks by hand, each side when asked
        for p in (bob_page, carol_page):
            p.goto(url)
            if _state(p, battle_id)["your_turn"]:
                _one_order(p)
    for p in (bob_page, carol_page):
        p.goto(url)
        if Battle.objects.get(pk=battle_id).status == Battle.Status.PLAYING:
            with p.expect_navigation():
                p.click("#doctrine-button")
    _to_the_end(carol_page, battle_id, shot, "04-over")
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.OVER
    bob_page.goto(reverse("battle-replay", args=[battle_id]))
    shot(bob_page, "05-replay")
    assert sideways_overflow(bob_page) == []
