"""Issue 31 item 4 on the new books: a battle fought on a real table prints the converted ships in the
chosen book's own form — My Trek V ship logs (XC31–XC40), Star Trek Print&Play dashboards (XC19–XC30),
Star Sectors profile cards (XC41–XC50) —
for an Event Horizon campaign's tabletop battle and for a CAM tabletop scenario (one sheet per unit)."""

from __future__ import annotations

import pytest

from campaign import actions as campaign_actions
from tactical.models import Battle
from tests.cam.conftest import at_the_table
from tests.tactical.battle_support import contact_turn

pytestmark = pytest.mark.django_db

# book: (how the battle page names it, a sheet's heading)
BOOKS = {"mytrek": ("My Trek V", "My Trek V ship log (002)"), "printplay": ("Print&amp;Play", "001 Dashboards"),
         "starsectors": ("Star Sectors", "Star Sectors profile card (004 II)")}


@pytest.mark.parametrize("book", sorted(BOOKS))
def test_a_tabletop_battle_prints_the_books_record_sheets(book, client, small_campaign, alice, bob):
    named, heading = BOOKS[book]
    campaign_actions.set_campaign_option(campaign_id=small_campaign.pk, user=alice, key="battle_book", value=book)
    small_campaign.refresh_from_db()
    contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    client.force_login(bob)
    assert named in client.get(f"/battles/{battle.pk}/").content.decode()
    sheets = client.get(f"/battles/{battle.pk}/sheets/").content.decode()
    ships = sum(len(s["ships"]) for s in battle.setup["sides"].values())
    assert sheets.count('<section class="sheet">') == ships and heading in sheets


@pytest.mark.parametrize("book", sorted(BOOKS))
def test_a_cam_tabletop_scenario_prints_its_forces_in_the_books_form(book, client, alice, bob, carol):
    c = at_the_table(alice, bob, carol)
    client.force_login(bob)
    assert f"?book={book}" in client.get(f"/cam/{c.pk}/scenarios/1/").content.decode()
    sheets = client.get(f"/cam/{c.pk}/scenarios/1/sheets/?book={book}").content.decode()
    assert sheets.count('<section class="sheet">') == 5 and BOOKS[book][1] in sheets  # one per unit
