"""Pickup battles (issue 17 item 4; docs/battles.md "Pickup battles"; tactical/hosts/pickup/): create
one against the computer or an invited player, accept, build fleets checked against the points
total and the rule book's limits, play it on the embedded-battle pages to its end, every die in
the host's dice log; outsiders get 404. The rule book offered is any registered one with online
play and a fleet book (tactical/hosts/pickup/books.py)."""

from __future__ import annotations

import io
import json

import pytest
from django.core import mail
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.models import Campaign, DiceRoll, Empire
from tactical.hosts.pickup import actions
from tactical.hosts.pickup.books import BOOKS, available, book
from tactical.models import Battle, BattleStep, PickupBattle
from tactical.play import actions as play
from tactical.rules import registry

pytestmark = pytest.mark.django_db
EH = "eventhorizon"


def api(user=None) -> APIClient:
    c = APIClient()
    if user is not None:
        c.force_login(user)
    return c


def cheapest(user, ruleset: str = EH):
    return min(book(ruleset).offers(user), key=lambda o: o.points)


def a_fleet(user, points: int, ruleset: str = EH) -> list[str]:
    """The cheapest ship, as many times as fit (within the ship limit)."""
    o = cheapest(user, ruleset)
    return [o.key] * min(points // o.points, book(ruleset).max_ships)


# --- the rule books offered ---------------------------------------------------------------------

def test_the_rule_books_offered_are_the_registrys_playable_ones_with_a_fleet_book():
    names = [n for n, _, _ in available()]
    assert EH in names
    assert names == [r.name for r in registry.playable() if r.name in BOOKS]
    for name in BOOKS:
        assert (name in names) == (registry.find_resolver(name).play is not None)


def test_the_event_horizon_offers_are_the_library_and_the_players_own_designs(small_campaign, bob):
    from campaign.eventhorizon.actions import save_design
    from campaign.rules.eventhorizon.designs import GALIOT as SWORD

    library = book(EH).offers(None)
    assert library and not any(o.own for o in library)
    empire = Empire.objects.get(campaign=small_campaign, seat=1)
    spec = {**SWORD.to_dict(), "name": "Bob's Blade"}
    save_design(spec=spec, campaign=small_campaign, empire=empire)
    mine = [o for o in book(EH).offers(bob) if o.own]
    assert [o.name for o in mine] == ["Bob's Blade"] and mine[0].points == SWORD.bp


def test_an_own_event_horizon_design_the_rules_refuse_is_shown_with_the_reason_not_dropped(
        small_campaign, bob, client):
    """A design stored before the checks (or by the admin) that the design rules now refuse is
    not offered, and the fleet page and the API say which and why instead of leaving it out."""
    from campaign.eventhorizon.models import Design
    from campaign.rules.eventhorizon.designs import GALIOT as SWORD

    empire = Empire.objects.get(campaign=small_campaign, seat=1)
    row = Design.objects.create(campaign=small_campaign, empire=empire, name="Bob's Brick",
                                spec={**SWORD.to_dict(), "name": "Bob's Brick", "hull": -3}, bp=SWORD.bp)
    key = f"design-{row.pk}"
    assert key not in {o.key for o in book(EH).offers(bob)}
    reason = book(EH).refusals(bob)[key]
    assert "Bob's Brick" in reason and "breaks 003" in reason
    assert book(EH).refusals(None) == {}
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=240, opponent="computer")
    client.force_login(bob)
    page = client.get(reverse("pickup-detail", args=[pickup.pk])).content.decode()
    assert 'id="not-offered"' in page and "Bob&#x27;s Brick" in page
    body = client.get(reverse("api-pickup", args=[pickup.pk])).json()
    assert body["not_offered"] == [reason]


# --- create ---------------------------------------------------------------------------------------

def test_create_against_the_computer_builds_its_fleet_with_logged_dice(bob):
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=240, opponent="computer")
    assert pickup.status == PickupBattle.Status.BUILDING and pickup.computer
    host = pickup.campaign
    assert host.layer == "pickup" and host.moderator_id is None
    seats = {e.seat: e for e in host.empires.all()}
    assert seats[1].user_id == bob.pk and seats[2].is_bot and seats[2].user_id is None
    fleet = pickup.fleets["2"]
    assert fleet and sum(s["points"] for s in fleet) <= 240 and len(fleet) <= book(EH).max_ships
    rolls = list(DiceRoll.objects.filter(campaign=host).order_by("seq"))
    assert 1 <= len(rolls) <= len(fleet)  # one die per ship bought, while more than one ship fits
    assert all(r.concerns == [2] for r in rolls)  # the computer's purchase is its own until the end


