"""Orders for an Event Horizon turn: preview, submit, mark ready, take a seat back from the computer
(issue 26: out of the platform's ``campaign/actions/orders.py``). The last player ready queues the
turn's processing on commit (the platform's task ``campaign.tasks.process_turn``, which reaches
this layer's ``process_turn`` through its record).
"""
from __future__ import annotations

from django.db import connections, router, transaction
from django.utils import timezone

from campaign import locks, lookups
from campaign.actions.errors import ActionError, OrdersRefused, TurnClosed, _stale_turn
from campaign.actions.turns import _note_everyone_ready, _open_turn
from campaign.models import Campaign, Empire, Turn, TurnOrders
from campaign.notifications import round_label
from campaign.rules.eventhorizon.orders import OrderError, Preview
from campaign.rules.eventhorizon.preview import check_viewed_orders

from .. import adapters
from ..visibility import fog_radius


def preview_orders(*, empire: Empire, raw) -> Preview:
    """Validate orders without storing them: the preview players see while writing."""
    view, names = adapters.view_for_orders(empire.campaign, empire.seat, fog_radius(empire.campaign))
    try:
        # Set-up purchases in the set-up round, turn orders (with their warnings) afterwards.
        # Checked against what the seat may see, never the whole map (issue 23 item 1).
        return check_viewed_orders(view, empire.seat, raw, names)
    except OrderError as exc:
        raise OrdersRefused(exc) from None


def submit_orders(*, empire_id: int, raw, ready: bool | None = None, empire: Empire | None = None,
                  turn_number: int | None = None) -> tuple[TurnOrders, Preview]:
    """Store an empire's orders for the open turn (revisable until it is processed). Invalid
    orders are refused with the reason and change nothing; orders for a turn being processed
    wait for it and are then refused with TurnClosed.

    The orders are checked against the open turn's state before any lock is taken, so one
    campaign's players do not queue behind each other's checks; the turn row lock is held only
    to store them. If that turn closed meanwhile the orders are refused (TurnClosed). A
    moderator's edit between the check and the store is caught when the turn is resolved, as for
    orders stored before such an edit (turn.apply_spending).

    ``turn_number``, when given (the order page and editor send it), is the turn the orders were
    written for: if another turn is open now they are refused (StaleTurn, 409), so orders written
    for turn N, or a repeated "save and mark ready", never land in turn N + 1 unseen."""
    if empire is None or empire.pk != empire_id:
        empire = Empire.objects.select_related("campaign").get(pk=empire_id)
    if empire.eliminated:
        raise ActionError("your empire has been eliminated")
    if empire.is_bot:
        raise ActionError("your seat is played by the computer: take it back first")
    campaign = empire.campaign
    checked_turn = campaign.turn
    if turn_number is not None and turn_number != checked_turn:
        raise _stale_turn(campaign, turn_number, "store orders for")
    if campaign.status != Campaign.Status.ACTIVE:
        raise TurnClosed(f"{round_label(checked_turn)} is not taking orders")
    try:
        preview = preview_orders(empire=empire, raw=raw)
    except ActionError:
        _open_turn(campaign, lock=False)  # orders for a closed turn are refused as such (409), valid or not
        raise
    if not ready:
        # Revising stored orders (the common case): one statement, atomic on its own.
        row = _revise_orders(empire, checked_turn, raw, ready)
        if row is not None:
            return row, preview
    with transaction.atomic():
        # The turn row lock orders the store after (or before) processing, never during it.
        row, turn = _store_orders(empire, checked_turn, raw, ready)
        if row.ready:
            _enqueue_if_all_ready(turn)  # turn workflow: the last player ready starts the turn
    return row, preview


