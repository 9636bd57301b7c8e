"""What-if battles between two CAM forces on the Buoyz 'N Da 'Hood engine (issue 17, item 5).

Pure Python, no Django: the worker processes (``tactical/whatif/worker.py``) import it. A CAM
what-if run stores a *job* (JSON) that says everything a battle needs:

``{"ruleset": "buoyz", "period": P, "sds": [custom SD fields, …], "scenario": {"number",
"nature", "points_level", "break_percent", "defender", "tables", "edges", "break_levels", "turn", "broken"},
"sides": [{"key": "a", "seat": S, "label", "faction": {"name", "wealth", "temper", "preset"},
"units": [CAM unit JSON, every unit of the force], "status": {uid: {"state", "crippled"}},
"ships": {roster id: SD key}}, {… "key": "b" …}]}``

``play_cam_trial(job, seed, i)`` fights battle ``i``: the scenario's CAM record
(``campaign.rules.cam.breakcontact.BattleState``) as it stands, the units still on the table set up
by ``tactical.rules.buoyz.cam.deploy_cam`` (its table nature placed by battle ``i``'s own dice),
crippled ships crippled, both sides played by the doctrine to the CAM 3.0 end, scored by
``score_scenario``. ``CamTally`` adds the battles up: win / draw / loss rates with Wilson 95 %
intervals, mean points destroyed, how the battles ended and the CAM 3.1 victory scale. Battle
``i`` rolls from ``derive_seed(f"what-if/{seed}/{i}")`` only (ruling WI1), so a run is the same
however it is spread over processes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from campaign.rules.cam import breakcontact as bc
from campaign.rules.cam import factions as fx
from campaign.rules.cam import scenario as sc
from campaign.rules.cam import ships as sh
from campaign.rules.cam import state as st
from campaign.rules.cam.autoresolve import autoresolve_sides
from campaign.rules.dice import SeededDice, derive_seed
from campaign.rules.eventhorizon.autoresolve import odds

RULESET = "buoyz"
KEYS = ("a", "b")
ENDINGS = ("contact broken", "field held", "mutual destruction", "turn cap")
VICTORIES = ("minor", "major", "decisive")
Z95 = 1.959963984540054  # the normal quantile of a two-sided 95 % interval


# --- the job: JSON <-> the CAM engine's values ---------------------------------------------------


def sd_from_json(d: Mapping[str, Any]) -> sh.SD:
    """An SD from ``campaign.cam.adapters.sd_fields``'s JSON."""
    return sh.SD(
        key=d["key"], ship_class=sh.ShipClass(d["ship_class"]), name=d["name"], speed=d["speed"],
        turning=d["turning"], target_size=d["target_size"], shields=tuple(int(x) for x in d["shields"]),
        hull=d["hull"], crippled_at=d["crippled_at"], command=d["command"], ac=d["ac"], ac_capacity=d["ac_capacity"],
        special_abilities=tuple(d.get("special_abilities") or ()),
        main=tuple(sh.Weapon(int(w[0]), str(w[1]), str(w[2]) if len(w) > 2 else "") for w in d.get("main") or ()),
        secondary=d["secondary"], close_defence=d["close_defence"], periods=(d["period_first"], d["period_last"]),
        notes=d.get("notes", ""))


def unit_from_json(d: Mapping[str, Any]) -> sc.Unit:
    return sc.Unit(uid=d["uid"], kind=d["kind"], points=d["points"], name=d["name"],
                   ship_class=sh.ShipClass(d["ship_class"]) if d.get("ship_class") else None,
                   ship_id=d.get("ship_id"), size_class_0=bool(d.get("size_class_0")),
                   can_cripple=bool(d.get("can_cripple")))


def unit_to_json(u: sc.Unit) -> dict[str, Any]:
    return {"uid": u.uid, "kind": u.kind, "points": u.points, "name": u.name,
            "ship_class": u.ship_class.value if u.ship_class else None, "ship_id": u.ship_id,
            "size_class_0": u.size_class_0, "can_cripple": u.can_cripple}


def faction_from_json(d: Mapping[str, Any]) -> fx.Faction:
    if d.get("preset"):
        return fx.faction(d["name"])
    return fx.other_power(d["name"], d.get("wealth") or "moderate", d.get("temper") or "neutral")


