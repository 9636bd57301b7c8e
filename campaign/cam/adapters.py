"""Rows <-> the CAM engine's frozen dataclasses (``campaign.rules.cam``).

Explicit converters, one per value; no rule is decided here. ``campaign_state(cam)`` builds the
engine's ``CamCampaign`` from the rows, ``scenario_state(row)`` its ``Scenario`` and
``battle_state(row, state)`` its ``BattleState``; the ``store_*`` functions write engine values
back to rows (the caller holds the campaign row lock, inside the action's transaction).
"""

from __future__ import annotations

from types import MappingProxyType

from campaign.rules.cam import breakcontact as bc
from campaign.rules.cam import factions as fx
from campaign.rules.cam import scenario as sc
from campaign.rules.cam import ships as sh
from campaign.rules.cam import state as st

from .models import CamCampaign, CamPlayer, CamScenario, CamSD, CamShip

# --- SDs ---------------------------------------------------------------------------------------


def sd_from_row(row: CamSD) -> sh.SD:
    return sh.SD(
        key=row.key, ship_class=sh.ShipClass(row.ship_class), name=row.name, speed=row.speed,
        turning=row.turning, target_size=row.target_size, shields=tuple(int(x) for x in row.shields),
        hull=row.hull, crippled_at=row.crippled_at, command=row.command, ac=row.ac, ac_capacity=row.ac_capacity,
        special_abilities=tuple(row.special_abilities or ()),
        main=tuple(sh.Weapon(int(w[0]), str(w[1]), str(w[2]) if len(w) > 2 else "") for w in row.main or ()),
        secondary=row.secondary, close_defence=row.close_defence, periods=(row.period_first, row.period_last),
        notes=row.notes,
    )


def sd_fields(sd: sh.SD) -> dict:
    """An engine SD as CamSD field values."""
    return {
        "key": sd.key, "ship_class": sd.ship_class.value, "name": sd.name, "speed": sd.speed,
        "turning": sd.turning, "target_size": sd.target_size, "shields": list(sd.shields), "hull": sd.hull,
        "crippled_at": sd.crippled_at, "command": sd.command, "ac": sd.ac, "ac_capacity": sd.ac_capacity,
        "special_abilities": list(sd.special_abilities), "main": [[w.count, w.name, w.arc] for w in sd.main],
        "secondary": sd.secondary, "close_defence": sd.close_defence, "period_first": sd.periods[0],
        "period_last": sd.periods[1], "notes": sd.notes,
    }


def sd_json(sd: sh.SD) -> dict:
    return {**sd_fields(sd), "points": sd.points, "group": sd.group.value, "custom": sd.key not in sh.STARTER_CATALOGUE}


def catalogue(cam: CamCampaign):
    """The starter catalogue plus the campaign's custom SDs."""
    extra = [sd_from_row(r) for r in cam.sds.all()]
    return sh.make_catalogue(*extra) if extra else sh.STARTER_CATALOGUE


# --- settings, factions, players ---------------------------------------------------------------


def settings_of(cam: CamCampaign) -> st.CamSettings:
    return st.CamSettings(period=cam.period, starting_points=cam.starting_points, scenarios=cam.scenarios,
                          points_level=cam.points_level, break_percent=cam.break_percent,
                          replacement_percent=cam.replacement_percent, survival_roll=cam.survival_roll,
                          tables=cam.tables, replacement_house_rule=cam.replacement_house_rule)


def faction_of(player: CamPlayer) -> fx.Faction:
    if player.preset:
        return fx.faction(player.faction)
    return fx.other_power(player.faction, player.wealth, player.temper)


def faction_fields(name: str, wealth: str | None, temper: str | None) -> dict:
    """CamPlayer faction fields for a power: a preset one's classes come from the rule book
    (CAM 4.2 lists, CAM 3.1 modifiers); another's are the moderator's "best fit". Raises
    ``FactionError``."""
    try:
        preset = fx.faction(name)
    except fx.FactionError:
        if not wealth:
            raise fx.FactionError(f"{fx.WEALTH_RULE}: {name!r} is not a power the rule book classes; choose its "
                                  "wealth class (\"Other powers: Best fit from above\")") from None
        made = fx.other_power(name, wealth, temper or None)
        return {"faction": made.name, "wealth": made.wealth.value, "temper": made.temper.value, "preset": False}
    return {"faction": preset.name, "wealth": preset.wealth.value, "temper": preset.temper.value, "preset": True}


