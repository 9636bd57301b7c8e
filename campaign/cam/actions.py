"""Every change to a CAM campaign is one of these actions.

Each action is atomic, locks the campaign row (``select_for_update``) before reading state,
adapts rows to the pure engine (``campaign.rules.cam``) through ``adapters``, lets the engine
decide, writes the result back, commits its dice to the campaign's hash-chained log
(``CampaignDice``) in the same transaction and sends emails only on commit. A refused action
raises ``CamActionError`` (``NotAllowed``: 403, ``NotFound``: 404) naming the problem, and changes
nothing — not even the dice stream.

Flow of one scenario (``CamScenario.stage``): ``generate_scenario`` (CAM 2.1) → each player's
``select_forces`` (CAM 2.2) → ``roll_table`` (CAM 2.3) → ``enter_turn`` after every game turn
(CAM 3.0/3.1 break-contact checks) until contact is broken, a side is gone or a player
``propose_end``s → ``confirm_result`` by the other player (CAM 3.1, 4.3) — or ``autoresolve``
(ruling CAM26) → ``submit_replacements`` from both players runs CAM 4.2 → the next scenario.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from campaign.access import role_of
from campaign.dice import CampaignDice
from campaign.models import AuditEntry, Campaign, Membership
from campaign.rules.cam import autoresolve as ar
from campaign.rules.cam import breakcontact as bc
from campaign.rules.cam import factions as fx
from campaign.rules.cam import replacements as rp
from campaign.rules.cam import scenario as sc
from campaign.rules.cam import scoring as scoring_rules
from campaign.rules.cam import ships as sh
from campaign.rules.cam import state as st
from campaign.rules.dice import derive_seed, new_seed, seed_hash

from . import adapters, notify
from .models import LAYER, CamCampaign, CamPlayer, CamScenario, CamSD

SD_FIELDS = {"key", "ship_class", "name", "speed", "turning", "target_size", "shields", "hull", "crippled_at",
             "command", "ac", "ac_capacity", "special_abilities", "main", "secondary", "close_defence",
             "period_first", "period_last", "notes"}
ENGINE_ERRORS = (st.CampaignSetupError, sh.SDError, fx.FactionError, sc.ScenarioError, sc.ForceSelectionError,
                 bc.BattleError, scoring_rules.ScoringError, rp.ReplacementError)


class CamActionError(ValueError):
    """A refused action; the message names the problem (and the rule). Nothing was changed.
    ``reason`` is the engine's short code where it gives one (e.g. ``over_points``)."""

    def __init__(self, message: str, reason: str = ""):
        self.reason = reason
        super().__init__(message)


class NotAllowed(CamActionError):
    pass


class NotFound(CamActionError):
    pass


def _refuse(exc: Exception) -> CamActionError:
    return CamActionError(str(exc), getattr(exc, "reason", ""))


# --- access --------------------------------------------------------------------------------------


def _locked(campaign_id: int, user) -> tuple[Campaign, CamCampaign, str]:
    """The CAM campaign row, locked, the CAM settings and the user's role. Outsiders: NotFound."""
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id, layer=LAYER).first()
    role = role_of(user, campaign) if campaign is not None else None
    if campaign is None or role is None:
        raise NotFound("no such CAM campaign")
    return campaign, campaign.cam, role


def _acting_seat(cam: CamCampaign, user, role: str, seat: int | None, doing: str) -> CamPlayer:
    """The seat a user acts for: their own; the moderator names one. Anyone else: NotAllowed."""
    mine = cam.players.filter(user=user).first()
    if seat is None:
        if mine is None:
            raise NotAllowed(f"only a player can {doing}" + (" (as moderator, name the seat)"
                                                            if role == Membership.Role.MODERATOR else ""))
        return mine
    player = cam.players.filter(seat=seat).first()
    if player is None:
        raise CamActionError(f"this campaign has no seat {seat!r}")
    if player != mine and role != Membership.Role.MODERATOR:
        raise NotAllowed(f"you can {doing} only for your own fleet (seat {mine.seat if mine else '—'})")
    return player


def _moderator_only(role: str, doing: str) -> None:
    if role != Membership.Role.MODERATOR:
        raise NotAllowed(f"only the campaign's moderator can {doing}")


