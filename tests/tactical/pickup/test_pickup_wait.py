"""A pickup battle that waits for a seat (ruling PK7; docs/battles.md "Pickup battles"): before
the start the creator may cancel it or hand a waiting seat to the computer, and a player of seat
2… without a fleet may leave it. Each refusal changes nothing: not the creator 403, anyone not in
the battle 404, after the start (or a second time) 409; a cancelled battle's link answers 410."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.models import Campaign, DiceRoll, Empire, Membership
from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import book
from tactical.models import Battle, PickupBattle
from tests.campaign.test_hostile_input import fingerprint

pytestmark = pytest.mark.django_db
EH, BZ = "eventhorizon", "buoyz"


def api(user=None) -> APIClient:
    c = APIClient()
    if user is not None:
        c.force_login(user)
    return c


def fleet(user, ruleset: str) -> list[str]:
    o = min(book(ruleset).offers(user), key=lambda o: (o.points, o.key))
    return [o.key] * 2


@pytest.fixture
def dave(django_user_model):
    return django_user_model.objects.create_user("dave", "dave@example.com", "pw-dave")


def two_sided(bob, carol=None, **extra) -> PickupBattle:
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=240, opponent="link", **extra)
    if carol is not None:
        actions.accept_pickup(token=pickup.invite_token, user=carol)
    pickup.refresh_from_db()
    return pickup


def three_sided(bob, carol) -> PickupBattle:
    """Seat 2 carol's, seat 3 free (by the link)."""
    pickup = actions.create_pickup(user=bob, ruleset=BZ, points=40, opponent="link", sides=3, others=["link"])
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    pickup.refresh_from_db()
    return pickup


def started(bob, carol) -> PickupBattle:
    pickup = two_sided(bob, carol)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=fleet(bob, EH))
    actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=fleet(carol, EH))
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.PLAYING
    return pickup


def refused(user, url: str, status: int, words: str, body=None):
    c = api(user)  # (logging in writes last_login)
    before = fingerprint()
    mail.outbox.clear()
    res = c.post(url, body or {}, format="json")
    assert res.status_code == status, res.content
    assert words in res.json()["detail"], res.json()
    assert fingerprint() == before and not mail.outbox


# --- cancel --------------------------------------------------------------------------------------

def test_the_creator_cancels_a_waiting_battle_its_link_answers_410_and_seated_players_are_mailed(
        bob, carol, dave, client, django_capture_on_commit_callbacks):
    pickup = three_sided(bob, carol)
    actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=fleet(carol, BZ))
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        res = api(bob).post(f"/api/pickup/{pickup.pk}/cancel/", {}, format="json")
    assert res.status_code == 200 and res.json()["status"] == "cancelled"
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.CANCELLED and pickup.battle_id is None
    assert pickup.campaign.status == Campaign.Status.FINISHED
    assert not Battle.objects.filter(campaign_id=pickup.campaign_id).exists()
    assert [m.to for m in mail.outbox] == [["carol@example.com"]] and "cancelled" in mail.outbox[0].subject
    # Its list shows it cancelled; the link is dead (410, naming it); no fleet goes in.
    assert [r["status"] for r in api(carol).get("/api/pickup/").json()["results"]] == ["cancelled"]
    res = api(dave).post("/api/pickup/accept/", {"token": pickup.invite_token}, format="json")
    assert res.status_code == 410 and f"pickup battle {pickup.pk} was cancelled" in res.json()["detail"]
    client.force_login(dave)
    page = client.get(reverse("pickup-join", args=[pickup.invite_token]))
    assert (
        page.status_code == 410
        and b"cancelled by its creator" in page.content
        and b"accept-pickup" not in page.content
    )
    refused(bob, f"/api/pickup/{pickup.pk}/fleet/", 409, "was cancelled", {"ships": fleet(bob, BZ)})
    assert not Empire.objects.filter(campaign=pickup.campaign, user=dave).exists()


def test_submitting_a_fleet_to_a_cancelled_battle_is_refused(bob, carol):
    pickup = two_sided(bob, carol)
    actions.cancel_pickup(pickup_id=pickup.pk, user=bob)
    with pytest.raises(actions.Conflict, match="was cancelled"):
        actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=fleet(carol, EH))
    assert PickupBattle.objects.get(pk=pickup.pk).fleets == {}


def test_cancel_refusals_change_nothing(bob, carol, mallory):
    pickup = two_sided(bob, carol)
    url = f"/api/pickup/{pickup.pk}/cancel/"
    refused(carol, url, 403, "only the battle's creator, bob, may cancel it")
    refused(mallory, url, 404, "no such pickup battle")
    assert api(bob).post(url, {}, format="json").status_code == 200
    refused(bob, url, 409, "was cancelled")  # the double click
    fought = started(bob, carol)
    refused(bob, f"/api/pickup/{fought.pk}/cancel/", 409, "has started")


def test_the_cancel_button_asks_first(bob, carol, client):
    pickup = two_sided(bob, carol)
    client.force_login(bob)
    assert b'id="cancel-pickup"' in client.get(reverse("pickup-detail", args=[pickup.pk])).content
    url = reverse("pickup-cancel", args=[pickup.pk])
    before = fingerprint()  # (after the page: a session row may be written)
    page = client.post(url)
    assert page.status_code == 200 and b"confirm" in page.content and b"carol (seat 2) is emailed" in page.content
    assert fingerprint() == before
    assert client.post(url, {"confirm": "yes"}).status_code == 302
    assert PickupBattle.objects.get(pk=pickup.pk).status == PickupBattle.Status.CANCELLED
    assert client.post(url, {"confirm": "yes"}).status_code == 409