def roster_ship(row: CamShip) -> st.RosterShip:
    return st.RosterShip(id=row.number, sd=row.sd, name=row.name, status=st.ShipStatus(row.status),
                         destroyed_in=row.destroyed_in, replaced_by=row.replaced_by)


def player_state(row: CamPlayer, ships=None) -> st.Player:
    ships = row.ships.all() if ships is None else ships
    return st.Player(seat=row.seat, name=row.name, faction=faction_of(row),
                     ships=tuple(roster_ship(s) for s in ships), replacement_points=row.replacement_points,
                     campaign_points=row.campaign_points)


def record_of(row: CamScenario) -> st.ScenarioRecord:
    score = row.score
    return st.ScenarioRecord(
        number=row.number, nature=row.nature, winner=score["winner"], victory=score["victory"],
        campaign_points=MappingProxyType({int(k): v["campaign_points"] for k, v in score["sides"].items()}),
        points_left=MappingProxyType({int(k): v["total"] for k, v in score["sides"].items()}),
        broke_contact=MappingProxyType({int(k): v["broke_contact"] for k, v in score["sides"].items()}),
    )


def campaign_state(cam: CamCampaign) -> st.CamCampaign:
    players = list(cam.players.order_by("seat").prefetch_related("ships"))
    if len(players) != 2:
        raise st.CampaignSetupError(f"{st.CAMPAIGN_RULE}: a CAM campaign has two players (ruling CAM5), "
                                    f"not {len(players)}")
    history = tuple(record_of(r) for r in cam.scenario_rows.filter(stage=CamScenario.Stage.SCORED).order_by("number"))
    return st.CamCampaign(
        settings=settings_of(cam), players=(player_state(players[0]), player_state(players[1])),
        catalogue=catalogue(cam), history=history, next_ship_id=cam.next_ship_id,
        replacements_done=cam.replacements_done)


def store_campaign(cam: CamCampaign, state: st.CamCampaign) -> None:
    """Write the engine campaign's rosters, points and counters back (ships by roster id)."""
    for player in state.players:
        row = cam.players.get(seat=player.seat)
        row.replacement_points = player.replacement_points
        row.campaign_points = player.campaign_points
        row.save(update_fields=["replacement_points", "campaign_points"])
        existing = {s.number: s for s in row.ships.all()}
        for ship in player.ships:
            values = {"sd": ship.sd, "name": ship.name, "status": ship.status.value,
                      "destroyed_in": ship.destroyed_in, "replaced_by": ship.replaced_by}
            have = existing.get(ship.id)
            if have is None:
                CamShip.objects.create(player=row, number=ship.id, **values)
            elif any(getattr(have, k) != v for k, v in values.items()):
                for k, v in values.items():
                    setattr(have, k, v)
                have.save()
    cam.next_ship_id = state.next_ship_id
    cam.replacements_done = state.replacements_done
    cam.save(update_fields=["next_ship_id", "replacements_done"])


# --- scenarios and battles ---------------------------------------------------------------------


def unit_json(u: sc.Unit) -> dict:
    return {"uid": u.uid, "kind": u.kind, "points": u.points, "name": u.name,
            "ship_class": u.ship_class.value if u.ship_class else None, "ship_id": u.ship_id,
            "size_class_0": u.size_class_0, "can_cripple": u.can_cripple}


def unit_from(d: dict) -> sc.Unit:
    return sc.Unit(uid=d["uid"], kind=d["kind"], points=d["points"], name=d["name"],
                   ship_class=sh.ShipClass(d["ship_class"]) if d["ship_class"] else None, ship_id=d["ship_id"],
                   size_class_0=d["size_class_0"], can_cripple=d["can_cripple"])


def force_json(force: sc.Force) -> dict:
    return {"seat": force.seat, "points": force.points, "units": [unit_json(u) for u in force.units],
            "on_table": force.on_table}


def selection_json(sel: sc.ForceSelection) -> dict:
    return {"ships": list(sel.ships), "extra_ac": sel.extra_ac, "bases": list(sel.bases),
            "minefields": list(sel.minefields), "on_table": sel.on_table}