def _revise_orders(empire: Empire, number: int, raw, ready: bool | None) -> TurnOrders | None:
    """Replace the empire's stored orders for turn ``number`` if that turn is open, in one UPDATE
    whose sub-select locks the turn row (PostgreSQL; SQLite writes one at a time anyway): a turn
    being processed holds that lock, and once it is released the turn is no longer open, so the
    orders are either in the turn or not stored. None when nothing was updated (the turn is not
    open, or the empire has no orders yet): the caller takes the locked path, which says which.
    Plain SQL (campaign/lookups.py): this is the site's most frequent write."""
    conn = connections[router.db_for_write(TurnOrders)]
    lock = " FOR UPDATE" if conn.features.has_select_for_update else ""
    table, field = TurnOrders._meta.db_table, TurnOrders._meta.get_field
    # received_at: a set sent by mail and received before this one never replaces it
    # (campaign/eventhorizon/actions/textorders.py).
    now = timezone.now()
    sets = ["orders = %s", "revision = revision + 1", "updated_at = %s", "received_at = %s"]
    params = [field("orders").get_db_prep_save(raw, conn), field("updated_at").get_db_prep_save(now, conn),
              field("received_at").get_db_prep_save(now, conn)]
    if ready is not None:
        sets.append("ready = %s")
        params.append(bool(ready))
    returning = conn.features.can_return_columns_from_insert  # RETURNING: PostgreSQL, SQLite ≥ 3.35
    sql = (
        f"UPDATE {table} SET {', '.join(sets)} WHERE empire_id = %s AND turn_id = "
        f"(SELECT t.id FROM {Turn._meta.db_table} t WHERE t.campaign_id = %s AND t.number = %s AND t.status = %s{lock})"
    )
    if returning:  # the orders are the ones just sent: not read back and decoded again
        sql += f" RETURNING {lookups.columns(TurnOrders, None, conn.alias, omit='orders')}"
    with conn.cursor() as cursor:
        cursor.execute(sql, [*params, empire.pk, empire.campaign_id, number, Turn.Status.OPEN])
        found = cursor.fetchone() if returning else None
        if not returning and cursor.rowcount == 1:
            cursor.execute(f"SELECT {lookups.columns(TurnOrders, 'o', conn.alias)} FROM {table} o "
                           f"JOIN {Turn._meta.db_table} t ON t.id = o.turn_id "
                           f"WHERE o.empire_id = %s AND t.campaign_id = %s AND t.number = %s",
                           [empire.pk, empire.campaign_id, number])
            found = cursor.fetchone()
    if found is None:
        return None
    row = (lookups.instance(TurnOrders, found, conn.alias, omit="orders", omitted=raw) if returning
           else lookups.instance(TurnOrders, found, conn.alias))
    row._state.fields_cache["empire"] = empire
    return row


def _store_orders(empire: Empire, number: int, raw, ready: bool | None) -> tuple[TurnOrders, Turn]:
    """Under the lock of turn ``number``'s row, store ``raw`` as the empire's orders (revision + 1;
    ``ready`` None keeps the flag). Refuses a turn that is not open (TurnClosed)."""
    conn = connections[router.db_for_write(TurnOrders)]
    lock = " FOR UPDATE" if conn.features.has_select_for_update else ""
    with conn.cursor() as cursor:
        cursor.execute(f"SELECT {lookups.columns(Turn, 't', conn.alias)} FROM {Turn._meta.db_table} t "
                       f"WHERE t.campaign_id = %s AND t.number = %s{lock}", [empire.campaign_id, number])
        found = cursor.fetchone()
    turn = lookups.instance(Turn, found, conn.alias) if found else None
    if turn is None or turn.status != Turn.Status.OPEN:
        raise TurnClosed(f"{round_label(number)} is not taking orders")
    turn._state.fields_cache["campaign"] = empire.campaign
    # Under the turn lock nobody else writes this row: its revision is ours to count.
    row = _revise_orders(empire, number, raw, ready)
    if row is None:  # the empire's first orders this turn
        row = TurnOrders.objects.create(turn=turn, empire=empire, orders=raw, ready=bool(ready),
                                        received_at=timezone.now())
    row._state.fields_cache.update(turn=turn, empire=empire)
    return row, turn


# The turn's everyone-ready mark (``Turn.everyone_ready``, a platform field the due sweep reads) is
# noted by the platform's helper, which the moderator's substitution calls too.
_note_ready = _note_everyone_ready


def _enqueue_if_all_ready(turn: Turn) -> bool:
    """The last player to mark ready starts processing at once (on commit; with no broker the
    task runs in that request). A paused campaign waits for the moderator (the turn is noted
    ready, so the sweep takes it once the campaign is resumed)."""
    from campaign.tasks import process_turn as task

    if not _note_ready(turn) or turn.campaign.paused:
        return False
    # robust: in eager mode a failing turn is logged, not turned into the ready request's 500.
    transaction.on_commit(lambda c=turn.campaign_id, n=turn.number: task.delay(c, n), robust=True)
    return True


