"""Embedded battles played online (tactical/play/actions.py, tactical/play/embedded.py; issue 5 "Playing it
online"): the engine validates every action, resolves it with the campaign's logged dice, and an
illegal action is refused with the rule and the reason and changes nothing. Rule book 003
"The Turn Sequence", "Movement", "Ranges", "Lock On", "Spatial Anomalies"; rulings TP1–TP7."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from django.utils import timezone

from campaign.models import DiceRoll
from tactical.models import Battle, BattleLogEntry, BattleStep
from tactical.play import actions as play
from tactical.play import embedded
from tactical.rules import eventhorizon as eh
from tactical.rules.eventhorizon import play as ehplay
from tactical.rules.eventhorizon.play import codec
from tactical.rules.eventhorizon.state import Battlefield
from tests.tactical.play_support import make_battle, patch_record_result


@pytest.fixture
def record(monkeypatch):
    return patch_record_result(monkeypatch)


@pytest.fixture
def users(bob, carol):
    return {1: bob, 2: carol}


def _counts(battle):
    return (BattleStep.objects.filter(battle=battle).count(),
            DiceRoll.objects.filter(campaign=battle.campaign).count())


def _fresh_state(battle):
    embedded._CACHE.clear()
    return embedded.current_state(Battle.objects.get(pk=battle.pk))


def test_start_deploys_shuffles_with_logged_dice_and_waits_for_a_human(small_campaign, record):
    battle = make_battle(small_campaign)  # 003 Table, The Turn Sequence
    assert battle.status == Battle.Status.PLAYING
    rolls = DiceRoll.objects.filter(campaign=small_campaign, phase=battle.dice_phase)
    assert rolls.count() == 53  # Fisher-Yates over 54 cards, every die logged
    assert set(rolls.values_list("purpose", flat=True)) == {"003 The Turn Sequence: shuffle the deck"}
    state = embedded.current_state(battle)
    assert state.sides == (1, 2)  # ruling TP1: the invader is red, first
    assert state.acting_side in (1, 2) and state.activations_left >= 1
    assert battle.steps.filter(action={"type": "draw"}).exists()
    assert battle.activation_deadline is not None  # activation_hours of the campaign
    assert not record.calls


def test_replay_reproduces_the_live_state_exactly(small_campaign, record, users):
    battle = make_battle(small_campaign)
    live = None
    for _ in range(40):  # the humans play the doctrine's choices through the action
        state = embedded.current_state(battle)
        if eh.is_over(state):
            break
        side = state.acting_side
        action = ehplay.RULES.doctrine_action(state, side)
        live = play.take_action(battle_id=battle.pk, user=users[side], action_json=codec.to_json(action))
    assert live is not None and BattleStep.objects.filter(battle=battle, side__isnull=False).count() >= 10
    replayed = _fresh_state(battle)
    assert replayed == live  # ships, deck, card, log: every field
    assert [e.text for e in replayed.log] == [e.text for e in live.log]
    # ... and the same as applying the stored steps directly, step by step, with the logged dice.
    from tactical.rules.replay import ReplayDice

    dice = ReplayDice(embedded.logged_dice(battle))
    direct = embedded.initial_state(battle.setup, dice, ehplay.RULES)
    for step in battle.steps.order_by("seq"):
        if step.action["type"] == "draw":
            direct = eh.draw_card(direct, dice).state
        else:
            direct = eh.apply(direct, codec.from_json(step.action), dice).state
    dice.finish()
    assert direct == live
    frames = embedded.states(battle)
    assert len(frames) == battle.steps.count() + 1 and frames[-1].state == live
    assert sum(len(f.dice) for f in frames) == DiceRoll.objects.filter(phase=battle.dice_phase,
                                                                        campaign=small_campaign).count()


# --- illegal actions -----------------------------------------------------------------------

def _arranged(monkeypatch):
    """Ships 11 (side 1) and 21 (side 2) face each other two squares apart, both with their
    sensors destroyed; suns beside them; ships 12 and 22 far away in the corners."""
    original = embedded.initial_state

    def arranged(setup, dice, rules):
        state = original(setup, dice, rules)
        where = {11: ((7, 10), 2), 21: ((7, 12), 0), 12: ((14, 1), 2), 22: ((1, 14), 0)}
        ships = tuple(replace(s, pos=where[s.id][0], facing=where[s.id][1], sensors=s.id not in (11, 21))
                      for s in state.ships)
        field = Battlefield(terrain={(6, 11): "sun", (8, 11): "sun"})
        return replace(state, ships=ships, field=field)

    monkeypatch.setattr(embedded, "initial_state", arranged)


# side -> (my ship, enemy near, enemy far, path into the sun, path into an occupied square, long-range weapon)
ARRANGEMENT = {2: (21, 11, 12, ["FL"], ["F", "F"], "guided_missile_bay"),
               1: (11, 21, 22, ["FL"], ["F", "F"], "fighter_bay")}


def _refused(battle, user, action, words):
    before = _counts(battle)
    state_before = _fresh_state(battle)
    with pytest.raises(play.PlayError) as info:
        play.take_action(battle_id=battle.pk, user=user, action_json=action)
    assert words in str(info.value.message), info.value.message
    assert _counts(battle) == before  # no step stored, no die logged
    assert _fresh_state(battle) == state_before
    return info.value


def test_illegal_actions_are_refused_with_the_reason_and_change_nothing(small_campaign, record, users, monkeypatch):
    _arranged(monkeypatch)
    battle = make_battle(small_campaign)
    state = embedded.current_state(battle)
    me = state.acting_side
    other = 2 if me == 1 else 1
    mine, near, far, sun_path, occupied_path, long_weapon = ARRANGEMENT[me]
    # acting out of turn (003 The Turn Sequence)
    exc = _refused(battle, users[other], {"type": "activate", "ship": ARRANGEMENT[other][0]}, "acting out of turn")
    assert isinstance(exc, play.NotYourTurn)
    # a ship not yours
    exc = _refused(battle, users[me], {"type": "activate", "ship": near}, "is not yours")
    assert isinstance(exc, play.Refused) and exc.rule == "003 The Turn Sequence"
    _refused(battle, users[me], {"type": "pass", "side": other}, "is not yours")
    # bad JSON
    exc = _refused(battle, users[me], {"type": "warp", "ship": mine}, "unknown action type")
    assert exc.rule.startswith("action format")
    play.take_action(battle_id=battle.pk, user=users[me], action_json={"type": "activate", "ship": mine})
    # moving into a sun (003 Spatial Anomalies) or an occupied square (003 Movement)
    exc = _refused(battle, users[me], {"type": "move", "ship": mine, "path": sun_path}, "moving into a sun")
    assert exc.rule == "003 Spatial Anomalies"
    exc = _refused(battle, users[me], {"type": "move", "ship": mine, "path": occupied_path}, "occupied square")
    assert exc.rule == "003 Movement"
    # out of range (003 Ranges)
    exc = _refused(battle, users[me], {"type": "fire", "ship": mine, "shots": [[long_weapon, far]]}, "out of range")
    assert exc.rule == "003 Ranges"
    # no lock: sensors destroyed, a manual lock only at close range (003 Lock On)
    exc = _refused(battle, users[me], {"type": "fire", "ship": mine, "shots": [[long_weapon, near]]}, "no lock")
    assert exc.rule == "003 Lock On"
    # a weapon the ship does not carry
    _refused(battle, users[me], {"type": "fire", "ship": mine, "shots": [["emp_cannon", near]]}, "operable emp cannon")
    # a user with no fleet here
    from django.contrib.auth import get_user_model

    stranger = get_user_model().objects.create_user("dave", "d@example.com", "pw")
    exc = _refused(battle, stranger, {"type": "end_activation", "ship": mine}, "no fleet")
    assert isinstance(exc, play.NotAllowed)
    # and a legal one goes through
    play.take_action(battle_id=battle.pk, user=users[me], action_json={"type": "end_activation", "ship": mine})
    assert BattleStep.objects.filter(battle=battle, side=me, by_doctrine=False).count() == 2


def test_a_finished_battle_takes_no_more_actions(small_campaign, record, users):
    battle = make_battle(small_campaign)
    play.hand_to_doctrine(battle_id=battle.pk, user=users[1])
    play.hand_to_doctrine(battle_id=battle.pk, user=users[2])
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED
    before = _counts(battle)
    with pytest.raises(play.NotYourTurn, match="not being played"):
        play.take_action(battle_id=battle.pk, user=users[1], action_json={"type": "pass", "side": 1})
    assert _counts(battle) == before


# --- the computer doctrine -----------------------------------------------------------------

def test_handing_the_fleet_to_the_doctrine_plays_that_side(small_campaign, record, users):
    battle = make_battle(small_campaign)
    me = embedded.current_state(battle).acting_side
    play.hand_to_doctrine(battle_id=battle.pk, user=users[me], on=True)
    battle.refresh_from_db()
    assert battle.doctrine_sides == [me]
    assert BattleStep.objects.filter(battle=battle, side=me, by_doctrine=True).exists()
    state = embedded.current_state(battle)
    assert eh.is_over(state) or state.acting_side != me  # the computer played my card; the other side is up
    assert BattleLogEntry.objects.filter(battle=battle, kind="doctrine", seat=me).exists()
    with pytest.raises(play.PlayError):
        play.take_action(battle_id=battle.pk, user=users[me], action_json={"type": "pass", "side": me})
    play.hand_to_doctrine(battle_id=battle.pk, user=users[me], on=False)
    battle.refresh_from_db()
    assert battle.doctrine_sides == []


def test_both_sides_to_the_doctrine_end_the_battle_and_report_the_result(small_campaign, record, users):
    battle = make_battle(small_campaign)
    play.hand_to_doctrine(battle_id=battle.pk, user=users[1])
    play.hand_to_doctrine(battle_id=battle.pk, user=users[2])
    assert len(record.calls) == 1
    call = record.calls[0]
    assert call["how"] == "tactical" and call["battle"] == battle.pk
    result = call["result"]
    assert {s["ship"] for s in result["ships"]} == {11, 12, 21, 22}
    state = embedded.current_state(Battle.objects.get(pk=battle.pk))
    assert result == ehplay.outcome_to_result(eh.outcome(state))
    assert eh.is_over(state) and result["cards_drawn"] == state.cards_drawn
    for s in result["ships"]:
        assert s["fate"] in ("survived", "destroyed", "captured", "warped_out")
        assert (s["damage"] is None) == (s["fate"] == "destroyed")


def test_activation_deadline_sweep_plays_the_late_side(small_campaign, record, users):
    small_campaign.activation_hours = 2
    small_campaign.save(update_fields=["activation_hours"])
    battle = make_battle(small_campaign)
    late = embedded.current_state(battle).acting_side
    deadline = battle.activation_deadline
    assert deadline is not None and abs((deadline - timezone.now()) - timedelta(hours=2)) < timedelta(minutes=1)
    assert play.play_due_activations(now=deadline - timedelta(minutes=1)) == 0  # not yet late
    assert play.play_due_activations(now=deadline + timedelta(minutes=1)) == 1
    assert BattleStep.objects.filter(battle=battle, side=late, by_doctrine=True).exists()
    assert BattleLogEntry.objects.filter(battle=battle, kind="activation_late", seat=late).exists()
    battle.refresh_from_db()
    assert battle.doctrine_sides == []  # only that activation: the fleet stays the player's
    assert battle.activation_deadline > deadline  # the clock restarts for whoever is up next


def test_no_deadline_without_activation_hours(small_campaign, record):
    small_campaign.activation_hours = 0
    small_campaign.save(update_fields=["activation_hours"])
    battle = make_battle(small_campaign)
    assert battle.activation_deadline is None
    assert play.play_due_activations(now=timezone.now() + timedelta(days=30)) == 0


def test_the_celery_task_runs_the_sweep(small_campaign, record, eager_tasks):
    from tactical.tasks import play_due_activations

    small_campaign.activation_hours = 1
    small_campaign.save(update_fields=["activation_hours"])
    battle = make_battle(small_campaign)
    Battle.objects.filter(pk=battle.pk).update(activation_deadline=timezone.now() - timedelta(minutes=1))
    assert play_due_activations.delay().get() == 1


def test_computer_seats_start_with_the_doctrine(small_campaign, record):
    small_campaign.empires.filter(seat=2).update(is_bot=True)
    battle = make_battle(small_campaign)
    assert battle.doctrine_sides == [2]
    state = embedded.current_state(battle)
    assert eh.is_over(state) or state.acting_side == 1
