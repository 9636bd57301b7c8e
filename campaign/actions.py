"""Every change of campaign state goes through a function here.

Each action is atomic; views, API viewsets, tasks and management commands only validate their
input, call one action and render the result. Actions raise ``ActionError`` (or a subclass)
with a message for people; nothing is written when they do.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from . import adapters
from .bulk import insert_rows
from .dice import CampaignDice
from .models import COLOUR_PALETTE, Campaign, Design, Empire, MapCell, Membership, Structure, Turn, TurnOrders, World
from .rules.dice import derive_seed, new_seed, seed_hash
from .rules.eventhorizon import economy as eh_economy
from .rules.eventhorizon import mapgen, victory
from .rules.eventhorizon import turn as turn_engine
from .rules.eventhorizon.bots import bot_orders
from .rules.eventhorizon.designs import DesignError, validate_design
from .rules.eventhorizon.orders import OrderError, Preview, orders_to_json, parse_orders, validate_orders
from .rules.grid import GridError, make_grid

MIN_PLAYERS, MAX_PLAYERS = 2, 8
DEFAULT_OPTIONS = {"economy_types": True}


class ActionError(ValueError):
    """A refused action; the message names the problem. Nothing was changed."""


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
    home worlds, 240 BP and a home dockyard per player ("003 Set Up")."""
    name = (name or "").strip()
    if not name:
        raise ActionError("a campaign needs a name")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ActionError(f"a campaign needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    try:
        board = make_grid(grid, width, height)
    except GridError as exc:
        raise ActionError(str(exc)) from None
    unknown = set(options or {}) - set(DEFAULT_OPTIONS)
    if unknown:
        raise ActionError(f"unknown campaign option(s): {', '.join(sorted(unknown))}")
    opts = {**DEFAULT_OPTIONS, **(options or {})}
    names = list(empire_names or [])
    if len(names) > players:
        raise ActionError(f"{len(names)} empire names given for {players} players")

    seed_raw = _seed_bytes(seed)
    campaign = Campaign.objects.create(
        name=name, grid=board.kind, width=board.width, height=board.height, options=opts,
        dice_seed=seed_raw.hex(), seed_hash=seed_hash(seed_raw), moderator=moderator,
        status=Campaign.Status.ACTIVE, turn=1, seats=players,
    )
    if moderator is not None:
        Membership.objects.create(campaign=campaign, user=moderator, role=Membership.Role.MODERATOR)
    dice = CampaignDice(campaign, phase="setup", turn=0)
    try:
        generated = mapgen.generate_map(
            board, players, dice, economy_types=bool(opts["economy_types"])
        )
    except mapgen.MapError as exc:
        # Roll back the campaign row too: a refused map changes nothing.
        transaction.set_rollback(True)
        raise ActionError(str(exc)) from None

    _store_map(campaign, generated)
    empires = []
    for seat in range(1, len(generated.home_worlds) + 1):
        empires.append(
            Empire(
                campaign=campaign, seat=seat, bp=eh_economy.STARTING_BP,
                name=names[seat - 1] if seat <= len(names) else f"Empire {seat}",
                colour=COLOUR_PALETTE[(seat - 1) % len(COLOUR_PALETTE)],
            )
        )
    Empire.objects.bulk_create(empires)
    empires = list(campaign.empires.order_by("seat"))
    structures = []
    for empire, (hx, hy) in zip(empires, generated.home_worlds, strict=True):
        World.objects.filter(campaign=campaign, x=hx, y=hy).update(owner=empire, home_of=empire)
        structures.append(
            Structure(campaign=campaign, owner=empire, number=empire.seat, resource="dockyard",
                      x=hx, y=hy, built_turn=0)
        )
    Structure.objects.bulk_create(structures)
    campaign.purpose = victory.roll_purpose(dice)
    campaign.save(update_fields=["purpose"])
    dice.commit()
    Turn.objects.create(campaign=campaign, number=1)
    return campaign


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


def _open_turn(campaign: Campaign, *, lock: bool) -> Turn:
    turns = Turn.objects.select_for_update() if lock else Turn.objects
    turn = turns.filter(campaign=campaign, number=campaign.turn).first()
    if turn is None or turn.status != Turn.Status.OPEN or campaign.status != Campaign.Status.ACTIVE:
        raise TurnClosed(f"turn {campaign.turn} is not taking orders")
    return turn


def preview_orders(*, empire: Empire, raw) -> Preview:
    """Validate orders without storing them: the preview players see while writing."""
    state = adapters.load_state(empire.campaign)
    try:
        orders = parse_orders(raw)
        return validate_orders(state, empire.seat, orders, adapters.design_names_by_seat(empire.campaign)[empire.seat])
    except OrderError as exc:
        raise ActionError(str(exc)) from None


@transaction.atomic
def submit_orders(*, empire_id: int, raw, ready: bool | None = None) -> tuple[TurnOrders, Preview]:
    """Store an empire's orders for the open turn (revisable until it is processed). Invalid
    orders are refused with the reason and change nothing; orders for a turn being processed
    wait for it and are then refused with TurnClosed."""
    empire = Empire.objects.select_related("campaign").get(pk=empire_id)
    # The turn row lock orders submissions after (or before) processing, never during it.
    turn = _open_turn(empire.campaign, lock=True)
    preview = preview_orders(empire=empire, raw=raw)
    row, created = TurnOrders.objects.select_for_update().get_or_create(
        turn=turn, empire=empire, defaults={"orders": raw, "ready": bool(ready)}
    )
    if not created:
        row.orders = raw
        row.revision = F("revision") + 1
        if ready is not None:
            row.ready = ready
        row.save(update_fields=["orders", "revision", "ready", "updated_at"])
        row.refresh_from_db(fields=["revision"])
    return row, preview


def process_turn(*, campaign_id: int, turn_number: int | None = None) -> Turn | None:
    """Resolve the campaign's open turn through the pure pipeline and store the result.

    Safe to call twice or concurrently: the campaign row lock serialises callers and the turn's
    status is claimed with a conditional update, so a turn is processed once; a caller that
    finds it already done gets None."""
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        if campaign.status != Campaign.Status.ACTIVE:
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
        state = adapters.load_state(campaign)
        names = adapters.design_names_by_seat(campaign)
        orders = {}
        for row in TurnOrders.objects.filter(turn=turn).select_related("empire"):
            orders[row.empire.seat] = parse_orders(row.orders)
        dice = CampaignDice(campaign, phase="turn", turn=number)
        resolution = turn_engine.resolve_turn(state, orders, dice, names)
        adapters.save_state(campaign, state, resolution.state)
        dice.commit()
        turn.status = Turn.Status.DONE
        turn.processed_at = timezone.now()
        turn.events = [event_json(e) for e in resolution.events]
        turn.summary = position_summary(resolution.state, turn.events)
        turn.save(update_fields=["status", "processed_at", "events", "summary"])
        if not resolution.state.finished:
            Turn.objects.create(campaign=campaign, number=resolution.state.turn)
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
            "worlds": sum(1 for w in state.worlds if w.owner == empire.seat),
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
    turns = Turn.objects.filter(status=Turn.Status.OPEN, campaign__status=Campaign.Status.ACTIVE).select_related("campaign")
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
        transaction.on_commit(lambda c=turn.campaign_id, n=turn.number: task.delay(c, n))
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
    return campaign


# ---------------------------------------------------------------------------------------------
# Lobby: creating a campaign in the lobby, invitations, joining, starting.
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Turn workflow: orders on the web, ready, missed turns.
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Moderation: pause, resume, extend, process now, roll back, substitute, audit log.
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Notifications: preferences.
# ---------------------------------------------------------------------------------------------
