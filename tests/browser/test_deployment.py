"""Deploying an embedded battle's fleets by hand in a real browser (Campaign.deployment "hand";
ruling TP8; 003 "Use of BP in a Campaign: Advanced Early Warning Array", ruling TC24). carol (the
defender, seat 2) deploys first: she picks a ship's row, clicks a square of her zone on the table
and deploys; bob's waiting page reloads itself, shows her fleet on the table, and he lets his
fleet line up automatically; the battle begins. Screenshots:
tests/artifacts/test_both_sides_deploy_by_hand--*.png."""

from __future__ import annotations

from django.urls import reverse

from campaign.models import Campaign
from tactical.models import Battle
from tactical.play import embedded
from tactical.rules.eventhorizon import play as ehplay
from tests.tactical.battle_support import contact_turn


def test_both_sides_deploy_by_hand(eager_tasks, small_campaign, new_page, login, shot, bob, carol):
    small_campaign.deployment = Campaign.Deployment.HAND
    small_campaign.save(update_fields=["deployment"])
    turn = contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get(campaign=small_campaign, turn=turn.number)
    assert battle.status == Battle.Status.DEPLOYING
    assert ehplay.next_to_deploy(battle.setup) == battle.defender == 2

    pages = {1: new_page(), 2: new_page()}
    login(pages[1], "bob", "pw-bob")
    login(pages[2], "carol", "pw-carol")
    url = reverse("battle-play", args=[battle.pk])
    pages[1].goto(url)
    pages[1].wait_for_selector("#waiting")
    shot(pages[1], "01-bob-waits-for-carol")

    carol_page = pages[2]
    carol_page.goto(url)
    carol_page.wait_for_selector("#your-deployment")
    ships = [int(s["id"]) for s in battle.setup["sides"]["2"]["ships"]]
    zone = ehplay.zone_of(battle.setup, 2)
    target = next(c for c in zone if c[1] == 14 and c[0] <= 3)  # her zone's front row, near the left
    carol_page.click(f'tr[data-deploy-ship="{ships[0]}"]')
    carol_page.click(f'#deploy-board rect[data-x="{target[0]}"][data-y="{target[1]}"]')
    assert (
        carol_page.eval_on_selector(f'select[name="square_{ships[0]}"]', "s => s.value")
        == f"{target[0]},{target[1]}"
    )
    # the chosen squares are marked on the table as she places the ships
    assert (
        carol_page.locator(
            f'#deploy-board rect.deploy-chosen[data-x="{target[0]}"][data-y="{target[1]}"]'
        ).count()
        == 1
    )
    assert carol_page.locator("#deploy-board rect.deploy-chosen").count() == len(ships)
    carol_page.select_option(f'select[name="facing_{ships[0]}"]', "E")
    shot(carol_page, "02-carol-places-a-ship")
    with carol_page.expect_navigation():
        carol_page.click("#deploy-placed")
    battle.refresh_from_db()
    assert ehplay.next_to_deploy(battle.setup) == 1
    placed = {p["ship"]: p for p in battle.setup["placements"]["2"]}
    assert (placed[ships[0]]["x"], placed[ships[0]]["y"], placed[ships[0]]["facing"]) == (target[0], target[1], "E")

    # bob's page reloads itself: his turn to deploy, with carol's fleet on the table.
    bob_page = pages[1]
    bob_page.wait_for_selector("#your-deployment", timeout=15000)
    assert bob_page.locator(f'#deploy-board g.ship[data-ship="{ships[0]}"]').count() == 1
    shot(bob_page, "03-bob-sees-carols-fleet")
    with bob_page.expect_navigation():
        bob_page.click("#deploy-automatic")
    battle.refresh_from_db()
    assert battle.status == Battle.Status.PLAYING
    bob_page.wait_for_selector("#board svg")
    shot(bob_page, "04-the-battle-begins")
    state = embedded.current_state(battle)
    assert state.ship(ships[0]).pos == target
