"""The campaign export format (docs/export-format.md): to JSON and back.

``export_campaign`` reads rows into the documented structure; ``parse_export`` checks a document
and returns it normalised, raising ``ExchangeError`` that names the first problem. Writing an
imported campaign is the ``import_campaign`` action's job.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations

from campaign.eventhorizon.models import BuildOrder, Design, Fleet, Ship, Structure, World
from campaign.models import Campaign, DiceRoll, Empire, Turn, TurnOrders

from .. import exports
from ..dice import entry_fields, log_entries
from ..rules.eventhorizon.designs import WEAPONS, DesignError, Technology, validate_design
from ..rules.eventhorizon.designs import Design as DesignSpec
from ..rules.eventhorizon.economy import Damage, EconomyError, Resource, _check_damage
from ..rules.eventhorizon.mapgen import EconomyType, Terrain
from ..rules.eventhorizon.orders import star_gate_site
from ..rules.grid import GridError, make_grid

FORMAT = exports.FORMAT
VERSION = 1
SYMBOL_TERRAIN = {t.symbol: t for t in Terrain}


class ExchangeError(ValueError):
    """A malformed export document; the message names the first problem."""


# Campaign settings a moderator chooses (the lobby's create form and API; ``check_setting`` holds
# each to the lobby's limits and words). Missing from a file written before they were: the
# model's defaults, as the lobby's create has them.
SETTINGS = ("seats", "turn_hours", "setup_hours", "detection_range", "missed_turn_limit", "battle_hours",
            "activation_hours", "battle_mode", "battle_requests", "deployment", "fog_of_war", "listed",
            "show_ready")


def _moment(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def _design_ref(design: Design) -> dict:
    return {"name": design.name, "library": design.campaign_id is None}


def export_campaign(campaign: Campaign) -> dict[str, Any]:
    seat = {e.pk: e.seat for e in campaign.empires.all()}
    terrain = [["."] * campaign.width for _ in range(campaign.height)]
    for x, y, value in campaign.cells.values_list("x", "y", "terrain").iterator(5000):
        terrain[y][x] = Terrain(value).symbol
    return {
        "format": FORMAT,
        "version": VERSION,
        "campaign": {
            "name": campaign.name,
            "layer": campaign.layer,
            "grid": campaign.grid,
            "width": campaign.width,
            "height": campaign.height,
            "status": campaign.status,
            "turn": campaign.turn,
            "options": campaign.options,
            "moderator": campaign.moderator.username if campaign.moderator else None,
            "dice_seed": campaign.dice_seed,
            "seed_hash": campaign.seed_hash,
            "dice_offset": campaign.dice_offset,
            "purpose": campaign.purpose,
            "id_counters": campaign.id_counters,
            "winner": seat.get(campaign.winner_id),
            # The moderator's settings (the lobby's create form and the moderation panel), and the
            # open round's clock: a moved or restored campaign runs as it did (docs/export-format.md).
            **{key: getattr(campaign, key) for key in SETTINGS},
            "paused": campaign.paused,
            "paused_remaining": None if campaign.paused_remaining is None
            else round(campaign.paused_remaining.total_seconds()),
            "deadline": _moment(Turn.objects.filter(campaign=campaign, number=campaign.turn)
                                .values_list("deadline", flat=True).first()),
        },
        "map": ["".join(row) for row in terrain],
        "empires": [
            {"seat": e.seat, "name": e.name, "colour": e.colour,
             "user": e.user.username if e.user else None, "is_bot": e.is_bot, "bp": e.bp,
             "technologies": sorted(e.technologies), "eliminated": e.eliminated,
             "standing_orders": e.standing_orders, "trade_war": e.trade_war}
            for e in campaign.empires.select_related("user").order_by("seat")
        ],
        "worlds": [
            {"x": w.x, "y": w.y, "kind": w.kind, "economy": w.economy or None,
             "owner": seat.get(w.owner_id), "home_of": seat.get(w.home_of_id),
             "held_out_by": seat.get(w.held_out_by_id), "held_out_until": w.held_out_until}
            for w in World.objects.filter(campaign=campaign).order_by("y", "x")
        ],
        "structures": [
            {"number": s.number, "owner": seat[s.owner_id], "resource": s.resource, "x": s.x, "y": s.y,
             "technology": s.technology or None, "built_turn": s.built_turn}
            for s in Structure.objects.filter(campaign=campaign).order_by("number")
        ],
        "designs": [
            {"owner": seat.get(d.empire_id), "name": d.name, "description": d.description, "spec": d.spec}
            for d in Design.objects.filter(campaign=campaign).order_by("empire__seat", "name")
        ],
        "fleets": [
            {"number": f.number, "owner": seat[f.owner_id], "x": f.x, "y": f.y}
            for f in Fleet.objects.filter(campaign=campaign).order_by("number")
        ],
        "ships": [
            {"number": s.number, "owner": seat[s.owner_id], "name": s.name, "design": _design_ref(s.design),
             "fleet": s.fleet.number, "hero_crew": s.hero_crew, "damage": s.damage}
            for s in Ship.objects.filter(campaign=campaign).select_related("design", "fleet").order_by("number")
        ],
        "builds": [
            {"dockyard": b.dockyard.number, "owner": seat[b.owner_id], "design": _design_ref(b.design),
             "name": b.name, "hero_crew": b.hero_crew, "ordered_turn": b.ordered_turn,
             "turns_remaining": b.turns_remaining}
            for b in BuildOrder.objects.filter(campaign=campaign)
            .select_related("dockyard", "design").order_by("dockyard__number")
        ],
        "turns": [
            {"number": t.number, "status": t.status, "events": t.events,
             "orders": [
                 {"seat": o.empire.seat, "orders": o.orders, "ready": o.ready, "revision": o.revision}
                 for o in TurnOrders.objects.filter(turn=t).select_related("empire").order_by("empire__seat")
             ]}
            for t in Turn.objects.filter(campaign=campaign).order_by("number")
        ],
        # The whole log, withheld rolls included: the file holds the seed anyway (a moderator's
        # and operator's tool; docs/export-format.md).
        "dice_log": [entry_fields(e) for e in log_entries(campaign)],
    }


# --- Reading --------------------------------------------------------------------------------

def _need(obj: Any, key: str, kind, where: str):
    if not isinstance(obj, dict):
        raise ExchangeError(f"{where} must be an object")
    if key not in obj:
        raise ExchangeError(f"{where} is missing '{key}'")
    value = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if (bool not in kinds and isinstance(value, bool)) or not isinstance(value, kinds):
        names = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
        raise ExchangeError(f"{where}.{key} must be {names}, not {value!r}")
    return value


def _member(value, enum, where: str) -> None:
    if value not in {m.value for m in enum}:
        raise ExchangeError(f"{where} {value!r} is not one of {', '.join(m.value for m in enum)}")


def _list(doc: dict, key: str) -> list:
    return _need(doc, key, list, "the document")


# Every field a row of the document is written to, checked against its column before anything is
# written (issue 14, item 6): whole numbers within the column's range (the portable ranges, so a
# file that imports on SQLite imports on PostgreSQL too), text within its length.
COLUMNS: dict[str, tuple[type[models.Model], dict[str, str]]] = {
    "campaign": (Campaign, {k: k for k in ("name", "grid", "width", "height", "status", "turn", "dice_seed",
                                           "seed_hash", "dice_offset", "purpose")}),
    "empires": (Empire, {k: k for k in ("seat", "name", "colour", "bp")}),
    "worlds": (World, {k: k for k in ("x", "y", "kind", "economy", "held_out_until")}),
    "structures": (Structure, {k: k for k in ("number", "x", "y", "technology", "built_turn")}),
    "designs": (Design, {"name": "name", "description": "description"}),
    "fleets": (Fleet, {k: k for k in ("number", "x", "y")}),
    "ships": (Ship, {"number": "number", "name": "name"}),
    "builds": (BuildOrder, {"name": "name", "ordered_turn": "ordered_turn", "turns_remaining": "turns_remaining"}),
    "turns": (Turn, {"number": "number", "status": "status"}),
    "orders": (TurnOrders, {"revision": "revision"}),
    "dice_log": (DiceRoll, {k: k for k in ("seq", "turn", "phase", "purpose", "expression", "total", "offset",
                                           "words", "prev_hash", "hash")}),
}
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}\Z")


def _fits(row: Any, section: str, where: str) -> None:
    """Each column-bound field present in ``row`` has the column's type and fits it."""
    if not isinstance(row, dict):
        raise ExchangeError(f"{where} must be an object")
    model, columns = COLUMNS[section]
    for key, column in columns.items():
        if key not in row or row[key] is None:
            continue
        value, field = row[key], model._meta.get_field(column)
        if isinstance(field, models.IntegerField):
            low, high = BaseDatabaseOperations.integer_field_ranges[field.get_internal_type()]
            if isinstance(value, bool) or not isinstance(value, int):
                raise ExchangeError(f"{where}.{key}: must be a whole number, not {value!r}")
            if not low <= value <= high:
                raise ExchangeError(f"{where}.{key}: must be {low} to {high}, not {value}")
        elif isinstance(field, (models.CharField, models.TextField)):
            if not isinstance(value, str):
                raise ExchangeError(f"{where}.{key}: must be text, not {value!r}")
            if field.max_length is not None and len(value) > field.max_length:
                raise ExchangeError(f"{where}.{key}: must be at most {field.max_length} characters, not {len(value)}")


