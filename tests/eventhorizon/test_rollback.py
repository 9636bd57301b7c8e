"""Rolling back the last processed turn (issue 4, Moderation): the campaign returns exactly to
its state before the turn, dice log included, and re-processing the same orders gives the same
state as the first time (the dice stream offset is restored, so the same dice are rolled)."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command

from campaign import actions
from campaign.dice import log_entries
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.actions import roll_back_turn
from campaign.eventhorizon.exchange import export_campaign
from campaign.models import AuditEntry, Campaign, DiceRoll, Empire, Turn, TurnOrders
from campaign.rules import dicelog

pytestmark = pytest.mark.django_db


def full_state(campaign):
    """Everything a turn can change: the export document (docs/export-format.md, which has no
    timestamps) plus what it leaves out (missed turns, computer play, deadlines)."""
    campaign = Campaign.objects.get(pk=campaign.pk)
    doc = export_campaign(campaign)
    for key in ("paused", "paused_remaining", "deadline"):  # the clock: a roll-back pauses (checked apart),
        doc["campaign"].pop(key)  # and every turn's deadline is below
    doc["extra"] = {
        "empires": list(Empire.objects.filter(campaign=campaign).order_by("seat").values_list(
            "seat", "missed_turns", "auto_bot", "is_bot", "user_id")),
        "turns": list(Turn.objects.filter(campaign=campaign).order_by("number").values_list(
            "number", "status", "summary")),
        "deadlines": list(Turn.objects.filter(campaign=campaign).order_by("number").values_list("number", "deadline")),
        "orders": sorted(TurnOrders.objects.filter(turn__campaign=campaign).values_list(
            "turn__number", "empire__seat", "orders", "ready", "revision")),
    }
    return doc


def dice_verify(campaign):
    campaign = Campaign.objects.get(pk=campaign.pk)
    entries = list(log_entries(campaign))
    assert dicelog.verify(bytes.fromhex(campaign.dice_seed), campaign.seed_hash, entries) is None
    # The stream offset is where the log ends, so the next roll continues the chain.
    assert campaign.dice_offset == entries[-1].offset + entries[-1].words
    out = StringIO()
    call_command("verifydice", str(campaign.pk), stdout=out)
    assert out.getvalue().startswith("OK")


def purposes(campaign, turn):
    return set(DiceRoll.objects.filter(campaign=campaign, turn=turn).values_list("purpose", flat=True))


@pytest.fixture
def bot_campaign(small_campaign):
    """The small campaign with every seat played by the computer, so its turns hold moves,
    purchases, builds and neutral world rolls."""
    small_campaign.empires.update(is_bot=True)
    return small_campaign


def roll_back_and_reprocess(campaign, alice) -> dict:
    """Process the open turn, roll it back, process it again; check the state after the roll-back
    equals the state before the turn and the state after re-processing equals the first result.
    Returns the processed turn."""
    campaign = Campaign.objects.get(pk=campaign.pk)
    number = campaign.turn
    before = full_state(campaign)
    rolls_before = DiceRoll.objects.filter(campaign=campaign).count()

    assert eh_actions.process_turn(campaign_id=campaign.pk) is not None
    first = full_state(campaign)
    first_dice = list(DiceRoll.objects.filter(campaign=campaign).order_by("seq").values_list("seq", "hash"))

    roll_back_turn(campaign_id=campaign.pk, user=alice, turn_number=number)
    assert full_state(campaign) == before
    assert DiceRoll.objects.filter(campaign=campaign).count() == rolls_before
    dice_verify(campaign)
    assert Campaign.objects.get(pk=campaign.pk).paused  # nothing runs until the moderator says so

    actions.process_now(campaign_id=campaign.pk, user=alice)
    second = full_state(campaign)
    # Timestamps aside (the next turn's deadline runs from when it opened), all is the same.
    second["extra"].pop("deadlines"), first["extra"].pop("deadlines")
    for key in first:
        assert second[key] == first[key], key
    assert list(DiceRoll.objects.filter(campaign=campaign).order_by("seq").values_list("seq", "hash")) == first_dice
    dice_verify(campaign)
    return Turn.objects.get(campaign=campaign, number=number)


def test_roll_back_then_reprocess_gives_the_same_state(bot_campaign, alice):
    # 003 Campaign Turn Sequence: every step of a turn, run twice from the same state and dice.
    seen_steps, seen_purposes = set(), set()
    # Turns until the computer players have moved, bought, built and collected income (at most 12).
    for _ in range(12):
        eh_actions.write_bot_orders(campaign_id=bot_campaign.pk)
        turn = roll_back_and_reprocess(bot_campaign, alice)
        seen_purposes |= purposes(bot_campaign, turn.number)
        seen_steps |= {e["step"] for e in turn.events}
        if {
            "spending",
            "movement",
            "builds",
            "income",
        } <= seen_steps and "003 Neutral Planets/Colonies" in seen_purposes:
            break
    # The turns rolled back covered spending, movement, builds, neutral worlds and income.
    assert {"spending", "movement", "builds", "income"} <= seen_steps, seen_steps
    assert "003 Neutral Planets/Colonies" in seen_purposes, seen_purposes


def test_roll_back_then_reprocess_a_battle(bot_campaign, alice):
    # 003 Invading Enemy Hexes; Alternative to a Tactical Battle: a fleet attacks another.
    from campaign.eventhorizon.models import Fleet
    from campaign.rules.eventhorizon.mapgen import Terrain

    for _ in range(3):
        eh_actions.write_bot_orders(campaign_id=bot_campaign.pk)
        eh_actions.process_turn(campaign_id=bot_campaign.pk)
    bot_campaign.empires.update(is_bot=False)
    campaign = Campaign.objects.get(pk=bot_campaign.pk)
    target = Fleet.objects.filter(campaign=campaign, owner__seat=1).order_by("number").first()
    attacker = Fleet.objects.filter(campaign=campaign, owner__seat=2).order_by("number").first()
    terrain = dict(((x, y), t) for x, y, t in campaign.cells.values_list("x", "y", "terrain"))
    from campaign.eventhorizon import adapters

    grid = adapters.load_state(campaign).grid
    assert terrain[(target.x, target.y)] != Terrain.PARTICLE_CLOUD.value
    start = next(c for c in grid.neighbours((target.x, target.y)) if terrain[c] == Terrain.EMPTY.value)
    Fleet.objects.filter(pk=attacker.pk).update(x=start[0], y=start[1])  # set the scene
    eh_actions.submit_orders(empire_id=campaign.empires.get(seat=2).pk,
                          raw={"moves": [{"fleet": attacker.number, "path": [[target.x, target.y]]}]}, ready=True)
    eh_actions.submit_orders(empire_id=campaign.empires.get(seat=1).pk, raw={}, ready=True)
    turn = roll_back_and_reprocess(campaign, alice)
    assert "003 Alternative to a Tactical Battle" in purposes(campaign, turn.number)
    assert any(e["kind"] == "battle" for e in turn.events)


def test_rolling_back_the_final_turn_reopens_the_campaign(small_campaign_in_setup, alice):
    # 003 Purpose of the Campaign: the last empire with ships wins (victory ruling V12). In the
    # set-up round bob buys a corvette and carol nothing, so carol ends turn 1 with no ships.
    small_campaign = small_campaign_in_setup
    bob_empire = small_campaign.empires.get(seat=1)
    dock = bob_empire.structures.get(resource="dockyard").number
    eh_actions.submit_orders(empire_id=bob_empire.pk, raw={"purchases": [
        {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": dock}]})
    eh_actions.submit_orders(empire_id=small_campaign.empires.get(seat=2).pk, raw={})
    eh_actions.process_turn(campaign_id=small_campaign.pk)  # the set-up round
    before = full_state(small_campaign)
    eh_actions.process_turn(campaign_id=small_campaign.pk)
    finished = Campaign.objects.get(pk=small_campaign.pk)
    assert finished.status == Campaign.Status.FINISHED and finished.winner.seat == 1
    first = full_state(finished)

    roll_back_turn(campaign_id=finished.pk, user=alice)
    reopened = Campaign.objects.get(pk=finished.pk)
    assert reopened.status == Campaign.Status.ACTIVE and reopened.winner is None and reopened.revealed_seed is None
    assert full_state(reopened) == before
    dice_verify(reopened)
    actions.process_now(campaign_id=reopened.pk, user=alice)
    assert full_state(reopened) == first


@pytest.fixture
def processed(small_campaign):
    """Turn 1 processed (each seat built a corvette), turn 2 open."""
    for empire in small_campaign.empires.all():
        dock = empire.structures.get(resource="dockyard").number
        eh_actions.submit_orders(empire_id=empire.pk, raw={"purchases": [
            {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": dock}]}, ready=True)
    eh_actions.process_turn(campaign_id=small_campaign.pk)
    return Campaign.objects.get(pk=small_campaign.pk)


def test_roll_back_restores_the_orders_and_records_the_truncation(processed, alice):
    rolls_of_turn_1 = DiceRoll.objects.filter(campaign=processed, turn=1).count()
    # Orders already sent for turn 2 are discarded with it.
    eh_actions.submit_orders(empire_id=processed.empires.get(seat=1).pk, raw={}, ready=True)
    turn = roll_back_turn(campaign_id=processed.pk, user=alice)
    assert turn.number == 1 and turn.status == Turn.Status.OPEN and turn.processed_at is None
    assert turn.events == [] and turn.snapshot is None
    orders = TurnOrders.objects.filter(turn=turn).order_by("empire__seat")
    assert [o.orders["purchases"][0]["build"] for o in orders] == ["Cyber-Corsair Galiot Class Corvette"] * 2
    assert all(o.ready for o in orders)
    assert not Turn.objects.filter(campaign=processed, number=2).exists()
    [entry] = AuditEntry.objects.filter(campaign=processed, action="roll_back")
    assert entry.user == alice and entry.target == "turn 1"
    assert entry.before["turn"] == 2 and entry.after["turn"] == 1 and entry.after["discarded_orders"] == 1
    assert entry.after["dice"]["deleted"] == rolls_of_turn_1 and "truncated" in entry.note
    assert entry.after["dice"]["last_hash"]
    # The deleted rolls are kept in the entry and still chain from the log that remains.
    kept = [dicelog.LogEntry(**{**r, "faces": tuple(r["faces"])}) for r in entry.before["dice_rolls"]]
    assert len(kept) == rolls_of_turn_1 and kept[-1].hash == entry.after["dice"]["last_hash"]
    campaign = Campaign.objects.get(pk=processed.pk)
    assert (
        dicelog.verify(bytes.fromhex(campaign.dice_seed), campaign.seed_hash, [*log_entries(campaign), *kept])
        is None
    )


def test_a_rolled_back_turn_waits_for_the_moderator(processed, alice):
    roll_back_turn(campaign_id=processed.pk, user=alice)
    campaign = Campaign.objects.get(pk=processed.pk)
    assert campaign.paused and campaign.paused_remaining == timedelta(hours=campaign.turn_hours)
    # Every player was ready, yet the sweep and the turn task leave it alone while paused.
    assert eh_actions.due_turns() == [] and eh_actions.process_turn(campaign_id=campaign.pk) is None
    actions.resume_campaign(campaign_id=campaign.pk, user=alice)
    assert [t.number for t in eh_actions.due_turns()] == [1]


def test_only_the_last_processed_turn_can_be_rolled_back(processed, alice, bob, mallory):
    with pytest.raises(actions.NotAllowed):
        roll_back_turn(campaign_id=processed.pk, user=bob)
    with pytest.raises(actions.NotFound):
        roll_back_turn(campaign_id=processed.pk, user=mallory)
    eh_actions.process_turn(campaign_id=processed.pk)  # turn 2: the campaign moves on
    before = full_state(processed)
    with pytest.raises(actions.ActionError, match=r"only the last processed turn \(2\) can be rolled back, not turn 1"):
        roll_back_turn(campaign_id=processed.pk, user=alice, turn_number=1)
    assert full_state(processed) == before and not AuditEntry.objects.filter(action="roll_back").exists()
    roll_back_turn(campaign_id=processed.pk, user=alice, turn_number=2)
    # Turn 1 is now the last processed turn, but the campaign moved on past it once already:
    # it is still the last one done, so it can be rolled back in turn (one step at a time).
    roll_back_turn(campaign_id=processed.pk, user=alice, turn_number=1)
    assert Campaign.objects.get(pk=processed.pk).turn == 1


def test_roll_back_refusals_change_nothing(small_campaign_in_setup, alice):
    from tests.eventhorizon.setup_round import finish_setup

    with pytest.raises(actions.ActionError, match="nothing to roll back"):  # the set-up round is open
        roll_back_turn(campaign_id=small_campaign_in_setup.pk, user=alice)
    small_campaign = finish_setup(small_campaign_in_setup)
    eh_actions.process_turn(campaign_id=small_campaign.pk)
    Turn.objects.filter(campaign=small_campaign, number=1).update(snapshot=None)  # as before snapshots
    before = full_state(small_campaign)
    with pytest.raises(actions.ActionError, match="before turns were snapshotted"):
        roll_back_turn(campaign_id=small_campaign.pk, user=alice)
    assert full_state(small_campaign) == before


def test_roll_back_refused_while_a_later_turn_is_not_open(processed, alice):
    Turn.objects.filter(campaign=processed, number=2).update(status=Turn.Status.PROCESSING)
    with pytest.raises(actions.ActionError, match="moved on"):
        roll_back_turn(campaign_id=processed.pk, user=alice)


def test_the_dice_log_stays_append_only_outside_a_roll_back(processed):
    # docs/dice.md: the roll-back truncation is the one privileged path.
    with pytest.raises(PermissionError):
        DiceRoll.objects.filter(campaign=processed).delete()
    with pytest.raises(PermissionError):
        DiceRoll.objects.filter(campaign=processed).first().delete()


def test_a_substitution_since_the_turn_survives_the_roll_back(processed, alice, django_user_model):
    dave = django_user_model.objects.create_user("dave")
    actions.substitute_player(campaign_id=processed.pk, user=alice, seat=2, username="dave")
    roll_back_turn(campaign_id=processed.pk, user=alice)
    assert processed.empires.get(seat=2).user == dave


def test_admin_edits_since_the_turn_are_undone_but_stay_in_the_log(processed, alice):
    empire = processed.empires.get(seat=1)
    actions.admin_edit(user=alice, instance=Empire(**{**{f.attname: getattr(empire, f.attname)
                                                         for f in Empire._meta.concrete_fields}, "bp": 7}))
    assert Empire.objects.get(pk=empire.pk).bp == 7
    roll_back_turn(campaign_id=processed.pk, user=alice)
    assert Empire.objects.get(pk=empire.pk).bp != 7
    assert AuditEntry.objects.filter(campaign=processed, action="admin_change").exists()


def test_snapshot_matches_between_python_and_database_builders(processed):
    """store() builds the bulky parts in SQL on PostgreSQL; take() builds the same in Python."""
    from campaign.eventhorizon import snapshots

    campaign = Campaign.objects.get(pk=processed.pk)
    turn = Turn.objects.get(campaign=campaign, number=campaign.turn)
    eh_actions.submit_orders(empire_id=campaign.empires.get(seat=2).pk, raw={"standing": {"loss_order": "costliest"}})
    snapshots.store(campaign, turn)
    stored = Turn.objects.get(pk=turn.pk).snapshot
    assert stored == snapshots.take(campaign, turn)
    # The ships in play are the set-up fleets (003 Set Up); each seat has a corvette on the stocks.
    assert (
        len(stored["ships"]) == campaign.ships.count() > 0
        and len(stored["builds"]) == 2
        and stored["dice"]["seq"] > 0
    )
    assert stored["orders"] == [[2, {"standing": {"loss_order": "costliest"}}, False, 1]]
