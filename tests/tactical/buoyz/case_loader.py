"""The Buoyz 'N Da 'Hood engine's adapter for the rule-case runner (tests/tactical/rule_cases.py):
how a case in tests/tactical/buoyz/cases/*.json builds its ``BattleState`` (``load_battle``: ships
and SDs, or a battle set up by ``deploy`` / ``deploy_cam``), decodes an action, and what its
``expect`` may check (ships, flights, objects, the state, the CAM record). Format: the README there."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from campaign.rules.cam.ships import SD, ShipClass, Weapon, validate_sd
from tactical.rules.buoyz import actions as A
from tactical.rules.buoyz.engine import apply, legal_actions
from tactical.rules.buoyz.sds import CATALOGUE
from tactical.rules.buoyz.state import (
    BattleState,
    Celestial,
    Flight,
    IllegalActionError,
    Minefield,
    Orders,
    Web,
    new_battle,
    new_ship,
)
from tests.tactical.rule_cases import CaseAdapter, CaseError, jsonish, tuplify

CASES_DIR = Path(__file__).parent / "cases"
BATTLE_KEYS = {"table", "ships", "sds", "orders", "phase", "turn", "initiative", "first", "acting", "nominated",
               "turn_cap", "minefields", "flights", "ac_slot", "objects", "webs", "rotation", "edges", "tables",
               "deploy", "cam", "play"}
SHIP_KEYS = {"id", "side", "sd", "at", "heading", "set", "flagship"}
SHIP_FIELDS = {f.name for f in fields(__import__("tactical.rules.buoyz.state", fromlist=["Ship"]).Ship)}


def _sd(spec: dict) -> SD:
    spec = dict(spec)
    spec["ship_class"] = ShipClass(spec["ship_class"])
    spec["shields"] = tuple(spec["shields"]) if isinstance(spec["shields"], list) else (spec["shields"],) * 4
    spec["main"] = tuple(Weapon(*w) for w in spec.get("main", []))
    spec["special_abilities"] = tuple(spec.get("special_abilities", []))
    spec["periods"] = tuple(spec.get("periods", [1, 6]))
    return validate_sd(SD(**spec))


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
            raise CaseError(
                f"ship {s.get('id')}: with a deployed battle only 'at', 'heading', 'set' (not {sorted(unknown)})"
            )
        ship = state.ship(s["id"])
        ship = replace(
            ship,
            pos=tuple(float(v) for v in s.get("at", ship.pos)),
            heading=float(s.get("heading", ship.heading)),
            **{k: tuplify(v) for k, v in s.get("set", {}).items()},
        )
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
            ship = replace(ship, **{k: tuplify(v) for k, v in s["set"].items()})
        ships.append(ship)
    orders = spec.get("orders", {})
    sides = tuple(dict.fromkeys(s.side for s in ships))
    state = new_battle(ships, sides=sides, table=tuple(spec.get("table", (72, 48))),
                       orders=tuple(Orders(**{k: tuplify(v) for k, v in orders.get(str(side), {}).items()})
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


ACTION_CLASSES = {cls.__name__: cls for cls in (A.Begin, A.Special, A.Move, A.Fire, A.Detect, A.FlyAC, A.Reveal,
                                                 A.Lurk)}


class BuoyzCases(CaseAdapter):
    """The rule-case runner's adapter for the Buoyz 'N Da 'Hood engine (000)."""

    cases_dir = CASES_DIR
    book = "000"
    illegal = IllegalActionError
    initial_state = staticmethod(load_battle)
    apply = staticmethod(apply)
    action_classes = ACTION_CLASSES
    expect_keys = frozenset({"cam"})

    def legal_actions(self, state: BattleState, pattern: Mapping[str, Any]) -> list[A.Action]:
        return legal_actions(state)

    def state_view(self, state: BattleState) -> dict[str, Any]:
        return {"phase": state.phase, "turn": state.turn, "initiative": state.initiative, "acting": state.acting,
                "first": state.first, "nominated": state.nominated, "winner": state.winner, "over": state.over,
                "torpedoes": len(state.torpedoes), "ac_slot": state.ac_slot, "play": list(state.order_of_play()),
                "squadron_next": list(state.squadron_next), "minefields": [m.id for m in state.minefields],
                "webs": [[w.id, list(w.anchors)] for w in state.webs]}

    def records(self):
        return {"ships": ("ship", _ship_view), "flights": ("flight", _fields_of("flights")),
                "objects": ("object", _fields_of("objects"))}

    def check_more(self, expect: Mapping[str, Any], state: BattleState) -> list[str]:
        errors = []
        for seat, want in expect.get("cam", {}).items():  # the CAM record the engine keeps (CAM 3.0)
            status = state.cam.battle.status[int(seat)]
            for uid, fact in want.items():
                if status[uid].state.value != fact:
                    errors.append(f"CAM record seat {seat} {uid}: expected {fact!r}, got {status[uid].state.value!r}")
        return errors



def _ship_view(state: BattleState, sid: str) -> dict[str, Any] | None:
    ship = next((s for s in state.ships if s.id == int(sid)), None)
    if ship is None:
        return None
    view = {k: jsonish(v) for k, v in ship.__dict__.items() if k != "sd"}
    view["abilities"] = list(ship.abilities)
    return view


def _fields_of(collection: str):
    """The fields of the flight or celestial object with that id, or None."""
    def view(state: BattleState, rid: str) -> dict[str, Any] | None:
        found = next((x for x in getattr(state, collection) if x.id == int(rid)), None)
        return None if found is None else {k: jsonish(v) for k, v in found.__dict__.items()}
    return view


ADAPTER = BuoyzCases()


def load_cases() -> list[dict]:
    return ADAPTER.load_cases()
