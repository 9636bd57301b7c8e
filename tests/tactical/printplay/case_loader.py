"""The Print&Play adapter for the shared rule-case runner (tests/tactical/rule_cases.py): how a
case in tests/tactical/printplay/cases/*.json builds its ``State``, decodes a step (an action, or
``"advance": true`` for the rules' own step: a round begins, a die is drawn, the End Phase), and
what its ``expect`` may check (``ships``, ``state``). Format: the README there."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from campaign.rules.dice import FixedDice
from tactical.rules.kit import DiceBag, IllegalActionError, evolve
from tactical.rules.printplay import actions as A
from tactical.rules.printplay import engine
from tactical.rules.printplay.dashboards import SIDES, from_json
from tactical.rules.printplay.state import ROUND_CAP, State, Terrain, dashboard_of, deploy, new_ship
from tests.tactical.rule_cases import CaseAdapter, CaseError, jsonish, tuplify

CASES_DIR = Path(__file__).parent / "cases"
BATTLE_KEYS = {"mat", "ships", "terrain", "stage", "active", "drawn", "round", "mode", "order", "bag", "specials",
               "reroll", "round_cap", "turn_of", "setup", "setup_dice", "sides"}
SHIP_KEYS = {"id", "side", "dash", "at", "heading", "set"}


def _ship(spec: Mapping[str, Any]):
    unknown = set(spec) - SHIP_KEYS
    if unknown:
        raise CaseError(f"ship {spec.get('id')}: unknown key(s) {sorted(unknown)}")
    dash = spec["dash"]
    dash = from_json(dash) if isinstance(dash, dict) else dashboard_of(dash)
    ship = new_ship(spec["id"], spec["side"], dash, spec["at"], spec.get("heading", 0))
    changes = {k: tuplify(v) for k, v in spec.get("set", {}).items()}
    if "shields" in changes and not isinstance(changes["shields"], tuple):
        changes["shields"] = (changes["shields"],) * 4
    return evolve(ship, **changes) if changes else ship


def load_battle(spec: Mapping[str, Any]) -> State:
    unknown = set(spec) - BATTLE_KEYS
    if unknown:
        raise CaseError(f"battle: unknown key(s) {sorted(unknown)}")
    if "setup" in spec:
        return deploy(spec["setup"], FixedDice(spec.get("setup_dice", [])))
    ships = tuple(_ship(s) for s in spec["ships"])
    sides = tuple(spec.get("sides") or sorted({s.side for s in ships}))
    terrain = tuple(Terrain(i, t["kind"], tuple(t["at"]), float(t["radius"]), t.get("nebula", 0),
                            t.get("sensor_penalty", 0)) for i, t in enumerate(spec.get("terrain", []), start=1))
    active = spec.get("active")
    stage = spec.get("stage", "action" if active is not None else "start")
    if active is not None:
        ships = tuple(evolve(s, activated=True) if s.id == active else s for s in ships)
    mat = tuple(float(v) for v in spec.get("mat", (72, 48)))
    return State(ships, sides, mat, terrain, round=spec.get("round", 1),
                 mode=spec.get("mode", "initiative" if len(sides) == 2 else "bag"),
                 bag=DiceBag(tuple(spec.get("bag", ()))), order=tuple(spec.get("order", ())),
                 turn_of=spec.get("turn_of", 0), drawn=spec.get("drawn"), active=active, stage=stage,
                 specials=tuple(spec.get("specials", ())), reroll=spec.get("reroll", 0),
                 round_cap=spec.get("round_cap", ROUND_CAP))


def ship_view(state: State, sid: str) -> dict | None:
    ship = state.ship(int(sid))
    if ship is None:
        return None
    return {"at": list(ship.pos), "heading": ship.heading, "shields": list(ship.shields),
            **{f"shield_{s}": ship.shield(s) for s in SIDES}, "hull": ship.hull, "ablative": ship.ablative,
            "emergency": ship.emergency, "wps": ship.wps, "sensors": ship.sensors, "ecm": ship.ecm,
            "impulse": ship.impulse, "cloaked": ship.cloaked, "power": ship.power, "activated": ship.activated,
            "torpedoes": list(ship.torpedoes), "alive": ship.alive, "surge": ship.surge, "side": ship.side,
            "fate": engine.fate(ship)}


class PrintPlayCases(CaseAdapter):
    cases_dir = CASES_DIR
    book = "001"
    illegal = IllegalActionError
    step_keys = frozenset({"advance"})
    event_keys = frozenset({"public"})
    action_classes = {c.__name__: c for c in A.ACTIONS}

    def initial_state(self, battle):
        return load_battle(battle)

    def apply(self, state, action, dice):
        return engine.apply(state, action, dice)

    def perform(self, state, step, dice: FixedDice):
        if step.get("advance"):
            return engine.advance(state, dice)
        return super().perform(state, step, dice)

    def legal_actions(self, state, pattern):
        return engine.legal_actions(state)

    def state_view(self, state):
        return {"round": state.round, "stage": state.stage, "drawn": state.drawn, "active": state.active,
                "order": list(state.order), "bag": list(state.bag.contents), "specials": list(state.specials),
                "winner": engine.winner(state), "over": engine.over(state), "mode": state.mode,
                "acting": engine.acting_side(state), "reroll": state.reroll, "mat": list(state.mat),
                "terrain": [jsonish(t.__dict__) for t in state.terrain]}

    def records(self):
        return {"ships": ("ship", ship_view)}


ADAPTER = PrintPlayCases()


def load_cases() -> list[dict]:
    return ADAPTER.load_cases()