# --- hand a seat to the computer -----------------------------------------------------------------

def test_a_seat_whose_player_built_nothing_goes_to_the_computer_and_the_battle_starts(
        bob, carol, django_capture_on_commit_callbacks):
    pickup = two_sided(bob, carol)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=fleet(bob, EH))
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        res = api(bob).post(f"/api/pickup/{pickup.pk}/seats/2/computer/", {}, format="json")
    assert res.status_code == 200, res.content
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.PLAYING and pickup.battle_id and pickup.computer
    assert pickup.opponent_id is None
    seat2 = Empire.objects.get(campaign=pickup.campaign, seat=2)
    assert seat2.is_bot and seat2.user_id is None and seat2.name == actions.COMPUTER_NAME
    assert not Membership.objects.filter(campaign=pickup.campaign, user=carol).exists()
    assert pickup.battle.doctrine_sides == [2]
    rolls = DiceRoll.objects.filter(campaign=pickup.campaign, phase=f"pickup {pickup.pk} fleets")
    assert rolls.exists() and all(r.concerns == [2] for r in rolls)
    to_carol = [m for m in mail.outbox if m.to == ["carol@example.com"]]  # (bob hears his battle began)
    assert len(to_carol) == 1 and "handed your seat (2)" in to_carol[0].body
    assert api(carol).get(f"/api/pickup/{pickup.pk}/").status_code == 404


def test_a_free_seat_goes_to_the_computer_and_the_link_is_full(bob, carol, dave):
    pickup = three_sided(bob, carol)
    mail.outbox.clear()
    got = actions.hand_seat_to_computer(pickup_id=pickup.pk, user=bob, seat=3)
    assert got.status == PickupBattle.Status.BUILDING and set(got.fleets) == {"3"} and not mail.outbox
    assert Empire.objects.get(campaign=pickup.campaign, seat=3).is_bot
    with pytest.raises(actions.Conflict, match="every seat"):
        actions.accept_pickup(token=pickup.invite_token, user=dave)


def test_hand_over_refusals_change_nothing(bob, carol, mallory):
    pickup = two_sided(bob, carol)
    url = f"/api/pickup/{pickup.pk}/seats/2/computer/"
    refused(carol, url, 403, "only the battle's creator")
    refused(mallory, url, 404, "no such pickup battle")
    refused(bob, f"/api/pickup/{pickup.pk}/seats/1/computer/", 400, "seat 1 is yours")
    refused(bob, f"/api/pickup/{pickup.pk}/seats/3/computer/", 400, "2 to 2")
    actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=fleet(carol, EH))
    refused(bob, url, 409, "seat 2's fleet is in")
    other = two_sided(bob)
    assert api(bob).post(f"/api/pickup/{other.pk}/seats/2/computer/", {}, format="json").status_code == 200
    refused(bob, f"/api/pickup/{other.pk}/seats/2/computer/", 409, "the computer's already")  # double click
    assert len(PickupBattle.objects.get(pk=other.pk).fleets) == 1
    fought = started(bob, mallory)
    refused(bob, f"/api/pickup/{fought.pk}/seats/2/computer/", 409, "has started")


# --- leave ---------------------------------------------------------------------------------------

def test_a_player_leaves_and_the_link_fills_the_seat_again(bob, carol, dave, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        pickup = actions.create_pickup(user=bob, ruleset=EH, points=240, opponent="email",
                                       email="carol@example.com")
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    res = api(carol).post(f"/api/pickup/{pickup.pk}/leave/", {}, format="json")
    assert res.status_code == 204, res.content
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.INVITING and pickup.opponent_id is None and not pickup.invite_email
    seat2 = Empire.objects.get(campaign=pickup.campaign, seat=2)
    assert seat2.user_id is None and not seat2.is_bot
    assert not Membership.objects.filter(campaign=pickup.campaign, user=carol).exists()
    assert api(carol).get(f"/api/pickup/{pickup.pk}/").status_code == 404
    assert actions.accept_pickup(token=pickup.invite_token, user=dave).seat_of(dave) == 2


def test_leave_refusals_change_nothing(bob, carol, mallory):
    pickup = three_sided(bob, carol)
    url = f"/api/pickup/{pickup.pk}/leave/"
    refused(bob, url, 409, "cancel it instead")
    refused(mallory, url, 404, "no such pickup battle")
    actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=fleet(carol, BZ))
    refused(carol, url, 409, "your fleet is submitted")
    fought = started(bob, mallory)
    refused(mallory, f"/api/pickup/{fought.pk}/leave/", 409, "has started")


def test_the_leave_button_on_the_page(bob, carol, client):
    pickup = two_sided(bob, carol)
    client.force_login(carol)
    page = client.get(reverse("pickup-detail", args=[pickup.pk]))
    assert b'id="leave-pickup"' in page.content and b'id="cancel-pickup"' not in page.content
    assert client.post(reverse("pickup-leave", args=[pickup.pk])).status_code == 302
    assert Empire.objects.get(campaign=pickup.campaign, seat=2).user_id is None
