"""Battle pages (issue 5, "Tabletop result entry"): either side enters the outcome ship by ship,
the other side confirms or disputes, the moderator settles disputes, all of it in the battle's
log; bad input is a form error that changes nothing; outsiders get 404.

Rules: 003 "Result of a Tactical Battle" (the holder takes the hex; destroyed ships go, damage
is carried until repaired), 003 "Alternative to a Tactical Battle" (auto-resolve); rulings
C15–C20 (docs/rulings.md).
"""

from __future__ import annotations

import html

import pytest
from django import forms
from django.test import Client
from django.urls import reverse

from campaign.eventhorizon.models import Ship
from campaign.models import Membership, Turn
from tactical.battles.forms import ResultForm
from tactical.models import Battle
from tests.tactical.battle_support import contact_turn

pytestmark = pytest.mark.django_db


@pytest.fixture
def dave(django_user_model):
    return django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")


@pytest.fixture
def battle(small_campaign, dave):
    turn = contact_turn(small_campaign, "tabletop")
    assert turn.status == Turn.Status.BATTLES
    # dave plays in the campaign too, but not in this battle.
    Membership.objects.create(campaign=small_campaign, user=dave, role=Membership.Role.PLAYER)
    return Battle.objects.get(campaign=small_campaign)


def text(response) -> str:
    return html.unescape(response.content.decode())


def client_for(user) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def ship_ids(battle):
    a = battle.setup["sides"][str(battle.attacker)]["ships"][0]["id"]
    d = battle.setup["sides"][str(battle.defender)]["ships"][0]["id"]
    return a, d


def entry(battle, **over) -> dict:
    """The entry form as it comes pre-filled (every ship survived with the damage it carried
    in), the attacker holding the field, then ``over``."""
    form = ResultForm(battle)
    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, "")
        if isinstance(field, forms.BooleanField):
            if value:
                data[name] = "on"
            continue
        data[name] = value
    data["holder"] = "attacker"
    data.update(over)
    return data


def destroy_defender(battle) -> dict:
    """One ship destroyed (the defender's), the other damaged: 2 hull and a laser bank."""
    a, d = ship_ids(battle)
    return entry(battle, **{f"ship_{d}_fate": "destroyed", f"ship_{a}_hull": 2, f"ship_{a}_w_laser_bank": 1})


def snapshot(battle):
    b = Battle.objects.get(pk=battle.pk)
    return (b.status, b.mode, b.proposal, b.proposed_by, b.result, b.resolved_how,
            list(b.log.values_list("id", "kind")))


def test_battle_page_for_each_role(battle, alice, bob, carol, dave, mallory):
    url = reverse("battle-detail", args=[battle.pk])
    for user in (alice, bob, carol):
        r = client_for(user).get(url)
        assert r.status_code == 200, user
        body = text(r)
        assert "Cyber-Corsair Galiot Class Corvette" in body
        assert "Laser Bank ×4" in body
        assert "Waiting for the result" in body
        assert "Fought on a real tabletop" in body
    bob_page = client_for(bob).get(url).content.decode()
    assert "Enter this result" in bob_page and "Auto-resolve it" not in bob_page
    alice_page = client_for(alice).get(url).content.decode()
    assert "Settle with this result" in alice_page and "Auto-resolve it" in alice_page
    assert "Enter this result" not in alice_page and "Change mode" in alice_page
    # Another player of the campaign, an outsider: 404, no hint the battle exists.
    assert client_for(dave).get(url).status_code == 404
    assert client_for(mallory).get(url).status_code == 404
    anonymous = client_for(None).get(url)
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_battle_list_and_campaign_page(battle, small_campaign, bob, dave, mallory):
    url = reverse("battle-list", args=[small_campaign.pk])
    body = client_for(bob).get(url).content.decode()
    assert reverse("battle-detail", args=[battle.pk]) in body
    assert f"Turn {battle.turn} waits for its battles" in body
    # dave sees the campaign but none of its battles; mallory not even the campaign.
    r = client_for(dave).get(url)
    assert r.status_code == 200 and reverse("battle-detail", args=[battle.pk]) not in text(r)
    assert client_for(mallory).get(url).status_code == 404
    page = client_for(bob).get(reverse("campaign-detail", args=[small_campaign.pk])).content.decode()
    assert f"Turn {battle.turn} waits for its battles" in page
    assert reverse("battle-detail", args=[battle.pk]) in page
    assert "Waiting for the result" in page
    dave_page = client_for(dave).get(reverse("campaign-detail", args=[small_campaign.pk])).content.decode()
    assert f"Turn {battle.turn} waits for its battles" in dave_page
    assert reverse("battle-detail", args=[battle.pk]) not in dave_page


