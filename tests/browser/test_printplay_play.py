"""Star Trek Print&Play on phones (390×844; issue 30): Bob makes a four-sided pickup battle, his
opponent by link and the other two seats the computer's; Carol takes seat 2; both buy a ship.
Each plays his own activations on the play page by hand (the ship to activate, the action, the
move picked by tapping the mat, the attack), the computer's two seats play theirs, the dice bag drawing who
goes next; after some rounds each hands his fleet to the computer and the battle ends. The result,
the replay and the dice log are shown. No page is wider than the phone.
Screenshots: tests/artifacts/test_a_four_sided_print_and_play_battle_on_phones--*.png."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.urls import reverse

from tactical.models import Battle, BattleStep, PickupBattle
from tests.browser.conftest import sideways_overflow


def _decide(pg) -> bool:
    """Take one decision on the page by hand, if it is this player's; whether one was taken."""
    if not pg.locator("#your-turn").count():
        return False
    buttons = pg.locator("button.pp-action")
    if not buttons.count():  # the movement: picked on the mat, the nearest dot to the tap
        dots = pg.locator("#board .pp-dot")
        assert dots.count() > 1
        dot = dots.nth(dots.count() // 2)
        want = dot.get_attribute("data-move")
        box = dot.bounding_box()
        pg.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        assert pg.input_value("#pp-move") == want and "Chosen:" in pg.inner_text("#pp-chosen")
    with pg.expect_navigation():
        if buttons.count():
            buttons.nth(buttons.count() - 1).click()  # the last choice: fire, a power boost, activate
        else:
            pg.click("#pp-move-button")
    assert "Refused" not in pg.content()
    return True


def test_a_four_sided_print_and_play_battle_on_phones(new_page, login, shot, bob, carol):
    pages = {1: new_page(phone=True), 2: new_page(phone=True)}
    login(pages[1], "bob", "pw-bob")
    login(pages[2], "carol", "pw-carol")
    page = pages[1]
    page.goto(reverse("pickup-new"))
    page.select_option("#id_ruleset", "printplay")
    page.select_option("#id_sides", "4")
    page.fill("#id_points", "60")
    page.check("input[name=opponent][value=link]")
    page.check("input[name=others][value=computer]")
    shot(page, "01-four-sides")
    assert sideways_overflow(page) == []
    with page.expect_navigation():
        page.click("#create-pickup")
    pickup = PickupBattle.objects.get(creator=bob)
    assert pickup.sides == 4 and sorted(pickup.fleets) == ["3", "4"]
    link = page.input_value("#invite-url")
    page.fill("#id_ship_b_rel", "1")
    with page.expect_navigation():
        page.click("#submit-fleet")
    other = pages[2]
    other.goto(urlsplit(link).path)
    with other.expect_navigation():
        other.click("#accept-pickup")
    other.fill("#id_ship_saber", "1")
    with other.expect_navigation():
        other.click("#submit-fleet")
    pickup.refresh_from_db()
    battle_id = pickup.battle_id
    assert battle_id and Battle.objects.get(pk=battle_id).seats == (1, 2, 3, 4)

    taken = {1: 0, 2: 0}
    for _ in range(60):
        if Battle.objects.get(pk=battle_id).status != Battle.Status.PLAYING or min(taken.values()) >= 8:
            break
        for seat, pg in pages.items():
            pg.goto(reverse("battle-play", args=[battle_id]))
            pg.wait_for_selector("#board svg")
            if _decide(pg):
                taken[seat] += 1
                if taken[seat] in (1, 2, 3):
                    shot(pg, f"02-seat-{seat}-decision-{taken[seat]}")
                    assert sideways_overflow(pg) == []
    assert min(taken.values()) >= 4, taken  # a whole activation each, by hand
    assert BattleStep.objects.filter(battle_id=battle_id, side=1, by_doctrine=False).count() >= 4
    assert BattleStep.objects.filter(battle_id=battle_id, side=3, by_doctrine=True).exists()

    desk = new_page()  # the same table at desktop width
    login(desk, "bob", "pw-bob")
    desk.goto(reverse("battle-play", args=[battle_id]))
    desk.wait_for_selector("#board svg .pp-shield")
    shot(desk, "02-desktop")
    assert sideways_overflow(desk) == []
    for pg in pages.values():
        pg.goto(reverse("battle-play", args=[battle_id]))
        if Battle.objects.get(pk=battle_id).status == Battle.Status.PLAYING:
            with pg.expect_navigation():
                pg.click("#doctrine-button")
    for seat, pg in pages.items():
        pg.goto(reverse("battle-play", args=[battle_id]))
        pg.wait_for_selector("#battle-over")
        shot(pg, f"03-over-seat-{seat}")
        assert sideways_overflow(pg) == []
    battle = Battle.objects.get(pk=battle_id)
    assert battle.status == Battle.Status.RESOLVED and {s["side"] for s in battle.result["ships"]} == {1, 2, 3, 4}

    page.goto(reverse("battle-replay", args=[battle_id]))
    shot(page, "04-replay")
    assert sideways_overflow(page) == []
    page.goto(reverse("pickup-detail", args=[pickup.pk]))
    with page.expect_navigation():
        page.click("#dice-log")
    shot(page, "05-dice-log")
    assert page.locator("table tbody tr").count() > 0
    assert "dice bag" in page.content()
