"""CAM 2.1 – 2.3: the next scenario's nature, each player's forces and the table."""

from __future__ import annotations

from django.db import transaction

from campaign.dice import CampaignDice
from campaign.models import Campaign, Membership
from campaign.rules.cam import breakcontact as bc
from campaign.rules.cam import scenario as sc

from .. import adapters, notify
from ..models import CamScenario
from .common import (
    _acting_seat,
    _active,
    _add_events,
    _current,
    _locked,
    _next_step,
    _player_or_moderator,
    _refuse_if_paused,
    _scenario,
)
from .errors import ENGINE_ERRORS, CamActionError, NotAllowed, _refuse

# --- CAM 2.1 – 2.3 ------------------------------------------------------------------------------


@transaction.atomic
def generate_scenario(*, campaign_id: int, user, nature: str | None = None, defender: int | None = None) -> CamScenario:
    """CAM 2.1: the next scenario's nature (rolled; the moderator may choose it beforehand, CAM
    4.1) and, for a planetary dispute or convoy, the defender; CAM 2.2 points level."""
    if nature is not None and not isinstance(nature, str):
        raise CamActionError(
            f"000 CAM 2.1: the nature is named by its key, such as 'open_battle', not {nature!r}"[:300]
        )
    if defender is not None and (isinstance(defender, bool) or not isinstance(defender, int)):
        raise CamActionError(f"000 CAM 2.1: the defender is a seat number, such as 1 or 2, not {defender!r}"[:300])
    campaign, cam, role = _locked(campaign_id, user)
    _active(campaign)
    _player_or_moderator(cam, user, role, "generate the next scenario")
    _refuse_if_paused(campaign, role, "generate the next scenario")
    if (nature or defender is not None) and role != Membership.Role.MODERATOR:
        raise NotAllowed("only the moderator can choose a scenario's nature or defender beforehand (CAM 4.1)")
    return _generate(campaign, cam, nature=nature, defender=defender)


def _generate(campaign, cam, *, nature: str | None = None, defender: int | None = None) -> CamScenario:
    """The generation itself (the caller holds the campaign row lock and has checked who may);
    also made by a passed deadline (``deadlines``, ruling CAM51)."""
    if _current(cam) is not None:
        raise CamActionError(f"scenario {_current(cam).number} is still in progress")
    state = adapters.campaign_state(cam)
    _next_step(campaign, cam, f"scenario {state.scenarios_played + 1} generated (CAM 2.1)")
    dice = CampaignDice(campaign, phase="cam-scenario", turn=state.scenarios_played + 1)
    try:
        result = sc.generate_scenario(state, dice, nature=nature or None, defender=defender)
    except ENGINE_ERRORS as exc:
        raise _refuse(exc) from None
    row = CamScenario(cam=cam, mode=cam.scenario_mode)  # the rubber's default; the moderator may switch it
    adapters.store_scenario(row, result.scenario)
    _add_events(row, result.events)
    row.save()
    dice.commit()
    campaign.turn = row.number
    campaign.save(update_fields=["turn"])
    cam.players.update(requests=[], between_ready=False)
    notify.scenario_generated(campaign, row)
    return row


FORCES_PHASE = "cam-forces"  # the dice log's phase of the CAM 2.2 purchase rolls (turn: the scenario)


def battles_begun(campaign: Campaign) -> bool:
    """Issue 31: a rubber's first battle has begun once a scenario's table is rolled (CAM 2.3): from
    then on the rule book its scenarios are fought on online no longer changes."""
    return CamScenario.objects.filter(cam_id=campaign.pk).exclude(stage=CamScenario.Stage.FORCES).exists()


def revealed_force_dice(campaign: Campaign) -> list[int]:
    """The layer record's ``revealed_dice``: the purchase rolls of every scenario whose table has
    been rolled (its forces are public from then on, CAM 2.3)."""
    from campaign.models import DiceRoll

    shown = CamScenario.objects.filter(cam_id=campaign.pk).exclude(stage=CamScenario.Stage.FORCES)
    return list(DiceRoll.objects.filter(campaign=campaign, phase=FORCES_PHASE,
                                        turn__in=shown.values("number")).values_list("seq", flat=True))


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
    # CAM 2.2 forces are chosen blind: the cost rolls of bases and minefields are this seat's until
    # the table reveals the forces (CAM 2.3; ``revealed_force_dice``), else they tell what he bought.
    dice = CampaignDice(campaign, phase=FORCES_PHASE, turn=row.number, concerns=(player.seat,))
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
    from .. import online  # (online imports this package)

    kept = online.kept_tables(row, player.seat, selection.ships)  # ruling BZ94: the ships still chosen
    row.selections = {**row.selections, str(player.seat): {**adapters.selection_json(selection),
                                                           **({"tables": kept} if kept else {})}}
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
    _player_or_moderator(cam, user, role, "roll the table")
    row = _scenario(cam, CamScenario.Stage.FORCES, "roll the table")
    _refuse_if_paused(campaign, role, "roll the table")
    return _roll_table(campaign, cam, row)


def _roll_table(campaign, cam, row: CamScenario) -> CamScenario:
    """CAM 2.3 itself (the caller holds the campaign row lock); also made by a passed force
    selection deadline (``deadlines``, ruling CAM52)."""
    _next_step(campaign, cam, f"scenario {row.number}: table rolled (CAM 2.3)")
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
    from .. import online  # (online imports this package)

    online.after_table(campaign, cam, row)  # auto: resolved now; online: set up on the Buoyz engine
    return row