def _active(campaign: Campaign) -> None:
    if not campaign.cam.started:
        raise CamActionError("the campaign has not started yet: the moderator starts it once both fleets are set")
    if campaign.status == Campaign.Status.FINISHED:
        raise CamActionError("000 CAM 4.1: the rubber is over")


def _audit(campaign, user, action: str, target: str, after=None, note: str = "") -> None:
    AuditEntry.objects.create(campaign=campaign, user=user if user.is_authenticated else None, action=action,
                              target=target[:120], after=after, note=note)


def _current(cam: CamCampaign) -> CamScenario | None:
    return cam.scenario_rows.exclude(stage=CamScenario.Stage.SCORED).order_by("-number").first()


def _scenario(cam: CamCampaign, stage: str | tuple[str, ...], doing: str) -> CamScenario:
    stages = (stage,) if isinstance(stage, str) else stage
    row = _current(cam)
    if row is None or row.stage not in stages:
        now = f"scenario {row.number} is at '{row.get_stage_display()}'" if row else "no scenario is in progress"
        raise CamActionError(f"cannot {doing} now: {now}")
    return row


def _add_events(row: CamScenario, events) -> None:
    row.events = list(row.events) + [adapters.event_json(e) for e in events]


# --- creating and starting -----------------------------------------------------------------------


def _fleet(raw) -> list[dict]:
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


@transaction.atomic
def create_cam_campaign(*, user, name: str, period: int, starting_points: int, players: list[dict],
                        scenarios: int = st.DEFAULT_SCENARIOS, points_level: int = st.DEFAULT_POINTS_LEVEL,
                        break_percent: int = st.DEFAULT_BREAK_PERCENT,
                        replacement_percent: int = st.DEFAULT_REPLACEMENT_PERCENT, survival_roll: bool = False,
                        battle_mode: str = CamCampaign.BattleMode.TABLETOP, seed: str | None = None,
                        tables: int = 1, replacement_house_rule: bool = False) -> Campaign:
    """A CAM campaign with ``user`` as moderator and two named players (``players``: dicts of
    username, name, faction, wealth, temper, fleet). It waits in set-up until ``start``."""
    if not user.is_authenticated:
        raise NotAllowed("log in to create a campaign")
    name = (name or "").strip()
    if not name:
        raise CamActionError("the campaign needs a name")
    settings = st.CamSettings(period=period, starting_points=starting_points, scenarios=scenarios,
                              points_level=points_level, break_percent=break_percent,
                              replacement_percent=replacement_percent, survival_roll=survival_roll,
                              tables=tables, replacement_house_rule=replacement_house_rule)
    try:
        settings.check()
    except st.CampaignSetupError as exc:
        raise _refuse(exc) from None
    if battle_mode not in CamCampaign.BattleMode.values:
        raise CamActionError(f"battle mode is one of {CamCampaign.BattleMode.values}, not {battle_mode!r}")
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
    cam = CamCampaign.objects.create(
        campaign=campaign, period=period, starting_points=starting_points, scenarios=scenarios,
        points_level=points_level, break_percent=break_percent, replacement_percent=replacement_percent,
        survival_roll=survival_roll, battle_mode=battle_mode, tables=tables,
        replacement_house_rule=replacement_house_rule)
    Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.MODERATOR)
    for seat, player_user, fleet_name, fields, fleet, edge in rows:
        if player_user != user:
            Membership.objects.create(campaign=campaign, user=player_user, role=Membership.Role.PLAYER,
                                      empire_name=fleet_name, faction=fields["faction"])
        CamPlayer.objects.create(cam=cam, user=player_user, seat=seat, name=fleet_name, starting_fleet=fleet,
                                 edge_choice=edge, **fields)
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


