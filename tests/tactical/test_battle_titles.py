"""Issue 23 items 15 and 17: a battle's pages are titled by its host and its rule book — a pickup
battle is "Pickup battle N" on its play and replay pages, not an Event Horizon map battle "at (0, 0)";
its end names who won (the rule book's summary) and does not send the result "to the campaign"."""

from __future__ import annotations

import html
import re

import pytest

from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import book
from tactical.models import PickupBattle
from tactical.play import actions as play

pytestmark = pytest.mark.django_db


def played_pickup(user, ruleset: str):
    o = min(book(ruleset).offers(user), key=lambda o: o.points)
    points = max(book(ruleset).min_points if hasattr(book(ruleset), "min_points") else 0, o.points * 2, 200)
    pickup = actions.create_pickup(user=user, ruleset=ruleset, points=points, opponent="computer")
    actions.submit_fleet(
        pickup_id=pickup.pk, user=user, ships=[o.key] * min(points // o.points, book(ruleset).max_ships)
    )
    pickup.refresh_from_db()
    play.hand_to_doctrine(battle_id=pickup.battle_id, user=user)
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.OVER
    return pickup


def _text(response) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


@pytest.mark.parametrize("ruleset", ["eventhorizon", "buoyz"])
def test_a_pickup_battle_is_titled_by_its_host_and_says_who_won(client, bob, ruleset):
    pickup = played_pickup(bob, ruleset)
    summary = pickup.battle.log.get(kind="tactical_over").text
    assert "holds the field" in summary or "neither side" in summary or "Mutual" in summary
    client.force_login(bob)
    for url in (f"/battles/{pickup.battle_id}/play/", f"/battles/{pickup.battle_id}/replay/"):
        page = _text(client.get(url))
        assert f"Pickup battle {pickup.pk}" in page, url            # item 15: the host's title
        assert " at (0, 0)" not in page and f"Battle {pickup.battle_id} at" not in page, url
        assert "gone to the campaign" not in page, url             # item 17: no campaign to go to
    play_page = _text(client.get(f"/battles/{pickup.battle_id}/play/"))
    assert summary in play_page
    detail = _text(client.get(f"/battles/pickup/{pickup.pk}/"))
    assert summary in detail                                       # item 17: its own page says who won


@pytest.mark.parametrize("ruleset", ["eventhorizon", "buoyz"])
def test_the_battle_page_of_a_pickup_has_its_host_title_and_its_rule_books_ships(client, bob, ruleset):
    # item 15 — no "Battle 1 at (0, 0)", and Event Horizon's engine and systems only for its own ships
    pickup = played_pickup(bob, ruleset)
    client.force_login(bob)
    response = client.get(f"/battles/{pickup.battle_id}/")
    assert response.status_code == 200
    page = _text(response)
    assert f"Pickup battle {pickup.pk}" in page and " at (0, 0)" not in page and "Hex" not in page
    if ruleset == "buoyz":
        assert "Engine" not in page and "no weapons" not in page and "empire 1" not in page
    else:
        assert "Engine" in page  # Event Horizon's designs have engines and systems


def test_the_battle_page_of_a_cam_scenario_fought_online(client, alice, bob, carol):
    # item 15 — a CAM scenario fought online: titled as its scenario, its ships without Event Horizon's fields
    from campaign.cam import actions as cam_actions
    from campaign.cam import online
    from tactical.models import Battle
    from tests.cam.conftest import make_cam, ship_numbers

    c = make_cam(alice, bob, carol)
    cam_actions.generate_scenario(campaign_id=c.pk, user=alice, nature="open_battle")
    online.set_mode(campaign_id=c.pk, user=alice, number=1, mode="online")
    cam_actions.select_forces(campaign_id=c.pk, user=bob, ships=ship_numbers(c, 1)[:2])
    cam_actions.select_forces(campaign_id=c.pk, user=carol, ships=ship_numbers(c, 2)[:2])
    cam_actions.roll_table(campaign_id=c.pk, user=bob)
    battle = Battle.objects.get(campaign=c)
    client.force_login(bob)
    for url in (f"/battles/{battle.pk}/", f"/battles/{battle.pk}/play/", f"/battles/{battle.pk}/replay/"):
        page = _text(client.get(url))
        assert "Scenario 1" in page, url
        assert f"Battle {battle.pk} at" not in page and "Engine 0" not in page and "no weapons" not in page, url
