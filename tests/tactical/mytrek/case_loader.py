"""My Trek V's adapter for the rule-case runner (tests/tactical/rule_cases.py): a case's
``battle`` is ``{"ships": [{"id", "side", "design", "at", "facing", "set"}], "turn", "phase",
"step", "pending", "width", "height", "turn_cap"}`` (``design`` a house roster name or a design
object; ``set`` any ``Ship`` field, ``power`` as an object; ``pending`` orders already given, as
actions). ``expect.ships`` checks a ship's fields (and ``level``, ``pp``, ``field_value``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from tactical.rules.kit import IllegalActionError, evolve
from tactical.rules.mytrek import engine as E
from tactical.rules.mytrek import tables as T
from tactical.rules.mytrek.fleets import design_from
from tactical.rules.mytrek.state import Attack, Battle, Move, Orders, Power, Ship
from tests.tactical.rule_cases import CaseAdapter, CaseError, action_from, jsonish

CASES_DIR = Path(__file__).parent / "cases"
BATTLE_KEYS = {"ships", "turn", "phase", "step", "pending", "width", "height", "turn_cap"}
SHIP_KEYS = {"id", "side", "design", "at", "facing", "set"}
SHIP_FIELDS = {f.name for f in fields(Ship)}
CLASSES = {"Orders": Orders, "Move": Move, "Attack": Attack}


def _ship(spec: Mapping[str, Any]) -> Ship:
    unknown = set(spec) - SHIP_KEYS
    if unknown:
        raise CaseError(f"ship {spec.get('id')}: unknown key(s) {sorted(unknown)}")
    try:
        d = design_from(spec.get("design", "Cruiser"))
    except IllegalActionError as exc:
        raise CaseError(str(exc)) from None
    x, y = spec.get("at", (0, 0))
    ship = Ship(spec["id"], spec["side"], d, x, y, spec.get("facing", 1), d.hull, name=d.name)
    extra = dict(spec.get("set", {}))
    bad = set(extra) - SHIP_FIELDS
    if bad:
        raise CaseError(f"ship {spec['id']}: unknown field(s) {sorted(bad)}")
    if "power" in extra:
        extra["power"] = Power(**extra["power"])
    return evolve(ship, **extra)


def load_battle(spec: Mapping[str, Any]) -> Battle:
    unknown = set(spec) - BATTLE_KEYS
    if unknown:
        raise CaseError(f"battle: unknown key(s) {sorted(unknown)}")
    ships = tuple(_ship(s) for s in spec["ships"])
    pending = tuple((a["ship"], action_from(a, CLASSES)) for a in spec.get("pending", []))
    return Battle(
        ships,
        width=spec.get("width", 24),
        height=spec.get("height", 16),
        turn=spec.get("turn", 1),
        phase=spec.get("phase", 0),
        step=spec.get("step", "zero"),
        pending=pending,
        turn_cap=spec.get("turn_cap", 10),
        sides=tuple(sorted({s.side for s in ships})),
    )


def ship_view(state: Battle, sid: str) -> dict | None:
    ship = state.ship(int(sid))
    if ship is None:
        return None
    view = {f.name: jsonish(getattr(ship, f.name)) for f in fields(Ship) if f.name not in ("design", "power")}
    view.update(
        power=vars(ship.power),
        level=T.damage_level(ship.design.size, ship.hull),
        pp=T.power_points(ship.design.size, ship.hull),
        field_value=ship.field_value,
        at=[ship.x, ship.y],
    )
    return view


class MyTrekCases(CaseAdapter):
    cases_dir = CASES_DIR
    book = "002"
    illegal = IllegalActionError
    action_classes = CLASSES
    event_keys = frozenset({"public"})

    def initial_state(self, battle):
        return load_battle(battle)

    def apply(self, state, action, dice):
        return E.apply(state, action, dice)

    def legal_actions(self, state, pattern):
        return E.legal_actions(state)

    def state_view(self, state):
        return {
            "turn": state.turn,
            "phase": state.phase,
            "step": state.step,
            "over": state.over,
            "winner": state.winner,
            "acting": E.acting_side(state),
            "pending": len(state.pending),
        }

    def records(self):
        return {"ships": ("ship", ship_view)}


ADAPTER = MyTrekCases()


def load_cases() -> list[dict]:
    return ADAPTER.load_cases()