def test_enter_result_through_the_form(battle, bob):
    a, d = ship_ids(battle)
    r = client_for(bob).post(reverse("battle-enter", args=[battle.pk]), destroy_defender(battle))
    assert r.status_code == 302
    battle.refresh_from_db()
    assert battle.status == Battle.Status.ENTERED and battle.proposed_by == battle.attacker
    ships = {s["ship"]: s for s in battle.proposal["ships"]}
    assert ships[d]["fate"] == "destroyed" and ships[d]["damage"] is None
    assert ships[a]["fate"] == "survived"
    assert ships[a]["damage"]["hull"] == 2 and ships[a]["damage"]["weapons"] == ["laser_bank"]
    assert battle.proposal["holder"] == battle.attacker
    assert list(battle.log.values_list("kind", flat=True)) == ["created", "entered"]
    page = client_for(bob).get(reverse("battle-detail", args=[battle.pk])).content.decode()
    assert "Entered result" in page and "destroyed" in page and "2 hull, Laser Bank" in page


@pytest.mark.parametrize("case, message", [
    ("hull over the design", "6 hull points lost of 5"),
    ("all hull lost, survived", "lost all 5 hull points: enter it as destroyed"),
    ("weapons over the design", "5 Laser Bank lost of 4"),
    ("holder with no ship left", "has no ship left in the hex to hold it"),
    # The attacker's ship captured (by the defender, whose only ship was destroyed): the
    # attacker is left without a ship, so he cannot hold the field.
    ("holder's only ship captured", "has no ship left in the hex to hold it"),
])
def test_invalid_entries_change_nothing(battle, bob, case, message):
    a, d = ship_ids(battle)
    data = destroy_defender(battle) | {
        "hull over the design": {f"ship_{a}_hull": 6},
        "all hull lost, survived": {f"ship_{a}_hull": 5},
        "weapons over the design": {f"ship_{a}_w_laser_bank": 5},
        "holder with no ship left": {"holder": "defender"},
        "holder's only ship captured": {f"ship_{a}_fate": "captured"},
    }[case]
    before = snapshot(battle)
    r = client_for(bob).post(reverse("battle-enter", args=[battle.pk]), data)
    assert r.status_code == 400
    assert message in text(r)
    assert snapshot(battle) == before


def test_form_errors_change_nothing(battle, bob):
    a, _ = ship_ids(battle)
    before = snapshot(battle)
    r = client_for(bob).post(reverse("battle-enter", args=[battle.pk]),
                             destroy_defender(battle) | {f"ship_{a}_hull": -1, "holder": ""})
    assert r.status_code == 400
    body = text(r)
    assert "greater than or equal to 0" in body and "This field is required" in body
    assert snapshot(battle) == before


def test_moderator_and_outsiders_cannot_enter(battle, alice, dave, mallory):
    before = snapshot(battle)
    r = client_for(alice).post(reverse("battle-enter", args=[battle.pk]), destroy_defender(battle))
    assert r.status_code == 400 and "only the players of the two sides" in text(r)
    for user in (dave, mallory):
        assert client_for(user).post(reverse("battle-enter", args=[battle.pk]),
                                     destroy_defender(battle)).status_code == 404
    assert client_for(None).post(reverse("battle-enter", args=[battle.pk]), destroy_defender(battle)).status_code == 302
    assert snapshot(battle) == before


def test_changes_are_post_only_and_csrf_protected(battle, bob):
    assert client_for(bob).get(reverse("battle-enter", args=[battle.pk])).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(bob)
    before = snapshot(battle)
    assert strict.post(reverse("battle-enter", args=[battle.pk]), destroy_defender(battle)).status_code == 403
    assert snapshot(battle) == before


