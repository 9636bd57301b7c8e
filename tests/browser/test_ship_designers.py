"""The ship designer pages at phone width (390×844), one test parametrised by rule book — Print&Play's
dashboards (issue 30), My Trek V's ships (issue 29, 002 Assembling a Fleet) and Star Sectors' profile
cards (issue 28, priced by 004 III): from his pickup battle's fleet form Bob opens the designer, types a
design with one field out of bounds, sees the engine's refusal at that field and nothing saved,
corrects it, saves it at the engine's price, finds it offered on the fleet form and buys it; the
battle starts with it. No page is wider than the phone.
Screenshots: tests/artifacts/test_the_ship_designer_on_a_phone-<book>--*.png."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.urls import reverse

from tactical.hosts.pickup import actions
from tactical.models import PickupBattle, PlayerDesign
from tests.browser.conftest import sideways_overflow


@dataclass(frozen=True)
class Designer:
    ruleset: str
    points: int  # the pickup battle's points
    name: str
    fill: tuple[tuple[str, str], ...]
    select: tuple[tuple[str, str], ...] = ()
    check: tuple[str, ...] = ()
    bad: tuple[str, str, str] = ("", "", "")  # (field, a value refused, the value then typed)
    refusal: str = ""  # words shown at the field
    price: int | None = None  # the engine's price, when the test knows it


BOOKS = [
    Designer("printplay", 200, "Akira",
             fill=(("name", "Akira"), ("shields_fore", "18"), ("shields_aft", "18"), ("shields_port", "14"),
                   ("shields_starboard", "14"), ("shield_max", "26"), ("hull", "28"), ("impulse", "6"),
                   ("w0_name", "Phaser"), ("w0_qty", "4")),
             select=(("type", "heavy cruiser"), ("w0_arc", "270")),
             bad=("w0_hit", "8", "3"), refusal="Hit must be a whole number from 2 to 6, not 8"),
    Designer("mytrek", 400, "Enterprise", fill=(("name", "Enterprise"), ("fields", "5"), ("dice", "5")),
             select=(("size", "A"),), check=("aft", "torpedoes"), bad=("max_hyper", "11", "10"),
             refusal="Hyper 1-10", price=400),
    # CF 3 + the PC bank + the extra engineering phase of three nacelles (V.A) = 5 points (III).
    Designer("starsectors", 8, "Lancer",
             fill=(("name", "Lancer"), ("power", "Vulcan"), ("cf", "3"), ("df", "6"), ("mf", "4"), ("ss", "5"),
                   ("cargo", "1"), ("nacelles", "3"), ("cloaks", "0")),
             select=(("arc", "all"),), check=("banks_3",), bad=("hull", "4", "1"),
             refusal="the hull length in hexes must be a whole number from 1 to 3, not 4 (004 II, ruling SS4)",
             price=5),
]


@pytest.mark.parametrize("spec", BOOKS, ids=[b.ruleset for b in BOOKS])
def test_the_ship_designer_on_a_phone(new_page, login, shot, bob, spec):
    page = new_page(phone=True)
    login(page, "bob", "pw-bob")
    pickup = actions.create_pickup(user=bob, ruleset=spec.ruleset, points=spec.points, opponent="computer")
    page.goto(reverse("pickup-detail", args=[pickup.pk]))
    with page.expect_navigation():
        page.click("#designer-link")
    for field, value in spec.fill:
        page.fill(f"#id_{field}", value)
    for field, value in spec.select:
        page.select_option(f"#id_{field}", value)
    for field in spec.check:
        page.check(f"#id_{field}")
    field, refused, good = spec.bad
    page.fill(f"#id_{field}", refused)
    assert sideways_overflow(page) == []
    with page.expect_navigation():
        page.click("#save-design")
    assert spec.refusal in page.inner_text(f"#error-{field}")
    shot(page, "01-refused-at-its-field")
    assert sideways_overflow(page) == [] and not PlayerDesign.objects.exists()
    page.fill(f"#id_{field}", good)
    with page.expect_navigation():
        page.click("#save-design")
    row = PlayerDesign.objects.get(owner=bob)
    assert spec.price is None or row.points == spec.price
    saved = page.locator(f"#design-{row.pk}").inner_text()
    assert spec.name in saved and str(row.points) in saved
    shot(page, "02-saved")
    assert sideways_overflow(page) == []
    page.goto(reverse("pickup-detail", args=[pickup.pk]))
    assert spec.name in page.locator("#fleet-builder").inner_text()
    page.fill(f"#id_ship_design-{row.pk}", "1")
    with page.expect_navigation():
        page.click("#submit-fleet")
    assert page.url.endswith(reverse("battle-play", args=[PickupBattle.objects.get().battle_id]))
    assert spec.name in page.content()  # his own design is in the battle
    shot(page, "03-in-the-battle")
