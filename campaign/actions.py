"""Every change of campaign state goes through a function here.

Each action is atomic; views, API viewsets, tasks and management commands only validate their
input, call one action and render the result. Actions raise ``ActionError`` (or a subclass)
with a message for people; nothing is written when they do.
"""

from __future__ import annotations

from django.db import connections, router, transaction
from django.db.models import F
from django.utils import timezone

from . import adapters, locks, lookups, versioning
from .bulk import insert_rows
from .dice import CampaignDice
from .models import (
    COLOUR_PALETTE,
    Campaign,
    Design,
    Empire,
    MapCell,
    Membership,
    Structure,
    Turn,
    TurnOrders,
    World,
)
from .rules.dice import derive_seed, new_seed, seed_hash
from .rules.eventhorizon import economy as eh_economy
from .rules.eventhorizon import mapgen, victory
from .rules.eventhorizon import turn as turn_engine
from .rules.eventhorizon.bots import bot_orders
from .rules.eventhorizon.designs import DesignError, validate_design
from .rules.eventhorizon.orders import (
    OrderError,
    Preview,
    orders_to_json,
    parse_orders,
)
from .rules.eventhorizon.preview import check_round_orders
from .rules.eventhorizon.setup import SETUP_TURN, resolve_setup
from .rules.grid import GridError, make_grid

MIN_PLAYERS, MAX_PLAYERS = 2, 8
DEFAULT_OPTIONS = {"economy_types": True, "steered_drift": False}
# Options a moderator may switch while the campaign runs (RULINGS: "A moderator may switch any
# ruling marked (option) per campaign"); economy types are rolled with the map and stay.
SWITCHABLE_OPTIONS = frozenset({"steered_drift"})


class ActionError(ValueError):
    """A refused action; the message names the problem. Nothing was changed."""


class OrdersRefused(ActionError):
    """Orders with problems: ``problems`` lists every one (where, rule, message), the message
    all of them, one a line."""

    def __init__(self, error: OrderError):
        super().__init__(str(error))
        self.problems = [p.as_dict() for p in error.problems]


def _seed_bytes(seed: str | bytes | None) -> bytes:
    if seed is None:
        return new_seed()
    if isinstance(seed, bytes):
        return seed
    return derive_seed(str(seed))


@transaction.atomic
def create_campaign(
    *,
    name: str,
    grid: str = "hex",
    width: int,
    height: int,
    players: int,
    seed: str | bytes | None = None,
    moderator=None,
    options: dict | None = None,
    empire_names: list[str] | None = None,
) -> Campaign:
    """Create an Event Horizon campaign: map and worlds from the dice ("003 Creating a Map"),
    home worlds, 240 BP and a home dockyard per player ("003 Set Up"). The campaign is ACTIVE at
    once, in its set-up round (turn 0, no deadline), where each empire spends its 240 BP (the
    command-line and demo path; the lobby uses ``create_lobby`` and ``start_campaign``)."""
    name, board, opts = _check_setup(name=name, grid=grid, width=width, height=height, players=players,
                                     options=options)
    names = list(empire_names or [])
    if len(names) > players:
        raise ActionError(f"{len(names)} empire names given for {players} players")

    seed_raw = _seed_bytes(seed)
    campaign = Campaign.objects.create(
        name=name, grid=board.kind, width=board.width, height=board.height, options=opts,
        dice_seed=seed_raw.hex(), seed_hash=seed_hash(seed_raw), moderator=moderator,
        status=Campaign.Status.ACTIVE, turn=SETUP_TURN, seats=players,
    )
    if moderator is not None:
        Membership.objects.create(campaign=campaign, user=moderator, role=Membership.Role.MODERATOR)
    _generate_campaign(campaign, board, [
        {"name": names[seat - 1] if seat <= len(names) else f"Empire {seat}",
         "colour": COLOUR_PALETTE[(seat - 1) % len(COLOUR_PALETTE)]}
        for seat in range(1, players + 1)
    ])
    return campaign


