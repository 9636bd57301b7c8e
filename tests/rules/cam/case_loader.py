"""CAM rule cases as data: load tests/rules/cam/cases/*.json, run each case's steps through the
CAM entry points with fixed dice, and check every step's ``expect`` against a snapshot.

The format is described in tests/rules/cam/cases/README.md. In short a case is

    {"name", "rule", "doc"?, "xfail"?, "campaign": {...}, "steps": [{"do", "dice"?, "expect"?,
     "error"?, "rolls"?, ...step arguments}, ...]}

``run_case`` returns a list of readable failure lines (empty when the case holds).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from campaign.rules.cam import autoresolve, breakcontact, replacements, scenario, scoring
from campaign.rules.cam.factions import faction, other_power
from campaign.rules.cam.state import CamCampaign, ScenarioRecord, ShipStatus
from campaign.rules.dice import DiceError, FixedDice, Roll
from tests.rules.cam.builders import campaign_of
from tests.rules.eventhorizon.case_loader import CaseError, read_case_files

CASES_DIR = Path(__file__).parent / "cases"
CASE_KEYS = {"name", "rule", "doc", "xfail", "campaign", "steps"}
CAMPAIGN_KEYS = {"period", "starting_points", "settings", "fleets", "factions", "roster", "replacement_points",
                 "scenarios_played", "play_period", "awaiting_replacements"}
COMMON_STEP_KEYS = {"do", "dice", "expect", "error", "rolls", "doc"}
STEP_KEYS = {
    "generate_scenario": {"nature", "defender"},
    "select_forces": {"seat", "ships", "extra_ac", "bases", "minefields"},
    "set_up_table": {"edge_choice", "already_on_table"},
    "start_battle": set(),
    "damage": {"seat", "destroyed", "crippled", "left"},
    "break_check": {"seat"},
    "end_of_turn": set(),
    "autoresolve": set(),
    "score": {"force_end"},
    "record": set(),
    "between_scenarios": {"requests"},
}
ERRORS = {
    "ForceSelectionError": scenario.ForceSelectionError,
    "ScenarioError": scenario.ScenarioError,
    "BattleError": breakcontact.BattleError,
    "ScoringError": scoring.ScoringError,
    "ReplacementError": replacements.ReplacementError,
}


def load_cases(directory: Path = CASES_DIR) -> list[dict]:
    cases = read_case_files(directory, CASE_KEYS, ("name", "rule", "campaign", "steps"))
    for case in cases:
        where = f"{case['_file']}: {case['name']}"
        if "000 CAM" not in case["rule"] and "000 5.7" not in case["rule"] and "003" not in case["rule"]:
            raise CaseError(f"{where}: 'rule' must name its section (000 CAM …)")
        for i, step in enumerate(case["steps"]):
            do = step.get("do")
            if do not in STEP_KEYS:
                raise CaseError(f"{where}: steps[{i}]: unknown step {do!r}")
            unknown = set(step) - COMMON_STEP_KEYS - STEP_KEYS[do]
            if unknown:
                raise CaseError(f"{where}: steps[{i}] ({do}): unknown key(s) {sorted(unknown)}")
    return cases


# --- building the campaign ------------------------------------------------------------------

def _faction(spec: Any):
    if isinstance(spec, str):
        return faction(spec)
    return other_power(spec["name"], spec["wealth"], spec.get("temper"))


def load_campaign(spec: Mapping[str, Any]) -> CamCampaign:
    unknown = set(spec) - CAMPAIGN_KEYS
    if unknown:
        raise CaseError(f"campaign: unknown key(s) {sorted(unknown)}")
    factions = spec.get("factions", {"1": "UFP", "2": "Klingons"})
    camp = campaign_of(spec["fleets"]["1"], spec["fleets"]["2"], period=spec.get("period", 3),
                       starting_points=spec.get("starting_points", 200),
                       factions=(_faction(factions["1"]), _faction(factions["2"])), **spec.get("settings", {}))
    roster = {int(k): v for k, v in spec.get("roster", {}).items()}
    rp = {int(k): v for k, v in spec.get("replacement_points", {}).items()}
    for player in camp.players:
        ships = tuple(replace(s, status=ShipStatus(roster[s.id]["status"]),
                              destroyed_in=roster[s.id].get("destroyed_in"))
                      if s.id in roster else s for s in player.ships)
        camp = camp.with_player(replace(player, ships=ships, replacement_points=rp.get(player.seat, 0)))
    missing = set(roster) - {s.id for p in camp.players for s in p.ships}
    if missing:
        raise CaseError(f"campaign.roster: no ships {sorted(missing)}")
    played = spec.get("scenarios_played", 0)
    if played:
        history = tuple(ScenarioRecord(n, "open_battle", None, None, {}, {}, {}) for n in range(1, played + 1))
        camp = replace(
            camp,
            history=history,
            replacements_done=played - 1 if spec.get("awaiting_replacements") else played,
        )
    if "play_period" in spec:  # the moderator moves the campaign on to another Period
        camp = replace(camp, settings=replace(camp.settings, period=spec["play_period"]))
    return camp


# --- running ----------------------------------------------------------------------------------

@dataclass
class Context:
    campaign: CamCampaign
    scenario: scenario.Scenario | None = None
    battle: breakcontact.BattleState | None = None
    check: breakcontact.BreakCheck | None = None
    score: scoring.ScenarioScore | None = None
    events: list = field(default_factory=list)


def _seat_keys(mapping: Mapping) -> dict[str, Any]:
    return {str(k): v for k, v in mapping.items()}


def snapshot(ctx: Context) -> dict[str, Any]:
    """Everything a case may check, as JSON-like values (seat and ship ids as strings)."""
    out: dict[str, Any] = {}
    camp = ctx.campaign
    table = scoring.standings(camp)
    out["campaign"] = {
        "scenarios_played": camp.scenarios_played,
        "next_ship_id": camp.next_ship_id,
        "players": {str(p.seat): {
            "replacement_points": p.replacement_points,
            "campaign_points": p.campaign_points,
            "ships": {str(s.id): {"sd": s.sd, "status": s.status.value, "replaced_by": s.replaced_by,
                                  "destroyed_in": s.destroyed_in} for s in p.ships},
        } for p in camp.players},
        "standings": {"leader": table.leader, "winner": table.winner, "finished": table.finished},
    }
    if ctx.scenario is not None:
        sc = ctx.scenario
        out["scenario"] = {
            "number": sc.number, "nature": sc.nature.value, "nature_roll": sc.nature_roll, "defender": sc.defender,
            "attacker": sc.attacker, "points_level": sc.points_level, "break_levels": _seat_keys(sc.break_levels),
            "forces": {str(s): f.points for s, f in sc.forces.items()},
            "tables": [{"roll": t.roll, "score": t.score, "nature": t.nature.value, "moons": t.moons,
                        "nebula_clouds": t.nebula_clouds} for t in sc.tables],
            "edges": _seat_keys(sc.edges),
        }
    if ctx.battle is not None:
        b = ctx.battle
        out["battle"] = {
            "turn": b.turn, "broken": _seat_keys(b.broken), "contact_broken": b.contact_broken,
            "losses": {str(s): b.losses(s) for s in b.scenario.seats},
            "conditions": {str(s): list(breakcontact.conditions_met(b, s)) for s in b.scenario.seats},
            "units": {str(s): {uid: st.state.value + (" crippled" if st.crippled else "")
                               for uid, st in b.status[s].items()} for s in b.scenario.seats},
        }
    if ctx.check is not None:
        c = ctx.check
        out["check"] = {"seat": c.seat, "conditions": list(c.conditions), "roll": c.roll, "modifier": c.modifier,
                        "score": c.score, "ordered": c.ordered}
    if ctx.score is not None:
        s = ctx.score
        out["score"] = {
            "winner": s.winner, "victory": s.victory.value if s.victory else None,
            "sides": {str(seat): {"points_left": v.points_left, "bonus": v.bonus, "total": v.total,
                                  "lost": v.lost, "campaign_points": v.campaign_points,
                                  "cp_breakdown": dict(v.cp_breakdown)} for seat, v in s.sides.items()},
        }
    out["events"] = [e.kind for e in ctx.events]
    return out


_MISSING = object()


def lookup(data: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(data, dict):
            data = data.get(part, _MISSING)
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            return _MISSING
        if data is _MISSING:
            return _MISSING
    return data


def _step(ctx: Context, step: Mapping[str, Any], dice: FixedDice) -> None:
    do = step["do"]
    camp = ctx.campaign
    if do == "generate_scenario":
        result = scenario.generate_scenario(camp, dice, nature=step.get("nature"), defender=step.get("defender"))
        ctx.scenario, ctx.battle, ctx.score, ctx.check = result.scenario, None, None, None
        ctx.events = list(result.events)
    elif do == "select_forces":
        if ctx.scenario is None:
            raise CaseError("select_forces before generate_scenario")
        ctx.scenario = scenario.select_forces(camp, ctx.scenario, scenario.ForceSelection(
            step["seat"], tuple(step.get("ships", ())), step.get("extra_ac", 0), tuple(step.get("bases", ())),
            tuple(step.get("minefields", ()))))
    elif do == "set_up_table":
        choice = {int(k): v for k, v in step.get("edge_choice", {}).items()}
        result = scenario.set_up_table(camp, ctx.scenario, dice, edge_choice=choice,
                                       already_on_table=step.get("already_on_table"))
        ctx.scenario = result.scenario
        ctx.events = list(result.events)
        ctx.battle = breakcontact.start_battle(camp, ctx.scenario)
    elif do == "start_battle":
        ctx.battle = breakcontact.start_battle(camp, ctx.scenario)
    elif do == "damage":
        ctx.battle = breakcontact.record_damage(ctx.battle, step["seat"], destroyed=step.get("destroyed", ()),
                                                crippled=step.get("crippled", ()), left=step.get("left", ()))
    elif do == "break_check":
        ctx.check = breakcontact.break_contact_check(ctx.battle, step["seat"], dice)
        ctx.battle = ctx.check.battle
        ctx.events = list(ctx.check.events)
    elif do == "end_of_turn":
        result = breakcontact.end_of_turn(ctx.battle, dice)
        ctx.battle, ctx.events = result.battle, list(result.events)
    elif do == "autoresolve":
        result = autoresolve.autoresolve_battle(ctx.battle, dice)
        ctx.battle, ctx.events = result.battle, list(result.events)
    elif do == "score":
        ctx.score = scoring.score_scenario(ctx.battle, force_end=step.get("force_end", False))
        ctx.events = list(ctx.score.events)
    elif do == "record":
        result = scoring.record_scenario(camp, ctx.battle, ctx.score)
        ctx.campaign, ctx.events = result.campaign, list(result.events)
    elif do == "between_scenarios":
        requests = {int(seat): [replacements.ReplacementRequest(r["replaces"], r["sd"], r.get("name", ""))
                                for r in reqs] for seat, reqs in step.get("requests", {}).items()}
        result = replacements.between_scenarios(camp, dice, requests)
        ctx.campaign, ctx.events = result.campaign, list(result.events)


def describe_rolls(rolls: list[Roll]) -> str:
    return "\n".join(f"    {r.expression} {list(r.faces)} {r.purpose}" for r in rolls) or "    (none)"


def run_case(case: Mapping[str, Any]) -> list[str]:
    ctx = Context(campaign=load_campaign(case["campaign"]))
    errors: list[str] = []
    for i, step in enumerate(case["steps"]):
        where = f"step {i + 1} ({step['do']})"
        dice = FixedDice(step.get("dice", []))
        before = snapshot(ctx)
        expected_error = step.get("error")
        try:
            _step(ctx, step, dice)
        except DiceError as exc:
            return errors + [f"{where}: {exc}\n  rolls made:\n{describe_rolls(dice.rolls)}"]
        except ValueError as exc:
            if not expected_error:
                return errors + [f"{where}: unexpected {type(exc).__name__}: {exc}"]
            cls = ERRORS[expected_error["type"]]
            if not isinstance(exc, cls):
                errors.append(f"{where}: raised {type(exc).__name__}, expected {expected_error['type']}: {exc}")
            if "reason" in expected_error and getattr(exc, "reason", None) != expected_error["reason"]:
                errors.append(
                    f"{where}: reason {getattr(exc, 'reason', None)!r}, expected {expected_error['reason']!r}"
                )
            if expected_error.get("match", "") not in str(exc):
                errors.append(f"{where}: message {str(exc)!r} lacks {expected_error['match']!r}")
            if snapshot(ctx) != before:
                errors.append(f"{where}: the error changed the state")
        else:
            if expected_error:
                errors.append(f"{where}: expected {expected_error['type']} but the step succeeded")
        left = dice.remaining()
        if left:
            errors.append(f"{where}: dice not used: {left} (every face of a case must be rolled)")
        if "rolls" in step:
            got = [f"{r.expression} {r.purpose}" for r in dice.rolls]
            if got != step["rolls"]:
                errors.append(f"{where}: rolls {got}, expected {step['rolls']}")
        snap = snapshot(ctx)
        for path, want in step.get("expect", {}).items():
            got = lookup(snap, path)
            if got is _MISSING:
                errors.append(f"{where}: expect {path!r}: no such value")
            elif got != want:
                errors.append(f"{where}: {path} = {got!r}, expected {want!r}")
        if errors:
            return errors + [f"  rolls made:\n{describe_rolls(dice.rolls)}"]
    return errors
