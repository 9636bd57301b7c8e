"""The record sheets page (issue 31 item 4) links back to where it was printed from: a battle's
sheets to the battle, a CAM scenario's to the scenario, on every rule book, on screen only (the
link is in the part the print CSS leaves off the paper). Before, the page had no way back but the
browser's own button. The phone layout is checked in tests/browser/test_record_sheets_phone.py."""

from __future__ import annotations

import re

import pytest

from campaign import actions as campaign_actions
from tactical.models import Battle
from tactical.rules import registry
from tactical.rules.kit.sheets import document
from tests.cam.conftest import at_the_table
from tests.tactical.battle_support import contact_turn

pytestmark = pytest.mark.django_db

BOOKS = ("eventhorizon", "buoyz", "mytrek", "printplay", "starsectors")


def _back_link(html: str) -> str:
    """The back link's address; it must sit in the part of the page that is not printed."""
    screen_only = re.search(r'<div class="noprint">(.*?)</div>', html, re.S)
    assert screen_only, "the sheets page has no on-screen part"
    found = re.search(r'<p class="back"><a href="([^"]+)" id="back-link">', screen_only.group(1))
    assert found, "the sheets page has no link back"
    return found.group(1)


def test_the_page_links_back_on_screen_only_and_escapes_the_address():
    html = document("Sheets", ['<section class="sheet"></section>'], back=('/x/?a=1&b="2"', "Back <home>"))
    assert _back_link(html) == "/x/?a=1&amp;b=&quot;2&quot;" and "&larr; Back &lt;home&gt;" in html
    assert "@media print" in html and ".noprint { display: none; }" in html
    assert 'class="back"' not in document("Sheets", [])  # no link unless one is given


@pytest.mark.parametrize("book", BOOKS)
def test_a_battles_sheets_link_back_to_the_battle(book, client, small_campaign, alice, bob):
    if book != "eventhorizon":
        campaign_actions.set_campaign_option(campaign_id=small_campaign.pk, user=alice, key="battle_book",
                                             value=book)
    contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    client.force_login(bob)
    sheets = client.get(f"/battles/{battle.pk}/sheets/").content.decode()
    assert sheets.count('<section class="sheet">') >= 2
    back = _back_link(sheets)
    assert back == f"/battles/{battle.pk}/" and "Back to the battle" in sheets
    assert 'id="record-sheets"' in client.get(back).content.decode()  # the battle page, with its sheets link


def test_a_converted_battle_fought_online_links_back_too(client, small_campaign, alice, bob):
    campaign_actions.set_campaign_option(campaign_id=small_campaign.pk, user=alice, key="battle_book", value="mytrek")
    contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get()
    assert battle.converted
    client.force_login(bob)
    assert _back_link(client.get(f"/battles/{battle.pk}/sheets/").content.decode()) == f"/battles/{battle.pk}/"


def test_a_cam_scenarios_sheets_link_back_to_the_scenario(client, alice, bob, carol):
    c = at_the_table(alice, bob, carol)
    client.force_login(bob)
    for book in registry.books_for("cam"):
        sheets = client.get(f"/cam/{c.pk}/scenarios/1/sheets/?book={book}").content.decode()
        assert _back_link(sheets) == f"/cam/{c.pk}/scenarios/1/", book
        assert "Back to scenario 1" in sheets
    assert client.get(f"/cam/{c.pk}/scenarios/1/").status_code == 200
