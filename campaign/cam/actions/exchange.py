"""Import a CAM rubber from its export (docs/export-format.md, "CAM rubbers"): the layer record's
``import_campaign``, which ``importcampaign`` reaches through the registry."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction

from campaign.models import Campaign, DiceRoll, Membership

from .. import adapters
from ..exchange import SECTIONS, ExchangeError, parse_export
from ..models import LAYER, CamCampaign, CamPlayer, CamScenario, CamSD, CamShip
from .errors import ENGINE_ERRORS, CamActionError
from .lobby import _checked_settings, check_campaign_setting

# What the create forms set of ``CamCampaign`` (``_checked_settings``' arguments).
SETTINGS = ("period", "starting_points", "scenarios", "points_level", "break_percent", "replacement_percent",
            "survival_roll", "tables", "replacement_house_rule", "battle_mode", "scenario_mode")
_UNREADABLE = ENGINE_ERRORS + (KeyError, TypeError, ValueError, AttributeError, IndexError)


def _values(row: dict, section: str) -> dict:
    """The row's fields as the model takes them (times and durations back from their JSON form)."""
    model = SECTIONS[section][0]
    out = {}
    for name in SECTIONS[section][1]:
        value, kind = row[name], model._meta.get_field(name).get_internal_type()
        if value is not None and kind == "DateTimeField":
            value = datetime.fromisoformat(value)
        elif value is not None and kind == "DurationField":
            value = timedelta(seconds=value)
        out[name] = value
    return out


def _check_lobby_settings(c: dict, cam: dict) -> None:
    """The settings the rubber's create forms set (the lobby's and the CAM page's), as their
    actions would take them: CAM 4.0, 4.1, 2.2, 2.3, 4.2 by the engine (``_checked_settings``), the
    hours per step within the lobby's bounds. Their columns would take more (a period of 40, a
    break level of 500%), which the rules then misread; the hours per step, the set-up hours and
    the seats as the lobby sets them (``check_campaign_setting``). Raises ``CamActionError`` in the
    lobby's words, naming the path."""
    try:
        _checked_settings(**{name: cam[name] for name in SETTINGS})
    except CamActionError as exc:
        raise CamActionError(f"import refused: cam: {exc}") from None
    for key in ("turn_hours", "setup_hours", "seats"):
        try:
            check_campaign_setting(key, c[key])
        except CamActionError as exc:
            raise CamActionError(f"import refused: campaign.{key}: {exc}") from None


@transaction.atomic
def import_rubber(doc) -> Campaign:
    """Create a CAM rubber from an export document. The document is checked whole first, then the
    written rows are read back through the engine (rosters, forces, battles, scores); a bad file is
    refused naming its first problem, and nothing stays written."""
    try:
        doc = parse_export(doc)
    except ExchangeError as exc:
        raise CamActionError(f"import refused: {exc}") from None
    c = doc["campaign"]
    _check_lobby_settings(c, doc["cam"])
    named = {c["moderator"]} | {m["user"] for m in doc["members"]} | {p["user"] for p in doc["players"]}
    users = {u.username: u for u in get_user_model().objects.filter(username__in=named - {None})}
    for i, p in enumerate(doc["players"]):
        if p["user"] not in users:
            raise CamActionError(f"import refused: players[{i}].user: no account {p['user']!r} on this site")
    for i, s in enumerate(doc["scenarios"]):
        if s["mode"] == CamScenario.Mode.ONLINE and s["stage"] == CamScenario.Stage.FIGHTING:
            raise CamActionError(f"import refused: scenarios[{i}]: its battle is being fought online, and the "
                                 "engine's game is not in the file; settle it before exporting")

    campaign = Campaign.objects.create(
        layer=LAYER, width=0, height=0, battle_mode="tabletop", moderator=users.get(c["moderator"]),
        **_values(c, "campaign"))
    cam = CamCampaign.objects.create(campaign=campaign, **_values(doc["cam"], "cam"))
    Membership.objects.bulk_create([
        Membership(campaign=campaign, user=users[m["user"]], **_values(m, "members"))
        for m in doc["members"] if m["user"] in users])  # accounts this site lacks are left out
    CamSD.objects.bulk_create([CamSD(cam=cam, **_values(sd, "sds")) for sd in doc["sds"]])
    for p in doc["players"]:
        player = CamPlayer.objects.create(cam=cam, user=users[p["user"]], **_values(p, "players"))
        CamShip.objects.bulk_create([CamShip(player=player, **_values(s, "ships")) for s in p["ships"]])
    CamScenario.objects.bulk_create([CamScenario(cam=cam, **_values(s, "scenarios")) for s in doc["scenarios"]])
    DiceRoll.objects.bulk_create([DiceRoll(campaign=campaign, **r) for r in doc["dice_log"]], batch_size=1000)
    _read_back(cam)
    return campaign


def _read_back(cam: CamCampaign) -> None:
    """The written rows as the engine reads them: an unreadable one refuses the import (the
    transaction rolls back)."""
    where = "sds"
    try:
        catalogue = adapters.catalogue(cam)
        for player in cam.players.order_by("seat"):
            where = f"seat {player.seat}'s fleet"
            adapters.faction_of(player)
            for ship in player.ships.all():
                if ship.sd not in catalogue:
                    raise KeyError(f"ship {ship.number}'s SD {ship.sd!r} is neither the rule book's nor the rubber's")
            for entry in player.starting_fleet:
                if entry["sd"] not in catalogue:
                    raise KeyError(f"the starting fleet's SD {entry['sd']!r} is unknown")
        state = adapters.campaign_state(cam) if cam.players.count() == 2 else None
        for row in cam.scenario_rows.order_by("number"):
            where = f"scenario {row.number}"
            adapters.scenario_state(row)
            for seat, selection in row.selections.items():
                adapters.selection_from(int(seat), selection)
            if row.battle is not None:
                adapters.battle_state(row, state)
            if row.stage == CamScenario.Stage.SCORED:
                adapters.record_of(row)
    except _UNREADABLE as exc:
        raise CamActionError(f"import refused: {where}: the rules cannot read it ({exc})") from None
