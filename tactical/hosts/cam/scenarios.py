"""CAM scenarios fought online on the Buoyz 'N Da 'Hood engine (issue 17): the battle app's side
of ``campaign/cam/battles.py``, registered by ``tactical/apps.py``.

A scenario in "fought online" mode gets a ``Battle`` row (ruleset ``buoyz``, ``turn`` = the
scenario's number, ``setup["cam"]`` its CAM record when the table was set). The battle is
event-sourced like the Event Horizon one (tactical/play/): ``BattleStep`` rows hold every
decision (``tactical/rules/buoyz/play/codec.py``'s action JSON) and the first turn's initiative, and every die
is in the campaign's hash-chained log (phase ``battle <id>``, concerning the two seats); the state
is rebuilt by ``deploy_cam`` with the logged dice and the steps replayed. After each decision the
engine's CAM record goes back to the scenario row (``online.record_progress``); at the end its
record is scored by ``online.record_engine_result`` — the function a confirmed tabletop entry
uses. Each decision has a deadline (``Campaign.activation_hours``); the sweep (``play_due``, run by
``processdue`` and the in-process sweep through ``campaign.battles.handler().sweep_due``) lets the
doctrine play a late side's decisions for the rest of that phase (ruling CAM42). The callers hold
the campaign row lock; the battle row is locked after it (campaign/locks.py).
"""

from __future__ import annotations

import copy
import logging
from collections import OrderedDict
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from campaign.cam import adapters, online
from campaign.cam.actions import CamActionError
from campaign.cam.battles import BattleStuck
from campaign.cam.models import CamPlayer, CamShip
from campaign.dice import CampaignDice
from campaign.models import Campaign, DiceRoll
from tactical.models import Battle, BattleLogEntry, BattleStep
from tactical.rules import buoyz as bz
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz import board
from tactical.rules.buoyz import play as codec  # its to_json / from_json: the play pages' action JSON
from tactical.rules.buoyz.cam import deal_tables, deploy_cam
from tactical.rules.buoyz.state import INITIATIVE, IllegalActionError
from tactical.rules.replay import LoggedDie, ReplayDice, ReplayMismatch

from . import converted

logger = logging.getLogger(__name__)

RULESET = "buoyz"
PAUSED_LEFT = "paused_left"  # setup key: seconds the deciding side had left when the campaign was paused
PLAYING = Battle.Status.PLAYING
MAX_STEPS = 20_000  # per advance; the engine's turn cap (ruling BZ17) ends every battle well before
ENGINE_FAULTS = (ReplayMismatch, IllegalActionError, KeyError, ValueError, TypeError, IndexError, StopIteration)
_CACHE: OrderedDict = OrderedDict()
CACHE_SIZE = 16


def cam_seats(user):
    """(campaign id, seat) of every CAM seat ``user`` plays (``visible_battles``)."""
    return CamPlayer.objects.filter(user=user).values_list("cam_id", "seat")


def cam_battles():
    """The battles of CAM scenarios fought online (a Buoyz battle of another kind has no "cam")."""
    return Battle.objects.filter(ruleset=RULESET, setup__has_key="cam")


def _hosted(campaign):
    """Every battle of the rubber's scenarios fought online, on Buoyz or converted (issue 31), locked."""
    return (Battle.objects.select_for_update().filter(campaign=campaign)
            .filter(Q(ruleset=RULESET, setup__has_key="cam") | Q(setup__has_key="layer_setup")).order_by("pk"))


def battle_for(row, *, lock: bool = False) -> Battle | None:
    qs = cam_battles().filter(campaign_id=row.cam_id, turn=row.number)
    return (qs.select_for_update() if lock else qs).first()


def _dice(battle: Battle, campaign: Campaign) -> CampaignDice:
    # Every roll of the battle is its two sides' (rulings C21, FW7; docs/dice.md).
    return CampaignDice(campaign, phase=battle.dice_phase, turn=battle.turn, concerns=battle.seats)


def deciding(state) -> int | None:
    """The seat whose decision it is now (None: over, or the first initiative roll)."""
    if state.over or state.phase == INITIATIVE:
        return None
    return state.acting


# --- rebuilding the battle ---------------------------------------------------------------------

