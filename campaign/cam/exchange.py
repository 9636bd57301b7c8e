"""A CAM rubber's export (docs/export-format.md, "CAM rubbers"): to JSON and back.

``export_rubber`` reads every row of a rubber into the documented structure (the layer record's
``export``); ``parse_export`` checks a document field by field against the columns it becomes and
returns it, raising ``ExchangeError`` that names the path of the first problem. Writing it is the
``import_rubber`` action's job (``actions/exchange.py``, the record's ``import_campaign``), which
then reads the written rows back through the engine's adapters, so a record the rules cannot read
(a battle, a force, a score) is refused too, inside the same transaction.

The fields of each section are the model's own (``SECTIONS``): a column added to a CAM model is
exported and checked once it is named here.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations

from campaign import exports
from campaign.dice import entry_fields, log_entries
from campaign.models import Campaign, DiceRoll, Membership

from .models import LAYER, CamCampaign, CamPlayer, CamScenario, CamSD, CamShip

FORMAT = exports.FORMAT
VERSION = 1

# section -> (model, the fields written); users are written by username ("user", "moderator").
SECTIONS: dict[str, tuple[type[models.Model], tuple[str, ...]]] = {
    "campaign": (Campaign, ("name", "status", "turn", "seats", "options", "dice_seed", "seed_hash", "dice_offset",
                            "turn_hours", "setup_hours", "paused", "paused_remaining", "listed", "show_ready")),
    "cam": (CamCampaign, ("period", "starting_points", "scenarios", "points_level", "break_percent",
                          "replacement_percent", "replacement_house_rule", "tables", "survival_roll", "battle_mode",
                          "scenario_mode", "started", "next_ship_id", "replacements_done", "step", "deadline",
                          "deadline_done")),
    "members": (Membership, ("role", "empire_name", "faction", "colour")),
    "sds": (CamSD, ("key", "ship_class", "name", "speed", "turning", "target_size", "shields", "hull",
                    "crippled_at", "command", "ac", "ac_capacity", "special_abilities", "main", "secondary",
                    "close_defence", "period_first", "period_last", "notes")),
    "players": (CamPlayer, ("seat", "name", "faction", "wealth", "temper", "preset", "starting_fleet",
                            "replacement_points", "campaign_points", "edge_choice", "requests", "between_ready")),
    "ships": (CamShip, ("number", "sd", "name", "status", "destroyed_in", "replaced_by")),
    "scenarios": (CamScenario, ("number", "mode", "stage", "nature", "nature_roll", "defender", "points_level",
                                "break_percent", "selections", "forces", "break_levels", "tables", "edges",
                                "edge_rolls", "battle", "turn_entries", "proposed_by", "force_end", "score",
                                "events")),
}


class ExchangeError(ValueError):
    """A malformed CAM export document; the message names the first problem."""


# --- Writing --------------------------------------------------------------------------------

def _plain(value):
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, timedelta):
        return round(value.total_seconds())
    return value


def _row(obj, section: str) -> dict[str, Any]:
    return {name: _plain(getattr(obj, name)) for name in SECTIONS[section][1]}


def _username(user) -> str | None:
    return user.username if user is not None else None


def export_rubber(campaign: Campaign) -> dict[str, Any]:
    cam = CamCampaign.objects.get(campaign=campaign)
    players = []
    for p in cam.players.select_related("user").prefetch_related("ships").order_by("seat"):
        players.append(_row(p, "players") | {
            "user": p.user.username,
            "ships": [_row(s, "ships") for s in sorted(p.ships.all(), key=lambda s: s.number)]})
    return {
        "format": FORMAT,
        "version": VERSION,
        "campaign": _row(campaign, "campaign") | {"layer": campaign.layer, "moderator": _username(campaign.moderator)},
        "cam": _row(cam, "cam"),
        "members": [_row(m, "members") | {"user": m.user.username}
                    for m in campaign.memberships.select_related("user").order_by("user__username")],
        "sds": [_row(sd, "sds") for sd in cam.sds.order_by("key")],
        "players": players,
        "scenarios": [_row(s, "scenarios") for s in cam.scenario_rows.order_by("number")],
        # The whole log, withheld rolls included, as Event Horizon's: the file holds the seed.
        "dice_log": [entry_fields(e) for e in log_entries(campaign)],
    }


# --- Reading --------------------------------------------------------------------------------

def _type_error(value, field: models.Field, where: str) -> str | None:
    """Why ``value`` cannot be stored in ``field`` as JSON gives it (None: it can)."""
    if value is None:
        return None if field.null else "must not be null"
    if isinstance(field, models.BooleanField):
        return None if isinstance(value, bool) else f"must be true or false, not {value!r}"
    if isinstance(field, (models.IntegerField, models.DurationField)):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be a whole number, not {value!r}"
        kind = "PositiveIntegerField" if isinstance(field, models.DurationField) else field.get_internal_type()
        low, high = BaseDatabaseOperations.integer_field_ranges[kind]
        return None if low <= value <= high else f"must be {low} to {high}, not {value}"
    if isinstance(field, (models.CharField, models.TextField)):
        return None if isinstance(value, str) else f"must be text, not {value!r}"
    if isinstance(field, models.DateTimeField):
        try:
            moment = datetime.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            moment = None
        return None if moment is not None and moment.tzinfo is not None else \
            f"must be a date and time with its zone (ISO 8601), not {value!r}"
    if isinstance(field, models.JSONField):
        default = field.get_default()
        if isinstance(default, (dict, list)) and not isinstance(value, type(default)):
            return f"must be {'an object' if isinstance(default, dict) else 'a list'}, not {value!r}"
    return None


def _fields(row: Any, section: str, where: str) -> dict:
    """``row`` holds exactly the section's fields (and ``extra``), each fit for its column."""
    if not isinstance(row, dict):
        raise ExchangeError(f"{where} must be an object")
    model, names = SECTIONS[section]
    for name in names:
        if name not in row:
            raise ExchangeError(f"{where} is missing '{name}'")
        field = model._meta.get_field(name)
        value = row[name]
        problem = _type_error(value, field, where)
        if problem is None and value is not None and not isinstance(
                field, (models.DateTimeField, models.DurationField, models.JSONField)):
            try:  # choices, lengths, blank text, slugs: the column's own validators
                field.clean(value, None)
            except ValidationError as exc:
                problem = " ".join(exc.messages).rstrip(".")
        if problem:
            raise ExchangeError(f"{where}.{name}: {problem}")
    return row