@transaction.atomic
def add_custom_sd(*, campaign_id: int, user, fields: dict) -> CamSD:
    """A custom SD (000 1.5), checked against T'Corr's limits; the moderator adds it."""
    campaign, cam, role = _locked(campaign_id, user)
    _moderator_only(role, "add a ship description")
    unknown = set(fields) - SD_FIELDS
    if unknown:
        raise CamActionError(f"000 1.5: SDs have no field(s) {', '.join(sorted(unknown))}")
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
    if cam.started:
        raise CamActionError("the campaign has already started")
    players = list(cam.players.order_by("seat"))
    try:
        starting = [st.StartingPlayer(seat=p.seat, name=p.name, faction=adapters.faction_of(p),
                                      ships=tuple(st.StartingShip(s["sd"], s.get("name", "")) for s in p.starting_fleet))
                    for p in players]
        state = st.new_campaign(adapters.settings_of(cam), starting, adapters.catalogue(cam))
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    adapters.store_campaign(cam, state)
    cam.started = True
    cam.save(update_fields=["started"])
    _audit(campaign, user, "cam_start", "campaign", {"ships": state.next_ship_id - 1})
    return campaign


# --- CAM 2.1 – 2.3 ------------------------------------------------------------------------------


@transaction.atomic
def generate_scenario(*, campaign_id: int, user, nature: str | None = None, defender: int | None = None) -> CamScenario:
    """CAM 2.1: the next scenario's nature (rolled; the moderator may choose it beforehand, CAM
    4.1) and, for a planetary dispute or convoy, the defender; CAM 2.2 points level."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    if (nature or defender is not None) and role != Membership.Role.MODERATOR:
        raise NotAllowed("only the moderator can choose a scenario's nature or defender beforehand (CAM 4.1)")
    if _current(cam) is not None:
        raise CamActionError(f"scenario {_current(cam).number} is still in progress")
    state = adapters.campaign_state(cam)
    dice = CampaignDice(campaign, phase="cam-scenario", turn=state.scenarios_played + 1)
    try:
        result = sc.generate_scenario(state, dice, nature=nature or None, defender=defender)
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    row = CamScenario(cam=cam)
    adapters.store_scenario(row, result.scenario)
    _add_events(row, result.events)
    row.save()
    dice.commit()
    campaign.turn = row.number
    campaign.save(update_fields=["turn"])
    cam.players.update(requests=[], between_ready=False)
    notify.scenario_generated(campaign, row)
    return row


@transaction.atomic
def select_forces(*, campaign_id: int, user, ships, extra_ac: int = 0, bases: int = 0, minefields: int = 0,
                  edge_choice: str | None = None, seat: int | None = None, on_table: bool = False) -> CamScenario:
    """CAM 2.2: a player's force for the scenario, checked by the engine (points level, convoy
    proportions, ship states, Period). Bases and minefields are priced by a roll when first added
    (ruling CAM9) and keep their price; a refused selection changes nothing (no die is logged)."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _scenario(cam, CamScenario.Stage.FORCES, "choose forces")
    player = _acting_seat(cam, user, role, seat, "choose a force")
    for label, value in (("extra AC counters", extra_ac), ("bases", bases), ("minefields", minefields)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 20:
            raise CamActionError(f"{sc.POINTS_RULE}: {label} must be a whole number from 0 to 20, not {value!r}")
    if not isinstance(on_table, bool):
        raise CamActionError(f"{sc.TABLE_RULE}: 'already on the table' is true or false, not {on_table!r}")
    if edge_choice is not None and edge_choice not in sc.EDGES:
        raise CamActionError(f"{sc.TABLE_RULE}: edge is one of {', '.join(sc.EDGES)}, not {edge_choice!r}")
    if not isinstance(ships, list | tuple) or any(isinstance(s, bool) or not isinstance(s, int) for s in ships):
        raise CamActionError(f"{sc.POINTS_RULE}: ships are listed by roster number (whole numbers)")
    previous = row.selections.get(str(player.seat), {})
    dice = CampaignDice(campaign, phase="cam-forces", turn=row.number)
    costs = {}
    for kind, count in (("base", bases), ("minefield", minefields)):
        kept = list(previous.get(f"{kind}s", []))[:count]
        try:
            costs[kind] = kept + [sc.roll_extra_cost(kind, dice) for _ in range(count - len(kept))]
        except ENGINE_ERRORS as exc:
            raise _refuse(exc) from None
    selection = sc.ForceSelection(seat=player.seat, ships=tuple(ships), extra_ac=extra_ac,
                                  bases=tuple(costs["base"]), minefields=tuple(costs["minefield"]), on_table=on_table)
    state = adapters.campaign_state(cam)
    try:
        scenario = sc.select_forces(state, adapters.scenario_state(row), selection)
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    adapters.store_scenario(row, scenario)
    row.selections = {**row.selections, str(player.seat): adapters.selection_json(selection)}
    row.save()
    dice.commit()
    if edge_choice and edge_choice != player.edge_choice:
        player.edge_choice = edge_choice
        player.save(update_fields=["edge_choice"])
    return row


@transaction.atomic
def roll_table(*, campaign_id: int, user) -> CamScenario:
    """CAM 2.3 once both forces are chosen: table nature (+2 for a planetary dispute), table
    edges (2D6, 1D6 for a side already on the table) and the 'Break Contact' levels; the game
    begins."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _scenario(cam, CamScenario.Stage.FORCES, "roll the table")
    state = adapters.campaign_state(cam)
    dice = CampaignDice(campaign, phase="cam-table", turn=row.number)
    choice = {p.seat: p.edge_choice for p in cam.players.all()}
    try:
        result = sc.set_up_table(state, adapters.scenario_state(row), dice, edge_choice=choice)
        battle = bc.start_battle(state, result.scenario)
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    adapters.store_scenario(row, result.scenario)
    row.battle = adapters.battle_json(battle)
    row.stage = CamScenario.Stage.FIGHTING
    row.turn_entries = {}
    _add_events(row, result.events)
    row.save()
    dice.commit()
    return row


# --- CAM 3.0 / 3.1: the game ---------------------------------------------------------------------


def _uids(value, label: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise CamActionError(f"{label} lists unit ids such as 'ship:3' or 'ac:1'")
    return list(value)


def _side_gone(battle: bc.BattleState) -> bool:
    return any(not [u for u in battle.on_table(s) if u.kind in ("ship", "ac")] for s in battle.scenario.seats)


@transaction.atomic
def enter_turn(*, campaign_id: int, user, destroyed=(), crippled=(), left=(), seat: int | None = None) -> CamScenario:
    """After a game turn each player enters what happened to their own units (destroyed,
    crippled, left the table). When both have entered, the site makes the End Phase: CAM 3.0
    step 1 and every CAM 3.1 break-contact check (rolled with the faction modifier). The game
    is over once contact is broken or a side has no ships left on the table; the player who
    completed the turn has then entered the result, and the other confirms it."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _scenario(cam, CamScenario.Stage.FIGHTING, "enter a game turn")
    player = _acting_seat(cam, user, role, seat, "enter losses")
    entry = {"destroyed": _uids(destroyed, "destroyed"), "crippled": _uids(crippled, "crippled"),
             "left": _uids(left, "left")}
    state = adapters.campaign_state(cam)
    battle = adapters.battle_state(row, state)
    try:
        bc.record_damage(battle, player.seat, **entry)  # the engine checks the entry now
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    entries = {**row.turn_entries, str(player.seat): entry}
    row.turn_entries = entries
    if all(str(s) in entries for s in battle.scenario.seats):
        # A side ordered to break contact is entered last: its ships leaving may end all contact.
        for s in sorted(battle.scenario.seats, key=battle.ordered_to_break):
            try:
                battle = bc.record_damage(battle, s, **entries[str(s)])
            except ENGINE_ERRORS as exc:
                raise _refuse(exc) from None
        dice = CampaignDice(campaign, phase="cam-break-contact", turn=row.number)
        # CAM 3.0: step 1 (the checks) comes before step 2 (the tally), the last turn's too (CAM27).
        resolution = bc.end_of_turn(battle, dice)
        battle = resolution.battle
        _add_events(row, resolution.events)
        row.battle = adapters.battle_json(battle)
        row.turn_entries = {}
        if battle.contact_broken or _side_gone(battle):
            row.stage = CamScenario.Stage.CONFIRMING
            row.proposed_by = player.seat if player.user == user else 0
            row.force_end = not battle.contact_broken
            row.events = row.events + [{"step": "scoring", "kind": "ended", "seats": [], "data": {},
                                        "text": f"The game is over after turn {battle.turn - 1} "
                                                f"({'all table contact broken' if battle.contact_broken else 'a side has no ships left on the table'}; 000 CAM 3.0)."}]
            notify.result_needs_confirmation(campaign, row)
        row.save()
        dice.commit()
    else:
        row.save(update_fields=["turn_entries"])
    return row


@transaction.atomic
def propose_end(*, campaign_id: int, user, seat: int | None = None) -> CamScenario:
    """A player enters the end of the game (the players agree to stop: ruling CAM15); the
    other player confirms the result. Losses of the turn not yet complete are not counted."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _scenario(cam, CamScenario.Stage.FIGHTING, "end the game")
    player = _acting_seat(cam, user, role, seat, "end the game")
    row.stage = CamScenario.Stage.CONFIRMING
    row.proposed_by = player.seat if player.user == user else 0
    row.force_end = True
    row.turn_entries = {}
    row.save()
    notify.result_needs_confirmation(campaign, row)
    return row


def score_preview(row: CamScenario) -> scoring_rules.ScenarioScore | None:
    """The score the entered result gives (for the confirmation page); None while fighting."""
    if row.stage != CamScenario.Stage.CONFIRMING:
        return None
    state = adapters.campaign_state(row.cam)
    return scoring_rules.score_scenario(adapters.battle_state(row, state), force_end=row.force_end)


def _record(campaign: Campaign, cam: CamCampaign, row: CamScenario, battle: bc.BattleState, force_end: bool) -> None:
    state = adapters.campaign_state(cam)
    score = scoring_rules.score_scenario(battle, force_end=force_end)
    resolution = scoring_rules.record_scenario(state, battle, score)
    adapters.store_campaign(cam, resolution.campaign)
    row.battle = adapters.battle_json(battle)
    row.score = adapters.score_json(score)
    row.stage = CamScenario.Stage.SCORED
    before = len(row.events)
    _add_events(row, resolution.events)
    row.save()
    cam.players.update(requests=[], between_ready=False)
    notify.scenario_scored(campaign, row, row.events[before:])
    if resolution.campaign.finished:
        campaign.status = Campaign.Status.FINISHED
        campaign.save(update_fields=["status"])
        notify.rubber_ended(campaign, scoring_rules.standings(resolution.campaign))


@transaction.atomic
def confirm_result(*, campaign_id: int, user) -> CamScenario:
    """The other player (or the moderator) confirms the entered result: CAM 3.1 points left, +50
    if not forced to break, the victory scale; CAM 4.3 campaign points; roster ships destroyed or
    crippled."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _scenario(cam, CamScenario.Stage.CONFIRMING, "confirm the result")
    mine = cam.players.filter(user=user).first()
    if role != Membership.Role.MODERATOR and (mine is None or mine.seat == row.proposed_by):
        raise NotAllowed("the result is confirmed by the other player (or the moderator), not by the one who entered it")
    state = adapters.campaign_state(cam)
    try:
        _record(campaign, cam, row, adapters.battle_state(row, state), row.force_end)
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    return row


@transaction.atomic
def reject_result(*, campaign_id: int, user) -> CamScenario:
    """The other player disputes an entered end: the game goes on. A result the break-contact
    dice decided cannot be disputed (the moderator can still confirm it)."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _scenario(cam, CamScenario.Stage.CONFIRMING, "dispute the result")
    mine = cam.players.filter(user=user).first()
    if role != Membership.Role.MODERATOR and (mine is None or mine.seat == row.proposed_by):
        raise NotAllowed("only the other player (or the moderator) can dispute the result")
    battle = adapters.battle_state(row, adapters.campaign_state(cam))
    if battle.contact_broken:
        raise CamActionError("000 CAM 3.0: all table contact has been broken; the game cannot go on")
    row.stage = CamScenario.Stage.FIGHTING
    row.proposed_by = None
    row.force_end = False
    row.save()
    return row


@transaction.atomic
def autoresolve(*, campaign_id: int, user) -> CamScenario:
    """The rest of the battle by the Event Horizon odds system on CAM points (ruling CAM26),
    then scored at once (the dice decide; no confirmation). The moderator may always; players
    only in a campaign whose battle mode allows it."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    if role != Membership.Role.MODERATOR and cam.battle_mode != CamCampaign.BattleMode.AUTO:
        raise NotAllowed("in a tabletop campaign only the moderator can auto-resolve a battle")
    if role == Membership.Role.OBSERVER:
        raise NotAllowed("observers cannot auto-resolve a battle")
    row = _scenario(cam, CamScenario.Stage.FIGHTING, "auto-resolve")
    state = adapters.campaign_state(cam)
    dice = CampaignDice(campaign, phase="cam-autoresolve", turn=row.number)
    try:
        resolution = ar.autoresolve_battle(adapters.battle_state(row, state), dice)
        _add_events(row, resolution.events)
        row.turn_entries = {}
        _record(campaign, cam, row, resolution.battle, force_end=False)
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    dice.commit()
    return row


# --- CAM 4.2 -------------------------------------------------------------------------------------


class _Checked(Exception):
    """Raised by ``_NoDice`` at the first roll: the requests passed the engine's checks."""


class _NoDice:
    def roll(self, count, sides, purpose):
        raise _Checked


def _requests(raw) -> list[rp.ReplacementRequest]:
    out = []
    for item in raw or ():
        if not isinstance(item, dict) or isinstance(item.get("replaces"), bool) \
                or not isinstance(item.get("replaces"), int) or not isinstance(item.get("sd"), str):
            raise CamActionError(f"{rp.RULE}: a request is {{'replaces': roster number, 'sd': SD key, 'name': …}}, "
                                 f"not {item!r}")
        out.append(rp.ReplacementRequest(replaces=item["replaces"], sd=item["sd"], name=str(item.get("name") or "")[:120]))
    return out


@transaction.atomic
def submit_replacements(*, campaign_id: int, user, requests=(), ready: bool = True,
                        seat: int | None = None) -> CamPlayer:
    """Between scenarios: a player's replacement requests for destroyed ships (checked by the
    engine before any die), and ready. When both players are ready the CAM 4.2 step is made:
    repair rolls (4+), the survival roll (option), replacement points (hoarded) and the
    replacement rolls with the wealth modifiers."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    player = _acting_seat(cam, user, role, seat, "ask for replacements")
    state = adapters.campaign_state(cam)
    if not state.awaiting_replacements:
        raise CamActionError(f"{rp.RULE}: there is no between-scenarios step to make now")
    reqs = _requests(requests)
    try:
        rp.between_scenarios(state, _NoDice(), {player.seat: reqs})
    except _Checked:
        pass
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    player.requests = [{"replaces": r.replaces, "sd": r.sd, "name": r.name} for r in reqs]
    player.between_ready = bool(ready)
    player.save(update_fields=["requests", "between_ready"])
    if all(p.between_ready for p in cam.players.all()):
        _between(campaign, cam, state)
    return player


@transaction.atomic
def run_between(*, campaign_id: int, user) -> CamCampaign:
    """The moderator makes the CAM 4.2 step now, with the requests the players have entered."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    _moderator_only(role, "make the between-scenarios step")
    state = adapters.campaign_state(cam)
    if not state.awaiting_replacements:
        raise CamActionError(f"{rp.RULE}: there is no between-scenarios step to make now")
    _between(campaign, cam, state)
    _audit(campaign, user, "cam_between", f"after scenario {state.scenarios_played}")
    return cam


def _between(campaign: Campaign, cam: CamCampaign, state: st.CamCampaign) -> None:
    dice = CampaignDice(campaign, phase="cam-between", turn=state.scenarios_played)
    requests = {p.seat: _requests(p.requests) for p in cam.players.all()}
    try:
        resolution = rp.between_scenarios(state, dice, requests)
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    adapters.store_campaign(cam, resolution.campaign)
    row = cam.scenario_rows.get(number=state.scenarios_played)
    _add_events(row, resolution.events)
    row.save(update_fields=["events"])
    cam.players.update(requests=[], between_ready=False)
    dice.commit()


# --- reading -------------------------------------------------------------------------------------


def standings(cam: CamCampaign):
    return scoring_rules.standings(adapters.campaign_state(cam))


def checks_now(row: CamScenario) -> dict[int, tuple[int, ...]]:
    """CAM 3.1: the conditions each side meets now, counting this turn's entries made so far
    (a side that meets one must check at the coming End Phase)."""
    if row.battle is None:
        return {}
    battle = adapters.battle_state(row, adapters.campaign_state(row.cam))
    for seat, entry in row.turn_entries.items():
        battle = bc.record_damage(battle, int(seat), **entry)
    return {s: bc.conditions_met(battle, s) for s in battle.scenario.seats}