def catalogue_of(job: Mapping[str, Any]) -> Mapping[str, sh.SD]:
    extra = [sd_from_json(d) for d in job.get("sds") or ()]
    return sh.make_catalogue(*extra) if extra else sh.STARTER_CATALOGUE


NEUTRAL = {"name": "Catalogue fleet", "wealth": "moderate", "temper": "neutral", "preset": False}


def catalogue_job(period: int, points: int, fleets: Mapping[str, list[str]], *, break_percent: int = 40,
                  sds: list[dict] | None = None, labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A job for two fleets picked from the CAM catalogue (SD keys, checked by the caller): fought
    as an open battle of the CAM rule book on an open-space table (ruling WI5), side A from the
    south edge as seat 1, side B from the north as seat 2, each a power of neutral temper, the
    'Break Contact' level ``break_percent`` of each force (CAM 2.3)."""
    catalogue = catalogue_of({"sds": sds or []})
    sides = []
    next_id = 1
    for seat, key in enumerate(KEYS, start=1):
        units, ships = [], {}
        for sd_key in fleets[key]:
            sd = catalogue[sd_key]
            units.append(unit_to_json(sc.Unit(uid=f"ship:{next_id}", kind="ship", points=sd.points, name=sd.name,
                                              ship_class=sd.ship_class, ship_id=next_id,
                                              size_class_0=sd.size_class_0, can_cripple=sd.crippled_at > 0)))
            ships[str(next_id)] = sd_key
            next_id += 1
        label = (labels or {}).get(key) or f"Fleet {key.upper()}"
        sides.append({"key": key, "seat": seat, "label": label, "faction": {**NEUTRAL, "name": label},
                      "units": units, "status": {}, "ships": ships})
    return {"ruleset": RULESET, "period": period, "points": points, "sds": list(sds or []),
            "scenario": {"number": 1, "nature": sc.Nature.OPEN_BATTLE.value, "points_level": points,
                         "break_percent": break_percent, "defender": None,
                         "tables": [{"roll": 1, "score": 1, "nature": sc.TableNature.OPEN_SPACE.value, "moons": None,
                                     "nebula_clouds": 0}],
                         "edges": {"1": "south", "2": "north"}, "break_levels": {}, "turn": 1},
            "sides": sides}


@dataclass(frozen=True)
class Setup:
    """A job turned into engine values once (every battle of a run starts from it)."""

    campaign: st.CamCampaign
    battle: bc.BattleState  # the whole record: every unit, its state now
    deployed: bc.BattleState  # the same with only the units still on the table (what deploy_cam sets up)
    seats: Mapping[str, int]  # side key -> seat
    crippled: frozenset[str]  # uids of ships that start crippled


def setup_from_job(job: Mapping[str, Any]) -> Setup:
    sides = {side["key"]: side for side in job["sides"]}
    if set(sides) != set(KEYS):
        raise ValueError("a CAM what-if has the two sides 'a' and 'b'")
    seats = {k: int(sides[k]["seat"]) for k in KEYS}
    catalogue = catalogue_of(job)
    players = tuple(
        st.Player(seat=seats[k], name=sides[k].get("label") or f"Seat {seats[k]}",
                  faction=faction_from_json(sides[k]["faction"]),
                  ships=tuple(st.RosterShip(id=int(sid), sd=key) for sid, key in sides[k]["ships"].items()))
        for k in KEYS)
    campaign = st.CamCampaign(settings=st.CamSettings(period=int(job["period"]), starting_points=1),
                              players=players, catalogue=catalogue)
    s = job["scenario"]
    forces = {seats[k]: sc.Force(seat=seats[k], units=tuple(unit_from_json(u) for u in sides[k]["units"]))
              for k in KEYS}
    levels = {int(seat): int(v) for seat, v in (s.get("break_levels") or {}).items()}
    for seat, force in forces.items():  # CAM 2.3: a level not yet set is the scenario's percentage
        levels.setdefault(seat, sc.break_level(force.points, int(s["break_percent"])))
    scenario = sc.Scenario(
        number=int(s.get("number") or 1), nature=sc.Nature(s["nature"]), points_level=int(s["points_level"]),
        break_percent=int(s["break_percent"]), seats=(seats["a"], seats["b"]), defender=s.get("defender"),
        forces=MappingProxyType(forces),
        tables=tuple(sc.Table(roll=t["roll"], score=t["score"], nature=sc.TableNature(t["nature"]),
                              moons=t.get("moons"), nebula_clouds=t.get("nebula_clouds", 0))
                     for t in s.get("tables") or ()),
        edges=MappingProxyType({int(seat): e for seat, e in (s.get("edges") or {}).items()}),
        break_levels=MappingProxyType(levels))
    status = {}
    for k in KEYS:
        given = sides[k].get("status") or {}
        status[seats[k]] = MappingProxyType({
            u.uid: bc.UnitStatus(state=bc.UnitState(given.get(u.uid, {}).get("state", "on_table")),
                                 crippled=bool(given.get(u.uid, {}).get("crippled")))
            for u in forces[seats[k]].units})
    battle = bc.BattleState(scenario=scenario, factions=MappingProxyType({p.seat: p.faction for p in players}),
                            status=MappingProxyType(status), turn=int(s.get("turn") or 1),
                            broken=MappingProxyType({seat: (s.get("broken") or {}).get(str(seat))
                                                     for seat in scenario.seats}))
    on_table = {seat: sc.Force(seat=seat, units=tuple(battle.on_table(seat))) for seat in scenario.seats}
    for seat, force in on_table.items():
        if not any(u.kind == "ship" for u in force.units):
            raise ValueError(f"seat {seat} has no ship left on the table")
    deployed = replace(battle, scenario=replace(scenario, forces=MappingProxyType(on_table)))
    crippled = frozenset(u.uid for seat in scenario.seats for u in battle.on_table(seat)
                         if u.kind == "ship" and battle.unit_status(seat, u.uid).crippled)
    return Setup(campaign, battle, deployed, seats, crippled)


@lru_cache(maxsize=8)
def _cached_setup(key: str) -> Setup:
    return setup_from_job(json.loads(key))


def _setup(job: Mapping[str, Any]) -> Setup:
    return _cached_setup(json.dumps(job, sort_keys=True))


# --- one battle ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CamTrial:
    """One battle: the CAM winner (side key, or None for a draw), how it ended, the points each
    side lost (destroyed or captured, CAM 3.1 'points loss'), the CAM 3.1 victory level and the
    game turns fought."""

    winner: str | None
    ending: str
    lost: Mapping[str, int]
    victory: str | None
    turns: int


def battle_state(job: Mapping[str, Any], seed: str, index: int):
    """Battle ``index`` of a run, deployed (``deploy_cam``), and its dice."""
    from tactical.rules.buoyz.cam import deploy_cam

    setup = _setup(job)
    dice = SeededDice(derive_seed(f"what-if/{seed}/{index}"))
    state = deploy_cam(setup.campaign, setup.deployed, dice=dice)
    link = state.cam
    ships = list(state.ships)
    recorded = set()
    for ship_id, _seat, uid in link.units:
        if uid in setup.crippled:
            i = next(n for n, s in enumerate(ships) if s.id == ship_id)
            ships[i] = replace(ships[i], crippled=True, hull=min(ships[i].hull, max(1, ships[i].sd.crippled_at)))
            recorded.add((ship_id, "crippled"))
    # The engine keeps the whole record from here (earlier losses count toward CAM 3.1 condition 1).
    state = replace(state, ships=tuple(ships), cam=replace(link, battle=setup.battle, recorded=frozenset(recorded)))
    return state, dice


def play_cam_trial(job: Mapping[str, Any], seed: str, index: int) -> CamTrial:
    from tactical.rules.buoyz.doctrine import simulate
    from tactical.rules.buoyz.engine import outcome

    setup = _setup(job)
    state, dice = battle_state(job, seed, index)
    out = outcome(simulate(state, dice))
    by_seat = {seat: key for key, seat in setup.seats.items()}
    score = out.cam_score
    winner = by_seat.get(score.winner) if score is not None else by_seat.get(out.winner)
    victory = score.victory.value if score is not None and score.victory is not None else None
    return CamTrial(winner=winner, ending=out.ending or "turn cap",
                    lost={by_seat[seat]: pts for seat, pts in out.points_destroyed.items()},
                    victory=victory, turns=out.turns)


def trial_to_json(t: CamTrial) -> dict[str, Any]:
    return {"winner": t.winner, "ending": t.ending, "lost": dict(t.lost), "victory": t.victory, "turns": t.turns}


def trial_from_json(d: Mapping[str, Any]) -> CamTrial:
    return CamTrial(winner=d["winner"], ending=d["ending"], lost=dict(d["lost"]), victory=d["victory"],
                    turns=d["turns"])


# --- adding up -------------------------------------------------------------------------------------


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``k`` successes in ``n`` trials (95 % by default): unlike
    p ± z·√(p(1−p)/n) it stays inside [0, 1] and is honest at 0 and n."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At 0 and n the bounds are exactly 0 and 1; say so rather than trust the rounding.
    return (0.0 if k == 0 else max(0.0, centre - half), 1.0 if k == n else min(1.0, centre + half))


def _rate(k: int, n: int) -> dict[str, Any]:
    low, high = wilson(k, n)
    return {"count": k, "rate": round(k / n, 4) if n else 0.0, "low": round(low, 4), "high": round(high, 4)}


@dataclass
class CamTally:
    trials: int = 0
    wins: dict[str, int] = field(default_factory=lambda: {k: 0 for k in KEYS})
    draws: int = 0
    lost: dict[str, int] = field(default_factory=lambda: {k: 0 for k in KEYS})
    endings: dict[str, int] = field(default_factory=lambda: {e: 0 for e in ENDINGS})
    victories: dict[str, dict[str, int]] = field(default_factory=lambda: {k: {v: 0 for v in VICTORIES} for k in KEYS})
    turns: int = 0

    def add(self, t: CamTrial) -> None:
        self.trials += 1
        if t.winner is None:
            self.draws += 1
        else:
            self.wins[t.winner] += 1
            if t.victory:
                self.victories[t.winner][t.victory] = self.victories[t.winner].get(t.victory, 0) + 1
        for k in KEYS:
            self.lost[k] += t.lost.get(k, 0)
        self.endings[t.ending] = self.endings.get(t.ending, 0) + 1
        self.turns += t.turns

    def result(self) -> dict[str, Any]:
        n = self.trials
        sides = {}
        for k in KEYS:
            other = "b" if k == "a" else "a"
            sides[k] = {"win": _rate(self.wins[k], n), "loss": _rate(self.wins[other], n),
                        "mean_points_lost": round(self.lost[k] / n, 2) if n else 0.0,
                        "victories": dict(self.victories[k])}
        return {"ruleset": RULESET, "trials": n, "sides": sides, "draw": _rate(self.draws, n),
                "endings": dict(self.endings), "mean_turns": round(self.turns / n, 2) if n else 0.0,
                "interval": "Wilson score, 95 %"}


def tally_for(job: Mapping[str, Any]) -> CamTally:
    """An empty tally (the registry's what-if record, ``tactical.rules.kit.trial.Trial``)."""
    return CamTally()


def auto_resolve_odds(job: Mapping[str, Any]) -> dict[str, Any]:
    """The exact odds of the CAM auto-resolve (the Event Horizon odds system on CAM points,
    ``campaign.rules.cam.autoresolve``, ruling CAM26) for the same two forces as they stand."""
    setup = _setup(job)
    a, b = autoresolve_sides(setup.battle)
    o = odds(a, b)
    return {"points": {"a": a.bp, "b": b.bp}, "dice": {"a": o.a_dice, "b": o.b_dice},
            "win": {"a": float(o.p_a_wins), "b": float(o.p_b_wins)},
            "expected_losses": {"a": float(o.expected_a_losses), "b": float(o.expected_b_losses)}}


__all__ = ["CamTally", "CamTrial", "RULESET", "auto_resolve_odds", "battle_state", "play_cam_trial", "setup_from_job",
           "trial_from_json", "trial_to_json", "wilson"]