def test_create_refuses_points_outside_the_books_bounds_and_unknown_rule_books(bob):
    b = book(EH)
    for points in (b.min_points - 1, b.max_points + 1, "300", True):
        with pytest.raises(actions.PickupError, match="points total"):
            actions.create_pickup(user=bob, ruleset=EH, points=points, opponent="computer")
    with pytest.raises(actions.PickupError, match="no rule book 'chess'"):
        actions.create_pickup(user=bob, ruleset="chess", points=100, opponent="computer")
    with pytest.raises(actions.PickupError, match="opponent"):
        actions.create_pickup(user=bob, ruleset=EH, points=100, opponent="nobody")
    with pytest.raises(actions.PickupError, match="not an email"):
        actions.create_pickup(user=bob, ruleset=EH, points=100, opponent="email", email="bob at home")
    assert not PickupBattle.objects.exists() and not Campaign.objects.filter(layer="pickup").exists()


def test_an_emailed_invitation_is_accepted_by_that_address_only(
    bob, carol, mallory, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        pickup = actions.create_pickup(user=bob, ruleset=EH, points=200, opponent="email", email="carol@example.com")
    assert pickup.status == PickupBattle.Status.INVITING
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["carol@example.com"]
    assert pickup.invite_token in mail.outbox[0].body
    with pytest.raises(actions.PickupError, match="another email address"):
        actions.accept_pickup(token=pickup.invite_token, user=mallory)
    with pytest.raises(actions.PickupError, match="your own battle"):
        actions.accept_pickup(token=pickup.invite_token, user=bob)
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    actions.accept_pickup(token=pickup.invite_token, user=carol)  # a double click changes nothing
    pickup.refresh_from_db()
    assert pickup.opponent_id == carol.pk and pickup.status == PickupBattle.Status.BUILDING
    assert Empire.objects.get(campaign=pickup.campaign, seat=2).user_id == carol.pk
    with pytest.raises(actions.NotFound):
        actions.accept_pickup(token="nonsense", user=mallory)


def test_a_link_invitation_is_taken_once(bob, carol, mallory):
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=200, opponent="link")
    actions.accept_pickup(token=pickup.invite_token, user=mallory)
    with pytest.raises(actions.Conflict, match="accepted already"):
        actions.accept_pickup(token=pickup.invite_token, user=carol)


# --- fleets ---------------------------------------------------------------------------------------

def test_a_fleet_over_the_points_total_is_refused_with_the_numbers(bob):
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=100, opponent="computer")
    o = cheapest(bob)
    too_many = [o.key] * (100 // o.points + 1)
    with pytest.raises(actions.PickupError) as exc:
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=too_many)
    total = o.points * len(too_many)
    assert f"the fleet costs {total} BP, over the battle's 100 BP by {total - 100}" in exc.value.message
    with pytest.raises(actions.PickupError, match="no ship 'design-999999'"):
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=["design-999999"])
    with pytest.raises(actions.PickupError, match="at least one ship"):
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[])
    pickup.refresh_from_db()
    assert "1" not in pickup.fleets and pickup.battle is None


def test_the_ship_limit_is_the_books(bob):
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=1000, opponent="computer")
    o = cheapest(bob)
    with pytest.raises(actions.PickupError, match="at most 12 ships a side"):
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=[o.key] * 13)


def test_both_fleets_in_starts_the_battle_and_a_second_submission_is_refused(bob):
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=240, opponent="computer")
    fleet = a_fleet(bob, 240)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=fleet)
    pickup.refresh_from_db()
    battle = pickup.battle
    assert pickup.status in (PickupBattle.Status.PLAYING, PickupBattle.Status.OVER)
    assert battle.ruleset == EH and battle.mode == Battle.Mode.TACTICAL and battle.doctrine_sides == [2]
    assert len(battle.setup["sides"]["1"]["ships"]) == len(fleet)
    steps = BattleStep.objects.filter(battle=battle).count()
    with pytest.raises(actions.Conflict, match="submitted already"):
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=fleet)
    assert Battle.objects.count() == 1 and BattleStep.objects.filter(battle=battle).count() == steps


def test_an_invited_player_builds_while_the_creator_has_built_already(bob, carol):
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=200, opponent="link")
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=a_fleet(bob, 200))
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    pickup.refresh_from_db()
    assert pickup.battle is None
    actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=a_fleet(carol, 200))
    pickup.refresh_from_db()
    assert pickup.status == PickupBattle.Status.PLAYING and pickup.battle.doctrine_sides == []