def _unique(seen: set, key, where: str, what: str) -> None:
    if key in seen:
        raise ExchangeError(f"{where}: {what} is repeated")
    seen.add(key)


def _damage(raw: Any, design: DesignSpec | None, where: str) -> None:
    """A ship's damage: ``{}`` or Damage's fields, each whole number at least 0, and what a ship
    of its design can have lost and survived ("Dockyard" repairs; 003: a ship that loses all its
    hull points is destroyed)."""
    if raw in (None, {}):
        return
    if not isinstance(raw, dict):
        raise ExchangeError(f"{where}: must be an object, not {raw!r}")
    unknown = sorted(set(raw) - {"hull", "engine", "weapons", "force_field_generators", "stealth", "boarding_parties"})
    if unknown:
        raise ExchangeError(f"{where}.{unknown[0]}: is not a damage field")
    for key in ("hull", "engine", "force_field_generators", "boarding_parties"):
        value = raw.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ExchangeError(f"{where}.{key}: must be a whole number, not {value!r}")
        if value < 0:
            raise ExchangeError(f"{where}.{key}: must be ≥ 0, not {value}")
    if not isinstance(raw.get("stealth", False), bool):
        raise ExchangeError(f"{where}.stealth: must be true or false")
    weapons = raw.get("weapons", [])
    if not isinstance(weapons, list):
        raise ExchangeError(f"{where}.weapons: must be a list of weapon keys")
    for i, key in enumerate(weapons):
        if key not in WEAPONS:
            raise ExchangeError(f"{where}.weapons[{i}]: {key!r} is not a weapon key")
    if design is None:
        return
    damage = Damage(**raw)
    try:
        _check_damage(design, damage)
    except EconomyError as exc:
        raise ExchangeError(f"{where}: {exc.message}") from None
    if damage.hull >= design.hull:
        raise ExchangeError(f"{where}.hull: {damage.hull} of {design.hull} hull points lost is a destroyed ship")


