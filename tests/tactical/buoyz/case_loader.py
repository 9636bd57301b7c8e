"""Buoyz 'N Da 'Hood rule cases as data (tests/tactical/buoyz/cases/*.json; format in the README
there): build a ``BattleState`` from a case, apply its steps with fixed dice, check each step's
``expect``. ``run_case`` returns readable failure lines (empty when the case holds)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from campaign.rules.cam.ships import SD, ShipClass, Weapon, validate_sd
from campaign.rules.dice import DiceError, FixedDice, Roll
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz.engine import apply, legal_actions
from tactical.rules.buoyz.sds import CATALOGUE
from tactical.rules.buoyz.state import (
    BattleState,
    Celestial,
    Event,
    Flight,
    IllegalActionError,
    Minefield,
    Orders,
    Web,
    new_battle,
    new_ship,
)
from tests.rules.case_loader import CaseError, read_case_files

CASES_DIR = Path(__file__).parent / "cases"
CASE_KEYS = {"name", "rule", "doc", "battle", "steps", "xfail"}
BATTLE_KEYS = {"table", "ships", "sds", "orders", "phase", "turn", "initiative", "first", "acting", "nominated",
               "turn_cap", "minefields", "flights", "ac_slot", "objects", "webs", "rotation", "edges", "tables",
               "deploy", "cam", "play"}
SHIP_KEYS = {"id", "side", "sd", "at", "heading", "set", "flagship"}
STEP_KEYS = {"action", "dice", "expect", "error", "doc"}
EXPECT_KEYS = {"ships", "events", "events_absent", "rolls", "state", "legal", "not_legal", "flights", "objects", "cam"}
SHIP_FIELDS = {f.name for f in fields(__import__("tactical.rules.buoyz.state", fromlist=["Ship"]).Ship)}


def load_cases(directory: Path = CASES_DIR) -> list[dict]:
    return read_case_files(directory, CASE_KEYS, ("name", "rule", "battle", "steps"))


def _sd(spec: dict) -> SD:
    spec = dict(spec)
    spec["ship_class"] = ShipClass(spec["ship_class"])
    spec["shields"] = tuple(spec["shields"]) if isinstance(spec["shields"], list) else (spec["shields"],) * 4
    spec["main"] = tuple(Weapon(*w) for w in spec.get("main", []))
    spec["special_abilities"] = tuple(spec.get("special_abilities", []))
    spec["periods"] = tuple(spec.get("periods", [1, 6]))
    return validate_sd(SD(**spec))


def _tuplify(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    return value


def _deployed(spec: Mapping[str, Any]) -> BattleState:
    """A battle set up by ``deploy`` (``"deploy"``) or a CAM scenario by ``deploy_cam`` (``"cam"``);
    ``ships`` then moves or changes ships it placed (``id`` with ``at``, ``heading``, ``set``)."""
    from tactical.rules.buoyz.cam import deploy_cam
    from tactical.rules.buoyz.deploy import deploy

    if "deploy" in spec:
        d = spec["deploy"]
        state = deploy({int(side): [CATALOGUE[k] for k in keys] for side, keys in d["fleets"].items()},
                       tables=d.get("tables", 1), table_of={int(k): v for k, v in d.get("table_of", {}).items()})
    else:
        from types import MappingProxyType

        from campaign.rules.cam.scenario import Table, TableNature
        from tests.rules.cam.builders import battle_with, campaign_of

        c = spec["cam"]
        fleets = [c["fleets"]["1"], c["fleets"]["2"]]
        camp = campaign_of(*fleets, period=c.get("period", 2), points_level=c.get("points_level", 50))
        n = len(fleets[0])
        battle = battle_with(camp, {1: range(1, n + 1), 2: range(n + 1, n + len(fleets[1]) + 1)})
        tables = tuple(Table(1, 1, TableNature.OPEN_SPACE) for _ in range(c.get("tables", 1)))
        battle = replace(battle, scenario=replace(battle.scenario, tables=tables),
                         broken=MappingProxyType({**battle.broken, **{int(s): 1 for s in c.get("breaking", [])}}))
        state = deploy_cam(camp, battle, table_of=c.get("table_of"))
    for s in spec.get("ships", []):
        unknown = set(s) - {"id", "at", "heading", "set"}
        if unknown:
            raise CaseError(f"ship {s.get('id')}: with a deployed battle only 'at', 'heading', 'set' (not {sorted(unknown)})")
        ship = state.ship(s["id"])
        ship = replace(ship, pos=tuple(float(v) for v in s.get("at", ship.pos)), heading=float(s.get("heading", ship.heading)),
                       **{k: _tuplify(v) for k, v in s.get("set", {}).items()})
        state = replace(state, ships=tuple(ship if x.id == ship.id else x for x in state.ships))
    return state


def load_battle(spec: Mapping[str, Any]) -> BattleState:
    unknown = set(spec) - BATTLE_KEYS
    if unknown:
        raise CaseError(f"battle: unknown key(s) {sorted(unknown)}")
    if "deploy" in spec or "cam" in spec:
        ignored = set(spec) - {"deploy", "cam", "ships", "phase", "turn", "initiative", "first", "acting", "nominated",
                               "ac_slot"}
        if ignored or ("deploy" in spec and "cam" in spec):
            raise CaseError(f"battle: 'deploy' or 'cam' sets the battle up; not with {sorted(ignored)}")
        state = _deployed(spec)
        sides = state.sides
        return _phase(state, spec, sides)
    extra = {k: _sd(dict(v, key=k)) for k, v in spec.get("sds", {}).items()}
    ships = []
    for s in spec["ships"]:
        unknown = set(s) - SHIP_KEYS
        if unknown:
            raise CaseError(f"ship {s.get('id')}: unknown key(s) {sorted(unknown)}")
        sd = extra.get(s["sd"]) or CATALOGUE.get(s["sd"])
        if sd is None:
            raise CaseError(f"unknown SD {s['sd']!r} (known: {sorted(set(CATALOGUE) | set(extra))})")
        ship = new_ship(s["id"], s["side"], sd, tuple(s["at"]), s.get("heading", 0), flagship=s.get("flagship", False))
        if "set" in s:
            bad = set(s["set"]) - SHIP_FIELDS
            if bad:
                raise CaseError(f"ship {s['id']}: unknown attribute(s) {sorted(bad)}")
            ship = replace(ship, **{k: _tuplify(v) for k, v in s["set"].items()})
        ships.append(ship)
    orders = spec.get("orders", {})
    sides = tuple(dict.fromkeys(s.side for s in ships))
    state = new_battle(ships, sides=sides, table=tuple(spec.get("table", (72, 48))),
                       orders=tuple(Orders(**{k: _tuplify(v) for k, v in orders.get(str(side), {}).items()})
                                    for side in sides),
                       turn_cap=spec.get("turn_cap", 40))
    if "minefields" in spec:
        state = replace(state, minefields=tuple(
            Minefield(m["id"], m.get("side"), tuple(m["centre"]), m.get("heading", 0.0), m.get("length", 1.0),
                      m.get("width", 0.5), m.get("rows", 1)) for m in spec["minefields"]))
    if "objects" in spec:
        state = replace(state, objects=tuple(Celestial(o["id"], o["kind"], tuple(o["centre"]), o["radius"])
                                             for o in spec["objects"]))
    if "webs" in spec:
        state = replace(state, webs=tuple(Web(w["id"], w["side"], tuple(w["a"]), tuple(w["b"]), tuple(w["anchors"]))
                                          for w in spec["webs"]))
    if "rotation" in spec:
        state = replace(state, rotation=bool(spec["rotation"]))
    if "tables" in spec:
        state = replace(state, tables=int(spec["tables"]))
    if "edges" in spec:
        state = replace(state, edges=tuple(spec["edges"]))
    if "flights" in spec:
        state = replace(state, flights=tuple(
            Flight(**{k: (tuple(v) if k == "pos" and v is not None else v) for k, v in f.items()})
            for f in spec["flights"]))
    return _phase(state, spec, sides)


def _phase(state: BattleState, spec: Mapping[str, Any], sides) -> BattleState:
    phase = spec.get("phase", "initiative")
    if phase != "initiative":
        init = spec.get("initiative", sides[0])
        state = replace(state, phase=phase, turn=spec.get("turn", 1), initiative=init,
                        first=spec.get("first", init), acting=spec.get("acting", init),
                        nominated=spec.get("nominated"), ac_slot=spec.get("ac_slot", 0),
                        play=tuple(spec.get("play", ())))
    return state


def load_action(raw: Mapping[str, Any]) -> A.Action:
    raw = dict(raw)
    kind = raw.pop("type")
    cls = {"Begin": A.Begin, "Special": A.Special, "Move": A.Move, "Fire": A.Fire, "Detect": A.Detect,
           "FlyAC": A.FlyAC, "Reveal": A.Reveal, "Lurk": A.Lurk}.get(kind)
    if cls is None:
        raise CaseError(f"unknown action type {kind!r}")
    return cls(**{k: _tuplify(v) for k, v in raw.items()})


def _jsonish(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonish(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, frozenset, set)):
        return [_jsonish(v) for v in value]
    return value


def _matches(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, Mapping) and all(k in actual and _matches(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            _matches(e, a) for e, a in zip(expected, actual))
    if isinstance(expected, float) or isinstance(actual, float):
        return isinstance(actual, (int, float)) and abs(float(expected) - float(actual)) < 1e-3
    return expected == actual


def _ship_view(ship) -> dict[str, Any]:
    view = {k: _jsonish(v) for k, v in ship.__dict__.items() if k != "sd"}
    view["abilities"] = list(ship.abilities)
    return view


def _event_matches(pattern: Mapping[str, Any], event: Event) -> bool:
    if "kind" in pattern and pattern["kind"] != event.kind:
        return False
    if "text" in pattern and pattern["text"].lower() not in event.text.lower():
        return False
    return "data" not in pattern or _matches(pattern["data"], _jsonish(dict(event.data)))


def _action_json(action: A.Action) -> dict[str, Any]:
    out = {"type": type(action).__name__}
    out.update({k: _jsonish(v) for k, v in action.__dict__.items()})
    return out


def check_expect(expect: Mapping[str, Any], state: BattleState, events: tuple[Event, ...],
                 rolls: list[Roll]) -> list[str]:
    errors: list[str] = []
    unknown = set(expect) - EXPECT_KEYS
    if unknown:
        raise CaseError(f"expect: unknown key(s) {sorted(unknown)}")
    for sid, want in expect.get("ships", {}).items():
        view = _ship_view(state.ship(int(sid)))
        for k, v in want.items():
            if k not in view:
                raise CaseError(f"expect.ships.{sid}: unknown attribute {k!r}")
            if not _matches(v, view[k]):
                errors.append(f"ship {sid} {k}: expected {v!r}, got {view[k]!r}")
    for pattern in expect.get("events", []):
        count = pattern.get("count")
        n = sum(1 for e in events if _event_matches(pattern, e))
        if (count is None and n == 0) or (count is not None and n != count):
            errors.append(f"event {pattern!r}: matched {n} event(s)")
    for pattern in expect.get("events_absent", []):
        if any(_event_matches(pattern, e) for e in events):
            errors.append(f"event {pattern!r} should not have happened")
    if "rolls" in expect:
        got = [f"{r.expression} {r.purpose}" for r in rolls]
        want = expect["rolls"]
        if len(got) != len(want) or not all(g.startswith(w) for w, g in zip(want, got)):
            errors.append(f"rolls: expected {want!r}, got {got!r}")
    view = {"phase": state.phase, "turn": state.turn, "initiative": state.initiative, "acting": state.acting,
            "first": state.first, "nominated": state.nominated, "winner": state.winner, "over": state.over,
            "torpedoes": len(state.torpedoes), "ac_slot": state.ac_slot, "play": list(state.order_of_play()), "squadron_next": list(state.squadron_next), "minefields": [m.id for m in state.minefields],
            "webs": [[w.id, list(w.anchors)] for w in state.webs]}
    for k, v in expect.get("state", {}).items():
        if k not in view:
            raise CaseError(f"expect.state: unknown key {k!r}")
        if not _matches(v, view[k]):
            errors.append(f"state {k}: expected {v!r}, got {view[k]!r}")
    for fid, want in expect.get("flights", {}).items():
        fview = {k: _jsonish(v) for k, v in state.flight(int(fid)).__dict__.items()}
        for k, v in want.items():
            if k not in fview:
                raise CaseError(f"expect.flights.{fid}: unknown attribute {k!r}")
            if not _matches(v, fview[k]):
                errors.append(f"flight {fid} {k}: expected {v!r}, got {fview[k]!r}")
    for oid, want in expect.get("objects", {}).items():
        obj = next((o for o in state.objects if o.id == int(oid)), None)
        if obj is None:
            raise CaseError(f"expect.objects: no object {oid}")
        oview = {k: _jsonish(v) for k, v in obj.__dict__.items()}
        for k, v in want.items():
            if not _matches(v, oview.get(k)):
                errors.append(f"object {oid} {k}: expected {v!r}, got {oview.get(k)!r}")
    for seat, want in expect.get("cam", {}).items():  # the CAM record the engine keeps (CAM 3.0)
        status = state.cam.battle.status[int(seat)]
        for uid, fact in want.items():
            if status[uid].state.value != fact:
                errors.append(f"CAM record seat {seat} {uid}: expected {fact!r}, got {status[uid].state.value!r}")
    actions = [_action_json(a) for a in legal_actions(state)]
    for key, present in (("legal", True), ("not_legal", False)):
        for want in expect.get(key, []):
            found = any(_matches(want, a) for a in actions)
            if found != present:
                errors.append(f"legal_actions {'lacks' if present else 'has'} {want!r}")
    return errors


def describe_rolls(rolls: list[Roll]) -> str:
    return "\n".join(f"    {r.expression} {list(r.faces)} for {r.purpose}" for r in rolls) or "    (none)"


def describe_events(events) -> str:
    return "\n".join(f"    {e.kind}: {e.text}" for e in events) or "    (none)"


def run_case(case: Mapping[str, Any]) -> list[str]:
    state = load_battle(case["battle"])
    failures: list[str] = []
    for i, step in enumerate(case["steps"]):
        unknown = set(step) - STEP_KEYS
        if unknown:
            raise CaseError(f"{case['name']}: steps[{i}]: unknown key(s) {sorted(unknown)}")
        where = f"step {i + 1}"
        dice = FixedDice(step.get("dice", []))
        before = state
        try:
            res = apply(state, load_action(step["action"]), dice)
        except IllegalActionError as exc:
            if "error" not in step:
                return failures + [f"{where}: refused: {exc}"]
            if step["error"].lower() not in str(exc).lower():
                failures.append(f"{where}: refused with {str(exc)!r}, expected a message containing {step['error']!r}")
            if dice.rolls:
                failures.append(f"{where}: a refused action rolled dice: {describe_rolls(dice.rolls)}")
            if state != before:
                failures.append(f"{where}: a refused action changed the state")
            continue
        except DiceError as exc:
            return failures + [f"{where}: {exc}\n  rolls:\n{describe_rolls(dice.rolls)}"]
        if "error" in step:
            return failures + [f"{where}: expected a refusal containing {step['error']!r}, but it was accepted:\n"
                               f"{describe_events(res.events)}"]
        state = res.state
        errors = check_expect(step.get("expect", {}), state, res.events, dice.rolls)
        left = dice.remaining()
        if left:
            errors.append(f"dice not used: {left} (every face of a case must be rolled)")
        if errors:
            failures += [f"{where}: {e}" for e in errors]
            failures.append(f"  rolls:\n{describe_rolls(dice.rolls)}\n  events:\n{describe_events(res.events)}")
    return failures
