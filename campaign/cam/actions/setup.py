"""Creating and starting a CAM campaign: the two players, their starting fleets (CAM 4.0, 000
1.5), custom SDs and the start."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import models, transaction

from campaign.models import Campaign, Membership
from campaign.rules.cam import factions as fx
from campaign.rules.cam import scenario as sc
from campaign.rules.cam import ships as sh
from campaign.rules.cam import state as st
from campaign.rules.dice import derive_seed, new_seed, seed_hash

from .. import adapters
from ..models import LAYER, CamCampaign, CamPlayer, CamSD, ScenarioMode
from .common import _acting_seat, _audit, _locked, _moderator_only, _next_step, set_step_deadline
from .errors import ENGINE_ERRORS, CamActionError, NotAllowed, _refuse
from .lobby import _checked_settings

SD_FIELDS = {"key", "ship_class", "name", "speed", "turning", "target_size", "shields", "hull", "crippled_at",
             "command", "ac", "ac_capacity", "special_abilities", "main", "secondary", "close_defence",
             "period_first", "period_last", "notes"}


# --- creating and starting -----------------------------------------------------------------------


def _fleet(raw) -> list[dict]:
    if raw is not None and not isinstance(raw, (list, tuple)):
        raise CamActionError(f"a fleet is a list of SD keys (or {{'sd': key, 'name': …}}), not {raw!r}"[:300])
    out = []
    for item in raw or ():
        if isinstance(item, str):
            item = {"sd": item}
        if not isinstance(item, dict) or not isinstance(item.get("sd"), str) or not item["sd"].strip():
            raise CamActionError(f"a fleet lists ships as SD keys (or {{'sd': key, 'name': …}}), not {item!r}")
        out.append({"sd": item["sd"].strip(), "name": str(item.get("name") or "").strip()[:120]})
    return out


def _check_fleet(ships: list[dict], known, period: int, who: str = "") -> None:
    """Each entered ship's SD must be in the catalogue and available in the campaign's Period,
    refused when entered (ruling CAM36); the points are checked at the start (CAM 4.0)."""
    for i, s in enumerate(ships, start=1):
        sd = known.get(s["sd"])
        if sd is None:
            raise CamActionError(f"000 1.5: {who}ship {i}: no SD {s['sd']!r} in the campaign's catalogue")
        if not sd.available_in(period):
            first, last = sd.periods
            raise CamActionError(
                f"000 1.5 / CAM 4.1: {who}ship {i}: {sd.name} ({sd.key}) is available in "
                f"{f'Period {first}' if first == last else f'Periods {first} to {last}'}, not in the campaign's "
                f"Period {period}")


def _check_create_types(name, seed, players) -> None:
    """Text is text and the players a list of objects, before anything reads them (a name of [1]
    was stored as "[1]", a seed of [] or 0 meant "random", a player given as text was a 400 quoting
    Python's AttributeError)."""
    if name is not None and not isinstance(name, str):
        raise CamActionError(f"the campaign's name is text, not {name!r}"[:300])
    if seed is not None and not isinstance(seed, str):
        raise CamActionError(f"the seed is text, not {seed!r}"[:300])
    if not isinstance(players, list) or not all(isinstance(p, dict) for p in players):
        raise CamActionError(f"{st.CAMPAIGN_RULE}: players is a list of two objects {{username, name, faction, "
                             f"wealth, temper, fleet}}, not {players!r}"[:300])
    for seat, p in enumerate(players, start=1):
        for key in ("username", "name", "faction", "wealth", "temper", "edge_choice"):
            if p.get(key) is not None and not isinstance(p[key], str):
                raise CamActionError(f"player {seat}: {key} is text, not {p[key]!r}"[:300])


@transaction.atomic
def create_cam_campaign(*, user, name: str, period: int, starting_points: int, players: list[dict],
                        scenarios: int = st.DEFAULT_SCENARIOS, points_level: int = st.DEFAULT_POINTS_LEVEL,
                        break_percent: int = st.DEFAULT_BREAK_PERCENT,
                        replacement_percent: int = st.DEFAULT_REPLACEMENT_PERCENT, survival_roll: bool = False,
                        battle_mode: str = CamCampaign.BattleMode.TABLETOP, seed: str | None = None,
                        tables: int = 1, replacement_house_rule: bool = False,
                        scenario_mode: str = ScenarioMode.TABLETOP) -> Campaign:
    """A CAM campaign with ``user`` as moderator and two named players (``players``: dicts of
    username, name, faction, wealth, temper, fleet). It waits in set-up until ``start``.
    ``scenario_mode``: how its scenarios are fought unless the moderator switches one."""
    if not user.is_authenticated:
        raise NotAllowed("log in to create a campaign")
    _check_create_types(name, seed, players)
    name = (name or "").strip()
    if not name:
        raise CamActionError("the campaign needs a name")
    settings = _checked_settings(period=period, starting_points=starting_points, scenarios=scenarios,
                               points_level=points_level, break_percent=break_percent,
                               replacement_percent=replacement_percent, survival_roll=survival_roll, tables=tables,
                               replacement_house_rule=replacement_house_rule, battle_mode=battle_mode,
                               scenario_mode=scenario_mode)
    if len(players) != 2:
        raise CamActionError(f"{st.CAMPAIGN_RULE}: a CAM campaign is fought between two players (ruling CAM5)")
    User = get_user_model()
    rows = []
    for seat, p in enumerate(players, start=1):
        username = str(p.get("username") or "").strip()
        player_user = User.objects.filter(username=username, is_active=True).first()
        if player_user is None:
            raise CamActionError(f"player {seat}: there is no account {username!r}")
        try:
            fields = adapters.faction_fields(str(p.get("faction") or "").strip(), p.get("wealth") or None,
                                             p.get("temper") or None)
        except fx.FactionError as exc:
            raise CamActionError(f"player {seat}: {exc}") from None
        edge = p.get("edge_choice") or "south"
        if edge not in sc.EDGES:
            raise CamActionError(f"player {seat}: edge is one of {', '.join(sc.EDGES)}, not {edge!r}")
        fleet = _fleet(p.get("fleet"))
        _check_fleet(fleet, sh.STARTER_CATALOGUE, period, f"player {seat}: ")
        rows.append((seat, player_user, str(p.get("name") or "").strip()[:80] or f"{fields['faction']} fleet",
                     fields, fleet, edge))
    if rows[0][1] == rows[1][1]:
        raise CamActionError("the two players must be different accounts")
    seed_raw = derive_seed(seed) if seed else new_seed()
    campaign = Campaign.objects.create(
        # ACTIVE from the start (the Event Horizon lobby lists SETUP campaigns); CamCampaign.started
        # tells the CAM set-up from the rubber.
        name=name[:120], layer=LAYER, width=0, height=0, status=Campaign.Status.ACTIVE, turn=1, seats=2,
        dice_seed=seed_raw.hex(), seed_hash=seed_hash(seed_raw), moderator=user, battle_mode="tabletop")
    cam = CamCampaign.objects.create(campaign=campaign, **settings)
    Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.MODERATOR)
    for seat, player_user, fleet_name, fields, fleet, edge in rows:
        if player_user != user:
            Membership.objects.create(campaign=campaign, user=player_user, role=Membership.Role.PLAYER,
                                      empire_name=fleet_name, faction=fields["faction"])
        CamPlayer.objects.create(cam=cam, user=player_user, seat=seat, name=fleet_name, starting_fleet=fleet,
                                 edge_choice=edge, **fields)
    set_step_deadline(campaign, cam)  # the set-up step
    return campaign


