"""How a CAM scenario is fought: the scenario modes (issue 17) and the actions of the third one.

``CamScenario.mode``: *tabletop* (the players enter each game turn, ``actions.enter_turn``),
*auto* (auto-resolved with the Event Horizon odds on CAM points as soon as the table is set,
ruling CAM26) or *online* (fought on the Buoyz 'N Da 'Hood engine as a battle row, through the
registered door ``campaign/cam/battles.py``). The moderator switches a scenario's mode until its
table is set (``set_mode``; after that 409). Once the table is rolled (``after_table``, called by
``actions.roll_table``) an online scenario's forces, table nature, edges and break-contact levels
set the engine's table up; the engine's End Phase makes the CAM 3.1 checks with CAM's own
functions; the battle's end is scored by ``actions._record`` — the very function that scores a
confirmed tabletop entry (CAM 3.1, 4.3) — and the CAM 4.2 step follows unchanged. A player may
hand his side to the computer doctrine; a side past its decision deadline is played by it
(rulings CAM40–CAM44). With more than one gaming table each player chooses, while the forces are
being chosen, the table each of his ships starts on (``choose_tables``; the rest are dealt in force
order, ruling BZ94). Every action here is atomic, locks the campaign row first, and changes
nothing when it refuses.
"""

from __future__ import annotations

from django.db import transaction

from . import adapters
from .actions.battle import _record, autoresolve_row
from .actions.common import (
    _acting_seat,
    _active,
    _audit,
    _locked,
    _moderator_only,
    _next_step,
    _refuse_if_paused,
)
from .actions.errors import ENGINE_ERRORS, CamActionError, NotAllowed, NotFound, _refuse
from .battles import BattleStuck, handler
from .models import CamScenario

MODE_RULE = "ruling CAM40"
ONLINE = CamScenario.Mode.ONLINE
AUTO = CamScenario.Mode.AUTO


class Conflict(CamActionError):
    """The request does not fit the scenario's state now (HTTP 409): a mode switch after the table
    is set, a decision out of turn."""

    http_status = 409


def _row(cam, number) -> CamScenario:
    if isinstance(number, bool) or not isinstance(number, int):
        raise NotFound(f"no scenario {number!r}")
    row = cam.scenario_rows.filter(number=number).first()
    if row is None:
        raise NotFound(f"this campaign has no scenario {number}")
    return row


def _online(cam, number, doing: str) -> CamScenario:
    row = _row(cam, number)
    if row.mode != ONLINE:
        raise CamActionError(f"scenario {row.number} is not fought online ({row.get_mode_display().lower()}): "
                             f"you cannot {doing}")
    if row.stage != CamScenario.Stage.FIGHTING:
        raise Conflict(f"scenario {row.number} is not being fought (it is at '{row.get_stage_display()}'): "
                       f"you cannot {doing} now")
    return row


def refuse_if_online(row: CamScenario, doing: str) -> None:
    """The tabletop entries (game turns, the end, a player's auto-resolve) are not taken for a
    scenario fought online: the engine keeps the record (ruling CAM41)."""
    if row.mode == ONLINE:
        book = handler().book_title(row.cam.campaign)  # the rule book the moderator chose (issue 31)
        raise Conflict(f"scenario {row.number} is fought online on {book}: you cannot {doing} "
                       "(the moderator may settle it)")


# --- switching the mode -------------------------------------------------------------------------