def _check_setup(*, name, grid, width, height, players, options) -> tuple[str, object, dict]:
    """Validate a new campaign's name, map and options: (name, grid, options with defaults)."""
    name = (name or "").strip()
    if not name:
        raise ActionError("a campaign needs a name")
    if len(name) > Campaign._meta.get_field("name").max_length:
        raise ActionError(f"a campaign name has at most {Campaign._meta.get_field('name').max_length} characters")
    if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ActionError(f"a campaign needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    try:
        board = make_grid(grid, width, height)
    except GridError as exc:
        raise ActionError(str(exc)) from None
    unknown = set(options or {}) - set(DEFAULT_OPTIONS)
    if unknown:
        raise ActionError(f"unknown campaign option(s): {', '.join(sorted(unknown))}")
    opts = {**DEFAULT_OPTIONS, **(options or {})}
    return name, board, opts


def _generate_campaign(campaign: Campaign, board, seats: list[dict], *, deadline=None) -> list[Empire]:
    """Roll the map ("003 Creating a Map"), place the home worlds and give each seat an empire
    with 240 BP and a home dockyard ("003 Set Up"), roll the purpose and open the set-up round
    (turn 0, closing at ``deadline``) in which the 240 BP are spent before turn 1. ``seats``
    holds each seat's Empire fields (name, colour, and optionally user, faction, is_bot) in seat
    order. Shared by ``create_campaign`` and the lobby's ``start_campaign``."""
    dice = CampaignDice(campaign, phase="setup", turn=0)
    try:
        generated = mapgen.generate_map(
            board, len(seats), dice, economy_types=bool(campaign.options.get("economy_types", True))
        )
    except mapgen.MapError as exc:
        # Roll back the campaign row too: a refused map changes nothing.
        transaction.set_rollback(True)
        raise ActionError(str(exc)) from None

    _store_map(campaign, generated)
    Empire.objects.bulk_create([
        Empire(campaign=campaign, seat=seat, bp=eh_economy.STARTING_BP, **fields)
        for seat, fields in enumerate(seats, start=1)
    ])
    empires = list(campaign.empires.order_by("seat"))
    structures = []
    for empire, (hx, hy) in zip(empires, generated.home_worlds, strict=True):
        World.objects.filter(campaign=campaign, x=hx, y=hy).update(owner=empire, home_of=empire)
        structures.append(
            Structure(campaign=campaign, owner=empire, number=empire.seat, resource="dockyard",
                      x=hx, y=hy, built_turn=0)
        )
    Structure.objects.bulk_create(structures)
    versioning.bump(campaign.pk)  # bulk writes send no signals (campaign/versioning.py)
    campaign.purpose = victory.roll_purpose(dice)
    campaign.save(update_fields=["purpose"])
    dice.commit()
    campaign.turn = SETUP_TURN
    campaign.save(update_fields=["turn"])
    Turn.objects.create(campaign=campaign, number=SETUP_TURN, deadline=deadline)
    return empires


def _store_map(campaign: Campaign, generated) -> None:
    board = generated.grid
    planet, colony = mapgen.Terrain.PLANET, mapgen.Terrain.COLONY
    cells = []
    worlds = []
    for index, terrain in enumerate(generated.terrain):
        x, y = board.coord(index)
        cells.append((campaign.pk, x, y, terrain.value))
        if terrain is planet or terrain is colony:
            economy = generated.economy_of((x, y)) if terrain is planet else None
            worlds.append((campaign.pk, x, y, terrain.value, economy.value if economy else ""))
    insert_rows(MapCell, ["campaign", "x", "y", "terrain"], cells)
    insert_rows(World, ["campaign", "x", "y", "kind", "economy"], worlds)


@transaction.atomic
def save_design(*, spec: dict, campaign: Campaign | None = None, empire: Empire | None = None,
                description: str = "") -> Design:
    """Validate and store a ship design ("003 Star Ship Design Rules"). In a campaign the
    empire's researched technologies gate the advanced components."""
    try:
        design = adapters.design_from_spec(spec)
        technologies = adapters.empire_technologies(empire) if campaign is not None else None
        validate_design(design, technologies)
    except DesignError as exc:
        raise ActionError(str(exc)) from None
    if empire is not None and campaign is not None and empire.campaign_id != campaign.pk:
        raise ActionError("that empire is not in this campaign")
    if Design.objects.filter(campaign=campaign, empire=empire, name=design.name).exists():
        raise ActionError(f"a design named '{design.name}' already exists")
    return Design.objects.create(
        campaign=campaign, empire=empire, name=design.name, ship_type=design.ship_type.value,
        bp=design.bp, spec=design.to_dict(), description=description,
    )


class TurnClosed(ActionError):
    """Orders arrived for a turn that is no longer taking them (HTTP 409)."""


class StaleTurn(TurnClosed):
    """A "do it now" request named a turn that is not the one it would act on: processed
    meanwhile, not open yet, or rolled back (HTTP 409). The message names the current turn."""


def _stale_turn(campaign: Campaign, asked: int, doing: str) -> StaleTurn:
    """Issue 14: every "do it now" request names its turn, so a double click or a retried request
    acts once. This is the refusal of the repeat, naming where the campaign is now."""
    turn = Turn.objects.filter(campaign=campaign, number=campaign.turn).first()
    where = f"turn {campaign.turn}" + (f" ({turn.get_status_display().lower()})" if turn is not None else "")
    if campaign.status == Campaign.Status.FINISHED:
        where = f"the campaign has finished (last turn {campaign.turn})"
    elif campaign.status != Campaign.Status.ACTIVE:
        where = f"the campaign is {campaign.get_status_display().lower()}"
    else:
        where = f"the current turn is {where}"
    if asked < campaign.turn:
        return StaleTurn(f"cannot {doing} turn {asked}: it has been processed already; {where}")
    if asked > campaign.turn:
        return StaleTurn(f"cannot {doing} turn {asked}: there is no such turn yet; {where}")
    return StaleTurn(f"cannot {doing} turn {asked}: it is not open; {where}")


def _open_turn(campaign: Campaign, *, lock: bool) -> Turn:
    """The campaign's open turn; ``lock`` takes its row (locking order: the caller took the
    campaign row first if it needs it, campaign/locks.py)."""
    turn = locks.turn(campaign.pk, campaign.turn) if lock else Turn.objects.filter(
        campaign=campaign, number=campaign.turn).first()
    if turn is None or turn.status != Turn.Status.OPEN or campaign.status != Campaign.Status.ACTIVE:
        raise TurnClosed(f"turn {campaign.turn} is not taking orders")
    return turn


def preview_orders(*, empire: Empire, raw) -> Preview:
    """Validate orders without storing them: the preview players see while writing."""
    state, names = adapters.state_for_orders(empire.campaign)
    try:
        # Set-up purchases in the set-up round, turn orders (with their warnings) afterwards.
        return check_round_orders(state, empire.seat, raw, names[empire.seat])
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
        raise TurnClosed(f"turn {checked_turn} is not taking orders")
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
    sets = ["orders = %s", "revision = revision + 1", "updated_at = %s"]
    params = [field("orders").get_db_prep_save(raw, conn), field("updated_at").get_db_prep_save(timezone.now(), conn)]
    if ready is not None:
        sets.append("ready = %s")
        params.append(bool(ready))
    returning = conn.features.can_return_columns_from_insert  # RETURNING: PostgreSQL, SQLite ≥ 3.35
    sql = (f"UPDATE {table} SET {', '.join(sets)} WHERE empire_id = %s AND turn_id = "
           f"(SELECT t.id FROM {Turn._meta.db_table} t WHERE t.campaign_id = %s AND t.number = %s AND t.status = %s{lock})")
    if returning:
        sql += f" RETURNING {lookups.columns(TurnOrders, None, conn.alias)}"
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
    row = lookups.instance(TurnOrders, found, conn.alias)
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
        raise TurnClosed(f"turn {number} is not taking orders")
    turn._state.fields_cache["campaign"] = empire.campaign
    # Under the turn lock nobody else writes this row: its revision is ours to count.
    row = _revise_orders(empire, number, raw, ready)
    if row is None:  # the empire's first orders this turn
        row = TurnOrders.objects.create(turn=turn, empire=empire, orders=raw, ready=bool(ready))
    row._state.fields_cache.update(turn=turn, empire=empire)
    return row, turn


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
        from tactical import lifecycle  # battles (issue 5): a turn may wait for battles fought as games

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
    """The rest of a turn that waited for its battles, once all are settled (tactical/lifecycle.py):
    the battles' results in order (auto-resolve for the others), builds, trade, victory, income.
    The caller holds the campaign row lock."""
    from dataclasses import replace as _replace

    from tactical import lifecycle

    state = adapters.load_state(campaign)
    pending = turn.pending or {}
    state = _replace(state, repairs=tuple(tuple(r) for r in pending.get("repairs", [])))
    battles = tuple(lifecycle.battle_from_json(b) for b in pending.get("battles", []))
    dice = CampaignDice(campaign, phase="turn", turn=turn.number)
    rest = turn_engine.complete_turn(state, battles, lifecycle.results_for(campaign, turn), dice,
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
    transaction.on_commit(lambda c=campaign.pk, n=number: enqueue_turn_notifications(c, n), robust=True)  # notifications
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


def due_turns(now=None):
    """Open turns that should be processed: every active player has marked ready, or the
    deadline has passed (RULINGS "Simultaneous orders": ready or deadline)."""
    now = now or timezone.now()
    due = []
    turns = Turn.objects.filter(
        status=Turn.Status.OPEN, campaign__status=Campaign.Status.ACTIVE, campaign__paused=False  # moderation: paused waits
    ).select_related("campaign")
    for turn in turns:
        if turn.number != turn.campaign.turn:
            continue
        if turn.deadline is not None and turn.deadline <= now:
            due.append(turn)
            continue
        humans = set(turn.campaign.empires.filter(eliminated=False, is_bot=False).values_list("pk", flat=True))
        ready = set(TurnOrders.objects.filter(turn=turn, ready=True).values_list("empire_id", flat=True))
        if humans and humans <= ready:
            due.append(turn)
    return due


def enqueue_due_turns(now=None) -> int:
    """Enqueue a turn task for every due turn, after the current transaction commits."""
    from .tasks import process_turn as task

    turns = due_turns(now)
    for turn in turns:
        transaction.on_commit(lambda c=turn.campaign_id, n=turn.number: task.delay(c, n), robust=True)
    return len(turns)


def event_json(event) -> dict:
    return {"step": event.step, "kind": event.kind, "seats": list(event.seats), "text": event.text,
            "data": dict(event.data), "public": event.public}


@transaction.atomic
def import_campaign(doc) -> Campaign:
    """Create a campaign from an export document (docs/export-format.md). The document is
    checked whole first (map, seats, designs, the dice log's chain and rolls), so a malformed
    file changes nothing."""
    from django.contrib.auth import get_user_model

    from .exchange import ExchangeError, parse_export

    try:
        doc = parse_export(doc)
    except ExchangeError as exc:
        raise ActionError(f"import refused: {exc}") from None
    users = {u.username: u for u in get_user_model().objects.all().only("id", "username")}
    c = doc["campaign"]
    campaign = Campaign.objects.create(
        name=c["name"], layer=c["layer"], grid=c["grid"], width=c["width"], height=c["height"],
        status=c["status"], turn=c["turn"], options=c["options"], moderator=users.get(c["moderator"] or ""),
        dice_seed=c["dice_seed"], seed_hash=c["seed_hash"], dice_offset=c["dice_offset"],
        purpose=c.get("purpose"), id_counters=c.get("id_counters") or {},
    )
    symbols = {t.symbol: t.value for t in mapgen.Terrain}
    insert_rows(
        MapCell, ["campaign", "x", "y", "terrain"],
        ((campaign.pk, x, y, symbols[ch]) for y, row in enumerate(doc["map"]) for x, ch in enumerate(row)),
    )
    empires = {}
    for e in doc["empires"]:
        empires[e["seat"]] = Empire.objects.create(
            campaign=campaign, seat=e["seat"], name=e["name"], colour=e["colour"],
            user=users.get(e["user"] or ""), is_bot=e["is_bot"], bp=e["bp"], technologies=e["technologies"],
            eliminated=bool(e.get("eliminated")), standing_orders=e.get("standing_orders") or {},
            trade_war=e.get("trade_war") or {},
        )
    if c.get("winner") is not None:
        campaign.winner = empires.get(c["winner"])
        campaign.save(update_fields=["winner"])
    insert_rows(
        World, ["campaign", "x", "y", "kind", "economy", "owner", "home_of", "held_out_by", "held_out_until"],
        ((campaign.pk, w["x"], w["y"], w["kind"], w.get("economy") or "",
          empires[w["owner"]].pk if w.get("owner") is not None else None, empires[w["home_of"]].pk if w.get("home_of") is not None else None,
          empires[w["held_out_by"]].pk if w.get("held_out_by") is not None else None, w.get("held_out_until"))
         for w in doc["worlds"]),
    )
    structures = {}
    for s in doc["structures"]:
        structures[s["number"]] = Structure.objects.create(
            campaign=campaign, owner=empires[s["owner"]], number=s["number"], resource=s["resource"],
            x=s["x"], y=s["y"], technology=s.get("technology") or "", built_turn=s.get("built_turn", 0),
        )
    designs = {}
    for d in doc["designs"]:
        designs[(d.get("owner"), d["spec"]["name"])] = Design.objects.create(
            campaign=campaign, empire=empires.get(d.get("owner")), name=d["spec"]["name"],
            ship_type=d["spec"]["ship_type"], bp=adapters.design_from_spec(d["spec"]).bp,
            spec=d["spec"], description=d.get("description", ""),
        )

    def design_for(ref, owner_seat):
        if ref["library"]:
            row = Design.objects.filter(campaign__isnull=True, name=ref["name"]).first()
        else:
            row = designs.get((owner_seat, ref["name"])) or designs.get((None, ref["name"]))
        if row is None:
            raise ActionError(f"import refused: no design named '{ref['name']}' for seat {owner_seat}")
        return row

    from .models import BuildOrder, DiceRoll, Fleet, Ship

    fleets = {}
    for f in doc["fleets"]:
        fleets[f["number"]] = Fleet.objects.create(
            campaign=campaign, owner=empires[f["owner"]], number=f["number"], x=f["x"], y=f["y"]
        )
    Ship.objects.bulk_create([
        Ship(campaign=campaign, owner=empires[s["owner"]], number=s["number"], name=s.get("name", ""),
             design=design_for(s["design"], s["owner"]), fleet=fleets[s["fleet"]],
             hero_crew=bool(s.get("hero_crew")), damage=s.get("damage") or {})
        for s in doc["ships"]
    ])
    for t in doc["turns"]:
        turn = Turn.objects.create(campaign=campaign, number=t["number"], status=t["status"], events=t["events"])
        TurnOrders.objects.bulk_create([
            TurnOrders(turn=turn, empire=empires[o["seat"]], orders=o.get("orders") or {},
                       ready=bool(o.get("ready")), revision=o.get("revision", 1))
            for o in t["orders"]
        ])
    for b in doc["builds"]:
        BuildOrder.objects.create(
            campaign=campaign, owner=empires[b["owner"]], dockyard=structures[b["dockyard"]],
            design=design_for(b["design"], b["owner"]), name=b.get("name", ""),
            hero_crew=bool(b.get("hero_crew")), ordered_turn=b["ordered_turn"],
            turns_remaining=b["turns_remaining"],
        )
    DiceRoll.objects.bulk_create(
        [DiceRoll(campaign=campaign, **r) for r in doc["dice_log"]], batch_size=1000
    )
    versioning.bump(campaign.pk)  # bulk writes send no signals (campaign/versioning.py)
    return campaign


# ---------------------------------------------------------------------------------------------
# Accounts.
# ---------------------------------------------------------------------------------------------

@transaction.atomic
def create_account(*, username: str, email: str, password: str, active: bool = True):
    """A new player's account (the sign-up page validates the fields first: a free user name, an
    unused email address, a password the validators accept). Refused with ActionError if the
    name or address was taken meanwhile. ``active=False``: it cannot log in until its owner
    opens the confirmation link (``sign_up``)."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    email = User.objects.normalize_email(email)
    if User.objects.select_for_update().filter(username__iexact=username).exists():
        raise ActionError(f"the user name '{username}' is taken")
    if email and User.objects.filter(email__iexact=email).exists():
        raise ActionError("an account with this email address exists already")
    return User.objects.create_user(username=username, email=email, password=password, is_active=active)


@transaction.atomic
def sign_up(*, username: str, email: str, password: str, next_url: str = "") -> None:
    """The sign-up form, answered the same whether or not the address has an account, so the
    form does not tell who has one (docs/online-play.md "Accounts"):

    - a new address: the account is made inactive and a link to confirm the address is emailed;
      opening it (``activate_account``) lets the account log in;
    - an address an account has: nothing is made; its owner is emailed that someone tried to sign
      up with it (with the log-in and password reset links — or, if that account was never
      confirmed, a new confirmation link).

    The user name is checked by the form (user names are public on the site); one taken meanwhile
    is refused with ActionError. Emails are sent once the transaction commits."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from . import accounts

    User = get_user_model()
    email = User.objects.normalize_email(email)
    existing = User.objects.filter(email__iexact=email).order_by("pk").first() if email else None
    if existing is not None:
        if User.objects.filter(username__iexact=username).exists():
            raise ActionError(f"the user name '{username}' is taken")
        make_password(password)  # the work a new account costs, so the answer's timing does not tell
        transaction.on_commit(lambda: accounts.send_signup_email(existing.pk, email, next_url,
                                                                 attempted_username=username), robust=True)
        _account_log().info("sign-up attempted with the address of user %s", existing.pk)
        return
    user = create_account(username=username, email=email, password=password, active=False)
    transaction.on_commit(lambda: accounts.send_signup_email(user.pk, email, next_url), robust=True)
    _account_log().info("user %s signed up; the address is not confirmed yet", user.pk)


@transaction.atomic
def activate_account(*, user_id: int):
    """Confirm a signed-up account's address (the emailed link was checked by the page): the
    account can log in from now on. Returns the user."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.select_for_update().filter(pk=user_id).first()
    if user is None:
        raise NotFound("no such account")
    if not user.is_active:
        user.is_active = True
        user.save(update_fields=["is_active"])
        _account_log().info("user %s confirmed their address", user.pk)
    return user


# An account has at most one API token (DRF's Token). Its owner sees when it was made, makes a new
# one (the old key stops working at once) or revokes it; a password change or reset revokes it
# (accounts.RevokeApiTokenOnPasswordChange). Accounts have no campaign, so no AuditEntry: these
# are logged on the "campaign.accounts" logger.

def _account_log():
    import logging

    return logging.getLogger("campaign.accounts")


@transaction.atomic
def rotate_api_token(*, user):
    """A new API token for the user, replacing any they had. Returns the Token (its key is shown
    to the user once)."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    if user is None or not user.is_authenticated:
        raise NotAllowed("log in to manage your API token")
    # The user row is the lock: two rotations at once make one token after the other.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    replaced = Token.objects.filter(user=user).delete()[0] > 0
    token = Token.objects.create(user=user)
    _account_log().info("API token %s for user %s", "rotated" if replaced else "created", user.pk)
    return token


@transaction.atomic
def revoke_api_token(*, user, reason: str = "revoked by its owner") -> bool:
    """Delete the user's API token; True if there was one."""
    from rest_framework.authtoken.models import Token

    if user is None or user.pk is None:
        raise NotAllowed("log in to manage your API token")
    revoked = Token.objects.filter(user_id=user.pk).delete()[0] > 0
    if revoked:
        _account_log().info("API token of user %s deleted: %s", user.pk, reason)
    return revoked


# ---------------------------------------------------------------------------------------------
# Lobby: creating a campaign in the lobby, invitations, joining, starting.
# ---------------------------------------------------------------------------------------------

LOBBY_LIMITS = {"turn_hours": (0, 24 * 365), "setup_hours": (0, 24 * 365), "detection_range": (0, 50), "missed_turn_limit": (0, 100),
                "battle_hours": (0, 24 * 90), "activation_hours": (0, 24 * 30)}
BATTLE_REQUESTS = ("nobody", "either", "both")
SEED_MAX_LENGTH = 200


class NotAllowed(ActionError):
    """The user's role in the campaign does not allow this (pages and the API answer 403)."""


class NotFound(ActionError):
    """No such campaign, member or invitation for this user (pages and the API answer 404)."""


def _new_token() -> str:
    import secrets

    # 32 random bytes are 43 URL-safe characters: the width of the token fields.
    return secrets.token_urlsafe(32)


def _whole(value, label: str, limits: tuple[int, int]) -> int:
    low, high = limits
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ActionError(f"{label} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _lobby_campaign(campaign_id: int, user, *, doing: str | None) -> Campaign:
    """The campaign row, locked. An outsider gets NotFound; with ``doing`` set, a member who is
    not a moderator gets NotAllowed naming what they tried."""
    from .access import is_moderator, role_of

    # Event Horizon only: a CAM campaign (layer "cam") has its own actions (campaign/cam/actions.py).
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).exclude(layer="cam").first()
    if campaign is None or role_of(user, campaign) is None:
        raise NotFound("no such campaign")
    if doing is not None and not is_moderator(user, campaign):
        raise NotAllowed(f"only the campaign's moderators can {doing}")
    return campaign


@transaction.atomic
def create_lobby(
    *,
    moderator,
    name: str,
    grid: str = "hex",
    width: int,
    height: int,
    seats: int,
    options: dict | None = None,
    turn_hours: int = 72,
    setup_hours: int = 72,
    battle_mode: str = Campaign.BattleMode.AUTO,
    battle_requests: str = "either",
    battle_hours: int = 48,
    activation_hours: int = 24,
    deployment: str = Campaign.Deployment.AUTOMATIC,
    fog_of_war: bool = True,
    detection_range: int = 2,
    missed_turn_limit: int = 3,
    seed: str | None = None,
    listed: bool = False,
    show_ready: bool = True,
) -> Campaign:
    """Open a campaign in the lobby (status SETUP, no map yet); its creator is its moderator.

    The map is rolled when the moderator starts the campaign. It is rolled once here as well,
    from the same seed and stream position but without logging, so a map with too few reachable
    planets for its seats is refused now rather than at the start (the start rolls the same map)."""
    from .rules.dice import SeededDice

    if moderator is None or not moderator.is_authenticated:
        raise NotAllowed("log in to create a campaign")
    name, board, opts = _check_setup(name=name, grid=grid, width=width, height=height, players=seats,
                                     options=options)
    for key, value in opts.items():
        if type(value) is not type(DEFAULT_OPTIONS[key]):
            raise ActionError(f"campaign option {key} must be {type(DEFAULT_OPTIONS[key]).__name__}, not {value!r}")
    turn_hours = _whole(turn_hours, "the turn length in hours", LOBBY_LIMITS["turn_hours"])
    setup_hours = _whole(setup_hours, "the set-up deadline in hours", LOBBY_LIMITS["setup_hours"])
    detection_range = _whole(detection_range, "the detection range", LOBBY_LIMITS["detection_range"])
    missed_turn_limit = _whole(missed_turn_limit, "the missed-turn limit", LOBBY_LIMITS["missed_turn_limit"])
    if battle_mode not in Campaign.BattleMode.values:
        raise ActionError(f"the battle mode must be one of {', '.join(Campaign.BattleMode.values)}, not {battle_mode!r}")
    if battle_requests not in BATTLE_REQUESTS:
        raise ActionError(f"who may ask for a battle mode must be one of {', '.join(BATTLE_REQUESTS)}, not {battle_requests!r}")
    battle_hours = _whole(battle_hours, "the battle deadline in hours", LOBBY_LIMITS["battle_hours"])
    activation_hours = _whole(activation_hours, "the activation deadline in hours", LOBBY_LIMITS["activation_hours"])
    if deployment not in Campaign.Deployment.values:
        raise ActionError(f"deployment must be one of {', '.join(Campaign.Deployment.values)}, not {deployment!r}")
    for label, flag in (("fog of war", fog_of_war), ("listing among the open campaigns", listed),
                        ("showing who is ready", show_ready)):
        if not isinstance(flag, bool):
            raise ActionError(f"{label} must be on or off (true or false), not {flag!r}")
    if seed is not None and not isinstance(seed, str):
        raise ActionError("the dice seed must be text")
    seed = (seed or "").strip() or None
    if seed is not None and len(seed) > SEED_MAX_LENGTH:
        raise ActionError(f"the dice seed has at most {SEED_MAX_LENGTH} characters")

    seed_raw = _seed_bytes(seed)
    try:
        mapgen.generate_map(board, seats, SeededDice(seed=seed_raw, offset=0),
                            economy_types=bool(opts["economy_types"]))
    except mapgen.MapError as exc:
        raise ActionError(f"{exc}") from None
    campaign = Campaign.objects.create(
        name=name, grid=board.kind, width=board.width, height=board.height, options=opts,
        dice_seed=seed_raw.hex(), seed_hash=seed_hash(seed_raw), moderator=moderator,
        status=Campaign.Status.SETUP, turn=1, seats=seats, turn_hours=turn_hours, setup_hours=setup_hours,
        battle_mode=battle_mode,
        battle_requests=battle_requests, battle_hours=battle_hours, activation_hours=activation_hours,
        deployment=deployment, fog_of_war=fog_of_war, detection_range=detection_range, missed_turn_limit=missed_turn_limit,
        invite_token=_new_token(), listed=listed, show_ready=show_ready,
    )
    Membership.objects.create(campaign=campaign, user=moderator, role=Membership.Role.MODERATOR)
    return campaign


@transaction.atomic
def set_invite_link(*, campaign_id: int, user, enabled: bool, regenerate: bool = False) -> Campaign:
    """Switch the campaign's invitation link on or off, or give it a new secret (the old link
    stops working)."""
    campaign = _lobby_campaign(campaign_id, user, doing="change the invitation link")
    if not isinstance(enabled, bool) or not isinstance(regenerate, bool):
        raise ActionError("enabled and regenerate must be true or false")
    if not enabled:
        # A listed campaign is joined through its link: no link, no listing.
        campaign.invite_token = ""
        campaign.listed = False
    elif regenerate or not campaign.invite_token:
        campaign.invite_token = _new_token()
    campaign.save(update_fields=["invite_token", "listed"])
    return campaign


@transaction.atomic
def set_listing(*, campaign_id: int, user, listed: bool) -> Campaign:
    """List the campaign among the open campaigns every user's home page shows (or take it off).
    A listed campaign is joined through its invitation link, which listing switches on."""
    campaign = _lobby_campaign(campaign_id, user, doing="list the campaign")
    if not isinstance(listed, bool):
        raise ActionError("listed must be true or false")
    campaign.listed = listed
    if listed and not campaign.invite_token:
        campaign.invite_token = _new_token()
    campaign.save(update_fields=["listed", "invite_token"])
    return campaign


def invitation_url(token: str) -> str:
    from django.conf import settings
    from django.urls import reverse

    return settings.SITE_URL.rstrip("/") + reverse("lobby-join", args=[token])


def _send_invitation(invitation_id: int) -> None:
    from django.core.mail import send_mail
    from django.template.loader import render_to_string

    from .models import Invitation

    invitation = Invitation.objects.select_related("campaign", "invited_by").get(pk=invitation_id)
    context = {"invitation": invitation, "campaign": invitation.campaign, "url": invitation_url(invitation.token)}
    send_mail(
        subject=f"Invitation to the campaign {invitation.campaign.name}",
        message=render_to_string("lobby/invitation_email.txt", context),
        from_email=None, recipient_list=[invitation.email],
    )


@transaction.atomic
def invite_by_email(*, campaign_id: int, user, email: str):
    """Invite someone by email to the lobby. The email (sent once the invitation is stored) holds
    a link with the invitation's own token, good for one join. Inviting a pending address again
    sends the same link again."""
    from django.contrib.auth.base_user import BaseUserManager
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    from .models import Invitation

    campaign = _lobby_campaign(campaign_id, user, doing="invite players")
    if campaign.status != Campaign.Status.SETUP:
        raise ActionError("the campaign has started: invitations are for the lobby")
    email = BaseUserManager.normalize_email((email or "").strip()) if isinstance(email, str) else ""
    try:
        validate_email(email)
    except ValidationError:
        raise ActionError(f"{email!r} is not an email address") from None
    if campaign.memberships.filter(user__email__iexact=email).exists():
        raise ActionError(f"{email} already belongs to a member of this campaign")
    invitation = campaign.invitations.filter(email__iexact=email, accepted_at__isnull=True).first()
    if invitation is None:
        invitation = Invitation.objects.create(campaign=campaign, email=email, token=_new_token(), invited_by=user)
    # robust: a mail server that is down is logged; the invitation stays and can be sent again.
    transaction.on_commit(lambda pk=invitation.pk: _send_invitation(pk), robust=True)
    return invitation


def _masked(email: str) -> str:
    local, _, domain = email.partition("@")
    return f"{local[:1]}…@{domain}"


def invitation_refusal(invitation, user) -> str | None:
    """Why ``user`` may not accept this emailed invitation, or None. An emailed invitation is for
    the account with the address it was sent to (ignoring case): the link in someone's mailbox
    does not let whoever it is forwarded to — or whoever reads it over a shoulder — take the
    seat. The campaign's shareable link stays open to anyone logged in who has it."""
    if invitation is None:
        return None
    if (user.email or "").strip().casefold() == invitation.email.strip().casefold():
        return None
    return (f"this invitation was emailed to {_masked(invitation.email)} and is for the account with that "
            "address: log in to that account (or sign up with that address), or ask the moderator for "
            "an invitation to your own address or for the campaign's invitation link")


@transaction.atomic
def join_campaign(*, user, token: str, role: str = Membership.Role.PLAYER, empire_name: str = "",
                  faction: str = "", colour: str = "") -> Membership:
    """Join a campaign in the lobby with its invitation link or an emailed invitation: as a player
    (empire name, faction and a colour no other player has; refused when every seat is taken) or
    as an observer. An emailed invitation is only for the account with its address
    (``invitation_refusal``); the campaign's link is for anyone who has it."""
    from .models import Invitation

    if not user.is_authenticated:
        raise NotAllowed("log in to join a campaign")
    token = token.strip() if isinstance(token, str) else ""
    invalid = NotFound("no such invitation: the link is wrong, switched off or already used")
    if not token:
        raise invalid
    # Lock the campaign first on both paths, so joins (and the start) are serialised per campaign.
    campaign = Campaign.objects.select_for_update().filter(invite_token=token).first()
    invitation = None
    if campaign is None:
        found = Invitation.objects.filter(token=token, accepted_at__isnull=True).values_list("campaign_id", flat=True).first()
        if found is None:
            raise invalid
        campaign = Campaign.objects.select_for_update().get(pk=found)
        invitation = locks.rows(Invitation.objects.filter(token=token, accepted_at__isnull=True)).first()
        if invitation is None:
            raise invalid
        refusal = invitation_refusal(invitation, user)
        if refusal is not None:
            raise NotAllowed(refusal)
    if campaign.status != Campaign.Status.SETUP:
        raise ActionError("this campaign has already started: ask its moderator about a seat")
    existing = campaign.memberships.filter(user=user).first()
    if existing is not None or campaign.moderator_id == user.pk:
        role_name = existing.get_role_display().lower() if existing else "moderator"
        raise ActionError(f"you are already in this campaign, as {role_name}")

    if role == Membership.Role.PLAYER:
        empire_name = empire_name.strip() if isinstance(empire_name, str) else ""
        faction = faction.strip() if isinstance(faction, str) else ""
        colour = colour.strip().lower() if isinstance(colour, str) else ""
        if not empire_name:
            raise ActionError("choose a name for your empire")
        if len(empire_name) > 80 or len(faction) > 80:
            raise ActionError("an empire name and a faction have at most 80 characters")
        if colour not in COLOUR_PALETTE:
            raise ActionError(f"choose one of the colours {', '.join(COLOUR_PALETTE)}, not {colour!r}")
        players = campaign.memberships.filter(role=Membership.Role.PLAYER)
        if players.count() >= campaign.seats:
            raise ActionError(f"the campaign is full: all {campaign.seats} seats are taken (you can join as an observer)")
        if players.filter(colour=colour).exists():
            raise ActionError(f"another player has the colour {colour}: choose another")
        if players.filter(empire_name__iexact=empire_name).exists():
            raise ActionError(f"another player's empire is called {empire_name}: choose another name")
    elif role == Membership.Role.OBSERVER:
        empire_name = faction = colour = ""
    else:
        raise ActionError(f"join as 'player' or 'observer', not {role!r}")
    membership = Membership.objects.create(campaign=campaign, user=user, role=role, empire_name=empire_name,
                                           faction=faction, colour=colour)
    if invitation is not None:
        invitation.accepted_by = user
        invitation.accepted_at = timezone.now()
        invitation.save(update_fields=["accepted_by", "accepted_at"])
    return membership


@transaction.atomic
def add_moderator(*, campaign_id: int, user, username: str) -> Membership:
    """A moderator makes another user a co-moderator (an observer is promoted; a player cannot
    also moderate)."""
    from django.contrib.auth import get_user_model

    campaign = _lobby_campaign(campaign_id, user, doing="add moderators")
    username = username.strip() if isinstance(username, str) else ""
    target = get_user_model()._default_manager.filter(username=username).first() if username else None
    if target is None:
        raise ActionError(f"there is no user called {username!r}")
    membership = campaign.memberships.filter(user=target).first()
    if membership is None and campaign.empires.filter(user=target).exists():
        # A seat holder of a campaign made on the command line has no membership row (ruling L4).
        raise ActionError(f"{username} plays in this campaign: a player cannot also moderate it")
    if membership is None:
        return Membership.objects.create(campaign=campaign, user=target, role=Membership.Role.MODERATOR)
    if membership.role == Membership.Role.MODERATOR:
        raise ActionError(f"{username} is already a moderator of this campaign")
    if membership.role == Membership.Role.PLAYER or campaign.empires.filter(user=target).exists():
        raise ActionError(f"{username} plays in this campaign: a player cannot also moderate it")
    membership.role = Membership.Role.MODERATOR
    membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def remove_member(*, campaign_id: int, user, membership_id: int) -> None:
    """Before the start a moderator removes a member (or a member leaves). The campaign's creator
    stays."""
    from .access import is_moderator

    campaign = _lobby_campaign(campaign_id, user, doing=None)
    membership = campaign.memberships.filter(pk=membership_id).select_related("user").first()
    if membership is None:
        raise NotFound("no such member")
    if membership.user_id != user.pk and not is_moderator(user, campaign):
        raise NotAllowed("only the campaign's moderators can remove members")
    if campaign.status != Campaign.Status.SETUP:
        raise ActionError("the campaign has started: members can no longer be removed (a moderator can substitute a player)")
    if membership.user_id == campaign.moderator_id:
        raise ActionError("the campaign's creator cannot be removed")
    membership.delete()


@transaction.atomic
def start_campaign(*, campaign_id: int, user, now=None) -> Campaign:
    """The moderator starts the campaign: the map is rolled for every seat ("003 Creating a Map",
    "Set Up"); joined players take seats 1, 2, … in the order they joined, with the name, faction
    and colour they chose; seats nobody took are computer players. The set-up round opens with
    its deadline ``setup_hours`` from now (none when 0); turn 1 follows when it closes."""
    campaign = _lobby_campaign(campaign_id, user, doing="start the campaign")
    if campaign.status != Campaign.Status.SETUP:
        raise ActionError("the campaign has already started")
    players = list(campaign.memberships.filter(role=Membership.Role.PLAYER).order_by("joined_at", "id"))
    if not players:
        raise ActionError("nobody has joined as a player yet: a campaign needs at least one human player")
    if len(players) > campaign.seats:
        raise ActionError(f"{len(players)} players have joined but the campaign has {campaign.seats} seats")
    try:
        board = make_grid(campaign.grid, campaign.width, campaign.height)
    except GridError as exc:
        raise ActionError(str(exc)) from None
    free_colours = [c for c in COLOUR_PALETTE if c not in {m.colour for m in players}]
    seats = [
        {"name": m.empire_name, "faction": m.faction, "colour": m.colour, "user_id": m.user_id, "is_bot": False}
        for m in players
    ]
    taken_names = {m.empire_name.casefold() for m in players}
    for seat in range(len(players) + 1, campaign.seats + 1):
        name = f"Empire {seat}" if f"empire {seat}" not in taken_names else f"Computer empire {seat}"
        seats.append({"name": name, "colour": free_colours.pop(0), "is_bot": True})
    empires = _generate_campaign(campaign, board, seats, deadline=setup_deadline(campaign, now))
    for membership, empire in zip(players, empires, strict=False):
        membership.empire = empire
        membership.save(update_fields=["empire"])
    campaign.status = Campaign.Status.ACTIVE
    campaign.save(update_fields=["status"])
    return campaign


# ---------------------------------------------------------------------------------------------
# Turn workflow: orders on the web, ready, missed turns.
# ---------------------------------------------------------------------------------------------


def turn_deadline(campaign: Campaign, now=None):
    """When a turn opened now must be in: ``turn_hours`` from now, or None (no deadline)."""
    from datetime import timedelta

    if not campaign.turn_hours:
        return None
    return (now or timezone.now()) + timedelta(hours=campaign.turn_hours)


def setup_deadline(campaign: Campaign, now=None):
    """When the set-up round opened now closes: ``setup_hours`` from now, or None."""
    from datetime import timedelta

    if not campaign.setup_hours:
        return None
    return (now or timezone.now()) + timedelta(hours=campaign.setup_hours)


def _all_humans_ready(turn: Turn) -> bool:
    humans = set(turn.campaign.empires.filter(eliminated=False, is_bot=False).values_list("pk", flat=True))
    ready = set(TurnOrders.objects.filter(turn=turn, ready=True).values_list("empire_id", flat=True))
    return bool(humans) and humans <= ready


def _enqueue_if_all_ready(turn: Turn) -> bool:
    """The last player to mark ready starts processing at once (on commit; with no broker the
    task runs in that request). A paused campaign waits for the moderator."""
    from .tasks import process_turn as task

    if turn.campaign.paused or not _all_humans_ready(turn):
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
    return row


@transaction.atomic
def take_back_seat(empire_id: int) -> Empire:
    """A player takes back the seat the computer played while they were away."""
    campaign_id = Empire.objects.filter(pk=empire_id).values_list("campaign_id", flat=True).get()
    campaign = locks.campaign(campaign_id)  # locking order: the campaign row before the empire's
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
    # Orders the computer already wrote for the open turn stay as a draft, not as "ready".
    TurnOrders.objects.filter(
        empire=empire, turn__number=empire.campaign.turn, turn__status=Turn.Status.OPEN
    ).update(ready=False)
    return empire


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


# ---------------------------------------------------------------------------------------------
# Moderation: pause, resume, extend, process now, roll back, substitute, audit log.
# ---------------------------------------------------------------------------------------------

# A moderator's actions are refused to everyone else (NotAllowed: 403; outsiders NotFound: 404),
# take the campaign row lock (so they wait for a turn being processed, and it for them) and are
# each recorded in the audit log (AuditEntry: who, when, what, before, after).

MAX_EXTENSION_HOURS = 24 * 30
# Fields never copied into the audit log: secrets (the log opens to players at the end, and
# moderators must not learn the dice seed early) and bulky internals.
AUDIT_SKIPPED_FIELDS = {"dice_seed", "invite_token", "token", "snapshot"}  # secrets and snapshots


def _moderated_campaign(campaign_id: int, user, *, doing: str) -> Campaign:
    """The campaign row, locked; outsiders get NotFound, other members NotAllowed. ``user``
    None is the site itself (a management command)."""
    from .access import is_moderator, role_of

    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).exclude(layer="cam").first()
    if campaign is None or (user is not None and role_of(user, campaign) is None):
        raise NotFound("no such campaign")
    if user is not None and not is_moderator(user, campaign):
        raise NotAllowed(f"only the campaign's moderators can {doing}")
    return campaign


def _jsonable(value):
    import json

    from django.core.serializers.json import DjangoJSONEncoder

    return None if value is None else json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def _audit(campaign: Campaign, user, action: str, target: str, before=None, after=None, note: str = ""):
    from .models import AuditEntry

    return AuditEntry.objects.create(
        campaign=campaign, user=user if user is not None and user.is_authenticated else None, action=action,
        target=target[:120], before=_jsonable(before), after=_jsonable(after), note=note,
    )


def audit_fields(instance) -> dict:
    """A model row as the audit log shows it: every stored field (foreign keys as ids), minus
    secrets and snapshots."""
    return _jsonable({
        f.attname: f.value_from_object(instance)
        for f in instance._meta.concrete_fields if f.name not in AUDIT_SKIPPED_FIELDS
    })


def _seconds(delta) -> int | None:
    return None if delta is None else int(delta.total_seconds())


def _store_turn_snapshot(campaign: Campaign, turn: Turn) -> None:
    """Keep the campaign's state before ``turn`` is resolved in Turn.snapshot (process_turn
    calls this; roll_back_turn restores it; format in docs/online-play.md)."""
    from . import snapshots

    snapshots.store(campaign, turn)


def _current_turn(campaign: Campaign, *, lock: bool = False) -> Turn | None:
    if lock:  # the caller holds the campaign row (locking order, campaign/locks.py)
        return locks.turn(campaign.pk, campaign.turn)
    return Turn.objects.filter(campaign=campaign, number=campaign.turn).first()


@transaction.atomic
def pause_campaign(*, campaign_id: int, user, now=None) -> Campaign:
    """Stop the clock: no turn is processed while paused (orders are still taken). The time left
    to the deadline is kept and given back by ``resume_campaign``."""
    from datetime import timedelta

    now = now or timezone.now()
    campaign = _moderated_campaign(campaign_id, user, doing="pause the campaign")
    if campaign.status != Campaign.Status.ACTIVE:
        raise ActionError(f"only a running campaign can be paused; this one is {campaign.get_status_display().lower()}")
    if campaign.paused:
        raise ActionError("the campaign is already paused")
    turn = _current_turn(campaign)
    deadline = turn.deadline if turn is not None else None
    campaign.paused = True
    campaign.paused_remaining = max(deadline - now, timedelta(0)) if deadline is not None else None
    campaign.save(update_fields=["paused", "paused_remaining"])
    _audit(campaign, user, "pause", f"turn {campaign.turn}", {"paused": False, "deadline": deadline},
           {"paused": True, "seconds_left": _seconds(campaign.paused_remaining)})
    return campaign


@transaction.atomic
def resume_campaign(*, campaign_id: int, user, now=None) -> Campaign:
    """Restart the clock: the open turn's deadline becomes now plus the time that was left when
    the campaign was paused (no deadline if it had none). A turn whose players are all ready is
    processed at once."""
    now = now or timezone.now()
    campaign = _moderated_campaign(campaign_id, user, doing="resume the campaign")
    if not campaign.paused:
        raise ActionError("the campaign is not paused")
    turn = _current_turn(campaign, lock=True)
    before = {"paused": True, "seconds_left": _seconds(campaign.paused_remaining),
              "deadline": turn.deadline if turn is not None else None}
    if turn is not None and turn.status == Turn.Status.OPEN:
        turn.deadline = now + campaign.paused_remaining if campaign.paused_remaining is not None else None
        turn.save(update_fields=["deadline"])
    campaign.paused, campaign.paused_remaining = False, None
    campaign.save(update_fields=["paused", "paused_remaining"])
    _audit(campaign, user, "resume", f"turn {campaign.turn}", before,
           {"paused": False, "deadline": turn.deadline if turn is not None else None})
    if turn is not None and turn.status == Turn.Status.OPEN and campaign.status == Campaign.Status.ACTIVE:
        _enqueue_if_all_ready(turn)
    return campaign


@transaction.atomic
def extend_deadline(*, campaign_id: int, user, hours, now=None) -> Turn:
    """Give the players of the open turn more time: the deadline moves ``hours`` later (from now
    if it has passed or there was none). While paused, the time kept for the resume grows."""
    from datetime import timedelta

    now = now or timezone.now()
    campaign = _moderated_campaign(campaign_id, user, doing="extend the deadline")
    if isinstance(hours, bool) or not isinstance(hours, int) or not 1 <= hours <= MAX_EXTENSION_HOURS:
        raise ActionError(f"extend by a whole number of hours from 1 to {MAX_EXTENSION_HOURS}, not {hours!r}")
    turn = _current_turn(campaign, lock=True)
    if campaign.status != Campaign.Status.ACTIVE or turn is None or turn.status != Turn.Status.OPEN:
        raise ActionError("no turn is open for orders, so there is no deadline to extend")
    extra = timedelta(hours=hours)
    if campaign.paused:
        before = {"seconds_left": _seconds(campaign.paused_remaining)}
        campaign.paused_remaining = (campaign.paused_remaining or timedelta(0)) + extra
        campaign.save(update_fields=["paused_remaining"])
        after = {"seconds_left": _seconds(campaign.paused_remaining), "paused": True}
    else:
        before = {"deadline": turn.deadline}
        turn.deadline = max(turn.deadline, now) + extra if turn.deadline is not None else now + extra
        turn.save(update_fields=["deadline"])
        after = {"deadline": turn.deadline}
    _audit(campaign, user, "extend", f"turn {turn.number}", before, after, note=f"+{hours} h")
    return turn


@transaction.atomic
def process_now(*, campaign_id: int, user, turn_number: int | None = None) -> Turn:
    """The moderator processes the open turn now, whoever is ready. Computer seats write their
    orders as the turn is processed (``process_turn``, after its snapshot, so a roll-back
    returns to exactly the state before this call). Processing ends a pause.

    ``turn_number`` names the turn to process: the panel and the API always send it, so a double
    click or a retried request processes it once; the repeat is refused (StaleTurn, 409, naming
    the current turn) and changes nothing. None processes whatever turn is open (scripts, tests)."""
    campaign = _moderated_campaign(campaign_id, user, doing="process a turn")
    if turn_number is not None and turn_number != campaign.turn:
        raise _stale_turn(campaign, turn_number, "process")
    try:
        turn = _open_turn(campaign, lock=False)
    except TurnClosed:
        if turn_number is None:
            raise
        raise _stale_turn(campaign, turn_number, "process") from None
    was_paused = campaign.paused
    if was_paused:
        campaign.paused, campaign.paused_remaining = False, None
        campaign.save(update_fields=["paused", "paused_remaining"])
    ready = list(TurnOrders.objects.filter(turn=turn, ready=True).values_list("empire__seat", flat=True))
    done = process_turn(campaign_id=campaign.pk, turn_number=turn.number)
    if done is None:
        raise TurnClosed(f"turn {turn.number} is not open for processing")
    campaign.refresh_from_db(fields=["turn", "status"])
    _audit(campaign, user, "process_now", f"turn {turn.number}",
           {"turn": turn.number, "deadline": turn.deadline, "ready_seats": sorted(ready), "paused": was_paused},
           {"turn": campaign.turn, "status": campaign.status})
    return done


@transaction.atomic
def roll_back_turn(*, campaign_id: int, user, turn_number: int | None = None) -> Turn:
    """Undo the last processed turn: the campaign returns exactly to its state before it (from
    ``Turn.snapshot``), the dice log is cut back to where it stood (docs/dice.md, "Roll-back"),
    the next turn and its orders go, and the turn is open again with the orders it had. The
    campaign is left paused, so nothing is processed until the moderator resumes (players then
    get a full turn) or processes it now. ``turn_number``, when given, must be that last turn
    (a confirmation page sends it, so a turn processed meanwhile is not undone by mistake).
    A finished campaign's final turn can be rolled back: the campaign reopens."""
    from datetime import timedelta

    from . import snapshots

    campaign = _moderated_campaign(campaign_id, user, doing="roll back a turn")
    last = locks.rows(Turn.objects.filter(
        campaign=campaign, status__in=[Turn.Status.DONE, Turn.Status.BATTLES])).order_by("-number").first()
    if last is None:
        raise ActionError("no turn has been processed yet: there is nothing to roll back")
    if turn_number is not None and turn_number != last.number:
        raise StaleTurn(f"only the last processed turn ({last.number}) can be rolled back, not turn {turn_number}; "
                        f"the current turn is {campaign.turn}")
    later = list(Turn.objects.filter(campaign=campaign, number__gt=last.number).values_list("number", "status"))
    # A turn waiting for its battles has no next turn yet; rolling it back discards its battles.
    expected = [] if campaign.status == Campaign.Status.FINISHED or last.status == Turn.Status.BATTLES \
        else [(last.number + 1, Turn.Status.OPEN)]
    if later != expected or campaign.status == Campaign.Status.SETUP:
        raise ActionError(f"turn {last.number} can no longer be rolled back: the campaign has moved on since")
    if not last.snapshot:
        raise ActionError(f"turn {last.number} was processed before turns were snapshotted, so it cannot be rolled back")
    before = {"turn": campaign.turn, "status": campaign.status, "winner": campaign.winner_id,
              "dice_offset": campaign.dice_offset, "processed_at": last.processed_at}
    from tactical.models import Battle

    battles = list(Battle.objects.filter(campaign=campaign, turn__gte=last.number).values_list("pk", flat=True))
    Battle.objects.filter(pk__in=battles).delete()  # their steps and logs go with them
    before["battles"] = battles
    try:
        undone = snapshots.restore(campaign, last.snapshot)
    except snapshots.SnapshotError as exc:
        raise ActionError(f"turn {last.number} cannot be rolled back: {exc}") from None
    campaign.paused = True
    hours = campaign.setup_hours if last.number == SETUP_TURN else campaign.turn_hours  # the round reopened
    campaign.paused_remaining = timedelta(hours=hours) if hours else None
    campaign.save(update_fields=["paused", "paused_remaining"])
    dice = undone["dice"]
    # The deleted rolls are kept whole in the entry: they still chain from the remaining log, so
    # anyone can check later that what was undone was genuine (docs/dice.md, "Roll-back").
    before["dice_rolls"] = dice.pop("rows")
    _audit(campaign, user, "roll_back", f"turn {last.number}", before,
           {"turn": campaign.turn, "status": campaign.status, "dice_offset": campaign.dice_offset,
            "paused": True, **undone},
           note=(f"Dice log truncated after roll #{dice['after_seq']}: {dice['deleted']} roll(s) deleted"
                 + (f" (#{dice['first_seq']}–#{dice['last_seq']}, last hash {dice['last_hash']})" if dice["deleted"] else "")
                 + "; re-processing the turn re-rolls the same dice."))
    _notify_roll_back(campaign, last.number, user, later_orders=undone.get("discarded_orders") or 0)
    return Turn.objects.get(pk=last.pk)


def _notify_roll_back(campaign: Campaign, turn_number: int, user, *, later_orders: int) -> int:
    """Tell everyone in the campaign but the moderator who did it that a turn was rolled back
    (issue 13 item 17): once per roll-back, on commit. The caller holds the campaign row lock."""
    from . import notifications

    candidates = [
        (r, lambda r=r: notifications.rollback_email(campaign, turn_number, r, paused=campaign.paused,
                                                     later_orders=later_orders))
        for r in notifications.recipients(campaign)
        if r.wants("turn") and (user is None or r.user.pk != user.pk) and not (r.empire and r.empire.is_bot)
    ]
    kind = notifications.kind_key(notifications.ROLLBACK, notifications.stamp(timezone.now()))
    return _send_once(campaign, kind, turn_number, candidates)


@transaction.atomic
def substitute_player(*, campaign_id: int, user, seat: int, username: str, old_player: str = "observer") -> Empire:
    """Hand a seat to another person (a substitute, or someone taking a computer seat), or to the
    computer (``username`` empty). The old player's membership loses the empire and becomes an
    observer's (``old_player="observer"``) or is removed (``"remove"``). The seat's orders for
    the open turn stay, not marked ready, for the newcomer to check."""
    from django.contrib.auth import get_user_model

    from .access import is_moderator

    campaign = _moderated_campaign(campaign_id, user, doing="substitute players")
    if campaign.status != Campaign.Status.ACTIVE:
        raise ActionError("players can be substituted only while the campaign runs (in the lobby they join and leave)")
    if old_player not in ("observer", "remove"):
        raise ActionError(f"the old player either stays as an observer or is removed, not {old_player!r}")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise ActionError(f"a seat is a number, not {seat!r}")
    # No select_related("user"): PostgreSQL cannot lock the nullable side of an outer join.
    empire = locks.rows(Empire.objects.filter(campaign=campaign, seat=seat)).first()
    if empire is None:
        raise ActionError(f"this campaign has no seat {seat}")
    if empire.eliminated:
        raise ActionError(f"{empire.name} (seat {seat}) has been eliminated")
    username = username.strip() if isinstance(username, str) else ""
    new = None
    if username:
        new = get_user_model()._default_manager.filter(username=username).first()
        if new is None:
            raise ActionError(f"there is no user called {username!r}")
        if new.pk == empire.user_id:
            raise ActionError(f"{username} already plays seat {seat}")
        if is_moderator(new, campaign):
            raise ActionError(f"{username} moderates this campaign: a moderator cannot also play")
        if campaign.empires.filter(user=new).exists():
            raise ActionError(f"{username} already plays another seat in this campaign")
    elif empire.user_id is None and empire.is_bot:
        raise ActionError(f"seat {seat} is already played by the computer")
    before = {"user": empire.user.username if empire.user else None, "is_bot": empire.is_bot,
              "auto_bot": empire.auto_bot, "missed_turns": empire.missed_turns}
    old_user = empire.user
    if old_user is not None:
        membership = Membership.objects.filter(campaign=campaign, user=old_user).first()
        if old_player == "remove":
            if membership is not None:
                membership.delete()
        elif membership is None:
            Membership.objects.create(campaign=campaign, user=old_user, role=Membership.Role.OBSERVER)
        else:
            membership.role, membership.empire = Membership.Role.OBSERVER, None
            membership.save(update_fields=["role", "empire"])
    Membership.objects.filter(empire=empire).update(empire=None)  # an empire has one player's membership
    if new is not None:
        membership = Membership.objects.filter(campaign=campaign, user=new).first() or Membership(
            campaign=campaign, user=new, empire_name=empire.name, faction=empire.faction, colour=empire.colour
        )
        membership.role, membership.empire = Membership.Role.PLAYER, empire
        membership.save()
        TurnOrders.objects.filter(empire=empire, turn__number=campaign.turn, turn__status=Turn.Status.OPEN).update(ready=False)
    empire.user, empire.is_bot, empire.auto_bot, empire.missed_turns = new, new is None, False, 0
    empire.save(update_fields=["user", "is_bot", "auto_bot", "missed_turns"])
    _audit(campaign, user, "substitute", f"seat {seat} ({empire.name})", before,
           {"user": new.username if new else None, "is_bot": empire.is_bot, "auto_bot": False, "missed_turns": 0},
           note=f"old player {old_user.username if old_user else '(none)'}: "
                f"{'removed' if old_player == 'remove' else 'now an observer'}" if old_user else "")
    return empire


def _campaign_of(instance) -> Campaign | None:
    if isinstance(instance, Campaign):
        return instance
    if isinstance(instance, TurnOrders):
        return instance.turn.campaign
    return getattr(instance, "campaign", None)


@transaction.atomic
def admin_edit(*, user, instance, save=None, delete: bool = False):
    """A site admin's change to a campaign's state through the Django admin (campaign/admin.py):
    the row is saved (``save``, the admin's own save, or ``instance.save``) or deleted, and the
    change recorded in the campaign's audit log with the row before and after. Takes the campaign
    row lock, so an edit never lands in the middle of a turn being processed. Returns the audit
    entry (None for the starter design library, which belongs to no campaign, and for a deleted
    campaign, whose log goes with it)."""
    import logging

    model = type(instance)
    old = model._default_manager.filter(pk=instance.pk).first() if instance.pk is not None else None
    campaign = _campaign_of(old or instance)
    if campaign is not None and campaign.pk is not None:
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        versioning.bump(campaign.pk)  # a deletion (and what cascades from it) sends no save signal
    before = audit_fields(old) if old is not None else None
    label = model._meta.verbose_name
    if delete:
        target = f"{label} {instance.pk}: {instance}"
        instance.delete()
        after = None
    else:
        (save or instance.save)()
        target = f"{label} {instance.pk}: {instance}"
        after = audit_fields(instance)
    if campaign is None:
        return None
    if isinstance(instance, Campaign) and delete:
        logging.getLogger(__name__).warning("campaign %s deleted in the admin by %s", before.get("id"), user)
        return None
    action = "admin_delete" if delete else ("admin_change" if old is not None else "admin_add")
    return _audit(Campaign.objects.get(pk=campaign.pk), user, action, target, before, after)


# ---------------------------------------------------------------------------------------------
# Notifications: preferences.
# ---------------------------------------------------------------------------------------------
# Emails are decided and recorded (SentNotification, unique per campaign, user, kind and turn) in
# one transaction that holds the campaign row lock, and sent when it commits. Texts and
# recipients: campaign/notifications.py.

NOTIFICATION_FIELDS = ("notify_turn", "notify_reminders", "notify_battles")


def _membership_of(campaign: Campaign, user) -> Membership:
    """The user's membership, created on first use for a player or moderator who has none (a
    campaign made by create_campaign with Empire.user set has no Membership rows)."""
    from .access import empire_of, role_of

    membership = locks.rows(Membership.objects.filter(campaign=campaign, user=user)).first()
    if membership is not None:
        return membership
    role = role_of(user, campaign)
    if role is None:
        raise ActionError("you are not in this campaign")
    empire = empire_of(user, campaign) if role == Membership.Role.PLAYER else None
    if empire is not None and Membership.objects.filter(empire=empire).exists():
        empire = None
    # get_or_create settles a race between two first uses (unique campaign and user).
    membership, _ = Membership.objects.get_or_create(
        campaign=campaign, user=user, defaults={"role": role, "empire": empire}
    )
    return locks.rows(Membership.objects.filter(pk=membership.pk)).get()


@transaction.atomic
def set_notification_preferences(*, campaign_id: int, user, **changes) -> Membership:
    """Switch a member's emails on or off: notify_turn, notify_reminders, notify_battles (any
    subset; the others keep their value)."""
    unknown = sorted(set(changes) - set(NOTIFICATION_FIELDS))
    if unknown:
        raise ActionError(f"unknown notification preference(s): {', '.join(unknown)}; "
                          f"use {', '.join(NOTIFICATION_FIELDS)}")
    for name, value in changes.items():
        if not isinstance(value, bool):
            raise ActionError(f"{name} must be true or false, not {value!r}")
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise ActionError("no such campaign")
    membership = _membership_of(campaign, user)
    for name, value in changes.items():
        setattr(membership, name, value)
    if changes:
        membership.save(update_fields=list(changes))
    return membership


@transaction.atomic
def unsubscribe(*, token: str) -> tuple[Membership, str]:
    """Follow an email's unsubscribe link (no login): switch that kind of email off. Returns the
    membership and the preference name ('turn', 'reminders' or 'battles')."""
    from django.contrib.auth import get_user_model

    from . import notifications

    try:
        user_id, campaign_id, preference = notifications.read_unsubscribe_token(token)
    except notifications.BadToken as exc:
        raise ActionError(str(exc)) from None
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or not Campaign.objects.filter(pk=campaign_id).exists():
        raise ActionError("this unsubscribe link is no longer valid: the account or campaign is gone")
    membership = set_notification_preferences(
        campaign_id=campaign_id, user=user, **{notifications.PREFERENCES[preference]: False}
    )
    return membership, preference


def notify_moderators(*, campaign_id: int, turn: int, text: str) -> int:
    """Email the campaign's moderators that something needs their decision (a disputed battle
    result). Sent once per (turn, text); callable inside another action's transaction."""
    from . import notifications

    text = (text or "").strip()
    if not text:
        raise ActionError("a moderator notification needs a text")
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()
    if campaign is None:
        raise ActionError("no such campaign")
    candidates = [
        (r, lambda r=r: notifications.battle_email(campaign, turn, r, text))
        for r in notifications.recipients(campaign)
        if r.role == Membership.Role.MODERATOR and r.wants("battles")
    ]
    kind = notifications.kind_key(notifications.BATTLE, notifications.battle_digest(0, "moderators: " + text))
    return _send_once(campaign, kind, turn, candidates)


def _send_once(campaign: Campaign, kind: str, turn_number: int, candidates) -> int:
    """Record and queue the emails of one kind about one turn, skipping any already recorded.

    ``candidates`` are (recipient, build) pairs, build() making the message. The caller holds the
    campaign row lock, so concurrent senders for the campaign run one after another and the second
    finds the first one's rows; the unique constraint backs this up (a conflict rolls everything
    back and nothing is sent). Messages go out only when the transaction commits."""
    from . import notifications
    from .models import SentNotification

    candidates = [(r, build) for r, build in candidates if r.user.email]
    if not candidates:
        return 0
    done = set(SentNotification.objects.filter(
        campaign=campaign, kind=kind, turn=turn_number, user__in=[r.user.pk for r, _ in candidates]
    ).values_list("user_id", flat=True))
    messages, rows = [], []
    for recipient, build in candidates:
        if recipient.user.pk in done:
            continue
        messages.append(build())
        rows.append(SentNotification(campaign=campaign, user=recipient.user, kind=kind, turn=turn_number))
    SentNotification.objects.bulk_create(rows)
    if messages:
        transaction.on_commit(lambda: notifications.deliver(messages), robust=True)
    return len(messages)


def enqueue_turn_notifications(campaign_id: int, turn_number: int) -> None:
    """Queue the "turn processed" emails (process_turn calls this on commit)."""
    from .tasks import send_turn_notifications

    send_turn_notifications.delay(campaign_id, turn_number)


@transaction.atomic
def send_turn_notifications(*, campaign_id: int, turn_number: int) -> int:
    """Email each player their own report of a processed turn and each moderator the full one,
    once (per processing of the turn). Returns the number of emails queued."""
    from . import notifications

    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()
    if campaign is None:
        return 0
    turn = Turn.objects.filter(campaign=campaign, number=turn_number, status=Turn.Status.DONE).first()
    if turn is None or turn.processed_at is None:
        return 0  # not processed (or rolled back since): nothing to report
    before = Turn.objects.filter(campaign=campaign, number=turn_number - 1).values_list("summary", flat=True).first()
    candidates = []
    for recipient in notifications.recipients(campaign):
        if not recipient.wants("turn"):
            continue
        if recipient.empire is not None and (before or {}).get(str(recipient.empire.seat), {}).get("eliminated"):
            continue  # eliminated in an earlier turn: nothing left to report
        candidates.append((recipient, lambda r=recipient: notifications.turn_processed_email(campaign, turn, r)))
    kind = notifications.kind_key(notifications.TURN, notifications.stamp(turn.processed_at))
    return _send_once(campaign, kind, turn_number, candidates)


def send_deadline_reminders(*, now=None) -> int:
    """Remind players who have not marked ready that their orders are due within 24 hours, and
    again within the hour (the beat sweep; each turn in its own transaction). Nothing while a
    campaign is paused. A reminder is skipped when the turn opened inside its window: players
    learned the deadline less than that long ago. Returns the number of emails queued."""
    from datetime import timedelta

    now = now or timezone.now()
    due = Turn.objects.filter(
        status=Turn.Status.OPEN, deadline__gt=now, deadline__lte=now + timedelta(hours=24),
        campaign__status=Campaign.Status.ACTIVE, campaign__paused=False, campaign__turn=F("number"),
    ).values_list("campaign_id", "number")
    return sum(_send_turn_reminders(campaign_id=c, turn_number=n, now=now) for c, n in list(due))


@transaction.atomic
def _send_turn_reminders(*, campaign_id: int, turn_number: int, now) -> int:
    from . import notifications

    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    turn = Turn.objects.filter(campaign=campaign, number=turn_number).first()
    # Re-checked under the lock: the turn may have been processed, or the campaign paused.
    if (campaign.paused or campaign.status != Campaign.Status.ACTIVE or campaign.turn != turn_number
            or turn is None or turn.status != Turn.Status.OPEN or turn.deadline is None or turn.deadline <= now):
        return 0
    left = turn.deadline - now
    kind = next((k for k, window in notifications.REMINDER_WINDOWS if left <= window), None)
    window = dict(notifications.REMINDER_WINDOWS).get(kind)
    if kind is None or turn.deadline - turn.opened_at <= window:
        return 0
    ready = set(TurnOrders.objects.filter(turn=turn, ready=True).values_list("empire_id", flat=True))
    candidates = [
        (r, lambda r=r: notifications.reminder_email(campaign, turn, r, kind, now))
        for r in notifications.recipients(campaign)
        if r.empire is not None and r.wants("reminders") and r.empire.pk not in ready
        and not (r.empire.is_bot or r.empire.auto_bot or r.empire.eliminated)
    ]
    return _send_once(campaign, notifications.kind_key(kind, notifications.stamp(turn.deadline)), turn_number, candidates)


@transaction.atomic
def notify_battle_decision(*, campaign_id: int, turn: int, seat: int, text: str) -> int:
    """Email the player of ``seat`` that a battle of ``turn`` needs their decision (``text`` is
    theirs to read: fog of war is the caller's duty). Sent once per (turn, seat, text); callable
    inside another action's transaction. Returns the number of emails queued (0 or 1)."""
    from . import notifications

    text = (text or "").strip()
    if not text:
        raise ActionError("a battle notification needs a text")
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()
    if campaign is None:
        raise ActionError("no such campaign")
    if not campaign.empires.filter(seat=seat).exists():
        raise ActionError(f"campaign {campaign.pk} has no seat {seat}")
    candidates = [
        (r, lambda r=r: notifications.battle_email(campaign, turn, r, text))
        for r in notifications.recipients(campaign)
        if r.empire is not None and r.empire.seat == seat and r.wants("battles") and not r.empire.is_bot
    ]
    kind = notifications.kind_key(notifications.BATTLE, notifications.battle_digest(seat, text))
    return _send_once(campaign, kind, turn, candidates)


@transaction.atomic
def set_campaign_option(*, campaign_id: int, user, key: str, value) -> Campaign:
    """A moderator switches a rule option of a running campaign (RULINGS "(option)"); the next
    turn processed uses it. Audited."""
    campaign = _moderated_campaign(campaign_id, user, doing="change the campaign's rule options")
    if campaign.status == Campaign.Status.FINISHED:
        raise ActionError("the campaign has finished; its options can no longer change")
    if key not in SWITCHABLE_OPTIONS:
        known = ", ".join(sorted(SWITCHABLE_OPTIONS))
        raise ActionError(f"campaign option {key!r} cannot be switched during a campaign (options that can: {known})")
    if type(value) is not type(DEFAULT_OPTIONS[key]):
        raise ActionError(f"campaign option {key} must be {type(DEFAULT_OPTIONS[key]).__name__}, not {value!r}")
    before = campaign.options.get(key, DEFAULT_OPTIONS[key])
    if before == value:
        return campaign
    campaign.options = {**campaign.options, key: value}
    campaign.save(update_fields=["options"])
    _audit(campaign, user, "set_option", f"option {key}", {key: before}, {key: value})
    return campaign
