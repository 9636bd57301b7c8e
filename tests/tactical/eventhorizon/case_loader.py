"""The Event Horizon tactical engine's adapter for the rule-case runner (tests/tactical/rule_cases.py):
how a case in tests/tactical/eventhorizon/cases/*.json builds its ``BattleState`` (``load_battle``), decodes a
step (draw a card, end an activation, any action of ``actions.py``), and what its ``expect`` may
check (ships, planets, the state, the ``outcome``). The format is in tests/tactical/eventhorizon/cases/README.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from campaign.rules.dice import FixedDice
from campaign.rules.eventhorizon.designs import GALIOT, SAN_MARCO, SULTAN, SWORD, Design
from campaign.rules.eventhorizon.economy import Damage
from tactical.rules.eventhorizon import actions as A
from tactical.rules.eventhorizon.cards import Card, full_deck
from tactical.rules.eventhorizon.deploy import CampaignShip, tactical_ship
from tactical.rules.eventhorizon.engine import (
    Resolution,
    _boarding_due,
    apply,
    draw_card,
    is_over,
    legal_actions,
    outcome,
)
from tactical.rules.eventhorizon.geometry import ARC_NAMES, FACING_NAMES, parse_facing
from tactical.rules.eventhorizon.state import (
    Activation,
    Battlefield,
    BattleState,
    Boarding,
    IllegalActionError,
    Planet,
    evolve,
    ship_from_design,
)
from tests.tactical.rule_cases import CaseAdapter, CaseError, jsonish, matches, tuplify

CASES_DIR = Path(__file__).parent / "cases"
BATTLE_KEYS = {"size", "terrain", "wormholes", "planets", "sides", "ships", "deck", "discard", "storm", "card",
               "acting_side", "activations_left", "activated", "activate", "actions_taken", "boardings", "card_cap",
               "cards_drawn", "designs"}
SHIP_KEYS = {"id", "side", "design", "at", "facing", "hero_crew", "damage", "set", "name"}

# Extra designs for cases (not validated: tactical play takes any design's components).
def _d(name: str, weapons=(), force_field: int | None = 4, **kw) -> Design:
    return Design(name=name, ship_type=kw.pop("ship_type", "frigate"), hull=kw.pop("hull", 6),
                  engine=kw.pop("engine", 4), force_field=force_field, weapons=weapons, **kw)


CASE_DESIGNS: dict[str, Design] = {
    "san_marco": SAN_MARCO,
    "sword": SWORD,
    "sultan": SULTAN,
    "galiot": GALIOT,
    # hull 6, engine 4, force fields 4 unless said otherwise
    "laser_boat": _d("Laser Boat", {"laser_bank": 2}),
    "pa_boat": _d("PA Boat", {"particle_accelerator": 1}),
    "emp_boat": _d("EMP Boat", {"emp_cannon": 1}),
    "missile_boat": _d("Missile Boat", {"guided_missile_bay": 1}),
    "mixed_boat": _d("Mixed Boat", {"laser_bank": 1, "guided_missile_bay": 1}),
    "carrier": _d("Carrier", {"fighter_bay": 1}),
    "bomber": _d("Bomber", {"planetary_bombardment_array": 1}),
    "hulk": _d("Hulk"),
    "raw_hulk": _d("Raw Hulk", force_field=None),
    "raw_gunboat": _d("Raw Gunboat", {"laser_bank": 2}, force_field=None),
    "boarder": _d("Boarder", {"laser_bank": 1}, boarding_parties=2),
    "stealther": _d("Stealther", {"laser_bank": 1}, stealth_field=True),
    "ai_boat": _d("AI Boat", {"laser_bank": 1}, ai_supercomputer=True),
    "nanobot": _d("Nanobot Hulk", nanobot_skin=True),
    "capacitor": _d("3C Hulk", force_field=None, core_containment_capacitor=True),
    "improved": _d("Improved Hulk", improved_force_fields=True),
}


def coord(value: str | list) -> tuple[int, int]:
    if isinstance(value, str):
        x, y = value.split(",")
        return int(x), int(y)
    return int(value[0]), int(value[1])


def _design(spec: Any, extra: Mapping[str, Design]) -> Design:
    if isinstance(spec, str):
        if spec in extra:
            return extra[spec]
        if spec not in CASE_DESIGNS:
            raise CaseError(f"unknown design {spec!r} (known: {sorted(set(CASE_DESIGNS) | set(extra))})")
        return CASE_DESIGNS[spec]
    return Design.from_dict(spec)


def load_battle(spec: Mapping[str, Any]) -> BattleState:
    unknown = set(spec) - BATTLE_KEYS
    if unknown:
        raise CaseError(f"battle: unknown key(s) {sorted(unknown)}")
    w, h = spec.get("size", [8, 8])
    field = Battlefield(w, h, {coord(k): v for k, v in spec.get("terrain", {}).items()},
                        {coord(k): coord(v) for k, v in spec.get("wormholes", {}).items()})
    extra = {k: Design.from_dict(v) for k, v in spec.get("designs", {}).items()}
    planets = tuple(Planet(id=p["id"], squares=tuple(coord(c) for c in p["squares"]), owner=p.get("owner"),
                           defences=p.get("defences", False), status=p.get("status", "intact"))
                    for p in spec.get("planets", []))
    ships = []
    for s in spec["ships"]:
        unknown = set(s) - SHIP_KEYS
        if unknown:
            raise CaseError(f"ship {s.get('id')}: unknown key(s) {sorted(unknown)}")
        design = _design(s["design"], extra)
        pos, facing = coord(s["at"]), parse_facing(s.get("facing", "N"))
        if "damage" in s:
            ship = tactical_ship(CampaignShip(s["id"], design, Damage(**s["damage"]), s.get("hero_crew", False)),
                                 s["side"], pos, facing)
        else:
            ship = ship_from_design(s["id"], s["side"], design, pos, facing, hero_crew=s.get("hero_crew", False),
                                    name=s.get("name", ""))
        if "set" in s:
            ship = evolve(ship, **{k: tuplify(v) for k, v in s["set"].items()})
        ships.append(ship)
    sides = tuple(spec.get("sides") or dict.fromkeys(s.side for s in ships))
    deck = tuple(Card.parse(c) for c in spec["deck"]) if "deck" in spec else full_deck()
    discard = tuple(Card.parse(c) for c in spec.get("discard", []))
    state = BattleState(field=field, sides=sides, ships=tuple(ships), deck=deck, planets=planets, discard=discard,
                        storm=spec.get("storm", False), card_cap=spec.get("card_cap", 540),
                        cards_drawn=spec.get("cards_drawn", 0))
    if "boardings" in spec:
        state = evolve(state, boardings=tuple(
            Boarding(boarder=b, target=t, boarder_side=state.ship(b).side, goes=g) for b, t, g in spec["boardings"]))
    if "card" in spec:
        state = evolve(state, card=Card.parse(spec["card"]))
    if "activate" in spec:
        ship = state.ship(spec["activate"])
        card = state.card or Card(5, "H" if ship.side == sides[0] else "S")
        state = evolve(state, card=card, acting_side=ship.side, activations_left=spec.get("activations_left", 1),
                       activated=tuple(spec.get("activated", [])),
                       activation=Activation(ship=ship.id, actions=tuple(spec.get("actions_taken", [])),
                                             boarding_due=_boarding_due(state, ship.id)))
    else:
        if "acting_side" in spec:
            state = evolve(state, acting_side=spec["acting_side"], activations_left=spec.get("activations_left", 1),
                           activated=tuple(spec.get("activated", [])))
    return state


ACTION_CLASSES = {name: cls for name, cls in vars(A).items() if isinstance(cls, type)}


class EventHorizonCases(CaseAdapter):
    """The rule-case runner's adapter for the Event Horizon Quick Play engine (003)."""

    cases_dir = CASES_DIR
    book = "003"
    illegal = IllegalActionError
    initial_state = staticmethod(load_battle)
    apply = staticmethod(apply)
    action_classes = ACTION_CLASSES
    step_keys = frozenset({"draw", "end"})
    event_keys = frozenset({"public"})
    expect_keys = frozenset({"outcome"})

    def perform(self, state: BattleState, step: Mapping[str, Any], dice: FixedDice) -> Resolution:
        """``{"draw": true}`` draws a card, ``{"end": ship}`` ends its activation, else ``action``."""
        if step.get("draw"):
            return draw_card(state, dice)
        if "end" in step:
            return apply(state, A.EndActivation(step["end"]), dice)
        return super().perform(state, step, dice)

    def legal_actions(self, state: BattleState, pattern: Mapping[str, Any]) -> tuple[A.Action, ...]:
        if "ship" not in pattern:
            raise CaseError(f"legal/not_legal pattern {dict(pattern)!r} needs 'ship'")
        return legal_actions(state, pattern["ship"])

    def state_view(self, state: BattleState) -> dict[str, Any]:
        return {
            "storm": state.storm, "acting_side": state.acting_side, "activations_left": state.activations_left,
            "deck_size": len(state.deck), "discard_size": len(state.discard), "over": is_over(state),
            "card": state.card.label if state.card else None, "cards_drawn": state.cards_drawn,
            "reshuffles": state.reshuffles, "activation": state.activation.ship if state.activation else None,
            "actions_taken": list(state.activation.actions) if state.activation else None,
            "boardings": [[b.boarder, b.target, b.goes] for b in state.boardings],
            "deck_top": [c.label for c in state.deck[:5]],
        }

    def records(self):
        return {"ships": ("ship", _ship_view), "planets": ("planet", _planet_view)}

    def check_more(self, expect: Mapping[str, Any], state: BattleState) -> list[str]:
        if "outcome" not in expect:
            return []
        out = outcome(state)
        got = {"holder": out.holder, "capped": out.capped, "over": out.over,
               "blockades": [list(b) for b in out.blockades],
               "ships": {str(s.ship): {"fate": s.fate, "side": s.side, "captured_by": s.captured_by,
                                       "crew_escaped": s.crew_escaped, "landed": s.landed,
                                       "damage": None if s.damage is None else jsonish(s.damage.__dict__)}
                         for s in out.ships}}
        if not matches(expect["outcome"], got):
            return [f"outcome: expected {expect['outcome']!r}, got {got!r}"]
        return []



def _ship_view(state: BattleState, sid: str) -> dict[str, Any] | None:
    ship = state.find(int(sid))
    if ship is None:
        return None
    view = {k: jsonish(v) for k, v in ship.__dict__.items() if k != "design"}
    view["pos"] = f"{ship.pos[0]},{ship.pos[1]}"
    view["facing"] = FACING_NAMES[ship.facing]
    view["force_fields"] = list(ship.force_fields)
    view["arcs"] = dict(zip(ARC_NAMES, ship.force_fields))
    return view


def _planet_view(state: BattleState, pid: str) -> dict[str, Any] | None:
    planet = next((p for p in state.planets if p.id == pid), None)
    return None if planet is None else {"status": planet.status, "owner": planet.owner}


ADAPTER = EventHorizonCases()


def load_cases() -> list[dict]:
    return ADAPTER.load_cases()