@transaction.atomic
def set_starting_fleet(*, campaign_id: int, user, fleet, seat: int | None = None) -> CamPlayer:
    """Before the start: a player's starting ships (SD keys, names). Checked in full at ``start``."""
    campaign, cam, role = _locked(campaign_id, user)
    if cam.started:
        raise CamActionError("000 CAM 4.0: the starting fleets are fixed once the campaign has started")
    player = _acting_seat(cam, user, role, seat, "set a starting fleet")
    ships = _fleet(fleet)
    _check_fleet(ships, adapters.catalogue(cam), cam.period)
    player.starting_fleet = ships
    player.save(update_fields=["starting_fleet"])
    return player


def _check_sd_types(fields: dict) -> None:
    """Each SD field of the type its column holds, before the ORM sees it (a list as the key, a
    null name or a hull of 99999 were a 500 from the database)."""
    for name, value in fields.items():
        field = CamSD._meta.get_field(name)
        if value is None:
            if not field.null:
                raise CamActionError(f"000 1.5: an SD's {name} is required, not null")
        elif isinstance(field, (models.CharField, models.TextField)):
            if not isinstance(value, str):
                raise CamActionError(f"000 1.5: an SD's {name} is text, not {value!r}"[:300])
            if field.max_length and len(value) > field.max_length:
                raise CamActionError(f"000 1.5: an SD's {name} is at most {field.max_length} characters")
        elif isinstance(field, models.PositiveSmallIntegerField):
            if not _whole(value) or not 0 <= value <= 32767:
                raise CamActionError(f"000 1.5: an SD's {name} is a whole number from 0 to 32767, not {value!r}"[:300])
    shape = {
        "shields": lambda v: isinstance(v, list) and len(v) == 4 and all(_whole(x) for x in v),
        "special_abilities": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "main": lambda v: isinstance(v, list) and all(
            isinstance(w, list) and len(w) in (2, 3) and _whole(w[0]) and all(isinstance(x, str) for x in w[1:])
            for w in v),
    }
    wanted = {"shields": "four whole numbers [fore, port, starboard, aft]",
              "special_abilities": "a list of texts",
              "main": "a list of weapons [count, name] or [count, name, arc]"}
    for name, ok in shape.items():
        if name in fields and not ok(fields[name]):
            raise CamActionError(f"000 1.5: an SD's {name} is {wanted[name]}, not {fields[name]!r}"[:300])
    if "ship_class" in fields and fields["ship_class"] not in {
        c for c, _ in CamSD._meta.get_field("ship_class").choices
    }:
        raise CamActionError(f"000 1.5: an SD's ship_class is one of "
                             f"{', '.join(c for c, _ in CamSD._meta.get_field('ship_class').choices)}, "
                             f"not {fields['ship_class']!r}"[:300])


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@transaction.atomic
def add_custom_sd(*, campaign_id: int, user, fields: dict) -> CamSD:
    """A custom SD (000 1.5), checked against T'Corr's limits; the moderator adds it."""
    campaign, cam, role = _locked(campaign_id, user)
    _moderator_only(role, "add a ship description")
    unknown = set(fields) - SD_FIELDS
    if unknown:
        raise CamActionError(f"000 1.5: SDs have no field(s) {', '.join(sorted(unknown))}")
    _check_sd_types(fields)
    if cam.sds.filter(key=fields.get("key")).exists():
        raise CamActionError(f"000 1.5: the campaign already has an SD {fields.get('key')!r}")
    try:
        row = CamSD(cam=cam, **fields)
        sd = adapters.sd_from_row(row)
        sh.make_catalogue(sd, base=adapters.catalogue(cam))
    except (sh.SDError, ValueError, TypeError, KeyError, IndexError) as exc:
        raise CamActionError(str(exc)) from None
    row.save()
    _audit(campaign, user, "cam_add_sd", f"SD {sd.key}", adapters.sd_fields(sd))
    return row


