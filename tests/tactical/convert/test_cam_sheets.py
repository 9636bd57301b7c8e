"""Issue 31 item 4 for a CAM rubber: a scenario fought on a real table offers its forces as record
sheets to print, on the table's own rule book (Buoyz SDs, 000 1.5) and converted to Event Horizon
(rulings XC10-XC17), once the table is set (CAM 2.3: the forces are hidden before), to the
campaign's players and moderators only."""

from __future__ import annotations

import pytest

from campaign.cam import actions
from tests.cam.conftest import make_cam, ship_numbers

pytestmark = pytest.mark.django_db


def test_a_tabletop_scenario_prints_its_forces_on_each_book(client, alice, bob, carol, mallory):
    c = make_cam(alice, bob, carol)
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:3])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    url = f"/cam/{c.pk}/scenarios/1/sheets/"
    client.force_login(bob)
    assert client.get(url).status_code == 404  # the table is not set: carol's force is still hidden
    assert 'id="record-sheets"' not in client.get(f"/cam/{c.pk}/scenarios/1/").content.decode()
    actions.roll_table(campaign_id=c.pk, user=bob)
    page = client.get(f"/cam/{c.pk}/scenarios/1/").content.decode()
    assert 'id="record-sheets"' in page and "?book=eventhorizon" in page
    own = client.get(url).content.decode()
    assert own.count('<section class="sheet">') == 5 and "Buoyz 'N Da 'Hood SD (000 1.5)" in own
    converted = client.get(url + "?book=eventhorizon").content.decode()
    assert converted.count('<section class="sheet">') >= 5 and "003 Star Ship Design Rules" in converted
    assert client.get(url + "?book=chess").status_code == 404
    client.force_login(mallory)
    assert client.get(url).status_code == 404


def test_the_book_the_rubber_chose_is_the_tables_own_among_the_sheets(client, alice, bob, carol):
    """A rubber whose battles use My Trek V listed Buoyz first as "the table's own" record sheets,
    though its scenarios are fought on My Trek V."""
    from campaign import actions as platform

    c = make_cam(alice, bob, carol)
    platform.set_campaign_option(campaign_id=c.pk, user=alice, key="battle_book", value="mytrek")
    actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:2])
    actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    actions.roll_table(campaign_id=c.pk, user=bob)
    client.force_login(bob)
    page = client.get(f"/cam/{c.pk}/scenarios/1/").content.decode()
    sheets = page.split('id="record-sheets"')[1].split("</p>")[0]
    first = sheets.split("</a>")[0]
    assert "?book=mytrek" in first and sheets.index("(the table's own)") < sheets.index("?book=buoyz")
