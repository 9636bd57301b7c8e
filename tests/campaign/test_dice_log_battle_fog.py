"""Fog of war in the dice log while a Buoyz battle is fought (issue 17 item 6, ruling DL5): the
dice page and ``GET /api/campaigns/{id}/dice/`` show a battle's sides its dice, but the purpose
of a roll made in a step hidden from the reader (a cloaked ship's command check names the ship)
reads "(a hidden action)" until the battle is over; the owner and the moderator read it whole,
and the chain still checks. A CAM scenario fought online and a pickup battle."""

from __future__ import annotations

import re
from html import escape

import pytest
from django.test import Client

from campaign.cam.models import CamScenario
from campaign.dice import log_reader, shown_rows
from campaign.models import Campaign, DiceRoll
from campaign.rules import dicelog
from tactical.hosts.cam import scenarios as tcam
from tactical.hosts.pickup import actions as pickups
from tactical.models import Battle
from tactical.play import actions as play
from tactical.play import embedded
from tactical.rules.buoyz import play as codec

from ..cam.conftest import make_cam
from ..cam.test_online import _begin
from ..cam.test_online_play import _act, _battle, _play_until

pytestmark = pytest.mark.django_db


def _api_rows(user, campaign) -> list[dict]:
    """The log as ``user`` reads it (``shown_rows`` through ``log_reader``, as the dice page). The
    log's API serves Event Horizon campaigns only: a CAM or pickup host answers 404 there."""
    c = Client()
    c.force_login(user)
    assert c.get(f"/api/campaigns/{campaign.pk}/dice/").status_code == 404
    return shown_rows(DiceRoll.objects.filter(campaign=campaign).order_by("seq"), log_reader(campaign, user))


def _page(user, campaign) -> str:
    c = Client()
    c.force_login(user)
    out, page = [], 1
    while True:
        r = c.get(f"/campaigns/{campaign.pk}/dice/?page={page}")
        assert r.status_code == 200
        out.append(r.content.decode())
        if f"?page={page + 1}" not in out[-1]:
            return "\n".join(out)
        page += 1


def _names(ship_id) -> re.Pattern:
    """A purpose naming the ship: the engine writes its id as ``(6)`` or ``6 repairs`` / ``on 6``."""
    return re.compile(rf"\({ship_id}\)|\b{ship_id} (searches|repairs|boards|tries|at|re-rolls)|(on|for|at) {ship_id}\b")


def _check_fog(campaign, battle, ship_id, owner, other, moderator):
    naming = _names(ship_id)
    rows = {r.seq: r for r in DiceRoll.objects.filter(campaign=campaign, phase=battle.dice_phase)}
    hidden = set(embedded.hidden_dice(battle, log_reader(campaign, other).seat))
    secret = {seq for seq in hidden if naming.search(rows[seq].purpose)}
    assert secret, "a step hidden from the other side rolled dice naming the hidden ship"
    theirs = {r["seq"]: r for r in _api_rows(other, campaign)}
    for seq in secret:
        seen = theirs[seq]
        assert seen["purpose"] == dicelog.HIDDEN_PURPOSE and not seen["withheld"]
        assert seen["faces"] == rows[seq].faces  # the dice themselves are the side's to see
    assert not any(naming.search(r["purpose"] or "") for s, r in theirs.items() if s in hidden)
    assert dicelog.check_links(campaign.seed_hash, [(r["seq"], r["prev_hash"], r["hash"])
                                                    for r in sorted(theirs.values(), key=lambda r: r["seq"])]) is None
    page = _page(other, campaign)
    for seq in secret:
        assert escape(rows[seq].purpose) not in page
    assert dicelog.HIDDEN_PURPOSE in page
    for reader in (r for r in (owner, moderator) if r is not None):  # the owner and the moderator read every purpose
        mine = {r["seq"]: r for r in _api_rows(reader, campaign)}
        assert all(mine[seq]["purpose"] == rows[seq].purpose for seq in secret)
        assert escape(rows[min(secret)].purpose) in _page(reader, campaign)


