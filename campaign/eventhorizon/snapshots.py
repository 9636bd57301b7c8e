"""Turn snapshots: the campaign's state just before a turn is processed, kept in ``Turn.snapshot``
so a moderator can roll the last processed turn back (``campaign/eventhorizon/actions/rollback.py``
``roll_back_turn``) and so past turns can be shown. Like ``adapters``, nothing here decides a rule or is
called from a view: the actions call ``take`` (in ``process_turn``) and ``restore`` (in ``roll_back_turn``).

A snapshot is everything a turn can change, as stored (raw column values, so a restore is exact),
minus the map cells, which never change once rolled. The format (version 1) is documented in
``docs/online-play.md`` ("Moderation"); every row refers to empires by seat and to fleets,
ships and structures by their campaign-wide numbers, never by database ids, except ``design``
(a ``Design`` id) and ``user`` (a user id).
"""

from __future__ import annotations

import json
from datetime import datetime

from django.db import connections, router
from django.db.models import Q

from campaign.dice import _truncate_dice_log
from campaign.eventhorizon.models import BuildOrder, Design, Fleet, Ship, Structure, World
from campaign.models import Campaign, DiceRoll, Empire, Turn, TurnOrders

VERSION = 1


class SnapshotError(ValueError):
    """A snapshot that cannot be restored; the message names the problem."""


