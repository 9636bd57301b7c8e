"""The Star Sectors adapter for the rule-case runner (tests/tactical/rule_cases.py): how a case in
tests/tactical/starsectors/cases/*.json builds its ``BattleState``, and what its ``expect`` may
check (ships, the state). Format: the README there."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from campaign.rules.dice import FixedDice
from campaign.rules.grid import HexGrid
from tactical.rules.kit import evolve
from tactical.rules.starsectors import actions as A
from tactical.rules.starsectors import core as C
from tactical.rules.starsectors.cards import ROSTER, card_from_json
from tactical.rules.starsectors.sequence import apply, legal_actions, winner
from tactical.rules.starsectors.setup import _tiles, new_battle
from tactical.rules.starsectors.state import BattleState, Mine, Refusal, Ship
from tests.tactical.rule_cases import CaseAdapter, CaseError, tuplify

CASES_DIR = Path(__file__).parent / "cases"
BATTLE_KEYS = {"width", "height", "ships", "terrain", "mines", "order", "round", "acting", "active", "setup",
               "setup_dice", "round_cap"}
SHIP_KEYS = {"id", "side", "card", "at", "facing", "set"}
SHIP_FIELDS = {f.name for f in fields(Ship)}


def _card(raw):
    if isinstance(raw, str):
        if raw not in ROSTER:
            raise CaseError(f"no card {raw!r}")
        return ROSTER[raw]
    return card_from_json(raw)


def load_battle(spec: Mapping[str, Any]) -> BattleState:
    unknown = set(spec) - BATTLE_KEYS
    if unknown:
        raise CaseError(f"battle: unknown key(s) {sorted(unknown)}")
    if "setup" in spec:
        return new_battle(spec["setup"], FixedDice(spec.get("setup_dice", [])))
    ships = []
    for s in spec["ships"]:
        bad = set(s) - SHIP_KEYS
        if bad:
            raise CaseError(f"ship {s.get('id')}: unknown key(s) {sorted(bad)}")
        card = _card(s["card"])
        ship = Ship(s["id"], s["side"], card, tuple(s["at"]), s.get("facing", 0), banks=(True,) * len(card.banks))
        extra = s.get("set", {})
        wrong = set(extra) - SHIP_FIELDS
        if wrong:
            raise CaseError(f"ship {s['id']}: unknown field(s) {sorted(wrong)}")
        ships.append(evolve(ship, **{k: tuplify(v) for k, v in extra.items()}))
    width, height = spec.get("width", 12), spec.get("height", 9)
    sides = tuple(sorted({s.side for s in ships}))
    order = tuple(spec.get("order", sides))
    state = BattleState(width, height, tuple(ships), sides, order, _tiles(spec.get("terrain"), HexGrid(width, height)),
                        round=spec.get("round", 1), acting=order.index(spec.get("acting", order[0])),
                        round_cap=spec.get("round_cap", 30),
                        mines=tuple(Mine(m["id"], tuple(m["at"]), m.get("side", 2)) for m in spec.get("mines", ())),
                        next_mine=1 + max((m["id"] for m in spec.get("mines", ())), default=0))
    if spec.get("active") is not None:
        sid = spec["active"]
        ship = state.ship(sid)
        state = evolve(state.with_ship(evolve(ship, t_phase=ship.t_phase or "tactical")), active=sid)
    return state


def ship_view(state: BattleState, sid) -> dict[str, Any] | None:
    s = state.ship(int(sid))
    if s is None:
        return None
    view = {f: getattr(s, f) for f in SHIP_FIELDS if f != "card"}
    view["pos"] = list(s.pos)
    view["banks"] = list(s.banks)
    view["t_fired"] = list(s.t_fired)
    view.update(cf=C.cf(state, s), df=C.df(state, s), mf=C.mf(state, s), damaged_mf=C.damaged_mf(s),
                warp_factor=C.warp_factor(state, s), hull=[list(c) for c in s.hull()])
    return view


class StarSectorsCases(CaseAdapter):
    cases_dir = CASES_DIR
    book = "004"
    illegal = Refusal
    event_keys = frozenset({"public"})
    action_classes = A.CLASSES

    def initial_state(self, battle):
        return load_battle(battle)

    def apply(self, state, action, dice):
        return apply(state, action, dice)

    def legal_actions(self, state, pattern):
        return legal_actions(state)

    def state_view(self, state):
        return {"round": state.round, "acting": state.side, "active": state.active, "over": state.over,
                "winner": winner(state) if state.over else None, "order": list(state.order),
                "mines": [[m.id, list(m.cell)] for m in state.mines], "stations_used": list(state.stations_used)}

    def records(self):
        return {"ships": ("ship", ship_view)}


ADAPTER = StarSectorsCases()


def load_cases() -> list[dict]:
    return ADAPTER.load_cases()
