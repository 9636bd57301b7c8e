"""A Buoyz pickup battle of three sides on phones (390×844; rulings PK6, PK7): Bob chooses three
sides, his opponent by link and the third seat the computer; Carol opens the link and takes seat
2; both build; the play page lists the three sides in their colours; each hands his fleet to the
computer and the battle ends, the result shown to both. No page is wider than the phone.
Screenshots: tests/artifacts/test_a_three_sided_pickup_battle_on_phones--*.png."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.urls import reverse

from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import available, book
from tactical.models import Battle, PickupBattle
from tests.browser.conftest import sideways_overflow


def test_a_three_sided_pickup_battle_on_phones(new_page, login, shot, bob, carol):
    if "buoyz" not in [n for n, _, _ in available()]:
        raise AssertionError("Buoyz 'N Da 'Hood online play is not registered")
    pages = {1: new_page(phone=True), 2: new_page(phone=True)}
    login(pages[1], "bob", "pw-bob")
    login(pages[2], "carol", "pw-carol")
    page = pages[1]
    page.goto(reverse("pickup-new"))
    page.select_option("#id_ruleset", "buoyz")
    page.select_option("#id_sides", "3")
    page.check("input[name=opponent][value=link]")
    page.check("input[name=others][value=computer]")
    shot(page, "01-three-sides")
    assert sideways_overflow(page) == []
    with page.expect_navigation():
        page.click("#create-pickup")
    pickup = PickupBattle.objects.get(creator=bob)
    assert pickup.sides == 3 and list(pickup.fleets) == ["3"]
    assert "the computer" in page.locator("#seat-3").inner_text()
    link = page.input_value("#invite-url")
    rules = book("buoyz")
    cheapest = min(rules.offers(bob), key=lambda o: o.points)
    page.fill(f"#id_ship_{cheapest.key}", "2")
    with page.expect_navigation():
        page.click("#submit-fleet")
    shot(page, "02-waiting-for-seat-2")
    assert sideways_overflow(page) == []

    other = pages[2]
    other.goto(urlsplit(link).path)
    assert "next free seat" in other.content()
    with other.expect_navigation():
        other.click("#accept-pickup")
    other.fill(f"#id_ship_{cheapest.key}", "2")
    with other.expect_navigation():
        other.click("#submit-fleet")
    pickup.refresh_from_db()
    assert pickup.battle_id and Battle.objects.get(pk=pickup.battle_id).seats == (1, 2, 3)
    for seat, pg in pages.items():
        pg.goto(reverse("battle-play", args=[pickup.battle_id]))
        pg.wait_for_selector("#board svg")
        for s in (1, 2, 3):
            swatch = pg.locator(f"#side-{s} .swatch").get_attribute("style")
            assert actions.COLOURS[s] in swatch, (s, swatch)
        shot(pg, f"03-play-page-seat-{seat}")
        assert sideways_overflow(pg) == []
        if Battle.objects.get(pk=pickup.battle_id).status == Battle.Status.PLAYING:
            with pg.expect_navigation():
                pg.click("#doctrine-button")
    for seat, pg in pages.items():
        pg.goto(reverse("battle-play", args=[pickup.battle_id]))
        pg.wait_for_selector("#battle-over")
        shot(pg, f"04-over-seat-{seat}")
        assert sideways_overflow(pg) == []
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.OVER