def _settings(c: dict) -> None:
    """The moderator's settings the file holds, as the lobby takes them (``check_setting``, in its
    words), and the clock: ``paused`` true or false, ``paused_remaining`` whole seconds or null,
    ``deadline`` a date and time with its zone (ISO 8601) or null. A key missing keeps today's
    default (a file written before the settings were)."""
    from campaign.actions.errors import ActionError

    from .actions.lobby import check_setting

    for key in SETTINGS:
        if key in c:
            try:
                check_setting(key, c[key])
            except ActionError as exc:
                raise ExchangeError(f"campaign.{key}: {exc}") from None
    if not isinstance(c.get("paused", False), bool):
        raise ExchangeError(f"campaign.paused: must be true or false, not {c['paused']!r}")
    remaining = c.get("paused_remaining")
    if remaining is not None and (isinstance(remaining, bool) or not isinstance(remaining, int) or remaining < 0):
        raise ExchangeError(f"campaign.paused_remaining: must be whole seconds ≥ 0 or null, not {remaining!r}")
    deadline = c.get("deadline")
    if deadline is not None:
        try:
            moment = datetime.fromisoformat(deadline) if isinstance(deadline, str) else None
            if moment is not None and moment.tzinfo is not None:
                moment.astimezone(UTC)  # the database keeps UTC: the calendar's ends have none
        except (ValueError, OverflowError):
            moment = None
        if moment is None or moment.tzinfo is None:
            raise ExchangeError(f"campaign.deadline: must be a date and time with its zone (ISO 8601), "
                                f"not {exports._shown(deadline)}")


