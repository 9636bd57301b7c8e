"""Issue 13 item 7: saving "Your battles" (the battle preference, ruling C17) on the orders page
used to post the form and reload the page, throwing away the orders typed and not yet saved. It
is now saved in place (static/battle_preference.js, through PUT /api/campaigns/<id>/
battle-preference/): the page is not reloaded and the typed orders are still there.
Screenshots: tests/artifacts/test_saving_the_battle_preference_keeps_typed_orders--*.png.
"""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

TYPED = {"standing": {"loss_order": "costliest", "initiative": "last"}}


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_saving_the_battle_preference_keeps_typed_orders(small_campaign, new_page, login, shot, phone):
    page = new_page(phone=phone)
    login(page, "bob", "pw-bob")
    page.goto(reverse("campaign-orders", args=[small_campaign.pk]))
    page.wait_for_selector("#order-data", state="attached")
    textarea = page.locator("#orders-form textarea")
    textarea.fill(json.dumps(TYPED))  # typed, not saved
    page.evaluate("window.__same_page = true")
    page.select_option("#id_battle_preference", "tactical")
    page.locator("#battle-preference-form button[type=submit]").click()
    page.wait_for_function("() => document.getElementById('battle-preference-status').textContent.startsWith('Saved')")
    shot(page, "saved-phone" if phone else "saved-desktop")
    assert page.evaluate("window.__same_page === true"), "the page was reloaded"
    assert json.loads(textarea.input_value()) == TYPED
    assert page.locator("#id_battle_preference").input_value() == "tactical"
    assert small_campaign.empires.get(seat=1).battle_preference == "tactical"
    assert not small_campaign.turns.get(number=small_campaign.turn).orders.exists(), "nothing else was saved"
    # A refusal is shown in place too, and changes nothing.
    page.evaluate("""() => { const o = document.createElement('option'); o.value = 'chess'; o.text = 'chess';
                            document.getElementById('id_battle_preference').appendChild(o); }""")
    page.select_option("#id_battle_preference", "chess")
    page.locator("#battle-preference-form button[type=submit]").click()
    page.wait_for_function(
        "() => document.getElementById('battle-preference-status').textContent.includes('not changed')")
    assert "battle preference must be one of" in page.locator("#battle-preference-status").inner_text()
    assert page.evaluate("window.__same_page === true")
    assert json.loads(textarea.input_value()) == TYPED
    assert small_campaign.empires.get(seat=1).battle_preference == "tactical"