@transaction.atomic
def mark_ready(empire_id: int, ready: bool, *, turn_number: int | None = None) -> TurnOrders:
    """A player says they are done with the open turn (or not: un-ready is allowed until the
    turn is processed). Ready with no orders written stores the empty order set ("hold").

    ``turn_number`` names the turn meant (the page and the API always send it): a repeat of a
    ready mark already stored for a turn processed since answers with that mark and changes
    nothing; any other request for a turn that is not open is refused (StaleTurn, 409). None
    acts on whatever turn is open (scripts and tests)."""
    empire = Empire.objects.get(pk=empire_id)
    # Locking order (campaign/locks.py): the campaign row, then the turn row, then the orders
    # row; process_turn takes the same two first, so a ready mark waits for a turn being
    # processed (and it for the ready mark), never both for each other.
    campaign = locks.campaign(empire.campaign_id)
    empire.campaign = campaign
    doing = "mark ready for" if ready else "withdraw the ready mark of"
    if turn_number is not None:
        done = TurnOrders.objects.filter(turn__campaign=campaign, turn__number=turn_number, empire=empire,
                                         ready=bool(ready)).exclude(turn__status=Turn.Status.OPEN).first()
        if done is not None:
            return done  # a repeated request: the mark it asks for was in the turn when processed
        if turn_number != campaign.turn:
            raise _stale_turn(campaign, turn_number, doing)
    if empire.eliminated:
        raise ActionError("your empire has been eliminated")
    if empire.is_bot:
        raise ActionError("your seat is played by the computer: take it back first")
    # Under the turn row lock exactly one of two players marking ready at once sees everyone ready.
    try:
        turn = _open_turn(campaign, lock=True)
    except TurnClosed:
        if turn_number is None:
            raise
        raise _stale_turn(campaign, turn_number, doing) from None
    if not ready and not TurnOrders.objects.filter(turn=turn, empire=empire).exists():
        return TurnOrders(turn=turn, empire=empire, orders={}, ready=False, revision=0)  # nothing sent, nothing stored
    row, created = locks.rows(TurnOrders.objects).get_or_create(
        turn=turn, empire=empire, defaults={"orders": {}, "ready": bool(ready)}
    )
    if not created and row.ready != bool(ready):
        row.ready = bool(ready)
        row.save(update_fields=["ready", "updated_at"])
    if row.ready:
        _enqueue_if_all_ready(turn)
    else:
        _note_ready(turn)  # a mark withdrawn: the turn is no longer everyone-ready
    return row


@transaction.atomic
def take_back_seat(empire_id: int) -> Empire:
    """A player takes back the seat the computer played while they were away. Their seat is a
    human's again and not ready, so the open turn's everyone-ready mark is noted again."""
    campaign_id = Empire.objects.filter(pk=empire_id).values_list("campaign_id", flat=True).get()
    # Locking order (campaign/locks.py): the campaign row, the open turn's row (its ready mark
    # changes), then the empire's.
    campaign = locks.campaign(campaign_id)
    turn = locks.turn(campaign_id, campaign.turn, status=Turn.Status.OPEN)
    empire = locks.rows(Empire.objects.filter(pk=empire_id)).get()
    empire.campaign = campaign
    if not empire.auto_bot:
        raise ActionError("this seat is not being played by the computer for missed turns")
    if empire.user_id is None:
        raise ActionError("this seat has no player to take it back")
    if empire.eliminated:
        raise ActionError("this empire has been eliminated")
    empire.is_bot = empire.auto_bot = False
    empire.missed_turns = 0
    empire.save(update_fields=["is_bot", "auto_bot", "missed_turns"])
    if turn is not None:
        # Orders the computer already wrote for the open turn stay as a draft, not as "ready";
        # the turn is no longer everyone-ready.
        TurnOrders.objects.filter(empire=empire, turn=turn).update(ready=False)
        turn.campaign = campaign
        _note_ready(turn)
    return empire