def _cam_record(battle: Battle, row):
    """The CAM campaign and battle state of the moment the table was set."""
    start = copy.copy(row)
    start.battle = battle.setup["cam"]["record"]
    campaign_state = adapters.campaign_state(row.cam)
    return campaign_state, adapters.battle_state(start, campaign_state)


def initial_state(battle: Battle, row, dice):
    """The scenario's table on the engine: ``deploy_cam`` from the CAM record of the moment the
    table was set (ships on their CAM 2.3 edges, the table nature placed with ``dice``), each unit
    on the gaming table ``setup["cam"]["table_of"]`` gives it (11.3, ruling BZ94; a battle opened
    before that key existed has every unit on the first table)."""
    campaign_state, cam_battle = _cam_record(battle, row)
    table_of = battle.setup["cam"].get("table_of") or None
    return deploy_cam(campaign_state, cam_battle, dice=dice, table_of=table_of)


def _logged_dice(battle: Battle) -> list[LoggedDie]:
    rows = (DiceRoll.objects.filter(campaign_id=battle.campaign_id, phase=battle.dice_phase)
            .order_by("seq").values_list("expression", "purpose", "faces"))
    return [LoggedDie.from_log(e, p, f) for e, p, f in rows]


def _key(battle: Battle, steps) -> tuple:
    # A step rolled back with its transaction never matches a later one: its time differs.
    last = steps[-1] if steps else (None, None, None)
    return (battle.pk, battle.created_at, len(steps), last[0], last[2])


def current_state(battle: Battle, row):
    """The battle now: the table replayed through every stored step with its logged dice
    (cached per process; states are frozen). Raises ``BattleStuck`` if the steps do not replay."""
    steps = list(battle.steps.order_by("seq").values_list("id", "action", "created_at"))
    key = _key(battle, steps)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    dice = ReplayDice(_logged_dice(battle))
    try:
        state = initial_state(battle, row, dice)
        for _, action, _ in steps:
            state = bz.apply(state, codec.from_json(action), dice).state
    except ENGINE_FAULTS as exc:
        raise BattleStuck(f"battle {battle.pk} does not replay: {exc}") from None
    _remember(key, state)
    return state


def _remember(key, state) -> None:
    _CACHE[key] = state
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)


# --- playing on ----------------------------------------------------------------------------------

class _Steps:
    def __init__(self, battle: Battle):
        self.battle = battle
        self.next_seq = (battle.steps.order_by("-seq").values_list("seq", flat=True).first() or 0) + 1
        self.rows: list[BattleStep] = []

    def add(self, side, action, *, by_doctrine=False, user=None) -> None:
        self.rows.append(BattleStep(battle=self.battle, seq=self.next_seq, side=side, action=codec.to_json(action),
                                    by_doctrine=by_doctrine, user=user if getattr(user, "pk", None) else None))
        self.next_seq += 1

    def save(self) -> list[BattleStep]:
        return BattleStep.objects.bulk_create(self.rows)


def _late_sides(battle: Battle, state) -> set[int]:
    """Ruling CAM42: a side that missed a decision deadline is late for the rest of that phase."""
    late = (battle.setup or {}).get("late") or {}
    if late.get("turn") == state.turn and late.get("phase") == state.phase:
        return set(late.get("sides") or [])
    return set()


def doctrine_choice(state):
    """The doctrine's decision; should the engine refuse it, the first legal action instead, so a
    computer side never stalls."""
    try:
        action = bz.doctrine_action(state)
        bz.check(state, action)
        return action
    except ENGINE_FAULTS:
        legal = bz.legal_actions(state)
        if not legal:
            raise BattleStuck("the doctrine finds no legal action") from None
        return legal[0]


def _advance(battle: Battle, state, dice, steps: _Steps):
    """Roll the first initiative and let the doctrine decide for its sides (and late ones) until a
    player must decide or the battle is over. Returns the state and the engine's events."""
    doctrine = set(battle.doctrine_sides or [])
    events = []
    for _ in range(MAX_STEPS):
        if state.over:
            return state, events
        if state.phase == INITIATIVE:
            action, side, by_doctrine = A.Begin(), None, False
        else:
            side = state.acting
            if side not in doctrine and side not in _late_sides(battle, state):
                return state, events
            action, by_doctrine = doctrine_choice(state), True
        try:
            resolution = bz.apply(state, action, dice)
        except ENGINE_FAULTS as exc:
            raise BattleStuck(f"the engine refused the doctrine's {codec.to_json(action)}: {exc}") from None
        state = resolution.state
        events.extend(resolution.events)
        steps.add(side, action, by_doctrine=by_doctrine)
    raise BattleStuck(f"no player decision and no end after {MAX_STEPS} steps")