def parse_export(doc: Any) -> dict:
    """Check an export document thoroughly enough that importing it cannot fail half way."""
    exports.check_envelope(doc, VERSION, ExchangeError)
    c = _need(doc, "campaign", dict, "the document")
    for key, kind in [("name", str), ("layer", str), ("grid", str), ("width", int), ("height", int),
                      ("status", str), ("turn", int), ("moderator", (str, type(None))),
                      ("dice_seed", str), ("seed_hash", str), ("dice_offset", int)]:
        _need(c, key, kind, "campaign")
    exports.check_name(c, ExchangeError)  # as the lobby would take it
    if "options" not in c:  # its shape: exports.check_options, below
        raise ExchangeError("campaign is missing 'options'")
    _fits(c, "campaign", "campaign")
    for key in ("id_counters",):
        if c.get(key) is not None and not isinstance(c[key], dict):
            raise ExchangeError(f"campaign.{key}: must be an object")
    if c["layer"] != "eventhorizon":
        raise ExchangeError(f"campaign.layer '{c['layer']}' is not supported")
    _settings(c)
    exports.check_options(c["layer"], c["options"], ExchangeError)  # as the lobby would take them
    if c["status"] not in Campaign.Status.values:
        raise ExchangeError(f"campaign.status '{c['status']}' is not one of {', '.join(Campaign.Status.values)}")
    try:
        grid = make_grid(c["grid"], c["width"], c["height"])
        seed = bytes.fromhex(c["dice_seed"])
    except GridError as exc:
        raise ExchangeError(f"campaign: {exc}") from None
    except ValueError:
        raise ExchangeError("campaign.dice_seed must be hexadecimal") from None

    rows = _list(doc, "map")
    if len(rows) != grid.height or not all(isinstance(r, str) and len(r) == grid.width for r in rows):
        raise ExchangeError(f"map must be {grid.height} strings of {grid.width} symbols each")
    for y, row in enumerate(rows):
        bad = set(row) - set(SYMBOL_TERRAIN)
        if bad:
            raise ExchangeError(f"map row {y} has unknown symbol(s) {''.join(sorted(bad))!r}")

    seats = set()
    for i, e in enumerate(_list(doc, "empires")):
        where = f"empires[{i}]"
        for key, kind in [("seat", int), ("name", str), ("colour", str), ("user", (str, type(None))),
                          ("is_bot", bool), ("bp", int), ("technologies", list)]:
            _need(e, key, kind, where)
        _fits(e, "empires", where)
        if e["seat"] in seats or not 1 <= e["seat"] <= 8:
            raise ExchangeError(f"{where}.seat {e['seat']} is out of range or repeated")
        if e["bp"] < 0:
            raise ExchangeError(f"{where}.bp cannot be negative")
        if not _COLOUR.match(e["colour"]):
            raise ExchangeError(f"{where}.colour: must be #rrggbb, not {e['colour']!r}")
        for j, tech in enumerate(e["technologies"]):
            _member(tech, Technology, f"{where}.technologies[{j}]")
        for key in ("standing_orders", "trade_war"):
            if e.get(key) is not None and not isinstance(e[key], dict):
                raise ExchangeError(f"{where}.{key}: must be an object")
        seats.add(e["seat"])

    def owner(value, where, nullable=False):
        if value is None and nullable:
            return
        if value not in seats:
            raise ExchangeError(f"{where} names seat {value!r}, which has no empire")

    if c.get("winner") is not None:
        owner(c["winner"], "campaign.winner")
    places = set()
    for i, w in enumerate(_list(doc, "worlds")):
        where = f"worlds[{i}]"
        _fits(w, "worlds", where)
        x, y = _need(w, "x", int, where), _need(w, "y", int, where)
        kind = _need(w, "kind", str, where)
        if not grid.in_bounds((x, y)) or SYMBOL_TERRAIN[rows[y][x]].value != kind:
            raise ExchangeError(f"{where} at ({x},{y}) does not match the map")
        _unique(places, (x, y), where, f"a world at ({x},{y})")
        for key in ("owner", "home_of", "held_out_by"):
            owner(w.get(key), f"{where}.{key}", nullable=True)
        if w.get("economy") is not None:
            _member(w["economy"], EconomyType, f"{where}.economy")
    numbers = set()
    for i, s in enumerate(_list(doc, "structures")):
        where = f"structures[{i}]"
        _fits(s, "structures", where)
        number = _need(s, "number", int, where)
        if number in numbers:
            raise ExchangeError(f"{where}.number {number} is repeated")
        numbers.add(number)
        owner(_need(s, "owner", int, where), f"{where}.owner")
        _member(_need(s, "resource", str, where), Resource, f"{where}.resource")
        if s.get("technology") is not None:
            _member(s["technology"], Technology, f"{where}.technology")
        at = (_need(s, "x", int, where), _need(s, "y", int, where))
        if not grid.in_bounds(at):
            raise ExchangeError(f"{where} lies off the map")
        if s["resource"] == Resource.STAR_GATE.value:
            # The same check as a star gate order (docs/rulings.md E11).
            site = star_gate_site(grid, lambda c: SYMBOL_TERRAIN[rows[c[1]][c[0]]], at)
            if site is not None:
                raise ExchangeError(f"{where}: {site[0]}: {site[1]}")
    designs: dict[tuple, DesignSpec] = {}
    for i, d in enumerate(_list(doc, "designs")):
        where = f"designs[{i}]"
        _fits(d, "designs", where)
        owner(d.get("owner"), f"{where}.owner", nullable=True)
        try:
            spec = validate_design(DesignSpec.from_dict(_need(d, "spec", dict, where)))
        except DesignError as exc:
            raise ExchangeError(f"{where}: {exc}") from None
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            raise ExchangeError(f"{where}.spec: {exc}") from None
        _fits({"name": spec.name}, "designs", f"{where}.spec")
        if (d.get("owner"), spec.name) in designs:
            raise ExchangeError(f"{where}: a design named {spec.name!r} for this owner is repeated")
        designs[(d.get("owner"), spec.name)] = spec
    library: dict[str, DesignSpec | None] = {}

    def design_for(ref: dict, seat: int, where: str) -> DesignSpec:
        name = ref["name"]
        if ref["library"]:
            if name not in library:
                row = Design.objects.filter(campaign__isnull=True, name=name).values_list("spec", flat=True).first()
                try:
                    library[name] = None if row is None else DesignSpec.from_dict(row)
                except DesignError:
                    library[name] = None
            found = library[name]
        else:
            found = designs.get((seat, name)) or designs.get((None, name))
        if found is None:
            raise ExchangeError(f"{where}.design: no {'library ' if ref['library'] else ''}design named {name!r}"
                                f" for seat {seat}")
        return found

    fleet_numbers: set[int] = set()
    for i, f in enumerate(_list(doc, "fleets")):
        where = f"fleets[{i}]"
        _fits(f, "fleets", where)
        owner(_need(f, "owner", int, where), f"{where}.owner")
        _unique(fleet_numbers, _need(f, "number", int, where), where, f"fleet number {f['number']}")
        if not grid.in_bounds((_need(f, "x", int, where), _need(f, "y", int, where))):
            raise ExchangeError(f"{where} lies off the map")
    turn_numbers: set[int] = set()
    for i, t in enumerate(_list(doc, "turns")):
        where = f"turns[{i}]"
        _fits(t, "turns", where)
        _unique(turn_numbers, _need(t, "number", int, where), where, f"turn {t['number']}")
        if _need(t, "status", str, where) not in Turn.Status.values:
            raise ExchangeError(f"{where}.status is not one of {', '.join(Turn.Status.values)}")
        _need(t, "events", list, where)
        ordered: set[int] = set()
        for j, o in enumerate(_need(t, "orders", list, where)):
            _fits(o, "orders", f"{where}.orders[{j}]")
            seat = _need(o, "seat", int, f"{where}.orders[{j}]")
            owner(seat, f"{where}.orders[{j}].seat")
            _unique(ordered, seat, f"{where}.orders[{j}]", f"orders for seat {seat}")
            if o.get("orders") is not None and not isinstance(o["orders"], dict):
                raise ExchangeError(f"{where}.orders[{j}].orders: must be an object")
    ship_numbers: set[int] = set()
    for key in ("ships", "builds"):
        for i, s in enumerate(_list(doc, key)):
            where = f"{key}[{i}]"
            _fits(s, key, where)
            seat = _need(s, "owner", int, where)
            owner(seat, f"{where}.owner")
            ref = _need(s, "design", dict, where)
            _need(ref, "name", str, f"{where}.design")
            _need(ref, "library", bool, f"{where}.design")
            design = design_for(ref, seat, where)
            if key == "builds":
                _need(s, "ordered_turn", int, where)
                _need(s, "turns_remaining", int, where)
                if _need(s, "dockyard", int, where) not in numbers:
                    raise ExchangeError(f"{where}.dockyard {s['dockyard']} is not a structure number")
                continue
            _unique(ship_numbers, _need(s, "number", int, where), where, f"ship number {s['number']}")
            if _need(s, "fleet", int, where) not in fleet_numbers:
                raise ExchangeError(f"{where}.fleet {s['fleet']} is not a fleet number")
            _damage(s.get("damage"), design, f"{where}.damage")

    doc["dice_log"] = exports.check_dice_log(
        _list(doc, "dice_log"), seed=seed, seed_hash=c["seed_hash"], dice_offset=c["dice_offset"],
        error=ExchangeError, check_fields=lambda row, where: _fits(row, "dice_log", where))
    return doc
