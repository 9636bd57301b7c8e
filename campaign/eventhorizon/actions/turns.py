"""Processing an Event Horizon turn (issue 26: out of the platform's ``campaign/actions/turns.py``):
the engine run, finishing it (battles may hold it), the next turn and its deadline, computer
orders, missed turns, and the due-turn sweep. The platform reaches them through the layer's record
(``campaign/eventhorizon/layer.py``): ``process_turn`` (the task ``campaign.tasks.process_turn`` and
the moderator's "process now"), ``due_steps`` and ``process_due`` (the due-work sweeps).
"""
from __future__ import annotations

from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from campaign import battles
from campaign.actions.notifications import enqueue_turn_notifications
from campaign.actions.turns import _open_turn, turn_deadline
from campaign.dice import CampaignDice
from campaign.models import Campaign, Empire, Turn, TurnOrders
from campaign.rules.eventhorizon import turn as turn_engine
from campaign.rules.eventhorizon import victory
from campaign.rules.eventhorizon.bots import bot_orders
from campaign.rules.eventhorizon.orders import orders_to_json, parse_orders
from campaign.rules.eventhorizon.setup import SETUP_TURN, resolve_setup

from .. import adapters, snapshots


def process_turn(*, campaign_id: int, turn_number: int | None = None) -> Turn | None:
    """Resolve the campaign's open turn through the pure pipeline and store the result.

    Safe to call twice or concurrently: the campaign row lock serialises callers and the turn's
    status is claimed with a conditional update, so a turn is processed once; a caller that
    finds it already done gets None."""
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        if campaign.status != Campaign.Status.ACTIVE or campaign.paused:  # moderation: paused processes nothing
            return None
        number = campaign.turn if turn_number is None else turn_number
        if number != campaign.turn:
            return None
        # healthchecks-style claim: only the caller whose update matched the OPEN row proceeds.
        claimed = Turn.objects.filter(campaign=campaign, number=number, status=Turn.Status.OPEN).update(
            status=Turn.Status.PROCESSING
        )
        if claimed != 1:
            return None
        turn = Turn.objects.get(campaign=campaign, number=number)
        _store_turn_snapshot(campaign, turn)  # moderation: the state before, for roll-back
        state = adapters.load_state(campaign)
        names = adapters.design_names_by_seat(campaign)
        orders = {}
        for row in TurnOrders.objects.filter(turn=turn).select_related("empire"):
            orders[row.empire.seat] = parse_orders(row.orders)
        _fill_bot_orders(turn, state, names, orders)  # turn workflow: computer seats
        dice = CampaignDice(campaign, phase="turn", turn=number)
        if number == SETUP_TURN:
            # The set-up round: purchases delivered at once, then turn 1's income (setup.py).
            resolution = resolve_setup(state, orders, dice, names)
            adapters.save_state(campaign, state, resolution.state)
            dice.commit()
            turn.events = [event_json(e) for e in resolution.events]
            return _turn_done(campaign, turn, resolution.state)
        lifecycle = battles.handler()  # battles (issue 5): a turn may wait for battles fought as games
        resolution = turn_engine.resolve_turn(state, orders, dice, names,
                                              fought_as_game=lifecycle.game_chooser(campaign))
        adapters.save_state(campaign, state, resolution.state)
        dice.commit()
        turn.events = [event_json(e) for e in resolution.events]
        if resolution.pending:
            # The turn stops before its battles: the state so far is stored, the battles fought as
            # games get their rows, and finish_turn runs when the last one is settled.
            turn.status = Turn.Status.BATTLES
            turn.pending = {"battles": [lifecycle.battle_json(b) for b in resolution.pending],
                            "repairs": [list(r) for r in resolution.state.repairs]}
            turn.save(update_fields=["status", "events", "pending"])
            lifecycle.open_battles(campaign, turn, resolution.state, resolution.pending)
            return lifecycle.finish_turn_if_ready(campaign) or turn
        return _turn_done(campaign, turn, resolution.state)