def _settle(battle: Battle, campaign: Campaign, row, state, dice: CampaignDice, steps: _Steps, events) -> None:
    """Store the steps, commit the dice, report the CAM record to the scenario, then restart the
    decision clock — or score the scenario when the battle is over."""
    saved = steps.save()
    dice.commit()
    if saved and saved[-1].pk is not None:  # seqs run 1, 2, …: the last one counts the steps
        last = saved[-1]
        _remember((battle.pk, battle.created_at, last.seq, last.pk, last.created_at), state)
    online.record_progress(row, state.cam.battle, events)
    if state.over:
        _finish(battle, campaign, row, state)
        return
    seat = deciding(state)
    hours = campaign.activation_hours or 0
    human = seat is not None and seat not in (battle.doctrine_sides or [])
    battle.activation_deadline = timezone.now() + timedelta(hours=hours) if hours and human else None
    setup = {k: v for k, v in (battle.setup or {}).items() if k != PAUSED_LEFT}
    if campaign.paused and battle.activation_deadline is not None:
        # A decision opened while paused (the moderator's own) gets its full time on resuming (CAM60).
        battle.activation_deadline, setup[PAUSED_LEFT] = None, hours * 3600
    before = (battle.setup or {}).get("deciding")
    battle.setup = {**setup, "deciding": {"seat": seat, "turn": state.turn, "phase": state.phase}}
    battle.save(update_fields=["activation_deadline", "setup"])
    from .kind import tell_decision  # it imports this module

    last_seq = saved[-1].seq if saved else (battle.steps.order_by("-seq").values_list("seq", flat=True).first() or 0)
    tell_decision(battle, campaign, row, state, before, last_seq)


def _finish(battle: Battle, campaign: Campaign, row, state) -> None:
    out = bz.outcome(state)
    score = adapters.score_json(out.cam_score) if out.cam_score is not None else None
    battle.status = Battle.Status.RESOLVED
    battle.resolved_how = Battle.How.TACTICAL
    battle.resolved_at = timezone.now()
    battle.activation_deadline = None
    # "holder": the engine's winner (the side left on the table), for the battle page; the
    # scenario's winner is the CAM score's.
    battle.result = {"holder": out.winner, "turns": out.turns, "cam_score": score, "ending": out.ending,
                     "ships": [_fate(state, f) for f in out.ships]}
    battle.setup = {**battle.setup, "deciding": {"seat": None, "turn": state.turn, "phase": state.phase}}
    battle.save(update_fields=["status", "resolved_how", "resolved_at", "activation_deadline", "result", "setup"])
    names = _names(battle)
    winner = names.get(score["winner"], "nobody") if score and score["winner"] is not None else "nobody"
    BattleLogEntry.objects.create(battle=battle, kind="tactical_over", data={"cam_score": score},
                                  text=f"The battle is over after game turn {out.turns}: {winner} wins the scenario "
                                       "(000 CAM 3.1).")
    online.record_engine_result(campaign, row, out.cam_battle, battle.pk, out.turns)


def _sides(state, names: dict[int, str], roster: dict[int, str]) -> dict:
    """The battle page's sides (tactical/battles/forms.py ``side_rows``): each seat's ships by
    engine id, with their roster names and SDs."""
    colours = dict(zip(sorted(names), board.DEFAULT_COLOURS))
    sides = {str(seat): {"name": name, "colour": colours[seat], "ships": []} for seat, name in names.items()}
    for ship_id, seat, uid in state.cam.units:
        ship = state.ship(ship_id)
        unit = state.cam.battle.force(seat).unit(uid)
        sides[str(seat)]["ships"].append({
            "id": ship_id, "unit": uid, "name": roster.get(unit.ship_id) or unit.name,
            "design": {"name": ship.sd.key, "ship_type": ship.sd.ship_class.value, "hull": ship.sd.hull}})
    return sides


def _fate(state, f) -> dict:
    lost = state.ship(f.ship).sd.hull - f.hull
    return {"ship": f.ship, "side": f.side, "fate": f.fate, "points": f.points, "hull": f.hull,
            "crippled": f.crippled, "damage": {"hull": lost} if lost > 0 else {}}