def selection_from(seat: int, d: dict) -> sc.ForceSelection:
    return sc.ForceSelection(seat=seat, ships=tuple(d.get("ships", ())), extra_ac=d.get("extra_ac", 0),
                             bases=tuple(d.get("bases", ())), minefields=tuple(d.get("minefields", ())),
                             on_table=bool(d.get("on_table", False)))


def table_json(t: sc.Table) -> dict:
    return {"roll": t.roll, "score": t.score, "nature": t.nature.value, "moons": t.moons,
            "nebula_clouds": t.nebula_clouds}


def scenario_state(row: CamScenario) -> sc.Scenario:
    seats = tuple(sorted(row.cam.players.values_list("seat", flat=True)))
    return sc.Scenario(
        number=row.number, nature=sc.Nature(row.nature), points_level=row.points_level,
        break_percent=row.break_percent, seats=seats, defender=row.defender, nature_roll=row.nature_roll,
        forces=MappingProxyType({int(k): sc.Force(seat=int(k), units=tuple(unit_from(u) for u in f["units"]),
                                                   on_table=bool(f.get("on_table", False)))
                                 for k, f in row.forces.items()}),
        tables=tuple(sc.Table(roll=t["roll"], score=t["score"], nature=sc.TableNature(t["nature"]),
                              moons=t["moons"], nebula_clouds=t["nebula_clouds"]) for t in row.tables),
        edges=MappingProxyType({int(k): v for k, v in row.edges.items()}),
        edge_rolls=tuple(MappingProxyType({int(k): v for k, v in r.items()}) for r in row.edge_rolls),
        break_levels=MappingProxyType({int(k): v for k, v in row.break_levels.items()}),
    )


def store_scenario(row: CamScenario, scenario: sc.Scenario) -> None:
    """Copy an engine scenario's set-up into the row (not saved)."""
    row.number = scenario.number
    row.nature = scenario.nature.value
    row.nature_roll = scenario.nature_roll
    row.defender = scenario.defender
    row.points_level = scenario.points_level
    row.break_percent = scenario.break_percent
    row.forces = {str(s): force_json(f) for s, f in scenario.forces.items()}
    row.break_levels = {str(s): v for s, v in scenario.break_levels.items()}
    row.tables = [table_json(t) for t in scenario.tables]
    row.edges = {str(s): e for s, e in scenario.edges.items()}
    row.edge_rolls = [{str(s): v for s, v in r.items()} for r in scenario.edge_rolls]


def battle_json(battle: bc.BattleState) -> dict:
    return {
        "turn": battle.turn, "autoresolved": battle.autoresolved,
        "broken": {str(s): t for s, t in battle.broken.items()},
        "status": {str(seat): {uid: {"state": us.state.value, "crippled": us.crippled} for uid, us in units.items()}
                   for seat, units in battle.status.items()},
    }


def battle_state(row: CamScenario, campaign: st.CamCampaign) -> bc.BattleState:
    scenario = scenario_state(row)
    data = row.battle
    return bc.BattleState(
        scenario=scenario,
        factions=MappingProxyType({s: campaign.player(s).faction for s in scenario.seats}),
        status=MappingProxyType({
            int(seat): MappingProxyType({uid: bc.UnitStatus(state=bc.UnitState(v["state"]), crippled=v["crippled"])
                                         for uid, v in units.items()})
            for seat, units in data["status"].items()}),
        turn=data["turn"], broken=MappingProxyType({int(s): t for s, t in data["broken"].items()}),
        autoresolved=data["autoresolved"])


def score_json(score) -> dict:
    return {
        "scenario": score.scenario, "winner": score.winner,
        "victory": score.victory.value if score.victory else None,
        "sides": {str(s): {"seat": v.seat, "force_points": v.force_points, "lost": v.lost,
                           "points_left": v.points_left, "bonus": v.bonus, "total": v.total,
                           "broke_contact": v.broke_contact, "campaign_points": v.campaign_points,
                           "cp_breakdown": dict(v.cp_breakdown)}
                  for s, v in score.sides.items()},
    }


def event_json(event: st.Event) -> dict:
    return {"step": event.step, "kind": event.kind, "seats": list(event.seats), "text": event.text,
            "data": _plain(event.data)}


def _plain(value):
    if isinstance(value, dict | MappingProxyType):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
