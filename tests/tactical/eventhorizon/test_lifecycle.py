"""The battle lifecycle: a turn hands its battles off and completes when they are settled
(issue 5 "Battle lifecycle"; docs/battles.md; rulings C15–C19)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaign import actions as campaign_actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon.actions import roll_back_turn
from campaign.eventhorizon.models import Ship
from campaign.models import Campaign, DiceRoll, Turn
from tactical.battles import actions
from tactical.hosts.eventhorizon import lifecycle
from tactical.models import Battle
from tests.tactical.battle_support import contact_turn

pytestmark = pytest.mark.django_db


def test_auto_mode_fights_at_once_and_makes_no_battle_rows(small_campaign):  # 003 Alternative to a Tactical Battle
    turn = contact_turn(small_campaign, "auto")
    assert turn.status == Turn.Status.DONE
    assert not Battle.objects.exists()
    assert any(e["kind"] == "battle" for e in turn.events)
    assert Turn.objects.filter(campaign=small_campaign, number=turn.number + 1, status=Turn.Status.OPEN).exists()


def test_a_tabletop_battle_stops_the_turn_until_it_is_settled(small_campaign):  # 003 Campaign Turn Sequence
    turn = contact_turn(small_campaign, "tabletop")
    assert turn.status == Turn.Status.BATTLES
    assert small_campaign.turn == turn.number  # the turn is not over
    assert not Turn.objects.filter(campaign=small_campaign, number=turn.number + 1).exists()
    battle = Battle.objects.get()
    assert battle.mode == "tabletop" and battle.status == "waiting" and battle.turn == turn.number
    assert (battle.attacker, battle.defender) == (1, 2)
    setup = battle.setup
    assert [s["id"] for s in setup["sides"]["1"]["ships"]] and [s["id"] for s in setup["sides"]["2"]["ships"]]
    assert setup["sides"]["1"]["ships"][0]["design"]["hull"] > 0
    assert battle.deadline is not None and battle.deadline > timezone.now()
    assert battle.log.filter(kind="created").exists()
    # Orders cannot be given while the turn waits for its battles.
    with pytest.raises(campaign_actions.ActionError):
        eh_actions.submit_orders(empire_id=small_campaign.empires.get(seat=1).pk, raw={})


def test_moderator_auto_resolve_completes_the_turn(small_campaign, alice):  # 003 Alternative to a Tactical Battle
    turn = contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    actions.settle_battle(battle_id=battle.pk, user=alice, auto=True)
    turn.refresh_from_db()
    assert turn.status == Turn.Status.DONE and turn.pending is None
    steps = [e["step"] for e in turn.events]
    # The battle comes after the first half of the turn and before its income (003 Campaign Turn Sequence).
    assert steps.index("battles") < steps.index("income")
    assert max(i for i, s in enumerate(steps) if s == "invasions") < steps.index("battles")
    battle_event = next(e for e in turn.events if e["kind"] == "battle")
    assert battle_event["data"]["rule"] == "003 Alternative to a Tactical Battle"
    assert Turn.objects.filter(campaign=small_campaign, number=turn.number + 1, status=Turn.Status.OPEN).exists()
    battle.refresh_from_db()
    assert battle.status == "resolved" and battle.resolved_how == "moderator" and battle.result is None


def full_result(battle, holder, destroyed=(), damage=None):
    ships = []
    for side in battle.setup["sides"].values():
        for ship in side["ships"]:
            if ship["id"] in destroyed:
                ships.append({"ship": ship["id"], "fate": "destroyed"})
            else:
                ships.append({"ship": ship["id"], "fate": "survived", "damage": (damage or {}).get(ship["id"], {})})
    return {"holder": holder, "ships": ships}


# 003 Result of a Tactical Battle
def test_confirmed_tabletop_result_is_applied_to_the_campaign(small_campaign, bob, carol):
    turn = contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    lost = battle.setup["sides"]["2"]["ships"][0]["id"]
    survivor = battle.setup["sides"]["1"]["ships"][0]["id"]
    actions.enter_result(battle_id=battle.pk, user=bob,
                         result=full_result(battle, 1, destroyed=[s["id"] for s in battle.setup["sides"]["2"]["ships"]],
                                            damage={survivor: {"hull": 1}}))
    battle.refresh_from_db()
    assert battle.status == "entered" and battle.proposed_by == 1
    actions.confirm_result(battle_id=battle.pk, user=carol)
    turn.refresh_from_db()
    assert turn.status == Turn.Status.DONE
    assert not Ship.objects.filter(campaign=small_campaign, number=lost).exists()
    assert Ship.objects.get(campaign=small_campaign, number=survivor).damage["hull"] == 1
    assert [e.kind for e in Battle.objects.get().log.all()] == ["created", "entered", "confirmed", "resolved"]


def test_disputed_result_waits_for_the_moderator(small_campaign, bob, carol, alice):
    turn = contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    actions.enter_result(battle_id=battle.pk, user=bob, result=full_result(battle, 2, destroyed=[]))
    actions.dispute_result(battle_id=battle.pk, user=carol, reason="Bob's ships fled, they were not all there")
    assert Battle.objects.get().status == "disputed"
    # The deadline does not settle a dispute (C19).
    assert actions.settle_due_battles(now=timezone.now() + timedelta(days=30)) == 0
    actions.settle_battle(battle_id=battle.pk, user=alice, result=full_result(battle, 2))
    turn.refresh_from_db()
    assert turn.status == Turn.Status.DONE
    assert Battle.objects.get().resolved_how == "moderator"


@pytest.mark.parametrize("who,call,message", [
    ("carol", "confirm_own", "other side must confirm"),
    ("alice", "enter", "only the players of the two sides"),
    ("bob", "confirm_nothing", "no entered result"),
    ("carol", "dispute_blank", "say what is wrong"),
    ("bob", "settle", "only the campaign's moderator"),
    ("mallory", "enter", "no battle"),
])
def test_refused_battle_actions_change_nothing(small_campaign, bob, carol, alice, mallory, who, call, message):
    contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    users = {"bob": bob, "carol": carol, "alice": alice, "mallory": mallory}
    if call in ("confirm_own", "dispute_blank"):
        actions.enter_result(battle_id=battle.pk, user=carol if call == "confirm_own" else bob,
                             result=full_result(battle, 2))
    before = (Battle.objects.values().get(), list(battle.log.values_list("kind", flat=True)), DiceRoll.objects.count())
    with pytest.raises(actions.BattleError, match=message):
        user = users[who]
        if call == "enter":
            actions.enter_result(battle_id=battle.pk, user=user, result=full_result(battle, 1))
        elif call in ("confirm_own", "confirm_nothing"):
            actions.confirm_result(battle_id=battle.pk, user=user)
        elif call == "dispute_blank":
            actions.dispute_result(battle_id=battle.pk, user=carol, reason="  ")
        else:
            actions.settle_battle(battle_id=battle.pk, user=user, auto=True)
    assert (
        Battle.objects.values().get(),
        list(battle.log.values_list("kind", flat=True)),
        DiceRoll.objects.count(),
    ) == before


def test_a_result_that_does_not_fit_is_refused(small_campaign, bob):  # 003 Result of a Tactical Battle
    contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    bad = full_result(battle, 1)
    bad["ships"] = bad["ships"][1:]
    with pytest.raises(actions.BattleError, match="leaves out ship"):
        actions.enter_result(battle_id=battle.pk, user=bob, result=bad)
    with pytest.raises(actions.BattleError, match="must be an object"):
        actions.enter_result(battle_id=battle.pk, user=bob, result=["nonsense"])
    assert Battle.objects.get().status == "waiting"


def test_battle_deadline_auto_resolves_an_unplayed_battle(small_campaign):  # ruling C19
    turn = contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    assert actions.settle_due_battles(now=battle.deadline - timedelta(minutes=1)) == 0
    assert actions.settle_due_battles(now=battle.deadline + timedelta(minutes=1)) == 1
    battle.refresh_from_db()
    turn.refresh_from_db()
    assert battle.resolved_how == "deadline" and turn.status == Turn.Status.DONE


def test_an_undisputed_entry_stands_at_the_deadline(small_campaign, bob):  # ruling C19
    turn = contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    actions.enter_result(battle_id=battle.pk, user=bob, result=full_result(battle, 2))
    actions.settle_due_battles(now=battle.deadline + timedelta(minutes=1))
    battle.refresh_from_db()
    assert battle.resolved_how == "unconfirmed" and battle.result["holder"] == 2
    turn.refresh_from_db()
    assert turn.status == Turn.Status.DONE


def test_a_computer_side_cannot_come_to_the_table(small_campaign):  # ruling C18
    turn = contact_turn(small_campaign, "tabletop")
    Battle.objects.all().delete()
    Campaign.objects.filter(pk=small_campaign.pk).update(battle_mode="tabletop")
    small_campaign.refresh_from_db()
    empires = {e.seat: e for e in small_campaign.empires.all()}
    empires[2].is_bot = True
    from campaign.eventhorizon import adapters

    state = adapters.load_state(small_campaign)
    b = lifecycle.battle_from_json(turn.pending["battles"][0])
    assert lifecycle.mode_for(small_campaign, empires, state, b) == "auto"
    empires[2].is_bot = False
    assert lifecycle.mode_for(small_campaign, empires, state, b) == "tabletop"


@pytest.mark.parametrize("campaign_mode,requests,asks,expected", [
    ("auto", "nobody", ("tactical", "tactical"), "auto"),
    ("auto", "either", ("tactical", ""), "tactical"),
    ("auto", "either", ("", "tabletop"), "auto"),  # a table needs both
    ("auto", "either", ("tabletop", "tabletop"), "tabletop"),
    ("auto", "either", ("tabletop", "tactical"), "tactical"),
    ("tabletop", "either", ("tactical", ""), "tactical"),
    ("tabletop", "either", ("auto", "auto"), "tabletop"),  # asking for auto never overrides a game
    ("auto", "both", ("tactical", ""), "auto"),
    ("auto", "both", ("tactical", "tactical"), "tactical"),
    ("auto", "both", ("tabletop", "tactical"), "auto"),
    ("tactical", "both", ("auto", "auto"), "tactical"),
])
def test_who_may_ask_for_a_game(campaign_mode, requests, asks, expected):  # ruling C17
    campaign = Campaign(battle_mode=campaign_mode, battle_requests=requests)
    assert lifecycle.requested_mode(campaign, (1, 2), {1: asks[0], 2: asks[1]}) == expected


def test_roll_back_discards_a_turn_waiting_for_battles(small_campaign, alice):  # moderation: roll-back
    turn = contact_turn(small_campaign, "tabletop")
    setup = Battle.objects.get().setup
    roll_back_turn(campaign_id=small_campaign.pk, user=alice)
    assert not Battle.objects.exists()
    turn.refresh_from_db()
    assert turn.status == Turn.Status.OPEN and turn.pending is None
    campaign_actions.resume_campaign(campaign_id=small_campaign.pk, user=alice)
    eh_actions.process_turn(campaign_id=small_campaign.pk)
    assert Battle.objects.get().setup == setup  # the same orders give the same battle


def test_battle_preference_is_set_by_its_player_only(small_campaign, bob, carol):  # ruling C17
    e1 = small_campaign.empires.get(seat=1)
    actions.set_battle_preference(empire_id=e1.pk, user=bob, preference="tactical")
    e1.refresh_from_db()
    assert e1.battle_preference == "tactical"
    with pytest.raises(actions.NotFound):
        actions.set_battle_preference(empire_id=e1.pk, user=carol, preference="auto")
    with pytest.raises(actions.BattleError, match="must be one of"):
        actions.set_battle_preference(empire_id=e1.pk, user=bob, preference="duel")


def test_an_embedded_battle_past_its_deadline_is_played_out_by_the_doctrine(small_campaign):  # ruling C19
    turn = contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get()
    assert battle.status == "playing" and battle.steps.exists()
    assert turn.status == Turn.Status.BATTLES
    assert actions.settle_due_battles(now=battle.deadline + timedelta(minutes=1)) == 1
    battle.refresh_from_db()
    turn.refresh_from_db()
    assert battle.status == "resolved" and battle.resolved_how == "tactical"
    assert battle.doctrine_sides == [1, 2] and battle.log.filter(kind="tactical_over").exists()
    assert turn.status == Turn.Status.DONE
    event = next(e for e in turn.events if e["kind"] == "battle")
    assert event["data"]["how"] == "tactical"
    # Every die of the battle is in the campaign's log under its phase, and the chain still holds.
    assert DiceRoll.objects.filter(campaign=small_campaign, phase=f"battle {battle.pk}").count() > 0
    from django.core.management import call_command

    call_command("verifydice", small_campaign.pk, "--seed", small_campaign.dice_seed)


def test_a_battles_rolls_are_withheld_from_everyone_but_its_sides_until_the_campaign_ends(
        small_campaign, client, django_user_model, alice, bob):  # rulings C21, FW7
    contact_turn(small_campaign, "tactical")
    battle = Battle.objects.get()
    outsider_player = django_user_model.objects.create_user("dora", "dora@example.com", "pw")
    from campaign.models import Membership

    Membership.objects.create(campaign=small_campaign, user=outsider_player, role=Membership.Role.OBSERVER)
    rows = DiceRoll.objects.filter(campaign=small_campaign, phase=f"battle {battle.pk}").order_by("seq")
    assert rows and all(r.concerns == sorted(battle.seats) for r in rows)
    row = rows.last()
    page = (row.seq - 1) // 50 + 1
    api_page = (row.seq - 1) // 100 + 1  # the API pages by 100

    def api_row():
        api = client.get(f"/api/campaigns/{small_campaign.pk}/dice/?page={api_page}").json()
        return next(r for r in api["results"] if r["seq"] == row.seq)

    client.force_login(outsider_player)
    body = client.get(f"/campaigns/{small_campaign.pk}/dice/?page={page}").content.decode()
    assert "withheld: a roll for another empire" in body and row.purpose not in body and row.hash[:12] in body
    assert api_row() == {"seq": row.seq, "prev_hash": row.prev_hash, "hash": row.hash, "withheld": True,
                         **dict.fromkeys(["turn", "phase", "purpose", "expression", "faces", "total", "offset",
                                          "words", "concerns", "hash_version"])}
    for user in (bob, alice):  # a side of the battle, and the moderator
        client.force_login(user)
        shown = api_row()
        assert (shown["purpose"], shown["faces"], shown["withheld"]) == (row.purpose, row.faces, False)
    Campaign.objects.filter(pk=small_campaign.pk).update(status=Campaign.Status.FINISHED)
    client.force_login(outsider_player)  # the campaign has ended: the seed is revealed, the log open
    shown = api_row()
    assert (shown["purpose"], shown["faces"], shown["offset"]) == (row.purpose, row.faces, row.offset)


def test_a_dispute_emails_the_moderator_once(small_campaign, bob, carol, alice, mailoutbox,
                                             django_capture_on_commit_callbacks):  # ruling C19
    contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    actions.enter_result(battle_id=battle.pk, user=bob, result=full_result(battle, 2))
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        actions.dispute_result(battle_id=battle.pk, user=carol, reason="ship 2 was never destroyed")
    to_alice = [m for m in mailoutbox if m.to == [alice.email]]
    assert len(to_alice) == 1 and "ship 2 was never destroyed" in to_alice[0].body
    assert not [m for m in mailoutbox if m.to == [bob.email]]


def test_changing_a_battle_to_the_mode_it_has_is_refused(small_campaign, alice):
    contact_turn(small_campaign, "tabletop")
    battle = Battle.objects.get()
    with pytest.raises(actions.BattleError, match="already fought on a real tabletop"):
        actions.change_mode(battle_id=battle.pk, user=alice, mode="tabletop")
    assert not battle.log.filter(kind="mode").exists()