@transaction.atomic
def set_mode(*, campaign_id: int, user, number: int, mode: str) -> CamScenario:
    """The moderator switches how scenario ``number`` is fought, until its table is set."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _row(cam, number)
    _moderator_only(role, "switch how a scenario is fought")
    if mode not in CamScenario.Mode.values:
        raise CamActionError(f"mode is one of {', '.join(CamScenario.Mode.values)}, not {mode!r}", "bad_mode")
    if row.stage != CamScenario.Stage.FORCES:
        raise Conflict(f"{MODE_RULE}: scenario {row.number} has begun (its table is set): its mode can no longer "
                       "be switched", "started")
    if mode == row.mode:
        return row
    before = row.mode
    row.mode = mode
    row.events = list(row.events) + [{
        "step": "mode", "kind": "mode", "seats": [], "data": {"from": before, "to": mode},
        "text": f"The moderator switched scenario {row.number} from {before} to {mode} "
                f"({row.get_mode_display().lower()})."}]
    row.save(update_fields=["mode", "events"])
    _audit(campaign, user, "cam_scenario_mode", f"scenario {row.number}", after={"mode": mode},
           note=f"from {before}")
    return row


# --- the tables of the ships (11.3, ruling BZ94) -----------------------------------------------

TABLES_RULE = "000 11.3 Using Multi-Tables (ruling BZ94)"


def _force_ships(row: CamScenario, seat: int) -> list[str] | None:
    """The uids of the ships of ``seat``'s force in force order (None: no force chosen yet)."""
    force = row.forces.get(str(seat))
    if force is None:
        return None
    return [u["uid"] for u in force["units"] if u["kind"] == "ship"]


