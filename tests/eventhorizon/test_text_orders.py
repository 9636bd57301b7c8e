"""The text-orders checker (campaign/actions/textorders.py): the one door for orders sent as text
by mail, the paste page and the API; and the order secret it checks."""

from datetime import timedelta

import pytest
from django.utils import timezone

from campaign import actions
from campaign.eventhorizon import actions as eh_actions
from campaign.eventhorizon import adapters
from campaign.eventhorizon.models import Design
from campaign.models import AuditEntry, Empire, TurnOrders
from campaign.rules.eventhorizon.mapgen import Terrain

pytestmark = pytest.mark.django_db


def seat_of(campaign, user) -> Empire:
    return Empire.objects.get(campaign=campaign, user=user)


def header(campaign, empire, secret, turn=None) -> str:
    return f"#SECTOR {campaign.pk} {empire.seat} {secret} TURN {campaign.turn if turn is None else turn}"


def a_legal_move(campaign, empire) -> str:
    """``MOVE <fleet> TO <neighbour>`` for one of the empire's fleets."""
    state = adapters.load_state(campaign)
    fleet = next(f for f in state.fleets if f.owner == empire.seat)
    to = next(c for c in state.grid.neighbours(fleet.coord) if state.terrain_at(c) is not Terrain.BLACK_HOLE)
    return f"MOVE {fleet.id} TO {to[0]},{to[1]}", fleet.id, list(to)


def send(text, at=None, via="mail", **kw):
    return eh_actions.submit_text_orders(text, received_at=at or timezone.now(), via=via, **kw)


def stored(empire):
    return TurnOrders.objects.filter(empire=empire, turn__number=empire.campaign.turn).first()


def test_accepted_orders_are_stored_and_the_reply_echoes_them(small_campaign, bob):
    bob_seat = seat_of(small_campaign, bob)
    secret = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    move, fleet, to = a_legal_move(small_campaign, bob_seat)
    text = (f"Hello moderator,\n\n{header(small_campaign, bob_seat, secret)}\n{move}\nLOSSES costliest\nREADY\n#END\n"
            "-- \nBob\n")
    result = send(text, sender_email="bob@example.com")
    assert result.accepted and result.error is None
    assert result.campaign == small_campaign and result.turn_number == 1
    assert [line.ok for line in result.lines] == [True] * 5
    row = stored(bob_seat)
    assert row.orders == {"moves": [{"fleet": fleet, "path": [to]}],
                          "standing": {"invasion": [], "loss_order": "costliest", "initiative": "first"}}
    assert row.ready is True and row.revision == 1
    reply = result.reply_text()
    assert "ACCEPTED" in reply
    assert move in reply and "LOSSES costliest" in reply and "#END" in reply  # the stored set in full
    assert f"BP left after the stored orders: {result.bp_left}" in reply
    assert "Deadline:" in reply
    assert f"/campaigns/{small_campaign.pk}/orders/" in reply
    entry = AuditEntry.objects.get(campaign=small_campaign, action="text_orders")
    assert "via=mail" in entry.note and "sender: the registered address" in entry.note
    assert entry.after["accepted"] is True
    assert secret not in entry.note and secret not in reply  # the header line is echoed masked
    assert result.lines[0].text == f"#SECTOR {small_campaign.pk} {bob_seat.seat} ******** TURN 1"


def test_a_partly_refused_set_is_refused_whole_and_the_stored_set_stays(small_campaign, bob):
    bob_seat = seat_of(small_campaign, bob)
    secret = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    first = send(f"{header(small_campaign, bob_seat, secret)}\nINITIATIVE last\n#END\n")
    assert first.accepted
    before = stored(bob_seat).orders
    move, fleet, _ = a_legal_move(small_campaign, bob_seat)
    result = send(f"{header(small_campaign, bob_seat, secret)}\n{move}\nMOVE 9999 TO 1,1\nFLY away\n#END\n")
    assert not result.accepted and result.reason == "lines"
    assert [(line.number, line.ok) for line in result.lines] == [(1, True), (2, True), (3, False), (4, False),
                                                                      (5, True)]
    assert "unknown order 'FLY'" in result.lines[3].message
    assert stored(bob_seat).orders == before and stored(bob_seat).revision == 1
    reply = result.reply_text()
    assert "REFUSED" in reply and "the whole set is refused" in reply
    assert "The set stored before (revision 1) stays in force" in reply
    assert "INITIATIVE last" in reply  # the set that stays, echoed


