"""Star Sectors played in Chromium at phone width (issue 28, "Done when"): a 25-point battle against
the computer made on /battles/new/, some orders picked on the hex map by tapping its marks (a move,
a turn, an attack when one is offered; each then confirmed), a turn ended with its button; the map
opening zoomed in on the ship to order (its marks 24 px or more), zoom and pan that give no order;
then the rest handed to the computer, played to its end, with the replay and the dice log. No page
is wider than the phone.
Screenshots: tests/artifacts/test_star_sectors_against_the_computer_on_a_phone--*.png."""

from __future__ import annotations

from django.urls import reverse

from tactical.models import Battle, BattleStep, PickupBattle
from tests.browser.conftest import sideways_overflow

SHOWN = "#board g.ss-plan:not([display]) .ss-go"  # the marks of the ship being ordered


def _state(page, battle_id: int) -> dict:
    return page.request.get(reverse("api-battle-state", args=[battle_id])).json()


def _tap(page, kinds=("attack", "move", "turn", "warp")) -> str | None:
    """Tap the first mark on the board of the first of ``kinds`` offered, confirm it; its label."""
    for kind in kinds:
        marks = page.locator(f'{SHOWN}[data-kind="{kind}"]')
        if not marks.count():
            continue
        mark = marks.first
        want = mark.get_attribute("data-label")
        mark.click(force=True)  # a hex under a ship's wedge: the mark is drawn on top
        assert page.inner_text("#ss-pick-label") == want
        assert page.input_value("#ss-pick-action") == mark.get_attribute("data-action")
        with page.expect_navigation():
            page.click("#ss-confirm")
        assert "Refused" not in page.content()
        return want
    return None


def _end_turn(page) -> None:
    with page.expect_navigation():
        page.locator(".ss-group:not([hidden]) .ss-end").click()
    assert "Refused" not in page.content()