def test_dispute_needs_a_reason_and_own_entry_cannot_be_confirmed(battle, bob, carol):
    client_for(bob).post(reverse("battle-enter", args=[battle.pk]), destroy_defender(battle))
    before = snapshot(battle)
    r = client_for(carol).post(reverse("battle-dispute", args=[battle.pk]), {"reason": "  "})
    assert r.status_code == 400 and "say what is wrong with the entered result" in text(r)
    r = client_for(bob).post(reverse("battle-confirm", args=[battle.pk]))
    assert r.status_code == 400 and "the other side must confirm the result you entered" in text(r)
    r = client_for(bob).post(reverse("battle-dispute", args=[battle.pk]), {"reason": "oops"})
    assert r.status_code == 400 and "you entered this result" in text(r)
    assert snapshot(battle) == before
    # Only the other side is offered confirm and dispute.
    assert "Confirm this result" not in client_for(bob).get(reverse("battle-detail", args=[battle.pk])).content.decode()
    assert "Confirm this result" in client_for(carol).get(reverse("battle-detail", args=[battle.pk])).content.decode()


def test_confirm_with_nothing_entered_is_refused(battle, carol):
    before = snapshot(battle)
    r = client_for(carol).post(reverse("battle-confirm", args=[battle.pk]))
    assert r.status_code == 400 and "no entered result waiting to be confirmed" in text(r)
    assert snapshot(battle) == before


def _assert_turn_completed(small_campaign, battle, turn_number):
    """003 Result of a Tactical Battle: the destroyed ship is gone, the survivor carries its
    damage; the turn is done and the next one opens."""
    a, d = ship_ids(battle)
    assert Turn.objects.get(campaign=small_campaign, number=turn_number).status == Turn.Status.DONE
    small_campaign.refresh_from_db()
    assert small_campaign.turn == turn_number + 1
    assert Turn.objects.get(campaign=small_campaign, number=turn_number + 1).status == Turn.Status.OPEN
    assert not Ship.objects.filter(campaign=small_campaign, number=d).exists()
    survivor = Ship.objects.get(campaign=small_campaign, number=a)
    assert survivor.damage["hull"] == 2 and survivor.damage["weapons"] == ["laser_bank"]


def test_enter_dispute_settle_completes_the_turn(battle, small_campaign, alice, bob, carol):
    turn_number = battle.turn
    a, d = ship_ids(battle)
    # bob enters a result in which his ship is unharmed...
    client_for(bob).post(reverse("battle-enter", args=[battle.pk]),
                         entry(battle, **{f"ship_{d}_fate": "destroyed"}))
    r = client_for(carol).post(reverse("battle-dispute", args=[battle.pk]),
                               {"reason": "Your corvette lost 2 hull and a laser bank."})
    assert r.status_code == 302
    battle.refresh_from_db()
    assert battle.status == Battle.Status.DISPUTED
    panel = client_for(alice).get(reverse("moderation-panel", args=[small_campaign.pk])).content.decode()
    assert "1 disputed battle to settle" in panel and reverse("battle-detail", args=[battle.pk]) in panel
    # ...a side cannot settle; the moderator settles with her own entry.
    r = client_for(bob).post(reverse("battle-settle", args=[battle.pk]), destroy_defender(battle) | {"how": "own"})
    assert r.status_code == 400 and "only the campaign's moderator can settle" in text(r)
    r = client_for(alice).post(reverse("battle-settle", args=[battle.pk]),
                               destroy_defender(battle) | {"how": "own", "note": "per the photos"})
    assert r.status_code == 302
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and battle.resolved_how == Battle.How.MODERATOR
    assert list(battle.log.values_list("kind", flat=True)) == ["created", "entered", "disputed", "resolved"]
    page = client_for(carol).get(reverse("battle-detail", args=[battle.pk])).content.decode()
    assert "settled by the moderator" in page and "per the photos" in page and "Your corvette lost 2 hull" in page
    _assert_turn_completed(small_campaign, battle, turn_number)


def test_enter_confirm_completes_the_turn(battle, small_campaign, bob, carol):
    turn_number = battle.turn
    client_for(bob).post(reverse("battle-enter", args=[battle.pk]), destroy_defender(battle))
    r = client_for(carol).post(reverse("battle-confirm", args=[battle.pk]))
    assert r.status_code == 302
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and battle.resolved_how == Battle.How.TABLETOP
    assert list(battle.log.values_list("kind", flat=True)) == ["created", "entered", "confirmed", "resolved"]
    _assert_turn_completed(small_campaign, battle, turn_number)
    # A resolved battle takes no more entries.
    before = snapshot(battle)
    r = client_for(bob).post(reverse("battle-enter", args=[battle.pk]), destroy_defender(battle))
    assert r.status_code == 400 and "already resolved" in text(r)
    assert snapshot(battle) == before