def test_a_cloaked_ships_dice_purposes_are_hidden_from_the_other_cam_player_until_the_battle_ends(
        client, alice, bob, carol, django_capture_on_commit_callbacks):
    c = make_cam(alice, bob, carol, seed="fog-cloak")
    _begin(c, alice, bob, carol, bob_ships=3, carol_ships=4)  # carol's war talons cloak
    battle = _battle(c)
    players = {1: bob, 2: carol}
    cloaked = {}

    def carol_may_cloak(state):
        if state.acting != 2:
            return False
        for a in codec.side_actions(state, 2):
            if getattr(a, "action", None) == "cloak":
                cloaked["action"] = a
                return True
        return False

    assert _play_until(c, battle, players, carol_may_cloak) is not None
    client.force_login(carol)
    assert _act(client, battle, codec.to_json(cloaked["action"])).status_code == 200
    ship_id = cloaked["action"].ship
    _play_until(c, battle, players, lambda s: s.ship(ship_id).detected or not s.ship(ship_id).cloaked
                or battle.steps.count() > 40, limit=80)
    battle.refresh_from_db()
    state = tcam.current_state(battle, CamScenario.objects.get(cam=c.cam, number=1))
    assert state.ship(ship_id).cloaked and not state.ship(ship_id).detected and not state.over
    _check_fog(c, battle, ship_id, owner=carol, other=bob, moderator=alice)
    # The battle over (both sides handed to the doctrine), every purpose is the sides' again.
    with django_capture_on_commit_callbacks(execute=True):
        for user in (bob, carol):
            client.force_login(user)
            client.post(f"/battles/{battle.pk}/play/", {"doctrine": "on"})
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED
    purposes = {r.seq: r.purpose for r in DiceRoll.objects.filter(campaign=c, phase=battle.dice_phase)}
    theirs = {r["seq"]: r for r in _api_rows(bob, c) if r["seq"] in purposes}
    assert all(theirs[seq]["purpose"] == p for seq, p in purposes.items())


def test_a_cloaked_ships_dice_purposes_are_hidden_from_the_other_player_of_a_pickup_battle(bob, carol):
    pickup = pickups.create_pickup(user=bob, ruleset="buoyz", points=40, opponent="link")
    pickups.accept_pickup(token=pickup.invite_token, user=carol)
    pickups.submit_fleet(pickup_id=pickup.pk, user=bob, ships=["constitution"] * 3)
    pickups.submit_fleet(pickup_id=pickup.pk, user=carol, ships=["war_talon"] * 3)
    pickup.refresh_from_db()
    battle = pickup.battle
    host = Campaign.objects.get(pk=pickup.campaign_id)
    users = {1: bob, 2: carol}
    while battle.status == Battle.Status.DEPLOYING:
        rules = embedded.rules_for(battle)
        play.deploy_fleet(battle_id=battle.pk, user=users[rules.next_to_deploy(battle.setup)])
        battle.refresh_from_db()
    rules = embedded.rules_for(battle)
    for _ in range(400):
        battle.refresh_from_db()
        assert battle.status == Battle.Status.PLAYING, "the battle ended before a hidden step rolled dice"
        state = embedded.current_state(battle)
        purposes = [r.purpose for r in DiceRoll.objects.filter(seq__in=embedded.hidden_dice(battle, 1), campaign=host)]
        ship_id = next((s.id for s in state.battle.ships if s.side == 2 and s.cloaked and not s.detected
                        and any(_names(s.id).search(p) for p in purposes)), None)
        if ship_id is not None:
            break
        seat = rules.acting_side(state)
        action = play.doctrine_choice(rules, state, seat)
        if seat == 2:
            cloak = [a for a in codec.side_actions(state.battle, 2) if getattr(a, "action", None) == "cloak"]
            if cloak:
                action, ship_id = cloak[0], cloak[0].ship
        play.take_action(battle_id=battle.pk, user=users[seat], action_json=rules.action_json(action))
    else:
        raise AssertionError("no hidden step rolled dice")
    _check_fog(host, battle, ship_id, owner=carol, other=bob, moderator=None)