def test_star_sectors_against_the_computer_on_a_phone(phone, new_page, login, shot, bob):
    page = phone
    login(page, "bob", "pw-bob")
    page.goto(reverse("pickup-new"))
    page.select_option("#id_ruleset", "starsectors")
    page.fill("#id_points", "25")
    page.check("input[name=opponent][value=computer]")
    with page.expect_navigation():
        page.click("#create-pickup")
    pickup = PickupBattle.objects.get(creator=bob)
    page.fill("#id_ship_fed-cruiser", "2")
    page.fill("#id_ship_fed-frigate", "1")
    shot(page, "01-fleet")
    assert sideways_overflow(page) == []
    with page.expect_navigation():
        page.click("#submit-fleet")
    pickup.refresh_from_db()
    battle_id = pickup.battle_id
    assert battle_id and Battle.objects.get(pk=battle_id).ruleset == "starsectors"

    page.goto(reverse("battle-play", args=[battle_id]))
    page.wait_for_selector("#board svg.ss-board")
    assert page.locator("#your-turn").count()  # the computer's side has played its turn, if first
    shot(page, "02-your-ship-turn")
    assert sideways_overflow(page) == []
    # The arc and reach of the ship to order; only its order buttons show beside the board.
    selected = page.get_attribute("#board svg", "data-selected")
    assert page.locator(f'#board g.ss-arc[data-for="{selected}"]:not([display]) .ss-pb').count() >= 1
    assert page.locator(".ss-group:not([hidden])").count() == 1

    # On a phone the map opens zoomed in on the ship to order: its marks a finger can take (24 px).
    opened = page.get_attribute("#board svg", "viewBox")
    for i in range(page.locator(SHOWN).count()):
        box = page.locator(SHOWN).nth(i).bounding_box()
        assert min(box["width"], box["height"]) >= 24, (page.locator(SHOWN).nth(i).get_attribute("data-label"), box)
    # Zoom and pan (static/map.js): "Whole map" shows it all, "+" zooms in, a drag pans and gives no order.
    page.click('[data-map-action="reset"]')
    home = page.get_attribute("#board svg", "viewBox")
    assert float(opened.split()[2]) < float(home.split()[2]) / 2
    page.click('[data-map-action="in"]')
    zoomed = page.get_attribute("#board svg", "viewBox")
    assert float(zoomed.split()[2]) < float(home.split()[2]) / 1.4
    box = page.locator("#board").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx - 50, cy - 20, steps=6)
    page.mouse.up()
    page.wait_for_timeout(200)
    assert page.get_attribute("#board svg", "viewBox") not in (zoomed, home)
    assert page.input_value("#ss-pick-action") == ""  # a pan, not an order
    page.click('[data-map-action="reset"]')
    assert page.get_attribute("#board svg", "viewBox") == home

    # A tap on a mark chooses it; "Clear" forgets it.
    first = page.locator(SHOWN).first
    first.click(force=True)
    assert not page.is_disabled("#ss-confirm")
    shot(page, "03-a-mark-chosen")
    page.click("#ss-clear")
    assert page.is_disabled("#ss-confirm") and page.input_value("#ss-pick-action") == ""
    several = page.locator(f"{SHOWN}[data-alts]")  # a hex a move and a warp jump reach, an attack with banks
    if several.count():
        several.first.click(force=True)
        alt = page.locator("#ss-pick-alts button.ss-alt").last
        alt.click()
        assert page.input_value("#ss-pick-action") == alt.get_attribute("data-action")
        assert page.inner_text("#ss-pick-label") == alt.inner_text()
        page.click("#ss-clear")

    taken: list[str] = []
    turns_ended = 0
    for _ in range(14):
        if len(taken) >= 5 and turns_ended >= 1:
            break
        if not _state(page, battle_id)["your_turn"]:
            break
        picked = _tap(page, ("attack", "move", "turn") if len(taken) % 2 == 0 else ("turn", "move", "attack"))
        if picked is None:
            _end_turn(page)
            turns_ended += 1
        else:
            taken.append(picked)
        if len(taken) == 1:
            shot(page, "04-an-order-given-on-the-board")
    assert len(taken) >= 3, taken
    assert any(t.startswith("Move") for t in taken) and any(t.startswith("Turn") for t in taken), taken
    by_hand = BattleStep.objects.filter(battle_id=battle_id, side=1, by_doctrine=False).count()
    assert by_hand >= len(taken) + turns_ended
    log = page.locator("#battle-log").inner_text()
    assert "moves forward" in log or "moves reverse" in log
    assert sideways_overflow(page) == []

    desk = new_page()  # the same page on a desktop: the board beside the orders
    login(desk, "bob", "pw-bob")
    desk.goto(reverse("battle-play", args=[battle_id]))
    desk.wait_for_selector("#board svg.ss-board")
    shot(desk, "05-desktop")
    assert sideways_overflow(desk) == []

    page.goto(reverse("battle-play", args=[battle_id]))
    if Battle.objects.get(pk=battle_id).status == Battle.Status.PLAYING:
        with page.expect_navigation(timeout=180_000):
            page.click("#doctrine-button")
    page.goto(reverse("battle-play", args=[battle_id]))
    page.wait_for_selector("#battle-over")
    shot(page, "06-over")
    assert sideways_overflow(page) == []
    battle = Battle.objects.get(pk=battle_id)
    assert battle.status == Battle.Status.RESOLVED and battle.resolved_how == Battle.How.TACTICAL

    page.goto(reverse("battle-replay", args=[battle_id]) + "?step=3")
    page.wait_for_selector(".board-frame svg.ss-board")
    assert page.locator("table.ss-ships tbody tr").count() >= 1
    shot(page, "07-replay")
    assert sideways_overflow(page) == []
    page.goto(reverse("pickup-detail", args=[pickup.pk]))
    with page.expect_navigation():
        page.click("#dice-log")
    assert page.locator("table tbody tr").count() > 0
    shot(page, "08-dice-log")
    assert sideways_overflow(page) == []