@transaction.atomic
def start(*, campaign_id: int, user) -> Campaign:
    """The moderator starts the rubber: ``new_campaign`` checks both fleets (CAM 4.0 points, 1.5
    periods) and the roster is written."""
    campaign, cam, role = _locked(campaign_id, user)
    _moderator_only(role, "start the campaign")
    state = _start(campaign, cam)
    _audit(campaign, user, "cam_start", "campaign", {"ships": state.next_ship_id - 1})
    return campaign


def _start(campaign: Campaign, cam: CamCampaign) -> st.CamCampaign:
    """The start itself (the caller holds the campaign row lock and has checked who may): also
    made by a passed set-up deadline (``deadlines``, ruling CAM50)."""
    if cam.started:
        raise CamActionError("the campaign has already started")
    players = list(cam.players.order_by("seat"))
    try:
        starting = [
            st.StartingPlayer(
                seat=p.seat,
                name=p.name,
                faction=adapters.faction_of(p),
                ships=tuple(st.StartingShip(s["sd"], s.get("name", "")) for s in p.starting_fleet),
            )
            for p in players
        ]
        state = st.new_campaign(adapters.settings_of(cam), starting, adapters.catalogue(cam))
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    _next_step(campaign, cam, "the rubber started (CAM 4.0)")
    adapters.store_campaign(cam, state)
    cam.started = True
    cam.save(update_fields=["started"])
    return state
