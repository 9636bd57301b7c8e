"""Rule cases as data: load a case file (tests/rules/eventhorizon/cases/*.json) into the inputs of
``turn.resolve_turn`` and check its ``expect`` block against the resolution.

The format is described in tests/rules/eventhorizon/cases/README.md. In short a case is

    {"name", "rule", "state", "orders", "dice", "expect"}            (one turn)
    {"name", "rule", "state", "turns": [{"orders", "dice", "expect"}, ...]}   (several turns)

``load_state`` builds the CampaignState with ``eh_builders.build_state`` and then applies the
extras a picture cannot show (economy types, technologies, standing orders, builds on the stocks,
damage, hero crews, Trade War counters, hold-outs, eliminated seats, whose home world a
world is). ``check_expect`` returns a
list of readable failure lines (empty when the case holds).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from campaign.rules.dice import FixedDice, Roll
from campaign.rules.eventhorizon.designs import Technology
from campaign.rules.eventhorizon.economy import Damage, Resource
from campaign.rules.eventhorizon.mapgen import EconomyType
from campaign.rules.eventhorizon.orders import Orders, parse_orders, parse_standing
from campaign.rules.eventhorizon.state import BuildState, CampaignState, Event
from tests.rules.eventhorizon.eh_builders import DESIGN_TABLE, DESIGNS, build_state

CASES_DIR = Path(__file__).parent / "cases"

CASE_KEYS = {"name", "rule", "doc", "state", "orders", "dice", "expect", "turns", "xfail"}
TURN_KEYS = {"orders", "dice", "expect", "doc"}
STATE_KEYS = {
    "picture", "grid", "seats", "fleets", "structures", "dockyards", "bp", "turn", "purpose",
    "technologies", "standing", "builds", "economy", "damage", "hero_crew", "trade_war", "held_out",
    "eliminated", "home_of",
}
EXPECT_KEYS = {
    "turn", "fleets", "fleet_ships", "ships_of", "worlds", "held_out", "bp", "eliminated", "winner",
    "finished", "structures", "technologies", "builds", "damage", "trade_war", "standing", "events",
    "events_absent", "rolls",
}

# Every seat may build every design of the builders' table, by its name.
DESIGN_NAMES: dict[str, int] = {design.name: design_id for design_id, design in DESIGN_TABLE.items()}
DESIGN_KEY_OF: dict[int, str] = {design_id: key for key, design_id in DESIGNS.items()}


class CaseError(ValueError):
    """A case file that does not follow the format."""


# --- files ----------------------------------------------------------------------------------

def read_case_files(directory: Path, keys: set[str], required: tuple[str, ...]) -> list[dict]:
    """Every case in every ``*.json`` file of ``directory`` (a file holds one case or a list),
    in file name order; each case gets ``_file`` for messages. A case may use only ``keys`` and
    must have ``required``; names must be unique. Shared by the Event Horizon campaign, CAM and
    tactical rule cases."""
    cases: list[dict] = []
    for path in sorted(directory.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data if isinstance(data, list) else [data]:
            if not isinstance(case, dict):
                raise CaseError(f"{path.name}: a case must be a JSON object")
            unknown = set(case) - keys
            if unknown:
                raise CaseError(f"{path.name}: case {case.get('name')!r}: unknown key(s) {sorted(unknown)}")
            for key in required:
                if key not in case:
                    raise CaseError(f"{path.name}: case {case.get('name')!r} needs {key!r}")
            cases.append(dict(case, _file=path.name))
    names = [c["name"] for c in cases]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise CaseError(f"case names used twice: {dupes}")
    return cases


def load_cases(directory: Path = CASES_DIR) -> list[dict]:
    return read_case_files(directory, CASE_KEYS, ("name", "rule", "state"))


def case_turns(case: Mapping[str, Any]) -> list[dict]:
    """The case's turns: ``turns`` or the single top-level orders/dice/expect."""
    if "turns" in case:
        if any(k in case for k in ("orders", "dice", "expect")):
            raise CaseError(f"{case['name']}: give either 'turns' or orders/dice/expect, not both")
        turns = case["turns"]
    else:
        turns = [{"orders": case.get("orders", {}), "dice": case.get("dice", []), "expect": case.get("expect", {})}]
    for i, t in enumerate(turns):
        unknown = set(t) - TURN_KEYS
        if unknown:
            raise CaseError(f"{case['name']}: turns[{i}]: unknown key(s) {sorted(unknown)}")
        unknown = set(t.get("expect", {})) - EXPECT_KEYS
        if unknown:
            raise CaseError(f"{case['name']}: turns[{i}].expect: unknown key(s) {sorted(unknown)}")
    return turns