def _list(doc: dict, key: str, where: str = "the document") -> list:
    if key not in doc:
        raise ExchangeError(f"{where} is missing '{key}'")
    if not isinstance(doc[key], list):
        raise ExchangeError(f"{key} must be a list")
    return doc[key]


def _user(row: dict, key: str, where: str, *, null: bool = False):
    value = row.get(key)
    if value is None and null:
        return None
    if not isinstance(value, str) or not value:
        raise ExchangeError(f"{where}.{key} must be a username, not {value!r}")
    return value


def _unique(seen: set, key, where: str, what: str) -> None:
    if key in seen:
        raise ExchangeError(f"{where}: {what} is repeated")
    seen.add(key)


def parse_export(doc: Any) -> dict:
    """Check a CAM export document whole; return it (its dice log rows normalised)."""
    exports.check_envelope(doc, VERSION, ExchangeError)
    c = doc.get("campaign")
    if not isinstance(c, dict):
        raise ExchangeError("the document is missing the object 'campaign'")
    if c.get("layer") != LAYER:
        raise ExchangeError(f"campaign.layer {c.get('layer')!r} is not '{LAYER}'")
    if c.get("dice_seed") is None:
        raise ExchangeError("campaign.dice_seed is null: a file downloaded from the site while the rubber runs "
                            "holds no seed and does not import (export it with exportcampaign on the server)")
    exports.check_name(c, ExchangeError)  # as the lobby would take it, in the same words as Event Horizon's
    _fields(c, "campaign", "campaign")
    exports.check_options(LAYER, c["options"], ExchangeError)  # as the lobby would take them
    _user(c, "moderator", "campaign", null=True)
    try:
        seed = bytes.fromhex(c["dice_seed"])
    except ValueError:
        raise ExchangeError("campaign.dice_seed must be hexadecimal") from None
    _fields(doc.get("cam"), "cam", "cam")

    seen: set = set()
    for i, m in enumerate(_list(doc, "members")):
        where = f"members[{i}]"
        _fields(m, "members", where)
        _unique(seen, _user(m, "user", where), where, f"member {m['user']!r}")
    seen = set()
    for i, sd in enumerate(_list(doc, "sds")):
        _unique(seen, _fields(sd, "sds", f"sds[{i}]")["key"], f"sds[{i}]", f"SD key {sd['key']!r}")
    players = _list(doc, "players")
    if len(players) > 2:
        raise ExchangeError(f"players: a rubber has two fleets (ruling CAM5), not {len(players)}")
    seats: set = set()
    users: set = set()
    numbers: set = set()
    for i, p in enumerate(players):
        where = f"players[{i}]"
        _fields(p, "players", where)
        if p["seat"] not in (1, 2):
            raise ExchangeError(f"{where}.seat must be 1 or 2, not {p['seat']}")
        _unique(seats, p["seat"], where, f"seat {p['seat']}")
        _unique(users, _user(p, "user", where), where, f"player {p['user']!r}")
        for j, s in enumerate(_list(p, "ships", where)):
            _fields(s, "ships", f"{where}.ships[{j}]")
            _unique(numbers, s["number"], f"{where}.ships[{j}]", f"ship number {s['number']}")
    seen = set()
    for i, s in enumerate(_list(doc, "scenarios")):
        _unique(seen, _fields(s, "scenarios", f"scenarios[{i}]")["number"], f"scenarios[{i}]",
                f"scenario number {s['number']}")
    doc["dice_log"] = _dice_log(doc, seed, c)
    return doc


def _dice_log(doc: dict, seed: bytes, c: dict) -> list[dict]:
    """The log verifies against the seed (docs/dice.md) and ends where the stream stands."""

    def columns(row: dict, where: str) -> None:
        for key in ("seq", "turn", "phase", "purpose", "expression", "total", "offset", "words", "prev_hash",
                    "hash"):
            problem = _type_error(row.get(key), DiceRoll._meta.get_field(key), where)
            if problem:
                raise ExchangeError(f"{where}.{key}: {problem}")

    return exports.check_dice_log(_list(doc, "dice_log"), seed=seed, seed_hash=c["seed_hash"],
                                  dice_offset=c["dice_offset"], error=ExchangeError, check_fields=columns)
