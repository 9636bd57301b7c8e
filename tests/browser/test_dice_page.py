"""The dice log page at phone width, with rolls withheld by fog of war (docs/online-play.md "The
dice log: what each role sees"; rulings FW7, DL2). Screenshot: tests/artifacts/test_dice_*."""

from django.urls import reverse

from campaign.models import DiceRoll
from tests.campaign.test_dice_log import play_quiet_turns


def test_a_player_reads_the_dice_log_on_a_phone(page, login, shot, small_campaign):
    campaign = play_quiet_turns(small_campaign, turns=1)
    carols = DiceRoll.objects.filter(campaign=campaign, concerns=[2]).order_by("seq")
    assert carols.exists()
    page.set_viewport_size({"width": 390, "height": 844})
    login(page, "bob", "pw-bob")
    page.goto(reverse("campaign-dice", args=[campaign.pk]) + f"?page={(carols[0].seq - 1) // 50 + 1}")
    withheld = page.get_by_text("withheld: a roll for another empire").first
    assert withheld.is_visible()
    assert page.get_by_text("you", exact=True).first.is_visible()  # bob's own income rolls
    # The log fits the phone's width (the table does not scroll sideways inside its frame).
    assert page.evaluate("document.querySelector('.dice-table').scrollWidth <= "
                         "parseFloat(getComputedStyle(document.querySelector('main')).width)")
    shot(page, "phone")
