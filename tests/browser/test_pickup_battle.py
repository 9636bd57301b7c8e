"""A pickup battle against the computer, played to its end on a phone (issue 17, "Done when":
"another plays a pickup battle against the computer to its end at phone width").

Bob, on a 390×844 phone, opens "New pickup battle", chooses the rule book (Buoyz 'N Da 'Hood when
its online play is registered, else Event Horizon — the rule books offered are the registry's),
a points total and the computer; the computer's doctrine has bought its fleet. His fleet over the
points total is refused with the numbers; a fleet within it starts the battle on the play page.
He plays his first decisions by hand (Event Horizon: activate a ship, end its activation), then
hands his fleet to the computer, which plays both sides to the end; the replay and the dice log
show the battle. No page is wider than the phone. Screenshots:
tests/artifacts/test_a_pickup_battle_against_the_computer_on_a_phone--*.png.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse

from tactical.hosts.pickup.books import available, book
from tactical.models import Battle, PickupBattle
from tests.browser.conftest import sideways_overflow

HAND_DECISIONS = 4


def _ruleset() -> str:
    names = [n for n, _, _ in available()]
    return "buoyz" if "buoyz" in names else "eventhorizon"


def _state(page, battle_id: int) -> dict:
    return page.request.get(reverse("api-battle-state", args=[battle_id])).json()


def test_a_pickup_battle_against_the_computer_on_a_phone(phone, login, shot, bob):
    page = phone
    ruleset = _ruleset()
    rules = book(ruleset)
    login(page, "bob", "pw-bob")
    page.goto(reverse("pickup-list"))
    assert sideways_overflow(page) == []
    with page.expect_navigation():
        page.click("#new-pickup")
    for name, _, other in available():  # choosing a rule book puts its usual points total in
        page.select_option("#id_ruleset", name)
        assert page.input_value("#id_points") == str(other.default_points)
    page.select_option("#id_ruleset", ruleset)
    assert page.input_value("#id_points") == str(rules.default_points)
    page.check("input[name=opponent][value=computer]")
    shot(page, "01-new-pickup-battle")
    assert sideways_overflow(page) == []
    with page.expect_navigation():
        page.click("#create-pickup")
    pickup = PickupBattle.objects.get(creator=bob)
    assert pickup.ruleset == ruleset and pickup.computer and "2" in pickup.fleets
    page.wait_for_selector("#fleet-builder")

    # Over the points total: refused, with the numbers, nothing bought.
    dearest = max((o for o in rules.offers(bob) if o.points <= rules.default_points), key=lambda o: o.points)
    field = f"#id_ship_{dearest.key}"
    too_many = min(rules.default_points // dearest.points + 1, rules.max_ships)
    page.fill(field, str(too_many))
    total = page.locator("#fleet-total").inner_text()
    assert int(total) == too_many * dearest.points
    over = too_many * dearest.points > rules.default_points
    with page.expect_navigation():
        page.click("#submit-fleet")
    if over:
        assert "over the battle" in page.locator("#pickup-error").inner_text()
        shot(page, "02-fleet-over-the-points-refused")
        pickup.refresh_from_db()
        assert "1" not in pickup.fleets
        page.fill(field, str(too_many - 1))
        with page.expect_navigation():
            page.click("#submit-fleet")
    pickup.refresh_from_db()
    assert pickup.battle_id is not None
    battle_id = pickup.battle_id
    assert page.url.endswith(reverse("battle-play", args=[battle_id]))
    page.wait_for_selector("#board svg")
    shot(page, "03-the-battle-begins")
    assert sideways_overflow(page) == []

    # A few decisions by hand, from the page's own forms (Event Horizon: activate a ship, end its
    # activation; Buoyz: the first choice offered — a nomination, a move, fire).
    played = 0
    for _ in range(HAND_DECISIONS * 3):
        state = _state(page, battle_id)
        if state["status"] != "playing" or played >= HAND_DECISIONS or not state["your_turn"]:
            break
        if ruleset == "eventhorizon":
            activate = page.locator("#actions form button", has_text="Activate ship")
            end = page.locator("#actions form button", has_text="End activation")
            target = activate if activate.count() else end
        else:
            target = page.locator("#actions form").first.locator("button")
        if not target.count():
            break
        with page.expect_navigation():
            target.first.click()
        assert "Refused" not in page.content()
        played += 1
        if played == 1:
            shot(page, "04-a-decision-taken-by-hand")
    assert played >= 1

    # The rest: the computer plays his fleet too, to the end.
    if Battle.objects.get(pk=battle_id).status == Battle.Status.PLAYING:
        with page.expect_navigation():
            page.click("#doctrine-button")
    page.goto(reverse("battle-play", args=[battle_id]))
    page.wait_for_selector("#battle-over")
    shot(page, "05-the-battle-is-over")
    assert sideways_overflow(page) == []
    battle = Battle.objects.get(pk=battle_id)
    assert battle.status == Battle.Status.RESOLVED and battle.resolved_how == Battle.How.TACTICAL
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.OVER

    page.goto(reverse("pickup-detail", args=[pickup.pk]))
    assert "Over" in page.locator("#pickup-status").inner_text()
    with page.expect_navigation():
        page.click("#replay-link")
    shot(page, "06-replay")
    assert sideways_overflow(page) == []
    page.goto(reverse("pickup-detail", args=[pickup.pk]))
    with page.expect_navigation():
        page.click("#dice-log")
    shot(page, "07-dice-log")
    assert page.locator("table tbody tr").count() > 0
    page.goto(reverse("pickup-list"))
    assert page.locator("#pickup-list tbody tr").count() == 1
    shot(page, "08-pickup-list")
    assert sideways_overflow(page) == []


def test_a_pickup_battle_by_invitation_link_on_phones(new_page, login, shot, bob, carol):
    """Bob invites by link; Carol opens it on her phone, accepts and builds; the battle begins for
    both; each hands his fleet to the computer and the battle ends."""
    pages = {1: new_page(phone=True), 2: new_page(phone=True)}
    login(pages[1], "bob", "pw-bob")
    login(pages[2], "carol", "pw-carol")
    page = pages[1]
    page.goto(reverse("pickup-new"))
    ruleset = _ruleset()
    rules = book(ruleset)
    page.select_option("#id_ruleset", ruleset)
    page.check("input[name=opponent][value=link]")
    with page.expect_navigation():
        page.click("#create-pickup")
    link = page.input_value("#invite-url")
    shot(page, "01-the-invitation-link")
    assert sideways_overflow(page) == []
    cheapest = min(rules.offers(bob), key=lambda o: o.points)
    page.fill(f"#id_ship_{cheapest.key}", "2")
    with page.expect_navigation():
        page.click("#submit-fleet")
    assert page.locator("#your-fleet").count() == 1

    other = pages[2]
    assert link.startswith(settings.SITE_URL.rstrip("/") + "/battles/join/")  # built from SITE_URL
    other.goto(urlsplit(link).path)
    with other.expect_navigation():
        other.click("#accept-pickup")
    other.fill(f"#id_ship_{cheapest.key}", "2")
    shot(other, "02-carol-builds-her-fleet")
    assert sideways_overflow(other) == []
    with other.expect_navigation():
        other.click("#submit-fleet")
    pickup = PickupBattle.objects.get(creator=bob)
    assert pickup.opponent_id == carol.pk and pickup.battle_id
    for pg in pages.values():
        pg.goto(reverse("battle-play", args=[pickup.battle_id]))
        pg.wait_for_selector("#board svg")
        if Battle.objects.get(pk=pickup.battle_id).status == Battle.Status.PLAYING:
            with pg.expect_navigation():
                pg.click("#doctrine-button")
    pages[2].goto(reverse("battle-play", args=[pickup.battle_id]))
    pages[2].wait_for_selector("#battle-over")
    shot(pages[2], "03-over")
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.OVER