def test_engine_refusals_are_put_on_their_line_with_the_rule(small_campaign, bob):
    bob_seat = seat_of(small_campaign, bob)
    secret = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    result = send(f"{header(small_campaign, bob_seat, secret)}\nLOSSES cheapest\nMOVE 9999 TO 1,1\n#END\n")
    assert not result.accepted
    bad = [line for line in result.lines if not line.ok]
    assert [line.number for line in bad] == [3]
    assert bad[0].rule == "003 Campaign Movement" and "fleet 9999 is not one of yours" in bad[0].message
    assert "003 Campaign Movement" in result.reply_text()
    assert stored(bob_seat) is None
    assert "You have no orders stored for this turn" in result.reply_text()


def test_a_wrong_secret_changes_nothing(small_campaign, bob, carol):
    bob_seat = seat_of(small_campaign, bob)
    eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    carols = eh_actions.rotate_order_secret(empire_id=seat_of(small_campaign, carol).pk, user=carol)
    for secret in ("guessed", carols, ""):
        result = send(f"{header(small_campaign, bob_seat, secret or 'x')}\nLOSSES costliest\n#END\n")
        assert not result.accepted and "with that order secret" in result.error and result.reason == "secret"
        assert result.empire == bob_seat  # so mail can tell the seat's player of the attempt
        assert "Your stored orders" not in result.reply_text()  # nothing of the seat's orders to a stranger
        # where the secret is: its own page, not the orders page (issue 23 item 10)
        assert "orders page" not in result.error
        assert f"order secret page, /campaigns/{small_campaign.pk}/orders/secret/" in result.error
    unknown = send("#SECTOR 999999 1 x TURN 1\nLOSSES costliest\n#END\n")
    assert unknown.campaign is None and unknown.error.startswith("campaign 999999 has no seat 1 with that order secret")
    assert stored(bob_seat) is None
    assert not AuditEntry.objects.filter(action="text_orders").exists()


def test_orders_for_a_processed_turn_are_refused_naming_it(small_campaign, bob):
    bob_seat = seat_of(small_campaign, bob)
    secret = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    result = send(f"{header(small_campaign, bob_seat, secret, turn=0)}\nLOSSES costliest\n#END\n")
    assert not result.accepted
    assert "turn 0: it has been processed already; the current turn is turn 1" in result.error
    assert result.reason == "turn"
    later = send(f"{header(small_campaign, bob_seat, secret, turn=5)}\nLOSSES costliest\n#END\n")
    assert "turn 5: there is no such turn yet" in later.error
    assert stored(bob_seat) is None
    # The reply still carries a template for the open turn.
    assert f"#SECTOR {small_campaign.pk} {bob_seat.seat} T1-" in result.reply_text()


def test_a_set_received_earlier_than_the_stored_one_never_replaces_it(small_campaign, bob):
    bob_seat = seat_of(small_campaign, bob)
    secret = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    now = timezone.now()
    later = send(f"{header(small_campaign, bob_seat, secret)}\nINITIATIVE last\n#END\n", at=now)
    assert later.accepted
    # A mail received before it, processed after it (a slow queue; its Date: says nothing).
    earlier = send(
        f"{header(small_campaign, bob_seat, secret)}\nINITIATIVE first\n#END\n", at=now - timedelta(minutes=5)
    )
    assert not earlier.accepted and "a set received later" in earlier.error and earlier.reason == "earlier"
    assert stored(bob_seat).orders["standing"]["initiative"] == "last"
    newer = send(f"{header(small_campaign, bob_seat, secret)}\nINITIATIVE first\n#END\n", at=now + timedelta(minutes=1))
    assert newer.accepted and stored(bob_seat).revision == 2


