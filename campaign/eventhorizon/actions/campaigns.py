"""Creating an Event Horizon campaign (map, seats, home worlds), its ship designs, and importing
an export (issue 26: out of the platform's ``campaign/actions/campaigns.py``, which keeps the rule
options and the seat limits every lobby checks).
"""
from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction

from campaign import versioning
from campaign.actions.campaigns import (
    BOOK_OPTION,
    DEFAULT_OPTIONS,
    MAX_PLAYERS,
    MIN_PLAYERS,
)
from campaign.actions.errors import ActionError
from campaign.bulk import insert_rows
from campaign.dice import CampaignDice
from campaign.models import COLOUR_PALETTE, Campaign, Empire, Membership, Turn, TurnOrders
from campaign.rules.dice import derive_seed, new_seed, seed_hash
from campaign.rules.eventhorizon import economy as eh_economy
from campaign.rules.eventhorizon import mapgen, victory
from campaign.rules.eventhorizon.designs import DesignError, validate_design
from campaign.rules.eventhorizon.setup import SETUP_TURN
from campaign.rules.grid import GridError, make_grid

from .. import adapters
from ..layer import KEY as LAYER
from ..models import Design, MapCell, Structure, World


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
        name=name, layer=LAYER, grid=board.kind, width=board.width, height=board.height, options=opts,
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


def check_players(players) -> int:
    """A campaign's number of seats as every Event Horizon lobby and import takes it (003 Set Up:
    two to eight players)."""
    if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ActionError(f"a campaign needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}")
    return players


def _check_setup(*, name, grid, width, height, players, options) -> tuple[str, object, dict]:
    """Validate a new campaign's name, map and options: (name, grid, options with defaults)."""
    name = (name or "").strip()
    if not name:
        raise ActionError("a campaign needs a name")
    if len(name) > Campaign._meta.get_field("name").max_length:
        raise ActionError(f"a campaign name has at most {Campaign._meta.get_field('name').max_length} characters")
    check_players(players)
    try:
        board = make_grid(grid, width, height)
    except GridError as exc:
        raise ActionError(str(exc)) from None
    unknown = set(options or {}) - set(DEFAULT_OPTIONS)
    if unknown:
        raise ActionError(f"unknown campaign option(s): {', '.join(sorted(unknown))}")
    opts = {**DEFAULT_OPTIONS, **(options or {})}
    if not isinstance(opts.get(BOOK_OPTION, ""), str):  # null, [], false: refused, as on import and the panel
        raise ActionError(f"the rule book for battles must be a rule book's name, not {opts[BOOK_OPTION]!r}")
    if not opts.get(BOOK_OPTION):
        opts.pop(BOOK_OPTION, None)  # the layer's own book: nothing to record (issue 31)
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


@transaction.atomic
def import_campaign(doc, *, now=None) -> Campaign:
    """Create a campaign from an export document (docs/export-format.md). The document is
    checked whole first (map, seats, designs, the dice log's chain and rolls), so a malformed
    file changes nothing.

    The open round keeps the file's deadline, unless the campaign runs (not paused) and that
    deadline has passed by ``now``: the round then gets a whole round's time from the import, as
    a round opened now would. The players could not reach the campaign between its export and
    its import, and a past deadline would otherwise settle the round at once with only the orders
    written before the export (a moderator who wants that uses "Process now")."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from campaign.actions.lobby import _new_token
    from campaign.actions.turns import setup_deadline, turn_deadline

    from ..exchange import SETTINGS, ExchangeError, parse_export

    try:
        doc = parse_export(doc)
    except ExchangeError as exc:
        raise ActionError(f"import refused: {exc}") from None
    c = doc["campaign"]
    named = {c["moderator"]} | {e["user"] for e in doc["empires"]}  # the accounts the file names, not every one
    users = {u.username: u for u in get_user_model().objects.filter(username__in=named - {None, ""})
             .only("id", "username")}
    campaign = Campaign.objects.create(
        name=c["name"], layer=c["layer"], grid=c["grid"], width=c["width"], height=c["height"],
        status=c["status"], turn=c["turn"], options=c["options"], moderator=users.get(c["moderator"] or ""),
        dice_seed=c["dice_seed"], seed_hash=c["seed_hash"], dice_offset=c["dice_offset"],
        purpose=c.get("purpose"), id_counters=c.get("id_counters") or {},
        # A file from before the settings were exported: the lobby's defaults, and as many seats
        # as it has empires (at least the lobby's two).
        **{key: c[key] for key in SETTINGS if key in c},
        **({} if "seats" in c else {"seats": max(MIN_PLAYERS, len(doc["empires"]))}),
        paused=c.get("paused", False),
        paused_remaining=None if c.get("paused_remaining") is None else timedelta(seconds=c["paused_remaining"]),
        # The invitation link's secret is not in the file: a listed campaign gets a new one (no
        # link, no listing), as the lobby gives it.
        invite_token=_new_token() if c.get("listed") else "",
    )
    deadline = None if c.get("deadline") is None else datetime.fromisoformat(c["deadline"])
    now = now or timezone.now()
    if deadline is not None and deadline <= now and campaign.status == Campaign.Status.ACTIVE and not campaign.paused:
        deadline = (setup_deadline if campaign.turn == SETUP_TURN else turn_deadline)(campaign, now)
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
        World,
        ["campaign", "x", "y", "kind", "economy", "owner", "home_of", "held_out_by", "held_out_until"],
        (
            (
                campaign.pk,
                w["x"],
                w["y"],
                w["kind"],
                w.get("economy") or "",
                empires[w["owner"]].pk if w.get("owner") is not None else None,
                empires[w["home_of"]].pk if w.get("home_of") is not None else None,
                empires[w["held_out_by"]].pk if w.get("held_out_by") is not None else None,
                w.get("held_out_until"),
            )
            for w in doc["worlds"]
        ),
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

    from campaign.models import DiceRoll

    from ..models import BuildOrder, Fleet, Ship

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
        turn = Turn.objects.create(campaign=campaign, number=t["number"], status=t["status"], events=t["events"],
                                   deadline=deadline if t["number"] == campaign.turn else None)
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