# --- building the inputs --------------------------------------------------------------------

def coord(text: str | list) -> tuple[int, int]:
    """``"3,4"`` or ``[3, 4]`` -> ``(3, 4)``."""
    if isinstance(text, str):
        x, y = text.split(",")
        return (int(x), int(y))
    return (int(text[0]), int(text[1]))


def _seat_map(value: Any) -> dict[int, Any]:
    return {int(k): v for k, v in value.items()}


def load_state(spec: Mapping[str, Any]) -> CampaignState:
    unknown = set(spec) - STATE_KEYS
    if unknown:
        raise CaseError(f"state: unknown key(s) {sorted(unknown)}")
    picture = spec["picture"]
    picture = "\n".join(picture) if isinstance(picture, list) else picture
    structures_spec = spec.get("structures", [])
    bp = spec.get("bp", 0)
    state = build_state(
        picture,
        grid=spec.get("grid", "square"),
        seats=spec.get("seats"),
        fleets=[(s, coord(c), list(keys)) for s, c, keys in spec.get("fleets", [])],
        structures=[(row[0], row[1], coord(row[2])) for row in structures_spec],
        bp=_seat_map(bp) if isinstance(bp, dict) else bp,
        turn=spec.get("turn", 1),
        purpose=spec.get("purpose"),
        dockyards=spec.get("dockyards", True),
    )
    # Research facilities may name their technology as a 4th element.
    techs_at = [Technology(row[3]) if len(row) > 3 else None for row in structures_spec]
    if any(techs_at):
        first = len(state.structures) - len(structures_spec)
        structures = list(state.structures)
        for i, tech in enumerate(techs_at):
            if tech is not None:
                structures[first + i] = replace(structures[first + i], technology=tech)
        state = replace(state, structures=tuple(structures))
    if "economy" in spec:
        types = {coord(k): EconomyType(v) for k, v in spec["economy"].items()}
        missing = [c for c in types if state.world_at(c) is None]
        if missing:
            raise CaseError(f"state.economy: no world at {missing}")
        state = replace(state, worlds=tuple(replace(w, economy=types.get(w.coord, w.economy)) for w in state.worlds))
    if "home_of" in spec:
        homes = {coord(k): v for k, v in spec["home_of"].items()}
        missing = [c for c in homes if state.world_at(c) is None]
        if missing:
            raise CaseError(f"state.home_of: no world at {missing}")
        state = replace(state, worlds=tuple(replace(w, home_of=homes.get(w.coord, w.home_of)) for w in state.worlds))
    if "held_out" in spec:
        held = {coord(k): v for k, v in spec["held_out"].items()}
        state = replace(state, worlds=tuple(
            replace(w, held_out_by=held[w.coord][0], held_out_until=held[w.coord][1]) if w.coord in held else w
            for w in state.worlds))
    empires = {e.seat: e for e in state.empires}
    for seat, techs in _seat_map(spec.get("technologies", {})).items():
        empires[seat] = replace(empires[seat], technologies=frozenset(Technology(t) for t in techs))
    for seat, raw in _seat_map(spec.get("standing", {})).items():
        empires[seat] = replace(empires[seat], standing=parse_standing(raw, f"state.standing.{seat}"))
    for seat, counts in _seat_map(spec.get("trade_war", {})).items():
        empires[seat] = replace(empires[seat], trade_war=tuple(sorted((int(v), n) for v, n in counts.items())))
    for seat in spec.get("eliminated", []):
        empires[seat] = replace(empires[seat], eliminated=True)
    state = replace(state, empires=tuple(empires[s] for s in sorted(empires)))
    if "builds" in spec:
        docks = {s.id: s for s in state.structures}
        builds = []
        for b in spec["builds"]:
            dock = docks.get(b["dockyard"])
            if dock is None or dock.resource is not Resource.DOCKYARD:
                raise CaseError(f"state.builds: no dockyard {b['dockyard']}")
            builds.append(BuildState(dockyard=dock.id, owner=b.get("owner", dock.owner), design=DESIGNS[b["design"]],
                                     turns_left=b["turns_left"], hero_crew=b.get("hero_crew", False),
                                     name=b.get("name", "")))
        state = replace(state, builds=tuple(builds))
    damage = {int(k): Damage(**v) for k, v in spec.get("damage", {}).items()}
    heroes = set(spec.get("hero_crew", []))
    if damage or heroes:
        state = replace(state, ships=tuple(
            replace(s, damage=damage.get(s.id, s.damage), hero_crew=s.id in heroes or s.hero_crew)
            for s in state.ships))
    return state