# --- playing to the end ---------------------------------------------------------------------------

def test_handed_to_the_computer_the_battle_plays_to_its_end_and_every_die_verifies(bob):
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=240, opponent="computer")
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=a_fleet(bob, 240))
    pickup.refresh_from_db()
    play.hand_to_doctrine(battle_id=pickup.battle_id, user=bob)
    pickup.refresh_from_db()
    battle = pickup.battle
    assert pickup.status == PickupBattle.Status.OVER
    assert battle.status == Battle.Status.RESOLVED and battle.resolved_how == Battle.How.TACTICAL
    assert battle.result and battle.result["how"] == "tactical"
    host = Campaign.objects.get(pk=pickup.campaign_id)
    assert host.status == Campaign.Status.FINISHED and host.revealed_seed == host.dice_seed
    rolls = list(DiceRoll.objects.filter(campaign=host).order_by("seq"))
    assert any(r.phase == battle.dice_phase for r in rolls)
    out = io.StringIO()
    call_command("verifydice", str(host.pk), stdout=out)  # the seed is revealed: every roll recomputed
    assert "mismatch" not in out.getvalue().lower()

def test_the_list_says_how_each_ended_battle_ended_in_a_fixed_number_of_queries(bob, client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def listing():
        with CaptureQueriesContext(connection) as queries:
            page = client.get(reverse("pickup-list"))
        assert page.status_code == 200
        return page.content.decode(), len(queries)

    client.force_login(bob)
    listing()  # the session and the site's first reads
    ended = []
    for _ in range(2):
        pickup = actions.create_pickup(user=bob, ruleset=EH, points=240, opponent="computer")
        actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=a_fleet(bob, 240))
        pickup.refresh_from_db()
        play.hand_to_doctrine(battle_id=pickup.battle_id, user=bob)
        ended.append(pickup)
        html, count = listing()
        if len(ended) == 1:
            first_count = count
    detail = client.get(reverse("pickup-detail", args=[ended[0].pk])).content.decode()
    outcome = detail.split('id="pickup-outcome">', 1)[1].split("<", 1)[0]
    assert outcome and html.count('class="muted pickup-outcome"') == 2
    assert f'class="muted pickup-outcome">{outcome}<' in html
    assert count == first_count  # one query for every ended battle's outcome, not one each


def test_the_play_pages_and_api_answer_outsiders_404(bob, mallory):
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=240, opponent="computer")
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=a_fleet(bob, 240))
    pickup.refresh_from_db()
    c = api(mallory)
    for url in (reverse("pickup-detail", args=[pickup.pk]), reverse("battle-play", args=[pickup.battle_id]),
                reverse("battle-replay", args=[pickup.battle_id]), reverse("api-pickup", args=[pickup.pk]),
                reverse("api-battle-state", args=[pickup.battle_id]), reverse("pickup-host", args=[pickup.campaign_id]),
                reverse("campaign-dice", args=[pickup.campaign_id])):
        assert c.get(url).status_code == 404, url
    response = c.post(reverse("api-pickup-fleet", args=[pickup.pk]), {"ships": []}, format="json")
    assert response.status_code == 404
    with pytest.raises(actions.NotFound):
        actions.submit_fleet(pickup_id=pickup.pk, user=mallory, ships=[])
    mine = api(bob)
    assert mine.get(reverse("battle-play", args=[pickup.battle_id])).status_code == 200
    assert mine.get(reverse("campaign-dice", args=[pickup.campaign_id])).status_code == 200
    listing = api(mallory).get(reverse("api-pickup-list")).json()
    assert listing["results"] == []


# --- pages ----------------------------------------------------------------------------------------