def finish_turn(campaign: Campaign, turn: Turn) -> Turn:
    """The rest of a turn that waited for its battles, once all are settled (campaign/battles.py):
    the battles' results in order (auto-resolve for the others), builds, trade, victory, income.
    The caller holds the campaign row lock."""
    from dataclasses import replace as _replace

    lifecycle = battles.handler()
    state = adapters.load_state(campaign)
    pending = turn.pending or {}
    state = _replace(state, repairs=tuple(tuple(r) for r in pending.get("repairs", [])))
    waited = tuple(lifecycle.battle_from_json(b) for b in pending.get("battles", []))
    dice = CampaignDice(campaign, phase="turn", turn=turn.number)
    rest = turn_engine.complete_turn(state, waited, lifecycle.results_for(campaign, turn), dice,
                                     lifecycle.auto_settled_for(campaign, turn))
    adapters.save_state(campaign, state, rest.state)
    dice.commit()
    turn.events = list(turn.events) + [event_json(e) for e in rest.events]
    turn.pending = None
    return _turn_done(campaign, turn, rest.state)


def _turn_done(campaign: Campaign, turn: Turn, state) -> Turn:
    number = turn.number
    turn.status = Turn.Status.DONE
    turn.processed_at = timezone.now()
    turn.summary = position_summary(state, turn.events)
    turn.save(update_fields=["status", "processed_at", "events", "summary", "pending"])
    _count_missed_turns(campaign, turn)  # turn workflow: missed turns, seats to the computer
    # notifications
    transaction.on_commit(lambda c=campaign.pk, n=number: enqueue_turn_notifications(c, n), robust=True)
    if not state.finished:
        Turn.objects.create(campaign=campaign, number=state.turn, deadline=turn_deadline(campaign))
    return turn


def position_summary(state, events) -> dict:
    """Each empire's position after a turn (for reports, charts and the demo's log)."""
    battles: dict[int, int] = {}
    for event in events:
        if event["step"] == "battles" and event["kind"] == "battle":
            for seat in event["seats"]:
                battles[seat] = battles.get(seat, 0) + 1
    out = {}
    for empire in state.empires:
        out[str(empire.seat)] = {
            "bp": empire.bp,
            "worlds": len(state.worlds_of(empire.seat)),
            "ships": sum(1 for s in state.ships if s.owner == empire.seat),
            "fleets": sum(1 for f in state.fleets if f.owner == empire.seat),
            "battles": battles.get(empire.seat, 0),
            "eliminated": empire.eliminated,
            "victory": list(victory.status(state, empire.seat).lines) if not empire.eliminated else [],
        }
    return out


@transaction.atomic
def write_bot_orders(*, campaign_id: int) -> int:
    """Computer players write their orders for the open turn; returns how many did."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    turn = _open_turn(campaign, lock=True)
    bots = list(campaign.empires.filter(is_bot=True, eliminated=False))
    if not bots:
        return 0
    state = adapters.load_state(campaign)
    names = adapters.design_names_by_seat(campaign)
    for empire in bots:
        orders = bot_orders(state, empire.seat, names[empire.seat])
        TurnOrders.objects.update_or_create(
            turn=turn, empire=empire, defaults={"orders": orders_to_json(orders), "ready": True}
        )
    return len(bots)


def mail_holds_turn(deadline) -> bool:
    from campaign.mail.actions import holds_turn

    return holds_turn(deadline)


TURN_JSON = ("events", "summary", "snapshot", "pending")  # a turn's big columns: what a sweep never reads


def due_turns(now=None, *, campaign_id: int | None = None):
    """Open turns that should be processed: every active player has marked ready, or the
    deadline has passed (RULINGS "Simultaneous orders": ready or deadline).

    Two indexed look-ups whatever the number of campaigns (issue 33): the campaigns' current open
    turns, not paused, whose deadline passed (``turn_open_deadline``), and those the order and
    ready actions noted everyone-ready (``Turn.everyone_ready``, ``turn_open_everyone_ready``),
    checked again here (a human seat, and none not ready: ``NOT EXISTS`` over the seat and its
    orders) for those few only. An idle sweep costs what is due, not what is open. ``campaign_id``:
    that campaign's only (``process_due``)."""
    now = now or timezone.now()
    humans = Empire.objects.filter(campaign=OuterRef("campaign_id"), eliminated=False, is_bot=False)
    ready = TurnOrders.objects.filter(turn=OuterRef(OuterRef("pk")), empire=OuterRef("pk"), ready=True)
    not_ready = humans.filter(~Exists(ready))
    current = Turn.objects.filter(
        status=Turn.Status.OPEN, campaign__status=Campaign.Status.ACTIVE, campaign__paused=False,  # paused waits
        number=F("campaign__turn"),
    ).select_related("campaign").defer(*TURN_JSON)
    if campaign_id is not None:
        current = current.filter(campaign_id=campaign_id)
    late = list(current.filter(deadline__lte=now))
    seen = {turn.pk for turn in late}
    everyone = [turn for turn in current.filter(everyone_ready=True).filter(Exists(humans) & ~Exists(not_ready))
                if turn.pk not in seen]
    # Mail accepted by the site's mail system by the deadline but not processed yet holds a turn
    # past its deadline until it is (docs/rulings.md ML1; its retries are bounded by
    # MAIL_RETRY_LIMIT): asked of the due turns only, so an idle sweep asks nothing.
    found = sorted([*late, *everyone], key=lambda turn: turn.campaign_id)
    return [turn for turn in found
            if turn.deadline is None or turn.deadline > now or not mail_holds_turn(turn.deadline)]