def load_orders(raw: Mapping[str, Any]) -> dict[int, Orders]:
    return {int(seat): parse_orders(orders) for seat, orders in raw.items()}


def design_names(state: CampaignState) -> dict[int, dict[str, int]]:
    return {e.seat: dict(DESIGN_NAMES) for e in state.empires}


def load_case(case: Mapping[str, Any]) -> tuple[CampaignState, dict[int, Orders], FixedDice, dict[int, dict[str, int]]]:
    """(state, orders, dice, design names) for a one-turn case (or a case's first turn)."""
    state = load_state(case["state"])
    first = case_turns(case)[0]
    return state, load_orders(first.get("orders", {})), FixedDice(first.get("dice", [])), design_names(state)


# --- checking the result ----------------------------------------------------------------------

def _key(c: tuple[int, int]) -> str:
    return f"{c[0]},{c[1]}"


def _damage_json(d: Damage) -> dict | None:
    if not d.any:
        return None
    out = {k: getattr(d, k) for k in ("hull", "engine", "force_field_generators", "boarding_parties") if getattr(d, k)}
    if d.weapons:
        out["weapons"] = list(d.weapons)
    if d.stealth:
        out["stealth"] = True
    return out


def _matches(expected: Any, actual: Any) -> bool:
    """Dicts match as subsets (recursively), lists element by element, the rest by equality
    (tuples count as lists)."""
    if isinstance(expected, dict):
        return isinstance(actual, Mapping) and all(k in actual and _matches(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return False
        return all(_matches(e, a) for e, a in zip(expected, actual))
    if isinstance(actual, tuple):
        return False
    return expected == actual


def _event_matches(pattern: Mapping[str, Any], event: Event) -> bool:
    if "step" in pattern and pattern["step"] != event.step:
        return False
    if "kind" in pattern and pattern["kind"] != event.kind:
        return False
    if "seats" in pattern and list(pattern["seats"]) != list(event.seats):
        return False
    if "data" in pattern and not _matches(pattern["data"], _jsonish(event.data)):
        return False
    return True


def _jsonish(value: Any) -> Any:
    """Event data with tuples as lists and enums as their values, as JSON would read it."""
    if isinstance(value, Mapping):
        return {k: _jsonish(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonish(v) for v in value]
    if hasattr(value, "value") and not isinstance(value, (int, str)):
        return value.value
    return value


def describe_events(events: tuple[Event, ...]) -> str:
    return "\n".join(f"    {e.step}/{e.kind} seats={list(e.seats)} data={_jsonish(dict(e.data))}" for e in events)


def describe_rolls(rolls: list[Roll]) -> str:
    return "\n".join(f"    {r.expression} {list(r.faces)} for {r.purpose}" for r in rolls) or "    (none)"


def check_expect(expect: Mapping[str, Any], state: CampaignState, events: tuple[Event, ...],
                 rolls: list[Roll]) -> list[str]:
    """Every check of ``expect`` that fails, as a readable line."""
    errors: list[str] = []

    def check(what: str, want: Any, got: Any) -> None:
        if want != got:
            errors.append(f"{what}: expected {want!r}, got {got!r}")

    if "turn" in expect:
        check("turn", expect["turn"], state.turn)
    fleets = {f.id: f for f in state.fleets}
    for fid, where in expect.get("fleets", {}).items():
        f = fleets.get(int(fid))
        check(f"fleet {fid} at", where, None if f is None else list(f.coord))
    for fid, ships in expect.get("fleet_ships", {}).items():
        f = fleets.get(int(fid))
        check(f"fleet {fid} ships", ships, None if f is None else list(f.ships))
    for seat, ships in expect.get("ships_of", {}).items():
        check(f"ships of seat {seat}", sorted(ships), sorted(s.id for s in state.ships if s.owner == int(seat)))
    worlds = state.world_index()
    for c, owner in expect.get("worlds", {}).items():
        w = worlds.get(coord(c))
        if w is None:
            errors.append(f"world at {c}: there is no world there")
        else:
            check(f"owner of world {c}", owner, w.owner)
    for c, held in expect.get("held_out", {}).items():
        w = worlds.get(coord(c))
        got = None if w is None or w.held_out_by is None else [w.held_out_by, w.held_out_until]
        check(f"hold-out at {c} [by, until]", held, got)
    for seat, bp in expect.get("bp", {}).items():
        check(f"BP of seat {seat}", bp, state.empire(int(seat)).bp)
    if "eliminated" in expect:
        check("eliminated seats", sorted(expect["eliminated"]), sorted(e.seat for e in state.empires if e.eliminated))
    if "winner" in expect:
        check("winner", expect["winner"], state.winner)
    if "finished" in expect:
        check("finished", expect["finished"], state.finished)
    for c, want in expect.get("structures", {}).items():
        got = sorted([s.owner, s.resource.value] for s in state.structures_at(coord(c)))
        check(f"structures at {c} [owner, resource]", sorted(want), got)
    for seat, techs in expect.get("technologies", {}).items():
        check(
            f"technologies of seat {seat}",
            sorted(techs),
            sorted(t.value for t in state.empire(int(seat)).technologies),
        )
    if "builds" in expect:
        got = sorted(({"dockyard": b.dockyard, "owner": b.owner, "design": DESIGN_KEY_OF.get(b.design, b.design),
                       "turns_left": b.turns_left} for b in state.builds),
                     key=lambda b: (b["dockyard"], b["owner"], str(b["design"]), b["turns_left"]))
        want = sorted(expect["builds"], key=lambda b: (b["dockyard"], b["owner"], str(b["design"]), b["turns_left"]))
        check("builds on the stocks", want, got)
    ships = state.ship_index()
    for sid, dmg in expect.get("damage", {}).items():
        s = ships.get(int(sid))
        if s is None:
            errors.append(f"damage of ship {sid}: there is no ship {sid}")
        else:
            check(f"damage of ship {sid}", dmg, _damage_json(s.damage))
    for seat, counts in expect.get("trade_war", {}).items():
        got = {str(v): n for v, n in state.empire(int(seat)).trade_war}
        check(f"Trade War counters of seat {seat}", {str(k): v for k, v in counts.items()}, got)
    for seat, raw in expect.get("standing", {}).items():
        check(f"standing orders of seat {seat}", parse_standing(raw), state.empire(int(seat)).standing)
    for pattern in expect.get("events", []):
        found = [e for e in events if _event_matches(pattern, e)]
        if "count" in pattern:
            if len(found) != pattern["count"]:
                errors.append(f"event {pattern}: expected {pattern['count']} matching, found {len(found)}")
        elif not found:
            errors.append(f"event {pattern}: not found")
    for pattern in expect.get("events_absent", []):
        found = [e for e in events if _event_matches(pattern, e)]
        if found:
            errors.append(f"event {pattern} should not happen, but: {found[0].step}/{found[0].kind} {found[0].text}")
    if "rolls" in expect:
        got_rolls = [f"{r.expression} {r.purpose}" for r in rolls]
        check("rolls made (NdS purpose)", expect["rolls"], got_rolls)
    return errors