def _names(battle: Battle) -> dict[int, str]:
    sides = (battle.setup or {}).get("sides") or {}
    return {seat: (sides.get(str(seat)) or {}).get("name") or f"Seat {seat}" for seat in battle.seats}


def _playing(row) -> Battle:
    battle = battle_for(row, lock=True)
    if battle is None or battle.status != PLAYING:
        raise online.Conflict(f"scenario {row.number}'s battle is not being played")
    return battle


# --- the handler -------------------------------------------------------------------------------

class CamOnlineBattles:
    """Implements ``campaign.cam.battles.CamBattleHandler``."""

    @staticmethod
    def open_battle(campaign, cam, row) -> Battle:
        book = converted.book_of(campaign)
        if book != RULESET:  # another rule book chosen for the rubber (issue 31)
            return converted.open_battle(campaign, cam, row, book)
        seats = tuple(sorted(cam.players.values_list("seat", flat=True)))
        defender = row.defender if row.defender in seats else seats[1]
        attacker = seats[0] if defender != seats[0] else seats[1]
        names = {p.seat: p.name for p in cam.players.all()}
        battle = Battle.objects.create(
            campaign=campaign, turn=row.number, index=0, x=0, y=0, attacker=attacker, defender=defender,
            mode=Battle.Mode.TACTICAL, status=PLAYING, ruleset=RULESET, doctrine_sides=[],
            setup={"cam": {"scenario": row.number, "record": row.battle},
                   "sides": {str(s): {"name": names[s]} for s in seats}})
        try:
            table_of = deal_tables(_cam_record(battle, row)[1])  # 11.3 (ruling BZ94)
        except (KeyError, ValueError, TypeError) as exc:
            raise CamActionError(f"the scenario cannot be set up on the Buoyz engine: {exc}", "engine") from None
        # The players' own choices (ruling BZ94) over the dealing; only for ships it deals.
        chosen = {uid: t for uid, t in online.chosen_tables(row).items() if uid in table_of}
        table_of.update(chosen)
        if table_of:
            battle.setup = {**battle.setup, "cam": {**battle.setup["cam"], "table_of": table_of}}
            battle.save(update_fields=["setup"])
        how = (f"{len(chosen)} of its ships on the table{'s' if len(chosen) != 1 else ''} their players chose, "
               "the rest dealt" if chosen else "its ships dealt")
        BattleLogEntry.objects.create(
            battle=battle, kind="tactical_start",
            text=f"Scenario {row.number} is fought online on the Buoyz engine: {names[attacker]} against "
                 f"{names[defender]}, each along its CAM 2.3 edge"
                 + (f" of each of the {len(row.tables)} tables, {how} over them in force order "
                    "(000 11.3, ruling BZ94)." if table_of else "."))
        dice = _dice(battle, campaign)
        try:
            state = initial_state(battle, row, dice)
            roster = dict(CamShip.objects.filter(player__cam=cam).values_list("number", "name"))
            battle.setup = {**battle.setup, "sides": _sides(state, names, roster)}
            steps = _Steps(battle)
            state, events = _advance(battle, state, dice, steps)
        except (BattleStuck, *ENGINE_FAULTS) as exc:
            raise CamActionError(f"the scenario cannot be set up on the Buoyz engine: {exc}", "engine") from None
        _settle(battle, campaign, row, state, dice, steps, events)
        return battle

    @staticmethod
    def book_title(campaign) -> str:
        return converted.book_title(campaign)

    @staticmethod
    def book_rulings(campaign) -> str:
        return converted.book_rulings(campaign)

    @staticmethod
    def summary(row) -> dict | None:
        other = converted.battle_for(row)
        if other is not None:
            return converted.summary(other)
        battle = battle_for(row)
        if battle is None:
            return None
        now = (battle.setup or {}).get("deciding") or {}
        playing = battle.status == PLAYING
        return {
            "id": battle.pk,
            "ruleset": battle.ruleset,
            "status": battle.status,
            "status_label": battle.get_status_display(),
            "resolved_how": battle.resolved_how,
            "doctrine_sides": list(battle.doctrine_sides or []),
            "deciding": now.get("seat") if playing else None,
            "game_turn": now.get("turn"),
            "phase": now.get("phase"),
            "decision_deadline": battle.activation_deadline.isoformat()
            if playing and battle.activation_deadline
            else None,
            "steps": battle.steps.count(),
            "url": reverse("battle-detail", args=[battle.pk]),
            "play_url": reverse("battle-play", args=[battle.pk]),
        }

    @staticmethod
    def act(campaign, row, seat: int, action, user) -> dict:
        other = converted.battle_for(row)
        if other is not None:
            converted.act(other, user, action)
            return CamOnlineBattles.summary(row)
        battle = _playing(row)
        try:
            decision = codec.from_json(action)
        except IllegalActionError as exc:
            raise CamActionError(f"{exc.rule}: {exc.message}", "format") from None
        state = current_state(battle, row)
        now = deciding(state)
        if now != seat:
            raise online.Conflict(f"000 2.2: it is {_names(battle).get(now, 'nobody')}'s decision now, not yours")
        if seat in (battle.doctrine_sides or []):
            raise online.Conflict("your side is in the computer doctrine's hands: take it back first")
        dice = _dice(battle, campaign)
        try:
            # Your own ship, and no target your side cannot see (fog of war, ruling BZP2).
            codec.RULES.check_owner(codec.PlayState(state), decision, seat)
            resolution = bz.apply(state, decision, dice)
        except IllegalActionError as exc:
            raise CamActionError(f"{exc.rule}: {exc.message}", "illegal") from None
        steps = _Steps(battle)
        steps.add(seat, decision, user=user)
        state, events = _advance(battle, resolution.state, dice, steps)
        _settle(battle, campaign, row, state, dice, steps, list(resolution.events) + events)
        return CamOnlineBattles.summary(row)

    @staticmethod
    def hand_to_doctrine(campaign, row, seat: int, on: bool, user) -> dict:
        other = converted.battle_for(row)
        if other is not None:
            converted.hand_to_doctrine(other, user, on)
            return CamOnlineBattles.summary(row)
        battle = _playing(row)
        current = set(battle.doctrine_sides or [])
        if (seat in current) == on:
            return CamOnlineBattles.summary(row)
        battle.doctrine_sides = sorted(current | {seat} if on else current - {seat})
        battle.save(update_fields=["doctrine_sides"])
        name = _names(battle)[seat]
        BattleLogEntry.objects.create(
            battle=battle,
            kind="doctrine",
            seat=seat,
            user=user if getattr(user, "pk", None) else None,
            data={"on": on},
            text=f"{name} " + ("hands its side to the computer doctrine." if on
                               else "takes its side back from the computer."),
        )
        state = current_state(battle, row)
        dice = _dice(battle, campaign)
        steps = _Steps(battle)
        state, events = _advance(battle, state, dice, steps)
        _settle(battle, campaign, row, state, dice, steps, events)
        return CamOnlineBattles.summary(row)

    @staticmethod
    def finish_by_doctrine(campaign, row, user) -> None:
        other = converted.battle_for(row, lock=True)
        if other is not None:
            converted.finish_by_doctrine(campaign, other, user)
            return
        battle = battle_for(row, lock=True)
        if battle is None or battle.status != PLAYING:
            raise BattleStuck(f"scenario {row.number} has no battle being played")
        state = current_state(battle, row)
        battle.doctrine_sides = sorted(battle.seats)
        battle.save(update_fields=["doctrine_sides"])
        BattleLogEntry.objects.create(battle=battle, kind="doctrine", user=user if getattr(user, "pk", None) else None,
                                      text="The moderator settles the battle: the computer doctrine plays both sides "
                                           "to the end.")
        dice = _dice(battle, campaign)
        steps = _Steps(battle)
        state, events = _advance(battle, state, dice, steps)
        _settle(battle, campaign, row, state, dice, steps, events)

    @staticmethod
    def close(campaign, row, user, note: str) -> None:
        battle = battle_for(row, lock=True) or converted.battle_for(row, lock=True)
        if battle is None or battle.resolved:
            return
        battle.status = Battle.Status.RESOLVED
        battle.resolved_how = Battle.How.MODERATOR
        battle.resolved_at = timezone.now()
        battle.activation_deadline = None
        battle.result = {"cam_score": row.score}
        battle.save(update_fields=["status", "resolved_how", "resolved_at", "activation_deadline", "result"])
        BattleLogEntry.objects.create(battle=battle, kind="settled", user=user if getattr(user, "pk", None) else None,
                                      text=note[:500])


    @staticmethod
    def report(row) -> list[str]:
        from .kind import report_lines

        other = converted.battle_for(row)
        if other is not None:
            return converted.report_lines(other, row)
        return report_lines(row)

    @staticmethod
    def pause_clock(campaign, now) -> None:
        for battle in _hosted(campaign).filter(status=PLAYING, activation_deadline__isnull=False):
            left = max(int((battle.activation_deadline - now).total_seconds()), 0)
            battle.setup = {**battle.setup, PAUSED_LEFT: left}
            battle.activation_deadline = None
            battle.save(update_fields=["setup", "activation_deadline"])

    @staticmethod
    def resume_clock(campaign, now) -> None:
        for battle in _hosted(campaign).filter(status=PLAYING, setup__has_key=PAUSED_LEFT):
            setup = dict(battle.setup)
            battle.activation_deadline = now + timedelta(seconds=setup.pop(PAUSED_LEFT))
            battle.setup = setup
            battle.save(update_fields=["setup", "activation_deadline"])

    @staticmethod
    def after_roll_back(campaign) -> list[int]:
        rows = {r.number: r for r in campaign.cam.scenario_rows.all()}
        deleted = []
        for battle in _hosted(campaign):
            row = rows.get(battle.turn)
            if row is None or row.mode != online.ONLINE or row.stage == row.Stage.FORCES:
                deleted.append(battle.pk)
                battle.delete()  # its steps and log go with it; its dice are cut from the log
            elif row.stage == row.Stage.FIGHTING and battle.resolved:
                # Its end was rolled back: the moderator settles it again (CAM43).
                battle.status, battle.resolved_how, battle.resolved_at, battle.result = PLAYING, "", None, None
                battle.activation_deadline = None
                battle.save(update_fields=["status", "resolved_how", "resolved_at", "result", "activation_deadline"])
                BattleLogEntry.objects.create(battle=battle, kind="rolled_back",
                                              text="The moderator rolled the scenario's scoring back: the battle is "
                                                   "open again until the moderator settles it.")
        _CACHE.clear()
        return deleted


