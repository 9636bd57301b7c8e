"""What the dice log's fog of war (ruling DL5) costs while a battle is fought online, and that its
cache is never stale: ``embedded.hidden_dice`` replays the whole battle to find the dice of the
steps hidden from a reader, so each side's set is kept in Django's cache under the battle as it
stands (its steps, its last die). A view of the dice page replays the battle at most once per
new step — not once per view and reader — with a number of queries that does not grow with the
battle; after new steps and after a roll-back (CAM46) the masked rows are exactly the ones a
fresh replay finds. Measured by bench/dicelog.py (docs/benchmarks.md)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from campaign.actions import resume_campaign
from campaign.cam import actions as cam_actions
from campaign.cam.actions.moderation import roll_back_step
from campaign.dice import log_reader
from campaign.models import DiceRoll
from campaign.press import unread
from tactical.models import Battle
from tactical.play import embedded
from tactical.rules.buoyz import play as codec

from ..cam.conftest import make_cam
from ..cam.test_online import _begin
from ..cam.test_online_play import _act, _battle, _play_until

pytestmark = pytest.mark.django_db


def _cloak(c, battle, players, client, carol):
    """Carol cloaks a war talon at her first chance: its steps will be hidden from bob."""
    cloaked = {}

    def carol_may_cloak(state):
        if state.acting != 2:
            return False
        cloaked["action"] = next(
            (a for a in codec.side_actions(state, 2) if getattr(a, "action", None) == "cloak"), None
        )
        return cloaked["action"] is not None

    assert _play_until(c, battle, players, carol_may_cloak) is not None
    client.force_login(carol)
    assert _act(client, battle, codec.to_json(cloaked["action"])).status_code == 200


def _cloak_then_play(c, battle, players, client, carol, *, more: int):
    """Carol cloaks, then both sides play the doctrine's choices until a step hidden from bob has
    rolled dice, and ``more`` steps further."""
    _cloak(c, battle, players, client, carol)
    assert _play_until(c, battle, players, lambda state: _fresh(battle, 1), limit=80) is not None
    _play_steps(c, battle, players, more)


def _play_steps(c, battle, players, count: int):
    target = battle.steps.count() + count
    _play_until(c, battle, players, lambda state: battle.steps.count() >= target, limit=count + 5)


def _views(user, campaign) -> Client:
    c = Client()
    c.force_login(user)
    return c


def _view(client: Client, campaign) -> int:
    """The dice page's queries for one view."""
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/campaigns/{campaign.pk}/dice/").status_code == 200
    return len(queries)


def _fresh(battle, side) -> set[int]:
    """The hidden set found by a replay of the battle now, with no cache."""
    battle.refresh_from_db()
    return set(embedded.replay_hidden_dice(battle, sides=[side])[side])


@pytest.fixture
def replays(monkeypatch):
    """How many times the battle was replayed (``embedded.states``) since the last reset."""
    counted = {"n": 0}
    states = embedded.states

    def counting(battle, upto=None):
        counted["n"] += 1
        return states(battle, upto)

    monkeypatch.setattr(embedded, "states", counting)
    return counted


def test_the_dice_page_replays_a_battle_once_per_step_not_per_view_and_its_queries_do_not_grow(
        client, alice, bob, carol, replays):
    c = make_cam(alice, bob, carol, seed="fog-cloak")
    _begin(c, alice, bob, carol, bob_ships=3, carol_ships=4)  # carol's war talons cloak
    battle = _battle(c)
    players = {1: bob, 2: carol}
    _cloak_then_play(c, battle, players, client, carol, more=4)
    readers = {1: _views(bob, c), 2: _views(carol, c)}
    counts = []
    for more in (0, 30):
        _play_steps(c, battle, players, more)
        battle.refresh_from_db()
        assert battle.status == Battle.Status.PLAYING
        replays["n"] = 0
        for user in players.values():  # the menu's unread press count is cached on its own (press/unread.py):
            unread.total(user)  # counted once before, so only the dice page's own queries are compared
        cold = _view(readers[1], c)  # the first view since the last step replays the battle, for both sides
        assert replays["n"] == 1
        warm = [_view(readers[1], c), _view(readers[2], c), _view(readers[1], c)]
        assert replays["n"] == 1, "a later view, by either side, replays nothing"
        counts.append((battle.steps.count(), cold, warm))
    (short, cold_short, warm_short), (long, cold_long, warm_long) = counts
    assert long >= short + 30
    assert cold_long == cold_short and warm_long == warm_short, counts  # queries do not grow with the steps
    # 13: one more than before issue 24 item 3, the CAM layer's revealed purchase rolls (one query, not per step).
    assert max(warm_long) <= 13, counts


def test_the_masked_rows_are_a_fresh_replays_after_every_step_and_after_a_roll_back(client, alice, bob, carol):
    c = make_cam(alice, bob, carol, seed="fog-cloak")
    _begin(c, alice, bob, carol, bob_ships=3, carol_ships=4)
    battle = _battle(c)
    players = {1: bob, 2: carol}
    _cloak(c, battle, players, client, carol)
    seen = []
    for _ in range(60):  # each new step: the set served (and cached) is the fresh one, for each side
        for seat, user in players.items():
            assert log_reader(c, user).masked == _fresh(battle, seat)
            assert set(embedded.hidden_dice(battle, seat)) == _fresh(battle, seat)
        if not seen or seen[-1] != _fresh(battle, 1):
            seen.append(_fresh(battle, 1))
        if len(seen) >= 3:
            break
        _play_steps(c, battle, players, 1)
    assert len(seen) >= 3, "bob's hidden set changed as the battle went on"
    first = (battle.pk, battle.steps.count(), _fresh(battle, 1))
    assert first[2], "a step hidden from bob rolled dice"
    # The moderator rolls back the table roll (CAM46): the battle and its dice go. Rolled again,
    # the same table is fought again to as many steps, by the doctrine's choices alone.
    roll_back_step(campaign_id=c.pk, user=alice)
    assert not DiceRoll.objects.filter(campaign=c, phase=f"battle {first[0]}").exists()
    resume_campaign(campaign_id=c.pk, user=alice)
    cam_actions.roll_table(campaign_id=c.pk, user=bob)
    again = _battle(c)
    _play_until(c, again, players, lambda state: again.steps.count() >= first[1])
    assert again.steps.count() == first[1]
    assert _fresh(again, 1) != first[2]
    assert log_reader(c, bob).masked == _fresh(again, 1)
    assert log_reader(c, carol).masked == _fresh(again, 2)