def due_steps(now=None) -> list[int]:
    """The record's ``due_steps``: the campaigns whose open turn is due (``due_turns``: two indexed look-ups)."""
    return [turn.campaign_id for turn in due_turns(now)]


def process_due(*, campaign_id: int, now=None) -> Turn | None:
    """The record's ``process_due`` (the task ``campaign.tasks.process_layer_step``, queued by the
    due-work sweeps): the campaign's open turn, processed if it is due now (every human seat ready,
    or its deadline passed and no mail accepted by then waits: ``due_turns``). None when nothing is
    due, or another caller processed it first (``process_turn`` claims the turn): safe to deliver
    twice, and a turn that opened since is left until it is due."""
    due = due_turns(now, campaign_id=campaign_id)
    if not due:
        return None
    return process_turn(campaign_id=campaign_id, turn_number=due[0].number)


def event_json(event) -> dict:
    return {"step": event.step, "kind": event.kind, "seats": list(event.seats), "text": event.text,
            "data": dict(event.data), "public": event.public}


def _fill_bot_orders(turn: Turn, state, names, orders: dict) -> None:
    """Computer seats without orders for the turn write them now, from the state being resolved
    (called by process_turn, so every path that processes a turn has the bots' orders)."""
    for empire in turn.campaign.empires.filter(is_bot=True, eliminated=False).exclude(orders__turn=turn):
        bot = bot_orders(state, empire.seat, names[empire.seat])
        TurnOrders.objects.create(turn=turn, empire=empire, orders=orders_to_json(bot), ready=True)
        orders[empire.seat] = bot


def _count_missed_turns(campaign: Campaign, turn: Turn) -> None:
    """RULINGS "Missed deadline": a seat whose player sent nothing keeps its standing orders.
    Each such turn counts; orders reset the count. After ``missed_turn_limit`` in a row (0:
    never) the computer plays the seat until its player takes it back. Seats without a player
    (no user) are not counted."""
    from django.conf import settings
    from django.core.mail import send_mail

    submitted = set(TurnOrders.objects.filter(turn=turn).values_list("empire_id", flat=True))
    players = campaign.empires.filter(is_bot=False, eliminated=False, user__isnull=False)
    players.filter(pk__in=submitted).exclude(missed_turns=0).update(missed_turns=0)
    limit = campaign.missed_turn_limit
    for empire in players.exclude(pk__in=submitted).select_related("user"):
        empire.missed_turns += 1
        fields = ["missed_turns"]
        if limit and empire.missed_turns >= limit:
            empire.is_bot = empire.auto_bot = True
            fields += ["is_bot", "auto_bot"]
            if empire.user.email:
                subject = f"{campaign.name}: the computer now plays {empire.name}"
                body = (
                    f"No orders came from you for {empire.missed_turns} turns in a row, so from turn "
                    f"{turn.number + 1} the computer writes the orders of {empire.name}.\n\n"
                    f"Take your seat back on the orders page: {settings.SITE_URL}/campaigns/{campaign.pk}/orders/\n"
                )
                transaction.on_commit(
                    lambda s=subject, b=body, to=empire.user.email: send_mail(s, b, None, [to]), robust=True
                )
        empire.save(update_fields=fields)


def _store_turn_snapshot(campaign: Campaign, turn: Turn) -> None:
    """Keep the campaign's state before ``turn`` is resolved in Turn.snapshot (process_turn
    calls this; roll_back_turn restores it; format in docs/online-play.md)."""
    snapshots.store(campaign, turn)