# --- the decision-deadline sweep ---------------------------------------------------------------

def play_due(now=None) -> int:
    """In every CAM battle whose decision deadline has passed, the doctrine plays the late side's
    decisions for the rest of the phase (ruling CAM42); then the battle goes on as usual. One
    battle that cannot go on (``BattleStuck``: the moderator settles it) does not stop the rest.
    Returns the number of battles advanced."""
    now = now or timezone.now()
    due = list(cam_battles().filter(status=PLAYING, activation_deadline__lte=now)
               .values_list("pk", "campaign_id"))
    done = 0
    for pk, campaign_id in due:
        try:
            with transaction.atomic():
                campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
                battle = Battle.objects.select_for_update().get(pk=pk)
                if battle.status != PLAYING or battle.activation_deadline is None or battle.activation_deadline > now:
                    continue  # someone decided (or it ended) meanwhile
                if campaign.paused:
                    continue  # no decision deadline passes while the campaign is paused (ruling CAM42)
                battle.campaign = campaign
                row = campaign.cam.scenario_rows.get(number=battle.turn)
                state = current_state(battle, row)
                seat = deciding(state)
                if seat is not None:
                    late = sorted(_late_sides(battle, state) | {seat})
                    battle.setup = {**battle.setup, "late": {"turn": state.turn, "phase": state.phase, "sides": late}}
                    BattleLogEntry.objects.create(
                        battle=battle, kind="activation_late", seat=seat,
                        text=f"{_names(battle)[seat]} missed the decision deadline: the computer doctrine decides for "
                             f"it for the rest of the {state.phase.replace('_', ' ')} phase of game turn {state.turn}.")
                dice = _dice(battle, campaign)
                steps = _Steps(battle)
                state, events = _advance(battle, state, dice, steps)
                _settle(battle, campaign, row, state, dice, steps, events)
                done += 1
        except (BattleStuck, CamActionError) as exc:
            logger.warning("CAM battle %s could not be advanced: %s", pk, exc)
    return done


__all__ = ["CamOnlineBattles", "RULESET", "battle_for", "cam_seats", "current_state", "play_due"]