def test_moderator_settles_with_the_entered_result(battle, small_campaign, alice, bob):
    client_for(bob).post(reverse("battle-enter", args=[battle.pk]), destroy_defender(battle))
    r = client_for(alice).post(reverse("battle-settle", args=[battle.pk]), {"how": "entered"})
    assert r.status_code == 302
    battle.refresh_from_db()
    assert battle.resolved and battle.result["holder"] == battle.attacker
    _assert_turn_completed(small_campaign, battle, battle.turn)


def test_moderator_settles_with_nothing_entered_is_refused(battle, alice):
    before = snapshot(battle)
    r = client_for(alice).post(reverse("battle-settle", args=[battle.pk]), {"how": "entered"})
    assert r.status_code == 400 and "nothing has been entered" in text(r)
    assert snapshot(battle) == before


def test_moderator_auto_resolves(battle, small_campaign, alice):
    # 003 Alternative to a Tactical Battle: left to auto-resolve when the turn completes.
    r = client_for(alice).post(reverse("battle-settle", args=[battle.pk]), {"how": "auto", "note": "no table"})
    assert r.status_code == 302
    battle.refresh_from_db()
    assert battle.resolved and battle.result is None
    assert Turn.objects.get(campaign=small_campaign, number=battle.turn).status == Turn.Status.DONE


def test_mode_change(battle, alice, bob):
    before = snapshot(battle)
    r = client_for(bob).post(reverse("battle-mode", args=[battle.pk]), {"mode": "auto"})
    assert r.status_code == 400 and "only the campaign's moderator" in text(r)
    r = client_for(alice).post(reverse("battle-mode", args=[battle.pk]), {"mode": "tabletop"})
    assert r.status_code == 400 and "Select a valid choice" in text(r)  # not offered: it is tabletop already
    r = client_for(alice).post(reverse("battle-mode", args=[battle.pk]), {"mode": "bogus"})
    assert r.status_code == 400 and "Select a valid choice" in text(r)
    assert snapshot(battle) == before
    r = client_for(alice).post(reverse("battle-mode", args=[battle.pk]), {"mode": "auto"})
    assert r.status_code == 302
    battle.refresh_from_db()
    assert battle.resolved and battle.resolved_how == Battle.How.MODERATOR


def test_battle_preference_on_the_orders_page(small_campaign, bob, carol):
    # small_campaign lets either side ask (Campaign.battle_requests "either", ruling C17).
    orders = reverse("campaign-orders", args=[small_campaign.pk])
    assert "Ask for my battles to be settled by" in client_for(bob).get(orders).content.decode()
    r = client_for(bob).post(reverse("battle-preference", args=[small_campaign.pk]), {"preference": "tabletop"})
    assert r.status_code == 302 and r["Location"] == orders
    assert small_campaign.empires.get(seat=1).battle_preference == "tabletop"
    r = client_for(bob).post(reverse("battle-preference", args=[small_campaign.pk]), {"preference": "chess"},
                             follow=True)
    assert "battle preference must be one of" in text(r)
    assert small_campaign.empires.get(seat=1).battle_preference == "tabletop"
    small_campaign.battle_requests = "nobody"
    small_campaign.save(update_fields=["battle_requests"])
    assert "Ask for my battles to be settled by" not in client_for(carol).get(orders).content.decode()


def test_battle_preference_outsider_404(small_campaign, mallory, alice):
    url = reverse("battle-preference", args=[small_campaign.pk])
    assert client_for(mallory).post(url, {"preference": "auto"}).status_code == 404
    assert client_for(alice).post(url, {"preference": "auto"}).status_code == 404  # no empire of hers


def test_embedded_battle_page_links_to_play(small_campaign, alice, bob):
    contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get(campaign=small_campaign)
    for user in (alice, bob):
        page = text(client_for(user).get(reverse("battle-detail", args=[battle.pk])))
        assert reverse("battle-play", args=[battle.pk]) in page
        assert "Enter this result" not in page and "Settle with this result" not in page
