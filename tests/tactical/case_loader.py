"""Tactical rule cases as data: build a ``BattleState`` from a case (tests/tactical/cases/*.json),
run its steps (draw a card, apply an action) with fixed dice and check each step's ``expect``.

The format is described in tests/tactical/cases/README.md. ``run_case`` returns a list of readable
failure lines (empty when the case holds).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from campaign.rules.dice import DiceError, FixedDice, Roll
from campaign.rules.eventhorizon.designs import GALIOT, SAN_MARCO, SULTAN, SWORD, Design
from campaign.rules.eventhorizon.economy import Damage
from tactical.rules.eventhorizon import actions as A
from tactical.rules.eventhorizon.cards import Card, full_deck
from tactical.rules.eventhorizon.deploy import CampaignShip, tactical_ship
from tactical.rules.eventhorizon.engine import (
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
    BattleEvent,
    Battlefield,
    BattleState,
    Boarding,
    IllegalActionError,
    Planet,
    evolve,
    ship_from_design,
)
from tests.rules.case_loader import CaseError, read_case_files

CASES_DIR = Path(__file__).parent / "cases"
CASE_KEYS = {"name", "rule", "doc", "battle", "steps", "xfail"}
BATTLE_KEYS = {"size", "terrain", "wormholes", "planets", "sides", "ships", "deck", "discard", "storm", "card",
               "acting_side", "activations_left", "activated", "activate", "actions_taken", "boardings", "card_cap",
               "cards_drawn", "designs"}
SHIP_KEYS = {"id", "side", "design", "at", "facing", "hero_crew", "damage", "set", "name"}
STEP_KEYS = {"draw", "action", "end", "dice", "expect", "error", "doc"}
EXPECT_KEYS = {"ships", "events", "events_absent", "rolls", "state", "outcome", "planets", "legal", "not_legal"}

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


def load_cases(directory: Path = CASES_DIR) -> list[dict]:
    return read_case_files(directory, CASE_KEYS, ("name", "rule", "battle", "steps"))


def coord(value: str | list) -> tuple[int, int]:
    if isinstance(value, str):
        x, y = value.split(",")
        return int(x), int(y)
    return int(value[0]), int(value[1])


def _tuplify(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    return value


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
            ship = evolve(ship, **{k: _tuplify(v) for k, v in s["set"].items()})
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


def load_action(raw: Mapping[str, Any]) -> A.Action:
    raw = dict(raw)
    kind = raw.pop("type")
    cls = getattr(A, kind, None)
    if cls is None or not isinstance(cls, type):
        raise CaseError(f"unknown action type {kind!r}")
    return cls(**{k: _tuplify(v) for k, v in raw.items()})


# --- checks --------------------------------------------------------------------------------

def _jsonish(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _jsonish(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonish(v) for v in value]
    return value


def _matches(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, Mapping) and all(k in actual and _matches(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            _matches(e, a) for e, a in zip(expected, actual))
    return expected == actual


def _ship_view(ship) -> dict[str, Any]:
    view = {k: _jsonish(v) for k, v in ship.__dict__.items() if k != "design"}
    view["pos"] = f"{ship.pos[0]},{ship.pos[1]}"
    view["facing"] = FACING_NAMES[ship.facing]
    view["force_fields"] = list(ship.force_fields)
    view["arcs"] = dict(zip(ARC_NAMES, ship.force_fields))
    return view


def _event_matches(pattern: Mapping[str, Any], event: BattleEvent) -> bool:
    if "kind" in pattern and pattern["kind"] != event.kind:
        return False
    if "text" in pattern and pattern["text"].lower() not in event.text.lower():
        return False
    if "data" in pattern and not _matches(pattern["data"], _jsonish(dict(event.data))):
        return False
    if "public" in pattern and pattern["public"] != event.public:
        return False
    return True


def _action_json(action: A.Action) -> dict[str, Any]:
    out = {"type": type(action).__name__}
    out.update({k: _jsonish(v) for k, v in action.__dict__.items()})
    return out


def check_expect(expect: Mapping[str, Any], state: BattleState, events: tuple[BattleEvent, ...],
                 rolls: list[Roll]) -> list[str]:
    errors: list[str] = []
    unknown = set(expect) - EXPECT_KEYS
    if unknown:
        raise CaseError(f"expect: unknown key(s) {sorted(unknown)}")
    for sid, want in expect.get("ships", {}).items():
        ship = state.find(int(sid))
        if ship is None:
            errors.append(f"ship {sid}: not in the battle")
            continue
        view = _ship_view(ship)
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
    view = {
        "storm": state.storm, "acting_side": state.acting_side, "activations_left": state.activations_left,
        "deck_size": len(state.deck), "discard_size": len(state.discard), "over": is_over(state),
        "card": state.card.label if state.card else None, "cards_drawn": state.cards_drawn,
        "reshuffles": state.reshuffles, "activation": state.activation.ship if state.activation else None,
        "actions_taken": list(state.activation.actions) if state.activation else None,
        "boardings": [[b.boarder, b.target, b.goes] for b in state.boardings],
        "deck_top": [c.label for c in state.deck[:5]],
    }
    for k, v in expect.get("state", {}).items():
        if k not in view:
            raise CaseError(f"expect.state: unknown key {k!r}")
        if not _matches(v, view[k]):
            errors.append(f"state {k}: expected {v!r}, got {view[k]!r}")
    for pid, want in expect.get("planets", {}).items():
        planet = state.planet(pid)
        got = {"status": planet.status, "owner": planet.owner}
        if not _matches(want, got):
            errors.append(f"planet {pid}: expected {want!r}, got {got!r}")
    if "outcome" in expect:
        out = outcome(state)
        got = {"holder": out.holder, "capped": out.capped, "over": out.over,
               "blockades": [list(b) for b in out.blockades],
               "ships": {str(s.ship): {"fate": s.fate, "side": s.side, "captured_by": s.captured_by,
                                       "crew_escaped": s.crew_escaped, "landed": s.landed,
                                       "damage": None if s.damage is None else _jsonish(s.damage.__dict__)}
                         for s in out.ships}}
        if not _matches(expect["outcome"], got):
            errors.append(f"outcome: expected {expect['outcome']!r}, got {got!r}")
    for key, present in (("legal", True), ("not_legal", False)):
        for want in expect.get(key, []):
            ship = want["ship"]
            actions = [_action_json(a) for a in legal_actions(state, ship)]
            found = any(_matches(want, a) for a in actions)
            if found != present:
                errors.append(f"legal_actions(ship {ship}) {'lacks' if present else 'has'} {want!r}")
    return errors


def describe_rolls(rolls: list[Roll]) -> str:
    return "\n".join(f"    {r.expression} {list(r.faces)} for {r.purpose}" for r in rolls) or "    (none)"


def describe_events(events) -> str:
    return "\n".join(f"    {e.kind}: {e.text} {_jsonish(dict(e.data))}" for e in events) or "    (none)"


def run_case(case: Mapping[str, Any]) -> list[str]:
    """Run every step of ``case``; the failure lines (empty when it holds)."""
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
            if step.get("draw"):
                res = draw_card(state, dice)
            elif "end" in step:
                res = apply(state, A.EndActivation(step["end"]), dice)
            else:
                res = apply(state, load_action(step["action"]), dice)
        except IllegalActionError as exc:
            if "error" not in step:
                return failures + [f"{where}: refused: {exc}\n  rolls:\n{describe_rolls(dice.rolls)}"]
            if step["error"].lower() not in str(exc).lower():
                failures.append(f"{where}: refused with {str(exc)!r}, expected a message containing {step['error']!r}")
            if dice.rolls:
                failures.append(f"{where}: a refused action rolled dice: {describe_rolls(dice.rolls)}")
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
        assert before is not state
    return failures