def test_web_orders_saved_after_a_mail_win_over_it(small_campaign, bob):
    bob_seat = seat_of(small_campaign, bob)
    secret = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    sent_at = timezone.now()
    eh_actions.submit_orders(empire_id=bob_seat.pk, raw={})
    result = send(f"{header(small_campaign, bob_seat, secret)}\nINITIATIVE last\n#END\n", at=sent_at)
    assert not result.accepted and stored(bob_seat).orders == {}


def test_the_set_up_round_by_text(small_campaign_in_setup, bob):
    campaign = small_campaign_in_setup
    bob_seat = seat_of(campaign, bob)
    secret = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    state = adapters.load_state(campaign)
    home = state.home_world(bob_seat.seat).coord
    dock = next(s.id for s in state.structures if s.owner == bob_seat.seat)
    design = next(iter(adapters.design_names_by_seat(campaign)[bob_seat.seat]))
    text = (f"{header(campaign, bob_seat, secret, turn=0)}\nBUY diplomatic_corps AT {home[0]},{home[1]}\n"
            f'BUILD "{design}" AT DOCKYARD {dock} NAME "Flagship"\nLOSSES cheapest\n#END\n')
    result = send(text)
    assert result.accepted, result.reply_text()
    assert stored(bob_seat).orders["purchases"][1] == {"build": design, "dockyard": dock, "name": "Flagship"}
    refused = send(f"{header(campaign, bob_seat, secret, turn=0)}\nMOVE 1 TO 1,1\n#END\n")
    assert not refused.accepted
    assert refused.lines[1].rule == "003 Set Up" and "fleets move from turn 1" in refused.lines[1].message


def test_the_turn_key_works_for_its_turn_only_and_until_the_secret_is_rotated(small_campaign, bob, carol):
    bob_seat = seat_of(small_campaign, bob)
    key = eh_actions.turn_key(bob_seat, 1)
    assert send(f"{header(small_campaign, bob_seat, key)}\nLOSSES costliest\n#END\n").accepted
    carol_seat = seat_of(small_campaign, carol)
    assert not send(f"{header(small_campaign, carol_seat, key)}\nLOSSES costliest\n#END\n").secret_ok
    assert not send(f"{header(small_campaign, bob_seat, eh_actions.turn_key(bob_seat, 2), turn=1)}\n#END\n").secret_ok
    old = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    assert not send(f"{header(small_campaign, bob_seat, key)}\n#END\n").secret_ok  # rotated: the old key is dead
    new = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    assert not send(f"{header(small_campaign, bob_seat, old)}\n#END\n").secret_ok
    assert send(f"{header(small_campaign, bob_seat, new)}\n#END\n").accepted


def test_a_seat_handed_to_someone_else_needs_a_new_secret(small_campaign, alice, bob, mallory):
    bob_seat = seat_of(small_campaign, bob)
    secret = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    actions.substitute_player(campaign_id=small_campaign.pk, user=alice, seat=bob_seat.seat, username="mallory")
    assert not send(f"{header(small_campaign, bob_seat, secret)}\n#END\n").secret_ok
    with pytest.raises(actions.NotFound):
        eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    assert eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=mallory)


def test_designs_and_battle_preference_by_text(small_campaign, bob):
    bob_seat = seat_of(small_campaign, bob)
    secret = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    bad = send(f'{header(small_campaign, bob_seat, secret)}\nDESIGN "Lumpy" patrol_craft hull=1 engine=1\n'
               "BATTLE tabletop\n#END\n")
    assert not bad.accepted and not bad.lines[1].ok and "BP" in bad.lines[1].message
    assert not Design.objects.filter(name="Lumpy").exists()
    good_spec = Design.objects.filter(campaign__isnull=True).order_by("bp").first().spec
    from campaign.rules.eventhorizon.textorders import format_orders

    line = format_orders({}, designs=[{**good_spec, "name": "Sparrow"}]).strip()
    result = send(f"{header(small_campaign, bob_seat, secret)}\n{line}\nBATTLE tabletop\n#END\n")
    assert result.accepted, result.reply_text()
    assert Design.objects.filter(campaign=small_campaign, empire=bob_seat, name="Sparrow").exists()
    bob_seat.refresh_from_db()
    assert bob_seat.battle_preference == "tabletop"


