"""Issue 23 item 21 in a real browser, on a desktop and at phone width (390×844): the order page's
selects stay inside their cards, and a die's face ("13") never wraps into "1 / 3" on the dice
log. Screenshots: tests/artifacts/test_order_page_fit*.png."""

import pytest
from django.urls import reverse

from tests.campaign.test_dice_log import play_quiet_turns

SPILLS = """() => Array.from(document.querySelectorAll('.card select')).filter(s => s.offsetParent !== null)
  .map(s => { const card = s.closest('.card').getBoundingClientRect(), box = s.getBoundingClientRect();
              return box.right > card.right + 0.5 || box.left < card.left - 0.5
                     ? s.id + ' ends at ' + Math.round(box.right) + ', its card at ' + Math.round(card.right)
                     : null; })
  .filter(Boolean)"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, {"width": 390, "height": 844}],
                         ids=["desktop", "phone"])
def test_the_order_pages_selects_stay_inside_their_cards(new_page, login, shot, small_campaign, viewport):
    page = new_page(phone=viewport["width"] < 500)
    page.set_viewport_size(viewport)
    login(page, "bob", "pw-bob")
    page.goto(reverse("campaign-orders", args=[small_campaign.pk]))
    page.wait_for_function("() => document.querySelector('#build-design').options.length > 0")
    page.locator("#standing-change").check()
    shot(page, f"{viewport['width']}-orders")
    assert page.evaluate(SPILLS) == []


def test_a_die_face_never_wraps_on_a_phone(new_page, login, shot, small_campaign):
    campaign = play_quiet_turns(small_campaign, turns=1)
    page = new_page(phone=True)
    login(page, "bob", "pw-bob")
    page.goto(reverse("campaign-dice", args=[campaign.pk]))
    cell = page.locator(".dice-table td.faces").first
    cell.wait_for()
    # A twenty-sided die's faces, as a 1d20 roll shows them (the quiet turn rolled only d6s).
    lines = page.evaluate("""(td) => { td.textContent = '13 20 17 11';
        const range = document.createRange(); range.selectNodeContents(td);
        const tops = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
        const words = td.textContent.split(' ').length;
        return {lines: tops.size, words: words, width: td.getBoundingClientRect().width}; }""",
                          cell.element_handle())
    shot(page, "dice")
    # Faces may wrap between faces, never inside one: no more lines than faces, and "13" whole.
    # Squeezed as a crowded table squeezes it on a phone (its narrowest).
    single = page.evaluate("""(td) => { td.textContent = '13'; td.style.display = 'block'; td.style.width = '1ch';
        const range = document.createRange(); range.selectNodeContents(td);
        return new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top))).size; }""",
                           cell.element_handle())
    assert single == 1, "the face 13 wraps inside itself"
    assert lines["lines"] <= lines["words"], lines
