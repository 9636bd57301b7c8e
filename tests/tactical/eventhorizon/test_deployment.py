"""Deployment by hand in embedded battles (Campaign.deployment "hand"; ruling TP8): the side
that deploys first (003 AEWA; ruling TC24: the defender, or the invader against an AEWA) places
its ships inside its zone, then the other, having seen them; a late side lines up
automatically; a refused placement names the rule and changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from campaign.models import Campaign, DiceRoll
from tactical.battles.actions import settle_due_battle
from tactical.models import Battle, BattleLogEntry
from tactical.play import actions as play
from tactical.play import embedded
from tactical.rules import eventhorizon as eh
from tactical.rules.eventhorizon import play as ehplay
from tests.tactical.play_support import make_battle, patch_record_result

pytestmark = pytest.mark.django_db

DEPLOY_RULE = "003 Use of BP in a Campaign: Advanced Early Warning Array"


@pytest.fixture
def record(monkeypatch):
    return patch_record_result(monkeypatch)


@pytest.fixture
def by_hand(small_campaign):
    small_campaign.deployment = Campaign.Deployment.HAND
    small_campaign.save(update_fields=["deployment"])
    return small_campaign


def begin(campaign, **kwargs) -> Battle:
    battle = make_battle(campaign, start=False, **kwargs)
    play.begin(battle)
    battle.refresh_from_db()
    return battle


def line(seat: int, ships: list[int], y: int, facing: str, x0: int = 5) -> list[dict]:
    return [{"ship": s, "x": x0 + i, "y": y, "facing": facing} for i, s in enumerate(ships)]


def test_automatic_deployment_starts_at_once(small_campaign, record):  # ruling TC24
    battle = begin(small_campaign)
    assert battle.status == Battle.Status.PLAYING and battle.steps.exists()


def test_by_hand_the_defender_deploys_first_then_the_invader_having_seen_it(by_hand, record, bob, carol):
    # 003 AEWA / ruling TC24: without an AEWA the defenders deploy before the invader.
    battle = begin(by_hand)
    assert battle.status == Battle.Status.DEPLOYING and not battle.steps.exists()
    assert not DiceRoll.objects.filter(campaign=by_hand, phase=battle.dice_phase).exists()  # nothing dealt yet
    assert ehplay.next_to_deploy(battle.setup) == 2 and battle.activation_deadline is not None
    with pytest.raises(play.NotYourTurn, match="deploys first"):
        play.deploy_fleet(battle_id=battle.pk, user=bob, placements=line(1, [11, 12], 0, "S"))
    # carol (defender, seat 2, zone along the bottom edge) places her two ships by hand.
    play.deploy_fleet(battle_id=battle.pk, user=carol, placements=line(2, [21, 22], 14, "N"))
    battle.refresh_from_db()
    assert battle.status == Battle.Status.DEPLOYING and ehplay.next_to_deploy(battle.setup) == 1
    seen = {s.id: s.pos for s in ehplay.preview(battle.setup).ships}
    assert seen == {21: (5, 14), 22: (6, 14)}  # bob sees carol's fleet before he deploys
    play.deploy_fleet(battle_id=battle.pk, user=bob, placements=line(1, [11, 12], 1, "S", x0=9))
    battle.refresh_from_db()
    assert battle.status == Battle.Status.PLAYING
    state = embedded.current_state(battle)
    where = {s.id: (s.pos, s.facing) for s in state.ships}
    assert where[11] == ((9, 1), 2) and where[12] == ((10, 1), 2)  # S is facing 2
    assert where[21] == ((5, 14), 0) and where[22] == ((6, 14), 0)
    texts = list(BattleLogEntry.objects.filter(battle=battle, kind="deployed").values_list("text", flat=True))
    assert texts == ["Carol's Combine places its 2 ship(s) by hand.", "Bob's Realm places its 2 ship(s) by hand."]


def test_with_an_aewa_the_invader_deploys_first(by_hand, record, bob, carol):  # 003 AEWA
    battle = begin(by_hand, aewa=True)
    assert ehplay.next_to_deploy(battle.setup) == 1
    with pytest.raises(play.NotYourTurn):
        play.deploy_fleet(battle_id=battle.pk, user=carol)
    play.deploy_fleet(battle_id=battle.pk, user=bob)  # lines up automatically
    play.deploy_fleet(battle_id=battle.pk, user=carol, placements=line(2, [21, 22], 15, "N"))
    battle.refresh_from_db()
    assert battle.status == Battle.Status.PLAYING


@pytest.mark.parametrize("placements, message", [
    (line(2, [21, 22], 8, "N"), "outside side 2's deployment zone"),
    (line(2, [21], 14, "N"), "leaves ship(s) [22] unplaced"),
    (line(2, [21, 11], 14, "N"), "ship 11 is not in side 2's fleet"),
    ([{"ship": 21, "x": 5, "y": 14, "facing": "N"}, {"ship": 22, "x": 5, "y": 14, "facing": "N"}], "occupied"),
    (line(2, [21, 22], 14, "up"), "the facing is one of N, E, S, W"),
    ([{"ship": "x", "x": 1, "y": 14, "facing": "N"}], "whole numbers"),
    ([], "one per ship"),
])
def test_a_refused_placement_names_the_rule_and_changes_nothing(by_hand, record, carol, placements, message):
    battle = begin(by_hand)
    before = (Battle.objects.get(pk=battle.pk).setup, BattleLogEntry.objects.filter(battle=battle).count())
    with pytest.raises(play.Refused) as refused:
        play.deploy_fleet(battle_id=battle.pk, user=carol, placements=placements)
    assert refused.value.rule == DEPLOY_RULE and message in refused.value.message
    assert (Battle.objects.get(pk=battle.pk).setup, BattleLogEntry.objects.filter(battle=battle).count()) == before


def test_a_computer_side_lines_up_at_once(by_hand, record, bob):
    by_hand.empires.filter(seat=2).update(is_bot=True)
    battle = begin(by_hand)
    assert battle.status == Battle.Status.DEPLOYING and ehplay.next_to_deploy(battle.setup) == 1
    assert ehplay.deployed(battle.setup) == {2: embedded.AUTOMATIC}
    play.deploy_fleet(battle_id=battle.pk, user=bob, placements=line(1, [11, 12], 0, "S"))
    battle.refresh_from_db()
    assert battle.status == Battle.Status.PLAYING


def test_a_late_side_lines_up_automatically_at_the_activation_deadline(by_hand, record):
    battle = begin(by_hand)
    later = timezone.now() + timedelta(hours=by_hand.activation_hours, minutes=1)
    assert play.play_due_activations(now=later) == 1
    battle.refresh_from_db()
    assert ehplay.deployed(battle.setup) == {2: embedded.AUTOMATIC} and battle.status == Battle.Status.DEPLOYING
    assert BattleLogEntry.objects.filter(battle=battle, kind="deployed", data__late=True).count() == 1
    assert play.play_due_activations(now=later + timedelta(hours=by_hand.activation_hours, minutes=1)) == 1
    battle.refresh_from_db()
    assert battle.status == Battle.Status.PLAYING


def test_at_the_battle_deadline_a_battle_still_deploying_is_played_out(by_hand, record):  # ruling C19
    battle = begin(by_hand)
    Battle.objects.filter(pk=battle.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assert settle_due_battle(battle.pk)
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and record.calls and record.calls[-1]["how"] == "tactical"
    assert eh.is_over(embedded.current_state(battle))


def test_deployment_through_the_page_and_the_api(by_hand, record, client, bob, carol, mallory):
    battle = begin(by_hand)
    url = f"/battles/{battle.pk}/play/"
    client.force_login(carol)
    page = client.get(url).content.decode()
    assert 'id="your-deployment"' in page and 'name="square_21"' in page and 'name="facing_22"' in page
    # A square outside the zone: the page says why, nothing is stored.
    response = client.post(url, {"deploy": "placed", "square_21": "5,8", "facing_21": "N",
                                 "square_22": "6,14", "facing_22": "N"}, follow=True)
    assert "outside side 2" in response.content.decode()
    assert ehplay.next_to_deploy(Battle.objects.get(pk=battle.pk).setup) == 2
    client.post(url, {"deploy": "placed", "square_21": "5,14", "facing_21": "N", "square_22": "6,15", "facing_22": "E"})
    assert ehplay.next_to_deploy(Battle.objects.get(pk=battle.pk).setup) == 1
    api = APIClient()
    api.force_authenticate(bob)
    state = api.get(f"/api/battles/{battle.pk}/state/").json()
    assert state["status"] == "deploying" and state["deployment"]["yours"]
    assert {p["ship"] for p in state["deployment"]["placed"]} == {21, 22} and [0, 1] in state["deployment"]["zone"]
    refused = api.post(f"/api/battles/{battle.pk}/deploy/", {"placements": line(1, [11, 12], 9, "S")}, format="json")
    assert refused.status_code == 400 and refused.json()["rule"] == DEPLOY_RULE
    assert api.post(f"/api/battles/{battle.pk}/deploy/", {"automatic": "yes"}, format="json").status_code == 400
    done = api.post(f"/api/battles/{battle.pk}/deploy/", {"automatic": True}, format="json")
    assert done.status_code == 200 and done.json()["status"] == "playing"
    outsider = APIClient()
    outsider.force_authenticate(mallory)
    assert outsider.post(f"/api/battles/{battle.pk}/deploy/", {"automatic": True}, format="json").status_code == 404


def test_lobby_offers_deployment_by_hand(client, alice):
    client.force_login(alice)
    api = APIClient()
    api.force_authenticate(alice)
    made = api.post("/api/lobby/", {"name": "Hands on", "width": 12, "height": 12, "seats": 2, "deployment": "hand"},
                    format="json")
    assert made.status_code == 201, made.content
    assert Campaign.objects.get(pk=made.json()["id"]).deployment == "hand"
    bad = api.post("/api/lobby/", {"name": "Hands on", "width": 12, "height": 12, "seats": 2, "deployment": "feet"},
                   format="json")
    assert bad.status_code == 400 and "deployment" in bad.json()["errors"]