def _table_number(value, tables: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and 1 <= value <= tables


@transaction.atomic
def choose_tables(*, campaign_id: int, user, number: int, tables, seat: int | None = None) -> CamScenario:
    """Ruling BZ94: while scenario ``number``'s forces are being chosen, a player of a scenario
    fought online with more than one gaming table (CAM35) says which table each ship of his force
    starts on: ``tables`` maps a ship's uid (``"ship:3"``) to a table number, 1 (the main table)
    to the campaign's tables; a ship not named (or named with ``None``) is dealt in force order.
    It replaces his earlier choice; the moderator names the seat. Kept with his force selection
    (``selections[seat]["tables"]``, hidden from the other player as the force is) and used by the
    battle when the table is rolled."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _row(cam, number)
    player = _acting_seat(cam, user, role, seat, "choose the tables of a fleet's ships")  # refuses a bad seat
    if row.mode != ONLINE:
        raise CamActionError(f"{TABLES_RULE}: scenario {row.number} is not fought online "
                             f"({row.get_mode_display().lower()}): its ships' tables are set at the tabletop",
                             "not_online")
    if row.stage != CamScenario.Stage.FORCES:
        raise Conflict(f"{TABLES_RULE}: scenario {row.number}'s table is rolled (CAM 2.3; it is at "
                       f"'{row.get_stage_display()}'): its ships are deployed and their tables can no longer "
                       "be chosen", "started")
    if cam.tables < 2:
        raise CamActionError(f"{TABLES_RULE}: this campaign plays on one gaming table (ruling CAM35): every ship "
                             "starts on it", "one_table")
    ships = _force_ships(row, player.seat)
    if ships is None:
        raise CamActionError(f"000 CAM 2.2: {player.name} has not chosen a force for scenario {row.number} yet: "
                             "choose it first, then its ships' tables", "no_force")
    if not isinstance(tables, dict):
        raise CamActionError(
            f'{TABLES_RULE}: tables maps a ship of the force (e.g. "{ships[0] if ships else "ship:1"}") '
            f"to a table number from 1 to {cam.tables}",
            "bad_tables",
        )
    chosen = {}
    for uid, table in tables.items():
        if uid not in ships:
            raise CamActionError(f"{TABLES_RULE}: {uid!r} is not a ship of {player.name}'s force in scenario "
                                 f"{row.number}", "not_in_force")
        if table is None:
            continue
        if not _table_number(table, cam.tables):
            raise CamActionError(f"{TABLES_RULE}: there is no table {table!r}: this campaign plays on {cam.tables} "
                                 f"gaming tables, numbered 1 to {cam.tables}", "no_such_table")
        chosen[uid] = table
    chosen = {uid: chosen[uid] for uid in ships if uid in chosen}  # force order
    selection = row.selections.get(str(player.seat), {})
    before = selection.get("tables") or {}
    if chosen == before:
        return row  # the same choice again (a double submit): nothing to change
    row.selections = {**row.selections, str(player.seat): {**selection, "tables": chosen}}
    row.save(update_fields=["selections"])
    _audit(campaign, user, "cam_ship_tables", f"scenario {row.number}, seat {player.seat}", before=before,
           after=chosen, note=TABLES_RULE)
    return row


def kept_tables(row: CamScenario, seat: int, ships) -> dict:
    """A re-chosen force keeps the tables chosen for the ships still in it (``select_forces``)."""
    uids = {f"ship:{n}" for n in ships}
    before = row.selections.get(str(seat), {}).get("tables") or {}
    return {uid: t for uid, t in before.items() if uid in uids}


def chosen_tables(row: CamScenario) -> dict[str, int]:
    """Ruling BZ94: the tables the players chose for their ships (ship uid → table number, every
    seat), for the battle app when the table is rolled; a choice that no longer fits (a ship not in
    the force, a table the scenario does not have) is left out, so that ship is dealt."""
    out: dict[str, int] = {}
    for seat in row.forces:
        ships = set(_force_ships(row, int(seat)) or ())
        for uid, table in (row.selections.get(seat, {}).get("tables") or {}).items():
            if uid in ships and _table_number(table, len(row.tables)):
                out[uid] = table
    return out


def table_choices(row: CamScenario, seat: int) -> dict[str, int]:
    """``seat``'s own choice as stored (for its pages and API answers)."""
    return dict(row.selections.get(str(seat), {}).get("tables") or {})


def after_table(campaign, cam, row: CamScenario) -> None:
    """Called by ``actions.roll_table`` once the table is set and the game begins (its
    transaction, the campaign row locked): an auto scenario is auto-resolved and scored at once,
    an online one is set up on the engine."""
    if row.mode == AUTO:
        autoresolve_row(campaign, cam, row)
    elif row.mode == ONLINE:
        handler().open_battle(campaign, cam, row)


# --- what the engine reports back (called by tactical/hosts/cam/scenarios.py) ----------------------------


def record_progress(row: CamScenario, cam_battle, events=()) -> None:
    """The engine's CAM record after a decision: the units destroyed, crippled or gone and the
    break-contact orders (CAM 3.1), and the checks it rolled, as the tabletop entries record them."""
    row.battle = adapters.battle_json(cam_battle)
    added = [_cam_event(cam_battle, e) for e in events if e.kind == "cam"]
    if added:
        row.events = list(row.events) + added
    row.save(update_fields=["battle", "events"])


def _cam_event(cam_battle, event) -> dict:
    """An engine event relaying ``breakcontact.end_of_turn``'s (tactical/rules/buoyz/cam.py
    ``end_phase``) as the tabletop path stores it: a check for one seat, or the turn's losses."""
    data = adapters._plain(dict(event.data))
    if "roll" in data and "seat" in data:
        kind, seats = "check", [data["seat"]]
    else:
        kind, seats = "losses", list(cam_battle.scenario.seats)
    return {"step": "break_contact", "kind": kind, "seats": seats, "text": event.text, "data": data}


def record_engine_result(campaign, row: CamScenario, cam_battle, battle_id: int, turns: int) -> None:
    """The battle is over: CAM 3.0 step 2, scored by ``actions._record`` exactly as a confirmed
    tabletop entry is (forced when all contact was not broken: a side gone, the turn cap, or the
    moderator's settlement; CAM15). ``turns``: the game turn it ended in, the engine's count — the
    one the battle's page gives (the CAM record's counter stops once all contact is broken, while
    the ships breaking off may still take a game turn to leave the table: issue 23 item 16)."""
    cam = campaign.cam
    _next_step(campaign, cam, f"scenario {row.number}: fought online and scored (CAM 3.1, 4.3)")
    row.force_end = not cam_battle.contact_broken
    row.proposed_by = None
    row.turn_entries = {}
    row.events = list(row.events) + [{
        "step": "scoring", "kind": "ended", "seats": [], "data": {"battle": battle_id},
        "text": f"The game fought online (battle {battle_id}) is over after game turn {turns} "
                f"({'all table contact broken' if cam_battle.contact_broken else 'ended without all contact broken'}; "
                "000 CAM 3.0)."}]
    try:
        _record(campaign, cam, row, cam_battle, row.force_end)
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None


# --- the players' and the moderator's actions ------------------------------------------------


@transaction.atomic
def act(*, campaign_id: int, user, number: int, action, seat: int | None = None) -> dict:
    """A player's decision in the battle (the engine's action as JSON). Out of turn: Conflict.
    While the campaign is paused the battle waits: a player's decision is refused (409, ruling
    CAM60). Only the seat's player decides (ruling MO9): the moderator settles a stuck battle."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _online(cam, number, "act in its battle")
    player = _own_seat(cam, user, role, seat, "decide in the battle")
    _refuse_if_paused(campaign, role, "decide in the battle")
    return handler().act(campaign, row, player.seat, action, user)


@transaction.atomic
def hand_to_doctrine(*, campaign_id: int, user, number: int, on: bool = True, seat: int | None = None) -> dict:
    """A player hands his side to the computer doctrine (``on``) or takes it back (only the seat's
    player, ruling MO9). Refused while the campaign is paused (the doctrine would decide at once;
    ruling CAM60)."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _online(cam, number, "hand a side to the doctrine")
    player = _own_seat(cam, user, role, seat, "hand a side to the doctrine")
    _refuse_if_paused(campaign, role, "hand your side to the doctrine or take it back")
    if not isinstance(on, bool):
        raise CamActionError(f"on is true or false, not {on!r}", "bad_on")
    return handler().hand_to_doctrine(campaign, row, player.seat, on, user)


# Ruling MO9: in a battle fought online a seat's decisions are its player's, as in every battle
# played online (tactical/play/actions.py refuses anyone without a fleet there). The moderator, who
# holds no seat (L4), settles a stuck battle instead (``settle``), and the deadline sweep hands a
# late side to the doctrine.
MO9 = "ruling MO9"


def _own_seat(cam, user, role: str, seat: int | None, doing: str):
    if not cam.players.filter(user=user).exists():
        raise NotAllowed(f"{MO9}: only the seat's player can {doing}; the moderator settles a stuck battle "
                         "(…/settle/: the doctrine plays it out, or auto-resolve)")
    player = _acting_seat(cam, user, role, seat, doing)
    if player.user_id != user.pk:  # a moderator who also plays a seat names another
        raise NotAllowed(f"{MO9}: you can {doing} only for your own fleet")
    return player


SETTLE_HOW = ("doctrine", "autoresolve")


@transaction.atomic
def settle(*, campaign_id: int, user, number: int, how: str = "doctrine") -> CamScenario:
    """The moderator settles a scenario fought online that is stuck: ``doctrine`` plays both sides
    to the end now; ``autoresolve`` resolves the rest of the battle from the CAM record as it
    stands with the Event Horizon odds on CAM points (ruling CAM26), when the engine cannot go on.
    Either way the scenario is scored at once (ruling CAM43)."""
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    row = _row(cam, number)
    _moderator_only(role, "settle a scenario")
    if how not in SETTLE_HOW:
        raise CamActionError(f"how is one of {', '.join(SETTLE_HOW)}, not {how!r}", "bad_how")
    row = _online(cam, number, "settle it")
    if how == "doctrine":
        try:
            handler().finish_by_doctrine(campaign, row, user)
        except BattleStuck as exc:
            raise CamActionError(f"the engine cannot finish this battle ({exc}): settle it by auto-resolve",
                                 "stuck") from None
        row.refresh_from_db()
    else:
        autoresolve_row(campaign, cam, row, "settled by auto-resolve (ruling CAM43)")
        handler().close(campaign, row, user, "the moderator settled the scenario by auto-resolve")
    _audit(campaign, user, "cam_settle", f"scenario {row.number}", after={"how": how})
    return row


def after_roll_back(campaign) -> list[int]:
    """Called by ``actions.moderation.roll_back_step`` after the CAM rows are restored (ruling
    CAM46): the battles the restored scenarios no longer have are deleted."""
    return handler().after_roll_back(campaign)


def battle_summary(row: CamScenario) -> dict | None:
    """The scenario's battle for pages and the API (None unless it is or was fought online)."""
    if row.mode != ONLINE or row.stage == CamScenario.Stage.FORCES:
        return None
    return handler().summary(row)