def store(campaign: Campaign, turn: Turn) -> None:
    """Write the state before ``turn`` is processed to ``turn.snapshot``. Called by
    ``process_turn`` under the campaign row lock, before anything is resolved.

    On PostgreSQL the bulky parts (worlds, structures, fleets, ships, builds) are built by the
    database inside the one UPDATE, so thousands of ships never travel to Python and back: this
    keeps a 2,000-ship turn's snapshot to a few milliseconds (docs/benchmarks.md). Elsewhere
    ``take`` builds the same document in Python; tests check that the two agree."""
    connection = connections[router.db_for_write(Turn)]
    if connection.vendor != "postgresql":
        Turn.objects.filter(pk=turn.pk).update(snapshot=take(campaign, turn))
        return
    head, _ = _head(campaign, turn)
    qn = connection.ops.quote_name
    t = {m.__name__.lower(): qn(m._meta.db_table) for m in (Turn, World, Empire, Structure, Fleet, Ship, BuildOrder)}
    # json (text) aggregates are built several times faster than jsonb ones; the document is
    # converted to jsonb once, at the end.
    agg = "coalesce(json_agg({row} ORDER BY {order}), '[]'::json)"
    structures = "json_build_array(s.number, o.seat, s.resource, s.x, s.y, s.technology, s.built_turn)"
    ships = "json_build_array(s.number, o.seat, s.design_id, s.name, f.number, s.hero_crew, s.damage)"
    builds = "json_build_array(d.number, o.seat, b.design_id, b.name, b.hero_crew, b.ordered_turn, b.turns_remaining)"
    sql = (
        f"UPDATE {t['turn']} SET snapshot = CAST(%s AS jsonb) || CAST(json_build_object("
        f"'worlds', (SELECT "
        f"{agg.format(row='json_build_array(w.x, w.y, o.seat, h.seat, w.held_out_until)', order='w.y, w.x')}"
        f" FROM {t['world']} w LEFT JOIN {t['empire']} o ON o.id = w.owner_id LEFT JOIN {t['empire']} h ON "
        f"h.id = w.held_out_by_id"
        f" WHERE w.campaign_id = %s AND (w.owner_id IS NOT NULL OR w.held_out_by_id IS NOT NULL)),"
        f"'structures', (SELECT "
        f"{agg.format(row=structures, order='s.number')}"
        f" FROM {t['structure']} s JOIN {t['empire']} o ON o.id = s.owner_id WHERE s.campaign_id = %s),"
        f"'fleets', (SELECT {agg.format(row='json_build_array(f.number, o.seat, f.x, f.y)', order='f.number')}"
        f" FROM {t['fleet']} f JOIN {t['empire']} o ON o.id = f.owner_id WHERE f.campaign_id = %s),"
        f"'ships', (SELECT "
        f"{agg.format(row=ships, order='s.number')}"
        f" FROM {t['ship']} s JOIN {t['empire']} o ON o.id = s.owner_id JOIN {t['fleet']} f ON f.id = s.fleet_id"
        f" WHERE s.campaign_id = %s),"
        f"'builds', (SELECT "
        f"{agg.format(row=builds, order='d.number')}"
        f" FROM {t['buildorder']} b JOIN {t['empire']} o ON o.id = b.owner_id JOIN {t['structure']} d ON "
        f"d.id = b.dockyard_id"
        f" WHERE b.campaign_id = %s)"
        f") AS jsonb) WHERE id = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [json.dumps(head), *([campaign.pk] * 5), turn.pk])


def _head(campaign: Campaign, turn: Turn) -> tuple[dict, dict]:
    """The small parts of a snapshot (a few rows each), and the seat of each empire id."""
    empires = list(
        Empire.objects.filter(campaign=campaign).order_by("seat").values_list(
            "pk", "seat", "user_id", "bp", "eliminated", "technologies", "standing_orders", "trade_war",
            "is_bot", "auto_bot", "missed_turns")
    )
    seat = {row[0]: row[1] for row in empires}
    last = DiceRoll.objects.filter(campaign=campaign).order_by("-seq").values_list("seq", "hash").first()
    head = {
        "version": VERSION,
        "turn": turn.number,
        "deadline": turn.deadline.isoformat() if turn.deadline else None,
        "campaign": {
            "status": campaign.status, "turn": campaign.turn, "winner": seat.get(campaign.winner_id),
            "purpose": campaign.purpose, "id_counters": campaign.id_counters, "dice_offset": campaign.dice_offset,
        },
        # Where the dice log ended: a roll-back truncates it back to here (docs/dice.md).
        "dice": {"seq": last[0] if last else 0, "hash": last[1] if last else campaign.seed_hash},
        "empires": [
            {"seat": s, "user": user, "bp": bp, "eliminated": gone, "technologies": tech, "standing_orders": standing,
             "trade_war": war, "is_bot": bot, "auto_bot": auto, "missed_turns": missed}
            for _, s, user, bp, gone, tech, standing, war, bot, auto, missed in empires
        ],
        "orders": [
            [seat[empire], orders, ready, revision]
            for empire, orders, ready, revision in TurnOrders.objects.filter(turn=turn).order_by("empire__seat")
            .values_list("empire_id", "orders", "ready", "revision")
        ],
    }
    return head, seat


def take(campaign: Campaign, turn: Turn) -> dict:
    """The state before ``turn`` is processed, built in Python (``store`` writes it)."""
    head, seat = _head(campaign, turn)
    fleets = list(
        Fleet.objects.filter(campaign=campaign).order_by("number").values_list("pk", "number", "owner_id", "x", "y")
    )
    fleet_number = {row[0]: row[1] for row in fleets}
    return {
        **head,
        # Only worlds someone owns or holds out of; every other world is neutral and clear.
        "worlds": [
            [x, y, seat.get(owner), seat.get(held), until]
            for x, y, owner, held, until in World.objects.filter(campaign=campaign)
            .filter(Q(owner__isnull=False) | Q(held_out_by__isnull=False))
            .order_by("y", "x")
            .values_list("x", "y", "owner_id", "held_out_by_id", "held_out_until")
        ],
        "structures": [
            [number, seat[owner], resource, x, y, technology, built]
            for number, owner, resource, x, y, technology, built in Structure.objects.filter(
                campaign=campaign
            )
            .order_by("number")
            .values_list("number", "owner_id", "resource", "x", "y", "technology", "built_turn")
        ],
        "fleets": [[number, seat[owner], x, y] for _, number, owner, x, y in fleets],
        "ships": [
            [number, seat[owner], design, name, fleet_number[fleet], hero, damage]
            for number, owner, design, name, fleet, hero, damage in Ship.objects.filter(campaign=campaign)
            .order_by("number")
            .values_list("number", "owner_id", "design_id", "name", "fleet_id", "hero_crew", "damage")
        ],
        "builds": [
            [dock, seat[owner], design, name, hero, ordered, left]
            for dock, owner, design, name, hero, ordered, left in BuildOrder.objects.filter(campaign=campaign)
            .order_by("dockyard__number")
            .values_list(
                "dockyard__number",
                "owner_id",
                "design_id",
                "name",
                "hero_crew",
                "ordered_turn",
                "turns_remaining",
            )
        ],
    }


def restore(campaign: Campaign, snapshot: dict) -> dict:
    """Rewrite the campaign to ``snapshot``: entities, the dice log, the turn rows and the
    snapshot turn's orders. The caller (``roll_back_turn``) holds the campaign row lock, has
    checked that this is the last processed turn, and runs inside its transaction. Returns what
    was undone, for the audit log."""
    if not isinstance(snapshot, dict) or snapshot.get("version") != VERSION:
        raise SnapshotError("the turn's snapshot is missing or of an unknown version")
    empires = {e.seat: e for e in Empire.objects.filter(campaign=campaign)}
    missing = {row["seat"] for row in snapshot["empires"]} - set(empires)
    if missing:
        raise SnapshotError(f"seat(s) {', '.join(map(str, sorted(missing)))} no longer exist")
    designs = {row[2] for row in snapshot["ships"]} | {row[2] for row in snapshot["builds"]}
    gone = designs - set(Design.objects.filter(pk__in=designs).values_list("pk", flat=True))
    if gone:
        raise SnapshotError(f"design(s) {', '.join(map(str, sorted(gone)))} have been deleted since")
    from .. import versioning

    versioning.bump(campaign.pk)  # bulk writes send no signals (campaign/versioning.py)
    pk = {s: e.pk for s, e in empires.items()}

    _restore_empires(empires, snapshot["empires"])
    _restore_worlds(campaign, snapshot["worlds"], pk)
    BuildOrder.objects.filter(campaign=campaign).delete()  # rebuilt below, after the structures
    _restore_structures(campaign, snapshot["structures"], pk)
    _restore_fleets_and_ships(campaign, snapshot["fleets"], snapshot["ships"], pk)
    docks = dict(Structure.objects.filter(campaign=campaign).values_list("number", "pk"))
    BuildOrder.objects.bulk_create([
        BuildOrder(campaign=campaign, dockyard_id=docks[dock], owner_id=pk[owner], design_id=design, name=name,
                   hero_crew=hero, ordered_turn=ordered, turns_remaining=left)
        for dock, owner, design, name, hero, ordered, left in snapshot["builds"]
    ])

    number = snapshot["turn"]
    later = list(Turn.objects.filter(campaign=campaign, number__gt=number).values_list("number", flat=True))
    discarded_orders = TurnOrders.objects.filter(turn__campaign=campaign, turn__number__gt=number).count()
    Turn.objects.filter(campaign=campaign, number__gt=number).delete()  # their orders go with them
    turn = Turn.objects.get(campaign=campaign, number=number)
    turn.status, turn.processed_at, turn.events, turn.summary, turn.snapshot = Turn.Status.OPEN, None, [], {}, None
    turn.pending = None
    turn.deadline = datetime.fromisoformat(snapshot["deadline"]) if snapshot["deadline"] else None
    turn.save(update_fields=["status", "processed_at", "events", "summary", "snapshot", "deadline", "pending"])
    _restore_orders(turn, snapshot["orders"], pk)

    c = snapshot["campaign"]
    campaign.status, campaign.turn, campaign.purpose = c["status"], c["turn"], c["purpose"]
    campaign.winner_id = pk.get(c["winner"]) if c["winner"] is not None else None
    campaign.id_counters, campaign.dice_offset = c["id_counters"], c["dice_offset"]
    campaign.save(update_fields=["status", "turn", "purpose", "winner", "id_counters", "dice_offset"])
    truncated = _truncate_dice_log(campaign, snapshot["dice"]["seq"])
    return {"turn": number, "deleted_turns": later, "discarded_orders": discarded_orders, "dice": truncated}


def _restore_empires(empires: dict, rows: list) -> None:
    changed = []
    for row in rows:
        e = empires[row["seat"]]
        e.bp, e.eliminated, e.technologies = row["bp"], row["eliminated"], row["technologies"]
        e.standing_orders, e.trade_war = row["standing_orders"], row["trade_war"]
        # Who plays the seat is not turn state: a seat handed to another player (or taken from
        # the computer) since the turn keeps that; otherwise the turn's missed-turn count and
        # computer play are undone with it.
        if e.user_id == row["user"]:
            e.is_bot, e.auto_bot, e.missed_turns = row["is_bot"], row["auto_bot"], row["missed_turns"]
        changed.append(e)
    Empire.objects.bulk_update(
        changed,
        [
            "bp",
            "eliminated",
            "technologies",
            "standing_orders",
            "trade_war",
            "is_bot",
            "auto_bot",
            "missed_turns",
        ],
    )


def _restore_worlds(campaign: Campaign, rows: list, pk: dict) -> None:
    target = {(x, y): (pk.get(owner), pk.get(held), until) for x, y, owner, held, until in rows}
    changed = []
    for world_pk, x, y, owner, held, until in World.objects.filter(campaign=campaign).values_list(
        "pk", "x", "y", "owner_id", "held_out_by_id", "held_out_until"
    ):
        want = target.get((x, y), (None, None, None))
        if (owner, held, until) != want:
            changed.append(World(pk=world_pk, owner_id=want[0], held_out_by_id=want[1], held_out_until=want[2]))
    World.objects.bulk_update(changed, ["owner", "held_out_by", "held_out_until"], batch_size=1000)


def _restore_structures(campaign: Campaign, rows: list, pk: dict) -> None:
    target = {
        number: {"owner_id": pk[owner], "resource": resource, "x": x, "y": y, "technology": tech, "built_turn": built}
        for number, owner, resource, x, y, tech, built in rows
    }
    current = {s.number: s for s in Structure.objects.filter(campaign=campaign)}
    Structure.objects.filter(campaign=campaign).exclude(number__in=list(target)).delete()
    Structure.objects.bulk_create(
        [Structure(campaign=campaign, number=n, **fields) for n, fields in target.items() if n not in current]
    )
    changed = []
    for number, row in current.items():
        want = target.get(number)
        if want is not None and any(getattr(row, k) != v for k, v in want.items()):
            for k, v in want.items():
                setattr(row, k, v)
            changed.append(row)
    Structure.objects.bulk_update(changed, ["owner", "resource", "x", "y", "technology", "built_turn"])


def _restore_fleets_and_ships(campaign: Campaign, fleet_rows: list, ship_rows: list, pk: dict) -> None:
    fleets = {number: (pk[owner], x, y) for number, owner, x, y in fleet_rows}
    current = {f.number: f for f in Fleet.objects.filter(campaign=campaign)}
    Fleet.objects.bulk_create([
        Fleet(campaign=campaign, number=n, owner_id=owner, x=x, y=y)
        for n, (owner, x, y) in fleets.items() if n not in current
    ])
    moved = []
    for number, row in current.items():
        if number in fleets and (row.owner_id, row.x, row.y) != fleets[number]:
            row.owner_id, row.x, row.y = fleets[number]
            moved.append(row)
    Fleet.objects.bulk_update(moved, ["owner", "x", "y"])
    fleet_pk = dict(Fleet.objects.filter(campaign=campaign).values_list("number", "pk"))

    ships = {
        number: {"owner_id": pk[owner], "design_id": design, "name": name, "fleet_id": fleet_pk[fleet],
                 "hero_crew": hero, "damage": damage}
        for number, owner, design, name, fleet, hero, damage in ship_rows
    }
    current_ships = {s.number: s for s in Ship.objects.filter(campaign=campaign)}
    Ship.objects.filter(campaign=campaign).exclude(number__in=list(ships)).delete()
    Ship.objects.bulk_create(
        [Ship(campaign=campaign, number=n, **fields) for n, fields in ships.items() if n not in current_ships],
        batch_size=1000,
    )
    changed = []
    for number, row in current_ships.items():
        want = ships.get(number)
        if want is not None and any(getattr(row, k) != v for k, v in want.items()):
            for k, v in want.items():
                setattr(row, k, v)
            changed.append(row)
    Ship.objects.bulk_update(changed, ["owner", "design", "name", "fleet", "hero_crew", "damage"], batch_size=1000)
    # Only now, with every ship back in its own fleet, can fleets made by the turn go.
    Fleet.objects.filter(campaign=campaign).exclude(number__in=list(fleets)).delete()


def _restore_orders(turn: Turn, rows: list, pk: dict) -> None:
    target = {pk[seat]: (orders, ready, revision) for seat, orders, ready, revision in rows}
    TurnOrders.objects.filter(turn=turn).exclude(empire_id__in=list(target)).delete()
    current = {o.empire_id: o for o in TurnOrders.objects.filter(turn=turn)}
    for empire_id, (orders, ready, revision) in target.items():
        row = current.get(empire_id)
        if row is not None and (row.orders, row.ready, row.revision) == (orders, ready, revision):
            continue  # as it was: saving it would stamp the roll-back's time as when it was sent (issue 23 item 25)
        row = row or TurnOrders(turn=turn, empire_id=empire_id)
        row.orders, row.ready, row.revision = orders, ready, revision
        row.save()
