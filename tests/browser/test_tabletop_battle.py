"""A tabletop battle's result in a real browser (issue 5, "Tabletop result entry", "Done when"):
bob (the attacker) opens the battle from the campaign page and enters the result ship by ship,
carol (the defender) disputes it with a reason, alice (the moderator) settles it with her own
entry; the battle is resolved, its log shows each step, and the campaign's turn moves on.
Screenshots: tests/artifacts/test_tabletop_result_entered_disputed_settled--*.png.

Rules: 003 "Result of a Tactical Battle" (destroyed ships go, damage is carried, the holder takes
the hex); rulings C15–C20 (docs/rulings.md).
"""

from django.urls import reverse

from campaign.eventhorizon.models import Ship
from campaign.models import Turn
from tactical.models import Battle
from tests.tactical.battle_support import contact_turn


def open_battle_from_campaign(page, campaign_id: int, battle: Battle) -> None:
    page.goto(reverse("campaign-detail", args=[campaign_id]))
    assert page.locator("#battles-banner").inner_text().startswith(f"Turn {battle.turn} waits for its battles")
    with page.expect_navigation():
        page.click(f"#campaign-battles a[href='{reverse('battle-detail', args=[battle.pk])}']")
    assert page.locator("h1").inner_text().startswith(f"Battle {battle.pk}")


def test_tabletop_result_entered_disputed_settled(new_page, login, shot, small_campaign):
    turn = contact_turn(small_campaign, "tabletop")
    assert turn.status == Turn.Status.BATTLES
    battle = Battle.objects.get(campaign=small_campaign)
    a = battle.setup["sides"][str(battle.attacker)]["ships"][0]["id"]
    d = battle.setup["sides"][str(battle.defender)]["ships"][0]["id"]

    # bob, the attacker: his corvette damaged, carol's destroyed, he holds the field.
    bob = new_page()
    login(bob, "bob", "pw-bob")
    open_battle_from_campaign(bob, small_campaign.pk, battle)
    shot(bob, "01-bob-battle-page")
    bob.select_option(f"#id_ship_{d}_fate", "destroyed")
    bob.fill(f"#id_ship_{a}_hull", "1")
    bob.fill(f"#id_ship_{a}_w_laser_bank", "1")
    bob.select_option("#id_holder", "attacker")
    shot(bob, "02-bob-entry")
    with bob.expect_navigation():
        bob.click("#enter-button")
    assert "Result entered" in bob.locator("main").inner_text()
    assert bob.locator("#status-text").inner_text() == "Result entered: waiting for the other side to confirm"
    assert "1 hull, Laser Bank" in bob.locator("#battle-proposal").inner_text()
    shot(bob, "03-bob-entered")

    # carol, the defender, disputes: bob's corvette lost more.
    carol = new_page()
    login(carol, "carol", "pw-carol")
    open_battle_from_campaign(carol, small_campaign.pk, battle)
    assert carol.locator("#confirm-button").is_visible()
    carol.fill("#id_reason", "Your corvette lost 3 hull points, not 1.")
    shot(carol, "04-carol-dispute")
    with carol.expect_navigation():
        carol.click("#dispute-button")
    assert carol.locator("#status-text").inner_text() == "Result disputed: the moderator settles it"
    shot(carol, "05-carol-disputed")

    # alice, the moderator, finds it on her panel and settles it with her own entry.
    alice = new_page()
    login(alice, "alice", "pw-alice")
    alice.goto(reverse("moderation-panel", args=[small_campaign.pk]))
    assert "1 disputed battle to settle" in alice.locator("main").inner_text()
    with alice.expect_navigation():
        alice.click(f"#disputed-battles a[href='{reverse('battle-detail', args=[battle.pk])}']")
    alice.select_option(f"#id_ship_{d}_fate", "destroyed")
    alice.fill(f"#id_ship_{a}_hull", "3")
    alice.fill(f"#id_ship_{a}_w_laser_bank", "1")
    alice.select_option("#id_holder", "attacker")
    alice.fill("#entry-note", "checked the photos of the table")
    shot(alice, "06-alice-settle")
    with alice.expect_navigation():
        alice.click("#settle-own-button")
    assert alice.locator("#status-text").inner_text() == "Resolved"
    result = alice.locator("#battle-result").inner_text()
    assert "3 hull, Laser Bank" in result and "destroyed" in result
    log = alice.locator("#battle-log tbody").inner_text()
    kinds = [alice.locator(f"#battle-log tr.log-{k}").count() for k in ("entered", "disputed", "resolved")]
    assert kinds == [1, 1, 1], log
    assert "Your corvette lost 3 hull points, not 1." in log and "checked the photos of the table" in log
    shot(alice, "07-alice-resolved")

    # The campaign's turn moved on: the destroyed ship is gone, the survivor carries its damage.
    alice.goto(reverse("campaign-detail", args=[small_campaign.pk]))
    assert f"turn {battle.turn + 1}" in alice.locator("main p.muted").first.inner_text()
    assert alice.locator("#battles-banner").count() == 0
    shot(alice, "08-campaign-next-turn")
    assert Turn.objects.get(campaign=small_campaign, number=battle.turn).status == Turn.Status.DONE
    assert not Ship.objects.filter(campaign=small_campaign, number=d).exists()
    assert Ship.objects.get(campaign=small_campaign, number=a).damage["hull"] == 3