def test_hostile_text_is_refused_without_a_crash(small_campaign, bob):
    bob_seat = seat_of(small_campaign, bob)
    secret = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    for text in (f"{header(small_campaign, bob_seat, secret)}\nBUILD \"x\x00\" AT 1\n#END\n",
                 f"{header(small_campaign, bob_seat, secret)}\nBUILD \"x\ud800\" AT 1\n#END\n",
                 "x" * 300_000, "\n" * 5000):
        result = send(text)
        assert not result.accepted and result.error
    assert stored(bob_seat) is None


# --- the orders template in turn report emails ------------------------------------------------------

def test_the_turn_email_carries_a_template_that_is_a_valid_turn_when_sent_back(
        small_campaign, bob, carol, django_capture_on_commit_callbacks, eager_tasks, settings):
    import html

    settings.MAIL_IN_ENABLED = True  # the block is offered only when the site takes mail (issue 23 item 10)

    from django.core import mail

    bob_seat = seat_of(small_campaign, bob)
    eh_actions.submit_orders(empire_id=bob_seat.pk, raw={"standing": {"loss_order": "costliest"}})
    with django_capture_on_commit_callbacks(execute=True):
        eh_actions.process_turn(campaign_id=small_campaign.pk)
    small_campaign.refresh_from_db()
    message = next(m for m in mail.outbox if m.to == ["bob@example.com"])
    body = message.body
    start = body.index("#SECTOR")
    block = body[start:body.index("#END", start) + 4]
    assert block.startswith(f"#SECTOR {small_campaign.pk} {bob_seat.seat} {eh_actions.turn_key(bob_seat, 2)} TURN 2\n")
    assert "LOSSES costliest" in block  # the standing orders in force, written out
    assert block in html.unescape(message.alternatives[0][0])  # and in the HTML part
    assert "#SECTOR" not in next(m for m in mail.outbox if m.to == ["alice@example.com"]).body  # plays no seat
    # Reply, edit, send: the answer above, the whole mail quoted below it.
    quoted = "\n".join("> " + line for line in body.splitlines())
    move, fleet, to = a_legal_move(small_campaign, bob_seat)
    reply = "My orders:\n\n" + block.replace("#END", move + "\n#END") + "\n\nOn Monday you wrote:\n" + quoted
    result = send(reply)
    assert result.accepted, result.reply_text()
    row = stored(bob_seat)
    assert row.turn.number == 2 and row.orders["moves"] == [{"fleet": fleet, "path": [to]}]
    assert row.orders["standing"]["loss_order"] == "costliest"
    # The same block, unchanged, a turn later is refused naming the turn.
    with django_capture_on_commit_callbacks(execute=True):
        eh_actions.process_turn(campaign_id=small_campaign.pk)
    small_campaign.refresh_from_db()
    late = send(reply)
    assert not late.accepted and "turn 2: it has been processed already" in late.error


def test_a_seat_the_computer_took_over_is_told_to_take_it_back(small_campaign, bob):
    bob_seat = seat_of(small_campaign, bob)
    secret = eh_actions.rotate_order_secret(empire_id=bob_seat.pk, user=bob)
    Empire.objects.filter(pk=bob_seat.pk).update(is_bot=True, auto_bot=True)
    result = send(f"{header(small_campaign, bob_seat, secret)}\nLOSSES costliest\n#END\n")
    assert not result.accepted and result.reason == "seat" and "take it back first" in result.error
    assert stored(bob_seat) is None