def test_the_pages_create_build_and_show_form_errors(client, bob):
    client.force_login(bob)
    page = client.get(reverse("pickup-new"))
    assert page.status_code == 200 and b"Event Horizon" in page.content
    bad = client.post(reverse("pickup-new"), {"ruleset": EH, "points": "5", "opponent": "computer",
                                              "activation_hours": "24"})
    assert bad.status_code == 400 and b"points total must be between" in bad.content
    bad = client.post(reverse("pickup-new"), {"ruleset": EH, "points": "200", "opponent": "email",
                                              "activation_hours": "24"})
    assert bad.status_code == 400 and b"Give the address to invite" in bad.content
    assert not PickupBattle.objects.exists()
    ok = client.post(reverse("pickup-new"), {"ruleset": EH, "points": "200", "opponent": "computer",
                                             "activation_hours": "24"})
    pickup = PickupBattle.objects.get()
    assert ok.status_code == 302 and ok["Location"] == reverse("pickup-detail", args=[pickup.pk])
    detail = client.get(ok["Location"])
    assert b"Build your fleet" in detail.content
    o = cheapest(bob)
    over = client.post(reverse("pickup-fleet", args=[pickup.pk]), {f"ship_{o.key}": str(200 // o.points + 1)})
    assert over.status_code == 400 and b"over the battle" in over.content
    done = client.post(reverse("pickup-fleet", args=[pickup.pk]), {f"ship_{o.key}": "1"})
    pickup.refresh_from_db()
    assert done.status_code == 302 and done["Location"] == reverse("battle-play", args=[pickup.battle_id])
    assert client.get(reverse("pickup-list")).status_code == 200
    assert client.get(reverse("pickup-host", args=[pickup.campaign_id]))["Location"] == reverse(
        "pickup-detail", args=[pickup.pk])
    home = client.get(reverse("home"))
    assert b"Pickup battle" in home.content


# --- API -------------------------------------------------------------------------------------------

def test_the_api_creates_invites_accepts_and_takes_fleets(bob, carol, django_capture_on_commit_callbacks):
    c = api(bob)
    listing = c.get(reverse("api-pickup-list")).json()
    assert EH in [r["name"] for r in listing["rulesets"]]
    bad = c.post(reverse("api-pickup-list"), {"ruleset": EH, "points": 5, "opponent": "link"}, format="json")
    assert bad.status_code == 400 and "points total" in bad.json()["detail"]
    bad = c.post(reverse("api-pickup-list"), {"ruleset": EH, "opponent": "link"}, format="json")
    assert bad.status_code == 400 and "points" in bad.json()["detail"]
    created = c.post(reverse("api-pickup-list"), {"ruleset": EH, "points": 200, "opponent": "link"}, format="json")
    assert created.status_code == 201
    body = created.json()
    assert body["status"] == "inviting" and body["you"] == 1 and body["invite_url"] and body["offers"]
    pk = body["id"]
    with django_capture_on_commit_callbacks(execute=True):
        sent = c.post(reverse("api-pickup-invite", args=[pk]), {"email": "carol@example.com"}, format="json")
    assert sent.status_code == 200 and mail.outbox[-1].to == ["carol@example.com"]
    token = PickupBattle.objects.get(pk=pk).invite_token
    accepted = api(carol).post(reverse("api-pickup-accept"), {"token": token}, format="json")
    assert accepted.status_code == 200 and accepted.json()["you"] == 2
    again = c.post(reverse("api-pickup-invite", args=[pk]), {"email": "x@example.com"}, format="json")
    assert again.status_code == 409
    o = cheapest(bob)
    over = c.post(reverse("api-pickup-fleet", args=[pk]), {"ships": [o.key] * (200 // o.points + 1)}, format="json")
    assert over.status_code == 400 and "over the battle's 200 BP" in over.json()["detail"]
    ok = c.post(reverse("api-pickup-fleet", args=[pk]), {"ships": [o.key]}, format="json")
    assert ok.status_code == 200 and ok.json()["your_fleet"][0]["key"] == o.key
    twice = c.post(reverse("api-pickup-fleet", args=[pk]), {"ships": [o.key]}, format="json")
    assert twice.status_code == 409
    last = api(carol).post(reverse("api-pickup-fleet", args=[pk]), {"ships": [o.key]}, format="json")
    assert last.status_code == 200 and last.json()["battle"]
    state = api(carol).get(reverse("api-battle-state", args=[last.json()["battle"]]))
    assert state.status_code == 200 and state.json()["ruleset"] == EH


def test_the_schema_documents_the_bodies(client, bob):
    client.force_login(bob)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    text = schema.content.decode()
    data = json.loads(text) if text.lstrip().startswith("{") else None
    if data is None:
        import yaml

        data = yaml.safe_load(text)
    paths = data["paths"]
    create = paths["/api/pickup/"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert create.endswith("/CreateBody")
    body = data["components"]["schemas"]["CreateBody"]
    assert {"ruleset", "points", "opponent"} <= set(body["required"])
    fleet = data["components"]["schemas"]["FleetBody"]
    assert fleet["properties"]["ships"]["type"] == "array"


def test_the_computer_fleet_rolls_one_die_per_choice_and_none_for_a_forced_one():
    from tactical.hosts.pickup.books import Offer

    class Faces:
        def __init__(self, faces):
            self.faces, self.rolled = list(faces), []

        def roll(self, count, sides, purpose):
            self.rolled.append(sides)

            class R:
                total = self.faces.pop(0)
            return R()

    offers = [Offer("a", "A", 10), Offer("b", "B", 30), Offer("own", "Mine", 5, own=True)]
    dice = Faces([2, 1])
    fleet = book(EH).computer_fleet(offers, 45, dice)
    # 45: both fit (d2 = 2: B, 15 left); only A fits (no roll); A (5 left): nothing fits
    assert [o.key for o in fleet] == ["b", "a"] and dice.rolled == [2]


def test_the_two_players_write_to_each_other_by_press_and_no_campaign_page_serves_the_host(client, bob, carol,
                                                                                            mallory):
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=200, opponent="link")
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    host = pickup.campaign_id
    client.force_login(bob)
    assert client.get(reverse("press", args=[host])).status_code == 200
    assert client.get(reverse("campaign-detail", args=[host]))["Location"] == reverse("pickup-host", args=[host])
    for name in ("lobby-detail", "moderation-panel", "api-campaign"):
        assert client.get(reverse(name, args=[host])).status_code == 404, name
    client.force_login(mallory)
    assert client.get(reverse("press", args=[host])).status_code == 404


def test_between_two_players_the_one_to_decide_is_mailed_and_the_battle_page_serves(
        client, bob, carol, eager_tasks, django_capture_on_commit_callbacks):
    pickup = actions.create_pickup(user=bob, ruleset=EH, points=200, opponent="link")
    actions.accept_pickup(token=pickup.invite_token, user=carol)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=a_fleet(bob, 200))
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        actions.submit_fleet(pickup_id=pickup.pk, user=carol, ships=a_fleet(carol, 200))
    pickup.refresh_from_db()
    state = api(bob).get(reverse("api-battle-state", args=[pickup.battle_id])).json()
    acting = {1: "bob@example.com", 2: "carol@example.com"}[state["acting_side"]]
    assert [m.to for m in mail.outbox] == [[acting]]
    assert f"/battles/{pickup.battle_id}/play/" in mail.outbox[0].body
    client.force_login(carol)
    assert client.get(reverse("battle-detail", args=[pickup.battle_id])).status_code == 200
    assert client.get(reverse("pickup-list")).status_code == 200


def test_a_late_decision_is_played_by_the_computer_at_the_activation_deadline(bob):
    from datetime import timedelta

    from django.utils import timezone

    pickup = actions.create_pickup(user=bob, ruleset=EH, points=240, opponent="computer", activation_hours=1)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=a_fleet(bob, 240))
    pickup.refresh_from_db()
    battle = pickup.battle
    assert battle.deadline is None and battle.activation_deadline is not None
    before = battle.steps.filter(side=1, by_doctrine=True).count()
    assert play.play_due_activations(timezone.now() + timedelta(minutes=30)) == 0
    assert play.play_due_activations(timezone.now() + timedelta(hours=2)) == 1
    assert battle.steps.filter(side=1, by_doctrine=True).count() > before
    assert battle.log.filter(kind="activation_late", seat=1).exists()
    with pytest.raises(actions.PickupError, match="activation deadline"):
        actions.create_pickup(user=bob, ruleset=EH, points=240, opponent="computer", activation_hours=-1)


def test_the_computers_purchase_dice_are_withheld_from_its_opponent_until_the_end(bob):
    from campaign.dice import log_reader, shown_rows

    pickup = actions.create_pickup(user=bob, ruleset=EH, points=240, opponent="computer")
    host = Campaign.objects.get(pk=pickup.campaign_id)
    rows = shown_rows(DiceRoll.objects.filter(campaign=host).order_by("seq"), log_reader(host, bob))
    assert rows and all(r["withheld"] and r["faces"] is None for r in rows)
    actions.submit_fleet(pickup_id=pickup.pk, user=bob, ships=a_fleet(bob, 240))
    pickup.refresh_from_db()
    play.hand_to_doctrine(battle_id=pickup.battle_id, user=bob)
    host.refresh_from_db()
    rows = shown_rows(DiceRoll.objects.filter(campaign=host).order_by("seq"), log_reader(host, bob))
    assert rows and not any(r["withheld"] for r in rows)
